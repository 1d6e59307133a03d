//! The best strategy of a configuration, exactly, by exhaustive search.
//!
//! The game is the one [`super::strategy`] plays (the hidden molecule chosen
//! uniformly, one end of an exit pair shows the other), and a position is
//! the set of molecules that still fit: a ray already shot gives the same
//! result on all of them, so what was shot adds nothing. Two measures:
//!
//! - **rays**: the seeker shoots until no ray tells the molecules left
//!   apart; T(S) = 0 when no ray splits S, else the least over the rays q
//!   that split it of |S| + Σ T(S_o) over q's outcomes o;
//! - **score** (the original game's): the seeker may stop at any moment and
//!   place the atoms on the cells most often holding one, paying 5 per
//!   hidden atom missed; V(S) = the least of that penalty and, over the rays
//!   q that split S, Σ (|S_o| × cost(o) + V(S_o)), cost 1 for a ray absorbed
//!   or reflected and 2 for a ray that comes out.
//!
//! Both are totals over the molecules of S, integers (the mean is the total
//! over the configuration's molecules). The search is memoised on the set,
//! under the eight symmetries of the square (a set and its mirror images
//! share one entry: the key is the least, over the symmetries, of a sum of
//! 128-bit random words, one per molecule of the image), and cut by bounds:
//! each set's lower bound (for rays, the b-ary Huffman code of its spectrum
//! classes, b the most outcomes a ray has on it, since every strategy is a
//! b-ary tree whose leaves are those classes; for score, the least of the
//! penalty now and one ray per molecule plus 5 per molecule that shares its
//! spectrum with another), and the best value found so far: a ray whose
//! outcomes cannot beat it is dropped as soon as that is proven. Rays are
//! tried in the greedy order (Σ size², ties the lowest ray), so the first
//! one found is usually good.
//!
//! Memory: the memo is bounded; when it is full, half its sets (drawn by
//! their random keys) are forgotten (counted in
//! [`Optimum::sets_forgotten`]), which only slows the search, never changes
//! its answer. Time: the budget's deadline and token.
//!
//! The memo holds exact values and lower bounds alike, each under a key
//! marked with the depth it holds for, so that the same search with a depth
//! limit proves a lower bound and a value cut at one depth never stands for
//! another's. The keys of a table's sets (`SetKeys`) are built once and
//! shared by the searches that run side by side.
//!
//! ```
//! use bbx::assistant::optimal::{optimum, OptimalOptions};
//! let o = optimum("A1_B3".parse().unwrap(), &OptimalOptions::default()).unwrap();
//! assert_eq!(o.molecules, 9);
//! assert!(o.rays_total.is_some() && o.score_total.is_some());
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::assistant::spectrum_table::Spectra;
use crate::control::{Budget, Cut, Ended, Finished, Instant, Ticker};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::Numbering;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::score::{MISSED_ATOM_PENALTY, ray_cost};
use crate::rules::symmetry::Transform;

/// Bytes a slot of the memo takes (a 128-bit key aligned on 16 bytes, a
/// 64-bit value, and a control byte).
const SLOT_BYTES: u64 = 33;

/// The most sets the memo may hold within `memory` bytes: its table has a
/// power of two slots, 7/8 of them used at most, and while it grows the old
/// table (half the size) is still there, so at most `memory` / 1.5 bytes of
/// table.
pub fn memo_capacity(memory: u64) -> usize {
    let slots = (memory.saturating_mul(2) / 3 / SLOT_BYTES).max(16);
    let slots = 1u64 << (63 - slots.leading_zeros());
    (slots / 8 * 7) as usize
}

/// The default memory bound of the memo.
pub const MEMO_MEMORY: u64 = 1 << 30;

/// What the exhaustive search may use: the budget's deadline and token stop
/// it, and its memory bound ([`MEMO_MEMORY`] when it gives none) bounds the
/// memo, and, apart, the spectra held (see
/// [`StrategyOptions`](crate::assistant::strategy::StrategyOptions)); its
/// faults may stop it after a number of sets, as the time limit would
/// (`stop-after`).
#[derive(Debug, Clone, Default)]
pub struct OptimalOptions {
    /// The ray rules.
    pub rules: Rules,
    /// The deadline, token, memory bound and faults.
    pub budget: Budget,
    /// How many rays deep [`lower_bound`] searches every strategy (0: not
    /// at all, the bound is the hitting and Huffman bounds alone).
    pub depth: u32,
    /// Sets of at most this many molecules are searched to the end past
    /// that depth (their optimum stands for their bound).
    pub small: usize,
}

/// The best strategy's value for each measure, as far as the search got.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Optimum {
    /// Molecules of the configuration (the games).
    pub molecules: u64,
    /// The fewest rays, all games together (mean = total / molecules);
    /// `None` when the search stopped short.
    pub rays_total: Option<u64>,
    /// The mean of the fewest rays.
    pub rays_mean: Option<f64>,
    /// A best first ray for the rays measure (the first found in the greedy
    /// order); `None` when no ray tells the molecules apart.
    pub rays_first: Option<usize>,
    /// The lowest score, all games together; `None` when the search stopped
    /// short (or before, on the rays).
    pub score_total: Option<u64>,
    /// The mean of the lowest score.
    pub score_mean: Option<f64>,
    /// A best first ray for the score; `None` when placing the atoms at
    /// once is best.
    pub score_first: Option<usize>,
    /// The fewest rays that always suffice (the longest game of the
    /// strategy best for it); `None` when the search stopped short.
    pub minimax: Option<u64>,
    /// The games of the best strategy for the rays (the tree of
    /// [`Optimum::rays_tree`]): their distribution and luck.
    pub rays_games: Option<Games>,
    /// The games of the best strategy for the score.
    pub score_games: Option<Games>,
    /// The best strategy for the rays, as a decision tree (not in the
    /// report's JSON: `bbx strategy --tree` writes it to a file).
    #[serde(skip)]
    pub rays_tree: Option<Tree>,
    /// The best strategy for the score, as a decision tree.
    #[serde(skip)]
    pub score_tree: Option<Tree>,
    /// Sets of molecules searched (both measures).
    pub sets_searched: u64,
    /// Sets remembered in the memo at the end (both measures).
    pub sets_remembered: u64,
    /// Sets forgotten because the memo was full (the memory bound): half of
    /// them each time.
    pub sets_forgotten: u64,
    /// The units the search was cut into (0: searched whole, by one
    /// searcher; see `optimum_units`).
    pub units: u64,
    /// Units found done in a work directory rather than searched in this
    /// run.
    pub units_resumed: u64,
    /// The upper bound of the fewest rays the search in units started
    /// from (a policy's total); `None` when searched whole.
    pub rays_seed: Option<u64>,
    /// The upper bound of the lowest score it started from.
    pub score_seed: Option<u64>,
    /// How the search ended: in JSON `stopped`, `null` when complete, else
    /// `time_limit` or `interrupted`.
    #[serde(rename = "stopped", serialize_with = "stopped")]
    pub ended: Ended,
    /// Seconds taken.
    pub seconds: f64,
}

/// The measure searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    /// The fewest rays.
    Rays,
    /// The lowest score.
    Score,
}

impl Measure {
    #[cfg_attr(not(feature = "census"), allow(dead_code))]
    /// What `size` molecules pay for a ray whose outcome has code `code`.
    pub(crate) fn weight(self, size: u64, code: usize) -> u64 {
        match self {
            Measure::Rays => size,
            Measure::Score => size * ray_cost(Outcome::from_code(code)),
        }
    }
}

/// A lower bound whose search stopped before it was found: what stopped
/// it, and how far it got (the units done are kept for the same search to
/// resume).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BoundStopped {
    /// What stopped it: in JSON `"time_limit"`, `"interrupted"`, or
    /// another [`Ended`].
    #[serde(serialize_with = "stopped")]
    pub stopped: Ended,
    /// The units the search was cut into (0 when it stopped before they
    /// were known).
    pub units: u64,
    /// This process's share of them.
    pub units_share: u64,
    /// This process's units done, kept in the work directory.
    pub units_done: u64,
    /// The work directory that keeps them, as shown to the user; `None`
    /// when nothing was written.
    pub work_dir: Option<String>,
}

/// [`Optimum::ended`] as the JSON names it.
fn stopped<S: serde::Serializer>(ended: &Ended, s: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    match ended {
        Ended::Complete => s.serialize_none(),
        Ended::TimedOut => s.serialize_str("time_limit"),
        Ended::Cancelled => s.serialize_str("interrupted"),
        other => other.serialize(s),
    }
}

/// Hashes a key that is already a random 128-bit word: its low 64 bits.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, k: u128) {
        self.0 = k as u64;
    }
}

/// A memo entry's low bit: the value is exact (else a lower bound).
const EXACT: u64 = 1;

/// A memo key's mark for a value cut at a depth (times the depth plus one;
/// see [`Search::key_at`]).
const DEPTH_MARK: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835;

/// What a set's key is made of, for every search of one configuration's
/// spectra: each molecule's spectrum class, its images under the
/// symmetries and its random word. Built once and shared by the searches
/// that work side by side.
pub(crate) struct SetKeys {
    /// Per molecule, the number of its spectrum class.
    class: Vec<u32>,
    /// Per molecule, the number (from 0) of its image under each symmetry.
    images: Vec<[u32; 8]>,
    /// Per molecule, its random word.
    words: Vec<u128>,
}

impl SetKeys {
    /// The keys of `t`'s molecules: a molecule's word is drawn from its
    /// number in its configuration, so that a table of some of the
    /// configuration's molecules ([`Spectra::of_molecules`]) keys its sets
    /// as the whole configuration's would. In a configuration too large to
    /// number, each molecule is its own image.
    pub(crate) fn new(t: &Spectra) -> SetKeys {
        let n = t.count;
        let config = t.config;
        let (class, _) = t.classes();
        let word = |number: u64| {
            xxhash_rust::xxh3::xxh3_128_with_seed(&number.to_le_bytes(), 0x6262_7820_6f70_7431)
        };
        let Some(numbering) = Numbering::new(config) else {
            return SetKeys {
                class,
                images: (0..n as u32).map(|m| [m; 8]).collect(),
                words: (0..n as u64).map(word).collect(),
            };
        };
        // The whole configuration: an image's index is its number (from
        // 0); otherwise the images met are given indices in turn.
        let whole = config.molecule_count() == Some(n as u64);
        let mut index: HashMap<u64, u32> = HashMap::new();
        let mut numbers: Vec<u64> = Vec::new();
        let mut images = vec![[0u32; 8]; n];
        let mut cells: Vec<usize> = Vec::with_capacity(config.atoms);
        for (m, w) in images.iter_mut().enumerate() {
            for (i, tr) in Transform::slots(config.shape()).iter().enumerate() {
                cells.clear();
                cells.extend(
                    t.atoms(m as u32)
                        .iter()
                        .map(|&a| tr.cell(config.shape(), a as usize)),
                );
                cells.sort_unstable();
                let number = numbering.rank(&cells) - 1;
                w[i] = if whole {
                    number as u32
                } else {
                    *index.entry(number).or_insert_with(|| {
                        numbers.push(number);
                        (numbers.len() - 1) as u32
                    })
                };
            }
        }
        let words = if whole {
            (0..n as u64).map(word).collect()
        } else {
            numbers.into_iter().map(word).collect()
        };
        SetKeys {
            class,
            images,
            words,
        }
    }
}

/// A memo's table: each set's value under its key (shifted left, its low
/// bit [`EXACT`]).
type Table = HashMap<u128, u64, BuildHasherDefault<KeyHasher>>;

/// Remembers in `memo` (at most `capacity` sets) that the set of `key` is
/// worth `value`, exactly or at least: a lower bound never replaces an
/// exact value nor a higher bound. When the table is full, half its sets
/// are forgotten, those whose random key has a bit set (the bit turns each
/// time, `halvings` counting), so that it never grows past its bound and
/// the sets of the search's current part find room (`forgotten` counts
/// them).
fn remember_in(
    memo: &mut Table,
    capacity: usize,
    halvings: &mut u32,
    forgotten: &mut u64,
    (key, value, exact): (u128, u64, bool),
) {
    let entry = (value << 1) | if exact { EXACT } else { 0 };
    if let Some(old) = memo.get_mut(&key) {
        if *old & EXACT == 0 && (exact || value > *old >> 1) {
            *old = entry;
        }
        return;
    }
    if memo.len() >= capacity {
        let before = memo.len();
        let bit = 1u128 << (64 + *halvings % 64);
        *halvings += 1;
        memo.retain(|k, _| k & bit == 0);
        *forgotten += (before - memo.len()) as u64;
    }
    memo.insert(key, entry);
}

/// A memo shared by the searches of one process's workers (each set
/// searched by one is found by the others), in shards locked one at a
/// time, within a memory bound as a search's own memo is.
pub(crate) struct SharedMemo {
    shards: Vec<std::sync::Mutex<Shard>>,
}

/// A shard of a [`SharedMemo`].
struct Shard {
    table: Table,
    capacity: usize,
    halvings: u32,
    forgotten: u64,
}

/// The shards of a [`SharedMemo`] (a power of two).
const SHARDS: usize = 64;

#[cfg_attr(not(feature = "census"), allow(dead_code))]
impl SharedMemo {
    /// A shared memo within `memory` bytes.
    pub(crate) fn new(memory: u64) -> SharedMemo {
        let each = memo_capacity(memory / SHARDS as u64).max(16);
        SharedMemo {
            shards: (0..SHARDS)
                .map(|_| {
                    std::sync::Mutex::new(Shard {
                        table: Table::default(),
                        capacity: each,
                        halvings: 0,
                        forgotten: 0,
                    })
                })
                .collect(),
        }
    }

    /// The shard of `key` (by bits the table's hash and the halvings do
    /// not use).
    fn shard(&self, key: u128) -> std::sync::MutexGuard<'_, Shard> {
        let i = (key >> 122) as usize & (SHARDS - 1);
        // A shard is never left half-changed: a poisoned lock still holds
        // a whole table.
        self.shards[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn recall(&self, key: u128) -> Option<u64> {
        self.shard(key).table.get(&key).copied()
    }

    fn remember(&self, key: u128, value: u64, exact: bool) {
        let mut shard = self.shard(key);
        let Shard {
            table,
            capacity,
            halvings,
            forgotten,
        } = &mut *shard;
        remember_in(table, *capacity, halvings, forgotten, (key, value, exact));
    }

    /// Sets it holds, and sets forgotten because a shard was full.
    pub(crate) fn stats(&self) -> (u64, u64) {
        self.shards.iter().fold((0, 0), |(held, forgot), s| {
            let s = s.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            (held + s.table.len() as u64, forgot + s.forgotten)
        })
    }
}

/// The exhaustive search over one configuration's spectra.
struct Search<'a> {
    t: &'a Spectra,
    /// The budget, asked every 256 sets.
    ticker: Ticker<'a>,
    /// Stop (as the deadline would) after this many sets: a fault.
    stop_after: Option<u64>,
    measure: Measure,
    /// The molecules' classes, images and words.
    keys: Arc<SetKeys>,
    /// Sets of at most this many molecules are searched to the end even
    /// past the depth limit of [`Search::value`].
    small: usize,
    memo: Table,
    /// The memo shared with other searches, used instead of `memo` when
    /// there is one.
    shared: Option<Arc<SharedMemo>>,
    /// The most entries in the memo.
    capacity: usize,
    forgotten: u64,
    /// Times the memo was full.
    halvings: u32,
    nodes: u64,
    /// A best first ray of the root.
    first: Option<usize>,
    /// Scratch: class numbers of a set.
    scratch: Vec<u32>,
    /// Scratch: the leaves and merged nodes of a Huffman tree (the leaves
    /// also hold a set's classes as ray dominance weighs them).
    leaves: Vec<u64>,
    merged: Vec<u64>,
    /// Scratch: the outcome of each ray on each class of a set.
    rows: Vec<u8>,
    #[cfg_attr(not(feature = "census"), allow(dead_code))]
    /// Scratch: every ray's outcome counts on a set.
    rows_counts: Vec<u64>,
    /// Working vectors of [`Search::value`], one set per level of its
    /// recursion, kept for the next set searched at that level.
    frames: Vec<Frame>,
}

/// The working vectors of one set searched by [`Search::value`].
#[derive(Default)]
struct Frame {
    /// The rays that split the set: (Σ size², ray).
    splits: Vec<(u64, usize)>,
    /// Molecules per outcome of a ray.
    counts: Vec<u64>,
    /// How each ray splits the set: (Σ size², outcomes).
    rays: Vec<(u64, u32)>,
    /// The set split by a ray, and where each outcome's part starts.
    part: Vec<u32>,
    starts: Vec<usize>,
    /// A ray's outcomes: their part's range and least value.
    children: Vec<(usize, usize, u64)>,
}

impl<'a> Search<'a> {
    /// A search of `t` within `options`, with keys of its own.
    fn new(t: &'a Spectra, options: &'a OptimalOptions) -> Search<'a> {
        Search::with_keys(
            t,
            &options.budget,
            options.budget.faults.stop_after,
            Arc::new(SetKeys::new(t)),
        )
    }

    /// A search of `t` within `budget` (its memo within the budget's
    /// memory bound, or [`MEMO_MEMORY`]), with shared `keys`.
    fn with_keys(
        t: &'a Spectra,
        budget: &'a Budget,
        stop_after: Option<u64>,
        keys: Arc<SetKeys>,
    ) -> Search<'a> {
        Search {
            t,
            ticker: budget.ticker(256),
            stop_after,
            measure: Measure::Rays,
            keys,
            small: 0,
            memo: HashMap::default(),
            shared: None,
            capacity: memo_capacity(budget.memory_or(MEMO_MEMORY)),
            forgotten: 0,
            halvings: 0,
            nodes: 0,
            first: None,
            scratch: Vec::new(),
            leaves: Vec::new(),
            merged: Vec::new(),
            rows: Vec::new(),
            rows_counts: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Counts a node; true once the search must stop.
    fn must_stop(&mut self) -> bool {
        self.nodes += 1;
        if self.stop_after.is_some_and(|s| self.nodes > s) {
            self.ticker.stop(Cut::TimedOut);
        }
        self.ticker.tick().is_err()
    }

    /// The set's key, the same for its images under the symmetries.
    fn key(&self, set: &[u32]) -> u128 {
        let mut sums = [0u128; 8];
        for &m in set {
            for (s, &i) in sums.iter_mut().zip(&self.keys.images[m as usize]) {
                *s = s.wrapping_add(self.keys.words[i as usize]);
            }
        }
        // The measure is part of the key: both searches share the memo.
        let min = sums.iter().copied().min().unwrap_or(0);
        match self.measure {
            Measure::Rays => min,
            Measure::Score => min ^ 0x5c0e_5c0e_5c0e_5c0e_5c0e_5c0e_5c0e_5c0e,
        }
    }

    fn remember(&mut self, key: u128, value: u64, exact: bool) {
        match &self.shared {
            Some(shared) => shared.remember(key, value, exact),
            None => remember_in(
                &mut self.memo,
                self.capacity,
                &mut self.halvings,
                &mut self.forgotten,
                (key, value, exact),
            ),
        }
    }

    /// What the memo holds of `key`.
    fn recall(&self, key: u128) -> Option<u64> {
        match &self.shared {
            Some(shared) => shared.recall(key),
            None => self.memo.get(&key).copied(),
        }
    }

    /// The sizes of the spectrum classes of `set`, into `sizes`.
    fn class_sizes_into(&mut self, set: &[u32], sizes: &mut Vec<u64>) {
        self.scratch.clear();
        self.scratch
            .extend(set.iter().map(|&m| self.keys.class[m as usize]));
        self.scratch.sort_unstable();
        sizes.clear();
        let mut i = 0;
        while i < self.scratch.len() {
            let j = i + self.scratch[i..]
                .iter()
                .take_while(|&&c| c == self.scratch[i])
                .count();
            sizes.push((j - i) as u64);
            i = j;
        }
    }

    /// The sizes of the spectrum classes of `set`.
    fn class_sizes(&mut self, set: &[u32]) -> Vec<u64> {
        let mut sizes = Vec::new();
        self.class_sizes_into(set, &mut sizes);
        sizes
    }

    /// The Huffman bound of `set` ([`huffman`] of its class sizes, at most
    /// `b` branches), in the search's scratch vectors.
    fn huffman_of(&mut self, set: &[u32], b: usize) -> u64 {
        let mut leaves = std::mem::take(&mut self.leaves);
        self.class_sizes_into(set, &mut leaves);
        let v = huffman_in(&mut leaves, b, &mut self.merged);
        self.leaves = leaves;
        v
    }

    /// Whether every molecule of `set` has the same spectrum.
    fn one_class(&self, set: &[u32]) -> bool {
        set.iter()
            .all(|&m| self.keys.class[m as usize] == self.keys.class[set[0] as usize])
    }

    /// The key of `set` searched `depth` more rays deep: the set's key
    /// ([`Search::key`]) marked with the depth, so that a value cut at one
    /// depth never stands for another's. A set of at most `small`
    /// molecules, or one searched without a limit, has its optimum at every
    /// depth: its key is the plain one.
    fn key_at(&self, set: &[u32], depth: u32) -> u128 {
        let key = self.key(set);
        if depth == u32::MAX || set.len() <= self.small {
            key
        } else {
            key ^ (u128::from(depth) + 1).wrapping_mul(DEPTH_MARK)
        }
    }

    /// The set's value searched `depth` more rays deep (`u32::MAX`: no
    /// limit, the optimum) when it is below `beat`; otherwise a lower bound
    /// of it, at least `beat`.
    ///
    /// The value cut at depth d, F_d, is a function of the set alone: 0
    /// for a set no ray splits; past the depth (d = 0) the set's Huffman
    /// bound, unless it has at most `small` molecules (then its optimum,
    /// as at every depth); otherwise the largest of its Huffman bound and
    /// the least, over the rays not dominated, of |S| + Σ F_{d-1} of the
    /// ray's outcomes (for the score, with stopping now). The memo holds
    /// each set's F_d, or a lower bound of it, under its key marked with d
    /// ([`Search::key_at`]), so a value found at one depth never leaks
    /// into another's and the answer does not depend on what was searched
    /// before. F_d ≤ F_{d+1} ≤ the optimum: every F_d is a lower bound of
    /// the fewest rays.
    fn value(&mut self, set: &[u32], beat: u64, root: bool, depth: u32) -> u64 {
        let n = set.len();
        if n <= 1 || self.must_stop() {
            return if n <= 1 { 0 } else { beat };
        }
        if !root
            && self.measure == Measure::Rays
            && let Some(v) = self.few_rays(set)
        {
            return v;
        }
        let mut frame = self.frames.pop().unwrap_or_default();
        let v = self.value_in(set, beat, root, depth, &mut frame);
        self.frames.push(frame);
        v
    }

    /// The fewest rays of a set of two or three molecules (`None` for
    /// another size), worked out
    /// rather than searched (the memo is not asked: it is what a search
    /// would give, at every depth, since it equals the set's Huffman
    /// bound). Two molecules of one spectrum class take no ray, of two
    /// classes one ray each; three molecules in two classes take one ray
    /// each (a ray that parts the odd one from the pair), in three
    /// classes one each if a ray parts all three, else five (a ray, and
    /// one more for the two it leaves together).
    fn few_rays(&self, set: &[u32]) -> Option<u64> {
        let class = |i: usize| self.keys.class[set[i] as usize];
        match *set {
            [_, _] => Some(2 * u64::from(class(0) != class(1))),
            [a, b, c] => {
                let (ab, bc, ac) = (
                    class(0) != class(1),
                    class(1) != class(2),
                    class(0) != class(2),
                );
                Some(match (ab, bc, ac) {
                    (false, false, _) => 0,
                    (true, true, true) => {
                        let t = self.t;
                        let parts_all = (1..=t.rays).any(|q| {
                            let (x, y, z) = (t.code(a, q), t.code(b, q), t.code(c, q));
                            x != y && y != z && x != z
                        });
                        if parts_all { 3 } else { 5 }
                    }
                    _ => 3,
                })
            }
            _ => None,
        }
    }

    /// [`Search::value`] of a set of two molecules or more, in `frame`'s
    /// working vectors.
    fn value_in(
        &mut self,
        set: &[u32],
        beat: u64,
        root: bool,
        depth: u32,
        frame: &mut Frame,
    ) -> u64 {
        let n = set.len();
        let Frame {
            splits,
            counts,
            rays,
            part,
            starts,
            children,
        } = frame;
        let depth = if n <= self.small { u32::MAX } else { depth };
        let key = self.key_at(set, depth);
        let known = self.recall(key);
        if let Some(e) = known
            && (e & EXACT == EXACT || e >> 1 >= beat)
            && !root
        {
            return e >> 1;
        }
        let t = self.t;
        let codes = t.codes();
        // The rays that split the set: (Σ size², ray).
        t.ray_splits(set, counts, rays);
        let mut most = 0usize;
        splits.clear();
        for (&(squares, outcomes), q) in rays.iter().zip(1..) {
            if outcomes >= 2 {
                most = most.max(outcomes as usize);
                splits.push((squares, q));
            }
        }
        let stop = match self.measure {
            Measure::Rays => 0,
            Measure::Score => t.stop_total(set),
        };
        if splits.is_empty() {
            self.remember(key, stop, true);
            return stop;
        }
        let huffman_bound = match self.measure {
            Measure::Rays => self.huffman_of(set, most),
            Measure::Score => {
                let sizes = self.class_sizes(set);
                stop.min(n as u64 + MISSED_ATOM_PENALTY * sizes.iter().map(|s| s - 1).sum::<u64>())
            }
        };
        if depth == 0 {
            // Past the depth: the Huffman bound is the value.
            return huffman_bound;
        }
        // What the memo knows of this set at this depth is a lower bound
        // of the same value.
        let lower = huffman_bound.max(known.map_or(0, |e| e >> 1));
        if lower >= beat && !root {
            self.remember(key, lower, false);
            return lower;
        }
        let deeper = if depth == u32::MAX { depth } else { depth - 1 };
        splits.sort_unstable();
        if self.measure == Measure::Rays {
            self.drop_dominated(set, splits);
        }
        let mut best = beat;
        let mut exact = false;
        let mut best_ray = None;
        if self.measure == Measure::Score && stop < best {
            best = stop;
            exact = true;
        }
        // The least lower bound of the rays that could not beat `best`.
        let mut floor = u64::MAX;
        part.clear();
        part.resize(n, 0);
        for &(_, q) in splits.iter() {
            if exact && best <= lower {
                break;
            }
            t.split(set, q, part, starts);
            // Children, largest first, with what they cost at least (the
            // rays measure: their Huffman bound).
            children.clear();
            let mut acc = 0u64;
            let mut rest = 0u64;
            for c in 0..codes {
                let (a, b) = (starts[c], starts[c + 1]);
                if a == b {
                    continue;
                }
                let size = (b - a) as u64;
                acc += match self.measure {
                    Measure::Rays => size,
                    Measure::Score => size * ray_cost(Outcome::from_code(c)),
                };
                let cheap = match self.measure {
                    Measure::Rays if size > 1 && !self.one_class(&part[a..b]) => {
                        self.huffman_of(&part[a..b], most).max(size)
                    }
                    _ => 0,
                };
                rest += cheap;
                children.push((a, b, cheap));
            }
            if acc + rest >= best {
                floor = floor.min(acc + rest);
                continue;
            }
            children.sort_by_key(|&(a, b, _)| std::cmp::Reverse(b - a));
            let mut beaten = false;
            for &(a, b, cheap) in children.iter() {
                rest -= cheap;
                let v = self.value(&part[a..b], best - acc - rest, false, deeper);
                acc += v;
                if acc + rest >= best {
                    beaten = true;
                    floor = floor.min(acc + rest);
                    break;
                }
            }
            if self.ticker.cut().is_some() {
                return beat;
            }
            if !beaten {
                best = acc;
                exact = true;
                best_ray = Some(q);
            }
        }
        if root {
            self.first = best_ray;
        }
        if exact {
            // Below `beat`: the value itself (every ray that could not beat
            // `best` has a value of at least `best`; the Huffman bound is
            // never above a ray's value).
            let v = best.max(lower);
            self.remember(key, v, true);
            v
        } else {
            // Stopping now (the score) is one of the moves the bound covers.
            if self.measure == Measure::Score {
                floor = floor.min(stop);
            }
            let v = floor.max(lower);
            self.remember(key, v, false);
            v
        }
    }

    /// Drops from `splits` (in the order tried) each ray whose partition of
    /// `set` another ray's refines (or equals, the later one dropped): a
    /// finer partition never costs more rays, since the fewest rays of a
    /// union of sets is at least the sum of theirs.
    fn drop_dominated(&mut self, set: &[u32], splits: &mut Vec<(u64, usize)>) {
        if splits.len() < 2 {
            return;
        }
        // One molecule per spectrum class stands for its class: every ray
        // gives all of a class the same outcome.
        let mut reps = std::mem::take(&mut self.leaves);
        reps.clear();
        reps.extend(
            set.iter()
                .map(|&m| u64::from(self.keys.class[m as usize]) << 32 | u64::from(m)),
        );
        reps.sort_unstable();
        reps.dedup_by_key(|r| *r >> 32);
        // The outcome of each ray kept on each class, a row per ray.
        let width = reps.len();
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        for &(_, q) in splits.iter() {
            rows.extend(reps.iter().map(|&r| self.t.code(r as u32, q)));
        }
        let mut map = [u8::MAX; 256];
        // Whether ray i's outcome tells ray j's on every class.
        let refines = |i: usize, j: usize, map: &mut [u8; 256]| {
            map.fill(u8::MAX);
            let (a, b) = (&rows[i * width..][..width], &rows[j * width..][..width]);
            a.iter().zip(b).all(|(&x, &y)| {
                let slot = &mut map[usize::from(x)];
                if *slot == u8::MAX {
                    *slot = y;
                }
                *slot == y
            })
        };
        // Σ size² only falls as a partition is refined, so a ray is refined
        // by one tried before it (the order is by Σ size²); of two equal
        // partitions the later is dropped.
        let mut keep = vec![true; splits.len()];
        for j in 1..splits.len() {
            keep[j] = !(0..j).any(|i| keep[i] && refines(i, j, &mut map));
        }
        let mut k = keep.iter();
        splits.retain(|_| *k.next().expect("one flag per ray"));
        self.leaves = reps;
        self.rows = rows;
    }
}

/// The fewest rays of sets of molecules asked one after another (rollout's
/// small sets), each found by the exhaustive search, whose memo is kept
/// from one set to the next within its memory.
pub(crate) struct SetOptimum<'a> {
    search: Search<'a>,
}

impl<'a> SetOptimum<'a> {
    /// A searcher of `t`'s sets within `budget`'s deadline and token, its
    /// memo within `memory` bytes.
    pub(crate) fn new(
        t: &'a Spectra,
        budget: &'a Budget,
        keys: Arc<SetKeys>,
        memory: u64,
    ) -> SetOptimum<'a> {
        let mut search = Search::with_keys(t, budget, None, keys);
        search.capacity = memo_capacity(memory);
        SetOptimum { search }
    }

    /// The fewest rays telling the molecules of `set` apart, all games
    /// together; the cut when the budget stopped the search.
    pub(crate) fn rays(&mut self, set: &[u32]) -> Result<u64, Cut> {
        let v = self.search.exact(set);
        match self.search.ticker.cut() {
            Some(cut) => Err(cut),
            None => Ok(v),
        }
    }
}

#[cfg_attr(not(feature = "census"), allow(dead_code))]
/// The exhaustive search of one measure over a configuration's sets, as
/// the optimum in units asks it (`optimum_units.rs`): values below a cut,
/// bounds, the rays that split a set, decision trees.
pub(crate) struct SetSearch<'a> {
    search: Search<'a>,
}

#[cfg_attr(not(feature = "census"), allow(dead_code))]
impl<'a> SetSearch<'a> {
    /// A search of `t`'s sets for `measure` within `budget` (a
    /// `stop_after` fault stopping it as the deadline would), keyed by
    /// `keys`, its memo within `memory` bytes, sets of at most `small`
    /// molecules searched to the end by its depth-limited bounds.
    pub(crate) fn new(
        t: &'a Spectra,
        measure: Measure,
        budget: &'a Budget,
        stop_after: Option<u64>,
        keys: Arc<SetKeys>,
        memory: u64,
        small: usize,
    ) -> SetSearch<'a> {
        let mut search = Search::with_keys(t, budget, stop_after, keys);
        search.capacity = memo_capacity(memory);
        search.measure = measure;
        search.small = small;
        SetSearch { search }
    }

    /// [`SetSearch::new`], its memo `memo`, shared with other searches.
    pub(crate) fn sharing(mut self, memo: Arc<SharedMemo>) -> SetSearch<'a> {
        self.search.shared = Some(memo);
        self
    }

    /// The value of `set` when it is below `beat`; otherwise a lower bound
    /// of it, at least `beat`.
    pub(crate) fn value(&mut self, set: &[u32], beat: u64) -> u64 {
        self.search.value(set, beat, false, u32::MAX)
    }

    /// What `set` is worth without a search: `Ok` its value when no ray
    /// splits it (0 for the rays, stopping for the score), else `Err` a
    /// lower bound of its value: for the rays, its Huffman bound with the
    /// most outcomes a ray has on it, and one ray a molecule; for the
    /// score, the least of the penalty now and one ray a molecule plus 5 a
    /// molecule sharing its spectrum.
    pub(crate) fn bounds(&mut self, set: &[u32]) -> Result<u64, u64> {
        let n = set.len();
        if n <= 1 {
            return Ok(0);
        }
        let t = self.search.t;
        let mut counts = std::mem::take(&mut self.search.rows_counts);
        t.count_rays(set, &mut counts);
        let most = counts
            .chunks_exact(t.codes())
            .map(|c| c.iter().filter(|&&c| c > 0).count())
            .max()
            .unwrap_or(0);
        self.search.rows_counts = counts;
        if most < 2 {
            return Ok(self.stop(set));
        }
        Err(match self.search.measure {
            Measure::Rays => self.search.huffman_of(set, most).max(n as u64),
            Measure::Score => {
                let sizes = self.search.class_sizes(set);
                t.stop_total(set)
                    .min(n as u64 + MISSED_ATOM_PENALTY * sizes.iter().map(|s| s - 1).sum::<u64>())
            }
        })
    }

    /// The rays that split `set`, in the order the search tries them (the
    /// greedy order, ties the lowest ray), those whose partition another's
    /// refines dropped for the rays measure.
    pub(crate) fn splits(&mut self, set: &[u32]) -> Vec<usize> {
        let t = self.search.t;
        let codes = t.codes();
        let mut counts = Vec::new();
        t.count_rays(set, &mut counts);
        let mut splits: Vec<(u64, usize)> = Vec::new();
        for (c, q) in counts.chunks_exact(codes).zip(1..) {
            if c.iter().filter(|&&c| c > 0).count() >= 2 {
                splits.push((c.iter().map(|&c| c * c).sum(), q));
            }
        }
        splits.sort_unstable();
        if self.search.measure == Measure::Rays {
            self.search.drop_dominated(set, &mut splits);
        }
        splits.into_iter().map(|(_, q)| q).collect()
    }

    /// The penalty of stopping at `set` now (the score; 0 for the rays).
    pub(crate) fn stop(&self, set: &[u32]) -> u64 {
        match self.search.measure {
            Measure::Rays => 0,
            Measure::Score => self.search.t.stop_total(set),
        }
    }

    /// A best strategy for `set`, whose value is `value`, as a decision
    /// tree (see [`Search::tree`]); `None` when the search was cut.
    pub(crate) fn tree(&mut self, set: &[u32], value: u64) -> Option<Tree> {
        let mut set = set.to_vec();
        self.search.tree_of(&mut set, value)
    }

    /// The fewest rays that always suffice for `set` (the minimax).
    pub(crate) fn minimax(&mut self, set: &[u32]) -> u64 {
        let measure = std::mem::replace(&mut self.search.measure, Measure::Rays);
        let v = self.search.minimax(set, u64::MAX);
        self.search.measure = measure;
        v
    }

    /// The sums of the molecules' words of the images of `set` under the
    /// symmetries (slot by slot, as [`Transform::slots`] lists them): its
    /// key is the least.
    pub(crate) fn sums(&self, set: &[u32]) -> [u128; 8] {
        let keys = &self.search.keys;
        let mut sums = [0u128; 8];
        for &m in set {
            for (s, &i) in sums.iter_mut().zip(&keys.images[m as usize]) {
                *s = s.wrapping_add(keys.words[i as usize]);
            }
        }
        sums
    }

    /// The key of `set` for this measure (the same for its images).
    pub(crate) fn key(&self, set: &[u32]) -> u128 {
        self.search.key(set)
    }

    /// Sets searched so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.search.nodes
    }

    /// What cut the search short, if anything did.
    pub(crate) fn cut(&self) -> Option<Cut> {
        self.search.ticker.cut()
    }
}

/// A memo key's mark for the minimax measure (the search's two others use
/// the plain key and [`Measure::Score`]'s mark).
const MINIMAX_MARK: u128 = 0x3a1d_3a1d_3a1d_3a1d_3a1d_3a1d_3a1d_3a1d;

impl Search<'_> {
    /// The fewest rays that always suffice to tell the molecules of `set`
    /// apart (the longest game of the best strategy for it) when below
    /// `beat`; otherwise a lower bound of it, at least `beat`.
    fn minimax(&mut self, set: &[u32], beat: u64) -> u64 {
        let n = set.len();
        if n <= 1 || self.must_stop() {
            return if n <= 1 { 0 } else { beat };
        }
        let key = self.key(set) ^ MINIMAX_MARK;
        let known = self.recall(key);
        if let Some(e) = known
            && (e & EXACT == EXACT || e >> 1 >= beat)
        {
            return e >> 1;
        }
        let t = self.t;
        let codes = t.codes();
        let mut splits: Vec<(u64, usize)> = Vec::new();
        let mut counts = vec![0u64; codes];
        let mut most = 0usize;
        for q in 1..=t.rays {
            t.count(set, q, &mut counts);
            let outcomes = counts.iter().filter(|&&c| c > 0).count();
            if outcomes >= 2 {
                most = most.max(outcomes);
                // The largest outcome first: it decides the longest game.
                splits.push((counts.iter().copied().max().unwrap_or(0), q));
            }
        }
        if splits.is_empty() {
            self.remember(key, 0, true);
            return 0;
        }
        // A tree of at most `most` branches needs this many levels for
        // its leaves, one per spectrum class.
        let classes = self.class_sizes(set).len() as u64;
        let mut lower = 1u64;
        let mut reach = most as u64;
        while reach < classes {
            reach = reach.saturating_mul(most as u64);
            lower += 1;
        }
        let lower = lower.max(known.map_or(0, |e| e >> 1));
        if lower >= beat {
            self.remember(key, lower, false);
            return lower;
        }
        splits.sort_unstable();
        self.drop_dominated(set, &mut splits);
        let mut best = beat;
        let mut exact = false;
        let mut floor = u64::MAX;
        let mut part = vec![0u32; n];
        let mut starts = Vec::new();
        for &(_, q) in &splits {
            if exact && best <= lower {
                break;
            }
            t.split(set, q, &mut part, &mut starts);
            let mut children: Vec<(usize, usize)> = (0..codes)
                .map(|c| (starts[c], starts[c + 1]))
                .filter(|(a, b)| a < b)
                .collect();
            children.sort_by_key(|&(a, b)| std::cmp::Reverse(b - a));
            let mut worst = 0;
            for &(a, b) in &children {
                let v = 1 + self.minimax(&part[a..b], best - 1);
                worst = worst.max(v);
                if worst >= best {
                    break;
                }
            }
            if self.ticker.cut().is_some() {
                return beat;
            }
            if worst < best {
                best = worst;
                exact = true;
            } else {
                floor = floor.min(worst);
            }
        }
        let v = if exact { best } else { floor.max(lower) };
        self.remember(key, v, exact);
        v
    }

    /// The exact value of `set` for the measure searched (from the memo
    /// when it is there).
    fn exact(&mut self, set: &[u32]) -> u64 {
        self.value(set, u64::MAX, false, u32::MAX)
    }

    /// A best strategy for `set` as a decision tree, for the measure
    /// searched: at each set, the first ray in the greedy order whose
    /// outcomes' values add up to the set's.
    fn tree(&mut self, set: &mut [u32]) -> Option<Tree> {
        let v = self.exact(set);
        self.tree_of(set, v)
    }

    /// [`Search::tree`] of a set whose exact value is `v`.
    fn tree_of(&mut self, set: &mut [u32], v: u64) -> Option<Tree> {
        let t = self.t;
        if self.ticker.cut().is_some() {
            return None;
        }
        let n = set.len();
        let place = |set: &[u32]| Tree::Stop {
            molecules: set.len() as u64,
            place: t.placement(set).iter().map(|&c| usize::from(c)).collect(),
        };
        if n <= 1 || (self.measure == Measure::Score && t.stop_total(set) == v) {
            return Some(place(set));
        }
        let codes = t.codes();
        let mut counts = vec![0u64; codes];
        let mut splits: Vec<(u64, usize)> = Vec::new();
        for q in 1..=t.rays {
            t.count(set, q, &mut counts);
            if counts.iter().filter(|&&c| c > 0).count() >= 2 {
                splits.push((counts.iter().map(|&c| c * c).sum(), q));
            }
        }
        if splits.is_empty() {
            return Some(place(set));
        }
        splits.sort_unstable();
        let mut part = vec![0u32; n];
        let mut starts = Vec::new();
        for &(_, q) in &splits {
            t.split(set, q, &mut part, &mut starts);
            // The ray's cost, each child searched only as far as it can
            // still add up to v (a child that cannot is not searched to
            // its end).
            let mut total: u64 = (0..codes)
                .map(|c| {
                    let size = (starts[c + 1] - starts[c]) as u64;
                    match self.measure {
                        Measure::Rays => size,
                        Measure::Score => size * ray_cost(Outcome::from_code(c)),
                    }
                })
                .sum();
            for c in 0..codes {
                let (a, b) = (starts[c], starts[c + 1]);
                if a < b && total <= v {
                    total += self.value(&part[a..b], v + 1 - total, false, u32::MAX);
                }
            }
            if self.ticker.cut().is_some() {
                return None;
            }
            if total != v {
                continue;
            }
            let mut branches = Vec::new();
            for c in 0..codes {
                let (a, b) = (starts[c], starts[c + 1]);
                if a < b {
                    branches.push((Outcome::from_code(c), self.tree(&mut part[a..b])?));
                }
            }
            return Some(Tree::Shoot { ray: q, branches });
        }
        // The memo's values are exact: one ray adds up.
        self.ticker.stop(Cut::TimedOut);
        None
    }
}

/// A strategy as a decision tree: which ray to shoot, and for each outcome
/// the rest; or where to place the atoms.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tree {
    /// Shoot this ray, then follow the branch of its outcome.
    Shoot {
        /// Border position (`position` in JSON, as everywhere).
        #[serde(rename = "position")]
        ray: usize,
        /// One branch per outcome that some molecule gives.
        branches: Vec<(Outcome, Tree)>,
    },
    /// Stop and place the atoms on these cells (0 is the top-left cell,
    /// row by row).
    Stop {
        /// Molecules that end their game here.
        molecules: u64,
        /// The cells the atoms are placed on.
        place: Vec<usize>,
    },
}

impl Tree {
    /// The tree in a compact text, for a rays strategy whose stops are
    /// worked out again from the molecules that reach them
    /// ([`Tree::from_compact`]): a shot is `rQ K` followed by its K
    /// branches, each an outcome code and its tree; a stop is `s`.
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Tree::Stop { .. } => out.push('s'),
            Tree::Shoot { ray, branches } => {
                out.push_str(&format!("r{ray} {}", branches.len()));
                for (o, sub) in branches {
                    out.push_str(&format!(" {} ", o.code()));
                    sub.write_compact(out);
                }
            }
        }
    }

    /// The tree written by [`Tree::to_compact`], its stops empty (no
    /// molecules, no cells); `None` when the text is not one.
    pub fn from_compact(text: &str) -> Option<Tree> {
        let mut tokens = text.split_ascii_whitespace();
        let tree = Tree::read_compact(&mut tokens, 0)?;
        tokens.next().is_none().then_some(tree)
    }

    fn read_compact<'t>(tokens: &mut impl Iterator<Item = &'t str>, depth: usize) -> Option<Tree> {
        // A game shoots each ray at most once: no deeper tree is real.
        if depth > 4096 {
            return None;
        }
        let token = tokens.next()?;
        if token == "s" {
            return Some(Tree::Stop {
                molecules: 0,
                place: Vec::new(),
            });
        }
        let ray: usize = token.strip_prefix('r')?.parse().ok()?;
        let k: usize = tokens.next()?.parse().ok()?;
        let mut branches = Vec::with_capacity(k.min(256));
        for _ in 0..k {
            let code: usize = tokens.next()?.parse().ok()?;
            if code > 1 << 20 {
                return None;
            }
            branches.push((
                Outcome::from_code(code),
                Tree::read_compact(tokens, depth + 1)?,
            ));
        }
        Some(Tree::Shoot { ray, branches })
    }

    /// The tree with every border position `q` (rays shot and exits)
    /// replaced by `f(q)`: the same strategy on the image of the box under
    /// the symmetry `f` is.
    pub fn mapped(&self, f: &impl Fn(usize) -> usize) -> Tree {
        match self {
            Tree::Stop { .. } => self.clone(),
            Tree::Shoot { ray, branches } => Tree::Shoot {
                ray: f(*ray),
                branches: branches
                    .iter()
                    .map(|(o, sub)| {
                        let o = match o {
                            Outcome::Exit(k) => Outcome::Exit(f(*k)),
                            other => *other,
                        };
                        (o, sub.mapped(f))
                    })
                    .collect(),
            },
        }
    }
}

/// How the games of one strategy went: the distribution of rays and score
/// over the molecules (one game each), and what luck does to them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Games {
    /// `rays_histogram[k]`: games that took k rays.
    pub rays_histogram: Vec<u64>,
    /// `score_histogram[k]`: games that scored k.
    pub score_histogram: Vec<u64>,
    /// Rays, all games together.
    pub rays_total: u64,
    /// Score, all games together.
    pub score_total: u64,
    /// The penalty of the atoms misplaced, all games together (part of
    /// `score_total`).
    pub penalty_total: u64,
    /// The first ray's outcomes: each outcome, the games that gave it, and
    /// their mean rays and score from then on (that ray not counted).
    pub first_answers: Vec<(Outcome, u64, f64, f64)>,
}

impl Games {
    #[cfg_attr(not(feature = "census"), allow(dead_code))]
    /// The games of `tree` over the molecules of `set`.
    pub(crate) fn of_tree(t: &Spectra, tree: &Tree, set: &[u32]) -> Games {
        Games::of(t, tree, &mut set.to_vec())
    }

    /// Counts the games of `tree` over the molecules of `set`.
    fn of(t: &Spectra, tree: &Tree, set: &mut [u32]) -> Games {
        let mut g = Games::default();
        g.walk(t, tree, set, 0, 0);
        if let Tree::Shoot { ray, branches } = tree {
            let (mut part, starts) = t.parts(set, *ray);
            for (o, sub) in branches {
                let c = o.code();
                let rest = Games::of(t, sub, &mut part[starts[c]..starts[c + 1]]);
                let n = (starts[c + 1] - starts[c]).max(1) as f64;
                g.first_answers.push((
                    *o,
                    (starts[c + 1] - starts[c]) as u64,
                    rest.rays_total as f64 / n,
                    rest.score_total as f64 / n,
                ));
            }
        }
        g
    }

    fn walk(&mut self, t: &Spectra, tree: &Tree, set: &mut [u32], rays: usize, cost: u64) {
        match tree {
            Tree::Stop { place, .. } => {
                let place: Vec<u16> = place.iter().map(|&c| c as u16).collect();
                for &m in set.iter() {
                    let penalty = t.missed(m, &place) * MISSED_ATOM_PENALTY;
                    let score = (cost + penalty) as usize;
                    bump(&mut self.rays_histogram, rays);
                    bump(&mut self.score_histogram, score);
                    self.rays_total += rays as u64;
                    self.score_total += score as u64;
                    self.penalty_total += penalty;
                }
            }
            Tree::Shoot { ray, branches } => {
                let (mut part, starts) = t.parts(set, *ray);
                for (o, sub) in branches {
                    let c = o.code();
                    let cost = cost + ray_cost(*o);
                    self.walk(t, sub, &mut part[starts[c]..starts[c + 1]], rays + 1, cost);
                }
            }
        }
    }
}

/// Adds one to `h[k]`, growing it.
fn bump(h: &mut Vec<u64>, k: usize) {
    if h.len() <= k {
        h.resize(k + 1, 0);
    }
    h[k] += 1;
}

/// The least weighted path length of a tree of at most `b` branches a node
/// whose leaves weigh `weights`: b-ary Huffman.
fn huffman(weights: &[u64], b: usize) -> u64 {
    huffman_in(&mut weights.to_vec(), b, &mut Vec::new())
}

/// [`huffman`] of `leaves` (reordered, zeros added), with `merged` for the
/// merged nodes.
fn huffman_in(leaves: &mut Vec<u64>, b: usize, merged: &mut Vec<u64>) -> u64 {
    if leaves.len() <= 1 {
        return 0;
    }
    let b = b.max(2);
    // Two queues: the weights sorted (zeros added so that every merge takes
    // b), and the merged nodes, which come out in increasing order.
    let pad = (b - 1 - (leaves.len() - 1) % (b - 1)) % (b - 1);
    leaves.resize(leaves.len() + pad, 0);
    leaves.sort_unstable();
    merged.clear();
    let (mut i, mut j) = (0, 0);
    let mut total = 0;
    while (leaves.len() - i) + (merged.len() - j) > 1 {
        let mut sum = 0;
        for _ in 0..b {
            let take_leaf = j >= merged.len() || (i < leaves.len() && leaves[i] <= merged[j]);
            if take_leaf {
                sum += leaves[i];
                i += 1;
            } else {
                sum += merged[j];
                j += 1;
            }
        }
        total += sum;
        merged.push(sum);
    }
    total
}

/// The best strategy of `config` for each measure, by exhaustive search:
/// the fewest rays, then the lowest score. When the budget's deadline or
/// token ends it, what was not finished is `None` and [`Optimum::ended`]
/// says why; an error when the spectra are too many to hold.
pub fn optimum(config: Config, options: &OptimalOptions) -> Result<Optimum, Error> {
    let start = Instant::now();
    let spectra = Spectra::new(config, options.rules, &options.budget, 0)?;
    let n = config.molecule_count().unwrap_or(0);
    let mut out = Optimum {
        molecules: n,
        ended: spectra.ended,
        ..Optimum::default()
    };
    if let Some(t) = &spectra.value {
        let mut search = Search::new(t, options);
        let all: Vec<u32> = (0..n as u32).collect();
        let mean = |x: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
        for measure in [Measure::Rays, Measure::Score] {
            search.measure = measure;
            search.first = None;
            let v = search.value(&all, u64::MAX, true, u32::MAX);
            if search.ticker.cut().is_some() {
                break;
            }
            let mut set = all.clone();
            let tree = search.tree(&mut set);
            let games = tree.as_ref().map(|tree| Games::of(t, tree, &mut set));
            let (total, average, first, best, played) = match measure {
                Measure::Rays => (
                    &mut out.rays_total,
                    &mut out.rays_mean,
                    &mut out.rays_first,
                    &mut out.rays_tree,
                    &mut out.rays_games,
                ),
                Measure::Score => (
                    &mut out.score_total,
                    &mut out.score_mean,
                    &mut out.score_first,
                    &mut out.score_tree,
                    &mut out.score_games,
                ),
            };
            (*total, *average, *first) = (Some(v), Some(mean(v)), search.first);
            (*best, *played) = (tree, games);
        }
        if search.ticker.cut().is_none() {
            search.measure = Measure::Rays;
            let m = search.minimax(&all, u64::MAX);
            if search.ticker.cut().is_none() {
                out.minimax = Some(m);
            }
        }
        out.sets_searched = search.nodes;
        out.sets_remembered = search.memo.len() as u64;
        out.sets_forgotten = search.forgotten;
        out.ended = search.ticker.cut().map_or(Ended::Complete, Ended::from);
    }
    out.seconds = start.elapsed().as_secs_f64();
    Ok(out)
}

/// A proven lower bound of the fewest rays, where the optimum is out of
/// reach.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LowerBound {
    /// Molecules of the configuration (the games).
    pub molecules: u64,
    /// No strategy shoots fewer rays than this, all games together: the
    /// larger of the two bounds below.
    pub rays_total: u64,
    /// `rays_total` / molecules.
    pub rays_mean: f64,
    /// The sum over the molecules of the fewest rays whose results tell the
    /// molecule apart from every molecule one atom move away that has
    /// another spectrum (a hitting set: each neighbour differs on some rays,
    /// one end of an exit pair shows the other).
    pub hitting_total: u64,
    /// The b-ary Huffman bound over the spectrum classes, b the most
    /// outcomes a ray has.
    pub huffman_total: u64,
    /// No strategy's longest game is shorter: the most rays a molecule needs
    /// by the hitting bound.
    pub rays_worst: u64,
    /// How many rays deep every strategy was searched (0: not searched).
    pub depth: u32,
    /// The bound of that search: every strategy's first `depth` rays
    /// tried, each set left after them bounded by its Huffman bound (or its
    /// optimum when it has at most `small` molecules); 0 when not searched.
    pub search_total: u64,
    /// The size of the sets searched to the end past the depth.
    pub small: usize,
    /// Sets of molecules the search went through.
    pub sets_searched: u64,
    /// The units the search was cut into (see [`Unit`]): the sets left by
    /// the first rays, up to the symmetries (0: not searched).
    pub units: u64,
    /// Units found done in a checkpoint rather than searched in this run.
    pub units_resumed: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// The fewest rays (bits of `u128` masks) hitting every mask of `sets`,
/// sorted by size: branch and bound on the elements of the smallest set not
/// hit yet.
fn hitting_set(sets: &[u128], chosen: u128, depth: u32, best: &mut u32) {
    let Some(mut s) = sets.iter().copied().find(|&s| s & chosen == 0) else {
        *best = (*best).min(depth);
        return;
    };
    if depth + 1 >= *best {
        return;
    }
    while s != 0 {
        let bit = s & s.wrapping_neg();
        hitting_set(sets, chosen | bit, depth + 1, best);
        s &= !bit;
    }
}

/// One unit of the depth search of [`lower_bound`]: the set of molecules
/// that a first ray's outcome leaves, whose value searched one ray less
/// deep the root adds up. A set and its mirror images are one unit (the
/// first rays of one orbit under the box's symmetries leave images of one
/// another's sets), so is a set that two first rays leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// A first ray (border position) that leaves the set.
    pub ray: usize,
    /// The outcome of that ray that leaves it.
    pub outcome: Outcome,
    /// Molecules in the set.
    pub molecules: u64,
    /// The set's key: the same for its mirror images, and marked with the
    /// depth it is searched to (a unit is known by it in checkpoints).
    pub key: u128,
}

/// A lower bound's work: the cheap bounds, done, and the depth search cut
/// into [`Unit`]s, each a function of the configuration, the rules, the
/// depth and the size of the sets searched to the end alone, so that the
/// bound is the same however the units are shared out, in whatever order
/// they are done, and across a resume.
pub struct BoundWork {
    spectra: Spectra,
    /// The keys of its sets, shared by the searchers of its units.
    keys: Arc<SetKeys>,
    options: OptimalOptions,
    /// The bound with the search's total still 0 (its cheap parts).
    cheap: LowerBound,
    /// The whole configuration's Huffman bound with its own branching (the
    /// root's, as the search counts it).
    root_huffman: u64,
    units: Vec<Unit>,
    /// Per first ray kept (one per set of units: rays of one orbit leave
    /// the same units), the units its outcomes leave (outcomes of one
    /// molecule are worth 0 and are left out).
    firsts: Vec<Vec<usize>>,
    start: Instant,
}

impl std::fmt::Debug for BoundWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundWork")
            .field("config", &self.spectra.config)
            .field("depth", &self.options.depth)
            .field("units", &self.units.len())
            .finish()
    }
}

impl BoundWork {
    /// The cheap bounds of `config` (the hitting and Huffman bounds) and
    /// the units of its search `options.depth` rays deep; nothing (`None`)
    /// when the budget's deadline or token stopped it first.
    pub fn new(
        config: Config,
        options: &OptimalOptions,
    ) -> Result<Finished<Option<BoundWork>>, Error> {
        let start = Instant::now();
        let spectra = Spectra::new(config, options.rules, &options.budget, 0)?;
        let ended = spectra.ended;
        let Some(spectra) = spectra.value else {
            return Ok(Finished::new(None, ended));
        };
        let cheap = match cheap_bounds(&spectra, options)? {
            Ok(cheap) => cheap,
            Err(cut) => return Ok(Finished::new(None, cut.into())),
        };
        let mut work = BoundWork {
            keys: Arc::new(SetKeys::new(&spectra)),
            spectra,
            options: options.clone(),
            cheap,
            root_huffman: 0,
            units: Vec::new(),
            firsts: Vec::new(),
            start,
        };
        work.plan()?;
        Ok(Finished::complete(Some(work)))
    }

    /// Cuts the root of the search into units: the first rays the search
    /// tries (those no other ray's partition refines), each outcome's set
    /// a unit, units of one key merged, rays that leave the same units
    /// kept once. The units are in the order they are best done in: the
    /// largest sets first (ties by key).
    fn plan(&mut self) -> Result<(), Error> {
        let depth = self.options.depth;
        let t = &self.spectra;
        let n = t.count;
        if depth == 0 || n <= 1 {
            return Ok(());
        }
        let mut search = BoundWork::search(t, &self.options, &self.keys);
        let all: Vec<u32> = (0..n as u32).collect();
        let codes = t.codes();
        let mut counts = vec![0u64; codes];
        let mut splits: Vec<(u64, usize)> = Vec::new();
        let mut most = 0;
        for q in 1..=t.rays {
            t.count(&all, q, &mut counts);
            let outcomes = counts.iter().filter(|&&c| c > 0).count();
            if outcomes >= 2 {
                most = most.max(outcomes);
                splits.push((counts.iter().map(|&c| c * c).sum(), q));
            }
        }
        if splits.is_empty() {
            return Ok(());
        }
        self.root_huffman = huffman(&search.class_sizes(&all), most);
        splits.sort_unstable();
        search.drop_dominated(&all, &mut splits);
        let mut index: HashMap<u128, usize> = HashMap::new();
        let mut units: Vec<Unit> = Vec::new();
        let mut firsts: Vec<Vec<usize>> = Vec::new();
        let mut part = vec![0u32; n];
        let mut starts = Vec::new();
        for &(_, q) in &splits {
            t.split(&all, q, &mut part, &mut starts);
            let mut these = Vec::new();
            for c in 0..codes {
                let child = &part[starts[c]..starts[c + 1]];
                if child.len() <= 1 {
                    continue;
                }
                let key = search.key_at(child, depth - 1);
                let i = *index.entry(key).or_insert_with(|| {
                    units.push(Unit {
                        ray: q,
                        outcome: Outcome::from_code(c),
                        molecules: child.len() as u64,
                        key,
                    });
                    units.len() - 1
                });
                these.push(i);
            }
            these.sort_unstable();
            firsts.push(these);
        }
        // The largest sets first; the rays' units renumbered.
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(units[i].molecules), units[i].key));
        let mut renumber = vec![0; units.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new;
        }
        self.units = order.iter().map(|&i| units[i].clone()).collect();
        for f in &mut firsts {
            for i in f.iter_mut() {
                *i = renumber[*i];
            }
            f.sort_unstable();
        }
        firsts.sort();
        firsts.dedup();
        self.firsts = firsts;
        Ok(())
    }

    /// The units of the search (none when it is not searched: depth 0, or
    /// no ray tells the molecules apart).
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// A fingerprint of the units: their number and keys, the same for
    /// the same configuration, rules, depth and small sets, and for the
    /// same way of cutting the search (a checkpoint of other units is not
    /// resumed).
    pub fn fingerprint(&self) -> String {
        let mut bytes = Vec::with_capacity(self.units.len() * 16);
        for u in &self.units {
            bytes.extend_from_slice(&u.key.to_le_bytes());
        }
        format!(
            "{} units, {:016x}",
            self.units.len(),
            xxhash_rust::xxh3::xxh3_64(&bytes)
        )
    }

    /// A search of `t`'s sets within `options`, with shared `keys`.
    fn search<'a>(t: &'a Spectra, options: &'a OptimalOptions, keys: &Arc<SetKeys>) -> Search<'a> {
        let mut search = Search::with_keys(
            t,
            &options.budget,
            options.budget.faults.stop_after,
            Arc::clone(keys),
        );
        search.small = options.small;
        search
    }

    /// A searcher of units, with its own memo within `memory` bytes.
    pub fn solver(&self, memory: u64) -> Result<UnitSolver<'_>, Error> {
        let mut search = BoundWork::search(&self.spectra, &self.options, &self.keys);
        search.capacity = memo_capacity(memory);
        Ok(UnitSolver { work: self, search })
    }

    /// The bound, from every unit's value (`values[i]` unit i's, as a
    /// [`UnitSolver`] gives it) and the sets the search went through:
    /// the least over the first rays of the molecules plus their units'
    /// values, and no less than the configuration's Huffman bound.
    pub fn bound(&self, values: &[u64], sets_searched: u64) -> Result<LowerBound, Error> {
        if values.len() != self.units.len() {
            return Err(Error::Internal(format!(
                "{} values for {} units of the bound",
                values.len(),
                self.units.len()
            )));
        }
        let n = self.spectra.count as u64;
        let search_total = self
            .firsts
            .iter()
            .map(|f| n + f.iter().map(|&i| values[i]).sum::<u64>())
            .min()
            .map_or(0, |v| v.max(self.root_huffman));
        let mut b = self.cheap.clone();
        b.search_total = search_total;
        b.rays_total = b.rays_total.max(search_total);
        b.rays_mean = if n == 0 {
            0.0
        } else {
            b.rays_total as f64 / n as f64
        };
        b.sets_searched = sets_searched;
        b.units = self.units.len() as u64;
        b.seconds = self.start.elapsed().as_secs_f64();
        Ok(b)
    }
}

/// Searches units of a [`BoundWork`], remembering sets from one unit to
/// the next.
pub struct UnitSolver<'a> {
    work: &'a BoundWork,
    search: Search<'a>,
}

impl UnitSolver<'_> {
    /// Unit `i`'s value: its set's bound searched one ray less deep than
    /// the root, and the sets searched for it; the cut when the budget's
    /// deadline or token (or a `stop-after` fault, counting the sets this
    /// solver searched) stopped it.
    pub fn value(&mut self, i: usize) -> Result<(u64, u64), Cut> {
        let w = self.work;
        let t = &w.spectra;
        let unit = &w.units[i];
        let all: Vec<u32> = (0..t.count as u32).collect();
        let mut part = vec![0u32; all.len()];
        let mut starts = Vec::new();
        t.split(&all, unit.ray, &mut part, &mut starts);
        let c = unit.outcome.code();
        let set = &part[starts[c]..starts[c + 1]];
        let before = self.search.nodes;
        let v = self.search.value(set, u64::MAX, false, w.options.depth - 1);
        if let Some(cut) = self.search.ticker.cut() {
            return Err(cut);
        }
        Ok((v, self.search.nodes - before))
    }
}

/// The hitting and Huffman bounds of the configuration of `t` (the depth
/// search not done: its total 0); the cut when the budget stopped them.
fn cheap_bounds(t: &Spectra, options: &OptimalOptions) -> Result<Result<LowerBound, Cut>, Error> {
    use rayon::prelude::*;
    let budget = &options.budget;
    let config = t.config;
    let (rays, n) = (t.rays, t.count);
    let numbering = Numbering::new(config)
        .ok_or_else(|| Error::invalid(format!("{config} is not numbered")))?;
    let cells = config.cells();
    let k = config.atoms;
    // Per molecule, the hitting bound (0 when the box is too wide for the
    // masks: the Huffman bound stands alone).
    let per: Result<Vec<u32>, Cut> = if rays > 128 {
        Ok(vec![0; n])
    } else {
        (0..n)
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(masks, moved): &mut (Vec<u128>, Vec<usize>), m| {
                    if m % 4096 == 0 {
                        budget.check()?;
                    }
                    let atoms = t.atoms(m as u32);
                    let row = t.spectrum(m as u32);
                    masks.clear();
                    for j in 0..k {
                        for b in 0..cells as u16 {
                            if atoms.contains(&b) {
                                continue;
                            }
                            moved.clear();
                            moved.extend(
                                atoms
                                    .iter()
                                    .enumerate()
                                    .map(|(i, &a)| if i == j { b as usize } else { a as usize }),
                            );
                            moved.sort_unstable();
                            let other = (numbering.rank(moved) - 1) as usize;
                            let orow = t.spectrum(other as u32);
                            let mask = row
                                .iter()
                                .zip(orow)
                                .enumerate()
                                .filter(|(_, (x, y))| x != y)
                                .fold(0u128, |acc, (q, _)| acc | (1u128 << q));
                            if mask != 0 {
                                masks.push(mask);
                            }
                        }
                    }
                    masks.sort_unstable_by_key(|s| (s.count_ones(), *s));
                    masks.dedup();
                    let mut best = masks.len().min(rays) as u32 + 1;
                    hitting_set(masks, 0, 0, &mut best);
                    Ok(if masks.is_empty() { 0 } else { best })
                },
            )
            .collect()
    };
    let per = match per {
        Ok(per) => per,
        Err(cut) => return Ok(Err(cut)),
    };
    let hitting_total: u64 = per.iter().map(|&h| u64::from(h)).sum();
    let rays_worst = per.iter().copied().max().unwrap_or(0) as u64;
    // The Huffman bound over the whole configuration.
    let (_, weights) = t.classes();
    let all: Vec<u32> = (0..n as u32).collect();
    let mut counts = vec![0u64; t.codes()];
    let mut most = 0;
    for q in 1..=rays {
        t.count(&all, q, &mut counts);
        most = most.max(counts.iter().filter(|&&c| c > 0).count());
    }
    let huffman_total = huffman(&weights, most);
    let rays_total = hitting_total.max(huffman_total);
    Ok(Ok(LowerBound {
        molecules: n as u64,
        rays_total,
        rays_mean: if n == 0 {
            0.0
        } else {
            rays_total as f64 / n as f64
        },
        hitting_total,
        huffman_total,
        rays_worst,
        depth: options.depth,
        search_total: 0,
        small: options.small,
        sets_searched: 0,
        units: 0,
        units_resumed: 0,
        seconds: 0.0,
    }))
}

/// A proven lower bound of the fewest rays over every molecule of
/// `config` (see [`LowerBound`]); nothing (`None`) when the budget's
/// deadline or token ended it. The depth search's units
/// ([`BoundWork`]) are searched one after the other, by one searcher.
pub fn lower_bound(
    config: Config,
    options: &OptimalOptions,
) -> Result<Finished<Option<LowerBound>>, Error> {
    let work = BoundWork::new(config, options)?;
    let Some(work) = work.value else {
        return Ok(Finished::new(None, work.ended));
    };
    let mut solver = work.solver(options.budget.memory_or(MEMO_MEMORY))?;
    let mut values = Vec::with_capacity(work.units().len());
    let mut sets = 0;
    for i in 0..work.units().len() {
        match solver.value(i) {
            Ok((v, s)) => {
                values.push(v);
                sets += s;
            }
            Err(cut) => return Ok(Finished::new(None, cut.into())),
        }
    }
    drop(solver);
    Ok(Finished::complete(Some(work.bound(&values, sets)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huffman_is_the_least_weighted_path_length() {
        assert_eq!(huffman(&[5], 3), 0);
        assert_eq!(huffman(&[1, 1], 2), 2);
        assert_eq!(huffman(&[1, 1, 1, 1], 2), 8);
        // Three leaves, two branches: 1 and 1 at depth 2, 2 at depth 1.
        assert_eq!(huffman(&[1, 1, 2], 2), 6);
        assert_eq!(huffman(&[1, 1, 1], 3), 3);
        assert_eq!(huffman(&[1, 1, 1, 1], 3), 6);
        // Against b-ary Huffman with a heap, on random weights.
        let heap = |weights: &[u64], b: usize| {
            use std::cmp::Reverse;
            let mut h: std::collections::BinaryHeap<Reverse<u64>> =
                weights.iter().map(|&w| Reverse(w)).collect();
            while !(h.len() - 1).is_multiple_of(b - 1) {
                h.push(Reverse(0));
            }
            let mut total = 0;
            while h.len() > 1 {
                let merged: u64 = (0..b).map(|_| h.pop().map_or(0, |Reverse(w)| w)).sum();
                total += merged;
                h.push(Reverse(merged));
            }
            total
        };
        let mut x = 7u64;
        for round in 0..300 {
            let len = 2 + round % 40;
            let weights: Vec<u64> = (0..len)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    1 + (x >> 33) % if round % 2 == 0 { 3 } else { 1000 }
                })
                .collect();
            for b in 2..9 {
                assert_eq!(huffman(&weights, b), heap(&weights, b), "{weights:?} {b}");
            }
        }
    }

    #[test]
    fn the_hitting_set_is_the_smallest() {
        let mut best = 10;
        // {1}, {2, 3}, {3, 4}: 1 and 3.
        hitting_set(&[0b10, 0b1100, 0b11000], 0, 0, &mut best);
        assert_eq!(best, 2);
        let mut best = 10;
        // Three disjoint pairs: three rays.
        hitting_set(&[0b11, 0b1100, 0b110000], 0, 0, &mut best);
        assert_eq!(best, 3);
        let mut best = 10;
        hitting_set(&[], 0, 0, &mut best);
        assert_eq!(best, 0);
    }

    /// The options of a depth-`depth` bound, sets of at most `small`
    /// searched to the end.
    fn bounded(depth: u32, small: usize) -> OptimalOptions {
        OptimalOptions {
            depth,
            small,
            ..OptimalOptions::default()
        }
    }

    /// The value cut at `depth` of `set`, straight from its definition
    /// (no memo, no pruning): see [`Search::value`].
    fn naive(search: &mut Search<'_>, set: &[u32], depth: u32) -> u64 {
        let t = search.t;
        if set.len() <= 1 {
            return 0;
        }
        let depth = if set.len() <= search.small {
            u32::MAX
        } else {
            depth
        };
        let mut counts = vec![0u64; t.codes()];
        let mut splits = Vec::new();
        let mut most = 0;
        for q in 1..=t.rays {
            t.count(set, q, &mut counts);
            let outcomes = counts.iter().filter(|&&c| c > 0).count();
            if outcomes >= 2 {
                most = most.max(outcomes);
                splits.push((counts.iter().map(|&c| c * c).sum::<u64>(), q));
            }
        }
        if splits.is_empty() {
            return 0;
        }
        let h = huffman(&search.class_sizes(set), most);
        if depth == 0 {
            return h;
        }
        let deeper = if depth == u32::MAX { depth } else { depth - 1 };
        splits.sort_unstable();
        search.drop_dominated(set, &mut splits);
        let mut part = vec![0u32; set.len()];
        let mut starts = Vec::new();
        let mut best = u64::MAX;
        for &(_, q) in &splits {
            t.split(set, q, &mut part, &mut starts);
            let children: Vec<Vec<u32>> = (0..t.codes())
                .map(|c| part[starts[c]..starts[c + 1]].to_vec())
                .collect();
            let v = set.len() as u64
                + children
                    .iter()
                    .map(|c| naive(search, c, deeper))
                    .sum::<u64>();
            best = best.min(v);
        }
        best.max(h)
    }

    /// The fewest rays of `set`, by every splitting ray tried on every
    /// set (no bound, no dominance, no symmetry), remembered by the sorted
    /// set.
    fn fewest_rays(t: &Spectra, set: &[u32], memo: &mut HashMap<Vec<u32>, u64>) -> u64 {
        let mut sorted = set.to_vec();
        sorted.sort_unstable();
        if let Some(&v) = memo.get(&sorted) {
            return v;
        }
        let mut best = 0;
        let mut part = vec![0u32; set.len()];
        let mut starts = Vec::new();
        for q in 1..=t.rays {
            t.split(set, q, &mut part, &mut starts);
            if (0..t.codes()).all(|c| starts[c + 1] - starts[c] < set.len()) {
                let v = set.len() as u64
                    + (0..t.codes())
                        .map(|c| fewest_rays(t, &part[starts[c]..starts[c + 1]], memo))
                        .sum::<u64>();
                best = if best == 0 { v } else { best.min(v) };
            }
        }
        memo.insert(sorted, best);
        best
    }

    #[test]
    fn the_optimum_of_small_sets_is_their_fewest_rays() {
        use rand::seq::SliceRandom as _;
        use rand::{RngExt as _, SeedableRng as _};
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(64);
        let config: Config = "A3_B5".parse().unwrap();
        let budget = Budget::default();
        let whole = Spectra::new(config, Rules::Standard, &budget, 0)
            .unwrap()
            .value
            .unwrap();
        // A table of some of the molecules, in another order: its sets are
        // keyed by the molecules' numbers in the configuration.
        let mut some: Vec<crate::rules::board::Molecule> =
            crate::rules::enumeration::Molecules::new(config)
                .filter(|_| rng.random_bool(0.4))
                .collect();
        some.shuffle(&mut rng);
        let part = Spectra::of_molecules(config, Rules::Standard, &some, &budget).unwrap();
        for t in [&whole, &part] {
            let mut exact = SetOptimum::new(t, &budget, Arc::new(SetKeys::new(t)), 1 << 24);
            let mut memo = HashMap::new();
            let mut ids: Vec<u32> = (0..t.count as u32).collect();
            for _ in 0..300 {
                ids.shuffle(&mut rng);
                let set = &ids[..rng.random_range(2..=14)];
                assert_eq!(
                    exact.rays(set).unwrap(),
                    fewest_rays(t, set, &mut memo),
                    "{set:?} of {} molecules",
                    t.count
                );
            }
        }
        // A set's mirror images share its key, and so its remembered value.
        let keys = Arc::new(SetKeys::new(&whole));
        let mut exact = SetOptimum::new(&whole, &budget, Arc::clone(&keys), 1 << 24);
        let mut memo = HashMap::new();
        let mut ids: Vec<u32> = (0..whole.count as u32).collect();
        for _ in 0..40 {
            ids.shuffle(&mut rng);
            let set = &ids[..rng.random_range(2..=12)];
            let v = exact.rays(set).unwrap();
            for i in 0..8 {
                let image: Vec<u32> = set.iter().map(|&m| keys.images[m as usize][i]).collect();
                assert_eq!(exact.rays(&image).unwrap(), v);
                assert_eq!(fewest_rays(&whole, &image, &mut memo), v, "{image:?}");
            }
        }
    }

    #[test]
    fn the_cut_search_is_its_definition() {
        // The memoised, pruned search, at the root and unit by unit,
        // against the definition searched naively.
        for (config, depth, small) in [("A2_B3", 3, 0), ("A2_B4", 2, 3), ("A3_B4", 2, 4)] {
            let config: Config = config.parse().unwrap();
            let options = bounded(depth, small);
            let t = Spectra::new(config, options.rules, &options.budget, 0)
                .unwrap()
                .value
                .unwrap();
            let all: Vec<u32> = (0..t.count as u32).collect();
            let mut search = Search::new(&t, &options);
            search.small = small;
            let expected = naive(&mut search, &all, depth);
            let mut fresh = Search::new(&t, &options);
            fresh.small = small;
            assert_eq!(
                fresh.value(&all, u64::MAX, true, depth),
                expected,
                "{config}"
            );
            let b = lower_bound(config, &options).unwrap().value.unwrap();
            assert_eq!(b.search_total, expected, "{config} by units");
        }
    }

    #[test]
    fn the_bound_is_the_same_however_its_units_are_shared_out() {
        for (config, depth) in [("A3_B4", 3), ("A3_B5", 2), ("A4_B4", 2), ("A3_B5", 3)] {
            let config: Config = config.parse().unwrap();
            let options = bounded(depth, 8);
            let work = BoundWork::new(config, &options).unwrap().value.unwrap();
            let n = work.units().len();
            assert!(n > 1, "{config}: {n} units");
            // One searcher in order, the root searched whole, one searcher
            // backwards, a fresh searcher per unit, two searchers taking
            // turns, and a searcher that did other sets first.
            let t = &work.spectra;
            let all: Vec<u32> = (0..t.count as u32).collect();
            let mut whole = Search::new(t, &options);
            whole.small = 8;
            let root = whole.value(&all, u64::MAX, true, depth);
            let mut ways: Vec<Vec<u64>> = Vec::new();
            let mut one = work.solver(1 << 26).unwrap();
            ways.push((0..n).map(|i| one.value(i).unwrap().0).collect());
            let mut back = work.solver(1 << 26).unwrap();
            let mut v: Vec<u64> = (0..n).rev().map(|i| back.value(i).unwrap().0).collect();
            v.reverse();
            ways.push(v);
            ways.push(
                (0..n)
                    .map(|i| work.solver(1 << 26).unwrap().value(i).unwrap().0)
                    .collect(),
            );
            let mut pair = [work.solver(1 << 26).unwrap(), work.solver(1 << 26).unwrap()];
            ways.push((0..n).map(|i| pair[i % 2].value(i).unwrap().0).collect());
            let mut warm = work.solver(1 << 26).unwrap();
            warm.search.value(&all, u64::MAX, true, depth + 1);
            ways.push((0..n).map(|i| warm.value(i).unwrap().0).collect());
            let bounds: Vec<u64> = ways
                .iter()
                .map(|v| work.bound(v, 0).unwrap().search_total)
                .collect();
            assert!(
                bounds.iter().all(|&b| b == root),
                "{config} depth {depth}: {bounds:?} vs {root}"
            );
            assert!(
                ways.iter().all(|w| *w == ways[0]),
                "{config}: unit values differ"
            );
        }
    }

    #[test]
    fn deeper_bounds_rise_to_the_optimum() {
        for config in ["A3_B4", "A3_B5", "A4_B4"] {
            let config: Config = config.parse().unwrap();
            let best = optimum(config, &OptimalOptions::default())
                .unwrap()
                .rays_total
                .unwrap();
            let mut last = 0;
            for depth in 1..=4 {
                let b = lower_bound(config, &bounded(depth, 0))
                    .unwrap()
                    .value
                    .unwrap();
                assert!(
                    b.search_total >= last && b.search_total <= best,
                    "{config} {depth}"
                );
                last = b.search_total;
            }
            let b = lower_bound(config, &bounded(20, 0)).unwrap().value.unwrap();
            assert_eq!(b.search_total, best, "{config}: deep enough, the optimum");
        }
    }

    #[test]
    fn the_memo_stays_within_its_memory() {
        for memory in [1_000_000u64, 1 << 30, 2_000_000_000] {
            let sets = memo_capacity(memory) as u64;
            // The table's slots for that many sets, and the old table while
            // it grows.
            let slots = (sets * 8 / 7).next_power_of_two();
            assert!(slots * SLOT_BYTES * 3 / 2 <= memory, "{memory}");
            assert!(sets * 4 > memory / SLOT_BYTES / 8, "{memory}: not too few");
        }
    }
}
