//! Checkpoints: how a killed census picks up where it stopped.
//!
//! Work is cut into *units* (ranges of molecule numbers) dealt to the workers
//! in *rounds*: in round r, worker w does unit r·workers + w. A round is a
//! timely epoch. When every record of round r has reached its partition file,
//! and the worker's own tracing of that round is counted, the worker appends
//! a line to its log: the round, its partition files' lengths and its tally.
//!
//! A census started again with the same settings finds the last round every
//! worker logged, cuts each worker's files back to that round's lengths, and
//! goes on from the next round. Files are only appended to, and a line is
//! written after the records it counts, so a kill at any moment leaves logs
//! that describe records present on disk.
//!
//! The work directory is one of [`crate::work::dir`]'s: bbx's own, made
//! inside the directory the user names with `--work-dir`, with a manifest
//! of the settings that decide the work ([`Manifest`]) and so of the files
//! the census makes: a census with other settings, or a directory holding
//! anything the manifest does not name, is refused, and nothing in it is
//! touched; when the census is done it removes exactly the files the
//! manifest names, then the directory if nothing else is in it.
//!
//! A write that fails (a full disk) stops the census and records nothing more:
//! a round is logged only after all its records reached their files, so the
//! same command run again, once there is space, resumes from the rounds that
//! really were written.
//!
//! After a failed write no round from the failed one on counts as written,
//! and a log whose write failed takes no more lines. A log is removed before
//! the files it names, so a census killed while cleaning up starts again;
//! files are removed only once every worker has grouped all of its partitions
//! (Ctrl-C stops grouping too), and a census whose groups are to be stored
//! keeps them until they are. The manifest records every setting that decides
//! the work, a verify's sample seed included: a seed drawn for a run gives way
//! to the recorded one, so the same command resumes (the processes of a verify
//! must then share a given seed: none is drawn for several). A census that
//! starts waits a second for its work directory's lock, which a census listing
//! unfinished work beside its own takes for an instant.

use crate::census::summary::Tally;
use crate::error::Error;
use crate::setting::{Piece, Setting, Text};
use crate::text;
use crate::work::cluster::Settings;
use crate::work::dir::{self, Log, read_lines};

/// The settings a work directory was made with: those that decide its
/// files and their content, which a resumed run must share.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Format of the directory.
    pub format: u32,
    /// The configuration.
    pub config: String,
    /// Symmetry reduction.
    pub symmetry: bool,
    /// Molecule numbers per unit.
    pub unit_size: u64,
    /// Workers in all processes.
    pub peers: usize,
    /// Processes.
    pub processes: usize,
    /// This process.
    pub process: usize,
    /// Partition files per worker.
    pub partitions: usize,
    /// The sink the groups are handed to, and its settings (see
    /// [`crate::census::sink`]); none for a plain census.
    pub sink: Option<SinkManifest>,
}

/// What a manifest records of a census's sink.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SinkManifest {
    /// What takes the groups (`verify`).
    pub name: String,
    /// Its own settings.
    pub settings: Settings,
    /// Unique spectra handed over, drawn at random.
    pub sample: u64,
    /// The seed of that draw.
    pub seed: u64,
    /// Whether this run drew the seed: the seed of the work resumed is
    /// then taken instead (not written to the manifest).
    #[serde(skip)]
    pub drawn: bool,
}

/// The current [`Manifest::format`]. It changes whenever what the files
/// hold does (format 2 keys the records by spectra written in
/// [`Outcome::code`](crate::rules::ray::Outcome::code)s; format 3 records
/// the sink's settings one by one and locks the directory itself), so that
/// a census never resumes the work of another format: it is refused as a
/// census of other settings.
pub const FORMAT: u32 = 3;

impl Manifest {
    /// The settings that decide the work and that every process of the
    /// census shares, each named, in the order a difference is looked for.
    pub fn shared(&self) -> Settings {
        let given = |on: bool| if on { "given" } else { "not given" };
        let settings = Settings::new()
            .with("the work directory format", self.format)
            .with("the configuration", &self.config)
            .with(Setting::NoSymmetry, given(!self.symmetry))
            .with(Setting::Processes, self.processes)
            .with(Setting::Workers, self.peers / self.processes.max(1))
            .with("the unit size", self.unit_size);
        match &self.sink {
            None => settings.with(HANDED_TO, "nothing"),
            Some(sink) => settings
                .with(HANDED_TO, &sink.name)
                .and(&sink.settings)
                .with(Setting::Sample, sink.sample)
                .with(Setting::Seed, sink.seed),
        }
    }

    /// This process's workers (their indices among all the processes').
    fn workers(&self) -> std::ops::Range<usize> {
        let each = self.peers / self.processes.max(1);
        self.process * each..(self.process + 1) * each
    }
}

impl dir::Manifest for Manifest {
    fn work(&self) -> &'static str {
        "census"
    }

    /// Every setting that decides this process's work: the
    /// [`shared`](Manifest::shared) ones, the process and its partition files.
    fn settings(&self) -> Settings {
        self.shared()
            .with(Setting::Process, self.process)
            .with(PARTITION_FILES, self.partitions)
    }

    /// Whether `name` is a file a census of this manifest makes in its work
    /// directory: the manifest, and for each of this process's workers its
    /// log, its sink's log (with a sink), each with the file that replaces
    /// it, and its partition files. Exactly those names, each written as
    /// the census writes it.
    fn made(&self, name: &str) -> bool {
        if name == dir::MANIFEST {
            return true;
        }
        let Some(rest) = name.strip_prefix("worker") else {
            return false;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(worker) = rest[..digits].parse::<usize>() else {
            return false;
        };
        if !self.workers().contains(&worker) {
            return false;
        }
        let expected = match &rest[digits..] {
            tail @ (".log" | ".log.tmp") => format!("worker{worker}{tail}"),
            tail @ (".sink" | ".sink.tmp") if self.sink.is_some() => {
                format!("worker{worker}{tail}")
            }
            tail => {
                let part = tail
                    .strip_prefix("-part")
                    .and_then(|t| t.strip_suffix(".records"))
                    .and_then(|j| j.parse::<usize>().ok());
                match part {
                    Some(j) if j < self.partitions => partition_name(worker, j),
                    _ => return false,
                }
            }
        };
        // Written as the census writes it: no leading zeros, no sign.
        expected == name
    }

    /// The logs: a worker's and its sink's.
    fn claims(&self, name: &str) -> bool {
        name.ends_with(".log") || name.ends_with(".sink")
    }

    /// A seed this run drew is the seed of the work resumed.
    fn adopt(&mut self, found: &Manifest) {
        if let Some(mine) = self.sink.as_mut() {
            if mine.drawn
                && let Some(theirs) = &found.sink
            {
                mine.seed = theirs.seed;
            }
            mine.drawn = false;
        }
    }

    fn decided_by(&self, setting: &Piece) -> Option<Text> {
        (*setting == Piece::Words(PARTITION_FILES.into()))
            .then(|| text![" (", Setting::Memory, " decides them)"])
    }
}

/// How the partition files a worker writes are named among the settings.
const PARTITION_FILES: &str = "the partition files a worker";

/// How the sink is named among the settings.
const HANDED_TO: &str = "what the groups are handed to";

/// The name of worker `worker`'s partition file `j`.
pub fn partition_name(worker: usize, j: usize) -> String {
    format!("worker{worker}-part{j}.records")
}

/// One log line: round `round` is done.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    /// The round.
    pub round: u64,
    /// The worker's partition file lengths after it.
    pub lengths: Vec<u64>,
    /// The worker's tally after it.
    pub tally: Tally,
}

/// A census's work directory, locked while a census uses it.
pub type WorkDir = dir::WorkDir<Manifest>;

/// Worker `worker`'s log.
fn log_name(worker: usize) -> String {
    format!("worker{worker}.log")
}

/// Worker `worker`'s sink's log.
fn sink_name(worker: usize) -> String {
    format!("worker{worker}.sink")
}

/// What a census does in its work directory: each worker's logs.
impl WorkDir {
    /// Worker `worker`'s log lines, in order (a torn last line is dropped).
    pub fn lines(&self, worker: usize) -> Vec<Line> {
        read_lines(self.reading(&log_name(worker)), |before: &[Line], l| {
            before.last().is_none_or(|p| p.round < l.round)
        })
    }

    /// Opens worker `worker`'s log for appending, keeping only `keep` (the
    /// lines up to the round the census resumes from).
    pub fn log(&self, worker: usize, keep: &[Line]) -> Result<Log<Line>, Error> {
        self.open_log(&log_name(worker), keep, "write the log", false)
    }

    /// Removes worker `worker`'s log (its sink's log first), so that the
    /// directory no longer claims its work: done before its partition files
    /// are removed, a census killed in between starts again instead of
    /// missing the files its log names.
    pub fn forget(&self, worker: usize) {
        let _ = self.own().remove(&sink_name(worker));
        let _ = self.own().remove(&log_name(worker));
    }

    /// What worker `worker`'s sink took in an earlier run, partition by
    /// partition, in order (a torn last line is dropped).
    pub fn sink_lines(&self, worker: usize) -> Vec<SinkLine> {
        read_lines(
            self.reading(&sink_name(worker)),
            |before: &[SinkLine], l| before.last().is_none_or(|p| p.partition < l.partition),
        )
    }

    /// Opens worker `worker`'s sink log for appending, keeping only `keep`;
    /// each line is made durable as it is written (it stands for a whole
    /// partition's checks, so it is worth a sync).
    pub fn sink_log(&self, worker: usize, keep: &[SinkLine]) -> Result<Log<SinkLine>, Error> {
        self.open_log(&sink_name(worker), keep, "write the sink's log", true)
    }
}

/// One line of a sink's log: what the sink took of a partition (or, at
/// `partition` = the number of partitions, of the sample of unique spectra).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SinkLine {
    /// The partition.
    pub partition: u64,
    /// What the sink logged of it ([`crate::census::sink::GroupSink::take_log`]).
    pub logged: serde_json::Value,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::work::dir::Manifest as _;

    use crate::work::disk::Disk;
    use std::io::Write;

    pub(super) fn manifest() -> Manifest {
        Manifest {
            format: FORMAT,
            config: "A4_B6".into(),
            symmetry: true,
            unit_size: 100,
            peers: 2,
            processes: 1,
            process: 0,
            partitions: 3,
            sink: None,
        }
    }

    /// A work directory `work` in `parent`, of a census of A4_B6 with 2 workers
    /// and 3 partition files each, for tests.
    pub(crate) fn test_dir(parent: &std::path::Path) -> WorkDir {
        WorkDir::open(parent, "work", manifest(), Disk::real()).unwrap()
    }

    #[test]
    fn logs_resume_at_the_common_round_and_settings_must_match() {
        let scratch = tempfile::tempdir().unwrap();
        let open = |m: Manifest| WorkDir::open(scratch.path(), "work", m, Disk::real());
        let dir = scratch.path().join("work");
        let w = open(manifest()).unwrap();
        assert!(!w.resumed);
        let mut log = w.log(0, &[]).unwrap();
        for round in 0..3 {
            log.append(&Line {
                round,
                lengths: vec![round * 16],
                tally: Tally::default(),
            })
            .unwrap();
        }
        // A torn last line (killed while writing) is dropped.
        drop(log);
        drop(w);
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("worker0.log"))
            .unwrap()
            .write_all(b"{\"round\":3,\"len")
            .unwrap();
        let w = open(manifest()).unwrap();
        assert!(w.resumed);
        // Locked while in use.
        let e = open(manifest()).unwrap_err().to_string();
        assert!(e.contains("another census"), "{e}");
        assert_eq!(w.lines(0).len(), 3);
        drop(w);
        let other = Manifest {
            peers: 4,
            ..manifest()
        };
        let e = open(other).unwrap_err().to_string();
        assert!(
            e.contains("the number of workers is 4 here but 2 in the work directory"),
            "{e}"
        );
        assert!(e.contains("same options"), "{e}");
        open(manifest()).unwrap().remove(true);
        assert!(!dir.exists());
    }

    #[test]
    fn a_drawn_seed_is_the_recorded_one_and_a_given_one_must_match() {
        let scratch = tempfile::tempdir().unwrap();
        let with_seed = |seed, drawn| Manifest {
            sink: Some(SinkManifest {
                name: "verify".into(),
                settings: Settings::new().with(Setting::Ambiguous, "not given"),
                sample: 100,
                seed,
                drawn,
            }),
            ..manifest()
        };
        let open =
            |seed, drawn| WorkDir::open(scratch.path(), "w", with_seed(seed, drawn), Disk::real());
        drop(open(7, true).unwrap());
        let again = open(3, true).unwrap();
        assert!(again.resumed);
        assert_eq!(again.manifest.sink.as_ref().unwrap().seed, 7);
        drop(again);
        let e = open(3, false).unwrap_err().to_string();
        assert!(
            e.contains("the seed is 3 here but 7 in the work directory"),
            "{e}"
        );
    }

    #[test]
    fn the_files_a_census_makes_are_exactly_those_its_manifest_names() {
        let m = manifest();
        for ours in [
            "manifest.json",
            "worker0.log",
            "worker1.log.tmp",
            "worker1-part2.records",
            "worker0-part0.records",
        ] {
            assert!(m.made(ours), "{ours}");
        }
        for theirs in [
            "notes.txt",
            "lock",
            "manifest.json.tmp",
            "worker.log",
            "workerA.log",
            "worker2.log",
            "worker7.log",
            "worker01.log",
            "worker+1.log",
            "worker0-part3.records",
            "worker0-part99.records",
            "worker0-part01.records",
            "worker1-part.records",
            "worker1.records",
            // No sink: no sink's log.
            "worker0.sink",
        ] {
            assert!(!m.made(theirs), "{theirs}");
        }
        // Process 1 of 2, one worker each: worker 1 alone.
        let p = Manifest {
            processes: 2,
            process: 1,
            ..manifest()
        };
        assert!(p.made("worker1.log") && !p.made("worker0.log"));
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_directory_is_refused_and_left_as_it_was() {
        let scratch = tempfile::tempdir().unwrap();
        let precious = scratch.path().join("precious");
        std::fs::write(&precious, "precious\n").unwrap();
        let dir = scratch.path().join("work");
        let open = || WorkDir::open(scratch.path(), "work", manifest(), Disk::real());
        // Made by this census, then a link put among its files.
        open().unwrap().log(0, &[]).unwrap();
        std::os::unix::fs::symlink(&precious, dir.join("worker1-part0.records")).unwrap();
        let e = open().unwrap_err().to_string();
        assert!(
            e.contains("'worker1-part0.records', which is not a regular file"),
            "{e}"
        );
        std::fs::remove_file(dir.join("worker1-part0.records")).unwrap();
        // A file it did not make.
        std::fs::write(dir.join("worker0.sink"), "x").unwrap();
        let e = open().unwrap_err().to_string();
        assert!(e.contains("'worker0.sink', which bbx did not make"), "{e}");
        assert!(dir.join("worker0.log").exists(), "nothing is touched");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    }

    #[test]
    fn a_finished_census_removes_only_what_its_manifest_names() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("work");
        let w = test_dir(scratch.path());
        let parts = crate::census::spill::Partitions::open(&w, 1, 3, &[], Disk::real()).unwrap();
        w.log(1, &[]).unwrap();
        // Put there while the census runs: files that only look like its own.
        for name in [
            "worker7.log",
            "worker0.sink",
            "worker0-part99.records",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        drop(parts);
        w.remove(true);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "notes.txt",
                "worker0-part99.records",
                "worker0.sink",
                "worker7.log"
            ]
        );
    }

    #[test]
    fn a_census_killed_while_cleaning_up_starts_again() {
        // A finished worker forgets its log before removing its partition
        // files: killed in between, the directory claims no round, and the
        // files are opened afresh instead of being missed.
        let scratch = tempfile::tempdir().unwrap();
        let w = test_dir(scratch.path());
        let mut parts =
            crate::census::spill::Partitions::open(&w, 0, 1, &[], Disk::real()).unwrap();
        parts.append(&[]).unwrap();
        let mut log = w.log(0, &[]).unwrap();
        log.append(&Line {
            round: 0,
            lengths: vec![64],
            tally: Tally::default(),
        })
        .unwrap();
        drop(log);
        w.forget(0);
        parts.remove();
        drop(parts);
        drop(w);
        let w = test_dir(scratch.path());
        assert!(w.lines(0).is_empty());
        crate::census::spill::Partitions::open(&w, 0, 1, &[], Disk::real()).unwrap();
        w.remove(true);
        assert!(!scratch.path().join("work").exists());
    }
}
