//! Unit tests of the preprocessor.

use super::*;
use crate::source::MemFs;

/// The spellings of the preprocessed tokens of `src`.
fn pp(src: &str) -> Result<Vec<String>, Diagnostic> {
    let fs = MemFs::new();
    let mut sources = SourceMap::new();
    let limits = Limits::default();
    let id = sources.add("/m.bt", src.to_string());
    let file = SourceText {
        id,
        path: "/m.bt".into(),
        text: src.into(),
    };
    let files = crate::syntax::files::Files::new(&fs, &limits, None);
    let profile = crate::syntax::Profile::builtin("unvanquished").unwrap();
    let ctx = PpContext {
        files: &files,
        limits: &limits,
        sources: &mut sources,
        symbols: profile.unvanquished().unwrap().symbols(),
        include_depth: 0,
        root: Path::new("/"),
    };
    Ok(preprocess(ctx, &file)?
        .tokens
        .iter()
        .map(Token::text)
        .collect())
}

#[test]
fn directive_lines_end_at_newlines_unless_continued() {
    assert_eq!(pp("#define A 1\nA A").unwrap(), ["1", "1"]);
    assert_eq!(pp("#define A 1 \\\n 2\nA").unwrap(), ["1", "2"]);
    // A backslash continues onto the next line only, not across a blank line.
    assert_eq!(pp("#define A 1 \\\n\n 2\nA").unwrap(), ["2", "1"]);
    // Comments spanning lines count as line breaks.
    assert_eq!(pp("#define A 1 /*\n*/ 2\nA").unwrap(), ["2", "1"]);
    // A use of a macro that expands to nothing ends the game's token stream.
    assert_eq!(pp("#define E\nx E y").unwrap(), ["x"]);
}

#[test]
fn predefined_symbols_and_string_joining() {
    assert_eq!(
        pp("E_SELF STATUS_RUNNING e_self").unwrap(),
        ["22", "2", "e_self"]
    );
    assert_eq!(
        pp("#define S \"b\"\nx \"a\" S \"c\"").unwrap(),
        ["x", "\"abc\""]
    );
    // As in the game, the tokenizer joins adjacent strings even across a line break, so a
    // string at the start of the next line becomes part of the `#define`.
    assert_eq!(
        pp("#define S \"b\"\n\"a\" S").unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(pp("#undef E_SELF\nE_SELF").unwrap(), ["E_SELF"]);
}

#[test]
fn hide_sets_stop_recursion_but_not_nested_calls() {
    assert_eq!(pp("#define X X + 1\nX").unwrap(), ["X", "+", "1"]);
    assert_eq!(pp("#define A B\n#define B A\nA B").unwrap(), ["A", "B"]);
    // The game's argument reader drops the inner `(` and ends the list at its `)`: the
    // argument is `F 1`, and the inner `F` without `(` ends the token stream.
    assert_eq!(pp("#define F(x) (x)\nF(F(1))").unwrap(), ["("]);
    assert_eq!(pp("#define F(x) (x)\nF(F(1)").unwrap(), ["("]);
    assert_eq!(
        pp("#define F(x) [x]\nF((1, 2)").unwrap(),
        ["[", "1", ",", "2", "]"]
    );
    assert_eq!(pp("#define F(x) x\n#define G F\nG(2)").unwrap(), ["2"]);
    // `F()` has no parameters: an object-like macro for the game.
    assert_eq!(pp("#define F() 7\nF() F").unwrap(), ["7", "(", ")", "7"]);
}
