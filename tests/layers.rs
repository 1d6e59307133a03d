//! The library's layers: every `crate::…` path in `src/` points down.
//!
//! The folders of `src/` are layers (see ARCHITECTURE.md): the rules of the
//! game at the bottom, then what is built on them. A module may use modules of
//! lower layers and itself, never a higher layer nor another module of its own
//! layer. Inside `rules/` the files are ordered the same way. This test reads
//! the sources as text, so it needs no extra tool: run it with
//! `cargo test --test integration layers::`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first; modules on one line share a layer.
const LAYERS: &[&[&str]] = &[
    &["setting"],
    &["error"],
    &["control"],
    &["files"],
    &["rules"],
    &["solver", "puzzle"],
    &["tables"],
    &["catalogue"],
    &["census"],
    &["verify"],
    &["assistant"],
    &["render"],
    &["play"],
];

/// The files of `rules/`, lowest first.
const RULES: &[&str] = &[
    "config",
    "board",
    "ray",
    "notation",
    "score",
    "spectrum",
    "symmetry",
    "enumeration",
    "report",
];

fn layer(module: &str) -> Option<usize> {
    // `crate::text` is the `text!` macro of `setting.rs`, exported at the
    // crate's root as every `#[macro_export]` macro is.
    let module = if module == "text" { "setting" } else { module };
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `crate::a::b` path in `text` outside comments, as `(line, a, b)`.
fn crate_paths(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            };
            let first = name(after);
            let second = after
                .strip_prefix(first.as_str())
                .and_then(|s| s.strip_prefix("::"))
                .map(name)
                .unwrap_or_default();
            out.push((i + 1, first, second));
            rest = after;
        }
    }
    out
}

/// The layer violations in `files` (path relative to `src/`, text).
fn violations(files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, text) in files {
        let parts: Vec<String> = path
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let module = parts[0].as_str();
        if module == "lib" || module == "bin" || module == "main" {
            continue;
        }
        let Some(own) = layer(module) else {
            bad.push(format!(
                "src/{}: module `{module}` is in no layer: add it to LAYERS here and to ARCHITECTURE.md",
                path.display()
            ));
            continue;
        };
        for (line, target, inner) in crate_paths(text) {
            let at = format!("src/{}:{line}", path.display());
            if target == module {
                if module == "rules" && parts.len() > 1 {
                    let from = RULES.iter().position(|r| *r == parts[1]);
                    let to = RULES.iter().position(|r| *r == inner);
                    match (from, to) {
                        (Some(f), Some(t)) if t > f => bad.push(format!(
                            "{at}: rules::{} uses rules::{inner}, which comes after it",
                            parts[1]
                        )),
                        (None, _) if parts[1] != "mod" => bad.push(format!(
                            "{at}: rules::{} is not in the RULES order of this test",
                            parts[1]
                        )),
                        _ => {}
                    }
                }
                continue;
            }
            match layer(&target) {
                // Crate-root items (`crate::Config`, `crate::Result`) are the
                // re-exports of lib.rs: they come from the lowest layers.
                None if target.starts_with(|c: char| c.is_uppercase()) => {
                    let rooted = ["Error", "ParseError", "Result"].contains(&target.as_str());
                    if !rooted && own < 1 {
                        bad.push(format!("{at}: {module} uses crate::{target}"));
                    }
                }
                None => bad.push(format!("{at}: {module} uses crate::{target}, in no layer")),
                Some(t) if t > own => bad.push(format!(
                    "{at}: {module} uses crate::{target}, a higher layer"
                )),
                Some(t) if t == own => bad.push(format!(
                    "{at}: {module} uses crate::{target}, of its own layer"
                )),
                Some(_) => {}
            }
        }
    }
    bad
}

/// The import circles between the files of one folder (`play/app` uses
/// `play/ui`, which uses `play/app`), each as `a -> b -> … -> a`. Files of a
/// folder may use each other, but never in a circle: the lower one must not
/// know the higher one. Unit tests (from the first `#[cfg(test)]` on) are
/// left out: they may set up what the file serves.
fn circles(files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, text) in files {
        let parts: Vec<String> = path
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if parts.len() != 2 || parts[1] == "mod" {
            continue;
        }
        let from = format!("{}/{}", parts[0], parts[1]);
        let entry = uses.entry(from.clone()).or_default();
        // A file's unit tests may set up what the file serves.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (_, target, inner) in crate_paths(code) {
            let to = format!("{target}/{inner}");
            if target == parts[0]
                && to != from
                && files.contains_key(&PathBuf::from(format!("{to}.rs")))
                && !entry.contains(&to)
            {
                entry.push(to);
            }
        }
    }
    // A depth-first search from each file; a path back to the file is a circle.
    let mut found: Vec<String> = Vec::new();
    for start in uses.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in uses.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    circle.push(start.clone());
                    // Report each circle once, from its smallest file.
                    if path.iter().all(|f| f >= start) {
                        found.push(circle.join(" -> "));
                    }
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

fn sources(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).expect("a source file");
            out.insert(p.strip_prefix(root).expect("below src").to_path_buf(), text);
        }
    }
}

#[test]
fn every_import_points_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 20, "found only {} source files", files.len());
    let bad = violations(&files);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_two_files_of_a_folder_use_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    let found = circles(&files);
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_circles() {
    let mut files = BTreeMap::new();
    let mut add = |path: &str, text: &str| {
        files.insert(PathBuf::from(path), text.to_string());
    };
    add(
        "play/app.rs",
        "use crate::play::ui;\nuse crate::play::game::Game;\n",
    );
    add("play/ui.rs", "use crate::play::app::App;\n");
    add("play/game.rs", "use crate::render::Notation;\n");
    add("census/a.rs", "use crate::census::b::B;\n");
    add("census/b.rs", "use crate::census::c::C;\n");
    add("census/c.rs", "use crate::census::a::A;\n");
    add("census/mod.rs", "use crate::census::a::A;\n");
    let found = circles(&files);
    assert_eq!(
        found,
        [
            "census/a -> census/b -> census/c -> census/a",
            "play/app -> play/ui -> play/app"
        ],
        "{found:#?}"
    );
}

#[test]
fn the_check_catches_upward_and_sideways_imports() {
    let mut files = BTreeMap::new();
    files.insert(
        PathBuf::from("solver/encode.rs"),
        "use crate::render::grid;\nuse crate::puzzle::Puzzle;\nuse crate::rules::ray::Outcome; // crate::play in a comment\n"
            .to_string(),
    );
    files.insert(
        PathBuf::from("rules/board.rs"),
        "use crate::rules::config::Config;\nuse crate::rules::ray::Rules;\n".to_string(),
    );
    files.insert(PathBuf::from("extra/mod.rs"), String::new());
    let bad = violations(&files);
    assert_eq!(bad.len(), 4, "{bad:#?}");
    assert!(bad[0].contains("`extra` is in no layer"));
    assert!(bad[1].contains("rules::board uses rules::ray"));
    assert!(bad[2].contains("render, a higher layer"));
    assert!(bad[3].contains("puzzle, of its own layer"));
}
