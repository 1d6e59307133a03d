//! The ray a policy shoots next in a game under way.
//!
//! [`strategy`](super::strategy) plays a policy against every molecule of a
//! configuration; here the same policy (greedy, entropy, score, lookahead or
//! rollout, by the same code) is asked one question in the middle of a
//! game: given the molecules that fit the rays shot so far, which ray does
//! it shoot next? The molecules are the solver's listing ([`Solution`]),
//! which must be complete: a policy weighs every molecule that fits, and a
//! ray chosen on some of them could be another. Their outcomes on every ray
//! are traced into a table (as `bbx strategy` holds a configuration's), on
//! which the policy chooses exactly as it does inside `bbx strategy`: on a
//! set reached there by some rays, the answer here after the same rays is
//! the same ray.
//!
//! For rollout, the answer also gives what it weighed: each ray that splits
//! the molecules, with the rays its games would take (this one included)
//! when the base policy plays on after it, best first.
//!
//! Rollout's weighing can be shared among workers that cannot share
//! memory (a page's Web Workers): each is asked its [`Part`] of the rays
//! ([`next_ray_part`]), and [`PolicyRay::join`] makes the parts' answers the
//! one the whole weighing gives.
//!
//! The work keeps to a [`Budget`] (its deadline, token and memory bound)
//! and to sets of at most [`NEXT_RAY_LIMIT`] molecules; when it cannot
//! answer, its `unanswered` says why.
//!
//! ```
//! use bbx::assistant::next::{Stop, next_ray};
//! use bbx::assistant::strategy::Policy;
//! use bbx::control::Budget;
//! use bbx::solver::{self, Limits};
//! use bbx::{Observation, Rules};
//! let seen = Observation::parse("@&??????????????", "example").unwrap();
//! let fit = solver::solve(&seen, Rules::Standard, 2..=2, &Limits::default(), |_| {}).unwrap();
//! let next = next_ray(&fit, Policy::Rollout, 8, &Budget::default(), 3);
//! assert!(next.unanswered.is_none() && next.ray.is_some());
//! assert_eq!(next.candidates[0].ray, next.ray.unwrap());
//! ```

use crate::assistant::spectrum_table::Spectra;
use crate::assistant::strategy::{Chooser, Part, Policy, StrategyOptions};
use crate::control::{Budget, Cut, Ended};
use crate::error::grouped;
use crate::rules::config::Config;
use crate::setting::{Setting, Text};
use crate::solver::Solution;

/// The most molecules a policy's next ray is worked out on: A4_B8's
/// opening, 635,376 molecules, is within it (their table takes 25 MB).
pub const NEXT_RAY_LIMIT: usize = 1_000_000;

/// The widest box a policy works on (its outcome codes fit a byte), as
/// `bbx strategy`'s.
const WIDEST: usize = 63;

/// Why a policy shoots no ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// No molecule fits the rays.
    NothingFits,
    /// One molecule fits: it is known.
    Known,
    /// No ray left tells the molecules that fit apart.
    NoRaySplits,
    /// The `score` policy: placing the atoms now is cheaper on average
    /// than shooting on.
    PlaceAtoms,
}

/// Why a policy's next ray could not be worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unanswered {
    /// The search did not list every molecule that fits (its limit on the
    /// molecules listed, or a time or memory limit, or Ctrl-C stopped it).
    NotListed,
    /// More than [`NEXT_RAY_LIMIT`] molecules fit, or the box is wider
    /// than 63.
    TooLarge,
    /// The molecules that fit have different atom counts (a range was
    /// searched): a policy plays one configuration.
    AtomRange,
    /// The time limit came first.
    TimedOut,
    /// Cancelled (Ctrl-C, or a question no longer needed).
    Cancelled,
    /// The table of the molecules' outcomes would pass the memory bound.
    OverMemory,
}

impl Unanswered {
    /// How the work ended, as the other answers say it.
    pub fn ended(self) -> Ended {
        match self {
            Unanswered::NotListed => Ended::ReachedMax,
            Unanswered::TooLarge | Unanswered::AtomRange => Ended::TooLarge,
            Unanswered::TimedOut => Ended::TimedOut,
            Unanswered::Cancelled => Ended::Cancelled,
            Unanswered::OverMemory => Ended::OverMemory,
        }
    }
}

/// A ray rollout weighed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The ray (border position).
    pub ray: usize,
    /// The rays a game takes on average from here when this ray is shot
    /// and the base policy plays on, this ray included.
    pub expected_rays: f64,
    /// The same, all games together (one per molecule that fits): an
    /// integer, so that ties are exact.
    pub rays_total: u64,
}

/// What a policy shoots next, or why that is not known.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PolicyRay {
    /// The policy.
    #[serde(rename = "name")]
    pub policy: Policy,
    /// Under rollout: sets of at most this many molecules are played
    /// optimally (`None` for the other policies).
    pub exact_below: Option<usize>,
    /// The molecules it chose among: all that fit, when it answered.
    pub molecules: usize,
    /// The ray it shoots next; `None` when it stops (see `stop`) or could
    /// not answer (see `unanswered`).
    pub ray: Option<usize>,
    /// Why it shoots no ray, when it answered so.
    pub stop: Option<Stop>,
    /// Under rollout: the rays it weighed, best first (the first is `ray`),
    /// as many as asked for.
    pub candidates: Vec<Candidate>,
    /// Why it could not answer.
    pub unanswered: Option<Unanswered>,
    /// The same, in words.
    pub why: Option<Text>,
}

impl PolicyRay {
    /// How the work ended: complete when it answered.
    pub fn ended(&self) -> Ended {
        self.unanswered.map_or(Ended::Complete, Unanswered::ended)
    }

    /// The answer of the whole weighing, from its parts' answers
    /// ([`next_ray_part`] with each [`Part`] of the same `of`, in any
    /// order), keeping the `candidates` best rays: the rays of every part,
    /// best first; an answer that did not come (a part cut short, or not
    /// answered) is the first such part's.
    ///
    /// ```
    /// use bbx::assistant::next::{next_ray, next_ray_part};
    /// use bbx::assistant::strategy::Part;
    /// use bbx::assistant::strategy::Policy;
    /// use bbx::control::Budget;
    /// use bbx::solver::{self, Limits};
    /// use bbx::{Observation, Rules};
    /// let seen = Observation::parse("@&??????????????", "example").unwrap();
    /// let fit = solver::solve(&seen, Rules::Standard, 2..=2, &Limits::default(), |_| {}).unwrap();
    /// let budget = Budget::default();
    /// let parts = Part::all(3).into_iter()
    ///     .map(|s| next_ray_part(&fit, Policy::Rollout, 8, &budget, 4, s));
    /// let whole = next_ray(&fit, Policy::Rollout, 8, &budget, 4);
    /// assert_eq!(bbx::assistant::next::PolicyRay::join(parts, 4), Some(whole));
    /// ```
    ///
    /// `None` when there are no parts.
    pub fn join(
        parts: impl IntoIterator<Item = PolicyRay>,
        candidates: usize,
    ) -> Option<PolicyRay> {
        let mut parts = parts.into_iter();
        let mut joined = parts.next()?;
        for part in parts {
            if joined.unanswered.is_some() {
                break;
            }
            if part.unanswered.is_some() {
                return Some(part);
            }
            joined.candidates.extend(part.candidates);
        }
        if joined.unanswered.is_none() && !joined.candidates.is_empty() {
            joined.candidates.sort_by_key(|c| (c.rays_total, c.ray));
            joined.candidates.truncate(candidates);
            joined.ray = joined.candidates.first().map(|c| c.ray);
            joined.stop = None;
        }
        Some(joined)
    }

    fn unanswered(mut self, why: Unanswered, text: Text) -> PolicyRay {
        self.unanswered = Some(why);
        self.why = Some(text);
        self
    }

    fn cut(self, cut: Cut) -> PolicyRay {
        let (why, text) = match cut {
            Cut::TimedOut => (
                Unanswered::TimedOut,
                Text::from("the time limit came first (")
                    .and(Setting::Timeout)
                    .and(" raises it)"),
            ),
            Cut::Cancelled => (Unanswered::Cancelled, Text::from("it was interrupted")),
            Cut::OverMemory => (
                Unanswered::OverMemory,
                Text::from(format!(
                    "the outcomes of the {} molecules that fit would take more than the memory bound (",
                    self.molecules
                ))
                .and(Setting::Memory)
                .and(" raises it)"),
            ),
        };
        self.unanswered(why, text)
    }
}

/// The ray `policy` shoots next at the molecules of `solution` (the game's
/// rays and the molecules that fit them, listed complete), within
/// `budget`; under rollout, sets of at most `exact_below` molecules are
/// played optimally, and the `candidates` best rays it weighed are kept.
/// The same ray as `bbx strategy`'s policy shoots after the same rays (see
/// the [module](self)). Says why when it cannot answer: the molecules not
/// all listed, more than [`NEXT_RAY_LIMIT`] of them, of several atom
/// counts, or a limit of `budget` first.
pub fn next_ray(
    solution: &Solution,
    policy: Policy,
    exact_below: usize,
    budget: &Budget,
    candidates: usize,
) -> PolicyRay {
    next_ray_part(
        solution,
        policy,
        exact_below,
        budget,
        candidates,
        Part::WHOLE,
    )
}

/// [`next_ray`] on `part` of rollout's weighing: its best `candidates`
/// among the rays of that part alone, a part of the answer that
/// [`PolicyRay::join`] makes whole: a part with no ray of its own answers
/// no ray and no stop. (Any other policy, or no ray to weigh, answers
/// whole in every part.)
pub fn next_ray_part(
    solution: &Solution,
    policy: Policy,
    exact_below: usize,
    budget: &Budget,
    candidates: usize,
    part: Part,
) -> PolicyRay {
    let molecules = &solution.molecules;
    let n = molecules.len();
    let answer = PolicyRay {
        policy,
        exact_below: (policy == Policy::Rollout).then_some(exact_below),
        molecules: n,
        ray: None,
        stop: None,
        candidates: Vec::new(),
        unanswered: None,
        why: None,
    };
    if solution.ended.is_complete() && solution.count > NEXT_RAY_LIMIT as u128 {
        let answer = PolicyRay {
            molecules: usize::try_from(solution.count).unwrap_or(usize::MAX),
            ..answer
        };
        let text = format!(
            "{} molecules fit: a policy's next ray is worked out on at most {}",
            grouped(solution.count),
            grouped(NEXT_RAY_LIMIT as u128)
        );
        return answer.unanswered(Unanswered::TooLarge, text.into());
    }
    if !solution.ended.is_complete() || solution.count != n as u128 {
        let all = "and a policy weighs every one that fits";
        let text = match solution.ended.cut() {
            Some(Cut::TimedOut) => Text::from(format!(
                "the time limit stopped the search after {n} molecules, {all} ("
            ))
            .and(Setting::Timeout)
            .and(" raises it)"),
            Some(Cut::OverMemory) => Text::from(format!(
                "the memory bound stopped the search after {n} molecules, {all} ("
            ))
            .and(Setting::Memory)
            .and(" raises it)"),
            Some(Cut::Cancelled) => {
                Text::from(format!("the search was interrupted after {n} molecules"))
            }
            None if solution.ended.is_complete() => Text::from(format!(
                "the search listed {} of the {} molecules that fit, {all} (",
                grouped(n as u128),
                grouped(solution.count)
            ))
            .and(Setting::Max)
            .and(" raises it)"),
            None => Text::from(format!("the search stopped after {n} molecules, {all} ("))
                .and(Setting::Max)
                .and(" raises it)"),
        };
        return answer.unanswered(Unanswered::NotListed, text);
    }
    let Some(first) = molecules.first() else {
        return PolicyRay {
            stop: Some(Stop::NothingFits),
            ..answer
        };
    };
    if n > NEXT_RAY_LIMIT {
        let text = format!(
            "{} molecules fit: a policy's next ray is worked out on at most {}",
            grouped(n as u128),
            grouped(NEXT_RAY_LIMIT as u128)
        );
        return answer.unanswered(Unanswered::TooLarge, text.into());
    }
    let shape = solution.observation.shape();
    if shape.width.max(shape.height) > WIDEST {
        let text = format!("a policy's next ray is worked out in boxes up to {WIDEST}×{WIDEST}");
        return answer.unanswered(Unanswered::TooLarge, text.into());
    }
    let atoms = first.atoms().len();
    let config = match Config::shaped(atoms, shape) {
        Ok(config) if molecules.iter().all(|m| m.atoms().len() == atoms) => config,
        _ => {
            let text = "the molecules that fit have different atom counts, and a policy plays one";
            return answer.unanswered(Unanswered::AtomRange, text.into());
        }
    };
    let t = match Spectra::of_molecules(config, solution.rules, molecules, budget) {
        Ok(t) => t,
        Err(cut) => return answer.cut(cut),
    };
    let mut shot = vec![false; t.rays];
    for (q, _) in solution.observation.rays() {
        if let Some(s) = shot.get_mut(q - 1) {
            *s = true;
        }
    }
    let options = StrategyOptions {
        policy,
        rules: solution.rules,
        budget: budget.clone(),
        exact_below,
    };
    let chooser = Chooser::new(&t, &options);
    let set: Vec<u32> = (0..n as u32).collect();
    let (ray, weighed) = if policy == Policy::Rollout && n > 1 {
        // The rollout's own choice, with what it weighed: the least total,
        // ties to the lowest ray, as the chooser takes it.
        let mut totals = match chooser.rollout_totals(&set, part) {
            Ok(totals) => totals,
            Err(cut) => return answer.cut(cut),
        };
        totals.sort_by_key(|&(q, total)| (total, q));
        let weighed = totals
            .iter()
            .take(candidates)
            .map(|&(ray, total)| Candidate {
                ray,
                expected_rays: total as f64 / n as f64,
                rays_total: total,
            })
            .collect();
        (totals.first().map(|&(q, _)| q), weighed)
    } else {
        let mut ticker = budget.ticker(1024);
        match budget
            .check()
            .and_then(|()| chooser.choose(&set, &shot, &mut ticker))
        {
            Ok(ray) => (ray, Vec::new()),
            Err(cut) => return answer.cut(cut),
        }
    };
    let stop = match ray {
        Some(_) => None,
        None if n == 1 => Some(Stop::Known),
        // A part of rollout's weighing with no ray of its own: the others
        // hold the rays.
        None if (1..=t.rays).any(|q| splits(&t, &set, q)) && policy == Policy::Rollout => None,
        None if (1..=t.rays).any(|q| splits(&t, &set, q)) => Some(Stop::PlaceAtoms),
        None => Some(Stop::NoRaySplits),
    };
    PolicyRay {
        ray,
        stop,
        candidates: weighed,
        ..answer
    }
}

/// Whether ray `q` tells some molecules of `set` apart.
fn splits(t: &Spectra, set: &[u32], q: usize) -> bool {
    set.split_first()
        .is_some_and(|(&m, rest)| rest.iter().any(|&o| t.code(o, q) != t.code(m, q)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::strategy::{play_all, play_one};
    use crate::rules::ray::Rules;
    use crate::rules::spectrum::Observation;
    use crate::solver::{self, Limits};

    fn solve(config: Config, seen: &Observation) -> Solution {
        let limits = Limits {
            max: Some(NEXT_RAY_LIMIT),
            budget: Budget::default(),
        };
        let atoms = config.atoms..=config.atoms;
        solver::solve(seen, Rules::Standard, atoms, &limits, |_| {}).unwrap()
    }

    fn options(policy: Policy) -> StrategyOptions {
        StrategyOptions {
            exact_below: crate::assistant::strategy::ROLLOUT_EXACT,
            ..StrategyOptions::new(policy)
        }
    }

    /// On the opening, every policy's next ray is the strategy's first; in
    /// games of the strategy, after each prefix of its rays, its next ray
    /// is the one the game shot, and after them all it stops.
    #[test]
    fn the_next_ray_is_the_strategys_on_the_opening_and_along_its_games() {
        for config in ["A2_B4", "A3_B4", "A3_B5"] {
            let config: Config = config.parse().unwrap();
            let empty = Observation::empty(config.shape());
            let opening = solve(config, &empty);
            for policy in Policy::ALL {
                let o = options(policy);
                let report = play_all(config, &o).unwrap().value.unwrap();
                let next = next_ray(&opening, policy, o.exact_below, &Budget::default(), 5);
                assert_eq!(next.ended(), Ended::Complete, "{config} {policy}");
                assert_eq!(
                    next.ray,
                    report.first_rays.first().map(|r| r.0),
                    "{config} {policy}"
                );
                for number in [1, 7, report.hardest[0].number, config_last(config)] {
                    let game = play_one(config, &o, number).unwrap().value.unwrap();
                    let mut seen = empty.clone();
                    for (i, &(q, outcome)) in game.shots.iter().enumerate() {
                        let fit = solve(config, &seen);
                        let next = next_ray(&fit, policy, o.exact_below, &Budget::default(), 5);
                        assert_eq!(next.ray, Some(q), "{config} {policy} #{number} shot {i}");
                        seen.record(q, outcome);
                    }
                    let fit = solve(config, &seen);
                    let next = next_ray(&fit, policy, o.exact_below, &Budget::default(), 5);
                    assert_eq!(next.ray, None, "{config} {policy} #{number} at the end");
                    let expected = match game.left {
                        1 => Stop::Known,
                        _ if policy == Policy::Score && next.stop == Some(Stop::PlaceAtoms) => {
                            Stop::PlaceAtoms
                        }
                        _ => Stop::NoRaySplits,
                    };
                    assert_eq!(next.stop, Some(expected), "{config} {policy} #{number}");
                }
            }
        }
    }

    fn config_last(config: Config) -> u64 {
        config.molecule_count().unwrap()
    }

    #[test]
    fn rollouts_candidates_are_its_totals_best_first() {
        let config: Config = "A3_B4".parse().unwrap();
        let opening = solve(config, &Observation::empty(config.shape()));
        let next = next_ray(&opening, Policy::Rollout, 4, &Budget::default(), 100);
        let c = &next.candidates;
        assert_eq!(next.exact_below, Some(4));
        assert_eq!(next.molecules, 560);
        assert!(c.len() > 3 && Some(c[0].ray) == next.ray);
        for w in c.windows(2) {
            assert!((w[0].rays_total, w[0].ray) < (w[1].rays_total, w[1].ray));
        }
        for x in c {
            assert_eq!(x.expected_rays, x.rays_total as f64 / 560.0);
            // Shooting a ray costs every game one ray, and a ray cannot
            // tell 560 molecules apart alone.
            assert!(x.rays_total > 2 * 560);
        }
        let few = next_ray(&opening, Policy::Rollout, 4, &Budget::default(), 2);
        assert_eq!(few.candidates, c[..2]);
        let greedy = next_ray(&opening, Policy::Greedy, 4, &Budget::default(), 2);
        assert!(greedy.candidates.is_empty() && greedy.exact_below.is_none());
    }

    #[test]
    fn rollouts_parts_join_to_its_whole_answer() {
        let config: Config = "A3_B4".parse().unwrap();
        let opening = solve(config, &Observation::empty(config.shape()));
        let budget = Budget::default();
        let seen = Observation::parse("@&??????????????", "test").unwrap();
        let later = solve(config, &seen);
        for fit in [&opening, &later] {
            for candidates in [1, 3, 100] {
                let whole = next_ray(fit, Policy::Rollout, 4, &budget, candidates);
                for of in 1..=5 {
                    let parts = Part::all(of).into_iter().map(|part| {
                        next_ray_part(fit, Policy::Rollout, 4, &budget, candidates, part)
                    });
                    let parts: Vec<PolicyRay> = parts.collect();
                    // Each part weighs its own rays, and none stops the game.
                    for (which, part) in Part::all(of).into_iter().zip(&parts) {
                        assert!(part.stop.is_none(), "{which:?}");
                        assert!(part.candidates.iter().all(|c| {
                            whole.candidates.iter().any(|w| w == c) || candidates < 100
                        }));
                    }
                    let mut backwards = parts.clone();
                    backwards.reverse();
                    assert_eq!(PolicyRay::join(parts, candidates).as_ref(), Some(&whole));
                    assert_eq!(PolicyRay::join(backwards, candidates), Some(whole.clone()));
                }
            }
        }
        // A part cut short makes the whole answer cut short.
        let cut = Budget::default().with_timeout(std::time::Duration::ZERO);
        let second = Part::new(1, 2).unwrap();
        let parts = [
            next_ray_part(
                &opening,
                Policy::Rollout,
                4,
                &budget,
                1,
                Part::new(0, 2).unwrap(),
            ),
            next_ray_part(&opening, Policy::Rollout, 4, &cut, 1, second),
        ];
        let joined = PolicyRay::join(parts, 1).unwrap();
        assert_eq!(joined.unanswered, Some(Unanswered::TimedOut));
        assert_eq!(PolicyRay::join([], 1), None);
        // Another policy answers whole in every part.
        let greedy = next_ray(&opening, Policy::Greedy, 4, &budget, 1);
        let part = next_ray_part(&opening, Policy::Greedy, 4, &budget, 1, second);
        assert_eq!(part, greedy);
        assert!(serde_json::from_str::<Part>(r#"{"index":2,"of":2}"#).is_err());
        assert_eq!(
            serde_json::from_str::<Part>(r#"{"index":1,"of":2}"#).ok(),
            Some(second)
        );
    }

    #[test]
    fn it_says_why_it_cannot_answer() {
        let config: Config = "A3_B5".parse().unwrap();
        let empty = Observation::empty(config.shape());
        let opening = solve(config, &empty);
        // The time limit past, or cancelled: every policy says so.
        for policy in Policy::ALL {
            let past = Budget::default().with_timeout(std::time::Duration::ZERO);
            let next = next_ray(&opening, policy, 8, &past, 5);
            assert_eq!(next.unanswered, Some(Unanswered::TimedOut), "{policy}");
            assert_eq!((next.ray, next.ended()), (None, Ended::TimedOut));
            assert!(next.why.unwrap().to_string().contains("time limit"));
            let cancelled = Budget::default();
            cancelled.cancel.cancel();
            let next = next_ray(&opening, policy, 8, &cancelled, 5);
            assert_eq!(next.unanswered, Some(Unanswered::Cancelled), "{policy}");
        }
        // A memory bound the table passes.
        let small = Budget::default().with_memory(Some(1000));
        let next = next_ray(&opening, Policy::Greedy, 8, &small, 5);
        assert_eq!(next.unanswered, Some(Unanswered::OverMemory));
        // A listing cut at its limit.
        let limits = Limits {
            max: Some(10),
            budget: Budget::default(),
        };
        let some = solver::solve(&empty, Rules::Standard, 3..=3, &limits, |_| {}).unwrap();
        let next = next_ray(&some, Policy::Greedy, 8, &Budget::default(), 5);
        assert_eq!(next.unanswered, Some(Unanswered::NotListed));
        assert_eq!(next.ended(), Ended::ReachedMax);
        assert!(next.why.unwrap().to_string().contains("most molecules"));
        // Several atom counts.
        let limits = Limits {
            max: Some(1000),
            budget: Budget::default(),
        };
        let range = solver::solve(&empty, Rules::Standard, 1..=2, &limits, |_| {}).unwrap();
        assert!(range.ended.is_complete());
        let next = next_ray(&range, Policy::Greedy, 8, &Budget::default(), 5);
        assert_eq!(next.unanswered, Some(Unanswered::AtomRange));
        // Nothing fits, one molecule fits.
        let none = Observation::parse("@@@@@@@@@@@@@@@@@@@@", "test").unwrap();
        let next = next_ray(
            &solve(config, &none),
            Policy::Greedy,
            8,
            &Budget::default(),
            5,
        );
        assert_eq!((next.ray, next.stop), (None, Some(Stop::NothingFits)));
    }
}
