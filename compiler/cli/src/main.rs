//! `btvm`: check, run and format behavior trees.
//!
//! The CLI is the only part of btvm that prints, depends on clap and renders diagnostics.

mod bench;
mod chart;
mod clip;
mod fight;
mod fmt;
mod help;
mod hints;
mod inputs;
mod loaded;
mod output;
mod reload;
mod render;
mod suite;
mod timed;
mod view;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use btvm_compiler::diag::escape_controls;
use btvm_compiler::ir::{Model, Tree};
use btvm_compiler::load::{load_reporting, Format, LoadOptions, Profile};
use btvm_compiler::lower::lower_with_sources;
use btvm_compiler::scenario::{load_scenario, EngineKind, Saved, Scenario, Session};
use btvm_compiler::source::{read_file, RealFs, SourceMap};
use btvm_compiler::syntax::canonical;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use loaded::Loaded;
use output::Output;
use render::{Color, Renderer};

/// Compile, check and run game-AI behavior trees.
///
/// btvm reads trees written for Unvanquished (.bt), Drag[en]gine (.debt), Spore-style decider
/// trees (.spore) and in btvm's canonical syntax (.btn), checks them against their engine's own
/// rules, compiles them to bytecode or native code, runs them under a scripted scenario (printing
/// every host call the tree makes), and benchmarks its engines.
#[derive(Parser, Debug)]
#[command(name = "btvm", version, propagate_version = true)]
struct Cli {
    /// When to colour diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check trees: exit 0 when every file is valid, else print diagnostics and exit 1.
    #[command(after_help = help::CHECK)]
    Check {
        /// The files to check; a directory stands for every tree file below it (.bt, .debt,
        /// .spore, .btn, .xml), and `-` for a tree read from standard input (with `--dialect`).
        /// A program file (from `btvm compile`, `.btvm` in a directory) is decoded, verified
        /// and described.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
        /// Print nothing for valid files.
        #[arg(short, long)]
        quiet: bool,
        /// Drag[en]gine: report actions and conditions the game may not have as errors, instead
        /// of letting them fail at run time. Known names are the standard `timer.*` ones and
        /// those given with `--known`.
        #[arg(long, help_heading = help::DRAGENGINE)]
        strict: bool,
        /// With `--strict`: names the game has (comma-separated, repeatable).
        #[arg(long, value_delimiter = ',', requires = "strict", help_heading = help::DRAGENGINE)]
        known: Vec<String>,
    },
    /// Run a tree under a scenario and print the trace (every host call and each tick's root
    /// status).
    #[command(after_help = help::RUN)]
    Run {
        /// The tree to run, or a program file written by `btvm compile` (told apart by its
        /// first bytes; its trace is its tree's).
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// The scenario file (see spec/cases/README.md); without it, 10 ticks of one agent where
        /// every action succeeds and every function returns 0.
        #[arg(short, long)]
        scenario: Option<PathBuf>,
        /// Override the scenario's number of ticks (at most 1,000,000).
        #[arg(short, long, value_parser = parse_ticks)]
        ticks: Option<u32>,
        /// Override the scenario's number of agents (at most 1,000,000).
        #[arg(long, value_parser = parse_agents)]
        agents: Option<u32>,
        /// The engine to run on [default: reference; vm with `--reload-at` and for a program
        /// file, which only the vm and native code run].
        #[arg(long, value_enum)]
        engine: Option<EngineArg>,
        /// Print only the root status lines and a summary, not every host call.
        #[arg(long)]
        summary: bool,
        /// Stop before tick N and save every agent to the `--save` file: Drag[en]gine trees
        /// as the original's cursor records (one per agent), every other tree as a btvm
        /// snapshot (see `--snapshot-format`).
        #[arg(long, value_name = "N", requires = "save", help_heading = help::SAVING)]
        save_at: Option<u32>,
        /// Where `--save-at` writes the saved agents.
        #[arg(long, value_name = "FILE", requires = "save_at", help_heading = help::SAVING)]
        save: Option<PathBuf>,
        /// The format `--save` writes: `cursor` (Drag[en]gine's records; cursor trees, every
        /// engine) or `btvm` (a btvm snapshot: every model, every engine).
        /// Default: `cursor` for Drag[en]gine trees, `btvm` for the others.
        #[arg(long, value_enum, value_name = "FORMAT", requires = "save_at",
              help_heading = help::SAVING)]
        snapshot_format: Option<SnapshotArg>,
        /// Restore the agents saved in FILE before the first tick (either format, told apart
        /// by content); combine with `--from` to continue the saved run where it stopped.
        #[arg(long, value_name = "FILE", help_heading = help::SAVING)]
        restore: Option<PathBuf>,
        /// Start at tick N instead of 0 (the scenario's times and schedules still count from 0).
        #[arg(long, value_name = "N", default_value_t = 0, help_heading = help::SAVING)]
        from: u32,
        /// Hot reload: run FILE until tick N, carry every agent into the NEW tree's program
        /// (running nodes still in the tree keep running; what cannot be carried starts
        /// fresh, after its exit calls in MBT trees) and run NEW from tick N on. What each
        /// agent kept and lost goes to stderr. `--engine vm` or `native`.
        #[arg(long, num_args = 2, value_names = ["N", "NEW"],
              conflicts_with_all = ["save_at", "restore", "dump_state", "summary", "from"],
              help_heading = help::SAVING)]
        reload_at: Vec<String>,
        /// After the run, print each agent's active path (every dialect: kind, name and
        /// file:line:column of each node it is running, root first); decider (Spore) trees (not
        /// their program files) add policies, active child indices, time in state, decision
        /// flags and stimuli.
        #[arg(long)]
        dump_state: bool,
        /// Decider (Spore) trees: print the decision process on stderr. 0 nothing, 1-2 state
        /// transitions only, 3-5 every tick in growing detail (5: every precondition and
        /// Decide). Needs `--engine reference`.
        #[arg(long, value_name = "N", default_value_t = 0,
              value_parser = clap::value_parser!(u8).range(0..=5), help_heading = help::SPORE)]
        debug_level: u8,
        /// What the trace shows: `calls` (host calls and root statuses) or `nodes` (also
        /// every node entered and finished, `node N KIND enter` / `node N KIND -> STATUS`,
        /// N the node table index; spec/cases/README.md). Every dialect.
        #[arg(long, value_enum, value_name = "LEVEL", default_value_t = TraceArg::Calls)]
        trace: TraceArg,
    },
    /// Compile a tree to a bytecode program file.
    #[command(after_help = help::COMPILE)]
    Compile {
        /// The tree to compile.
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// Where to write the program (`-` for standard output); by default the tree's path
        /// with the extension `.btvm`.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// `nodes`: compile with node tracing, so every run of the program reports every
        /// node entered and finished (what `btvm run --trace nodes` needs of a program).
        #[arg(long, value_enum, value_name = "LEVEL", default_value_t = TraceArg::Calls)]
        trace: TraceArg,
    },
    /// Print the bytecode of a tree or of a program file, as assembly.
    #[command(after_help = help::DISASM)]
    Disasm {
        /// A tree, or a program file written by `btvm compile`.
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// Also compile the program to native code for this machine and print Cranelift's
        /// listing of it (VCode, after register allocation) after the bytecode, one section per
        /// native function: `f<n>` enters bytecode function n, `f<n>.<k>` is its k-th chunk.
        #[arg(long)]
        native: bool,
    },
    /// Time the engines on the embedded demo (or a tree): ns per agent-tick, throughput,
    /// state bytes per agent and speedup over the reference.
    #[command(after_help = help::BENCH)]
    Bench(bench::BenchArgs),
    /// Write a tree (and with `--scenario` its run, tick by tick) as one self-contained HTML
    /// page: the tree drawn with collapsible subtrees, a timeline, the host calls
    /// (spec/viewer.md).
    #[command(after_help = help::VIEW)]
    View(view::ViewArgs),
    /// Write a tree as Graphviz DOT (with `--scenario` and `--tick`, that tick's statuses and
    /// active path).
    #[command(after_help = help::DOT)]
    Dot(view::DotArgs),
    /// Format canonical-syntax files (.btn) in place, as rustfmt does: the canonical layout,
    /// comments kept. A file already formatted is not written.
    #[command(after_help = help::FMT)]
    Fmt {
        /// The files to format; `-` formats standard input to standard output.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write nothing: print a diff for each file that is not formatted and exit 1 if any
        /// is not (for CI).
        #[arg(long)]
        check: bool,
    },
    /// Print a tree of any dialect in the canonical syntax.
    #[command(after_help = help::CONVERT)]
    Convert {
        /// The tree to print.
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Print a shell completion script for btvm.
    #[command(after_help = help::COMPLETIONS)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print btvm's man page (roff), or one command's.
    #[command(after_help = help::MAN)]
    Man {
        /// The command (`run`, `check`, ...); without it, the page of btvm itself.
        command: Option<String>,
    },
}

#[derive(clap::Args, Debug)]
struct InputArgs {
    /// The source format; by default it follows the extension (.bt unvanquished, .debt
    /// dragengine, .spore spore, .btn canonical) and, for .xml, the root element (bst for
    /// SelectionTrees/SelectionTree/Blocks, else mbt).
    #[arg(long, value_parser = help::dialect_parser(), help_heading = help::LOADING)]
    dialect: Option<Format>,
    /// A game profile: a built-in one (`unvanquished`, the default for .bt trees; `gamesdk`
    /// accepts CRYENGINE's GameSDK nodes (Move, Shoot, ...) in MBT trees as host actions and
    /// loads them as leniently as CRYENGINE does), or else a profile file (spec/profiles.md)
    /// declaring a game's actions, functions, symbols and MBT nodes.
    #[arg(long, value_name = "NAME|FILE", help_heading = help::LOADING)]
    profile: Option<String>,
    /// Drag[en]gine: rule runs per step before the step is a run-away error (default 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          help_heading = help::DRAGENGINE)]
    runaway_limit: Option<u32>,
    /// Make warnings errors: a tree the original game loads with a logged complaint (an
    /// Unvanquished call with too many parameters, an unknown string escape, ...) fails, and
    /// so does a scenario naming an import or event the tree never uses.
    #[arg(long, help_heading = help::LOADING)]
    deny_warnings: bool,
    /// Read the files the tree names (includes, behaviors, subtrees, block files) only inside
    /// DIR, after following symbolic links, and the tree itself too (by default: the tree's
    /// directory, for Unvanquished the directory above it, the game's root).
    #[arg(long, value_name = "DIR", help_heading = help::LOADING)]
    root: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TraceArg {
    /// Host calls and root statuses.
    Calls,
    /// Host calls, root statuses and every node entered and finished.
    Nodes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SnapshotArg {
    /// Drag[en]gine's cursor records, one per agent.
    Cursor,
    /// A btvm snapshot (every model).
    Btvm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// The reference tree-walking interpreter.
    Reference,
    /// The bytecode virtual machine.
    Vm,
    /// Native code compiled with Cranelift.
    Native,
}

/// The profile `--profile` names: a built-in one by name, else the file at that path.
fn profile_arg(s: &str, sources: &mut SourceMap) -> btvm_compiler::diag::Result<Profile> {
    match Profile::builtin(s) {
        Some(p) => Ok(p),
        None => Profile::load(Path::new(s), &RealFs, &btvm::Limits::default(), sources),
    }
}

/// `N` within `lo..=hi`, for numeric options.
fn number_in(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if n < lo || n > hi {
        return Err(format!("{n} is not in {lo}..={hi}"));
    }
    Ok(n)
}

/// `--agents` of `btvm run`: 0 runs no agent; at most `Limits::max_agents`.
fn parse_agents(s: &str) -> Result<u32, String> {
    let max = btvm::Limits::default().max_agents;
    number_in(s, 0, max.into()).map(|n| n as u32)
}

/// `--ticks` of `btvm run`: at most `Limits::max_ticks`.
fn parse_ticks(s: &str) -> Result<u32, String> {
    let max = btvm::Limits::default().max_ticks;
    number_in(s, 0, max.into()).map(|n| n as u32)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = Renderer::new(cli.color);
    let mut stdout = Output::new();
    let code = command(cli.command, &mut stdout, &mut out);
    stdout.finish(code, &mut out)
}

/// Runs the command, writing its results to `stdout` and diagnostics through `out`.
fn command(command: Command, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    match command {
        Command::Check {
            files,
            input,
            quiet,
            strict,
            known,
        } => check(
            &files,
            &input,
            quiet,
            strict.then_some(&known[..]),
            stdout,
            out,
        ),
        Command::Run {
            file,
            input,
            scenario,
            ticks,
            agents,
            engine,
            summary,
            save_at,
            save,
            snapshot_format,
            restore,
            from,
            reload_at,
            dump_state,
            debug_level,
            trace,
        } => {
            let opts = RunOpts {
                dump_state,
                debug_level,
                trace_nodes: trace == TraceArg::Nodes,
                scenario,
                ticks,
                agents,
                engine,
                summary,
                save_at,
                save,
                snapshot_format,
                restore,
                from,
                reload_at,
            };
            run_cmd(&file, &input, &opts, stdout, out)
        }
        Command::Compile {
            file,
            input,
            output,
            trace,
        } => compile(
            &file,
            &input,
            (output, trace == TraceArg::Nodes),
            stdout,
            out,
        ),
        Command::Bench(args) => bench::bench(&args, stdout, out),
        Command::View(args) => view::view(&args, stdout, out),
        Command::Dot(args) => view::dot(&args, stdout, out),
        Command::Disasm {
            file,
            input,
            native,
        } => disasm(&file, &input, native, stdout, out),
        Command::Fmt { files, check } => fmt::fmt(&files, check, stdout, out),
        Command::Completions { shell } => {
            stdout.write_bytes(&help::completions::<Cli>(shell));
            ExitCode::SUCCESS
        }
        Command::Man { command } => match help::man::<Cli>(command.as_deref()) {
            Some(Ok(page)) => {
                stdout.write_bytes(&page);
                ExitCode::SUCCESS
            }
            Some(Err(e)) => {
                out.error(&format!("cannot write the man page: {e}"));
                ExitCode::FAILURE
            }
            None => {
                out.error(&format!(
                    "no command `{}`; the commands: {}",
                    command.unwrap_or_default(),
                    Cli::command()
                        .get_subcommands()
                        .map(|c| c.get_name().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                ExitCode::from(2)
            }
        },
        Command::Convert { file, input } => match load_tree(&file, &input, out) {
            Some((tree, _)) => {
                write!(stdout, "{}", canonical::print(&tree));
                ExitCode::SUCCESS
            }
            None => ExitCode::FAILURE,
        },
    }
}

/// A tree or a program file (told apart by its first bytes), with the tree's sources (none
/// for a program). A damaged program is rendered as an error.
fn load_input(path: &Path, input: &InputArgs, out: &mut Renderer) -> Option<(Loaded, SourceMap)> {
    if !loaded::is_program(path) {
        return load_tree(path, input, out).map(|(t, s)| (Loaded::Tree(Box::new(t)), s));
    }
    if input.runaway_limit.is_some() {
        out.error(&format!(
            "`--runaway-limit` changes a tree before it is compiled; `{}` is a compiled program",
            path.display()
        ));
        return None;
    }
    match loaded::read_program(path) {
        Ok(p) => Some((Loaded::Program(p), SourceMap::new())),
        Err(e) => {
            out.error(&e);
            None
        }
    }
}

fn load_tree(path: &Path, input: &InputArgs, out: &mut Renderer) -> Option<(Tree, SourceMap)> {
    load_tree_in(path, &RealFs, input.root.clone(), input, out)
}

/// A tree read from standard input (`-`): `--dialect` says its format, and it can include
/// nothing (it has no directory).
fn load_stdin(input: &InputArgs, out: &mut Renderer) -> Option<(Tree, SourceMap)> {
    let limits = btvm::Limits::default();
    let bytes = match inputs::read_stdin(limits.max_source_bytes as u64) {
        Ok(b) => b,
        Err(e) => {
            out.error(&e);
            return None;
        }
    };
    let path = Path::new("/").join(inputs::STDIN_NAME);
    let mut fs = btvm_compiler::source::MemFs::new();
    fs.insert(&path, bytes);
    load_tree_in(&path, &fs, Some(PathBuf::from("/")), input, out)
}

/// [`load_tree`] through `fs`, reading only inside `root` (by default the tree's directory).
fn load_tree_in(
    path: &Path,
    fs: &dyn btvm_compiler::source::FileSystem,
    root: Option<PathBuf>,
    input: &InputArgs,
    out: &mut Renderer,
) -> Option<(Tree, SourceMap)> {
    let mut sources = SourceMap::new();
    let profile = match input
        .profile
        .as_deref()
        .map(|s| profile_arg(s, &mut sources))
    {
        Some(Ok(p)) => Some(p),
        Some(Err(diags)) => {
            out.emit(&sources, &diags);
            return None;
        }
        None => None,
    };
    let options = LoadOptions {
        format: input.dialect,
        profile,
        deny_warnings: input.deny_warnings,
        root,
        ..LoadOptions::default()
    };
    let mut tree = match load_reporting(path, fs, &options, &mut sources) {
        Ok(loaded) => {
            out.emit(&sources, &loaded.warnings);
            loaded.tree
        }
        Err(diags) => {
            out.emit(&sources, &diags);
            return None;
        }
    };
    if let Some(n) = input.runaway_limit {
        match &mut tree.config.model {
            Model::Cursor { runaway_limit } => *runaway_limit = n,
            _ => {
                out.error(&format!(
                    "`--runaway-limit` applies to Drag[en]gine (cursor-model) trees; `{}` is not one",
                    path.display()
                ));
                return None;
            }
        }
    }
    Some((tree, sources))
}

fn check(
    files: &[PathBuf],
    input: &InputArgs,
    quiet: bool,
    strict: Option<&[String]>,
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    let inputs = match inputs::expand(files) {
        Ok(i) => i,
        Err(e) => {
            out.error(&e);
            return ExitCode::FAILURE;
        }
    };
    if inputs.contains(&inputs::Input::Stdin) && input.dialect.is_none() {
        out.error("reading a tree from standard input (`-`) needs `--dialect`");
        return ExitCode::from(2);
    }
    let mut failed = 0usize;
    for each in &inputs {
        let (loaded, path) = match each {
            inputs::Input::File(path) if loaded::is_program(path) => {
                match loaded::read_program(path) {
                    Ok(p) if !quiet => {
                        writeln!(stdout, "{}: ok ({})", path.display(), loaded::describe(&p));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        out.error(&e);
                        failed += 1;
                    }
                }
                continue;
            }
            inputs::Input::File(path) => (load_tree(path, input, out), path.as_path()),
            inputs::Input::Stdin => (load_stdin(input, out), Path::new(inputs::STDIN_NAME)),
        };
        match loaded {
            Some((tree, sources)) => {
                if let Some(known) = strict {
                    let diags = btvm_compiler::check::strict_names(&tree, known);
                    if !diags.is_empty() {
                        out.emit(&sources, &diags);
                        failed += 1;
                        continue;
                    }
                }
                if !quiet {
                    // What a dialect calls the trees it includes.
                    let included = match tree.dialect {
                        btvm_compiler::ir::Dialect::Unvanquished => "included behaviors",
                        btvm_compiler::ir::Dialect::Spore => "shared deciders",
                        _ => "subtrees",
                    };
                    writeln!(
                        stdout,
                        "{}: ok ({} nodes, {} {included}, {} files)",
                        path.display(),
                        tree.nodes.len(),
                        tree.subtrees.len(),
                        sources.files().len()
                    );
                }
            }
            None => failed += 1,
        }
    }
    if failed > 0 {
        out.error(&format!(
            "{failed} of {} files failed to check",
            inputs.len()
        ));
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

struct RunOpts {
    dump_state: bool,
    debug_level: u8,
    trace_nodes: bool,
    scenario: Option<PathBuf>,
    ticks: Option<u32>,
    agents: Option<u32>,
    engine: Option<EngineArg>,
    summary: bool,
    save_at: Option<u32>,
    save: Option<PathBuf>,
    snapshot_format: Option<SnapshotArg>,
    restore: Option<PathBuf>,
    from: u32,
    /// `--reload-at N NEW`, as given.
    reload_at: Vec<String>,
}

fn run_cmd(
    path: &Path,
    input: &InputArgs,
    opts: &RunOpts,
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    let Some((loaded, mut sources)) = load_input(path, input, out) else {
        return ExitCode::FAILURE;
    };
    let outline = match loaded.outline() {
        Ok(o) => o,
        Err(d) => {
            out.emit(&sources, &[d]);
            return ExitCode::FAILURE;
        }
    };
    let limits = btvm::Limits::default();
    let mut scenario = match &opts.scenario {
        None => Scenario::default(),
        Some(p) => match read_scenario(p, &mut sources, &limits) {
            Ok(s) => s,
            Err(diags) => {
                out.emit(&sources, &diags);
                return ExitCode::FAILURE;
            }
        },
    };
    // Names the scenario gives that the tree never uses: warnings (errors when denied).
    let lints = btvm_compiler::scenario::lint_outline(&scenario, &outline);
    if input.deny_warnings && !lints.is_empty() {
        let denied: Vec<_> = lints
            .into_iter()
            .map(|d| btvm_compiler::diag::Diagnostic {
                severity: btvm_compiler::diag::Severity::Error,
                ..d
            })
            .collect();
        out.emit(&sources, &denied);
        return ExitCode::FAILURE;
    }
    out.emit(&sources, &lints);
    if let Some(t) = opts.ticks {
        scenario.ticks = t;
    }
    if let Some(a) = opts.agents {
        scenario.agents = a;
    }
    scenario.trace_nodes |= opts.trace_nodes;
    // The reference by default; the vm for a reload (the reference keeps no state blocks) and
    // for a program (the reference interprets trees).
    let default = match opts.reload_at.is_empty() && !outline.compiled {
        true => EngineArg::Reference,
        false => EngineArg::Vm,
    };
    if outline.compiled && opts.engine == Some(EngineArg::Reference) {
        out.error(&format!(
            "`--engine reference` interprets trees, and `{}` is a compiled program: run it with \
             `--engine vm` or `--engine native`, or run its source on the reference",
            path.display()
        ));
        return ExitCode::from(2);
    }
    let engine = match opts.engine.unwrap_or(default) {
        EngineArg::Reference => EngineKind::Reference,
        EngineArg::Vm => EngineKind::Vm,
        EngineArg::Native => EngineKind::Native,
    };
    if let [n, new] = &opts.reload_at[..] {
        let Ok(at) = n.parse::<u32>() else {
            out.error(&format!("`--reload-at {n}`: the tick must be a number"));
            return ExitCode::from(2);
        };
        let Some((new_loaded, new_sources)) = load_input(Path::new(new), input, out) else {
            return ExitCode::FAILURE;
        };
        let old = reload::Version {
            loaded: &loaded,
            sources: &sources,
        };
        let new = reload::Version {
            loaded: &new_loaded,
            sources: &new_sources,
        };
        return reload::run((old, new), &scenario, engine, at, stdout, out);
    }
    let restore = match &opts.restore {
        None => None,
        Some(p) => match read_snapshots(p) {
            Ok(s) => Some(s),
            Err(e) => {
                out.error(&e);
                return ExitCode::FAILURE;
            }
        },
    };
    // `--dump-state` reads the node table (with source positions) of the tree's program.
    let table = if opts.dump_state {
        match loaded.program(&sources) {
            Ok(p) => Some(p),
            Err(diags) => {
                out.emit(&sources, &diags);
                return ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    let session = Session {
        from: opts.from,
        save_at: opts.save_at,
        save_format: opts.snapshot_format.map(|f| match f {
            SnapshotArg::Cursor => btvm_compiler::scenario::SaveFormat::Cursor,
            SnapshotArg::Btvm => btvm_compiler::scenario::SaveFormat::Btvm,
        }),
        restore,
        reload: None,
        debug_level: opts.debug_level,
        limits,
    };
    // The trace is written as the run makes it (or only counted, with `--summary`).
    let mut summary = output::Summary::default();
    let ran = if opts.summary {
        loaded.stream(&scenario, engine, &session, &mut summary)
    } else {
        loaded.stream(&scenario, engine, &session, &mut output::TraceOut(stdout))
    };
    let outcome = match ran {
        Ok(outcome) => outcome,
        // The output failed and stopped the run: `Output::finish` says why, if it must.
        Err(_) if stdout.failed().is_some() => return ExitCode::SUCCESS,
        Err(d) => {
            out.emit(&sources, &[d]);
            return ExitCode::FAILURE;
        }
    };
    if let Some(why) = &outcome.fallback {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "note: running on the vm: {why}");
    }
    if let (Some(path), Some(saved)) = (&opts.save, &outcome.saved) {
        if let Err(e) = write_snapshots(path, saved) {
            out.error(&e);
            return ExitCode::FAILURE;
        }
    }
    if opts.summary {
        let [failure, success, running] = summary.roots;
        writeln!(
            stdout,
            "{} ticks x {} agents on {}: {success} success, {failure} failure, {running} running; {} host calls",
            scenario.ticks,
            scenario.agents,
            engine.name(),
            summary.calls
        );
    }
    if let Some(program) = &table {
        // The reference keeps no state blocks: the vm, which makes the same decisions
        // (`spec/semantics.md` §1), runs the scenario again for them.
        let states = if outcome.states.is_empty() {
            let mut quiet = output::Summary::default();
            match loaded.stream(&scenario, EngineKind::Vm, &session, &mut quiet) {
                Ok(o) => o.states,
                Err(d) => {
                    out.emit(&sources, &[d]);
                    return ExitCode::FAILURE;
                }
            }
        } else {
            outcome.states
        };
        let dump = Dump {
            tree: loaded.tree(),
            program,
            scenario: &scenario,
        };
        dump.write(&states, &outcome.deciders, stdout);
    }
    ExitCode::SUCCESS
}

/// Reads and parses a scenario file: at most `limits.max_source_bytes` of it are read (a
/// longer file is refused), and invalid UTF-8 is an error at its first bad byte.
fn read_scenario(
    path: &Path,
    sources: &mut SourceMap,
    limits: &btvm::Limits,
) -> Result<Scenario, Vec<btvm_compiler::diag::Diagnostic>> {
    let bytes = read_file(path, limits.max_source_bytes as u64).map_err(|e| {
        vec![btvm_compiler::diag::Diagnostic::new(
            btvm_compiler::diag::ErrorKind::Io,
            btvm_compiler::source::Span::DUMMY,
            format!("cannot read scenario `{}`: {e}", path.display()),
        )]
    })?;
    load_scenario(path, bytes, sources, limits)
}

/// `--dump-state`: what each agent is running after the run.
struct Dump<'a> {
    /// The tree (`None` for a program file: the decider view then shows no names).
    tree: Option<&'a Tree>,
    /// The tree's program, compiled with source positions.
    program: &'a btvm::Program,
    scenario: &'a Scenario,
}

impl Dump<'_> {
    /// Per agent: its active path from the node table (one node per line, indented by depth
    /// on the path, `*` on the nodes the state names itself), then for decider (Spore) trees
    /// the decider view (decision flags, stimuli, time in state).
    fn write(&self, states: &[Vec<u8>], deciders: &[btvm::DeciderView], stdout: &mut Output) {
        let last = self.scenario.ticks.saturating_sub(1);
        let now = self.scenario.now(last);
        for (agent, state) in states.iter().enumerate() {
            writeln!(
                stdout,
                "state of agent {agent} after tick {last} (now {now})"
            );
            let path = self.program.active_path(state);
            writeln!(stdout, "  active path ({} nodes):", path.len());
            let mut depth = vec![0usize; self.program.nodes().nodes.len()];
            for n in &path {
                let d = n
                    .info
                    .parent
                    .map_or(0, |p| depth.get(p as usize).copied().unwrap_or(0) + 1);
                if let Some(slot) = depth.get_mut(n.index as usize) {
                    *slot = d;
                }
                let mark = if n.direct { "* " } else { "  " };
                // The names in it are the tree's: control characters escaped.
                let text = n.to_string();
                let line = escape_controls(&text);
                writeln!(stdout, "    {}{mark}{line}", "  ".repeat(d));
            }
            if let (Some(view), Some(tree)) = (deciders.get(agent), self.tree) {
                for line in btvm_compiler::debug::dump_state(tree, view, now).lines() {
                    writeln!(stdout, "  {}", escape_controls(line));
                }
            }
        }
    }
}

/// Reads what `btvm run --save` wrote: cursor records or a btvm snapshot (told apart by
/// content; the snapshot is checked against the program when the run starts).
fn read_snapshots(path: &Path) -> Result<Saved, String> {
    let limit = btvm::Limits::default().max_program_bytes as u64;
    let bytes =
        read_file(path, limit).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    Saved::from_bytes(bytes).map_err(|e| format!("`{}`: {e}", path.display()))
}

fn write_snapshots(path: &Path, saved: &Saved) -> Result<(), String> {
    let bytes = saved.to_bytes().map_err(|e| e.to_string())?;
    std::fs::write(path, bytes).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// Loads and lowers a tree, rendering diagnostics on failure.
fn compile_tree(path: &Path, input: &InputArgs, out: &mut Renderer) -> Option<btvm::Program> {
    let (tree, sources) = load_tree(path, input, out)?;
    // With source positions in the node table (`btvm run --dump-state`, tools).
    match lower_with_sources(&tree, &btvm::Limits::default(), &sources) {
        Ok(p) => Some(p),
        Err(diags) => {
            out.emit(&sources, &diags);
            None
        }
    }
}

fn compile(
    path: &Path,
    input: &InputArgs,
    (output, traced): (Option<PathBuf>, bool),
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    let program = match traced {
        false => compile_tree(path, input, out),
        true => load_tree(path, input, out).and_then(|(tree, sources)| {
            let limits = btvm::Limits::default();
            btvm_compiler::lower::lower_traced(&tree, &limits, Some(&sources))
                .map_err(|diags| out.emit(&sources, &diags))
                .ok()
        }),
    };
    let Some(program) = program else {
        return ExitCode::FAILURE;
    };
    let bytes = program.encode();
    let target = output.unwrap_or_else(|| path.with_extension("btvm"));
    if target == Path::new("-") {
        // A write error is `Output::finish`'s to report.
        stdout.write_bytes(&bytes);
        return ExitCode::SUCCESS;
    }
    match std::fs::write(&target, &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            out.error(&format!("cannot write `{}`: {e}", target.display()));
            ExitCode::FAILURE
        }
    }
}

fn disasm(
    path: &Path,
    input: &InputArgs,
    native: bool,
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    let limit = btvm::Limits::default().max_program_bytes as u64;
    let bytes = match read_file(path, limit) {
        Ok(b) => b,
        Err(e) => {
            out.error(&format!("cannot read `{}`: {e}", path.display()));
            return ExitCode::FAILURE;
        }
    };
    let program = if bytes.starts_with(btvm::program::MAGIC) {
        match btvm::Program::decode(&bytes, &btvm::Limits::default()) {
            Ok(p) => p,
            Err(e) => {
                out.error(&format!("`{}`: {e}", path.display()));
                return ExitCode::FAILURE;
            }
        }
    } else {
        match compile_tree(path, input, out) {
            Some(p) => p,
            None => return ExitCode::FAILURE,
        }
    };
    // Compile before printing anything, so a failure leaves stdout empty.
    let machine = if native {
        match native_listing(&program) {
            Ok(listing) => Some(listing),
            Err(e) => {
                out.error(&format!("`{}`: {e}", path.display()));
                return ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    write!(stdout, "{program}");
    if let Some(listing) = machine {
        write!(stdout, "\n; native code (Cranelift VCode, host)\n{listing}");
    }
    ExitCode::SUCCESS
}

/// Cranelift's listing of `program` compiled to native code for this machine.
#[cfg(feature = "jit")]
fn native_listing(program: &btvm::Program) -> Result<String, String> {
    let config = btvm::native::NativeConfig {
        disassemble: true,
        ..btvm::native::NativeConfig::default()
    };
    btvm::native::NativeCode::compile(program, &config)
        .map(|code| code.disassembly().unwrap_or_default().to_string())
        .map_err(|e| e.to_string())
}

/// Without feature `jit` there is no native code to list.
#[cfg(not(feature = "jit"))]
fn native_listing(_program: &btvm::Program) -> Result<String, String> {
    Err("this btvm was built without native code (feature `jit`)".to_string())
}
