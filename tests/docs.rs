//! The examples of the documentation, run: every ```` ```console ```` block of
//! README.md and of the Markdown files under `docs/` is a transcript that the
//! real binary must reproduce, so that the docs cannot go stale.
//!
//! The convention (CONTRIBUTING.md, "Examples in the docs"):
//!
//! - only fences whose info string is `console` are run; any other fence
//!   (`text`, `sh`, `json`…) is shown, not run;
//! - in a `console` block, a line `$ bbx ARGS` is a command; the lines after
//!   it, up to the next `$ ` line or the end of the block, are its expected
//!   output: standard output, then standard error;
//! - ARGS are split on blanks, with `'…'` and `"…"` quoting a word (no
//!   escapes, no shell: no pipes, redirections, globs or variables); a `$ `
//!   line that does not run `bbx` is an error;
//! - the commands of one file run in order, in one fresh, empty directory
//!   (serving as `TMPDIR` and as the user's cache directory, where a census
//!   works), with a data directory of their own and no `BBX_DB`, as after
//!   `cargo install` on a new machine: the puzzles they read are bbx's
//!   built-in ones, and a file one example writes (a catalogue, a puzzle)
//!   is there for the next;
//! - output is compared line by line, exactly, but for `…` (U+2026): inside
//!   a line it matches any text on that line (times, seeds from the clock),
//!   and a line that is only `…` matches any number of lines, none included;
//! - the exit status is not compared, but a run that panics or is killed by a
//!   signal fails.
//!
//! The examples of every command's help (`-h` and `--help`) are run too, from
//! an empty directory: each must start and not be refused (see
//! [`the_examples_of_every_help_run_from_an_empty_directory`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{bbx, temp_dir};

/// One `$ bbx …` line of a `console` block and what it must print.
#[derive(Debug)]
struct Example {
    /// Where it is written, `FILE:LINE`, for messages.
    place: String,
    /// The arguments after `bbx`.
    args: Vec<String>,
    /// The expected output, line by line.
    expected: Vec<String>,
}

/// The Markdown files whose examples are run: README.md and `docs/**/*.md`.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("docs/ is readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut out);
    out.sort();
    out
}

/// Splits an example's arguments on blanks; `'…'` and `"…"` quote a word.
fn split_args(line: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    args.push(w);
                }
            }
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => w.push(other),
                        None => return Err(format!("unclosed {c} in {line:?}")),
                    }
                }
            }
            '|' | '<' | '>' | '`' | '$' | ';' | '&' | '*' => {
                return Err(format!(
                    "{c:?} in {line:?}: examples run without a shell (no pipes, redirections, \
                     variables or globs); write the example without it, or show it in a `text` fence"
                ));
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    if let Some(w) = word {
        args.push(w);
    }
    Ok(args)
}

/// The examples of one Markdown text, in order; `name` names it in messages.
fn examples(name: &str, text: &str) -> Result<Vec<Example>, String> {
    let mut out: Vec<Example> = Vec::new();
    // The closing ticks and whether the fence is run, inside a fence.
    let mut fence: Option<(String, bool)> = None;
    // Whether the console block in hand has had its first command.
    let mut commanded = false;
    for (i, line) in text.lines().enumerate() {
        let place = format!("{name}:{}", i + 1);
        let trimmed = line.trim_start();
        match &fence {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let ticks = "`".repeat(3 + info.chars().take_while(|&c| c == '`').count());
                    let info = info.trim_start_matches('`').trim();
                    fence = Some((ticks, info == "console"));
                    commanded = false;
                }
            }
            Some((ticks, run)) => {
                if trimmed.starts_with(ticks.as_str()) && trimmed.trim_matches('`').is_empty() {
                    fence = None;
                } else if *run {
                    if let Some(command) = line.strip_prefix("$ ") {
                        let mut args = split_args(command).map_err(|e| format!("{place}: {e}"))?;
                        if args.first().map(String::as_str) != Some("bbx") {
                            return Err(format!(
                                "{place}: a console example must run bbx, not {command:?} \
                                 (show other commands in a `text` fence)"
                            ));
                        }
                        args.remove(0);
                        out.push(Example {
                            place,
                            args,
                            expected: Vec::new(),
                        });
                        commanded = true;
                    } else {
                        match out.last_mut() {
                            Some(e) if commanded => e.expected.push(line.to_string()),
                            _ => {
                                return Err(format!(
                                    "{place}: output before any `$ bbx` line in a console block"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    if fence.is_some() {
        return Err(format!("{name}: a fence is not closed"));
    }
    Ok(out)
}

/// Whether one line of output matches one expected line, where `…` matches
/// any text.
fn line_matches(expected: &str, got: &str) -> bool {
    let mut parts = expected.split('…');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = got.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    if parts.is_empty() {
        return rest.is_empty();
    }
    for (k, part) in parts.iter().enumerate() {
        if k + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output matches the expected lines, where a line that is only
/// `…` matches any number of lines.
fn output_matches(expected: &[String], got: &[&str]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((first, rest)) if first == "…" => {
            (0..=got.len()).any(|skip| output_matches(rest, &got[skip..]))
        }
        Some((first, rest)) => match got.split_first() {
            Some((line, more)) => line_matches(first, line) && output_matches(rest, more),
            None => false,
        },
    }
}

/// The real binary, run in `dir` (also its `TMPDIR` and cache directory, so
/// that a census's work directory is the example's own) as on a new machine: no `BBX_DB`,
/// and a data directory of `dir`'s own, empty until an example writes a
/// catalogue there.
fn in_a_new_home(dir: &Path) -> Command {
    let home = dir.join(".home");
    let mut command = Command::new(bbx().get_program());
    command
        .current_dir(dir)
        // A census's work directory goes to the user's cache directory:
        // this example's own, so that no other run can hold it.
        .env("XDG_CACHE_HOME", dir)
        .env("TMPDIR", dir)
        .env("NO_COLOR", "1")
        .env_remove("BBX_DB")
        .env("XDG_DATA_HOME", &home)
        .env("HOME", &home);
    command
}

/// Runs one example in `dir`; `Err` says how its output differs.
fn run(example: &Example, dir: &Path) -> Result<(), String> {
    let out = in_a_new_home(dir)
        .args(&example.args)
        .output()
        .map_err(|e| format!("{}: cannot run bbx: {e}", example.place))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code().is_none() || stderr.contains("panicked") {
        return Err(format!(
            "{}: bbx {} ended with {}: {stderr}",
            example.place,
            example.args.join(" "),
            out.status
        ));
    }
    let text = format!("{stdout}{stderr}");
    let got: Vec<&str> = text.lines().collect();
    // Trailing blank lines of a block are not part of the output.
    let mut expected = example.expected.clone();
    while expected.last().is_some_and(|l| l.is_empty()) {
        expected.pop();
    }
    let mut got_trimmed = got.as_slice();
    while got_trimmed.last().is_some_and(|l| l.is_empty()) {
        got_trimmed = &got_trimmed[..got_trimmed.len() - 1];
    }
    if output_matches(&expected, got_trimmed) {
        Ok(())
    } else {
        Err(format!(
            "{}: `bbx {}` printed\n{}\n--- but the docs show ---\n{}\n",
            example.place,
            example.args.join(" "),
            got_trimmed.join("\n"),
            expected.join("\n")
        ))
    }
}

/// What running one document's examples gave: `Err` when the document could
/// not be read as examples, else each example's result.
type DocumentRun = Result<Vec<Result<(), String>>, String>;

#[test]
fn the_examples_of_the_docs_print_what_the_docs_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut count = 0;
    let mut readme = 0;
    // One thread per document: each runs its examples in order in its own
    // directory.
    let results: Vec<(PathBuf, DocumentRun)> = std::thread::scope(|s| {
        let handles: Vec<_> = documents()
            .into_iter()
            .map(|doc| {
                s.spawn(move || {
                    let name = doc.strip_prefix(root).unwrap_or(&doc).display().to_string();
                    let text = std::fs::read_to_string(&doc).expect("readable");
                    let result = examples(&name, &text).map(|list| {
                        let dir = temp_dir("docs");
                        list.iter().map(|e| run(e, &dir)).collect()
                    });
                    (doc, result)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    for (doc, result) in results {
        match result {
            Err(e) => failures.push(e),
            Ok(list) => {
                count += list.len();
                if doc.ends_with("README.md") {
                    readme += list.len();
                }
                failures.extend(list.into_iter().filter_map(Result::err));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} examples differ from the docs:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The quick start and the guide are written as console blocks: if none
    // were found, the convention broke, not the docs.
    assert!(readme >= 5, "only {readme} runnable examples in README.md");
    assert!(count >= 20, "only {count} runnable examples in the docs");
}

#[test]
fn the_docs_check_sees_a_changed_output() {
    let doc = "text\n```console\n$ bbx trace O-O------------- --config 'A2_B4'\nline one\nline … two\n…\nlast\n```\n\n```text\n$ bbx not run\n```\n";
    let list = examples("doc.md", doc).expect("parses");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].place, "doc.md:3");
    assert_eq!(
        list[0].args,
        ["trace", "O-O-------------", "--config", "A2_B4"]
    );
    let e = &list[0].expected;
    assert!(output_matches(e, &["line one", "line 2 two", "last"]));
    assert!(output_matches(
        e,
        &["line one", "line  two", "x", "y", "last"]
    ));
    // One character changed, a line missing or added: no match.
    assert!(!output_matches(e, &["line onE", "line 2 two", "last"]));
    assert!(!output_matches(e, &["line one", "last"]));
    assert!(!output_matches(
        e,
        &["line one", "line 2 two", "last", "more"]
    ));
    assert!(!line_matches("in … s", "in 3 ms"));
    assert!(line_matches("in … s", "in 3.06 s"));
    assert!(line_matches("a…b…c", "a1b2c"));
    assert!(!line_matches("a…b…c", "a1c2b"));
    // What the check cannot run is refused, not skipped.
    assert!(examples("d.md", "```console\n$ cat x\n```\n").is_err());
    assert!(examples("d.md", "```console\n$ bbx solve - < x\n```\n").is_err());
    assert!(examples("d.md", "```console\noutput first\n```\n").is_err());
    assert!(examples("d.md", "```console\n$ bbx trace\n").is_err());
}

/// The examples a help text gives: the lines of its `Examples:` paragraph
/// that run bbx, each without the comment that may follow it after two
/// spaces; those that need a shell (a pipe, a redirection) are left out.
fn help_examples(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Examples:" {
            inside = true;
        } else if line.trim().is_empty() {
            inside = false;
        } else if inside && let Some(command) = line.trim_start().strip_prefix("bbx ") {
            let command = command.split("  ").next().unwrap_or_default().trim();
            if !command.contains(['|', '<', '>', '$', '`']) {
                out.push(command.to_string());
            }
        }
    }
    out
}

/// How long an example of the help may run before it counts as started:
/// long commands (a census, a large catalogue) are stopped there.
const STARTED: std::time::Duration = std::time::Duration::from_secs(3);

/// Runs `bbx ARGS` in `dir` until it ends or [`STARTED`] has passed (an
/// `explore` until it ends); `Err` when it is refused (exit status 2 or 3)
/// or dies, with its message.
fn starts(args: &[String], dir: &Path) -> Result<(), String> {
    let mut child = in_a_new_home(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run bbx: {e}"))?;
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let mut err = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                use std::io::Read as _;
                let _ = pipe.read_to_string(&mut err);
            }
            // play needs a terminal, which it asks for once the game is set:
            // a game that could not be set up says so first.
            let needs_terminal = args[0] == "play" && err.contains("needs a terminal");
            return match status.code() {
                Some(0 | 1 | 4) => Ok(()),
                Some(2) if needs_terminal => Ok(()),
                _ => Err(format!("{status}: {err}")),
            };
        }
        // explore runs to its end: the examples after it read its catalogue.
        if start.elapsed() > STARTED && args[0] != "explore" {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_examples_of_every_help_run_from_an_empty_directory() {
    // The commands, as the top-level help lists them.
    let top = String::from_utf8(bbx().arg("--help").output().expect("runs").stdout).expect("UTF-8");
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 12, "{top}");
    // Each command's examples, from -h and --help, in order and once each;
    // the top level's go first.
    let mut lists = vec![help_examples(&top)];
    for c in &commands {
        let mut list = Vec::new();
        for flag in ["-h", "--help"] {
            let out = bbx().args([c.as_str(), flag]).output().expect("runs");
            for e in help_examples(&String::from_utf8_lossy(&out.stdout)) {
                if !list.contains(&e) {
                    list.push(e);
                }
            }
        }
        assert!(!list.is_empty(), "bbx {c} --help gives no example");
        lists.push(list);
    }
    let count: usize = lists.iter().map(Vec::len).sum();
    // One thread per command, each in a new, empty directory, its examples
    // in order (show's first explores the catalogue it reads).
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = lists
            .iter()
            .map(|list| {
                s.spawn(move || {
                    let dir = temp_dir("help-examples");
                    let mut failed = Vec::new();
                    for example in list {
                        let result = split_args(example).and_then(|args| starts(&args, &dir));
                        if let Err(e) = result {
                            failed.push(format!("bbx {example}: {e}"));
                        }
                    }
                    failed
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {count} examples of the help fail from an empty directory:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count >= 40, "only {count} examples in the help");
}
