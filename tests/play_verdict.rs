//! Guesses in `bbx play` and the referee's verdict (on ratatui's
//! `TestBackend`): a consistent guess that is not the hidden molecule wins; a
//! guess that a ray shot, or one not shot, shows wrong loses and that ray is
//! shown; the count of atoms a guess needs, resigning, playing on after a
//! wrong guess, a wrong atom on the path drawn, the rays a guess explains; and
//! the review of a won game against the greedy policy.

use bbx::play::middle::Mode;
use bbx::play::referee::Judge;
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Source, Start};
use bbx::solver::{self, Limits};
use bbx::{Molecule, Outcome, Rules, Spectrum};
use serde_json::Value;

use crate::common::play::{
    COACH_WAIT, app_for, bbx, board, goto_position, keys, panel, place, random_game, screen, text,
    won_game,
};
use crate::common::puzzle;

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
