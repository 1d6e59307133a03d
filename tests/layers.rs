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
    &["work"],
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
    "sweep",
    "trace_report",
];

fn layer(module: &str) -> Option<usize> {
    // `crate::text` is the `text!` macro of `setting.rs`, exported at the
    // crate's root as every `#[macro_export]` macro is.
    let module = if module == "text" { "setting" } else { module };
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The module path of the file at `path` (relative to `src/`):
/// `assistant/optimal.rs` is `["assistant", "optimal"]`, `assistant/mod.rs`
/// is `["assistant"]`.
fn module_of(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = path
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// Expands a `use` tree (`crate::a::{b, c::d}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or("").trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    // Split the group at top-level commas.
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|i| !i.trim().is_empty())
        .flat_map(|i| expand(&format!("{prefix}{}", i.trim())))
        .map(|p| p.trim_end_matches("::self").to_string())
        .collect()
}

/// Every path into the crate in `text` (the file at module `module`), with
/// `super::` and `self::` resolved and `use` groups expanded, outside
/// comments, as `(line, first, second)`: `crate::a::b::C` is `(…, a, b)`,
/// and in `assistant/optimal.rs` `super::strategy::Table` is
/// `(…, assistant, strategy)`. Code in an inline module (`mod tests { … }`)
/// resolves `super::` from that module.
fn crate_paths_in(text: &str, module: &[String]) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    // Inline modules open at a brace depth: (name, depth).
    let mut inline: Vec<(String, i32)> = Vec::new();
    let mut depth = 0;
    let mut statement = String::new();
    let mut statement_line = 0;
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        if let Some(rest) = trimmed
            .strip_prefix("mod ")
            .or_else(|| trimmed.strip_prefix("pub mod "))
            .or_else(|| trimmed.strip_prefix("pub(crate) mod "))
            && let Some(name) = rest.strip_suffix('{')
        {
            inline.push((name.trim().to_string(), depth));
        }
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        // A `use` statement, possibly over several lines.
        let starts_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        let mut paths: Vec<String> = Vec::new();
        if starts_use || !statement.is_empty() {
            if statement.is_empty() {
                statement_line = i + 1;
            }
            statement.push_str(trimmed);
            statement.push(' ');
            if trimmed.ends_with(';') {
                let body = statement.trim().trim_end_matches(';');
                let body = body[body.find("use ").map_or(0, |u| u + 4)..].to_string();
                paths.extend(expand(&body));
                statement.clear();
            }
        } else {
            // Paths written inline: `crate::a::b`, `super::x`, `self::y`.
            for root in ["crate::", "super::", "self::"] {
                let mut rest = code;
                while let Some(at) = rest.find(root) {
                    let before = rest[..at].chars().last();
                    let after = &rest[at..];
                    let path: String = after
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                        paths.push(path.trim_end_matches(':').to_string());
                    }
                    rest = &after[root.len()..];
                }
            }
        }
        let line_no = if starts_use || paths.is_empty() {
            statement_line.max(i + 1)
        } else {
            i + 1
        };
        for p in paths {
            let mut segments: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
            let resolved: Vec<String> = match segments.first().copied() {
                Some("crate") => segments.drain(1..).map(String::from).collect(),
                Some("super") => {
                    let mut base = here.clone();
                    while segments.first() == Some(&"super") {
                        segments.remove(0);
                        base.pop();
                    }
                    base.into_iter()
                        .chain(segments.into_iter().map(String::from))
                        .collect()
                }
                Some("self") => here
                    .iter()
                    .cloned()
                    .chain(segments.into_iter().skip(1).map(String::from))
                    .collect(),
                _ => continue,
            };
            let first = resolved.first().cloned().unwrap_or_default();
            if first.is_empty() || first == "*" {
                continue;
            }
            let second = resolved.get(1).cloned().unwrap_or_default();
            out.push((line_no, first, second.trim_end_matches('*').to_string()));
        }
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        while inline.last().is_some_and(|(_, d)| depth <= *d) {
            inline.pop();
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
        for (line, target, inner) in crate_paths_in(text, &module_of(path)) {
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
        for (_, target, inner) in crate_paths_in(code, &module_of(path)) {
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

#[test]
fn the_check_resolves_super_self_and_groups() {
    let mut files = BTreeMap::new();
    let mut add = |path: &str, text: &str| {
        files.insert(PathBuf::from(path), text.to_string());
    };
    // A circle closed by `super::`, another by `self::` from a folder's
    // mod.rs, a third through a `use` group over two lines.
    add("assistant/optimal.rs", "use super::strategy::Table;\n");
    add(
        "assistant/strategy.rs",
        "use super::{\n    optimal::Optimum, suggest};\n",
    );
    add("assistant/suggest.rs", "fn f() { super::plan::x(); }\n");
    add(
        "assistant/plan.rs",
        "use crate::assistant::{generate as g};\n",
    );
    add(
        "assistant/generate.rs",
        "pub fn x() { self::y(); }\n#[cfg(test)]\nmod tests {\n    use super::super::plan::P;\n}\n",
    );
    add("assistant/mod.rs", "pub use self::plan::Plan;\n");
    let found = circles(&files);
    assert_eq!(
        found,
        ["assistant/optimal -> assistant/strategy -> assistant/optimal"],
        "{found:#?}"
    );
    files.insert(
        PathBuf::from("assistant/generate.rs"),
        "use super::suggest::Z;\n".to_string(),
    );
    let found = circles(&files);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].starts_with("assistant/generate -> assistant/suggest -> assistant/plan"),
        "{found:#?}"
    );
    // `super::` out of a folder is a path into another layer.
    let mut up = BTreeMap::new();
    up.insert(
        PathBuf::from("solver/mod.rs"),
        "use super::render::grid;\nuse self::encode::E;\n".to_string(),
    );
    let bad = violations(&up);
    assert_eq!(bad.len(), 1, "{bad:#?}");
    assert!(bad[0].contains("render, a higher layer"), "{bad:#?}");
}
