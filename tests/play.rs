//! `bbx play` driven through ratatui's `TestBackend` with scripted keys:
//! shooting, marking, the coach (checked against `bbx solve` and `bbx suggest`
//! on the same rays), the referee (a winning guess that is not the hidden
//! molecule, losing guesses and the ray that shows them wrong), saving and
//! resuming, quitting, and the command's errors.

use std::time::Duration;

use bbx::play::coach::CoachLimits;
use bbx::play::middle::{Mode, Options};
use bbx::play::referee::Judge;
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Source, Start, start};
use bbx::rules::notation::Notation;
use bbx::solver::{self, Certainty, Limits};
use bbx::{Molecule, Outcome, Rules, Spectrum};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

use crate::common::{puzzle, temp_dir as scratch};

const COACH_WAIT: Duration = Duration::from_secs(30);

fn app_for(setup: Setup) -> Session {
    let started = start(&setup).expect("the game starts");
    Session::new(setup, started, Options::default())
}

fn random_game(seed: u64) -> Session {
    app_for(Setup {
        seed: Some(seed),
        ..Setup::default()
    })
}

#[test]
fn games_drawn_without_a_seed_have_seeds_of_53_bits() {
    // The seed a game prints (and names its save file after) fits in 53
    // bits, like every seed bbx prints, and replays the game.
    for _ in 0..8 {
        let started = start(&Setup::default()).expect("the game starts");
        let Source::Random { seed, .. } = started.source else {
            panic!("a random game")
        };
        assert!(seed < 1 << 53, "seed {seed} is past 2^53 - 1");
        let again = start(&Setup {
            seed: Some(seed),
            ..Setup::default()
        })
        .expect("the game starts");
        assert_eq!(again.game.hidden(), started.game.hidden());
    }
}

/// Presses keys: whitespace-separated tokens, each a key name (`Enter`,
/// `Space`, `Esc`, `Backspace`, `Up`, `Down`, `Left`, `Right`, `Tab`, `Home`,
/// `End`, `Ctrl` and a letter: `CtrlC`) or a run of characters pressed one by
/// one.
fn keys(app: &mut Session, script: &str) {
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
fn type_text(app: &mut Session, text: &str) {
    for _ in 0..200 {
        keys(app, "Backspace");
    }
    for c in text.chars() {
        app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

/// Draws the app on a `w`×`h` test terminal and returns its lines.
fn screen(app: &mut Session, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    t.draw(|f| bbx::play::draw(app.middle().scene(), f))
        .expect("draws");
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

fn text(lines: &[String]) -> String {
    lines.join("\n")
}

/// The words of the screen as one line, for phrases that wrap.
fn words(lines: &[String]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of the side panel (the rightmost frame) as one line of words.
fn panel(lines: &[String]) -> String {
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
fn board(lines: &[String], p: usize) -> Vec<String> {
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
fn goto(app: &mut Session, r: usize, c: usize) {
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

fn goto_position(app: &mut Session, pos: usize) {
    let p = app.middle().game().width();
    let q = bbx::rules::board::port(p, pos);
    goto(app, q.row, q.col);
}

fn goto_cell(app: &mut Session, cell: usize) {
    let p = app.middle().game().width();
    goto(app, cell / p + 1, cell % p + 1);
}

/// Places the guess `m` (removing any other atoms) with the keyboard.
fn place(app: &mut Session, m: &Molecule) {
    let p = app.middle().game().width();
    for (i, want) in m.cells().into_iter().enumerate().take(p * p) {
        if app.middle().game().is_guessed(i) != want {
            goto_cell(app, i);
            keys(app, "Enter");
        }
    }
}

/// Runs the binary: its standard output, standard error and exit status.
fn bbx(args: &[&str]) -> (String, String, i32) {
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

fn save(app: &mut Session, path: &str) {
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
fn the_coach_agrees_with_solve_and_suggest() {
    let dir = scratch("coach");
    // A coach that lists every molecule, so that its ranking is the one
    // `bbx suggest --max 1000000` gives.
    let setup = Setup {
        seed: Some(11),
        ..Setup::default()
    };
    let options = Options {
        coach: CoachLimits {
            max: 1_000_000,
            timeout: COACH_WAIT,
        },
        ..Options::default()
    };
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options);
    // Before asking, the coach says nothing about the molecules.
    let before = text(&screen(&mut app, 100, 30));
    assert!(before.contains("off: c counts"));
    keys(&mut app, "Enter j j Enter");
    for q in [12, 20, 28] {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    keys(&mut app, "c x b");
    assert!(app.middle().coach_used());
    assert!(app.wait_for_coach(COACH_WAIT), "the coach answers in time");
    let obs = app.middle().game().observation().clone();
    let answer = app
        .middle()
        .coach()
        .latest(&obs)
        .expect("an answer")
        .clone();
    // An atom on a cell the coach shows certainly empty.
    let empty_cell = answer
        .certainty()
        .expect("certain cells")
        .iter()
        .position(|c| *c == Certainty::Empty)
        .expect("a cell certainly empty");
    goto_cell(&mut app, empty_cell);
    keys(&mut app, "Enter");
    let lines = screen(&mut app, 100, 30);
    let shown = text(&lines);
    let n = answer.count;
    assert!(answer.ended.is_complete());
    assert!(
        shown.contains(&format!(
            "{} molecules fit the rays shot",
            bbx::error::grouped(n)
        )),
        "{shown}"
    );

    let file = dir.join("coached.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let (out, err, code) = bbx(&["solve", file, "--json", "--max", "1000000"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["molecules"].as_u64(), Some(n as u64));
    let atoms = v["certain_atoms"].as_array().unwrap().len();
    let empty = v["certain_empty"].as_array().unwrap().len();
    assert!(
        shown.contains(&format!(
            "certain: {atoms} atoms (*), {empty} empty cells (.)"
        )),
        "{shown}"
    );
    // The certain cells are drawn: '.' for each empty one not guessed; the
    // atom placed on one of them is pointed out.
    let dots: usize = board(&lines, 8)[1..9]
        .iter()
        .map(|l| l.chars().skip(3).filter(|&c| c == '.').count())
        .sum();
    let certain_empty: Vec<usize> = v["certain_empty"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let misplaced = certain_empty
        .iter()
        .filter(|&&c| app.middle().game().is_guessed(c))
        .count();
    assert_eq!(misplaced, 1, "the atom put on cell {empty_cell}");
    assert_eq!(dots + misplaced, empty, "{}", text(&lines));
    assert!(
        panel(&lines).contains("1 of your atoms is on a cell certainly empty (!)"),
        "{}",
        panel(&lines)
    );

    let (out, err, code) = bbx(&["suggest", file, "--json", "--max", "1000000"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let best = v["rays"][0]["position"].as_u64().unwrap() as usize;
    assert_eq!(answer.best().map(|s| s.position), Some(best));
    assert!(shown.contains(&format!("best ray {best} (")), "{shown}");
    // ... and marked with an arrow into the box on the border.
    let q = bbx::rules::board::port(8, best);
    let b = board(&lines, 8);
    let arrow = match q.side {
        bbx::rules::board::Side::Left => '>',
        bbx::rules::board::Side::Bottom => '^',
        bbx::rules::board::Side::Right => '<',
        bbx::rules::board::Side::Top => 'v',
    };
    assert_eq!(b[q.row].chars().nth(1 + 2 * q.col), Some(arrow), "{b:?}");
    // The player's atom on a cell certainly empty is drawn '!', not 'O'.
    let r = 1 + empty_cell / 8;
    assert_eq!(
        b[r].chars().nth(3 + 2 * (empty_cell % 8)),
        Some('!'),
        "{b:?}"
    );

    // Off again: the panel goes quiet and nothing is drawn on the board.
    keys(&mut app, "c x b");
    let shown = text(&screen(&mut app, 100, 30));
    assert!(shown.contains("off: c counts"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The three answers of J. Forget's pure-thought game.
fn pure_thought_answers() -> Vec<Molecule> {
    let p = bbx::puzzle::load_puzzle(&puzzle("seed-pure-thought-a4-b8.txt"), None).unwrap();
    let s = solver::solve(
        &p.observation,
        Rules::Standard,
        4..=4,
        &Limits::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(s.molecules.len(), 3);
    s.molecules
}

#[test]
fn a_consistent_guess_that_is_not_the_hidden_molecule_wins() {
    let answers = pure_thought_answers();
    let setup = Setup {
        start: Start::File(puzzle("seed-pure-thought-a4-b8.txt")),
        seed: Some(5),
        ..Setup::default()
    };
    let mut app = app_for(setup);
    assert!(matches!(
        app.middle().started().source,
        Source::Puzzle {
            answers: Some(3),
            ..
        }
    ));
    let hidden = app.middle().game().hidden().clone();
    assert!(answers.contains(&hidden));
    let other = answers.iter().find(|m| **m != hidden).unwrap().clone();
    // Every ray was given by the puzzle: nothing to pay.
    assert_eq!(app.middle().game().ray_score(), 0);
    place(&mut app, &other);
    keys(&mut app, "g");
    let v = app.middle().game().verdict().expect("judged").clone();
    assert!(v.won && !v.exact && v.score == 0 && v.penalty == 0, "{v:?}");
    assert!(v.wrong >= 1);
    let lines = screen(&mut app, 120, 34);
    let shown = text(&lines);
    let said = panel(&lines);
    assert!(said.contains("YOU WIN"), "{said}");
    assert!(said.contains("no ray can tell them apart"), "{said}");
    assert!(
        shown.contains("your molecule"),
        "the guess is drawn beside: {shown}"
    );

    // The coach's keys now point to the list of molecules.
    keys(&mut app, "c");
    assert!(
        app.middle()
            .message()
            .unwrap()
            .0
            .starts_with("The game is over")
    );
    // After the game: every molecule the rays allowed, the hidden one first.
    keys(&mut app, "a");
    assert!(app.wait_for_coach(COACH_WAIT));
    let listed = text(&screen(&mut app, 120, 40));
    let rays = app.middle().game().observation().rays().len();
    assert!(
        listed.contains(&format!("3 molecules fit the {rays} rays shot")),
        "{listed}"
    );
    assert!(
        listed.contains("1: hidden") && listed.contains("2: yours"),
        "{listed}"
    );
    keys(&mut app, "Esc");
    assert_eq!(app.middle().mode(), &Mode::Board);
    // The game is over: q quits without asking.
    keys(&mut app, "q");
    assert!(app.should_quit());
    assert!(
        app.middle().summary().contains("won with a score of 0"),
        "{}",
        app.middle().summary()
    );
}

#[test]
fn a_guess_contradicting_a_ray_shot_loses_and_that_ray_is_shown() {
    let mut app = random_game(3);
    let p = 8;
    let hidden = app.middle().game().hidden().clone();
    // Shoot every ray along the left side and the bottom.
    for q in 1..=2 * p {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    // A guess that some shot ray contradicts: the hidden atoms moved.
    let guess = (0..p * p)
        .filter(|c| !hidden.cells()[*c])
        .map(|c| {
            Molecule::new(
                p,
                [c, hidden.atoms()[1], hidden.atoms()[2], hidden.atoms()[3]],
            )
        })
        .filter_map(Result::ok)
        .find(|g| {
            app.middle()
                .game()
                .observation()
                .first_difference(&Spectrum::of(g, Rules::Standard))
                .is_some()
        })
        .expect("a contradicted guess");
    place(&mut app, &guess);
    keys(&mut app, "g");
    assert!(matches!(app.middle().mode(), Mode::WrongGuess));
    keys(&mut app, "e");
    let v = app.middle().game().verdict().unwrap().clone();
    let e = v.evidence.expect("the telling ray");
    assert!(!v.won && e.shot);
    assert_eq!(v.score, app.middle().game().ray_score() + 5 * v.wrong);
    assert_eq!(
        app.middle().game().observation().get(e.position),
        Some(e.hidden)
    );
    assert_eq!(
        Spectrum::of(&guess, Rules::Standard).get(e.position),
        e.guess
    );
    assert_ne!(e.hidden, e.guess);
    // The cursor is put on that ray, and the panel explains it.
    let q = bbx::rules::board::port(p, e.position);
    assert_eq!(app.middle().cursor().row_col(), (q.row, q.col));
    let shown = panel(&screen(&mut app, 130, 34));
    assert!(shown.contains("NOT THIS TIME"), "{shown}");
    assert!(
        shown.contains(&format!(
            "Ray {} ({}) was {}",
            e.position,
            bbx::render::position_name(p, e.position),
            bbx::play::words::outcome_words(p, e.hidden)
        )) && shown.contains("but in your molecule it would be"),
        "{shown}"
    );
    assert!(shown.contains(&format!("score {}", v.score)), "{shown}");
    // The path of the ray at the cursor is drawn in the hidden molecule.
    let b = board(&screen(&mut app, 130, 34), p);
    let plus: usize = b[1..=p]
        .iter()
        .map(|l| l.chars().skip(3).take(2 * p).filter(|&c| c == '+').count())
        .sum();
    let mut t = bbx::Tracer::new(p, Rules::Standard);
    t.load(&hidden);
    let (_, path) = t.trace_path(e.position);
    let mut cells: Vec<(usize, usize)> = path.iter().map(|s| (s.row, s.col)).collect();
    cells.sort_unstable();
    cells.dedup();
    let guessed = cells
        .iter()
        .filter(|(r, c)| app.middle().game().is_guessed(p * (r - 1) + c - 1))
        .count();
    assert_eq!(plus, cells.len() - guessed, "{b:?}");
    // Shooting is over.
    let unshot = (1..=4 * p)
        .find(|&q| app.middle().game().observation().get(q).is_none())
        .expect("a ray not shot");
    goto_position(&mut app, unshot);
    keys(&mut app, "Enter");
    assert_eq!(app.middle().game().observation().get(unshot), None);
}

#[test]
fn a_guess_fitting_the_rays_shot_can_still_lose_to_a_ray_not_shot() {
    let mut app = random_game(21);
    let hidden = app.middle().game().hidden().clone();
    let p = 8;
    // No ray shot: any other molecule fits the rays shot, but a ray tells.
    let moved: Vec<usize> = hidden
        .atoms()
        .iter()
        .map(|&a| {
            if a == hidden.atoms()[0] {
                (a + 1..p * p).find(|c| !hidden.cells()[*c]).unwrap()
            } else {
                a
            }
        })
        .collect();
    let guess = Molecule::new(p, moved).unwrap();
    assert_ne!(
        Spectrum::of(&guess, Rules::Standard),
        Spectrum::of(&hidden, Rules::Standard)
    );
    place(&mut app, &guess);
    keys(&mut app, "g");
    assert!(matches!(app.middle().mode(), Mode::WrongGuess));
    keys(&mut app, "e");
    let v = app.middle().game().verdict().unwrap().clone();
    let e = v.evidence.unwrap();
    assert!(!v.won && !e.shot && v.score == 5);
    let shown = panel(&screen(&mut app, 130, 34));
    assert!(shown.contains("not shot, tells it apart"), "{shown}");
    // The telling ray is drawn on the border although it was not shot.
    let b = board(&screen(&mut app, 130, 34), p);
    let q = bbx::rules::board::port(p, e.position);
    assert_ne!(b[q.row].chars().nth(1 + 2 * q.col), Some(' '), "{b:?}");

    // Under the lenient judge the same guess wins.
    let mut lenient = app_for(Setup {
        seed: Some(21),
        judge: Judge::RaysShot,
        ..Setup::default()
    });
    place(&mut lenient, &guess);
    // ... once a ray is shot: a guess before any ray is judged by every ray
    // (it used to win with score 0).
    keys(&mut lenient, "g");
    assert!(matches!(lenient.middle().mode(), Mode::WrongGuess));
    keys(&mut lenient, "e");
    assert!(!lenient.middle().game().verdict().unwrap().won);
    let mut lenient = app_for(Setup {
        seed: Some(21),
        judge: Judge::RaysShot,
        ..Setup::default()
    });
    let (h, g) = (
        Spectrum::of(&hidden, Rules::Standard),
        Spectrum::of(&guess, Rules::Standard),
    );
    let agreed = (1..=4 * p).find(|&q| h.get(q) == g.get(q)).unwrap();
    goto_position(&mut lenient, agreed);
    keys(&mut lenient, "Enter");
    place(&mut lenient, &guess);
    keys(&mut lenient, "g");
    assert!(lenient.middle().game().verdict().unwrap().won);
}

#[test]
fn a_guess_needs_as_many_atoms_as_hidden() {
    let mut app = random_game(4);
    keys(&mut app, "l Enter g");
    assert!(app.middle().game().verdict().is_none());
    let (m, _) = app.middle().message().unwrap();
    assert!(m.contains("place exactly 4 atoms"), "{m}");
}

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
    let finished = start(&Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    })
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
    let Err(e) = start(&Setup {
        start: Start::File(twice_file.to_string_lossy().into_owned()),
        ..Setup::default()
    }) else {
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
    if let Err(e) = start(&Setup {
        start: Start::File(bad.to_string_lossy().into_owned()),
        ..Setup::default()
    }) {
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

#[test]
fn a_best_ray_ranked_on_every_molecule_is_not_called_partial() {
    // The coach lists at most 100 molecules, but A4_B8 can be walked, so its
    // best ray is ranked on all of them: the panel said "ranked on the first
    // 100 found only" all the same.
    let setup = Setup {
        seed: Some(11),
        ..Setup::default()
    };
    let options = Options {
        coach: CoachLimits {
            max: 100,
            timeout: COACH_WAIT,
        },
        ..Options::default()
    };
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options);
    keys(&mut app, "Enter b");
    assert!(app.wait_for_coach(COACH_WAIT), "the coach answers in time");
    let obs = app.middle().game().observation().clone();
    let answer = app
        .middle()
        .coach()
        .latest(&obs)
        .expect("an answer")
        .clone();
    assert!(!answer.all_listed(), "the coach listed only some");
    assert_eq!(
        answer.ranking,
        bbx::play::coach::Ranking::Every,
        "ranked on every molecule"
    );
    let shown = text(&screen(&mut app, 100, 30));
    assert!(shown.contains("best ray "), "{shown}");
    assert!(!shown.contains("ranked on the first"), "{shown}");
}

#[test]
fn the_coach_shows_each_cells_chance_of_an_atom() {
    let dir = scratch("chance");
    let setup = Setup {
        seed: Some(11),
        ..Setup::default()
    };
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), Options::default());
    for q in [3, 12, 20, 28] {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    let off = text(&screen(&mut app, 100, 30));
    assert!(off.contains("p the chances"), "{off}");
    keys(&mut app, "p");
    assert!(app.wait_for_coach(COACH_WAIT), "the coach answers in time");
    let lines = screen(&mut app, 100, 30);
    assert!(
        panel(&lines).contains("chance of an atom: digits in tenths"),
        "{}",
        panel(&lines)
    );
    // The digits drawn are the tenths of `bbx solve --probabilities`.
    let file = dir.join("chances.txt");
    let file = file.to_str().unwrap();
    save(&mut app, file);
    let (out, err, code) = bbx(&["solve", file, "--json", "--probabilities"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let chances: Vec<f64> = v["probabilities"]
        .as_array()
        .expect("probabilities")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let b = board(&lines, 8);
    for (i, q) in chances.iter().enumerate() {
        let want = if *q < 0.0005 {
            '.'
        } else if *q > 0.9995 {
            '*'
        } else {
            char::from_digit(((q * 10.0) as u32).min(9), 10).unwrap()
        };
        let got = b[1 + i / 8].chars().nth(3 + 2 * (i % 8));
        assert_eq!(got, Some(want), "cell {i} ({q}): {b:?}");
    }
}

/// Plays a game of `config` (seed `seed`) by shooting `rays` in order and
/// then placing the hidden molecule; returns the app after the verdict.
fn won_game(config: &str, seed: u64, rays: &[usize]) -> Session {
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

/// The review's line of the greedy policy's game against the hidden
/// molecule of `app`, as `bbx strategy CONFIG --molecule N` plays it.
fn policy_game(app: &Session, config: &str) -> String {
    let number = bbx::rules::enumeration::rank(app.middle().game().hidden()).unwrap();
    let (out, err, code) = bbx(&[
        "strategy",
        config,
        "--molecule",
        &number.to_string(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rays = v["shots"].as_array().unwrap().len();
    format!(
        "greedy policy: {rays} ray{}, score {}",
        if rays == 1 { "" } else { "s" },
        v["score"]
    )
}

#[test]
fn the_verdict_reviews_the_game_against_the_policy() {
    let rays: Vec<usize> = (1..=20).collect();
    let mut app = won_game("A3_B5", 2, &rays);
    assert!(app.wait_for_coach(COACH_WAIT), "the review is worked out");
    let said = panel(&screen(&mut app, 130, 40));
    // The policy's own game against the same molecule, as bbx strategy plays it.
    let hidden = app.middle().game().hidden().clone();
    let policy = policy_game(&app, "A3_B5");
    assert!(said.contains(&policy), "{policy} in {said}");
    // Its average over all 2300 molecules: 11431 rays and 16626 points.
    assert!(
        said.contains("on average over A3_B5 (2300 molecules): 4.97 rays, score 7.23"),
        "{said}"
    );
    // The rays that told nothing new, counted here over every molecule.
    let config: bbx::Config = "A3_B5".parse().unwrap();
    let spectra: Vec<Spectrum> = (1..=2300)
        .map(|n| {
            Spectrum::of(
                &bbx::rules::enumeration::unrank(config, n).unwrap(),
                Rules::Standard,
            )
        })
        .collect();
    let mut fitting: Vec<&Spectrum> = spectra.iter().collect();
    let truth = Spectrum::of(&hidden, Rules::Standard);
    let mut idle = Vec::new();
    for &q in app.middle().game().shots() {
        if fitting.iter().all(|s| s.get(q) == truth.get(q)) {
            idle.push(q.to_string());
        }
        fitting.retain(|s| s.get(q) == truth.get(q));
    }
    assert!(
        !idle.is_empty(),
        "twenty rays in a 5×5 box repeat themselves"
    );
    assert!(
        said.contains(&format!("told nothing new: your rays {}", idle.join(", "))),
        "{said}"
    );
}

#[test]
fn a_configuration_too_large_to_review_says_so() {
    let mut app = won_game("A5_B10", 1, &[1]);
    assert!(app.wait_for_coach(COACH_WAIT));
    let said = panel(&screen(&mut app, 130, 40));
    assert!(
        said.contains("not worked out: A5_B10 has 75287520 molecules"),
        "{said}"
    );
}

#[test]
fn tathams_default_is_reviewed_without_the_average() {
    // A5_B8's 7.6 million molecules: the policy's game against this one and
    // the rays that told nothing new, but not every game.
    let mut app = won_game("A5_B8", 1, &[1, 9]);
    assert!(app.wait_for_coach(COACH_WAIT));
    let said = panel(&screen(&mut app, 160, 40));
    let policy = policy_game(&app, "A5_B8");
    assert!(said.contains(&policy), "{policy} in {said}");
    assert!(
        said.contains(
            "not computed in play (more than 1000000 molecules); bbx strategy A5_B8 gives it"
        ),
        "{said}"
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

#[test]
fn resigning_shows_the_answer_and_loses() {
    let mut app = random_game(33);
    keys(&mut app, "Enter Down Enter");
    let rays = app.middle().game().ray_score();
    keys(&mut app, "r");
    assert_eq!(app.middle().mode(), &Mode::ConfirmResign);
    assert!(text(&screen(&mut app, 80, 24)).contains("y resigns"));
    keys(&mut app, "n");
    assert_eq!(app.middle().mode(), &Mode::Board);
    assert!(!app.middle().game().is_over(), "any other key goes back");
    keys(&mut app, "r y");
    let v = app.middle().game().verdict().expect("over").clone();
    assert!(v.resigned && !v.won && v.score == rays + 5 * 4, "{v:?}");
    let lines = screen(&mut app, 80, 24);
    let said = panel(&lines);
    assert!(said.contains("YOU RESIGNED"), "{said}");
    // The answer is shown: every hidden atom drawn # (none was placed).
    let b = board(&lines, 8);
    let hashes: usize = b[1..9].iter().map(|l| l.matches('#').count()).sum();
    assert_eq!(hashes, 4, "{b:?}");
    keys(&mut app, "q");
    assert!(
        app.middle().summary().contains("resigned (lost)"),
        "{}",
        app.middle().summary()
    );
    // n during a game asks before abandoning it.
    let mut app = random_game(34);
    keys(&mut app, "n");
    assert_eq!(app.middle().mode(), &Mode::ConfirmNew);
    let shown = text(&screen(&mut app, 80, 24));
    assert!(shown.contains("Abandon it for a new one?"), "{shown}");
    keys(&mut app, "x");
    assert_eq!(app.middle().mode(), &Mode::Board);
}

#[test]
fn playing_on_after_a_wrong_guess_shows_and_counts_the_ray() {
    let mut app = random_game(35);
    let hidden = app.middle().game().hidden().clone();
    let p = 8;
    // One atom moved: no ray shot yet, so the referee names one not shot.
    let moved = (0..p * p).find(|c| !hidden.cells()[*c]).unwrap();
    let mut atoms = hidden.atoms().to_vec();
    atoms[0] = moved;
    let guess = Molecule::new(p, atoms).unwrap();
    let hs = Spectrum::of(&hidden, Rules::Standard);
    assert_ne!(hs, Spectrum::of(&guess, Rules::Standard));
    place(&mut app, &guess);
    keys(&mut app, "g");
    assert_eq!(
        app.middle().mode(),
        &Mode::WrongGuess,
        "a wrong guess asks first"
    );
    let verdict = app
        .middle()
        .game()
        .pending()
        .expect("the wrong guess waits")
        .clone();
    let e = verdict.evidence.unwrap();
    assert!(!e.shot);
    let shown = text(&screen(&mut app, 80, 24));
    assert!(shown.contains("Your guess is wrong."), "{shown}");
    assert!(shown.contains("p or Enter plays on"), "{shown}");
    assert!(shown.contains("e ends the game"), "{shown}");
    assert!(
        !app.middle().game().is_over(),
        "the answer is not shown yet"
    );
    // Play on: the ray is shot and counted, the cursor on it.
    keys(&mut app, "p");
    assert_eq!(app.middle().mode(), &Mode::Board);
    assert!(!app.middle().game().is_over());
    assert_eq!(
        app.middle().game().observation().get(e.position),
        Some(e.hidden)
    );
    let cost = if matches!(e.hidden, Outcome::Exit(_)) {
        2
    } else {
        1
    };
    assert_eq!(app.middle().game().ray_score(), cost);
    assert_eq!(app.middle().cursor().row_col(), {
        let q = bbx::rules::board::port(p, e.position);
        (q.row, q.col)
    });
    assert!(panel(&screen(&mut app, 80, 24)).contains("1 wrong guess played on"));
    // Fix the guess and win, the wrong guess told in the verdict.
    place(&mut app, &hidden);
    keys(&mut app, "g");
    let v = app.middle().game().verdict().unwrap().clone();
    // The wrong guess played on costs 5 whatever the atoms it got wrong.
    assert!(
        v.won && v.wrong_guesses == 1 && v.score == cost + 5,
        "{v:?}"
    );
    let said = panel(&screen(&mut app, 80, 24));
    assert!(
        said.contains("5 for 1 wrong guess played on (×5)"),
        "{said}"
    );
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

#[test]
fn a_wrong_atom_on_the_path_stays_visible() {
    // The reveal draws the path of the ray at the cursor through the
    // player's wrong atoms as 'X', not '+' (which would hide the atom) nor
    // 'x' (which would hide the path).
    let mut app = random_game(37);
    let hidden = app.middle().game().hidden().clone();
    let p = 8;
    let a = hidden.atoms();
    // A wrong atom on the path of some ray in the hidden molecule.
    let (ray, cell) = (1..=4 * p)
        .find_map(|q| {
            let (_, path) = bbx::play::game::ray_path(&hidden, Rules::Standard, q);
            (0..p * p)
                .find(|&c| path[c] && !hidden.cells()[c])
                .map(|c| (q, c))
        })
        .unwrap();
    let guess = Molecule::new(p, [a[0], a[1], a[2], cell]).unwrap();
    place(&mut app, &guess);
    keys(&mut app, "g");
    if matches!(app.middle().mode(), Mode::WrongGuess) {
        keys(&mut app, "e");
    }
    goto_position(&mut app, ray);
    let b = board(&screen(&mut app, 120, 30), p);
    assert_eq!(
        b[1 + cell / p].chars().nth(3 + 2 * (cell % p)),
        Some('X'),
        "{b:?}"
    );
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
    let finished = start(&Setup {
        start: Start::File(file.to_string()),
        ..Setup::default()
    })
    .unwrap();
    assert!(finished.game.verdict().is_some_and(|v| v.resigned));
    std::fs::remove_dir_all(&dir).unwrap();
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
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options);
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

// ---------------------------------------------------------------------------
// Tatham's games and players: ranges, presets, game IDs both ways, habits
// ---------------------------------------------------------------------------

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

#[test]
fn the_rays_the_guess_explains_are_marked() {
    let mut app = random_game(12);
    for q in 1..=8 {
        goto_position(&mut app, q);
        keys(&mut app, "Enter");
    }
    keys(&mut app, "d");
    let said = panel(&screen(&mut app, 100, 30));
    let rays = app.middle().game().observation().rays().len();
    let explained = app.middle().game().explained();
    let not = explained.iter().filter(|(_, ok)| !ok).count();
    assert!(not > 0, "an empty guess explains few rays");
    assert!(
        said.contains(&format!("explains {} of {rays} rays; not:", rays - not)),
        "{said}"
    );
    // The marks of the rays not explained are told apart on the board.
    let board = &app.middle().scene().board;
    for (q, ok) in &explained {
        let port = bbx::rules::board::port(8, *q);
        assert_eq!(
            board.rows()[port.row][port.col].explained,
            Some(*ok),
            "ray {q}"
        );
    }
    // The hidden molecule explains every one.
    let hidden = app.middle().game().hidden().clone();
    place(&mut app, &hidden);
    let said = panel(&screen(&mut app, 100, 30));
    assert!(
        said.contains(&format!("explains all {rays} rays shot")),
        "{said}"
    );
    keys(&mut app, "d");
    assert!(!panel(&screen(&mut app, 100, 30)).contains("explains"));
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

/// The coach's line for a policy's next ray: shown whole on one line of an
/// 80×24 screen, with the best ray's panel on.
fn policy_said(app: &mut Session, policy: &str) -> String {
    assert!(app.wait_for_coach(COACH_WAIT), "the coach answers");
    let lines = screen(app, 80, 24);
    let start = format!("{policy}'s next ray: ");
    let found = lines.iter().find(|l| l.contains(&start));
    let line = found.unwrap_or_else(|| panic!("{start} in\n{}", text(&lines)));
    let at = line.find(&start).unwrap();
    // Within the panel's frame: the line ends before its right border.
    let said = line[at..].split('│').next().unwrap().trim_end().to_string();
    assert!(!said.ends_with(','), "{said}: cut by the frame");
    said
}

#[test]
fn the_coach_names_the_policys_next_ray_along_its_own_game() {
    // The game bbx strategy plays against the hidden molecule: after each
    // of its rays, the coach names the next one; after them all, none.
    for policy in ["greedy", "rollout"] {
        let setup = Setup {
            start: Start::Random {
                config: "A3_B5".parse().unwrap(),
                unique: false,
            },
            seed: Some(5),
            ..Setup::default()
        };
        let options = Options {
            policy: Some(policy.parse().unwrap()),
            ..Options::default()
        };
        let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options);
        let number = bbx::rules::enumeration::rank(app.middle().game().hidden()).unwrap();
        let (out, err, code) = bbx(&[
            "strategy",
            "A3_B5",
            "--molecule",
            &number.to_string(),
            "--policy",
            policy,
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let shots: Vec<usize> = v["shots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["position"].as_u64().unwrap() as usize)
            .collect();
        assert!(shots.len() >= 2, "{out}");
        keys(&mut app, "b");
        for &q in &shots {
            let said = policy_said(&mut app, policy);
            let name = bbx::render::position_name(5, q);
            let expected = format!("{policy}'s next ray: {q} ({name})");
            assert!(said.starts_with(&expected), "{said}, not {expected}");
            if policy == "rollout" {
                // With the rays its games are expected to take from here.
                let rest = &said[expected.len()..];
                let number = rest
                    .strip_prefix(", ")
                    .and_then(|r| r.strip_suffix(" rays"));
                let rays: f64 = number
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{said}"));
                assert!(rays >= 1.0, "{said}");
            } else {
                assert_eq!(said, expected);
            }
            goto_position(&mut app, q);
            keys(&mut app, "Enter");
        }
        let said = policy_said(&mut app, policy);
        assert!(
            said.starts_with(&format!("{policy}'s next ray: none, ")),
            "{said}"
        );
    }
    // Without a policy, no such line.
    let mut app = random_game(5);
    keys(&mut app, "b");
    assert!(app.wait_for_coach(COACH_WAIT));
    let shown = text(&screen(&mut app, 80, 24));
    assert!(
        shown.contains("best ray") && !shown.contains("'s next ray"),
        "{shown}"
    );
}

#[test]
fn the_coach_says_why_the_policy_has_no_ray_yet() {
    // A4_B8's opening: 635,376 molecules, more than the coach lists, but
    // the count lists them all for the policy.
    let options = Options {
        policy: Some("entropy".parse().unwrap()),
        ..Options::default()
    };
    let setup = Setup {
        seed: Some(3),
        ..Setup::default()
    };
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options.clone());
    keys(&mut app, "b");
    let said = policy_said(&mut app, "entropy");
    assert_eq!(said, "entropy's next ray: 4 (left, row 4)");
    // A5_B10's: 75,287,520, more than a policy weighs.
    let setup = Setup {
        start: Start::Random {
            config: "A5_B10".parse().unwrap(),
            unique: false,
        },
        seed: Some(3),
        ..Setup::default()
    };
    let mut app = Session::new(setup.clone(), start(&setup).unwrap(), options);
    keys(&mut app, "b");
    let said = policy_said(&mut app, "entropy");
    assert_eq!(said, "entropy's next ray: unknown, too many molecules");
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
