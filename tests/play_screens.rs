//! What `bbx play` draws and at what size (on ratatui's `TestBackend`): the
//! help, Emacs notation and terminals too small for the panel or the board;
//! every screen whole at 80×24; the coach and whole keys at 60×20; wording
//! found in play; and the screens README.md and docs/guide.md show, which
//! must be what the game draws.

use bbx::control::Budget;
use bbx::play::middle::{Mode, Options};
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Start, start};
use bbx::rules::notation::Notation;
use bbx::{Molecule, Outcome, Rules, Spectrum};

use crate::common::play::{
    COACH_WAIT, app_for, board, goto_cell, goto_position, keys, panel, place, random_game, screen,
    text, won_game, words,
};
use crate::common::{puzzle, temp_dir as scratch};

#[test]
fn help_notation_and_small_terminals() {
    let mut app = random_game(12);
    keys(&mut app, "?");
    let shown = text(&screen(&mut app, 110, 34));
    assert!(
        shown.contains("Tatham's rule") && shown.contains("5 per misplaced atom"),
        "{shown}"
    );
    keys(&mut app, "x");
    assert_eq!(app.middle().mode(), &Mode::Board, "any key closes the help");
    assert!(
        !app.middle().panels().certain,
        "the key that closed the help did nothing else"
    );

    // Emacs notation: H for a hit, R for a reflection, digits for exit pairs.
    for q in 1..=8 {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    keys(&mut app, "e");
    assert_eq!(app.middle().notation(), Notation::Emacs);
    let b = board(&screen(&mut app, 100, 30), 8);
    let left: String = b[1..9].iter().map(|l| l.chars().nth(1).unwrap()).collect();
    assert!(left.chars().all(|c| "HR123456789".contains(c)), "{left}");

    // Too small for the board: a message that says how large it must be.
    let small = words(&screen(&mut app, 20, 10));
    assert!(
        small.contains("needs a terminal of at least 25×15"),
        "{small}"
    );
    // Large enough for the board but not the panel: the board alone.
    let narrow = screen(&mut app, 30, 16);
    assert_eq!(board(&narrow, 8).len(), 10);
}

/// The lines of the screen that hold a phrase, for the layout checks: each
/// phrase must be on screen whole, on one line.
fn on_one_line(lines: &[String], phrase: &str) -> bool {
    lines.iter().any(|l| l.contains(phrase))
}

#[test]
fn every_screen_fits_80_by_24() {
    let (w, h) = (80, 24);
    let mut app = random_game(36);
    for q in [1, 5, 9, 12, 20] {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    keys(&mut app, "c x b");
    assert!(app.wait_for_coach(COACH_WAIT));
    let lines = screen(&mut app, w, h);
    let said = panel(&lines);
    for phrase in [
        "molecules fit the rays shot",
        "certain:",
        "best ray",
        "then ray",
    ] {
        assert!(said.contains(phrase), "{phrase}: {}", text(&lines));
    }
    let key_line = &lines[usize::from(h) - 1];
    assert!(key_line.trim_end().ends_with("q quit"), "{key_line}");
    assert!(lines[0].trim_end().ends_with("? help"), "{}", lines[0]);
    // The coach's numbers stay down to 60 columns.
    let narrow = panel(&screen(&mut app, 64, h));
    assert!(narrow.contains("molecules fit"), "{narrow}");

    // Help: every key and what it does, the score, the judge and the rules.
    keys(&mut app, "?");
    let lines = screen(&mut app, w, h);
    for (k, what) in bbx::play::keys::help(bbx::play::keys::Profile::Bbx) {
        assert!(
            lines.iter().any(|l| l.contains(&format!("{k} {what}"))),
            "{k}: {}",
            text(&lines)
        );
    }
    for phrase in [
        "Score: 1 per hit or reflection, 2 per exit pair, 5 per misplaced atom,",
        "(Tatham's rule)",
        "Undone rays stay paid",
        "Box: O your atom, : marked empty",
    ] {
        assert!(on_one_line(&lines, phrase), "{phrase}: {}", text(&lines));
    }
    assert!(on_one_line(&lines, "any other key closes the help"));
    keys(&mut app, "Esc");

    // The verdict of a losing guess: both boards, the explanation, the
    // review, the legend, the cursor, the message and the keys.
    let hidden = app.middle().game().hidden().clone();
    let a = hidden.atoms();
    let wrong = (0..64)
        .filter(|c| !hidden.cells()[*c])
        .map(|c| Molecule::new(8, [a[0], a[1], a[2], c]).unwrap())
        .find(|g| Spectrum::of(g, Rules::Standard) != Spectrum::of(&hidden, Rules::Standard))
        .unwrap();
    place(&mut app, &wrong);
    keys(&mut app, "g");
    let popup = screen(&mut app, w, h);
    assert!(on_one_line(&popup, "e ends the game"), "{}", text(&popup));
    keys(&mut app, "e");
    assert!(app.wait_for_coach(COACH_WAIT));
    let lines = screen(&mut app, w, h);
    let all = text(&lines);
    assert!(all.contains("the hidden molecule"), "{all}");
    assert!(all.contains("your molecule"), "{all}");
    let said = panel(&lines);
    for phrase in [
        "NOT THIS TIME",
        "score ",
        "greedy policy:",
        "on average over A4_B8 (635376 molecules)",
        "O right · x wrong",
        "cursor ray",
        "(the coach helped in this game)",
    ] {
        assert!(said.contains(phrase), "{phrase}: {all}");
    }
    assert!(
        lines.iter().any(|l| l.contains("Not this time: score")),
        "{all}"
    );
    assert!(
        lines[usize::from(h) - 1].trim_end().ends_with("q quit"),
        "{all}"
    );
}

/// At 60×20 the coach still speaks (its lines below the board, the score
/// in the board's frame), and the key line ends between two keys, never in
/// the middle of one.
#[test]
fn a_60_by_20_terminal_keeps_the_coach_and_whole_keys() {
    let mut app = random_game(3);
    keys(&mut app, "Enter c");
    assert!(app.wait_for_coach(COACH_WAIT));
    let lines = screen(&mut app, 60, 20);
    let all = text(&lines);
    assert!(all.contains("molecules fit the rays shot"), "{all}");
    assert!(all.contains("score 1 · atoms 0/4"), "{all}");
    let key_line = lines[19].trim_end();
    let full = bbx::play::words::keys::board(bbx::play::keys::Profile::Bbx);
    assert!(full.starts_with(key_line), "{key_line}");
    let next = &full[key_line.len()..];
    assert!(
        next.is_empty() || next.starts_with(" · "),
        "cut in a key: {key_line}"
    );
}

#[test]
fn glitches_found_in_play_at_small_sizes() {
    // The coach's line of certain cells stays in the panel at 80×24.
    let mut app = app_for(Setup {
        start: Start::File(puzzle("seed-pure-thought-a4-b8.txt")),
        seed: Some(1),
        ..Setup::default()
    });
    keys(&mut app, "x");
    assert!(app.wait_for_coach(COACH_WAIT));
    let said = panel(&screen(&mut app, 80, 24));
    assert!(
        said.contains("certain: 3 atoms (*), 58 empty cells (.)"),
        "{said}"
    );
    // At 60×20 the help still says how to quit, and the title keeps the seed.
    let mut app = random_game(9_007_199_254_740_991);
    let lines = screen(&mut app, 60, 20);
    assert!(lines[0].contains("seed 9007199254740991"), "{}", lines[0]);
    keys(&mut app, "?");
    let help = text(&screen(&mut app, 60, 20));
    assert!(help.contains("quit"), "{help}");
    keys(&mut app, "Esc");
    // The panel says what bbx solve counts: border marks known.
    goto_position(&mut app, 1);
    let hidden = app.middle().game().spectrum().clone();
    let q = (1..=32)
        .find(|&q| matches!(hidden.get(q), Outcome::Exit(_)))
        .unwrap();
    goto_position(&mut app, q);
    keys(&mut app, "Enter");
    let said = panel(&screen(&mut app, 100, 30));
    assert!(said.contains("rays shot 1"), "{said}");
    assert!(said.contains("2 of 32 border marks known"), "{said}");
}

#[test]
fn smaller_things_found_in_play() {
    // "1 atom is hidden", not "1 atoms are".
    let mut one = app_for(Setup {
        start: Start::Random {
            config: "A1_B4".parse().unwrap(),
            unique: false,
        },
        seed: Some(1),
        ..Setup::default()
    });
    assert!(
        one.middle()
            .message()
            .unwrap()
            .0
            .starts_with("1 atom is hidden")
    );
    for q in 1..=16 {
        goto_position(&mut one, q);
        keys(&mut one, "Enter");
    }
    keys(&mut one, "x");
    assert!(one.wait_for_coach(COACH_WAIT));
    let said = panel(&screen(&mut one, 80, 24));
    assert!(
        said.contains("certain: 1 atom (*), 15 empty cells (.)"),
        "{said}"
    );

    // Emacs notation says once that letters replace digits past nine pairs.
    let setup = Setup {
        start: Start::Random {
            config: "A1_B10".parse().unwrap(),
            unique: false,
        },
        seed: Some(2),
        ..Setup::default()
    };
    let options = Options {
        notation: Notation::Emacs,
        ..Options::default()
    };
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        options,
    );
    let mut told = 0;
    for q in 1..=40 {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
        if app
            .middle()
            .message()
            .is_some_and(|(m, _)| m.contains("letters from now on"))
        {
            told += 1;
            assert_eq!(
                app.middle().game().pair_order().len(),
                10,
                "at the tenth pair"
            );
        }
    }
    assert!(app.middle().game().pair_order().len() > 10);
    assert_eq!(told, 1, "said once");

    // After the verdict the cursor panel no longer offers to remove an atom.
    let mut app = won_game("A2_B4", 3, &[]);
    let cell = app.middle().game().hidden().atoms()[0];
    goto_cell(&mut app, cell);
    let said = panel(&screen(&mut app, 80, 24));
    assert!(said.contains("your atom"), "{said}");
    assert!(!said.contains("Enter removes it"), "{said}");

    // The title keeps the seed when the file name is long.
    let dir = scratch("title");
    let long = dir.join(format!("{}.txt", "a-very-long-puzzle-name".repeat(4)));
    std::fs::copy(puzzle("seed-pure-thought-a4-b8.txt"), &long).unwrap();
    let mut app = app_for(Setup {
        start: Start::File(long.to_string_lossy().into_owned()),
        seed: Some(1),
        ..Setup::default()
    });
    let top = screen(&mut app, 80, 24)[0].clone();
    assert!(
        top.contains('…') && top.contains("answers (seed 1)"),
        "{top}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // After n, the exit lines report every game of the session.
    let mut app = won_game("A2_B4", 4, &[1]);
    keys(&mut app, "n");
    assert!(!app.middle().game().is_over());
    keys(&mut app, "q y");
    let summary = app.middle().summary();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines.len(), 2, "{summary}");
    assert!(lines[0].contains("seed 4: won"), "{summary}");
    assert!(lines[1].ends_with("unfinished, not saved."), "{summary}");
}

/// The screen a doc shows below its line `header` (in a ```text block),
/// its lines' ends trimmed, and its size.
fn doc_screen(file: &str, header: &str) -> (Vec<String>, u16, u16) {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the doc");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(header))
        .unwrap_or_else(|| panic!("{file} shows a screen under {header:?}"));
    let end = lines[at..]
        .iter()
        .position(|l| l.starts_with("```"))
        .map(|n| at + n)
        .expect("the block ends");
    let shown: Vec<String> = lines[at..end]
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    let w = shown.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16;
    // The header line ends with "? help" at the terminal's right edge.
    (shown.clone(), w, shown.len() as u16)
}

/// Checks that `file` shows `drawn` under `header`; with the environment
/// variable `BBX_UPDATE_DOCS` set, writes it there instead (after a change
/// to what the game draws: review the diff).
fn same_screen(file: &str, header: &str, drawn: &[String]) {
    let (shown, _, _) = doc_screen(file, header);
    if shown == drawn {
        return;
    }
    if std::env::var_os("BBX_UPDATE_DOCS").is_some() {
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("the doc");
        let new = text.replacen(&shown.join("\n"), &drawn.join("\n"), 1);
        std::fs::write(&path, new).expect("the doc is written");
        return;
    }
    assert_eq!(
        text(drawn),
        text(&shown),
        "{file}: the game draws\n{}",
        text(drawn)
    );
}

/// The screens README.md and the guide show are what the game draws after
/// the moves they describe: they cannot go stale.
#[test]
fn the_screens_of_the_docs_are_what_the_game_draws() {
    let nine_rays = |app: &mut Session| {
        for q in 1..=8 {
            goto_position(app, q);
            keys(app, "Enter");
        }
        keys(app, "c x b");
        assert!(app.wait_for_coach(COACH_WAIT));
        goto_position(app, 26);
        keys(app, "Enter");
        goto_cell(app, 9);
        keys(app, "Enter");
        assert!(app.wait_for_coach(COACH_WAIT));
    };
    let header42 = " bbx play · A4_B8, standard rules, seed 42";
    for file in ["README.md", "docs/guide.md"] {
        let (shown, w, h) = doc_screen(file, header42);
        let mut app = random_game(42);
        nine_rays(&mut app);
        let drawn: Vec<String> = screen(&mut app, w, h)
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect();
        let _ = shown;
        same_screen(file, header42, &drawn);
    }
    // J. Forget's pure-thought game, won with another of its answers.
    let header = " bbx play · seed-pure-thought-a4-b8.txt";
    let (shown, w, h) = doc_screen("docs/guide.md", header);
    let mut app = app_for(Setup {
        start: Start::File(puzzle("seed-pure-thought-a4-b8.txt")),
        seed: Some(1),
        ..Setup::default()
    });
    let guess = Molecule::new(8, [31, 45, 47, 59]).unwrap();
    place(&mut app, &guess);
    keys(&mut app, "g");
    assert!(app.wait_for_coach(COACH_WAIT));
    goto_position(&mut app, 20);
    let drawn: Vec<String> = screen(&mut app, w, h)
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    let _ = shown;
    same_screen("docs/guide.md", header, &drawn);
}
