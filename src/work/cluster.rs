//! Where the workers of a census, a verify or a search in units run:
//! threads of one process, or processes on several machines, in timely
//! dataflow's terms; and how a process waits for its workers.
//!
//! Every process runs the same command with `--processes N --process I` and
//! the same host file: one `HOST:PORT` line per process, in process order,
//! where process I listens and the others reach it.
//!
//! Process I listens on line I+1's port and connects to the processes
//! before it (without a host file, timely's convention: `localhost:2101`,
//! `localhost:2102`, …), from 1 to 256 processes. Each waits up to ten
//! minutes for the others; the wait, reading a connection's introduction
//! included, looks at the budget every fifth of a second, so Ctrl-C ends it
//! at once and a silent peer or a stranger on the port cannot hold it.
//! Every process's workers are workers of one dataflow: a record goes to
//! the worker owning it whichever process that is in, and results meet at
//! worker 0 of process 0. Each process keeps its share in its own work
//! directory, so a stopped cluster resumes when every process runs its
//! command again.
//!
//! **Agreeing.** Each connection starts with both processes' [`Settings`]
//! (bbx's version and the settings that decide the work, keyed by
//! [`Setting`]); any difference stops both, naming
//! it and both values. `--memory` and `--work-dir` are each machine's own.
//!
//! **Losing a process.** timely's communication threads panic when a
//! connection fails. The program's panic hook hands every panic to
//! [`PeerWatch::on_panic`] first, which recognises them by name, records
//! the loss and stops the workers that meet it (parked, not unwound:
//! timely's destructors would panic again and abort); [`wait_for_workers`]
//! then returns the loss as an error (a system failure, exit status 3 in
//! the binary) instead of joining them. The library installs no hook and
//! keeps no global state: the watch is a value the work's options carry. A
//! run that fails before doing any work removes what it made (its manifest,
//! and the directories it made, each while empty).
//!
//! ```
//! use bbx::work::cluster::parse_hostfile;
//! let hosts = parse_hostfile("# the machines\n10.0.0.1:2101\n10.0.0.2:2101\n", "hosts.txt", 2).unwrap();
//! assert_eq!(hosts, ["10.0.0.1:2101", "10.0.0.2:2101"]);
//! assert!(parse_hostfile("10.0.0.1\n", "hosts.txt", 1).is_err());
//! ```

use std::fmt::Display;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use itertools::Itertools;
use timely::communication::allocator::zero_copy::initialize::{
    CommsGuard, initialize_networking_from_sockets,
};
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::{Hooks, WorkerGuards};

use crate::control::{Budget, Cut};
use crate::error::Error;
use crate::setting::{Piece, Setting};
use crate::text;

/// The most worker threads a process takes (`--workers`).
pub const MAX_WORKERS: usize = 256;

/// The most processes a work takes (`--processes`).
pub const MAX_PROCESSES: usize = 256;

/// The most workers in all processes: each worker keeps buffers for every
/// other, so a process's memory grows with its workers times all workers.
pub const MAX_PEERS: usize = 4096;

/// The largest host file read, in bytes: one short line per process fits many
/// times over.
pub const MAX_HOSTFILE_BYTES: u64 = 1_000_000;

/// The most characters of a bad host-file line quoted in an error.
const QUOTED: usize = 40;

/// How a connection between two processes of a work starts, before the
/// settings: a process of bbx answers with the same bytes, anything else is
/// not one (whatever the work: what it is is among the settings).
const HELLO: &[u8] = b"bbx census\n";

/// The longest settings text accepted from another process.
const MAX_SETTINGS_BYTES: u32 = 4096;

/// How long a process that accepted a connection waits for the other side to
/// introduce itself (it does so at once) before dropping it as a stranger.
const INTRODUCTION: Duration = Duration::from_secs(10);

/// How long the processes of a work wait for each other, and what stops
/// the wait sooner (Ctrl-C, a deadline): it is looked at every fifth of
/// a second or so.
#[derive(Debug, Clone, Copy)]
pub struct Wait<'a> {
    /// The longest wait for the other processes.
    pub patience: Duration,
    /// What stops the wait.
    pub budget: &'a Budget,
}

/// How often a wait for the other processes looks at its budget.
const LOOK: Duration = Duration::from_millis(200);

/// How long a process waits for the others to come up.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(600);

/// How long the workers of a process that lost another are given to end
/// (they end at their next exchange) before the wait returns without them.
pub const LOST_GRACE: Duration = Duration::from_secs(2);

/// How often a wait for this process's workers looks at them.
const POLL: Duration = Duration::from_millis(5);

/// How often a wait for this process's workers calls its `tick`.
const TICK: Duration = Duration::from_millis(100);

/// How a wait for this process's workers ended ([`wait_for_workers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// Every worker returned: they can be joined.
    Ended,
    /// Another process was lost. `idle`: no worker of this process still
    /// runs (those the loss stopped never return, and must not be joined).
    Lost {
        /// No worker of this process still runs.
        idle: bool,
    },
    /// The caller's `give_up` said so: this process stopped while others
    /// may still work.
    GaveUp,
}

/// Waits for this process's `count` workers, `ended()` of which have
/// returned: it looks every 5 ms, calls `tick` about ten times a second,
/// asks `give_up` at each look, and once `peers` hears of a lost process
/// gives the workers [`LOST_GRACE`] to end (the workers the loss stopped
/// for good count as ended then, [`PeerWatch::parked`]).
pub fn wait_for_workers(
    count: usize,
    ended: impl Fn() -> usize,
    peers: &PeerWatch,
    mut give_up: impl FnMut() -> bool,
    mut tick: impl FnMut(),
) -> Waited {
    let mut shown = Instant::now();
    let mut lost_at: Option<Instant> = None;
    loop {
        let done = ended();
        if done == count {
            return Waited::Ended;
        }
        let lost = peers.lost().is_some();
        if lost && done + peers.parked() >= count {
            return Waited::Lost { idle: true };
        }
        if shown.elapsed() >= TICK {
            tick();
            shown = Instant::now();
        }
        if lost && lost_at.is_none() {
            lost_at = Some(Instant::now());
        }
        if lost_at.is_some_and(|t| t.elapsed() > LOST_GRACE) {
            return Waited::Lost {
                idle: ended() + peers.parked() >= count,
            };
        }
        if give_up() {
            return Waited::GaveUp;
        }
        std::thread::sleep(POLL);
    }
}

/// Where a work runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads in this process.
    pub workers: usize,
    /// Processes in all.
    pub processes: usize,
    /// This process (0-based): process 0 prints the report.
    pub process: usize,
    /// Each process's `HOST:PORT` (empty for one process).
    pub addresses: Vec<String>,
}

impl Cluster {
    /// What a process other than 0 says once its share of the `work`
    /// ("census") of `config` is done: process 0 prints the `result`.
    pub fn share_done(&self, config: impl std::fmt::Display, work: &str, result: &str) -> String {
        let (i, n) = (self.process, self.processes);
        format!(
            "process {i} of {n}: its share of the {config} {work} is done; process 0 prints the {result}"
        )
    }

    /// One process with `workers` threads (at least one; [`Cluster::check`]
    /// refuses more than [`MAX_WORKERS`]).
    pub fn local(workers: usize) -> Cluster {
        Cluster {
            workers: workers.max(1),
            processes: 1,
            process: 0,
            addresses: Vec::new(),
        }
    }

    /// Process `process` of `processes`, with `workers` threads each, at the
    /// addresses of `hostfile` (by default, timely's: `localhost:2101`,
    /// `localhost:2102`, …). Counts out of range are refused, not adjusted.
    pub fn new(
        workers: usize,
        processes: usize,
        process: usize,
        hostfile: Option<&Path>,
    ) -> Result<Cluster, Error> {
        let mut cluster = Cluster {
            workers,
            processes,
            process,
            addresses: Vec::new(),
        };
        cluster.check_counts()?;
        if processes == 1 {
            return Ok(cluster);
        }
        cluster.addresses = match hostfile {
            Some(path) => {
                let text = read_hostfile(path)?;
                parse_hostfile(&text, &crate::files::shown(path), processes)?
            }
            None => (0..processes)
                .map(|i| format!("localhost:{}", 2101 + i))
                .collect(),
        };
        Ok(cluster)
    }

    /// Refuses counts out of range: workers from 1 to [`MAX_WORKERS`],
    /// processes from 1 to [`MAX_PROCESSES`], at most [`MAX_PEERS`] workers
    /// in all, the process index below the processes; and, with several
    /// processes, anything but one address per process.
    pub fn check(&self) -> Result<(), Error> {
        self.check_counts()?;
        if self.processes > 1 && self.addresses.len() != self.processes {
            return Err(Error::invalid(format!(
                "{} for {} processes: give one HOST:PORT per process",
                crate::error::quantity(self.addresses.len(), "address", "addresses"),
                self.processes
            )));
        }
        Ok(())
    }

    fn check_counts(&self) -> Result<(), Error> {
        let (workers, processes) = (self.workers, self.processes);
        if !(1..=MAX_WORKERS).contains(&workers) {
            return Err(Error::invalid(text![
                Setting::Workers,
                format!(
                    " {workers} is out of range: give from 1 to {MAX_WORKERS} worker threads per process"
                )
            ]));
        }
        if !(1..=MAX_PROCESSES).contains(&processes) {
            return Err(Error::invalid(text![
                Setting::Processes,
                format!(" {processes} is out of range: give from 1 to {MAX_PROCESSES} processes")
            ]));
        }
        if self.peers() > MAX_PEERS {
            return Err(Error::invalid(text![
                Setting::Workers,
                format!(" {workers} with "),
                Setting::Processes,
                format!(
                    " {processes} makes {} workers in all: give at most {MAX_PEERS} (fewer workers per process)",
                    self.peers()
                )
            ]));
        }
        if self.process >= processes {
            return Err(Error::invalid(text![
                Setting::Process,
                format!(" {} is out of range: with ", self.process),
                Setting::Processes,
                format!(
                    " {processes} the processes are numbered 0 to {}",
                    processes - 1
                )
            ]));
        }
        Ok(())
    }

    /// This process's loss of another, in words: "process 0 lost process
    /// 1 at localhost:2102 (reading data: socket closed)".
    pub fn lost(&self, lost: &Lost) -> String {
        format!(
            "process {} lost process {} at {} ({})",
            self.process,
            lost.process,
            self.addresses.get(lost.process).map_or("?", String::as_str),
            lost.cause
        )
    }

    /// Worker threads in all processes.
    pub fn peers(&self) -> usize {
        self.workers * self.processes
    }

    /// Starts `func` on every worker of this process, connected to the
    /// other processes' workers, as `timely::execute` does. The connections
    /// are made here rather than by timely, quietly (timely reports on
    /// standard output, which carries the report) and within `wait`'s
    /// patience; each starts by comparing `settings`, and processes whose
    /// settings differ refuse to work together (both of them, naming the
    /// setting). Stopped by `wait`'s budget while waiting for the others
    /// (within a fifth of a second or so): the cut, and no worker started.
    ///
    /// A connection lost while the workers run makes timely's threads
    /// panic: `watch` hears of it through the program's panic hook (see
    /// [`PeerWatch`]), which stops for good the workers that meet the loss:
    /// the caller must then not join them ([`PeerWatch::parked`]), and the
    /// threads end with the process.
    pub fn execute<T, F>(
        &self,
        settings: &Settings,
        wait: Wait<'_>,
        watch: &PeerWatch,
        func: F,
    ) -> Result<Result<WorkerGuards<T>, Cut>, Error>
    where
        T: Send + 'static,
        F: Fn(&mut timely::worker::Worker) -> T + Send + Sync + 'static,
    {
        self.check()?;
        watch.reset();
        let fail = |e: String| Error::system(format!("cannot start the workers: {e}"));
        if self.processes == 1 {
            return timely::execute(timely::Config::process(self.workers), func)
                .map(Ok)
                .map_err(fail);
        }
        let sockets = match connect(&self.addresses, self.process, settings, wait)? {
            Ok(sockets) => sockets,
            Err(cut) => return Ok(Err(cut)),
        };
        let hooks = Hooks::default();
        let local = ProcessBuilder::new_typed_vector(
            self.workers,
            hooks.refill.clone(),
            hooks.spill.clone(),
        );
        let (builders, guard) =
            initialize_networking_from_sockets(local, sockets, self.process, self.workers, hooks)
                .map_err(|e| fail(e.to_string()))?;
        timely::execute::execute_from(
            builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Box::new(Comms {
                guard: Some(guard),
                watch: watch.clone(),
            }),
            timely::WorkerConfig::default(),
            func,
        )
        .map(Ok)
        .map_err(fail)
    }
}

/// A process of the work whose connection failed while the workers ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    /// Its index.
    pub process: usize,
    /// What failed: "reading data: socket closed", say.
    pub cause: String,
}

/// What a process of a work of several processes learns of its
/// connections, from the panics of timely's communication threads: owned,
/// cheap to clone, one per work.
///
/// timely names those threads `timely:send-J` and `timely:recv-J` (J the
/// other process) and makes them panic with "timely communication error: …"
/// when a connection fails; the workers then panic on the queues those
/// threads poisoned ("MergeQueue poisoned."). Only a panic hook sees those
/// panics, and panic hooks belong to the program, not to a library: a
/// program that runs a work of several processes installs one that asks
/// [`on_panic`](PeerWatch::on_panic) first, passes the panic on to the
/// previous hook only when it answers `false`, and gives the work a clone
/// of the same watch (a census's or a bound's options carry it); `bbx`
/// itself does so once, before its first work of several processes.
///
/// Without it a lost process is still an error, but the panics are printed,
/// and a worker unwinding from one may panic again in timely's destructors,
/// which aborts the process.
#[derive(Debug, Clone, Default)]
pub struct PeerWatch(Arc<Watched>);

#[derive(Debug, Default)]
struct Watched {
    /// The first lost connection of the running work.
    lost: Mutex<Option<Lost>>,
    /// Whether one of timely's communication threads panicked: joining them
    /// would then panic too.
    broken: AtomicBool,
    /// Workers stopped for good by a lost connection.
    parked: AtomicUsize,
}

impl PeerWatch {
    /// For the program's panic hook: whether this panic is one of a
    /// work's threads meeting a lost connection, which it records (the
    /// hook then says nothing); false for any other panic, which the hook
    /// reports as usual. A worker that meets the loss is stopped here for
    /// good (unwound, it could panic again in a destructor, as timely's
    /// input handles send when dropped, which aborts the process): for its
    /// thread this call never returns, and the thread ends with the process.
    pub fn on_panic(&self, info: &std::panic::PanicHookInfo<'_>) -> bool {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("");
        let peer = name
            .strip_prefix("timely:recv-")
            .or_else(|| name.strip_prefix("timely:send-"))
            .and_then(|j| j.parse::<usize>().ok());
        let w = &self.0;
        if let Some(process) = peer {
            w.broken.store(true, Ordering::SeqCst);
            if let Some(cause) = message.strip_prefix("timely communication error: ") {
                if let Ok(mut lost) = w.lost.lock() {
                    lost.get_or_insert(Lost {
                        process,
                        cause: cause.to_string(),
                    });
                }
                return true;
            }
            // Another thread's panic, reported on its own.
            message == "MergeQueue poisoned."
        } else if name.starts_with("timely:work-") && self.lost().is_some() {
            w.parked.fetch_add(1, Ordering::SeqCst);
            loop {
                std::thread::park();
            }
        } else {
            // timely joining the threads above (see `Comms`).
            w.broken.load(Ordering::SeqCst)
                && (message.starts_with("Send thread panic")
                    || message.starts_with("Recv thread panic"))
        }
    }

    /// The first connection to another process that failed since the
    /// workers of the work started, if one did.
    pub fn lost(&self) -> Option<Lost> {
        self.0.lost.lock().ok().and_then(|l| l.clone())
    }

    /// How many of this process's workers a lost connection stopped for
    /// good: they never return, so the work must not wait for them (nor
    /// join them).
    pub fn parked(&self) -> usize {
        self.0.parked.load(Ordering::SeqCst)
    }

    /// Forgets what an earlier work saw.
    fn reset(&self) {
        if let Ok(mut lost) = self.0.lost.lock() {
            *lost = None;
        }
        self.0.broken.store(false, Ordering::SeqCst);
        self.0.parked.store(0, Ordering::SeqCst);
    }
}

/// timely's communication threads, joined when dropped unless one of them
/// panicked (a lost connection): timely's join would then panic in turn, so
/// they are left to end with the process.
struct Comms {
    guard: Option<CommsGuard>,
    watch: PeerWatch,
}

impl Drop for Comms {
    fn drop(&mut self) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        if self.watch.0.broken.load(Ordering::SeqCst) {
            std::mem::forget(guard);
        } else {
            // A connection lost while joining makes the join panic; the
            // hook keeps that quiet, and this process's work is done.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(guard)));
        }
    }
}

/// What every process of a work must agree on before working together:
/// each setting (a [`Setting`] the user chooses, or words naming one the
/// user does not, such as "the configuration") with its value, compared
/// when two processes connect.
#[derive(Debug, Clone, Default)]
pub struct Settings(Vec<(Piece, String)>);

/// Settings are equal when they name the same settings (by their wire
/// names) with the same values, in the same order.
impl PartialEq for Settings {
    fn eq(&self, other: &Settings) -> bool {
        let named = |s: &Settings| {
            s.0.iter()
                .map(|(k, v)| (wire_name(k).to_string(), v.clone()))
                .collect::<Vec<_>>()
        };
        named(self) == named(other)
    }
}

impl Eq for Settings {}

/// How a setting is named between processes: a [`Setting`] by its key,
/// words as they are (they hold a space, which no key does).
fn wire_name(piece: &Piece) -> &str {
    match piece {
        Piece::Setting(s) => s.key(),
        Piece::Words(w) => w,
        // Work advised is no setting of a work.
        Piece::Job(_) => "job",
    }
}

impl Settings {
    /// No settings.
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Adds `setting` (a [`Setting`], or words: `the configuration`) with
    /// its value.
    pub fn with(mut self, setting: impl Into<Piece>, value: impl Display) -> Settings {
        self.0.push((setting.into(), value.to_string()));
        self
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = String::new();
        for (k, v) in &self.0 {
            out.push_str(&wire_name(k).replace(['\t', '\n'], " "));
            out.push('\t');
            out.push_str(&v.replace(['\t', '\n'], " "));
            out.push('\n');
        }
        out.into_bytes()
    }

    /// Settings as another process sent them: each named by its wire name
    /// (see [`compare`](Self::compare) for how they are shown).
    fn decode(bytes: &[u8]) -> Option<Settings> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut out = Settings::new();
        for line in text.lines() {
            let (k, v) = line.split_once('\t')?;
            out.0.push((Piece::Words(k.to_string()), v.to_string()));
        }
        Some(out)
    }

    /// Adds `other`'s settings after these.
    pub fn and(mut self, other: &Settings) -> Settings {
        self.0.extend(other.0.iter().cloned());
        self
    }

    /// The first setting that differs between these settings and `theirs`:
    /// named as these name it (or, known to `theirs` alone, as they name
    /// it), with both values as a message quotes them ("not set" for one
    /// that is missing).
    pub fn differs(&self, theirs: &Settings) -> Option<(Piece, String, String)> {
        let find = |s: &Settings, k: &str| {
            s.0.iter()
                .find(|(name, _)| wire_name(name) == k)
                .map(|(_, v)| v.clone())
        };
        let shown = |v: Option<String>| v.map_or("not set".to_string(), |v| cut(&v));
        self.0.iter().chain(&theirs.0).find_map(|(piece, _)| {
            let k = wire_name(piece);
            let (mine, other) = (find(self, k), find(theirs, k));
            (mine != other).then(|| {
                let name = match piece {
                    Piece::Words(w) => Piece::Words(cut(w)),
                    setting => setting.clone(),
                };
                (name, shown(mine), shown(other))
            })
        })
    }

    /// The first setting that differs between this process `me` and process
    /// `them`, as the error both of them report (see
    /// [`differs`](Self::differs)).
    pub fn compare(&self, theirs: &Settings, me: usize, them: usize) -> Result<(), Error> {
        let Some((name, mine, other)) = self.differs(theirs) else {
            return Ok(());
        };
        Err(Error::invalid(text![
            format!("process {me} and process {them} were started with different settings: "),
            name,
            format!(
                " is {mine} here but {other} in process {them}; start every process with the same command and options but "
            ),
            Setting::Process
        ]))
    }
}

/// Settings are written (in a work directory's manifest) as pairs of a name and a
/// value, and read back as `Settings::decode` reads them.
impl serde::Serialize for Settings {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(k, v)| (wire_name(k), v)))
    }
}

impl<'de> serde::Deserialize<'de> for Settings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Settings, D::Error> {
        let pairs: Vec<(String, String)> = serde::Deserialize::deserialize(d)?;
        Ok(Settings(
            pairs
                .into_iter()
                .map(|(k, v)| (Piece::Words(k), v))
                .collect(),
        ))
    }
}

/// What a process sends when it connects (`index` its own) or answers
/// (`None`).
fn introduce(
    stream: &mut TcpStream,
    index: Option<usize>,
    settings: &Settings,
) -> std::io::Result<()> {
    let text = settings.encode();
    let mut bytes = HELLO.to_vec();
    if let Some(i) = index {
        bytes.extend_from_slice(&(i as u64).to_le_bytes());
    }
    bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&text);
    stream.write_all(&bytes)?;
    stream.flush()
}

/// What the other side of `stream` says of itself: its index (when
/// `with_index`) and its settings; `Ok(None)` when it is no process of bbx.
fn introduction(
    stream: &mut impl Read,
    with_index: bool,
) -> std::io::Result<Option<(usize, Settings)>> {
    let mut hello = vec![0u8; HELLO.len()];
    stream.read_exact(&mut hello)?;
    if hello != HELLO {
        return Ok(None);
    }
    let mut index = 0usize;
    if with_index {
        let mut b = [0u8; 8];
        stream.read_exact(&mut b)?;
        index = usize::try_from(u64::from_le_bytes(b)).unwrap_or(usize::MAX);
    }
    let mut b = [0u8; 4];
    stream.read_exact(&mut b)?;
    let len = u32::from_le_bytes(b);
    if len > MAX_SETTINGS_BYTES {
        return Ok(None);
    }
    let mut text = vec![0u8; len as usize];
    stream.read_exact(&mut text)?;
    Ok(Settings::decode(&text).map(|s| (index, s)))
}

/// Connects process `me` to every other: it listens on its own address for
/// the processes after it and reaches each process before it, retrying until
/// `wait`'s patience runs out, and looking at its budget every [`LOOK`] or
/// so (stopped, it answers the cut). Each connection starts with the
/// connecting process's introduction (its index and settings) and the
/// answer (the settings of the process reached); both sides compare them. A
/// connection that does not introduce itself as a process of bbx is
/// dropped.
///
/// Failing to listen, to reach a process or to hear from it is a failure of
/// the machine or the network ([`Error::System`]); settings that differ are
/// bad input ([`Error::Invalid`]).
fn connect(
    addresses: &[String],
    me: usize,
    settings: &Settings,
    wait: Wait<'_>,
) -> Result<Result<Vec<Option<TcpStream>>, Cut>, Error> {
    let deadline = Instant::now() + wait.patience;
    let listener = TcpListener::bind(addresses[me].as_str()).map_err(|e| {
        Error::system(format!(
            "process {me} cannot listen on {}: {e} (is the port free, and the host file's line {} this machine's address?)",
            addresses[me],
            me + 1
        ))
    })?;
    let mut out: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (j, address) in addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            if let Err(cut) = wait.budget.check() {
                return Ok(Err(cut));
            }
            match reach(address) {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => {
                    return Err(Error::system(format!(
                        "process {me} cannot reach process {j} at {address}: {e} (is it started, with the same host file?)"
                    )));
                }
                Err(_) => std::thread::sleep(LOOK),
            }
        };
        let lost = |e: std::io::Error| {
            Error::system(format!(
                "process {me} lost process {j} at {address} while connecting: {e}"
            ))
        };
        stream
            .set_nodelay(true)
            .and_then(|_| introduce(&mut stream, Some(me), settings))
            .map_err(lost)?;
        // Process j answers once it has reached the processes before it.
        let until = deadline.max(Instant::now() + INTRODUCTION);
        let mut reader = Patient::new(&stream, until, wait.budget).map_err(lost)?;
        let heard = introduction(&mut reader, false);
        if let Some(cut) = reader.cut {
            return Ok(Err(cut));
        }
        match heard {
            Ok(Some((_, theirs))) => settings.compare(&theirs, me, j)?,
            Ok(None) => {
                return Err(Error::system(format!(
                    "process {me}: what answers at {address} is not process {j} of this work (another program on that port?)"
                )));
            }
            Err(e) => return Err(lost(e)),
        }
        stream.set_read_timeout(None).map_err(lost)?;
        out[j] = Some(stream);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::system(format!("process {me} cannot wait for connections: {e}")))?;
    while out[me + 1..].iter().any(Option::is_none) {
        if let Err(cut) = wait.budget.check() {
            return Ok(Err(cut));
        }
        match listener.accept() {
            Ok((mut stream, _)) => {
                let until = Instant::now() + INTRODUCTION;
                let mut cut = None;
                let heard = stream
                    .set_nonblocking(false)
                    .and_then(|_| stream.set_nodelay(true))
                    .and_then(|_| Patient::new(&stream, until, wait.budget))
                    .and_then(|mut reader| {
                        let heard = introduction(&mut reader, true);
                        cut = reader.cut;
                        heard
                    });
                if let Some(cut) = cut {
                    return Ok(Err(cut));
                }
                // A stranger, or a process that went away at once: wait on.
                let Ok(Some((j, theirs))) = heard else {
                    continue;
                };
                // Answer before judging, so that both sides can say what differs.
                let answered = introduce(&mut stream, None, settings)
                    .and_then(|_| stream.set_read_timeout(None));
                settings.compare(&theirs, me, j)?;
                if j <= me || j >= addresses.len() || out[j].is_some() {
                    return Err(Error::invalid(format!(
                        "process {me}: a connection claims to be process {j}; are two runs sharing ports, or do the host files differ?"
                    )));
                }
                if answered.is_ok() {
                    out[j] = Some(stream);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing = (me + 1..addresses.len())
                        .filter(|&j| out[j].is_none())
                        .join(", ");
                    return Err(Error::system(format!(
                        "process {me}: process {missing} never connected (is it started, with the same host file?)"
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => {
                return Err(Error::system(format!(
                    "process {me} cannot accept connections on {}: {e}",
                    addresses[me]
                )));
            }
        }
    }
    Ok(Ok(out))
}

/// A connection to `address`, each of its addresses tried for at most
/// [`LOOK`] (a host that does not answer is tried again later, so that the
/// wait can be stopped).
fn reach(address: &str) -> std::io::Result<TcpStream> {
    let mut last = None;
    for a in std::net::ToSocketAddrs::to_socket_addrs(address)? {
        match TcpStream::connect_timeout(&a, LOOK) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("the host name has no address")))
}

/// Reads from a connection until `until`, looking at `budget` every
/// [`LOOK`] while nothing comes: a silent peer, or one that stops in the
/// middle of what it says, cannot hold the wait past a Ctrl-C.
struct Patient<'a> {
    stream: &'a TcpStream,
    until: Instant,
    budget: &'a Budget,
    /// Set when the budget stopped a read (which then fails).
    cut: Option<Cut>,
}

impl<'a> Patient<'a> {
    fn new(stream: &'a TcpStream, until: Instant, budget: &'a Budget) -> std::io::Result<Self> {
        stream.set_read_timeout(Some(LOOK))?;
        Ok(Patient {
            stream,
            until,
            budget,
            cut: None,
        })
    }
}

impl Read for Patient<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match (&mut &*self.stream).read(buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if let Err(cut) = self.budget.check() {
                        self.cut = Some(cut);
                        return Err(std::io::Error::other("stopped while waiting"));
                    }
                    if Instant::now() > self.until {
                        return Err(e);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// Reads a host file, refusing one larger than [`MAX_HOSTFILE_BYTES`]
/// (reading at most one byte more, so that `/dev/zero` is refused too).
fn read_hostfile(path: &Path) -> Result<String, Error> {
    let cannot = |e: std::io::Error| {
        Error::invalid(format!(
            "{}: cannot read the host file: {e}",
            crate::files::shown(path)
        ))
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_HOSTFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_HOSTFILE_BYTES {
        return Err(Error::invalid(format!(
            "{}: a host file holds one HOST:PORT line per process, at most {MAX_HOSTFILE_BYTES} bytes; this one is larger",
            crate::files::shown(path)
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::invalid(format!(
            "{}: the host file is not text (UTF-8): byte {} is not; give one HOST:PORT line per process",
            crate::files::shown(path),
            e.utf8_error().valid_up_to() + 1
        ))
    })
}

/// `text` cut to its first [`QUOTED`] characters, on one line (it may come
/// from a file or another process: an error quotes no more).
fn cut(text: &str) -> String {
    crate::files::shown_within(text, QUOTED)
}

/// `text` cut (see [`cut`]) and between quotes.
fn quote(text: &str) -> String {
    format!("'{}'", cut(text))
}

/// The first `processes` addresses of a host file: one `HOST:PORT` a line
/// (blank lines and `#` comments are skipped).
pub fn parse_hostfile(text: &str, origin: &str, processes: usize) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            Error::invalid(format!(
                "{origin}:{}: {why}: expected HOST:PORT, for example 10.0.0.2:2101, not {}",
                i + 1,
                quote(line)
            ))
        };
        let (host, port) = line.rsplit_once(':').ok_or_else(|| bad("no port"))?;
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(bad("no host"));
        }
        match port.parse::<u16>() {
            Ok(p) if p > 0 => {}
            _ => return Err(bad("the port must be a number from 1 to 65535")),
        }
        out.push(line.to_string());
        if out.len() == processes {
            return Ok(out);
        }
    }
    Err(Error::invalid(text![
        format!(
            "{origin}: {} for ",
            crate::error::quantity(out.len(), "address", "addresses")
        ),
        Setting::Processes,
        format!(" {processes}: give one HOST:PORT line per process")
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setting::Naming;

    /// Names a setting `<key>`, so that a test sees where the front puts
    /// a setting's name.
    struct Keys;
    impl Naming for Keys {
        fn name(&self, s: Setting) -> String {
            format!("<{}>", s.key())
        }
    }

    fn shown(e: Error) -> String {
        e.show(&Keys)
    }

    #[test]
    fn host_files_and_process_indices() {
        let e = parse_hostfile("a:1\nb:x\n", "h", 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("h:2: "), "{e}");
        let e = shown(parse_hostfile("a:1\n", "h", 2).unwrap_err());
        assert!(e.contains("1 address for <processes> 2"), "{e}");
        assert_eq!(
            parse_hostfile("[::1]:5000\nb:2\nc:3\n", "h", 2).unwrap(),
            ["[::1]:5000", "b:2"]
        );
        let e = Cluster::new(1, 2, 2, None).unwrap_err().to_string();
        assert!(e.contains("0 to 1"), "{e}");
        let c = Cluster::new(3, 2, 1, None).unwrap();
        assert_eq!((c.peers(), c.addresses.len()), (6, 2));
    }

    #[test]
    fn counts_out_of_range_are_refused_not_adjusted() {
        for (workers, processes, process, needle) in [
            (0, 1, 0, "<workers> 0 is out of range: give from 1 to 256"),
            (257, 1, 0, "<workers> 257 is out of range"),
            (1, 0, 0, "<processes> 0 is out of range: give from 1 to 256"),
            (
                1,
                99_999_999_999,
                0,
                "<processes> 99999999999 is out of range",
            ),
            (
                256,
                17,
                0,
                "<workers> 256 with <processes> 17 makes 4352 workers in all: give at most 4096",
            ),
            (1, 2, 2, "<process> 2 is out of range: with <processes> 2"),
        ] {
            let e = shown(Cluster::new(workers, processes, process, None).unwrap_err());
            assert!(e.contains(needle), "{e}");
        }
        assert!(Cluster::local(MAX_WORKERS).check().is_ok());
        assert!(Cluster::local(MAX_WORKERS + 1).check().is_err());
        let no_addresses = Cluster {
            addresses: Vec::new(),
            ..Cluster::new(1, 2, 0, None).unwrap()
        };
        assert!(no_addresses.check().is_err());
    }

    #[test]
    fn long_lines_are_quoted_short() {
        let line = format!("{}:x", "h".repeat(100_000));
        let e = parse_hostfile(&line, "h", 1).unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
        assert!(e.ends_with(&format!("'{}…'", "h".repeat(QUOTED))), "{e}");
        assert_eq!(
            quote("é".repeat(QUOTED).as_str()),
            format!("'{}'", "é".repeat(QUOTED))
        );
    }

    #[test]
    fn settings_name_what_differs_both_ways() {
        let ours = Settings::new()
            .with("the configuration", "A6_B8")
            .with(Setting::Workers, 1);
        let back = Settings::decode(&ours.encode()).unwrap();
        assert_eq!(back.encode(), ours.encode());
        assert!(ours.compare(&back, 0, 1).is_ok());
        let theirs = Settings::new()
            .with("the configuration", "A6_B8")
            .with(Setting::Workers, 2);
        let e = ours.compare(&theirs, 0, 1).unwrap_err();
        assert!(!e.is_failure());
        let e = shown(e);
        assert!(e.contains("<workers> is 1 here but 2 in process 1"), "{e}");
        assert!(e.ends_with("but <process>"), "{e}");
        // As received: the setting is named as this process names it.
        let received = Settings::decode(&theirs.encode()).unwrap();
        let e = shown(ours.compare(&received, 0, 1).unwrap_err());
        assert!(e.contains("<workers> is 1 here but 2 in process 1"), "{e}");
        let e = shown(received.compare(&ours, 1, 0).unwrap_err());
        assert!(e.contains("workers is 2 here but 1 in process 0"), "{e}");
        // A setting only one side knows (another version) differs too.
        let more = ours.clone().with("a new setting", "x");
        let e = shown(ours.compare(&more, 0, 1).unwrap_err());
        assert!(e.contains("a new setting is not set here but x"), "{e}");
    }
}
