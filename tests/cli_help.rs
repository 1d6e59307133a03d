//! The help of every command, as clap and ripgrep give theirs: wrapped to the
//! terminal, `-h` short and `--help` long, the commands in the order users
//! meet them, and a top-level help that says how bbx exits and where its
//! documentation is.

use crate::common::bbx;

/// Every command, in the order `bbx --help` lists them.
const COMMANDS: [&str; 13] = [
    "play",
    "puzzles",
    "solve",
    "suggest",
    "generate",
    "trace",
    "strategy",
    "explore",
    "show",
    "stats",
    "verify",
    "completions",
    "man",
];

/// `bbx ARGS` on a terminal of `columns` columns (clap reads `COLUMNS` when
/// standard output is not a terminal).
fn help(args: &[&str], columns: usize) -> String {
    let out = bbx()
        .args(args)
        .env("COLUMNS", columns.to_string())
        // The help shows where catalogues live: a user's usual data
        // directory, not the tests' own deep in the target directory.
        .env("XDG_DATA_HOME", "/home/user/.local/share")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Every invocation of the help: top level and each command, short and long.
fn every_help() -> Vec<Vec<&'static str>> {
    let mut all = vec![vec!["-h"], vec!["--help"]];
    for c in COMMANDS {
        all.push(vec![c, "-h"]);
        all.push(vec![c, "--help"]);
    }
    all
}

#[test]
fn every_help_fits_in_80_columns_and_wraps_to_narrower_ones() {
    for args in every_help() {
        for columns in [80, 60] {
            let text = help(&args, columns);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= columns,
                    "bbx {}: a line of {} columns at {columns}:\n{line}",
                    args.join(" "),
                    line.chars().count()
                );
            }
        }
    }
}

#[test]
fn short_help_is_short_and_long_help_says_more() {
    for c in COMMANDS {
        let short = help(&[c, "-h"], 80);
        let long = help(&[c, "--help"], 80);
        assert!(short.lines().count() <= 40, "bbx {c} -h:\n{short}");
        assert!(
            short.lines().count() <= long.lines().count(),
            "bbx {c}: -h is longer than --help"
        );
        assert!(short.contains("Examples:\n  bbx "), "bbx {c} -h:\n{short}");
    }
    // The commands that take options with more to say say it on --help only.
    for c in ["play", "solve", "suggest", "strategy", "stats", "verify"] {
        assert_ne!(help(&[c, "-h"], 80), help(&[c, "--help"], 80), "{c}");
    }
}

#[test]
fn the_top_level_help_lists_the_commands_users_meet_first_and_says_where_to_go() {
    let short = help(&["-h"], 80);
    let listed: Vec<&str> = short
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert_eq!(listed, COMMANDS);
    assert!(short.contains("Examples:\n  bbx play\n"), "{short}");
    let long = help(&["--help"], 80);
    for needed in [
        "Examples:",
        "Exit status:",
        "  2    bad input",
        "  130  interrupted",
        "docs/guide.md",
        "docs/json.md",
        "bbx man",
    ] {
        assert!(long.contains(needed), "{needed:?} missing:\n{long}");
    }
}

#[test]
fn memory_means_the_same_with_the_same_default_everywhere() {
    for c in ["solve", "suggest", "strategy", "stats", "verify"] {
        let short = help(&[c, "-h"], 200);
        let line = short
            .lines()
            .find(|l| l.contains("--memory <SIZE>"))
            .unwrap_or_else(|| panic!("{c}: no --memory"));
        assert!(
            line.ends_with("The most memory the work may take (2G, 500M…) [default: 2G]"),
            "{c}: {line}"
        );
    }
}
