//! Rectangular boxes end to end: `bbx stats A5_B8x6` against a count made
//! here by brute force with the naive engine of `reference.rs` (every
//! molecule traced, its spectrum's class under the rectangle's four
//! symmetries worked out from the drawing of RULES.md), and `trace`,
//! `solve` and `generate` on rectangles.

use std::collections::HashMap;

use rayon::prelude::*;
use serde_json::Value;

use bbx::{Outcome, Rules};

use crate::common::{bbx, json_ok};
use crate::reference::{Board, naive_rays, naive_spectrum};

/// The four symmetries of a box w wide and h high, on padded cells (row,
/// column): identity, half turn, left-right mirror, top-bottom mirror. Each
/// is its own inverse.
type Symmetry = Box<dyn Fn(isize, isize) -> (isize, isize) + Sync>;

fn symmetries(w: isize, h: isize) -> [Symmetry; 4] {
    [
        Box::new(|r, c| (r, c)),
        Box::new(move |r, c| (h + 1 - r, w + 1 - c)),
        Box::new(move |r, c| (r, w + 1 - c)),
        Box::new(move |r, c| (h + 1 - r, c)),
    ]
}

/// Letters renamed `a`, `b`… in order of first appearance.
fn renamed(s: &[u8]) -> Vec<u8> {
    let mut map: HashMap<u8, u8> = HashMap::new();
    s.iter()
        .map(|&ch| {
            if ch.is_ascii_alphabetic() {
                let next = b'a' + map.len() as u8;
                *map.entry(ch).or_insert(next)
            } else {
                ch
            }
        })
        .collect()
}

/// The smallest of a spectrum's images under the four symmetries: the
/// same for every spectrum of its class.
fn class_of(b: &Board, w: usize, h: usize, s: &[u8]) -> Vec<u8> {
    symmetries(w as isize, h as isize)
        .iter()
        .map(|g| {
            let mut image = vec![0u8; s.len()];
            for (i, &ch) in s.iter().enumerate() {
                let (r, c, _) = b.start(i + 1);
                let (r, c) = g(r, c);
                image[b.position_of(r, c) - 1] = ch;
            }
            renamed(&image)
        })
        .min()
        .expect("four images")
}

/// The records of one kind: the longest path or the most turns, the
/// lowest-numbered molecule reaching it and its lowest position reaching it.
type Record = (u32, u64, usize);

fn better(a: Record, b: Record) -> Record {
    if (b.0, std::cmp::Reverse(b.1)) > (a.0, std::cmp::Reverse(a.1)) {
        b
    } else {
        a
    }
}

/// What brute force finds in a configuration of `atoms` atoms in a box w
/// wide and h high: how many molecules share each spectrum, and the six
/// ray records (absorbed, reflected, out; turns, then length).
fn brute_force(atoms: usize, w: usize, h: usize) -> (HashMap<Vec<u8>, u64>, [Record; 6]) {
    let cells = w * h;
    // Molecules in number order are grouped by their first atom a0; those
    // before a0's group are C(cells − 1 − x, atoms − 1) for each x < a0.
    let binomial = |n: usize, k: usize| -> u64 {
        (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64)
    };
    let firsts: Vec<(usize, u64)> = (0..=cells - atoms)
        .scan(1u64, |number, a0| {
            let first = *number;
            *number += binomial(cells - 1 - a0, atoms - 1);
            Some((a0, first))
        })
        .collect();
    firsts
        .into_par_iter()
        .map(|(a0, mut number)| {
            let mut counts: HashMap<Vec<u8>, u64> = HashMap::new();
            let mut records = [(0u32, u64::MAX, 0usize); 6];
            let mut rest: Vec<usize> = (a0 + 1..a0 + atoms).collect();
            loop {
                let mut linear = vec![b'-'; cells];
                for &x in std::iter::once(&a0).chain(&rest) {
                    linear[x] = b'O';
                }
                let rows: Vec<&str> = linear
                    .chunks(w)
                    .map(|r| std::str::from_utf8(r).unwrap())
                    .collect();
                let b = Board::from_linear(&rows.join("/"));
                let rays = naive_rays(&b, Rules::Standard);
                let s = naive_spectrum(&rays).expect("a string form");
                *counts.entry(s.into_bytes()).or_default() += 1;
                for (i, ray) in rays.iter().enumerate() {
                    let kind = match ray.outcome {
                        Outcome::Absorbed => 0,
                        Outcome::Reflected => 2,
                        Outcome::Exit(_) => 4,
                        Outcome::Miss => unreachable!("standard rules"),
                    };
                    let pos = i + 1;
                    records[kind] = better(records[kind], (ray.turns, number, pos));
                    records[kind + 1] = better(records[kind + 1], (ray.length, number, pos));
                }
                number += 1;
                // The next combination of the other atoms, after a0.
                let n = rest.len();
                let Some(i) = (0..n).rev().find(|&i| rest[i] < cells - (n - i)) else {
                    break;
                };
                rest[i] += 1;
                for j in i + 1..n {
                    rest[j] = rest[j - 1] + 1;
                }
            }
            (counts, records)
        })
        .reduce(
            || (HashMap::new(), [(0u32, u64::MAX, 0usize); 6]),
            |(mut a, ra), (b, rb)| {
                for (k, v) in b {
                    *a.entry(k).or_default() += v;
                }
                let mut r = ra;
                for i in 0..6 {
                    r[i] = better(ra[i], rb[i]);
                }
                (a, r)
            },
        )
}

#[test]
fn stats_of_a5_b8x6_equal_the_brute_force_count() {
    let (atoms, w, h) = (5, 8, 6);
    let (counts, records) = brute_force(atoms, w, h);
    let total: u64 = counts.values().sum();
    assert_eq!(total, 1_712_304, "C(48, 5) molecules");
    // Per number of molecules sharing a spectrum: spectra, classes, molecules.
    let b = Board::from_linear(&vec!["-".repeat(w); h].join("/"));
    let mut rows: HashMap<u64, (u64, std::collections::HashSet<Vec<u8>>)> = HashMap::new();
    let mut unique = 0;
    for (s, &k) in &counts {
        if k == 1 {
            unique += 1;
            continue;
        }
        let row = rows.entry(k).or_default();
        row.0 += 1;
        row.1.insert(class_of(&b, w, h, s));
    }
    let mut expected: Vec<(u64, u64, u64, u64)> = rows
        .into_iter()
        .map(|(k, (spectra, classes))| (k, classes.len() as u64, spectra, k * spectra))
        .collect();
    expected.sort_unstable();

    let v = json_ok(&["stats", "A5_B8x6", "-q"]);
    assert_eq!(v["config"], "A5_B8x6");
    assert_eq!(v["molecules"], total);
    let got: Vec<(u64, u64, u64, u64)> = v["ambiguity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |key: &str| r[key].as_u64().unwrap();
            (
                n("molecules_per_spectrum"),
                n("spectra_up_to_symmetry"),
                n("spectra"),
                n("molecules"),
            )
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(v["unique_molecules"], unique);
    let got: Vec<Record> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["value"].as_u64().unwrap() as u32,
                r["number"].as_u64().unwrap(),
                r["position"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    assert_eq!(got, records);
}

#[test]
fn a_rectangle_is_traced_solved_and_named_on_the_command_line() {
    // 5 wide, 3 high; the atom on row 1, column 3.
    let v = json_ok(&["trace", "--ray", "5", "A1_B5x3", "--O------------"]);
    assert_eq!(v["config"], "A1_B5x3");
    assert_eq!(v["molecule"], "--O--/-----/-----");
    assert_eq!(
        (&v["width"], &v["height"]),
        (&Value::from(5), &Value::from(3))
    );
    assert_eq!(v["rays"].as_array().unwrap().len(), 16);
    assert_eq!(v["rays"][4]["exit"], 2);
    let spectrum = v["spectrum"].as_str().unwrap().to_string();
    // The spectrum solved back, given inline.
    let inline = format!("A1_B5x3 {spectrum}");
    let s = json_ok(&["solve", &inline]);
    assert_eq!(s["found"][0]["molecule"], "--O--/-----/-----");
    assert_eq!(s["found"].as_array().unwrap().len(), 1);
    assert_eq!(
        (&s["width"], &s["height"]),
        (&Value::from(5), &Value::from(3))
    );
    assert_eq!(s["config"], "A1_B5x3");
    // A text board of a rectangle.
    let out = bbx()
        .args(["trace", "A1_B5x3", "--O--/-----/-----"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(" @ - - O - - @\n"),
        "the first row with its marks: {text}"
    );
}

/// Game IDs bbx wrote for rectangles (`bbx generate CONFIG --seed 11`), with
/// what Simon Tatham's own program made of them, built from the collection's
/// source outside bbx with a driver around its `blackbox.c`: the balls its
/// `new_game` placed (1-based column, row) and each laser's exit by its
/// `laser_exit` (his numbers; -1 a hit, -2 a reflection).
type ByTatham = (
    &'static str,
    &'static str,
    &'static [(usize, usize)],
    &'static [i32],
);

const BY_TATHAM: [ByTatham; 3] = [
    (
        "A5_B8x6",
        "w8h6m5M5:315d1c86cece27d1f289b768",
        &[(5, 1), (7, 2), (1, 3), (2, 4), (4, 6)],
        &[
            -1, -1, 16, -2, -1, -2, -1, 8, 7, -1, 14, -1, -1, -1, 10, -1, 2, -2, -1, -2, -1, 23,
            -1, 21, -2, -1, -2, -1,
        ],
    ),
    (
        "A4_B5x9",
        "w5h9m4M4:e9fb265eb1dffad21b3d",
        &[(5, 1), (4, 3), (1, 4), (2, 9)],
        &[
            -1, -1, 26, -2, -1, -1, -2, -1, 14, -1, 22, 21, -1, -1, 8, -1, -2, -1, -2, -1, -1, 11,
            10, -2, -1, -2, 2, -1,
        ],
    ),
    (
        "A6_B9x4",
        "w9h4m6M6:2469650a9372705208a60bafbea1",
        &[(4, 1), (2, 2), (3, 2), (6, 2), (1, 3), (5, 4)],
        &[
            25, -1, -2, -1, -2, -1, 9, 14, 13, 6, -1, 15, -1, 8, 7, 11, -2, -1, -2, -1, -1, -1, -2,
            -1, -2, 0,
        ],
    ),
];

#[test]
fn tathams_program_reads_the_rectangles_bbx_writes_as_bbx_means_them() {
    for (config, id, balls, lasers) in BY_TATHAM {
        let g = json_ok(&["generate", config, "--seed", "11"]);
        assert_eq!(g["tatham_id"], id, "bbx writes the same ID again");
        let t = bbx::puzzle::parse_tatham(id, "id").unwrap();
        let shape = t.hidden.shape();
        let mut want: Vec<usize> = balls.iter().map(|&(x, y)| shape.index(y, x)).collect();
        want.sort_unstable();
        assert_eq!(t.hidden.atoms(), &want[..], "{id}");
        assert_eq!(g["molecule"], t.hidden.to_string());
        // Every laser of Tatham's on every side, through his numbering.
        let mut tracer = bbx::Tracer::new(shape, Rules::Standard);
        tracer.load(&t.hidden);
        for (n, &exit) in lasers.iter().enumerate() {
            let pos = bbx::puzzle::tatham_to_position(shape, n);
            let expected = match exit {
                -1 => Outcome::Absorbed,
                -2 => Outcome::Reflected,
                m => Outcome::Exit(bbx::puzzle::tatham_to_position(shape, m as usize)),
            };
            assert_eq!(tracer.trace(pos).outcome, expected, "{id}: laser {n}");
        }
    }
}

#[test]
fn every_command_of_a_configuration_takes_a_rectangle() {
    let dir = crate::common::temp_dir("rect-commands");
    let db = dir.join("r.sqlite");
    let db = db.to_str().unwrap();
    let e = json_ok(&["explore", "A3_B5x3", "--db", db]);
    assert_eq!(e["molecules"], 455, "C(15, 3)");
    // The catalogue's tables and the census's agree.
    let from_db = json_ok(&["stats", "A3_B5x3", "--db", db]);
    let census = json_ok(&["stats", "A3_B5x3", "--census", "-q"]);
    for key in ["ambiguity", "unique_molecules", "largest_groups", "records"] {
        assert_eq!(from_db[key], census[key], "{key}");
    }
    // A molecule of the catalogue, drawn with its rows.
    let s = json_ok(&["show", "A3_B5x3", "1", "--db", db]);
    assert_eq!(s["rows"][0]["molecule"], "OOO--/-----/-----");
    assert_eq!(
        (&s["width"], &s["height"]),
        (&Value::from(5), &Value::from(3))
    );
    assert!(
        ["id", "rot180", "symm-h", "symm-v"].contains(&s["rows"][0]["transform"].as_str().unwrap())
    );
    // SAT agrees with the enumeration, from the catalogue and streamed.
    for args in [
        vec!["verify", "A3_B5x3", "--db", db],
        vec!["verify", "A3_B5x3", "-q"],
    ] {
        let v = json_ok(&args);
        assert_eq!(v["mismatches"], Value::Array(Vec::new()), "{args:?}");
        assert!(v["checked"].as_u64().unwrap() > 0);
    }
    // A policy played against every molecule.
    let st = json_ok(&["strategy", "A2_B4x3"]);
    assert_eq!(st["molecules"], 66, "C(12, 2)");
    assert_eq!(
        (&st["width"], &st["height"]),
        (&Value::from(4), &Value::from(3))
    );
    let one = json_ok(&["strategy", "A2_B4x3", "--molecule", "5"]);
    assert_eq!(
        (&one["width"], &one["height"]),
        (&Value::from(4), &Value::from(3))
    );
    // A transform of a square is no symmetry of a rectangle.
    let out = bbx()
        .args(["stats", "A3_B5x3", "--db", db])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("A3_B5x3: 455 molecules"), "{text}");
}

#[test]
fn a_puzzle_given_inline_and_a_file_of_that_name() {
    // suggest takes a game ID in place of a file.
    let v = json_ok(&["suggest", "w5h5m3M3:a8048f3fbbd74cba"]);
    assert_eq!(v["origin"], "the game ID");
    // A file of that name wins: its game is read, not the name's.
    let dir = crate::common::temp_dir("inline-file");
    let name = "A2_B4 @&ab@&@cbac@&@&@";
    std::fs::write(dir.join(name), "A2_B4 ????????????????\n").unwrap();
    let out = bbx()
        .current_dir(&*dir)
        .args(["solve", name, "--json", "--max", "1"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["origin"].as_str(), v["marks_known"].as_u64()),
        (Some(name), Some(0))
    );
    let v = json_ok(&["solve", name]);
    assert_eq!(v["origin"], "the puzzle given inline");
    assert_eq!(v["marks_known"], 16);
}

#[test]
fn generate_takes_tathams_names() {
    for name in ["8x8, 3-6 balls", "w8h8m3M6", "A3-6_B8"] {
        let g = json_ok(&["generate", name, "--seed", "4"]);
        assert_eq!(g["config"], "A3-6_B8", "{name}");
        assert!(g["tatham_id"].as_str().unwrap().starts_with("w8h8m3M6:"));
    }
}

#[test]
fn a_rectangle_is_played() {
    use bbx::control::Budget;
    use bbx::play::middle::Options;
    use bbx::play::session::Session;
    use bbx::play::setup::{Setup, Start, start};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let setup = Setup {
        start: Start::Random {
            config: "A2_B5x3".parse().unwrap(),
            unique: false,
        },
        seed: Some(3),
        ..Setup::default()
    };
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        Options::default(),
    );
    let press = |app: &mut Session, code| app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    // Every ray, once round the border: down the left side (3), along the
    // bottom (5), up the right side (3), back along the top (5); a step past
    // a side's end goes round the corner.
    let moves = "DDDRRRRRUUULLLL";
    for m in moves.chars() {
        press(&mut app, KeyCode::Enter);
        press(
            &mut app,
            match m {
                'D' => KeyCode::Down,
                'R' => KeyCode::Right,
                'U' => KeyCode::Up,
                _ => KeyCode::Left,
            },
        );
    }
    press(&mut app, KeyCode::Enter);
    let game = app.middle().game();
    assert!(game.observation().is_complete(), "{}", game.observation());
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| bbx::play::draw(app.middle().scene(), f))
        .unwrap();
    let buf = t.backend().buffer();
    let lines: Vec<String> = (0..30)
        .map(|y| (0..100).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    let top = lines.iter().position(|l| l.contains("┌ the box")).unwrap();
    // The box's frame holds h + 2 lines of 2w + 4 characters: 5 lines.
    assert!(lines[top + 6].starts_with('└'), "{}", lines.join("\n"));
    assert!(
        lines[0].contains("A2_B5x3, standard rules, seed 3"),
        "{}",
        lines[0]
    );
    // The marks round the box are the spectrum's.
    let marks = game.marks();
    let first: String = lines[top + 2].chars().skip(2).take(14).collect();
    assert_eq!(first.chars().nth(1), Some(marks[0]), "{first}");
}
