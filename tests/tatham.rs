//! Simon Tatham's Black Box: its edge rule against bbx's standard rules, and
//! its save files and game IDs through `bbx solve`, `suggest` and `play`.
//!
//! The files of `puzzles/tatham/` were written by Tatham's own program (the
//! collection's `blackbox.c`, `midend.c`, `misc.c` and `random.c`, built with
//! a small driver that plays the moves through the midend as the keyboard
//! does and calls its Save): docs/guide.md ("Simon Tatham's Black Box") gives
//! their answers, which the tests below check. Those of
//! `puzzles/tatham/played/` were written the same way after the clicks each
//! scenario below names: bbx must write the same bytes after the same moves,
//! and read them back as the same game. Neither his code nor that driver is
//! part of bbx.
//!
//! With `BBX_TATHAM_SRC` naming his collection's source, the tests also
//! build his midend and game with `tests/common/tatham_driver.c` (a loader:
//! it opens a save file as his Load does and prints what his program holds)
//! and load in it every save file bbx writes here; without it they say so
//! and check against the files his program saved.

use bbx::control::Budget;
use bbx::play::game::{Action, Check, Game};
use bbx::play::middle::{Effect, Middle, Options};
use bbx::play::moves::Move;
use bbx::play::referee::Judge;
use bbx::play::save::{tatham_game, tatham_save};
use bbx::play::setup::{Setup, Source, Start, start};
use bbx::puzzle::{
    TathamEnding, TathamKind, TathamParams, TathamStep, balls_from_seed, is_tatham, load_puzzle,
    obfuscate, parse_tatham, position_to_tatham,
};
use bbx::rules::notation::Notation;
use bbx::{Molecule, Outcome, Rules, Tracer};

use crate::common::{bbx, json_error, json_ok, puzzle, rejects, stdout, temp_dir};

// ---------------------------------------------------------------------------
// Tatham's edge rule
// ---------------------------------------------------------------------------

/// What a laser does in Tatham's program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Laser {
    Hit,
    Reflect,
    Out(usize),
}

/// Tatham's `fire_laser`, written again from `blackbox.c` and independent of
/// bbx's engine: a grid of (p+2)×(p+2) cells, the box at 1..=p, lasers
/// numbered from 0 clockwise from the top-left corner (`range2grid`). At the
/// entry, a ball straight ahead absorbs, else a ball on either diagonal
/// reflects; inside, a ball ahead absorbs, a ball ahead-left turns the laser
/// clockwise, else one ahead-right turns it anticlockwise (and it looks
/// again without moving), else it moves on; reaching the range, it comes out
/// there (a reflection if that is where it entered).
fn tatham_fire(p: usize, balls: &[bool], entry: usize) -> Laser {
    // up, right, down, left
    const OFF: [(isize, isize); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];
    let p_i = p as isize;
    let ball = |x: isize, y: isize| {
        x >= 1 && y >= 1 && x <= p_i && y <= p_i && balls[((y - 1) * p_i + (x - 1)) as usize]
    };
    let look = |x: isize, y: isize, d: usize, side: isize| {
        let (mut x, mut y) = (x + OFF[d].0, y + OFF[d].1);
        if side != 0 {
            let o = OFF[(d as isize + side).rem_euclid(4) as usize];
            x += o.0;
            y += o.1;
        }
        ball(x, y)
    };
    let range = |x: isize, y: isize| -> Option<usize> {
        let edge = p_i + 1;
        let inside = |v: isize| (1..=p_i).contains(&v);
        if y == 0 && inside(x) {
            Some((x - 1) as usize)
        } else if x == edge && inside(y) {
            Some((y - 1 + p_i) as usize)
        } else if y == edge && inside(x) {
            Some(((p_i - x) + 2 * p_i) as usize)
        } else if x == 0 && inside(y) {
            Some(((p_i - y) + 3 * p_i) as usize)
        } else {
            None
        }
    };
    let n = entry as isize;
    let (mut x, mut y, mut d) = if n < p_i {
        (n + 1, 0, 2)
    } else if n < 2 * p_i {
        (p_i + 1, n - p_i + 1, 3)
    } else if n < 3 * p_i {
        (p_i - (n - 2 * p_i), p_i + 1, 0)
    } else {
        (0, p_i - (n - 3 * p_i), 1)
    };
    if look(x, y, d, 0) {
        return Laser::Hit;
    }
    if look(x, y, d, -1) || look(x, y, d, 1) {
        return Laser::Reflect;
    }
    x += OFF[d].0;
    y += OFF[d].1;
    loop {
        if let Some(out) = range(x, y) {
            return if out == entry {
                Laser::Reflect
            } else {
                Laser::Out(out)
            };
        }
        if look(x, y, d, 0) {
            return Laser::Hit;
        }
        if look(x, y, d, -1) {
            d = (d + 1) % 4;
            continue;
        }
        if look(x, y, d, 1) {
            d = (d + 3) % 4;
            continue;
        }
        x += OFF[d].0;
        y += OFF[d].1;
    }
}

/// Every molecule of a box, all entries: Tatham's logic and bbx's standard
/// rules give the same result (laser n is bbx's position 4p − n).
fn compare_box(p: usize, max_atoms: usize) -> usize {
    let cells = p * p;
    let mut tracer = Tracer::new(p, Rules::Standard);
    let mut count = 0;
    for mask in 0u64..(1u64 << cells) {
        if mask.count_ones() as usize > max_atoms {
            continue;
        }
        let balls: Vec<bool> = (0..cells).map(|i| mask >> i & 1 == 1).collect();
        let atoms: Vec<usize> = (0..cells).filter(|&i| balls[i]).collect();
        tracer.load_cells(&atoms);
        for n in 0..4 * p {
            let pos = 4 * p - n;
            let want = match tatham_fire(p, &balls, n) {
                Laser::Hit => Outcome::Absorbed,
                Laser::Reflect => Outcome::Reflected,
                Laser::Out(m) => Outcome::Exit(4 * p - m),
            };
            assert_eq!(
                tracer.trace(pos).outcome,
                want,
                "{p}×{p} atoms {atoms:?}: Tatham's laser {n} (bbx's position {pos})"
            );
        }
        count += 1;
    }
    count
}

#[test]
fn tatham_s_edge_rule_is_bbx_s_standard_rule() {
    // Every molecule of the 2×2, 3×3 and 4×4 boxes, and of 5×5 up to 4 atoms.
    assert_eq!(compare_box(2, 4), 16);
    assert_eq!(compare_box(3, 9), 512);
    assert_eq!(compare_box(4, 16), 65536);
    assert_eq!(compare_box(5, 4), 1 + 25 + 300 + 2300 + 12650);
}

// ---------------------------------------------------------------------------
// The files of puzzles/tatham/
// ---------------------------------------------------------------------------

const CHECKED_ONCE: &str = "tatham/a5-b8-checked-once.sav";
const WON: &str = "tatham/a3-6-b8-won.sav";
const GAME_ID: &str = "tatham/a3-b5-game-id.txt";

/// The hidden balls of `CHECKED_ONCE` (1-based column, row: Tatham's
/// `T<x>,<y>` coordinates), as Tatham's program placed them.
fn checked_once_answer() -> Molecule {
    cells(8, &[(1, 2), (6, 5), (4, 7), (5, 7), (8, 7)])
}

fn cells(p: usize, xy: &[(usize, usize)]) -> Molecule {
    Molecule::new(p, xy.iter().map(|&(x, y)| (y - 1) * p + (x - 1))).unwrap()
}

#[test]
fn a_save_file_gives_the_lasers_fired_and_the_guess() {
    let g = parse_tatham(
        &std::fs::read_to_string(puzzle(CHECKED_ONCE)).unwrap(),
        "save",
    )
    .unwrap();
    assert_eq!(g.hidden, checked_once_answer());
    // F1 F2 F4 F6, then the check of a wrong guess fired laser 14 (Tatham's
    // program chose it among the lasers that tell the guess from the answer;
    // its own replay of the file lists it). The redo list (T8,7) is not played.
    assert_eq!(g.fired, [31, 30, 28, 26, 18]);
    assert_eq!(g.redo, 1);
    assert_eq!(g.wrong_checks, 1);
    assert_eq!(g.ending, None);
    assert_eq!(g.guess, cells(8, &[(1, 2), (6, 5), (4, 7), (5, 7)]).atoms());
    let p = load_puzzle(&puzzle(CHECKED_ONCE), None).unwrap();
    assert_eq!(
        p.observation.to_string(),
        "???a?b???????????@??c??d?c?a?bd?"
    );
    assert_eq!(p.atoms, Some(5));
}

#[test]
fn solve_lists_the_hidden_molecule_among_those_that_fit() {
    let v = json_ok(&["solve", &puzzle(CHECKED_ONCE)]);
    assert_eq!(v["config"], "A5_B8");
    assert_eq!(
        (v["rays_shot"].as_u64(), v["marks_known"].as_u64()),
        (Some(5), Some(9))
    );
    assert_eq!(v["molecules"], 54);
    assert_eq!(v["complete"], true);
    let hidden = checked_once_answer().to_string();
    let listed: Vec<&str> = v["found"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| s["molecule"].as_str().unwrap())
        })
        .collect();
    assert!(listed.contains(&hidden.as_str()), "{hidden} in {listed:?}");
    let text = stdout(&["solve", &puzzle(CHECKED_ONCE)]);
    assert!(text.contains("54 molecules fit."), "{text}");
    assert!(
        text.contains("observed  ???a?b???????????@??c??d?c?a?bd?"),
        "{text}"
    );
}

#[test]
fn a_ball_range_is_searched_as_atoms_reads_it() {
    let v = json_ok(&["solve", &puzzle(WON)]);
    assert_eq!(
        (v["atoms_min"].as_u64(), v["atoms_max"].as_u64()),
        (Some(3), Some(6))
    );
    assert_eq!(v["marks_known"], 10);
    let hidden = cells(8, &[(2, 4), (4, 4), (4, 8)]).to_string();
    assert!(v["found"].to_string().contains(&hidden));
    // --atoms still overrides the file's range.
    let v = json_ok(&["solve", &puzzle(WON), "--atoms", "3"]);
    assert_eq!(
        (v["atoms_min"].as_u64(), v["atoms_max"].as_u64()),
        (Some(3), Some(3))
    );
}

#[test]
fn suggest_and_a_game_id_file() {
    let text = stdout(&["suggest", &puzzle(CHECKED_ONCE), "--max-rays", "2"]);
    assert!(text.contains("rays to shoot next"), "{text}");
    let v = json_ok(&["solve", &puzzle(GAME_ID)]);
    assert_eq!(v["config"], "A3_B5");
    assert_eq!(v["rays_shot"], 0);
    assert_eq!(v["molecules"], 2300);
}

#[test]
fn play_resumes_a_tatham_game() {
    let s = start(
        &Setup {
            start: Start::File(puzzle(CHECKED_ONCE)),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    let g = &s.game;
    assert_eq!(g.hidden(), &checked_once_answer());
    assert_eq!(g.rules(), Rules::Standard);
    assert_eq!(
        g.observation().to_string(),
        "???a?b???????????@??c??d?c?a?bd?"
    );
    // Five lasers fired: four exit pairs (2 each) and a hit (1).
    assert_eq!(g.ray_score(), 9);
    assert_eq!(g.placed(), 4);
    assert!(!g.is_over());
    assert!(matches!(&s.source, Source::Tatham { path: Some(_) }));
    assert!(
        s.title().contains("Tatham's Black Box, A5_B8"),
        "{}",
        s.title()
    );
    // bbx never saves over Tatham's file.
    assert_eq!(s.default_save_path(), "a5-b8-checked-once-bbx.txt");

    // A game Tatham's check ended comes back judged.
    let s = start(
        &Setup {
            start: Start::File(puzzle(WON)),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    assert!(s.game.verdict().is_some_and(|v| v.won));
    let g = parse_tatham(&std::fs::read_to_string(puzzle(WON)).unwrap(), "won").unwrap();
    assert_eq!(g.ending, Some(TathamEnding::Checked));

    // A game ID on the command line; its seed form gives the same balls.
    for id in ["w5h5m3M3:a8048f3fbbd74cba", "w5h5m3M3#bbx"] {
        let s = start(
            &Setup {
                start: Start::GameId(id.into()),
                ..Setup::default()
            },
            &Budget::default(),
        )
        .unwrap();
        assert_eq!(
            s.game.hidden(),
            &cells(5, &[(1, 1), (4, 2), (5, 4)]),
            "{id}"
        );
        assert_eq!(s.game.rays_shot(), 0);
        assert!(matches!(s.source, Source::Tatham { path: None }));
    }
}

// ---------------------------------------------------------------------------
// Bad files
// ---------------------------------------------------------------------------

/// The save file `CHECKED_ONCE` with `from` replaced by `to`, written in `dir`.
fn edited(dir: &std::path::Path, name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(puzzle(CHECKED_ONCE)).unwrap();
    assert!(text.contains(from), "{from}");
    let path = dir.join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn bad_files_are_refused_in_one_line_naming_the_record() {
    let dir = temp_dir("tatham");
    let cases = [
        (
            "DESC    :24:ecc6c20f5c5974358000bfac",
            "DESC    :24:ecc6c20f5c5974358000bfaz",
            "record DESC: the description's character 24 ('z') is not a hexadecimal digit",
        ),
        (
            "DESC    :24:ecc6c20f5c5974358000bfac",
            "DESC    :24:ecc6c20f5c5974358000bfad",
            "record DESC: the description is corrupted",
        ),
        (
            "DESC    :24:ecc6c20f5c5974358000bfac",
            "DESC    :20:ecc6c20f5c5974358000",
            "hides 4 balls but the parameters say 5",
        ),
        (
            "MOVE    :2:F6",
            "MOVE    :2:X6",
            "'X6': not a move of Black Box",
        ),
        ("MOVE    :2:F6", "MOVE    :3:F99", "'F99': no laser 99"),
        (
            "MOVE    :2:F6",
            "MOVE    :9:F6",
            "record MOVE says its value is 9 bytes long, but its line ends before",
        ),
        (
            "MOVE    :2:F6",
            "MOVE    :2:F4",
            "'F4': laser 4 was already fired",
        ),
        (
            "CPARAMS :8:w8h8m5M5",
            "CPARAMS :8:w8h6m5M5",
            "record DESC: the description is corrupted: it decodes to a 8×8 box but the parameters say 8×6",
        ),
        (
            "GAME    :9:Black Box",
            "GAME    :9:Mines Box",
            "not of Black Box",
        ),
        (
            "STATEPOS:2:12",
            "STATEPOS:2:14",
            "record STATEPOS: 14 is not a state",
        ),
    ];
    for (i, (from, to, needle)) in cases.iter().enumerate() {
        let f = edited(&dir, &format!("bad-{i}.sav"), from, to);
        for command in ["solve", "suggest", "play"] {
            let err = rejects(&[command, &f], None, needle);
            assert!(err.contains(&f), "{err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
    // A record longer than the file: cut short.
    let text = std::fs::read_to_string(puzzle(CHECKED_ONCE)).unwrap();
    let cut = dir.join("cut.sav");
    std::fs::write(
        &cut,
        format!("{}MOVE    :40:F7\n", &text[..text.find("MOVE").unwrap()]),
    )
    .unwrap();
    rejects(
        &["solve", cut.to_str().unwrap()],
        None,
        "the file is cut short",
    );
    // A square's description under a rectangle's parameters, in a file and
    // on the command line of play.
    let rect = dir.join("rect.txt");
    std::fs::write(&rect, "w8h6m5M5:925fa66636a72ed6ae1c5015\n").unwrap();
    rejects(
        &["solve", rect.to_str().unwrap()],
        None,
        "it decodes to a 8×8 box but the parameters say 8×6",
    );
    rejects(
        &["play", "w8h6m5M5:925fa66636a72ed6ae1c5015"],
        None,
        "it decodes to a 8×8 box but the parameters say 8×6",
    );
    // A good file: the same commands succeed (the edits above are the faults).
    let out = bbx()
        .args(["solve", &puzzle(CHECKED_ONCE)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

// ---------------------------------------------------------------------------
// Limits: long files read in time linear in their length, within the time
// limit; what Tatham's program refuses, refused; short one-line messages
// ---------------------------------------------------------------------------

/// Tatham's description of `balls` (0-based column, row) on a p×p box.
fn describe(p: usize, balls: &[(usize, usize)]) -> String {
    let mut bytes = vec![p as u8, p as u8];
    for &(x, y) in balls {
        bytes.extend([x as u8, y as u8]);
    }
    obfuscate(&mut bytes, false);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A save file as Tatham's program writes one: its records, then one per
/// move (`(key, value)`), at the last state.
fn save_text(params: &str, desc: &str, moves: &[(&str, String)]) -> String {
    let record = |key: &str, value: &str| format!("{key:<8}:{}:{value}\n", value.len());
    let states = (moves.len() + 1).to_string();
    let mut text = record("SAVEFILE", "Simon Tatham's Portable Puzzle Collection");
    for (key, value) in [
        ("VERSION", "1"),
        ("GAME", "Black Box"),
        ("PARAMS", params),
        ("CPARAMS", params),
        ("DESC", desc),
        ("NSTATES", &states),
        ("STATEPOS", &states),
    ] {
        text.push_str(&record(key, value));
    }
    for (key, value) in moves {
        text.push_str(&record(key, value));
    }
    text
}

#[test]
fn long_descriptions_are_decoded_in_time_linear_in_their_length() {
    // Twenty restarts of 64,000 balls on the largest box, 5 MB, the last
    // one edited. Each description took time quadratic in its length to
    // decode (the hash of half of it again for every 20 bytes): seconds
    // each, and the time limit passed before the file was read.
    let dir = temp_dir("tatham-long");
    let p = 255;
    let cells: Vec<(usize, usize)> = (0..p * p).map(|i| (i % p, i / p)).collect();
    let mut moves: Vec<(&str, String)> = (0..20)
        .map(|k| ("RESTART", describe(p, &cells[k..k + 64_000])))
        .collect();
    let last = &mut moves[19].1;
    let edited = if last.ends_with('0') { "1" } else { "0" };
    last.replace_range(last.len() - 1.., edited);
    let first = describe(p, &cells[..64_000]);
    let file = dir.join("restarts.sav");
    std::fs::write(&file, save_text("w255h255m64000M64000", &first, &moves)).unwrap();
    let out = bbx()
        .args(["solve", file.to_str().unwrap(), "--timeout", "3"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("record RESTART (move 20 of the file)") && err.contains("corrupted"),
        "{err}"
    );
    // One line, the description quoted short.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 400, "{err}");
}

#[test]
fn a_save_of_many_checks_is_replayed_quickly() {
    // A guess of one ball on the largest box, then 99,998 checks, which
    // Tatham's program loads. Each check traced every laser on a new board
    // (38 s in all): the time limit passed before the file was read.
    let dir = temp_dir("tatham-checks");
    let mut moves = vec![("MOVE", "T1,1".to_string())];
    moves.extend(std::iter::repeat_n(("MOVE", "R".to_string()), 99_998));
    let file = dir.join("checks.sav");
    let desc = describe(255, &[(100, 100)]);
    std::fs::write(&file, save_text("w255h255m1M1", &desc, &moves)).unwrap();
    let out = bbx()
        .args([
            "solve",
            file.to_str().unwrap(),
            "--count",
            "--timeout",
            "10",
        ])
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    // The first check fired a laser the guess contradicts; the others
    // changed nothing: one laser, and the molecules of one ball that fit it.
    let count: usize = text.trim().parse().unwrap_or_else(|_| panic!("{text}"));
    assert!(count > 1000 && count < 255 * 255, "{count}");
    let g = parse_tatham(&std::fs::read_to_string(&file).unwrap(), "checks").unwrap();
    assert_eq!((g.fired.len(), g.wrong_checks), (1, 99_998));
}

#[test]
fn reading_a_tatham_file_takes_the_time_limit() {
    // A save of 20,000 moves, its time limit passed before it is read: the
    // reading is cut (at its first look at the budget, after a few hundred
    // records), said so, exit 4, nothing solved. It was read whole and the
    // search said it found nothing.
    let dir = temp_dir("tatham-limit");
    let mut moves = vec![("MOVE", "T1,1".to_string())];
    moves.extend(std::iter::repeat_n(("MOVE", "R".to_string()), 20_000));
    let file = dir.join("checks.sav");
    std::fs::write(
        &file,
        save_text("w8h8m1M1", &describe(8, &[(5, 5)]), &moves),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    for command in ["solve", "suggest"] {
        let out = bbx().args([command, f, "--timeout", "0"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{err}");
        assert_eq!(
            err,
            format!(
                "the time limit passed before {f} was read: nothing to report (--timeout raises it)\n"
            )
        );
        assert!(out.stdout.is_empty());
        let out = bbx()
            .args([command, f, "--timeout", "0", "--json"])
            .output()
            .unwrap();
        json_error(&out.stdout, "time_limit", 4);
    }
    // With time, the same file is read and solved.
    assert_eq!(out_code(&["solve", f, "--count"]), Some(0));
}

/// The exit status of `bbx ARGS`.
fn out_code(args: &[&str]) -> Option<i32> {
    bbx().args(args).output().unwrap().status.code()
}

#[test]
fn a_seed_may_hold_spaces_as_in_tatham_s_program() {
    let dir = temp_dir("tatham-seed");
    let params = TathamParams::default();
    let spaced = balls_from_seed(&params, "my seed").unwrap();
    assert_ne!(spaced, balls_from_seed(&params, "my").unwrap());
    let file = dir.join("seed.txt");
    std::fs::write(&file, "# a game of Tatham's\nw8h8m5M5#my seed\n").unwrap();
    // Five balls in the 8×8 box, no laser fired: every molecule of A5_B8.
    assert_eq!(
        stdout(&["solve", file.to_str().unwrap(), "--count"]),
        "7624512\n"
    );
    for id in ["w8h8m5M5#my seed", "w8h8m5M5:925fa66636a72ed6ae1c5015"] {
        let g = parse_tatham(id, "id").unwrap();
        assert!(is_tatham(id), "{id}");
        if let TathamKind::Seed(seed) = &g.kind {
            assert_eq!(seed, "my seed");
            let cells: Vec<usize> = spaced.iter().map(|&(x, y)| y * 8 + x).collect();
            assert_eq!(g.hidden, Molecule::new(8, cells).unwrap());
        }
    }
    let s = start(
        &Setup {
            start: Start::GameId("w8h8m5M5#my seed".into()),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    assert_eq!(s.game.hidden().atoms().len(), 5);
    // A description holds no space.
    rejects(
        &["solve", "-"],
        Some("w8h8m5M5:925fa66636a7 2ed6ae1c5015\n"),
        "character 13 (' ') is not a hexadecimal digit",
    );
}

#[test]
fn a_save_file_is_refused_where_tatham_s_program_refuses_it() {
    let dir = temp_dir("tatham-refused");
    let text = std::fs::read_to_string(puzzle(CHECKED_ONCE)).unwrap();
    let cases = [
        (
            format!("\u{feff}{text}"),
            "1: the save file starts with a byte-order mark",
        ),
        (
            text.replacen("PARAMS  :8:w8h8m5M5\n", "", 1),
            "no PARAMS record",
        ),
        (
            text.replacen("CPARAMS :8:w8h8m5M5\n", "", 1),
            "no CPARAMS record",
        ),
        (
            text.replacen("PARAMS  :8:w8h8m5M5", "PARAMS  :4:w1h1", 1),
            "4: record PARAMS: the parameters 'w1h1': the width and height must both be at least 2",
        ),
    ];
    for (i, (edited, needle)) in cases.iter().enumerate() {
        let f = dir.join(format!("refused-{i}.sav"));
        std::fs::write(&f, edited).unwrap();
        let f = f.to_str().unwrap();
        for command in ["solve", "play"] {
            let err = rejects(&[command, f], None, needle);
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    // A game ID in a file is bbx's own convention: a byte-order mark before
    // it is taken, as before any file bbx reads.
    let id = std::fs::read_to_string(puzzle(GAME_ID)).unwrap();
    let f = dir.join("bom-id.txt");
    std::fs::write(&f, format!("\u{feff}{id}")).unwrap();
    assert_eq!(json_ok(&["solve", f.to_str().unwrap()])["molecules"], 2300);
}

#[test]
fn messages_quote_the_file_short_and_on_one_line() {
    let dir = temp_dir("tatham-quotes");
    let text = std::fs::read_to_string(puzzle(CHECKED_ONCE)).unwrap();
    // A length of 0: the value runs on into the next line, which is no
    // record. The message quoted the bytes across the line end.
    let f = dir.join("zero.sav");
    std::fs::write(&f, text.replacen("MOVE    :2:F6", "MOVE    :0:F6", 1)).unwrap();
    let err = rejects(
        &["solve", f.to_str().unwrap()],
        None,
        "'F6' is not a record",
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // A game ID of 15 MB with a bad character at its end: quoted short.
    let id = format!("w8h8m5M5:{}z\n", "0".repeat(15_000_000));
    let f = dir.join("long-id.txt");
    std::fs::write(&f, &id).unwrap();
    let err = rejects(
        &["solve", f.to_str().unwrap()],
        None,
        "character 15000001 ('z') is not a hexadecimal digit",
    );
    assert!(err.contains("'w8h8m5M5:000000"), "{err}");
    assert!(err.len() < 400 && err.lines().count() == 1, "{err}");
    // A move with a line end in its value.
    let f = dir.join("move.sav");
    std::fs::write(&f, text.replacen("MOVE    :2:F6", "MOVE    :2:F\t", 1)).unwrap();
    rejects(&["solve", f.to_str().unwrap()], None, "record MOVE");
}

// ---------------------------------------------------------------------------
// bbx's save files of Tatham's format, after every start and at every end
// ---------------------------------------------------------------------------

/// A file of `puzzles/tatham/played/`: the games below, played in
/// Tatham's own program (clicks through his midend, as a player makes
/// them) and saved by it.
fn played(name: &str) -> String {
    puzzle(&format!("tatham/played/{name}"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A game of Tatham's game ID `id`.
fn tatham_id_game(id: &str) -> Game {
    start(
        &Setup {
            start: Start::GameId(id.into()),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap()
    .game
}

/// The cell of Tatham's column x, row y (from 1) of an 8×8 box.
fn c(x: usize, y: usize) -> usize {
    (y - 1) * 8 + (x - 1)
}

/// The game ID of the games below: `w8h8m5M5#12345`'s balls, (7,2) (3,4)
/// (4,5) (5,7) (6,7), described as bbx describes them.
const ID: &str = "w8h8m5M5:a9556977f021b3005e154fc0";

/// The games bbx saves, by the name of the file of `puzzles/tatham/played/`
/// Tatham's program wrote after the same moves. Their driver's lines, a
/// click a line (`fire N` a left click on his laser N, `toggle X Y` on a
/// cell, `lock X Y` a right click, `lockrow Y` and `lockcol X` a right
/// click on the border, `check` a click on the top-left corner, `solve` his
/// Solve, `undo`, `redo`), are in each comment.
fn scenario(name: &str) -> Game {
    let mut g = tatham_id_game(ID);
    let answer = [c(7, 2), c(3, 4), c(4, 5), c(5, 7), c(6, 7)];
    match name {
        // fire 31, toggle 7 2, lock 1 1, lock 2 1, fire 12, toggle 3 4,
        // lockrow 8, fire 23, toggle 8 7, undo, undo, undo, redo: lasers,
        // balls and locks interleaved, a row locked from the border, three
        // actions undone and one redone.
        "midgame.sav" => {
            g.shoot(1);
            g.toggle(c(7, 2));
            g.mark_empty(&[c(1, 1), c(2, 1)]);
            g.shoot(20);
            g.toggle(c(3, 4));
            g.mark_empty(&(56..64).collect::<Vec<_>>());
            g.shoot(9);
            g.toggle(c(8, 7));
            g.undo();
            g.undo();
            g.undo();
            g.redo();
        }
        // fire 31, fire 12, fire 23, fire 4, lock 8 8, the five balls
        // toggled, check: won.
        "won.sav" => {
            for q in [1, 20, 9, 28] {
                g.shoot(q);
            }
            g.mark_empty(&[c(8, 8)]);
            answer.iter().for_each(|&i| _ = g.toggle(i));
            assert!(g.submit().unwrap().won);
        }
        // fire 31, fire 12, four balls right and (1,1) toggled, solve: a
        // wrong guess judged, the game lost.
        "lost.sav" => {
            g.shoot(1);
            g.shoot(20);
            answer[..4].iter().for_each(|&i| _ = g.toggle(i));
            g.toggle(c(1, 1));
            assert!(!g.submit().unwrap().won);
        }
        // fire 31, fire 27, toggle 7 2, toggle 3 4, lock 8 8, solve.
        "resigned.sav" => {
            g.shoot(1);
            g.shoot(5);
            g.toggle(c(7, 2));
            g.toggle(c(3, 4));
            g.mark_empty(&[c(8, 8)]);
            assert!(g.resign().unwrap().resigned);
        }
        // Four balls right and (1,1), fire 31 (the ray bbx shows to
        // disprove the guess; Tatham's check would fire another), check;
        // toggle 1 1, toggle 1 2, check (laser 31 disproves it: his check
        // fires nothing); toggle 1 2, toggle 6 7, check: won after two
        // wrong guesses played on.
        "played-on.sav" => {
            answer[..4].iter().for_each(|&i| _ = g.toggle(i));
            g.toggle(c(1, 1));
            assert_eq!(g.play_on(), Some(1));
            g.toggle(c(1, 1));
            g.toggle(c(1, 2));
            assert_eq!(g.play_on(), Some(1));
            g.toggle(c(1, 2));
            g.toggle(c(6, 7));
            assert!(g.submit().unwrap().won);
        }
        // The same wrong guess played on, fire 31, check, then undo, undo:
        // the ray undone, the wrong guess still counted (his UI record).
        "played-on-undone.sav" => {
            answer[..4].iter().for_each(|&i| _ = g.toggle(i));
            g.toggle(c(1, 1));
            assert_eq!(g.play_on(), Some(1));
            assert_eq!(g.undo(), Some(Action::Shoot(1)));
        }
        // The puzzle seed-emacs-game-2 (one answer, 18 rays given, four
        // atoms placed): on the ID w8h8m4M4:783d2862776d5537cf87, fire 7,
        // 5, 10, 9, 13, 4 (its exit pairs in the order of their labels),
        // 15, 19, 20, 23, 24, 31 (its other rays), toggle 1 1, 4 5, 1 8,
        // 4 8, then fire 30 and undo: a ray shot and undone.
        "puzzle-start.sav" => {
            g = start(
                &Setup {
                    start: Start::File(puzzle("seed-emacs-game-2.txt")),
                    seed: Some(1),
                    ..Setup::default()
                },
                &Budget::default(),
            )
            .unwrap()
            .game;
            assert_eq!(g.shots().len(), 0);
            g.shoot(2);
            g.undo();
        }
        _ => panic!("no scenario {name}"),
    }
    g
}

const SCENARIOS: [&str; 7] = [
    "midgame.sav",
    "won.sav",
    "lost.sav",
    "resigned.sav",
    "played-on.sav",
    "played-on-undone.sav",
    "puzzle-start.sav",
];

/// What a game shows and keeps: its rays, guess, marks, verdict, wrong
/// guesses and the actions undo and redo take back and do again.
fn state(g: &Game) -> String {
    let p = g.shape();
    let marked: Vec<usize> = (0..p.cells()).filter(|&i| g.is_marked_empty(i)).collect();
    let h = g.history();
    // Cells marked at once, one by one: Tatham locks one cell a move (or
    // a whole line).
    let flat = |actions: &[Action]| -> Vec<Action> {
        actions
            .iter()
            .flat_map(|a| match a {
                Action::Empty(cells) if cells.len() < 8 => {
                    cells.iter().map(|&i| Action::Empty(vec![i])).collect()
                }
                a => vec![a.clone()],
            })
            .collect()
    };
    format!(
        "{} guess {:?} marked {marked:?} score {} verdict {:?} wrong {} done {:?} undone {:?}",
        g.observation(),
        g.guess().atoms(),
        g.ray_score(),
        g.verdict().map(|v| (v.won, v.resigned, v.score)),
        g.wrong_guesses(),
        flat(&h.done),
        flat(&h.undone),
    )
}

/// bbx's game of a Tatham text (save file or game ID), as `bbx play` resumes it.
fn resumed_tatham(text: &str) -> Game {
    start(
        &Setup {
            start: Start::Text {
                text: text.into(),
                origin: "save".into(),
            },
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"))
    .game
}

#[test]
fn bbx_saves_what_tatham_s_program_saves_after_the_same_moves() {
    for name in SCENARIOS {
        let text = tatham_save(&scenario(name)).unwrap();
        assert_eq!(text, read(&played(name)), "{name}");
    }
}

#[test]
fn bbx_s_saves_of_tatham_s_format_come_back_as_the_same_game() {
    for name in SCENARIOS {
        let g = scenario(name);
        let text = tatham_save(&g).unwrap();
        // Resumed, the game is the same, and saves the same file again;
        // but a puzzle's rays, which his file cannot tell from lasers the
        // player fired, come back fired and paid for.
        let back = resumed_tatham(&text);
        assert_eq!(tatham_save(&back).unwrap(), text, "{name}");
        if name == "puzzle-start.sav" {
            assert_eq!(back.observation(), g.observation());
            assert_eq!(back.guess(), g.guess());
            assert_eq!(back.history().undone, g.history().undone);
            assert_eq!(back.history().done.len(), 12 + 4);
            assert_eq!(back.ray_score(), 19);
        } else {
            assert_eq!(state(&back), state(&g), "{name}");
        }
    }
}

#[test]
fn what_each_move_of_a_save_did() {
    // The puzzle's rays are Tatham's lasers, the exit pairs numbered in
    // the order of the puzzle's labels; the redo list the ray undone.
    let t = parse_tatham(&read(&played("puzzle-start.sav")), "start").unwrap();
    let g = scenario("puzzle-start.sav");
    assert_eq!(t.observation(), *g.observation());
    assert_eq!(
        (t.redo, t.steps[t.done..].to_vec()),
        (1, vec![TathamStep::Fire(2)])
    );
    assert_eq!(t.guess, g.guess().atoms());
    // The wrong guesses played on: Tatham's checks where they came, each
    // disproved by laser 31, fired before them.
    let t = parse_tatham(&read(&played("played-on.sav")), "on").unwrap();
    let wrong: Vec<usize> = (0..t.steps.len())
        .filter(|&i| matches!(t.steps[i], TathamStep::Wrong(_)))
        .collect();
    assert_eq!(wrong, [6, 9]);
    assert_eq!(
        t.steps[5..7],
        [TathamStep::Fire(1), TathamStep::Wrong(None)]
    );
    assert_eq!(t.steps.last(), Some(&TathamStep::Right));
    assert_eq!((t.ending, t.errors), (Some(TathamEnding::Checked), Some(2)));
    // A check of his that fired a laser, and his locks of a line.
    let t = parse_tatham(&read(&played("redo.sav")), "redo").unwrap();
    assert_eq!(t.steps[6], TathamStep::Wrong(Some(32 - 15)));
    assert_eq!(
        t.steps[1],
        TathamStep::Lock((1..=8).map(|y| c(2, y)).collect())
    );
    assert_eq!((t.done, t.redo, t.steps.len()), (9, 3, 12));
    // In bbx, the wrong guess that shot his laser 15, where it came, as
    // `bbx play` resumes the file and as the library reads it.
    let resumed = resumed_tatham(&read(&played("redo.sav")));
    let read_in = tatham_game(&t, Judge::AllRays).unwrap();
    for g in [resumed, read_in] {
        assert_eq!(g.history().checks, [Check { at: 6, fired: true }]);
        assert_eq!(g.history().done[6], Action::Shoot(32 - 15));
    }
}

#[test]
fn a_game_resumed_from_bbx_s_own_file_saves_the_same() {
    // Saved in bbx's format and resumed, the game keeps its order, its
    // undo and redo, its marks and where its wrong guesses came.
    for name in ["midgame.sav", "played-on-undone.sav", "puzzle-start.sav"] {
        let g = scenario(name);
        let text = bbx::play::save::save_text(&g, Notation::Letters, &bbx::setting::Plain).unwrap();
        let resumed = start(
            &Setup {
                start: Start::Text {
                    text,
                    origin: "saved.txt".into(),
                },
                ..Setup::default()
            },
            &Budget::default(),
        )
        .unwrap()
        .game;
        assert_eq!(state(&resumed), state(&g), "{name}");
        assert_eq!(resumed.history(), g.history(), "{name}");
        assert_eq!(
            tatham_save(&resumed).unwrap(),
            read(&played(name)),
            "{name}"
        );
    }
}

#[test]
fn tatham_s_saves_are_written_back_as_he_wrote_them() {
    // His files, resumed by bbx and saved again: the same records, but the
    // seed his program keeps (bbx writes the description alone) and the
    // description, which bbx writes with the balls in cell order where his
    // generator wrote them in the order drawn (the same balls).
    for file in [puzzle(CHECKED_ONCE), puzzle(WON), played("redo.sav")] {
        let his = read(&file);
        let g = resumed_tatham(&his);
        let ours = tatham_save(&g).unwrap();
        let desc = |text: &str| -> String {
            let line = text.lines().find(|l| l.starts_with("DESC    :")).unwrap();
            line.to_string()
        };
        let expected: String = his
            .lines()
            .filter(|l| !l.starts_with("SEED    :"))
            .map(|l| match l.starts_with("DESC    :") {
                true => format!("{}\n", desc(&ours)),
                false => format!("{l}\n"),
            })
            .collect();
        assert_eq!(ours, expected, "{file}");
        assert_eq!(
            parse_tatham(&ours, "ours").unwrap().hidden,
            g.hidden().clone()
        );
    }
}

#[test]
fn tatham_s_redo_list_locks_and_checks_come_into_the_game() {
    // Played in his program: toggle 7 2, lockcol 2, four more balls (one
    // wrong), check (his check fired laser 15, out at 17), fire 0, toggle
    // 1 1, lockrow 1, toggle 6 7, fire 16, then undo three times.
    let s = start(
        &Setup {
            start: Start::File(played("redo.sav")),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    let mut g = s.game;
    let column2: Vec<usize> = (1..=8).map(|y| c(2, y)).collect();
    let marked = |g: &Game| -> Vec<usize> { (0..64).filter(|&i| g.is_marked_empty(i)).collect() };
    assert_eq!(marked(&g), column2);
    assert_eq!(g.guess().atoms(), [c(7, 2), c(3, 4), c(4, 5), c(5, 7)]);
    assert_eq!(g.wrong_guesses(), 1);
    // The laser his check fired is shot and paid; so is laser 16, fired
    // and undone (an undone ray stays paid).
    assert_eq!(g.history().done[6], Action::Shoot(32 - 15));
    assert_eq!(g.ray_score(), 2 + 2 + 2);
    // His redo list is bbx's.
    assert_eq!(
        g.history().undone,
        [
            Action::Shoot(32 - 16),
            Action::Atom(c(6, 7)),
            Action::Empty((0..8).filter(|&x| x != 1).map(|x| c(x + 1, 1)).collect()),
        ]
    );
    for _ in 0..3 {
        assert!(g.redo().is_some());
    }
    assert!(g.is_marked_empty(c(1, 1)) && g.is_guessed(c(6, 7)));
    assert_eq!(g.observation().get(16), Some(Outcome::Exit(22)));
}

#[test]
fn a_lock_on_a_ball_is_a_mark_once_the_ball_is_gone() {
    // Played in his program: toggle 3 4, lock 3 4 (a lock on a ball),
    // lockcol 3 (the whole column), fire 20, lock 3 4, toggle 3 4, lock 3 4.
    // bbx marks no cell that holds an atom: the column but (3,4), then all
    // of it.
    let his = read(&played("locked-ball.sav"));
    let t = parse_tatham(&his, "locked").unwrap();
    let column3: Vec<usize> = (1..=8).map(|y| c(3, y)).collect();
    assert_eq!(t.locked, column3);
    let g = resumed_tatham(&his);
    let marked: Vec<usize> = (0..64).filter(|&i| g.is_marked_empty(i)).collect();
    assert_eq!(marked, column3);
    assert_eq!(g.placed(), 0);
    // Undone one action at a time: the last lock, the ball, the laser,
    // the column (the lock on the ball was no action of bbx's).
    let mut back = g.clone();
    assert_eq!(back.undo(), Some(Action::Empty(vec![c(3, 4)])));
    assert_eq!(back.undo(), Some(Action::Atom(c(3, 4))));
    assert_eq!(back.undo(), Some(Action::Shoot(12)));
    assert!(matches!(back.undo(), Some(Action::Empty(cells)) if cells.len() == 7));
    // Written back, his program finds the same lasers, balls and locks.
    let again = parse_tatham(&tatham_save(&g).unwrap(), "again").unwrap();
    assert_eq!(
        (again.fired, again.guess, again.locked),
        (t.fired, t.guess, t.locked)
    );
}

// ---------------------------------------------------------------------------
// Tatham's own program loading bbx's save files
// ---------------------------------------------------------------------------

/// Tatham's program as a test driver: `tests/common/tatham_driver.c` built
/// once with his midend and game from his collection's source, in the
/// directory `BBX_TATHAM_SRC` names (a checkout of `x-sheep/puzzles`,
/// branch `upstream`, or of his own repository). `None`, with a note on
/// the test's output, when that variable is unset: his code is not part of
/// bbx, and the files he saved (`puzzles/tatham/played/`) stand in for him.
fn his_program() -> Option<&'static std::path::Path> {
    static DRIVER: std::sync::OnceLock<Option<(crate::common::Scratch, std::path::PathBuf)>> =
        std::sync::OnceLock::new();
    let built = DRIVER.get_or_init(|| {
        let Some(src) = std::env::var_os("BBX_TATHAM_SRC") else {
            eprintln!(
                "note: Tatham's program is not run: set BBX_TATHAM_SRC to his collection's source (x-sheep/puzzles, branch upstream) to load bbx's save files in it; the files his program saved are checked instead"
            );
            return None;
        };
        let src = std::path::PathBuf::from(src);
        let dir = temp_dir("tatham-driver");
        let exe = dir.join("tatham_driver");
        let driver = format!("{}/tests/common/tatham_driver.c", env!("CARGO_MANIFEST_DIR"));
        let out = std::process::Command::new(std::env::var_os("CC").unwrap_or("cc".into()))
            .args(["-O1", "-w", "-I"])
            .arg(&src)
            .arg(driver)
            .args(["misc.c", "random.c", "nullfe.c", "malloc.c"].map(|f| src.join(f)))
            .args(["-lm", "-o"])
            .arg(&exe)
            .output()
            .expect("a C compiler (cc, or $CC) to build Tatham's program");
        assert!(
            out.status.success(),
            "building Tatham's program from {}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        Some((dir, exe))
    });
    built.as_ref().map(|(_, exe)| exe.as_path())
}

/// What Tatham's program holds after loading the save file `text` (the
/// driver's lines: its states, status, lasers, balls and locks), and the
/// file it writes when saving it again; `Err` with his midend's message
/// when it refuses the file.
fn his_load(exe: &std::path::Path, text: &str) -> Result<(String, String), String> {
    let dir = temp_dir("tatham-load");
    let file = dir.join("game.sav");
    std::fs::write(&file, text).unwrap();
    let out = std::process::Command::new(exe).arg(&file).output().unwrap();
    let said = String::from_utf8(out.stdout).unwrap();
    if let Some(why) = said.strip_prefix("refused ") {
        return Err(why.trim().to_string());
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (facts, saved) = said.split_once("save\n").expect("the driver's save");
    let facts: String = facts
        .lines()
        .filter(|l| !l.starts_with("states "))
        .map(|l| format!("{l}\n"))
        .collect();
    Ok((facts, saved.to_string()))
}

/// The same facts of bbx's game, as the driver writes them: Tatham's
/// status (1 won, -1 lost, 0 playing) and reveal, his lasers lit (a pair's
/// label its rank in bbx's order of pairs, from 1), the balls placed and the cells marked
/// empty as his locks.
fn bbx_facts(g: &Game) -> String {
    let p = g.shape();
    let mut out = String::new();
    let (status, reveal) = match g.verdict() {
        Some(v) if v.won => (1, 1),
        Some(_) => (-1, 1),
        None => (0, 0),
    };
    out.push_str(&format!("status {status}\nreveal {reveal}\n"));
    let laser = |q: usize| position_to_tatham(p, q);
    let mut lasers: Vec<(usize, String)> = g
        .observation()
        .rays()
        .into_iter()
        .flat_map(|(q, o)| match o {
            Outcome::Absorbed => vec![(laser(q), "hit".to_string())],
            Outcome::Reflected => vec![(laser(q), "reflect".to_string())],
            // (Not under Tatham's rules.)
            Outcome::Miss => vec![(laser(q), "miss".to_string())],
            Outcome::Exit(k) => {
                let label = g.pair_index(q).unwrap() + 1;
                vec![
                    (laser(q), format!("exit {} label {label}", laser(k))),
                    (laser(k), format!("exit {} label {label}", laser(q))),
                ]
            }
        })
        .collect();
    lasers.sort();
    lasers.dedup();
    for (n, what) in lasers {
        out.push_str(&format!("laser {n} {what}\n"));
    }
    let xy = |i: usize| (i % p.width + 1, i / p.width + 1);
    for &i in g.guess().atoms() {
        let (x, y) = xy(i);
        out.push_str(&format!("ball {x},{y}\n"));
    }
    for i in (0..p.cells()).filter(|&i| g.is_marked_empty(i)) {
        let (x, y) = xy(i);
        out.push_str(&format!("lock {x},{y}\n"));
    }
    out
}

/// The save file of Tatham's format the game middle writes for `s` with
/// the name `game.sav`, after `moves`, in a game started by `setup`.
fn saved_by_the_middle(setup: Setup, moves: Vec<Move>) -> (String, Game) {
    let started = start(&setup, &Budget::default()).unwrap();
    let (mut middle, _) = Middle::new(setup, started, Options::default());
    for m in moves {
        middle.apply(m);
    }
    let file = middle
        .apply(Move::Save(Some("game.sav".into())))
        .into_iter()
        .find_map(|e| match e {
            Effect::Save { text, .. } => Some(text),
            _ => None,
        })
        .expect("a file saved");
    (file, middle.game().clone())
}

#[test]
fn a_puzzle_start_saved_with_s_is_his_program_s_file_and_resumes() {
    // seed-emacs-game-2 gives 18 rays: saved with `s` as game.sav, each is
    // one laser fired (both ends of an exit pair were written as two, which
    // his program and bbx refused: "laser 13 was already fired").
    let setup = || Setup {
        start: Start::File(puzzle("seed-emacs-game-2.txt")),
        seed: Some(1),
        ..Setup::default()
    };
    let (file, g) = saved_by_the_middle(setup(), vec![Move::Shoot(2), Move::Undo]);
    assert_eq!(file, read(&played("puzzle-start.sav")));
    let t = parse_tatham(&file, "game.sav").unwrap();
    assert_eq!(t.observation(), *g.observation());
    // Mid-game, and at the end (resigned), after more moves.
    let mid = vec![Move::Shoot(2), Move::MarkCell(63), Move::Atom(9)];
    let mut end = mid.clone();
    end.extend([Move::Resign, Move::Confirm]);
    let mut games = vec![(file, g)];
    for moves in [mid, end] {
        games.push(saved_by_the_middle(setup(), moves));
    }
    assert!(games[2].1.verdict().is_some_and(|v| v.resigned));
    for (file, g) in &games {
        let back = resumed_tatham(file);
        assert_eq!(back.observation(), g.observation());
        assert_eq!(back.guess(), g.guess());
        assert_eq!(bbx_facts(&back), bbx_facts(g), "{file}");
        if let Some(exe) = his_program() {
            let (facts, again) = his_load(exe, file).unwrap_or_else(|e| panic!("{e}\n{file}"));
            assert_eq!((facts, &again), (bbx_facts(g), file));
        }
    }
    assert!(games[1].1.is_marked_empty(63) && games[1].1.is_guessed(9));
}

#[test]
fn generate_out_sav_writes_tatham_s_save_file() {
    let dir = temp_dir("generate-sav");
    let out = dir.join("puzzle.sav");
    let said = stdout(&[
        "generate",
        "A4_B8",
        "--minimal",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(said.contains("Tatham's Black Box"), "{said}");
    let text = read(out.to_str().unwrap());
    assert_eq!(text, read(&played("generated.sav")));
    // The same puzzle as the display bbx writes for any other name.
    let txt = dir.join("puzzle.txt");
    stdout(&[
        "generate",
        "A4_B8",
        "--minimal",
        "--seed",
        "7",
        "--out",
        txt.to_str().unwrap(),
    ]);
    let shown = load_puzzle(txt.to_str().unwrap(), None).unwrap();
    let his = parse_tatham(&text, "puzzle.sav").unwrap();
    assert_eq!(his.observation(), shown.observation);
    // A game his program cannot play is refused before any work.
    let bad = dir.join("edge.sav");
    rejects(
        &[
            "generate",
            "A4_B8",
            "--rules",
            "edge-miss",
            "--out",
            bad.to_str().unwrap(),
        ],
        None,
        "standard rules",
    );
    assert!(!bad.exists());
}

#[test]
fn bbx_s_save_files_load_in_tatham_s_program() {
    let mut saves: Vec<(String, Game)> = SCENARIOS
        .iter()
        .map(|name| {
            let g = scenario(name);
            (name.to_string(), g)
        })
        .collect();
    for name in ["redo.sav", "locked-ball.sav", "generated.sav"] {
        saves.push((name.to_string(), resumed_tatham(&read(&played(name)))));
    }
    for (name, g) in &saves {
        let text = tatham_save(g).unwrap();
        // What his program saved after the same moves, where it did.
        let his_file = read(&played(name));
        let his_file: String = his_file
            .lines()
            .filter(|l| !l.starts_with("SEED    :"))
            .map(|l| format!("{l}\n"))
            .collect();
        if SCENARIOS.contains(&name.as_str()) {
            assert_eq!(text, his_file, "{name}");
        }
        let Some(exe) = his_program() else { continue };
        let (facts, again) = his_load(exe, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again, text, "{name}: his program saves it again as it is");
        if *name != "locked-ball.sav" {
            // (His lock on a ball is no mark of bbx's.)
            assert_eq!(facts, bbx_facts(g), "{name}");
        }
    }
}

#[test]
fn a_wrong_guess_waiting_is_saved_in_his_format_as_played_on() {
    // His program has no guess waiting: written as his check, it stays
    // charged (5 points and the ray that disproves it), never free.
    let answer = [c(7, 2), c(3, 4), c(4, 5), c(5, 7)];
    let mut moves: Vec<Move> = answer.iter().map(|&i| Move::Atom(i)).collect();
    moves.extend([Move::Atom(c(1, 1)), Move::Guess]);
    let setup = Setup {
        start: Start::GameId(ID.into()),
        ..Setup::default()
    };
    let (file, g) = saved_by_the_middle(setup, moves);
    assert!(g.pending().is_some(), "the guess waits");
    let mut on = g.clone();
    assert_eq!(on.play_on(), Some(1));
    assert_eq!(file, tatham_save(&on).unwrap());
    let back = resumed_tatham(&file);
    assert_eq!(back.wrong_guesses(), 1);
    assert_eq!(back.score(), on.score());
    assert_eq!(state(&back), state(&on));
    assert!(file.contains("UI      :2:E1\n"), "{file}");
    if let Some(exe) = his_program() {
        let (facts, again) = his_load(exe, &file).unwrap_or_else(|e| panic!("{e}\n{file}"));
        assert_eq!((facts, again), (bbx_facts(&on), file));
    }
}
