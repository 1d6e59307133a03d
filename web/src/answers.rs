//! The heavy questions, answered in the page's Web Worker: the coach's
//! answer on the rays shot (with a policy's next ray when the player chose
//! one), a puzzle solved, a game started from a puzzle.
//!
//! Each is the library's own answer (`bbx play`'s coach, `bbx solve`), bounded
//! by the time limit and the largest count the page gives; the JSON says what
//! a limit cut short. `on_found`, a JavaScript function, hears how many
//! molecules the search has found, a few times a second, for the page's
//! progress line.

use std::ops::RangeInclusive;
use std::time::Duration;

use bbx::assistant::next::PolicyRay;
use bbx::assistant::strategy::Policy;
use bbx::control::{Budget, Instant};
use bbx::play::coach::{Question, answer_with};
use bbx::play::save::{read_resume, save_text};
use bbx::play::setup::{Start, start as start_game};
use bbx::puzzle::{is_tatham, parse_puzzle};
use bbx::render::{next_ray_line, position_name};
use bbx::rules::config::Shape;
use bbx::rules::notation::Notation;
use bbx::setting::{Setting, Text, serialising_with};
use bbx::solver::report::SolveReport;
use bbx::solver::{self, Limits};
use bbx::{Config, Molecule, Observation, Outcome, Rules};
use serde::Deserialize;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::game::setup;
use crate::{Page, error, message, port_json};

/// What the searches of the page may take: a quarter of what a 32-bit
/// WebAssembly memory can hold, so that the page lives on after a search
/// that hits it.
const MEMORY: u64 = 1 << 30;

/// How often the page hears of the molecules found.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// The limits of one question: at most `max` molecules, `timeout_ms`
/// milliseconds (none when 0 or less), the page's memory bound.
fn limits(max: usize, timeout_ms: f64) -> Limits {
    let budget = Budget::default().with_memory(Some(MEMORY));
    let budget = if timeout_ms > 0.0 {
        budget.with_timeout(Duration::from_secs_f64(timeout_ms / 1000.0))
    } else {
        budget
    };
    Limits {
        max: Some(max.max(1)),
        budget,
    }
}

/// A callback for the solver that tells `on_found` the count found so far,
/// at most every [`PROGRESS_EVERY`].
fn progress(on_found: &js_sys::Function) -> impl FnMut(&Molecule) + '_ {
    let mut found = 0u32;
    let mut last = Instant::now();
    move |_| {
        found += 1;
        if last.elapsed() >= PROGRESS_EVERY {
            last = Instant::now();
            let _ = on_found.call1(&JsValue::NULL, &JsValue::from(found));
        }
    }
}

/// How a bounded piece of work ended, in the words of the JSON.
fn ended_name(e: bbx::control::Ended) -> Value {
    serde_json::to_value(e).unwrap_or(Value::Null)
}

/// A solve report as JSON for the page: `bbx solve --json`'s object (the
/// molecules found cut to the first `shown`), with the time taken, the names of the ranked rays, whether the
/// certain cells are known, why the ranking is not on every molecule
/// (`caveat`, in words) and what stopped it (`ranking_cut`).
fn report_json(report: &SolveReport, elapsed: Duration, shown: usize) -> Value {
    let shape = report.solution().observation.shape();
    let mut v = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        if let Some(Value::Array(a)) = o.get_mut("found") {
            a.truncate(shown);
        }
        if let Some(Value::Array(rays)) = o.get_mut("rays") {
            for r in rays {
                if let Some(q) = r.get("position").and_then(Value::as_u64) {
                    r["name"] = json!(position_name(shape, q as usize));
                }
            }
        }
        o.insert("elapsed_ms".into(), json!(elapsed.as_secs_f64() * 1000.0));
        let known = report.solution().certainty.is_some();
        o.insert("certainty_known".into(), json!(known));
        let caveat = report.ranking_caveat().map(|t| t.show(&Page));
        o.insert("caveat".into(), json!(caveat));
        let cut = report.ranking_cut.map(ended_name);
        o.insert("ranking_cut".into(), json!(cut));
    }
    v
}

/// The coach's question, as [`Play::question`](crate::Play::question)
/// writes it.
#[derive(Deserialize)]
struct QuestionIn {
    observation: String,
    width: usize,
    height: usize,
    rules: String,
    /// The fewest and the most atoms the player is told of.
    atoms: [usize; 2],
}

/// The library's question from the page's JSON.
fn question_of(text: &str) -> Result<Question, JsError> {
    let q: QuestionIn = serde_json::from_str(text).map_err(message)?;
    let shape = Shape::new(q.width, q.height).map_err(error)?;
    let [fewest, most] = q.atoms;
    if fewest > most || most > shape.cells() {
        return Err(message(format!(
            "the question's atoms {fewest} to {most} do not fit a {shape} box"
        )));
    }
    Ok(Question {
        observation: Observation::parse_in(&q.observation, shape, "the game").map_err(message)?,
        rules: q.rules.parse::<Rules>().map_err(message)?,
        atoms: fewest..=most,
    })
}

/// A policy's next ray as JSON for the page: `bbx suggest --json`'s
/// `policy` object (its `why` naming the page's settings), with `line`, the
/// sentence `bbx play`'s coach ends its best-ray panel with: the ray, or in
/// a few words why there is none ([`next_ray_line`]).
fn policy_json(shape: Shape, next: &PolicyRay) -> Value {
    let mut v = serialising_with(&Page, || serde_json::to_value(next)).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        o.insert("line".into(), json!(next_ray_line(shape, next)));
    }
    v
}

/// The policy the page's menu names: none when empty; the error names the
/// five.
fn policy_of(name: &str) -> Result<Option<Policy>, String> {
    match name.trim() {
        "" => Ok(None),
        name => name.parse::<Policy>().map(Some),
    }
}

/// The coach's answer to `question` within `limits` as JSON for the page:
/// [`report_json`]'s object (the first `shown` molecules listed) with
/// `policy`, the next ray of the policy asked for ([`policy_json`]), or
/// null without one. `found` hears of each molecule found.
fn coach_json(
    question: &Question,
    policy: Option<Policy>,
    limits: &Limits,
    shown: usize,
    found: impl FnMut(&Molecule),
) -> Result<Value, bbx::Error> {
    let a = answer_with(question, policy, limits, found)?;
    let shape = question.observation.shape();
    let mut v = report_json(&a.report, a.elapsed, shown);
    if let Value::Object(o) = &mut v {
        let next = a.policy.as_ref().map(|next| policy_json(shape, next));
        o.insert("policy".into(), next.unwrap_or(Value::Null));
    }
    Ok(v)
}

/// The coach's answer on the rays shot (`question`, from
/// [`Play::question`](crate::Play::question)): the molecules that fit (the
/// first `shown` listed), the certain cells, each cell's chance of an atom and
/// the unshot rays ranked, best first — `bbx play`'s coach, and the same
/// count, certain cells and best ray as `bbx suggest` and `bbx solve` on the
/// same rays. With `policy` (`greedy`, `entropy`, `score`, `lookahead` or
/// `rollout`; empty for none), also the ray that policy shoots next, or why
/// there is none, as `bbx play --policy` and `bbx suggest --policy` give it.
/// At most `max` molecules are listed and `timeout_ms` spent, the policy's
/// work included.
#[wasm_bindgen]
pub fn coach(
    question: &str,
    policy: &str,
    max: usize,
    timeout_ms: f64,
    shown: usize,
    on_found: &js_sys::Function,
) -> Result<String, JsError> {
    let question = question_of(question)?;
    let policy = policy_of(policy).map_err(message)?;
    let limits = limits(max, timeout_ms);
    let v = coach_json(&question, policy, &limits, shown, progress(on_found)).map_err(error)?;
    Ok(v.to_string())
}

/// The atom counts to search: the page's field (`N` or `A..B`), else the
/// puzzle's count or range; an error says to fill the field.
fn atom_counts(
    field: &str,
    puzzle_atoms: Option<usize>,
    puzzle_range: Option<RangeInclusive<usize>>,
    shape: Shape,
    origin: &str,
) -> Result<RangeInclusive<usize>, JsError> {
    let field = field.trim();
    let bad = || {
        message(format!(
            "the atoms field '{field}' is not a number N or a range A..B"
        ))
    };
    let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
    let atoms = if field.is_empty() {
        match (puzzle_atoms, puzzle_range) {
            (Some(n), _) => n..=n,
            (None, Some(r)) => r,
            (None, None) => {
                let what = format!(
                    "{origin}: the puzzle does not say how many atoms are hidden: fill in "
                );
                return Err(message(Text::from(what).and(Setting::Atoms).show(&Page)));
            }
        }
    } else if let Some((a, b)) = field.split_once("..") {
        let (a, b) = (number(a)?, number(b.trim_start_matches('='))?);
        if a > b {
            return Err(message(format!(
                "the atoms field '{field}' is an empty range"
            )));
        }
        a..=b
    } else {
        let n = number(field)?;
        n..=n
    };
    let cells = shape.cells();
    if *atoms.end() > cells {
        return Err(message(format!(
            "{} atoms do not fit in the {shape} box ({cells} cells)",
            atoms.end()
        )));
    }
    Ok(atoms)
}

/// Solves `observed` as `bbx solve` does: every molecule that fits, the
/// certain cells, the rays ranked on every molecule where they can be
/// walked, each cell's chance of an atom, and whether `guess` fits.
#[allow(clippy::too_many_arguments)]
fn solve_observed(
    origin: &str,
    observed: &Observation,
    atoms: RangeInclusive<usize>,
    rules: Rules,
    guess: Option<&Molecule>,
    max: usize,
    timeout_ms: f64,
    shown: usize,
    on_found: &js_sys::Function,
) -> Result<String, JsError> {
    let limits = limits(max, timeout_ms);
    let started = Instant::now();
    let solution =
        solver::solve(observed, rules, atoms, &limits, progress(on_found)).map_err(error)?;
    let mut report = SolveReport::new(origin, solution, guess, &limits.budget);
    report.rank_exactly(&limits.budget).map_err(error)?;
    report.count_atoms(&limits.budget).map_err(error)?;
    Ok(report_json(&report, started.elapsed(), shown).to_string())
}

/// Solves the puzzle in `text` (any format `bbx solve` reads: J. Forget's
/// board, the linear form, A. Janns's, a Tatham save file or game ID), as
/// `bbx solve --json` does; `atoms` and `rules` are the page's fields (empty:
/// what the puzzle says). The molecules listed are cut to the first `shown`.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen]
pub fn solve(
    text: &str,
    origin: &str,
    atoms: &str,
    rules: &str,
    max: usize,
    timeout_ms: f64,
    shown: usize,
    on_found: &js_sys::Function,
) -> Result<String, JsError> {
    let puzzle = parse_puzzle(text, origin, None).map_err(message)?;
    let shape = puzzle.observation.shape();
    let atoms = atom_counts(
        atoms,
        puzzle.atoms,
        puzzle.atom_range.clone(),
        shape,
        origin,
    )?;
    let rules = match rules.trim() {
        "" => puzzle.rules.unwrap_or_default(),
        r => r.parse::<Rules>().map_err(message)?,
    };
    let guess = puzzle.guess.as_ref();
    solve_observed(
        origin,
        &puzzle.observation,
        atoms,
        rules,
        guess,
        max,
        timeout_ms,
        shown,
        on_found,
    )
}

/// One ray of a puzzle drawn on the page: its position and result.
#[derive(Deserialize)]
struct RayIn {
    position: usize,
    #[serde(flatten)]
    outcome: Outcome,
}

/// Solves a puzzle drawn by clicking results on the border of a box
/// `width` wide and `height` high: `rays` is a JSON list of `{"position", "result",
/// "exit"}` (an exit pair once, from either end). Positions out of the box,
/// an exit to itself and two results for one position are refused.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen]
pub fn solve_rays(
    width: usize,
    height: usize,
    rays: &str,
    atoms: &str,
    rules: &str,
    max: usize,
    timeout_ms: f64,
    shown: usize,
    on_found: &js_sys::Function,
) -> Result<String, JsError> {
    let shape = Config::shaped(0, Shape::new(width, height).map_err(error)?)
        .map_err(error)?
        .shape();
    let n = shape.positions();
    let rays: Vec<RayIn> = serde_json::from_str(rays).map_err(message)?;
    let mut observed = Observation::empty(shape);
    for r in rays {
        let q = r.position;
        let inside = |k: usize| (1..=n).contains(&k);
        let exit = match r.outcome {
            Outcome::Exit(k) if k == q => {
                return Err(message(format!("ray {q} cannot come out where it went in")));
            }
            Outcome::Exit(k) => Some(k),
            _ => None,
        };
        if !inside(q) || exit.is_some_and(|k| !inside(k)) {
            return Err(message(format!(
                "a ray is outside the border positions 1..={n}"
            )));
        }
        for end in std::iter::once(q).chain(exit) {
            if let Some(old) = observed.get(end) {
                return Err(message(format!(
                    "position {end} has two results ({} and {})",
                    old.words(),
                    r.outcome.words()
                )));
            }
        }
        observed.record(q, r.outcome);
    }
    let atoms = atom_counts(atoms, None, None, shape, "the puzzle drawn")?;
    let rules = match rules.trim() {
        "" => Rules::default(),
        r => r.parse::<Rules>().map_err(message)?,
    };
    solve_observed(
        "the puzzle drawn",
        &observed,
        atoms,
        rules,
        None,
        max,
        timeout_ms,
        shown,
        on_found,
    )
}

/// Where each border position of a box `width` wide and `height` high is,
/// as the game's state gives it ([`Play::state`](crate::Play::state)'s
/// `border`): `{"position", "row", "col", "side", "name"}`, rows and columns
/// counted in the box with its border (rows 0 and height + 1, columns 0 and
/// width + 1 are outside), for the boards of the solver's page.
#[wasm_bindgen]
pub fn border(width: usize, height: usize) -> Result<String, JsError> {
    let shape = Config::shaped(0, Shape::new(width, height).map_err(error)?)
        .map_err(error)?
        .shape();
    let ports: Vec<Value> = (1..=shape.positions())
        .map(|q| port_json(shape, q))
        .collect();
    Ok(Value::Array(ports).to_string())
}

/// What the text of a file is to the game: `tatham` (a save file or game
/// ID of Tatham's Black Box), `saved` (a game saved by bbx, resumed as it
/// was) or `puzzle` (one of its answers is hidden: the solver chooses it, in
/// the worker's [`start`]).
#[wasm_bindgen]
pub fn kind(text: &str) -> String {
    if is_tatham(text) {
        "tatham".into()
    } else if matches!(read_resume(text, "text"), Ok(Some(_))) {
        "saved".into()
    } else {
        "puzzle".into()
    }
}

/// What the page asks the worker to start.
#[derive(Deserialize)]
struct StartIn {
    /// A game named as `bbx play GAME` names it (`A4_B8`, `A5_B8x6`,
    /// `A3-6_B8`, `w8h6m5M5`, `8x8, 3-6 balls`)…
    #[serde(default)]
    config: Option<String>,
    /// … only among molecules whose spectrum identifies them…
    #[serde(default)]
    unique: bool,
    /// … or the text of a puzzle, and its name.
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    origin: String,
    #[serde(default)]
    seed: String,
    #[serde(default)]
    rules: String,
    #[serde(default)]
    judge: String,
    #[serde(default)]
    atoms: String,
}

/// Starts a game that may take long to choose (a molecule with a unique
/// spectrum, one of a puzzle's answers) and hands it over as a saved game:
/// `{"save": text, "title": title}`, which the page opens with
/// [`Play::open`](crate::Play::open).
#[wasm_bindgen]
pub fn start(request: &str) -> Result<String, JsError> {
    let r: StartIn = serde_json::from_str(request).map_err(message)?;
    let start = match (r.config, r.text) {
        (Some(config), None) => match crate::game::named_start(&config)? {
            Start::Random { config, .. } => Start::Random {
                config,
                unique: r.unique,
            },
            _ if r.unique => {
                return Err(message(
                    "only molecules whose rays identify them: this chooses random molecules, and Tatham's generator draws his games (untick it, or give a configuration such as A5_B8x6)",
                ));
            }
            other => other,
        },
        (None, Some(text)) => Start::Text {
            text,
            origin: r.origin,
        },
        _ => return Err(message("start a game from a configuration or from a text")),
    };
    let setup = setup(start, &r.seed, &r.rules, &r.judge, &r.atoms)?;
    let started = start_game(&setup).map_err(error)?;
    let notation = started.notation.unwrap_or(Notation::Letters);
    let save = save_text(&started.game, notation, &Page).map_err(error)?;
    Ok(json!({ "save": save, "title": started.title() }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_on_a_rectangle_reads_its_rays_in_that_box() {
        let play = crate::Play::random("A5_B8x6", "3", "", "").ok().unwrap();
        let q = question_of(&play.question()).ok().unwrap();
        assert_eq!(q.observation.shape(), Shape::new(8, 6).unwrap());
        assert_eq!(q.atoms, 5..=5);
        let range = crate::Play::random("A3-6_B5x9", "3", "", "").ok().unwrap();
        let q = question_of(&range.question()).ok().unwrap();
        assert_eq!(q.observation.shape(), Shape::new(5, 9).unwrap());
        assert_eq!(q.atoms, 3..=6);
    }

    /// The question of a seeded A3_B5 game after rays 1, 7 and 12.
    fn small_question() -> Question {
        let mut play = crate::Play::random("A3_B5", "7", "", "").ok().unwrap();
        for q in [1, 7, 12] {
            play.shoot(q).ok().unwrap();
        }
        question_of(&play.question()).ok().unwrap()
    }

    #[test]
    fn the_coach_names_a_policy_s_next_ray_in_play_s_words() {
        let q = small_question();
        let everything = limits(100_000, 0.0);
        let none = coach_json(&q, None, &everything, 0, |_| {}).unwrap();
        assert!(none["policy"].is_null());
        assert!(none["complete"].as_bool().unwrap());
        for policy in [Policy::Greedy, Policy::Rollout] {
            let v = coach_json(&q, Some(policy), &everything, 0, |_| {}).unwrap();
            let fit = solver::solve(
                &q.observation,
                q.rules,
                q.atoms.clone(),
                &everything,
                |_| {},
            )
            .unwrap();
            let next = bbx::assistant::next::next_ray(
                &fit,
                policy,
                bbx::assistant::strategy::ROLLOUT_EXACT,
                &Budget::default(),
                1,
            );
            let ray = next.ray.expect("a ray tells the molecules apart");
            let p = &v["policy"];
            assert_eq!(p["name"], json!(policy.name()));
            assert_eq!(p["ray"], json!(ray));
            let line = p["line"].as_str().unwrap();
            let start = format!("{policy}'s next ray: {ray} ({})", position_name(5, ray));
            assert!(line.starts_with(&start), "{line}");
            assert_eq!(policy == Policy::Rollout, line.ends_with(" rays"), "{line}");
            // The same count and ranking as without a policy.
            assert_eq!(v["molecules"], none["molecules"]);
            assert_eq!(v["rays"], none["rays"]);
        }
    }

    #[test]
    fn a_policy_s_missing_ray_says_why_and_names_the_page_s_setting() {
        let q = small_question();
        let v = coach_json(&q, Some(Policy::Greedy), &limits(2, 0.0), 0, |_| {}).unwrap();
        let p = &v["policy"];
        assert!(p["ray"].is_null());
        assert_eq!(p["unanswered"], json!("not_listed"));
        assert_eq!(
            p["line"],
            json!("greedy's next ray: unknown until all are listed")
        );
        let why = p["why"].as_str().unwrap();
        assert!(why.contains("the most molecules (Settings)"), "{why}");
    }

    #[test]
    fn a_policy_is_named_as_the_command_line_names_it() {
        assert_eq!(policy_of("").ok().unwrap(), None);
        assert_eq!(policy_of("rollout").ok().unwrap(), Some(Policy::Rollout));
        let wrong = policy_of("best").unwrap_err();
        assert!(
            wrong.contains("greedy, entropy, score, lookahead or rollout"),
            "{wrong}"
        );
    }

    #[test]
    fn the_atoms_searched_default_to_the_puzzle_s() {
        let r = Shape::new(8, 6).unwrap();
        assert_eq!(atom_counts("", Some(5), None, r, "p").ok().unwrap(), 5..=5);
        assert_eq!(
            atom_counts("", None, Some(3..=6), r, "p").ok().unwrap(),
            3..=6
        );
        assert_eq!(
            atom_counts("2..4", Some(5), None, r, "p").ok().unwrap(),
            2..=4
        );
        assert_eq!(atom_counts("48", None, None, r, "p").ok().unwrap(), 48..=48);
    }
}
