//! Saving and resuming `bbx play` (on ratatui's `TestBackend`): a saved game
//! resumes the same (hidden molecule, rays, atoms, marks, undo, the rays paid,
//! the verdict) and `bbx solve` reads its file; asking before replacing a
//! file, failures reported, damaged resume lines refused, and `n` in a resumed
//! game.

use bbx::control::Budget;
use bbx::play::middle::Mode;
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Source, Start, start};
use serde_json::Value;

use crate::common::play::{
    app_for, bbx, goto_cell, goto_position, keys, place, random_game, save, screen, text, type_text,
};
use crate::common::temp_dir as scratch;

#[test]
fn save_then_resume() {
    let dir = scratch("save");
    let mut app = random_game(99);
    let hidden = app.middle().game().hidden().clone();
    for q in [1, 5, 9, 14, 20, 27] {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    goto_cell(&mut app, 10);
    keys(&mut app, "Enter");
    goto_cell(&mut app, 45);
    keys(&mut app, "Enter");
    let file = dir.join("game.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let saved = std::fs::read_to_string(file).unwrap();
    assert!(
        !saved.contains(&hidden.to_string()),
        "the molecule is not shown"
    );
    assert!(saved.contains("# bbx-resume: "));

    // bbx solve reads the file and ignores the hidden molecule: the same
    // answer as without the resume line.
    let stripped = dir.join("stripped.txt");
    std::fs::write(
        &stripped,
        saved
            .lines()
            .filter(|l| !l.contains("bbx-resume"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let (with, err, code) = bbx(&["solve", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let (without, _, _) = bbx(&["solve", stripped.to_str().unwrap(), "--json"]);
    let (with, without): (Value, Value) = (
        serde_json::from_str(&with).unwrap(),
        serde_json::from_str(&without).unwrap(),
    );
    assert_eq!(with["found"], without["found"]);
    assert_eq!(with["guess"]["molecule"], without["guess"]["molecule"]);
    assert!(
        with["found"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["molecule"].as_str() == Some(&hidden.to_string()))
    );

    // Resumed: the same hidden molecule, rays (with their letters), atoms and score.
    let resumed = app_for(Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    });
    assert_eq!(resumed.middle().game().hidden(), &hidden);
    assert_eq!(
        resumed.middle().game().observation(),
        app.middle().game().observation()
    );
    assert_eq!(resumed.middle().game().marks(), app.middle().game().marks());
    assert_eq!(
        resumed.middle().game().ray_score(),
        app.middle().game().ray_score()
    );
    assert_eq!(resumed.middle().game().guess(), app.middle().game().guess());
    assert!(matches!(
        resumed.middle().started().source,
        Source::Saved { .. }
    ));
    let mut resumed = resumed;
    let shown = text(&screen(&mut resumed, 100, 30));
    assert!(shown.contains("saved A4_B8 game"), "{shown}");

    // Finish both the same way: the same verdict. Saving again goes to the same
    // file without asking.
    let finish = |a: &mut Session| {
        place(a, &hidden);
        keys(a, "g");
        a.middle().game().verdict().unwrap().clone()
    };
    let v1 = finish(&mut app);
    let v2 = finish(&mut resumed);
    assert_eq!(v1, v2);
    assert!(v1.won && v1.exact);
    keys(&mut resumed, "s Enter");
    assert_eq!(resumed.middle().mode(), &Mode::Board);
    let finished = start(
        &Setup {
            start: Start::File(file.to_string()),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    assert_eq!(
        finished.game.verdict(),
        Some(&v1),
        "a finished game resumes finished"
    );

    // Two resume lines: bbx cannot tell which game the file is, and says so
    // rather than taking the first.
    let mut twice: Vec<&str> = saved.lines().collect();
    let line = twice.iter().position(|l| l.contains("bbx-resume")).unwrap();
    twice.push("# bbx-resume: damaged");
    let twice_file = dir.join("twice.txt");
    std::fs::write(&twice_file, twice.join("\n")).unwrap();
    let Err(e) = start(
        &Setup {
            start: Start::File(twice_file.to_string_lossy().into_owned()),
            ..Setup::default()
        },
        &Budget::default(),
    ) else {
        panic!("two resume lines must be refused");
    };
    let e = e.to_string();
    assert!(
        e.contains("a second '# bbx-resume:' line")
            && e.contains(&format!("the first is line {}", line + 1)),
        "{e}"
    );

    // A board edited after saving is refused with advice.
    let edited = saved.replacen(" - ", " O ", 1);
    let bad = dir.join("edited.txt");
    std::fs::write(&bad, edited.replace("\n @", "\n &")).unwrap();
    if let Err(e) = start(
        &Setup {
            start: Start::File(bad.to_string_lossy().into_owned()),
            ..Setup::default()
        },
        &Budget::default(),
    ) {
        let e = e.to_string();
        assert!(
            e.contains("remove the bbx-resume line") || e.contains("expected"),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn saving_asks_before_replacing_a_file_and_reports_failures() {
    let dir = scratch("replace");
    let mut app = random_game(5);
    keys(&mut app, "Enter");
    let file = dir.join("exists.txt");
    std::fs::write(&file, "keep me").unwrap();
    keys(&mut app, "s");
    type_text(&mut app, file.to_str().unwrap());
    keys(&mut app, "Enter");
    assert!(matches!(app.middle().mode(), Mode::ConfirmOverwrite { .. }));
    keys(&mut app, "n Esc");
    assert_eq!(app.middle().mode(), &Mode::Board);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    keys(&mut app, "s");
    type_text(&mut app, dir.join("no/such/dir.txt").to_str().unwrap());
    keys(&mut app, "Enter");
    let (m, _) = app.middle().message().unwrap();
    assert!(m.starts_with("Cannot save to"), "{m}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_save_keeps_marks_undo_and_the_rays_paid() {
    let dir = scratch("tools");
    let mut app = random_game(40);
    let spectrum = app.middle().game().spectrum().clone();
    goto_position(&mut app, 3);
    keys(&mut app, "Enter");
    goto_cell(&mut app, 20);
    keys(&mut app, "m");
    goto_position(&mut app, 14); // bottom, column 6
    keys(&mut app, "m");
    goto_position(&mut app, 11);
    keys(&mut app, "Enter u"); // shot, then undone: still paid
    let score = app.middle().game().ray_score();
    let file = dir.join("with tools.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let m = app.middle().message().unwrap().0.to_string();
    assert!(
        m.contains(&format!("'bbx play \"{file}\"' resumes")),
        "a name with a space is quoted: {m}"
    );
    let mut resumed = app_for(Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    });
    let g = resumed.middle().game();
    assert_eq!(g.ray_score(), score, "the undone ray is still paid");
    assert_eq!(g.observation(), app.middle().game().observation());
    assert!(g.is_marked_empty(20));
    assert!((0..8).all(|r| g.is_marked_empty(8 * r + 5)));
    assert_eq!(g.history(), app.middle().game().history());
    assert_eq!(g.shots(), app.middle().game().shots());
    // Redo after resuming: the undone ray comes back, for free.
    assert_eq!(resumed.middle().game().observation().get(11), None);
    keys(&mut resumed, "U");
    assert_eq!(
        resumed.middle().game().observation().get(11),
        Some(spectrum.get(11))
    );
    assert_eq!(resumed.middle().game().ray_score(), score);
    // bbx solve reads the file as before: the marks are the player's notes.
    let (_, err, code) = bbx(&["solve", file]);
    assert_eq!(code, 0, "{err}");
    // A resigned game resumes resigned.
    keys(&mut resumed, "r y");
    keys(&mut resumed, "s Enter");
    let finished = start(
        &Setup {
            start: Start::File(file.to_string()),
            ..Setup::default()
        },
        &Budget::default(),
    )
    .unwrap();
    assert!(finished.game.verdict().is_some_and(|v| v.resigned));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn n_in_a_resumed_game_starts_a_new_one() {
    let dir = scratch("resume-n");
    let mut app = random_game(17);
    let file = dir.join("g.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let mut resumed = app_for(Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    });
    let hidden = resumed.middle().game().hidden().clone();
    place(&mut resumed, &hidden);
    keys(&mut resumed, "g");
    assert!(resumed.middle().game().is_over());
    keys(&mut resumed, "n");
    assert!(
        !resumed.middle().game().is_over(),
        "{:?}",
        resumed.middle().message()
    );
    assert!(matches!(
        resumed.middle().started().source,
        Source::Random { .. }
    ));
    assert_eq!(resumed.middle().game().range().to_string(), "A4_B8");
}
