//! A lower bound's depth search shared out among the census's workers and
//! processes, and checkpointed so that a killed run resumes.
//!
//! The search's root is cut into units ([`BoundWork`]): the sets the first
//! rays leave, up to the box's symmetries, each worth its bound searched
//! one ray less deep. Every process works out the same units; process I
//! takes the units of its turn in a snake over the processes, the largest
//! first (unit i goes to process i mod P on even rounds of P units, to
//! P − 1 − i mod P on odd ones), and its workers take them one at a time.
//! Each unit's value is a function of the unit alone, so the bound is the
//! same whatever the split, the order and the resumes.
//!
//! A process commits each unit it finishes to the log of its work
//! directory (`bbx-bound-CONFIG`, `-processI` for process I of several),
//! a directory of bbx's own ([`OwnDir`]) made in the directory given, with
//! a manifest of the settings that decide the units: a run started again
//! with the same settings reads the log and does not search its units
//! again; one with other settings is refused, naming the setting that
//! differs. Once the values are gathered at process 0 (by timely, as the
//! census gathers its counts), each process removes the files it made, and
//! its directory when nothing else is in it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::assistant::optimal::{BoundWork, LowerBound, MEMO_MEMORY, OptimalOptions};
use crate::census::checkpoint::{Disk, MANIFEST, MANIFEST_TMP, lock_patiently};
use crate::census::cluster::{self, Cluster, PeerWatch, Settings};
use crate::census::dataflow::at_zero;
use crate::census::own::{self, OwnDir, refused};
use crate::census::{CONNECT_PATIENCE, checkpoint};
use crate::control::{Cut, Ended};
use crate::error::Error;
use crate::files::shown;
use crate::rules::config::Config;
use crate::setting::Setting;
use crate::text;

/// The format of a bound's work directory: a change of what it holds
/// changes it, so that other work is refused rather than resumed.
pub const FORMAT: u32 = 1;

/// The log of the units done.
const LOG: &str = "units.log";
/// The log while it is rewritten on a resume.
const LOG_TMP: &str = "units.log.tmp";
/// The most bytes of a log line read (a real one is under a hundred).
const LINE_LIMIT: u64 = 1024;

/// How long the workers of a process that lost another are given to end.
const LOST_GRACE: Duration = Duration::from_secs(2);

/// How a shared bound runs.
#[derive(Debug, Clone)]
pub struct BoundOptions {
    /// The search's options: rules, depth, the sets searched to the end,
    /// the budget (its memory bound shared by the workers' memos) and
    /// faults (`stop-after`: each worker stops after that many sets).
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

/// One line of the log: unit `unit` (whose key is `key`) is worth `value`,
/// found through `sets` sets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Line {
    unit: u64,
    key: String,
    value: u64,
    sets: u64,
}

/// What a worker hands to worker 0: a unit's value (with `resumed` when
/// it came from the log), or `unit` = [`u64::MAX`] for a worker that
/// stopped before its share was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Offer {
    unit: u64,
    value: u64,
    sets: u64,
    resumed: bool,
}

/// The process that does unit `i` of `processes`: a snake over the
/// processes, the units being in decreasing size.
fn owner(i: usize, processes: usize) -> usize {
    let (round, at) = (i / processes, i % processes);
    if round.is_multiple_of(2) {
        at
    } else {
        processes - 1 - at
    }
}

/// The name of the work directory of a bound of `config` in process
/// `process` of `processes`.
fn work_dir_name(config: Config, cluster: &Cluster) -> String {
    let mut name = format!("bbx-bound-{config}");
    if cluster.processes > 1 {
        name.push_str(&format!("-process{}", cluster.process));
    }
    name
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

/// A lower bound of the fewest rays of `config`, its depth search shared
/// out among the workers of `options.cluster` and checkpointed in a work
/// directory made in `options.work_dir`. `progress` is called about ten
/// times a second. Process 0 gets the bound; the others its share done.
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
    let units = work.units().len();
    out.units = units as u64;
    if units == 0 {
        // Nothing to share out: process 0 has the bound at once.
        if cluster.process == 0 {
            out.bound = Some(work.bound(&[], 0)?);
        }
        out.started = true;
        return Ok(out);
    }
    let mine: Vec<usize> = (0..units)
        .filter(|&i| owner(i, cluster.processes) == cluster.process)
        .collect();
    let made = own::make_parents(&options.work_dir).map_err(|source| Error::WorkDir {
        path: shown(&options.work_dir),
        what: "make the directory".into(),
        source,
    })?;
    let settings = decisive(config, options, &work).with(Setting::Process, cluster.process);
    let disk = options
        .search
        .faults
        .fail_writes_after
        .map_or_else(Disk::real, Disk::filling_after);
    let Checkpoint { dir, done, log } = Checkpoint::open(
        &options.work_dir,
        &work_dir_name(config, cluster),
        &settings,
        &work,
        disk,
    )
    .inspect_err(|_| own::remove_made(&made))?;
    out.work_dir = Some(dir.path().to_path_buf());
    let resumed: Vec<Offer> = done
        .iter()
        .filter(|l| mine.contains(&(l.unit as usize)))
        .map(|l| Offer {
            unit: l.unit,
            value: l.value,
            sets: l.sets,
            resumed: true,
        })
        .collect();
    let pending: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&i| !resumed.iter().any(|o| o.unit == i as u64))
        .collect();
    let shared = Arc::new(Shared {
        work,
        memory: options.search.budget.memory_or(MEMO_MEMORY) / cluster.workers as u64,
        pending,
        resumed,
        next: AtomicUsize::new(0),
        done: AtomicU64::new(0),
        searched: AtomicU64::new(0),
        stopped: AtomicBool::new(false),
        cut: Mutex::new(None),
        computed: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        log: Mutex::new(log),
        first: cluster.process * cluster.workers,
    });
    let report = |s: &Shared| BoundProgress {
        done: (s.resumed.len() as u64) + s.done.load(Ordering::Relaxed),
        share: mine.len() as u64,
    };
    progress(&report(&shared));
    let inter = Settings::new()
        .with("the bbx version", env!("CARGO_PKG_VERSION"))
        .and(&decisive(config, options, &shared.work))
        .with(Setting::Workers, cluster.workers);
    let wait = cluster::Wait {
        patience: CONNECT_PATIENCE,
        budget: &options.search.budget,
    };
    let started = {
        let shared = shared.clone();
        cluster.execute(&inter, wait, &options.peers, move |worker| {
            // Counted even if the worker panics.
            struct Done(Arc<Shared>);
            impl Drop for Done {
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
    let finished = wait_for_workers(&shared, options, &mut || progress(&report(&shared)));
    progress(&report(&shared));
    out.progress = report(&shared);
    out.searched = shared.searched.load(Ordering::Relaxed);
    let stop = |shared: &Shared| {
        shared
            .cut
            .lock()
            .ok()
            .and_then(|c| *c)
            .map(Ended::from)
            .or_else(|| options.search.budget.check().err().map(Ended::from))
            .unwrap_or(Ended::Cancelled)
    };
    if !finished {
        std::mem::forget(guards);
        if let Some(lost) = options.peers.lost() {
            return Err(Error::system(format!(
                "{}: the units done are kept in {}; when every process can run, the same commands resume them",
                cluster.lost(&lost),
                shown(dir.path())
            )));
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
                if let Some(lost) = options.peers.lost() {
                    return Err(Error::system(format!(
                        "{}: the units done are kept in {}; when every process can run, the same commands resume them",
                        cluster.lost(&lost),
                        shown(dir.path())
                    )));
                }
                return Err(Error::Internal(format!(
                    "a worker of the bound failed: {panic}"
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
            remove_files(&dir);
        }
        return Ok(out);
    }
    let offers = gathered.unwrap_or_default();
    if offers.iter().any(|o| o.unit == u64::MAX) || !own_share_done {
        out.ended = stop(&shared);
        return Ok(out);
    }
    let bound = gather(&shared.work, &offers, units)?;
    out.bound = Some(bound);
    out.ended = Ended::Complete;
    remove_files(&dir);
    Ok(out)
}

/// Waits for the workers of this process, calling `report` about ten
/// times a second: true when every worker ended; false when another
/// process was lost, or when this one stopped while others may still work
/// (their values would only come once they are done; its units are
/// committed).
fn wait_for_workers(shared: &Shared, options: &BoundOptions, report: &mut dyn FnMut()) -> bool {
    let (cluster, peers) = (&options.cluster, &options.peers);
    let count = cluster.workers;
    let mut shown_at = Instant::now();
    let mut lost_at: Option<Instant> = None;
    loop {
        let ended = shared.ended.load(Ordering::SeqCst);
        if ended == count {
            return true;
        }
        if ended + peers.parked() >= count && peers.lost().is_some() {
            return false;
        }
        if shown_at.elapsed() >= Duration::from_millis(100) {
            report();
            shown_at = Instant::now();
        }
        if lost_at.is_none() && peers.lost().is_some() {
            lost_at = Some(Instant::now());
        }
        if lost_at.is_some_and(|t| t.elapsed() > LOST_GRACE) {
            return false;
        }
        if cluster.processes > 1
            && shared.stopped.load(Ordering::SeqCst)
            && shared.computed.load(Ordering::SeqCst) == count
        {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The bound of `work` from the values of its `units` units gathered at
/// process 0 (`offers`, those resumed from the work directory counted).
fn gather(work: &BoundWork, offers: &[Offer], units: usize) -> Result<LowerBound, Error> {
    let mut values = vec![None; units];
    let (mut sets, mut resumed) = (0, 0);
    for o in offers {
        if let Some(slot) = values.get_mut(o.unit as usize) {
            *slot = Some(o.value);
            sets += o.sets;
            resumed += u64::from(o.resumed);
        }
    }
    let Some(values) = values.into_iter().collect::<Option<Vec<u64>>>() else {
        return Err(Error::Internal(format!(
            "the bound's workers gave {} values for {units} units",
            offers.len()
        )));
    };
    let mut bound = work.bound(&values, sets)?;
    bound.units_resumed = resumed;
    Ok(bound)
}

/// What the workers of a process share.
struct Shared {
    work: BoundWork,
    /// Each worker's memo's memory.
    memory: u64,
    /// The units of this process not in its log, in order.
    pending: Vec<usize>,
    /// The values its log held.
    resumed: Vec<Offer>,
    /// The next of `pending` to take.
    next: AtomicUsize,
    /// Units done and committed in this run.
    done: AtomicU64,
    /// Sets searched in this run.
    searched: AtomicU64,
    /// A worker stopped: the others take no new unit.
    stopped: AtomicBool,
    /// What stopped it.
    cut: Mutex<Option<Cut>>,
    /// Workers past their units.
    computed: AtomicUsize,
    /// Workers that returned.
    ended: AtomicUsize,
    log: Mutex<Log>,
    /// This process's first worker's index among all.
    first: usize,
}

impl Shared {
    /// One worker: takes units until none is left or it must stop,
    /// committing each, then hands its values (and, worker 0 of the
    /// process, those of the log) to worker 0 of process 0, which returns
    /// them all.
    fn work_on(&self, worker: &mut timely::worker::Worker) -> Result<Option<Vec<Offer>>, Error> {
        let mut offered = Vec::new();
        let mut failure = None;
        match self.work.solver(self.memory) {
            Err(e) => failure = Some(e),
            Ok(mut solver) => loop {
                if self.stopped.load(Ordering::SeqCst) {
                    break;
                }
                let k = self.next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = self.pending.get(k) else {
                    break;
                };
                match solver.value(i) {
                    Ok((value, sets)) => {
                        let line = Line {
                            unit: i as u64,
                            key: format!("{:032x}", self.work.units()[i].key),
                            value,
                            sets,
                        };
                        let committed = self.log.lock().map_err(|_| {
                            Error::Internal("a worker of the bound failed while logging".into())
                        });
                        if let Err(e) = committed.and_then(|mut log| log.append(&line)) {
                            failure = Some(e);
                            self.stopped.store(true, Ordering::SeqCst);
                            break;
                        }
                        self.done.fetch_add(1, Ordering::SeqCst);
                        self.searched.fetch_add(sets, Ordering::Relaxed);
                        offered.push(Offer {
                            unit: i as u64,
                            value,
                            sets,
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
        if worker.index() == self.first {
            offered.extend(self.resumed.iter().copied());
        }
        if failure.is_some() || self.stopped.load(Ordering::SeqCst) {
            offered.push(Offer {
                unit: u64::MAX,
                value: 0,
                sets: 0,
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

/// A bound's work directory, locked, with the units its log holds.
struct Checkpoint {
    dir: OwnDir,
    /// The units done in earlier runs (of this process).
    done: Vec<Line>,
    log: Log,
}

/// The manifest: the settings that decide the work.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Manifest {
    settings: Settings,
}

impl Checkpoint {
    /// Opens (or makes) work directory `name` in `parent` for a bound with
    /// `settings` and `work`'s units, and locks it. Refuses, touching
    /// nothing, a directory that is not bbx's own, one holding anything
    /// but a bound's files, one made with other settings (naming the first
    /// that differs).
    fn open(
        parent: &Path,
        name: &str,
        settings: &Settings,
        work: &BoundWork,
        disk: Disk,
    ) -> Result<Checkpoint, Error> {
        let dir = OwnDir::open(parent, name)?;
        match Checkpoint::take(&dir, settings, work, disk) {
            Ok((done, log)) => Ok(Checkpoint { dir, done, log }),
            Err(e) => {
                if dir.made {
                    let _ = dir.remove(LOG);
                    let _ = dir.remove(MANIFEST_TMP);
                    let _ = dir.remove(MANIFEST);
                    dir.remove_if_empty();
                }
                Err(e)
            }
        }
    }

    fn take(
        dir: &OwnDir,
        settings: &Settings,
        work: &BoundWork,
        disk: Disk,
    ) -> Result<(Vec<Line>, Log), Error> {
        let path = dir.path();
        let io = |what: &str| checkpoint_failed(path, what);
        if !lock_patiently(dir).map_err(io("lock the work directory"))? {
            return Err(Error::busy(text![
                format!(
                    "{}: another bound is using this work directory; wait for it to finish, or give another ",
                    shown(path)
                ),
                Setting::WorkDir
            ]));
        }
        let names = dir.names().map_err(io("read the work directory"))?;
        let has = |n: &str| names.iter().any(|m| m == n);
        let manifest = has(MANIFEST);
        for n in &names {
            let name = n.to_str().unwrap_or("");
            let ours = if manifest {
                [MANIFEST, LOG, LOG_TMP].contains(&name)
            } else {
                name == MANIFEST_TMP
            };
            let entry = match ours {
                true => dir.entry(name).map_err(io("read the work directory"))?,
                false => None,
            };
            if !entry.is_some_and(|e| e.own_file) {
                let what = if ours {
                    "which is not a regular file bbx made (a link, a directory, a file with other names)"
                } else {
                    "which bbx did not make"
                };
                return Err(refused(path, &format!("it holds '{}', {what}", shown(n))));
            }
        }
        if !manifest {
            dir.remove(MANIFEST_TMP).map_err(io("write the manifest"))?;
            checkpoint::write_manifest(
                dir,
                &Manifest {
                    settings: settings.clone(),
                },
            )?;
        } else {
            let found: Manifest = checkpoint::read_manifest_of(dir, "bound")?;
            if let Some((name, mine, theirs)) = settings.differs(&found.settings) {
                return Err(Error::invalid(
                    text![
                        format!(
                            "{} holds a bound started with other settings: ",
                            shown(path)
                        ),
                        name,
                        format!(" is {mine} here but {theirs} in the work directory")
                    ]
                    .and_text(checkpoint::resume_or_discard("bound")),
                ));
            }
        }
        // The log's lines that stand for units of this work, up to the
        // first that does not (a torn line, written while killed).
        let mut done: Vec<Line> = Vec::new();
        if let Ok(file) = dir.open_file(LOG) {
            let mut reader = BufReader::new(file);
            loop {
                let mut text = String::new();
                match (&mut reader).take(LINE_LIMIT).read_line(&mut text) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let Ok(line) = serde_json::from_str::<Line>(text.trim_end()) else {
                    break;
                };
                let fits = work
                    .units()
                    .get(line.unit as usize)
                    .is_some_and(|u| format!("{:032x}", u.key) == line.key);
                if !fits || !text.ends_with('\n') || done.iter().any(|d| d.unit == line.unit) {
                    break;
                }
                done.push(line);
            }
        }
        // The log rewritten with those lines alone (through a file renamed
        // over it: a kill leaves the old log or the new), open to append.
        let err = checkpoint_failed(&path.join(LOG), "write the log");
        dir.remove(LOG_TMP).map_err(&err)?;
        let mut file = dir.create(LOG_TMP).map_err(&err)?;
        let mut text = String::new();
        for l in &done {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        disk.write_all(&mut file, 0, text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(&err)?;
        dir.rename(LOG_TMP, LOG).map_err(&err)?;
        Ok((
            done,
            Log {
                file,
                path: path.join(LOG),
                broken: false,
                at: text.len() as u64,
                disk,
            },
        ))
    }
}

/// Removes the files a bound makes in its work directory `dir` (the log
/// first, the manifest last), then the directory if nothing else is in it.
fn remove_files(dir: &OwnDir) {
    let _ = dir.remove(LOG);
    let _ = dir.remove(LOG_TMP);
    let _ = dir.remove(MANIFEST_TMP);
    let _ = dir.remove(MANIFEST);
    dir.remove_if_empty();
}

/// The log of units done, open to append.
#[derive(Debug)]
struct Log {
    file: File,
    path: PathBuf,
    /// A write failed: nothing more is appended.
    broken: bool,
    /// Its length.
    at: u64,
    /// The disk it is written to (a full one faked by the
    /// `fail-writes-after` fault).
    disk: Disk,
}

impl Log {
    /// Appends a line, made durable (a unit may stand for hours).
    fn append(&mut self, line: &Line) -> Result<(), Error> {
        let err = checkpoint_failed(&self.path, "write the log");
        if self.broken {
            return Err(err(std::io::Error::other(
                "an earlier write to this log failed",
            )));
        }
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        let written = self
            .disk
            .write_all(&mut self.file, self.at, text.as_bytes())
            .and_then(|()| self.file.sync_data());
        self.at += text.len() as u64;
        self.broken = written.is_err();
        written.map_err(err)
    }
}

/// The error of a file of the work directory at `path` that could not be
/// used for `what`.
fn checkpoint_failed(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Error + use<> {
    checkpoint::failed(path, what)
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
        stopped.search.faults = crate::control::Faults::parse("stop-after=20000").unwrap();
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
        stopped.search.faults = crate::control::Faults::parse("stop-after=10").unwrap();
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
        assert!(work.join(MANIFEST).exists() && work.join(LOG).exists());
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
