//! Tracing molecules that differ in their last atoms, each ray only when
//! it may have changed.
//!
//! A ray's path is decided, step by step, by the three cells ahead of it
//! (the cell ahead and the two diagonally ahead, [`Tracer`]'s rules), and
//! by nothing else: an atom put on a cell that no decision of the path
//! read leaves the path as it was. Molecules met in number order mostly
//! share every atom but the last, and the molecules before them all but
//! the last two, and so on. A [`Sweep`] keeps the rays of the board of
//! each molecule's first k atoms, for k from 0 to all but one (its
//! *levels*), noting for every cell which rays read it; the board of one
//! more atom is the board before it with the rays that read the new cell
//! traced again. A molecule that shares all but its last atom with the
//! one before costs only the rays that read its last atom's cell: on
//! A6_B8 in the census's order, about a quarter of its rays.
//!
//! Exit pairs are traced once (the ray from the other end follows the same
//! path backwards, with the same length and turns), and only the ray
//! traced marks the cells it read. When a ray that read the new atom's
//! cell comes out elsewhere, its old partner's path changed too (paths are
//! reversible), which is why the partners are traced again with it. A ray
//! that read nothing of the new cell keeps its path, and so does its
//! partner's, the same path backwards.
//!
//! ```
//! use bbx::rules::sweep::Sweep;
//! use bbx::{Molecule, Rules, Tracer};
//! let mut sweep = Sweep::new(4.into(), Rules::Standard);
//! let mut tracer = Tracer::new(4, Rules::Standard);
//! let (mut codes, mut records) = (vec![0u8; 16], [0u32; 6]);
//! // Two atoms, the second at every cell after the first's.
//! for last in 1..16 {
//!     sweep.next(&[0, last]);
//!     tracer.load(&Molecule::new(4, [0, last]).unwrap());
//!     tracer.trace_codes(&mut codes, &mut records);
//!     assert_eq!((sweep.codes(), sweep.records()), (&codes[..], records));
//! }
//! ```

use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules, Tracer, Watch};

/// The most border positions a [`Sweep`] takes: a set of rays is a `u64`.
pub const MAX_SWEEP_POSITIONS: usize = 64;

/// A tracer for molecules met mostly in number order (see the
/// [module](self)): [`next`](Sweep::next) traces a molecule's rays from
/// those of its first atoms, [`trace`](Sweep::trace) from scratch; both
/// leave the spectrum as codes ([`Outcome::code`], one byte a position) and
/// the six record values, as [`Tracer::trace_codes`] gives them.
#[derive(Debug, Clone)]
pub struct Sweep {
    tracer: Tracer,
    /// Border positions.
    positions: usize,
    /// Cells of the padded board.
    cells: usize,
    /// The atoms of the levels kept: level k is the board of the first k.
    level_atoms: Vec<usize>,
    /// Per level, per border position (from 0), the code of its ray.
    level_codes: Vec<u8>,
    /// Per level, per border position, its ray's length and turns.
    level_paths: Vec<(u32, u32)>,
    /// Per level, per border position, the bit of the position its ray
    /// came out at (0 when it was absorbed or reflected).
    level_partners: Vec<u64>,
    /// Per level, per padded cell, the positions whose rays (traced from
    /// them) read it.
    level_readers: Vec<u64>,
    /// Per level, the most turns and the longest path of its rays.
    level_longest: Vec<(u32, u32)>,
    /// Whether the tracer's board holds the levels' atoms (and, with
    /// `leaf`, one more): false after a trace from scratch.
    board_ok: bool,
    /// Whether the board holds an atom after the levels' (the last
    /// molecule's last).
    leaf: bool,
    /// The level the last molecule was traced from.
    base: usize,
    /// The last molecule's codes.
    codes: Vec<u8>,
    /// The last molecule's rays' lengths and turns, where `fresh` says
    /// (its base level's elsewhere).
    paths: Vec<(u32, u32)>,
    /// The positions whose rays were traced for the last molecule.
    fresh: u64,
    /// The most turns and the longest path of the last molecule's rays,
    /// or more.
    longest: (u32, u32),
    /// Rays [`next`](Sweep::next) traced, its levels' included (each exit
    /// pair once).
    pub rays_traced: u64,
    /// Levels [`next`](Sweep::next) traced.
    pub levels_traced: u64,
}

/// Marks the cells a ray reads with its bit.
struct Readers<'a> {
    readers: &'a mut [u64],
    bit: u64,
}

impl Watch for Readers<'_> {
    #[inline(always)]
    fn entry(&mut self, tracer: &Tracer, x: usize, d: usize) {
        self.inside(tracer, x, d);
    }

    #[inline(always)]
    fn inside(&mut self, tracer: &Tracer, x: usize, d: usize) {
        for c in tracer.ahead(x, d) {
            self.readers[c] |= self.bit;
        }
    }
}

impl Sweep {
    /// A sweep of boxes of `shape` (at most [`MAX_SWEEP_POSITIONS`] border
    /// positions) under `rules`.
    ///
    /// # Panics
    /// When the box has more border positions than that.
    pub fn new(shape: Shape, rules: Rules) -> Sweep {
        let n = shape.positions();
        assert!(
            n <= MAX_SWEEP_POSITIONS,
            "a sweep takes boxes of up to {MAX_SWEEP_POSITIONS} border positions"
        );
        let tracer = Tracer::new(shape, rules);
        let cells = tracer.padded_len();
        let mut sweep = Sweep {
            tracer,
            positions: n,
            cells,
            level_atoms: Vec::new(),
            level_codes: vec![0; n],
            level_paths: vec![(0, 0); n],
            level_partners: vec![0; n],
            level_readers: vec![0; cells],
            level_longest: vec![(0, 0)],
            board_ok: true,
            leaf: false,
            base: 0,
            codes: vec![0; n],
            paths: vec![(0, 0); n],
            fresh: 0,
            longest: (0, 0),
            rays_traced: 0,
            levels_traced: 0,
        };
        sweep.empty_level();
        sweep
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.tracer.shape()
    }

    /// The codes of the last molecule traced: the ray from position i+1's
    /// at index i.
    pub fn codes(&self) -> &[u8] {
        &self.codes
    }

    /// The record values of the last molecule traced (see
    /// [`Tracer::trace_codes`]), worked out from its rays on each call.
    pub fn records(&self) -> [u32; 6] {
        let mut r = [0u32; 6];
        let reflected = Outcome::Reflected.code() as u8;
        let miss = Outcome::Miss.code() as u8;
        let base = &self.level_paths[self.base * self.positions..][..self.positions];
        for (i, &c) in self.codes.iter().enumerate() {
            let (length, turns) = if self.fresh >> i & 1 != 0 {
                self.paths[i]
            } else {
                base[i]
            };
            let kind = if c == Outcome::Absorbed.code() as u8 {
                0
            } else if c == reflected || c == miss {
                2
            } else {
                4
            };
            r[kind] = r[kind].max(turns);
            r[kind + 1] = r[kind + 1].max(length);
        }
        r
    }

    /// At least the most turns and the longest path of the last molecule's
    /// rays (those of every ray of the level it was traced from and of the
    /// rays traced again): a bound on its [`records`](Self::records), known
    /// without them.
    pub fn longest(&self) -> (u32, u32) {
        self.longest
    }

    /// The tracer, with the last molecule traced on its board.
    pub fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    /// Traces every ray of the molecule with these atoms (linear cell
    /// indices) from scratch. The levels are kept.
    pub fn trace(&mut self, atoms: &[usize]) {
        self.board_ok = false;
        self.tracer.update_cells(atoms);
        const UNSET: u8 = u8::MAX;
        self.codes.fill(UNSET);
        self.fresh = u64::MAX;
        let mut longest = (0, 0);
        for i in 0..self.positions {
            if self.codes[i] != UNSET {
                continue;
            }
            let t = self.tracer.trace(i + 1);
            self.codes[i] = t.outcome.code() as u8;
            self.paths[i] = (t.length, t.turns);
            if let Outcome::Exit(k) = t.outcome {
                self.codes[k - 1] = Outcome::Exit(i + 1).code() as u8;
                self.paths[k - 1] = (t.length, t.turns);
            }
            longest = (longest.0.max(t.turns), longest.1.max(t.length));
        }
        self.longest = longest;
    }

    /// Traces the molecule with these atoms (sorted linear cell indices)
    /// from the level of all its atoms but the last, made first from the
    /// deepest level it shares with the molecule traced before.
    pub fn next(&mut self, atoms: &[usize]) {
        let Some((&last, first)) = atoms.split_last() else {
            self.trace(atoms);
            return;
        };
        if !self.board_ok {
            self.tracer.load_cells(&self.level_atoms);
            self.board_ok = true;
            self.leaf = false;
        }
        if self.leaf {
            self.tracer.pop_cell();
            self.leaf = false;
        }
        let shared = (self.level_atoms.iter().zip(first))
            .take_while(|(a, b)| a == b)
            .count();
        while self.level_atoms.len() > shared {
            self.level_atoms.pop();
            self.tracer.pop_cell();
        }
        for &a in &first[shared..] {
            self.tracer.push_cell(a);
            self.level_atoms.push(a);
            self.add_level(a);
        }
        self.tracer.push_cell(last);
        self.leaf = true;
        self.leaf_from(first.len(), last);
    }

    /// Level 0: the rays of the empty board.
    fn empty_level(&mut self) {
        const UNSET: u8 = u8::MAX;
        let n = self.positions;
        self.level_codes[..n].fill(UNSET);
        let mut longest = (0, 0);
        for i in 0..n {
            if self.level_codes[i] != UNSET {
                continue;
            }
            let mut watch = Readers {
                readers: &mut self.level_readers[..self.cells],
                bit: 1 << i,
            };
            let t = self.tracer.run_with(i + 1, &mut watch);
            self.level_codes[i] = t.outcome.code() as u8;
            self.level_paths[i] = (t.length, t.turns);
            if let Outcome::Exit(k) = t.outcome {
                self.level_codes[k - 1] = Outcome::Exit(i + 1).code() as u8;
                self.level_paths[k - 1] = (t.length, t.turns);
                self.level_partners[i] = 1 << (k - 1);
                self.level_partners[k - 1] = 1 << i;
            }
            longest = (longest.0.max(t.turns), longest.1.max(t.length));
        }
        self.level_longest[0] = longest;
    }

    /// The positions whose rays at level `j` may change when an atom is
    /// put on padded cell `x`: those that read it, and their partners.
    #[inline]
    fn touched(&self, j: usize, x: usize) -> u64 {
        let readers = self.level_readers[j * self.cells + x];
        let partners = &self.level_partners[j * self.positions..][..self.positions];
        let mut todo = readers;
        let mut bits = readers;
        while bits != 0 {
            todo |= partners[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        todo
    }

    /// Makes level j+1 (j the last level kept) from level j, the atom on
    /// cell `a` added (on the board already).
    fn add_level(&mut self, a: usize) {
        let j = self.level_atoms.len() - 1;
        let (n, cells) = (self.positions, self.cells);
        if self.level_longest.len() < j + 2 {
            self.level_codes.resize((j + 2) * n, 0);
            self.level_paths.resize((j + 2) * n, (0, 0));
            self.level_partners.resize((j + 2) * n, 0);
            self.level_readers.resize((j + 2) * cells, 0);
            self.level_longest.resize(j + 2, (0, 0));
        }
        self.levels_traced += 1;
        let todo = self.touched(j, self.tracer.padded(a));
        self.level_codes
            .copy_within(j * n..(j + 1) * n, (j + 1) * n);
        self.level_paths
            .copy_within(j * n..(j + 1) * n, (j + 1) * n);
        self.level_partners
            .copy_within(j * n..(j + 1) * n, (j + 1) * n);
        let (below, above) = self.level_readers.split_at_mut((j + 1) * cells);
        let readers = &mut above[..cells];
        for (r, &b) in readers.iter_mut().zip(&below[j * cells..]) {
            *r = b & !todo;
        }
        let codes = &mut self.level_codes[(j + 1) * n..][..n];
        let paths = &mut self.level_paths[(j + 1) * n..][..n];
        let partners = &mut self.level_partners[(j + 1) * n..][..n];
        let mut done = 0u64;
        let mut bits = todo;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if done >> i & 1 != 0 {
                continue;
            }
            let mut watch = Readers {
                readers,
                bit: 1 << i,
            };
            let t = self.tracer.run_with(i + 1, &mut watch);
            self.rays_traced += 1;
            done |= 1 << i;
            codes[i] = t.outcome.code() as u8;
            paths[i] = (t.length, t.turns);
            partners[i] = 0;
            if let Outcome::Exit(k) = t.outcome {
                codes[k - 1] = Outcome::Exit(i + 1).code() as u8;
                paths[k - 1] = (t.length, t.turns);
                partners[i] = 1 << (k - 1);
                partners[k - 1] = 1 << i;
                done |= 1 << (k - 1);
            }
        }
        self.level_longest[j + 1] = paths.iter().fold((0, 0), |(t, l), &(length, turns)| {
            (t.max(turns), l.max(length))
        });
    }

    /// Traces the molecule of level `j`'s atoms and the atom on cell `a`
    /// (on the board already).
    fn leaf_from(&mut self, j: usize, a: usize) {
        let n = self.positions;
        self.base = j;
        let todo = self.touched(j, self.tracer.padded(a));
        self.codes
            .copy_from_slice(&self.level_codes[j * n..(j + 1) * n]);
        let mut longest = self.level_longest[j];
        let mut done = 0u64;
        let mut bits = todo;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if done >> i & 1 != 0 {
                continue;
            }
            let t = self.tracer.trace(i + 1);
            self.rays_traced += 1;
            done |= 1 << i;
            self.codes[i] = t.outcome.code() as u8;
            self.paths[i] = (t.length, t.turns);
            if let Outcome::Exit(k) = t.outcome {
                self.codes[k - 1] = Outcome::Exit(i + 1).code() as u8;
                self.paths[k - 1] = (t.length, t.turns);
                done |= 1 << (k - 1);
            }
            longest = (longest.0.max(t.turns), longest.1.max(t.length));
        }
        self.fresh = done;
        self.longest = longest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::config::Config;
    use crate::rules::enumeration::Molecules;

    /// Every molecule of `config`, through `next` in number order, against
    /// the tracer from scratch.
    fn agrees_in_number_order(config: Config, rules: Rules) {
        let mut sweep = Sweep::new(config.shape(), rules);
        let mut tracer = Tracer::new(config.shape(), rules);
        let n = config.shape().positions();
        let (mut codes, mut records) = (vec![0u8; n], [0u32; 6]);
        for m in Molecules::new(config) {
            sweep.next(m.atoms());
            tracer.load(&m);
            tracer.trace_codes(&mut codes, &mut records);
            assert_eq!(sweep.codes(), &codes[..], "{m} {rules}");
            assert_eq!(sweep.records(), records, "{m} {rules}");
            let (turns, length) = sweep.longest();
            assert!(records.iter().step_by(2).all(|&t| t <= turns), "{m}");
            assert!(
                records.iter().skip(1).step_by(2).all(|&l| l <= length),
                "{m}"
            );
        }
    }

    #[test]
    fn the_sweep_traces_as_the_tracer_does_on_every_small_configuration() {
        for cfg in [
            "A0_B3", "A1_B1", "A1_B4", "A2_B2", "A3_B4", "A4_B4", "A3_B5", "A4_B5", "A5_B5",
            "A2_B3x2", "A3_B4x3", "A4_B5x3", "A3_B2x6", "A1_B1x4", "A3_B6x4",
        ] {
            let config: Config = cfg.parse().unwrap();
            agrees_in_number_order(config, Rules::Standard);
            agrees_in_number_order(config, Rules::EdgeMiss);
        }
    }

    #[test]
    fn the_sweep_traces_fewer_rays_than_the_tracer() {
        // A5_B8 in number order: about a third of the rays traced from
        // scratch (exit pairs once either way).
        let config: Config = "A5_B8".parse().unwrap();
        let mut sweep = Sweep::new(config.shape(), Rules::Standard);
        let mut scratch = 0u64;
        let mut traced = Vec::new();
        for (i, m) in Molecules::new(config).take(200_000).enumerate() {
            sweep.next(m.atoms());
            if i % 64 == 0 {
                let mut tracer = Tracer::new(config.shape(), Rules::Standard);
                tracer.load(&m);
                tracer.trace_all(&mut traced);
                let pairs = traced
                    .iter()
                    .enumerate()
                    .filter(|(i, t)| matches!(t.outcome, Outcome::Exit(k) if k - 1 < *i));
                scratch += 64 * (traced.len() - pairs.count()) as u64;
            }
        }
        assert!(
            sweep.rays_traced * 2 < scratch,
            "{} rays against {scratch} from scratch",
            sweep.rays_traced
        );
    }

    #[test]
    fn molecules_out_of_order_and_from_scratch_between_them() {
        // Jumbled molecules, some traced from scratch in between: each one
        // as the tracer has it.
        let config: Config = "A4_B5".parse().unwrap();
        let all: Vec<_> = Molecules::new(config).collect();
        let mut sweep = Sweep::new(config.shape(), Rules::Standard);
        let mut tracer = Tracer::new(config.shape(), Rules::Standard);
        let (mut codes, mut records) = (vec![0u8; 20], [0u32; 6]);
        for k in 0..3000 {
            let m = &all[k * 7919 % all.len()];
            if k % 5 == 0 {
                sweep.trace(m.atoms());
            } else {
                sweep.next(m.atoms());
            }
            tracer.load(m);
            tracer.trace_codes(&mut codes, &mut records);
            assert_eq!(
                (sweep.codes(), sweep.records()),
                (&codes[..], records),
                "{m}"
            );
        }
    }
}
