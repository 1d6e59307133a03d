//! A lower bound's depth search shared out among the workers and
//! processes of a cluster, and checkpointed so that a killed run resumes.
//!
//! The search's root is cut into units ([`BoundWork`]): the sets the first
//! rays leave, up to the box's symmetries, each worth its bound searched
//! one ray less deep. They are searched as any work in units is
//! ([`crate::work::units`]): shared out among the processes (the largest
//! first) and their workers, each unit committed to the log of a work
//! directory (`bbx-bound-CONFIG`, `-processI` for process I of several)
//! whose manifest holds the settings that decide the units, the values
//! gathered at process 0. Each unit's value is a function of the unit
//! alone, so the bound is the same whatever the split, the order and the
//! resumes.

use std::path::PathBuf;
use std::sync::Arc;

use crate::assistant::optimal::{BoundWork, LowerBound, MEMO_MEMORY, OptimalOptions, UnitSolver};
use crate::control::{Cut, Ended};
use crate::error::Error;
use crate::rules::config::Config;
use crate::setting::Setting;
use crate::work::cluster::{Cluster, PeerWatch, Settings};
use crate::work::disk::Disk;
use crate::work::units::{self, Job, Units, Value};

/// The format of a bound's work directory: a change of what it holds
/// changes it, so that other work is refused rather than resumed.
pub const FORMAT: u32 = 1;

/// How a shared bound runs.
#[derive(Debug, Clone)]
pub struct BoundOptions {
    /// The search's options: rules, depth, the sets searched to the end,
    /// the budget (its memory bound shared by the workers' memos; its
    /// faults' `stop-after`: each worker stops after that many sets).
    pub search: OptimalOptions,
    /// Threads and processes.
    pub cluster: Cluster,
    /// The directory in which the work directory is made (the program
    /// chooses it; the library reads no environment).
    pub work_dir: PathBuf,
    /// With several processes: what the program's panic hook tells of
    /// lost connections (see [`PeerWatch`]).
    pub peers: PeerWatch,
}

/// How far this process is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoundProgress {
    /// Units of this process done, those of a resumed run included.
    pub done: u64,
    /// Units of this process in all.
    pub share: u64,
}

/// How a shared bound ended.
#[derive(Debug, Clone)]
pub struct SharedBound {
    /// The bound: on process 0, when every unit was done.
    pub bound: Option<LowerBound>,
    /// Complete, or stopped (by the budget, a fault, or another process).
    pub ended: Ended,
    /// The work directory (none when the search has no units: nothing is
    /// written); removed once the bound is complete.
    pub work_dir: Option<PathBuf>,
    /// Units in all.
    pub units: u64,
    /// This process's units done (committed), and its share.
    pub progress: BoundProgress,
    /// Units this process searched in this run.
    pub searched: u64,
    /// Whether the workers started (false when stopped while the processes
    /// waited for each other, or before the units were known).
    pub started: bool,
}

/// The settings that decide the units and their values, which a resumed
/// run and every process must share.
fn decisive(config: Config, options: &BoundOptions, work: &BoundWork) -> Settings {
    let s = &options.search;
    Settings::new()
        .with("the work directory format", FORMAT)
        .with("the configuration", config)
        .with(Setting::Rules, s.rules)
        .with(Setting::Depth, s.depth)
        .with(Setting::ExactBelow, s.small)
        .with("the units of work", work.fingerprint())
        .with(Setting::Processes, options.cluster.processes)
}

/// The bound's units, each worker's memo within `memory` bytes.
struct BoundUnits {
    work: BoundWork,
    memory: u64,
}

impl Units for BoundUnits {
    type Solver<'a> = UnitSolver<'a>;

    fn solver(&self) -> Result<UnitSolver<'_>, Error> {
        self.work.solver(self.memory)
    }

    fn solve(&self, solver: &mut UnitSolver<'_>, unit: usize) -> Result<Value, Cut> {
        let (value, sets) = solver.value(unit)?;
        Ok(Value {
            value,
            effort: sets,
            detail: String::new(),
        })
    }
}

/// A lower bound of the fewest rays of `config`, its depth search shared
/// out among the workers of `options.cluster` and checkpointed in a work
/// directory made in `options.work_dir`. `progress` is called about ten
/// times a second. Process 0 gets the bound; the others their share done.
///
/// Stopped (the budget's deadline or token, a `stop-after` fault), the
/// units finished are kept: the same call resumes them. A process that
/// loses another returns [`Error::System`] naming it, its work kept.
pub fn run(
    config: Config,
    options: &BoundOptions,
    mut progress: impl FnMut(&BoundProgress),
) -> Result<SharedBound, Error> {
    let cluster = &options.cluster;
    cluster.check()?;
    let work = BoundWork::new(config, &options.search)?;
    let mut out = SharedBound {
        bound: None,
        ended: work.ended,
        work_dir: None,
        units: 0,
        progress: BoundProgress::default(),
        searched: 0,
        started: false,
    };
    let Some(work) = work.value else {
        return Ok(out);
    };
    out.units = work.units().len() as u64;
    let job = Job {
        work: "bound",
        name: format!("bbx-bound-{config}"),
        settings: decisive(config, options, &work),
        keys: work
            .units()
            .iter()
            .map(|u| format!("{:032x}", u.key))
            .collect(),
        cluster: cluster.clone(),
        work_dir: options.work_dir.clone(),
        peers: options.peers.clone(),
        budget: options.search.budget.clone(),
        disk: Disk::of_fault(options.search.budget.faults.fail_writes_after),
        keep: false,
    };
    let shared = Arc::new(BoundUnits {
        work,
        memory: options.search.budget.memory_or(MEMO_MEMORY) / cluster.workers as u64,
    });
    let ran = units::run(&job, shared.clone(), |p| {
        progress(&BoundProgress {
            done: p.done,
            share: p.share,
        })
    })?;
    out.ended = ran.ended;
    out.work_dir = ran.work_dir;
    out.progress = BoundProgress {
        done: ran.progress.done,
        share: ran.progress.share,
    };
    out.searched = ran.searched;
    out.started = ran.started;
    if let Some(values) = ran.values {
        let sets = values.iter().map(|v| v.effort).sum();
        let values: Vec<u64> = values.iter().map(|v| v.value).collect();
        let mut bound = shared.work.bound(&values, sets)?;
        bound.units_resumed = ran.resumed;
        out.bound = Some(bound);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn options(dir: &Path, workers: usize, depth: u32) -> BoundOptions {
        BoundOptions {
            search: OptimalOptions {
                depth,
                small: 8,
                ..OptimalOptions::default()
            },
            cluster: Cluster::local(workers),
            work_dir: dir.to_path_buf(),
            peers: PeerWatch::default(),
        }
    }

    #[test]
    fn threads_give_the_bound_of_one_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A3_B5".parse().unwrap();
        let alone =
            crate::assistant::optimal::lower_bound(config, &options(dir.path(), 1, 2).search)
                .unwrap()
                .value
                .unwrap();
        for workers in [1, 3] {
            let run = run(config, &options(dir.path(), workers, 2), |_| {}).unwrap();
            let b = run.bound.unwrap();
            assert_eq!(b.search_total, alone.search_total);
            assert_eq!(b.rays_total, alone.rays_total);
            assert_eq!(run.progress.done, run.units);
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn a_stopped_bound_resumes_and_other_settings_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A3_B5".parse().unwrap();
        let whole = run(config, &options(dir.path(), 1, 3), |_| {}).unwrap();
        let whole = whole.bound.unwrap();
        let mut stopped = options(dir.path(), 1, 3);
        stopped.search.budget.faults = crate::control::Faults::parse("stop-after=20000").unwrap();
        let first = run(config, &stopped, |_| {}).unwrap();
        assert!(first.bound.is_none() && !first.ended.is_complete());
        let done = first.progress.done;
        assert!(done > 0 && done < first.units, "{done} of {}", first.units);
        // Another depth: refused, naming it; nothing touched.
        let e = run(config, &options(dir.path(), 1, 2), |_| {}).unwrap_err();
        let shown = e.show(&crate::setting::Plain);
        assert!(
            shown.contains("the search depth is 2 here but 3"),
            "{shown}"
        );
        let again = run(config, &options(dir.path(), 2, 3), |_| {}).unwrap();
        let b = again.bound.unwrap();
        assert_eq!(b.units_resumed, done);
        assert!(again.searched > 0);
        assert_eq!(b.search_total, whole.search_total);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_work_directory_with_files_bbx_did_not_make_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A3_B4".parse().unwrap();
        let mut stopped = options(dir.path(), 1, 3);
        stopped.search.budget.faults = crate::control::Faults::parse("stop-after=10").unwrap();
        let first = run(config, &stopped, |_| {}).unwrap();
        assert!(first.bound.is_none());
        let work = first.work_dir.unwrap();
        std::fs::write(work.join("notes.txt"), "mine").unwrap();
        let e = run(config, &options(dir.path(), 1, 3), |_| {}).unwrap_err();
        let shown = e.show(&crate::setting::Plain);
        assert!(
            shown.contains("it holds 'notes.txt', which bbx did not make"),
            "{shown}"
        );
        assert_eq!(
            std::fs::read_to_string(work.join("notes.txt")).unwrap(),
            "mine"
        );
        assert!(work.join("manifest.json").exists() && work.join("units.log").exists());
        std::fs::remove_file(work.join("notes.txt")).unwrap();
        assert!(
            run(config, &options(dir.path(), 1, 3), |_| {})
                .unwrap()
                .bound
                .is_some()
        );
        assert!(!work.exists());
    }
}
