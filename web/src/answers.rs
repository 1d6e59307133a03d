//! The heavy questions, answered in the page's Web Workers: the coach's
//! answer on the rays shot, the review of a finished game and a new game's
//! start (the game middle's effects), and a puzzle solved (the Solve tab).
//!
//! Each is the library's own function (`bbx play`'s coach and review,
//! `play::setup::start`, `bbx solve`) on the library's own types, which
//! cross to the worker and back in JSON; the page's memory bounds every
//! search. `on_progress`, a JavaScript function, hears of the work in
//! hand a few times a second.

use std::time::Duration;

use bbx::control::{Budget, Instant};
use bbx::play::coach::{
    News, Question, ReviewRequest, ReviewState, answer_with, review as review_game,
};
use bbx::play::setup::{Setup, start as start_game};
use bbx::puzzle::{Format, Puzzle, parse_atom_counts, parse_puzzle};
use bbx::render::{solve_page, solving_line};
use bbx::solver::count::Prior;
use bbx::solver::solve_report::SolveReport;
use bbx::solver::{self, Limits};
use bbx::{Molecule, Rules};
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::{Page, error, message};

/// What the searches of the page may take: a quarter of what a 32-bit
/// WebAssembly memory can hold, so that the page lives on after a search
/// that hits it.
const MEMORY: u64 = 1 << 30;

/// How often the page hears of the work in hand.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// The budget of every question: the page's memory bound.
fn budget() -> Budget {
    Budget::default().with_memory(Some(MEMORY))
}

/// A callback for the solver that tells `on_progress`, at most every
/// [`PROGRESS_EVERY`], what `say` makes of the count found so far and the
/// time spent.
fn progress<'a>(
    on_progress: &'a js_sys::Function,
    say: impl Fn(usize, Duration) -> String + 'a,
) -> impl FnMut(&Molecule) + 'a {
    let (mut found, started) = (0usize, Instant::now());
    let mut last = started;
    move |_| {
        found += 1;
        if last.elapsed() >= PROGRESS_EVERY {
            last = Instant::now();
            let said = say(found, started.elapsed());
            let _ = on_progress.call1(&JsValue::NULL, &JsValue::from(said));
        }
    }
}

/// The coach's answer to `question` ([`Question`] in JSON, from the game
/// middle's `ask` effect), as [`News`] in JSON for the session's `hear`:
/// the answer, or why the question failed. `on_progress` hears of the
/// molecules found so far, as news too.
#[wasm_bindgen]
pub fn coach(question: &str, on_progress: &js_sys::Function) -> Result<String, JsError> {
    let question: Question = serde_json::from_str(question).map_err(message)?;
    let news = |found: usize, t: Duration| {
        let news = News::Progress(found, t.as_millis() as u64);
        serde_json::to_string(&news).unwrap_or_default()
    };
    let news = match answer_with(&question, &budget(), progress(on_progress, news)) {
        Ok(answer) => News::Answer(Box::new(answer)),
        Err(e) => News::Failed(Box::new(question), e.show(&Page)),
    };
    serde_json::to_string(&news).map_err(message)
}

/// The review of a finished game (`request`, [`ReviewRequest`] in JSON,
/// from the game middle's `review` effect), as [`News`] in JSON: where the
/// review stands once it is all worked out. `on_first` hears the first
/// part (the policy's game, the rays that told nothing new) as soon as it
/// is known, as news too.
#[wasm_bindgen]
pub fn review(request: &str, on_first: &js_sys::Function) -> Result<String, JsError> {
    let request: ReviewRequest = serde_json::from_str(request).map_err(message)?;
    let first = |summary: &bbx::play::coach::ReviewSummary| {
        let state = ReviewState::Ready {
            review: summary.clone(),
            complete: false,
        };
        let news = serde_json::to_string(&News::Review(state)).unwrap_or_default();
        let _ = on_first.call1(&JsValue::NULL, &JsValue::from(news));
    };
    let state = match review_game(&request, &budget(), first) {
        Ok(done) => match (done.value, done.ended) {
            (Some(review), _) => ReviewState::Ready {
                review,
                complete: true,
            },
            (None, ended) => ReviewState::Unavailable(format!(
                "the review stopped short ({})",
                serde_json::to_value(ended).map_or_else(|_| "?".into(), |v| v.to_string())
            )),
        },
        Err(e) => ReviewState::Unavailable(format!("the review failed: {}", e.show(&Page))),
    };
    serde_json::to_string(&News::Review(state)).map_err(message)
}

/// Starts the game of `setup` ([`Setup`] in JSON, from the game middle's
/// `start` effect), which may take long (a molecule whose rays identify
/// it, one of a puzzle's answers): `{"carried": text}` for the session's
/// `begin`, or `{"error": why}`.
#[wasm_bindgen]
pub fn start(setup: &str) -> Result<String, JsError> {
    let setup: Setup = serde_json::from_str(setup).map_err(message)?;
    let begun = start_game(&setup, &budget()).and_then(|s| s.carry());
    Ok(match begun {
        Ok(text) => json!({ "carried": text }),
        Err(e) => json!({ "error": e.show(&Page) }),
    }
    .to_string())
}

/// The limits of a search of the Solve tab: at most `max` molecules,
/// `timeout_ms` milliseconds (none when 0), the page's memory bound.
fn limits(max: usize, timeout_ms: f64) -> Limits {
    let budget = if timeout_ms > 0.0 {
        budget().with_timeout(Duration::from_secs_f64(timeout_ms / 1000.0))
    } else {
        budget()
    };
    Limits {
        max: Some(max.max(1)),
        budget,
    }
}

/// The rules to search: the Solve tab's menu, else the puzzle's.
fn rules_of(field: &str, puzzle: Option<Rules>) -> Result<Rules, JsError> {
    match field.trim() {
        "" => Ok(puzzle.unwrap_or_default()),
        r => r.parse::<Rules>().map_err(message),
    }
}

/// What the Solve tab asks: its fields as typed, and the coach's limits.
#[derive(serde::Deserialize)]
struct SolveIn {
    /// A puzzle pasted or dropped…
    #[serde(default)]
    text: String,
    /// … and its name…
    #[serde(default)]
    origin: String,
    /// … or a puzzle drawn ([`Drawing::observation`](crate::Drawing::observation)).
    #[serde(default)]
    drawing: Option<String>,
    /// The atoms field (empty: the puzzle's count).
    atoms: String,
    /// The rules menu (empty: the puzzle's rules).
    rules: String,
    /// The most molecules listed.
    max: usize,
    /// The time limit, in milliseconds.
    timeout: f64,
    /// The molecules drawn.
    shown: usize,
}

/// Solves the puzzle of the Solve tab (`request`, its fields in JSON: the
/// text of a puzzle in any format `bbx solve` reads, J. Forget's board,
/// the linear form, A. Janns's, a Tatham save file or game ID; or a puzzle
/// drawn) as `bbx solve` does, worded for the page ([`solve_page`] in
/// JSON); the atoms and rules fields, when filled, override the puzzle's.
/// `on_progress` hears a line on the search in hand.
#[wasm_bindgen]
pub fn solve(request: &str, on_progress: &js_sys::Function) -> Result<String, JsError> {
    let r: SolveIn = serde_json::from_str(request).map_err(message)?;
    let limits = limits(r.max, r.timeout);
    let puzzle = match &r.drawing {
        // A puzzle drawn says no count of atoms: the field must.
        Some(drawn) => Puzzle {
            origin: "the puzzle drawn".into(),
            format: Format::Linear,
            observation: crate::drawing::observation(drawn)?,
            atoms: None,
            atom_range: None,
            guess: None,
            rules: None,
        },
        None => parse_puzzle(&r.text, &r.origin, None).map_err(message)?,
    };
    let field = r.atoms.trim();
    let given = (!field.is_empty())
        .then(|| parse_atom_counts(field))
        .transpose()
        .map_err(|why| message(format!("the atoms field '{field}': {why}")))?;
    let atoms = puzzle.atoms_to_search(given).map_err(error)?;
    let rules = rules_of(&r.rules, puzzle.rules)?;
    let (origin, observed, guess) = (puzzle.origin, puzzle.observation, puzzle.guess);
    let started = Instant::now();
    let found = progress(on_progress, solving_line);
    let solution = solver::solve(&observed, rules, atoms, &limits, found).map_err(error)?;
    let mut report = SolveReport::new(&origin, solution, guess.as_ref(), &limits.budget);
    report
        .work_out(Prior::Molecules, &limits.budget)
        .map_err(error)?;
    let page = solve_page(&report, r.shown, started.elapsed(), &Page);
    serde_json::to_string(&page).map_err(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_started_in_a_worker_is_carried_back_whole() {
        let setup = Setup {
            start: bbx::play::setup::Start::Random {
                config: "A5_B8x6".parse().unwrap(),
                unique: false,
            },
            seed: Some(7),
            ..Setup::default()
        };
        let answer: serde_json::Value =
            serde_json::from_str(&start(&serde_json::to_string(&setup).unwrap()).ok().unwrap())
                .unwrap();
        let text = answer["carried"].as_str().unwrap();
        let s = bbx::play::setup::Started::carried(text, Default::default()).unwrap();
        let direct = start_game(&setup, &budget()).unwrap();
        assert_eq!(s.game.hidden(), direct.game.hidden());
        assert_eq!(s.title(), direct.title());
        let bad = Setup {
            start: bbx::play::setup::Start::Text {
                text: "asdf".into(),
                origin: "the text pasted".into(),
            },
            ..Setup::default()
        };
        let answer = start(&serde_json::to_string(&bad).unwrap()).ok().unwrap();
        assert!(answer.contains("\"error\""), "{answer}");
        assert!(answer.contains("the text pasted"), "{answer}");
    }

    #[test]
    fn the_coach_answers_the_middle_s_question_as_news() {
        use bbx::play::middle::{Effect, Middle, Options};
        use bbx::play::moves::{Move, Panel};
        let setup = Setup {
            start: bbx::play::setup::Start::Random {
                config: "A3_B5".parse().unwrap(),
                unique: false,
            },
            seed: Some(7),
            ..Setup::default()
        };
        let (mut game, _) = Middle::new(
            setup.clone(),
            start_game(&setup, &budget()).unwrap(),
            Options::default(),
        );
        game.apply(Move::Shoot(1));
        let effects = game.apply(Move::Coach(Panel::Count));
        let Some(Effect::Ask(q)) = effects.into_iter().next() else {
            panic!("the count asks the coach")
        };
        let q = serde_json::to_string(&q).unwrap();
        let a = answer_with(&serde_json::from_str(&q).unwrap(), &budget(), |_| {}).unwrap();
        let news = serde_json::to_string(&News::Answer(Box::new(a))).unwrap();
        game.hear(serde_json::from_str(&news).unwrap());
        let side = format!("{:?}", game.scene().side);
        assert!(side.contains("molecules fit the rays shot"), "{side}");
    }
}
