//! The search state of one box: the solver (kept to its limits), the
//! encoding in it, the observed rays under their selectors, and the rays
//! still waiting to be encoded.

use varisat::{ExtendFormula, Lit, Solver, Var};

use crate::control::{Budget, Cut, Halt};
use crate::error::Error;
use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Observation;
use crate::solver::encode::{Encoding, Formula, Term};
use crate::solver::infer::{Inferred, infer_within};
use crate::solver::limits::{Guard, model_bytes};

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

/// The solver of a model, kept to the model's limits: it counts the
/// variables and clauses added, charges their memory to the guard's pool,
/// and reads the deadline and token every 256 calls to
/// [`halted`](Formula::halted) from the encoding's long loops. A limit
/// reached while clauses are added leaves it *broken*: it answers nothing
/// more.
pub(super) struct Bounded {
    pub(super) solver: Solver<'static>,
    /// Cells of the box (for the memory estimate).
    cells: usize,
    pub(super) size: EncodingSize,
    /// The limits this model keeps to (deadline, token, memory).
    pub(super) guard: Guard,
    /// What stopped the model while it was adding clauses (a ray or a
    /// counter half encoded).
    pub(super) broken: Option<Cut>,
    /// Bytes taken from the guard's memory pool.
    charged: u64,
    /// Calls to [`halted`](Formula::halted) since the clock was last read.
    ticks: u32,
}

impl ExtendFormula for Bounded {
    fn add_clause(&mut self, literals: &[Lit]) {
        self.size.clauses += 1;
        self.account();
        self.solver.add_clause(literals);
    }

    fn new_var(&mut self) -> Var {
        self.size.variables += 1;
        self.account();
        self.solver.new_var()
    }
}

impl Formula for Bounded {
    /// Inside a loop that adds clauses: whether to stop now, leaving the
    /// solver broken. The clock is read every 256 calls.
    fn halted(&mut self) -> bool {
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
}

impl Drop for Bounded {
    fn drop(&mut self) {
        self.release();
    }
}

impl Bounded {
    fn new(cells: usize) -> Bounded {
        Bounded {
            solver: Solver::new(),
            cells,
            size: EncodingSize::default(),
            guard: Guard::default(),
            broken: None,
            charged: 0,
            ticks: 0,
        }
    }

    /// `Err` when the solver is broken or a limit is reached now; between
    /// solver calls, where stopping leaves it whole.
    pub(super) fn keep_limits(&mut self) -> Result<(), Halt> {
        self.whole()?;
        self.guard.check()?;
        Ok(())
    }

    /// `Err` when a loop stopped by [`halted`](Formula::halted) left the
    /// solver broken.
    pub(super) fn whole(&self) -> Result<(), Halt> {
        match self.broken {
            Some(c) => Err(Halt::Cut(c)),
            None => Ok(()),
        }
    }

    /// Estimated bytes the model takes.
    fn memory(&self) -> u64 {
        model_bytes(self.cells, self.size.variables, self.size.clauses)
    }

    /// Charges the memory grown since the last charge, a megabyte at a time,
    /// to the guard's pool; past the bound the solver is broken.
    fn account(&mut self) {
        let Some(pool) = &self.guard.memory else {
            return;
        };
        let now = self.memory();
        if now >= self.charged + (1 << 20) || self.charged == 0 {
            let more = now - self.charged;
            self.charged = now;
            if !pool.take(more) && self.broken.is_none() {
                self.broken = Some(Cut::OverMemory);
            }
        }
    }

    /// Gives back to the pool what was charged.
    fn release(&mut self) {
        if let Some(pool) = &self.guard.memory {
            pool.release(self.charged);
        }
        self.charged = 0;
    }
}

/// The ray rules of one box as a SAT problem, with observed rays added under
/// selectors, and the state of the searches made on it.
pub struct RayModel {
    /// The solver, kept to the model's limits.
    pub(super) solver: Bounded,
    /// The clauses' variables and what is known of the cells.
    pub(super) encoding: Encoding,
    /// The observed rays encoded so far, with their selectors.
    pub(super) rays: Vec<ObservedRay>,
    /// Observed rays not encoded yet (simplified models only).
    pub(super) pending: Vec<(usize, Outcome)>,
    /// The observation candidates are checked against, with a tracer to check
    /// them (simplified models only).
    pub(super) check: Option<(Observation, Tracer)>,
    /// Solver calls made so far.
    pub(super) calls: usize,
    /// True when inference showed before solving that no molecule fits.
    pub(super) contradiction: bool,
}

impl std::fmt::Debug for RayModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayModel")
            .field("shape", &self.encoding.shape)
            .field("rules", &self.encoding.rules)
            .field("size", &self.solver.size)
            .field("rays", &self.rays.len())
            .finish()
    }
}

impl RayModel {
    /// An empty model of a box of `shape` (a width alone is a square) that
    /// can count atoms up to `max_atoms` (the largest count any later
    /// [`solve`](Self::solve) asks for).
    pub fn new(shape: impl Into<Shape>, rules: Rules, max_atoms: usize) -> RayModel {
        let shape = shape.into();
        let mut solver = Bounded::new(shape.cells());
        let encoding = Encoding::new(&mut solver, shape, rules, max_atoms);
        // `needed` tells atom literals from the others by this.
        debug_assert!(
            encoding
                .atoms
                .iter()
                .enumerate()
                .all(|(i, v)| v.index() == i)
        );
        RayModel {
            solver,
            encoding,
            rays: Vec::new(),
            pending: Vec::new(),
            check: None,
            calls: 0,
            contradiction: false,
        }
    }

    /// The same model, kept to `budget` from now on: its deadline and
    /// token stop the encoding of a ray and every search (which answers with
    /// what it found), and its memory bound ([`DEFAULT_MEMORY`] when it gives
    /// none) the clauses it may add.
    ///
    /// [`DEFAULT_MEMORY`]: crate::solver::DEFAULT_MEMORY
    pub fn within(mut self, budget: &Budget) -> RayModel {
        self.set_guard(Guard::new(budget));
        self
    }

    /// Keeps this model to `guard` from now on (the memory it already
    /// takes is charged to the new pool).
    pub(super) fn set_guard(&mut self, guard: Guard) {
        self.solver.release();
        self.solver.guard = guard;
        self.solver.account();
    }

    /// `f` on this model whatever its limits, for a question that must be
    /// answered: a model that an earlier search left cut short (see
    /// [`cut`](Self::cut)) cannot answer it, which is an error.
    pub(super) fn unlimited<T>(
        &mut self,
        f: impl FnOnce(&mut RayModel) -> Result<T, Halt>,
    ) -> Result<T, Error> {
        let guard = std::mem::take(&mut self.solver.guard);
        let r = f(self);
        self.solver.guard = guard;
        r.map_err(|halt| match halt {
            Halt::Failed(e) => e,
            Halt::Cut(c) => Error::Internal(format!(
                "the model was cut short earlier ({c:?}) and cannot answer"
            )),
        })
    }

    /// The `items` whose literal (`lit`) is in the solver's failed core (of
    /// the last call, unsatisfiable under its assumptions), in order.
    pub(super) fn in_failed_core<T: Copy>(
        &self,
        items: impl IntoIterator<Item = T>,
        lit: impl Fn(T) -> Lit,
    ) -> Vec<T> {
        let core = self.solver.solver.failed_core().unwrap_or(&[]);
        let failed: std::collections::HashSet<Lit> = core.iter().copied().collect();
        items
            .into_iter()
            .filter(|&x| failed.contains(&lit(x)))
            .collect()
    }

    /// The limit that stopped this model in the middle of adding clauses,
    /// if one did: the model then answers nothing more.
    pub fn cut(&self) -> Option<Cut> {
        self.solver.broken
    }

    /// Solver calls made so far.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Estimated bytes this model takes.
    pub fn memory(&self) -> u64 {
        self.solver.memory()
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
        let inferred = infer_within(observed, rules, max_atoms, &Budget::default());
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
        let mut m = RayModel::new(observed.shape(), rules, max_atoms);
        m.contradiction = inferred.contradiction;
        m.encoding.fix(&mut m.solver, inferred.known.clone());
        // Rays are encoded when a candidate molecule disagrees with them (see
        // `solve_with`); they hold unconditionally, so their selector is `true`.
        m.pending = observed.rays();
        m.check = Some((observed.clone(), Tracer::new(observed.shape(), rules)));
        m
    }

    /// Cells decided before solving (`Some(true)` atom, `Some(false)` empty).
    pub fn known_cells(&self) -> &[Option<bool>] {
        &self.encoding.known
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.encoding.shape.width
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.encoding.shape
    }

    /// The observed rays added so far.
    pub fn rays(&self) -> &[ObservedRay] {
        &self.rays
    }

    /// Variables and clauses so far.
    pub fn size(&self) -> EncodingSize {
        self.solver.size
    }

    /// The variable of the atom on linear cell `cell`.
    pub fn atom_var(&self, cell: usize) -> Var {
        self.encoding.atoms[cell]
    }

    /// A new variable, as a literal.
    pub(super) fn new_lit(&mut self) -> Lit {
        self.solver.new_lit()
    }

    /// Adds a clause (see [`Encoding::clause`]).
    pub(super) fn clause(&mut self, lits: &[Term]) {
        self.encoding.clause(&mut self.solver, lits);
    }

    /// Estimated bytes of the atom counter of this model.
    pub(super) fn counter_memory(&self) -> u64 {
        self.encoding.counter_memory()
    }

    /// The literal `count ≥ j` over the whole box, as a constant when
    /// decided. The atom counter is built on first use, unless it would not
    /// fit in the memory budget (the model is cut); one cut while built is
    /// left unbuilt.
    pub(super) fn at_least_lit(&mut self, j: usize) -> Result<Term, Halt> {
        if let Some(l) = self.encoding.at_least_constant(j) {
            return Ok(l);
        }
        if !self.encoding.has_counter() {
            if let Some(pool) = &self.solver.guard.memory
                && !pool.fits(self.counter_memory())
            {
                return Err(Halt::Cut(Cut::OverMemory));
            }
            self.solver.keep_limits()?;
            self.encoding.build_counter(&mut self.solver);
            if !self.encoding.has_counter() {
                self.solver.whole()?;
            }
        }
        match self.encoding.at_least_counted(j) {
            Some(l) => Ok(l),
            None => Err(Halt::Failed(Error::Internal(format!(
                "the atom counter was built for at most {} atoms, not {j}",
                self.encoding.max_atoms()
            )))),
        }
    }
}

/// Observed rays: encoded under selectors, or left pending in a simplified
/// model until a candidate disagrees with them.
impl RayModel {
    /// Adds every ray of `observed` (an exit pair once) under its own selector
    /// and returns their indices in [`rays`](Self::rays).
    pub fn observe(&mut self, observed: &Observation) -> Vec<usize> {
        observed
            .rays()
            .into_iter()
            .map(|(pos, o)| self.add_ray(pos, o))
            .collect()
    }

    /// Adds one observed ray under a new selector; returns its index.
    ///
    /// # Panics
    /// When `pos` or an exit position is outside 1..=4p.
    pub fn add_ray(&mut self, pos: usize, outcome: Outcome) -> usize {
        let selector = self.new_lit();
        self.add_ray_under(pos, outcome, selector)
    }

    /// Encodes an observed ray (an exit pair from both ends) under `selector`.
    fn add_ray_under(&mut self, pos: usize, outcome: Outcome, selector: Lit) -> usize {
        self.encoding
            .ray(&mut self.solver, pos, outcome, Term::Lit(selector));
        self.rays.push(ObservedRay {
            position: pos,
            outcome,
            selector,
        });
        self.rays.len() - 1
    }

    /// In a simplified model, encodes the pending rays on which candidate `m`
    /// disagrees with the observation; returns whether there were any.
    pub(super) fn encode_disagreeing(&mut self, m: &crate::Molecule) -> Result<bool, Halt> {
        let Some((observed, mut tracer)) = self.check.take() else {
            return Ok(false);
        };
        tracer.load(m);
        let pending = std::mem::take(&mut self.pending);
        let mut any = false;
        for (pos, outcome) in pending {
            if self.solver.broken.is_some() || tracer.trace(pos).outcome == outcome {
                self.pending.push((pos, outcome));
            } else {
                any = true;
                self.encode_for_good(pos, outcome);
            }
        }
        self.check = Some((observed, tracer));
        self.solver.whole()?;
        Ok(any)
    }

    /// Encodes an observed ray that always holds (selector `true`).
    fn encode_for_good(&mut self, pos: usize, outcome: Outcome) {
        self.add_ray_under(pos, outcome, self.encoding.t);
    }

    /// Whether observed rays still wait to be encoded (candidates are then
    /// checked with the ray engine).
    pub(super) fn has_pending(&self) -> bool {
        self.check.is_some() && !self.pending.is_empty()
    }

    /// In a simplified model, encodes every observed ray that is still waiting
    /// for a candidate to disagree with it, and stops checking candidates with
    /// the ray engine: from then on the molecules found rest on the clauses
    /// alone. `bbx verify` does this so that the SAT side does not share the
    /// ray engine with the enumeration it checks; the answer is the same, and
    /// so, measured, is the time.
    ///
    /// ```
    /// use bbx::{Molecule, Observation, Rules, Spectrum};
    /// use bbx::solver::RayModel;
    ///
    /// let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
    /// let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
    /// let mut model = RayModel::simplified(&observed, Rules::Standard, 4);
    /// model.encode_all_rays();
    /// assert_eq!(model.solve(4..=4, None).unwrap().molecules.len(), 2);
    /// ```
    pub fn encode_all_rays(&mut self) {
        self.check = None;
        for (pos, outcome) in std::mem::take(&mut self.pending) {
            if self.solver.broken.is_some() {
                break;
            }
            self.encode_for_good(pos, outcome);
        }
    }

    /// [`encode_all_rays`](Self::encode_all_rays), `Err` when a limit
    /// stopped it.
    pub(super) fn encode_pending(&mut self) -> Result<(), Halt> {
        self.encode_all_rays();
        self.solver.whole()
    }
}
