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
//! The work directory holds a manifest of the settings; a census with other
//! settings refuses to touch it. It is the census's own: bbx creates it (inside
//! the directory the user names with `--work-dir`, never as that directory),
//! writes only its own files in it, and when the census is done removes those
//! files and then the directory if nothing else was put in it.
//!
//! A write that fails (a full disk) stops the census and records nothing more:
//! a round is logged only after all its records reached their files, so the
//! same command run again, once there is space, resumes from the rounds that
//! really were written.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::census::summary::Tally;
use crate::error::Error;
use crate::setting::{Setting, Text};
use crate::text;

/// The settings a work directory was made with; a resume must match them.
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
    pub sink: Option<String>,
}

/// The current [`Manifest::format`]. It changes whenever what the files
/// hold does (format 2 keys the records by spectra written in
/// [`Outcome::code`](crate::rules::ray::Outcome::code)s), so that a census
/// never resumes the work of another format: it is refused as a census of
/// other settings.
pub const FORMAT: u32 = 2;

/// The most bytes of a manifest read (a real one is a few hundred).
const MANIFEST_LIMIT: u64 = 1 << 16;

/// Whether `name` is one of the files a census writes in its work directory.
fn is_census_file(name: &str) -> bool {
    let worker_file = |rest: &str| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let tail = &rest[digits..];
        digits > 0
            && (tail == ".log"
                || tail == ".log.tmp"
                || tail == ".sink"
                || tail == ".sink.tmp"
                || tail
                    .strip_prefix("-part")
                    .and_then(|t| t.strip_suffix(".records"))
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())))
    };
    matches!(name, "lock" | "manifest.json" | "manifest.json.tmp")
        || name.strip_prefix("worker").is_some_and(worker_file)
}

/// Where a census's partition files and logs are written: the disk itself,
/// or, for tests of a full disk, one that fills up after a number of bytes.
/// The fake disk behaves as a real one does: space is taken by 4 KiB blocks,
/// so a short write into a file's last block still succeeds when the disk is
/// full, and a write that needs more blocks than are free writes what fits,
/// then fails with [`std::io::ErrorKind::StorageFull`].
#[derive(Debug, Clone, Default)]
pub struct Disk {
    left: Option<Arc<AtomicU64>>,
}

/// The fake disk's block.
const BLOCK: u64 = 4096;

impl Disk {
    /// The disk itself.
    pub fn real() -> Disk {
        Disk::default()
    }

    /// A disk with `bytes` more bytes free, shared by every clone.
    pub fn filling_after(bytes: u64) -> Disk {
        Disk {
            left: Some(Arc::new(AtomicU64::new(bytes / BLOCK * BLOCK))),
        }
    }

    /// Writes all of `bytes` to `file` at its current position, which is
    /// `at`, or as much as fits and then fails as a full disk does.
    pub fn write_all(&self, file: &mut File, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        let Some(left) = &self.left else {
            return file.write_all(bytes);
        };
        let allocated = file.metadata()?.len().div_ceil(BLOCK) * BLOCK;
        let end = at + bytes.len() as u64;
        let need = (end.div_ceil(BLOCK) * BLOCK).saturating_sub(allocated);
        let granted = match left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
            Some(l - l.min(need))
        }) {
            Ok(before) | Err(before) => before.min(need),
        };
        if granted == need {
            return file.write_all(bytes);
        }
        let fits = (allocated + granted)
            .saturating_sub(at)
            .min(bytes.len() as u64);
        file.write_all(&bytes[..fits as usize])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "No space left on device (a full disk faked by the fail-writes-after fault)",
        ))
    }
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
#[derive(Debug, Clone)]
pub struct WorkDir {
    path: PathBuf,
    /// Whether it held an earlier run's work.
    pub resumed: bool,
    /// Where its files are written.
    disk: Disk,
    /// The lock (released when the last copy is dropped, or the process dies).
    _lock: std::sync::Arc<File>,
}

impl WorkDir {
    /// Opens (or creates) the work directory `path` for a census with these
    /// settings, its files written to `disk`. Refuses one made with other
    /// settings, and a directory holding files that are not a census's.
    pub fn open(path: &Path, manifest: &Manifest, disk: Disk) -> Result<WorkDir, Error> {
        let io = |what: &str, source: std::io::Error| failed(path, what)(source);
        // What is wrong with the directory, and the setting that chooses another.
        let another = |wrong: &str| {
            text![
                format!("{}: {wrong} give another ", path.display()),
                Setting::WorkDir
            ]
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| io("create the directory above", e))?;
        }
        match std::fs::create_dir(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if !path.is_dir() {
                    return Err(Error::invalid(another(
                        "not a directory, so not a census's work directory:",
                    )));
                }
                let entries =
                    std::fs::read_dir(path).map_err(|e| io("read the work directory", e))?;
                let foreign = entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .find(|name| !is_census_file(name));
                if let Some(name) = foreign {
                    return Err(Error::invalid(another(&format!(
                        "holds '{name}', which is not a census's file: bbx keeps its work apart from other files; move that file or"
                    ))));
                }
            }
            Err(e) => return Err(io("create the work directory", e)),
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path.join("lock"))
            .map_err(|e| io("create the lock file", e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::busy(another(
                    "another census is using this work directory; wait for it to finish, or",
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io("lock the work directory", e)),
        }
        let file = path.join("manifest.json");
        let mut resumed = false;
        let read = File::open(&file).and_then(|f| {
            let mut text = String::new();
            f.take(MANIFEST_LIMIT)
                .read_to_string(&mut text)
                .map(|_| text)
        });
        match read {
            Ok(text) => {
                let found: Option<Manifest> = serde_json::from_str(&text).ok();
                if found.as_ref() != Some(manifest) {
                    let mut message = Text::from(format!("{} holds ", path.display()));
                    match found {
                        Some(m) => {
                            message.push(format!("a census of {} (", m.config));
                            if m.symmetry {
                                message.push("symmetry-reduced");
                            } else {
                                message.push(Setting::NoSymmetry);
                            }
                            message.push(format!(
                                ", {} workers in {} processes, units of {})",
                                m.peers, m.processes, m.unit_size
                            ));
                        }
                        None => message.push("unreadable settings"),
                    }
                    return Err(Error::invalid(message.and(
                        ", not this one: run the census with the same options to resume it, or give another ",
                    ).and(Setting::WorkDir).and(
                        " (the directory is bbx's own: deleting it discards that census's work)",
                    )));
                }
                resumed = true;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let tmp = path.join("manifest.json.tmp");
                let text = serde_json::to_string_pretty(manifest)?;
                std::fs::write(&tmp, text).map_err(|e| io("write the manifest", e))?;
                std::fs::rename(&tmp, &file).map_err(|e| io("write the manifest", e))?;
            }
            Err(e) => return Err(io("read the manifest", e)),
        }
        Ok(WorkDir {
            path: path.to_path_buf(),
            resumed,
            disk,
            _lock: std::sync::Arc::new(lock),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where its files are written.
    pub fn disk(&self) -> &Disk {
        &self.disk
    }

    fn log_path(&self, worker: usize) -> PathBuf {
        self.path.join(format!("worker{worker}.log"))
    }

    /// Worker `worker`'s log lines, in order (a torn last line is dropped).
    pub fn lines(&self, worker: usize) -> Vec<Line> {
        read_log(&self.log_path(worker), |l: &Line| l.round)
    }

    /// Opens worker `worker`'s log for appending, keeping only `keep` (the
    /// lines up to the round the census resumes from).
    pub fn log(&self, worker: usize, keep: &[Line]) -> Result<Log<Line>, Error> {
        self.open_log(self.log_path(worker), keep, "write the log", false)
    }

    /// Rewrites the log at `path` to hold `keep` alone (through a file
    /// renamed over it, so that a kill leaves the old log or the new one)
    /// and opens it for appending (`what` it is, to say so when that
    /// fails); a `durable` log is made durable after each line.
    fn open_log<T: serde::Serialize>(
        &self,
        path: PathBuf,
        keep: &[T],
        what: &'static str,
        durable: bool,
    ) -> Result<Log<T>, Error> {
        // worker3.log.tmp, worker3.sink.tmp: names the census knows as its own.
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut text = String::new();
        for l in keep {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        let err = failed(&path, what);
        std::fs::write(&tmp, text).map_err(&err)?;
        std::fs::rename(&tmp, &path).map_err(&err)?;
        let file = OpenOptions::new().append(true).open(&path).map_err(&err)?;
        Ok(Log {
            file,
            path,
            what,
            durable,
            disk: self.disk.clone(),
            broken: false,
            lines: PhantomData,
        })
    }

    /// Removes worker `worker`'s log (its sink's log first), so that the
    /// directory no longer claims its work: done before its partition files
    /// are removed, a census killed in between starts again instead of
    /// missing the files its log names.
    pub fn forget(&self, worker: usize) {
        let _ = std::fs::remove_file(self.sink_path(worker));
        let _ = std::fs::remove_file(self.log_path(worker));
    }

    fn sink_path(&self, worker: usize) -> PathBuf {
        self.path.join(format!("worker{worker}.sink"))
    }

    /// What worker `worker`'s sink took in an earlier run, partition by
    /// partition, in order (a torn last line is dropped).
    pub fn sink_lines(&self, worker: usize) -> Vec<SinkLine> {
        read_log(&self.sink_path(worker), |l: &SinkLine| l.partition)
    }

    /// Opens worker `worker`'s sink log for appending, keeping only `keep`;
    /// each line is made durable as it is written (it stands for a whole
    /// partition's checks, so it is worth a sync).
    pub fn sink_log(&self, worker: usize, keep: &[SinkLine]) -> Result<Log<SinkLine>, Error> {
        self.open_log(self.sink_path(worker), keep, "write the sink's log", true)
    }

    /// Removes the census's files, the logs first (see [`WorkDir::forget`]),
    /// then the directory if nothing else is left in it: a file somebody
    /// else put there stays, and so does the directory holding it.
    pub fn remove(self) {
        let ours = |logs: bool| -> Vec<PathBuf> {
            std::fs::read_dir(&self.path)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| {
                            let name = e.file_name().to_string_lossy().into_owned();
                            is_census_file(&name)
                                && (name.ends_with(".log") || name.ends_with(".sink")) == logs
                        })
                        .map(|e| e.path())
                        .collect()
                })
                .unwrap_or_default()
        };
        for path in ours(true).into_iter().chain(ours(false)) {
            let _ = std::fs::remove_file(path);
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// The error of a file of the work directory at `path` that could not be
/// used for `what` ("write the log").
pub(crate) fn failed(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Error + use<> {
    let (path, what) = (path.display().to_string(), what.to_string());
    move |source| Error::WorkDir {
        path: path.clone(),
        what: what.clone(),
        source,
    }
}

/// A worker's log (of [`Line`]s) or its sink's (of [`SinkLine`]s), open
/// for appending.
#[derive(Debug)]
pub struct Log<T> {
    file: File,
    path: PathBuf,
    /// What writing it is, for errors.
    what: &'static str,
    /// Made durable after each line.
    durable: bool,
    disk: Disk,
    /// A write failed: the log may end in a torn line, and nothing more is
    /// appended to it.
    broken: bool,
    lines: PhantomData<T>,
}

impl<T: serde::Serialize> Log<T> {
    /// Appends a line. After a failed write the log takes no more lines: a
    /// line after a torn one would be lost on reading anyway, and the round
    /// it claims must then be done again.
    pub fn append(&mut self, line: &T) -> Result<(), Error> {
        let err = failed(&self.path, self.what);
        if self.broken {
            return Err(err(std::io::Error::other(
                "an earlier write to this log failed",
            )));
        }
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        let at = self.file.metadata().map_or(0, |m| m.len());
        let written = self.disk.write_all(&mut self.file, at, text.as_bytes());
        self.broken = written.is_err();
        written.map_err(err)?;
        if self.durable { self.sync() } else { Ok(()) }
    }

    /// Makes the log durable.
    pub fn sync(&self) -> Result<(), Error> {
        self.file
            .sync_data()
            .map_err(failed(&self.path, "write the log to the disk"))
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

/// The lines of the log at `path`, in order: JSON lines whose `order`
/// increases; reading stops at the first that does not read or does not
/// come after the one before (a torn last line, written while killed).
fn read_log<T: serde::de::DeserializeOwned>(path: &Path, order: impl Fn(&T) -> u64) -> Vec<T> {
    let Ok(f) = File::open(path) else {
        return Vec::new();
    };
    let mut out: Vec<T> = Vec::new();
    for l in BufReader::new(f).lines() {
        let Ok(l) = l else { break };
        let Ok(line) = serde_json::from_str::<T>(&l) else {
            break;
        };
        if out.last().is_some_and(|p| order(p) >= order(&line)) {
            break;
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest {
            format: FORMAT,
            config: "A4_B6".into(),
            symmetry: true,
            unit_size: 100,
            peers: 2,
            processes: 1,
            process: 0,
            partitions: 1,
            sink: None,
        }
    }

    #[test]
    fn logs_resume_at_the_common_round_and_settings_must_match() {
        let dir = std::env::temp_dir().join(format!("bbx-checkpoint-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let w = WorkDir::open(&dir, &manifest(), Disk::real()).unwrap();
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
        let w = WorkDir::open(&dir, &manifest(), Disk::real()).unwrap();
        assert!(w.resumed);
        // Locked while in use.
        let e = WorkDir::open(&dir, &manifest(), Disk::real())
            .unwrap_err()
            .to_string();
        assert!(e.contains("another census"), "{e}");
        assert_eq!(w.lines(0).len(), 3);
        drop(w);
        let other = Manifest {
            peers: 3,
            ..manifest()
        };
        let e = WorkDir::open(&dir, &other, Disk::real())
            .unwrap_err()
            .to_string();
        assert!(e.contains("same options"), "{e}");
        WorkDir::open(&dir, &manifest(), Disk::real())
            .unwrap()
            .remove();
        assert!(!dir.exists());
    }

    #[test]
    fn census_files_are_told_from_others() {
        for ours in [
            "lock",
            "manifest.json",
            "manifest.json.tmp",
            "worker0.log",
            "worker12.log.tmp",
            "worker3-part17.records",
            "worker2.sink",
            "worker2.sink.tmp",
        ] {
            assert!(is_census_file(ours), "{ours}");
        }
        for theirs in [
            "notes.txt",
            "worker.log",
            "workerA.log",
            "worker1-part.records",
            "worker1-partx.records",
            "worker1.records",
            "lock2",
        ] {
            assert!(!is_census_file(theirs), "{theirs}");
        }
    }

    #[test]
    fn a_full_fake_disk_fails_as_a_real_one_does() {
        let dir = std::env::temp_dir().join(format!("bbx-disk-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut file = File::create(&path).unwrap();
        let disk = Disk::filling_after(2 * BLOCK);
        disk.write_all(&mut file, 0, &[1; 100]).unwrap();
        // Within the block already taken: no new space needed.
        disk.write_all(&mut file, 100, &[2; 3000]).unwrap();
        // Crosses into the second block, then past it: what fits is written.
        let e = disk.write_all(&mut file, 3100, &[3; 6000]).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * BLOCK);
        // Full: a short write into the last block's slack would still pass,
        // but this one needs a block.
        assert!(disk.write_all(&mut file, 2 * BLOCK, &[4; 1]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_census_killed_while_cleaning_up_starts_again() {
        // A finished worker forgets its log before removing its partition
        // files: killed in between, the directory claims no round, and the
        // files are opened afresh instead of being missed.
        let dir = std::env::temp_dir().join(format!("bbx-cleanup-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let w = WorkDir::open(&dir, &manifest(), Disk::real()).unwrap();
        let mut parts =
            crate::census::spill::Partitions::open(&dir, 0, 1, &[], Disk::real()).unwrap();
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
        drop(w);
        let w = WorkDir::open(&dir, &manifest(), Disk::real()).unwrap();
        assert!(w.lines(0).is_empty());
        crate::census::spill::Partitions::open(&dir, 0, 1, &[], Disk::real()).unwrap();
        w.remove();
        assert!(!dir.exists());
    }
}
