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
//! 1. [`orbits`]: walk the canonical molecules, one per orbit under the
//!    symmetries of the box (eight for a square, four for a rectangle), with
//!    their orbit sizes;
//! 2. [`canonical`]: trace each one, write its spectrum as codes and reduce it
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
//! Threads and processes ([`crate::work::cluster`]) change only how many
//! workers there are: the report is the same. The work directory, its
//! manifest and logs, the cluster and the wait for the workers are the
//! shared machinery of [`crate::work`].
//!
//! **Records and memory.** An orbit's record is 16 bytes: a hash of its
//! spectrum's canonical form, the molecule's number, its orbit's size and its
//! spectrum's stabiliser. A hash only routes and sorts: shared keys are traced
//! again and compared spectrum by spectrum, so a collision costs time, never a
//! count. Records are split by hash into partition files of about a million
//! records (16 MB), fewer and larger when a worker's 256 files do not allow
//! it; each partition is radix-sorted by the hash's bytes (the first pass
//! scatters into a second buffer in order, the others sort each of its 256
//! buckets in place, within the caches) and grouped on its own within
//! `--memory` (a limit that would need more than 256 files a worker is
//! refused with the least that works). `--memory` bounds the grouping only:
//! the tracing holds the records of the rounds in flight (up to five, a unit
//! of up to 2^24 numbers a worker each), gigabytes in a large
//! configuration's first units.
//!
//! **Tracing** is [`crate::rules::sweep`]'s, in number order: most canonical
//! molecules differ from the one before in their last atom only, and the
//! units, checkpoints, the canonical test and the partitions' candidates are
//! all ranges or sets of numbers, so no Gray-code order is used. On A6_B8 the
//! sweep traces 6.8 rays a molecule instead of 25.7; the orbits a partition
//! traces again are swept too, in number order.
//!
//! **The report** is the catalogue's to the byte (`tests/census.rs` compares
//! them on every small configuration), but for its `source`: the header's
//! note and a last line saying what was traced, in how long, with how much
//! memory. `--no-symmetry` traces every molecule instead, as a cross-check.
//!
//! **Stopping and resuming.** The records live in a work directory
//! `bbx-census-CONFIG` of [`crate::work::dir`]'s inside `--work-dir`, locked
//! while in use; [`checkpoint`] says what is logged and cut back, so that a
//! census stopped by Ctrl-C (it finishes the units in hand or, grouping, the
//! partition in hand), killed, or failed on a full disk gives, when the same
//! command runs again, the report of an uninterrupted run. A census of other
//! settings is refused, naming the setting and both values. A census that
//! starts tells of the unfinished work other runs left beside its own
//! ([`unfinished`]). Across several machines, see [`crate::work::cluster`].
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
use std::time::Instant;

pub mod canonical;
pub mod checkpoint;
pub mod dataflow;
pub mod group;
pub mod orbits;
pub mod record;
pub mod sink;
pub mod source;
pub mod spill;
pub mod store;
pub mod summary;

use crate::control::{Budget, Cut, Ended};
use crate::error::Error;
use crate::rules::config::Config;
use crate::setting::Setting;
use crate::tables::{ReportSource, StatsReport};
use crate::text;
use crate::work::cluster::{self, CONNECT_PATIENCE, Cluster, PeerWatch, Waited};
use crate::work::dir::read_manifest;
use crate::work::disk::Disk;
use crate::work::own;

/// The most partition files a worker writes (and keeps open).
pub const MAX_PARTITIONS: usize = 256;

/// The records a partition file of a worker holds at most, where
/// [`MAX_PARTITIONS`] allows (about a million, 16 MB): each is sorted and
/// grouped in memory on its own, so its size is the grouping's memory.
pub const PARTITION_RECORDS: u64 = 1 << 20;

/// The default memory limit: 2 GB.
pub const DEFAULT_MEMORY: u64 = 2_000_000_000;

/// How a census runs.
#[derive(Debug, Clone)]
pub struct CensusOptions {
    /// Trace one molecule per orbit (true, the default) or every molecule.
    pub symmetry: bool,
    /// Threads and processes.
    pub cluster: Cluster,
    /// What stops it (Ctrl-C, a deadline): tracing after the units in
    /// hand, grouping in the partition in hand; the memory its grouping
    /// may take ([`DEFAULT_MEMORY`] when none is given); and its faults:
    /// `stop-after` rounds, `stop-grouping-after` partitions, `unit-size`
    /// molecule numbers a unit of work, `fail-writes-after` bytes written
    /// to the work directory.
    pub budget: Budget,
    /// The directory in which the census makes its work directory (named
    /// `bbx-census-CONFIG`, or after the sink) for its partition files and
    /// checkpoints (made, private, when missing); the default is the current
    /// directory. The program chooses it: the library reads no environment.
    /// Only the work directory is ever removed, and only when nothing but
    /// the census's files is in it.
    pub work_dir: PathBuf,
    /// Keep each class of ambiguous spectra's molecules (to store them).
    pub keep_classes: bool,
    /// Keep the work directory of a finished census, for the caller to
    /// remove with [`Census::remove_work`] once it has used the result (a
    /// census whose groups are stored: stopped while storing, the same
    /// command then resumes without counting again).
    pub keep_work: bool,
    /// Hand every class of ambiguous spectra, and a sample of the unique
    /// ones, to each worker's sink as they are formed ([`sink`]).
    pub sink: Option<sink::Sink>,
    /// With several processes: what the program's panic hook tells the
    /// census of lost connections (see [`PeerWatch`]).
    pub peers: PeerWatch,
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
            budget: Budget::default(),
            work_dir: PathBuf::from("."),
            keep_classes: false,
            keep_work: false,
            sink: None,
            peers: PeerWatch::default(),
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
    /// Complete, or stopped before the end (by its budget, or another
    /// worker's or process's: cancelled): run it again to resume.
    pub ended: Ended,
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
    /// With [`CensusOptions::sink`], the seed of its sample: the sink's, or,
    /// when that was drawn, the one recorded with the work resumed.
    pub seed: Option<u64>,
    /// Whether the workers started: false for a census stopped while its
    /// processes waited for each other (nothing was counted in this run).
    pub started: bool,
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

impl Progress {
    /// Once the records are grouped and the spectra handed to the sinks:
    /// those handed over, and their total estimated from the partitions
    /// grouped; `None` while the molecules are counted.
    pub fn handing(&self) -> Option<(u64, u64)> {
        if self.grouped == 0 && self.handed == 0 {
            return None;
        }
        let estimate = match self.grouped {
            0 => self.handed.max(1),
            g => (self.handed * self.partitions).div_ceil(g),
        };
        Some((self.handed, estimate.max(self.handed)))
    }
}

impl Census {
    /// Removes the work directory a finished census kept
    /// ([`CensusOptions::keep_work`]); nothing otherwise.
    pub fn remove_work(&mut self) {
        if let Some(dir) = self.work.take() {
            dir.remove(true);
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
    if config.width.max(config.height) > orbits::MAX_CENSUS_WIDTH {
        return Err(Error::invalid(format!(
            "configuration {config}: the census handles boxes up to {w}×{w}",
            w = orbits::MAX_CENSUS_WIDTH
        )));
    }
    Ok(total)
}

/// Work a census or a verify left unfinished in a work directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The work directory.
    pub path: PathBuf,
    /// What it was: `census`, or what the groups were handed to (`verify`).
    pub what: String,
    /// The configuration.
    pub config: String,
    /// The bytes its files take.
    pub bytes: u64,
}

/// The unfinished work of other censuses (and verifies) in the directory
/// where a census of `config` with `options` works, for the program to
/// tell its user about: every work directory of bbx's own there that holds
/// a manifest and that no census is using, but the one this census would
/// resume. Nothing is made, changed or removed.
pub fn unfinished(config: Config, options: &CensusOptions) -> Vec<Unfinished> {
    let mine = work_dir_name(config, options);
    let Ok(entries) = std::fs::read_dir(&options.work_dir) else {
        return Vec::new();
    };
    let mut found: Vec<Unfinished> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if name == mine || !name.starts_with("bbx-") {
                return None;
            }
            let dir = own::OwnDir::existing(&options.work_dir, &name)?;
            // Taken for an instant: one in use is not unfinished.
            if !dir.lock().ok()? {
                return None;
            }
            let manifest: checkpoint::Manifest = read_manifest(&dir, "census").ok()?;
            Some(Unfinished {
                path: dir.path().to_path_buf(),
                what: manifest
                    .sink
                    .map_or_else(|| "census".to_string(), |s| s.name),
                config: manifest.config,
                bytes: dir.bytes(),
            })
        })
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
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
/// leaves no work directory behind, unless one was there before. A census
/// of several processes needs the program's panic hook (see
/// [`PeerWatch`]).
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
    options.cluster.check()?;
    let sizes = Sizes::of(config, options)?;
    // What this run creates, to remove again if it fails before working.
    let made = own::make_parents(&options.work_dir).map_err(|source| Error::WorkDir {
        path: crate::files::shown(&options.work_dir),
        what: "make the directory".into(),
        source,
    })?;
    let disk = Disk::of_fault(options.budget.faults.fail_writes_after);
    let name = work_dir_name(config, options);
    let manifest = sizes.manifest(config, options);
    let dir = checkpoint::WorkDir::open(&options.work_dir, &name, manifest, disk)
        .inspect_err(|_| own::remove_made(&made))?;
    // This run's files, with the directories it made: removed when it
    // fails before working. Another run's work is kept.
    let discard = |dir: checkpoint::WorkDir| {
        if !dir.resumed {
            let made_dir = dir.made();
            dir.remove(made_dir);
            own::remove_made(&made);
        }
    };
    let work_dir = dir.path().to_path_buf();
    let seed = dir.manifest.sink.as_ref().map(|s| s.seed);
    let sink = options.sink.clone().map(|mut sink| {
        sink.seed = sink::Seed::Given(seed.unwrap_or_default());
        sink
    });
    let plan = Arc::new(dataflow::Plan {
        config,
        symmetry: options.symmetry,
        total: sizes.total,
        unit_size: sizes.unit_size,
        partitions: sizes.partitions,
        work_dir: dir.clone(),
        keep_classes: options.keep_classes,
        budget: options.budget.clone(),
        keep_work: options.keep_work,
        sink,
        counted: Arc::new(AtomicU64::new(0)),
        grouped: AtomicU64::new(0),
        handed: Arc::new(AtomicU64::new(0)),
        resumed: AtomicBool::new(false),
    });
    let start = Instant::now();
    let settings = settings(&dir.manifest, options);
    let waiting = |ended: Ended| Census {
        report: None,
        classes: Vec::new(),
        ended,
        work_dir: work_dir.clone(),
        counted: 0,
        total: sizes.total,
        sink_reports: Vec::new(),
        seed,
        started: false,
        work: None,
    };
    let workers = match Workers::start(options, &settings, &plan) {
        Ok(Ok(workers)) => workers,
        // Stopped while the processes waited for each other: what this
        // run made is kept, for the same command to go on with.
        Ok(Err(cut)) => return Ok(waiting(Ended::from(cut))),
        Err(e) => {
            drop(plan);
            discard(dir);
            return Err(e);
        }
    };
    let report = |plan: &dataflow::Plan| Progress {
        counted: plan.counted.load(Ordering::Relaxed),
        share: sizes.total / options.cluster.processes as u64,
        grouped: plan.grouped.load(Ordering::Relaxed),
        partitions: (sizes.partitions * options.cluster.workers) as u64,
        handed: plan.handed.load(Ordering::Relaxed),
    };
    let ends = match workers.wait(&options.peers, || progress(&report(&plan))) {
        Ok(ends) => ends,
        Err((lost, idle)) => {
            // Nothing done, nothing running that could still write: this
            // run leaves nothing behind.
            let first = options.cluster.process * options.cluster.workers;
            let logged = (first..first + options.cluster.workers).any(|w| !dir.lines(w).is_empty());
            let nothing_done = idle && !logged && !dir.resumed;
            if nothing_done {
                drop(plan);
                discard(dir);
            }
            return Err(lost_error(&options.cluster, &lost, nothing_done, &work_dir));
        }
    };
    progress(&report(&plan));
    let seconds = start.elapsed().as_secs_f64();
    let mut census = result(options, &plan, ends, dir, work_dir, seconds)?;
    census.seed = seed;
    Ok(census)
}

/// What the census of `plan` with `options` ended as, from what its workers
/// returned (its work directory, `dir`, is removed or kept as it says).
fn result(
    options: &CensusOptions,
    plan: &dataflow::Plan,
    ends: Vec<Result<dataflow::WorkerEnd, Error>>,
    dir: checkpoint::WorkDir,
    work_dir: PathBuf,
    seconds: f64,
) -> Result<Census, Error> {
    let config = plan.config;
    let mut census = Census {
        report: None,
        classes: Vec::new(),
        ended: Ended::Complete,
        work_dir,
        counted: plan.counted.load(Ordering::Relaxed),
        total: plan.total,
        sink_reports: Vec::new(),
        seed: None,
        started: true,
        work: None,
    };
    let mut complete = true;
    let mut summary = None;
    for end in ends {
        let end = end?;
        complete &= end.everyone;
        summary = summary.or(end.summary);
    }
    if let Some(s) = summary {
        if let Some(e) = &s.error {
            // Only another process's error arrives here, as its text (this
            // process's own errors were returned above with their kind).
            return Err(Error::system(format!(
                "another process of the census failed: {e}"
            )));
        }
        complete = s.complete;
        if complete {
            if s.tally.molecules != plan.total {
                return Err(Error::Internal(format!(
                    "the census of {config} counted {} molecules, not {}",
                    s.tally.molecules, plan.total
                )));
            }
            let source = ReportSource::Census {
                symmetry: options.symmetry,
                molecules_traced: s.tally.traced,
                seconds,
                peak_memory_bytes: s.peak_memory,
                workers: options.cluster.peers(),
                processes: options.cluster.processes,
                resumed: plan.resumed.load(Ordering::Relaxed),
            };
            census.report = Some(s.report(config, source)?);
            census.classes = s.classes;
            census.sink_reports = s.sinks;
        }
    }
    if !complete {
        // Its own budget, or, when that is whole, another worker's or
        // process's stop.
        census.ended = options
            .budget
            .check()
            .err()
            .map_or(Ended::Cancelled, Ended::from);
    } else if options.keep_work {
        census.work = Some(dir);
    } else {
        dir.remove(true);
    }
    Ok(census)
}

/// How a census of a configuration is cut up: units of work, and partition
/// files a worker within the memory limit.
struct Sizes {
    /// The configuration's molecules.
    total: u64,
    /// Molecule numbers per unit of work.
    unit_size: u64,
    /// Partition files per worker.
    partitions: usize,
}

impl Sizes {
    /// The sizes of a census of `config` with `options`; refused when the
    /// census cannot count it, or when grouping within the memory limit
    /// would take more partition files than a worker keeps open.
    fn of(config: Config, options: &CensusOptions) -> Result<Sizes, Error> {
        let total = countable(config)?;
        let cluster = &options.cluster;
        let peers = cluster.peers() as u64;
        let unit_size = options
            .budget
            .faults
            .unit_size
            .unwrap_or_else(|| (total / (peers * 128)).clamp(1 << 12, 1 << 24))
            .max(1);
        // Records a worker keeps, and partitions so that a process's workers
        // can group one each at once within half the memory limit.
        let records = if options.symmetry {
            total / 8 + total / 64 + 1024
        } else {
            total
        };
        let bytes = records / peers * record::RECORD_BYTES as u64 * 2;
        let memory = options.budget.memory_or(DEFAULT_MEMORY);
        let within_memory = (bytes * cluster.workers as u64).div_ceil(memory.max(1 << 20) / 2);
        // And at most PARTITION_RECORDS records each, where the limit on
        // open files allows: smaller parts take less memory, and sort faster.
        let small = (records / peers).div_ceil(PARTITION_RECORDS);
        let partitions = within_memory.max(small.min(MAX_PARTITIONS as u64)).max(1) as usize;
        // A sink's checkpoints are partitions: at least its number of them,
        // where the limit on open files allows.
        let partitions = match &options.sink {
            Some(sink) if partitions <= MAX_PARTITIONS => {
                partitions.max(sink.partitions.min(MAX_PARTITIONS))
            }
            _ => partitions,
        };
        if partitions > MAX_PARTITIONS {
            // Each partition is a file a worker keeps open: past a few
            // hundred the system's limit on open files fails the census
            // half-way.
            let least = (bytes * cluster.workers as u64).div_ceil(MAX_PARTITIONS as u64) * 2;
            return Err(Error::invalid(text![
                Setting::Memory,
                format!(
                    " {memory} is too little for a census of {config} with {} workers a process: grouping within it would take {partitions} partition files a worker (at most {MAX_PARTITIONS}); give at least ",
                    cluster.workers
                ),
                Setting::Memory,
                format!(" {}M", least.div_ceil(1_000_000))
            ]));
        }
        Ok(Sizes {
            total,
            unit_size,
            partitions,
        })
    }

    /// The manifest of the census's work directory: what a resumed run must
    /// share with it.
    fn manifest(&self, config: Config, options: &CensusOptions) -> checkpoint::Manifest {
        let cluster = &options.cluster;
        checkpoint::Manifest {
            format: checkpoint::FORMAT,
            config: config.to_string(),
            symmetry: options.symmetry,
            unit_size: self.unit_size,
            peers: cluster.peers(),
            processes: cluster.processes,
            process: cluster.process,
            partitions: self.partitions,
            sink: options.sink.as_ref().map(|sink| checkpoint::SinkManifest {
                name: sink.name.clone(),
                settings: sink.settings.clone(),
                sample: sink.sample,
                seed: sink.seed.value(),
                drawn: sink.seed.drawn(),
            }),
        }
    }
}

/// The name of the work directory a census of `config` makes in
/// [`CensusOptions::work_dir`]: `bbx-census-CONFIG` (`bbx-NAME-CONFIG` for
/// a sink named NAME), `-no-symmetry` without symmetry reduction,
/// `-processI` for process I of several.
fn work_dir_name(config: Config, options: &CensusOptions) -> String {
    let what = options.sink.as_ref().map_or("census", |s| s.name.as_str());
    let mut name = format!("bbx-{what}-{config}");
    if !options.symmetry {
        name.push_str("-no-symmetry");
    }
    if options.cluster.processes > 1 {
        name.push_str(&format!("-process{}", options.cluster.process));
    }
    name
}

/// Every setting that changes what a process does with its share, which the
/// processes of a census must agree on: those of its work directory's
/// `manifest` but the process and its partition files (the memory limit and
/// the work directory are each process's own), the bbx version, and
/// whether the groups are stored.
fn settings(manifest: &checkpoint::Manifest, options: &CensusOptions) -> cluster::Settings {
    let given = if options.keep_classes {
        "given"
    } else {
        "not given"
    };
    cluster::Settings::new()
        .with("the bbx version", env!("CARGO_PKG_VERSION"))
        .and(&manifest.shared())
        .with(Setting::StoreGroups, given)
}

/// What a worker returns: how it ended, or its panic.
type WorkerResult = Result<Result<dataflow::WorkerEnd, Error>, String>;

/// This process's workers, started.
struct Workers {
    guards: timely::communication::WorkerGuards<Result<dataflow::WorkerEnd, Error>>,
    /// Workers that returned (or panicked).
    ended: Arc<AtomicUsize>,
    /// Workers in this process.
    count: usize,
}

impl Workers {
    /// Starts this process's workers on `plan`, connected to the other
    /// processes' (which must agree on `settings`).
    fn start(
        options: &CensusOptions,
        settings: &cluster::Settings,
        plan: &Arc<dataflow::Plan>,
    ) -> Result<Result<Workers, Cut>, Error> {
        let ended = Arc::new(AtomicUsize::new(0));
        let started = {
            let plan = plan.clone();
            let ended = ended.clone();
            let wait = cluster::Wait {
                patience: CONNECT_PATIENCE,
                budget: &options.budget,
            };
            options
                .cluster
                .execute(settings, wait, &options.peers, move |worker| {
                    // Counted even if the worker panics.
                    struct Done(Arc<AtomicUsize>);
                    impl Drop for Done {
                        fn drop(&mut self) {
                            self.0.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    let _done = Done(ended.clone());
                    dataflow::run_worker(worker, &plan)
                })?
        };
        Ok(started.map(|guards| Workers {
            guards,
            ended,
            count: options.cluster.workers,
        }))
    }

    /// Waits for the workers, calling `tick` about ten times a second, and
    /// gives what each returned. When `peers` hears of a lost process:
    /// which one, and whether no worker of this process still runs (the
    /// workers the loss stopped never return, and those busy on their own
    /// meet it only at their next exchange: they are left to end with the
    /// process, which their checkpoints allow).
    fn wait(
        self,
        peers: &PeerWatch,
        tick: impl FnMut(),
    ) -> Result<Vec<Result<dataflow::WorkerEnd, Error>>, (cluster::Lost, bool)> {
        let ended = || self.ended.load(Ordering::SeqCst);
        let waited = cluster::wait_for_workers(self.count, ended, peers, || false, tick);
        let idle = match waited {
            Waited::Ended => true,
            Waited::Lost { idle } => idle,
            Waited::GaveUp => false,
        };
        let results: Vec<WorkerResult> = if waited == Waited::Ended {
            self.guards.join()
        } else {
            // Workers still running or stopped for good: left to end with
            // the process.
            std::mem::forget(self.guards);
            vec![Err("lost".to_string())]
        };
        if results.iter().any(Result::is_err)
            && let Some(lost) = peers.lost()
        {
            return Err((lost, idle));
        }
        Ok(results
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|panic| {
                    Err(Error::Internal(format!("a census worker failed: {panic}")))
                })
            })
            .collect())
    }
}

/// The error of a process that lost another: the work is kept for the
/// same commands to resume it, or, when `nothing_done`, nothing is left.
fn lost_error(
    cluster: &Cluster,
    lost: &cluster::Lost,
    nothing_done: bool,
    work_dir: &std::path::Path,
) -> Error {
    let mut message = cluster.lost(lost);
    if nothing_done {
        message.push_str(": no work was done yet; start every process again with the same command");
    } else {
        message.push_str(&format!(
            ": the work done is kept in {}; when every process can run, the same commands resume it",
            crate::files::shown(work_dir)
        ));
    }
    Error::system(message)
}
