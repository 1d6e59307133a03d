//! Work cut into units, shared out among the workers of every process and
//! committed unit by unit, so that a killed run resumes.
//!
//! Every process works out the same units, in the same order (the largest
//! first, say). Process I takes the units of its turn in a snake over the
//! processes (unit i goes to process i mod P on even rounds of P units, to
//! P − 1 − i mod P on odd ones), and its workers take them one at a time,
//! each with a solver of its own ([`Units::solver`]). A unit's value must
//! be a function of the unit alone: the values are then the same whatever
//! the split, the order and the resumes.
//!
//! A process commits each unit it finishes to the log of its work
//! directory (NAME, `-processI` for process I of several; see
//! [`crate::work::dir`]), with a manifest of the settings that decide the
//! units: a run started again with the same settings reads the log and
//! does not search its units again; one with other settings is refused,
//! naming the setting that differs. Once the values are gathered at
//! process 0 (by timely, [`at_zero`]), each process removes the files it
//! made, and its directory when nothing else is in it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::control::{Budget, Cut, Ended};
use crate::error::Error;
use crate::files::shown;
use crate::setting::Setting;
use crate::work::cluster::{
    self, CONNECT_PATIENCE, Cluster, PeerWatch, Settings, Waited, wait_for_workers,
};
use crate::work::dir::{self, Log, WorkDir, read_lines};
use crate::work::disk::Disk;
use crate::work::gather::at_zero;
use crate::work::own;

/// The log of the units done.
const LOG: &str = "units.log";
/// The log while it is rewritten on a resume.
const LOG_TMP: &str = "units.log.tmp";

/// What a work cut into units searches: a solver per worker, and each
/// unit's value by one.
pub trait Units: Send + Sync + 'static {
    /// A worker's solver of units (it may remember what it learnt from
    /// one unit for the next).
    type Solver<'a>
    where
        Self: 'a;

    /// A worker's solver.
    fn solver(&self) -> Result<Self::Solver<'_>, Error>;

    /// Unit `unit`'s value, found by `solver`; the cut when the budget (or
    /// a fault) stopped it.
    fn solve(&self, solver: &mut Self::Solver<'_>, unit: usize) -> Result<Value, Cut>;
}

/// A unit's value (exchanged between processes as it is: no field is
/// left out or renamed, which timely's encoding would not read back).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Value {
    /// The value.
    pub value: u64,
    /// The work it took (sets searched), for reports.
    pub effort: u64,
    /// Anything more the unit found (a decision tree), as text.
    pub detail: String,
}

/// A work cut into units, and where and how it runs.
#[derive(Debug, Clone)]
pub struct Job {
    /// The work, as messages name it: `bound`, `optimum`.
    pub work: &'static str,
    /// The name of its work directory (`bbx-bound-A4_B8`); `-processI` is
    /// added for process I of several.
    pub name: String,
    /// The settings that decide the units and their values (a fingerprint
    /// of the units among them, and the number of processes): what a
    /// resumed run and every process must share.
    pub settings: Settings,
    /// Each unit's key, as its log line names it: a line of another key
    /// is not of this work, and neither is any line after it.
    pub keys: Vec<String>,
    /// Threads and processes.
    pub cluster: Cluster,
    /// The directory in which the work directory is made.
    pub work_dir: PathBuf,
    /// With several processes: what the program's panic hook tells of
    /// lost connections.
    pub peers: PeerWatch,
    /// What stops the wait for the other processes (the solvers take
    /// their own).
    pub budget: Budget,
    /// Where the log is written.
    pub disk: Disk,
    /// Keep the work directory of a finished run, for the caller to
    /// remove once it is done with what depends on it ([`Kept::remove`]):
    /// a later step stopped, the same run then finds this one done.
    pub keep: bool,
}

/// The work directory of a finished run, kept ([`Job::keep`]) and still
/// locked.
#[derive(Debug)]
pub struct Kept(WorkDir<Manifest>);

impl Kept {
    /// Removes the files the run made, and its directory when nothing else
    /// is in it.
    pub fn remove(self) {
        self.0.remove(true);
    }
}

/// How far this process is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Units of this process done, those of a resumed run included.
    pub done: u64,
    /// Units of this process in all.
    pub share: u64,
}

/// How a run of units ended.
#[derive(Debug)]
pub struct Ran {
    /// Every unit's value: on process 0, when every unit was done.
    pub values: Option<Vec<Value>>,
    /// On process 0 of a finished run: units found done in a work
    /// directory rather than searched in this run.
    pub resumed: u64,
    /// Complete, or stopped (by the budget, a fault, or another process).
    pub ended: Ended,
    /// The work directory (none when there are no units: nothing is
    /// written); removed once the work is complete.
    pub work_dir: Option<PathBuf>,
    /// This process's units done (committed), and its share.
    pub progress: Progress,
    /// Units this process searched in this run.
    pub searched: u64,
    /// The effort of the units this process searched in this run.
    pub effort: u64,
    /// Whether the workers started (false when stopped while the processes
    /// waited for each other).
    pub started: bool,
    /// With [`Job::keep`], the work directory of a finished run.
    pub kept: Option<Kept>,
}

/// The process that does unit `i` of `processes`: a snake over the
/// processes, the units being in decreasing size.
pub fn owner(i: usize, processes: usize) -> usize {
    let (round, at) = (i / processes, i % processes);
    if round.is_multiple_of(2) {
        at
    } else {
        processes - 1 - at
    }
}

/// One line of the log: unit `unit` (whose key is `key`) is worth
/// `value`, found through `sets` sets, with `detail`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Line {
    unit: u64,
    key: String,
    value: u64,
    sets: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    detail: String,
}

impl Line {
    fn value(self) -> Value {
        Value {
            value: self.value,
            effort: self.sets,
            detail: self.detail,
        }
    }
}

/// What a worker hands to worker 0: a unit's value (with `resumed` when
/// it came from the log), or `unit` = [`u64::MAX`] for a worker that
/// stopped before its share was done.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Offer {
    unit: u64,
    value: Value,
    resumed: bool,
}

/// The manifest of a work in units: the settings that decide it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Manifest {
    #[serde(skip)]
    work: &'static str,
    settings: Settings,
}

impl PartialEq for Manifest {
    fn eq(&self, other: &Manifest) -> bool {
        self.settings == other.settings
    }
}

impl dir::Manifest for Manifest {
    fn work(&self) -> &'static str {
        self.work
    }
    fn settings(&self) -> Settings {
        self.settings.clone()
    }
    fn made(&self, name: &str) -> bool {
        name == LOG || name == LOG_TMP
    }
    fn claims(&self, name: &str) -> bool {
        name == LOG
    }
}

/// What the workers of a process share.
struct Shared<U: Units> {
    units: Arc<U>,
    keys: Vec<String>,
    /// This process's units not done yet, in order.
    pending: Vec<usize>,
    /// Values of this process's units found in the log.
    resumed: Vec<Offer>,
    /// The next of `pending` to take.
    next: AtomicUsize,
    /// Units done in this run.
    done: AtomicU64,
    /// Their effort.
    effort: AtomicU64,
    /// A worker stopped (cut or failed): the others stop too.
    stopped: AtomicBool,
    /// What cut a worker short, the first one.
    cut: Mutex<Option<Cut>>,
    /// Workers that finished searching (and offer their values).
    computed: AtomicUsize,
    /// Workers that returned.
    ended: AtomicUsize,
    /// The log, and when it was last made durable.
    log: Mutex<(Log<Line>, Instant)>,
    /// This process's first worker's index among all.
    first: usize,
}

/// How often the log is made durable: a line is written (and kept by a
/// killed process) at once, and made to outlive the machine within this.
const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Searches the units of `units` named in `job`, shared out among the
/// workers of `job.cluster` and committed to a work directory made in
/// `job.work_dir`. `progress` is called about ten times a second. Process
/// 0 gets every value; the others their share done.
///
/// Stopped (the budget's deadline or token, a fault), the units finished
/// are kept: the same call resumes them. A process that loses another
/// returns [`Error::System`] naming it, its work kept.
pub fn run<U: Units>(
    job: &Job,
    units: Arc<U>,
    mut progress: impl FnMut(&Progress),
) -> Result<Ran, Error> {
    let cluster = &job.cluster;
    cluster.check()?;
    let count = job.keys.len();
    let mut out = Ran {
        values: None,
        resumed: 0,
        ended: Ended::Complete,
        work_dir: None,
        progress: Progress::default(),
        searched: 0,
        effort: 0,
        started: false,
        kept: None,
    };
    if count == 0 {
        // Nothing to share out: process 0 has every value at once.
        if cluster.process == 0 {
            out.values = Some(Vec::new());
        }
        out.started = true;
        return Ok(out);
    }
    let mine: Vec<usize> = (0..count)
        .filter(|&i| owner(i, cluster.processes) == cluster.process)
        .collect();
    let made = own::make_parents(&job.work_dir).map_err(|source| Error::WorkDir {
        path: shown(&job.work_dir),
        what: "make the directory".into(),
        source,
    })?;
    let mut name = job.name.clone();
    if cluster.processes > 1 {
        name.push_str(&format!("-process{}", cluster.process));
    }
    let manifest = Manifest {
        work: job.work,
        settings: job.settings.clone().with(Setting::Process, cluster.process),
    };
    let dir = WorkDir::open(&job.work_dir, &name, manifest, job.disk.clone())
        .inspect_err(|_| own::remove_made(&made))?;
    // The log's lines that stand for units of this work, up to the first
    // that does not (a torn line, written while killed); the log rewritten
    // with those alone.
    let done: Vec<Line> = read_lines(dir.reading(LOG), |before: &[Line], line| {
        let fits = job
            .keys
            .get(line.unit as usize)
            .is_some_and(|k| *k == line.key);
        fits && !before.iter().any(|d| d.unit == line.unit)
    });
    let log = match dir.open_log(LOG, &done, "write the log", false) {
        Ok(log) => log,
        Err(e) => {
            if dir.made() && !dir.resumed {
                dir.remove(true);
                own::remove_made(&made);
            }
            return Err(e);
        }
    };
    out.work_dir = Some(dir.path().to_path_buf());
    let resumed: Vec<Offer> = done
        .into_iter()
        .filter(|l| mine.contains(&(l.unit as usize)))
        .map(|l| Offer {
            unit: l.unit,
            value: l.value(),
            resumed: true,
        })
        .collect();
    let pending: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&i| !resumed.iter().any(|o| o.unit == i as u64))
        .collect();
    let shared = Arc::new(Shared {
        units,
        keys: job.keys.clone(),
        pending,
        resumed,
        next: AtomicUsize::new(0),
        done: AtomicU64::new(0),
        effort: AtomicU64::new(0),
        stopped: AtomicBool::new(false),
        cut: Mutex::new(None),
        computed: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        log: Mutex::new((log, Instant::now())),
        first: cluster.process * cluster.workers,
    });
    let report = |s: &Shared<U>| Progress {
        done: (s.resumed.len() as u64) + s.done.load(Ordering::Relaxed),
        share: mine.len() as u64,
    };
    progress(&report(&shared));
    let inter = Settings::new()
        .with("the bbx version", env!("CARGO_PKG_VERSION"))
        .with("the work", job.work)
        .and(&job.settings)
        .with(Setting::Workers, cluster.workers);
    let wait = cluster::Wait {
        patience: CONNECT_PATIENCE,
        budget: &job.budget,
    };
    let started = {
        let shared = shared.clone();
        cluster.execute(&inter, wait, &job.peers, move |worker| {
            // Counted even if the worker panics.
            struct Done<U: Units>(Arc<Shared<U>>);
            impl<U: Units> Drop for Done<U> {
                fn drop(&mut self) {
                    self.0.ended.fetch_add(1, Ordering::SeqCst);
                }
            }
            let _done = Done(shared.clone());
            shared.work_on(worker)
        })?
    };
    let guards = match started {
        Ok(guards) => guards,
        Err(cut) => {
            out.ended = cut.into();
            return Ok(out);
        }
    };
    out.started = true;
    let several = cluster.processes > 1;
    let waited = wait_for_workers(
        cluster.workers,
        || shared.ended.load(Ordering::SeqCst),
        &job.peers,
        || {
            several
                && shared.stopped.load(Ordering::SeqCst)
                && shared.computed.load(Ordering::SeqCst) == cluster.workers
        },
        || progress(&report(&shared)),
    );
    progress(&report(&shared));
    out.progress = report(&shared);
    out.searched = shared.done.load(Ordering::Relaxed);
    out.effort = shared.effort.load(Ordering::Relaxed);
    let stop = |shared: &Shared<U>| {
        shared
            .cut
            .lock()
            .ok()
            .and_then(|c| *c)
            .map(Ended::from)
            .unwrap_or_else(|| {
                job.budget
                    .check()
                    .err()
                    .map_or(Ended::Cancelled, Ended::from)
            })
    };
    let at = shown(dir.path());
    let lost_error = |lost: &cluster::Lost| {
        Error::system(format!(
            "{}: the units done are kept in {at}; when every process can run, the same commands resume them",
            cluster.lost(lost),
        ))
    };
    let finish = |dir: WorkDir<Manifest>| match job.keep {
        true => Some(Kept(dir)),
        false => {
            dir.remove(true);
            None
        }
    };
    if waited != Waited::Ended {
        // Workers still running or stopped for good: left to end with the
        // process, their units committed.
        std::mem::forget(guards);
        if let Some(lost) = job.peers.lost() {
            return Err(lost_error(&lost));
        }
        out.ended = stop(&shared);
        return Ok(out);
    }
    let mut gathered = None;
    for result in guards.join() {
        match result {
            Ok(Ok(Some(offers))) => gathered = Some(offers),
            Ok(Ok(None)) => {}
            Ok(Err(e)) => return Err(e),
            Err(panic) => {
                if let Some(lost) = job.peers.lost() {
                    return Err(lost_error(&lost));
                }
                return Err(Error::Internal(format!(
                    "a worker of the {} failed: {panic}",
                    job.work
                )));
            }
        }
    }
    let own_share_done = shared.pending.len() as u64 == shared.done.load(Ordering::SeqCst)
        && !shared.stopped.load(Ordering::SeqCst);
    if cluster.process != 0 {
        out.ended = if own_share_done {
            Ended::Complete
        } else {
            stop(&shared)
        };
        if own_share_done {
            out.kept = finish(dir);
        }
        return Ok(out);
    }
    let offers = gathered.unwrap_or_default();
    if offers.iter().any(|o| o.unit == u64::MAX) || !own_share_done {
        out.ended = stop(&shared);
        return Ok(out);
    }
    let mut values = vec![None; count];
    for o in offers {
        if let Some(slot) = values.get_mut(o.unit as usize) {
            out.resumed += u64::from(o.resumed);
            *slot = Some(o.value);
        }
    }
    let Some(values) = values.into_iter().collect::<Option<Vec<Value>>>() else {
        return Err(Error::Internal(format!(
            "the {} gathered values of only some of its {count} units",
            job.work
        )));
    };
    out.values = Some(values);
    out.ended = Ended::Complete;
    out.kept = finish(dir);
    Ok(out)
}

impl<U: Units> Shared<U> {
    /// One worker: takes units until none is left or it must stop,
    /// committing each, then hands its values (and, worker 0 of the
    /// process, those of the log) to worker 0 of process 0, which returns
    /// them all.
    fn work_on(&self, worker: &mut timely::worker::Worker) -> Result<Option<Vec<Offer>>, Error> {
        let mut offered = Vec::new();
        let mut failure = None;
        match self.units.solver() {
            Err(e) => {
                failure = Some(e);
                self.stopped.store(true, Ordering::SeqCst);
            }
            Ok(mut solver) => loop {
                if self.stopped.load(Ordering::SeqCst) {
                    break;
                }
                let k = self.next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = self.pending.get(k) else {
                    break;
                };
                match self.units.solve(&mut solver, i) {
                    Ok(value) => {
                        let line = Line {
                            unit: i as u64,
                            key: self.keys[i].clone(),
                            value: value.value,
                            sets: value.effort,
                            detail: value.detail,
                        };
                        let committed = self.log.lock().map_err(|_| {
                            Error::Internal("a worker failed while logging its unit".into())
                        });
                        let written = committed.and_then(|mut held| {
                            let (log, synced) = &mut *held;
                            log.append(&line)?;
                            if synced.elapsed() >= SYNC_EVERY {
                                log.sync()?;
                                *synced = Instant::now();
                            }
                            Ok(())
                        });
                        if let Err(e) = written {
                            failure = Some(e);
                            self.stopped.store(true, Ordering::SeqCst);
                            break;
                        }
                        self.done.fetch_add(1, Ordering::SeqCst);
                        self.effort.fetch_add(line.sets, Ordering::Relaxed);
                        offered.push(Offer {
                            unit: line.unit,
                            value: line.value(),
                            resumed: false,
                        });
                    }
                    Err(cut) => {
                        if let Ok(mut c) = self.cut.lock() {
                            c.get_or_insert(cut);
                        }
                        self.stopped.store(true, Ordering::SeqCst);
                        break;
                    }
                }
            },
        }
        // The units this worker committed, made durable.
        if let Ok(held) = self.log.lock()
            && let Err(e) = held.0.sync()
        {
            failure.get_or_insert(e);
            self.stopped.store(true, Ordering::SeqCst);
        }
        if worker.index() == self.first {
            offered.extend(self.resumed.iter().cloned());
        }
        if failure.is_some() || self.stopped.load(Ordering::SeqCst) {
            offered.push(Offer {
                unit: u64::MAX,
                value: Value::default(),
                resumed: false,
            });
        }
        self.computed.fetch_add(1, Ordering::SeqCst);
        let all = at_zero(worker, offered);
        if let Some(e) = failure {
            return Err(e);
        }
        Ok((worker.index() == 0).then_some(all))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snake_shares_the_units_out_evenly() {
        for processes in 1..6 {
            for units in 0..40 {
                let mut counts = vec![0; processes];
                for i in 0..units {
                    counts[owner(i, processes)] += 1;
                }
                let (lo, hi) = (counts.iter().min(), counts.iter().max());
                assert!(
                    hi.unwrap() - lo.unwrap() <= 1,
                    "{processes} {units}: {counts:?}"
                );
            }
        }
        assert_eq!(
            (0..6).map(|i| owner(i, 3)).collect::<Vec<_>>(),
            [0, 1, 2, 2, 1, 0]
        );
    }

    /// Units whose value is their square, stopping after `stop` units a
    /// solver.
    struct Squares {
        stop: Option<u64>,
    }

    impl Units for Squares {
        type Solver<'a> = u64;
        fn solver(&self) -> Result<u64, Error> {
            Ok(0)
        }
        fn solve(&self, solved: &mut u64, unit: usize) -> Result<Value, Cut> {
            if self.stop.is_some_and(|s| *solved >= s) {
                return Err(Cut::TimedOut);
            }
            *solved += 1;
            Ok(Value {
                value: (unit * unit) as u64,
                effort: 1,
                detail: format!("unit {unit}"),
            })
        }
    }

    fn job(dir: &std::path::Path, workers: usize) -> Job {
        Job {
            work: "test",
            name: "bbx-test".into(),
            settings: Settings::new().with("the units", 10),
            keys: (0..10).map(|i| format!("k{i}")).collect(),
            cluster: Cluster::local(workers),
            work_dir: dir.to_path_buf(),
            peers: PeerWatch::default(),
            budget: Budget::default(),
            disk: Disk::real(),
            keep: false,
        }
    }

    #[test]
    fn units_stopped_resume_to_the_same_values_and_leave_nothing() {
        let scratch = tempfile::tempdir().unwrap();
        let stopped = run(
            &job(scratch.path(), 1),
            Arc::new(Squares { stop: Some(4) }),
            |_| {},
        )
        .unwrap();
        assert!(stopped.values.is_none() && !stopped.ended.is_complete());
        assert_eq!(stopped.progress.done, 4);
        // Other settings: refused, naming the setting.
        let mut other = job(scratch.path(), 1);
        other.settings = Settings::new().with("the units", 11);
        let e = run(&other, Arc::new(Squares { stop: None }), |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("the units is 11 here but 10"), "{e}");
        let whole = run(
            &job(scratch.path(), 2),
            Arc::new(Squares { stop: None }),
            |_| {},
        )
        .unwrap();
        let values = whole.values.unwrap();
        assert_eq!(whole.resumed, 4);
        assert_eq!(whole.searched, 6);
        assert_eq!(
            values.iter().map(|v| v.value).collect::<Vec<_>>(),
            (0..10).map(|i| i * i).collect::<Vec<u64>>()
        );
        assert_eq!(values[3].detail, "unit 3");
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    }
}
