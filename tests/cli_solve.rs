//! `bbx solve` on every file in `puzzles/`, run as a real binary, with the
//! answers checked against brute force where the configuration is small.

use bbx::puzzle::load_puzzle;
use bbx::{Molecule, Rules, Spectrum};
use serde_json::Value;

use crate::common::{bbx, puzzle as path, rejects};

fn solve_json(name: &str, extra: &[&str]) -> (Value, i32) {
    let mut cmd = bbx();
    cmd.arg("solve").arg(path(name)).arg("--json").args(extra);
    let out = cmd.output().expect("runs");
    let code = out.status.code().expect("exit code");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, code)
}

fn solutions(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v["found"]
        .as_array()
        .expect("found")
        .iter()
        .map(|x| x["molecule"].as_str().expect("string").to_string())
        .collect();
    s.sort();
    s
}

/// Every molecule of the puzzle's configuration that reproduces its observed rays.
fn brute_force(name: &str, rules: Rules) -> Vec<String> {
    let p = load_puzzle(&path(name), None).expect("parses");
    let atoms = p.atoms.expect("atom count");
    let mut v: Vec<String> = crate::common::brute_force(&p.observation, rules, atoms)
        .iter()
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

/// Solves `name`, checks the count, that every molecule reproduces the
/// observation, and (when `brute` is set) that brute force finds the same set.
fn check(name: &str, count: usize, rules: Rules, brute: bool) -> Vec<String> {
    let (v, code) = solve_json(name, &[]);
    assert_eq!(code, if count == 0 { 1 } else { 0 }, "{name}");
    assert_eq!(v["molecules"], count, "{name}");
    assert_eq!(v["complete"], true, "{name}");
    let found = solutions(&v);
    let p = load_puzzle(&path(name), None).expect("parses");
    for m in &found {
        let m: Molecule = m.parse().expect("molecule");
        assert!(
            p.observation.matches(&Spectrum::of(&m, rules)),
            "{name}: {m} does not reproduce the rays"
        );
    }
    if brute {
        assert_eq!(
            found,
            brute_force(name, rules),
            "{name}: SAT and brute force disagree"
        );
    }
    found
}

#[test]
fn seed_pure_thought_game_has_three_answers() {
    let found = check("seed-pure-thought-a4-b8.txt", 3, Rules::Standard, true);
    assert!(
        found.contains(
            &"-------------------------------O-------------O-O-----------O----".to_string()
        )
    );
}

#[test]
fn seed_emacs_games_have_one_answer_each() {
    for (i, expected) in [
        "----------------O--O--------------------------O---------O-------",
        "O----------------------------------O--------------------O--O----",
        "------O-----------------O-----------------------O-----O---------",
        "---------O-----O---------O-----------------------------O--------",
    ]
    .iter()
    .enumerate()
    {
        let name = format!("seed-emacs-game-{}.txt", i + 1);
        assert_eq!(
            check(&name, 1, Rules::Standard, true),
            [expected.to_string()]
        );
        // The player's guess is recorded and judged.
        let (v, _) = solve_json(&name, &[]);
        assert!(v["guess"].is_object(), "{name}");
    }
}

#[test]
fn a4_b6_shared_spectrum() {
    let found = check(
        "a4-b6-molecules-868-and-15993.txt",
        2,
        Rules::Standard,
        true,
    );
    assert_eq!(
        found,
        [
            "--O---------O-O---------O-----------",
            "O-O-----------O---------O-----------"
        ]
    );
    let (v, _) = solve_json("a4-b6-molecules-868-and-15993.txt", &[]);
    let mut numbers: Vec<u64> = v["found"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["number"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [868, 15993]);
    // What the two share is certain; the two cells where they differ are not.
    assert_eq!(v["certain_atoms"].as_array().unwrap().len(), 3);
    assert_eq!(v["certain_empty"].as_array().unwrap().len(), 36 - 5);
}

#[test]
fn janns_sample_has_one_answer() {
    let found = check("seed001-sample.txt", 1, Rules::EdgeMiss, true);
    assert_eq!(found, ["-----O------OO-O--O------"]);
}

#[test]
fn seed_a2_b4_record() {
    assert_eq!(
        check("seed-a2-b4-molecule-2.txt", 1, Rules::Standard, true),
        ["O-O-------------"]
    );
    assert_eq!(
        check(
            "seed-a2-b4-molecule-2-spectrum.txt",
            1,
            Rules::Standard,
            true
        ),
        ["O-O-------------"]
    );
}

#[test]
fn partial_games() {
    // One ray of J. Forget's 23-cell drawing, with its four atoms.
    check("seed-23-cell-path.txt", 1862, Rules::Standard, true);
    let found = check("generated-a4-b8-partial.txt", 17, Rules::Standard, true);
    // The molecule `examples/generate_games.rs` hid.
    assert!(
        found.contains(
            &"-----------O-------------O-----O-----------------------------O--".to_string()
        )
    );
    let (v, _) = solve_json("generated-a4-b8-partial.txt", &[]);
    let splits = v["rays"].as_array().unwrap();
    assert!(!splits.is_empty());
    // The best ray is listed first and its classes add up to the count.
    let total: u64 = splits[0]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["molecules"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 17);
    let found = check("generated-a8-b15-partial.txt", 11, Rules::Standard, false);
    assert!(found.contains(&hidden("generated-a8-b15-partial.txt")));
}

/// The molecule `examples/generate_games.rs` hid in a generated puzzle: named
/// in the file's comment, or given here for the display files.
fn hidden(name: &str) -> String {
    match name {
        "generated-a5-b10-full.txt" => [
            "-------O--",
            "----------",
            "----------",
            "----------",
            "-O--O-----",
            "-O--------",
            "------O---",
            "----------",
            "----------",
            "----------",
        ]
        .concat(),
        "generated-a8-b15-partial.txt" => [
            "--------O------",
            "---------------",
            "-O-----O-------",
            "----O----------",
            "---------------",
            "----O----------",
            "---------------",
            "---------------",
            "---------------",
            "------------O--",
            "O--------------",
            "---------------",
            "---------------",
            "------O--------",
            "---------------",
        ]
        .concat(),
        _ => {
            let text = std::fs::read_to_string(path(name)).unwrap();
            text.lines()
                .find_map(|l| l.strip_prefix("# hidden molecule: "))
                .unwrap()
                .to_string()
        }
    }
}

#[test]
fn generated_full_games() {
    for name in ["generated-a5-b10-full.txt", "generated-a10-b20-full.txt"] {
        assert_eq!(check(name, 1, Rules::Standard, false), [hidden(name)]);
    }
    // Random full games, not chosen for a unique answer: how many molecules
    // fit each one (every one checked to reproduce the rays, the hidden one
    // among them).
    let counts = [3, 4, 4, 1, 1, 2, 1, 3, 1, 1, 1, 1, 1, 2, 4, 1, 1, 2, 1, 1];
    for (i, count) in (1..=20).zip(counts) {
        let name = format!("a12-b20-set/game-{i:02}.txt");
        let found = check(&name, count, Rules::Standard, false);
        assert!(found.contains(&hidden(&name)), "{name}");
    }
}

#[test]
fn contradictory_game() {
    let (v, code) = solve_json("contradictory-a2-b4.txt", &[]);
    assert_eq!(code, 1);
    assert_eq!(v["molecules"], 0);
    assert_eq!(v["conflict"], serde_json::json!([1, 2, 12]));
    let out = bbx()
        .args(["solve", &path("contradictory-a2-b4.txt")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("No molecule fits"), "{text}");
    assert!(text.contains("ray 2 (left, row 2): absorbed"), "{text}");
}

#[test]
fn max_count_and_ranges() {
    let (v, _) = solve_json("seed-23-cell-path.txt", &["--max", "10"]);
    // Ten listed, the search stopped there; the count is exact all the
    // same (counted, not listed).
    assert_eq!(v["listed"], 10);
    assert_eq!(v["found"].as_array().unwrap().len(), 10);
    assert_eq!(v["complete"], false);
    assert_eq!(v["list_complete"], false);
    let (full, _) = solve_json("seed-23-cell-path.txt", &[]);
    assert_eq!(v["molecules_known"], "exact");
    assert_eq!(v["molecules"], full["molecules"]);
    let exact = v["molecules"].as_u64().unwrap();
    assert!(exact > 10, "{exact}");
    // Certainty is still exact: computed by the solver, not from the ten found.
    assert_eq!(v["certain_empty"], full["certain_empty"]);
    assert_eq!(v["certain_atoms"], full["certain_atoms"]);
    let out = bbx()
        .args([
            "solve",
            &path("seed-23-cell-path.txt"),
            "--max",
            "10",
            "--count",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{exact}\n"));
    // A range of counts finds exactly the molecules of each count in it.
    let count = |atoms: &str| -> usize {
        let out = bbx()
            .args([
                "solve",
                &path("seed-a2-b4-molecule-2-spectrum.txt"),
                "--atoms",
                atoms,
                "--count",
            ])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let each: usize = ["1", "2", "3"].iter().map(|n| count(n)).sum();
    assert_eq!(count("1..3"), each);
    assert_eq!(count("2"), 1);
}

#[test]
fn solve_from_standard_input_and_timeout() {
    bbx()
        .args(["solve", "-", "--count"])
        .write_stdin("A4_B6 @&@&@&@a@bcda@b@&@dc&@&@\n")
        .assert()
        .success()
        .stdout("2\n");
    // No time at all: nothing found, which is not "no molecule fits" (1) nor
    // an answer (0), but a search stopped before it found anything (4).
    let (v, code) = solve_json("seed-23-cell-path.txt", &["--timeout", "0"]);
    assert_eq!(code, 4);
    assert_eq!(v["error"]["kind"], "time_limit", "{v}");
    let out = bbx()
        .args(["solve", &path("seed-23-cell-path.txt"), "--timeout", "0"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("At least 0"), "{text}");
    assert!(text.contains("No molecule found yet"), "{text}");
}

#[test]
fn bad_puzzles() {
    rejects(&["solve", "-"], Some("A4_B6 @&@&\n"), "standard input");
    rejects(
        &["solve", "-"],
        Some(" a - - - - a\n @ - - - -\n   - - - -\n   - - - -\n"),
        "--atoms",
    );
    rejects(
        &["solve", "-", "--atoms", "x"],
        Some("A2_B4 ????????????????\n"),
        "expected a number of atoms",
    );
    rejects(
        &["solve", "-", "--atoms", "17"],
        Some("A2_B4 ????????????????\n"),
        "do not fit",
    );
    rejects(&["solve", "no-such-puzzle.txt"], None, "no-such-puzzle.txt");
    rejects(
        &["solve", "-"],
        Some(" a - - - - a\n b - - - -\n   - - - -\n   - - - -\n\nThere are 2 balls in the box\n"),
        "standard input:2:2",
    );
    rejects(
        &["solve", "-"],
        Some("   O - -\n   - -\n\nThere are 2 balls in the box\n"),
        "row 2 has 2 cells but row 1 has 3 cells: every row of a box has as many cells",
    );
    rejects(&["solve", "-"], Some("5 26\n1\n"), "standard input");
}

/// Runs `bbx solve` on a puzzle given as text, within a time bound.
fn solve_text(puzzle: &str, extra: &[&str]) -> (String, i32) {
    let out = bbx()
        .arg("solve")
        .arg("-")
        .args(extra)
        .write_stdin(puzzle)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn too_few_atoms_is_proved_quickly() {
    // The counter alone took minutes to prove this; the fewest atoms the rays
    // allow show it at once, and the report says how many are needed.
    for game in ["game-01.txt", "game-07.txt"] {
        let out = bbx()
            .args([
                "solve",
                &path(&format!("a12-b20-set/{game}")),
                "--atoms",
                "6",
            ])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{game}: {text}");
        assert!(text.contains("No molecule fits"), "{game}: {text}");
        assert!(text.contains("The rays need at least"), "{game}: {text}");
    }
    // A range that starts too low finds exactly the molecules of the counts
    // the rays allow.
    let (v, code) = solve_json("a12-b20-set/game-01.txt", &["--atoms", "6..12"]);
    let (exact, _) = solve_json("a12-b20-set/game-01.txt", &[]);
    assert_eq!(code, 0);
    assert_eq!(solutions(&v), solutions(&exact));
    assert_eq!(v["atoms_min"], 6);
}

#[test]
fn regions_no_ray_looks_at_are_counted() {
    // No ray shot: every placement fits, counted without listing them.
    let cases = [
        ("A4_B8", 32, "635376"),
        ("A3_B20", 80, "10586800"),
        ("A2_B300", 1200, "4049955000"),
    ];
    for (config, rays, count) in cases {
        let puzzle = format!("{config} {}\n", "?".repeat(rays));
        let (text, code) = solve_text(&puzzle, &["--count"]);
        assert_eq!((text.trim(), code), (count, 0), "{config}");
    }
    // One hit shown on an A2_B6 board: brute force agrees with the count.
    let puzzle = format!("A2_B6 @{}\n", "?".repeat(23));
    let (text, _) = solve_text(&puzzle, &["--count"]);
    let observed = bbx::Observation::parse(&format!("@{}", "?".repeat(23)), "test").unwrap();
    let brute = crate::common::brute_force(&observed, Rules::Standard, 2).len();
    assert_eq!(text.trim(), brute.to_string());
}

#[test]
fn a_miss_under_standard_rules_suggests_edge_miss() {
    let (text, code) = solve_text("A2_B4 ~???????????????\n", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("--rules edge-miss"), "{text}");
}

#[test]
fn probabilities_are_the_share_of_molecules_with_an_atom_there() {
    // Counted from the molecules listed (all 17 fit within --max), and
    // forward when --max lists only some: both against a count here over
    // every molecule of A4_B8.
    let game = format!("A4_B8 {}@@@{}\n", "?".repeat(10), "?".repeat(19));
    let seen = bbx::Observation::parse(&game[6..game.len() - 1], "game").unwrap();
    let fit: Vec<bbx::Molecule> =
        bbx::rules::enumeration::Molecules::new(bbx::Config::new(4, 8).unwrap())
            .filter(|m| seen.matches(&bbx::Spectrum::of(m, Rules::Standard)))
            .collect();
    let mut want = [0usize; 64];
    for m in &fit {
        for &a in m.atoms() {
            want[a] += 1;
        }
    }
    for max in ["100000", "100"] {
        let out = crate::common::bbx()
            .args(["solve", "-", "--json", "--probabilities", "--max", max])
            .write_stdin(game.as_str())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        if max == "100000" {
            assert_eq!(v["molecules"], fit.len());
        }
        let got = v["probabilities"].as_array().expect("probabilities");
        assert_eq!(got.len(), 64);
        for (cell, p) in got.iter().enumerate() {
            let p = p.as_f64().unwrap();
            assert!(
                (p - want[cell] as f64 / fit.len() as f64).abs() < 1e-12,
                "--max {max}: cell {cell}: {p}"
            );
        }
    }
    // Not asked for: null.
    let out = crate::common::bbx()
        .args(["solve", "-", "--json"])
        .write_stdin(game.as_str())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["probabilities"].is_null());
}

#[test]
fn a_search_stopped_before_it_found_anything_never_says_at_least_0() {
    for extra in [&["--count"][..], &[]] {
        let mut args = vec!["solve", "-", "--timeout", "0"];
        args.extend_from_slice(extra);
        let out = bbx()
            .args(&args)
            .write_stdin(std::fs::read_to_string(path("seed-23-cell-path.txt")).unwrap())
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(4), "{extra:?}: {text}");
        assert!(
            !text.to_lowercase().contains("at least 0"),
            "{extra:?}: {text}"
        );
        assert!(
            text.contains("No molecule found yet: the time limit stopped the search"),
            "{extra:?}: {text}"
        );
    }
}

/// `bbx solve ARGS` reading `puzzle`, under a 1 GB address-space limit
/// where the shell can set one (`ulimit -v`), so that a search that grows
/// without bound fails at once instead of taking the machine's memory;
/// returns standard output, standard error and the exit status.
fn solve_bounded(puzzle: &str, args: &[&str]) -> (String, String, i32) {
    let bin = assert_cmd::cargo::cargo_bin("bbx");
    let mut cmd = if cfg!(unix) {
        let mut c = assert_cmd::Command::new("sh");
        c.arg("-c")
            .arg("ulimit -v 1000000 2>/dev/null; exec \"$0\" solve - \"$@\"")
            .arg(&bin);
        c
    } else {
        let mut c = assert_cmd::Command::new(&bin);
        c.args(["solve", "-"]);
        c
    };
    let out = cmd
        .args(args)
        .write_stdin(puzzle)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn a_wide_seed001_game_with_few_rays_keeps_its_limits() {
    // A. Janns's sample's rays on boxes 100 and 522 wide: every ray not
    // listed is a miss, and the first two misses contradict each other.
    // Each miss was encoded along the whole path it never takes (6 GB on the
    // 100-wide box before the allocator gave up, 24 GB on the 522-wide one).
    let rays = "1\n2 6\n3\n4\n5 7\n8\n9\n10 11\n12\n13 14\n15\n17\n18 18\n19\n";
    for width in [100, 522] {
        let puzzle = format!("{width} 5\n{rays}");
        let (out, err, code) = solve_bounded(&puzzle, &["--timeout", "2"]);
        assert_eq!(code, 1, "{width}: {out}{err}");
        assert!(out.contains("No molecule fits"), "{width}: {out}");
        assert!(
            out.contains("ray 1 (left, row 1): miss\n  ray 2 (left, row 2): miss"),
            "{width}: {out}"
        );
        assert!(err.is_empty(), "{width}: {err}");
    }
}

#[test]
fn the_memory_bound_cuts_a_search_short_and_says_so() {
    // One hit in the middle of a 100-wide box: its path is 40000 states,
    // about 22 MB of clauses, beside a counter of about 15 MB.
    let puzzle = format!("A2_B100 {}@{}\n", "?".repeat(49), "?".repeat(350));
    // The bound stops the solver's search before it lists any; the count,
    // which needs far less, says how many fit all the same.
    let (out, err, code) = solve_bounded(&puzzle, &["--memory", "25M"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\n994,653 molecules fit.\n"), "{out}");
    assert!(
        out.contains("None of them is listed: the memory bound (--memory raises it) stopped the search first."),
        "{out}"
    );
    let (out, _, code) = solve_bounded(&puzzle, &["--memory", "25M", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 0);
    assert_eq!(
        (&v["molecules"], &v["molecules_known"], &v["over_memory"]),
        (
            &Value::from(994_653),
            &Value::from("exact"),
            &Value::from(true)
        )
    );
    assert_eq!(v["listed"], 0);
    // With room, the same: the count is exact.
    let (out, _, code) = solve_bounded(&puzzle, &["--memory", "200M", "--count"]);
    assert_eq!((out.as_str(), code), ("994653\n", 0));
    // A bound the atom counter alone passes is refused at once.
    let (_, err, code) = solve_bounded(&puzzle, &["--memory", "10M"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("memory bound of 10 MB"),
        "{err}"
    );
    assert!(err.contains("--memory"), "{err}");
    rejects(
        &["solve", "-", "--memory", "lots"],
        Some(&puzzle),
        "expected a size",
    );
}

#[test]
fn the_widest_box_is_refused_when_its_counter_cannot_fit() {
    // 1000 is the widest box bbx reads; five atoms among its million cells
    // take a counter of about 2.9 GB, more than the default bound: refused
    // before anything is allocated.
    let puzzle = format!("A5_B1000 {}\n", "?".repeat(4000));
    let (out, err, code) = solve_bounded(&puzzle, &["--count"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("1000×1000") && err.contains("2.9 GB"), "{err}");
    assert!(err.contains("memory bound of 2.0 GB"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Wider boxes are refused as they are read.
    rejects(&["solve", "-"], Some("1001 5\n1\n"), "1 to 1000");
    rejects(&["solve", "-"], Some("1000000 5\n1\n"), "1 to 1000");
}

#[test]
fn a_fully_shot_wide_box_is_worked_out_quickly() {
    // Every ray of a 1000-wide box with five atoms: inference decides every
    // cell (it probed cell after cell, copying the whole box for each probe
    // and tracing each ray again from its entry: 40 s before the solver
    // began, past any time limit).
    let p = 1000;
    let atoms = [45_545, 165_278, 263_231, 718_673, 856_753];
    let m = Molecule::new(p, atoms).unwrap();
    let s = Spectrum::of(&m, Rules::EdgeMiss);
    let mut text = format!("{p} 5\n");
    for pos in 1..=4 * p {
        let k = bbx::puzzle::position_to_janns(p, pos);
        match s.get(pos) {
            bbx::Outcome::Absorbed => text.push_str(&format!("{k}\n")),
            bbx::Outcome::Reflected => text.push_str(&format!("{k} {k}\n")),
            bbx::Outcome::Exit(e) if e > pos => {
                text.push_str(&format!("{k} {}\n", bbx::puzzle::position_to_janns(p, e)))
            }
            _ => {}
        }
    }
    let (out, err, code) = solve_bounded(&text, &["--timeout", "20", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["molecules"], 1);
    assert_eq!(v["complete"], true);
    assert_eq!(solutions(&v), [m.to_string()]);
}

#[test]
fn a_search_stopped_at_max_on_a_wide_box_leaves_out_a_costly_certainty_map() {
    // Twenty-three rays of a 30-wide box: the families found in three solver
    // calls hold millions of molecules; the certainty map would take hundreds
    // of calls on a quarter of a million clauses each.
    let puzzle = "A5_B30 a????????bc????????de????????fg????????hi????????jk?????????f????????ed????????cb?????????@a???????kj????????ih????????g\n";
    let (out, err, code) = solve_bounded(puzzle, &[]);
    assert_eq!(code, 0, "{err}");
    // Too many to count: an estimate, with its interval, which the
    // molecules found bound from below, and the boards say so too.
    let verdict = out
        .lines()
        .find(|l| l.starts_with("About "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        verdict.contains(" at 95%, estimated from a uniform random sample"),
        "{verdict}"
    );
    assert!(out.contains("\nmolecule 1 of about "), "{out}");
    assert!(out.contains("certain: not worked out"), "{out}");
    let (out, _, _) = solve_bounded(puzzle, &["--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["molecules_known"], "estimate");
    let e = &v["molecules_estimate"];
    let (value, low, high) = (
        e["value"].as_f64().unwrap(),
        e["low"].as_f64().unwrap(),
        e["high"].as_f64().unwrap(),
    );
    assert!(low <= value && value <= high && low > 1e8, "{e}");
    assert_eq!(e["confidence"], 0.95);
}

#[test]
fn the_default_max_keeps_wide_boxes_quick_to_list() {
    // At most 10^8 cells are listed by default: 625 molecules of a 400-wide
    // box (there were at least 1000, each traced ray by ray for the report).
    let puzzle = format!("A2_B400 @{}\n", "?".repeat(1599));
    let (out, err, code) = solve_bounded(&puzzle, &["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["listed"], 625);
    assert_eq!(v["complete"], false);
}

#[test]
fn no_boards_asked_for_means_none_is_more() {
    // `--boards 0` printed "1 molecule fits." and then "… and 1 more".
    let out =
        crate::common::stdout(&["solve", &path("seed-emacs-game-2.txt"), "--max-boards", "0"]);
    assert!(out.contains("1 molecule fits."), "{out}");
    assert!(!out.contains("more"), "{out}");
    assert!(!out.contains("molecule 1 of 1"), "{out}");
    let out =
        crate::common::stdout(&["solve", &path("seed-emacs-game-2.txt"), "--max-boards", "1"]);
    assert!(
        out.contains("molecule 1 of 1") && !out.contains("more"),
        "{out}"
    );
}

#[test]
fn too_many_to_walk_are_ranked_on_a_uniform_sample_and_it_says_so() {
    // The opening of a 10×10 box with 4 to 10 atoms: 19 trillion molecules,
    // counted exactly, too many branches to follow every ray.
    let dir = crate::common::temp_dir("sample");
    let opening = dir.join("b10-opening.txt");
    std::fs::write(&opening, format!("A4_B10 {}\n", "?".repeat(40))).unwrap();
    let opening = opening.to_string_lossy().into_owned();
    let args = ["suggest", &opening, "--atoms", "4..10", "--json", "-q"];
    let out = crate::common::stdout(&args);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ranking_exact"], Value::Bool(false), "{out}");
    assert_eq!(v["molecules_known"], "exact", "{out}");
    // C(100, 4) + … + C(100, 10).
    let total: u128 = (4..=10u128)
        .map(|k| (0..k).fold(1u128, |c, i| c * (100 - i) / (i + 1)))
        .sum();
    assert_eq!(v["molecules"].as_u64().map(u128::from), Some(total));
    let sample = &v["ranking_sample"];
    let size = sample["molecules"].as_u64().unwrap();
    assert!(size >= 10_000, "{out}");
    assert_eq!(v["ranked_on"].as_u64(), Some(size));
    // Drawn from the count itself: every molecule drawn fits.
    assert_eq!(sample["drawn"].as_u64(), Some(size));
    let margin = sample["margin"].as_f64().unwrap();
    assert!(margin > 0.0 && margin < 0.05, "{margin}");
    // The same question, the same sample.
    assert_eq!(crate::common::stdout(&args), out);
    let text = crate::common::stdout(&["suggest", &opening, "--atoms", "4..10", "-q"]);
    assert!(
        text.contains(&format!(
            "ranked on a uniform random sample of {} of the molecules that fit ({} fit, counted exactly;",
            bbx::error::grouped(size),
            bbx::error::grouped(total)
        )),
        "{text}"
    );
    assert!(text.contains("would split the sample of"), "{text}");
    let solved = crate::common::stdout(&[
        "solve",
        &opening,
        "--atoms",
        "4..10",
        "-q",
        "--max-boards",
        "0",
    ]);
    assert!(solved.contains("uniform random sample"), "{solved}");
}

/// Whether process `pid` catches SIGINT (its Ctrl-C handler is in place);
/// where there is no /proc, true after a moment.
fn catches_sigint(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        std::thread::sleep(std::time::Duration::from_millis(300));
        return true;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (2 - 1)) != 0)
}

#[test]
fn a_puzzle_read_from_a_pipe_that_never_ends_takes_the_limits() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    // Standard input held open and never written: the read blocked past
    // the time limit, and Ctrl-C killed the process rather than being
    // caught.
    for command in ["solve", "suggest"] {
        let child = Command::new(assert_cmd::cargo::cargo_bin("bbx"))
            .args([command, "-", "--timeout", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = crate::common::wait(child, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{err}");
        assert_eq!(
            err,
            "the time limit passed before standard input was read: nothing to report (--timeout raises it)\n"
        );
    }
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("bbx"))
        .args(["solve", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !catches_sigint(child.id()) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stdin = child.stdin.take();
    let out = crate::common::wait(child, Duration::from_secs(60));
    drop(stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert_eq!(
        err,
        "interrupted before standard input was read: nothing to report\n"
    );
    crate::common::json_error(&out.stdout, "interrupted", 130);
}

#[test]
fn the_work_after_the_search_keeps_to_the_time_limit_and_says_so() {
    // A2_B500 with no ray shot: the search counts every molecule in a
    // moment, and ranking the rays on a sample of them takes seconds more
    // than the limit. The ranking once ran far past the time limit, and the
    // report said "timed_out": false.
    let puzzle = format!("A2_B500 {}\n", "?".repeat(2000));
    for command in ["solve", "suggest"] {
        let out = bbx()
            .args([command, "-", "--json", "-q", "--timeout", "1"])
            .write_stdin(puzzle.as_str())
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if code == Some(4) {
            // Nothing found before the limit (a slow or loaded machine): the
            // error object, as on every exit 4.
            crate::common::json_error(&out.stdout, "time_limit", 4);
            continue;
        }
        assert_eq!(code, Some(0), "{command}: {err}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
        let flags = (&v["complete"], &v["ranked_on"], &v["listed"], &v["rays"]);
        assert_eq!(v["timed_out"], true, "{command}: {err} {flags:?}");
        assert_eq!(v["ranking_exact"], false, "{command}");
        // Ranked on the part of the sample traced in time, or not at all:
        // never on the first molecules found.
        let rays = v["rays"].as_array().unwrap();
        match v["ranking_sample"]["molecules"].as_u64() {
            None => {
                assert!(rays.is_empty(), "{command}: {flags:?}");
                if command == "suggest" {
                    assert_eq!(v["ranked_on"], 0);
                }
            }
            Some(n) => {
                assert!((200..10_000).contains(&n), "{command}: {n}");
                assert!(!rays.is_empty(), "{command}");
            }
        }
        // A loaded machine may cut the count itself (then `complete` is
        // false); counted, it is every molecule.
        if v["complete"] == true {
            assert_eq!(v["molecules"], 31_249_875_000u64, "{command}");
        }
    }
}

#[test]
fn the_fewest_atoms_are_said_only_when_fewer_were_asked_for() {
    // Three atoms in 100×100 with no ray: the rays allow any count, and the
    // report said "fewest_atoms": 0.
    let puzzle = format!("A3_B100 {}\n", "?".repeat(400));
    let (out, err, code) = solve_bounded(&puzzle, &["--json", "--max", "50"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["fewest_atoms"], Value::Null, "{out}");
    // Too few asked for: said.
    let m = Molecule::new(10, [11, 12, 13, 14]).unwrap();
    let full = Spectrum::of(&m, Rules::Standard).to_string();
    let (out, _, code) = solve_bounded(&format!("A1_B10 {full}\n"), &["--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["fewest_atoms"].as_u64().is_some_and(|f| f > 1), "{out}");
}

#[test]
fn a_ray_that_scatters_the_molecules_is_split_in_one_line() {
    // One atom in 20×20 and no ray: ray 2 has 41 outcomes. The line named
    // every one of them, and on 500×500 it named 400.
    let puzzle = format!("A1_B20 {}\n", "?".repeat(80));
    let out = bbx()
        .args(["suggest", "-", "-q"])
        .write_stdin(puzzle.as_str())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("would split")).unwrap();
    assert_eq!(
        line,
        "ray 2 would split them as out at 59: 340, absorbed: 20, reflected: 2, \
         out at 21: 1, out at 22: 1, out at 23: 1, out at 24: 1, out at 25: 1, \
         out at 26: 1, out at 27: 1, out at 28: 1, out at 29: 1, \
         and 29 more outcomes of 29 molecules in all."
    );
}
