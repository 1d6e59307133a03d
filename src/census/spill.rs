//! Partition files: a worker's records on disk, split by key so that each
//! part can be grouped in memory on its own.
//!
//! Records are only ever appended, a whole epoch at a time, so the lengths of
//! the files after an epoch describe exactly the records of that epoch and the
//! ones before it: a checkpoint stores those lengths, and a resumed census
//! cuts the files back to them.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::census::checkpoint::{WorkDir, partition_name};
use crate::census::record::{RECORD_BYTES, Record, decode, encode};
use crate::error::Error;
use crate::work::dir::failed as io;
use crate::work::disk::Disk;

/// Which of `parts` partitions a key belongs to (the low bits of the key choose
/// the worker; these use the high bits).
#[inline]
pub fn partition_of(key: u64, parts: usize) -> usize {
    ((key >> 32) % parts as u64) as usize
}

/// One worker's partition files.
#[derive(Debug)]
pub struct Partitions {
    dir: WorkDir,
    names: Vec<String>,
    paths: Vec<PathBuf>,
    files: Vec<File>,
    lengths: Vec<u64>,
    buffers: Vec<Vec<Record>>,
    bytes: Vec<u8>,
    disk: Disk,
}

impl Partitions {
    /// Opens (creating them if needed) worker `worker`'s `parts` files in
    /// work directory `dir`, cut back to `lengths` (empty when starting
    /// afresh), written to `disk`.
    pub fn open(
        dir: &WorkDir,
        worker: usize,
        parts: usize,
        lengths: &[u64],
        disk: Disk,
    ) -> Result<Partitions, Error> {
        let mut out = Partitions {
            dir: dir.clone(),
            names: Vec::new(),
            paths: Vec::new(),
            files: Vec::new(),
            lengths: Vec::new(),
            buffers: vec![Vec::new(); parts],
            bytes: Vec::new(),
            disk,
        };
        for j in 0..parts {
            let name = partition_name(worker, j);
            let path = dir.path().join(&name);
            let file = dir
                .own()
                .open_or_create(&name)
                .map_err(io(&path, "open a partition file"))?;
            let want = lengths.get(j).copied().unwrap_or(0);
            let have = file.metadata().map_err(io(&path, "read"))?.len();
            if have < want {
                return Err(Error::invalid(format!(
                    "{}: the checkpoint expects {want} bytes but the file has {have} (changed by something else than bbx?); delete the census's work directory {} (bbx made it) to start again",
                    crate::files::shown(&path),
                    crate::files::shown(dir.path())
                )));
            }
            file.set_len(want).map_err(io(&path, "truncate"))?;
            out.names.push(name);
            out.paths.push(path);
            out.files.push(file);
            out.lengths.push(want);
        }
        Ok(out)
    }

    /// Number of partitions.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Appends records (one epoch's, or part of it) to their partitions.
    /// On an error some of them may have reached their files, past
    /// [`Partitions::lengths`]: the round they belong to must not be logged,
    /// and a resumed census cuts them off.
    pub fn append(&mut self, records: &[Record]) -> Result<(), Error> {
        let written = self.append_buffered(records);
        if written.is_err() {
            self.buffers.iter_mut().for_each(Vec::clear);
        }
        written
    }

    fn append_buffered(&mut self, records: &[Record]) -> Result<(), Error> {
        let parts = self.files.len();
        for &r in records {
            self.buffers[partition_of(r.0, parts)].push(r);
        }
        for j in 0..parts {
            if self.buffers[j].is_empty() {
                continue;
            }
            self.bytes.clear();
            encode(&self.buffers[j], &mut self.bytes);
            self.buffers[j].clear();
            let path = &self.paths[j];
            let file = &mut self.files[j];
            file.seek(SeekFrom::Start(self.lengths[j]))
                .map_err(io(path, "seek"))?;
            self.disk
                .write_all(file, self.lengths[j], &self.bytes)
                .map_err(io(path, "write records"))?;
            self.lengths[j] += self.bytes.len() as u64;
        }
        Ok(())
    }

    /// The lengths of the files, in bytes.
    pub fn lengths(&self) -> Vec<u64> {
        self.lengths.clone()
    }

    /// Makes what was written durable.
    pub fn sync(&self) -> Result<(), Error> {
        for (f, p) in self.files.iter().zip(&self.paths) {
            f.sync_data().map_err(io(p, "sync"))?;
        }
        Ok(())
    }

    /// The records of partition `j`.
    pub fn read(&mut self, j: usize) -> Result<Vec<Record>, Error> {
        let path = &self.paths[j];
        let file = &mut self.files[j];
        file.seek(SeekFrom::Start(0)).map_err(io(path, "seek"))?;
        // In slices, so that the bytes and the records are not both in memory.
        let count = self.lengths[j] as usize / RECORD_BYTES;
        let mut out = Vec::with_capacity(count);
        let mut bytes = vec![0u8; RECORD_BYTES << 16];
        let mut left = count * RECORD_BYTES;
        while left > 0 {
            let n = left.min(bytes.len());
            file.read_exact(&mut bytes[..n])
                .map_err(io(path, "read records"))?;
            out.extend(decode(&bytes[..n]));
            left -= n;
        }
        Ok(out)
    }

    /// Deletes the files.
    pub fn remove(&self) {
        for name in &self.names {
            let _ = self.dir.own().remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_cut_back_and_read() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = crate::census::checkpoint::tests::test_dir(scratch.path());
        let recs: Vec<Record> = (0..1000u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i))
            .collect();
        let mut p = Partitions::open(&dir, 0, 3, &[], Disk::real()).unwrap();
        p.append(&recs[..600]).unwrap();
        let at = p.lengths();
        p.append(&recs[600..]).unwrap();
        drop(p);
        // Cut back to the first 600 records, as a resume does.
        let mut p = Partitions::open(&dir, 0, 3, &at, Disk::real()).unwrap();
        let mut back: Vec<Record> = (0..3).flat_map(|j| p.read(j).unwrap()).collect();
        back.sort_unstable_by_key(|r| r.1);
        assert_eq!(back, recs[..600]);
        p.append(&recs[600..]).unwrap();
        let mut all: Vec<Record> = (0..3).flat_map(|j| p.read(j).unwrap()).collect();
        all.sort_unstable_by_key(|r| r.1);
        assert_eq!(all, recs);
        // A checkpoint asking for more than the file holds is refused.
        let mut more = p.lengths();
        more[0] += 16;
        drop(p);
        assert!(Partitions::open(&dir, 0, 3, &more, Disk::real()).is_err());
    }
}
