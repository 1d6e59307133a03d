//! The board of `bbx play` under the keys and the mouse (on ratatui's
//! `TestBackend`): shooting rays, the marks and the score they leave, atoms
//! put and taken back, clicks, the cursor's way round corners and across the
//! box with counts, cells, rows and columns marked empty, undo and redo (an
//! undone ray stays paid).

use bbx::Outcome;
use bbx::play::session::Session;
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use crate::common::play::{
    board, goto, goto_cell, goto_position, keys, panel, random_game, screen, text,
};

#[test]
fn shooting_and_marking() {
    let mut app = random_game(7);
    let p = 8;
    let hidden = app.middle().game().spectrum().clone();
    let first = screen(&mut app, 100, 30);
    assert!(text(&first).contains("cursor  ray 1 (left, row 1)"));
    assert!(text(&first).contains("4 atoms are hidden"));

    // Ray 1, then rays 2 and 3 down the left side.
    keys(&mut app, "Enter j Enter Down Enter");
    for q in 1..=3 {
        assert_eq!(
            app.middle().game().observation().get(q),
            Some(hidden.get(q))
        );
    }
    let lines = screen(&mut app, 100, 30);
    let b = board(&lines, p);
    let marks = app.middle().game().marks();
    for r in 1..=3 {
        let left = b[r].chars().nth(1).unwrap();
        assert_eq!(left, marks[r - 1], "row {r}: {}", b[r]);
    }
    let expected: usize = (1..=3)
        .map(|q| match hidden.get(q) {
            Outcome::Exit(_) => 2,
            _ => 1,
        })
        .sum::<usize>()
        - (1..=3)
            .filter(|&q| matches!(hidden.get(q), Outcome::Exit(k) if k <= 3))
            .count();
    assert_eq!(app.middle().game().ray_score(), expected);
    assert!(text(&lines).contains(&format!("score {expected}")));

    // Shooting a ray again costs nothing.
    keys(&mut app, "Enter");
    assert_eq!(app.middle().game().ray_score(), expected);
    assert!(app.middle().message().unwrap().0.contains("known already"));

    // An atom in the box, put and taken back.
    keys(&mut app, "l Enter");
    assert!(app.middle().game().is_guessed(2 * p));
    let b = board(&screen(&mut app, 100, 30), p);
    assert_eq!(b[3].chars().nth(3), Some('O'), "{}", b[3]);
    keys(&mut app, "Enter");
    assert_eq!(app.middle().game().placed(), 0);

    // The cursor goes round a corner, and across the box outwards.
    goto(&mut app, 1, 0);
    keys(&mut app, "Up");
    assert_eq!(app.middle().cursor().row_col(), (0, 1));
    keys(&mut app, "Up");
    assert_eq!(app.middle().cursor().row_col(), (p + 1, 1));
    goto(&mut app, 1, 0);

    // A mouse click on a cell puts an atom there; one on the border shoots.
    let lines = screen(&mut app, 100, 30);
    let top = lines.iter().position(|l| l.contains("┌ the box")).unwrap() as u16;
    let (x0, y0) = (2u16, top + 1);
    let area = ratatui::layout::Rect::new(0, 0, 100, 30);
    let click = |column, row| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    app.handle_mouse(click(x0 + 2 * 5 + 1, y0 + 4), area); // row 4, column 5
    assert!(app.middle().game().is_guessed(3 * p + 4));
    app.handle_mouse(click(x0 + 2 * 3 + 1, y0), area); // top, column 3: position 30
    assert_eq!(
        app.middle().game().observation().get(30),
        Some(hidden.get(30))
    );
}

#[test]
fn the_cursor_goes_round_corners_across_to_either_end_and_counts() {
    let mut app = random_game(30);
    let p = 8;
    let at = |app: &Session| app.middle().cursor().row_col();
    assert_eq!(at(&app), (1, 0));
    keys(&mut app, "o");
    assert_eq!(at(&app), (1, p + 1), "o: the opposite side");
    keys(&mut app, "Tab");
    assert_eq!(at(&app), (1, 0), "Tab too");
    keys(&mut app, "Left");
    assert_eq!(at(&app), (1, p + 1), "outwards: across the box");
    keys(&mut app, "End");
    assert_eq!(at(&app), (p, p + 1), "End: the far end of the side");
    keys(&mut app, "Down");
    assert_eq!(at(&app), (p + 1, p), "round the corner");
    keys(&mut app, "Home");
    assert_eq!(at(&app), (p + 1, 1));
    keys(&mut app, "CtrlE");
    assert_eq!(at(&app), (p + 1, p), "Ctrl-E as End");
    keys(&mut app, "CtrlA");
    assert_eq!(at(&app), (p + 1, 1), "Ctrl-A as Home");
    // Counts: digits, and Ctrl-U for 4 as in Emacs.
    keys(&mut app, "3k");
    assert_eq!(at(&app), (p - 2, 1));
    keys(&mut app, "CtrlU l");
    assert_eq!(at(&app), (p - 2, 5));
    keys(&mut app, "0 l");
    assert_eq!(at(&app), (p - 2, 6), "a 0 alone starts no count");
    keys(&mut app, "1 0 h");
    assert_eq!(at(&app), (p - 2, 6), "10 left: round the box and back");
    // In the box, Home and End go to the border at the ends of the row.
    keys(&mut app, "h Home");
    assert_eq!(at(&app), (p - 2, 0));
    let help = text(&screen(&mut app, 80, 24));
    assert!(help.contains("? help"), "{help}");
}

#[test]
fn marks_of_empty_cells_rows_and_columns_undo_and_redo() {
    let mut app = random_game(31);
    let p = 8;
    // A cell.
    goto_cell(&mut app, 9);
    keys(&mut app, "m");
    assert!(app.middle().game().is_marked_empty(9));
    let b = board(&screen(&mut app, 80, 24), p);
    assert_eq!(b[2].chars().nth(5), Some(':'), "{b:?}");
    // No atom on a marked cell.
    keys(&mut app, "Enter");
    assert!(!app.middle().game().is_guessed(9));
    assert!(app.middle().message().unwrap().0.contains("marked empty"));
    // A row, from its border position; an atom in it stays.
    goto_cell(&mut app, 3 * p + 2);
    keys(&mut app, "Enter");
    goto_position(&mut app, 4);
    keys(&mut app, "m");
    let row: Vec<bool> = (0..p)
        .map(|c| app.middle().game().is_marked_empty(3 * p + c))
        .collect();
    assert_eq!(row.iter().filter(|&&m| m).count(), p - 1, "{row:?}");
    assert!(!row[2] && app.middle().game().is_guessed(3 * p + 2));
    // A column from the top; m again unmarks it.
    goto_position(&mut app, 4 * p); // top, column 1
    keys(&mut app, "m");
    assert!((0..p).all(|r| app.middle().game().is_marked_empty(p * r)));
    keys(&mut app, "m");
    assert!((0..p).all(|r| !app.middle().game().is_marked_empty(p * r)));
    // Undo: the column marked again, then unmarked; redo.
    keys(&mut app, "u");
    assert!((0..p).all(|r| app.middle().game().is_marked_empty(p * r)));
    keys(&mut app, "u");
    assert!((0..p).all(|r| !app.middle().game().is_marked_empty(p * r) || r == 3));
    keys(&mut app, "U");
    assert!((0..p).all(|r| app.middle().game().is_marked_empty(p * r)));
    keys(&mut app, "CtrlR");
    assert!((0..p).all(|r| !app.middle().game().is_marked_empty(p * r)));
    // Undo the rest with a count: the column twice, the row, the atom and
    // the cell.
    keys(&mut app, "5u");
    assert!(!app.middle().game().is_guessed(3 * p + 2));
    assert!((0..p * p).all(|i| !app.middle().game().is_marked_empty(i)));
    keys(&mut app, "u");
    assert_eq!(app.middle().message().unwrap().0, "Nothing to undo.");
}

#[test]
fn undoing_a_shot_keeps_its_points() {
    let mut app = random_game(32);
    let hidden = app.middle().game().spectrum().clone();
    // A ray that comes out: 2 points.
    let q = (1..=32)
        .find(|&q| matches!(hidden.get(q), Outcome::Exit(k) if k != q))
        .unwrap();
    goto_position(&mut app, q);
    keys(&mut app, "Enter");
    assert_eq!(app.middle().game().ray_score(), 2);
    keys(&mut app, "u");
    assert_eq!(
        app.middle().game().observation().shot_count(),
        0,
        "off the board"
    );
    assert_eq!(app.middle().game().ray_score(), 2, "but paid");
    let m = app.middle().message().unwrap().0.to_string();
    assert!(m.contains("Rays stay paid: score 2"), "{m}");
    let b = board(&screen(&mut app, 80, 24), 8);
    let port = bbx::rules::board::port(8, q);
    assert_eq!(
        b[port.row].chars().nth(1 + 2 * port.col),
        Some(' '),
        "{b:?}"
    );
    keys(&mut app, "U");
    assert_eq!(
        app.middle().game().observation().get(q),
        Some(hidden.get(q))
    );
    assert_eq!(app.middle().game().ray_score(), 2);
    // Shot again after an undo: nothing more to pay.
    keys(&mut app, "u Enter");
    assert_eq!(app.middle().game().ray_score(), 2);
    assert!(app.middle().message().unwrap().0.contains("paid already"));
    // The coach and the referee see only the rays on the board.
    keys(&mut app, "u");
    assert_eq!(app.middle().game().rays_shot(), 0);
    let shown = panel(&screen(&mut app, 80, 24));
    assert!(shown.contains("rays shot 0 score 2"), "{shown}");
}
