//! Helpers for the tests of `bbx play` on ratatui's `TestBackend` (the
//! `play_*` modules): starting a game, pressing keys, drawing the screen and
//! reading its board and panel, moving the cursor, placing a guess, saving,
//! playing a game to its verdict, and running the binary.

use std::time::Duration;

use bbx::Molecule;
use bbx::control::Budget;
use bbx::play::middle::{Mode, Options};
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Start, start};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// How long a test waits for the coach (or the review) to answer.
pub const COACH_WAIT: Duration = Duration::from_secs(30);

/// A game started from `setup`, with the default options.
pub fn app_for(setup: Setup) -> Session {
    let started = start(&setup, &Budget::default()).expect("the game starts");
    Session::new(setup, started, Options::default())
}

/// A random game of the default configuration (A4_B8) from `seed`.
pub fn random_game(seed: u64) -> Session {
    app_for(Setup {
        seed: Some(seed),
        ..Setup::default()
    })
}

/// Presses keys: whitespace-separated tokens, each a key name (`Enter`,
/// `Space`, `Esc`, `Backspace`, `Up`, `Down`, `Left`, `Right`, `Tab`, `Home`,
/// `End`, `Ctrl` and a letter: `CtrlC`) or a run of characters pressed one by
/// one.
pub fn keys(app: &mut Session, script: &str) {
    for token in script.split_whitespace() {
        let named = match token {
            "Enter" => Some(KeyCode::Enter),
            "Space" => Some(KeyCode::Char(' ')),
            "Esc" => Some(KeyCode::Esc),
            "Backspace" => Some(KeyCode::Backspace),
            "Up" => Some(KeyCode::Up),
            "Down" => Some(KeyCode::Down),
            "Left" => Some(KeyCode::Left),
            "Right" => Some(KeyCode::Right),
            "Tab" => Some(KeyCode::Tab),
            "Home" => Some(KeyCode::Home),
            "End" => Some(KeyCode::End),
            _ => None,
        };
        match (named, token) {
            (Some(code), _) => app.handle_key(KeyEvent::new(code, KeyModifiers::NONE)),
            (None, ctrl) if ctrl.len() == 5 && ctrl.starts_with("Ctrl") => {
                let c = ctrl[4..].to_ascii_lowercase().chars().next().unwrap();
                app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
            }
            (None, chars) => {
                for c in chars.chars() {
                    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
                }
            }
        }
    }
}

/// Types text into a prompt, replacing what it holds.
pub fn type_text(app: &mut Session, text: &str) {
    for _ in 0..200 {
        keys(app, "Backspace");
    }
    for c in text.chars() {
        app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

/// Draws the app on a `w`×`h` test terminal and returns its lines.
pub fn screen(app: &mut Session, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    t.draw(|f| bbx::play::draw(app.middle().scene(), f))
        .expect("draws");
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The lines of the screen as one text.
pub fn text(lines: &[String]) -> String {
    lines.join("\n")
}

/// The words of the screen as one line, for phrases that wrap.
pub fn words(lines: &[String]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of the side panel (the rightmost frame) as one line of words.
pub fn panel(lines: &[String]) -> String {
    let top = lines.iter().position(|l| l.contains('┌')).expect("a frame");
    let row: Vec<char> = lines[top].chars().collect();
    let left = row.iter().rposition(|&c| c == '┌').unwrap();
    let right = row.iter().rposition(|&c| c == '┐').unwrap();
    let mut parts = Vec::new();
    for l in &lines[top + 1..] {
        let chars: Vec<char> = l.chars().collect();
        if chars.get(left) == Some(&'└') {
            break;
        }
        let inner: String = chars[left + 1..right.min(chars.len())].iter().collect();
        parts.push(inner);
    }
    words(&parts)
}

/// The board as drawn: the lines of the box's frame, from its top marks to
/// its bottom marks, with the frame's borders and padding cut off.
pub fn board(lines: &[String], p: usize) -> Vec<String> {
    let top = lines
        .iter()
        .position(|l| l.contains("┌ the box") || l.contains("┌ the hidden molecule"))
        .expect("the board's frame");
    lines[top + 1..top + 3 + p]
        .iter()
        .map(|l| l.chars().skip(2).take(2 * p + 4).collect())
        .collect()
}

/// Moves the cursor to padded row `r`, column `c` with the arrow keys, going
/// through the box (the corners are not on the cursor's way).
pub fn goto(app: &mut Session, r: usize, c: usize) {
    let p = app.middle().game().width();
    let (mut row, mut col) = app.middle().cursor().row_col();
    let mut press = |k: &str| keys(app, k);
    // Into the box first.
    if col == 0 {
        press("Right");
        col = 1;
    } else if col == p + 1 {
        press("Left");
        col = p;
    } else if row == 0 {
        press("Down");
        row = 1;
    } else if row == p + 1 {
        press("Up");
        row = p;
    }
    let (ir, ic) = (r.clamp(1, p), c.clamp(1, p));
    while row < ir {
        press("Down");
        row += 1;
    }
    while row > ir {
        press("Up");
        row -= 1;
    }
    while col < ic {
        press("Right");
        col += 1;
    }
    while col > ic {
        press("Left");
        col -= 1;
    }
    // Out to the border if the target is there.
    if r == 0 {
        press("Up");
    } else if r == p + 1 {
        press("Down");
    } else if c == 0 {
        press("Left");
    } else if c == p + 1 {
        press("Right");
    }
    assert_eq!(
        app.middle().cursor().row_col(),
        (r, c),
        "the cursor reached ({r},{c})"
    );
}

/// Moves the cursor to the border position `pos` (see [`goto`]).
pub fn goto_position(app: &mut Session, pos: usize) {
    let p = app.middle().game().width();
    let q = bbx::rules::board::port(p, pos);
    goto(app, q.row, q.col);
}

/// Moves the cursor to the cell `cell` of the box (see [`goto`]).
pub fn goto_cell(app: &mut Session, cell: usize) {
    let p = app.middle().game().width();
    goto(app, cell / p + 1, cell % p + 1);
}

/// Places the guess `m` (removing any other atoms) with the keyboard.
pub fn place(app: &mut Session, m: &Molecule) {
    let p = app.middle().game().width();
    for (i, want) in m.cells().into_iter().enumerate().take(p * p) {
        if app.middle().game().is_guessed(i) != want {
            goto_cell(app, i);
            keys(app, "Enter");
        }
    }
}

/// Runs the binary: its standard output, standard error and exit status.
pub fn bbx(args: &[&str]) -> (String, String, i32) {
    let out = crate::common::bbx()
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Saves the game to `path` through the save prompt, which must succeed.
pub fn save(app: &mut Session, path: &str) {
    keys(app, "s");
    assert!(matches!(app.middle().mode(), Mode::SavePrompt { .. }));
    type_text(app, path);
    keys(app, "Enter");
    assert_eq!(
        app.middle().mode(),
        &Mode::Board,
        "{:?}",
        app.middle().message()
    );
    assert_eq!(
        app.middle().saved_to(),
        Some(path),
        "{:?}",
        app.middle().message()
    );
}

/// Plays a game of `config` (seed `seed`) by shooting `rays` in order and
/// then placing the hidden molecule; returns the app after the verdict.
pub fn won_game(config: &str, seed: u64, rays: &[usize]) -> Session {
    let mut app = app_for(Setup {
        start: Start::Random {
            config: config.parse().unwrap(),
            unique: false,
        },
        seed: Some(seed),
        ..Setup::default()
    });
    for &q in rays {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    let hidden = app.middle().game().hidden().clone();
    place(&mut app, &hidden);
    keys(&mut app, "g");
    assert!(app.middle().game().verdict().is_some_and(|v| v.won));
    app
}
