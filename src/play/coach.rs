//! The coach: what the rays shot so far say, computed by the solver on a
//! worker thread so that the game never waits for it.
//!
//! One question covers everything the coach shows: the molecules that fit the
//! rays shot (`bbx solve`), the cells certain to hold an atom or to be empty,
//! and the unshot rays ranked by the molecules expected to be left after
//! shooting them (the ranking `bbx suggest` prints, from the same
//! [`SolveReport`]). When the player named a policy of `bbx strategy`, the
//! coach also says which ray that policy shoots next on the molecules that
//! fit ([`next_ray`], as `bbx suggest --policy`), or why it shoots none.
//! Each question is bounded by [`CoachLimits`]: a time limit and a largest
//! number of molecules; a count stopped by either is reported as "at
//! least". A question whose solver call overruns its time limit is answered
//! with what it found.
//!
//! The answer to one question is [`answer_with`] (with the policy's next
//! ray) or [`answer`] (without), plain functions that any front may call on
//! a thread (or a Web Worker) of its own. In the terminal the
//! coach is in two parts, as the game is: [`Coach`], the worker that the
//! game's loop owns, asked [`Question`]s and [`ReviewRequest`]s and answering
//! with [`News`]; and [`Advice`], what the game's state knows of those
//! answers. The coach's limits are a [`Budget`]: every question and review
//! works within a [`child`](Budget::child) of it, with a token of its own,
//! so that a question superseded by a newer one (another ray shot) is
//! cancelled alone, and dropping the coach cancels them all.
//!
//! ```
//! use std::time::Duration;
//! use bbx::play::coach::{Advice, Coach, CoachLimits};
//! use bbx::{Observation, Rules};
//! use bbx::assistant::strategy::Policy;
//! let mut coach = Coach::new(CoachLimits::default(), Some(Policy::Greedy));
//! let mut advice = Advice::default();
//! let seen = Observation::parse("@&??????????????", "example").unwrap();
//! coach.ask(advice.question(&seen, Rules::Standard, 2..=2).unwrap());
//! while !advice.is_idle() {
//!     for news in coach.wait(Duration::from_secs(10)) {
//!         advice.hear(news);
//!     }
//! }
//! let answer = advice.answer_for(&seen).unwrap();
//! assert!(answer.report.ended.is_complete() && answer.report.count > 1);
//! assert!(answer.policy.as_ref().unwrap().ray.is_some());
//! ```

use std::ops::RangeInclusive;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use crate::assistant::next::{PolicyRay, next_ray};
use crate::assistant::strategy::{self, Policy, Review, StrategyOptions};
use crate::control::{Budget, Cancel, Ended, Instant};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::ray::Rules;
use crate::rules::spectrum::Observation;
use crate::solver::report::SolveReport;
use crate::solver::{self, Certainty, Limits, Solution, Split};

/// Bounds on one question to the coach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoachLimits {
    /// Stop counting after this many molecules.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The rays shot.
    pub observation: Observation,
    /// Their rules.
    pub rules: Rules,
    /// The atom counts the player is told: the count hidden, or the range
    /// it was drawn in (the coach counts over all of it).
    pub atoms: RangeInclusive<usize>,
}

/// The coach's answer for one set of rays.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The rays it answers for.
    pub observation: Observation,
    /// What the solver found.
    pub report: SolveReport,
    /// How long it took.
    pub elapsed: Duration,
    /// The ray the policy asked for shoots next, or why it shoots none or
    /// that is not known (see [`answer_with`]); `None` when no policy was
    /// asked for.
    pub policy: Option<PolicyRay>,
}

impl Answer {
    /// The best ray to shoot next, if any ray tells the molecules apart.
    pub fn best(&self) -> Option<&Split> {
        self.report.splits.first()
    }

    /// Per cell, the share of the molecules that fit with an atom there
    /// (`None` when they could not all be counted in the time).
    pub fn chances(&self) -> Option<&[f64]> {
        self.report.probabilities.as_deref()
    }

    /// Per cell, what holds in every molecule that fits (`None` when the
    /// search stopped before that was known).
    pub fn certainty(&self) -> Option<&[Certainty]> {
        self.report.solution().certainty.as_deref()
    }

    /// The molecules found.
    pub fn molecules(&self) -> &[Molecule] {
        &self.report.solution().molecules
    }

    /// Whether the molecules listed are all that fit (otherwise the list,
    /// and a ranking of rays built on it, covers only some of them).
    pub fn all_listed(&self) -> bool {
        self.report.ended.is_complete() && self.report.count == self.report.listed as u128
    }
}

/// Answers `question` within `limits`: the molecules that fit (`found` is
/// called with each as it is found), the cells certain, the unshot rays
/// ranked on every molecule that fits where the box can be walked in the
/// time left (else on a uniform sample, or on those listed), and each cell's
/// chance of an atom. The same answer as `bbx solve` and `bbx suggest` give
/// on the same rays; what a limit cut short is said in the report
/// ([`SolveReport::ended`], [`SolveReport::ranking_cut`]). The first step of
/// [`answer_with`], without a policy's next ray.
///
/// ```
/// use bbx::play::coach::{Question, answer};
/// use bbx::solver::Limits;
/// use bbx::{Observation, Rules};
/// let seen = Observation::parse("@&??????????????", "example").unwrap();
/// let q = Question { observation: seen, rules: Rules::Standard, atoms: 2..=2 };
/// let report = answer(&q, &Limits::default(), |_| {}).unwrap();
/// assert!(report.ended.is_complete() && report.count > 1 && report.splits_exact);
/// ```
pub fn answer(
    question: &Question,
    limits: &Limits,
    found: impl FnMut(&Molecule),
) -> Result<SolveReport, Error> {
    let q = question;
    let solution = solver::solve(&q.observation, q.rules, q.atoms.clone(), limits, found)?;
    // The best ray on every molecule that fits, not only the first ones
    // found, where the box can be walked in the time left.
    let mut report = SolveReport::new("the game", solution, None, &limits.budget);
    report.rank_exactly(&limits.budget)?;
    // Each cell's chance of an atom, from the same count (or the molecules
    // listed, when they are all).
    report.count_atoms(&limits.budget)?;
    Ok(report)
}

/// Answers `question` as [`answer`] does, then, when `policy` is given, with
/// the ray it shoots next on the molecules that fit ([`next_ray`], with
/// rollout's sets of at most [`ROLLOUT_EXACT`](strategy::ROLLOUT_EXACT)
/// molecules played exactly, as in the review), within what is left of
/// `limits`'s budget: the same ray as `bbx suggest --policy` and `bbx
/// strategy` shoot after the same rays. When the search did not list every
/// molecule, or the budget ran out first, the answer's
/// [`policy`](Answer::policy) says so and gives no ray.
///
/// ```
/// use bbx::assistant::strategy::Policy;
/// use bbx::play::coach::{Question, answer_with};
/// use bbx::solver::Limits;
/// use bbx::{Observation, Rules};
/// let seen = Observation::parse("@&??????????????", "example").unwrap();
/// let q = Question { observation: seen, rules: Rules::Standard, atoms: 2..=2 };
/// let a = answer_with(&q, Some(Policy::Rollout), &Limits::default(), |_| {}).unwrap();
/// let next = a.policy.unwrap();
/// assert!(next.ray.is_some() && next.candidates.len() == 1);
/// ```
pub fn answer_with(
    question: &Question,
    policy: Option<Policy>,
    limits: &Limits,
    found: impl FnMut(&Molecule),
) -> Result<Answer, Error> {
    let started = Instant::now();
    let report = answer(question, limits, found)?;
    let policy = policy.map(|p| policy_ray(&report, p, &limits.budget));
    Ok(Answer {
        observation: question.observation.clone(),
        report,
        elapsed: started.elapsed(),
        policy,
    })
}

/// The ray `policy` shoots next on the molecules of `report`, with the one
/// ray rollout weighs best (its expected rays).
fn policy_ray(report: &SolveReport, policy: Policy, budget: &Budget) -> PolicyRay {
    next_ray(
        report.solution(),
        policy,
        strategy::ROLLOUT_EXACT,
        budget,
        1,
    )
}

/// Where the review of a finished game stands.
#[derive(Debug, Clone, PartialEq, Default)]
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
        review: Box<Review>,
        /// Whether nothing more is coming.
        complete: bool,
    },
    /// Not worked out: the configuration is too large (the sentence says
    /// so), or the work failed.
    Unavailable(String),
}

/// The game a review is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRequest {
    /// The hidden molecule.
    pub hidden: Molecule,
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

/// What the coach has to say: progress on the question in hand, an answer,
/// a review.
#[derive(Debug, Clone)]
pub enum News {
    /// The question in hand: molecules found so far, and time spent.
    Progress(usize, Duration),
    /// The answer to the question in hand.
    Answer(Box<Answer>),
    /// The question about these rays failed, for this reason.
    Failed(Observation, String),
    /// Where the review stands now.
    Review(ReviewState),
}

enum Message {
    Found(u64, Molecule),
    Done(u64, Result<Box<Answer>, String>),
    /// A review (`.1`: whether its average is in).
    Reviewed(u64, bool, Result<Box<Review>, String>),
}

#[derive(Debug)]
struct Job {
    id: u64,
    question: Question,
    cancel: Cancel,
    started: Instant,
    found: Vec<Molecule>,
}

/// The worker: asks the solver on threads of its own, one question at a
/// time (a newer question cancels the one in hand), and the review of a
/// finished game beside it.
#[derive(Debug)]
pub struct Coach {
    limits: CoachLimits,
    /// The policy whose next ray every answer gives, if any.
    policy: Option<Policy>,
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

impl Coach {
    /// A coach with nothing asked yet, each question bounded by `limits`;
    /// with a `policy`, each answer also gives the ray it shoots next
    /// ([`answer_with`]).
    pub fn new(limits: CoachLimits, policy: Option<Policy>) -> Coach {
        let (tx, rx) = channel();
        Coach {
            limits,
            policy,
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

    /// Works out the review of a finished game on a thread of its own: the
    /// policy's game against the same hidden molecule and the player's rays
    /// that told nothing new first, then, when asked, the policy's averages
    /// over every molecule of the configuration.
    pub fn review(&mut self, request: ReviewRequest) {
        if let Some((_, old)) = self.review.take() {
            old.cancel();
        }
        self.next_id += 1;
        let id = self.next_id;
        let budget = self.budget.child();
        let cancel = budget.cancel.clone();
        let tx = self.tx.clone();
        let options = StrategyOptions {
            policy: request.policy,
            rules: request.rules,
            budget,
            exact_below: strategy::ROLLOUT_EXACT,
        };
        let spawned = std::thread::Builder::new()
            .name("bbx-review".into())
            .spawn(move || {
                let first = tx.clone();
                let r = strategy::review(
                    &request.hidden,
                    &request.given,
                    &request.shots,
                    &options,
                    request.average,
                    |r| {
                        let _ = first.send(Message::Reviewed(id, false, Ok(Box::new(r.clone()))));
                    },
                );
                let msg = match r {
                    Ok(done) => match (done.value, done.ended) {
                        (Some(r), Ended::Complete) => Message::Reviewed(id, true, Ok(Box::new(r))),
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
        let budget = self.budget.child().with_timeout(self.limits.timeout);
        let cancel = budget.cancel.clone();
        let tx = self.tx.clone();
        let limits = Limits {
            max: Some(self.limits.max),
            budget,
        };
        let q = question.clone();
        let policy = self.policy;
        let spawned = std::thread::Builder::new()
            .name("bbx-coach".into())
            .spawn(move || {
                let found = tx.clone();
                let r = answer_with(&q, policy, &limits, |m| {
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
            .take_if(|j| j.started.elapsed() > self.limits.timeout + GRACE)
        {
            // Stuck in one long solver call: answer with what was found.
            job.cancel.cancel();
            let q = job.question;
            let atoms = q.atoms.clone();
            let solution = Solution::interrupted(q.observation.clone(), q.rules, atoms, job.found);
            let report = SolveReport::new("the game", solution, None, &Budget::default());
            // Not every molecule listed: the policy's answer says so at once.
            let policy = self
                .policy
                .map(|p| policy_ray(&report, p, &Budget::default()));
            news.push(News::Answer(Box::new(Answer {
                observation: q.observation,
                report,
                elapsed: job.started.elapsed(),
                policy,
            })));
        }
        if let Some(job) = &self.job {
            news.push(News::Progress(job.found.len(), job.started.elapsed()));
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
                let observation = job.question.observation;
                news.push(match result {
                    Ok(mut answer) => {
                        answer.elapsed = job.started.elapsed();
                        News::Answer(answer)
                    }
                    Err(e) => News::Failed(observation, e),
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
    asked: Option<Observation>,
    progress: Option<(usize, Duration)>,
    answer: Option<Answer>,
    failure: Option<(Observation, String)>,
    review: ReviewState,
}

impl Advice {
    /// The question to ask about `observed` (with `atoms` atoms under
    /// `rules`: the count hidden, or the range the player is told), unless
    /// it is answered, asked or failed already; taken as asked.
    pub fn question(
        &mut self,
        observed: &Observation,
        rules: Rules,
        atoms: RangeInclusive<usize>,
    ) -> Option<Question> {
        let failed = self.failure.as_ref().is_some_and(|(o, _)| o == observed);
        if failed || self.answer_for(observed).is_some() || self.asked.as_ref() == Some(observed) {
            return None;
        }
        self.asked = Some(observed.clone());
        self.progress = None;
        self.failure = None;
        Some(Question {
            observation: observed.clone(),
            rules,
            atoms,
        })
    }

    /// Takes in what the coach said.
    pub fn hear(&mut self, news: News) {
        match news {
            News::Progress(found, t) => self.progress = Some((found, t)),
            News::Answer(a) => {
                if self.asked.as_ref() == Some(&a.observation) {
                    self.asked = None;
                }
                self.answer = Some(*a);
            }
            News::Failed(o, why) => {
                if self.asked.as_ref() == Some(&o) {
                    self.asked = None;
                }
                self.failure = Some((o, why));
            }
            News::Review(r) => self.review = r,
        }
    }

    /// Records where the review stands (asked, or not to be asked).
    pub fn set_review(&mut self, review: ReviewState) {
        self.review = review;
    }

    /// The answer for exactly these rays, if it is ready.
    pub fn answer_for(&self, observed: &Observation) -> Option<&Answer> {
        self.answer.as_ref().filter(|a| a.observation == *observed)
    }

    /// While a question is being worked on: molecules found so far and time
    /// spent.
    pub fn progress(&self) -> Option<(usize, Duration)> {
        self.asked.as_ref().and(self.progress)
    }

    /// Why the last question failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_ref().map(|(_, why)| why.as_str())
    }

    /// Where the review of the finished game stands.
    pub fn review(&self) -> &ReviewState {
        &self.review
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
    use crate::assistant::next::Unanswered;
    use crate::play::words::count_sentence;

    /// Asks `seen` and every question after it in `then`, and waits for the
    /// coach to be idle.
    fn answer(coach: &mut Coach, advice: &mut Advice, asked: &[(&Observation, usize)]) {
        for (o, atoms) in asked {
            coach.ask(
                advice
                    .question(o, Rules::Standard, *atoms..=*atoms)
                    .unwrap(),
            );
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
        let (mut coach, mut advice) = (Coach::new(CoachLimits::default(), None), Advice::default());
        let a = Observation::parse("@&??????????????", "t").unwrap();
        let b = Observation::parse("@&ab@&@?ba??????", "t").unwrap();
        answer(&mut coach, &mut advice, &[(&a, 2), (&b, 2)]);
        assert!(
            advice.answer_for(&a).is_none(),
            "replaced by the newer answer"
        );
        let ans = advice.answer_for(&b).unwrap();
        assert!(ans.report.ended.is_complete());
        assert!(
            ans.molecules()
                .contains(&"O-O-------------".parse().unwrap())
        );
        assert_eq!(
            advice.question(&b, Rules::Standard, 2..=2),
            None,
            "answered"
        );
    }

    #[test]
    fn the_limits_make_a_count_partial() {
        let limits = CoachLimits {
            max: 10,
            timeout: Duration::from_secs(5),
        };
        let mut coach = Coach::new(limits, Some(Policy::Greedy));
        let mut advice = Advice::default();
        let none = Observation::empty(8);
        answer(&mut coach, &mut advice, &[(&none, 4)]);
        let ans = advice.answer_for(&none).unwrap();
        assert!(ans.molecules().len() <= 10);
        assert!(!ans.all_listed());
        let words = count_sentence(ans, "no ray");
        assert!(
            words.starts_with("at least ") || ans.report.count > 10,
            "{words}"
        );
        // The policy weighs every molecule that fits: it says it cannot.
        let next = ans.policy.as_ref().unwrap();
        assert_eq!(
            (next.ray, next.unanswered),
            (None, Some(Unanswered::NotListed))
        );
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
            let question = Question {
                observation: seen.clone(),
                rules: Rules::Standard,
                atoms: 3..=3,
            };
            let none = answer_with(&question, None, &limits, |_| {}).unwrap();
            assert_eq!(none.policy, None);
            let atoms = question.atoms.clone();
            let fit = solver::solve(&seen, Rules::Standard, atoms, &limits, |_| {}).unwrap();
            for policy in Policy::ALL {
                let a = answer_with(&question, Some(policy), &limits, |_| {}).unwrap();
                let expected = next_ray(&fit, policy, strategy::ROLLOUT_EXACT, &limits.budget, 1);
                let got = a.policy.unwrap();
                assert_eq!(got, expected, "{policy} after {q:?}");
                assert!(got.ray.is_some(), "{policy} after {q:?}: {got:?}");
                assert_eq!(a.report.count, none.report.count);
            }
        }
    }
}
