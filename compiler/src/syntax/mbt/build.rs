//! The MBT loader: reads the file, finds the sections of the root element (`spec/mbt.md`
//! section 1.2), reads the declarations, then `<Root>`'s node, and assembles the tree.
//!
//! Sections are read in dependency order (Variables, Timestamps, SignalVariables, Root)
//! whatever their order in the file. This file reads only the one file it is given, through the
//! [`FileSystem`], and never prints.

use std::path::Path;

use roxmltree::Node;

use super::lua::Snippets;
use super::nodes::Nodes;
use super::sections::{self, Names};
use super::xml::{elements, parse_document, PResult, Src};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Dialect, Tree, TreeBuilder};
use crate::source::SourceMap;
use crate::syntax::files::Files;
use crate::syntax::Profile;

/// The sections of an MBT file, by the name that finds them.
const SECTIONS: [&str; 5] = [
    "MetaExtensions",
    "Variables",
    "SignalVariables",
    "Timestamps",
    "Root",
];

/// Loads the MBT file at `path`. The node errors it went on after (a node element it could
/// not read, with its siblings read anyway) go to `errors`, and then the tree is `None`; the
/// error that stopped it is the `Err`.
pub(super) fn load(
    path: &Path,
    files: &mut Files,
    profile: Option<&Profile>,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
    errors: &mut Vec<Diagnostic>,
) -> PResult<Option<Tree>> {
    files.default_root(path.parent().unwrap_or(Path::new("")));
    let limits = files.limits();
    let src = files.read_main(sources, path)?;
    let (file, text) = (src.id, &*src.text);
    let doc = parse_document(text, file, limits)?;
    let profile = profile.filter(|p| p.mbt().is_some());
    let src = Src {
        text,
        file,
        lenient: profile.and_then(|p| p.mbt()).is_some_and(|n| n.lenient),
    };
    let found = find_sections(&src, doc.root_element(), warnings)?;
    let section = |name: &str| {
        SECTIONS
            .iter()
            .position(|s| *s == name)
            .and_then(|i| found[i])
    };
    let mut tree = TreeBuilder::new(Dialect::Mbt);
    let mut names = Names::default();
    if let Some(s) = section("Variables") {
        sections::variables(&src, s, &mut tree, &mut names, warnings)?;
    }
    if let Some(s) = section("Timestamps") {
        sections::timestamps(&src, s, &mut tree, &mut names, warnings)?;
    }
    if let Some(s) = section("SignalVariables") {
        sections::signals(&src, s, &mut tree, &names, limits, warnings)?;
    }
    let Some(root) = section("Root") else {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            src.start_tag(doc.root_element()),
            "the tree has no `<Root>` section",
        )
        .with_note("`<Root>` holds the tree's one top node"));
    };
    src.check_attrs(root, &[])?;
    let top: Vec<Node> = elements(root).collect();
    if top.len() != 1 {
        let at = top
            .get(1)
            .map_or(src.start_tag(root), |n| src.start_tag(*n));
        return Err(Diagnostic::new(
            ErrorKind::Arity,
            at,
            format!("`<Root>` holds exactly one node, not {}", top.len()),
        ));
    }
    let mut nodes = Nodes {
        src,
        limits,
        profile,
        names: &names,
        tree: &mut tree,
        lua: Snippets::default(),
        count: 0,
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    let body = nodes.node(top[0], 0);
    warnings.append(&mut nodes.warnings);
    errors.append(&mut nodes.errors);
    let body = body?;
    if !errors.is_empty() {
        return Ok(None);
    }
    tree.root("main", body);
    tree.finish().map(Some).map_err(|msg| {
        Diagnostic::new(
            ErrorKind::InvalidValue,
            src.start_tag(root),
            format!("invalid tree: {msg}"),
        )
    })
}

/// The root element's sections, in the order of [`SECTIONS`]. Of a section appearing twice
/// the first is read, with a warning for the other, as CryXML's `findChild` finds the first
/// (`BehaviorTreeManager::LoadBehaviorTreeTemplate`, `XmlLoader`; **Definition**: the original
/// is silent); an unknown section is an error, unless the source is lenient (the GameSDK
/// profile).
fn find_sections<'a, 'i>(
    src: &Src,
    root: Node<'a, 'i>,
    warnings: &mut Vec<Diagnostic>,
) -> PResult<[Option<Node<'a, 'i>>; 5]> {
    let mut found = [None; 5];
    for el in elements(root) {
        let tag = src.tag(el);
        match SECTIONS.iter().position(|s| s.eq_ignore_ascii_case(tag)) {
            Some(i) => {
                if let Some(first) = found[i] {
                    warnings.push(
                        Diagnostic::warning(
                            ErrorKind::Syntax,
                            src.start_tag(el),
                            format!("the section `<{tag}>` appears twice; the first is read"),
                        )
                        .with_label(src.start_tag(first), "first here"),
                    );
                    continue;
                }
                found[i] = Some(el);
            }
            None if src.lenient => {}
            None => {
                return Err(Diagnostic::new(
                    ErrorKind::UnknownName,
                    src.start_tag(el),
                    format!("unknown section `<{tag}>`"),
                )
                .with_note(
                    "the sections are `<MetaExtensions>`, `<Variables>`, `<SignalVariables>`, \
                     `<Timestamps>` and `<Root>` (in any case); the gamesdk profile ignores \
                     others",
                ))
            }
        }
    }
    Ok(found)
}
