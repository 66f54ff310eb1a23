//! Help that teaches: the examples at the end of each subcommand's `--help`, the headings that
//! group options, the possible values of `--dialect`, and `btvm completions` / `btvm man`
//! (generated from the clap definition by clap_complete and clap_mangen).
//!
//! This module only describes the command line; it never runs a command.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::CommandFactory;

use btvm_compiler::load::Format;

/// The heading of the options that say how a tree is read.
pub const LOADING: &str = "Loading";
/// The heading of the options only Drag[en]gine (cursor-model) trees use.
pub const DRAGENGINE: &str = "Drag[en]gine";
/// The heading of the options only Spore (decider-model) trees use.
pub const SPORE: &str = "Spore";
/// The heading of the options that save, restore and reload agents.
pub const SAVING: &str = "Saving, restoring and reloading";

/// `--dialect`: the formats by name (`native`, the canonical syntax's old name, still read).
pub fn dialect_parser() -> impl TypedValueParser<Value = Format> {
    let values = Format::NAMES.map(|name| match name {
        "canonical" => PossibleValue::new(name).alias("native"),
        _ => PossibleValue::new(name),
    });
    PossibleValuesParser::new(values).try_map(|name: String| {
        Format::from_name(&name).ok_or_else(|| format!("unknown format `{name}`"))
    })
}

/// `btvm check --help`'s examples.
pub const CHECK: &str = "\
Examples:
  btvm check bots/default.bt                   # one tree, its includes too
  btvm check spec/examples                     # every tree file below a directory
  cat tree.bt | btvm check - --dialect unvanquished
  btvm check soldier.xml --profile gamesdk     # MBT with CRYENGINE's GameSDK nodes
  btvm check wanderer.debt --strict --known move.to,look.turn
  btvm check guard.btvm                        # a program file: decoded and verified";

/// `btvm run --help`'s examples.
pub const RUN: &str = "\
Examples:
  btvm run guard.bt --scenario guard.scn                   # the trace, on the reference
  btvm run guard.bt -s guard.scn --engine native --trace nodes
  btvm run default.bt -s bot.scn --ticks 1000 --summary
  btvm run wanderer.debt -s w.scn --save-at 15 --save w.state
  btvm run wanderer.debt -s w.scn --restore w.state --from 15
  btvm run sheep.bt -s s.scn --reload-at 20 sheep_v2.bt    # hot reload at tick 20
  btvm run figure1.spore -s figure1.scn --dump-state --debug-level 3
  btvm run guard.btvm -s guard.scn --engine native         # a program file (vm by default)";

/// `btvm compile --help`'s examples.
pub const COMPILE: &str = "\
Examples:
  btvm compile guard.bt                 # writes guard.btvm
  btvm compile guard.bt --trace nodes   # a program whose runs report every node
  btvm compile soldier.xml --profile gamesdk -o soldier.btvm
  btvm disasm guard.btvm                # read it back as assembly";

/// `btvm disasm --help`'s examples.
pub const DISASM: &str = "\
Examples:
  btvm disasm guard.bt
  btvm disasm guard.btvm --native       # with Cranelift's listing of the machine code";

/// `btvm bench --help`'s examples.
pub const BENCH: &str = "\
Examples:
  btvm bench                                         # the embedded demo, every engine
  btvm bench default.bt --agents 1000000 --threads 1,2 --engines vm,native
  btvm bench figure1.spore --runs 5 --json
  btvm bench --svg demo.svg                          # also a bar chart
  btvm bench --workload fight-or-flight --scaling
  btvm bench wanderer.debt --awake 10                # 90 % of the agents asleep
  btvm bench guard.btvm --host synthetic             # a program file: the vm and native code";

/// `btvm view --help`'s examples.
pub const VIEW: &str = "\
Examples:
  btvm view guard.bt -o guard.html                   # the tree
  btvm view guard.bt -s guard.scn -o guard.html      # and its run, tick by tick
  btvm view soldier.xml --profile gamesdk -s squad.scn --agent 2 -o squad.html
  btvm view guard.btvm -s guard.scn -o guard.html    # a program file, from its node table";

/// `btvm dot --help`'s examples.
pub const DOT: &str = "\
Examples:
  btvm dot guard.bt | dot -Tsvg > guard.svg
  btvm dot guard.bt -s guard.scn --tick 3 -o tick3.dot";

/// `btvm fmt --help`'s examples.
pub const FMT: &str = "\
Examples:
  btvm fmt tree.btn                     # in place
  btvm fmt --check trees/*.btn          # CI: diffs, exit 1 if any file is not formatted
  btvm convert guard.bt > guard.btn     # other dialects: convert first";

/// `btvm convert --help`'s examples.
pub const CONVERT: &str = "\
Examples:
  btvm convert guard.bt                 # Unvanquished to the canonical syntax
  btvm convert grunt.xml > grunt.btn";

/// `btvm completions --help`'s examples.
pub const COMPLETIONS: &str = "\
Examples:
  btvm completions bash > ~/.local/share/bash-completion/completions/btvm
  btvm completions zsh > ~/.zfunc/_btvm
  btvm completions fish > ~/.config/fish/completions/btvm.fish";

/// `btvm man --help`'s examples.
pub const MAN: &str = "\
Examples:
  btvm man > btvm.1 && man ./btvm.1
  btvm man run > btvm-run.1";

/// The completion script for `shell`.
pub fn completions<C: CommandFactory>(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = C::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "btvm", &mut out);
    out
}

/// The man page (roff) of btvm, or of one of its subcommands; `None` for an unknown one.
pub fn man<C: CommandFactory>(sub: Option<&str>) -> Option<Result<Vec<u8>, String>> {
    let cmd = C::command();
    let page = match sub {
        None => cmd,
        Some(name) => {
            let found = cmd
                .get_subcommands()
                .find(|c| c.get_name() == name)?
                .clone();
            found.name(format!("btvm-{name}"))
        }
    };
    let mut out = Vec::new();
    Some(
        clap_mangen::Man::new(page)
            .render(&mut out)
            .map(|()| out)
            .map_err(|e| e.to_string()),
    )
}
