//! The coach: what the rays shot so far say, computed by the solver beside
//! the game (a thread in the terminal, a Web Worker on the page) so that
//! the game never waits for it.
//!
//! One [`Question`] covers everything the coach shows: the molecules that
//! fit the rays shot (`bbx solve`), the cells certain to hold an atom or to
//! be empty, each cell's chance of an atom, and the unshot rays ranked by
//! the molecules expected to be left after shooting them (the ranking `bbx
//! suggest` prints, from the same [`SolveReport`]). When the player named a
//! policy of `bbx strategy`, the coach also says which ray that policy
//! shoots next on the molecules that fit ([`next_ray`](crate::assistant::next::next_ray), as `bbx suggest
//! --policy`), or why it shoots none. Each question carries its bounds
//! ([`CoachLimits`]: a time limit and a largest number of molecules listed);
//! what either cut short, the [`Answer`] says.
//!
//! The game middle asks its questions as effects
//! ([`Effect::Ask`](crate::play::middle::Effect::Ask)); a front answers them
//! with [`answer_with`], a plain function, wherever it likes, and hands the
//! [`Answer`] back ([`News`]). `Question`, `Answer` and `News` are plain
//! data that serialise, so that they cross to a Web Worker and back. The
//! terminal's worker is [`Coach`]: it asks on threads of its own, one
//! question at a time (a newer question cancels the one in hand), within a
//! [`child`](Budget::child) of its budget, so that dropping the coach cancels
//! them all. [`Advice`] is what the game knows of the answers.
//!
//! ```
//! use std::time::Duration;
//! use bbx::play::coach::{Advice, Coach, CoachLimits, Question};
//! use bbx::{Observation, Rules};
//! use bbx::assistant::strategy::Policy;
//! let mut coach = Coach::new();
//! let mut advice = Advice::default();
//! let seen = Observation::parse("@&??????????????", "example").unwrap();
//! let question = Question {
//!     observation: seen, rules: Rules::Standard, atoms: 2..=2,
//!     policy: Some(Policy::Greedy), limits: CoachLimits::default(),
//!     prior: Default::default(), part: Default::default(),
//! };
//! coach.ask(advice.question(question.clone()).unwrap());
//! while !advice.is_idle() {
//!     for news in coach.wait(Duration::from_secs(10)) {
//!         advice.hear(news);
//!     }
//! }
//! let answer = advice.answer_for(&question).unwrap();
//! assert!(answer.ended.is_complete() && answer.count > 1);
//! assert!(answer.policy.as_ref().unwrap().ray.is_some());
//! ```

use std::ops::RangeInclusive;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use crate::assistant::next::{
    Candidate, NEXT_RAY_LIMIT, PolicyRay, Stop, Unanswered, next_ray_part,
};
use crate::assistant::strategy::{self, Part, Policy, Review, StrategyOptions};
use crate::control::{Budget, Cancel, Ended, Instant};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Shape;
use crate::rules::ray::Rules;
use crate::rules::spectrum::Observation;
use crate::setting::{Piece, Text};
use crate::solver::count::{self, Prior};
use crate::solver::solve_report::{
    AtomsCount, COUNT_SHARE, Estimate, Known, LISTED_WHEN_COUNTED, SolveReport,
};
use crate::solver::{self, Certainty, Limits, Solution};

/// Bounds on one question to the coach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CoachLimits {
    /// Stop listing after this many molecules.
    pub max: usize,
    /// Give up after this long.
    pub timeout: Duration,
}

impl Default for CoachLimits {
    fn default() -> CoachLimits {
        CoachLimits {
            max: 10_000,
            timeout: Duration::from_secs(5),
        }
    }
}

/// Extra time a solver call may overrun the time limit before its question is
/// answered with what it found.
const GRACE: Duration = Duration::from_secs(1);

/// Which parts of the coach are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Panels {
    /// The number of molecules that fit.
    pub count: bool,
    /// The cells certain to be atoms or empty.
    pub certain: bool,
    /// The best next ray.
    pub best: bool,
    /// Each cell's chance of holding an atom.
    pub chance: bool,
}

impl Panels {
    /// Whether any is on.
    pub fn any(self) -> bool {
        self.count || self.certain || self.best || self.chance
    }
}

/// A question to the coach: what fits these rays?
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Question {
    /// The rays shot.
    #[serde(with = "observation")]
    pub observation: Observation,
    /// Their rules.
    pub rules: Rules,
    /// The atom counts the player is told: the count hidden, or the range
    /// it was drawn in (the coach counts over all of it).
    pub atoms: RangeInclusive<usize>,
    /// The policy whose next ray the answer names, if any.
    pub policy: Option<Policy>,
    /// Its bounds.
    pub limits: CoachLimits,
    /// How likely each molecule is before any ray (a count drawn in a
    /// range first, for a game that drew it so).
    #[serde(default)]
    pub prior: Prior,
    /// The part of rollout's weighing this question asks for, when several
    /// workers share it (see [`Question::parts`]); the whole otherwise.
    #[serde(default, skip_serializing_if = "Part::is_whole")]
    pub part: Part,
}

impl Question {
    /// The questions that `workers` workers answer at once for this one:
    /// under rollout, one per [`Part`] of its weighing (which takes them
    /// longest), each for a worker of its own, their answers joined by
    /// [`Advice::hear`]; otherwise this question whole.
    pub fn parts(&self, workers: usize) -> Vec<Question> {
        if self.policy != Some(Policy::Rollout) || workers < 2 {
            return vec![self.clone()];
        }
        let part = |part| Question {
            part,
            ..self.clone()
        };
        Part::all(workers).into_iter().map(part).collect()
    }

    /// The whole question this one is part of (itself when whole).
    pub fn whole(&self) -> Question {
        Question {
            part: Part::WHOLE,
            ..self.clone()
        }
    }
}

/// How the unshot rays of an [`Answer`] were ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranking {
    /// On every molecule that fits.
    Every,
    /// On a uniform random sample of them, of this many molecules.
    Sample(u64),
    /// Not ranked (the first molecules found are no sample to rank on):
    /// why, when a limit stopped the ranking.
    Unranked(Option<Ended>),
}

/// An unshot ray and how it would split the molecules that fit.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankedRay {
    /// The border position.
    pub position: usize,
    /// The molecules expected to be left after shooting it.
    pub expected_remaining: f64,
    /// What its outcome tells, in bits.
    pub entropy: f64,
    /// How many different outcomes it can give.
    pub outcomes: usize,
}

/// The coach's answer to one [`Question`]: plain data, so that it crosses to
/// and from a Web Worker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// The question it answers.
    pub question: Question,
    /// How many molecules fit: exactly, at least, or estimated, as
    /// [`known`](Answer::known) says.
    pub count: u128,
    /// How the count is known.
    pub known: Known,
    /// When estimated: the estimate and its 95% interval.
    pub estimate: Option<Estimate>,
    /// When counted exactly: the molecules of each count of atoms.
    pub by_atoms: Option<Vec<AtomsCount>>,
    /// How the search ended: complete, or what cut it short.
    pub ended: Ended,
    /// The molecules listed (each one's atoms), in the order found.
    atoms: Vec<Vec<usize>>,
    /// Per cell, what holds in every molecule that fits (`None` when the
    /// search stopped before that was known).
    pub certainty: Option<Vec<Certainty>>,
    /// Per cell, the share of the molecules that fit with an atom there
    /// (`None` when they could not all be counted in the time).
    pub chances: Option<Vec<f64>>,
    /// The unshot rays that tell the molecules apart, best first.
    pub ranked: Vec<RankedRay>,
    /// What the ranking was made on.
    pub ranking: Ranking,
    /// The ray the policy asked for shoots next, or why it shoots none or
    /// that is not known; `None` when no policy was asked for.
    #[serde(with = "policy_ray")]
    pub policy: Option<PolicyRay>,
    /// How long it took, in milliseconds.
    pub elapsed_ms: f64,
}

impl Answer {
    /// The answer of `report` to `question`, and the policy's ray.
    fn of(
        question: &Question,
        report: &SolveReport,
        policy: Option<PolicyRay>,
        elapsed: Duration,
    ) -> Answer {
        let ranking = if report.splits_exact
            || (report.known == Known::Exact && report.count == report.listed as u128)
        {
            Ranking::Every
        } else if let Some(sample) = &report.sample {
            Ranking::Sample(sample.molecules)
        } else {
            Ranking::Unranked(report.ranking_cut)
        };
        let solution = report.solution();
        Answer {
            question: question.clone(),
            count: report.count,
            known: report.known,
            estimate: report.estimate,
            by_atoms: report.by_atoms.clone(),
            ended: report.ended,
            atoms: solution
                .molecules
                .iter()
                .map(|m| m.atoms().to_vec())
                .collect(),
            certainty: report.certainty().map(<[Certainty]>::to_vec),
            chances: report.probabilities.clone(),
            ranked: report
                .splits
                .iter()
                .map(|s| RankedRay {
                    position: s.position,
                    expected_remaining: s.expected_remaining,
                    entropy: s.entropy,
                    outcomes: s.classes.len(),
                })
                .collect(),
            ranking,
            policy,
            elapsed_ms: elapsed.as_secs_f64() * 1000.0,
        }
    }

    /// The answer to the whole question, from the answers to its parts
    /// (each the same but for the policy's part of rollout's weighing):
    /// the rays of every part weighed together, the time of the slowest.
    /// `None` when there are no parts.
    pub fn join(parts: Vec<Answer>) -> Option<Answer> {
        let elapsed_ms = parts.iter().map(|a| a.elapsed_ms).fold(0.0, f64::max);
        let policies: Vec<PolicyRay> = parts.iter().filter_map(|a| a.policy.clone()).collect();
        let first = parts.into_iter().next()?;
        Some(Answer {
            question: first.question.whole(),
            policy: PolicyRay::join(policies, 1),
            elapsed_ms,
            ..first
        })
    }

    /// Per cell, what holds in every molecule that fits (`None` when the
    /// search stopped before that was known).
    pub fn certainty(&self) -> Option<&[Certainty]> {
        self.certainty.as_deref()
    }

    /// Per cell, the share of the molecules that fit with an atom there
    /// (`None` when they could not all be counted in the time).
    pub fn chances(&self) -> Option<&[f64]> {
        self.chances.as_deref()
    }

    /// The box the question is about.
    pub fn shape(&self) -> Shape {
        self.question.observation.shape()
    }

    /// The best ray to shoot next, if any ray tells the molecules apart.
    pub fn best(&self) -> Option<&RankedRay> {
        self.ranked.first()
    }

    /// The molecules listed, in the order found.
    pub fn molecules(&self) -> Vec<Molecule> {
        let shape = self.shape();
        self.atoms
            .iter()
            .filter_map(|a| Molecule::new(shape, a.iter().copied()).ok())
            .collect()
    }

    /// How many molecules were listed.
    pub fn listed(&self) -> usize {
        self.atoms.len()
    }

    /// Whether the molecules listed are all that fit (otherwise the list
    /// covers only some of them).
    pub fn all_listed(&self) -> bool {
        self.known == Known::Exact && self.count == self.atoms.len() as u128
    }

    /// How long it took.
    pub fn elapsed(&self) -> Duration {
        Duration::from_secs_f64(self.elapsed_ms.max(0.0) / 1000.0)
    }
}

/// Answers `question` within `budget`: the molecules that fit (`found` is
/// called with each as it is found, at most the question's most), the
/// cells certain, the unshot rays ranked on every molecule that fits where
/// the box can be walked in the time left (else on a uniform sample, never
/// on those listed), and each cell's chance of an atom: the same report as
/// `bbx solve` and `bbx suggest` give on the same rays. What a limit cut
/// short is said in the report ([`SolveReport::ended`],
/// [`SolveReport::ranking_cut`]). The first step of [`answer_with`],
/// without a policy's next ray.
///
/// ```
/// use bbx::play::coach::{CoachLimits, Question, answer};
/// use bbx::control::Budget;
/// use bbx::{Observation, Rules};
/// let seen = Observation::parse("@&??????????????", "example").unwrap();
/// let q = Question {
///     observation: seen, rules: Rules::Standard, atoms: 2..=2,
///     policy: None, limits: CoachLimits::default(), prior: Default::default(),
///     part: Default::default(),
/// };
/// let report = answer(&q, &Budget::default(), |_| {}).unwrap();
/// assert!(report.ended.is_complete() && report.count > 1 && report.splits_exact);
/// ```
pub fn answer(
    question: &Question,
    budget: &Budget,
    found: impl FnMut(&Molecule),
) -> Result<SolveReport, Error> {
    let q = question;
    // Counted first, exactly where the count walks them within part of the
    // time: the count, the chances, the certain cells, the ranking.
    let share = budget.share(COUNT_SHARE);
    let counted = count::count(&q.observation, q.rules, q.atoms.clone(), &share)?;
    // Listing serves the molecules shown and the policies, which play on
    // every molecule that fits: past the listing limit, a few are enough.
    let max = match &counted.value {
        Some(c) if c.total() > q.limits.max as u128 => q.limits.max.min(LISTED_WHEN_COUNTED),
        _ => q.limits.max,
    };
    let limits = Limits {
        max: Some(max),
        budget: budget.clone(),
    };
    let solution = solver::solve(&q.observation, q.rules, q.atoms.clone(), &limits, found)?;
    let mut report = SolveReport::new("the game", solution, None, budget);
    // Where the count did not finish: the forward walk or a sample.
    report.work_out_with(counted, q.prior, budget)?;
    Ok(report)
}

/// Answers `question` as [`answer`] does, within its time limit and
/// `budget`, then, when it names a policy, with the ray that policy shoots
/// next on the molecules that fit ([`next_ray`](crate::assistant::next::next_ray), with rollout's sets of at
/// most [`ROLLOUT_EXACT`](strategy::ROLLOUT_EXACT) molecules played
/// exactly, as in the review), within what is left: the same ray as `bbx
/// suggest --policy` and `bbx strategy` shoot after the same rays. When the
/// search did not list every molecule, or the budget ran out first, the
/// answer's [`policy`](Answer::policy) says so and gives no ray.
///
/// ```
/// use bbx::assistant::strategy::Policy;
/// use bbx::control::Budget;
/// use bbx::play::coach::{CoachLimits, Question, answer_with};
/// use bbx::{Observation, Rules};
/// let seen = Observation::parse("@&??????????????", "example").unwrap();
/// let q = Question {
///     observation: seen, rules: Rules::Standard, atoms: 2..=2,
///     policy: Some(Policy::Rollout), limits: CoachLimits::default(),
///     prior: Default::default(), part: Default::default(),
/// };
/// let a = answer_with(&q, &Budget::default(), |_| {}).unwrap();
/// let next = a.policy.unwrap();
/// assert!(next.ray.is_some() && next.candidates.len() == 1);
/// ```
pub fn answer_with(
    question: &Question,
    budget: &Budget,
    found: impl FnMut(&Molecule),
) -> Result<Answer, Error> {
    let started = Instant::now();
    let budget = budget.clone().with_timeout(question.limits.timeout);
    let report = answer(question, &budget, found)?;
    let policy = question.policy.map(|p| {
        // Every molecule that fits: listed by the search, or from the count.
        let all = report.every_molecule(NEXT_RAY_LIMIT);
        policy_ray(
            all.as_deref().unwrap_or(report.solution()),
            p,
            &budget,
            question.part,
        )
    });
    Ok(Answer::of(question, &report, policy, started.elapsed()))
}

/// The ray `policy` shoots next on the molecules of `solution`, with the
/// one ray rollout weighs best (its expected rays), on `part` of its
/// weighing.
fn policy_ray(solution: &Solution, policy: Policy, budget: &Budget, part: Part) -> PolicyRay {
    next_ray_part(solution, policy, strategy::ROLLOUT_EXACT, budget, 1, part)
}

/// An observation in JSON: its box and its rays (`@&ab??…`).
mod observation {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Rays {
        width: usize,
        height: usize,
        rays: String,
    }

    pub fn serialize<S: serde::Serializer>(o: &Observation, s: S) -> Result<S::Ok, S::Error> {
        let shape = o.shape();
        serde::Serialize::serialize(
            &Rays {
                width: shape.width,
                height: shape.height,
                rays: o.to_string(),
            },
            s,
        )
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Observation, D::Error> {
        let r: Rays = serde::Deserialize::deserialize(d)?;
        let shape = Shape::new(r.width, r.height).map_err(serde::de::Error::custom)?;
        Observation::parse_in(&r.rays, shape, "the question").map_err(serde::de::Error::custom)
    }
}

/// A policy's next ray in JSON, its words with the settings they name left
/// open (the front names them).
mod policy_ray {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Data {
        policy: Policy,
        exact_below: Option<usize>,
        molecules: usize,
        ray: Option<usize>,
        stop: Option<Stop>,
        candidates: Vec<Candidate>,
        unanswered: Option<Unanswered>,
        why: Option<Vec<Piece>>,
    }

    pub fn serialize<S: serde::Serializer>(p: &Option<PolicyRay>, s: S) -> Result<S::Ok, S::Error> {
        let data = p.as_ref().map(|p| Data {
            policy: p.policy,
            exact_below: p.exact_below,
            molecules: p.molecules,
            ray: p.ray,
            stop: p.stop,
            candidates: p.candidates.clone(),
            unanswered: p.unanswered,
            why: p.why.as_ref().map(|w| w.pieces().to_vec()),
        });
        serde::Serialize::serialize(&data, s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<PolicyRay>, D::Error> {
        let data: Option<Data> = serde::Deserialize::deserialize(d)?;
        Ok(data.map(|p| PolicyRay {
            policy: p.policy,
            exact_below: p.exact_below,
            molecules: p.molecules,
            ray: p.ray,
            stop: p.stop,
            candidates: p.candidates,
            unanswered: p.unanswered,
            why: p
                .why
                .map(|w| w.into_iter().fold(Text::default(), |t, piece| t.and(piece))),
        }))
    }
}

/// The review of a finished game, as the verdict shows it: the policy's game
/// against the same hidden molecule, its averages over every molecule the
/// player could have faced, and the player's rays that told nothing new.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReviewSummary {
    /// The policy.
    pub policy: Policy,
    /// The policy's game against the hidden molecule, or why it was not
    /// worked out (too many molecules).
    pub game: Result<PolicyPlay, String>,
    /// The policy against every molecule (`None` until worked out, or when
    /// not asked for).
    pub average: Option<Average>,
    /// The player's rays, in the order shot, whose result every molecule
    /// still fitting before it agreed on.
    pub idle: Vec<usize>,
}

/// A policy's game against the hidden molecule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PolicyPlay {
    /// The rays it shot.
    pub rays: usize,
    /// Its score.
    pub score: u64,
}

/// A policy's averages over every molecule.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Average {
    /// The molecules, one game each.
    pub molecules: u64,
    /// Mean rays.
    pub rays: f64,
    /// Mean score.
    pub score: f64,
}

impl ReviewSummary {
    /// The summary of a review by `policy`.
    pub fn of(policy: Policy, r: &Review) -> ReviewSummary {
        ReviewSummary {
            policy,
            game: Ok(PolicyPlay {
                rays: r.game.shots.len(),
                score: r.game.score,
            }),
            average: r.average.as_ref().map(|a| Average {
                molecules: a.molecules,
                rays: a.rays_mean,
                score: a.score_mean,
            }),
            idle: r.idle.clone(),
        }
    }
}

/// Where the review of a finished game stands.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    /// Not asked for.
    #[default]
    NotAsked,
    /// Being worked out.
    Working,
    /// Worked out; `complete` once the average over every molecule is in
    /// (or was not asked for).
    Ready {
        /// The review.
        review: ReviewSummary,
        /// Whether nothing more is coming.
        complete: bool,
    },
    /// Not worked out: the configuration is too large (the sentence says
    /// so), or the work failed.
    Unavailable(String),
}

/// The game a review is asked about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReviewRequest {
    /// The hidden molecule.
    #[serde(with = "molecule")]
    pub hidden: Molecule,
    /// The atom counts the player was told: the hidden count, or the range
    /// it was drawn in (the review then covers every count of it).
    pub atoms: RangeInclusive<usize>,
    /// The rules.
    pub rules: Rules,
    /// The policy whose game is shown.
    pub policy: Policy,
    /// Rays given free by a puzzle.
    pub given: Vec<usize>,
    /// The player's rays, in the order shot.
    pub shots: Vec<usize>,
    /// Whether to play the policy against every molecule too, for its
    /// average.
    pub average: bool,
}

/// Reviews the game of `request` within `budget`: the policy's game against
/// the same hidden molecule and the player's rays that told nothing new,
/// given to `first` as soon as they are known, then, when asked, the
/// policy's averages over every molecule the player could have faced (every
/// count of a range). Where those molecules are more than
/// [`REVIEW_LIMIT`](strategy::REVIEW_LIMIT), the policy's game is not worked
/// out (the summary says why, naming what the player was told), and the
/// rays that told nothing new are found by the solver. What a limit cut
/// short comes back as it ended.
pub fn review(
    request: &ReviewRequest,
    budget: &Budget,
    first: impl FnOnce(&ReviewSummary),
) -> Result<crate::control::Finished<Option<ReviewSummary>>, Error> {
    use crate::control::Finished;
    let policy = request.policy;
    let shape = request.hidden.shape();
    let told = crate::rules::config::ConfigRange::new(
        *request.atoms.start(),
        *request.atoms.end(),
        shape,
    )?;
    let count = told.molecule_count();
    if count.is_none_or(|n| n > strategy::REVIEW_LIMIT) {
        let n = count.map_or("too many".to_string(), |n| n.to_string());
        let why = format!(
            "not worked out: {told} has {n} molecules, more than the {} a game is reviewed against",
            strategy::REVIEW_LIMIT
        );
        let idle = match idle_rays(request, budget)? {
            Ok(idle) => idle,
            Err(ended) => return Ok(Finished::new(None, ended)),
        };
        let summary = ReviewSummary {
            policy,
            game: Err(why),
            average: None,
            idle,
        };
        return Ok(Finished::complete(Some(summary)));
    }
    let options = StrategyOptions {
        policy,
        rules: request.rules,
        budget: budget.clone(),
        exact_below: strategy::ROLLOUT_EXACT,
    };
    let done = strategy::review(
        &request.hidden,
        request.atoms.clone(),
        &request.given,
        &request.shots,
        &options,
        request.average,
        |r| first(&ReviewSummary::of(policy, r)),
    )?;
    Ok(Finished::new(
        done.value.map(|r| ReviewSummary::of(policy, &r)),
        done.ended,
    ))
}

/// The player's rays of `request` that told nothing new, found by the
/// solver: a ray tells nothing when no molecule of the counts told that
/// fits the rays before it gives another result on it. How the work ended
/// when the budget stopped it.
fn idle_rays(request: &ReviewRequest, budget: &Budget) -> Result<Result<Vec<usize>, Ended>, Error> {
    let hidden = crate::rules::spectrum::Spectrum::of(&request.hidden, request.rules);
    let shape = request.hidden.shape();
    let mut seen = Observation::empty(shape);
    for &q in &request.given {
        if (1..=shape.positions()).contains(&q) {
            seen.record(q, hidden.get(q));
        }
    }
    let limits = Limits {
        max: Some(1),
        budget: budget.clone(),
    };
    let mut idle = Vec::new();
    for &q in &request.shots {
        if !(1..=shape.positions()).contains(&q) {
            continue;
        }
        if seen.get(q).is_some() {
            // Known already (the other end of an exit pair shot): nothing new.
            idle.push(q);
            continue;
        }
        let o = hidden.get(q);
        let mut others = vec![
            crate::rules::ray::Outcome::Absorbed,
            crate::rules::ray::Outcome::Reflected,
        ];
        if request.rules == Rules::EdgeMiss {
            others.push(crate::rules::ray::Outcome::Miss);
        }
        others.extend(
            (1..=shape.positions())
                .filter(|&k| k != q && seen.get(k).is_none())
                .map(crate::rules::ray::Outcome::Exit),
        );
        let mut told = false;
        for other in others.into_iter().filter(|&x| x != o) {
            let mut probe = seen.clone();
            probe.record(q, other);
            let found = solver::solve(
                &probe,
                request.rules,
                request.atoms.clone(),
                &limits,
                |_| {},
            )?;
            if let Some(cut) = found.ended.cut() {
                return Ok(Err(cut.into()));
            }
            if found.count > 0 {
                told = true;
                break;
            }
        }
        if !told {
            idle.push(q);
        }
        seen.record(q, o);
    }
    Ok(Ok(idle))
}

/// A molecule in JSON: its box and its atoms.
mod molecule {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Atoms {
        width: usize,
        height: usize,
        atoms: Vec<usize>,
    }

    pub fn serialize<S: serde::Serializer>(m: &Molecule, s: S) -> Result<S::Ok, S::Error> {
        let shape = m.shape();
        let atoms = Atoms {
            width: shape.width,
            height: shape.height,
            atoms: m.atoms().to_vec(),
        };
        serde::Serialize::serialize(&atoms, s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Molecule, D::Error> {
        let a: Atoms = serde::Deserialize::deserialize(d)?;
        let shape = Shape::new(a.width, a.height).map_err(serde::de::Error::custom)?;
        Molecule::new(shape, a.atoms).map_err(serde::de::Error::custom)
    }
}

/// What the coach has to say: progress on the question in hand, an answer,
/// a review.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum News {
    /// The question in hand: molecules found so far, and time spent in
    /// milliseconds.
    Progress(usize, u64),
    /// The answer to a question.
    Answer(Box<Answer>),
    /// The question failed, for this reason.
    Failed(Box<Question>, String),
    /// Where the review stands now.
    Review(ReviewState),
}

enum Message {
    Found(u64, Molecule),
    Done(u64, Result<Box<Answer>, String>),
    /// A review (`.1`: whether its average is in).
    Reviewed(u64, bool, Result<ReviewSummary, String>),
}

#[derive(Debug)]
struct Job {
    id: u64,
    question: Question,
    cancel: Cancel,
    started: Instant,
    found: Vec<Molecule>,
}

/// The terminal's worker: asks the solver on threads of its own, one
/// question at a time (a newer question cancels the one in hand), and the
/// review of a finished game beside it.
#[derive(Debug)]
pub struct Coach {
    /// The coach's budget: every question's and review's is a child of it.
    budget: Budget,
    tx: Sender<Message>,
    rx: Receiver<Message>,
    next_id: u64,
    job: Option<Job>,
    review: Option<(u64, Cancel)>,
}

impl Drop for Coach {
    fn drop(&mut self) {
        self.budget.cancel.cancel();
    }
}

impl Default for Coach {
    fn default() -> Coach {
        Coach::new()
    }
}

impl Coach {
    /// A coach with nothing asked yet.
    pub fn new() -> Coach {
        let (tx, rx) = channel();
        Coach {
            budget: Budget::default(),
            tx,
            rx,
            next_id: 0,
            job: None,
            review: None,
        }
    }

    /// Cancels every question and review (a new game starts).
    pub fn reset(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel.cancel();
        }
        if let Some((_, cancel)) = self.review.take() {
            cancel.cancel();
        }
    }

    /// Works out the review of a finished game on a thread of its own
    /// ([`review`]).
    pub fn review(&mut self, request: ReviewRequest) {
        if let Some((_, old)) = self.review.take() {
            old.cancel();
        }
        self.next_id += 1;
        let id = self.next_id;
        let budget = self.budget.child();
        let cancel = budget.cancel.clone();
        let tx = self.tx.clone();
        let spawned = std::thread::Builder::new()
            .name("bbx-review".into())
            .spawn(move || {
                let first = tx.clone();
                let r = review(&request, &budget, |r| {
                    let _ = first.send(Message::Reviewed(id, false, Ok(r.clone())));
                });
                let msg = match r {
                    Ok(done) => match (done.value, done.ended) {
                        (Some(r), Ended::Complete) => Message::Reviewed(id, true, Ok(r)),
                        // Cancelled: a new game, or the coach dropped.
                        _ => return,
                    },
                    Err(e) => Message::Reviewed(id, true, Err(e.to_string())),
                };
                let _ = tx.send(msg);
            });
        if let Err(e) = spawned {
            let _ = self
                .tx
                .send(Message::Reviewed(id, true, Err(e.to_string())));
        }
        self.review = Some((id, cancel));
    }

    /// Asks `question`, unless it is the one in hand; the question in hand,
    /// if another, is cancelled.
    pub fn ask(&mut self, question: Question) {
        if self.job.as_ref().is_some_and(|j| j.question == question) {
            return;
        }
        if let Some(old) = self.job.take() {
            old.cancel.cancel();
        }
        self.next_id += 1;
        let id = self.next_id;
        let budget = self.budget.child();
        let cancel = budget.cancel.clone();
        let tx = self.tx.clone();
        let q = question.clone();
        let spawned = std::thread::Builder::new()
            .name("bbx-coach".into())
            .spawn(move || {
                let found = tx.clone();
                let r = answer_with(&q, &budget, |m| {
                    let _ = found.send(Message::Found(id, m.clone()));
                });
                let _ = tx.send(Message::Done(
                    id,
                    r.map(Box::new).map_err(|e| e.to_string()),
                ));
            });
        if let Err(e) = spawned {
            let _ = self.tx.send(Message::Done(
                id,
                Err(format!("cannot start the coach: {e}")),
            ));
        }
        self.job = Some(Job {
            id,
            question,
            cancel,
            started: Instant::now(),
            found: Vec::new(),
        });
    }

    /// What the workers have said since last asked, without waiting, and
    /// the progress of the question in hand.
    pub fn poll(&mut self) -> Vec<News> {
        let mut news = Vec::new();
        while let Ok(msg) = self.rx.try_recv() {
            self.take(msg, &mut news);
        }
        if let Some(job) = self
            .job
            .take_if(|j| j.started.elapsed() > j.question.limits.timeout + GRACE)
        {
            // Stuck in one long solver call: answer with what was found.
            job.cancel.cancel();
            let q = job.question;
            let atoms = q.atoms.clone();
            let solution = Solution::interrupted(q.observation.clone(), q.rules, atoms, job.found);
            let report = SolveReport::new("the game", solution, None, &Budget::default());
            // Not every molecule listed: the policy's answer says so at once.
            let policy = q
                .policy
                .map(|p| policy_ray(report.solution(), p, &Budget::default(), q.part));
            let answer = Answer::of(&q, &report, policy, job.started.elapsed());
            news.push(News::Answer(Box::new(answer)));
        }
        if let Some(job) = &self.job {
            let ms = job.started.elapsed().as_millis() as u64;
            news.push(News::Progress(job.found.len(), ms));
        }
        news
    }

    /// Waits at most `timeout` for the workers to say something; what they
    /// said, as [`poll`](Coach::poll).
    pub fn wait(&mut self, timeout: Duration) -> Vec<News> {
        let mut news = Vec::new();
        if let Ok(msg) = self.rx.recv_timeout(timeout) {
            self.take(msg, &mut news);
        }
        news.extend(self.poll());
        news
    }

    fn take(&mut self, msg: Message, news: &mut Vec<News>) {
        match msg {
            Message::Found(id, m) => {
                if let Some(job) = self.job.as_mut().filter(|j| j.id == id) {
                    job.found.push(m);
                }
            }
            Message::Done(id, result) => {
                let Some(job) = self.job.take_if(|j| j.id == id) else {
                    return;
                };
                news.push(match result {
                    Ok(mut answer) => {
                        answer.elapsed_ms = job.started.elapsed().as_secs_f64() * 1000.0;
                        News::Answer(answer)
                    }
                    Err(e) => News::Failed(Box::new(job.question), e),
                });
            }
            Message::Reviewed(id, complete, result) => {
                if self.review.as_ref().is_none_or(|(r, _)| *r != id) {
                    return;
                }
                if complete {
                    self.review = None;
                }
                news.push(News::Review(match result {
                    Ok(review) => ReviewState::Ready { review, complete },
                    Err(e) => ReviewState::Unavailable(format!("the review failed: {e}")),
                }));
            }
        }
    }
}

/// What the game knows of the coach's answers: the question in hand and its
/// progress, the latest answer, a failure, the review.
#[derive(Debug, Clone, Default)]
pub struct Advice {
    asked: Option<Question>,
    /// The answers to the parts of the question asked, so far.
    parts: Vec<Answer>,
    progress: Option<(usize, Duration)>,
    answer: Option<Answer>,
    failure: Option<(Question, String)>,
    review: ReviewState,
}

impl Advice {
    /// `question`, unless it is answered, asked or failed already; taken as
    /// asked.
    pub fn question(&mut self, question: Question) -> Option<Question> {
        let failed = self.failure.as_ref().is_some_and(|(q, _)| *q == question);
        if failed || self.answer_for(&question).is_some() || self.asked.as_ref() == Some(&question)
        {
            return None;
        }
        self.asked = Some(question.clone());
        self.parts.clear();
        self.progress = None;
        self.failure = None;
        Some(question)
    }

    /// Takes in what the coach said. The answer to a part of a question
    /// ([`Question::parts`]) waits for the other parts' to make the
    /// answer, and is dropped once the question is no longer asked; a
    /// part that failed fails the question.
    pub fn hear(&mut self, news: News) {
        match news {
            News::Progress(found, ms) => {
                self.progress = Some((found, Duration::from_millis(ms)));
            }
            News::Answer(a) if !a.question.part.is_whole() => {
                let part = a.question.part;
                let asked = self.asked.as_ref() == Some(&a.question.whole());
                if !asked || self.parts.iter().any(|p| p.question.part == part) {
                    return;
                }
                self.parts.push(*a);
                if self.parts.len() == part.of {
                    let mut parts = std::mem::take(&mut self.parts);
                    parts.sort_by_key(|p| p.question.part.index);
                    self.answer = Answer::join(parts);
                    self.asked = None;
                }
            }
            News::Answer(a) => {
                if self.asked.as_ref() == Some(&a.question) {
                    self.asked = None;
                }
                self.answer = Some(*a);
            }
            News::Failed(q, why) => {
                let q = q.whole();
                if self.asked.as_ref() == Some(&q) {
                    self.asked = None;
                    self.parts.clear();
                }
                self.failure = Some((q, why));
            }
            News::Review(r) => self.review = r,
        }
    }

    /// Records where the review stands (asked, or not to be asked).
    pub fn set_review(&mut self, review: ReviewState) {
        self.review = review;
    }

    /// The answer to exactly this question, if it is in.
    pub fn answer_for(&self, question: &Question) -> Option<&Answer> {
        self.answer.as_ref().filter(|a| a.question == *question)
    }

    /// The latest answer, if it is about exactly these rays (whatever its
    /// policy and limits).
    pub fn latest(&self, observed: &Observation) -> Option<&Answer> {
        self.answer
            .as_ref()
            .filter(|a| a.question.observation == *observed)
    }

    /// While a question is being worked on: molecules found so far and time
    /// spent.
    pub fn progress(&self) -> Option<(usize, Duration)> {
        self.asked.as_ref().and(self.progress)
    }

    /// Why `question` failed, if it did.
    pub fn failure(&self, question: &Question) -> Option<&str> {
        self.failure
            .as_ref()
            .filter(|(q, _)| q == question)
            .map(|(_, why)| why.as_str())
    }

    /// Where the review of the finished game stands.
    pub fn review(&self) -> &ReviewState {
        &self.review
    }

    /// Whether a question is being worked on.
    pub fn is_asking(&self) -> bool {
        self.asked.is_some()
    }

    /// Whether nothing is being worked on (the review included).
    pub fn is_idle(&self) -> bool {
        self.asked.is_none()
            && !matches!(
                self.review,
                ReviewState::Working
                    | ReviewState::Ready {
                        complete: false,
                        ..
                    }
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(o: &Observation, atoms: usize, policy: Option<Policy>) -> Question {
        Question {
            observation: o.clone(),
            rules: Rules::Standard,
            atoms: atoms..=atoms,
            policy,
            limits: CoachLimits::default(),
            prior: Prior::Molecules,
            part: Part::WHOLE,
        }
    }

    /// Asks every question of `asked` in turn, and waits for the coach to
    /// be idle.
    fn answer(coach: &mut Coach, advice: &mut Advice, asked: &[Question]) {
        for q in asked {
            coach.ask(advice.question(q.clone()).unwrap());
        }
        let end = Instant::now() + Duration::from_secs(20);
        while !advice.is_idle() {
            assert!(Instant::now() < end, "the coach answers in time");
            for news in coach.wait(Duration::from_millis(100)) {
                advice.hear(news);
            }
        }
    }

    #[test]
    fn newer_questions_cancel_older_ones_and_stale_answers_are_not_shown() {
        let (mut coach, mut advice) = (Coach::new(), Advice::default());
        let a = question(
            &Observation::parse("@&??????????????", "t").unwrap(),
            2,
            None,
        );
        let b = question(
            &Observation::parse("@&ab@&@?ba??????", "t").unwrap(),
            2,
            None,
        );
        answer(&mut coach, &mut advice, &[a.clone(), b.clone()]);
        assert!(
            advice.answer_for(&a).is_none(),
            "replaced by the newer answer"
        );
        let ans = advice.answer_for(&b).unwrap();
        assert!(ans.ended.is_complete());
        assert!(
            ans.molecules()
                .contains(&"O-O-------------".parse().unwrap())
        );
        assert_eq!(advice.question(b), None, "answered");
    }

    #[test]
    fn the_parts_of_a_rollout_question_answer_it_whole() {
        let seen = Observation::parse("@&??????????????", "t").unwrap();
        let q = question(&seen, 2, Some(Policy::Rollout));
        let budget = Budget::default();
        let mut whole = answer_with(&q, &budget, |_| {}).unwrap();
        assert_eq!(q.parts(1), std::slice::from_ref(&q));
        let greedy = question(&seen, 2, Some(Policy::Greedy));
        assert_eq!(
            greedy.parts(3),
            std::slice::from_ref(&greedy),
            "only rollout weighs at length"
        );
        for workers in 2..=4 {
            let parts = q.parts(workers);
            assert_eq!(parts.len(), workers);
            assert!(parts.iter().all(|p| p.whole() == q && p.part.of == workers));
            let mut answers: Vec<Answer> = (parts.iter())
                .map(|p| answer_with(p, &budget, |_| {}).unwrap())
                .collect();
            answers.reverse();
            let mut advice = Advice::default();
            assert_eq!(advice.question(q.clone()), Some(q.clone()));
            // An answer to another question's part is stale, and one part
            // twice counts once.
            let other = question(&seen, 2, Some(Policy::Rollout)).parts(workers);
            let mut stale = answer_with(&other[0], &Budget::default(), |_| {}).unwrap();
            stale.question.atoms = 3..=3;
            advice.hear(News::Answer(Box::new(stale)));
            let last = answers.pop().unwrap();
            for a in &answers {
                advice.hear(News::Answer(Box::new(a.clone())));
                advice.hear(News::Answer(Box::new(a.clone())));
                assert!(advice.is_asking() && advice.answer_for(&q).is_none());
            }
            advice.hear(News::Answer(Box::new(last)));
            let mut joined = advice.answer_for(&q).unwrap().clone();
            assert!(!advice.is_asking());
            (joined.elapsed_ms, whole.elapsed_ms) = (0.0, 0.0);
            assert_eq!(joined, whole, "{workers} workers");
            // A part that fails fails the question.
            let mut advice = Advice::default();
            advice.question(q.clone());
            advice.hear(News::Answer(Box::new(answers[0].clone())));
            advice.hear(News::Failed(Box::new(parts[1].clone()), "lost".into()));
            assert_eq!(advice.failure(&q), Some("lost"));
            assert!(!advice.is_asking() && advice.answer_for(&q).is_none());
        }
    }

    #[test]
    fn the_limits_make_a_count_partial() {
        let (mut coach, mut advice) = (Coach::new(), Advice::default());
        let mut q = question(&Observation::empty(8), 4, Some(Policy::Greedy));
        q.limits.max = 10;
        answer(&mut coach, &mut advice, std::slice::from_ref(&q));
        let ans = advice.answer_for(&q).unwrap();
        assert!(ans.molecules().len() <= 10);
        assert!(!ans.all_listed());
        // The policy weighs every molecule that fits: the count lists them.
        let next = ans.policy.as_ref().unwrap();
        assert_eq!(
            (next.ray, next.unanswered, next.molecules),
            (Some(2), None, 635_376)
        );
    }

    /// An answer crosses to a Web Worker and back as JSON, the settings its
    /// words name left for the front to name.
    #[test]
    fn an_answer_and_a_review_cross_as_json() {
        // No time: the policy's answer names the time limit.
        let mut q = question(&Observation::empty(8), 4, Some(Policy::Greedy));
        q.limits.timeout = Duration::ZERO;
        let a = answer_with(&q, &Budget::default(), |_| {}).unwrap();
        let json = serde_json::to_string(&News::Answer(Box::new(a.clone()))).unwrap();
        let back: News = serde_json::from_str(&json).unwrap();
        assert_eq!(back, News::Answer(Box::new(a.clone())));
        let why = a.policy.as_ref().unwrap().why.as_ref().unwrap();
        assert!(why.settings().next().is_some(), "{why:?}");
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let request = ReviewRequest {
            hidden,
            atoms: 2..=2,
            rules: Rules::Standard,
            policy: Policy::Greedy,
            given: vec![],
            shots: vec![1, 3],
            average: true,
        };
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(
            serde_json::from_str::<ReviewRequest>(&json).unwrap(),
            request
        );
        let r = review(&request, &Budget::default(), |_| {}).unwrap();
        let state = News::Review(ReviewState::Ready {
            review: r.value.unwrap(),
            complete: true,
        });
        let json = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<News>(&json).unwrap(), state);
    }

    /// The solver finds the rays that told nothing new as the table of
    /// every molecule does, on a range and a configuration, given rays too.
    #[test]
    fn idle_rays_by_the_solver_agree_with_the_table() {
        let options = StrategyOptions::new(Policy::Greedy);
        for (hidden, atoms, given, shots) in [
            (
                "O-O-------------",
                1..=3,
                vec![],
                vec![1, 6, 2, 3, 10, 16, 8, 4],
            ),
            ("O-O-------------", 2..=2, vec![1], vec![1, 3, 10, 5, 9, 12]),
            (
                "-O----O--O------",
                2..=4,
                vec![2],
                vec![7, 11, 14, 15, 16, 1],
            ),
        ] {
            let hidden: Molecule = hidden.parse().unwrap();
            let request = ReviewRequest {
                hidden: hidden.clone(),
                atoms: atoms.clone(),
                rules: Rules::Standard,
                policy: Policy::Greedy,
                given: given.clone(),
                shots: shots.clone(),
                average: false,
            };
            let by_solver = idle_rays(&request, &Budget::default()).unwrap().unwrap();
            let by_table =
                strategy::review(&hidden, atoms, &given, &shots, &options, false, |_| {})
                    .unwrap()
                    .value
                    .unwrap()
                    .idle;
            assert_eq!(by_solver, by_table, "{hidden} {shots:?}");
        }
    }

    /// With a policy, the coach's answer names the ray `next_ray` gives on
    /// the molecules the solver lists for the same rays (rollout's expected
    /// rays too); without one, none.
    #[test]
    fn the_answer_names_the_policys_next_ray_as_next_ray_does() {
        let limits = Limits::default();
        let config: crate::rules::config::Config = "A3_B5".parse().unwrap();
        let hidden: Molecule = "O-----O-----O------------".parse().unwrap();
        let outcomes = crate::rules::ray::outcome_table(&[hidden], Rules::Standard).remove(0);
        let mut seen = Observation::empty(config.shape());
        // The opening, then after each of a few rays of the hidden molecule.
        for q in [None, Some(1), Some(8), Some(13)] {
            if let Some(q) = q {
                seen.record(q, outcomes[q - 1]);
            }
            let none = answer_with(&question(&seen, 3, None), &Budget::default(), |_| {}).unwrap();
            assert_eq!(none.policy, None);
            let fit = solver::solve(&seen, Rules::Standard, 3..=3, &limits, |_| {}).unwrap();
            for policy in Policy::ALL {
                let asked = question(&seen, 3, Some(policy));
                let a = answer_with(&asked, &Budget::default(), |_| {}).unwrap();
                let expected = crate::assistant::next::next_ray(
                    &fit,
                    policy,
                    strategy::ROLLOUT_EXACT,
                    &limits.budget,
                    1,
                );
                let got = a.policy.unwrap();
                assert_eq!(got, expected, "{policy} after {q:?}");
                assert!(got.ray.is_some(), "{policy} after {q:?}: {got:?}");
                assert_eq!(a.count, none.count);
            }
        }
    }
}
