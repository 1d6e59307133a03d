//! A configuration's strategies studied whole: a policy played against
//! every molecule, then, when asked, the optimum ([`optimum_units`]) and a
//! lower bound ([`bound`]) searched in units, in that order, each stopped
//! short saying so and how to resume; what the study ends with is one
//! outcome ([`Studied`]) for the front to show and turn into its exit.

use std::path::{Path, PathBuf};

use crate::assistant::bound::{self, BoundOptions};
use crate::assistant::optimal::{BoundStopped, OptimalOptions};
use crate::assistant::optimum_units::{self, DEEPER, UnitsOptions};
use crate::assistant::strategy::{StrategyOptions, StrategyReport, play_all_with};
use crate::control::{Ended, nothing_before};
use crate::error::Error;
use crate::files::shown;
use crate::rules::config::Config;
use crate::setting::{Setting, Text};

/// What a study does beyond the policy's games.
#[derive(Debug, Clone)]
pub struct StudyOptions {
    /// The policy's games: policy, rules, budget (with its memory bound,
    /// and the faults the searches obey), rollout's K (also the sets the
    /// searches play to the end).
    pub strategy: StrategyOptions,
    /// How many rays deep the bound's search tries every strategy.
    pub depth: u32,
    /// Where the searches in units run (their `search` is filled in here);
    /// `None` when neither is asked for.
    pub shared: Option<BoundOptions>,
    /// Search the optimum.
    pub optimal: bool,
    /// Search a lower bound (after a complete optimum, if both are asked).
    pub bound: bool,
    /// The optimum's sets of at least this many molecules are cut a level
    /// deeper [default: an eighth of the molecules, at least [`DEEPER`]].
    pub deeper: Option<usize>,
    /// Where to write the optimum's decision trees, once complete.
    pub tree: Option<PathBuf>,
}

/// What a study is doing, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The policy's games (the spectra first, while there are 0 in all).
    Games,
    /// The optimum's units for the rays.
    Rays,
    /// The optimum's units for the score and the minimax.
    Score,
    /// The bound's units.
    Bound,
}

/// Where a study is: `done` of `all` games or units of this process in
/// its step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// The step.
    pub step: Step,
    /// Games or units done.
    pub done: u64,
    /// Games, or this process's share of the units (0: not yet known).
    pub all: u64,
}

/// How a study ended.
#[derive(Debug, Clone)]
pub struct Studied {
    /// The report: on process 0 (or alone), once every game was played.
    pub report: Option<StrategyReport>,
    /// Complete, or what stopped the work (the report then holds what was
    /// done, or there is nothing to report).
    pub ended: Ended,
    /// What to tell the user beside the report: what cut the work short
    /// and how to resume it, or on a process other than 0 that its share
    /// is done.
    pub message: Option<Text>,
}

/// What a search in units (`what`: "the best strategy") stopped by
/// `ended` did: `done` of this process's `share` units (`units`: " of its
/// phase"), kept in `dir`; and how to resume it.
fn cut_short(
    ended: Ended,
    what: &str,
    units: &str,
    (done, share): (u64, u64),
    started: bool,
    dir: Option<&Path>,
) -> Text {
    let why = match ended {
        Ended::Cancelled => Text::from("interrupted"),
        _ => crate::text!["the time limit passed (", Setting::Timeout, " raises it)"],
    };
    let resume = ": run the same command to resume";
    why.and(match dir.map(shown) {
        Some(dir) if started => format!(" before {what} was found: {done} of this process's {share} units{units} done, kept in {dir}{resume}"),
        Some(dir) => format!(" while waiting for the other processes: nothing was searched in this run; {dir} keeps the work{resume}"),
        None => format!(" before {what} was found"),
    })
}

/// Studies `config`'s strategies as `options` asks: on process 0 (or
/// alone) the policy's games, then the optimum, then the bound; on
/// another process of a shared search its share of the optimum's and the
/// bound's units, nothing else. `progress` is told where the work is.
pub fn study(
    config: Config,
    options: &StudyOptions,
    mut progress: impl FnMut(Stage),
) -> Result<Studied, Error> {
    let s = &options.strategy;
    let search = OptimalOptions {
        rules: s.rules,
        budget: s.budget.clone(),
        depth: options.depth,
        small: s.exact_below,
    };
    let process = options.shared.as_ref().map_or(0, |o| o.cluster.process);
    let (report, ended, message) = (None, Ended::Complete, None);
    let mut out = Studied {
        report,
        ended,
        message,
    };
    let stage = |step, done, all| Stage { step, done, all };
    if process == 0 {
        progress(stage(Step::Games, 0, 0));
        let all = play_all_with(config, s, |done, all| {
            progress(stage(Step::Games, done, all))
        })?;
        let Some(report) = all.value else {
            out.ended = all.ended;
            out.message = Some(nothing_before(all.ended, "every game was played"));
            return Ok(out);
        };
        out.report = Some(report);
    }
    let Some(shared) = &options.shared else {
        return Ok(out);
    };
    let mut done = Vec::new();
    if options.optimal {
        let molecules = config.molecule_count().unwrap_or(0) as usize;
        let units = UnitsOptions {
            search: search.clone(),
            cluster: shared.cluster.clone(),
            work_dir: shared.work_dir.clone(),
            peers: shared.peers.clone(),
            score: true,
            deeper: options.deeper.unwrap_or((molecules / 8).max(DEEPER)),
        };
        let o = optimum_units::run(config, &units, |p| {
            let step = if p.phase == 0 {
                Step::Rays
            } else {
                Step::Score
            };
            progress(stage(step, p.units.done, p.units.share))
        })?;
        out.ended = o.ended;
        let (at, dir) = ((o.progress.done, o.progress.share), o.work_dir.as_deref());
        match o.ended {
            Ended::Complete => done.push("optimum"),
            e => {
                out.message = Some(cut_short(
                    e,
                    "the best strategy",
                    " of its phase",
                    at,
                    o.started,
                    dir,
                ))
            }
        }
        if let (Some(report), Some(optimum)) = (&mut out.report, o.optimum) {
            if let Some(path) = &options.tree
                && o.ended.is_complete()
            {
                crate::assistant::certificate::write_trees(path, report, &optimum)?;
            }
            report.optimal = Some(optimum);
        }
    }
    if options.bound && out.ended.is_complete() {
        let shared = BoundOptions {
            search,
            ..shared.clone()
        };
        let b = bound::run(config, &shared, |p| {
            progress(stage(Step::Bound, p.done, p.share))
        })?;
        out.ended = b.ended;
        let (at, dir) = ((b.progress.done, b.progress.share), b.work_dir.as_deref());
        match b.ended {
            Ended::Complete => done.push("bound"),
            e => out.message = Some(cut_short(e, "the lower bound", "", at, b.started, dir)),
        }
        if let Some(report) = &mut out.report {
            if !b.ended.is_complete() {
                report.bound_stopped = Some(BoundStopped {
                    stopped: b.ended,
                    units: b.units,
                    units_share: b.progress.share,
                    units_done: b.progress.done,
                    work_dir: b.work_dir.as_deref().map(shown),
                });
            }
            report.bound = b.bound;
        }
    }
    if process > 0 && out.ended.is_complete() {
        let work = done.join(" and ");
        out.message = Some(shared.cluster.share_done(config, &work, "report").into());
    }
    Ok(out)
}
