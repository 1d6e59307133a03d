//! The answer to an observed game: every molecule that fits, what is certain,
//! the rays that would tell the molecules apart, and the contradiction when
//! nothing fits.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use itertools::Itertools;
use varisat::Lit;

use crate::control::{Budget, Cancel, Cut, Ended, Halt, Instant};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules, outcome_table};
use crate::rules::spectrum::Observation;
use crate::setting::{Setting, Text};
use crate::solver::bounds::Fewest;
use crate::solver::encode::counter_bytes;
use crate::solver::infer::{Inferred, infer_within};
use crate::solver::limits::{DEFAULT_MEMORY, Guard, Limits, human_bytes, model_bytes};
use crate::solver::model::RayModel;
use crate::solver::search::Family;

/// What is certain about one cell across every molecule that fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// An atom in every molecule.
    Atom,
    /// Empty in every molecule.
    Empty,
    /// An atom in some molecules and empty in others.
    Undecided,
}

/// How an unshot ray would split the molecules found: one class per
/// outcome. In JSON, a ranked ray.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Split {
    /// The border position of the ray.
    pub position: usize,
    /// Each possible outcome and how many of the molecules give it, most first.
    pub classes: Vec<OutcomeClass>,
    /// Expected number of molecules left after shooting it: Σ size² / total.
    pub expected_remaining: f64,
    /// What the ray tells, in bits: −Σ p log₂ p over its outcomes.
    pub entropy: f64,
}

/// One outcome of a [`Split`] and how many molecules give it; in JSON the
/// outcome's `result` and `exit`, and `molecules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct OutcomeClass {
    /// The outcome.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// How many of the molecules give it (`molecules` in JSON).
    #[serde(rename = "molecules")]
    pub count: usize,
}

impl Split {
    /// The split by the ray from `position` into `classes` (each outcome,
    /// and how many molecules give it): the molecules expected to remain
    /// and the bits it tells, over the molecules the classes hold (the
    /// information summed in the order given), the classes then sorted most
    /// first.
    pub(crate) fn new(position: usize, classes: Vec<(Outcome, usize)>) -> Split {
        let n = classes.iter().map(|c| c.1).sum::<usize>() as f64;
        let squares: u128 = classes
            .iter()
            .map(|&(_, k)| (k as u128) * (k as u128))
            .sum();
        let entropy = classes
            .iter()
            .map(|&(_, k)| {
                let q = k as f64 / n;
                -q * q.log2()
            })
            .sum();
        let mut classes: Vec<OutcomeClass> = (classes.into_iter())
            .map(|(outcome, count)| OutcomeClass { outcome, count })
            .collect();
        classes.sort_by(|a, b| b.count.cmp(&a.count).then(a.outcome.cmp(&b.outcome)));
        Split {
            position,
            classes,
            expected_remaining: squares as f64 / n,
            entropy,
        }
    }
}

/// Orders splits best first: fewest molecules expected to remain, ties by
/// the lowest position.
pub(crate) fn best_first(splits: &mut [Split]) {
    splits.sort_by(|a, b| {
        a.expected_remaining
            .total_cmp(&b.expected_remaining)
            .then(a.position.cmp(&b.position))
    });
}

/// The answer to an observed game.
#[derive(Debug, Clone)]
pub struct Solution {
    /// What was observed.
    pub observation: Observation,
    /// The rules used.
    pub rules: Rules,
    /// The atom counts searched.
    pub atoms: RangeInclusive<usize>,
    /// The molecules listed, in number order: all of them, or the first
    /// [`Limits::max`] found.
    pub molecules: Vec<Molecule>,
    /// How many molecules fit: exact when the search is complete, else a
    /// lower bound.
    /// Regions no ray looks at are counted, not enumerated, so this can far
    /// exceed the molecules listed (saturating at `u128::MAX`).
    pub count: u128,
    /// Every molecule found, by families (see [`Family`]).
    pub families: Vec<Family>,
    /// The fewest atoms of any molecule that fits the rays, when the search
    /// needed to know it (an atom count below it was asked for).
    pub fewest_atoms: Option<usize>,
    /// How the search ended: complete (there are no other molecules), at
    /// [`Limits::max`], or cut short by a limit.
    pub ended: Ended,
    /// Per cell, what holds in every molecule that fits; `None` when the search
    /// stopped before that could be known.
    pub certainty: Option<Vec<Certainty>>,
    /// What stopped the certainty map of an incomplete search before it was
    /// worked out, if a limit did.
    pub certainty_cut: Option<Cut>,
    /// True when the certainty map of an incomplete search was left out as
    /// too costly: it would take more than 4096 solver calls, or calls on a
    /// model so large that they would take long.
    pub certainty_skipped: bool,
    /// When nothing fits because the rays contradict each other whatever the
    /// atom count: a smallest set of them (as border positions, both ends of
    /// an exit) that cannot hold together.
    pub conflict: Option<Vec<usize>>,
    /// When nothing fits: what stopped the search for that set of rays (or
    /// for the fewest atoms) before it was done, if a limit did.
    pub conflict_cut: Option<Cut>,
}

impl Solution {
    /// A search stopped by its deadline before it could report anything but
    /// the `molecules` found so far.
    pub fn interrupted(
        observation: Observation,
        rules: Rules,
        atoms: RangeInclusive<usize>,
        molecules: Vec<Molecule>,
    ) -> Solution {
        Solution {
            count: molecules.len() as u128,
            families: Vec::new(),
            observation,
            rules,
            atoms,
            molecules,
            fewest_atoms: None,
            ended: Ended::TimedOut,
            certainty: None,
            certainty_cut: None,
            certainty_skipped: false,
            conflict: None,
            conflict_cut: None,
        }
    }

    /// A search that ended as `ended` with the `molecules` found so far.
    fn stopped(
        observation: &Observation,
        rules: Rules,
        atoms: RangeInclusive<usize>,
        mut molecules: Vec<Molecule>,
        ended: Ended,
    ) -> Solution {
        molecules.sort_unstable();
        Solution {
            ended,
            ..Solution::interrupted(observation.clone(), rules, atoms, molecules)
        }
    }
}

/// Probing cells one by one for the certainty map stops being worth it past
/// this many solver calls.
const MAX_PROBES: usize = 4096;

/// Nor past this many solver calls times clauses in the model (a call on
/// a large model takes about its size: 5·10⁷ is a few seconds).
const PROBE_WORK: usize = 50_000_000;

/// Every molecule with an atom count in `atoms` that fits `observed` under
/// `rules`, what is certain about each cell, and, when nothing fits, which rays
/// contradict each other. `found` is called with each molecule as it is found.
///
/// The search keeps to `limits` everywhere it can take long (inference, the
/// encoding of each ray, the atom counter, between solver calls); what a
/// limit cut short is said in the answer. A search whose atom counter alone
/// would pass the memory bound is refused at once (an [`Error::Invalid`]
/// saying so). Cells the rays decide on their own are worked out once
/// ([`infer`](crate::solver::infer)); rays that contradict each other there
/// are answered without a solver.
///
/// On boxes larger than 10×10 the search runs on a thread of its own
/// (where there are threads: not in WebAssembly in a browser). When
/// its answer is slow to come, the atom count may be one the rays cannot
/// meet, which the atom counter is slow to prove: meanwhile the fewest atoms
/// the rays allow are worked out (see [`RayModel::fewest_atoms`]), and if they
/// are more than asked for, the answer comes at once. A search that is no
/// longer needed is cancelled; one stuck in a solver call past the deadline
/// is left to stop at its next check.
pub fn solve(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    limits: &Limits,
    mut found: impl FnMut(&Molecule),
) -> Result<Solution, Error> {
    let cells = observed.shape().cells();
    let hi = (*atoms.end()).min(cells);
    let atoms = *atoms.start()..=hi;
    let guard = Guard::new(&limits.budget);
    let stopped = |listed, ended| Solution::stopped(observed, rules, atoms.clone(), listed, ended);
    let inferred = infer_within(observed, rules, hi, &guard.budget);
    if let Some(cut) = inferred.cut {
        return Ok(stopped(Vec::new(), cut.into()));
    }
    if inferred.contradiction {
        // The rays cannot all end as observed with at most `hi` atoms.
        let mut solution = stopped(Vec::new(), Ended::Complete);
        explain(&mut solution, &guard)?;
        return Ok(solution);
    }
    fits_in_memory(observed, &inferred, hi, &limits.budget)?;
    let question = Question {
        observed: observed.clone(),
        rules,
        inferred: Arc::new(inferred),
        max: limits.max,
    };
    if cells <= DIRECT_CELLS || !THREADS {
        // Small boxes: the counter is quick whatever the count, and a thread
        // would cost more than the search. (Without threads, every box.)
        let mut solution = search(&question, atoms, &guard, found)?;
        if solution.ended.is_complete() && solution.count == 0 {
            explain(&mut solution, &guard)?;
        }
        return Ok(solution);
    }
    let (tx, rx) = mpsc::channel();
    let mut current = Search::start(0, &question, atoms.clone(), &guard, tx.clone())?;
    let mut listed: Vec<Molecule> = Vec::new();
    let mut forwarded: HashSet<Molecule> = HashSet::new();
    let mut fewest = None;
    let mut checked = false;
    loop {
        if limits.budget.cancel.is_cancelled() {
            // Cancelled: answer with what was found, at once.
            let mut solution = stopped(listed, Ended::Cancelled);
            solution.fewest_atoms = fewest;
            return Ok(solution);
        }
        let wait = if checked { POLL } else { FIRST_ANSWER };
        match rx.recv_timeout(wait) {
            Ok((id, _)) if id != current.id => {}
            Ok((_, Event::Found(m))) => {
                if forwarded.insert(m.clone()) {
                    found(&m);
                    listed.push(m);
                }
            }
            Ok((_, Event::Done(result))) => {
                let mut solution = result?;
                // A search started again above the fewest atoms answers the
                // question as asked.
                solution.atoms = atoms.clone();
                solution.fewest_atoms = solution.fewest_atoms.or(fewest);
                if solution.ended.is_complete() && solution.count == 0 {
                    explain(&mut solution, &guard)?;
                }
                return Ok(solution);
            }
            Err(mpsc::RecvTimeoutError::Timeout) if !checked => {
                // The search is slow. An atom count below what the rays need
                // is slow for it to rule out, and quick to show otherwise.
                checked = true;
                let mut probe = RayModel::from_inferred(observed, rules, hi, &question.inferred);
                // Stopped too when the search finishes.
                probe.set_guard(guard.with_cancel(current.finished.clone()));
                match probe.fewest_atoms(&[], hi)? {
                    Fewest::MoreThan(..) => {
                        let mut solution = stopped(Vec::new(), Ended::Complete);
                        drop(probe);
                        explain(&mut solution, &guard)?;
                        return Ok(solution);
                    }
                    Fewest::Atoms(n) => {
                        // Said only when fewer atoms were asked for: a
                        // count the rays allow answers nothing.
                        fewest = (n > *atoms.start()).then_some(n);
                        if n > *atoms.start() && !current.finished.is_cancelled() {
                            // Counts below n need not be searched: start again
                            // without them, cancelling the first search.
                            drop(probe);
                            current = Search::start(
                                current.id + 1,
                                &question,
                                n..=hi,
                                &guard,
                                tx.clone(),
                            )?;
                        }
                    }
                    Fewest::Unknown => {}
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if limits
                    .budget
                    .deadline
                    .is_some_and(|d| Instant::now() >= d + GRACE)
                {
                    // The search is stuck in one solver call past the deadline.
                    let mut solution = stopped(listed, Ended::TimedOut);
                    solution.fewest_atoms = fewest;
                    return Ok(solution);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::Internal(
                    "the solver's thread stopped without an answer".into(),
                ));
            }
        }
    }
}

/// Refuses a search whose atom counter alone would pass the memory bound:
/// it could find nothing. The counter counts, over every cell the rays do
/// not decide, up to one more atom than asked for.
fn fits_in_memory(
    observed: &Observation,
    inferred: &Inferred,
    hi: usize,
    budget: &Budget,
) -> Result<(), Error> {
    let bound = budget.memory_or(DEFAULT_MEMORY);
    let cells = observed.shape().cells();
    let undecided = inferred.known.iter().filter(|k| k.is_none()).count();
    let known_atoms = inferred.known.iter().filter(|k| **k == Some(true)).count();
    let limit = (hi + 1).saturating_sub(known_atoms).min(undecided);
    let need = model_bytes(cells, cells + 1, cells - undecided + 1)
        .saturating_add(counter_bytes(undecided, limit));
    if need <= bound {
        return Ok(());
    }
    let needs = format!(
        "a search for up to {hi} atoms in this {} box, where the rays decide {} of the {cells} cells, needs about {} to count the atoms, more than its memory bound of {}: raise the bound (",
        observed.shape(),
        cells - undecided,
        human_bytes(need),
        human_bytes(bound)
    );
    let what_to_do = "), or give the count of more rays";
    Err(Error::invalid(
        Text::from(needs).and(Setting::Memory).and(what_to_do),
    ))
}

/// One question to the search: the game, what inference decided of its
/// cells, and the most molecules to list.
#[derive(Clone)]
struct Question {
    observed: Observation,
    rules: Rules,
    inferred: Arc<Inferred>,
    max: Option<usize>,
}

/// What a search thread reports.
enum Event {
    Found(Molecule),
    Done(Result<Solution, Error>),
}

/// A search running on a thread of its own; dropping it cancels the
/// thread's token, which stops it at its next check.
struct Search {
    id: usize,
    /// Cancelled when the thread is done (and with the caller's token).
    finished: Cancel,
    /// The thread's own token.
    cancel: Cancel,
}

impl Drop for Search {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl Search {
    fn start(
        id: usize,
        question: &Question,
        atoms: RangeInclusive<usize>,
        guard: &Guard,
        tx: mpsc::Sender<(usize, Event)>,
    ) -> Result<Search, Error> {
        let guard = guard.child();
        let cancel = guard.budget.cancel.clone();
        let finished = guard.budget.cancel.child();
        let done = finished.clone();
        let question = question.clone();
        std::thread::Builder::new()
            .name("bbx-solve".into())
            .spawn(move || {
                let found_tx = tx.clone();
                let r = search(&question, atoms, &guard, |m| {
                    let _ = found_tx.send((id, Event::Found(m.clone())));
                });
                done.cancel();
                let _ = tx.send((id, Event::Done(r)));
            })
            .map_err(|e| Error::system(format!("cannot start the solver's thread: {e}")))?;
        Ok(Search {
            id,
            finished,
            cancel,
        })
    }
}

/// Boxes of at most this many cells (10×10) are searched on the caller's
/// thread, without the race against the fewest atoms.
const DIRECT_CELLS: usize = 100;

/// Whether the search may start threads: not in WebAssembly in a browser,
/// where every box is searched on the caller's thread (a Web Worker's).
const THREADS: bool = !cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// How long a search may take before the fewest atoms are worked out beside it.
const FIRST_ANSWER: Duration = Duration::from_millis(50);

/// How often a search on its thread is looked at.
const POLL: Duration = Duration::from_millis(100);

/// How long past its deadline a search stuck in one solver call is waited for.
const GRACE: Duration = Duration::from_millis(200);

/// When nothing fits: the fewest atoms the rays allow (when they are few
/// enough to be worth saying) and, unless too few atoms is the whole story, a
/// smallest set of rays that contradict each other whatever the atom count.
/// Kept to `guard`: what a limit cuts short is left out and said
/// ([`Solution::conflict_cut`]).
fn explain(solution: &mut Solution, guard: &Guard) -> Result<(), Error> {
    let observed = solution.observation.clone();
    let rules = solution.rules;
    let cells = observed.shape().cells();
    let hi = *solution.atoms.end();
    if solution.fewest_atoms.is_none_or(|f| f <= hi) {
        let inferred = infer_within(&observed, rules, cells, &guard.budget);
        if let Some(cut) = inferred.cut {
            solution.conflict_cut = Some(cut);
            return Ok(());
        }
        if !inferred.contradiction {
            let mut probe = RayModel::from_inferred(&observed, rules, cells, &inferred);
            probe.set_guard(guard.clone());
            match probe.fewest_atoms(&[], cells.min(hi + 16))? {
                Fewest::Atoms(n) => solution.fewest_atoms = Some(n),
                Fewest::MoreThan(..) => {}
                Fewest::Unknown => {
                    let cut = probe.cut().or(guard.check().err());
                    solution.conflict_cut = Some(cut.unwrap_or(Cut::TimedOut));
                    return Ok(());
                }
            }
        }
    }
    if solution.fewest_atoms.is_some_and(|f| f > hi) {
        // The rays fit together; the atom count is what is wrong.
        return Ok(());
    }
    match conflict(&observed, rules, guard) {
        Ok(c) => solution.conflict = c,
        Err(Halt::Cut(cut)) => solution.conflict_cut = Some(cut),
        Err(Halt::Failed(e)) => return Err(e),
    }
    Ok(())
}

/// A smallest set of rays of `observed` that contradict each other whatever
/// the atom count (as border positions), or `None` when they fit together.
///
/// Every ray of a plain model is encoded whole, which on a large box is
/// millions of clauses each: the rays are first narrowed to a set that
/// inference alone finds contradictory (each ray added only when the ones
/// before it are not enough, found by halving), and only those are encoded.
fn conflict(
    observed: &Observation,
    rules: Rules,
    guard: &Guard,
) -> Result<Option<Vec<usize>>, Halt> {
    let cells = observed.shape().cells();
    let rays = observed.rays();
    let contradictory = |subset: &[(usize, Outcome)]| -> Result<bool, Halt> {
        let mut o = Observation::empty(observed.shape());
        for &(pos, outcome) in subset {
            o.record(pos, outcome);
            if let Outcome::Exit(k) = outcome {
                o.record(k, Outcome::Exit(pos));
            }
        }
        let inferred = infer_within(&o, rules, cells, &guard.budget);
        match inferred.cut {
            Some(cut) => Err(Halt::Cut(cut)),
            None => Ok(inferred.contradiction),
        }
    };
    let narrowed = if contradictory(&rays)? {
        // Grow a set of needed rays: the shortest prefix of the others that
        // with them is contradictory ends with a needed ray.
        let mut needed: Vec<(usize, Outcome)> = Vec::new();
        let mut rest = rays.clone();
        while !contradictory(&needed)? {
            if rest.is_empty() {
                // Inference found the whole set contradictory but not this
                // part of it: encode them all.
                needed = rays.clone();
                break;
            }
            let (mut lo, mut hi) = (0, rest.len());
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                let mut trial = needed.clone();
                trial.extend_from_slice(&rest[..mid]);
                if contradictory(&trial)? {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            // rest[..hi] with `needed` is contradictory, rest[..hi - 1] is not.
            needed.push(rest[hi - 1]);
            rest.truncate(hi - 1);
        }
        needed
    } else {
        rays
    };
    let mut sub = Observation::empty(observed.shape());
    for &(pos, outcome) in &narrowed {
        sub.record(pos, outcome);
        if let Outcome::Exit(k) = outcome {
            sub.record(k, Outcome::Exit(pos));
        }
    }
    let mut plain = RayModel::new(observed.shape(), rules, cells);
    plain.set_guard(guard.clone());
    plain.observe(&sub);
    plain.solver.whole()?;
    let Some(core) = plain.conflict_within(0..=cells)? else {
        return Ok(None);
    };
    let positions = core
        .iter()
        .flat_map(|&i| plain.rays()[i].positions())
        .sorted_unstable()
        .collect();
    Ok(Some(positions))
}

/// The search itself: every molecule, by families, and what is certain.
fn search(
    question: &Question,
    atoms: RangeInclusive<usize>,
    guard: &Guard,
    mut found: impl FnMut(&Molecule),
) -> Result<Solution, Error> {
    let Question {
        observed, rules, ..
    } = question;
    let cells = observed.shape().cells();
    let (lo, hi) = (*atoms.start(), *atoms.end());
    let mut solution = Solution::interrupted(observed.clone(), *rules, atoms, Vec::new());
    let mut model = RayModel::from_inferred(observed, *rules, hi, &question.inferred);
    model.set_guard(guard.clone());
    let selectors: Vec<Lit> = model.rays().iter().map(|r| r.selector).collect();
    let f = model.solve_with(&selectors, lo..=hi, question.max, &mut found)?;
    solution.molecules = f.molecules;
    // In number order, whatever order the solver found them in.
    solution.molecules.sort_unstable();
    solution.count = f.count;
    solution.families = f.families;
    solution.ended = f.ended;
    if solution.ended.cut().is_some() {
        return Ok(solution);
    }
    let mut seen = vec![[false; 2]; cells];
    for family in &solution.families {
        for (cell, s) in seen.iter_mut().enumerate() {
            if family.free.binary_search(&cell).is_ok() {
                s[1] |= family.extra > 0;
                s[0] |= family.extra < family.free.len();
            } else {
                s[usize::from(family.base.atoms().binary_search(&cell).is_ok())] = true;
            }
        }
    }
    if !solution.ended.is_complete() {
        // Found only some molecules: ask the solver about each cell not yet
        // seen both ways, unless that takes too many calls. Each molecule
        // the solver shows is seen on every cell at once.
        let probes: usize = seen
            .iter()
            .map(|s| usize::from(!s[0]) + usize::from(!s[1]))
            .sum();
        // Each call costs about the size of the model: on a large box a few
        // families of thousands of molecules are found in a few calls, and
        // thousands of calls on millions of clauses would follow.
        let work = probes.saturating_mul(model.size().clauses);
        if probes > MAX_PROBES || work > PROBE_WORK {
            solution.certainty_skipped = true;
            return Ok(solution);
        }
        for i in 0..cells {
            for v in [false, true] {
                if seen[i][usize::from(v)] {
                    continue;
                }
                let lit = model.atom_var(i).lit(v);
                match model.witness(&selectors, &(lo..=hi), &[lit]) {
                    Ok(Some(m)) => {
                        for (cell, s) in seen.iter_mut().enumerate() {
                            s[usize::from(m.atoms().binary_search(&cell).is_ok())] = true;
                        }
                    }
                    Ok(None) => {}
                    Err(Halt::Cut(cut)) => {
                        solution.certainty_cut = Some(cut);
                        return Ok(solution);
                    }
                    Err(Halt::Failed(e)) => return Err(e),
                }
            }
        }
    }
    solution.certainty = Some(
        seen.iter()
            .map(|s| match s {
                [true, true] => Certainty::Undecided,
                [false, true] => Certainty::Atom,
                _ => Certainty::Empty,
            })
            .collect(),
    );
    Ok(solution)
}

impl Solution {
    /// The unshot rays that tell the molecules found apart, best first (fewest
    /// molecules expected to remain).
    pub fn splits(&self) -> Vec<Split> {
        if self.molecules.len() < 2 {
            return Vec::new();
        }
        let codes: Vec<Vec<u16>> = outcome_table(&self.molecules, self.rules)
            .iter()
            .map(|row| row.iter().map(|o| o.code() as u16).collect())
            .collect();
        self.splits_from(&codes)
    }

    /// [`splits`](Self::splits) from the outcome codes ([`Outcome::code`])
    /// of every ray of each molecule listed, traced once for the whole
    /// report: each unshot ray's outcomes counted in one pass over the
    /// molecules.
    pub(crate) fn splits_from(&self, codes: &[Vec<u16>]) -> Vec<Split> {
        if self.molecules.len() < 2 {
            return Vec::new();
        }
        let positions = self.observation.shape().positions();
        let mut counts = vec![0usize; Outcome::codes(positions)];
        let mut splits: Vec<Split> = (1..=positions)
            .filter(|&pos| self.observation.get(pos).is_none())
            .filter_map(|pos| {
                for row in codes {
                    counts[usize::from(row[pos - 1])] += 1;
                }
                let mut classes: Vec<(Outcome, usize)> = Vec::new();
                for (code, k) in counts.iter_mut().enumerate() {
                    if *k > 0 {
                        classes.push((Outcome::from_code(code), std::mem::take(k)));
                    }
                }
                // Sorted first: the information is summed most first.
                classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                (classes.len() >= 2).then(|| Split::new(pos, classes))
            })
            .collect();
        best_first(&mut splits);
        splits
    }

    /// The molecule of rank `index` (0-based) among all those found, family
    /// after family, counted ones included; `None` past [`count`](Self::count).
    /// A uniform random answer is `nth` of a uniform random index.
    pub fn nth(&self, mut index: u128) -> Option<Molecule> {
        for f in &self.families {
            let size = f.size();
            if index < size {
                return f.member(index);
            }
            index -= size;
        }
        None
    }

    /// Cells that hold an atom in every molecule (linear indices).
    pub fn certain_atoms(&self) -> Vec<usize> {
        self.cells_where(Certainty::Atom)
    }

    /// Cells empty in every molecule (linear indices).
    pub fn certain_empty(&self) -> Vec<usize> {
        self.cells_where(Certainty::Empty)
    }

    fn cells_where(&self, c: Certainty) -> Vec<usize> {
        self.certainty
            .as_ref()
            .map(|v| {
                v.iter()
                    .enumerate()
                    .filter(|(_, x)| **x == c)
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default()
    }
}
