//! Issue 25, findings 1–3: confined file access, bounded reads and load budgets.
//!
//! A tree reads only files inside its root (by default the main file's directory; for
//! Unvanquished the directory above it, the game's root): absolute paths, `..` escapes and
//! symbolic links out of the root are a positioned [`ErrorKind::OutsideRoot`] that shows
//! nothing of the target. Only regular files are read, their size checked before reading; one
//! load reads at most `Limits::max_load_files` files and `Limits::max_load_bytes` bytes. The
//! attacks on the real file system work in a fresh directory under `std::env::temp_dir()`,
//! removed at the end (symbolic links and FIFOs: Unix only).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::source::{inside, normalize, read_file, resolve_in, Escape, RealFs, TooLarge};
use proptest::prelude::*;

use super::*;

/// A scratch directory on the real file system, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "btvm-hostile-files-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // Canonical, so paths in messages and roots compare whatever `/tmp` is.
        Scratch(std::fs::canonicalize(&dir).unwrap())
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    #[cfg(unix)]
    fn link(&self, rel: &str, target: &Path) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &p).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A secret outside every tree's root: a file that would parse as a tree in the text
/// formats, its one line the text no diagnostic may show.
const SECRET: &str = "action leakedSecretXyzzy";

/// Loads `main` from the real file system with `options`; the first error, where it points
/// and the whole rendered diagnostic list.
fn real_err(main: &Path, options: &LoadOptions) -> (ErrorKind, String, String) {
    let mut sources = SourceMap::new();
    match load(main, &RealFs, options, &mut sources) {
        Ok(_) => panic!("{} loaded but should not have", main.display()),
        Err(diags) => {
            let shown: String = diags
                .iter()
                .map(|d| d.display(&sources).to_string())
                .collect();
            (diags[0].kind, sources.locate(diags[0].span), shown)
        }
    }
}

/// [`real_err`] with the default options.
fn real_err_default(main: &Path) -> (ErrorKind, String, String) {
    real_err(main, &LoadOptions::default())
}

/// Whether any file in `sources` holds `needle` (nothing read outside the root is kept).
fn sources_hold(sources: &SourceMap, needle: &str) -> bool {
    sources.files().iter().any(|f| f.text.contains(needle))
}

/// Runs `f` on another thread; fails if it takes longer than `limit` (a read that blocks
/// forever fails the test instead of hanging it).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("not finished within {limit:?}: a read blocked or ran away"))
}

// ---- finding 1: reads outside the root ------------------------------------------------------

#[test]
fn absolute_include_shows_nothing_of_the_target() {
    let outside = Scratch::new("abs-secret");
    let secret = outside.write("secret.bt", SECRET);
    let game = Scratch::new("abs");
    // Unvanquished: `#include` of the secret (which parses) and of `/etc/passwd` (which does
    // not, and whose first line the game's error would show).
    for target in [
        secret.to_str().unwrap(),
        "/etc/passwd",
        "/proc/self/environ",
    ] {
        let main = game.write(
            "bots/main.bt",
            &format!("#include \"{target}\"\naction roam"),
        );
        let (kind, at, shown) = real_err_default(&main);
        assert_eq!(kind, ErrorKind::OutsideRoot, "{shown}");
        assert_eq!(at, format!("{}:1:1", main.display()), "{shown}");
        assert!(shown.contains("absolute path"), "{shown}");
        assert!(!shown.contains("leakedSecretXyzzy"), "{shown}");
        if let Ok(passwd) = std::fs::read_to_string("/etc/passwd") {
            let first = passwd.lines().next().unwrap_or_default();
            assert!(first.is_empty() || !shown.contains(first), "{shown}");
        }
    }
    // Drag[en]gine: an absolute `<subtree>`, positioned at the path.
    let main = game.write(
        "ai/main.debt",
        &format!(
            "<behaviorTree>\n<subtree>{}</subtree></behaviorTree>",
            secret.display()
        ),
    );
    let (kind, at, shown) = real_err_default(&main);
    assert_eq!(
        (kind, at),
        (ErrorKind::OutsideRoot, format!("{}:2:10", main.display()))
    );
    assert!(!shown.contains("leakedSecretXyzzy"), "{shown}");
}

#[test]
fn dot_dot_escape_is_refused() {
    // In memory: the escapes are lexical, decided from the path as written.
    let secret = SECRET.as_bytes();
    let mut fs = MemFs::new();
    fs.insert(
        "/g/mod/bots/main.bt",
        "#include \"../secret.bt\"\naction roam",
    )
    .insert("/g/secret.bt", secret)
    .insert(
        "/g/mod/ai/main.debt",
        "<behaviorTree><subtree>sub/../../../secret.debt</subtree></behaviorTree>",
    )
    .insert(
        "/g/secret.debt",
        "<behaviorTree><action name='leakedSecretXyzzy'/></behaviorTree>",
    );
    for (main, at) in [
        ("/g/mod/bots/main.bt", "/g/mod/bots/main.bt:1:1"),
        ("/g/mod/ai/main.debt", "/g/mod/ai/main.debt:1:24"),
    ] {
        let mut sources = SourceMap::new();
        let diags = load(Path::new(main), &fs, &LoadOptions::default(), &mut sources)
            .expect_err("an escape loads nothing");
        let shown = diags[0].display(&sources).to_string();
        assert_eq!(
            (diags[0].kind, sources.locate(diags[0].span)),
            (ErrorKind::OutsideRoot, at.to_string()),
            "{shown}"
        );
        assert!(shown.contains("leads out of the tree's root"), "{shown}");
        assert!(!sources_hold(&sources, "leakedSecretXyzzy"));
    }
    // `..` that stays inside the root is fine, and a root given explicitly widens it.
    fs.insert(
        "/g/mod/ai/ok.debt",
        "<behaviorTree><subtree>sub/../../ai/leaf.debt</subtree></behaviorTree>",
    )
    .insert(
        "/g/mod/ai/leaf.debt",
        "<behaviorTree><action name='a'/></behaviorTree>",
    );
    let mut sources = SourceMap::new();
    let ok = load(
        Path::new("/g/mod/ai/ok.debt"),
        &fs,
        &LoadOptions::default(),
        &mut sources,
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
    let wide = LoadOptions {
        root: Some(PathBuf::from("/g")),
        ..LoadOptions::default()
    };
    let tree = load(Path::new("/g/mod/ai/main.debt"), &fs, &wide, &mut sources);
    assert!(tree.is_ok(), "{:?}", tree.err());
}

/// The load of `main` fails with a symbolic-link escape at `at` (`line:col` in `main`), and
/// nothing of the secret shows or is kept.
#[cfg(unix)]
fn assert_symlink_escape(main: &Path, at: &str) {
    let mut sources = SourceMap::new();
    let diags = load(main, &RealFs, &LoadOptions::default(), &mut sources)
        .expect_err("a symbolic link out of the root loads nothing");
    let shown: String = diags
        .iter()
        .map(|d| d.display(&sources).to_string())
        .collect();
    assert_eq!(
        (diags[0].kind, sources.locate(diags[0].span)),
        (ErrorKind::OutsideRoot, format!("{}:{at}", main.display())),
        "{shown}"
    );
    assert!(shown.contains("symbolic link"), "{shown}");
    assert!(!shown.contains("leakedSecretXyzzy"), "{shown}");
    assert!(!sources_hold(&sources, "leakedSecretXyzzy"));
}

#[cfg(unix)]
#[test]
fn symlink_escape_through_unvanquished_include() {
    let outside = Scratch::new("inc-secret");
    let secret = outside.write("secret.h", SECRET);
    let game = Scratch::new("inc");
    game.link("bots/defs.h", &secret);
    let main = game.write("bots/main.bt", "#include \"bots/defs.h\"\naction roam");
    assert_symlink_escape(&main, "1:1");
    // A link to a file outside that does not exist is refused in the same words: the
    // diagnostic cannot tell whether the target exists.
    let to_existing = real_err_default(&main).2;
    std::fs::remove_file(game.path("bots/defs.h")).unwrap();
    game.link("bots/defs.h", &outside.path("missing.h"));
    assert_symlink_escape(&main, "1:1");
    assert_eq!(real_err_default(&main).2, to_existing);
    // A linked directory on the way is an escape too.
    game.link("linked", outside.path("").as_path());
    let main = game.write(
        "bots/main.bt",
        "\n#include \"linked/secret.h\"\naction roam",
    );
    assert_symlink_escape(&main, "2:1");
}

#[cfg(unix)]
#[test]
fn symlink_escape_through_behavior() {
    let outside = Scratch::new("beh-secret");
    let secret = outside.write("secret.bt", SECRET);
    let game = Scratch::new("beh");
    game.link("bots/stolen.bt", &secret);
    let main = game.write("bots/main.bt", "sequence {\n  behavior stolen\n}");
    // At the `behavior` node, where a behavior file that cannot be read is reported.
    assert_symlink_escape(&main, "2:3");
}

#[cfg(unix)]
#[test]
fn symlink_escape_through_dragengine_subtree() {
    let outside = Scratch::new("sub-secret");
    let secret = outside.write(
        "secret.debt",
        "<behaviorTree><action name='leakedSecretXyzzy'/></behaviorTree>",
    );
    let game = Scratch::new("sub");
    game.link("ai/part.debt", &secret);
    let main = game.write(
        "ai/main.debt",
        "<behaviorTree>\n<subtree>part.debt</subtree></behaviorTree>",
    );
    assert_symlink_escape(&main, "2:10");
}

#[cfg(unix)]
#[test]
fn symlinked_xml_beside_a_bst_tree_is_refused() {
    let outside = Scratch::new("bst-secret");
    let secret = outside.write(
        "secret.xml",
        "<Blocks><Block name='leakedSecretXyzzy'><Sequence/></Block></Blocks>",
    );
    let game = Scratch::new("bst");
    game.link("ai/blocks.xml", &secret);
    let main = game.write(
        "ai/main.xml",
        "<SelectionTree name='t' type='BehaviorSelectionTree'>\n\
         <Variables/><SignalVariables/><LeafTranslations/><Priority><Leaf name='a'/></Priority>\
         </SelectionTree>",
    );
    assert_symlink_escape(&main, "1:1");
}

// ---- finding 2: special and huge files ------------------------------------------------------

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_without_reading() {
    within(Duration::from_secs(60), || {
        // As the main file, of every format.
        for (ext, format) in FORMATS {
            let options = LoadOptions {
                format: Some(format),
                ..LoadOptions::default()
            };
            let (kind, _, shown) = real_err(Path::new("/dev/zero"), &options);
            assert_eq!(kind, ErrorKind::Io, "{ext}: {shown}");
            assert!(shown.contains("not a regular file"), "{ext}: {shown}");
        }
        // Through a subtree, with a root wide enough to reach it.
        let game = Scratch::new("zero");
        let climb = "../".repeat(game.0.components().count() + 1);
        let main = game.write(
            "main.debt",
            &format!("<behaviorTree><subtree>{climb}dev/zero</subtree></behaviorTree>"),
        );
        let options = LoadOptions {
            root: Some(PathBuf::from("/")),
            ..LoadOptions::default()
        };
        let (kind, at, shown) = real_err(&main, &options);
        assert_eq!(
            (kind, at),
            (ErrorKind::Io, format!("{}:1:24", main.display())),
            "{shown}"
        );
        // The bounded reader of operator-named files refuses it too.
        let e = read_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    });
}

#[cfg(unix)]
#[test]
fn fifo_is_refused_without_blocking() {
    let game = Scratch::new("fifo");
    let fifo = game.path("pipe.debt");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let main = game.write(
        "main.debt",
        "<behaviorTree><subtree>pipe.debt</subtree></behaviorTree>",
    );
    let (main2, fifo2) = (main.clone(), fifo.clone());
    within(Duration::from_secs(60), move || {
        let (kind, at, shown) = real_err_default(&main2);
        assert_eq!(
            (kind, at),
            (ErrorKind::Io, format!("{}:1:24", main2.display())),
            "{shown}"
        );
        assert!(shown.contains("not a regular file"), "{shown}");
        // As the main file, and as the standard input.
        let (kind, _, shown) = real_err_default(&fifo2);
        assert_eq!(kind, ErrorKind::Io, "{shown}");
        let options = LoadOptions {
            format: Some(Format::Dialect(Dialect::Dragengine)),
            ..LoadOptions::default()
        };
        let stdin = load(
            Path::new("/dev/stdin"),
            &RealFs,
            &options,
            &mut SourceMap::new(),
        );
        assert!(stdin.is_err());
        assert!(read_file(&fifo2, 1 << 20).is_err());
    });
}

#[test]
fn three_gigabyte_sparse_file_is_refused_unread() {
    let game = Scratch::new("sparse");
    let big = game.path("big.debt");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(3 << 30))
        .unwrap();
    let main = game.write(
        "main.debt",
        "<behaviorTree><subtree>big.debt</subtree></behaviorTree>",
    );
    let start = Instant::now();
    for path in [&big, &main] {
        let options = LoadOptions {
            format: Some(Format::Dialect(Dialect::Dragengine)),
            ..LoadOptions::default()
        };
        let (kind, at, shown) = real_err(path, &options);
        assert_eq!(
            (kind, at),
            (ErrorKind::SourceTooLarge, format!("{}:1:1", big.display())),
            "{shown}"
        );
        assert!(shown.contains("3221225472 bytes"), "{shown}");
    }
    let e = read_file(&big, 16 << 20).unwrap_err();
    assert_eq!(
        TooLarge::of(&e),
        Some(TooLarge {
            size: Some(3 << 30),
            max_bytes: 16 << 20
        })
    );
    // Reading 3 GB, even of holes, takes seconds; refusing it takes none.
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

// ---- finding 3: load budgets ----------------------------------------------------------------

#[test]
fn include_bomb_of_two_to_the_forty_is_refused_by_the_file_budget() {
    // 41 files, each including the next one twice: 2^40 includes.
    let mut files: Vec<(String, String)> =
        vec![("main.bt".into(), "#include \"t/f0.h\"\naction roam".into())];
    for i in 0..40 {
        let next = format!("#include \"t/f{}.h\"\n", i + 1);
        files.push((format!("f{i}.h"), format!("{next}{next}")));
    }
    files.push(("f40.h".into(), "// the end\n".into()));
    let start = Instant::now();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_bytes()))
        .collect();
    let (kind, at) = load_err(&refs);
    assert_eq!(kind, ErrorKind::LoadBudget);
    // Read 4,096 files (the default budget): the refused include is one of the deepest.
    assert!(
        at.starts_with("/t/f") && (at.ends_with(":1:1") || at.ends_with(":2:1")),
        "{at}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn fifteen_megabytes_included_two_thousand_times_is_refused_by_the_byte_budget() {
    let line = format!("// {}\n", "x".repeat(1000));
    let big = line.repeat(15 << 10); // 15 MiB of comments
    let main = "#include \"t/big.h\"\n".repeat(2000) + "action roam";
    let start = Instant::now();
    let (kind, at) = load_err(&[("main.bt", main.as_bytes()), ("big.h", big.as_bytes())]);
    // 64 MiB (the default budget) holds four reads of it; the fifth include is refused.
    assert_eq!(
        (kind, at.as_str()),
        (ErrorKind::LoadBudget, "/t/main.bt:5:1")
    );
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "{:?}",
        start.elapsed()
    );
    // A tighter budget refuses it at once.
    let limits = Limits {
        max_load_bytes: 20 << 20,
        ..Limits::default()
    };
    let mut fs = MemFs::new();
    fs.insert("/t/main.bt", main.as_bytes())
        .insert("/t/big.h", big.as_bytes());
    let options = LoadOptions {
        limits,
        ..LoadOptions::default()
    };
    let mut sources = SourceMap::new();
    let diags: Vec<Diagnostic> =
        load(Path::new("/t/main.bt"), &fs, &options, &mut sources).expect_err("past the budget");
    assert_eq!(
        (diags[0].kind, sources.locate(diags[0].span)),
        (ErrorKind::LoadBudget, "/t/main.bt:2:1".to_string())
    );
}

#[test]
fn main_file_reads_are_bounded() {
    // The main file of every format is refused past the size limit without being read whole,
    // and its size counts against the byte budget.
    let limits = Limits {
        max_source_bytes: 1000,
        ..Limits::default()
    };
    for (ext, _) in FORMATS {
        let mut fs = MemFs::new();
        let name = format!("/t/main.{ext}");
        fs.insert(name.as_str(), vec![b' '; 1001]);
        let options = LoadOptions {
            limits,
            ..LoadOptions::default()
        };
        let mut sources = SourceMap::new();
        let diags = load(Path::new(&name), &fs, &options, &mut sources).expect_err("too large");
        assert_eq!(
            (diags[0].kind, sources.locate(diags[0].span)),
            (ErrorKind::SourceTooLarge, format!("{name}:1:1"))
        );
    }
}

// ---- path resolution ------------------------------------------------------------------------

/// A path as a tree might write it: names, `.`, `..`, empty components, separators of both
/// kinds, a leading `/`.
fn written_path() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        Just("a".to_string()),
        Just("b.debt".to_string()),
        Just("..a".to_string()),
        Just("c\\..".to_string()),
    ];
    (any::<bool>(), proptest::collection::vec(part, 0..8))
        .prop_map(|(abs, parts)| format!("{}{}", if abs { "/" } else { "" }, parts.join("/")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Resolution never panics, and yields either a refusal or a normalized path inside the
    /// root.
    #[test]
    fn resolution_stays_inside_the_root(
        root in prop_oneof![Just(""), Just("/"), Just("/g"), Just("g/mod"), Just("/g/../h/.")],
        below in proptest::collection::vec(prop_oneof![Just("x"), Just("y"), Just(".")], 0..4),
        written in written_path(),
    ) {
        let root = Path::new(root);
        let base = below.iter().fold(root.to_path_buf(), |p, c| p.join(c));
        let resolved = resolve_in(root, &base, &written);
        if written.starts_with('/') {
            prop_assert_eq!(resolved.clone(), Err(Escape::Absolute));
        }
        if let Ok(p) = resolved {
            prop_assert!(inside(root, &p), "{} outside {}", p.display(), root.display());
            prop_assert_eq!(normalize(&p), p.clone());
        }
    }

    /// Through a whole load: whatever a `<subtree>` names, no file outside the root is read.
    #[test]
    fn loads_read_nothing_outside_the_root(written in written_path()) {
        let mut fs = MemFs::new();
        let leaf = "<behaviorTree><action name='a'/></behaviorTree>";
        for p in ["/g/b.debt", "/g/a/b.debt", "/b.debt", "/g/mod/b.debt", "/g/mod/a/b.debt"] {
            fs.insert(p, leaf);
        }
        fs.insert(
            "/g/mod/main.debt",
            format!("<behaviorTree><subtree>{written}</subtree></behaviorTree>"),
        );
        let mut sources = SourceMap::new();
        let _ = load(Path::new("/g/mod/main.debt"), &fs, &LoadOptions::default(), &mut sources);
        for f in sources.files() {
            prop_assert!(inside(Path::new("/g/mod"), &f.path), "read {}", f.path.display());
        }
    }
}
