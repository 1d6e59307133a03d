//! The census as a timely dataflow: what each worker does.
//!
//! Every worker runs the same steps; the only difference between one thread,
//! several threads and several processes is how many peers a worker has.
//!
//! 1. Agree with the others on the round to resume from (the last round every
//!    worker logged) and cut its partition files back to it.
//! 2. Trace its units, round by round, sending each record to the worker that
//!    owns its key; records arriving are held per round and appended to the
//!    partition files once the round is complete everywhere, then the round
//!    is logged.
//! 3. Agree that every worker finished (none was stopped), then group its
//!    partitions one at a time, and agree that every worker grouped them all.
//! 4. Send its summary to worker 0, which adds them up.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::probe::Probe;
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use crate::census::checkpoint::{Line, WorkDir, common_round};
use crate::census::group::Grouper;
use crate::census::orbits::OrbitWalk;
use crate::census::record::{Record, pack};
use crate::census::spectra::{Canonical, SpectrumSymmetries, Traced, key};
use crate::census::spill::Partitions;
use crate::census::summary::{Summary, Tally, peak_memory};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::Numbering;

/// How long a worker with nothing to do sleeps before looking again (it wakes
/// earlier when data arrives).
const PARK: Duration = Duration::from_millis(1);

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
    pub work_dir: WorkDir,
    /// Keep the classes' molecules for storing.
    pub keep_classes: bool,
    /// Set to stop after the units in hand (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
    /// Stop after this many rounds of this run (for tests).
    pub stop_after: Option<u64>,
    /// Keep the work directory when the census is done (its caller removes it).
    pub keep_work: bool,
    /// Stop grouping after this many partitions, as Ctrl-C would (for tests).
    pub stop_grouping_after: Option<u64>,
    /// Molecules this process's workers have accounted for (resumed ones
    /// included).
    pub counted: Arc<AtomicU64>,
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
}

/// One all-reduce through timely: every worker offers a value and gets the
/// smallest offered.
struct Agreement {
    input: InputHandleVec<u64, (u64, u64)>,
    probe: ProbeHandle<u64>,
    got: Rc<RefCell<Vec<u64>>>,
}

impl Agreement {
    fn new(worker: &mut Worker) -> Agreement {
        let mut input = InputHandleVec::new();
        let probe = ProbeHandle::new();
        let got = Rc::new(RefCell::new(Vec::new()));
        let sink = got.clone();
        worker.dataflow::<u64, _, _>(|scope| {
            input
                .to_stream(scope)
                .unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|x: &(u64, u64)| x.0),
                    "Agree",
                    move |_cap, _info| {
                        move |(input, _frontier), _output| {
                            input.for_each(|_cap, data| {
                                sink.borrow_mut().extend(data.drain(..).map(|x| x.1));
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        Agreement { input, probe, got }
    }

    fn min(&mut self, worker: &mut Worker, value: u64) -> u64 {
        for dest in 0..worker.peers() {
            self.input.send((dest as u64, value));
        }
        let next = *self.input.time() + 1;
        self.input.advance_to(next);
        while self.probe.less_than(self.input.time()) {
            worker.step_or_park(Some(PARK));
        }
        self.got.borrow_mut().drain(..).min().unwrap_or(value)
    }
}

/// What the partitioning operator shares with its worker.
struct Sink {
    parts: Partitions,
    /// Round → the partition lengths once it is written.
    written: BTreeMap<u64, Vec<u64>>,
    /// The next round to write.
    next: u64,
    error: Option<Error>,
}

impl Sink {
    /// Writes rounds before `upto` (held records of each in order). A round
    /// counts as written only once all its records are in their files: after
    /// a failed write no round is, from the failed one on, so none of them
    /// can be logged (and a resumed census does them again).
    fn write_until(&mut self, upto: u64, held: &mut BTreeMap<u64, Vec<Record>>) {
        while self.error.is_none() && self.next < upto {
            let r = self.next;
            if let Some(recs) = held.remove(&r)
                && let Err(e) = self.parts.append(&recs)
            {
                self.error = Some(e);
                break;
            }
            self.written.insert(r, self.parts.lengths());
            self.next += 1;
        }
        if self.error.is_some() {
            // Nothing more is written: let the records go.
            held.clear();
        }
    }
}

/// How a worker ended.
#[derive(Debug)]
pub struct WorkerEnd {
    /// Whether every worker of every process finished its units.
    pub everyone: bool,
    /// On worker 0 of a finished census, the summed summary.
    pub summary: Option<Summary>,
}

/// Runs one worker.
pub fn run_worker(worker: &mut Worker, plan: &Plan) -> Result<WorkerEnd, Error> {
    let index = worker.index();
    let peers = worker.peers();
    let units = plan.units();
    let rounds = units.div_ceil(peers as u64);
    let mut agree = Agreement::new(worker);

    // 1. The round to resume from.
    let lines = plan.work_dir.lines(index);
    let mine = lines.last().map_or(0, |l| l.round + 1);
    let common = agree.min(worker, mine);
    let resume: Option<u64> = common_round([common.checked_sub(1)]);
    let keep: Vec<Line> = match resume {
        Some(r) => lines.into_iter().filter(|l| l.round <= r).collect(),
        None => Vec::new(),
    };
    let (lengths, mut tally) = match keep.last() {
        Some(l) => (l.lengths.clone(), l.tally.clone()),
        None => (Vec::new(), Tally::default()),
    };
    if resume.is_some() {
        plan.resumed.store(true, Ordering::Relaxed);
    }
    let start = resume.map_or(0, |r| r + 1);
    let mut log = plan.work_dir.log(index, &keep)?;
    let parts = Partitions::open(
        plan.work_dir.path(),
        index,
        plan.partitions,
        &lengths,
        plan.work_dir.disk().clone(),
    )?;
    // Progress counts molecules accounted for (orbit sizes), which grow with
    // the work done; molecule numbers would not (the first units hold far
    // more canonical molecules than the last).
    plan.counted.fetch_add(tally.molecules, Ordering::Relaxed);

    // 2. Trace, exchange, write.
    let sink = Rc::new(RefCell::new(Sink {
        parts,
        written: BTreeMap::new(),
        next: start,
        error: None,
    }));
    let mut input = InputHandleVec::<u64, Record>::new();
    let probe = ProbeHandle::new();
    {
        let sink = sink.clone();
        worker.dataflow::<u64, _, _>(|scope| {
            input
                .to_stream(scope)
                .unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|r: &Record| r.0),
                    "Partition",
                    move |_cap, _info| {
                        let mut held: BTreeMap<u64, Vec<Record>> = BTreeMap::new();
                        let mut caps = BTreeMap::new();
                        move |(input, frontier), _output| {
                            input.for_each(|cap, data| {
                                let Some(&t) = cap.least() else { return };
                                caps.entry(t).or_insert_with(|| cap.retain_least(0));
                                held.entry(t).or_default().append(data);
                            });
                            let upto = frontier.frontier().first().copied().unwrap_or(rounds);
                            sink.borrow_mut().write_until(upto.min(rounds), &mut held);
                            caps.retain(|&t, _| t >= upto);
                        }
                    },
                )
                .probe_with(&probe);
        });
    }
    input.advance_to(start);
    let mut traced: BTreeMap<u64, Tally> = BTreeMap::new();
    let mut next_line = start;
    let mut last_sync = Instant::now();
    let mut log_lines = |sink: &Rc<RefCell<Sink>>,
                         traced: &mut BTreeMap<u64, Tally>,
                         force_sync: bool|
     -> Result<(), Error> {
        let mut s = sink.borrow_mut();
        while let (Some(lengths), Some(t)) = (s.written.get(&next_line), traced.get(&next_line)) {
            log.append(&Line {
                round: next_line,
                lengths: lengths.clone(),
                tally: t.clone(),
            })?;
            s.written.remove(&next_line);
            traced.remove(&next_line);
            next_line += 1;
        }
        if force_sync || last_sync.elapsed() > SYNC_EVERY {
            s.parts.sync()?;
            log.sync()?;
            last_sync = Instant::now();
        }
        Ok(())
    };
    let mut source = Source::new(plan)?;
    let mut batch: Vec<Record> = Vec::new();
    let mut finished = true;
    let mut error: Option<Error> = None;
    for (done_rounds, round) in (start..rounds).enumerate() {
        let stopped = plan.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || plan.stop_after.is_some_and(|n| done_rounds as u64 >= n)
            || sink.borrow().error.is_some();
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
        traced.insert(round, tally.clone());
        input.advance_to(round + 1);
        // Keep at most a few rounds in flight.
        while probe.less_than(&round.saturating_sub(IN_FLIGHT)) {
            worker.step_or_park(Some(PARK));
        }
        if let Err(e) = log_lines(&sink, &mut traced, false) {
            error = Some(e);
            finished = false;
            break;
        }
    }
    drop(input);
    while !probe.done() {
        worker.step_or_park(Some(PARK));
    }
    if let Err(e) = log_lines(&sink, &mut traced, true) {
        error.get_or_insert(e);
    }
    if let Some(e) = sink.borrow_mut().error.take() {
        error.get_or_insert(e);
    }
    if error.is_some() {
        finished = false;
    }

    // 3. Group, if every worker finished, and stop as tracing does (Ctrl-C);
    // then agree that every worker grouped every partition. Stopped anywhere,
    // no worker removes its files: the same command groups them again.
    let traced = agree.min(worker, u64::from(finished)) == 1;
    let mut summary = Summary {
        tally,
        complete: traced,
        ..Summary::default()
    };
    let mut grouped = false;
    if traced {
        let interrupted = || plan.stop.is_some_and(|s| s.load(Ordering::Relaxed));
        match Grouper::new(plan.config, plan.keep_classes) {
            Some(mut grouper) => {
                let mut s = sink.borrow_mut();
                grouped = true;
                for j in 0..s.parts.len() {
                    if interrupted() || plan.stop_grouping_after.is_some_and(|n| j as u64 >= n) {
                        grouped = false;
                        break;
                    }
                    match s.parts.read(j) {
                        Ok(records) => {
                            if !grouper.group_until(records, &mut summary, &interrupted) {
                                grouped = false;
                                break;
                            }
                        }
                        Err(e) => {
                            error = Some(e);
                            grouped = false;
                            break;
                        }
                    }
                }
            }
            None => {
                error = Some(Error::Internal(format!(
                    "configuration {} passed the census's checks but is not numbered",
                    plan.config
                )))
            }
        }
    }
    let everyone = agree.min(worker, u64::from(grouped)) == 1;
    summary.complete = everyone;
    summary.peak_memory = peak_memory();
    let out = gather(worker, index, summary, error);
    if everyone && out.is_ok() && !plan.keep_work {
        // The log first: killed between the two, the next run sees no
        // claim on files that are gone.
        drop(log);
        plan.work_dir.forget(index);
        sink.borrow().parts.remove();
    }
    out.map(|summary| WorkerEnd { everyone, summary })
}

/// Step 4: the summaries meet at worker 0.
fn gather(
    worker: &mut Worker,
    index: usize,
    mut summary: Summary,
    error: Option<Error>,
) -> Result<Option<Summary>, Error> {
    if let Some(e) = &error {
        summary.error = Some(e.to_string());
        summary.complete = false;
    }
    let mut input = InputHandleVec::<u64, Summary>::new();
    let probe = ProbeHandle::new();
    let got = Rc::new(RefCell::new(Vec::new()));
    let sink = got.clone();
    worker.dataflow::<u64, _, _>(|scope| {
        input
            .to_stream(scope)
            .unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Exchange::new(|_: &Summary| 0),
                "Gather",
                move |_cap, _info| {
                    move |(input, _frontier), _output| {
                        input.for_each(|_cap, data| sink.borrow_mut().append(data));
                    }
                },
            )
            .probe_with(&probe);
    });
    input.send(summary);
    input.advance_to(1);
    while probe.less_than(&1) {
        worker.step_or_park(Some(PARK));
    }
    if let Some(e) = error {
        return Err(e);
    }
    if index != 0 {
        return Ok(None);
    }
    let all: Vec<Summary> = got.borrow_mut().drain(..).collect();
    let mut all = all.into_iter();
    let mut total = all.next().unwrap_or_default();
    for s in all {
        total.merge(s);
    }
    Ok(Some(total))
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
        let width = plan.config.width;
        Ok(Source {
            plan,
            numbering: Numbering::new(plan.config).ok_or_else(|| {
                Error::Internal(format!(
                    "configuration {} passed the census's checks but is not numbered",
                    plan.config
                ))
            })?,
            traced: Traced::new(width),
            positions: SpectrumSymmetries::new(width),
            canonical: Canonical {
                codes: Vec::with_capacity(4 * width),
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
            self.traced.trace(rep.atoms);
            self.positions
                .canonical_into(self.traced.codes(), &mut self.canonical);
            let number = self.numbering.rank(rep.atoms);
            tally.add(number, rep.orbit_size as u64, self.traced.records());
            out.push((
                key(&self.canonical.codes),
                pack(number, rep.orbit_size, self.canonical.stabilizer),
            ));
        }
        Ok(())
    }
}
