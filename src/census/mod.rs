//! The census: a configuration's exact tables without a catalogue.
//!
//! The catalogue stores every molecule, which stops being possible around a
//! hundred million molecules. The census counts the same things — the
//! ambiguity table, the unique share, the largest spectral groups, the ray
//! records: a [`StatsReport`] equal to the catalogue's — while keeping only
//! 16 bytes per orbit of molecules, on disk, split so that any part fits in
//! memory.
//!
//! How, step by step (one module each):
//!
//! 1. [`orbits`]: walk the canonical molecules, one per orbit under the eight
//!    symmetries of the square, with their orbit sizes;
//! 2. [`spectra`]: trace each one, write its spectrum as codes and reduce it
//!    to the canonical form of its class under the same symmetries;
//! 3. [`record`]: pack the orbit into 16 bytes, keyed by a hash of that form;
//! 4. [`dataflow`]: timely dataflow sends each record to the worker owning
//!    its key, which appends it to one of its partition files ([`spill`]) and
//!    logs each finished round ([`checkpoint`]);
//! 5. [`group`]: each partition is sorted by key; shared keys are traced again
//!    and split by their actual spectra, and each class of ambiguous spectra
//!    is counted, members and all;
//! 6. [`summary`]: workers' counts add up at worker 0 into the report.
//!
//! Threads and processes ([`cluster`]) change only how many workers there
//! are: the report is the same.
//!
//! ```no_run
//! use bbx::census::{run, CensusOptions};
//! let census = run("A5_B8".parse()?, &CensusOptions::default(), |_, _| {})?;
//! let report = census.report.expect("process 0 has the report");
//! println!("{}", bbx::render::stats_text(&report));
//! # Ok::<(), bbx::Error>(())
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub mod checkpoint;
pub mod cluster;
pub mod dataflow;
pub mod group;
pub mod orbits;
pub mod record;
pub mod sink;
pub mod source;
pub mod spectra;
pub mod spill;
pub mod store;
pub mod summary;

use crate::error::Error;
use crate::rules::config::Config;
use crate::tables::{ReportSource, StatsReport};

pub use cluster::Cluster;

/// How long a process waits for the others to come up.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(600);

/// How long the workers of a process that lost another are given to end
/// (they end at their next exchange) before the census returns without them.
const LOST_GRACE: Duration = Duration::from_secs(2);

/// The most partition files a worker writes (and keeps open).
pub const MAX_PARTITIONS: usize = 256;

/// The default memory limit: 2 GB.
pub const DEFAULT_MEMORY: u64 = 2_000_000_000;

/// How a census runs.
#[derive(Debug, Clone)]
pub struct CensusOptions {
    /// Trace one molecule per orbit (true, the default) or every molecule.
    pub symmetry: bool,
    /// Threads and processes.
    pub cluster: Cluster,
    /// Memory limit in bytes, for the grouping of partitions.
    pub memory: u64,
    /// The directory in which the census makes its work directory (named
    /// by [`work_dir_name`]) for its partition files and checkpoints; the
    /// default is the system's temporary directory. Only the work directory
    /// is ever removed, and only when nothing but the census's files is in it.
    pub work_dir: Option<PathBuf>,
    /// Keep each class of ambiguous spectra's molecules (to store them).
    pub keep_classes: bool,
    /// Set to stop after the units in hand (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
    /// Stop after this many rounds (for tests of resumption).
    pub stop_after: Option<u64>,
    /// Molecule numbers per unit of work (default: about 128 units per worker).
    pub unit_size: Option<u64>,
    /// Let writes to the work directory fail as on a full disk after this
    /// many bytes (for tests of a full disk).
    pub fail_writes_after: Option<u64>,
    /// Keep the work directory of a finished census, for the caller to
    /// remove with [`Census::remove_work`] once it has used the result (a
    /// census whose groups are stored: stopped while storing, the same
    /// command then resumes without counting again).
    pub keep_work: bool,
    /// Stop grouping after this many partitions per worker, as Ctrl-C would
    /// (for tests).
    pub stop_grouping_after: Option<u64>,
    /// Hand every class of ambiguous spectra, and a sample of the unique
    /// ones, to each worker's sink as they are formed ([`sink`]).
    pub sink: Option<sink::Sink>,
}

impl Default for CensusOptions {
    fn default() -> CensusOptions {
        CensusOptions {
            symmetry: true,
            cluster: Cluster::local(
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(cluster::MAX_WORKERS),
            ),
            memory: DEFAULT_MEMORY,
            work_dir: None,
            keep_classes: false,
            stop: None,
            stop_after: None,
            unit_size: None,
            fail_writes_after: None,
            keep_work: false,
            stop_grouping_after: None,
            sink: None,
        }
    }
}

/// How a census ended.
#[derive(Debug, Clone)]
pub struct Census {
    /// The report (on process 0 of a finished census).
    pub report: Option<StatsReport>,
    /// With [`CensusOptions::keep_classes`]: per class of ambiguous spectra,
    /// the numbers of the molecules sharing its canonical spectrum.
    pub classes: Vec<Vec<u64>>,
    /// False when it was stopped before the end: run it again to resume.
    pub complete: bool,
    /// The work directory (removed when complete).
    pub work_dir: PathBuf,
    /// Molecules this process accounted for: all of them when complete and
    /// alone; with several processes, its share, which is not known in
    /// advance (the orbits of some units stand for more molecules than
    /// others').
    pub counted: u64,
    /// The configuration's molecules, which all the processes share.
    pub total: u64,
    /// With [`CensusOptions::sink`], on process 0 of a finished census,
    /// every worker's [`report`](sink::GroupSink::report), as JSON text.
    pub sink_reports: Vec<String>,
    /// With [`CensusOptions::keep_work`], the finished census's work
    /// directory, still locked.
    work: Option<checkpoint::WorkDir>,
}

/// How far a census is, as [`run_with`] reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Molecules this process has accounted for.
    pub counted: u64,
    /// This process's share (an estimate with several processes).
    pub share: u64,
    /// Partitions this process's workers have grouped in this run.
    pub grouped: u64,
    /// Partitions this process's workers group in all.
    pub partitions: u64,
    /// Spectra handed to the sinks of this process in this run (with
    /// [`CensusOptions::sink`]).
    pub handed: u64,
}

impl Census {
    /// Removes the work directory a finished census kept
    /// ([`CensusOptions::keep_work`]); nothing otherwise.
    pub fn remove_work(&mut self) {
        if let Some(dir) = self.work.take() {
            dir.remove();
        }
    }
}

/// The number of molecules of `config` when a census can count it; an error
/// saying why not otherwise (too many to number, more than the census
/// numbers, or a box wider than it handles). Asked before anything is
/// written, so that a refusal leaves nothing behind.
pub fn countable(config: Config) -> Result<u64, Error> {
    let total = config.molecule_count().ok_or_else(|| {
        Error::invalid(format!(
            "configuration {config} has too many molecules to number, and so to count"
        ))
    })?;
    if total > record::MAX_NUMBER {
        return Err(Error::invalid(format!(
            "configuration {config} has {total} molecules, more than the census numbers ({})",
            record::MAX_NUMBER
        )));
    }
    if config.width > orbits::MAX_CENSUS_WIDTH {
        return Err(Error::invalid(format!(
            "configuration {config}: the census handles boxes up to {w}×{w}",
            w = orbits::MAX_CENSUS_WIDTH
        )));
    }
    Ok(total)
}

/// The name of the work directory a census of `config` makes (in
/// [`CensusOptions::work_dir`] or the system's temporary directory).
pub fn work_dir_name(config: Config, symmetry: bool, cluster: &Cluster) -> String {
    let mut name = format!("bbx-census-{config}");
    if !symmetry {
        name.push_str("-no-symmetry");
    }
    if cluster.processes > 1 {
        name.push_str(&format!("-process{}", cluster.process));
    }
    name
}

/// The work directory a census of `config` uses by default.
pub fn default_work_dir(config: Config, symmetry: bool, cluster: &Cluster) -> PathBuf {
    std::env::temp_dir().join(work_dir_name(config, symmetry, cluster))
}

/// Runs a census of `config`. `progress(counted, share)` is called about ten
/// times a second with the molecules this process has accounted for, out of
/// its share: exact for one process, the configuration's molecules divided
/// by the processes otherwise, which `counted` may pass.
///
/// Processes of one census must be given the same settings: they compare
/// them when they connect, and each refuses one that differs. A process that
/// loses another while they work returns [`Error::System`] naming it, and
/// its work is kept for the resume; a run that fails before doing any work
/// leaves no work directory behind, unless one was there before.
pub fn run(
    config: Config,
    options: &CensusOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<Census, Error> {
    run_with(config, options, |p| progress(p.counted, p.share))
}

/// [`run`], reporting its grouping and what it hands over too.
pub fn run_with(
    config: Config,
    options: &CensusOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<Census, Error> {
    let total = countable(config)?;
    let cluster = options.cluster.clone();
    cluster.check()?;
    let peers = cluster.peers() as u64;
    let unit_size = options
        .unit_size
        .unwrap_or_else(|| (total / (peers * 128)).clamp(1 << 12, 1 << 24))
        .max(1);
    // Records a worker keeps, and partitions so that a process's workers can
    // group one each at once within half the memory limit.
    let records = if options.symmetry {
        total / 8 + total / 64 + 1024
    } else {
        total
    };
    let bytes = records / peers * record::RECORD_BYTES as u64 * 2;
    let partitions = (bytes * cluster.workers as u64)
        .div_ceil(options.memory.max(1 << 20) / 2)
        .max(1) as usize;
    // A sink's checkpoints are partitions: at least its number of them,
    // where the limit on open files allows.
    let partitions = match &options.sink {
        Some(sink) if partitions <= MAX_PARTITIONS => {
            partitions.max(sink.partitions.min(MAX_PARTITIONS))
        }
        _ => partitions,
    };
    if partitions > MAX_PARTITIONS {
        // Each partition is a file a worker keeps open: past a few hundred
        // the system's limit on open files fails the census half-way.
        let least = (bytes * cluster.workers as u64).div_ceil(MAX_PARTITIONS as u64) * 2;
        return Err(Error::invalid(format!(
            "--memory {} is too little for a census of {config} with {} workers a process: grouping within it would take {partitions} partition files a worker (at most {MAX_PARTITIONS}); give at least --memory {}M",
            options.memory,
            cluster.workers,
            least.div_ceil(1_000_000)
        )));
    }
    let mut name = work_dir_name(config, options.symmetry, &cluster);
    if let Some(sink) = &options.sink {
        name = name.replacen("bbx-census-", &format!("bbx-{}-", sink.name), 1);
    }
    let work_dir = options
        .work_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join(name);
    // What this run creates, to remove again if it fails before working.
    let mut created = Created::before(&work_dir);
    let dir = checkpoint::WorkDir::open(
        &work_dir,
        &checkpoint::Manifest {
            format: checkpoint::FORMAT,
            config: config.to_string(),
            symmetry: options.symmetry,
            unit_size,
            peers: cluster.peers(),
            processes: cluster.processes,
            process: cluster.process,
            partitions,
            sink: options
                .sink
                .as_ref()
                .map(|s| format!("{}: {}", s.name, s.settings)),
        },
        options
            .fail_writes_after
            .map_or_else(checkpoint::Disk::real, checkpoint::Disk::filling_after),
    )?;
    if dir.resumed {
        // Another run's work: not this run's to remove.
        created.nothing();
    }
    // Every setting that changes what a process does with its share (the
    // memory limit and work directory are each process's own).
    let given = |on: bool| if on { "given" } else { "not given" };
    let settings = cluster::Settings::new()
        .with("the bbx version", env!("CARGO_PKG_VERSION"))
        .with("the work directory format", checkpoint::FORMAT)
        .with("the configuration", config)
        .with("--no-symmetry", given(!options.symmetry))
        .with("--processes", cluster.processes)
        .with("--workers", cluster.workers)
        .with("the unit size", unit_size)
        .with("--store-groups", given(options.keep_classes))
        .with(
            "what the groups are handed to",
            options.sink.as_ref().map_or("nothing".to_string(), |s| {
                format!("{}: {}", s.name, s.settings)
            }),
        );
    let plan = Arc::new(dataflow::Plan {
        config,
        symmetry: options.symmetry,
        total,
        unit_size,
        partitions,
        work_dir: dir.clone(),
        keep_classes: options.keep_classes,
        stop: options.stop,
        stop_after: options.stop_after,
        keep_work: options.keep_work,
        stop_grouping_after: options.stop_grouping_after,
        sink: options.sink.clone(),
        counted: Arc::new(AtomicU64::new(0)),
        grouped: AtomicU64::new(0),
        handed: Arc::new(AtomicU64::new(0)),
        resumed: AtomicBool::new(false),
    });
    let start = Instant::now();
    let share = total / cluster.processes as u64;
    let finished = Arc::new(AtomicUsize::new(0));
    let started = {
        let plan = plan.clone();
        let finished = finished.clone();
        cluster.execute(&settings, CONNECT_PATIENCE, move |worker| {
            // Counted even if the worker panics.
            struct Done(Arc<AtomicUsize>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.fetch_add(1, Ordering::SeqCst);
                }
            }
            let _done = Done(finished.clone());
            dataflow::run_worker(worker, &plan)
        })
    };
    let guards = match started {
        Ok(g) => g,
        Err(e) => {
            drop(plan);
            drop(dir);
            created.remove();
            return Err(e);
        }
    };
    let partitions_here = (partitions * cluster.workers) as u64;
    let at = |plan: &dataflow::Plan| Progress {
        counted: plan.counted.load(Ordering::Relaxed),
        share,
        grouped: plan.grouped.load(Ordering::Relaxed),
        partitions: partitions_here,
        handed: plan.handed.load(Ordering::Relaxed),
    };
    let mut shown = Instant::now();
    let mut lost_at: Option<Instant> = None;
    // Workers that returned, and workers a lost connection stopped for good.
    let ended = || finished.load(Ordering::SeqCst);
    let stopped = cluster::stopped_workers;
    while ended() + stopped() < cluster.workers {
        if shown.elapsed() >= Duration::from_millis(100) {
            progress(&at(&plan));
            shown = Instant::now();
        }
        if lost_at.is_none() && cluster::lost_process().is_some() {
            lost_at = Some(Instant::now());
        }
        if lost_at.is_some_and(|t| t.elapsed() > LOST_GRACE) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Whether no worker runs any more.
    let idle = ended() + stopped() == cluster.workers;
    let results = if ended() == cluster.workers {
        guards.join()
    } else {
        // Stopped workers never return; workers busy on their own (tracing
        // a unit, grouping a partition) meet the loss only at their next
        // exchange. They are left to end with the process, which their
        // checkpoints allow.
        std::mem::forget(guards);
        vec![Err("lost".to_string())]
    };
    if results.iter().any(Result::is_err)
        && let Some(lost) = cluster::lost_process()
    {
        let mut message = format!(
            "process {} lost process {} at {} ({})",
            cluster.process,
            lost.process,
            cluster
                .addresses
                .get(lost.process)
                .map_or("?", String::as_str),
            lost.cause
        );
        let first = cluster.process * cluster.workers;
        let logged = (first..first + cluster.workers).any(|w| !dir.lines(w).is_empty());
        if idle && !logged && created.top.is_some() {
            drop(plan);
            drop(dir);
            created.remove();
            message.push_str(
                ": no work was done yet; start every process again with the same command",
            );
        } else {
            message.push_str(&format!(
                ": the work done is kept in {}; when every process can run, the same commands resume it",
                work_dir.display()
            ));
        }
        return Err(Error::system(message));
    }
    let mut summary = None;
    let mut error = None;
    let mut everyone = true;
    for r in results {
        match r {
            Ok(Ok(end)) => {
                everyone &= end.everyone;
                if end.summary.is_some() {
                    summary = end.summary;
                }
            }
            Ok(Err(e)) => {
                error.get_or_insert(e);
            }
            Err(panic) => {
                error.get_or_insert(Error::Internal(format!("a census worker failed: {panic}")));
            }
        }
    }
    let counted = plan.counted.load(Ordering::Relaxed);
    progress(&at(&plan));
    if let Some(e) = error {
        return Err(e);
    }
    let seconds = start.elapsed().as_secs_f64();
    let resumed = plan.resumed.load(Ordering::Relaxed);
    let complete = everyone;
    let mut out = Census {
        report: None,
        classes: Vec::new(),
        complete,
        work_dir: work_dir.clone(),
        counted,
        total,
        sink_reports: Vec::new(),
        work: None,
    };
    if let Some(s) = summary {
        if let Some(e) = &s.error {
            // Only another process's error arrives here, as its text (this
            // process's own errors were returned above with their kind).
            return Err(Error::system(format!(
                "another process of the census failed: {e}"
            )));
        }
        if s.complete {
            let source = ReportSource::Census {
                symmetry: options.symmetry,
                molecules_traced: s.tally.traced,
                seconds,
                peak_memory_bytes: s.peak_memory,
                workers: cluster.peers(),
                processes: cluster.processes,
                resumed,
            };
            if s.tally.molecules != total {
                return Err(Error::Internal(format!(
                    "the census of {config} counted {} molecules, not {total}",
                    s.tally.molecules
                )));
            }
            out.report = Some(s.report(config, source)?);
            out.classes = s.classes;
            out.sink_reports = s.sinks;
        }
        out.complete = s.complete;
    }
    if out.complete {
        if options.keep_work {
            out.work = Some(dir);
        } else {
            dir.remove();
        }
    }
    Ok(out)
}

/// What a census is about to create for its work directory: the outermost
/// missing directory on its path (the work directory itself, or a parent),
/// or, in a directory that is there already, the files it adds before any
/// work (the lock and the manifest). A run that fails before working removes
/// them again, and nothing else.
struct Created {
    /// The work directory.
    work_dir: PathBuf,
    /// The outermost directory that did not exist.
    top: Option<PathBuf>,
    /// The files the census adds to an existing work directory.
    files: Vec<PathBuf>,
}

impl Created {
    fn before(work_dir: &std::path::Path) -> Created {
        let mut top = None;
        let mut at = Some(work_dir);
        while let Some(p) = at {
            if p.as_os_str().is_empty() || p.exists() {
                break;
            }
            top = Some(p.to_path_buf());
            at = p.parent();
        }
        let files = match top {
            Some(_) => Vec::new(),
            None => ["lock", "manifest.json"]
                .iter()
                .map(|f| work_dir.join(f))
                .filter(|f| !f.exists())
                .collect(),
        };
        Created {
            work_dir: work_dir.to_path_buf(),
            top,
            files,
        }
    }

    /// Forgets everything: the work directory holds another run's work.
    fn nothing(&mut self) {
        self.top = None;
        self.files.clear();
    }

    /// Removes what this run created: the work directory and the parents it
    /// made (a parent only while it is empty), or the files it added.
    fn remove(&self) {
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
        let Some(top) = &self.top else { return };
        let _ = std::fs::remove_dir_all(&self.work_dir);
        let mut at = self.work_dir.parent();
        while let Some(p) = at {
            if !p.starts_with(top) || std::fs::remove_dir(p).is_err() {
                break;
            }
            at = p.parent();
        }
    }
}
