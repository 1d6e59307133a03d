//! Which ray to shoot next: the rays not yet shot ranked by how well they
//! split the molecules that still fit, and optionally the best strategy.

use std::ops::RangeInclusive;

use crate::assistant::next::{NEXT_RAY_LIMIT, PolicyRay, next_ray};
use crate::assistant::plan::{ShootingPlan, plan, why_no_plan};
use crate::assistant::strategy::Policy;
use crate::control::{Budget, Ended, Finished};
use crate::error::Error;
use crate::rules::ray::Rules;
use crate::rules::spectrum::Observation;
use crate::setting::Text;
use crate::solver::count::{self, Counted, Prior};
use crate::solver::solve_report::{
    AtomsCount, COUNT_SHARE, EndedFlags, Estimate, Known, LISTED_WHEN_COUNTED, SampleReport,
    SolveReport,
};
use crate::solver::{self, Limits, Solution, Split};

/// What to look for.
#[derive(Debug, Clone)]
pub struct SuggestOptions {
    /// Stop the search after this many molecules (the ranking then rests on
    /// them); used by [`suggest`], not by [`rank`].
    pub max: usize,
    /// Keep this many rays, best first.
    pub top: usize,
    /// Also compute the best strategy, when at most this many molecules fit.
    pub plan_max: Option<usize>,
    /// The budget of that strategy's search (its memory bound is on the
    /// subsets it remembers: see [`plan`]).
    pub plan_budget: Budget,
    /// The budget of the search ([`suggest`]) and of ranking the rays on
    /// every molecule that fits, when the search listed only some (see
    /// [`SolveReport::rank_exactly`]), and of the policy's next ray.
    pub budget: Budget,
    /// Also the ray this policy shoots next ([`next_ray`]), with at most
    /// `top` of the rays rollout weighed.
    pub policy: Option<Policy>,
    /// Under the rollout policy, sets of at most this many molecules are
    /// played optimally ([`ROLLOUT_EXACT`](crate::assistant::strategy::ROLLOUT_EXACT)
    /// where a front gives none).
    pub exact_below: usize,
}

/// The rays worth shooting next, ready to print or serialise.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Suggestion {
    /// The puzzle file.
    pub origin: String,
    /// The configuration, `An_Bp`, when one atom count is searched (`None`
    /// for a range).
    pub config: Option<String>,
    /// The box's width (the same keys as [`SolveReport`]'s, for the same
    /// facts).
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The rules used.
    pub rules: Rules,
    /// Smallest atom count searched.
    pub atoms_min: usize,
    /// Largest atom count searched.
    pub atoms_max: usize,
    /// The observation (spectrum string with `?` for rays not shot).
    pub observation: String,
    /// Rays shot, an exit pair once.
    pub rays_shot: usize,
    /// Border marks known: both ends of an exit pair.
    pub marks_known: usize,
    /// Molecules that fit, known as `known` says; `molecules` in JSON.
    #[serde(rename = "molecules")]
    pub count: u128,
    /// How `count` is known: exactly, at least, or as an estimate
    /// (`molecules_known` in JSON, as in [`SolveReport`]).
    #[serde(rename = "molecules_known")]
    pub known: Known,
    /// When estimated: the estimate and its interval.
    #[serde(rename = "molecules_estimate")]
    pub estimate: Option<Estimate>,
    /// When counted exactly: the molecules of each count of atoms.
    #[serde(rename = "molecules_by_atoms")]
    pub by_atoms: Option<Vec<AtomsCount>>,
    /// How the search and the work after it (the ranking, the strategy)
    /// ended: `complete` is false when `max` or a limit stopped the search
    /// (the ranking then rests on the molecules found first); `timed_out`,
    /// `interrupted` and `over_memory` say which limit cut the search or
    /// the work after it.
    #[serde(flatten)]
    pub flags: EndedFlags,
    /// True when exactly one molecule fits (and the search was complete).
    pub decided: bool,
    /// The best `top` rays.
    pub rays: Vec<Split>,
    /// Molecules the ranking rests on: all that fit when `ranking_exact`,
    /// else the sample's when `ranking_sample`, else 0 (the rays are not
    /// ranked: the first molecules found are no sample to rank on).
    pub ranked_on: usize,
    /// True when the rays are ranked on every molecule that fits.
    pub ranking_exact: bool,
    /// When the rays are ranked on a uniform random sample of the molecules
    /// that fit (too many to walk): the sample.
    pub ranking_sample: Option<SampleReport>,
    /// The best strategy, when asked for and the molecules are few enough.
    pub plan: Option<ShootingPlan>,
    /// How the search for the strategy asked for ended, when it was cut
    /// short (the time limit, cancelled, the memory bound).
    #[serde(skip)]
    pub plan_ended: Option<Ended>,
    /// Why the strategy asked for was not found, in words (see
    /// [`why_no_plan`]).
    pub plan_cut: Option<Text>,
    /// The ray the policy asked for shoots next, or why that is not known
    /// (`None` when no policy was asked for).
    pub policy: Option<PolicyRay>,
    /// When nothing fits: the positions of a smallest set of contradicting
    /// rays.
    pub conflict: Option<Vec<usize>>,
    /// The fewest atoms the rays allow, when an atom count below it was
    /// asked for.
    pub fewest_atoms: Option<usize>,
    /// The solve behind it.
    #[serde(skip)]
    pub report: SolveReport,
}

/// Solves the game seen so far (`observed`, read from `origin`) and ranks the
/// rays not yet shot.
///
/// ```
/// use bbx::assistant::suggest::{suggest, SuggestOptions};
/// use bbx::{Molecule, Observation, Rules, Spectrum};
/// let m: Molecule = "O-O-------------".parse().unwrap();
/// let mut seen = Observation::full(&Spectrum::of(&m, Rules::Standard));
/// for pos in 3..=16 {
///     seen.forget(pos);
/// }
/// let options = SuggestOptions {
///     max: 1000,
///     top: 3,
///     plan_max: None,
///     plan_budget: Default::default(),
///     budget: Default::default(),
///     policy: None,
///     exact_below: 8,
/// };
/// let s = suggest("example", &seen, Rules::Standard, 2..=2, &options).unwrap();
/// assert!(s.flags.complete && s.count > 1 && s.rays.len() == 3);
/// ```
pub fn suggest(
    origin: &str,
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    options: &SuggestOptions,
) -> Result<Suggestion, Error> {
    let counted = count_first(observed, rules, atoms.clone(), options)?;
    let limits = Limits {
        max: Some(listing(&counted, options)),
        budget: options.budget.clone(),
    };
    let solution = solver::solve(observed, rules, atoms, &limits, |_| {})?;
    rank_counted(origin, solution, counted, options)
}

/// The exact count of the molecules that fit, tried first within part of
/// the time ([`COUNT_SHARE`]): it gives the count, the ranking and the
/// chances, and tells [`listing`] how many molecules the search must list.
pub fn count_first(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    options: &SuggestOptions,
) -> Result<Finished<Option<Counted>>, Error> {
    count::count(observed, rules, atoms, &options.budget.share(COUNT_SHARE))
}

/// How many molecules the search lists for a suggestion, once the count
/// `counted` was tried: every one asked for (`max`) when the count did not
/// finish, or a strategy (`--plan`) is to be worked out on all of them;
/// else a few ([`LISTED_WHEN_COUNTED`]), since the count ranks the rays and
/// a policy takes its molecules from the count.
pub fn listing(counted: &Finished<Option<Counted>>, options: &SuggestOptions) -> usize {
    match &counted.value {
        Some(c) if options.plan_max.is_none_or(|n| c.total() > n as u128) => {
            options.max.min(LISTED_WHEN_COUNTED)
        }
        _ => options.max,
    }
}

/// Ranks the rays not yet shot for a game already solved: `solution` (of the
/// game read from `origin`), complete or not. [`suggest`] solves and ranks;
/// a caller that solves in its own way (on a worker thread, under a time
/// limit) ranks with this, or with [`rank_counted`] when it counted first.
pub fn rank(
    origin: &str,
    solution: Solution,
    options: &SuggestOptions,
) -> Result<Suggestion, Error> {
    rank_with(origin, solution, None, options)
}

/// [`rank`] with the count `counted` already tried ([`count_first`]).
pub fn rank_counted(
    origin: &str,
    solution: Solution,
    counted: Finished<Option<Counted>>,
    options: &SuggestOptions,
) -> Result<Suggestion, Error> {
    rank_with(origin, solution, Some(counted), options)
}

fn rank_with(
    origin: &str,
    solution: Solution,
    counted: Option<Finished<Option<Counted>>>,
    options: &SuggestOptions,
) -> Result<Suggestion, Error> {
    let (plan, plan_ended) = match options.plan_max {
        Some(n)
            if solution.ended.is_complete()
                && !solution.molecules.is_empty()
                && solution.molecules.len() <= n =>
        {
            let (molecules, observed) = (&solution.molecules, &solution.observation);
            let p = plan(molecules, observed, solution.rules, &options.plan_budget);
            (p.value, (!p.ended.is_complete()).then_some(p.ended))
        }
        _ => (None, None),
    };
    let mut report = SolveReport::new(origin, solution, None, &options.budget);
    match counted {
        Some(c) => report.work_out_with(c, Prior::Molecules, &options.budget)?,
        None => report.work_out(Prior::Molecules, &options.budget)?,
    };
    let policy = options.policy.map(|p| {
        let (budget, top) = (&options.budget, options.top);
        // Every molecule that fits: listed by the search, or from the count.
        let all = report.every_molecule(NEXT_RAY_LIMIT);
        let solution = all.as_deref().unwrap_or(report.solution());
        next_ray(solution, p, options.exact_below, budget, top)
    });
    // A limit that cut the policy's work short is the work's after the
    // search; that it had nothing to work on is said in its answer alone.
    let policy_cut = policy
        .as_ref()
        .map(PolicyRay::ended)
        .filter(|e| e.cut().is_some());
    let after = report
        .after
        .and(plan_ended.unwrap_or_default())
        .and(policy_cut.unwrap_or_default());
    Ok(Suggestion {
        origin: report.origin.clone(),
        config: report.config.clone(),
        width: report.width,
        height: report.height,
        rules: report.rules,
        atoms_min: report.atoms_min,
        atoms_max: report.atoms_max,
        observation: report.observation.clone(),
        rays_shot: report.shot,
        marks_known: report.marks,
        count: report.count,
        known: report.known,
        estimate: report.estimate,
        by_atoms: report.by_atoms.clone(),
        // Counted exactly, every molecule that fits is accounted for,
        // however few the search listed.
        flags: EndedFlags::of(
            if report.known == Known::Exact {
                Ended::Complete
            } else {
                report.ended
            },
            after,
        ),
        decided: report.known == Known::Exact && report.count == 1,
        rays: report.splits.iter().take(options.top).cloned().collect(),
        ranked_on: match (&report.sample, report.splits_exact) {
            (_, true) => usize::try_from(report.count).unwrap_or(usize::MAX),
            (Some(sm), false) => usize::try_from(sm.molecules).unwrap_or(usize::MAX),
            (None, false) => 0,
        },
        ranking_exact: report.splits_exact,
        ranking_sample: report.sample.clone(),
        plan,
        policy,
        plan_ended,
        plan_cut: plan_ended.map(|e| why_no_plan(e, &options.plan_budget)),
        conflict: report.conflict.clone(),
        fewest_atoms: report.fewest_atoms,
        report,
    })
}
