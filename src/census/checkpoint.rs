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
//! settings refuses to touch it.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::census::summary::Tally;
use crate::error::Error;

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
}

/// The current [`Manifest::format`].
pub const FORMAT: u32 = 1;

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
    /// The lock (released when the last copy is dropped, or the process dies).
    _lock: std::sync::Arc<File>,
}

impl WorkDir {
    /// Opens (or creates) the work directory `path` for a census with these
    /// settings. Refuses one made with other settings.
    pub fn open(path: &Path, manifest: &Manifest) -> Result<WorkDir, Error> {
        let io = |what: &str, source: std::io::Error| Error::WorkDir {
            path: path.display().to_string(),
            what: what.to_string(),
            source,
        };
        std::fs::create_dir_all(path).map_err(|e| io("create the work directory", e))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path.join("lock"))
            .map_err(|e| io("create the lock file", e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Invalid(format!(
                    "{}: another census is using this work directory; wait for it to finish, or give another --work-dir",
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io("lock the work directory", e)),
        }
        let file = path.join("manifest.json");
        let mut resumed = false;
        match std::fs::read_to_string(&file) {
            Ok(text) => {
                let found: Option<Manifest> = serde_json::from_str(&text).ok();
                if found.as_ref() != Some(manifest) {
                    let what = found.map_or("unreadable settings".to_string(), |m| {
                        format!(
                            "a census of {} ({}, {} workers in {} processes, units of {})",
                            m.config,
                            if m.symmetry {
                                "symmetry-reduced"
                            } else {
                                "--no-symmetry"
                            },
                            m.peers,
                            m.processes,
                            m.unit_size
                        )
                    });
                    return Err(Error::Invalid(format!(
                        "{} holds {what}, not this one: run the census with the same options to resume it, or remove the directory (or give another --work-dir)",
                        path.display()
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
            _lock: std::sync::Arc::new(lock),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn log_path(&self, worker: usize) -> PathBuf {
        self.path.join(format!("worker{worker}.log"))
    }

    /// Worker `worker`'s log lines, in order (a torn last line is dropped).
    pub fn lines(&self, worker: usize) -> Vec<Line> {
        let Ok(f) = File::open(self.log_path(worker)) else {
            return Vec::new();
        };
        let mut out: Vec<Line> = Vec::new();
        for l in BufReader::new(f).lines() {
            let Ok(l) = l else { break };
            let Ok(line) = serde_json::from_str::<Line>(&l) else {
                break;
            };
            if out.last().is_some_and(|p| p.round >= line.round) {
                break;
            }
            out.push(line);
        }
        out
    }

    /// Opens worker `worker`'s log for appending, keeping only `keep` (the
    /// lines up to the round the census resumes from).
    pub fn log(&self, worker: usize, keep: &[Line]) -> Result<Log, Error> {
        let path = self.log_path(worker);
        let tmp = path.with_extension("log.tmp");
        let mut text = String::new();
        for l in keep {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        let err = |source: std::io::Error| Error::WorkDir {
            path: path.display().to_string(),
            what: "write the log".into(),
            source,
        };
        std::fs::write(&tmp, text).map_err(err)?;
        std::fs::rename(&tmp, &path).map_err(err)?;
        let file = OpenOptions::new().append(true).open(&path).map_err(err)?;
        Ok(Log { file, path })
    }

    /// Removes worker `worker`'s log, so that the directory no longer claims
    /// its work: done before its partition files are removed, a census killed
    /// in between starts again instead of missing the files its log names.
    pub fn forget(&self, worker: usize) {
        let _ = std::fs::remove_file(self.log_path(worker));
    }

    /// Removes the directory and everything in it, the logs first (see
    /// [`WorkDir::forget`]).
    pub fn remove(self) {
        if let Ok(entries) = std::fs::read_dir(&self.path) {
            for entry in entries.flatten() {
                if entry.path().extension().is_some_and(|e| e == "log") {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A worker's log, open for appending.
#[derive(Debug)]
pub struct Log {
    file: File,
    path: PathBuf,
}

impl Log {
    /// Appends a line.
    pub fn append(&mut self, line: &Line) -> Result<(), Error> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .map_err(|source| Error::WorkDir {
                path: self.path.display().to_string(),
                what: "write the log".into(),
                source,
            })
    }

    /// Makes the log durable.
    pub fn sync(&self) -> Result<(), Error> {
        self.file.sync_data().map_err(|source| Error::WorkDir {
            path: self.path.display().to_string(),
            what: "write the log to the disk".into(),
            source,
        })
    }
}

/// The round every worker finished, from each worker's last logged round
/// (`None`: a worker logged nothing).
pub fn common_round(last: impl IntoIterator<Item = Option<u64>>) -> Option<u64> {
    let mut out: Option<Option<u64>> = None;
    for l in last {
        out = Some(match out {
            None => l,
            Some(o) => o.min(l),
        });
    }
    out.flatten()
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
        }
    }

    #[test]
    fn logs_resume_at_the_common_round_and_settings_must_match() {
        let dir = std::env::temp_dir().join(format!("bbx-checkpoint-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let w = WorkDir::open(&dir, &manifest()).unwrap();
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
        let w = WorkDir::open(&dir, &manifest()).unwrap();
        assert!(w.resumed);
        // Locked while in use.
        let e = WorkDir::open(&dir, &manifest()).unwrap_err().to_string();
        assert!(e.contains("another census"), "{e}");
        let lines = w.lines(0);
        assert_eq!(lines.len(), 3);
        assert_eq!(
            common_round([lines.last().map(|l| l.round), Some(1)]),
            Some(1)
        );
        assert_eq!(common_round([Some(2), None]), None);
        drop(w);
        let other = Manifest {
            peers: 3,
            ..manifest()
        };
        let e = WorkDir::open(&dir, &other).unwrap_err().to_string();
        assert!(e.contains("same options"), "{e}");
        WorkDir::open(&dir, &manifest()).unwrap().remove();
        assert!(!dir.exists());
    }

    #[test]
    fn a_census_killed_while_cleaning_up_starts_again() {
        // A finished worker forgets its log before removing its partition
        // files: killed in between, the directory claims no round, and the
        // files are opened afresh instead of being missed.
        let dir = std::env::temp_dir().join(format!("bbx-cleanup-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let w = WorkDir::open(&dir, &manifest()).unwrap();
        let mut parts = crate::census::spill::Partitions::open(&dir, 0, 1, &[]).unwrap();
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
        let w = WorkDir::open(&dir, &manifest()).unwrap();
        assert!(w.lines(0).is_empty());
        crate::census::spill::Partitions::open(&dir, 0, 1, &[]).unwrap();
        w.remove();
        assert!(!dir.exists());
    }
}
