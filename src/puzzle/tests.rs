use super::*;
use crate::rules::board::{Side, port};
use crate::rules::enumeration::Molecules;
use crate::rules::ray::Outcome;
use crate::rules::spectrum::Spectrum;

const A2_B4_SEED: &str = "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n\nThere are 2 balls in the box\n";
const A2_B4_EMACS: &str = "   H R H R\n H O - O - H\n R - - - - 3\n 1 - - - - 1\n 2 - - - - 2\n   H R H 3\n\nThere are 2 balls in the box\n";

fn file(name: &str) -> String {
    format!("{}/puzzles/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn err(text: &str, format: Option<Format>) -> ParseError {
    match parse_puzzle(text, "f", format) {
        Ok(p) => panic!("expected an error, got {p:?}"),
        Err(e) => e,
    }
}

fn at(e: &ParseError) -> (usize, usize) {
    (e.line, e.column)
}

#[test]
fn format_names() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>(), Ok(f));
        assert_eq!(f.to_string(), f.name());
    }
    assert_eq!("SEED001".parse::<Format>(), Ok(Format::Janns));
    let e = "emacs".parse::<Format>().unwrap_err();
    assert!(
        e.contains("'display', 'linear', 'seed001' or 'tatham'"),
        "{e}"
    );
}

#[test]
fn detection() {
    assert_eq!(detect_format(A2_B4_SEED), Format::Display);
    assert_eq!(
        detect_format("# c\n\na2_b4 @&ab@&@cbac@&@&@\n"),
        Format::Linear
    );
    assert_eq!(detect_format("5 5\n1\n2 6\n"), Format::Janns);
    assert_eq!(detect_format("# c\n 5  5 \n"), Format::Janns);
    assert_eq!(detect_format("5 5\n1 2 3\n"), Format::Janns);
    // A display whose top line holds two digit marks stays a display.
    let t = "   1 2\n 3 - - 3\n   - -\n   1 2\n";
    assert_eq!(detect_format(t), Format::Display);
    assert_eq!(
        parse_puzzle(t, "t", None).unwrap().observation.shot_count(),
        6
    );
    assert_eq!(detect_format(""), Format::Display);
    // Numbers out of range, negative ones included, are still A. Janns's.
    assert_eq!(detect_format("5 5\n-1\n"), Format::Janns);
    assert_eq!(detect_format("5 5\n2 99\n"), Format::Janns);
    assert_eq!(detect_format("5 5\n+3 -4\n"), Format::Janns);
    assert_eq!(detect_format("\u{feff}5 5\n1\n"), Format::Janns);
    assert_eq!(
        detect_format("\u{feff}A2_B4 @&ab@&@cbac@&@&@"),
        Format::Linear
    );
    // A display row holds cells, not numbers.
    assert_eq!(detect_format("   1 2\n 3 - - 3\n"), Format::Display);
}

#[test]
fn byte_order_marks_are_dropped() {
    for text in [
        A2_B4_SEED,
        A2_B4_EMACS,
        "A2_B4 @&ab@&@cbac@&@&@\n",
        "5 5\n1\n2 6\n",
    ] {
        let plain = parse_puzzle(text, "f", None).unwrap();
        let bom = parse_puzzle(&format!("\u{feff}{text}"), "f", None).unwrap();
        assert_eq!(bom, plain, "{text}");
    }
    let m = parse_molecule("\u{feff}O-O-------------\n", "f").unwrap();
    assert_eq!(m.to_string(), "O-O-------------");
}

#[test]
fn empty_and_binary_text() {
    for text in ["", " ", "\n\n", "\u{feff}", "\t\r\n"] {
        let e = err(text, None);
        assert_eq!(at(&e), (0, 0), "{text:?}");
        assert!(e.message.starts_with("the input is empty"), "{e}");
        let e = parse_molecule(text, "f").unwrap_err();
        assert!(e.message.starts_with("the input is empty"), "{e}");
    }
    let e = err("5 5\n1\n2 \0\n", None);
    assert_eq!(at(&e), (3, 3));
    assert!(e.message.starts_with("not a text puzzle"), "{e}");
    let e = err("   @ &\n a - \u{1b} a\n", None);
    assert_eq!(at(&e), (2, 6));
    assert!(e.message.contains("U+001B"), "{e}");
    let e = parse_molecule("O-\0-", "f").unwrap_err();
    assert_eq!(at(&e), (1, 3));
    assert!(e.message.starts_with("not a text molecule"), "{e}");
}

#[test]
fn unreadable_files_are_named() {
    let dir = std::env::temp_dir().join(format!("bbx-puzzle-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let e = load_puzzle(d, None).unwrap_err();
    assert!(
        matches!(&e, Error::Io { path, source } if path == d && source.kind() == std::io::ErrorKind::IsADirectory),
        "{e}"
    );
    let latin1 = dir.join("latin1.txt");
    std::fs::write(&latin1, b"A2_B4 @&ab@&@cbac@&@&@\n# caf\xe9\n").unwrap();
    let e = load_puzzle(latin1.to_str().unwrap(), None).unwrap_err();
    let Error::Parse(e) = e else { panic!("{e}") };
    assert_eq!(at(&e), (2, 6));
    assert!(e.message.contains("byte 0xE9 is not UTF-8"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn janns_numbering_on_all_four_sides() {
    for p in 1..=9 {
        for k in 1..=4 * p {
            // A. Janns's own description of position k.
            let (side, line) = if k <= p {
                (Side::Top, k)
            } else if k <= 2 * p {
                (Side::Right, k - p)
            } else if k <= 3 * p {
                (Side::Bottom, 3 * p + 1 - k)
            } else {
                (Side::Left, 4 * p + 1 - k)
            };
            let pos = janns_to_position(p, k);
            let q = port(p, pos);
            assert_eq!((q.side, q.line), (side, line), "p={p} k={k}");
            assert_eq!(position_to_janns(p, pos), k);
        }
    }
    // p = 5: top column c is 4p+1−c; right row r is 3p+1−r; bottom column
    // c is p+c; left row r is r.
    assert_eq!(janns_to_position(5, 2), 19);
    assert_eq!(janns_to_position(5, 7), 14);
    assert_eq!(janns_to_position(5, 15), 6);
    assert_eq!(janns_to_position(5, 18), 3);
}

#[test]
fn display_a2_b4_in_both_notations() {
    let seed = parse_puzzle(A2_B4_SEED, "seed", None).unwrap();
    assert_eq!(seed.format, Format::Display);
    assert_eq!(seed.observation.to_string(), "@&ab@&@cbac@&@&@");
    assert!(seed.observation.is_complete());
    assert_eq!(seed.atoms, Some(2));
    assert_eq!(seed.rules, None);
    let guess = seed.guess.clone().unwrap();
    assert_eq!(guess.to_string(), "O-O-------------");
    assert!(
        seed.observation
            .matches(&Spectrum::of(&guess, Rules::Standard))
    );
    // Positions by hand: 3 is left row 3 ('a'), its partner right row 3 = 10.
    assert_eq!(seed.observation.get(3), Some(Outcome::Exit(10)));
    assert_eq!(seed.observation.get(8), Some(Outcome::Exit(11)));
    assert_eq!(seed.observation.get(13), Some(Outcome::Reflected));
    assert_eq!(seed.observation.get(16), Some(Outcome::Absorbed));
    let emacs = parse_puzzle(A2_B4_EMACS, "emacs", None).unwrap();
    assert_eq!(emacs.observation, seed.observation);
    assert_eq!((emacs.atoms, emacs.guess), (seed.atoms, seed.guess));
}

#[test]
fn display_blanks_and_question_marks_are_not_shot() {
    let t = "   ? & @\n @ - - - a\n   - - - a\n   - - -\n";
    let p = parse_puzzle(t, "t", None).unwrap();
    // Top (right to left) 12 '?', 11 '&', 10 '@'; left row 1 is 1, right
    // rows 1 and 2 are 9 and 8.
    assert_eq!(p.observation.to_string(), "@??????aa@&?");
    assert_eq!(p.observation.shot_count(), 5);
    assert_eq!((p.atoms, p.guess), (None, None));
}

#[test]
fn seed_upper_case_letters_are_labels() {
    // In J. Forget's notation 'H' and 'R' are pair labels like any letter.
    let t = "   H a\n & - - a\n R - - H\n   R &\n";
    let p = parse_puzzle(t, "t", None).unwrap();
    // 'H': top column 1 (8) and right row 2 (5); 'a': top column 2 (7)
    // and right row 1 (6); 'R': left row 2 (2) and bottom column 1 (3).
    assert_eq!(p.observation.get(8), Some(Outcome::Exit(5)));
    assert_eq!(p.observation.get(7), Some(Outcome::Exit(6)));
    assert_eq!(p.observation.get(2), Some(Outcome::Exit(3)));
    assert_eq!(p.observation.to_string(), "&aa&bccb");
}

#[test]
fn pure_thought_game() {
    let p = load_puzzle(&file("seed-pure-thought-a4-b8.txt"), None).unwrap();
    assert_eq!(
        (p.format, p.width(), p.atoms),
        (Format::Display, 8, Some(4))
    );
    assert_eq!(p.guess, None);
    assert_eq!(p.observation.shot_count(), 32);
    // Left 1 2 3 H 4 H 5 H; bottom 6 7 R H R H R H; right (bottom to top)
    // H R H R H R 2 1; top (right to left) H 3 H 4 H 5 7 6.
    assert_eq!(
        p.observation.to_string(),
        "abc@d@e@fg&@&@&@@&@&@&ba@c@d@egf"
    );
    assert_eq!(p.observation.get(1), Some(Outcome::Exit(24)));
    assert_eq!(p.observation.get(3), Some(Outcome::Exit(26)));
    assert_eq!(p.observation.get(10), Some(Outcome::Exit(31)));
    assert_eq!(p.config(), Some(Config::new(4, 8).unwrap()));
}

/// Rays shot and the observation string (derived by hand from the
/// numbering) of each Emacs game; the player's four `O`s must explain every
/// ray shot.
#[test]
fn seed_emacs_games() {
    let games = [
        (
            "seed-emacs-game-1.txt",
            12,
            "a&@?b?&@??c??c?d?d?????a??b?????",
        ),
        (
            "seed-emacs-game-2.txt",
            18,
            "@?a??b?@@??@&c?d@ee?fab?d?cf????",
        ),
        (
            "seed-emacs-game-3.txt",
            14,
            "@a?????&??b?c??dd?ea?fe????c?bf?",
        ),
        (
            "seed-emacs-game-4.txt",
            17,
            "a??@b&@cb??defc??????????gfedg?a",
        ),
    ];
    for (name, shot, expected) in games {
        let p = load_puzzle(&file(name), None).unwrap();
        assert_eq!(
            (p.format, p.width(), p.atoms),
            (Format::Display, 8, Some(4)),
            "{name}"
        );
        assert_eq!(p.observation.shot_count(), shot, "{name}");
        let guess = p.guess.clone().unwrap();
        assert_eq!(guess.atoms().len(), 4, "{name}");
        let s = Spectrum::of(&guess, Rules::Standard);
        assert!(p.observation.matches(&s), "{name}: guess {guess} gives {s}");
        assert_eq!(p.observation.to_string(), expected, "{name}");
    }
    // Game 1 by hand: top column 6 ('3') is position 27 and pairs with left
    // row 5; bottom columns 3 and 6 ('4') are positions 11 and 14; right
    // row 7 ('2') is 18 and pairs with bottom column 8 (16).
    let g1 = load_puzzle(&file("seed-emacs-game-1.txt"), None).unwrap();
    assert_eq!(g1.observation.get(27), Some(Outcome::Exit(5)));
    assert_eq!(g1.observation.get(11), Some(Outcome::Exit(14)));
    assert_eq!(g1.observation.get(18), Some(Outcome::Exit(16)));
    assert_eq!(g1.observation.get(2), Some(Outcome::Reflected));
    assert_eq!(g1.observation.get(8), Some(Outcome::Absorbed));
    assert_eq!(g1.observation.get(4), None);
}

#[test]
fn janns_sample() {
    let p = load_puzzle(&file("seed001-sample.txt"), None).unwrap();
    assert_eq!((p.format, p.width(), p.atoms), (Format::Janns, 5, Some(5)));
    assert_eq!(p.rules, Some(Rules::EdgeMiss));
    assert!(p.observation.is_complete());
    assert_eq!(p.observation.shot_count(), 20);
    let o = &p.observation;
    // "1": top column 1 = bbx 20, absorbed.
    assert_eq!(o.get(20), Some(Outcome::Absorbed));
    // "2 6": top column 2 (19) ↔ right row 1 (15).
    assert_eq!(o.get(19), Some(Outcome::Exit(15)));
    // "10 11": right row 5 (11) ↔ bottom column 5 (10).
    assert_eq!(o.get(11), Some(Outcome::Exit(10)));
    // "18 18": left row 3, reflected.
    assert_eq!(o.get(3), Some(Outcome::Reflected));
    // 16 and 20 appear on no line: left rows 5 and 1 missed.
    assert_eq!(
        (o.get(5), o.get(1)),
        (Some(Outcome::Miss), Some(Outcome::Miss))
    );
    // Exactly one 5-atom molecule fits (A. Janns's claim).
    let fits: Vec<Molecule> = Molecules::new(p.config().unwrap())
        .filter(|m| o.matches(&Spectrum::of(m, Rules::EdgeMiss)))
        .collect();
    assert_eq!(fits.len(), 1, "{fits:?}");
}

#[test]
fn janns_tolerates_comments_and_repeated_pairs() {
    let p = parse_puzzle("# sample\n2 1\n\n1 3\n3 1\n", "t", None).unwrap();
    assert_eq!(p.observation.get(8), Some(Outcome::Exit(6)));
    assert_eq!(p.observation.get(1), Some(Outcome::Miss));
}

#[test]
fn display_skips_comment_lines() {
    let text = format!("# a saved game\n  # indented too\n{A2_B4_SEED}# and at the end\n");
    let p = parse_puzzle(&text, "t", None).unwrap();
    assert_eq!((p.format, p.atoms), (Format::Display, Some(2)));
    assert_eq!(p.observation.to_string(), "@&ab@&@cbac@&@&@");
    let bad = err(&format!("# c\n{}", A2_B4_SEED.replacen('&', "%", 1)), None);
    assert_eq!(at(&bad), (2, 6), "{bad}");
    // A row whose left mark is '#' is a wrong mark, not a comment.
    let bad = err(&A2_B4_SEED.replacen(" @ O", " # O", 1), None);
    assert_eq!(at(&bad), (2, 2), "{bad}");
    assert!(bad.message.contains("unknown border mark '#'"), "{bad}");
}

#[test]
fn linear_puzzles() {
    let p = load_puzzle(&file("seed-a2-b4-molecule-2-spectrum.txt"), None).unwrap();
    assert_eq!((p.format, p.width(), p.atoms), (Format::Linear, 4, Some(2)));
    assert_eq!(p.observation.shot_count(), 16);
    assert_eq!(p.observation.to_string(), "@&ab@&@cbac@&@&@");
    assert_eq!(
        p.observation,
        parse_puzzle(A2_B4_SEED, "s", None).unwrap().observation
    );
    let p = load_puzzle(&file("a4-b6-molecules-868-and-15993.txt"), None).unwrap();
    assert_eq!((p.format, p.width(), p.atoms), (Format::Linear, 6, Some(4)));
    assert_eq!(p.observation.shot_count(), 24);
    for m in [
        "O-O-----------O---------O-----------",
        "--O---------O-O---------O-----------",
    ] {
        let m: Molecule = m.parse().unwrap();
        assert!(p.observation.matches(&Spectrum::of(&m, Rules::Standard)));
    }
    // A range of atom counts, as Tatham's `8x8, 3-6 balls` hides; a range
    // of one count is that count.
    let p = parse_puzzle("A3-6_B8 ?@??????????????????????????????", "t", None).unwrap();
    assert_eq!((p.atoms, p.atom_range), (None, Some(3..=6)));
    assert_eq!(
        crate::puzzle::inline("A3-6_B8 ?@??????????????????????????????"),
        Some(crate::puzzle::Inline::Linear)
    );
    let p = parse_puzzle("A3-3_B8 ?@??????????????????????????????", "t", None).unwrap();
    assert_eq!((p.atoms, p.atom_range), (Some(3), None));
    let e = parse_puzzle("A6-3_B8 ?@??????????????????????????????", "t", None).unwrap_err();
    assert!(
        e.to_string()
            .contains("the fewest atoms (6) is more than the most (3)"),
        "{e}"
    );
    // A configuration mistyped is still the linear form: its error names
    // the configuration, not a missing file.
    for bad in ["A3-_B8", "A4_Bx", "a4_b8x"] {
        let arg = format!("{bad} ????????????????????????????????");
        assert_eq!(
            crate::puzzle::inline(&arg),
            Some(crate::puzzle::Inline::Linear)
        );
        let e = parse_puzzle(&arg, "t", None).unwrap_err().to_string();
        assert!(e.contains(&format!("invalid configuration '{bad}'")), "{e}");
    }
    let p = parse_puzzle("a2_b4 @&ab@&@?ba?@&@&@\n# end\n", "t", None).unwrap();
    assert_eq!(p.observation.get(8), None);
    assert_eq!(p.observation.get(3), Some(Outcome::Exit(10)));
}

#[test]
fn puzzle_files() {
    let files = [
        ("seed-pure-thought-a4-b8.txt", 8, Some(4), 32),
        ("seed-emacs-game-1.txt", 8, Some(4), 12),
        ("seed-emacs-game-2.txt", 8, Some(4), 18),
        ("seed-emacs-game-3.txt", 8, Some(4), 14),
        ("seed-emacs-game-4.txt", 8, Some(4), 17),
        ("seed001-sample.txt", 5, Some(5), 20),
        ("a4-b6-molecules-868-and-15993.txt", 6, Some(4), 24),
        ("seed-a2-b4-molecule-2-spectrum.txt", 4, Some(2), 16),
    ];
    for (name, width, atoms, shot) in files {
        let p = load_puzzle(&file(name), None).unwrap();
        assert_eq!(
            (p.width(), p.atoms, p.observation.shot_count()),
            (width, atoms, shot),
            "{name}"
        );
    }
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let e = load_puzzle("/nonexistent/puzzle.txt", None).unwrap_err();
    assert!(matches!(&e, Error::Io { path, .. } if path == "/nonexistent/puzzle.txt"));
}

// ---- errors: display ----

#[test]
fn display_unknown_mark() {
    let e = err("   @ &\n % - - a\n   - - a\n   @ &\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(e.message.contains("unknown border mark '%'"), "{e}");
    assert!(e.to_string().starts_with("f:2:2: "), "{e}");
}

#[test]
fn display_unknown_cell() {
    let e = err("   @ &\n a - X a\n   - -\n", None);
    assert_eq!(at(&e), (2, 6));
    assert!(e.message.contains("'X'"), "{e}");
    // In a row's first cell, where the row no longer looks like one.
    let e = err(
        "   @ & @ &\n @ X - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n",
        None,
    );
    assert_eq!(at(&e), (2, 4));
    assert!(
        e.message.starts_with("unexpected character 'X' in the box"),
        "{e}"
    );
    let e = err(
        "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b X - - - b\n   @ & @ c\n",
        None,
    );
    assert_eq!(at(&e), (5, 4));
    let e = err(
        "   @ & @ &\n @ O - O - @\n & X - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n",
        None,
    );
    assert_eq!(at(&e), (3, 4));
}

#[test]
fn display_label_once() {
    let e = err("   @ &\n a - - @\n   - - &\n   @ &\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(
        e.message
            .contains("pair label 'a' appears only once (at 2:2)"),
        "{e}"
    );
    assert!(e.message.contains("cannot pair with itself"), "{e}");
    // In Emacs notation the hint names 'R'.
    let e = err("   H R\n 1 - - H\n   - - R\n   H R\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(
        e.message.contains("'1' appears only once") && e.message.contains("'R'"),
        "{e}"
    );
}

#[test]
fn display_label_three_times() {
    let e = err("   a &\n a - - @\n   - - a\n   @ &\n", None);
    assert_eq!(at(&e), (3, 8));
    assert!(
        e.message
            .contains("pair label 'a' appears 3 times (at 1:4, 2:2 and 3:8)"),
        "{e}"
    );
    let e = err("   1 1\n 1 - - 1\n   - -\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(
        e.message
            .contains("'1' appears 4 times (at 1:4, 1:6, 2:2 and 2:8)"),
        "{e}"
    );
}

#[test]
fn display_mixed_notations() {
    let e = err("   1 a\n 1 - - a\n   - -\n", None);
    assert_eq!(at(&e), (1, 6));
    assert!(
        e.message
            .contains("mark 'a' belongs to J. Forget's notation"),
        "{e}"
    );
    assert!(e.message.contains("the digit '1' at 1:4"), "{e}");
    let e = err("   1 1\n @ - -\n   - -\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(e.message.contains("cannot mix"), "{e}");
    // 'H' with no lower-case letter and no '@', '&', '~' is Emacs; another
    // upper-case letter is then out of place.
    let e = err("   H R\n A - - A\n   - -\n", None);
    assert_eq!(at(&e), (2, 2));
    assert!(
        e.message
            .contains("the 'H' at 1:4 and no lower-case letter"),
        "{e}"
    );
}

#[test]
fn display_rectangles_and_uneven_rows() {
    // Two rows of three cells: a box 3 wide and 2 high, its marks read on
    // every side (left 1..2, bottom 3..5, right 6..7, top 8..10).
    let p = parse_puzzle("   @ &\n a - - - a\n   - - -\n", "f", None).unwrap();
    assert_eq!(p.shape(), crate::rules::config::Shape::new(3, 2).unwrap());
    assert_eq!(p.observation.get(1), Some(Outcome::Exit(7)));
    assert_eq!(p.observation.get(10), Some(Outcome::Absorbed));
    // Three rows of two cells under a top line of three marks.
    let e = err("   @ & @\n a - - a\n   - -\n   - -\n", None);
    assert_eq!(at(&e), (1, 0));
    assert!(
        e.message
            .contains("the top border line must hold 2 marks at the columns of the cells"),
        "{e}"
    );
    // Rows of different lengths.
    let e = err("   - -\n   - - -\n   - -\n", Some(Format::Display));
    assert_eq!(at(&e), (2, 8));
    assert!(
        e.message
            .contains("row 2 has more than 2 cells but row 1 has 2 cells"),
        "{e}"
    );
    let e = err(" a - -\n b - - -\n c - - -\n", Some(Format::Display));
    assert_eq!(at(&e), (1, 8));
    assert!(
        e.message.contains(
            "row 1 has 2 cells but row 2 has 3 cells: every row of a box has as many cells"
        ),
        "{e}"
    );
}

#[test]
fn display_too_many_balls() {
    let e = err(
        "   @ &\n a - - a\n   - -\n\nThere are 5 balls in the box\n",
        None,
    );
    assert_eq!(at(&e), (5, 11));
    assert!(
        e.message
            .contains("5 balls do not fit in the 2×2 box (4 cells)"),
        "{e}"
    );
}

// ---- errors: linear ----

#[test]
fn linear_wrong_length() {
    let e = err("# c\nA2_B4 @&ab@&@cbac@&@&\n", None);
    assert_eq!(at(&e), (2, 7));
    assert!(
        e.message.contains("4p = 16 characters") && e.message.contains("this one has 15"),
        "{e}"
    );
}

#[test]
fn linear_bad_config_and_count() {
    let e = err("A5_B2 ????????\n", None);
    assert_eq!(at(&e), (1, 1));
    assert!(e.message.contains("5 atoms do not fit in a 2×2 box"), "{e}");
    let e = err("A2_B4 @&ab@&@cbac@&@&@\n", Some(Format::Janns));
    assert_eq!(at(&e), (1, 1));
    let e = err("X2_B4 @&ab@&@cbac@&@&@\n", Some(Format::Linear));
    assert_eq!(at(&e), (1, 1));
    assert!(e.message.contains("invalid configuration 'X2_B4'"), "{e}");
}

#[test]
fn linear_bad_characters_and_labels() {
    let e = err("A2_B4 @&ab@&@cb%c@&@&@", None);
    assert_eq!(at(&e), (1, 16));
    assert!(e.message.contains("unexpected character '%'"), "{e}");
    let e = err("A2_B4 @&ab@&@cbaa@&@&@", None);
    assert_eq!(at(&e), (1, 17));
    assert!(
        e.message
            .contains("pair label 'a' appears 3 times (at 1:9, 1:16 and 1:17)"),
        "{e}"
    );
    let e = err("  A2_B4 @&ab@&@cbaa@&@&@", None);
    assert_eq!(at(&e), (1, 19));
    let e = err("A2_B4 @&ab@&@cbac@&@&d", None);
    assert_eq!(at(&e), (1, 22));
    assert!(e.message.contains("'d' appears only once"), "{e}");
    let e = err("A2_B4 @&ab@&@cbac@&@&@ extra", None);
    assert_eq!(at(&e), (1, 24));
    let e = err("A2_B4 @&ab@&@cbac@&@&@\nA2_B4 @&ab@&@cbac@&@&@\n", None);
    assert_eq!(at(&e), (2, 1));
    let e = err("A2_B4\n", None);
    assert!(e.message.contains("expected the spectrum"), "{e}");
}

// ---- errors: A. Janns's format ----

#[test]
fn janns_out_of_range() {
    let e = err("5 5\n1\n2 21\n", None);
    assert_eq!(at(&e), (3, 3));
    assert!(
        e.message.contains("border position 21 is out of range"),
        "{e}"
    );
    let e = err("5 5\n0\n", None);
    assert_eq!(at(&e), (2, 1));
}

#[test]
fn janns_recorded_twice() {
    let e = err("5 5\n2 6\n1\n6 3\n", None);
    assert_eq!(at(&e), (4, 1));
    assert!(
            e.message.contains("ray recorded twice with different results: at position 6, line 2 says came out at 2 but line 4 says came out at 3"),
            "{e}"
        );
    let e = err("5 5\n4\n4 4\n", None);
    assert_eq!(at(&e), (3, 1));
    assert!(
        e.message
            .contains("line 2 says absorbed but line 3 says reflected"),
        "{e}"
    );
}

#[test]
fn janns_three_numbers_and_words() {
    let e = err("5 5\n1 2 3\n", None);
    assert_eq!(at(&e), (2, 5));
    assert!(e.message.contains("not 3"), "{e}");
    let e = err("5 5\n1\n2 x\n", Some(Format::Janns));
    assert_eq!(at(&e), (3, 3));
    assert!(e.message.contains("found 'x'"), "{e}");
    let e = err("5 five\n", Some(Format::Janns));
    assert_eq!(at(&e), (1, 3));
}

#[test]
fn janns_too_many_atoms() {
    let e = err("5 26\n1\n", None);
    assert_eq!(at(&e), (1, 3));
    assert!(
        e.message
            .contains("K = 26 atoms do not fit in the 5×5 box (25 cells)"),
        "{e}"
    );
    let e = err("0 0\n", None);
    assert_eq!(at(&e), (1, 1));
}
