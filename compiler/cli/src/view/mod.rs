//! `btvm view` and `btvm dot`: a tree (and a scenario run) as one self-contained HTML page or
//! as Graphviz DOT (`spec/viewer.md`). The model comes from `btvm_compiler::view`; this module
//! loads, writes the page (`page.html` with `page.css`, `page.js` and the JSON of `json`
//! spliced in) and reports errors. It never fetches anything and the page it writes names no
//! URL outside itself.

mod json;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use btvm_compiler::view::{self, View};

use crate::loaded::Loaded;
use crate::output::Output;
use crate::render::Renderer;
use crate::InputArgs;

const PAGE: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// `btvm view`'s arguments.
#[derive(clap::Args, Debug)]
pub struct ViewArgs {
    /// The tree to show, or a program file written by `btvm compile` (drawn from its node
    /// table).
    file: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// A scenario (see spec/cases/README.md): the page adds its timeline, run on the vm.
    #[arg(short, long)]
    scenario: Option<PathBuf>,
    /// The agent of the scenario whose timeline is shown.
    #[arg(long, default_value_t = 0, requires = "scenario")]
    agent: u32,
    /// Where to write the page (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `btvm dot`'s arguments.
#[derive(clap::Args, Debug)]
pub struct DotArgs {
    /// The tree to export, or a program file written by `btvm compile`.
    file: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// A scenario, with `--tick`: colour the nodes by that tick's statuses.
    #[arg(short, long, requires = "tick")]
    scenario: Option<PathBuf>,
    /// The tick of the scenario whose statuses and active path are drawn.
    #[arg(long, value_name = "N", requires = "scenario")]
    tick: Option<u32>,
    /// The agent of the scenario whose tick is drawn.
    #[arg(long, default_value_t = 0, requires = "scenario")]
    agent: u32,
    /// Where to write the DOT text (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The display tree of `file`, with the timeline of `scenario` for `agent` when given.
fn model(
    file: &Path,
    input: &InputArgs,
    scenario: Option<(&Path, u32)>,
    out: &mut Renderer,
) -> Option<View> {
    let (loaded, mut sources) = crate::load_input(file, input, out)?;
    let title = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut view = match &loaded {
        Loaded::Tree(tree) => view::display(tree, &sources, &title),
        Loaded::Program(program) => view::display_program(program, &title),
    };
    if let Some((path, agent)) = scenario {
        let limits = btvm::Limits::default();
        let made = crate::read_scenario(path, &mut sources, &limits).and_then(|s| {
            match &loaded {
                Loaded::Tree(tree) => view::timeline(tree, &s, agent, &limits),
                Loaded::Program(p) => view::timeline_program(p, &s, agent, &limits),
            }
            .map_err(|d| vec![d])
        });
        match made {
            Ok(t) => view.timeline = Some(t),
            Err(diags) => {
                out.emit(&sources, &diags);
                return None;
            }
        }
    }
    Some(view)
}

/// `btvm view`.
pub fn view(args: &ViewArgs, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    let scenario = args.scenario.as_deref().map(|p| (p, args.agent));
    let Some(view) = model(&args.file, &args.input, scenario, out) else {
        return ExitCode::FAILURE;
    };
    let page = page(&view);
    emit(args.output.as_deref(), &page, stdout, out)
}

/// `btvm dot`.
pub fn dot(args: &DotArgs, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    let scenario = args.scenario.as_deref().map(|p| (p, args.agent));
    let Some(view) = model(&args.file, &args.input, scenario, out) else {
        return ExitCode::FAILURE;
    };
    let tick = match (args.tick, &view.timeline) {
        (Some(k), Some(t)) => match t.ticks.get(k as usize) {
            Some(tick) => Some(tick),
            None => {
                out.error(&format!(
                    "`--tick {k}`: the scenario runs {} ticks (0 to {})",
                    t.ticks.len(),
                    t.ticks.len().saturating_sub(1)
                ));
                return ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    emit(args.output.as_deref(), &view::dot(&view, tick), stdout, out)
}

/// Writes `text` to `path`, or to standard output without one.
fn emit(path: Option<&Path>, text: &str, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    match path {
        None => {
            stdout.write_bytes(text.as_bytes());
            ExitCode::SUCCESS
        }
        Some(p) => match std::fs::write(p, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                out.error(&format!("cannot write `{}`: {e}", p.display()));
                ExitCode::FAILURE
            }
        },
    }
}

/// The page: the template with the style, the script, the title and the data spliced in, in
/// one pass over the template (nothing spliced in is searched for markers again).
pub fn page(view: &View) -> String {
    let title = html_escape(&view.title);
    let data = json::data(view);
    let parts: [(&str, &str); 4] = [
        ("{{TITLE}}", &title),
        ("{{STYLE}}", STYLE),
        ("{{SCRIPT}}", SCRIPT),
        ("{{DATA}}", &data),
    ];
    let mut out = String::with_capacity(PAGE.len() + STYLE.len() + SCRIPT.len() + data.len());
    let mut rest = PAGE;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match parts.iter().find(|(m, _)| rest.starts_with(m)) {
            Some((m, v)) => {
                out.push_str(v);
                rest = &rest[m.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text for an HTML text node or attribute value.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
