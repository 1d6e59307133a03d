//! The arguments a user types, the same way on every command: molecules that
//! start with '-', the configuration first, `--quiet`, `--timeout`, `--seed`,
//! `--max`, `--json`, `--max-boards`, the old names of renamed options, counts of one in the singular, and a refused
//! exploration that leaves no file. Run as a real binary.

use serde_json::Value;

use crate::common::{bbx, puzzle, refused, stdout, temp_dir};

/// `text` without the time a verification took (the end of its verdict line).
fn untimed(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix("verdict:") {
            Some(v) => v.rsplit_once(" (").map_or(v, |(a, _)| a).to_string(),
            // The time a command took, in its JSON.
            None if l.trim_start().starts_with("\"seconds\": ") => String::new(),
            // A census's last line: what it traced and where, then time and
            // memory (verify's: where, then memory).
            None if l.starts_with("census: ") => l
                .split(", ")
                .take(2)
                .filter(|part| !part.starts_with("peak memory"))
                .collect::<Vec<_>>()
                .join(", "),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The molecule A2_B4 number 17, whose linear form starts with '-'.
const HYPHEN_FIRST: &str = "-O-O------------";

#[test]
fn a_molecule_starting_with_a_hyphen_is_a_molecule_not_an_option() {
    for args in [
        vec!["trace", HYPHEN_FIRST],
        vec!["trace", HYPHEN_FIRST, "--emacs"],
        vec!["trace", "--emacs", HYPHEN_FIRST],
        vec!["trace", "A2_B4", HYPHEN_FIRST],
        vec!["trace", "--", HYPHEN_FIRST],
    ] {
        let text = stdout(&args);
        assert!(
            text.starts_with(&format!(
                "molecule  {HYPHEN_FIRST}\nconfig    A2_B4, number 17,"
            )),
            "{args:?}: {text}"
        );
    }
    // Options around it still work.
    let v: Value = serde_json::from_str(&stdout(&["trace", HYPHEN_FIRST, "--json"])).unwrap();
    assert_eq!(v["molecule"], HYPHEN_FIRST);
    assert_eq!(v["number"], 17);
    let text = stdout(&["trace", HYPHEN_FIRST, "--ray", "1"]);
    assert!(text.contains("ray 1 (left, row 1)"), "{text}");
    // '-' alone is still standard input.
    let out = bbx()
        .args(["trace", "-"])
        .write_stdin(format!("{HYPHEN_FIRST}\n"))
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with(&format!("molecule  {HYPHEN_FIRST}\n")),
        "{text}"
    );
    // And a mistyped option is refused as an option, on one line.
    for bad in ["--bogus", "-z"] {
        let err = refused(&["trace", HYPHEN_FIRST, bad], "");
        assert_eq!(
            err,
            format!("error: unexpected argument '{bad}': `bbx trace --help` lists the options\n")
        );
        refused(&["trace", bad, HYPHEN_FIRST], "");
    }
    // Help and version are still flags.
    assert!(stdout(&["trace", "-h"]).contains("Usage: bbx trace [OPTIONS] [CONFIG] <MOLECULE>"));
    assert_eq!(
        stdout(&["trace", "-V"]),
        format!("bbx-trace {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn trace_takes_the_configuration_first_like_every_command() {
    let first = stdout(&["trace", "A4_B6", "868"]);
    assert_eq!(first, stdout(&["trace", "--config", "A4_B6", "868"]));
    assert!(first.contains("config    A4_B6, number 868, canonical number 868, transform id"));
    // A configuration before a linear form checks it.
    let err = refused(&["trace", "A3_B4", "O-O-------------"], "");
    assert_eq!(
        err,
        "error: the molecule has 2 atoms but configuration A3_B4 has 3\n"
    );
    // Two different configurations, the wrong order, nothing at all.
    refused(&["trace", "A4_B6", "868", "--config", "A4_B7"], "");
    let err = refused(&["trace", "868", "A4_B6"], "");
    assert!(err.contains("the configuration comes first"), "{err}");
    let err = refused(&["trace"], "");
    assert!(
        err.contains("bbx trace CONFIG NUMBER (e.g. A4_B6 868)"),
        "{err}"
    );
    let err = refused(&["trace", "868"], "");
    assert!(err.contains("give its configuration first"), "{err}");
}

#[test]
fn every_long_command_takes_quiet_and_prints_the_same() {
    let dir = temp_dir("quiet");
    let db = dir.join("q.sqlite");
    let db = db.to_str().unwrap();
    let work = dir.to_str().unwrap();
    let partial = puzzle("generated-a4-b8-partial.txt");
    let cases: Vec<Vec<&str>> = vec![
        vec!["solve", &partial, "--count"],
        vec!["suggest", &partial, "--max-rays", "3"],
        vec!["stats", "A3_B4", "--db", db],
        vec!["verify", "A3_B4", "--db", db, "--work-dir", work],
        vec!["generate", "A4_B8", "--minimal", "--seed", "3", "--json"],
    ];
    for args in cases {
        let plain = bbx().args(&args).output().unwrap();
        for q in ["-q", "--quiet"] {
            let quiet = bbx().args(&args).arg(q).output().unwrap();
            assert_eq!(quiet.status.code(), Some(0), "{args:?} {q}");
            assert_eq!(
                untimed(&String::from_utf8_lossy(&quiet.stdout)),
                untimed(&String::from_utf8_lossy(&plain.stdout)),
                "{args:?} {q}"
            );
            assert!(quiet.stderr.is_empty(), "{args:?} {q}");
        }
    }
    // explore: the time differs from run to run, the rest not.
    let text = stdout(&["explore", "A2_B4", "--db", db, "-q"]);
    assert!(text.starts_with("A2_B4: 120 molecules stored in"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timeouts_are_parsed_alike_and_refused_clearly() {
    let partial = puzzle("generated-a4-b8-partial.txt");
    for cmd in [
        vec!["solve", partial.as_str()],
        vec!["suggest", partial.as_str()],
        vec!["generate", "A4_B8", "--unique", "--seed", "1"],
    ] {
        for bad in ["-1", "nan", "inf", "1e12", "soon", ""] {
            let mut args = cmd.clone();
            args.extend(["--timeout", bad]);
            let err = refused(&args, "");
            assert!(
                err.contains("expected a time: a number of seconds from 0 to 604800"),
                "{args:?}: {err}"
            );
            assert_eq!(err.trim_end().lines().count(), 3, "{args:?}: {err}");
        }
        let mut args = cmd.clone();
        args.extend(["--timeout", "60"]);
        bbx().args(&args).assert().success();
    }
}

#[test]
fn a_timeout_keeps_what_was_found() {
    // No time at all: solve and suggest report an incomplete search.
    // With nothing found yet, the exit status says the answer is missing
    // (4), and --json gives the error object, as every command does.
    let path = puzzle("seed-23-cell-path.txt");
    let out = bbx()
        .args(["suggest", &path, "--timeout", "0", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let message = crate::common::json_error(&out.stdout, "time_limit", 4);
    assert!(message.starts_with("No molecule found yet"), "{message}");
    let out = bbx()
        .args(["suggest", &path, "--timeout", "0"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("At least 0"), "{text}");
    assert!(
        text.contains("No molecule found yet: the time limit stopped the search"),
        "{text}"
    );
    assert!(text.contains("Too few molecules"), "{text}");
    // generate gives up while drawing, with a message that says why, and
    // the same exit status.
    let out = bbx()
        .args([
            "generate",
            "A4_B8",
            "--unique",
            "--seed",
            "1",
            "--timeout",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("before the time limit"), "{err}");
}

#[test]
fn a_drawn_seed_is_printed_and_repeats_the_run() {
    // generate: the summary names the seed; giving it back gives the puzzle.
    let out = bbx().args(["generate", "A4_B8"]).output().unwrap();
    assert!(out.status.success());
    let summary = String::from_utf8(out.stderr).unwrap();
    let seed = summary
        .split("seed ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .unwrap_or_else(|| panic!("no seed in {summary}"))
        .to_string();
    let again = bbx()
        .args(["generate", "A4_B8", "--seed", &seed])
        .output()
        .unwrap();
    assert_eq!(again.stdout, out.stdout);
    // verify: the header names the seed when spectra are drawn at random...
    let first = stdout(&["verify", "A3_B5", "--sample", "40", "--partial", "0.5"]);
    let header = first.lines().next().unwrap();
    let seed = header.rsplit("seed ").next().unwrap().to_string();
    assert!(seed.parse::<u64>().is_ok(), "{header}");
    let again = stdout(&[
        "verify",
        "A3_B5",
        "--sample",
        "40",
        "--partial",
        "0.5",
        "--seed",
        &seed,
    ]);
    assert_eq!(untimed(&again), untimed(&first));
    // (A census streams the groups of a full verify: in a work directory
    // of this test's own.)
    let dir = temp_dir("seed");
    let work = dir.to_str().unwrap();
    let v: Value = serde_json::from_str(&stdout(&[
        "verify",
        "A3_B5",
        "--sample",
        "40",
        "--seed",
        "9",
        "--json",
        "--work-dir",
        work,
    ]))
    .unwrap();
    assert_eq!(v["seed"], 9);
    // ...and not when nothing is random.
    let all = stdout(&["verify", "A2_B4", "--work-dir", work]);
    assert!(!all.contains("seed"), "{all}");
    let v: Value =
        serde_json::from_str(&stdout(&["verify", "A2_B4", "--json", "--work-dir", work])).unwrap();
    assert!(v["seed"].is_null());
}

/// 2^53 - 1: the largest seed, the largest whole number every JSON reader
/// keeps exact.
const MAX_SEED: u64 = (1 << 53) - 1;

#[test]
fn drawn_seeds_fit_in_53_bits_and_come_back_through_json() {
    // Seeds drawn without --seed (generate, verify) fit in 53 bits, so that
    // a reader holding numbers as doubles reads them exactly; given back,
    // they repeat the run.
    for _ in 0..8 {
        let g: Value = serde_json::from_str(&stdout(&["generate", "A3_B5", "--json"])).unwrap();
        let seed = g["seed"].as_u64().expect("an integer seed");
        assert!(seed <= MAX_SEED, "seed {seed} is past 2^53 - 1");
        let read_back = g["seed"].as_f64().unwrap() as u64;
        let again: Value = serde_json::from_str(&stdout(&[
            "generate",
            "A3_B5",
            "--json",
            "--seed",
            &read_back.to_string(),
        ]))
        .unwrap();
        assert_eq!(again["molecule"], g["molecule"], "seed {seed}");
        let dir = temp_dir("drawn-seed");
        let v: Value = serde_json::from_str(&stdout(&[
            "verify",
            "A2_B4",
            "--sample",
            "3",
            "--json",
            "--work-dir",
            dir.to_str().unwrap(),
        ]))
        .unwrap();
        assert!(v["seed"].as_u64().is_some_and(|s| s <= MAX_SEED), "{v}");
    }
}

#[test]
fn seeds_past_53_bits_are_refused() {
    let max = MAX_SEED.to_string();
    let g: Value =
        serde_json::from_str(&stdout(&["generate", "A3_B5", "--json", "--seed", &max])).unwrap();
    assert_eq!(g["seed"].as_u64(), Some(MAX_SEED));
    for big in [
        "9007199254740992",
        "18446744073709551615",
        "99999999999999999999",
    ] {
        for command in [
            vec!["generate", "A3_B5", "--seed", big],
            vec!["verify", "A2_B4", "--sample", "3", "--seed", big],
            vec!["play", "A3_B5", "--seed", big],
        ] {
            let err = refused(&command, "");
            assert!(
                err.contains(&format!(
                    "invalid value '{big}' for '--seed <SEED>': expected a seed: a whole number from 0 to 9007199254740991 (2^53 - 1"
                )),
                "{command:?}: {err}"
            );
        }
    }
}

#[test]
fn max_means_the_same_for_solve_and_suggest() {
    // The same default, the same words.
    for cmd in ["solve", "suggest"] {
        let help = stdout(&[cmd, "--help"]);
        assert!(
            help.contains("Stop the search after N molecules [default: 100000]")
                && help.contains("What follows rests on the molecules found, and says so"),
            "{cmd}: {help}"
        );
        let err = refused(
            &[cmd, &puzzle("generated-a4-b8-partial.txt"), "--max", "0"],
            "",
        );
        assert!(
            err.contains("expected a number of molecules: a whole number, at least 1"),
            "{err}"
        );
    }
    let path = puzzle("generated-a4-b8-partial.txt");
    let solve: Value =
        serde_json::from_str(&stdout(&["solve", &path, "--max", "5", "--json"])).unwrap();
    let suggest: Value =
        serde_json::from_str(&stdout(&["suggest", &path, "--max", "5", "--json"])).unwrap();
    // The search stops at 5; the count is exact all the same. What solve
    // lists is its answer, and it is incomplete; suggest's answer is the
    // count and the ranking, and every molecule is accounted for.
    for (v, complete) in [(&solve, false), (&suggest, true)] {
        assert_eq!(
            (v["molecules"].as_u64(), v["complete"].as_bool()),
            (Some(17), Some(complete))
        );
        assert_eq!(v["molecules_known"], "exact");
    }
    assert_eq!(solve["listed"], 5);
    assert!(stdout(&["solve", &path, "--max", "5"]).contains("\n17 molecules fit.\n"));
    assert!(stdout(&["suggest", &path, "--max", "5"]).contains("\n17 molecules fit.\n"));
    // One molecule found out of many is not "known".
    let text = stdout(&["suggest", &path, "--max", "1"]);
    assert!(!text.contains("The molecule is known"), "{text}");
    assert!(text.contains("\n17 molecules fit.\n"), "{text}");
}

#[test]
fn old_names_still_work_and_are_shown_nowhere() {
    let path = puzzle("seed-pure-thought-a4-b8.txt");
    let text = stdout(&["solve", &path, "--max-boards", "1"]);
    assert_eq!(text.matches("\nmolecule ").count(), 1, "{text}");
    assert!(text.contains("… and 2 more (--max-boards N prints more boards"));
    let partial = puzzle("generated-a4-b8-partial.txt");
    // Each renamed option under its old names: the same output.
    let renamed: [(&[&str], &str, &[&str]); 3] = [
        (&["solve", &path], "--max-boards", &["--boards", "--show"]),
        (&["suggest", &partial], "--max-rays", &["--top"]),
        (
            &["suggest", &partial, "--plan"],
            "--max-plan",
            &["--plan-max"],
        ),
    ];
    for (command, new, old_names) in renamed {
        let with = |name: &str| {
            let mut args = command.to_vec();
            args.extend([name, "2"]);
            bbx().args(&args).output().unwrap()
        };
        let expected = with(new);
        assert_eq!(expected.status.code(), Some(0), "{command:?} {new}");
        for old in old_names {
            let got = with(old);
            assert_eq!(got.stdout, expected.stdout, "{command:?} {old}");
        }
    }
    // play's --save is now --out, as generate's: both parse.
    for name in ["--out", "--save"] {
        let err = refused(&["play", "A4_B8", name, "g.txt", "--max", "0"], "");
        assert!(err.contains("--max <N>"), "{name}: {err}");
    }
    // The old names are in no help, completion script or manual page.
    let mut shown = Vec::new();
    for c in ["solve", "suggest", "play"] {
        shown.push(stdout(&[c, "--help"]));
    }
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        shown.push(stdout(&["completions", shell]));
    }
    let dir = temp_dir("man-aliases");
    stdout(&["man", "--out", dir.to_str().unwrap()]);
    for page in std::fs::read_dir(dir.join("man1")).unwrap() {
        shown.push(std::fs::read_to_string(page.unwrap().path()).unwrap());
    }
    for text in &shown {
        for old in ["boards", "top", "plan-max", "save"] {
            for spelt in [
                format!("--{old}"),
                format!("\\-\\-{old}"),
                format!("'{old}'"),
            ] {
                assert!(
                    !text.contains(&spelt) || text.contains(&format!("{spelt}-")),
                    "{spelt} shown in:\n{text}"
                );
            }
        }
    }
}

#[test]
fn explore_prints_json_too() {
    let dir = temp_dir("explore-json");
    let db = dir.join("e.sqlite");
    let db = db.to_str().unwrap();
    let v: Value =
        serde_json::from_str(&stdout(&["explore", "A2_B4", "--db", db, "--json"])).unwrap();
    assert_eq!(v["config"], "A2_B4");
    assert_eq!(v["db"], db);
    assert_eq!(v["molecules"], 120);
    assert_eq!(v["stored"], 120);
    assert_eq!(v["complete"], true);
    assert_eq!(v["already_complete"], false);
    assert_eq!(v["ambiguous_spectra"], 0);
    assert!(v["seconds"].as_f64().is_some());
    let v: Value =
        serde_json::from_str(&stdout(&["explore", "A2_B4", "--db", db, "--json"])).unwrap();
    assert_eq!(v["already_complete"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_refused_exploration_leaves_no_file() {
    let dir = temp_dir("refused");
    for config in ["A6_B20", "A40_B40"] {
        let db = dir.join(format!("{config}.sqlite"));
        let out = bbx()
            .args(["explore", config, "--db"])
            .arg(&db)
            .assert()
            .code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.starts_with("error: configuration "), "{err}");
        assert!(!db.exists(), "{config}: {} was created", db.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fails on "1 molecules", "1 atoms" and the like anywhere in `text`.
fn assert_no_plural_after_one(text: &str) {
    let words = text.split(|c: char| !c.is_alphanumeric() && c != '-');
    let words: Vec<&str> = words.filter(|w| !w.is_empty()).collect();
    for pair in words.windows(2) {
        if pair[0] == "1" {
            assert!(
                ![
                    "molecules",
                    "atoms",
                    "cells",
                    "rows",
                    "draws",
                    "spectra",
                    "balls",
                    "turns",
                    "rays",
                    "marks",
                    "times"
                ]
                .contains(&pair[1]),
                "'1 {}' in:\n{text}",
                pair[1]
            );
        }
    }
}

#[test]
fn counts_of_one_are_singular() {
    let dir = temp_dir("singular");
    let db = dir.join("s.sqlite");
    let db = db.to_str().unwrap();
    let mut texts = Vec::new();
    // One atom, one molecule, one empty cell.
    let one_atom = "A1_B4 @&ab@cdebac@ed&@\n";
    let out = bbx()
        .args(["solve", "-"])
        .write_stdin(one_atom)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("searched  1 atom, standard rules"), "{text}");
    assert!(text.contains("\n1 molecule fits.\n"), "{text}");
    assert!(text.contains("certain: 1 atom, 15 empty cells"), "{text}");
    texts.push(text);
    let out = bbx()
        .args(["solve", "-"])
        .write_stdin("A3_B2 @@@&&@@@\n")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("certain: 3 atoms, 1 empty cell,"), "{text}");
    texts.push(text);
    // A catalogue of one molecule, and a spectrum shared by one.
    let text = stdout(&["explore", "A1_B1", "--db", db, "-q"]);
    assert!(
        text.starts_with(&format!(
            "A1_B1: 1 molecule stored in {db}, 0 ambiguous spectra"
        )),
        "{text}"
    );
    texts.push(text);
    let text = stdout(&["explore", "A2_B3", "--db", db, "-q"]);
    assert!(text.contains("1 ambiguous spectrum,"), "{text}");
    texts.push(text);
    let text = stdout(&["explore", "A1_B1", "--db", db]);
    assert!(text.contains(": 1 molecule, 0 ambiguous spectra"), "{text}");
    texts.push(text);
    let text = stdout(&["stats", "A1_B1", "--db", db]);
    assert!(text.starts_with("A1_B1: 1 molecule\n"), "{text}");
    assert!(
        text.contains("1 of 1 molecule (100.00%) has a spectrum"),
        "{text}"
    );
    texts.push(text);
    let text = stdout(&["show", "A2_B3", "--group", "1", "--db", db]);
    assert!(text.contains("is shared by 1 molecule: 1\n"), "{text}");
    texts.push(text);
    let text = stdout(&["verify", "A1_B1", "-q"]);
    assert!(text.contains("A1_B1: 1 distinct spectrum"), "{text}");
    assert!(text.contains("agree on the 1 checked spectrum"), "{text}");
    texts.push(text);
    // Errors count in the singular too.
    let err = refused(&["trace", "A2_B2", "O---"], "");
    assert_eq!(
        err,
        "error: the molecule has 1 atom but configuration A2_B2 has 2\n"
    );
    texts.push(err);
    let err = refused(&["trace", "A2_B1", "O"], "");
    assert!(err.contains("(1 cell)"), "{err}");
    texts.push(err);
    let err = refused(
        &[
            "generate",
            "A8_B4",
            "--unique",
            "--seed",
            "1",
            "--max-draws",
            "1",
        ],
        "",
    );
    assert!(err.contains("in 1 draw:"), "{err}");
    texts.push(err);
    let err = refused(&["trace", "-"], "   @ @\n @ O O\n @ O\n   @ &\n");
    assert!(
        err.contains("row 2 has 1 cell but row 1 has 2 cells"),
        "{err}"
    );
    texts.push(err);
    let err = refused(&["trace", "-"], "  @\n @ O @\n   @\n");
    assert!(err.contains("must hold 1 mark at"), "{err}");
    texts.push(err);
    let picture = "   @ @\n @ O O @\n @ - - @\n   @ @\nThere is 1 ball in the box\n";
    let err = refused(&["trace", "-"], picture);
    assert!(
        err.contains("the text says 1 ball but the box holds 2 atoms"),
        "{err}"
    );
    texts.push(err);
    let err = refused(
        &["solve", "-"],
        "   @ @\n @ - - @\n @ - - @\n   @ @\nThere is 1 ball in the box\nThere are 2 balls in the box\n",
    );
    texts.push(err);
    let text = stdout(&["trace", "O-O-------------", "--ray", "7"]);
    texts.push(text);
    for t in &texts {
        assert_no_plural_after_one(t);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_numeric_option_says_what_it_expected_in_one_style() {
    let partial = puzzle("generated-a4-b8-partial.txt");
    let p = partial.as_str();
    // Each command, and an option of it that takes a number.
    let options: Vec<(Vec<&str>, &str)> = vec![
        (vec!["solve", p], "--max"),
        (vec!["solve", p], "--max-boards"),
        (vec!["solve", p], "--memory"),
        (vec!["solve", p], "--timeout"),
        (vec!["solve", p], "--atoms"),
        (vec!["suggest", p], "--max-rays"),
        (vec!["suggest", p], "--max-plan"),
        (vec!["trace", "A4_B6", "868"], "--ray"),
        (vec!["show", "A4_B6"], "--from"),
        (vec!["show", "A4_B6"], "--to"),
        (vec!["show", "A4_B6"], "--group"),
        (vec!["strategy", "A3_B5"], "--molecule"),
        (vec!["strategy", "A3_B5"], "--memory"),
        (vec!["generate", "A4_B8"], "--max-draws"),
        (vec!["generate", "A4_B8"], "--seed"),
        (vec!["verify", "A2_B4"], "--sample"),
        (vec!["verify", "A2_B4"], "--partial"),
        (vec!["stats", "A4_B6"], "-w"),
        (vec!["stats", "A4_B6"], "-n"),
        (vec!["stats", "A4_B6"], "-p"),
        (vec!["play", "A4_B8"], "--max"),
        (vec!["play", "A4_B8"], "--atoms"),
    ];
    for (command, option) in options {
        for bad in ["x", "-1", "1.5e3x"] {
            let mut args = command.clone();
            args.extend([option, bad]);
            let err = refused(&args, "");
            // clap names a short option by its long name.
            let long = match option {
                "-w" => "--workers",
                "-n" => "--processes",
                "-p" => "--process",
                long => long,
            };
            let says = format!("invalid value '{bad}' for '{long} <");
            assert!(
                err.starts_with("error: ") && err.contains(&says) && err.contains("': expected "),
                "{args:?}: {err}"
            );
            for clap_words in ["invalid digit", "tip:", "unexpected argument"] {
                assert!(!err.contains(clap_words), "{args:?}: {err}");
            }
        }
    }
    // Molecule numbers given as arguments are read the same way.
    let err = refused(&["show", "A4_B6", "-5"], "");
    assert!(
        err.contains("expected a molecule number: a whole number, at least 1"),
        "{err}"
    );
}

#[test]
fn every_command_that_prints_results_takes_quiet() {
    let partial = puzzle("generated-a4-b8-partial.txt");
    let dir = temp_dir("quiet");
    let db = dir.join("q.sqlite");
    let db = db.to_str().unwrap();
    for args in [
        vec!["trace", "A4_B6", "868", "-q"],
        vec!["solve", &partial, "--quiet"],
        vec!["suggest", &partial, "-q"],
        vec!["generate", "A3_B5", "-q"],
        vec!["strategy", "A2_B4", "-q"],
        vec!["explore", "A2_B4", "--db", db, "-q"],
        vec!["show", "A2_B4", "1", "--db", db, "-q"],
        vec!["stats", "A2_B4", "--db", db, "-q"],
        vec!["verify", "A2_B4", "--db", db, "-q"],
    ] {
        bbx().args(&args).assert().success();
    }
    // play: refused for want of a terminal, not for -q.
    let err = refused(&["play", "A4_B8", "-q"], "");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[test]
fn workers_is_one_option_on_every_command_that_works_in_parallel() {
    let partial = puzzle("generated-a4-b8-partial.txt");
    // The same answer on one thread as on all of them.
    for command in [vec!["solve", &partial], vec!["suggest", &partial]] {
        let all = stdout(&command);
        for w in ["-w", "--workers"] {
            let mut one = command.clone();
            one.extend([w, "1"]);
            assert_eq!(stdout(&one), all, "{one:?}");
        }
    }
    let dir = temp_dir("workers");
    let db = dir.join("w.sqlite");
    let db = db.to_str().unwrap();
    for args in [
        vec!["strategy", "A2_B4", "-w", "1"],
        vec!["generate", "A3_B5", "--unique", "-w", "2"],
        vec!["explore", "A2_B4", "--db", db, "-w", "1"],
        vec!["stats", "A2_B4", "--db", db, "-w", "1"],
        vec!["verify", "A2_B4", "--db", db, "-w", "1"],
    ] {
        bbx().args(&args).assert().success();
    }
    let err = refused(&["play", "A4_B8", "-w", "1"], "");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[test]
fn catalogues_live_in_the_data_directory_or_where_bbx_db_or_db_says() {
    let dir = temp_dir("catalogue-home");
    let data = dir.join("data");
    let (here, elsewhere) = (dir.join("here"), dir.join("elsewhere"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = |cwd: &std::path::Path, args: &[&str], db: Option<&std::path::Path>| {
        let mut command = bbx();
        command
            .current_dir(cwd)
            .env("XDG_DATA_HOME", &data)
            .args(args);
        if let Some(db) = db {
            command.env("BBX_DB", db);
        }
        let out = command.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Explored in one directory, shown from another: the catalogue is in the
    // user's data directory, made for it.
    let (code, out, err) = run(&here, &["explore", "A2_B4"], None);
    assert_eq!(code, Some(0), "{err}");
    let default = data.join("bbx").join("bbx.sqlite");
    assert!(default.is_file(), "{out}");
    assert!(out.contains(&default.display().to_string()), "{out}");
    assert!(!here.join("bbx.sqlite").exists());
    let (code, out, _) = run(&elsewhere, &["show", "A2_B4", "2"], None);
    assert_eq!(code, Some(0));
    assert!(out.contains("molecule  O-O-------------"), "{out}");
    // BBX_DB names another catalogue, and --db wins over it.
    let named = dir.join("named.sqlite");
    let (code, _, err) = run(&here, &["explore", "A2_B3"], Some(&named));
    assert_eq!(code, Some(0), "{err}");
    assert!(named.is_file());
    let (code, out, _) = run(&elsewhere, &["stats", "A2_B3", "--json"], Some(&named));
    assert_eq!(code, Some(0));
    assert!(out.contains("\"kind\": \"catalogue\""), "{out}");
    let db = default.to_str().unwrap();
    let (code, out, _) = run(
        &elsewhere,
        &["show", "A2_B4", "2", "--db", db],
        Some(&named),
    );
    assert_eq!(code, Some(0), "--db wins over BBX_DB: {out}");
    let (code, _, err) = run(&elsewhere, &["show", "A2_B4", "2"], Some(&named));
    assert_eq!(code, Some(2), "BBX_DB's catalogue holds no A2_B4");
    assert!(err.contains(&named.display().to_string()), "{err}");
    // The help says where the default is and names the variable.
    let help = stdout(&["show", "--help"]);
    assert!(help.contains("BBX_DB"), "{help}");
    assert!(help.contains("bbx.sqlite"), "{help}");
}

#[test]
fn text_output_fits_the_terminal_where_it_can() {
    let dir = temp_dir("fit");
    let db = dir.join("a4-b6.sqlite");
    let db = db.to_str().unwrap();
    bbx()
        .args(["explore", "A4_B6", "--db", db, "-q"])
        .assert()
        .success();
    let partial = puzzle("generated-a4-b8-partial.txt");
    let runs: [&[&str]; 6] = [
        &["solve", &partial],
        &["suggest", &partial],
        &["strategy", "A3_B5"],
        &["stats", "A4_B6", "--db", db],
        &["solve", &puzzle("tatham/a3-6-b8-won.sav")],
        // A group of five 6×6 boards: three a row in 80 columns.
        &["show", "A4_B6", "--group", "915", "--db", db],
    ];
    for args in runs {
        let out = bbx().args(args).env("COLUMNS", "80").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            // Only a word longer than the line can be (a molecule) may pass.
            let longest = line
                .split(' ')
                .map(|w| w.chars().count())
                .max()
                .unwrap_or(0);
            assert!(
                line.chars().count() <= 80 || longest > 40,
                "{args:?}: {} columns:\n{line}",
                line.chars().count()
            );
        }
    }
    // Piped without COLUMNS, one line per item, for the tools that read it.
    let piped = stdout(&["suggest", &partial]);
    assert!(piped.lines().any(|l| l.chars().count() > 80), "{piped}");
}

#[test]
fn emacs_notation_is_one_option_wherever_a_border_is_drawn() {
    for c in ["trace", "play", "solve", "show", "generate"] {
        assert!(stdout(&[c, "--help"]).contains("--emacs"), "{c}");
    }
    // The board of solve's molecule in Emacs notation: H, R and digits.
    let text = stdout(&["solve", &puzzle("seed-emacs-game-2.txt"), "--emacs"]);
    assert!(
        text.contains("\n   H R 2 H 8 4 5 6\n H O - - - - - - - H\n"),
        "{text}"
    );
    // The observation, as a string, stays in letters.
    assert!(text.contains("observed  @?a??b?@@"), "{text}");
    // A puzzle generated in Emacs notation reads back to the same answer.
    let dir = temp_dir("emacs");
    let file = dir.join("p.txt");
    let file = file.to_str().unwrap();
    let args = ["generate", "A3_B5", "--seed", "1", "--minimal"];
    bbx()
        .args(args)
        .args(["--emacs", "--out", file])
        .assert()
        .success();
    let written = std::fs::read_to_string(file).unwrap();
    assert!(written.contains('H') && !written.contains('@'), "{written}");
    let solved = stdout(&["solve", file, "--count"]);
    assert_eq!(solved, "1\n");
    // show draws its boards so too.
    let db = dir.join("a2-b4.sqlite");
    let db = db.to_str().unwrap();
    bbx()
        .args(["explore", "A2_B4", "--db", db])
        .assert()
        .success();
    let shown = stdout(&["show", "A2_B4", "2", "--db", db, "--emacs"]);
    assert!(shown.contains("\n   H R H R\n H O - O - H\n"), "{shown}");
}
