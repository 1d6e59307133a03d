//! The coach: what the rays shot so far say, computed by the solver on a
//! worker thread so that the game never waits for it.
//!
//! One question covers everything the coach shows: the molecules that fit the
//! rays shot (`bbx solve`), the cells certain to hold an atom or to be empty,
//! and the unshot rays ranked by the molecules expected to be left after
//! shooting them (the ranking `bbx suggest` prints, from the same
//! [`SolveReport`]). Each question is bounded by [`CoachLimits`]: a time limit
//! and a largest number of molecules; a count stopped by either is reported as
//! "at least". A question whose solver call overruns its time limit is
//! abandoned with what it found (the thread ends on its own later).
//!
//! ```
//! use std::time::Duration;
//! use bbx::play::coach::{Coach, CoachLimits};
//! use bbx::{Observation, Rules};
//! let mut coach = Coach::new(CoachLimits::default());
//! let seen = Observation::parse("@&??????????????", "example").unwrap();
//! coach.ask(&seen, Rules::Standard, 2);
//! assert!(coach.wait(Duration::from_secs(10)));
//! let answer = coach.answer_for(&seen).unwrap();
//! assert!(answer.report.ended.is_complete() && answer.report.count > 1);
//! ```

use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use crate::assistant::strategy::{
    self, Policy, REVIEW_AVERAGE_LIMIT, REVIEW_LIMIT, Review, StrategyOptions,
};

use crate::control::{Budget, Cancel, Ended};
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
/// abandoned.
const GRACE: Duration = Duration::from_secs(1);

/// The coach's answer for one set of rays.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The rays it answers for.
    pub observation: Observation,
    /// What the solver found.
    pub report: SolveReport,
    /// How long it took.
    pub elapsed: Duration,
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

    /// The count as a sentence about `what` was observed: `3 molecules fit
    /// the rays shot`, `at least 10000 molecules fit the rays shot (the search
    /// stopped at the coach's limit)`.
    pub fn count_sentence(&self, what: &str) -> String {
        let n = self.report.count;
        let verb = if n == 1 {
            "molecule fits"
        } else {
            "molecules fit"
        };
        if self.report.ended.is_complete() {
            format!("{n} {verb} {what}")
        } else if self.report.ended == Ended::TimedOut {
            format!(
                "at least {n} {verb} {what} (the search stopped at its time limit, {:.1} s)",
                self.elapsed.as_secs_f64()
            )
        } else {
            format!("at least {n} {verb} {what} (the search stopped at the coach's limit)")
        }
    }
}

enum Message {
    Found(u64, Molecule),
    Done(u64, Result<Box<SolveReport>, String>),
    /// A review (`.1`: whether its average is in).
    Reviewed(u64, bool, Result<Box<Review>, String>),
}

/// Where the review of a finished game stands.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewState {
    /// Not asked for.
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
#[derive(Debug, Clone)]
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
}

struct Job {
    id: u64,
    observation: Observation,
    rules: Rules,
    atoms: usize,
    started: Instant,
    found: Vec<Molecule>,
}

/// Asks the solver on worker threads, one question at a time; the newest
/// question waits while an older one finishes.
pub struct Coach {
    limits: CoachLimits,
    tx: Sender<Message>,
    rx: Receiver<Message>,
    next_id: u64,
    job: Option<Job>,
    pending: Option<(Observation, Rules, usize)>,
    answer: Option<Answer>,
    failure: Option<String>,
    review_id: u64,
    review: ReviewState,
    /// Cancelled to stop the review's thread (a new game, or the coach
    /// dropped).
    review_stop: Option<Cancel>,
}

impl Drop for Coach {
    fn drop(&mut self) {
        if let Some(stop) = &self.review_stop {
            stop.cancel();
        }
    }
}

impl std::fmt::Debug for Coach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coach")
            .field("limits", &self.limits)
            .field("working", &self.job.is_some())
            .field("answered", &self.answer.is_some())
            .finish()
    }
}

impl Coach {
    /// A coach with nothing asked yet.
    pub fn new(limits: CoachLimits) -> Coach {
        let (tx, rx) = channel();
        Coach {
            limits,
            tx,
            rx,
            next_id: 0,
            job: None,
            pending: None,
            answer: None,
            failure: None,
            review_id: 0,
            review: ReviewState::NotAsked,
            review_stop: None,
        }
    }

    /// Asks for the review of a finished game on a thread of its own: the
    /// policy's game against the same hidden molecule and the player's rays
    /// that told nothing new first, then the policy's averages over every
    /// molecule of the configuration when it has at most
    /// [`REVIEW_AVERAGE_LIMIT`]. Configurations of more than
    /// [`REVIEW_LIMIT`] molecules are not reviewed (the state says so).
    pub fn ask_review(&mut self, request: ReviewRequest) {
        if self.review != ReviewState::NotAsked {
            return;
        }
        let p = request.hidden.width();
        let k = request.hidden.atoms().len();
        let count = crate::rules::config::Config::new(k, p)
            .ok()
            .and_then(|c| c.molecule_count());
        if count.is_none_or(|n| n > REVIEW_LIMIT) {
            self.review = ReviewState::Unavailable(format!(
                "not worked out: A{k}_B{p} has {} molecules, more than the {REVIEW_LIMIT} a game is reviewed against",
                count.map_or("too many".to_string(), |n| n.to_string())
            ));
            return;
        }
        let average = count.is_some_and(|n| n <= REVIEW_AVERAGE_LIMIT);
        let stop = Cancel::new();
        self.review_stop = Some(stop.clone());
        self.review_id += 1;
        let id = self.review_id;
        let tx = self.tx.clone();
        let options = StrategyOptions {
            policy: request.policy,
            rules: request.rules,
            budget: Budget::default().with_cancel(stop),
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
                    average,
                    |r| {
                        let _ = first.send(Message::Reviewed(id, false, Ok(Box::new(r.clone()))));
                    },
                );
                let msg = match r {
                    Ok(done) => match (done.value, done.ended) {
                        (Some(r), Ended::Complete) => Message::Reviewed(id, true, Ok(Box::new(r))),
                        _ => return,
                    },
                    Err(e) => Message::Reviewed(id, true, Err(e.to_string())),
                };
                let _ = tx.send(msg);
            });
        self.review = match spawned {
            Ok(_) => ReviewState::Working,
            Err(e) => ReviewState::Unavailable(format!("cannot start the review: {e}")),
        };
    }

    /// Where the review of the finished game stands.
    pub fn review(&self) -> &ReviewState {
        &self.review
    }

    /// The bounds on each question.
    pub fn limits(&self) -> CoachLimits {
        self.limits
    }

    /// Asks about `observed` (with `atoms` atoms under `rules`), unless that is
    /// already answered or being worked on.
    pub fn ask(&mut self, observed: &Observation, rules: Rules, atoms: usize) {
        if self.answer_for(observed).is_some()
            || self
                .job
                .as_ref()
                .is_some_and(|j| j.observation == *observed)
        {
            self.pending = None;
            return;
        }
        if self.job.is_some() {
            self.pending = Some((observed.clone(), rules, atoms));
        } else {
            self.launch(observed.clone(), rules, atoms);
        }
    }

    fn launch(&mut self, observation: Observation, rules: Rules, atoms: usize) {
        self.next_id += 1;
        let id = self.next_id;
        let tx = self.tx.clone();
        let limits = Limits {
            max: Some(self.limits.max),
            budget: Budget::default().with_timeout(self.limits.timeout),
        };
        let obs = observation.clone();
        self.failure = None;
        let spawned = std::thread::Builder::new()
            .name("bbx-coach".into())
            .spawn(move || {
                let found = tx.clone();
                let r = solver::solve(&obs, rules, atoms..=atoms, &limits, |m| {
                    let _ = found.send(Message::Found(id, m.clone()));
                })
                .and_then(|solution| {
                    // The best ray on every molecule that fits, not only
                    // the first ones found, where the box can be walked in
                    // the time left.
                    let mut report = SolveReport::new("the game", solution, None);
                    report.rank_exactly(&limits.budget)?;
                    // Each cell's chance of an atom, from the same count (or
                    // the molecules listed, when they are all).
                    report.count_atoms(&limits.budget)?;
                    Ok(Box::new(report))
                });
                let _ = tx.send(Message::Done(id, r.map_err(|e| e.to_string())));
            });
        match spawned {
            Ok(_) => {
                self.job = Some(Job {
                    id,
                    observation,
                    rules,
                    atoms,
                    started: Instant::now(),
                    found: Vec::new(),
                });
            }
            Err(e) => self.failure = Some(format!("cannot start the coach: {e}")),
        }
    }

    /// Takes in what the worker has sent; returns whether anything changed.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Ok(msg) = self.rx.try_recv() {
            changed |= self.take(msg);
        }
        if let Some(job) = &self.job
            && job.started.elapsed() > self.limits.timeout + GRACE
        {
            // Stuck in one long solver call: answer with what was found.
            let job = self.job.take().expect("checked above");
            let solution = Solution::interrupted(
                job.observation.clone(),
                job.rules,
                job.atoms..=job.atoms,
                job.found,
            );
            let report = SolveReport::new("the game", solution, None);
            self.finish(job.observation, report, job.started.elapsed());
            changed = true;
        }
        changed
    }

    fn take(&mut self, msg: Message) -> bool {
        match msg {
            Message::Found(id, m) => {
                if let Some(job) = self.job.as_mut().filter(|j| j.id == id) {
                    job.found.push(m);
                    return true;
                }
                false
            }
            Message::Done(id, result) => {
                let Some(job) = self.job.take_if(|j| j.id == id) else {
                    return false;
                };
                let elapsed = job.started.elapsed();
                match result {
                    Ok(report) => self.finish(job.observation, *report, elapsed),
                    Err(e) => {
                        self.failure = Some(e);
                        self.next_pending();
                    }
                }
                true
            }
            Message::Reviewed(id, complete, result) => {
                if id != self.review_id || self.review == ReviewState::NotAsked {
                    return false;
                }
                self.review = match result {
                    Ok(review) => ReviewState::Ready { review, complete },
                    Err(e) => ReviewState::Unavailable(format!("the review failed: {e}")),
                };
                true
            }
        }
    }

    fn finish(&mut self, observation: Observation, report: SolveReport, elapsed: Duration) {
        self.answer = Some(Answer {
            observation,
            report,
            elapsed,
        });
        self.next_pending();
    }

    fn next_pending(&mut self) {
        if let Some((o, r, n)) = self.pending.take()
            && self.answer_for(&o).is_none()
        {
            self.launch(o, r, n);
        }
    }

    /// The answer for exactly these rays, if it is ready.
    pub fn answer_for(&self, observed: &Observation) -> Option<&Answer> {
        self.answer.as_ref().filter(|a| a.observation == *observed)
    }

    /// The latest answer, whatever rays it was for.
    pub fn latest(&self) -> Option<&Answer> {
        self.answer.as_ref()
    }

    /// While a question is being worked on: molecules found so far and time
    /// spent.
    pub fn progress(&self) -> Option<(usize, Duration)> {
        self.job
            .as_ref()
            .map(|j| (j.found.len(), j.started.elapsed()))
    }

    /// Why the last question failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Whether nothing is being worked on or waiting (the review included).
    pub fn is_idle(&self) -> bool {
        self.job.is_none()
            && self.pending.is_none()
            && !matches!(
                self.review,
                ReviewState::Working
                    | ReviewState::Ready {
                        complete: false,
                        ..
                    }
            )
    }

    /// Waits until the coach is idle, at most `timeout`; returns whether it
    /// is.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        while !self.is_idle() {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Ok(msg) = self.rx.recv_timeout(left.min(Duration::from_millis(50))) {
                self.take(msg);
            }
            self.poll();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_questions_wait_and_stale_answers_are_not_shown() {
        let mut coach = Coach::new(CoachLimits::default());
        let a = Observation::parse("@&??????????????", "t").unwrap();
        let b = Observation::parse("@&ab@&@?ba??????", "t").unwrap();
        coach.ask(&a, Rules::Standard, 2);
        coach.ask(&b, Rules::Standard, 2);
        assert!(coach.wait(Duration::from_secs(20)));
        assert!(
            coach.answer_for(&a).is_none(),
            "replaced by the newer answer"
        );
        let ans = coach.answer_for(&b).unwrap();
        assert!(ans.report.ended.is_complete());
        assert!(
            ans.molecules()
                .contains(&"O-O-------------".parse().unwrap())
        );
    }

    #[test]
    fn the_limits_make_a_count_partial() {
        let mut coach = Coach::new(CoachLimits {
            max: 10,
            timeout: Duration::from_secs(5),
        });
        let none = Observation::empty(8);
        coach.ask(&none, Rules::Standard, 4);
        assert!(coach.wait(Duration::from_secs(20)));
        let ans = coach.answer_for(&none).unwrap();
        assert!(ans.molecules().len() <= 10);
        assert!(!ans.all_listed());
        let words = ans.count_sentence("no ray");
        assert!(
            words.starts_with("at least ") || ans.report.count > 10,
            "{words}"
        );
    }
}
