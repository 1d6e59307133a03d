//! The census as a timely dataflow: what each worker does.
//!
//! Every worker runs the same steps; the only difference between one thread,
//! several threads and several processes is how many peers a worker has.
//!
//! 1. Agree with the others on the round to resume from (the last round every
//!    worker logged) and cut its partition files back to it (`resume`).
//! 2. Trace its units, round by round, sending each record to the worker that
//!    owns its key; the writing operator holds the records arriving per
//!    round, appends them to the partition files once the round is complete
//!    everywhere, and says so; the worker then logs the round (`trace`).
//! 3. Agree that every worker finished (none was stopped), then group its
//!    partitions one at a time (`group`), and agree that every worker
//!    grouped them all.
//! 4. Send its summary to worker 0, which adds them up (`gather`).
//!
//! Each dataflow ends in timely's [`Capture`]: its operators emit what they
//! have to say, and the worker reads it from the capture's channel
//! ([`Outlet`]), knowing from the captured progress when a round is
//! complete.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::InputHandleVec;
use timely::dataflow::channels::pact::Exchange as ExchangePact;
use timely::dataflow::operators::Capability;
use timely::dataflow::operators::capture::Capture;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::worker::Worker;

use crate::census::canonical::{Canonical, SpectrumSymmetries, Traced, key};
use crate::census::checkpoint::{Line, SinkLine};
use crate::census::group::{Grouper, Handover};
use crate::census::orbits::OrbitWalk;
use crate::census::record::{Record, pack};
use crate::census::sink::{BottomK, Group, GroupSink, Sink, threshold};
use crate::census::spill::Partitions;
use crate::census::summary::{Summary, Tally, peak_memory};
use crate::control::{Budget, stop_after};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::Numbering;
use crate::work::dir::Log;
use crate::work::gather::{Outlet, at_zero};

/// Rounds a worker may run ahead of the slowest worker's written rounds.
const IN_FLIGHT: u64 = 4;

/// How often the partition files and logs are made durable.
const SYNC_EVERY: Duration = Duration::from_secs(30);

/// What every worker of a process shares.
#[derive(Debug)]
pub struct Plan {
    /// The configuration.
    pub config: Config,
    /// Symmetry reduction.
    pub symmetry: bool,
    /// Molecules in the configuration.
    pub total: u64,
    /// Molecule numbers per unit.
    pub unit_size: u64,
    /// Partition files per worker.
    pub partitions: usize,
    /// The work directory.
    pub work_dir: crate::census::checkpoint::WorkDir,
    /// Keep the classes' molecules for storing.
    pub keep_classes: bool,
    /// What stops the workers: tracing after the units in hand, grouping in
    /// the partition in hand; its faults, after so many rounds
    /// (`stop-after`) or partitions (`stop-grouping-after`) of this run.
    pub budget: Budget,
    /// Keep the work directory when the census is done (its caller removes it).
    pub keep_work: bool,
    /// What each worker hands its groups to, if anything.
    pub sink: Option<Sink>,
    /// Molecules this process's workers have accounted for (resumed ones
    /// included).
    pub counted: Arc<AtomicU64>,
    /// Partitions this process's workers have grouped in this run.
    pub grouped: AtomicU64,
    /// Spectra this process's workers have handed to their sinks in this run.
    pub handed: Arc<AtomicU64>,
    /// Whether any worker resumed from a checkpoint.
    pub resumed: AtomicBool,
}

impl Plan {
    fn units(&self) -> u64 {
        self.total.div_ceil(self.unit_size)
    }

    /// The numbers of unit `u`.
    fn range(&self, u: u64) -> (u64, u64) {
        let first = u * self.unit_size + 1;
        (first, (first + self.unit_size - 1).min(self.total))
    }

    /// Rounds of the census: each worker traces one unit a round.
    fn rounds(&self, peers: usize) -> u64 {
        self.units().div_ceil(peers as u64)
    }

    /// Whether the budget is spent, or `done` units of work reached the
    /// fault's `limit`.
    fn stopped(&self, limit: Option<u64>, done: u64) -> bool {
        self.budget.check().and(stop_after(limit, done)).is_err()
    }

    /// A grouper of the configuration (numbered, since the census took it).
    fn grouper(&self, keep_classes: bool) -> Result<Grouper, Error> {
        Grouper::new(self.config, keep_classes).ok_or_else(|| unnumbered(self.config))
    }
}

/// The error of a configuration the census took but cannot number.
fn unnumbered(config: Config) -> Error {
    Error::Internal(format!(
        "configuration {config} passed the census's checks but is not numbered"
    ))
}

/// How a worker ended.
#[derive(Debug)]
pub struct WorkerEnd {
    /// Whether every worker of every process finished its units.
    pub everyone: bool,
    /// On worker 0 of a finished census, the summed summary.
    pub summary: Option<Summary>,
}

/// Runs one worker: the four steps of the module's documentation.
pub fn run_worker(worker: &mut Worker, plan: &Plan) -> Result<WorkerEnd, Error> {
    let index = worker.index();
    let mut agree = Agreement::new(worker);
    let start = resume(worker, plan, &mut agree)?;
    let traced = trace(worker, plan, start)?;
    let finished = agree.min(worker, u64::from(traced.finished)) == 1;
    let mut summary = Summary {
        tally: traced.tally,
        complete: finished,
        ..Summary::default()
    };
    let mut error = traced.error;
    let mut grouped = false;
    let mut parts = None;
    let mut handing = Handing::default();
    if finished {
        match group(plan, index, &traced.lengths, &mut summary, &mut handing) {
            Ok((done, p)) => {
                grouped = done;
                parts = Some(p);
            }
            Err(e) => error = Some(e),
        }
    }
    let mut everyone = agree.min(worker, u64::from(grouped)) == 1;
    if everyone && let Some(sink) = &plan.sink {
        // The sample of unique spectra: every worker's smallest hashes meet
        // at worker 0, which finds the threshold; each worker hands over its
        // spectra up to it.
        let hashes = handing
            .sample
            .as_ref()
            .map(BottomK::hashes)
            .unwrap_or_default();
        let all = at_zero(worker, hashes);
        let t = match index {
            0 => threshold(all, sink.sample),
            _ => u64::MAX,
        };
        let t = agree.min(worker, t);
        let sampled = match hand_sample(plan, index, &mut handing, t) {
            Ok(done) => done,
            Err(e) => {
                error.get_or_insert(e);
                false
            }
        };
        everyone = agree.min(worker, u64::from(sampled)) == 1;
    }
    if let Some(sink) = handing.sink.as_mut() {
        match sink.report() {
            Ok(r) => summary.sinks.push(r.to_string()),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    summary.complete = everyone;
    summary.peak_memory = peak_memory();
    let out = gather(worker, summary, error);
    if everyone && out.is_ok() && !plan.keep_work {
        // The log first: killed between the two, the next run sees no
        // claim on files that are gone.
        drop(traced.log);
        plan.work_dir.forget(index);
        if let Some(parts) = parts {
            parts.remove();
        }
    }
    out.map(|summary| WorkerEnd { everyone, summary })
}

/// One all-reduce through timely: every worker offers a value, timely's
/// [`Broadcast`] gives it to all, and each gets the smallest offered.
struct Agreement {
    input: InputHandleVec<u64, u64>,
    outlet: Outlet<u64>,
}

impl Agreement {
    fn new(worker: &mut Worker) -> Agreement {
        let mut input = InputHandleVec::new();
        let events =
            worker.dataflow::<u64, _, _>(|scope| input.to_stream(scope).broadcast().capture());
        Agreement {
            input,
            outlet: Outlet::new(events),
        }
    }

    fn min(&mut self, worker: &mut Worker, value: u64) -> u64 {
        let round = *self.input.time();
        self.input.send(value);
        self.input.advance_to(round + 1);
        self.outlet.wait_for(worker, round);
        self.outlet
            .take()
            .into_values()
            .flatten()
            .min()
            .unwrap_or(value)
    }
}

/// Where a worker's tracing starts.
struct Start {
    /// The first round to trace.
    round: u64,
    /// Its partition files' lengths at that round.
    lengths: Vec<u64>,
    /// Its counts at that round.
    tally: Tally,
    /// Its log, cut back to that round.
    log: Log<Line>,
}

/// Step 1: the round to resume from, agreed by every worker, and this
/// worker's files and log cut back to it.
fn resume(worker: &mut Worker, plan: &Plan, agree: &mut Agreement) -> Result<Start, Error> {
    let index = worker.index();
    let lines = plan.work_dir.lines(index);
    let mine = lines.last().map_or(0, |l| l.round + 1);
    // The last round every worker logged, if they all logged one.
    let resume = agree.min(worker, mine).checked_sub(1);
    let keep: Vec<Line> = match resume {
        Some(r) => lines.into_iter().filter(|l| l.round <= r).collect(),
        None => Vec::new(),
    };
    let (lengths, tally) = match keep.last() {
        Some(l) => (l.lengths.clone(), l.tally.clone()),
        None => (Vec::new(), Tally::default()),
    };
    if resume.is_some() {
        plan.resumed.store(true, Ordering::Relaxed);
    }
    let log = plan.work_dir.log(index, &keep)?;
    // Progress counts molecules accounted for (orbit sizes), which grow with
    // the work done; molecule numbers would not (the first units hold far
    // more canonical molecules than the last).
    plan.counted.fetch_add(tally.molecules, Ordering::Relaxed);
    Ok(Start {
        round: resume.map_or(0, |r| r + 1),
        lengths,
        tally,
        log,
    })
}

/// What the writing operator says of a round.
#[derive(Clone)]
enum Written {
    /// Its records are in their files, which then have these lengths;
    /// `synced`: the files were made durable with it.
    Round { lengths: Vec<u64>, synced: bool },
    /// Writing failed: no round from this one on counts as written.
    Failed(Rc<Error>),
}

/// The state of the writing operator: the partition files, the records
/// held by round, and the round to write next.
struct Writer {
    parts: Partitions,
    held: BTreeMap<u64, Vec<Record>>,
    next: u64,
    rounds: u64,
    last_sync: Instant,
    /// Held at `next` until every round is written, so that the output's
    /// frontier is the first round not written; dropped when done or
    /// failed.
    cap: Option<Capability<u64>>,
}

impl Writer {
    /// Writes the rounds before `upto` (the held records of each, in
    /// order) and emits what it wrote. A round counts as written only once
    /// all its records are in their files: after a failed write no round
    /// is, from the failed one on, so none of them can be logged (and a
    /// resumed census does them again).
    fn write_until(&mut self, upto: u64, mut emit: impl FnMut(&Capability<u64>, Written)) {
        while let Some(cap) = self.cap.as_mut()
            && self.next < upto.min(self.rounds)
        {
            let r = self.next;
            let written = match self.held.remove(&r) {
                Some(records) => self.parts.append(&records),
                None => Ok(()),
            };
            let synced = self.last_sync.elapsed() > SYNC_EVERY;
            let written = written.and_then(|()| {
                if synced {
                    self.last_sync = Instant::now();
                    self.parts.sync()?;
                }
                Ok(())
            });
            match written {
                Ok(()) => {
                    emit(
                        cap,
                        Written::Round {
                            lengths: self.parts.lengths(),
                            synced,
                        },
                    );
                    self.next += 1;
                    cap.downgrade(&self.next);
                }
                Err(e) => return self.fail(e, emit),
            }
        }
    }

    /// At the end of the input: makes the files durable and lets go.
    fn finish(&mut self, emit: impl FnMut(&Capability<u64>, Written)) {
        if self.cap.is_some() {
            match self.parts.sync() {
                Ok(()) => self.cap = None,
                Err(e) => self.fail(e, emit),
            }
        }
    }

    fn fail(&mut self, e: Error, mut emit: impl FnMut(&Capability<u64>, Written)) {
        if let Some(cap) = self.cap.take() {
            emit(&cap, Written::Failed(Rc::new(e)));
        }
        // Nothing more is written: let the records go.
        self.held.clear();
    }
}

/// How a worker's tracing ended.
struct TraceEnd {
    /// Whether it traced every unit of its share.
    finished: bool,
    /// Its counts.
    tally: Tally,
    /// Its partition files' lengths after the last round written.
    lengths: Vec<u64>,
    /// Its log.
    log: Log<Line>,
    /// What failed, if anything did.
    error: Option<Error>,
}

/// Step 2: traces this worker's units from `start`, round by round, and
/// logs each round once its records are written everywhere.
fn trace(worker: &mut Worker, plan: &Plan, start: Start) -> Result<TraceEnd, Error> {
    let index = worker.index();
    let peers = worker.peers();
    let units = plan.units();
    let rounds = plan.rounds(peers);
    let (mut input, mut written) = writing(worker, plan, start.round, &start.lengths)?;
    let first = start.round;
    input.advance_to(first);
    let mut logger = Logger {
        log: start.log,
        traced: BTreeMap::new(),
        lengths: start.lengths,
        failed: None,
    };
    let mut tally = start.tally;
    let mut source = Source::new(plan)?;
    let mut batch: Vec<Record> = Vec::new();
    let mut finished = true;
    let mut error: Option<Error> = None;
    for (done_rounds, round) in (first..rounds).enumerate() {
        let stopped = plan.stopped(plan.budget.faults.stop_after, done_rounds as u64)
            || logger.failed.is_some();
        if stopped {
            finished = false;
            break;
        }
        let u = round * peers as u64 + index as u64;
        if u < units {
            let (first, last) = plan.range(u);
            let before = tally.molecules;
            if let Err(e) = source.unit(first, last, &mut tally, &mut batch) {
                error = Some(e);
                finished = false;
                break;
            }
            input.send_batch(&mut batch);
            batch.clear();
            plan.counted
                .fetch_add(tally.molecules - before, Ordering::Relaxed);
        }
        logger.traced.insert(round, tally.clone());
        input.advance_to(round + 1);
        // Keep at most a few rounds in flight.
        if let Some(behind) = round.checked_sub(IN_FLIGHT + 1) {
            written.wait_for(worker, behind);
        }
        if let Err(e) = logger.log(&mut written, false) {
            error = Some(e);
            finished = false;
            break;
        }
    }
    drop(input);
    written.wait_for_all(worker);
    if let Err(e) = logger.log(&mut written, true) {
        error.get_or_insert(e);
    }
    if let Some(e) = logger.failed.take() {
        error.get_or_insert(e);
    }
    if error.is_some() {
        finished = false;
    }
    Ok(TraceEnd {
        finished,
        tally,
        lengths: logger.lengths,
        log: logger.log,
        error,
    })
}

/// The dataflow of step 2: records go to the worker that owns their key,
/// whose writing operator appends each round to the partition files (cut
/// back to `lengths`) once it is complete everywhere, and says so.
fn writing(
    worker: &mut Worker,
    plan: &Plan,
    first: u64,
    lengths: &[u64],
) -> Result<(InputHandleVec<u64, Record>, Outlet<Written>), Error> {
    let index = worker.index();
    let rounds = plan.rounds(worker.peers());
    let parts = Partitions::open(
        &plan.work_dir,
        index,
        plan.partitions,
        lengths,
        plan.work_dir.disk().clone(),
    )?;
    let mut input = InputHandleVec::<u64, Record>::new();
    let events = worker.dataflow::<u64, _, _>(|scope| {
        input
            .to_stream(scope)
            .unary_frontier::<CapacityContainerBuilder<Vec<Written>>, _, _, _>(
                ExchangePact::new(|r: &Record| r.0),
                "Write",
                move |mut cap, _info| {
                    cap.downgrade(&first);
                    let mut writer = Writer {
                        parts,
                        held: BTreeMap::new(),
                        next: first,
                        rounds,
                        last_sync: Instant::now(),
                        cap: Some(cap),
                    };
                    move |(input, frontier), output| {
                        input.for_each(|cap, data| {
                            if writer.cap.is_some()
                                && let Some(&t) = cap.least()
                            {
                                writer.held.entry(t).or_default().append(data);
                            }
                        });
                        let mut emit = |cap: &Capability<u64>, w: Written| {
                            output.session(cap).give(w);
                        };
                        let upto = frontier.frontier().first().copied().unwrap_or(rounds);
                        writer.write_until(upto, &mut emit);
                        if frontier.frontier().is_empty() || writer.next >= rounds {
                            writer.finish(&mut emit);
                        }
                    }
                },
            )
            .capture()
    });
    Ok((input, Outlet::new(events)))
}

/// Logs the rounds written, each once its records are in their files and
/// its counts known.
struct Logger {
    log: Log<Line>,
    /// Round → this worker's counts after it.
    traced: BTreeMap<u64, Tally>,
    /// The files' lengths after the last round written.
    lengths: Vec<u64>,
    /// What failed in the writing operator.
    failed: Option<Error>,
}

impl Logger {
    /// Logs the rounds the writer has written since last time; syncs the
    /// log after a round the writer synced its files with (or at the end,
    /// `force`), so that a durable line never names records that are not.
    fn log(&mut self, written: &mut Outlet<Written>, force: bool) -> Result<(), Error> {
        for (round, notes) in written.take() {
            for note in notes {
                match note {
                    Written::Round { lengths, synced } => {
                        // A round is written once every worker has sent
                        // its records, after this one counted them: only
                        // rounds past the last traced (a stopped census)
                        // have no counts, and are not logged.
                        if let Some(tally) = self.traced.remove(&round) {
                            self.log.append(&Line {
                                round,
                                lengths: lengths.clone(),
                                tally,
                            })?;
                        }
                        self.lengths = lengths;
                        if synced {
                            self.log.sync()?;
                        }
                    }
                    Written::Failed(e) => {
                        let e =
                            Rc::try_unwrap(e).unwrap_or_else(|e| Error::Internal(e.to_string()));
                        self.failed.get_or_insert(e);
                    }
                }
            }
        }
        if force {
            self.log.sync()?;
        }
        Ok(())
    }
}

/// A worker's sink, with what it needs around it: its log, its sample of
/// unique spectra, and whether an earlier run handed the sample over.
#[derive(Default)]
struct Handing {
    sink: Option<Counting>,
    log: Option<Log<SinkLine>>,
    sample: Option<BottomK>,
    sample_logged: bool,
}

/// A sink that counts the spectra handed to it, for the progress display.
struct Counting {
    inner: Box<dyn GroupSink>,
    handed: Arc<AtomicU64>,
}

impl GroupSink for Counting {
    fn group(&mut self, group: &Group<'_>) -> Result<(), Error> {
        self.inner.group(group)?;
        self.handed.fetch_add(group.spectra, Ordering::Relaxed);
        Ok(())
    }
    fn take_log(&mut self) -> Result<serde_json::Value, Error> {
        self.inner.take_log()
    }
    fn restore(&mut self, logged: serde_json::Value) -> Result<(), Error> {
        self.inner.restore(logged)
    }
    fn report(&mut self) -> Result<serde_json::Value, Error> {
        self.inner.report()
    }
}

/// Makes this worker's sink and gives it what an earlier run logged: the
/// partitions handed over already (their number) and, when the sample was
/// handed over too, says so.
fn open_sink(
    plan: &Plan,
    index: usize,
    partitions: u64,
    handing: &mut Handing,
) -> Result<u64, Error> {
    let Some(sink) = &plan.sink else {
        return Ok(0);
    };
    let mut inner = Counting {
        inner: (sink.make)(index)?,
        handed: plan.handed.clone(),
    };
    // Lines 0, 1, … name partitions 0, 1, …; the sample's line comes last.
    let mut keep: Vec<SinkLine> = Vec::new();
    let mut next = 0;
    for line in plan.work_dir.sink_lines(index) {
        if line.partition == next && next < partitions {
            next += 1;
        } else if line.partition == partitions && next == partitions {
            handing.sample_logged = true;
        } else {
            break;
        }
        inner.restore(line.logged.clone())?;
        keep.push(line);
    }
    handing.log = Some(plan.work_dir.sink_log(index, &keep)?);
    handing.sample = Some(BottomK::new(sink.sample, sink.seed.value()));
    handing.sink = Some(inner);
    Ok(next)
}

/// Hands this worker's sampled unique spectra (hash up to `threshold`) to
/// its sink, unless an earlier run did, and logs them. False when stopped.
fn hand_sample(
    plan: &Plan,
    index: usize,
    handing: &mut Handing,
    threshold: u64,
) -> Result<bool, Error> {
    let (Some(sink), Some(sample), Some(log)) = (
        handing.sink.as_mut(),
        handing.sample.as_ref(),
        handing.log.as_mut(),
    ) else {
        return Ok(true);
    };
    if handing.sample_logged {
        return Ok(true);
    }
    let mut grouper = plan.grouper(false)?;
    for (number, image) in sample.upto(threshold) {
        if plan.stopped(None, 0) {
            return Ok(false);
        }
        let (molecule, spectrum) = grouper.sampled(number, image).ok_or_else(|| {
            Error::Internal(format!(
                "worker {index}: orbit {number} has no image {image}"
            ))
        })?;
        sink.group(&Group {
            spectrum: &spectrum,
            molecules: &[molecule],
            spectra: 1,
        })?;
    }
    log.append(&SinkLine {
        partition: plan.partitions as u64,
        logged: sink.take_log()?,
    })?;
    handing.sample_logged = true;
    Ok(true)
}

/// Step 3: groups this worker's partitions, one at a time, stopping as
/// tracing does (Ctrl-C), handing the groups over to its sink if it has
/// one. Returns whether it grouped them all, and the files (removed once
/// every worker has grouped). Stopped anywhere, no worker removes its
/// files: the same command groups them again, and hands over the
/// partitions its sink has not logged.
fn group(
    plan: &Plan,
    index: usize,
    lengths: &[u64],
    summary: &mut Summary,
    handing: &mut Handing,
) -> Result<(bool, Partitions), Error> {
    let mut parts = Partitions::open(
        &plan.work_dir,
        index,
        plan.partitions,
        lengths,
        plan.work_dir.disk().clone(),
    )?;
    let mut grouper = plan.grouper(plan.keep_classes)?;
    let handed_before = open_sink(plan, index, parts.len() as u64, handing)?;
    for j in 0..parts.len() {
        if plan.stopped(plan.budget.faults.stop_grouping_after, j as u64) {
            return Ok((false, parts));
        }
        let records = parts.read(j)?;
        let hands = j as u64 >= handed_before;
        let mut hand = Handover {
            sink: match handing.sink.as_mut() {
                Some(s) if hands => Some(s as &mut dyn GroupSink),
                _ => None,
            },
            sample: handing.sample.as_mut(),
        };
        if !grouper
            .group(records, summary, &plan.budget, &mut hand)?
            .is_complete()
        {
            return Ok((false, parts));
        }
        if hands && let (Some(sink), Some(log)) = (handing.sink.as_mut(), handing.log.as_mut()) {
            log.append(&SinkLine {
                partition: j as u64,
                logged: sink.take_log()?,
            })?;
        }
        plan.grouped.fetch_add(1, Ordering::Relaxed);
    }
    Ok((true, parts))
}

/// Step 4: the summaries meet at worker 0.
fn gather(
    worker: &mut Worker,
    mut summary: Summary,
    error: Option<Error>,
) -> Result<Option<Summary>, Error> {
    if let Some(e) = &error {
        summary.error = Some(e.to_string());
        summary.complete = false;
    }
    let all = at_zero(worker, vec![summary]);
    if let Some(e) = error {
        return Err(e);
    }
    Ok(all.into_iter().reduce(|mut total, s| {
        total.merge(s);
        total
    }))
}

/// Traces units into records.
struct Source<'a> {
    plan: &'a Plan,
    numbering: Numbering,
    traced: Traced,
    positions: SpectrumSymmetries,
    canonical: Canonical,
}
impl<'a> Source<'a> {
    fn new(plan: &'a Plan) -> Result<Source<'a>, Error> {
        let shape = plan.config.shape();
        Ok(Source {
            plan,
            numbering: Numbering::new(plan.config).ok_or_else(|| unnumbered(plan.config))?,
            traced: Traced::new(shape),
            positions: SpectrumSymmetries::new(shape),
            canonical: Canonical {
                codes: Vec::with_capacity(shape.positions()),
                transform: 0,
                stabilizer: 1,
            },
        })
    }

    /// Traces the orbits of molecules `first..=last` into `out`.
    fn unit(
        &mut self,
        first: u64,
        last: u64,
        tally: &mut Tally,
        out: &mut Vec<Record>,
    ) -> Result<(), Error> {
        let mut walk = OrbitWalk::new(self.plan.config, first, last, self.plan.symmetry)?;
        while let Some(rep) = walk.next_rep() {
            self.traced.next(rep.atoms);
            self.positions
                .canonical_into(self.traced.codes(), &mut self.canonical);
            let number = self.numbering.rank(rep.atoms);
            let traced = &self.traced;
            tally.add_bounded(number, rep.orbit_size as u64, traced.longest(), || {
                traced.records()
            });
            out.push((
                key(&self.canonical.codes),
                pack(number, rep.orbit_size, self.canonical.stabilizer),
            ));
        }
        Ok(())
    }
}
