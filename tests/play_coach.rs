//! The coach of `bbx play` (on ratatui's `TestBackend`): its count, certain
//! cells and best ray against `bbx solve` and `bbx suggest` on the same rays,
//! a best ray ranked on every molecule, each cell's chance of an atom against
//! `solve --probabilities`, and a policy's next ray along the game
//! `bbx strategy` plays (or why it has none).

use bbx::control::Budget;
use bbx::play::coach::CoachLimits;
use bbx::play::middle::Options;
use bbx::play::session::Session;
use bbx::play::setup::{Setup, Start, start};
use bbx::solver::Certainty;
use serde_json::Value;

use crate::common::play::{
    COACH_WAIT, bbx, board, goto_cell, goto_position, keys, panel, random_game, save, screen, text,
};
use crate::common::temp_dir as scratch;

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
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        options,
    );
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
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        options,
    );
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
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        Options::default(),
    );
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
        let mut app = Session::new(
            setup.clone(),
            start(&setup, &Budget::default()).unwrap(),
            options,
        );
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
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        options.clone(),
    );
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
    let mut app = Session::new(
        setup.clone(),
        start(&setup, &Budget::default()).unwrap(),
        options,
    );
    keys(&mut app, "b");
    let said = policy_said(&mut app, "entropy");
    assert_eq!(said, "entropy's next ray: unknown, too many molecules");
}
