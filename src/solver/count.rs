//! The molecules that fit, counted exactly without listing them.
//!
//! A ray's way through the box depends only on the cells it passes beside.
//! The count follows each ray shot over the cells decided so far; where its
//! next step depends on an undecided cell, it tries that cell both ways (an
//! atom, then empty). Each branch that every ray shot ends as observed
//! fixes some cells and leaves `u` cells free, and stands for every way of
//! placing the remaining atoms among them: `C(u, k − a)` molecules of `k`
//! atoms when `a` are placed. The branches are disjoint, so their sum is
//! the exact count, however large the box (the 17 trillion molecules of a
//! 10×10 box with 4 to 10 atoms are counted at the opening in one branch).
//! The same walk counts, per cell, the molecules with an atom there, and,
//! following each ray not shot from every branch, how many molecules give
//! each of its outcomes: the chances, the certain cells and the best-ray
//! ranking, all exact. The rules are those of `infer.rs`'s walk (one step
//! function for both), apart from the tracer of `rules/ray.rs`, and the tests
//! check the three against each other and against brute force.
//!
//! A branch costs little more than its last step: each ray goes on from
//! where it stood in the branch above (not from its entry), and each
//! decided cell's share of the molecules is settled once, when the walk
//! leaves it, from what the branches below it gathered.
//!
//! The work grows with the branches, not with the molecules: few rays, or
//! rays that pin the atoms down, are quick; many rays on a large box with
//! many atoms can branch widely, and the count then stops at its limit of
//! branches ([`COUNT_NODES`]) and says so, for a sample to estimate.
//!
//! ```
//! use bbx::control::Budget;
//! use bbx::solver::count::{Prior, count};
//! use bbx::{Observation, Rules};
//! let seen = Observation::parse("?@??????????????????????????????", "t").unwrap();
//! let c = count(&seen, Rules::Standard, 4..=4, &Budget::default()).unwrap().value.unwrap();
//! assert_eq!(c.total(), 229_246);
//! let chances = c.chances(Prior::Molecules);
//! assert!(chances.iter().all(|&q| (0.0..=1.0).contains(&q)));
//! ```

use std::ops::RangeInclusive;

use crate::control::{Budget, Ended, Finished, Halt, Ticker};
use crate::error::Error;
use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;
use crate::rules::symmetry::Transform;
use crate::solver::Certainty;
use crate::solver::infer::{At, trace_known_from};
use crate::solver::solution::{OutcomeClass, Split, best_first};

/// The most branches a count walks before it stops (then
/// [`Ended::TooLarge`]): a few seconds' work.
pub const COUNT_NODES: u64 = 20_000_000;

/// The most branches the ranking walks (following the rays not shot from
/// every branch of the count) before it gives up, leaving the ranking to a
/// sample ([`Counted::sample`]): about a second's work.
pub const RANK_NODES: u64 = 3_000_000;

/// The most branches of the count kept, to draw a uniform sample of the
/// molecules that fit from them.
pub const KEPT_LEAVES: usize = 2_000_000;

/// How likely each molecule is, before any ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prior {
    /// Every molecule equally likely, whatever its count of atoms.
    #[default]
    Molecules,
    /// Every count of the range equally likely, then every molecule of that
    /// count (how Tatham's generator, and bbx's games of a range, draw).
    CountsFirst,
}

/// What an exact count found.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    shape: Shape,
    atoms: RangeInclusive<usize>,
    /// Per count of the range (from the fewest): the molecules that fit.
    by_atoms: Vec<u128>,
    /// Per cell, per count: the molecules that fit with an atom there.
    cells: Vec<Vec<u128>>,
    /// Per border position not shot, per outcome code, per count: the
    /// molecules that fit and give that outcome (`None` for a ray shot).
    /// Empty when the ranking was too large to walk ([`Counted::ranked`]).
    rays: Vec<Option<Vec<Vec<u128>>>>,
    /// The branches of the count, to draw molecules from (empty when they
    /// were too many to keep).
    leaves: Leaves,
    /// Branches walked.
    pub branches: u64,
}

/// The branches of a count, one after the other in three flat lists (a
/// count keeps up to [`KEPT_LEAVES`] of them): each one's cells decided,
/// and the molecules of each count it stands for.
#[derive(Debug, Clone, PartialEq, Default)]
struct Leaves {
    /// Counts of atoms in the range.
    counts: usize,
    /// Every branch's cells decided (cell, atom), one branch after another.
    cells: Vec<(u32, bool)>,
    /// Where each branch's cells end in `cells`.
    ends: Vec<usize>,
    /// Per branch, per count of the range: its molecules.
    ways: Vec<u128>,
}

impl Leaves {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Branch `l`'s cells decided.
    fn decided(&self, l: usize) -> &[(u32, bool)] {
        let start = l.checked_sub(1).map_or(0, |p| self.ends[p]);
        &self.cells[start..self.ends[l]]
    }

    /// Branch `l`'s molecules of each count.
    fn ways(&self, l: usize) -> &[u128] {
        &self.ways[l * self.counts..(l + 1) * self.counts]
    }

    /// The atoms branch `l` placed, and the cells it left free, of a box of
    /// `cells` cells.
    fn placed_and_free(&self, l: usize, cells: usize) -> (Vec<usize>, Vec<usize>) {
        let mut known = vec![None; cells];
        let mut placed = Vec::new();
        for &(c, v) in self.decided(l) {
            known[c as usize] = Some(v);
            if v {
                placed.push(c as usize);
            }
        }
        let free = (0..cells).filter(|&c| known[c].is_none()).collect();
        (placed, free)
    }
}

impl Counted {
    /// Whether every ray not shot was followed through every branch: the
    /// ranking of [`Counted::splits`] is exact. Otherwise it is empty, and
    /// [`Counted::sample`] draws molecules to rank on.
    pub fn ranked(&self) -> bool {
        !self.rays.is_empty()
    }

    /// `n` molecules drawn at random among those that fit, each as likely
    /// as `prior` makes it, from the branches of the count (no molecule is
    /// drawn and refused); `None` when the branches were too many to keep,
    /// or none fits.
    pub fn sample(
        &self,
        n: usize,
        prior: Prior,
        rng: &mut impl rand::Rng,
    ) -> Option<Vec<crate::rules::board::Molecule>> {
        use rand::RngExt as _;
        if self.leaves.is_empty() || self.total() == 0 {
            return None;
        }
        let w = self.weights(prior);
        // Each (branch, count) weighed by its molecules and their prior.
        let mut cumulative = Vec::with_capacity(self.leaves.len() * w.len());
        let mut acc = 0.0;
        for l in 0..self.leaves.len() {
            for (i, &ways) in self.leaves.ways(l).iter().enumerate() {
                if ways > 0 {
                    acc += ways as f64 * w[i];
                    cumulative.push((acc, l, i));
                }
            }
        }
        let k0 = *self.atoms.start();
        let cells = self.shape.cells();
        let mut out = Vec::with_capacity(n);
        // The atoms placed and the cells free of the branch drawn last: a
        // branch's free cells are the whole box less a few, and draws often
        // come from one branch (all of them, before any ray).
        let mut last: Option<(usize, Vec<usize>, Vec<usize>)> = None;
        for _ in 0..n {
            let x = rng.random::<f64>() * acc;
            let at = cumulative
                .partition_point(|c| c.0 < x)
                .min(cumulative.len() - 1);
            let (_, l, i) = cumulative[at];
            if last.as_ref().is_none_or(|(drawn, _, _)| *drawn != l) {
                let (placed, free) = self.leaves.placed_and_free(l, cells);
                last = Some((l, placed, free));
            }
            let (_, placed, free) = last.as_ref()?;
            let mut atoms = placed.clone();
            let more = (k0 + i).saturating_sub(atoms.len());
            atoms.extend(
                rand::seq::index::sample(rng, free.len(), more)
                    .iter()
                    .map(|j| free[j]),
            );
            atoms.sort_unstable();
            out.push(crate::rules::board::Molecule::new(self.shape, atoms).ok()?);
        }
        Some(out)
    }

    /// Every molecule that fits, in number order (by count of atoms, then
    /// by number), listed from the branches of the count: `None` when more
    /// than `limit` fit, or the branches were too many to keep.
    pub fn molecules(&self, limit: usize) -> Option<Vec<crate::rules::board::Molecule>> {
        use itertools::Itertools as _;
        if self.total() > limit as u128 || (self.leaves.is_empty() && self.total() > 0) {
            return None;
        }
        let k0 = *self.atoms.start();
        let cells = self.shape.cells();
        let mut out = Vec::with_capacity(self.total() as usize);
        for l in 0..self.leaves.len() {
            let (placed, free) = self.leaves.placed_and_free(l, cells);
            for (i, &ways) in self.leaves.ways(l).iter().enumerate() {
                if ways == 0 {
                    continue;
                }
                let more = (k0 + i).checked_sub(placed.len())?;
                for extra in free.iter().copied().combinations(more) {
                    let mut atoms = placed.clone();
                    atoms.extend(extra);
                    atoms.sort_unstable();
                    out.push(crate::rules::board::Molecule::new(self.shape, atoms).ok()?);
                }
            }
        }
        out.sort_by_cached_key(|m| (m.atoms().len(), crate::rules::enumeration::rank(m)));
        Some(out)
    }

    /// The molecules that fit, every count together.
    pub fn total(&self) -> u128 {
        self.by_atoms.iter().sum()
    }

    /// Per count of atoms of the range, the molecules that fit.
    pub fn by_atoms(&self) -> Vec<(usize, u128)> {
        self.atoms
            .clone()
            .zip(self.by_atoms.iter().copied())
            .collect()
    }

    /// The prior weight of one molecule of each count (relative).
    fn weights(&self, prior: Prior) -> Vec<f64> {
        let n = self.shape.cells() as u64;
        self.atoms
            .clone()
            .map(|k| match prior {
                Prior::Molecules => 1.0,
                Prior::CountsFirst => 1.0 / binomial_f64(n, k as u64),
            })
            .collect()
    }

    /// Mass of per-count counts `c` under the weights.
    fn mass(c: &[u128], w: &[f64]) -> f64 {
        c.iter().zip(w).map(|(&n, &w)| n as f64 * w).sum()
    }

    /// Per cell, the chance of an atom there under `prior`, given the rays
    /// (all zero when nothing fits).
    pub fn chances(&self, prior: Prior) -> Vec<f64> {
        let w = self.weights(prior);
        let total = Counted::mass(&self.by_atoms, &w);
        self.cells
            .iter()
            .map(|c| {
                if total > 0.0 {
                    (Counted::mass(c, &w) / total).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Per cell, what holds in every molecule that fits (`None` when none
    /// fits).
    pub fn certainty(&self) -> Option<Vec<Certainty>> {
        let total = self.total();
        (total > 0).then(|| {
            self.cells
                .iter()
                .map(|c| match c.iter().sum::<u128>() {
                    0 => Certainty::Empty,
                    n if n == total => Certainty::Atom,
                    _ => Certainty::Undecided,
                })
                .collect()
        })
    }

    /// The rays not shot that tell the molecules apart, best first: the
    /// molecules that give each outcome, the molecules expected to be left
    /// after the ray under `prior` (each outcome's molecules, weighed by its
    /// chance), and the bits it tells.
    pub fn splits(&self, prior: Prior) -> Vec<Split> {
        let w = self.weights(prior);
        let total = Counted::mass(&self.by_atoms, &w);
        let mut out = Vec::new();
        for (i, ray) in self.rays.iter().enumerate() {
            let Some(codes) = ray else { continue };
            let classes: Vec<(Outcome, &Vec<u128>)> = codes
                .iter()
                .enumerate()
                .filter(|(_, c)| c.iter().any(|&n| n > 0))
                .map(|(code, c)| (Outcome::from_code(code), c))
                .collect();
            if classes.len() < 2 || total <= 0.0 {
                continue;
            }
            // Summed smallest first, so that rays which are images of each
            // other (the same terms in another order) tie exactly.
            let mut terms: Vec<(f64, f64)> = classes
                .iter()
                .map(|(_, c)| {
                    let p = Counted::mass(c, &w) / total;
                    let left: u128 = c.iter().sum();
                    let bits = if p > 0.0 { -p * p.log2() } else { 0.0 };
                    (p * left as f64, bits)
                })
                .collect();
            terms.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let mut expected: f64 = terms.iter().map(|t| t.0).sum();
            if prior == Prior::Molecules || self.by_atoms.len() == 1 {
                // Every molecule alike: the sum of squares over the count,
                // exactly as a list of the molecules gives it.
                let squares: u128 = classes
                    .iter()
                    .map(|(_, c)| c.iter().sum::<u128>().pow(2))
                    .sum();
                expected = squares as f64 / self.total() as f64;
            }
            let entropy: f64 = terms.iter().map(|t| t.1).sum();
            let mut classes: Vec<OutcomeClass> = classes
                .into_iter()
                .map(|(outcome, c)| OutcomeClass {
                    outcome,
                    count: c.iter().sum::<u128>().min(usize::MAX as u128) as usize,
                })
                .collect();
            classes.sort_by(|a, b| b.count.cmp(&a.count).then(a.outcome.cmp(&b.outcome)));
            out.push(Split {
                position: i + 1,
                classes,
                expected_remaining: expected,
                entropy,
            });
        }
        best_first(&mut out);
        out
    }
}

/// `C(n, k)` as a float (for weights).
fn binomial_f64(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::INFINITY;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Why a count stopped: cut by its budget, or failed as
/// [`Ended::TooLarge`] past its limit of branches.
type Stop = Halt<Ended>;

/// The walk of a count.
struct Walk<'b> {
    shape: Shape,
    rules: Rules,
    /// The rays shot: each once, from the end it was shot at, with its
    /// index in [`Walk::saved`].
    shot: Vec<(usize, Outcome, usize)>,
    /// Per ray shot, then per border position (a ray followed): where the
    /// ray stood when the cells decided no longer told its way, or `None`
    /// once it ended as observed, each with the length of the trail then
    /// (valid in the branches below: a ray goes on from there, not from
    /// its entry).
    saved: Vec<Vec<(usize, Option<At>)>>,
    /// The indices of [`Walk::saved`] in the order their states were saved.
    saved_order: Vec<usize>,
    /// The border positions not shot.
    unshot: Vec<usize>,
    min: usize,
    max: usize,
    known: Vec<Option<bool>>,
    /// The cells decided, in order (the branch's trail).
    trail: Vec<usize>,
    placed: usize,
    free: usize,
    /// `binom[n][j]` = C(n, j) for j up to the most atoms.
    binom: Vec<Vec<u128>>,
    by_atoms: Vec<u128>,
    /// Per cell, per count: molecules with an atom there, less what every
    /// free cell gets ([`Walk::free_share`]).
    cells: Vec<Vec<i128>>,
    /// Per count: what every free cell of every branch got.
    free_share: Vec<i128>,
    /// Per depth of the trail, per count (a row of [`Walk::by_atoms`]'s
    /// length a depth): the molecules of the branches below the cell
    /// decided there and their free cells' share, gathered as the walk
    /// goes ([`Walk::gathered`] says where a branch below was whole). When
    /// the cell is undone they are its due in [`Walk::cells`] and pass to
    /// the cell above it, so that a branch costs the same however many
    /// cells it decided.
    below: Vec<(u128, i128)>,
    /// Per depth of the trail: whether [`Walk::below`] holds anything there
    /// (else its row is to be written, not added to).
    gathered: Vec<bool>,
    /// Scratch of [`Walk::leaf`].
    scratch: Vec<(u128, i128)>,
    rays: Vec<Option<Vec<Vec<u128>>>>,
    /// Whether the branches follow the rays not shot (else they are kept).
    rank: bool,
    /// The rays not shot followed, each the first of its class under the
    /// symmetries that keep the rays shot (the others are its images).
    followed: Vec<usize>,
    leaves: Option<Leaves>,
    /// Bytes the leaves kept take, and the most they may.
    leaf_bytes: u64,
    leaf_bound: u64,
    /// The ray being followed, and where it ended.
    following: usize,
    outcome: Outcome,
    branches: u64,
    limit: u64,
    ticker: Ticker<'b>,
}

impl Walk<'_> {
    /// Molecules of `k` atoms a branch stands for: `C(free, k − placed)`.
    fn ways(&self, k: usize, free: usize, placed: usize) -> u128 {
        if k < placed || k - placed > free {
            0
        } else {
            self.binom[free][k - placed]
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.branches += 1;
        if self.branches > self.limit {
            return Err(Halt::Failed(Ended::TooLarge));
        }
        Ok(self.ticker.tick()?)
    }

    fn decide(&mut self, c: usize, atom: bool) {
        self.known[c] = Some(atom);
        self.trail.push(c);
        self.free -= 1;
        if atom {
            self.placed += 1;
        }
    }

    fn undo(&mut self) {
        if let Some(c) = self.trail.pop() {
            let atom = self.known[c] == Some(true);
            // The branches below `c`: each free cell's share, taken back
            // from `c`, which was decided there; their molecules, when
            // `c` holds an atom in all of them. Then they are the cell's
            // above.
            let depth = self.trail.len();
            if self.gathered.get(depth).is_some_and(|&g| g) {
                self.gathered[depth] = false;
                let counts = self.by_atoms.len();
                let (above, here) = self.below.split_at_mut(depth * counts);
                let here = &here[..counts];
                let row = &mut self.cells[c];
                for (i, &(w, share)) in here.iter().enumerate() {
                    row[i] -= share;
                    if atom {
                        row[i] += w as i128;
                    }
                }
                if depth > 0 {
                    let up = &mut above[(depth - 1) * counts..];
                    if self.gathered[depth - 1] {
                        for (u, h) in up.iter_mut().zip(here) {
                            u.0 += h.0;
                            u.1 += h.1;
                        }
                    } else {
                        up.copy_from_slice(here);
                        self.gathered[depth - 1] = true;
                    }
                }
            }
            if atom {
                self.placed -= 1;
            }
            self.known[c] = None;
            self.free += 1;
            // The rays' states saved below this cell no longer hold.
            let len = self.trail.len();
            while let Some(&id) = self.saved_order.last() {
                if self.saved[id].last().is_none_or(|&(at, _)| at <= len) {
                    break;
                }
                self.saved[id].pop();
                self.saved_order.pop();
            }
        }
    }

    /// Adds `sums` (per count: molecules, free cells' share) to what the
    /// branches below the cell at `depth` of the trail gathered.
    fn gather(&mut self, depth: usize, sums: &[(u128, i128)]) {
        let counts = sums.len();
        if self.gathered.len() <= depth {
            self.gathered.resize(depth + 1, false);
            self.below.resize((depth + 1) * counts, (0, 0));
        }
        let row = &mut self.below[depth * counts..(depth + 1) * counts];
        if self.gathered[depth] {
            for (r, s) in row.iter_mut().zip(sums) {
                r.0 += s.0;
                r.1 += s.1;
            }
        } else {
            row.copy_from_slice(sums);
            self.gathered[depth] = true;
        }
    }

    /// Saves where ray `id` stands in this branch (`None`: it ended as
    /// observed).
    fn save(&mut self, id: usize, at: Option<At>) {
        let len = self.trail.len();
        if let Some(last) = self.saved[id].last_mut().filter(|(l, _)| *l == len) {
            last.1 = at;
        } else {
            self.saved[id].push((len, at));
            self.saved_order.push(id);
        }
    }

    /// Whether a branch with these atoms placed can still reach the range.
    fn feasible(&self) -> bool {
        self.placed <= self.max && self.placed + self.free >= self.min
    }

    /// Where the rays shot stand over the cells decided: one of them
    /// cannot end as observed, one needs an undecided cell, or all end as
    /// observed.
    fn probe_shot(&mut self) -> Probe {
        if !self.feasible() {
            return Probe::Prune;
        }
        let filled = self.placed == self.max;
        for i in 0..self.shot.len() {
            let (pos, seen, id) = self.shot[i];
            let from = match self.saved[id].last() {
                Some((_, None)) => continue,
                Some(&(_, at)) => at,
                None => None,
            };
            match trace_known_from(&self.known, filled, self.shape, self.rules, pos, from) {
                Ok(o) if o == seen => self.save(id, None),
                Ok(_) => return Probe::Prune,
                Err((c, at)) => {
                    self.save(id, Some(at));
                    // The rays checked before this one were fine: look at
                    // this one first in the branches below.
                    self.shot.swap(0, i);
                    return Probe::Need(c);
                }
            }
        }
        Probe::Done
    }

    /// Walks the branches under the cells decided so far, depth first
    /// (with a stack of its own, so that a large box's deep branches need
    /// no deep recursion): each cell a probe needs tried as an atom, then
    /// empty; `done` called on every branch where the probe says so. The
    /// cells decided are as they were when it returns whole.
    fn walk_branches(
        &mut self,
        probe: fn(&mut Self) -> Probe,
        done: &mut dyn FnMut(&mut Self) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let mut stack: Vec<(usize, bool)> = Vec::new();
        loop {
            self.tick()?;
            match probe(self) {
                Probe::Need(c) => {
                    self.decide(c, true);
                    stack.push((c, false));
                    continue;
                }
                Probe::Done => done(self)?,
                Probe::Prune => {}
            }
            // Back to the last cell tried as an atom only: now empty.
            loop {
                let Some((c, emptied)) = stack.pop() else {
                    return Ok(());
                };
                self.undo();
                if !emptied {
                    self.decide(c, false);
                    stack.push((c, true));
                    break;
                }
            }
        }
    }

    /// The branches under the cells decided so far.
    fn branch(&mut self) -> Result<(), Stop> {
        self.walk_branches(Walk::probe_shot, &mut |w| w.leaf())
    }

    /// Every ray shot ends as observed: the molecules of this branch
    /// (counted, or their rays not shot followed).
    fn leaf(&mut self) -> Result<(), Stop> {
        if self.rank {
            return self.follow_all();
        }
        let (free, placed) = (self.free, self.placed);
        let ks = self.min..=self.max;
        let mut sums = std::mem::take(&mut self.scratch);
        sums.clear();
        for (i, k) in ks.clone().enumerate() {
            let w = self.ways(k, free, placed);
            self.by_atoms[i] += w;
            // Each free cell holds an atom in C(free − 1, k − placed − 1)
            // of them; a decided cell in all of them or none.
            let share = if free > 0 && k > placed {
                self.ways(k - 1, free - 1, placed) as i128
            } else {
                0
            };
            self.free_share[i] += share;
            sums.push((w, share));
        }
        if let Some(depth) = self.trail.len().checked_sub(1) {
            self.gather(depth, &sums);
        }
        let bytes = 8 + 8 * self.trail.len() as u64 + 16 * self.by_atoms.len() as u64;
        if self.leaves.as_ref().is_some_and(|l| l.len() >= KEPT_LEAVES)
            || self.leaf_bytes + bytes > self.leaf_bound
        {
            self.leaves = None;
        } else if let Some(leaves) = &mut self.leaves {
            self.leaf_bytes += bytes;
            let known = &self.known;
            let decided = (self.trail.iter()).map(|&c| (c as u32, known[c] == Some(true)));
            leaves.cells.extend(decided);
            leaves.ends.push(leaves.cells.len());
            leaves.ways.extend(sums.iter().map(|&(w, _)| w));
        }
        self.scratch = sums;
        Ok(())
    }

    /// Follows every ray not shot (one of each class) from the branch.
    fn follow_all(&mut self) -> Result<(), Stop> {
        for j in 0..self.followed.len() {
            let q = self.followed[j];
            let mark = self.trail.len();
            let r = self.follow(q);
            while self.trail.len() > mark {
                self.undo();
            }
            r?;
        }
        Ok(())
    }

    /// Follows the ray from `q` (not shot) from the branch, trying the cells
    /// it needs both ways, and counts its outcomes.
    fn follow(&mut self, q: usize) -> Result<(), Stop> {
        self.following = q;
        self.walk_branches(Walk::probe_followed, &mut |w| {
            w.count_followed();
            Ok(())
        })
    }

    /// Where the ray followed stands over the cells decided.
    fn probe_followed(&mut self) -> Probe {
        if !self.feasible() {
            return Probe::Prune;
        }
        let filled = self.placed == self.max;
        let id = self.shot.len() + self.following - 1;
        let from = self.saved[id].last().and_then(|&(_, at)| at);
        let (known, shape, rules) = (&self.known, self.shape, self.rules);
        match trace_known_from(known, filled, shape, rules, self.following, from) {
            Ok(o) => {
                self.outcome = o;
                Probe::Done
            }
            Err((c, at)) => {
                self.save(id, Some(at));
                Probe::Need(c)
            }
        }
    }

    /// Counts the molecules of the branch under the outcome of the ray
    /// followed.
    fn count_followed(&mut self) {
        let (free, placed) = (self.free, self.placed);
        let counts: Vec<u128> = (self.min..=self.max)
            .map(|k| self.ways(k, free, placed))
            .collect();
        let table = self.rays[self.following - 1].get_or_insert_with(Vec::new);
        let code = self.outcome.code();
        if table.len() <= code {
            table.resize(code + 1, vec![0; counts.len()]);
        }
        for (t, n) in table[code].iter_mut().zip(counts) {
            *t += n;
        }
    }
}

/// What a probe of the branches says.
enum Probe {
    /// No molecule of this branch can fit.
    Prune,
    /// The way on needs this undecided cell.
    Need(usize),
    /// This branch is whole.
    Done,
}

/// Counts the molecules of `atoms` atoms (one count or a range) that fit
/// `observed` under `rules`, within `budget`: per count and per cell,
/// exactly, then, unless that is too large to walk ([`RANK_NODES`]), per ray
/// not shot ([`Counted::ranked`]; left out when that is too large to walk or
/// the deadline comes first). Nothing (`None`) when the budget or the limit
/// of branches of the count ([`Ended::TooLarge`]) stopped the count itself.
pub fn count(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    budget: &Budget,
) -> Result<Finished<Option<Counted>>, Error> {
    let shape = observed.shape();
    let n = shape.cells();
    let (min, max) = (*atoms.start(), (*atoms.end()).min(n));
    if min > max {
        return Err(Error::invalid(format!(
            "{} to {} atoms in a box of {n} cells",
            atoms.start(),
            atoms.end()
        )));
    }
    if let Err(cut) = budget.check() {
        return Ok(Finished::new(None, Ended::from(cut)));
    }
    let counts = max - min + 1;
    let mut binom = vec![vec![0u128; max + 1]; n + 1];
    for row in binom.iter_mut() {
        row[0] = 1;
    }
    for i in 1..=n {
        for j in 1..=max.min(i) {
            binom[i][j] = binom[i - 1][j - 1].saturating_add(binom[i - 1][j]);
        }
    }
    let positions = shape.positions();
    let shot: Vec<(usize, Outcome, usize)> = (observed.rays().into_iter().enumerate())
        .map(|(id, (pos, seen))| (pos, seen, id))
        .collect();
    let unshot: Vec<usize> = (1..=positions)
        .filter(|&q| observed.get(q).is_none())
        .collect();
    // The symmetries of the box that keep the rays shot: a ray not shot
    // tells what its images tell.
    let keep: Vec<Transform> = Transform::of(shape)
        .iter()
        .copied()
        .filter(|&t| t != Transform::Id)
        .filter(|&t| {
            (1..=positions).all(|q| {
                observed.get(t.position(shape, q)) == observed.get(q).map(|o| image(t, shape, o))
            })
        })
        .collect();
    let followed: Vec<usize> = unshot
        .iter()
        .copied()
        .filter(|&q| keep.iter().all(|&t| t.position(shape, q) >= q))
        .collect();
    let mut walk = Walk {
        shape,
        rules,
        saved: vec![Vec::new(); shot.len() + positions],
        saved_order: Vec::new(),
        shot,
        unshot,
        min,
        max,
        known: vec![None; n],
        trail: Vec::new(),
        placed: 0,
        free: n,
        binom,
        by_atoms: vec![0; counts],
        cells: vec![vec![0; counts]; n],
        free_share: vec![0; counts],
        below: Vec::new(),
        gathered: Vec::new(),
        scratch: Vec::new(),
        rays: vec![None; positions],
        rank: false,
        followed,
        leaves: Some(Leaves {
            counts,
            ..Leaves::default()
        }),
        leaf_bytes: 0,
        leaf_bound: budget.memory_or(crate::solver::DEFAULT_MEMORY) / 4,
        following: 0,
        outcome: Outcome::Miss,
        branches: 0,
        limit: COUNT_NODES,
        ticker: budget.ticker(1024),
    };
    let counted = ended(walk.branch());
    if !counted.is_complete() {
        return Ok(Finished::new(None, counted));
    }
    let branches = walk.branches;
    // The ranking: from every branch kept, or by walking the count again.
    walk.rank = true;
    walk.limit = branches + RANK_NODES;
    let leaves = walk.leaves.take();
    for &q in &walk.followed {
        walk.rays[q - 1] = Some(Vec::new());
    }
    let ranked = match &leaves {
        Some(leaves) => {
            let mut r = Ok(());
            for l in 0..leaves.len() {
                for &(c, v) in leaves.decided(l) {
                    walk.decide(c as usize, v);
                }
                r = walk.follow_all();
                while !walk.trail.is_empty() {
                    walk.undo();
                }
                if r.is_err() {
                    break;
                }
            }
            ended(r)
        }
        None => ended(walk.branch()),
    };
    let rays = match ranked {
        Ended::Complete => {
            let mut rays: Vec<Option<Vec<Vec<u128>>>> = walk
                .rays
                .into_iter()
                .map(|r| {
                    r.map(|mut t| {
                        t.resize(Outcome::codes(positions), vec![0; counts]);
                        t
                    })
                })
                .collect();
            // Each ray not followed from its class's first.
            for &q in &walk.unshot {
                if rays[q - 1].is_some() {
                    continue;
                }
                let Some((t, first)) = keep
                    .iter()
                    .flat_map(|&t| walk.followed.iter().map(move |&f| (t, f)))
                    .find(|&(t, f)| t.position(shape, f) == q)
                else {
                    continue;
                };
                let mut table = vec![vec![0u128; counts]; Outcome::codes(positions)];
                if let Some(src) = &rays[first - 1] {
                    for (code, c) in src.iter().enumerate() {
                        let o = image(t, shape, Outcome::from_code(code));
                        table[o.code()] = c.clone();
                    }
                }
                rays[q - 1] = Some(table);
            }
            rays
        }
        // The count stands without its ranking (which a sample of it
        // gives): too many branches to follow every ray, or no time left.
        Ended::TooLarge | Ended::TimedOut => Vec::new(),
        cut => return Ok(Finished::new(None, cut)),
    };
    let cells = walk
        .cells
        .iter()
        .map(|row| {
            row.iter()
                .zip(&walk.free_share)
                .map(|(&c, &s)| (c + s).max(0) as u128)
                .collect()
        })
        .collect();
    Ok(Finished::complete(Some(Counted {
        shape,
        atoms: min..=max,
        by_atoms: walk.by_atoms,
        cells,
        rays,
        leaves: leaves.unwrap_or_default(),
        branches: walk.branches,
    })))
}

/// How a walk ended.
fn ended(r: Result<(), Stop>) -> Ended {
    match r {
        Ok(()) => Ended::Complete,
        Err(Halt::Cut(cut)) => Ended::from(cut),
        Err(Halt::Failed(ended)) => ended,
    }
}

/// An outcome seen through the symmetry `t`.
fn image(t: Transform, shape: Shape, o: Outcome) -> Outcome {
    match o {
        Outcome::Exit(k) => Outcome::Exit(t.position(shape, k)),
        o => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Molecule;
    use crate::rules::config::Config;
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    /// Brute force: every molecule of every count, traced by the tracer.
    fn brute(observed: &Observation, rules: Rules, atoms: RangeInclusive<usize>) -> Vec<Molecule> {
        atoms
            .flat_map(|k| Molecules::new(Config::shaped(k, observed.shape()).unwrap()))
            .filter(|m| observed.matches(&Spectrum::of(m, rules)))
            .collect()
    }

    fn check(observed: &Observation, rules: Rules, atoms: RangeInclusive<usize>) {
        let c = count(observed, rules, atoms.clone(), &Budget::default())
            .unwrap()
            .whole()
            .unwrap()
            .unwrap();
        let fit = brute(observed, rules, atoms.clone());
        assert_eq!(c.total(), fit.len() as u128, "{observed}");
        // Listed from the count: the same molecules, in number order.
        assert_eq!(c.molecules(fit.len()).as_ref(), Some(&fit), "{observed}");
        if !fit.is_empty() {
            assert_eq!(c.molecules(fit.len() - 1), None, "{observed}");
        }
        for (k, n) in c.by_atoms() {
            let m = fit.iter().filter(|m| m.atoms().len() == k).count();
            assert_eq!(n, m as u128, "{observed}, {k} atoms");
        }
        // Per cell.
        let cells = observed.shape().cells();
        let chances = c.chances(Prior::Molecules);
        for (i, &p) in chances.iter().enumerate().take(cells) {
            let with = fit.iter().filter(|m| m.atoms().contains(&i)).count();
            let want = if fit.is_empty() {
                0.0
            } else {
                with as f64 / fit.len() as f64
            };
            assert!(
                (p - want).abs() < 1e-9,
                "{observed}: cell {i}: {p} vs {want}"
            );
        }
        // Under the prior that draws the count first.
        let n = observed.shape().cells() as u64;
        let weight = |m: &Molecule| 1.0 / binomial_f64(n, m.atoms().len() as u64);
        let mass: f64 = fit.iter().map(weight).sum();
        for (i, &p) in c.chances(Prior::CountsFirst).iter().enumerate() {
            let with: f64 = fit
                .iter()
                .filter(|m| m.atoms().contains(&i))
                .map(weight)
                .sum();
            let want = if fit.is_empty() { 0.0 } else { with / mass };
            assert!(
                (p - want).abs() < 1e-9,
                "{observed}: cell {i}: {p} vs {want}"
            );
        }
        // Per ray not shot.
        let spectra: Vec<Spectrum> = fit.iter().map(|m| Spectrum::of(m, rules)).collect();
        for s in c.splits(Prior::Molecules) {
            let mut want: Vec<(Outcome, usize)> = Vec::new();
            for sp in &spectra {
                let o = sp.get(s.position);
                match want.iter_mut().find(|(x, _)| *x == o) {
                    Some(e) => e.1 += 1,
                    None => want.push((o, 1)),
                }
            }
            let brute = Split::new(s.position, want);
            assert_eq!(s.classes, brute.classes, "{observed}: ray {}", s.position);
            assert!((s.expected_remaining - brute.expected_remaining).abs() < 1e-6);
        }
        let splitting = (1..=observed.shape().positions())
            .filter(|&q| observed.get(q).is_none())
            .filter(|&q| {
                let first = spectra.first().map(|s| s.get(q));
                spectra.iter().any(|s| Some(s.get(q)) != first)
            })
            .count();
        assert_eq!(c.splits(Prior::Molecules).len(), splitting, "{observed}");
    }

    #[test]
    fn the_count_is_the_brute_forces_on_small_boxes() {
        use rand::SeedableRng as _;
        use rand::seq::IndexedRandom as _;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(5);
        for (config, atoms, rules) in [
            ("A2_B4", 2..=2, Rules::Standard),
            ("A3_B4", 1..=4, Rules::Standard),
            ("A3_B5", 3..=3, Rules::EdgeMiss),
            ("A3_B5x4", 2..=4, Rules::Standard),
            ("A4_B5", 4..=4, Rules::Standard),
        ] {
            let config: Config = config.parse().unwrap();
            let all: Vec<Molecule> = Molecules::new(config).collect();
            for rays in [0usize, 1, 2, 4, 7] {
                let hidden = all.choose(&mut rng).unwrap();
                let s = Spectrum::of(hidden, rules);
                let mut seen = Observation::empty(config.shape());
                let mut order: Vec<usize> = (1..=config.shape().positions()).collect();
                use rand::seq::SliceRandom as _;
                order.shuffle(&mut rng);
                for &q in order.iter().take(rays) {
                    seen.record(q, s.get(q));
                }
                check(&seen, rules, atoms.clone());
            }
        }
    }

    #[test]
    fn contradictions_count_nothing_and_a_huge_box_counts_at_once() {
        let mut seen = Observation::empty(4);
        seen.record(1, Outcome::Absorbed);
        let c = count(&seen, Rules::Standard, 0..=0, &Budget::default()).unwrap();
        assert_eq!(c.value.map(|c| c.total()), Some(0));
        // Tatham's 10×10 with 4 to 10 balls: every molecule, at the opening.
        let open = Observation::empty(10);
        let c = count(&open, Rules::Standard, 4..=10, &Budget::default())
            .unwrap()
            .whole()
            .unwrap()
            .unwrap();
        let want: u128 = (4..=10u64)
            .map(|k| binomial_f64(100, k).round() as u128)
            .sum();
        assert_eq!(c.total(), want);
        assert!(
            c.chances(Prior::CountsFirst)
                .iter()
                .all(|&p| (p - 0.07).abs() < 1e-9)
        );
        // Its ranking is too wide to walk: a sample is drawn instead.
        assert!(!c.ranked());
        let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let drawn = c.sample(100, Prior::CountsFirst, &mut rng).unwrap();
        assert!(drawn.iter().all(|m| (4..=10).contains(&m.atoms().len())));
    }

    /// The molecules drawn from the branches all fit, each as likely as
    /// the prior makes it.
    #[test]
    fn a_sample_draws_every_molecule_that_fits_as_likely() {
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let s = Spectrum::of(&hidden, Rules::Standard);
        let mut seen = Observation::empty(4);
        for q in [1, 6, 11] {
            seen.record(q, s.get(q));
        }
        let c = count(&seen, Rules::Standard, 1..=3, &Budget::default())
            .unwrap()
            .whole()
            .unwrap()
            .unwrap();
        let fit = brute(&seen, Rules::Standard, 1..=3);
        assert_eq!(c.total(), fit.len() as u128);
        let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(9);
        for prior in [Prior::Molecules, Prior::CountsFirst] {
            let n = 40_000;
            let drawn = c.sample(n, prior, &mut rng).unwrap();
            // The chance of each molecule under the prior.
            let weight = |m: &Molecule| match prior {
                Prior::Molecules => 1.0,
                Prior::CountsFirst => 1.0 / binomial_f64(16, m.atoms().len() as u64),
            };
            let total: f64 = fit.iter().map(weight).sum();
            for m in &fit {
                let want = n as f64 * weight(m) / total;
                let got = drawn.iter().filter(|d| *d == m).count() as f64;
                // Within five standard deviations.
                assert!(
                    (got - want).abs() <= 5.0 * want.sqrt() + 1.0,
                    "{m}: {got} vs {want}"
                );
            }
            assert!(drawn.iter().all(|d| fit.contains(d)));
        }
    }
}
