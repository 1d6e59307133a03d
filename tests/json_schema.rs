//! Every command's `--json` output against the reference, docs/json.md.
//!
//! The key tables of docs/json.md are the schema: each `### ` heading naming
//! an object in backticks (`bbx trace`, `statistics`…) is followed by a table
//! of its keys, their types and meanings. This test reads those tables, runs
//! every command with `--json` on small inputs (and the errors), and checks
//! each output: one JSON object, every documented key present with its
//! documented type (`null` only where documented), no undocumented key, at
//! every depth. The doc's examples are checked the same way, and every object
//! the doc describes must be met by some run, so that the doc and the code
//! cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::{bbx, puzzle, temp_dir};

/// A type as the doc writes it (docs/json.md, Conventions).
#[derive(Debug, Clone)]
enum Type {
    Null,
    String,
    Integer,
    Number,
    Boolean,
    /// `array`: a short list whose items the meaning column gives.
    Tuple,
    /// `array of T`.
    Array(Box<Type>),
    /// An object described by its own table.
    Named(String),
    /// `A or B`.
    Either(Vec<Type>),
}

/// Reads `A or B`, `array of T`, `(T)`, a base type or a `named` object.
fn parse_type(text: &str) -> Type {
    let text = text.trim();
    // Split on " or " outside parentheses.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ if depth == 0 && text[i..].starts_with(" or ") => {
                parts.push(&text[start..i]);
                start = i + 4;
                i += 3;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&text[start..]);
    if parts.len() > 1 {
        return Type::Either(parts.into_iter().map(parse_type).collect());
    }
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        return parse_type(inner);
    }
    if let Some(item) = text.strip_prefix("array of ") {
        return Type::Array(Box::new(parse_type(item)));
    }
    if let Some(name) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return Type::Named(name.to_string());
    }
    match text {
        "null" => Type::Null,
        "string" => Type::String,
        "integer" => Type::Integer,
        "number" => Type::Number,
        "boolean" => Type::Boolean,
        "array" => Type::Tuple,
        other => panic!("docs/json.md: unknown type '{other}'"),
    }
}

/// The doc's objects (name → keys and types, in order) and its examples
/// (the object they show, the JSON).
struct Doc {
    objects: BTreeMap<String, Vec<(String, Type)>>,
    examples: Vec<(String, String)>,
}

fn read_doc() -> Doc {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md");
    let text = std::fs::read_to_string(&path).expect("docs/json.md");
    let mut objects: BTreeMap<String, Vec<(String, Type)>> = BTreeMap::new();
    let mut examples = Vec::new();
    let mut current: Option<String> = None;
    // The object an example shows: the last command (or `error`) described,
    // whose parts' tables may come between its own and the example.
    let mut whole: Option<String> = None;
    let mut example: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("docs/json.md:{}", n + 1);
        if let Some(json) = &mut example {
            if line.starts_with("```") {
                let name = whole
                    .clone()
                    .unwrap_or_else(|| panic!("{}: an example under no command", at()));
                examples.push((name, std::mem::take(json)));
                example = None;
            } else {
                json.push_str(line);
                json.push('\n');
            }
            continue;
        }
        if line.starts_with("```json") {
            example = Some(String::new());
        } else if line.starts_with('#') {
            current = line.split('`').nth(1).map(str::to_string);
            if let Some(name) = &current {
                if name.starts_with("bbx ") || name == "error" {
                    whole = Some(name.clone());
                }
                assert!(
                    !objects.contains_key(name),
                    "{}: '{name}' is described twice",
                    at()
                );
            }
        } else if let (Some(name), Some(row)) = (&current, line.strip_prefix("| `")) {
            let cells: Vec<&str> = row.split('|').collect();
            assert!(
                cells.len() >= 3,
                "{}: a key row needs a type and a meaning",
                at()
            );
            let key = cells[0].trim().trim_end_matches('`').to_string();
            let keys = objects.entry(name.clone()).or_default();
            assert!(
                !keys.iter().any(|(k, _)| *k == key),
                "{}: key '{key}' twice in '{name}'",
                at()
            );
            keys.push((key, parse_type(cells[1])));
        }
    }
    // Every object named in a type is described.
    fn names(t: &Type, out: &mut Vec<String>) {
        match t {
            Type::Named(n) => out.push(n.clone()),
            Type::Array(t) => names(t, out),
            Type::Either(ts) => ts.iter().for_each(|t| names(t, out)),
            _ => {}
        }
    }
    for (name, keys) in &objects {
        for (key, t) in keys {
            let mut named = Vec::new();
            names(t, &mut named);
            for n in named {
                assert!(
                    objects.contains_key(&n),
                    "docs/json.md: '{name}'.{key} is a '{n}', which the doc does not describe"
                );
            }
        }
    }
    Doc { objects, examples }
}

impl Doc {
    /// Checks `value` against `t`; `met` gathers the objects it matched.
    fn check(
        &self,
        t: &Type,
        value: &Value,
        at: &str,
        met: &mut BTreeSet<String>,
    ) -> Result<(), String> {
        let wrong = |what: &str| Err(format!("{at}: expected {what}, found {value}"));
        match t {
            Type::Null if value.is_null() => Ok(()),
            Type::Null => wrong("null"),
            Type::String if value.is_string() => Ok(()),
            Type::String => wrong("a string"),
            Type::Integer if value.is_u64() || value.is_i64() => Ok(()),
            Type::Integer => wrong("an integer"),
            Type::Number if value.is_number() => Ok(()),
            Type::Number => wrong("a number"),
            Type::Boolean if value.is_boolean() => Ok(()),
            Type::Boolean => wrong("a boolean"),
            Type::Tuple if value.is_array() => Ok(()),
            Type::Tuple => wrong("an array"),
            Type::Array(item) => match value.as_array() {
                Some(items) => items
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, v)| self.check(item, v, &format!("{at}[{i}]"), met)),
                None => wrong("an array"),
            },
            Type::Either(ts) => {
                let mut why = Vec::new();
                for t in ts {
                    let mut here = BTreeSet::new();
                    match self.check(t, value, at, &mut here) {
                        Ok(()) => {
                            met.extend(here);
                            return Ok(());
                        }
                        Err(e) => why.push(e),
                    }
                }
                Err(why.join("; or "))
            }
            Type::Named(name) => {
                let Some(object) = value.as_object() else {
                    return wrong(&format!("a '{name}' object"));
                };
                let keys = &self.objects[name];
                for (key, t) in keys {
                    let Some(v) = object.get(key) else {
                        return Err(format!("{at}: '{name}' has no key '{key}': {value}"));
                    };
                    self.check(t, v, &format!("{at}.{key}"), met)?;
                }
                if let Some(extra) = object.keys().find(|k| !keys.iter().any(|(d, _)| d == *k)) {
                    return Err(format!(
                        "{at}: key '{extra}' is not in docs/json.md's table of '{name}'"
                    ));
                }
                met.insert(name.clone());
                Ok(())
            }
        }
    }
}

/// Runs `bbx ARGS` (`--json` among them) in `dir` and checks that its
/// standard output is one `object` and its exit status `status`.
fn run(
    doc: &Doc,
    dir: &Path,
    args: &[&str],
    object: &str,
    status: i32,
    met: &mut BTreeSet<String>,
) {
    // An argument `BBX_TEST_FAULTS=…` is the faults to inject, not an
    // argument.
    let (faults, args): (Vec<&str>, Vec<&str>) =
        args.iter().partition(|a| a.starts_with("BBX_TEST_FAULTS="));
    let mut command = bbx();
    for f in faults {
        command.env("BBX_TEST_FAULTS", &f["BBX_TEST_FAULTS=".len()..]);
    }
    let out = command.current_dir(dir).args(&args).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(status),
        "{args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON object ({e}):\n{text}"));
    if let Err(e) = doc.check(&Type::Named(object.into()), &value, "", met) {
        panic!("bbx {}: {e}", args.join(" "));
    }
    if object == "error" {
        assert_eq!(value["error"]["status"], status, "{args:?}");
    }
}

#[test]
fn every_command_prints_the_documented_json() {
    let doc = read_doc();
    let dir = temp_dir("json-schema");
    let d = &*dir;
    let mut met = BTreeSet::new();
    let p = |name: &str| puzzle(name);
    let partial = p("generated-a4-b8-partial.txt");
    let contradictory = p("contradictory-a2-b4.txt");
    let (pure_thought, emacs, seed001) = (
        p("seed-pure-thought-a4-b8.txt"),
        p("seed-emacs-game-1.txt"),
        p("seed001-sample.txt"),
    );
    let spectrum = p("seed-a2-b4-molecule-2-spectrum.txt");
    let large = p("generated-a8-b15-partial.txt");
    let twins = p("a4-b6-molecules-868-and-15993.txt");
    // The opening of A5_B12: counted, and ranked on every molecule.
    let opening = d.join("a5-b12-opening.txt");
    std::fs::write(&opening, format!("A5_B12 {}\n", "?".repeat(48))).unwrap();
    let opening = opening.to_string_lossy().into_owned();
    // A 10×10 opening of 4 to 10 atoms: counted, too many ways to follow
    // every ray, ranked on a sample.
    let range = d.join("b10-range-opening.txt");
    std::fs::write(&range, format!("A4_B10 {}\n", "?".repeat(40))).unwrap();
    let range = range.to_string_lossy().into_owned();
    // Twenty-three rays of a 30-wide box: past what the count walks, the
    // molecules that fit are estimated from a sample.
    let wide = d.join("a5-b30-partial.txt");
    std::fs::write(&wide, "A5_B30 a????????bc????????de????????fg????????hi????????jk?????????f????????ed????????cb?????????@a???????kj????????ih????????g\n").unwrap();
    let wide = wide.to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (
            vec!["explore", "A3_B4", "--db", "cat.sqlite"],
            "bbx explore",
            0,
        ),
        (
            vec![
                "stats",
                "A4_B5",
                "--db",
                "census.sqlite",
                "--store-groups",
                "-w",
                "1",
            ],
            "bbx stats",
            0,
        ),
        (vec!["puzzles"], "bbx puzzles", 0),
        (vec!["puzzles", "tatham/a3-6-b8-won"], "bbx puzzles NAME", 0),
        (vec!["puzzles", "seed-23-cell-path"], "bbx puzzles NAME", 0),
        (vec!["trace", "O-O-------------"], "bbx trace", 0),
        (
            vec![
                "trace",
                "A4_B6",
                "868",
                "--ray",
                "3",
                "--rules",
                "edge-miss",
            ],
            "bbx trace",
            0,
        ),
        (vec!["solve", &pure_thought], "bbx solve", 0),
        (vec!["solve", &partial, "--max", "5"], "bbx solve", 0),
        (vec!["solve", &partial, "--probabilities"], "bbx solve", 0),
        (
            vec!["solve", &partial, "--atoms", "3..4", "--max", "3"],
            "bbx solve",
            0,
        ),
        (vec!["solve", &emacs], "bbx solve", 0),
        (vec!["solve", &seed001], "bbx solve", 0),
        (vec!["solve", &contradictory], "bbx solve", 1),
        (
            vec!["suggest", &partial, "--max-rays", "2", "--plan"],
            "bbx suggest",
            0,
        ),
        (vec!["suggest", &spectrum, "--plan"], "bbx suggest", 0),
        (vec!["suggest", &partial, "--max", "5"], "bbx suggest", 0),
        (
            vec![
                "suggest",
                &partial,
                "--max-rays",
                "2",
                "--policy",
                "rollout",
            ],
            "bbx suggest",
            0,
        ),
        (
            vec!["suggest", &opening, "--max", "5", "--policy", "greedy"],
            "bbx suggest",
            0,
        ),
        (vec!["suggest", &contradictory], "bbx suggest", 1),
        (
            vec!["suggest", &range, "--atoms", "4..10", "--max-rays", "1"],
            "bbx suggest",
            0,
        ),
        (
            vec!["solve", &wide, "--max", "10", "--timeout", "30"],
            "bbx solve",
            0,
        ),
        // Two molecules no ray tells apart: an undecidable plan.
        (vec!["suggest", &twins, "--plan"], "bbx suggest", 0),
        (
            vec!["suggest", &opening, "--max-rays", "2"],
            "bbx suggest",
            0,
        ),
        (vec!["strategy", "A2_B4"], "bbx strategy", 0),
        (
            vec!["strategy", "A2_B4", "--optimal", "--bound"],
            "bbx strategy",
            0,
        ),
        // A bound's search stopped part of the way (as by --timeout).
        (
            vec![
                "strategy",
                "A3_B5",
                "--bound",
                "--depth",
                "3",
                "-w",
                "1",
                "--work-dir",
                "bound-work",
                "BBX_TEST_FAULTS=stop-after=20000",
            ],
            "bbx strategy",
            0,
        ),
        (
            vec!["strategy", "A2_B3", "--policy", "score"],
            "bbx strategy",
            0,
        ),
        (
            vec!["strategy", "A3_B4", "--molecule", "7"],
            "bbx strategy --molecule",
            0,
        ),
        (vec!["generate", "A3_B5", "--seed", "42"], "bbx generate", 0),
        (vec!["generate", "A3_B5"], "bbx generate", 0),
        (
            vec!["generate", "A3_B5", "--minimal", "--seed", "1"],
            "bbx generate",
            0,
        ),
        (
            vec!["explore", "A3_B4", "--db", "cat.sqlite"],
            "bbx explore",
            0,
        ),
        (
            vec![
                "show",
                "A3_B4",
                "1",
                "7",
                "--from",
                "2",
                "--to",
                "3",
                "--db",
                "cat.sqlite",
            ],
            "bbx show",
            0,
        ),
        (
            vec!["show", "A3_B4", "--group", "26", "--db", "cat.sqlite"],
            "bbx show",
            0,
        ),
        (
            vec![
                "show",
                "A4_B5",
                "3",
                "--group",
                "3",
                "--db",
                "census.sqlite",
            ],
            "bbx show",
            0,
        ),
        (vec!["stats", "A3_B4", "--db", "cat.sqlite"], "bbx stats", 0),
        (
            vec![
                "stats",
                "A3_B4",
                "--db",
                "none.sqlite",
                "-w",
                "1",
                "--work-dir",
                ".",
            ],
            "bbx stats",
            0,
        ),
        (
            vec![
                "stats",
                "A4_B2",
                "--db",
                "none.sqlite",
                "-w",
                "1",
                "--work-dir",
                ".",
            ],
            "bbx stats",
            0,
        ),
        (
            vec!["verify", "A3_B4", "--db", "cat.sqlite"],
            "bbx verify",
            0,
        ),
        (
            vec![
                "verify",
                "A3_B4",
                "--db",
                "none.sqlite",
                "--sample",
                "5",
                "--partial",
                "0.3",
            ],
            "bbx verify",
            0,
        ),
        (
            vec!["verify", "A4_B5", "--db", "census.sqlite", "--ambiguous"],
            "bbx verify",
            0,
        ),
        // A mismatch, made on purpose.
        (
            vec![
                "verify",
                "A2_B3",
                "--db",
                "none.sqlite",
                "BBX_TEST_FAULTS=crossed-rules",
                "--work-dir",
                ".",
            ],
            "bbx verify stream",
            1,
        ),
        // Errors: bad input, arguments that do not parse, nothing to report.
        (vec!["trace", "OO"], "error", 2),
        (vec!["solve", "no-such-file.txt"], "error", 2),
        (
            vec!["show", "A3_B4", "1", "--db", "none.sqlite"],
            "error",
            2,
        ),
        (
            vec!["generate", "A3_B5", "--seed", "9007199254740992"],
            "error",
            2,
        ),
        (vec!["strategy", "A3_B5", "--timeout", "0"], "error", 4),
        // Exit status 4 is the error object on every command.
        (vec!["solve", &large, "--timeout", "0"], "error", 4),
        (vec!["suggest", &large, "--timeout", "0"], "error", 4),
        (
            vec!["generate", "A8_B15", "--unique", "--timeout", "0"],
            "error",
            4,
        ),
    ];
    for (mut args, object, status) in cases {
        args.push("--json");
        args.push("-q");
        run(&doc, d, &args, object, status, &mut met);
    }
    for (object, json) in &doc.examples {
        let value: Value = serde_json::from_str(json)
            .unwrap_or_else(|e| panic!("docs/json.md: the example of '{object}' is not JSON: {e}"));
        if let Err(e) = doc.check(&Type::Named(object.clone()), &value, "", &mut met) {
            panic!("docs/json.md: the example of '{object}': {e}");
        }
    }
    // Every object the doc describes is printed by some command.
    let unmet: Vec<&String> = doc.objects.keys().filter(|k| !met.contains(*k)).collect();
    assert!(
        unmet.is_empty(),
        "docs/json.md describes objects no run printed: {unmet:?}"
    );
    // Every command that takes --json has its object in the doc, and one example.
    for command in [
        "puzzles", "trace", "solve", "suggest", "strategy", "generate", "explore", "show", "stats",
        "verify",
    ] {
        let name = format!("bbx {command}");
        assert!(
            doc.objects.contains_key(&name),
            "docs/json.md does not describe '{name}'"
        );
        assert!(
            doc.examples.iter().any(|(o, _)| *o == name),
            "docs/json.md gives no example of '{name}'"
        );
    }
}

#[test]
fn a_type_is_read_as_the_doc_writes_it() {
    let t = parse_type("array of (integer or null) or null");
    let doc = Doc {
        objects: BTreeMap::new(),
        examples: Vec::new(),
    };
    let mut met = BTreeSet::new();
    for ok in ["null", "[]", "[1, null, 3]"] {
        let v: Value = serde_json::from_str(ok).unwrap();
        assert!(doc.check(&t, &v, "", &mut met).is_ok(), "{ok}");
    }
    for bad in ["1", "[\"a\"]", "[1.5]", "{}"] {
        let v: Value = serde_json::from_str(bad).unwrap();
        assert!(doc.check(&t, &v, "", &mut met).is_err(), "{bad}");
    }
}
