//! Handing the census's groups over as they are formed: a per-worker sink.
//!
//! A census can hand every class of ambiguous spectra it forms, and a
//! uniform random sample of its unique spectra, to a [`GroupSink`] of each
//! worker's own (made by [`Sink::make`] on the worker's thread), instead of
//! (or as well as) counting them: nothing is stored, and a group is held
//! only while the sink takes it. `bbx verify` checks them against SAT this
//! way; the census knows nothing of what a sink does with them.
//!
//! A class of ambiguous spectra is handed over once, through its canonical
//! spectrum (the smallest of its images under the symmetries of the box), with
//! the molecules that have exactly that spectrum and how many spectra the
//! class holds ([`Group::spectra`]): a sink that counts in spectra weighs
//! the group by it, as the census's ambiguity table does.
//!
//! The unique spectra are sampled by *bottom-k*: each unique spectrum gets a
//! 64-bit hash of the sample's seed, its orbit's canonical molecule and its
//! place among that orbit's images (a unique spectrum belongs to exactly one
//! molecule, so a class of unique spectra has one spectrum per molecule of
//! the orbit), and the `size` spectra with the smallest hashes are the
//! sample. Each worker keeps its `size` smallest while grouping; the workers
//! agree on the `size`-th smallest of all, and each hands over its spectra up
//! to it. The sample is the same whatever the workers and processes, exact,
//! and takes `size` entries of memory per worker.
//!
//! What a sink takes is logged per partition ([`GroupSink::take_log`]), in
//! the worker's `.sink` file of the work directory: a census killed or
//! stopped and run again groups the logged partitions again for its counts
//! but hands over only the partitions (and the sample) not logged, and gives
//! the sink the logged lines back ([`GroupSink::restore`]).
//!
//! A sink's work directory is `bbx-NAME-CONFIG`, with the sink's settings
//! (the sample's size and seed among them) in its manifest, one by one; the
//! `.sink` file is removed before the worker's log.

use std::collections::BinaryHeap;
use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::rules::spectrum::Spectrum;
use crate::work::cluster::Settings;

/// A group handed over: a spectrum and the molecules that have it.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    /// The spectrum (the canonical one of its class, for an ambiguous
    /// class; the sampled one, for a unique spectrum).
    pub spectrum: &'a Spectrum,
    /// The numbers of the molecules whose spectrum it is, in order.
    pub molecules: &'a [u64],
    /// The spectra this group stands for: the class's spectra (1, 2, 4 or
    /// 8) for an ambiguous class, 1 for a sampled unique spectrum.
    pub spectra: u64,
}

/// What a worker hands its groups to.
pub trait GroupSink {
    /// Takes one group.
    fn group(&mut self, group: &Group<'_>) -> Result<(), Error>;
    /// What was taken since the last call (one partition, or the sample),
    /// for the census to log: given back by [`restore`](Self::restore) when
    /// the census resumes.
    fn take_log(&mut self) -> Result<serde_json::Value, Error>;
    /// Takes back what an earlier run logged, in the order it was logged.
    fn restore(&mut self, logged: serde_json::Value) -> Result<(), Error>;
    /// What this worker's sink has to say at the end (everything taken and
    /// restored), gathered at process 0 with every worker's.
    fn report(&mut self) -> Result<serde_json::Value, Error>;
}

/// Makes a worker's sink, given the worker's index.
pub type MakeSink = dyn Fn(usize) -> Result<Box<dyn GroupSink>, Error> + Send + Sync;

/// The seed of a random draw, and whether the user chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    /// Given by the user: work recorded with another seed is refused.
    Given(u64),
    /// Drawn for this run (no seed was given): work recorded with another
    /// seed resumes with that one, so that the same command resumes it.
    Drawn(u64),
}

impl Seed {
    /// The seed.
    pub fn value(self) -> u64 {
        match self {
            Seed::Given(s) | Seed::Drawn(s) => s,
        }
    }

    /// Whether it was drawn for this run.
    pub fn drawn(self) -> bool {
        matches!(self, Seed::Drawn(_))
    }
}

impl Default for Seed {
    fn default() -> Seed {
        Seed::Given(1)
    }
}

/// A census's sink: what it is, the sample of unique spectra it wants, and
/// how each worker makes its own.
#[derive(Clone)]
pub struct Sink {
    /// What takes the groups, naming the work directory (`bbx-NAME-CONFIG`).
    pub name: String,
    /// The sink's own settings, which every process and a resumed run must
    /// share (the census adds the sample's size and seed).
    pub settings: Settings,
    /// Unique spectra to hand over, drawn at random (0: none).
    pub sample: u64,
    /// The seed of that draw: a drawn one gives way to the seed of the work
    /// the census resumes.
    pub seed: Seed,
    /// Partitions a worker groups at least (at most [`crate::census::MAX_PARTITIONS`]):
    /// what a sink takes is logged a partition at a time, so a resumed
    /// census hands over again at most one partition per worker.
    pub partitions: usize,
    /// Makes worker i's sink, on the worker's thread.
    pub make: Arc<MakeSink>,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("name", &self.name)
            .field("settings", &self.settings)
            .field("sample", &self.sample)
            .field("seed", &self.seed)
            .field("partitions", &self.partitions)
            .finish_non_exhaustive()
    }
}

/// The hash that orders unique spectra for the sample: of the seed, the
/// canonical molecule of the spectrum's orbit, and the spectrum's place among
/// the orbit's images.
pub fn sample_hash(seed: u64, number: u64, image: u8) -> u64 {
    let mut bytes = [0u8; 9];
    bytes[..8].copy_from_slice(&number.to_le_bytes());
    bytes[8] = image;
    xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, seed)
}

/// One worker's part of the sample: its `size` unique spectra of smallest
/// hash, as (hash, canonical molecule, image).
#[derive(Debug, Clone)]
pub struct BottomK {
    size: usize,
    seed: u64,
    heap: BinaryHeap<(u64, u64, u8)>,
    /// Unique spectra offered.
    pub offered: u64,
}

impl BottomK {
    /// An empty sample of at most `size` spectra, drawn with `seed`.
    pub fn new(size: u64, seed: u64) -> BottomK {
        BottomK {
            size: usize::try_from(size).unwrap_or(usize::MAX),
            seed,
            heap: BinaryHeap::new(),
            offered: 0,
        }
    }

    /// Offers the unique spectra of an orbit: its canonical molecule and its
    /// size (the orbit's molecules, one spectrum each).
    pub fn offer(&mut self, number: u64, orbit_size: u8) {
        self.offered += u64::from(orbit_size);
        if self.size == 0 {
            return;
        }
        for image in 0..orbit_size {
            let h = sample_hash(self.seed, number, image);
            if self.heap.len() < self.size {
                self.heap.push((h, number, image));
            } else if self.heap.peek().is_some_and(|top| h < top.0) {
                self.heap.pop();
                self.heap.push((h, number, image));
            }
        }
    }

    /// The hashes kept, smallest first.
    pub fn hashes(&self) -> Vec<u64> {
        let mut h: Vec<u64> = self.heap.iter().map(|e| e.0).collect();
        h.sort_unstable();
        h
    }

    /// The spectra kept whose hash is at most `threshold`, smallest first,
    /// as (canonical molecule, image).
    pub fn upto(&self, threshold: u64) -> Vec<(u64, u8)> {
        let mut kept: Vec<(u64, u64, u8)> = self
            .heap
            .iter()
            .copied()
            .filter(|e| e.0 <= threshold)
            .collect();
        kept.sort_unstable();
        kept.into_iter().map(|(_, n, i)| (n, i)).collect()
    }
}

/// The `size`-th smallest of the hashes every worker kept (`u64::MAX` when
/// there are no more than `size`): the sample is every spectrum up to it.
pub fn threshold(mut hashes: Vec<u64>, size: u64) -> u64 {
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    if size == 0 {
        return 0;
    }
    if hashes.len() <= size {
        return u64::MAX;
    }
    *hashes.select_nth_unstable(size - 1).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_the_same_however_the_spectra_are_split() {
        let orbits: Vec<(u64, u8)> = (1..2000u64)
            .map(|n| (n * 7, [1, 2, 4, 8][n as usize % 4]))
            .collect();
        let size = 300;
        let mut one = BottomK::new(size, 5);
        for &(n, s) in &orbits {
            one.offer(n, s);
        }
        let all = one.upto(threshold(one.hashes(), size));
        assert_eq!(all.len() as u64, size);
        let mut parts: Vec<BottomK> = (0..3).map(|_| BottomK::new(size, 5)).collect();
        for (i, &(n, s)) in orbits.iter().enumerate() {
            parts[i % 3].offer(n, s);
        }
        let t = threshold(parts.iter().flat_map(BottomK::hashes).collect(), size);
        let mut split: Vec<(u64, u8)> = parts.iter().flat_map(|p| p.upto(t)).collect();
        let mut whole = all.clone();
        split.sort_unstable();
        whole.sort_unstable();
        assert_eq!(split, whole);
        assert_eq!(parts.iter().map(|p| p.offered).sum::<u64>(), one.offered);
        // Fewer spectra than asked: all of them.
        assert_eq!(threshold(vec![3, 1], 5), u64::MAX);
        // Another seed, another sample.
        let mut other = BottomK::new(size, 6);
        for &(n, s) in &orbits {
            other.offer(n, s);
        }
        assert_ne!(other.upto(threshold(other.hashes(), size)), all);
    }
}
