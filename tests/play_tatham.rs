//! Simon Tatham's Black Box in `bbx play` (on ratatui's `TestBackend`):
//! ranges of atom counts hidden until the end, his presets playing his game of
//! the seed, his game IDs and save files written and read back, `bbx solve` on
//! his save file with a partial guess, and his players' habits (Space and the
//! right click lock, Emacs's keys, counts).

use bbx::play::session::Session;
use bbx::play::setup::{Setup, Start};
use bbx::{Molecule, Outcome, Rules};
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use serde_json::Value;

use crate::common::play::{
    COACH_WAIT, app_for, bbx, goto, goto_cell, goto_position, keys, panel, place, random_game,
    save, screen, text, words,
};
use crate::common::temp_dir as scratch;

fn range_game(config: &str, seed: u64) -> Session {
    app_for(Setup {
        start: Start::Random {
            config: config.parse().unwrap(),
            unique: false,
        },
        seed: Some(seed),
        ..Setup::default()
    })
}

#[test]
fn a_range_hides_its_count_until_the_end() {
    let mut app = range_game("A3-6_B8", 5);
    let n = app.middle().game().atoms();
    assert!((3..=6).contains(&n));
    assert!(
        app.middle()
            .message()
            .unwrap()
            .0
            .starts_with("3 to 6 atoms are hidden."),
        "{:?}",
        app.middle().message()
    );
    let lines = screen(&mut app, 100, 30);
    assert!(
        lines[0].contains("A3-6_B8, standard rules, seed 5"),
        "{}",
        lines[0]
    );
    assert!(
        panel(&lines).contains("atoms 0 placed, 3 to 6 hidden"),
        "{}",
        panel(&lines)
    );
    keys(&mut app, "?");
    assert!(words(&screen(&mut app, 100, 30)).contains("3 to 6 atoms are hidden in the 8×8 box"));
    keys(&mut app, "Esc");
    // Two atoms: fewer than may be hidden, refused with the range.
    goto_cell(&mut app, 0);
    keys(&mut app, "Enter Right Enter g");
    let said = app.middle().message().unwrap().0.to_string();
    assert!(said.contains("place 3 to 6 atoms"), "{said}");
    assert!(!app.middle().game().is_over());
    keys(&mut app, "Left Enter Right Enter");
    // The coach counts over every count of the range.
    keys(&mut app, "c");
    assert!(app.wait_for_coach(COACH_WAIT));
    let answer = app
        .middle()
        .coach()
        .latest(app.middle().game().observation())
        .unwrap();
    assert_eq!(
        (*answer.question.atoms.start(), *answer.question.atoms.end()),
        (3, 6)
    );
    // A save names the range, not the count, and resumes with it.
    let dir = scratch("range");
    let file = dir.join("range.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let saved = std::fs::read_to_string(file).unwrap();
    assert!(
        saved.contains("There are 3 to 6 balls in the box"),
        "{saved}"
    );
    assert!(saved.contains("a saved game of A3-6_B8"), "{saved}");
    let (out, _, code) = bbx(&["solve", file, "--json", "--max", "1"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["atoms_min"].as_u64(), v["atoms_max"].as_u64()),
        (Some(3), Some(6))
    );
    let resumed = app_for(Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    });
    assert_eq!(resumed.middle().game().counts(), 3..=6);
    assert_eq!(
        resumed.middle().game().hidden(),
        app.middle().game().hidden()
    );
    assert!(
        resumed.middle().coach_used(),
        "the coach's help is remembered"
    );
    // The hidden molecule wins, and the count is told at the end.
    let hidden = app.middle().game().hidden().clone();
    place(&mut app, &hidden);
    keys(&mut app, "g");
    assert!(
        app.middle()
            .game()
            .verdict()
            .is_some_and(|v| v.won && v.exact)
    );
    let said = words(&screen(&mut app, 120, 40));
    assert!(said.contains("(the coach helped in this game)"), "{said}");
}

#[test]
fn tathams_presets_and_parameters_play_his_game_of_the_seed() {
    use bbx::puzzle::{TathamParams, balls_from_seed, parse_tatham};
    let params = TathamParams::preset("8x8, 3-6 balls").unwrap();
    let mut app = app_for(Setup {
        start: Start::Tatham(params),
        seed: Some(42),
        ..Setup::default()
    });
    let mut want: Vec<usize> = balls_from_seed(&params, "42")
        .unwrap()
        .into_iter()
        .map(|(x, y)| y * 8 + x)
        .collect();
    want.sort_unstable();
    assert_eq!(app.middle().game().hidden().atoms(), &want[..]);
    assert_eq!(app.middle().game().counts(), 3..=6);
    let title = &screen(&mut app, 120, 30)[0];
    assert!(
        title.contains("Tatham's 8x8, 3-6 balls, seed 42 (game ID w8h8m3M6#42)"),
        "{title}"
    );
    // After the game, his game ID of the molecule: his program opens it.
    let hidden = app.middle().game().hidden().clone();
    place(&mut app, &hidden);
    keys(&mut app, "g");
    let said = words(&screen(&mut app, 120, 40));
    let id = said
        .split("Tatham's game ID: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(id.starts_with("w8h8m3M6:"), "{id}");
    assert_eq!(parse_tatham(id, "id").unwrap().hidden, hidden);
    // n: another game of his, from another seed.
    keys(&mut app, "n");
    assert!(!app.middle().game().is_over());
    let title = &screen(&mut app, 120, 30)[0];
    assert!(title.contains("Tatham's 8x8, 3-6 balls, seed"), "{title}");
    assert!(!title.contains("seed 42 "), "{title}");
}

#[test]
fn a_game_goes_back_to_tatham_in_a_save_file() {
    use bbx::puzzle::{parse_tatham, position_to_tatham};
    let dir = scratch("tatham-save");
    let mut app = random_game(31);
    for q in [1, 4, 9, 20, 27] {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    goto_cell(&mut app, 9);
    keys(&mut app, "Enter");
    goto_cell(&mut app, 63);
    keys(&mut app, "Space");
    let file = dir.join("game.sav");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let said = app.middle().message().unwrap().0.to_string();
    assert!(said.contains("a save file of Tatham's Black Box"), "{said}");
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.starts_with("SAVEFILE:41:Simon Tatham's Portable Puzzle Collection\n"));
    let t = parse_tatham(&text, "game.sav").unwrap();
    let g = app.middle().game();
    assert_eq!(&t.hidden, g.hidden());
    assert_eq!(t.fired, g.shots());
    assert_eq!(t.guess, [9]);
    assert_eq!(t.locked, [63]);
    assert_eq!(&t.observation(), g.observation());
    let first = format!("F{}", position_to_tatham(8, 1));
    assert!(
        text.contains(&format!("MOVE    :{}:{first}\n", first.len())),
        "{text}"
    );
    // bbx resumes it, as any of Tatham's save files.
    let resumed = app_for(Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    });
    assert_eq!(resumed.middle().game().observation(), g.observation());
}

#[test]
fn solve_says_a_partial_guess_is_incomplete() {
    use bbx::puzzle::{TathamMove, TathamParams, save_file};
    let dir = scratch("partial");
    let params = TathamParams::parse("w10h10m5M5").unwrap();
    let hidden = Molecule::new(10, [12, 27, 45, 71, 88]).unwrap();
    // Lasers fired, each unless an earlier one came out there.
    let mut tracer = bbx::Tracer::new(10, Rules::Standard);
    tracer.load(&hidden);
    let mut lit = [false; 40];
    let mut moves = Vec::new();
    for n in (0..40).step_by(3) {
        if lit[n] {
            continue;
        }
        lit[n] = true;
        let pos = bbx::puzzle::tatham_to_position(10, n);
        if let Outcome::Exit(k) = tracer.trace(pos).outcome {
            lit[bbx::puzzle::position_to_tatham(10, k)] = true;
        }
        moves.push(TathamMove::Fire(n));
    }
    // Three of the five balls, right.
    for cell in [12, 27, 45] {
        moves.push(TathamMove::Toggle(cell % 10 + 1, cell / 10 + 1));
    }
    let file = dir.join("partial.sav");
    std::fs::write(&file, save_file(&params, &hidden, &moves, 0).unwrap()).unwrap();
    let (out, err, code) = bbx(&["solve", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("incomplete: 3 atoms placed where 5 are hidden;"),
        "{out}"
    );
    assert!(!out.contains("does not fit"), "{out}");
}

#[test]
fn tatham_players_find_their_habits() {
    let mut app = random_game(7);
    // Space, as Tatham's, locks: the cell is marked empty, no atom placed.
    goto_cell(&mut app, 9);
    keys(&mut app, "Space");
    assert!(app.middle().game().is_marked_empty(9));
    assert_eq!(app.middle().game().placed(), 0);
    // On the border, the row or column.
    goto(&mut app, 3, 0);
    keys(&mut app, "Space");
    assert!((16..24).all(|i| app.middle().game().is_marked_empty(i)));
    // A right click locks too.
    let lines = screen(&mut app, 100, 30);
    let top = lines.iter().position(|l| l.contains("┌ the box")).unwrap() as u16;
    let area = ratatui::layout::Rect::new(0, 0, 100, 30);
    app.handle_mouse(
        MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Right),
            column: 2 + 2 * 6 + 1,
            row: top + 1 + 6,
            modifiers: KeyModifiers::NONE,
        },
        area,
    );
    assert!(
        app.middle().game().is_marked_empty(5 * 8 + 5),
        "row 6, column 6"
    );
    // Emacs's keys move.
    goto(&mut app, 1, 1);
    keys(&mut app, "CtrlF");
    assert_eq!(app.middle().cursor().row_col(), (1, 2));
    keys(&mut app, "CtrlN");
    assert_eq!(app.middle().cursor().row_col(), (2, 2));
    keys(&mut app, "CtrlB CtrlP");
    assert_eq!(app.middle().cursor().row_col(), (1, 1));
    // A count typed and used no longer stands in the message line.
    keys(&mut app, "3");
    assert_eq!(app.middle().message().unwrap().0, "count 3");
    keys(&mut app, "j");
    assert_eq!(app.middle().cursor().row_col(), (4, 1));
    let lines = screen(&mut app, 100, 30);
    assert!(!text(&lines).contains("count 3"), "{}", text(&lines));
}
