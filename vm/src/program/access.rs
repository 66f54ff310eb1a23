//! Everything a [`Program`] does, in one `impl`: building and encoding it, reading its parts,
//! and the per-model operations on an agent's state block that games call between ticks.
//!
//! The methods that need a model's meaning of the state are one-line calls into that model's
//! module ([`model`](crate::model)); none holds model logic itself. Nothing here runs a tick.

#[cfg(feature = "jit")]
use super::NativeCache;
use super::{
    codec, read, verify, Data, Function, FunctionKind, Instr, Layout, Program, ProgramError,
    ProgramModel, ProgramParts, Rule, FLAG_RUNAWAY, FLAG_STOPPED,
};
use crate::model::{cursor, decider, lifecycle, running_list};
use crate::{
    CursorSnapshot, DeciderView, Host, Import, ImportId, Limits, SnapshotError, Stimulus, Strings,
    Value, VmError,
};

impl Program {
    /// Verifies `parts` under `limits` and builds the program.
    pub fn new(parts: ProgramParts, limits: &Limits) -> Result<Program, ProgramError> {
        let facts = verify::verify(&parts, limits)?;
        let mut strings = Strings::new();
        for s in &parts.strings {
            strings.intern(s);
        }
        let fingerprint = codec::fingerprint(&codec::encode_body(&parts));
        let scopes = lifecycle::GroupScopes::of(&parts.code);
        Ok(Program {
            data: std::sync::Arc::new(Data {
                parts,
                strings,
                fingerprint,
                facts,
                scopes,
                #[cfg(feature = "jit")]
                native: NativeCache::new(),
            }),
        })
    }

    /// Reads and verifies a program file written by [`Program::encode`].
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Program, ProgramError> {
        let parts = codec::decode(bytes, limits)?;
        Program::new(parts, limits)
    }

    /// The program file: magic, version, a checksum of the rest, then the parts and the node
    /// table (`spec/bytecode.md` §5).
    pub fn encode(&self) -> Vec<u8> {
        codec::encode(&self.data.parts)
    }

    /// The parts the program was built from.
    pub fn parts(&self) -> &ProgramParts {
        &self.data.parts
    }

    /// A 64-bit hash of the program's contents: snapshots of agent state are only valid for a
    /// program with the same fingerprint.
    pub fn fingerprint(&self) -> u64 {
        self.data.fingerprint
    }

    /// Bytes of state per agent.
    pub fn state_size(&self) -> usize {
        self.data.parts.layout.size as usize
    }

    /// A fresh agent's state block (all zeroes).
    pub fn new_state(&self) -> Vec<u8> {
        vec![0; self.state_size()]
    }

    /// The import table.
    pub fn imports(&self) -> &[Import] {
        &self.data.parts.imports
    }

    /// The strings `Value::Str` values refer to.
    pub fn strings(&self) -> &Strings {
        &self.data.strings
    }

    /// The entry functions' names, main first.
    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.data
            .parts
            .functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry)
            .map(|f| f.name.as_str())
    }

    /// The function index of the named entry.
    pub fn entry(&self, name: &str) -> Option<u32> {
        self.data
            .parts
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Entry && f.name == name)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The main entry's function index (the first entry), if any.
    pub fn main(&self) -> Option<u32> {
        self.data
            .parts
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Entry)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The deepest operand stack any tick needs.
    pub fn max_stack(&self) -> u32 {
        self.data.facts.max_stack
    }

    /// The deepest chain of subtree calls.
    pub fn max_calls(&self) -> u32 {
        self.data.facts.max_calls
    }

    /// The most instructions one tick of any entry can execute (proved by the verifier).
    pub fn tick_budget(&self) -> u64 {
        self.data.facts.tick_cost
    }

    /// Where agents keep their AI group and which scope memberships they can hold.
    pub(crate) fn group_scopes(&self) -> &lifecycle::GroupScopes {
        &self.data.scopes
    }

    /// The code.
    pub fn code(&self) -> &[Instr] {
        &self.data.parts.code
    }

    /// The state layout.
    pub fn layout(&self) -> &Layout {
        &self.data.parts.layout
    }

    /// The execution model.
    pub fn model(&self) -> ProgramModel {
        self.data.parts.model
    }

    /// The tree's time unit, in units per millisecond ([`ProgramParts::clock`]).
    pub fn clock(&self) -> u32 {
        self.data.parts.clock
    }

    /// The functions.
    pub fn functions(&self) -> &[Function] {
        &self.data.parts.functions
    }

    /// The variable values.
    pub fn vars(&self) -> &[Value] {
        &self.data.parts.vars
    }

    /// Whether host float results are rounded to binary32.
    pub fn single_precision(&self) -> bool {
        self.data.parts.single_precision
    }

    /// Counter registers needed per tick.
    pub fn temps(&self) -> u32 {
        self.data.parts.temps
    }

    /// The cursor model's rule table (empty in other models).
    pub fn rules(&self) -> &[Rule] {
        &self.data.parts.rules
    }

    /// Why the agent whose state is `state` no longer runs, if it is halted (cursor model:
    /// stopped or run-away; lifecycle model: stopped after the root finished).
    pub fn halt(&self, state: &[u8]) -> Option<crate::Halt> {
        if !matches!(
            self.data.parts.model,
            ProgramModel::Cursor { .. } | ProgramModel::Lifecycle
        ) {
            return None;
        }
        let flags = read(state, self.data.parts.layout.flags) as u8;
        if flags & FLAG_RUNAWAY != 0 {
            Some(crate::Halt::RunAway)
        } else if flags & FLAG_STOPPED != 0 {
            Some(crate::Halt::Stopped)
        } else {
            None
        }
    }

    /// Resets an agent's behaviour state, as the dialect's game does.
    ///
    /// In the running-list model this is Unvanquished's `G_Bot_ResetBehaviorState`: the
    /// current-action slot and the running list are cleared, and everything else (cooldown
    /// timers, which the game keeps in the tree's nodes) survives. In every other model the
    /// state becomes fresh (all zeroes), as after [`Program::new_state`]; in the cursor model
    /// this is Drag\[en\]gine's `reset()`: the cursor returns to the root and a stopped tree
    /// runs again. A lifecycle agent keeps its AI group ([`Program::group`]); one holding group
    /// scopes should be reset with [`Engine::reset_agent`](crate::Engine::reset_agent), which
    /// also leaves them.
    pub fn reset(&self, state: &mut [u8]) {
        if self.data.parts.model == ProgramModel::RunningList {
            running_list::reset(state, &self.data.parts.layout);
        } else {
            let group = self.group(state);
            state.fill(0);
            if group != 0 {
                lifecycle::write_group(self, state, group);
            }
        }
    }

    #[cfg(feature = "jit")]
    pub(crate) fn native_cache(&self) -> &NativeCache {
        &self.data.native
    }

    /// Binds every import of the program to `host`, once, at load: unknown names are an
    /// error, except in the cursor model (Drag\[en\]gine), which looks names up at run time and
    /// fails the rule instead (see [`Host::available`]).
    pub fn bind<H: Host + ?Sized>(&self, host: &mut H) -> Result<(), VmError> {
        let lazy = matches!(self.model(), ProgramModel::Cursor { .. });
        for (i, imp) in self.imports().iter().enumerate() {
            let id = ImportId(u32::try_from(i).unwrap_or(u32::MAX));
            if !host.bind_import(id, imp) && !lazy {
                return Err(VmError::UnknownImport {
                    name: imp.name.clone(),
                    kind: imp.kind.name(),
                });
            }
        }
        Ok(())
    }

    /// This program compiled to native code with the default
    /// [`NativeConfig`](crate::native::NativeConfig), compiled on first use and cached for the
    /// program's lifetime (clones share it).
    #[cfg(feature = "jit")]
    pub fn native(&self) -> Result<&crate::native::NativeCode, &crate::native::NativeError> {
        self.native_shared().map(|code| &**code)
    }

    /// The cached default native compilation, shared (compiled on first use).
    #[cfg(feature = "jit")]
    pub(crate) fn native_shared(
        &self,
    ) -> Result<&std::sync::Arc<crate::native::NativeCode>, &crate::native::NativeError> {
        use crate::native::{NativeCode, NativeConfig};
        self.native_cache()
            .get_or_init(|| NativeCode::compile(self, &NativeConfig::default()).map(Into::into))
            .as_ref()
    }

    // Cursor model.

    /// Saves where the cursor of the agent with state `state` rests, and whether its tree is
    /// stopped (cursor model).
    pub fn snapshot(&self, state: &[u8]) -> Result<CursorSnapshot, SnapshotError> {
        cursor::snapshot(self, state)
    }

    /// Restores a saved cursor into `state`, as the original's `readFromFile` does into an
    /// existing context: a saved rule id becomes the cursor (an id the tree lacks leaves the
    /// agent without a current rule, so its next tick runs nothing, fails and stops the tree);
    /// without a saved rule the cursor stays as it is; `first_run` is the saved one; the agent
    /// is stopped exactly if the record says it failed. Nothing else in `state` changes.
    pub fn restore(&self, state: &mut [u8], snap: &CursorSnapshot) -> Result<(), SnapshotError> {
        cursor::restore(self, state, snap)
    }

    // Snapshots, every model (`spec/bytecode.md` §9).

    /// Fails unless `state` could be an agent's state block of this program: its size, and
    /// the index fields each model can check cheaply (a cursor's rule, a current action or
    /// leaf, a running list's count). Every restore from outside bytes runs it. Engines stay
    /// safe on blocks it accepts or never saw: garbage can misbehave, never panic.
    pub fn check_state(&self, state: &[u8]) -> Result<(), SnapshotError> {
        crate::model::check::check_state(self, state)
    }

    /// One agent's snapshot ([`crate::Snapshot`] with one record) as bytes.
    pub fn save_agent(
        &self,
        id: crate::AgentId,
        status: crate::Status,
        state: &[u8],
    ) -> Result<Vec<u8>, SnapshotError> {
        self.check_state(state)?;
        let mut snap = crate::Snapshot::new(self);
        snap.push(id, status, state);
        Ok(snap.encode())
    }

    /// Reads a one-agent snapshot of this program ([`Program::save_agent`]) into `state` and
    /// returns its record (id and status). `state` is unchanged on error. A lifecycle agent
    /// holding group scopes must be restored through
    /// [`Engine::restore_agent`](crate::Engine::restore_agent), which counts it in them.
    pub fn restore_agent(
        &self,
        bytes: &[u8],
        limits: &Limits,
        state: &mut [u8],
    ) -> Result<crate::AgentRecord, SnapshotError> {
        let snap = crate::Snapshot::decode(bytes, self, limits)?;
        let [record] = <[crate::AgentRecord; 1]>::try_from(snap.agents)
            .map_err(|v| SnapshotError::AgentCount { found: v.len() })?;
        if state.len() != record.state.len() {
            return Err(SnapshotError::StateSize {
                expected: record.state.len(),
                found: state.len(),
            });
        }
        state.copy_from_slice(&record.state);
        Ok(record)
    }

    // Decider model.

    /// Decider model: sets the agent's DecisionFlags word (kept until changed). Does nothing in
    /// other models.
    pub fn set_decision_flags(&self, state: &mut [u8], word: u32) {
        decider::set_decision_flags(self, state, word)
    }

    /// Decider model: adds stimulus `bit` to the agent, replacing a present one. `false` (and
    /// nothing changes) when the program is not a decider program or `bit` is not a declared
    /// stimulus.
    pub fn add_stimulus(&self, state: &mut [u8], bit: u32, stimulus: Stimulus) -> bool {
        decider::add_stimulus(self, state, bit, stimulus)
    }

    /// Decider model: removes stimulus `bit` from the agent (nothing if it is not present).
    pub fn remove_stimulus(&self, state: &mut [u8], bit: u32) {
        decider::remove_stimulus(self, state, bit)
    }

    /// Decider model: the agent's active path and inputs, as every engine reports them; `None`
    /// in other models.
    pub fn decider_view(&self, state: &[u8]) -> Option<DeciderView> {
        decider::decider_view(self, state)
    }

    /// Decider model: whether the agent's last tick ended with the loop guard (the redecide
    /// limit was exceeded); `false` in other models.
    pub fn loop_guard(&self, state: &[u8]) -> bool {
        decider::loop_guard(self, state)
    }

    // Lifecycle and selection models.

    /// The event named `name`, resolved once for delivery with
    /// [`Engine::event_by_id`](crate::Engine::event_by_id) or
    /// [`Batch::event_by_id`](crate::Batch::event_by_id); `None` when the program never uses
    /// that event (delivering it by name would do nothing).
    pub fn event_id(&self, name: &str) -> Option<crate::EventId> {
        lifecycle::event_id(self, name)
    }

    /// Whether the program uses group scopes (their member counts are shared by the agents of
    /// one AI group ticked through one engine or batch).
    pub fn uses_scopes(&self) -> bool {
        lifecycle::uses_scopes(self)
    }

    /// The AI group of the agent whose state is `state` (`spec/mbt.md` 2.6): 0 for a fresh
    /// agent and in programs without group scopes. Set it with
    /// [`Engine::set_group`](crate::Engine::set_group) or
    /// [`Batch::set_group`](crate::Batch::set_group); [`Program::reset`] keeps it.
    pub fn group(&self, state: &[u8]) -> u32 {
        lifecycle::group_of(self, state)
    }

    /// The string id of the scope called `name` in this program's group-scope tables: the
    /// scope whose name has the same [`scope_id`](crate::scope_id) (CRC-32 of the lower-cased name).
    pub(crate) fn scope_slot(&self, name: &str) -> Option<u32> {
        lifecycle::scope_slot(self, name)
    }

    /// The index of the variable named `name`: an exact match first, then one that differs
    /// only in ASCII case.
    pub fn var_index(&self, name: &str) -> Option<u32> {
        lifecycle::var_index(self, name)
    }

    /// Lifecycle and selection models: variable `index`'s value in the agent's state; `None`
    /// for an unknown index, a state block of the wrong size or a program of another model.
    pub fn var(&self, state: &[u8], index: u32) -> Option<bool> {
        lifecycle::var(self, state, index)
    }

    /// Lifecycle and selection models: sets variable `index` in the agent's state, as a game
    /// behaviour would between ticks; `changed` becomes true only if the value differs.
    /// Fails for an unknown index (programs of other models have no state variables) or a
    /// state block of the wrong size.
    pub fn set_var(&self, state: &mut [u8], index: u32, value: bool) -> Result<(), VmError> {
        lifecycle::set_var(self, state, index, value)
    }

    /// The nodes `state` (one agent's block) says are active, with their ancestors, root
    /// first (table order: each node after its parent), with kind, name and source position
    /// from the node table. Empty for a program without a node table or a block of the wrong
    /// size; never panics, whatever the bytes. Not for the tick's path: it allocates.
    pub fn active_path(&self, state: &[u8]) -> Vec<crate::ActiveNode<'_>> {
        crate::model::active::active_path(self, state)
    }

    /// Whether the program was lowered with node tracing on (its code holds `node.enter` and
    /// `node.exit`, `spec/bytecode.md` §2), so its runs report every node to `Host::node`.
    pub fn traced(&self) -> bool {
        self.code().iter().any(super::Instr::is_trace)
    }

    /// The program's node table (empty: absent).
    pub fn nodes(&self) -> &super::NodeTable {
        &self.data.parts.nodes
    }
}
