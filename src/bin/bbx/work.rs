//! The options of work shared out among processes and kept in a work
//! directory: a census's (`stats`, `verify`) and a shared search's
//! (`strategy --optimal`, `--bound`).

use std::path::{Path, PathBuf};

use bbx::work::cluster::{Cluster, MAX_WORKERS, PeerWatch};

use crate::cli::threads;
use crate::exit::{faults, interrupt, peer_watch};
use crate::values::parse_size;

/// The options of a census, shared by `stats` (which counts with one) and
/// `verify` (which streams one's groups to SAT).
#[derive(clap::Args)]
#[command(next_help_heading = "Census")]
pub struct CensusArgs {
    /// Worker threads per process [default: all cores]
    ///
    /// 1 to 256 (and at most 4096 in all processes), the same on every
    /// process; the default is at most 256.
    #[arg(long, short = 'w', value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of threads", 1, Some(MAX_WORKERS as u64)))]
    workers: Option<usize>,
    /// Processes in the census, 1 to 256
    ///
    /// One per machine, say: see --hostfile.
    #[arg(long, short = 'n', default_value_t = 1, value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of processes", 1, Some(bbx::work::cluster::MAX_PROCESSES as u64)))]
    processes: usize,
    /// This process, 0 to N-1
    ///
    /// Process 0 prints the result.
    #[arg(long, short = 'p', default_value_t = 0, value_name = "I", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a process number", 0, Some(bbx::work::cluster::MAX_PROCESSES as u64 - 1)))]
    process: usize,
    /// The processes' addresses, one HOST:PORT a line
    ///
    /// In process order, at most 1 MB [default: localhost:2101,
    /// localhost:2102, …].
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// The most memory the work may take (2G, 500M…)
    ///
    /// The census groups its records one partition at a time within it.
    #[arg(long, default_value = "2G", value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    memory: u64,
    /// Where to make the work directory [default: bbx in the user's cache]
    ///
    /// The census makes its work directory (bbx-census-CONFIG,
    /// bbx-verify-CONFIG for verify) for partition files and checkpoints in
    /// this directory, private to the user [default: bbx in the user's cache
    /// directory, such as ~/.cache/bbx]. bbx removes only the files it made.
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
}

/// Where a census makes its work directory when `--work-dir` is not given:
/// `bbx` in the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache` on
/// Linux, `~/Library/Caches` on macOS, the local application data on
/// Windows), never a directory other users share.
pub fn default_work_dir() -> bbx::Result<PathBuf> {
    dirs::cache_dir().map(|d| d.join("bbx")).ok_or_else(|| {
        bbx::Error::invalid(bbx::text![
            "this user has no cache directory to keep a census's work in (is HOME set?): give ",
            bbx::setting::Setting::WorkDir
        ])
    })
}

/// Tells the user, on standard error, of the unfinished work that other
/// censuses and verifies left (as [`bbx::census::unfinished`] finds it):
/// where, how big, and how to resume or discard it.
pub fn note_unfinished(found: Vec<bbx::census::Unfinished>) {
    for u in found {
        let command = match u.what.as_str() {
            "census" => "stats",
            other => other,
        };
        eprintln!(
            "note: {} holds the unfinished work of `bbx {command} {}` ({:.1} MB): the same command with the options it was started with resumes it; deleting that directory discards it",
            bbx::files::shown(&u.path),
            bbx::files::shown(&u.config),
            u.bytes as f64 / 1e6
        );
    }
}

impl CensusArgs {
    /// The threads and processes asked for (the threads of the library's
    /// other parallel work too).
    pub fn cluster(&self) -> bbx::Result<Cluster> {
        threads(self.workers)?;
        let (n, i, hosts) = (self.processes, self.process, self.hostfile.as_deref());
        let (dir, several) = (self.work_dir.as_deref(), "a census on several processes");
        cluster(self.workers, (n, i, hosts), dir, "census", several)
    }

    /// The census's options on `cluster`, stopped by Ctrl-C, with the
    /// faults a test injects; it works in `--work-dir` or
    /// [`default_work_dir`].
    pub fn options(&self, cluster: Cluster) -> bbx::Result<bbx::census::CensusOptions> {
        Ok(bbx::census::CensusOptions {
            budget: bbx::control::Budget::default()
                .with_memory(Some(self.memory))
                .with_cancel(interrupt())
                .with_faults(faults()?),
            work_dir: work_dir(self.work_dir.as_ref())?,
            peers: peers(&cluster),
            cluster,
            ..bbx::census::CensusOptions::default()
        })
    }
}

/// What a census on `cluster` stopped by Ctrl-C did, and how to resume it:
/// `stage` is what it was doing once every molecule was counted
/// ("grouping"), `kept` what its work directory keeps ("the work").
pub fn interrupted_census(
    done: &bbx::census::Census,
    cluster: &Cluster,
    stage: &str,
    kept: &str,
) -> String {
    let dir = bbx::files::shown(&done.work_dir);
    let kept = format!("{kept} is kept in {dir}: run the same command to resume");
    let (process, processes) = (cluster.process, cluster.processes);
    if !done.started {
        format!(
            "interrupted while waiting for the other processes of the census: nothing was counted in this run; {kept}"
        )
    } else if processes > 1 {
        // Each process's share is not known in advance: no "of" for it,
        // and no telling from the counts whether every molecule is counted.
        format!(
            "interrupted: {} counted by process {process} (of the {} that the {processes} processes share); {kept}",
            bbx::error::quantity(done.counted, "molecule", "molecules"),
            done.total,
        )
    } else if done.counted >= done.total {
        format!("interrupted while {stage}: every molecule is counted; {kept}")
    } else {
        format!(
            "interrupted: {} of {} molecules counted; {kept}",
            done.counted, done.total
        )
    }
}

/// The cluster of `workers` threads a process (all cores, at most 256, by
/// default) and `(processes, process, hostfile)`, once `--work-dir` (where
/// the `what` makes its own) and `--hostfile` (for `several`) are seen to
/// make sense.
fn cluster(
    workers: Option<usize>,
    (processes, process, hosts): (usize, usize, Option<&Path>),
    work_dir: Option<&Path>,
    what: &str,
    several: &str,
) -> bbx::Result<Cluster> {
    if let Some(dir) = work_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(bbx::Error::invalid(format!(
            "--work-dir {}: is a file, not a directory: give the directory in which the {what} makes its own",
            dir.display()
        )));
    }
    if let Some(hosts) = hosts
        && processes == 1
    {
        return Err(bbx::Error::invalid(format!(
            "--hostfile {}: a host file is for {several}: give --processes N too, or leave it out",
            hosts.display()
        )));
    }
    let all = || std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = workers.unwrap_or_else(|| all().min(MAX_WORKERS));
    Cluster::new(workers, processes, process, hosts)
}

/// `--work-dir`, or [`default_work_dir`].
fn work_dir(dir: Option<&PathBuf>) -> bbx::Result<PathBuf> {
    dir.map_or_else(default_work_dir, |dir| Ok(dir.clone()))
}

/// What a process of `cluster` learns of the others ([`peer_watch`]); a
/// lone process has none to learn of.
fn peers(cluster: &Cluster) -> PeerWatch {
    if cluster.processes > 1 {
        peer_watch()
    } else {
        PeerWatch::default()
    }
}

/// The options of a search shared out among processes and kept in a work
/// directory (`strategy --optimal` and `--bound`, of group `shared`).
#[derive(clap::Args)]
pub struct SharedArgs {
    /// With --optimal or --bound: processes sharing the search, 1 to 256
    ///
    /// One per machine, say: see --hostfile.
    #[arg(long, short = 'n', default_value_t = 1, value_name = "N", requires = "shared", hide_short_help = true, allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of processes", 1, Some(bbx::work::cluster::MAX_PROCESSES as u64)))]
    processes: usize,
    /// With --optimal or --bound: this process, 0 to N-1
    ///
    /// Process 0 prints the report.
    #[arg(long, short = 'p', default_value_t = 0, value_name = "I", requires = "shared", hide_short_help = true, allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a process number", 0, Some(bbx::work::cluster::MAX_PROCESSES as u64 - 1)))]
    process: usize,
    /// With --optimal or --bound: the processes' addresses, one HOST:PORT a line
    ///
    /// In process order, at most 1 MB [default: localhost:2101,
    /// localhost:2102, …].
    #[arg(long, value_name = "FILE", requires = "shared", hide_short_help = true)]
    hostfile: Option<PathBuf>,
    /// With --optimal or --bound: where to make the work directory [default: bbx in the user's cache]
    ///
    /// The search keeps the units it has done in a directory it makes in
    /// this one (bbx-optimum-CONFIG, bbx-bound-CONFIG), private to the user,
    /// and removes it once the search is done; bbx removes only the files
    /// it made.
    #[arg(long, value_name = "DIR", requires = "shared", hide_short_help = true)]
    work_dir: Option<PathBuf>,
}

impl SharedArgs {
    /// The cluster (of `workers` threads a process), work directory and
    /// panic watch of the search (whose own options the library fills in).
    pub fn options(
        &self,
        workers: Option<usize>,
    ) -> bbx::Result<bbx::assistant::bound::BoundOptions> {
        let (n, i, hosts) = (self.processes, self.process, self.hostfile.as_deref());
        let (dir, several) = (
            self.work_dir.as_deref(),
            "a search shared by several processes",
        );
        let cluster = cluster(workers, (n, i, hosts), dir, "search", several)?;
        Ok(bbx::assistant::bound::BoundOptions {
            search: bbx::assistant::optimal::OptimalOptions::default(),
            work_dir: work_dir(self.work_dir.as_ref())?,
            peers: peers(&cluster),
            cluster,
        })
    }
}
