//! The SAT model of one box: the solver, one variable per cell, constants for
//! the cells decided in advance, clauses, and the atom counter.

use varisat::{ExtendFormula, Lit, Solver, Var};

use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Observation;
use crate::solver::infer::{Inferred, infer_within};
use crate::solver::limits::{Cut, Guard, Halt, model_bytes};

/// A literal or a constant, while building clauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum L {
    True,
    False,
    Lit(Lit),
}

impl std::ops::Not for L {
    type Output = L;
    fn not(self) -> L {
        match self {
            L::True => L::False,
            L::False => L::True,
            L::Lit(l) => L::Lit(!l),
        }
    }
}

/// One observed ray (an exit pair counts once) and its selector.
#[derive(Debug, Clone)]
pub struct ObservedRay {
    /// The position it was shot from (the lower end of an exit pair).
    pub position: usize,
    /// What was observed.
    pub outcome: Outcome,
    /// Assume this literal to make the ray count.
    pub selector: Lit,
}

impl ObservedRay {
    /// The border positions this observation covers (both ends of an exit).
    pub fn positions(&self) -> Vec<usize> {
        match self.outcome {
            Outcome::Exit(k) => vec![self.position, k],
            _ => vec![self.position],
        }
    }
}

/// Size of an encoding, for reports and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodingSize {
    /// Variables created.
    pub variables: usize,
    /// Clauses added.
    pub clauses: usize,
}

/// The ray rules of one box as a SAT problem, with observed rays added under
/// selectors.
pub struct RayModel {
    pub(super) width: usize,
    pub(super) rules: Rules,
    pub(super) solver: Solver<'static>,
    pub(super) size: EncodingSize,
    pub(super) t: Lit,
    pub(super) atoms: Vec<Var>,
    /// What is known of each cell before solving: `Some(true)` atom, `Some(false)` empty.
    pub(super) known: Vec<Option<bool>>,
    /// Number of cells known to hold atoms.
    known_atoms: usize,
    /// Number of cells not known.
    undecided: usize,
    /// Largest atom count asked for.
    pub(super) max_atoms: usize,
    /// `at_least[j]` is true iff at least j of the unknown cells hold atoms
    /// (`at_least[0]` is true); built on first use.
    at_least: Vec<L>,
    pub(super) rays: Vec<ObservedRay>,
    /// Observed rays not encoded yet (simplified models only).
    pub(super) pending: Vec<(usize, Outcome)>,
    /// The observation candidates are checked against, with a tracer to check
    /// them (simplified models only).
    pub(super) check: Option<(Observation, Tracer)>,
    /// The clauses of the encoded rays, one after another (`ray_ends` closes
    /// each), for [`RayModel::needed`].
    pub(super) ray_lits: Vec<Lit>,
    pub(super) ray_ends: Vec<usize>,
    /// True while a ray is being encoded: its clauses are recorded.
    pub(super) recording: bool,
    /// The limits this model keeps to (deadline, stop flags, memory).
    pub(super) guard: Guard,
    /// What stopped the model while it was adding clauses (a ray or a
    /// counter half encoded): it then answers nothing more.
    pub(super) broken: Option<Cut>,
    /// Bytes this model has taken from its guard's memory budget.
    charged: u64,
    /// Calls to [`poll`](Self::poll) since the clock was last read.
    ticks: u32,
    /// Solver calls made so far.
    pub(super) calls: usize,
    /// True when inference showed before solving that no molecule fits.
    pub(super) contradiction: bool,
    /// Scratch: state variable of (cell, heading) for the ray being encoded.
    pub(super) state: Vec<Option<Lit>>,
    pub(super) touched: Vec<usize>,
}

impl std::fmt::Debug for RayModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayModel")
            .field("width", &self.width)
            .field("rules", &self.rules)
            .field("size", &self.size)
            .field("rays", &self.rays.len())
            .finish()
    }
}

impl Drop for RayModel {
    fn drop(&mut self) {
        self.release();
    }
}

/// Estimated bytes of a sequential counter up to `limit` over `inputs`
/// cells: a variable and four clauses per input and count.
pub(super) fn counter_bytes(inputs: usize, limit: usize) -> u64 {
    use crate::solver::limits::{CLAUSE_BYTES, VAR_BYTES};
    (inputs as u64)
        .saturating_mul(limit as u64)
        .saturating_mul(VAR_BYTES + 4 * CLAUSE_BYTES)
}

impl RayModel {
    /// An empty model of a `width`-wide box that can count atoms up to
    /// `max_atoms` (the largest count any later [`solve`](Self::solve) asks for).
    pub fn new(width: usize, rules: Rules, max_atoms: usize) -> RayModel {
        let mut solver = Solver::new();
        let atoms: Vec<Var> = (0..width * width).map(|_| solver.new_var()).collect();
        // `needed` tells atom literals from the others by this.
        debug_assert!(atoms.iter().enumerate().all(|(i, v)| v.index() == i));
        let t = solver.new_lit();
        solver.add_clause(&[t]);
        RayModel {
            width,
            rules,
            solver,
            size: EncodingSize {
                variables: width * width + 1,
                clauses: 1,
            },
            t,
            atoms,
            known: vec![None; width * width],
            known_atoms: 0,
            undecided: width * width,
            max_atoms: max_atoms.min(width * width),
            at_least: Vec::new(),
            rays: Vec::new(),
            pending: Vec::new(),
            check: None,
            ray_lits: Vec::new(),
            ray_ends: Vec::new(),
            recording: false,
            state: vec![None; width * width * 4],
            touched: Vec::new(),
            guard: Guard::default(),
            broken: None,
            charged: 0,
            ticks: 0,
            calls: 0,
            contradiction: false,
        }
    }

    /// Makes every later search stop once `stop` is set — between solver
    /// calls and inside the encoding of a ray — answering with what it found
    /// ([`Found::interrupted`](crate::solver::Found::interrupted)).
    pub fn stop_when(&mut self, stop: Option<&'static std::sync::atomic::AtomicBool>) {
        self.guard.stop = stop;
    }

    /// Keeps this model to `guard` from now on (the memory it already
    /// takes is charged to the new budget).
    pub(super) fn set_guard(&mut self, guard: Guard) {
        self.release();
        self.guard = guard;
        self.account();
    }

    /// The limit that stopped this model in the middle of adding clauses,
    /// if one did: the model then answers nothing more.
    pub fn cut(&self) -> Option<Cut> {
        self.broken
    }

    /// Inside a loop that adds clauses: whether to stop now, leaving the
    /// model broken (see [`cut`](Self::cut)). The clock is read every 256
    /// calls.
    pub(super) fn poll(&mut self) -> bool {
        if self.broken.is_some() {
            return true;
        }
        self.ticks += 1;
        if self.ticks >= 256 {
            self.ticks = 0;
            if let Err(c) = self.guard.check() {
                self.broken = Some(c);
            }
        }
        self.broken.is_some()
    }

    /// `Err` when the model is broken or a limit is reached now; between
    /// solver calls, where stopping leaves the model whole.
    pub(super) fn keep_limits(&mut self) -> Result<(), Halt> {
        if let Some(c) = self.broken {
            return Err(Halt::Cut(c));
        }
        self.guard.check()?;
        Ok(())
    }

    /// `Err` when a loop stopped by [`poll`](Self::poll) left the model broken.
    pub(super) fn whole(&self) -> Result<(), Halt> {
        match self.broken {
            Some(c) => Err(Halt::Cut(c)),
            None => Ok(()),
        }
    }

    /// Solver calls made so far.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Estimated bytes this model takes.
    pub fn memory(&self) -> u64 {
        model_bytes(self.atoms.len(), self.size.variables, self.size.clauses)
    }

    /// Charges the memory grown since the last charge, a megabyte at a time,
    /// to the guard's budget; past the bound the model is cut.
    fn account(&mut self) {
        let Some(budget) = &self.guard.memory else {
            return;
        };
        let now = self.memory();
        if now >= self.charged + (1 << 20) || self.charged == 0 {
            let more = now - self.charged;
            self.charged = now;
            if !budget.take(more) && self.broken.is_none() {
                self.broken = Some(Cut::Memory);
            }
        }
    }

    /// Gives back to the budget what this model was charged.
    fn release(&mut self) {
        if let Some(budget) = &self.guard.memory {
            budget.release(self.charged);
        }
        self.charged = 0;
    }

    /// A model of one observation, simplified for speed: before encoding, the
    /// rays are run forward over the cells they force empty or full (the edge analysis of
    /// A. Janns's solver, generalised to every ray and repeated until nothing
    /// changes); known cells become constants, steps they decide are not encoded,
    /// and the atom counter covers only the undecided cells.
    ///
    /// What the rays imply is built in as fact, so the rays of a simplified
    /// model cannot be switched off: use [`RayModel::new`] for [`conflict`](Self::conflict)
    /// and for choosing subsets of rays.
    pub fn simplified(observed: &Observation, rules: Rules, max_atoms: usize) -> RayModel {
        let inferred = infer_within(observed, rules, max_atoms, &Guard::default());
        RayModel::from_inferred(observed, rules, max_atoms, &inferred)
    }

    /// A simplified model (see [`simplified`](Self::simplified)) on cells
    /// already inferred with `max_atoms`.
    pub(super) fn from_inferred(
        observed: &Observation,
        rules: Rules,
        max_atoms: usize,
        inferred: &Inferred,
    ) -> RayModel {
        let mut m = RayModel::new(observed.width(), rules, max_atoms);
        let known = inferred.known.clone();
        m.contradiction = inferred.contradiction;
        for (cell, k) in known.iter().enumerate() {
            if let Some(v) = *k {
                let lit = m.atoms[cell].lit(v);
                m.size.clauses += 1;
                m.solver.add_clause(&[lit]);
                m.known_atoms += usize::from(v);
                m.undecided -= 1;
            }
        }
        m.known = known;
        // Rays are encoded when a candidate molecule disagrees with them (see
        // `solve_with`); they hold unconditionally, so their selector is `true`.
        m.pending = observed.rays();
        m.check = Some((observed.clone(), Tracer::new(observed.width(), rules)));
        m
    }

    /// Cells decided before solving (`Some(true)` atom, `Some(false)` empty).
    pub fn known_cells(&self) -> &[Option<bool>] {
        &self.known
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The observed rays added so far.
    pub fn rays(&self) -> &[ObservedRay] {
        &self.rays
    }

    /// Variables and clauses so far.
    pub fn size(&self) -> EncodingSize {
        self.size
    }

    /// The variable of the atom on linear cell `cell`.
    pub fn atom_var(&self, cell: usize) -> Var {
        self.atoms[cell]
    }

    pub(super) fn new_lit(&mut self) -> Lit {
        self.size.variables += 1;
        self.account();
        self.solver.new_lit()
    }

    /// Adds a clause, dropping false constants; a true constant satisfies it.
    pub(super) fn clause(&mut self, lits: &[L]) {
        let mut c: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            match l {
                L::True => return,
                L::False => {}
                L::Lit(x) => c.push(x),
            }
        }
        if c.is_empty() {
            c.push(!self.t);
        }
        self.size.clauses += 1;
        self.account();
        self.solver.add_clause(&c);
        if self.recording {
            self.ray_lits.extend_from_slice(&c);
            self.ray_ends.push(self.ray_lits.len());
        }
    }

    /// One step of a sequential counter: a new literal r ⇔ `at_least_j` ∨
    /// (`at_least_j_minus_1` ∧ `x`), "at least j inputs so far are true" once
    /// input `x` is counted.
    pub(super) fn counter_step(&mut self, at_least_j: L, at_least_j_minus_1: L, x: L) -> L {
        let r = L::Lit(self.new_lit());
        self.clause(&[!at_least_j, r]);
        self.clause(&[!at_least_j_minus_1, !x, r]);
        self.clause(&[!r, at_least_j, x]);
        self.clause(&[!r, at_least_j, at_least_j_minus_1]);
        r
    }

    /// How far the atom counter counts: up to one more atom than can be
    /// asked for, among the undecided cells.
    fn counter_limit(&self) -> usize {
        (self.max_atoms + 1)
            .saturating_sub(self.known_atoms)
            .min(self.undecided)
    }

    /// Estimated bytes of the atom counter ([`counter_bytes`]) of this model.
    pub(super) fn counter_memory(&self) -> u64 {
        counter_bytes(self.undecided, self.counter_limit())
    }

    /// Sequential counter over the undecided cells: `r[i][j]` ⇔ at least j of the
    /// first i of them hold atoms, for j up to `limit`. A counter that
    /// would not fit in the memory budget is not begun (the model is cut);
    /// one cut while built is left empty.
    fn build_counter(&mut self) -> Result<(), Halt> {
        if let Some(budget) = &self.guard.memory
            && !budget.fits(self.counter_memory())
        {
            return Err(Halt::Cut(Cut::Memory));
        }
        self.keep_limits()?;
        let inputs: Vec<Var> = self
            .atoms
            .iter()
            .zip(&self.known)
            .filter(|(_, k)| k.is_none())
            .map(|(v, _)| *v)
            .collect();
        let limit = self.counter_limit();
        let mut prev: Vec<L> = (0..=limit)
            .map(|j| if j == 0 { L::True } else { L::False })
            .collect();
        for (i, v) in inputs.iter().enumerate() {
            if self.poll() {
                return self.whole();
            }
            let i = i + 1;
            let x = L::Lit(v.positive());
            let mut cur = vec![L::True; limit + 1];
            for j in 1..=limit {
                if j > i {
                    cur[j] = L::False;
                    continue;
                }
                cur[j] = self.counter_step(prev[j], prev[j - 1], x);
            }
            prev = cur;
        }
        self.at_least = prev;
        Ok(())
    }

    /// The literal `count ≥ j` over the whole box, as a constant when decided.
    pub(super) fn at_least_lit(&mut self, j: usize) -> Result<L, Halt> {
        if j <= self.known_atoms {
            return Ok(L::True);
        }
        if j - self.known_atoms > self.undecided {
            return Ok(L::False);
        }
        if self.at_least.is_empty() {
            self.build_counter()?;
        }
        match self.at_least.get(j - self.known_atoms) {
            Some(&l) => Ok(l),
            None => Err(Halt::Failed(crate::error::Error::Internal(format!(
                "the atom counter was built for at most {} atoms, not {j}",
                self.max_atoms
            )))),
        }
    }

    /// The atom literal of padded cell (r, c), false outside the box.
    pub(super) fn atom(&self, r: isize, c: isize) -> L {
        let p = self.width as isize;
        if r >= 1 && c >= 1 && r <= p && c <= p {
            let cell = ((r - 1) * p + (c - 1)) as usize;
            match self.known[cell] {
                Some(true) => L::True,
                Some(false) => L::False,
                None => L::Lit(self.atoms[cell].positive()),
            }
        } else {
            L::False
        }
    }
}
