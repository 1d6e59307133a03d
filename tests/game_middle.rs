//! The game middle on its own: move sequences run through the library as a
//! front runs them (each effect carried out here: the coach and the review
//! answered by the library's own functions, saves kept in memory, new games
//! started), and the scene checked. The terminal's tests (`play_*`) and the
//! page's (`web`) check only how they draw the scene and wire keys, clicks
//! and effects on top of this.

use std::collections::HashMap;

use bbx::control::Budget;
use bbx::play::coach::{self, News, ReviewState};
use bbx::play::cursor::Target;
use bbx::play::middle::{Effect, Middle, Mode, Options};
use bbx::play::moves::{Form, Move, Panel};
use bbx::play::scene::Scene;
use bbx::play::setup::{Setup, Start, Started, start};
use bbx::rules::enumeration::Molecules;
use bbx::{Config, Molecule, Outcome, Rules, Spectrum};

/// A front with no screen: it carries out every effect at once.
struct Front {
    middle: Middle,
    files: HashMap<String, String>,
    quit: bool,
}

impl Front {
    fn new(setup: Setup) -> Front {
        Front::of(
            setup.clone(),
            start(&setup, &Budget::default()).expect("starts"),
        )
    }

    fn of(setup: Setup, started: Started) -> Front {
        Front::with(setup, started, Options::default())
    }

    fn with(setup: Setup, started: Started, options: Options) -> Front {
        let (middle, effects) = Middle::new(setup, started, options);
        let mut f = Front {
            middle,
            files: HashMap::new(),
            quit: false,
        };
        f.carry_out(effects);
        f
    }

    fn carry_out(&mut self, effects: Vec<Effect>) {
        for e in effects {
            let next = match e {
                Effect::Ask(q) => {
                    let a = coach::answer_with(&q, &Budget::default(), |_| {}).expect("answers");
                    self.middle.hear(News::Answer(Box::new(a)))
                }
                Effect::Review(r) => {
                    let done = coach::review(&r, &Budget::default(), |_| {}).expect("reviews");
                    let review = done.value.expect("a whole review");
                    let state = ReviewState::Ready {
                        review,
                        complete: true,
                    };
                    self.middle.hear(News::Review(state))
                }
                Effect::Save { path, text, .. } => {
                    self.files.insert(path.clone(), text);
                    self.middle.saved(path, Ok(()))
                }
                Effect::Start(setup) => self.middle.begin(start(&setup, &Budget::default())),
                Effect::ForgetCoach => Vec::new(),
                Effect::Quit => {
                    self.quit = true;
                    Vec::new()
                }
            };
            self.carry_out(next);
        }
    }

    fn play(&mut self, moves: impl IntoIterator<Item = Move>) -> &Scene {
        for m in moves {
            let effects = self.middle.apply(m);
            self.carry_out(effects);
        }
        self.middle.scene()
    }
}

fn seeded(config: &str, seed: u64) -> Setup {
    Setup {
        start: Start::Random {
            config: config.parse().unwrap(),
            unique: false,
        },
        seed: Some(seed),
        ..Setup::default()
    }
}

/// Every line of a scene's text (panel, message, dialog, status), for
/// checks of what the player reads.
fn said(scene: &Scene) -> String {
    let mut out: Vec<String> = scene.side.iter().map(|l| l.0.clone()).collect();
    out.extend(scene.message.iter().map(|m| m.0.clone()));
    if let Some(d) = &scene.dialog {
        out.extend(d.lines.iter().map(|l| l.0.clone()));
    }
    out.push(scene.status.clone());
    out.join("\n")
}

/// The moves of a short game of the standard box: rays, atoms, a line
/// marked, undo and redo, the coach's panels.
fn standard_moves() -> Vec<Move> {
    vec![
        Move::Shoot(1),
        Move::Shoot(9),
        Move::Press {
            at: Target::Border(17),
            secondary: false,
        },
        Move::Atom(10),
        Move::Press {
            at: Target::Cell(20),
            secondary: true,
        },
        Move::MarkLine(3),
        Move::Undo,
        Move::Redo,
        Move::Coach(Panel::Count),
        Move::Coach(Panel::Certain),
        Move::Coach(Panel::Best),
    ]
}

#[test]
fn the_same_moves_give_the_same_scene() {
    let mut a = Front::new(seeded("A4_B8", 7));
    let mut b = Front::new(seeded("A4_B8", 7));
    let sa = a.play(standard_moves()).clone();
    let sb = b.play(standard_moves()).clone();
    assert_eq!(sa, sb);
    let json = serde_json::to_value(&sa).unwrap();
    assert_eq!(json, serde_json::to_value(&sb).unwrap());
    // The scene says what was done: three rays, an atom, marks, the coach.
    let g = a.middle.game();
    assert_eq!(g.rays_shot(), 3);
    for q in [1, 9, 17] {
        assert_eq!(sa.board.slot(q).outcome, g.observation().get(q), "ray {q}");
    }
    assert!(sa.board.cells[10].atom);
    assert!(sa.board.cells[20].locked);
    assert!(sa.tools.undo && !sa.tools.redo && sa.tools.guess);
    let text = said(&sa);
    assert!(text.contains("rays shot  3"), "{text}");
    assert!(text.contains("molecules fit the rays shot"), "{text}");
    let best = sa.board.slots.iter().filter(|s| s.best).count();
    assert_eq!(best, 1, "the best ray is marked on the border");
    // The jump to the best ray puts the cursor on it.
    let q = sa.board.slots.iter().find(|s| s.best).unwrap().position;
    let s = a.play([Move::ToBest]);
    let slot = s.board.slot(q);
    assert_eq!(s.cursor, (slot.row, slot.col));
}

#[test]
fn rollouts_weighing_shared_among_workers_shows_the_same_best_ray() {
    use bbx::assistant::strategy::Policy;
    let workers = |coach_workers| Options {
        policy: Some(Policy::Rollout),
        coach_workers,
        ..Options::default()
    };
    let mut moves = standard_moves();
    moves.push(Move::Shoot(5));
    let setup = seeded("A3_B6", 11);
    let one = Front::with(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        workers(1),
    )
    .play(moves.clone())
    .clone();
    for n in [2, 3] {
        let mut f = Front::with(
            setup.clone(),
            start(&setup, &Budget::default()).unwrap(),
            workers(n),
        );
        let shared = f.play(moves.clone()).clone();
        let text = said(&shared);
        assert!(text.contains("rollout"), "{text}");
        assert_eq!(shared, one, "{n} workers");
        // The best ray's question goes out in n parts, one per worker.
        let asks = f.middle.apply(Move::Shoot(6));
        let parts: Vec<_> = (asks.iter())
            .filter_map(|e| match e {
                Effect::Ask(q) => Some((q.part.index, q.part.of)),
                _ => None,
            })
            .collect();
        assert_eq!(parts, (0..n).map(|i| (i, n)).collect::<Vec<_>>());
    }
}

#[test]
fn a_rectangle_is_drawn_w_wide_and_h_high() {
    let mut f = Front::new(seeded("A5_B8x6", 3));
    let s = f.play([Move::Shoot(1), Move::Shoot(14), Move::Shoot(28)]);
    assert_eq!((s.board.width, s.board.height), (8, 6));
    assert_eq!((s.board.cells.len(), s.board.slots.len()), (48, 28));
    // Left 1..=6, bottom 7..=14, right 15..=20 upwards, top 21..=28.
    let at = |q: usize| (s.board.slot(q).row, s.board.slot(q).col);
    assert_eq!(
        (at(1), at(6), at(7), at(14)),
        ((1, 0), (6, 0), (7, 1), (7, 8))
    );
    assert_eq!(
        (at(15), at(20), at(21), at(28)),
        ((6, 9), (1, 9), (0, 8), (0, 1))
    );
    let rows = s.board.rows();
    assert_eq!((rows.len(), rows[0].len()), (8, 10));
    assert!(s.board.slot(14).outcome.is_some());
}

/// A range never tells its count before the end, and its review counts
/// over every count of it: a ray idle only when every molecule of the
/// range still fitting agreed on it (by brute force here).
#[test]
fn a_range_is_judged_and_reviewed_over_every_count() {
    let mut f = Front::new(seeded("A2-3_B4", 5));
    let hidden = f.middle.game().hidden().clone();
    let n = hidden.atoms().len();
    let shots = [1, 2, 5, 6, 9, 13, 3];
    let s = f.play(shots.map(Move::Shoot)).clone();
    let text = said(&s);
    assert!(text.contains("2 to 3 hidden"), "{text}");
    assert!(!s.title.contains(&format!("A{n}_B4")), "{}", s.title);
    let s = f.play([Move::Resign, Move::Confirm]).clone();
    assert!(s.over);
    // Brute force over both counts.
    let all: Vec<Molecule> = (2..=3)
        .flat_map(|k| Molecules::new(Config::shaped(k, hidden.shape()).unwrap()))
        .collect();
    let spectra: Vec<Spectrum> = all
        .iter()
        .map(|m| Spectrum::of(m, Rules::Standard))
        .collect();
    let theirs = Spectrum::of(&hidden, Rules::Standard);
    let mut left: Vec<usize> = (0..all.len()).collect();
    let mut idle = Vec::new();
    for q in f.middle.game().shots().to_vec() {
        let o = theirs.get(q);
        if left.iter().all(|&m| spectra[m].get(q) == o) {
            idle.push(q);
        }
        left.retain(|&m| spectra[m].get(q) == o);
    }
    let ReviewState::Ready { review, .. } = f.middle.coach().review() else {
        panic!("reviewed: {:?}", f.middle.coach().review());
    };
    assert_eq!(review.idle, idle);
    let text = said(&s);
    assert!(
        text.contains(&format!(
            "on average over A2-3_B4 ({} molecules)",
            all.len()
        )),
        "{text}"
    );
    assert!(!text.contains(&format!("A{n}_B4")), "{text}");
}

/// A wrong guess is charged whatever the player does next: the dialog says
/// nothing of how many atoms are wrong, a save (and so a reload) keeps it
/// waiting, and playing on costs 5 even when the ray that disproves it was
/// shot already.
#[test]
fn a_wrong_guess_played_on_costs_what_the_rules_say_and_survives_a_save() {
    let mut f = Front::new(seeded("A4_B8", 11));
    let hidden = f.middle.game().hidden().clone();
    let spectrum = Spectrum::of(&hidden, Rules::Standard);
    // Every ray shot: any wrong guess contradicts one already shot.
    for q in 1..=32 {
        f.play([Move::Shoot(q)]);
    }
    let rays = f.middle.game().ray_score();
    let wrong: Vec<usize> = (0..64).filter(|c| !hidden.cells()[*c]).take(4).collect();
    let wrong_molecule = Molecule::new(8, wrong.clone()).unwrap();
    assert_ne!(Spectrum::of(&wrong_molecule, Rules::Standard), spectrum);
    let s = f.play(wrong.iter().map(|&i| Move::Atom(i)).chain([Move::Guess]));
    let d = s.dialog.clone().expect("the wrong guess asks");
    assert_eq!(d.kind, "wrong");
    let lines: Vec<&str> = d.lines.iter().map(|l| l.0.as_str()).collect();
    assert!(
        !lines.iter().any(|l| l.contains("score")),
        "the dialog tells no score: {lines:?}"
    );
    // Saved while it waits, and resumed: it waits again.
    let save = s.share.save.clone().unwrap();
    let link = s.share.link.clone().unwrap();
    for text in [save, link.clone()] {
        let started = if text.starts_with('{') {
            Started::carried(&text, Default::default()).unwrap()
        } else {
            let setup = Setup {
                start: Start::Text {
                    text,
                    origin: "the save".into(),
                },
                ..Setup::default()
            };
            start(&setup, &Budget::default()).unwrap()
        };
        let mut again = Front::of(Setup::default(), started);
        assert_eq!(again.middle.mode(), &Mode::WrongGuess);
        assert!(again.middle.game().pending().is_some());
        // Nothing else is taken until the player chooses.
        let s = again.play([Move::Shoot(1), Move::Atom(0), Move::Undo]);
        assert!(s.dialog.is_some());
        assert_eq!(again.middle.game().placed(), 4);
    }
    // The carried link keeps the title, seed included.
    let resumed = Started::carried(&link, Default::default()).unwrap();
    assert_eq!(resumed.title(), f.middle.started().title());
    // Playing on costs 5; the ray was shot already: nothing more.
    f.play([Move::PlayOn]);
    assert_eq!(f.middle.game().score(), rays + 5);
    assert_eq!(f.middle.game().wrong_guesses(), 1);
    // Guessing the same again costs 5 more.
    let s = f.play([Move::Guess, Move::PlayOn]).clone();
    assert_eq!(f.middle.game().score(), rays + 10);
    assert!(
        said(&s).contains("2 wrong guesses played on (+10)"),
        "{}",
        said(&s)
    );
    // Ending with the hidden molecule: the rays and the two wrong guesses.
    let moves: Vec<Move> = wrong
        .iter()
        .map(|&i| Move::Atom(i))
        .chain(hidden.atoms().iter().map(|&i| Move::Atom(i)))
        .chain([Move::Guess])
        .collect();
    f.play(moves);
    let v = f.middle.game().verdict().expect("judged").clone();
    assert!(
        v.won && v.score == rays + 10 && v.guess_penalty == 10,
        "{v:?}"
    );
}

/// A new game and a restart mid-game ask first; a restart undoes every
/// action (redo brings them back) and keeps the rays paid.
#[test]
fn new_game_and_restart_mid_game() {
    let mut f = Front::new(seeded("A4_B6", 2));
    f.play([Move::Shoot(1), Move::Shoot(7), Move::Atom(3)]);
    let paid = f.middle.game().score();
    let s = f.play([Move::Restart]);
    assert_eq!(s.dialog.as_ref().map(|d| d.kind), Some("restart"));
    let s = f.play([Move::Confirm]).clone();
    assert_eq!(f.middle.game().observation().shot_count(), 0);
    assert_eq!(f.middle.game().placed(), 0);
    assert_eq!(f.middle.game().score(), paid, "rays stay paid");
    assert!(s.tools.redo);
    f.play([Move::Redo, Move::Redo, Move::Redo]);
    assert_eq!(f.middle.game().placed(), 1);
    let before = f.middle.started().title();
    let s = f.play([Move::NewGame]);
    assert_eq!(s.dialog.as_ref().map(|d| d.kind), Some("new"));
    f.play([Move::Cancel]);
    assert_eq!(f.middle.started().title(), before);
    f.play([Move::NewGame, Move::Confirm]);
    assert_ne!(f.middle.started().title(), before);
    assert!(f.middle.summary().starts_with(&before));
    // The form's errors name the field and leave the game alone.
    let title = f.middle.started().title();
    for (form, says) in [
        (
            Form {
                game: "A99_B8".into(),
                ..Form::default()
            },
            "A99_B8",
        ),
        (
            Form {
                seed: "hello".into(),
                ..Form::default()
            },
            "the seed 'hello'",
        ),
    ] {
        let s = f.play([Move::NewFrom(form)]);
        let (m, _) = s.message.clone().unwrap();
        assert!(m.contains(says), "{m}");
        assert_eq!(f.middle.started().title(), title);
    }
    let s = f.play([Move::NewFrom(Form {
        game: "8x8, 3-6 balls".into(),
        seed: "4".into(),
        ..Form::default()
    })]);
    assert!(s.title.contains("w8h8m3M6#4"), "{}", s.title);
}

/// Saving writes bbx's file or Tatham's by the name; the scene tells where.
#[test]
fn saves_by_name() {
    let mut f = Front::new(seeded("A4_B8", 21));
    f.play([Move::Shoot(5), Move::Save(Some("game.txt".into()))]);
    f.play([Move::Save(Some("game.sav".into()))]);
    assert!(f.files["game.txt"].contains("bbx-resume:"));
    assert!(f.files["game.sav"].starts_with("SAVEFILE:"));
    let (m, _) = f.middle.scene().message.clone().unwrap();
    assert!(m.contains("game.sav"), "{m}");
    // The absorbed ray's trail ends on its atom, after the game.
    let s = f.play([Move::Resign, Move::Confirm]).clone();
    let hidden = f.middle.game().hidden().clone();
    for q in 1..=32 {
        let s = f.play([Move::CursorTo(Target::Border(q))]);
        let t = &s.trails[0];
        if t.outcome == Outcome::Absorbed {
            let (r, c) = t.atom.expect("the atom of an absorbed ray");
            assert!(hidden.is_atom(r, c), "ray {q}: ({r}, {c})");
        }
    }
    assert!(s.over && !f.quit);
    f.play([Move::Quit]);
    assert!(f.quit);
}

/// A front that cannot quit (the page) is offered no quitting: no key
/// quits, no line or help names one, and the move does nothing.
#[test]
fn a_front_that_cannot_quit_offers_no_quitting() {
    use bbx::play::keys::{Key, Profile};
    for profile in [Profile::Bbx, Profile::Tatham, Profile::Emacs] {
        let setup = seeded("A4_B8", 3);
        let started = start(&setup, &Budget::default()).unwrap();
        let options = Options {
            quits: false,
            profile,
            ..Options::default()
        };
        let mut f = Front::with(setup.clone(), started, options);
        let s = f.middle.scene().clone();
        assert!(!s.keys.contains("quit"), "{profile:?}: {}", s.keys);
        for key in [
            Key::char('q'),
            Key::char('Q'),
            Key::ctrl('c'),
            Key::ctrl('q'),
        ] {
            assert_eq!(f.middle.key_move(&key), None, "{profile:?} {key:?}");
        }
        let s = f.play([Move::Quit, Move::Interrupt]).clone();
        assert_eq!(f.middle.mode(), &Mode::Board);
        assert!(!f.quit && s.dialog.is_none());
        let s = f.play([Move::Help]).clone();
        let help = s.help.expect("the help");
        assert!(
            help.keys.iter().all(|(_, what)| !what.contains("quit")),
            "{profile:?}: {:?}",
            help.keys
        );
        // After the game too.
        let s = f.play([Move::Cancel, Move::Resign, Move::Confirm]).clone();
        assert!(s.over);
        assert!(!s.keys.contains("quit"), "{}", s.keys);
        let s = f.play([Move::Guess]).clone();
        assert!(!said(&s).contains("quit"), "{}", said(&s));
        // The terminal's front quits.
        let setup = seeded("A4_B8", 3);
        let mut t = Front::with(
            setup.clone(),
            start(&setup, &Budget::default()).unwrap(),
            Options {
                profile,
                ..Options::default()
            },
        );
        assert!(t.middle.key_move(&Key::char('q')).is_some());
        t.play([Move::Quit, Move::Confirm]);
        assert!(t.quit);
    }
}
