//! The instruction set, defined once.
//!
//! The [`isa!`] table below is the only place an instruction is described: its opcode byte,
//! mnemonic, operands (each with a typed [`Operand`] kind) and operand-stack effect. The enum
//! [`Instr`], the byte encoder and decoder, the disassembler and the operand walk the verifier
//! uses are all generated from it, so they cannot disagree.
//!
//! This module must never interpret instructions: execution lives in `exec`, checking in
//! `verify`.

use std::fmt::Write as _;

use super::codec::Reader;
use super::error::{ProgramError, ProgramErrorKind};
use crate::{BinOp, Status};

/// An instruction index inside the program's code (jump targets are instruction indices, not
/// byte offsets, so a target can never point into the middle of an instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub u32);

/// A bit of the running-list set (one per node identity that may return running).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bit(pub u32);

/// A cooldown timer slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timer(pub u32);

/// An index into the import table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imp(pub u32);

/// An index into the function table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Func(pub u32);

/// A per-tick counter register (parallel nodes count finished children in them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Temp(pub u32);

/// An index into the variable table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var(pub u32);

/// An index into the string table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Str(pub u32);

/// An action ordinal: the value (plus one) the current-action slot holds while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActionNo(pub u32);

/// A rule of the cursor model: an index into the program's rule table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleNo(pub u32);

/// A decider-model group: an index into the state's group records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group(pub u32);

/// A bit of the node records (lifecycle and selection models): bit `k % 8` of byte `k / 8` of
/// the records region ([`Layout::records`](super::Layout::records)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RBit(pub u32);

/// A timestamp record (lifecycle model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp(pub u32);

/// A jump target that may lie before the instruction (only `dec.redecide` and `sel.visit`,
/// which count every jump on the tick's step counter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Back(pub u32);

/// What an operand refers to, for the verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandRef {
    /// A jump target.
    Label(u32),
    /// A running-list bit.
    Bit(u32),
    /// A timer slot.
    Timer(u32),
    /// An import.
    Import(u32),
    /// A function.
    Func(u32),
    /// A counter register.
    Temp(u32),
    /// A variable.
    Var(u32),
    /// A string.
    Str(u32),
    /// An action ordinal.
    Action(u32),
    /// A cursor rule.
    Rule(u32),
    /// A decider-model group.
    Group(u32),
    /// A counted jump target that may go backwards (`dec.redecide`, `sel.visit`).
    Back(u32),
    /// A bit of the node records.
    RBit(u32),
    /// A timestamp.
    Stamp(u32),
    /// An immediate that needs no range check.
    Immediate,
}

/// One operand kind: how it is encoded, decoded, printed and range-checked.
pub trait Operand: Sized + Copy {
    /// Appends the operand's bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads the operand.
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError>;
    /// Writes the operand in assembly syntax.
    fn show(self, out: &mut String);
    /// What the operand refers to.
    fn refers(self) -> OperandRef;
    /// The operand with its jump target rewritten by `f`; only labels change.
    fn map_label(self, f: &mut dyn FnMut(Label) -> Label) -> Self {
        let _ = f;
        self
    }
}

macro_rules! index_operand {
    ($($ty:ident $prefix:literal $kind:ident),* $(,)?) => {$(
        impl Operand for $ty {
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.0.to_le_bytes());
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
                r.u32().map($ty)
            }
            fn show(self, out: &mut String) {
                let _ = write!(out, "{}{}", $prefix, self.0);
            }
            fn refers(self) -> OperandRef {
                OperandRef::$kind(self.0)
            }
        }
    )*};
}

impl Operand for Label {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u32().map(Label)
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "L{}", self.0);
    }
    fn refers(self) -> OperandRef {
        OperandRef::Label(self.0)
    }
    fn map_label(self, f: &mut dyn FnMut(Label) -> Label) -> Self {
        f(self)
    }
}

impl Operand for Back {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u32().map(Back)
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "L{}", self.0);
    }
    fn refers(self) -> OperandRef {
        OperandRef::Back(self.0)
    }
    fn map_label(self, f: &mut dyn FnMut(Label) -> Label) -> Self {
        Back(f(Label(self.0)).0)
    }
}

index_operand! {
    Group "group" Group,
    Bit "bit" Bit,
    Timer "timer" Timer,
    Imp "import" Import,
    Func "fn" Func,
    Temp "t" Temp,
    Var "var" Var,
    Str "str" Str,
    ActionNo "action" Action,
    RuleNo "rule" Rule,
    RBit "rbit" RBit,
    Stamp "ts" Stamp,
}

impl Operand for u8 {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u8()
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for u32 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u32()
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for i64 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u64().map(|v| v as i64)
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for f64 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        r.u64().map(f64::from_bits)
    }
    fn show(self, out: &mut String) {
        let _ = write!(
            out,
            "{}",
            crate::Value::Float(self).display(&crate::Strings::new())
        );
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for bool {
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        match r.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.error(
                ProgramErrorKind::BadOperand,
                format!("{b} is not a boolean"),
            )),
        }
    }
    fn show(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for Status {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        let b = r.u8()?;
        Status::from_u8(b)
            .ok_or_else(|| r.error(ProgramErrorKind::BadOperand, format!("{b} is not a status")))
    }
    fn show(self, out: &mut String) {
        out.push_str(self.name());
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

impl Operand for BinOp {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, ProgramError> {
        let b = r.u8()?;
        BinOp::from_u8(b).ok_or_else(|| {
            r.error(
                ProgramErrorKind::BadOperand,
                format!("{b} is not an operator"),
            )
        })
    }
    fn show(self, out: &mut String) {
        out.push_str(self.symbol());
    }
    fn refers(self) -> OperandRef {
        OperandRef::Immediate
    }
}

macro_rules! isa {
    ($(
        $(#[$doc:meta])*
        $opcode:literal $name:ident $mnemonic:literal { $($field:ident : $ty:ty),* }
            pop($pop:expr) push($push:expr);
    )*) => {
        /// One instruction. See `spec/bytecode.md` for the semantics of each.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Instr {
            $( $(#[$doc])* $name { $( #[allow(missing_docs)] $field: $ty ),* }, )*
        }

        impl Instr {
            /// The opcode byte.
            pub fn opcode(&self) -> u8 {
                match self { $( Instr::$name { .. } => $opcode, )* }
            }

            /// The assembly mnemonic.
            pub fn mnemonic(&self) -> &'static str {
                match self { $( Instr::$name { .. } => $mnemonic, )* }
            }

            /// Appends the instruction's bytes: the opcode, then each operand little-endian.
            pub fn encode(&self, out: &mut Vec<u8>) {
                match *self {
                    $( Instr::$name { $($field),* } => {
                        out.push($opcode);
                        $( Operand::put($field, out); )*
                    } )*
                }
            }

            /// Reads one instruction.
            pub fn decode(r: &mut Reader<'_>) -> Result<Instr, ProgramError> {
                let at = r.position();
                match r.u8()? {
                    $( $opcode => Ok(Instr::$name { $( $field: <$ty as Operand>::get(r)? ),* }), )*
                    op => Err(ProgramError::new(
                        ProgramErrorKind::BadOpcode,
                        format!("unknown opcode 0x{op:02x} at byte {at}"),
                    )),
                }
            }

            /// Calls `f` with what each operand refers to, in operand order.
            pub fn operands(&self, mut f: impl FnMut(OperandRef)) {
                match *self {
                    $( Instr::$name { $($field),* } => { $( f(Operand::refers($field)); )* } )*
                }
                let _ = &mut f;
            }

            /// Rewrites every label operand with `f` (how an assembler resolves its labels).
            pub fn map_labels(&mut self, mut f: impl FnMut(Label) -> Label) {
                match self {
                    $( Instr::$name { $($field),* } => {
                        $( *$field = Operand::map_label(*$field, &mut f); )*
                    } )*
                }
                let _ = &mut f;
            }

            /// The operand-stack effect: values popped, then values pushed.
            #[allow(unused_variables)]
            pub fn stack_effect(&self) -> (u32, u32) {
                match *self {
                    $( Instr::$name { $($field),* } => ($pop, $push), )*
                }
            }

            /// The instruction in assembly syntax (`mnemonic operand, operand`).
            pub fn asm(&self) -> String {
                let mut out = String::from(self.mnemonic());
                #[allow(unused_mut)]
                let mut first = true;
                match *self {
                    $( Instr::$name { $($field),* } => {
                        $(
                            out.push_str(if first { " " } else { ", " });
                            first = false;
                            Operand::show($field, &mut out);
                        )*
                    } )*
                }
                let _ = first;
                out
            }
        }
    };
}

isa! {
    /// Continue at `to`.
    0x01 Jump "jump" { to: Label } pop(0) push(0);
    /// End the tick of an entry function with `status`.
    0x03 Finish "finish" { status: Status } pop(0) push(0);
    /// Return `status` from a subtree function: continue at the calling `call`'s label for it.
    0x04 Return "return" { status: Status } pop(0) push(0);
    /// Run subtree function `func`; continue at the label for the status it returns.
    0x05 Call "call" { func: Func, success: Label, failure: Label, running: Label } pop(0) push(0);
    /// Evaluate an action node (running-list model): pop `argc` arguments, call the host with
    /// phase `continue` if the current-action slot holds `action`, else `enter`; do the node's
    /// bookkeeping on the slot and the running list (`bit`); continue at the label for the
    /// status.
    0x06 Act "act" { import: Imp, argc: u8, action: ActionNo, bit: Bit, success: Label, failure: Label, running: Label } pop(u32::from(argc)) push(0);
    /// Jump to `to` if `bit` is in the running list.
    0x07 JumpIfListed "jump.listed" { bit: Bit, to: Label } pop(0) push(0);
    /// A node succeeded: if `bit` is listed, clear the whole running list; continue at `to`.
    0x08 OnSuccess "list.success" { bit: Bit, to: Label } pop(0) push(0);
    /// A node is running: list `bit` unless listed already or the list is full; continue at
    /// `to`.
    0x09 OnRunning "list.running" { bit: Bit, to: Label } pop(0) push(0);
    /// Jump to `to` unless `now > until[timer]` (the cooldown is closed).
    0x0a JumpIfCooling "jump.cooling" { timer: Timer, to: Label } pop(0) push(0);
    /// `until[timer] = now + ms` (saturating).
    0x0b Arm "timer.arm" { timer: Timer, ms: u32 } pop(0) push(0);
    /// Set counter `temp` to zero.
    0x0c Zero "temp.zero" { temp: Temp } pop(0) push(0);
    /// Add one to counter `temp`.
    0x0d Inc "temp.inc" { temp: Temp } pop(0) push(0);
    /// A parallel's outcome from its counters: success if the success quorum is reached
    /// (`all`: `succ == n`; `any`: `succ > 0`), else failure if the failure quorum is, else
    /// success when `n == 0`, else running; continue at the label for it.
    0x0e Quorum "quorum" { succ: Temp, fail: Temp, n: u32, success_all: bool, failure_all: bool, success: Label, failure: Label, running: Label } pop(0) push(0);
    /// Pop the right then the left operand; jump to `to` if `left op right` is truthy exactly
    /// when `when` is true (a fused `bin` + `jump.true`/`jump.false`).
    0x0f JumpIfCmp "jump.cmp" { op: BinOp, when: bool, to: Label } pop(2) push(0);
    /// Pop a value; jump to `to` if comparing it (as a double) with the constant `k` by `op`
    /// is true exactly when `when` is true (`jump.cmp` with a numeric literal on the right).
    0x1d JumpIfCmpK "jump.cmpk" { op: BinOp, when: bool, k: f64, to: Label } pop(1) push(0);
    /// `call.fn import, argc` then `jump.cmpk op, when, k, to` in one instruction: the host
    /// result is compared with the constant without touching the stack.
    0x1e CallFnCmpK "call.fn.cmpk" { import: Imp, argc: u8, op: BinOp, when: bool, k: f64, to: Label } pop(u32::from(argc)) push(0);
    /// Push a boolean.
    0x10 PushBool "push.bool" { value: bool } pop(0) push(1);
    /// Push an integer.
    0x11 PushInt "push.int" { value: i64 } pop(0) push(1);
    /// Push a float.
    0x12 PushFloat "push.float" { value: f64 } pop(0) push(1);
    /// Push a string.
    0x13 PushStr "push.str" { value: Str } pop(0) push(1);
    /// Push a variable's value.
    0x14 PushVar "push.var" { var: Var } pop(0) push(1);
    /// Pop `argc` arguments, call host function `import`, push its result (rounded to binary32
    /// under single precision).
    0x15 CallFn "call.fn" { import: Imp, argc: u8 } pop(u32::from(argc)) push(1);
    /// Push a float in `[0, 1)` from the agent's PRNG.
    0x16 Random "random" {} pop(0) push(1);
    /// Replace the top with `!truthy(top)`.
    0x17 Not "not" {} pop(1) push(1);
    /// Replace the top with `-(top as f64)`.
    0x18 Neg "neg" {} pop(1) push(1);
    /// Replace the top with `truthy(top)` as a boolean.
    0x19 Truthy "truthy" {} pop(1) push(1);
    /// Pop the right then the left operand, push `left op right`.
    0x1a Bin "bin" { op: BinOp } pop(2) push(1);
    /// Pop; jump to `to` if the value is not truthy.
    0x1b JumpIfFalse "jump.false" { to: Label } pop(1) push(0);
    /// Pop; jump to `to` if the value is truthy.
    0x1c JumpIfTrue "jump.true" { to: Label } pop(1) push(0);
    /// Cursor model: start a step. A halted agent ends the tick with failure at once;
    /// otherwise continue at the code of the rule in the cursor slot (the root if the slot
    /// holds no valid rule).
    0x20 Dispatch "cursor.dispatch" {} pop(0) push(0);
    /// Cursor model: `move(rule)` — the cursor becomes `rule` and `first_run` true; count one
    /// rule run on the tick's step counter (a run-away at the limit halts the agent and ends
    /// the tick with failure); continue at the rule's code.
    0x21 Move "cursor.move" { rule: RuleNo } pop(0) push(0);
    /// Cursor model: the cursor becomes `rule` and `first_run` true.
    0x22 SetCursor "cursor.set" { rule: RuleNo } pop(0) push(0);
    /// Cursor model: count one rule run on the tick's step counter; at the limit, halt the
    /// agent (run-away) and end the tick with failure.
    0x23 Step "cursor.step" {} pop(0) push(0);
    /// Cursor model: the root failed: halt the agent (stopped) and end the tick with failure.
    0x24 Stop "cursor.stop" {} pop(0) push(0);
    /// Cursor model action: pop `argc` arguments, call the host with phase `enter` if
    /// `first_run`, else `continue`; clear `first_run`; continue at the label for the status.
    0x25 ActCursor "act.cursor" { import: Imp, argc: u8, success: Label, failure: Label, running: Label } pop(u32::from(argc)) push(0);
    /// Cursor model `yield`: if `first_run`, clear it and continue at `running`; else at
    /// `success`.
    0x26 Yield "yield" { success: Label, running: Label } pop(0) push(0);
    /// Push whether the host has import `import` right now (`Host::available`).
    0x27 PushBound "push.bound" { import: Imp } pop(0) push(1);
    /// Decider model: a tick starts: clear the loop-guard flag, then remove every present
    /// stimulus whose expiry is `<= now` (never-expiring ones stay).
    0x30 DecBegin "dec.begin" {} pop(0) push(0);
    /// Decider model: jump to `to` if the root decider is active.
    0x31 DecJumpRoot "dec.jump.root" { to: Label } pop(0) push(0);
    /// Decider model: the root becomes active (`on`, with `since = now`) or inactive.
    0x32 DecRoot "dec.root" { on: bool } pop(0) push(0);
    /// Decider model: set the loop-guard flag (the tick ends with the redecide-limit error).
    0x33 DecGuard "dec.guard" {} pop(0) push(0);
    /// Decider model: jump to `to` unless the flag test (`btvm::decider::flag_test`) of `mask`
    /// on the DecisionFlags word (or the StimuliFlags word, with `stimuli`) holds.
    0x34 DecTest "dec.test" { stimuli: bool, mask: u32, all: bool, set: bool, to: Label } pop(0) push(0);
    /// Decider model: jump to `to` if `now < next[timer]` (an `every` decider waits).
    0x35 DecWait "dec.every.wait" { timer: Timer, to: Label } pop(0) push(0);
    /// Decider model: `next[timer] = now + ms` (saturating).
    0x36 DecStamp "dec.every.stamp" { timer: Timer, ms: u32 } pop(0) push(0);
    /// Decider model: jump to `to` if group `group`'s active byte is `active` (0 = none,
    /// `k + 1` = child `k`).
    0x37 DecJumpActive "dec.jump.active" { group: Group, active: u8, to: Label } pop(0) push(0);
    /// Decider model: child `child` becomes the group's active child, chosen `now`.
    0x38 DecSet "dec.set" { group: Group, child: u8 } pop(0) push(0);
    /// Decider model: the group has no active child.
    0x39 DecClear "dec.clear" { group: Group } pop(0) push(0);
    /// Decider model: call behavior action `import` (no arguments) with phase `phase` (0
    /// activate = `enter`, 1 tick = `continue`, 2 deactivate = `exit`); jump to `fail` if it
    /// returns failure (never for deactivate, whose result is ignored).
    0x3a Behave "behave" { import: Imp, phase: u8, fail: Label } pop(0) push(0);
    /// Decider model: the group is entered this tick: no child masked, none being switched to.
    0x3b DecEnter "dec.enter" { group: Group } pop(0) push(0);
    /// Decider model: the group switches to `child` (the choice register `pick`).
    0x3c DecPick "dec.pick" { group: Group, child: u8 } pop(0) push(0);
    /// Decider model: jump to `to` if the group's `pick` is `child`.
    0x3d DecJumpPick "dec.jump.pick" { group: Group, child: u8, to: Label } pop(0) push(0);
    /// Decider model: add `child` to the group's mask (the children its choice skips for the
    /// rest of the tick, or until the group is entered again).
    0x3e DecMask "dec.mask" { group: Group, child: u8 } pop(0) push(0);
    /// Decider model: jump to `to` if `child` is in the group's mask.
    0x3f DecJumpMasked "dec.jump.masked" { group: Group, child: u8, to: Label } pop(0) push(0);
    /// Decider model: the group's candidate set becomes empty.
    0x40 DecCandClear "dec.cand.clear" { group: Group } pop(0) push(0);
    /// Decider model: add `child` to the group's candidate set.
    0x41 DecCand "dec.cand" { group: Group, child: u8 } pop(0) push(0);
    /// Decider model: pop a score; jump to `reject` unless it is `> 0` as a double (NaN
    /// rejects); else add `child` to the candidates with that score.
    0x42 DecScore "dec.score" { group: Group, child: u8, reject: Label } pop(1) push(0);
    /// Decider model (`random`): jump to `none` if there is no candidate; else draw `r` from
    /// the agent's PRNG, take the `k = min(floor(r × count), count − 1)`-th candidate in child
    /// order, remove it from the set and `pick` it.
    0x43 DecDraw "dec.draw" { group: Group, none: Label } pop(0) push(0);
    /// Decider model (`scored`): jump to `none` if there is no candidate; else take the one
    /// with the highest score (the earliest on ties), remove it from the set and `pick` it.
    0x44 DecBest "dec.best" { group: Group, none: Label } pop(0) push(0);
    /// Decider model: count one redecide on the tick's counter; past the program's limit
    /// continue at `guard` (the loop-guard exit), else at `to`, which may lie before this
    /// instruction.
    0x45 DecRedecide "dec.redecide" { to: Back, guard: Label } pop(0) push(0);
    /// Decider model (`sequential`): add `child` and every child before it to the group's mask.
    0x46 DecMaskUpTo "dec.mask.upto" { group: Group, child: u8 } pop(0) push(0);
    // ---- state variables, node records and timestamps (lifecycle and selection models) --
    /// Push variable `var`'s value from the state (a boolean: its bit XOR its default).
    0x50 VarPush "var.push" { var: Var } pop(0) push(1);
    /// Jump to `to` if variable `var`'s value is `when`.
    0x51 VarJump "var.jump" { var: Var, when: bool, to: Label } pop(0) push(0);
    /// Pop a value; variable `var` becomes its truthiness; if that differs from the old value,
    /// `changed` becomes true.
    0x52 VarSet "var.set" { var: Var } pop(1) push(0);
    /// Jump to `to` if the tree is stopped (an event function's first instruction: an event to
    /// a stopped tree does nothing).
    0x53 JumpStopped "jump.stopped" { to: Label } pop(0) push(0);
    /// Jump to `to` if record bit `bit` is `when`.
    0x54 RecJump "rec.jump" { bit: RBit, when: bool, to: Label } pop(0) push(0);
    /// Record bit `bit` becomes `value`.
    0x55 RecBit "rec.bit" { bit: RBit, value: bool } pop(0) push(0);
    /// Zero record bytes `at .. at + len` (a subtree's records: its nodes are no longer live).
    0x56 RecZero "rec.zero" { at: u32, len: u32 } pop(0) push(0);
    /// Jump to `to` if the record field at `at` (`width` bytes: 1, 2 or 4) equals `value`.
    0x57 RecJumpEq "rec.jump.eq" { at: u32, width: u8, value: u32, to: Label } pop(0) push(0);
    /// Jump to `to` if the record field at `at` is at least `value`.
    0x58 RecJumpGe "rec.jump.ge" { at: u32, width: u8, value: u32, to: Label } pop(0) push(0);
    /// The record field at `at` becomes `value` (its low `width` bytes).
    0x59 RecSet "rec.set" { at: u32, width: u8, value: u32 } pop(0) push(0);
    /// Add one to the record field at `at`, saturating at the field's maximum.
    0x5a RecInc "rec.inc" { at: u32, width: u8 } pop(0) push(0);
    /// The record field at `dst` becomes the one at `src` (both `width` bytes).
    0x5b RecCopy "rec.copy" { dst: u32, src: u32, width: u8 } pop(0) push(0);
    /// Push a timestamp query: `query` 0 *ever set* and 1 *valid* (booleans), 2 the
    /// milliseconds since the stamp (an int, `now - time`, saturating).
    0x5c TsPush "ts.push" { ts: Stamp, query: u8 } pop(0) push(1);
    /// Stamp `ts`: its time becomes `now`; it is ever set and valid.
    0x5d TsStamp "ts.stamp" { ts: Stamp } pop(0) push(0);
    /// `ts` is no longer valid (it stays ever set).
    0x5e TsInvalidate "ts.invalidate" { ts: Stamp } pop(0) push(0);
    // ---- lifecycle model (MBT) ----------------------------------------------------------
    /// Lifecycle model: a tick starts. Jump to `stopped` if the tree is stopped; else
    /// `changed_before = changed`, `changed = false`.
    0x60 LcBegin "lc.begin" { stopped: Label } pop(0) push(0);
    /// Lifecycle model: the root finished: the tree stops (until the agent is reset).
    0x61 LcStop "lc.stop" {} pop(0) push(0);
    /// Lifecycle model: jump to `to` if `changed_before || changed` (Priority's
    /// `changed_since_last_tick()`).
    0x62 LcJumpChanged "lc.jump.changed" { to: Label } pop(0) push(0);
    /// Lifecycle action: pop `argc` arguments; call action `import` with phase `continue` if
    /// record bit `live` is set, else `enter`; `live` becomes whether it returned running;
    /// continue at the label for the status.
    0x63 LcAct "lc.act" { import: Imp, argc: u8, live: RBit, success: Label, failure: Label, running: Label } pop(u32::from(argc)) push(0);
    /// Pop `argc` arguments and call `import`: an action with phase `phase` (0 `enter`,
    /// 1 `continue`, 2 `exit`), or a function; the result is ignored (hooks, exit calls).
    0x64 LcCall "lc.call" { import: Imp, argc: u8, phase: u8 } pop(u32::from(argc)) push(0);
    /// Give string `msg` to the host's log (`Host::log`).
    0x65 LcLog "lc.log" { msg: Str } pop(0) push(0);
    /// The record `i64` at `at` becomes `now + time + v` (saturating; `now`, `time` and `v` in
    /// the program's clock units, [`crate::Program::clock`]), `v` 0 when `variation` is 0,
    /// else `min(floor(r * (variation + 1)), variation)` for one draw `r` of the agent's PRNG.
    0x66 LcWaitArm "lc.wait.arm" { at: u32, time: i64, variation: u32 } pop(0) push(0);
    /// Jump to `to` if `now` (in clock units) is before the record `i64` at `at` (still
    /// waiting).
    0x67 LcJumpWait "lc.jump.wait" { at: u32, to: Label } pop(0) push(0);
    /// A remembering parallel's outcome: the finished-children mask is `ceil(n / 8)` record
    /// bytes at `at`, the succeeded-children mask the same number right after; success if the
    /// success quorum is reached (`all`: `n` successes; else one), else failure if the failure
    /// quorum is, else success when `n == 0`, else running; continue at its label.
    0x68 LcQuorum "lc.quorum" { at: u32, n: u8, success_all: bool, failure_all: bool, success: Label, failure: Label, running: Label } pop(0) push(0);
    /// Enter group scope `scope` (named by the string; the lowering gives every name with one
    /// CRC-32 of its lower-cased text one string) in the agent's AI group (the record `u32` at
    /// `group`), unless `max` or more agents of that group are members of it already: then
    /// record bit `held` is set and, unless record bit `member` (the agent is a member of the
    /// scope) is already set, it is set and the agent counted in (members are a set).
    0x69 ScopeEnter "scope.enter" { scope: Str, max: u32, held: RBit, member: RBit, group: u32 } pop(0) push(0);
    /// If record bit `held` is set: clear it and, if record bit `member` is set, clear that and
    /// count the agent out of scope `scope` of its AI group (the record `u32` at `group`).
    0x6a ScopeLeave "scope.leave" { scope: Str, held: RBit, member: RBit, group: u32 } pop(0) push(0);
    // ---- selection model (BST) ----------------------------------------------------------
    /// Selection model: a tick starts: jump to `unchanged` unless a variable changed.
    0x70 SelBegin "sel.begin" { unchanged: Label } pop(0) push(0);
    /// Jump to `to` if the current leaf (the previous leaf, during an evaluation) is one of
    /// leaves `lo .. hi`.
    0x71 SelJumpPrev "sel.jump.prev" { lo: u32, hi: u32, to: Label } pop(0) push(0);
    /// A state machine's walk starts: the visited set becomes `{state}`, `state` the record
    /// byte at `at` (its stored current state).
    0x72 SelSeen "sel.seen" { at: u32 } pop(0) push(0);
    /// A transition to state `target` fires: count a step on the tick's counter and store
    /// `target` in the record byte at `at` (the transition is taken); past the program's
    /// limit, or if `target` was visited, continue at `stop` (the chain ends); else add it to
    /// the visited set and continue at `to`, **which may lie before the instruction** (the
    /// only backward jump of selection programs).
    0x73 SelVisit "sel.visit" { at: u32, target: u8, stop: Label, to: Back } pop(0) push(0);
    /// Leaf `leaf` is selected: `changed` becomes false; if the current leaf is another one,
    /// it becomes `leaf` and the host is told behavior `name` (`Host::select`).
    0x74 SelLeaf "sel.leaf" { leaf: u32, name: Str } pop(0) push(0);
    /// No leaf is selected: there is no current leaf any more, and the host is told `""`
    /// (on every such evaluation).
    0x75 SelNone "sel.none" {} pop(0) push(0);
    /// Jump to `to` if there is a current leaf.
    0x76 SelJumpLeaf "sel.jump.leaf" { to: Label } pop(0) push(0);
    // ---- node-level tracing (only in programs lowered with tracing on) ----------------
    /// Node `node` (an index into the program's node table) is entered: tell the host
    /// (`Host::node` with `NodeEvent::Enter`). Never in an untraced program.
    0x80 NodeEnter "node.enter" { node: u32 } pop(0) push(0);
    /// Node `node` finished with `status`: tell the host (`Host::node` with
    /// `NodeEvent::Finish`). Never in an untraced program.
    0x81 NodeExit "node.exit" { node: u32, status: Status } pop(0) push(0);
}

impl Instr {
    /// Whether execution can continue at the next instruction.
    pub fn falls_through(&self) -> bool {
        !matches!(
            self,
            Instr::Jump { .. }
                | Instr::Finish { .. }
                | Instr::Return { .. }
                | Instr::Call { .. }
                | Instr::Act { .. }
                | Instr::OnSuccess { .. }
                | Instr::OnRunning { .. }
                | Instr::Quorum { .. }
                | Instr::Dispatch {}
                | Instr::Move { .. }
                | Instr::Stop {}
                | Instr::ActCursor { .. }
                | Instr::Yield { .. }
                | Instr::DecRedecide { .. }
                | Instr::LcAct { .. }
                | Instr::LcQuorum { .. }
                | Instr::SelVisit { .. }
        )
    }

    /// Whether the instruction belongs to the decider model.
    pub fn is_decider(&self) -> bool {
        (0x30..=0x46).contains(&self.opcode())
    }

    /// Whether the instruction works on state variables, node records or timestamps (the
    /// lifecycle and selection models).
    pub fn is_record(&self) -> bool {
        (0x50..=0x5e).contains(&self.opcode())
    }

    /// Whether the instruction belongs to the lifecycle model.
    pub fn is_lifecycle(&self) -> bool {
        (0x60..=0x6a).contains(&self.opcode())
    }

    /// Whether the instruction belongs to the selection model.
    pub fn is_selection(&self) -> bool {
        (0x70..=0x76).contains(&self.opcode())
    }

    /// Whether the instruction is a node-level trace event (`node.enter`, `node.exit`): only
    /// programs lowered with tracing on hold them, in every model.
    pub fn is_trace(&self) -> bool {
        (0x80..=0x81).contains(&self.opcode())
    }
}
