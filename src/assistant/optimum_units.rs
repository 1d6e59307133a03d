//! The optimum of a whole configuration searched in units: branch and
//! bound seeded with a policy's value, shared out among the workers and
//! processes of a cluster and checkpointed, as the lower bound is.
//!
//! The root's value is the least, over the first rays q, of the weight of
//! q's outcomes (one ray a molecule, or the score's cost) plus the value of
//! each set S_qo that q's outcome o leaves. A policy's total (rollout's)
//! is an upper bound U of the root, so only values below U + 1 matter:
//!
//! - a first ray whose outcomes' weights plus their lower bounds reach
//!   U + 1 is dropped;
//! - each S_qo is searched only below its **cut**: U + 1 less the weights
//!   and the lower bounds of q's other outcomes, and no more than its own
//!   upper bound (the base policy's total on it) plus one, below which its
//!   value is;
//! - a large S_qo is cut a level deeper the same way: each second ray's
//!   outcomes S_qo,q2,o2 get the cut of S_qo less their siblings' weights
//!   and lower bounds.
//!
//! The sets searched are the **units** (a set and its mirror images are
//! one unit, searched with the largest of their cuts): each is worth its
//! exact value when below its cut, else a lower bound at least its cut,
//! which proves that no ray through it beats the cut. Every unit's cut,
//! and so its value below the cut, is a function of the configuration,
//! the rules and U alone: the optimum is the same however the units are
//! shared out and resumed. A ray all of whose units are exact gives its
//! total; the least total below U + 1 is the optimum (the lower bounds of
//! the others are at least U + 1, and the policy proves U). A unit found
//! exact keeps its decision tree (in [`Tree::to_compact`]'s text), and the
//! optimum's tree is put together from the root's best rays and the trees
//! of their units (mapped through the symmetry that takes a unit's set to
//! the one met there).
//!
//! The units are searched as any work in units ([`crate::work::units`]):
//! the rays first (`bbx-optimum-CONFIG`), then the score with the minimax
//! (`bbx-optimum-score-CONFIG`), each committed unit by unit to its work
//! directory, whose manifest holds the settings that decide the units
//! (among them U and a fingerprint of the units and cuts).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::assistant::optimal::{
    Games, MEMO_MEMORY, Measure, OptimalOptions, Optimum, SetKeys, SetSearch, SharedMemo, Tree,
};
use crate::assistant::spectrum_table::Spectra;
use crate::assistant::strategy::{BaseTotals, Policy, StrategyOptions, play_all_held};
use crate::control::{Cut, Ended, Instant};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::ray::Outcome;
use crate::rules::symmetry::Transform;
use crate::setting::Setting;
use crate::work::cluster::{Cluster, PeerWatch, Settings};
use crate::work::disk::Disk;
use crate::work::units::{self, Job, Progress, Units, Value};

/// The format of the optimum's work directories: a change of what they
/// hold changes it, so that other work is refused rather than resumed.
pub const FORMAT: u32 = 1;

/// Sets with at least this many molecules are cut a level deeper (by
/// default), down to 8 rays from the root.
pub const DEEPER: usize = 2048;

/// Sets of fewer molecules than this (or than a sixteenth of the sets
/// cut deeper) met while planning are searched there, to the end, rather
/// than made units.
const INLINE: usize = 128;

/// The most rays from the root to a unit: sets that deep are units
/// whatever their size.
const MAX_LEVELS: usize = 8;

/// How the optimum in units runs.
#[derive(Debug, Clone)]
pub struct UnitsOptions {
    /// The search's options: rules, the budget (its memory bound shared
    /// by the workers' memos, its faults' `stop-after`: each worker's search
    /// stops after that many sets) and `small`: the base policy plays sets
    /// of at most that many molecules optimally (rollout's K), for the
    /// seed and the upper bounds.
    pub search: OptimalOptions,
    /// Threads and processes.
    pub cluster: Cluster,
    /// The directory in which the work directories are made.
    pub work_dir: PathBuf,
    /// With several processes: what the program's panic hook tells of
    /// lost connections.
    pub peers: PeerWatch,
    /// Also the score's optimum and the minimax (after the rays).
    pub score: bool,
    /// Sets the rays leave with at least this many molecules are cut a
    /// level deeper ([`DEEPER`] by default).
    pub deeper: usize,
}

/// How far this process is, phase by phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnitsProgress {
    /// The phase: the rays (0), then the score and minimax (1).
    pub phase: usize,
    /// Units of this process done in this phase, and its share.
    pub units: Progress,
}

/// How the optimum in units ended.
#[derive(Debug, Clone)]
pub struct SharedOptimum {
    /// What was found (on process 0; the measures not reached are `None`).
    pub optimum: Option<Optimum>,
    /// Complete, or stopped (by the budget, a fault, or another process).
    pub ended: Ended,
    /// The work directory of the phase stopped, or of the last.
    pub work_dir: Option<PathBuf>,
    /// Units of the phase stopped, or of the last.
    pub units: u64,
    /// This process's progress in the phase stopped, or in the last.
    pub progress: Progress,
    /// Whether the workers of every phase run started.
    pub started: bool,
}

/// A set the rays leave: its value when it needs no search (one molecule,
/// or no ray splits it), else its entry's key.
#[derive(Debug, Clone, Copy)]
enum Ref {
    Known(u64),
    Key(u128),
}

/// A ray shot at a set: what its outcomes weigh together (a ray a
/// molecule, or the score's costs), and the set each outcome leaves (by
/// its code).
#[derive(Debug, Clone)]
struct Ray {
    ray: usize,
    weight: u64,
    children: Vec<(usize, Ref)>,
}

/// A set met at some level of the root's tree, up to the symmetries (a
/// set and its mirror images are one entry, searched with the largest of
/// their cuts): a unit, or cut a level deeper.
#[derive(Debug, Clone)]
struct Entry {
    /// Where its set is met first: the rays and outcome codes from the
    /// root.
    path: Vec<(usize, usize)>,
    molecules: u64,
    /// Its value is wanted below this.
    cut: u64,
    kind: Kind,
    /// Cut deeper: stopping there (the score) and its rays not dropped.
    node: Option<Node>,
}

/// A set cut a level deeper.
#[derive(Debug, Clone)]
struct Node {
    stop: Option<u64>,
    rays: Vec<Ray>,
}

/// What a unit searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rays,
    Score,
    Minimax,
}

/// The root of one measure, cut into entries.
#[derive(Debug, Clone)]
struct Root {
    measure: Measure,
    /// The policy's total the search starts from (U).
    seed: u64,
    /// Stopping at once (the score).
    stop: Option<u64>,
    rays: Vec<Ray>,
}

/// One phase's work: the roots, every entry met below them by its key,
/// and the units (the entries not cut deeper, and the minimax), the
/// largest first.
struct Phase {
    spectra: Arc<Spectra>,
    keys: Arc<SetKeys>,
    options: OptimalOptions,
    roots: Vec<Root>,
    entries: HashMap<u128, Entry>,
    /// The units' keys.
    units: Vec<u128>,
    /// Sets searched while planning.
    planned: u64,
    /// The memo the searches of this process's workers share (each
    /// measure's sets under keys of their own).
    memo: Arc<SharedMemo>,
}

impl Phase {
    /// Each unit's key, as its log line names it.
    fn keys(&self) -> Vec<String> {
        self.units.iter().map(|u| format!("{u:032x}")).collect()
    }

    /// A fingerprint of the units and their cuts.
    fn fingerprint(&self) -> String {
        let mut bytes = Vec::with_capacity(self.units.len() * 24);
        for key in &self.units {
            let cut = self.entries.get(key).map_or(u64::MAX, |e| e.cut);
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend_from_slice(&cut.to_le_bytes());
        }
        format!(
            "{} units, {:016x}",
            self.units.len(),
            xxhash_rust::xxh3::xxh3_64(&bytes)
        )
    }
}

/// The set of molecules met at `path` from the whole configuration.
fn set_at(t: &Spectra, path: &[(usize, usize)]) -> Vec<u32> {
    let mut set: Vec<u32> = (0..t.count as u32).collect();
    let mut part = vec![0u32; set.len()];
    let mut starts = Vec::new();
    for &(q, c) in path {
        part.resize(set.len(), 0);
        t.split(&set, q, &mut part, &mut starts);
        set = part[starts[c]..starts[c + 1]].to_vec();
    }
    set
}

/// A key's mark for the level of the root's tree its set is met at: the
/// same set met at two levels is two entries, each cut as its own level
/// wants.
const LEVEL_MARK: u128 = 0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15;

/// Plans one measure's root and its entries, level by level.
struct Planner<'a, 'b> {
    t: &'a Spectra,
    search: SetSearch<'a>,
    /// The base policy's totals: the rays' upper bounds at the first level.
    base: Option<BaseTotals<'b>>,
    measure: Measure,
    deeper: usize,
    /// Sets of fewer molecules are searched while planning.
    inline: usize,
    entries: HashMap<u128, Entry>,
}

impl Planner<'_, '_> {
    /// The rays of `set` that may beat `beat`, with their outcomes' sets,
    /// each known or registered at `level` with its cut: `beat` less the
    /// ray's weight and the other outcomes' lower bounds (and, with the
    /// base policy, no more than the set's upper bound plus one, below
    /// which its value is).
    fn rays(
        &mut self,
        set: &[u32],
        path: &[(usize, usize)],
        beat: u64,
        level: usize,
    ) -> Result<Vec<Ray>, Cut> {
        let t = self.t;
        let codes = t.codes();
        let mut out = Vec::new();
        let mut part = vec![0u32; set.len()];
        let mut starts = Vec::new();
        let kind = match self.measure {
            Measure::Rays => Kind::Rays,
            Measure::Score => Kind::Score,
        };
        for q in self.search.splits(set) {
            t.split(set, q, &mut part, &mut starts);
            let mut weight = 0;
            let mut lower = 0;
            let mut children = Vec::new();
            for c in 0..codes {
                let child = &part[starts[c]..starts[c + 1]];
                if child.is_empty() {
                    continue;
                }
                weight += self.measure.weight(child.len() as u64, c);
                let found = self.search.bounds(child);
                lower += match found {
                    Ok(v) | Err(v) => v,
                };
                children.push((c, starts[c], starts[c + 1], found));
            }
            if let Some(cut) = self.search.cut() {
                return Err(cut);
            }
            if weight + lower >= beat {
                continue;
            }
            let mut refs = Vec::with_capacity(children.len());
            for (c, a, b, found) in children {
                let child = &part[a..b];
                let bound = match found {
                    Ok(v) => {
                        refs.push((c, Ref::Known(v)));
                        continue;
                    }
                    // A small set is searched here, to the end: its own
                    // unit would cost more to share out than to search.
                    Err(_) if child.len() < self.inline => {
                        let v = self.search.value(child, u64::MAX);
                        if let Some(cut) = self.search.cut() {
                            return Err(cut);
                        }
                        refs.push((c, Ref::Known(v)));
                        continue;
                    }
                    Err(bound) => bound,
                };
                let mut cut = beat - (weight + lower - bound);
                if let Some(base) = &mut self.base {
                    cut = cut.min(base.total(child)? + 1);
                }
                let key = self.search.key(child) ^ (level as u128 + 1).wrapping_mul(LEVEL_MARK);
                let entry = self.entries.entry(key).or_insert_with(|| {
                    let mut p = path.to_vec();
                    p.push((q, c));
                    Entry {
                        path: p,
                        molecules: child.len() as u64,
                        cut,
                        kind,
                        node: None,
                    }
                });
                entry.cut = entry.cut.max(cut);
                refs.push((c, Ref::Key(key)));
            }
            out.push(Ray {
                ray: q,
                weight,
                children: refs,
            });
        }
        Ok(out)
    }

    /// The root below `seed + 1`, and every entry under it: each level's
    /// entries of at least `deeper` molecules cut a level deeper (in the
    /// order of their keys), once all their cuts are known.
    fn root(&mut self, seed: u64) -> Result<Root, Cut> {
        let t = self.t;
        let all: Vec<u32> = (0..t.count as u32).collect();
        let stop = (self.measure == Measure::Score).then(|| t.stop_total(&all));
        let rays = match self.search.bounds(&all) {
            Ok(_) => Vec::new(),
            Err(_) => self.rays(&all, &[], seed + 1, 1)?,
        };
        // The upper bounds of the first level only: deeper, the cuts the
        // first level's give are as tight.
        self.base = None;
        for level in 1..MAX_LEVELS {
            let mut here: Vec<u128> = self
                .entries
                .iter()
                .filter(|(_, e)| e.path.len() == level && e.molecules >= self.deeper as u64)
                .map(|(&k, _)| k)
                .collect();
            here.sort_unstable();
            for key in here {
                let (path, cut) = {
                    let e = &self.entries[&key];
                    (e.path.clone(), e.cut)
                };
                let set = set_at(t, &path);
                let rays = self.rays(&set, &path, cut, level + 1)?;
                let stop = (self.measure == Measure::Score).then(|| t.stop_total(&set));
                if let Some(e) = self.entries.get_mut(&key) {
                    e.node = Some(Node { stop, rays });
                }
            }
        }
        Ok(Root {
            measure: self.measure,
            seed,
            stop,
            rays,
        })
    }
}

/// The work of a phase: the roots of `measures` (each below its seed
/// plus one), and with `minimax` a unit for it; nothing when the budget
/// stopped the planning.
fn plan(
    t: Arc<Spectra>,
    keys: Arc<SetKeys>,
    options: &OptimalOptions,
    measures: &[(Measure, u64)],
    minimax: bool,
    deeper: usize,
) -> Result<Result<Phase, Cut>, Error> {
    let memory = options.budget.memory_or(MEMO_MEMORY);
    let mut planned = 0;
    let mut roots = Vec::new();
    let mut entries = HashMap::new();
    for &(measure, seed) in measures {
        let search = SetSearch::new(
            &t,
            measure,
            &options.budget,
            None,
            Arc::clone(&keys),
            memory,
            options.small,
        );
        let base = (measure == Measure::Rays)
            .then(|| BaseTotals::new(&t, options.small, &options.budget, Arc::clone(&keys)));
        let mut planner = Planner {
            t: &t,
            search,
            base,
            measure,
            deeper,
            inline: (deeper / 16).clamp(1, INLINE),
            entries: HashMap::new(),
        };
        let root = match planner.root(seed) {
            Ok(root) => root,
            Err(cut) => return Ok(Err(cut)),
        };
        planned += planner.search.nodes();
        roots.push(root);
        entries.extend(planner.entries);
    }
    if minimax && t.count > 1 {
        entries.insert(
            MINIMAX_KEY,
            Entry {
                path: Vec::new(),
                molecules: t.count as u64,
                cut: u64::MAX,
                kind: Kind::Minimax,
                node: None,
            },
        );
    }
    let mut units: Vec<u128> = entries
        .iter()
        .filter(|(_, e)| e.node.is_none())
        .map(|(&k, _)| k)
        .collect();
    units.sort_by_key(|k| (std::cmp::Reverse(entries[k].molecules), *k));
    Ok(Ok(Phase {
        spectra: t,
        keys,
        options: options.clone(),
        roots,
        entries,
        units,
        planned,
        memo: Arc::new(SharedMemo::new(memory)),
    }))
}

/// The minimax unit's key (no set's key, which are sums of random words,
/// is likely to be it).
const MINIMAX_KEY: u128 = 0x6d69_6e69_6d61_785f_756e_6974_5f6b_6579;

/// A worker's searchers of a phase's units: one per measure, sharing the
/// process's memo.
struct Solver<'a> {
    rays: SetSearch<'a>,
    score: SetSearch<'a>,
}

impl Units for Phase {
    type Solver<'a> = Solver<'a>;

    fn solver(&self) -> Result<Solver<'_>, Error> {
        let o = &self.options;
        let make = |measure| {
            SetSearch::new(
                &self.spectra,
                measure,
                &o.budget,
                o.budget.faults.stop_after,
                Arc::clone(&self.keys),
                0,
                o.small,
            )
            .sharing(Arc::clone(&self.memo))
        };
        Ok(Solver {
            rays: make(Measure::Rays),
            score: make(Measure::Score),
        })
    }

    fn solve(&self, solver: &mut Solver<'_>, unit: usize) -> Result<Value, Cut> {
        let u = &self.entries[&self.units[unit]];
        let search = match u.kind {
            Kind::Score => &mut solver.score,
            Kind::Rays | Kind::Minimax => &mut solver.rays,
        };
        let before = search.nodes();
        let set = set_at(&self.spectra, &u.path);
        let (value, detail) = match u.kind {
            Kind::Minimax => (search.minimax(&set), String::new()),
            Kind::Rays | Kind::Score => {
                let v = search.value(&set, u.cut);
                let tree = match v < u.cut {
                    true => search.tree(&set, v),
                    false => None,
                };
                (v, tree.map(|t| t.to_compact()).unwrap_or_default())
            }
        };
        if let Some(cut) = search.cut() {
            return Err(cut);
        }
        Ok(Value {
            value,
            effort: search.nodes() - before,
            detail,
        })
    }
}

/// A value and whether it is exact (else a lower bound).
type Found = (u64, bool);

/// A phase's units' values put together into its roots' values and trees.
struct Assembly<'p> {
    phase: &'p Phase,
    /// Each unit's value by its key.
    values: HashMap<u128, &'p Value>,
    /// Each entry's value, once found.
    found: std::cell::RefCell<HashMap<u128, (Found, Option<usize>)>>,
    /// A search of the measure: the keys' sums of the sets met (the
    /// symmetry that takes an entry's set to another of its images), and
    /// the trees of the small sets searched while planning.
    search: std::cell::RefCell<SetSearch<'p>>,
}

impl<'p> Assembly<'p> {
    fn new(phase: &'p Phase, values: &'p [Value], search: SetSearch<'p>) -> Assembly<'p> {
        Assembly {
            phase,
            values: phase.units.iter().copied().zip(values).collect(),
            found: std::cell::RefCell::new(HashMap::new()),
            search: std::cell::RefCell::new(search),
        }
    }

    /// The best of `rays` (each worth its weight plus its outcomes'
    /// values) and stopping (`stop`), below `cut`: the value, whether it
    /// is exact (a ray below the cut whose every part is, or stopping; a
    /// ray not exact is worth at least its cut), and the ray (none for
    /// stopping); at least the cut when no ray is below it. The first best
    /// in the search's order.
    fn best(&self, cut: u64, stop: Option<u64>, rays: &[Ray]) -> (Found, Option<usize>) {
        let mut best: Option<(u64, bool, Option<usize>)> = stop.map(|s| (s, true, None));
        for (i, r) in rays.iter().enumerate() {
            let mut total = r.weight;
            let mut exact = true;
            for (_, child) in &r.children {
                let (v, e) = self.value(*child);
                total += v;
                exact &= e;
            }
            let better = match best {
                None => true,
                Some((b, be, _)) => total < b || (total == b && exact && !be),
            };
            if better {
                best = Some((total, exact, Some(i)));
            }
        }
        match best {
            None => ((cut, false), None),
            Some((v, exact, ray)) => ((v, exact && (v < cut || ray.is_none())), ray),
        }
    }

    /// The value of a set the rays leave, and whether it is exact.
    fn value(&self, r: Ref) -> Found {
        self.entry(r).0
    }

    /// The value of a set the rays leave, and its best ray when it is cut
    /// deeper.
    fn entry(&self, r: Ref) -> (Found, Option<usize>) {
        let key = match r {
            Ref::Known(v) => return ((v, true), None),
            Ref::Key(key) => key,
        };
        if let Some(&f) = self.found.borrow().get(&key) {
            return f;
        }
        let e = &self.phase.entries[&key];
        let f = match &e.node {
            None => {
                let v = self.values[&key].value;
                ((v, v < e.cut), None)
            }
            Some(node) => self.best(e.cut, node.stop, &node.rays),
        };
        self.found.borrow_mut().insert(key, f);
        f
    }

    /// A stop at `set`.
    fn stop(&self, set: &[u32]) -> Tree {
        let t = &self.phase.spectra;
        Tree::Stop {
            molecules: set.len() as u64,
            place: t.placement(set).iter().map(|&c| usize::from(c)).collect(),
        }
    }

    /// The tree of a set the rays leave, met on `set`; `None` when it is
    /// not exact or a unit's tree on the way is missing or does not fit.
    fn tree(&self, r: Ref, set: &[u32]) -> Option<Tree> {
        let key = match r {
            Ref::Known(v) => {
                // No ray splits it (or one molecule), or a small set
                // searched while planning, whose tree is found again.
                let mut search = self.search.borrow_mut();
                return match search.bounds(set) {
                    Ok(_) => Some(self.stop(set)),
                    Err(_) => fill(&self.phase.spectra, &search.tree(set, v)?, set),
                };
            }
            Ref::Key(key) => key,
        };
        let ((_, exact), ray) = self.entry(r);
        if !exact {
            return None;
        }
        let e = &self.phase.entries[&key];
        let t = &self.phase.spectra;
        let own = set_at(t, &e.path);
        let tree = match (&e.node, ray) {
            (None, _) => Tree::from_compact(&self.values[&key].detail)?,
            (Some(_), None) => self.stop(&own),
            (Some(node), Some(i)) => self.ray_tree(&node.rays[i], &own)?,
        };
        if own == set {
            return fill(t, &tree, set);
        }
        // The entry's set is an image of this one: through the symmetry
        // that takes one to the other (the slots whose sums are the key).
        let (mine, theirs) = {
            let search = self.search.borrow();
            (search.sums(&own), search.sums(set))
        };
        let slot = |sums: &[u128; 8]| {
            let least = sums.iter().copied().min().unwrap_or(0);
            sums.iter().position(|&s| s == least)
        };
        let (a, b) = (slot(&mine)?, slot(&theirs)?);
        let shape = t.config.shape();
        let slots = Transform::slots(shape);
        let (from, to) = (slots[a], slots[b].inverse());
        let mapped = tree.mapped(&|q| to.position(shape, from.position(shape, q)));
        fill(t, &mapped, set)
    }

    /// The tree that shoots `ray` at `set`, then follows its outcomes.
    fn ray_tree(&self, ray: &Ray, set: &[u32]) -> Option<Tree> {
        let t = &self.phase.spectra;
        let (part, starts) = t.parts(set, ray.ray);
        let mut branches = Vec::with_capacity(ray.children.len());
        for (c, child) in &ray.children {
            let sub = self.tree(*child, &part[starts[*c]..starts[*c + 1]])?;
            branches.push((Outcome::from_code(*c), sub));
        }
        Some(Tree::Shoot {
            ray: ray.ray,
            branches,
        })
    }

    /// A root's optimum: the value, the best first ray, and the tree
    /// (`None` when a unit's tree on the way is missing).
    fn root(&self, root: &Root) -> Result<(u64, Option<usize>, Option<Tree>), Error> {
        let t = &self.phase.spectra;
        let all: Vec<u32> = (0..t.count as u32).collect();
        if root.rays.is_empty() && root.stop.is_none() {
            // No ray splits the configuration.
            return Ok((0, None, Some(self.stop(&all))));
        }
        let ((value, exact), ray) = self.best(root.seed + 1, root.stop, &root.rays);
        if !exact || value > root.seed {
            return Err(Error::Internal(format!(
                "the optimum of {} was not found below the policy's {}: {value}",
                t.config, root.seed
            )));
        }
        Ok(match ray {
            None => (value, None, Some(self.stop(&all))),
            Some(i) => {
                let first = &root.rays[i];
                (value, Some(first.ray), self.ray_tree(first, &all))
            }
        })
    }
}

/// `tree` played on `set`: its stops filled in (their molecules and the
/// cells placed); `None` when it does not fit (a molecule's outcome has no
/// branch, or a branch no molecule).
fn fill(t: &Spectra, tree: &Tree, set: &[u32]) -> Option<Tree> {
    match tree {
        Tree::Stop { .. } => Some(Tree::Stop {
            molecules: set.len() as u64,
            place: t.placement(set).iter().map(|&c| usize::from(c)).collect(),
        }),
        Tree::Shoot { ray, branches } => {
            if *ray == 0 || *ray > t.rays {
                return None;
            }
            let (part, starts) = t.parts(set, *ray);
            let reached = (0..t.codes())
                .filter(|&c| starts[c] < starts[c + 1])
                .count();
            if reached != branches.len() {
                return None;
            }
            let mut out = Vec::with_capacity(branches.len());
            for (o, sub) in branches {
                let c = o.code();
                if c >= t.codes() || starts[c] == starts[c + 1] {
                    return None;
                }
                out.push((*o, fill(t, sub, &part[starts[c]..starts[c + 1]])?));
            }
            Some(Tree::Shoot {
                ray: *ray,
                branches: out,
            })
        }
    }
}

/// The settings that decide a phase's units, which a resumed run and
/// every process must share.
fn decisive(config: Config, options: &UnitsOptions, phase: &Phase, name: &str) -> Settings {
    let s = &options.search;
    let mut settings = Settings::new()
        .with("the work directory format", FORMAT)
        .with("the configuration", config)
        .with(Setting::Rules, s.rules)
        .with(Setting::ExactBelow, s.small)
        .with("the phase", name);
    for root in &phase.roots {
        let what = match root.measure {
            Measure::Rays => "the rays' upper bound",
            Measure::Score => "the score's upper bound",
        };
        settings = settings.with(what, root.seed);
    }
    settings
        .with(Setting::Deeper, options.deeper)
        .with("the units of work", phase.fingerprint())
        .with(Setting::Processes, options.cluster.processes)
}

/// The seeds: rollout's rays (its sets of at most `small` molecules
/// played optimally) and the least of its score and the score policy's;
/// nothing when the budget stopped them.
fn seeds(t: &Spectra, options: &OptimalOptions) -> Result<Option<(u64, u64)>, Error> {
    let play = |policy| {
        let o = StrategyOptions {
            policy,
            rules: options.rules,
            budget: options.budget.clone(),
            exact_below: options.small,
        };
        play_all_held(t, &o).map(|p| p.value)
    };
    let Some(rollout) = play(Policy::Rollout)? else {
        return Ok(None);
    };
    let Some(score) = play(Policy::Score)? else {
        return Ok(None);
    };
    Ok(Some((
        rollout.rays_total,
        rollout.score_total.min(score.score_total),
    )))
}

/// The optimum of `config` searched in units (see the module's
/// documentation): the rays, then with `options.score` the score and the
/// minimax, each phase shared out among the workers of `options.cluster`
/// and checkpointed in a work directory made in `options.work_dir`.
/// `progress` is called about ten times a second. Process 0 gets the
/// optimum (its trees, games and first rays too); the others their share
/// done.
///
/// Stopped (the budget's deadline or token, a `stop-after` fault), the
/// units finished are kept: the same call resumes them. A process that
/// loses another returns [`Error::System`] naming it, its work kept.
pub fn run(
    config: Config,
    options: &UnitsOptions,
    mut progress: impl FnMut(&UnitsProgress),
) -> Result<SharedOptimum, Error> {
    let start = Instant::now();
    let cluster = &options.cluster;
    cluster.check()?;
    let search = &options.search;
    let n = config.molecule_count().unwrap_or(0);
    let mut out = SharedOptimum {
        optimum: None,
        ended: Ended::Complete,
        work_dir: None,
        units: 0,
        progress: Progress::default(),
        started: false,
    };
    let spectra = Spectra::new(config, search.rules, &search.budget, 0)?;
    let Some(t) = spectra.value else {
        out.ended = spectra.ended;
        return Ok(out);
    };
    let t = Arc::new(t);
    let keys = Arc::new(SetKeys::new(&t));
    let Some((rays_seed, score_seed)) = seeds(&t, search)? else {
        out.ended = search
            .budget
            .check()
            .err()
            .map_or(Ended::Cancelled, Ended::from);
        return Ok(out);
    };
    let mut optimum = Optimum {
        molecules: n,
        ..Optimum::default()
    };
    let mean = |x: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    // Each phase: its name, its measures with their seeds, and whether it
    // finds the minimax too.
    type PhaseOf<'a> = (&'a str, Vec<(Measure, u64)>, bool);
    let mut phases: Vec<PhaseOf> = vec![("rays", vec![(Measure::Rays, rays_seed)], false)];
    if options.score {
        phases.push(("score", vec![(Measure::Score, score_seed)], true));
    }
    // A phase done is kept until the last is, so that a stop in a later
    // phase does not lose it.
    let mut kept = Vec::new();
    for (p, (name, measures, minimax)) in phases.into_iter().enumerate() {
        let phase = match plan(
            Arc::clone(&t),
            Arc::clone(&keys),
            search,
            &measures,
            minimax,
            options.deeper,
        )? {
            Ok(phase) => phase,
            Err(cut) => {
                out.ended = cut.into();
                break;
            }
        };
        let dir_name = match p {
            0 => format!("bbx-optimum-{config}"),
            _ => format!("bbx-optimum-{name}-{config}"),
        };
        let job = Job {
            work: "optimum",
            name: dir_name,
            settings: decisive(config, options, &phase, name),
            keys: phase.keys(),
            cluster: cluster.clone(),
            work_dir: options.work_dir.clone(),
            peers: options.peers.clone(),
            budget: search.budget.clone(),
            disk: Disk::of_fault(search.budget.faults.fail_writes_after),
            keep: true,
        };
        let phase = Arc::new(phase);
        out.units = phase.units.len() as u64;
        let ran = units::run(&job, Arc::clone(&phase), |u| {
            progress(&UnitsProgress {
                phase: p,
                units: *u,
            })
        })?;
        out.started = ran.started;
        out.progress = ran.progress;
        out.work_dir = ran.work_dir.clone();
        out.ended = ran.ended;
        optimum.units += phase.units.len() as u64;
        optimum.units_resumed += ran.resumed;
        kept.extend(ran.kept);
        if !ran.ended.is_complete() {
            break;
        }
        let Some(values) = ran.values else {
            // Another process: its share is done.
            continue;
        };
        optimum.sets_searched += phase.planned + values.iter().map(|v| v.effort).sum::<u64>();
        let (held, forgotten) = phase.memo.stats();
        optimum.sets_remembered = optimum.sets_remembered.max(held);
        optimum.sets_forgotten += forgotten;
        for root in &phase.roots {
            let assembly = Assembly::new(
                &phase,
                &values,
                SetSearch::new(
                    &t,
                    root.measure,
                    &search.budget,
                    None,
                    Arc::clone(&keys),
                    search.budget.memory_or(MEMO_MEMORY) / 4,
                    0,
                ),
            );
            let (value, first, tree) = assembly.root(root)?;
            let all: Vec<u32> = (0..t.count as u32).collect();
            let games = tree.as_ref().map(|tree| Games::of_tree(&t, tree, &all));
            if let Some(g) = &games {
                let total = match root.measure {
                    Measure::Rays => g.rays_total,
                    Measure::Score => g.score_total,
                };
                if total != value {
                    return Err(Error::Internal(format!(
                        "the optimum's tree of {config} plays {total}, not the {value} its units add up to"
                    )));
                }
            }
            match root.measure {
                Measure::Rays => {
                    optimum.rays_total = Some(value);
                    optimum.rays_mean = Some(mean(value));
                    optimum.rays_first = first;
                    optimum.rays_tree = tree;
                    optimum.rays_games = games;
                    optimum.rays_seed = Some(root.seed);
                }
                Measure::Score => {
                    optimum.score_total = Some(value);
                    optimum.score_mean = Some(mean(value));
                    optimum.score_first = first;
                    optimum.score_tree = tree;
                    optimum.score_games = games;
                    optimum.score_seed = Some(root.seed);
                }
            }
        }
        if let Some(i) = phase.units.iter().position(|&k| k == MINIMAX_KEY) {
            optimum.minimax = Some(values[i].value);
        }
    }
    if out.ended.is_complete() {
        for k in kept {
            k.remove();
        }
    }
    optimum.ended = out.ended;
    optimum.seconds = start.elapsed().as_secs_f64();
    if cluster.process == 0 {
        out.optimum = Some(optimum);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::optimal::optimum;

    /// The default options of the optimum in units, for tests.
    fn local(dir: &std::path::Path, workers: usize) -> UnitsOptions {
        UnitsOptions {
            search: OptimalOptions {
                small: 8,
                ..OptimalOptions::default()
            },
            cluster: Cluster::local(workers),
            work_dir: dir.to_path_buf(),
            peers: PeerWatch::default(),
            score: true,
            deeper: 64,
        }
    }

    #[test]
    fn the_units_give_the_whole_search_s_optimum_and_its_trees_add_up() {
        let dir = tempfile::tempdir().unwrap();
        for (config, workers, deeper) in [
            ("A3_B4", 1, 64),
            ("A3_B5", 2, 600),
            ("A4_B4", 2, 400),
            ("A2_B5", 1, 2),
        ] {
            let config: Config = config.parse().unwrap();
            let whole = optimum(config, &OptimalOptions::default()).unwrap();
            let mut options = local(dir.path(), workers);
            options.deeper = deeper;
            let shared = run(config, &options, |_| {}).unwrap();
            assert!(shared.ended.is_complete(), "{config}");
            let o = shared.optimum.unwrap();
            assert_eq!(o.rays_total, whole.rays_total, "{config}: rays");
            assert_eq!(o.score_total, whole.score_total, "{config}: score");
            assert_eq!(o.minimax, whole.minimax, "{config}: minimax");
            let g = o.rays_games.unwrap();
            assert_eq!(Some(g.rays_total), o.rays_total);
            assert_eq!(Some(o.score_games.unwrap().score_total), o.score_total);
            assert!(o.units > 0, "{config}");
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "{config}"
            );
        }
    }

    #[test]
    fn a_stopped_optimum_resumes_to_the_same_value() {
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A3_B5".parse().unwrap();
        let local = |dir, workers| UnitsOptions {
            deeper: 600,
            ..local(dir, workers)
        };
        let whole = run(config, &local(dir.path(), 1), |_| {}).unwrap();
        let whole = whole.optimum.unwrap();
        let mut stopped = local(dir.path(), 1);
        stopped.score = false;
        // The largest unit takes about 110,000 sets: it is done, the next
        // is cut short.
        stopped.search.budget.faults = crate::control::Faults::parse("stop-after=150000").unwrap();
        let first = run(config, &stopped, |_| {}).unwrap();
        assert!(!first.ended.is_complete());
        let p = first.progress;
        assert!(p.done > 0 && p.done < p.share, "{p:?}");
        let again = run(config, &local(dir.path(), 2), |_| {}).unwrap();
        let o = again.optimum.unwrap();
        assert!(o.units_resumed > 0);
        assert_eq!(o.rays_total, whole.rays_total);
        assert_eq!(o.score_total, whole.score_total);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
