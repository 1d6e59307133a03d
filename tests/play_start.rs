//! Starting and ending `bbx play` (on ratatui's `TestBackend`): the seeds of
//! games drawn without one, quitting (asked while the game is unfinished,
//! Ctrl-C at once), a puzzle that does not give its count of atoms, and the
//! command's refusals of bad input in one line.

use bbx::control::Budget;
use bbx::play::middle::Mode;
use bbx::play::setup::{Setup, Source, Start, start};

use crate::common::play::{app_for, bbx, keys, random_game, screen, text};
use crate::common::{puzzle, temp_dir as scratch};

#[test]
fn games_drawn_without_a_seed_have_seeds_of_53_bits() {
    // The seed a game prints (and names its save file after) fits in 53
    // bits, like every seed bbx prints, and replays the game.
    for _ in 0..8 {
        let started = start(&Setup::default(), &Budget::default()).expect("the game starts");
        let Source::Random { seed, .. } = started.source else {
            panic!("a random game")
        };
        assert!(seed < 1 << 53, "seed {seed} is past 2^53 - 1");
        let again = start(
            &Setup {
                seed: Some(seed),
                ..Setup::default()
            },
            &Budget::default(),
        )
        .expect("the game starts");
        assert_eq!(again.game.hidden(), started.game.hidden());
    }
}

#[test]
fn quitting_asks_while_the_game_is_unfinished() {
    let mut app = random_game(8);
    keys(&mut app, "q");
    assert_eq!(app.middle().mode(), &Mode::ConfirmQuit);
    let shown = text(&screen(&mut app, 100, 30));
    assert!(shown.contains("The game is not finished. Quit?"), "{shown}");
    keys(&mut app, "n");
    assert!(!app.should_quit());
    assert_eq!(app.middle().mode(), &Mode::Board);
    keys(&mut app, "q y");
    assert!(app.should_quit());
    assert!(app.middle().summary().ends_with("unfinished, not saved."));
    let mut app = random_game(8);
    keys(&mut app, "CtrlC");
    assert!(app.should_quit(), "Ctrl-C quits at once");
}

#[test]
fn a_puzzle_that_does_not_give_the_count() {
    let dir = scratch("count");
    let f = dir.join("bare.txt");
    std::fs::write(
        &f,
        "   @ & @ &\n @ - - - - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n",
    )
    .unwrap();
    let path = f.to_str().unwrap();
    let (_, err, code) = bbx(&["play", path]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--atoms N") && err.lines().count() == 1,
        "{err}"
    );
    let mut app = app_for(Setup {
        start: Start::File(path.to_string()),
        atoms: Some(2),
        seed: Some(1),
        ..Setup::default()
    });
    assert_eq!(app.middle().game().hidden().to_string(), "O-O-------------");
    keys(&mut app, "l Enter Right Right Enter g");
    assert!(app.middle().game().verdict().unwrap().won);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_refuses_bad_input_in_one_line() {
    for (args, says) in [
        (vec!["play", "A4_B"], "invalid configuration 'A4_B'"),
        (vec!["play", "nothing-here.txt"], "neither a configuration"),
        (
            vec!["play", env!("CARGO_MANIFEST_DIR")],
            "is a directory, not a puzzle or saved game file",
        ),
        (vec!["play", "/dev/zero"], "more than 16 MiB"),
        (
            vec!["play", "A4_B8", "--timeout", "-1"],
            "expected a time: a number of seconds",
        ),
        (
            vec!["play", "A4_B8", "--max", "0"],
            "expected a number of molecules: a whole number, at least 1",
        ),
        (
            vec!["play", "A4_B8", "--atoms", "3"],
            "--atoms is for puzzle files",
        ),
        (
            vec!["play", "A4_B8", "--format", "display"],
            "--format is for puzzle files",
        ),
        // The format forced, as solve takes it: this display is no linear puzzle.
        (
            vec![
                "play",
                &puzzle("seed-emacs-game-2.txt"),
                "--format",
                "linear",
            ],
            "invalid configuration",
        ),
        // --atoms is read as by solve, but a game hides one molecule.
        (
            vec!["play", &puzzle("seed-emacs-game-2.txt"), "--atoms", "3..5"],
            "give one number of atoms",
        ),
        (
            vec![
                "play",
                &puzzle("seed-emacs-game-2.txt"),
                "--format",
                "display",
                "--atoms",
                "4..4",
            ],
            "bbx play needs a terminal",
        ),
        (
            vec!["play", "A4_B8", "--judge", "lenient"],
            "[possible values: all-rays, rays-shot]",
        ),
        (
            vec!["play", "A0_B8"],
            "a game with no atom has nothing to find",
        ),
        (vec!["play", "A64_B8"], "64 atoms fill the 8×8 box"),
        (
            vec!["play", "A4_B8", "--seed", "x"],
            "invalid value 'x' for '--seed <SEED>'",
        ),
        (
            vec!["play", &puzzle("contradictory-a2-b4.txt")],
            "no molecule of 2 atoms fits",
        ),
        // Not a terminal: refused before the terminal is touched.
        (vec!["play", "A4_B8"], "bbx play needs a terminal"),
    ] {
        let (out, err, code) = bbx(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}
