//! Load time against table size (issue 25, finding 4): a file whose one table holds `n`
//! entries, loaded from memory (read, parsed, built, checked; for signals also lowered, where
//! the events are compiled), for `n` from 1,000 up. Every table's duplicate check and lookup is
//! linear, so each group's throughput (entries per second) stays flat as `n` grows; a
//! quadratic step shows as throughput falling tenfold per size step.
//!
//! The default run stops at 100,000 entries and takes about a minute; `BTVM_TABLES_FULL=1`
//! adds 1,000,000 (several minutes). The XML attribute table is bounded per element
//! (`Limits::max_xml_attributes`), so its file spreads the attributes over MBT variables of 200.

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use btvm::Limits;
use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::source::{MemFs, SourceMap};
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};

/// `n` lines made by `line` from the index.
fn lines(n: usize, line: impl Fn(&mut String, usize)) -> String {
    let mut s = String::new();
    for i in 0..n {
        line(&mut s, i);
    }
    s
}

/// A file of `n` entries in one table: its name (the format comes from it) and its text.
type Maker = fn(usize) -> (&'static str, String);

fn imports(n: usize) -> (&'static str, String) {
    let decls = lines(n, |s, i| writeln!(s, "import action a{i} 0..0;").unwrap());
    let src = format!("btvm 1;\ndialect unvanquished;\n{decls}root main = const success\n");
    ("t.btn", src)
}

fn bst(vars: &str, signals: &str) -> String {
    format!(
        "<SelectionTrees>\n<SelectionTree name=\"T\" type=\"BehaviorSelectionTree\">\n\
         <Variables>\n{vars}</Variables>\n<SignalVariables>\n{signals}</SignalVariables>\n\
         <Priority name=\"Root\">\n<Leaf name=\"L\"/>\n</Priority>\n</SelectionTree>\n\
         </SelectionTrees>\n"
    )
}

fn variables(n: usize) -> (&'static str, String) {
    let vars = lines(n, |s, i| writeln!(s, "<Variable name=\"V{i}\"/>").unwrap());
    ("t.xml", bst(&vars, ""))
}

fn signals(n: usize) -> (&'static str, String) {
    let signals = lines(n, |s, i| {
        writeln!(s, "<Signal name=\"S{i}\" variable=\"A\" value=\"true\"/>").unwrap()
    });
    ("t.xml", bst("<Variable name=\"A\"/>\n", &signals))
}

fn behaviors(n: usize) -> (&'static str, String) {
    let decls = lines(n, |s, i| writeln!(s, "behavior b{i} tick;").unwrap());
    ("t.spore", format!("spore 1;\n{decls}root R => b0;\n"))
}

fn ids(n: usize) -> (&'static str, String) {
    let rules = lines(n, |s, i| {
        writeln!(s, "<action id=\".a{i}\" name=\"a\"/>").unwrap()
    });
    let src =
        format!("<behaviorTree>\n<sequence id=\"main\">\n{rules}</sequence>\n</behaviorTree>\n");
    ("t.debt", src)
}

fn attributes(n: usize) -> (&'static str, String) {
    let per = 200;
    let elements = lines(n.div_ceil(per), |s, e| {
        write!(s, "<Variable name=\"V{e}\"").unwrap();
        for i in 0..per.min(n - e * per) {
            write!(s, " a{i}=\"\"").unwrap();
        }
        s.push_str("/>\n");
    });
    let src = format!(
        "<BehaviorTree>\n<Variables>\n{elements}</Variables>\n<Root>\n<Log message=\"x\"/>\n\
         </Root>\n</BehaviorTree>\n"
    );
    ("t.xml", src)
}

/// Loads `name` from memory with `options`.
fn load_one(fs: &MemFs, name: &str, options: &LoadOptions) -> Tree {
    let mut sources = SourceMap::new();
    load(&Path::new("/b").join(name), fs, options, &mut sources).expect("the file loads")
}

fn tables(c: &mut Criterion) {
    let full = std::env::var_os("BTVM_TABLES_FULL").is_some();
    let sizes: &[usize] = if full {
        &[1_000, 10_000, 100_000, 1_000_000]
    } else {
        &[1_000, 10_000, 100_000]
    };
    // Room for a million entries: 60 MB of source, a million nodes, the signals' state.
    let limits = Limits {
        max_source_bytes: 256 << 20,
        max_nodes: 4_000_000,
        max_state_bytes: 64 << 20,
        max_program_instructions: 64_000_000,
        ..Limits::default()
    };
    let makers: [(&str, Maker); 6] = [
        ("imports", imports),
        ("variables", variables),
        ("signals", signals),
        ("behaviors", behaviors),
        ("ids", ids),
        ("attributes", attributes),
    ];
    for (table, make) in makers {
        let mut group = c.benchmark_group(format!("tables/{table}"));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_secs(1));
        for &n in sizes {
            let (name, src) = make(n);
            let mut fs = MemFs::new();
            fs.insert(Path::new("/b").join(name), src.into_bytes());
            let lower = table == "signals";
            let options = LoadOptions {
                limits,
                // MBT's GameSDK profile ignores unknown attributes, so `attributes` loads.
                profile: (table == "attributes").then(|| Profile::builtin("gamesdk").unwrap()),
                ..LoadOptions::default()
            };
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    let tree = load_one(&fs, name, &options);
                    if lower {
                        btvm_compiler::lower::lower(&tree, &limits).expect("the tree lowers");
                    }
                    tree
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, tables);
criterion_main!(benches);
