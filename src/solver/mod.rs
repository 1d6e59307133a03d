//! The ray rules as SAT clauses, and every molecule that fits an observation.
//!
//! The encoding (built by [`RayModel`]) and the search ([`RayModel::solve`],
//! [`RayModel::conflict`]) are separate steps, as in varisat itself.
//!
//! **Variables.** One per cell, true when the cell holds an atom. For each
//! observed ray, one per state the ray can be in — a cell and a heading — true
//! when the ray passes through that state. A sequential counter over the atom
//! variables gives literals `count ≥ j`.
//!
//! **Clauses.** For a ray on cell X heading d, with A the cell ahead and L, R
//! the cells diagonally ahead, the rules become implications from the state:
//!
//! ```text
//! s(X,d) ∧ a(A)                 → the ray is absorbed here
//! s(X,d) ∧ ¬a(A) ∧ a(L) ∧ a(R)  → the ray is reflected here
//! s(X,d) ∧ ¬a(A) ∧ a(L) ∧ ¬a(R) → s(X, right of d)
//! s(X,d) ∧ ¬a(A) ∧ ¬a(L) ∧ a(R) → s(X, left of d)
//! s(X,d) ∧ ¬a(A) ∧ ¬a(L) ∧ ¬a(R)→ s(A,d), or the ray comes out if A is outside
//! ```
//!
//! Every ending other than the observed one is forbidden, so the forced path
//! must end exactly as observed. The path is deterministic and every clause
//! contains `¬s`, so states off the path can all be false: only the entry
//! clauses (which force the first state) hang on the ray's *selector* literal,
//! and a ray whose selector is not assumed constrains nothing. An exit pair is
//! encoded from both ends (under one selector), so unit propagation runs the
//! ray forward from each end.
//!
//! **Search.** Solve under the assumptions (selectors and the atom count), read
//! the molecule, add a clause that blocks it, solve again, until the formula is
//! unsatisfiable. Blocking clauses mention only atom variables, the counter
//! literal `count ≥ |S|+1` (so that a molecule with more atoms than this one is
//! not blocked when a range of counts is asked for) and an activation literal
//! that retires them after the enumeration.
//!
//! **Families.** A clause the model satisfies with a ray state holds whatever
//! the atoms do; one it satisfies with atom literals alone needs one of them
//! kept. The cells kept that way are all the model needs: every molecule that
//! agrees with it there and has as many atoms satisfies every ray clause with
//! the same states. Such a family (an atom free to sit anywhere in a region no
//! ray looks at, say) is listed at once and blocked by one clause.
//!
//! ```
//! use bbx::{Molecule, Observation, Rules, Spectrum};
//! use bbx::solver::RayModel;
//!
//! let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
//! let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
//! let mut model = RayModel::new(6, Rules::Standard, 4);
//! model.observe(&observed);
//! let found = model.solve(4..=4, None, None).unwrap();
//! assert!(found.complete);
//! assert_eq!(found.molecules.len(), 2); // molecules 868 and 15993
//! ```

pub mod report;

use std::ops::RangeInclusive;
use std::time::Instant;

use varisat::{ExtendFormula, Lit, Solver, Var};

use crate::error::Error;
use crate::rules::board::{Heading, Molecule, port, position_at};
use crate::rules::ray::{Outcome, Rules, Tracer, outcome_table};
use crate::rules::spectrum::Observation;

/// A literal or a constant, while building clauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L {
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

/// What [`RayModel::family`] found around one model.
enum Family {
    /// Every atom is needed where it is: block the molecule alone.
    Single,
    /// A member disagreed with a ray not yet encoded, which now is: solve again.
    Retry,
    /// The cells the model needs as they are, and every member (all fit).
    Members(Vec<bool>, Vec<Molecule>),
}

/// The molecules found by [`RayModel::solve`].
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The molecules, in the order found.
    pub molecules: Vec<Molecule>,
    /// True when the search proved there are no others.
    pub complete: bool,
    /// True when it stopped at the deadline.
    pub timed_out: bool,
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
    width: usize,
    rules: Rules,
    solver: Solver<'static>,
    size: EncodingSize,
    t: Lit,
    atoms: Vec<Var>,
    /// What is known of each cell before solving: `Some(true)` atom, `Some(false)` empty.
    known: Vec<Option<bool>>,
    /// Number of cells known to hold atoms.
    known_atoms: usize,
    /// Largest atom count asked for.
    max_atoms: usize,
    /// `at_least[j]` is true iff at least j of the unknown cells hold atoms
    /// (`at_least[0]` is true); built on first use.
    at_least: Vec<L>,
    rays: Vec<ObservedRay>,
    /// Observed rays not encoded yet (simplified models only).
    pending: Vec<(usize, Outcome)>,
    /// The observation candidates are checked against, with a tracer to check
    /// them (simplified models only).
    check: Option<(Observation, Tracer)>,
    /// The clauses of the encoded rays, one after another (`ray_ends` closes
    /// each), for [`RayModel::needed`].
    ray_lits: Vec<Lit>,
    ray_ends: Vec<usize>,
    /// True while a ray is being encoded: its clauses are recorded.
    recording: bool,
    /// Scratch: state variable of (cell, heading) for the ray being encoded.
    state: Vec<Option<Lit>>,
    touched: Vec<usize>,
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
        }
    }

    /// A model of one observation, simplified for speed: before encoding, the
    /// rays are run forward over the cells they force empty or full (the seed
    /// 001 edge analysis, generalised to every ray and repeated until nothing
    /// changes); known cells become constants, steps they decide are not encoded,
    /// and the atom counter covers only the undecided cells.
    ///
    /// What the rays imply is built in as fact, so the rays of a simplified
    /// model cannot be switched off: use [`RayModel::new`] for [`conflict`](Self::conflict)
    /// and for choosing subsets of rays.
    pub fn simplified(observed: &Observation, rules: Rules, max_atoms: usize) -> RayModel {
        let mut m = RayModel::new(observed.width(), rules, max_atoms);
        let known = infer(observed, rules, max_atoms);
        for (cell, k) in known.iter().enumerate() {
            if let Some(v) = *k {
                let lit = m.atoms[cell].lit(v);
                m.size.clauses += 1;
                m.solver.add_clause(&[lit]);
                m.known_atoms += usize::from(v);
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

    fn new_lit(&mut self) -> Lit {
        self.size.variables += 1;
        self.solver.new_lit()
    }

    /// Adds a clause, dropping false constants; a true constant satisfies it.
    fn clause(&mut self, lits: &[L]) {
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
        self.solver.add_clause(&c);
        if self.recording {
            self.ray_lits.extend_from_slice(&c);
            self.ray_ends.push(self.ray_lits.len());
        }
    }

    /// Sequential counter over the undecided cells: `r[i][j]` ⇔ at least j of the
    /// first i of them hold atoms, for j up to `limit`.
    fn build_counter(&mut self) {
        let inputs: Vec<Var> = self
            .atoms
            .iter()
            .zip(&self.known)
            .filter(|(_, k)| k.is_none())
            .map(|(v, _)| *v)
            .collect();
        let limit = (self.max_atoms + 1)
            .saturating_sub(self.known_atoms)
            .min(inputs.len());
        let mut prev: Vec<L> = (0..=limit)
            .map(|j| if j == 0 { L::True } else { L::False })
            .collect();
        for (i, v) in inputs.iter().enumerate() {
            let i = i + 1;
            let x = L::Lit(v.positive());
            let mut cur = vec![L::True; limit + 1];
            for j in 1..=limit {
                if j > i {
                    cur[j] = L::False;
                    continue;
                }
                let r = L::Lit(self.new_lit());
                // r ⇔ prev[j] ∨ (prev[j−1] ∧ x)
                self.clause(&[!prev[j], r]);
                self.clause(&[!prev[j - 1], !x, r]);
                self.clause(&[!r, prev[j], x]);
                self.clause(&[!r, prev[j], prev[j - 1]]);
                cur[j] = r;
            }
            prev = cur;
        }
        self.at_least = prev;
    }

    /// The literal `count ≥ j` over the whole box, as a constant when decided.
    fn at_least_lit(&mut self, j: usize) -> L {
        if self.at_least.is_empty() {
            self.build_counter();
        }
        let undecided = self.known.iter().filter(|k| k.is_none()).count();
        if j <= self.known_atoms {
            L::True
        } else if j - self.known_atoms > undecided {
            L::False
        } else if j - self.known_atoms < self.at_least.len() {
            self.at_least[j - self.known_atoms]
        } else {
            panic!("the counter was built for at most {} atoms", self.max_atoms)
        }
    }

    /// The atom literal of padded cell (r, c), false outside the box.
    fn atom(&self, r: isize, c: isize) -> L {
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
        self.encode_ray(pos, outcome, selector);
        if let Outcome::Exit(k) = outcome {
            self.encode_ray(k, Outcome::Exit(pos), selector);
        }
        self.rays.push(ObservedRay {
            position: pos,
            outcome,
            selector,
        });
        self.rays.len() - 1
    }

    fn state_lit(
        &mut self,
        r: isize,
        c: isize,
        d: Heading,
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> L {
        let p = self.width as isize;
        let idx = (((r - 1) * p + (c - 1)) * 4) as usize + d.index();
        if let Some(l) = self.state[idx] {
            return L::Lit(l);
        }
        let l = self.new_lit();
        self.state[idx] = Some(l);
        self.touched.push(idx);
        queue.push((r, c, d));
        L::Lit(l)
    }

    /// Whether a ray from `pos` observed as `outcome` may end with `ending`.
    fn allowed(pos: usize, outcome: Outcome, ending: Outcome) -> L {
        let ok =
            ending == outcome || (outcome == Outcome::Reflected && ending == Outcome::Exit(pos));
        if ok { L::True } else { L::False }
    }

    /// The ray on cell (x, y) heading d: follows the steps that known cells
    /// decide and returns the first undecided state's literal, or a constant for
    /// an ending (true when the observation allows it).
    fn follow(
        &mut self,
        pos: usize,
        outcome: Outcome,
        (mut x, mut y, mut d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> L {
        let p = self.width as isize;
        for _ in 0..4 * p * p + 4 {
            let (dr, dc) = d.delta();
            let (ar, ac) = (x + dr, y + dc);
            if ar < 1 || ac < 1 || ar > p || ac > p {
                let k = position_at(self.width, ar as usize, ac as usize).expect("a border cell");
                return Self::allowed(pos, outcome, Outcome::Exit(k));
            }
            let (lr, lc) = d.left().delta();
            let (rr, rc) = d.right().delta();
            let a = self.atom(ar, ac);
            let l = self.atom(ar + lr, ac + lc);
            let r = self.atom(ar + rr, ac + rc);
            match (a, l, r) {
                (L::True, _, _) => return Self::allowed(pos, outcome, Outcome::Absorbed),
                (L::False, L::True, L::True) => {
                    return Self::allowed(pos, outcome, Outcome::Reflected);
                }
                (L::False, L::True, L::False) => d = d.right(),
                (L::False, L::False, L::True) => d = d.left(),
                (L::False, L::False, L::False) => (x, y) = (ar, ac),
                _ => return self.state_lit(x, y, d, queue),
            }
        }
        // Decided steps that go round in a circle: no ray from the border gets there.
        L::False
    }

    fn encode_ray(&mut self, pos: usize, outcome: Outcome, selector: Lit) {
        self.recording = true;
        self.encode_ray_clauses(pos, outcome, selector);
        self.recording = false;
    }

    fn encode_ray_clauses(&mut self, pos: usize, outcome: Outcome, selector: Lit) {
        let p = self.width;
        let q = port(p, pos);
        let d = q.heading;
        let (dr, dc) = d.delta();
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let (er, ec) = (q.row as isize, q.col as isize);
        let (ar, ac) = (er + dr, ec + dc);
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let sel = L::Lit(!selector);
        let mut queue = Vec::new();
        let first = self.follow(pos, outcome, (ar, ac, d), &mut queue);
        match (outcome, self.rules) {
            (Outcome::Absorbed, _) => {
                self.clause(&[sel, a, !l]);
                self.clause(&[sel, a, !r]);
                self.clause(&[sel, a, first]);
            }
            (Outcome::Reflected, Rules::Standard) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, l, r, first]);
            }
            (Outcome::Reflected, Rules::EdgeMiss) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, !l, r]);
                self.clause(&[sel, l, !r]);
                self.clause(&[sel, l, first]);
            }
            (Outcome::Exit(_), _) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, !l]);
                self.clause(&[sel, !r]);
                self.clause(&[sel, first]);
            }
            (Outcome::Miss, Rules::Standard) => self.clause(&[sel]),
            (Outcome::Miss, Rules::EdgeMiss) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, l, r]);
                self.clause(&[sel, !l, !r]);
            }
        }
        while let Some((x, y, d)) = queue.pop() {
            self.encode_state(pos, outcome, (x, y, d), &mut queue);
        }
        for idx in self.touched.drain(..) {
            self.state[idx] = None;
        }
    }

    /// The clauses of one undecided state.
    fn encode_state(
        &mut self,
        pos: usize,
        outcome: Outcome,
        (x, y, d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) {
        let s = self.state_lit(x, y, d, queue);
        let ns = !s;
        // Redundant, but it prunes: a ray only stands on empty cells.
        let here = self.atom(x, y);
        self.clause(&[ns, !here]);
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        // An undecided state has its cell ahead inside the box.
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let hit = Self::allowed(pos, outcome, Outcome::Absorbed);
        self.clause(&[ns, !a, hit]);
        let reflect = Self::allowed(pos, outcome, Outcome::Reflected);
        self.clause(&[ns, a, !l, !r, reflect]);
        if l != L::False && r != L::True {
            let next = self.follow(pos, outcome, (x, y, d.right()), queue);
            self.clause(&[ns, a, !l, r, next]);
        }
        if r != L::False && l != L::True {
            let next = self.follow(pos, outcome, (x, y, d.left()), queue);
            self.clause(&[ns, a, !r, l, next]);
        }
        if l != L::True && r != L::True {
            let next = self.follow(pos, outcome, (ar, ac, d), queue);
            self.clause(&[ns, a, l, r, next]);
        }
    }

    fn count_assumptions(&mut self, atoms: &RangeInclusive<usize>) -> Vec<Lit> {
        let mut v = Vec::new();
        for l in [
            self.at_least_lit(*atoms.start()),
            !self.at_least_lit(atoms.end() + 1),
        ] {
            match l {
                L::Lit(x) => v.push(x),
                L::False => v.push(!self.t),
                L::True => {}
            }
        }
        v
    }

    fn run(&mut self, assumptions: &[Lit]) -> Result<bool, Error> {
        self.solver.assume(assumptions);
        self.solver
            .solve()
            .map_err(|e| Error::Invalid(format!("the SAT solver failed: {e}")))
    }

    /// The value of every variable in the solver's model.
    fn model_values(&self) -> Vec<bool> {
        let model = self.solver.model().unwrap_or_default();
        let mut value = vec![false; self.size.variables + 1];
        for l in model {
            if l.var().index() < value.len() {
                value[l.var().index()] = l.is_positive();
            }
        }
        value
    }

    /// The cells a model needs as they are, found from the clauses of the
    /// encoded rays: a clause that the model satisfies with a ray state (or a
    /// selector) stays satisfied whatever the atoms do, and one it satisfies
    /// only with atom literals keeps one of them (the very one, when there is
    /// just one; else preferably an empty cell, so that atoms stay free).
    /// Every other cell can change, and as long as the atom count stays the
    /// same, every clause still holds with the model's states.
    fn needed(&self, value: &[bool]) -> Vec<bool> {
        let cells = self.atoms.len();
        let mut need = vec![false; cells];
        let holds =
            |l: Lit| value.get(l.var().index()).copied().unwrap_or(false) == l.is_positive();
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        for &end in &self.ray_ends {
            let c = &self.ray_lits[start..end];
            let range = (start, end);
            start = end;
            let mut atoms_true = 0;
            let mut last = 0;
            let mut other = false;
            for &l in c {
                if holds(l) {
                    let v = l.var().index();
                    if v < cells {
                        atoms_true += 1;
                        last = v;
                    } else {
                        other = true;
                        break;
                    }
                }
            }
            if other {
                continue;
            }
            match atoms_true {
                0 => {}
                1 => need[last] = true,
                _ => open.push(range),
            }
        }
        for (s, e) in open {
            let c = &self.ray_lits[s..e];
            let mut first = None;
            let mut hit = false;
            for &l in c {
                let v = l.var().index();
                if v < cells && holds(l) {
                    if need[v] {
                        hit = true;
                        break;
                    }
                    // Rather keep an empty cell than an atom: a free atom
                    // makes a family.
                    if first.is_none() || !l.is_positive() {
                        first = Some(v);
                    }
                }
            }
            if !hit && let Some(v) = first {
                need[v] = true;
            }
        }
        need
    }

    fn molecule_from_model(&self) -> Molecule {
        self.molecule_from_values(&self.model_values())
    }

    fn molecule_from_values(&self, value: &[bool]) -> Molecule {
        let atoms = self
            .atoms
            .iter()
            .enumerate()
            .filter(|(_, v)| value[v.index()])
            .map(|(i, _)| i)
            .collect();
        Molecule::from_sorted_unchecked(self.width, atoms)
    }

    /// Every molecule with an atom count in `atoms` that fits all the observed
    /// rays, found by solving and blocking each model in turn. Stops after
    /// `limit` molecules or at `deadline` (between two solver calls), with
    /// `complete` false.
    pub fn solve(
        &mut self,
        atoms: RangeInclusive<usize>,
        limit: Option<usize>,
        deadline: Option<Instant>,
    ) -> Result<Found, Error> {
        let selectors: Vec<Lit> = self.rays.iter().map(|r| r.selector).collect();
        self.solve_with(&selectors, atoms, limit, deadline, |_| {})
    }

    /// Like [`solve`](Self::solve), for the rays whose selectors are given, and
    /// calling `found` on each molecule as soon as it is found.
    pub fn solve_with(
        &mut self,
        selectors: &[Lit],
        atoms: RangeInclusive<usize>,
        limit: Option<usize>,
        deadline: Option<Instant>,
        mut found: impl FnMut(&Molecule),
    ) -> Result<Found, Error> {
        let act = self.new_lit();
        let mut assumptions: Vec<Lit> = selectors.to_vec();
        assumptions.extend(self.count_assumptions(&atoms));
        assumptions.push(act);
        let mut out = Found::default();
        let mut seen: std::collections::HashSet<Molecule> = std::collections::HashSet::new();
        loop {
            if limit.is_some_and(|n| out.molecules.len() >= n) {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                out.timed_out = true;
                break;
            }
            if !self.run(&assumptions)? {
                out.complete = true;
                break;
            }
            let values = self.model_values();
            let m = self.molecule_from_values(&values);
            if self.encode_disagreeing(&m) {
                continue;
            }
            let room = limit.map(|n| n - out.molecules.len());
            match self.family(&m, &values, room) {
                Family::Single => {
                    let mut block: Vec<L> = vec![L::Lit(!act)];
                    block.extend(m.atoms().iter().map(|&i| L::Lit(self.atoms[i].negative())));
                    block.push(self.at_least_lit(m.atoms().len() + 1));
                    self.clause(&block);
                    if seen.insert(m.clone()) {
                        found(&m);
                        out.molecules.push(m);
                    }
                }
                Family::Retry => continue,
                Family::Members(needed, members) => {
                    // Block every molecule that agrees with this one on the cells
                    // it needs and has as many atoms.
                    let n = m.atoms().len();
                    let mut block: Vec<L> = vec![L::Lit(!act)];
                    for (c, &kept) in needed.iter().enumerate() {
                        if kept {
                            let atom = m.atoms().binary_search(&c).is_ok();
                            block.push(L::Lit(self.atoms[c].lit(!atom)));
                        }
                    }
                    block.push(self.at_least_lit(n + 1));
                    block.push(!self.at_least_lit(n));
                    self.clause(&block);
                    for f in members {
                        if seen.insert(f.clone()) {
                            found(&f);
                            out.molecules.push(f);
                        }
                    }
                }
            }
        }
        // Retire this enumeration's blocking clauses.
        self.clause(&[L::Lit(!act)]);
        Ok(out)
    }

    /// The molecules that differ from model `m` only in cells it does not need
    /// (see [`RayModel::needed`]): with the same atom count they satisfy the
    /// same clauses, with the same states, so one clause blocks them all and
    /// the solver is not asked for each. A partial game that leaves a region
    /// unseen is then enumerated a region at a time. Rays not yet encoded are
    /// checked on each member, as on any model; a member that disagrees gets
    /// its ray encoded and the search goes on (`Retry`).
    fn family(&mut self, m: &Molecule, values: &[bool], room: Option<usize>) -> Family {
        let needed = self.needed(values);
        let free: Vec<usize> = (0..self.atoms.len())
            .filter(|&c| self.known[c].is_none() && !needed[c])
            .collect();
        let fixed: Vec<usize> = m
            .atoms()
            .iter()
            .copied()
            .filter(|c| free.binary_search(c).is_err())
            .collect();
        let k = m.atoms().len() - fixed.len();
        if k == 0 {
            return Family::Single;
        }
        let size =
            crate::rules::enumeration::binomial(free.len() as u64, k as u64).unwrap_or(u64::MAX);
        if size > 200_000 || room.is_some_and(|r| (r as u64) < size) {
            return Family::Single;
        }
        let mut members = Vec::with_capacity(size as usize);
        let mut pick: Vec<usize> = (0..k).collect();
        loop {
            let mut atoms = fixed.clone();
            atoms.extend(pick.iter().map(|&i| free[i]));
            atoms.sort_unstable();
            let candidate = Molecule::from_sorted_unchecked(self.width, atoms);
            if self.encode_disagreeing(&candidate) {
                return Family::Retry;
            }
            members.push(candidate);
            if !crate::rules::enumeration::next_combination(&mut pick, free.len()) {
                break;
            }
        }
        Family::Members(needed, members)
    }

    /// In a simplified model, encodes the pending rays on which candidate `m`
    /// disagrees with the observation; returns whether there were any.
    fn encode_disagreeing(&mut self, m: &Molecule) -> bool {
        let Some((observed, mut tracer)) = self.check.take() else {
            return false;
        };
        tracer.load(m);
        let pending = std::mem::take(&mut self.pending);
        let mut any = false;
        for (pos, outcome) in pending {
            if tracer.trace(pos).outcome == outcome {
                self.pending.push((pos, outcome));
            } else {
                any = true;
                self.encode_for_good(pos, outcome);
            }
        }
        self.check = Some((observed, tracer));
        any
    }

    /// Encodes an observed ray that always holds (selector `true`).
    fn encode_for_good(&mut self, pos: usize, outcome: Outcome) {
        self.add_ray_under(pos, outcome, self.t);
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
    /// assert_eq!(model.solve(4..=4, None, None).unwrap().molecules.len(), 2);
    /// ```
    pub fn encode_all_rays(&mut self) {
        self.check = None;
        for (pos, outcome) in std::mem::take(&mut self.pending) {
            self.encode_for_good(pos, outcome);
        }
    }

    /// Whether some molecule with a count in `atoms` fits the rays whose
    /// selectors are given, together with the extra assumed literals.
    pub fn satisfiable(
        &mut self,
        selectors: &[Lit],
        atoms: &RangeInclusive<usize>,
        extra: &[Lit],
    ) -> Result<bool, Error> {
        let mut assumptions = selectors.to_vec();
        assumptions.extend(self.count_assumptions(atoms));
        assumptions.extend_from_slice(extra);
        loop {
            if !self.run(&assumptions)? {
                return Ok(false);
            }
            let m = self.molecule_from_model();
            if !self.encode_disagreeing(&m) {
                return Ok(true);
            }
        }
    }

    /// When no molecule fits, a smallest set of observed rays that cannot hold
    /// together (indices into [`rays`](Self::rays)): every ray in it is needed.
    /// `None` when some molecule fits.
    pub fn conflict(&mut self, atoms: RangeInclusive<usize>) -> Result<Option<Vec<usize>>, Error> {
        let count = self.count_assumptions(&atoms);
        let index_of = |rays: &[ObservedRay], l: Lit| rays.iter().position(|r| r.selector == l);
        let mut all: Vec<Lit> = self.rays.iter().map(|r| r.selector).collect();
        all.extend(&count);
        if self.run(&all)? {
            return Ok(None);
        }
        let core = |s: &Self| -> Vec<usize> {
            let mut v: Vec<usize> = s
                .solver
                .failed_core()
                .unwrap_or(&[])
                .iter()
                .filter_map(|&l| index_of(&s.rays, l))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut current = core(self);
        // Deletion-based shrinking: drop each ray that is not needed.
        let mut i = 0;
        while i < current.len() {
            let mut trial: Vec<usize> = current.clone();
            trial.remove(i);
            let mut lits: Vec<Lit> = trial.iter().map(|&k| self.rays[k].selector).collect();
            lits.extend(&count);
            if self.run(&lits)? {
                i += 1;
            } else {
                let smaller = core(self);
                current = if smaller.len() < trial.len() {
                    smaller
                } else {
                    trial
                };
                // The kept prefix is still needed; restart the scan within it.
                i = i.min(current.len());
            }
        }
        Ok(Some(current))
    }
}

/// What is certain about one cell across every molecule that fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// An atom in every molecule.
    Atom,
    /// Empty in every molecule.
    Empty,
    /// An atom in some molecules and empty in others.
    Undecided,
}

/// How an unshot ray would split the molecules found: one class per outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The border position of the ray.
    pub position: usize,
    /// Each possible outcome and how many of the molecules give it, most first.
    pub classes: Vec<(Outcome, usize)>,
    /// Expected number of molecules left after shooting it: Σ size² / total.
    pub expected_remaining: f64,
    /// What the ray tells, in bits: −Σ p log₂ p over its outcomes.
    pub entropy: f64,
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
    /// The molecules found.
    pub molecules: Vec<Molecule>,
    /// True when there are no other molecules.
    pub complete: bool,
    /// True when the search stopped at its deadline.
    pub timed_out: bool,
    /// Per cell, what holds in every molecule that fits; `None` when the search
    /// timed out before that could be known.
    pub certainty: Option<Vec<Certainty>>,
    /// When nothing fits: the smallest set of observed rays (as border
    /// positions, both ends of an exit) that cannot hold together.
    pub conflict: Option<Vec<usize>>,
}

/// Limits for [`solve`].
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop after this many molecules.
    pub max: Option<usize>,
    /// Stop at this instant (checked between solver calls).
    pub deadline: Option<Instant>,
}

/// Every molecule with an atom count in `atoms` that fits `observed` under
/// `rules`, what is certain about each cell, and, when nothing fits, which rays
/// contradict each other. `found` is called with each molecule as it is found.
pub fn solve(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    limits: &Limits,
    mut found: impl FnMut(&Molecule),
) -> Result<Solution, Error> {
    let cells = observed.width() * observed.width();
    let hi = (*atoms.end()).min(cells);
    let atoms = *atoms.start()..=hi;
    let mut model = RayModel::simplified(observed, rules, hi);
    let selectors: Vec<Lit> = model.rays().iter().map(|r| r.selector).collect();
    let f = model.solve_with(
        &selectors,
        atoms.clone(),
        limits.max,
        limits.deadline,
        &mut found,
    )?;
    let mut solution = Solution {
        observation: observed.clone(),
        rules,
        atoms: atoms.clone(),
        molecules: f.molecules,
        complete: f.complete,
        timed_out: f.timed_out,
        certainty: None,
        conflict: None,
    };
    if solution.complete && solution.molecules.is_empty() {
        let mut plain = RayModel::new(observed.width(), rules, hi);
        plain.observe(observed);
        if let Some(core) = plain.conflict(atoms.clone())? {
            let mut positions: Vec<usize> = core
                .iter()
                .flat_map(|&i| plain.rays()[i].positions())
                .collect();
            positions.sort_unstable();
            solution.conflict = Some(positions);
        }
        solution.certainty = None;
        return Ok(solution);
    }
    let mut seen = vec![[false; 2]; cells];
    for m in &solution.molecules {
        let c = m.cells();
        for (i, s) in seen.iter_mut().enumerate() {
            s[usize::from(c[i])] = true;
        }
    }
    if !solution.complete {
        if solution.timed_out {
            return Ok(solution);
        }
        // Found only some molecules: ask the solver about each cell not yet
        // seen both ways.
        let selectors: Vec<Lit> = model.rays().iter().map(|r| r.selector).collect();
        for (i, s) in seen.iter_mut().enumerate() {
            for v in [false, true] {
                if !s[usize::from(v)] {
                    let lit = model.atom_var(i).lit(v);
                    if model.satisfiable(&selectors, &atoms, &[lit])? {
                        s[usize::from(v)] = true;
                    }
                }
                if limits.deadline.is_some_and(|d| Instant::now() >= d) {
                    solution.timed_out = true;
                    return Ok(solution);
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
        let n = self.molecules.len();
        if n < 2 {
            return Vec::new();
        }
        let p = self.observation.width();
        let outcomes = outcome_table(&self.molecules, self.rules);
        let mut splits: Vec<Split> = (1..=4 * p)
            .filter(|&pos| self.observation.get(pos).is_none())
            .filter_map(|pos| {
                let mut classes: Vec<(Outcome, usize)> = Vec::new();
                for o in &outcomes {
                    match classes.iter_mut().find(|(x, _)| *x == o[pos - 1]) {
                        Some(c) => c.1 += 1,
                        None => classes.push((o[pos - 1], 1)),
                    }
                }
                if classes.len() < 2 {
                    return None;
                }
                classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let expected = classes.iter().map(|c| (c.1 * c.1) as f64).sum::<f64>() / n as f64;
                let entropy = classes
                    .iter()
                    .map(|c| {
                        let q = c.1 as f64 / n as f64;
                        -q * q.log2()
                    })
                    .sum();
                Some(Split {
                    position: pos,
                    classes,
                    expected_remaining: expected,
                    entropy,
                })
            })
            .collect();
        splits.sort_by(|a, b| {
            a.expected_remaining
                .total_cmp(&b.expected_remaining)
                .then(a.position.cmp(&b.position))
        });
        splits
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

/// Cells that the observed rays decide on their own.
///
/// Each ray is run forward from its entry (an exit pair from both ends) over
/// the decided cells. Where its next step depends on undecided cells, the values
/// that would end it other than as observed are ruled out, and a cell left with
/// one possible value is decided; when `max_atoms` atoms are placed, every
/// other cell is empty. This repeats until nothing changes. Then each undecided
/// cell that some ray is waiting on is *probed*: a value that makes some ray
/// impossible is ruled out. Contradictory observations are left for the solver
/// to report.
pub fn infer(observed: &Observation, rules: Rules, max_atoms: usize) -> Vec<Option<bool>> {
    let p = observed.width();
    let mut walks: Vec<(usize, Outcome)> = Vec::new();
    for (pos, o) in observed.rays() {
        walks.push((pos, o));
        if let Outcome::Exit(k) = o {
            walks.push((k, Outcome::Exit(pos)));
        }
    }
    let mut net = Inference {
        p,
        rules,
        max_atoms,
        walks,
        watch: vec![Vec::new(); p * p],
    };
    let mut known: Vec<Option<bool>> = vec![None; p * p];
    let all: Vec<usize> = (0..net.walks.len()).collect();
    if net.propagate(&mut known, all).is_err() {
        return known;
    }
    loop {
        let mut progress = false;
        for c in 0..p * p {
            if known[c].is_some() || net.watch[c].is_empty() {
                continue;
            }
            for v in [true, false] {
                let mut trial = known.clone();
                trial[c] = Some(v);
                let waiting = net.watch[c].clone();
                if net.propagate(&mut trial, waiting).is_err() {
                    known[c] = Some(!v);
                    let waiting = net.watch[c].clone();
                    if net.propagate(&mut known, waiting).is_err() {
                        return known;
                    }
                    progress = true;
                    break;
                }
            }
        }
        if !progress {
            return known;
        }
    }
}

/// The rays being run by [`infer`], and which undecided cells each waits on.
struct Inference {
    p: usize,
    rules: Rules,
    max_atoms: usize,
    walks: Vec<(usize, Outcome)>,
    /// Cell → the walks that stopped on it (a superset: entries are never removed).
    watch: Vec<Vec<usize>>,
}

impl Inference {
    /// Runs the given walks, and every walk waiting on a cell they decide, until
    /// nothing changes; `Err` when some ray cannot end as observed or there are
    /// too many atoms.
    fn propagate(&mut self, known: &mut [Option<bool>], start: Vec<usize>) -> Result<(), ()> {
        let mut queued = vec![false; self.walks.len()];
        let mut queue = start;
        for &w in &queue {
            queued[w] = true;
        }
        loop {
            while let Some(w) = queue.pop() {
                queued[w] = false;
                let (pos, outcome) = self.walks[w];
                let (decided, frontier) = walk(known, self.p, self.rules, pos, outcome)?;
                for c in frontier {
                    if !self.watch[c].contains(&w) {
                        self.watch[c].push(w);
                    }
                }
                for c in decided {
                    for &w2 in &self.watch[c] {
                        if !queued[w2] {
                            queued[w2] = true;
                            queue.push(w2);
                        }
                    }
                }
            }
            let atoms = known.iter().filter(|k| **k == Some(true)).count();
            if atoms > self.max_atoms {
                return Err(());
            }
            if atoms < self.max_atoms || known.iter().all(|k| k.is_some()) {
                return Ok(());
            }
            // Every atom is placed: the rest is empty.
            for (c, k) in known.iter_mut().enumerate() {
                if k.is_none() {
                    *k = Some(false);
                    for &w2 in &self.watch[c] {
                        if !queued[w2] {
                            queued[w2] = true;
                            queue.push(w2);
                        }
                    }
                }
            }
        }
    }
}

/// The result of one step: the ray goes on (to a state) or ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Go(isize, isize, Heading),
    End(Outcome),
}

/// Runs one ray over the known cells; returns the cells it decided and the
/// undecided cells its next step waits on, or `Err` when the ray cannot end as
/// observed.
#[allow(clippy::type_complexity)]
fn walk(
    known: &mut [Option<bool>],
    p: usize,
    rules: Rules,
    pos: usize,
    outcome: Outcome,
) -> Result<(Vec<usize>, Vec<usize>), ()> {
    let pi = p as isize;
    let inside = |r: isize, c: isize| r >= 1 && c >= 1 && r <= pi && c <= pi;
    let cell = |r: isize, c: isize| ((r - 1) * pi + (c - 1)) as usize;
    let q = port(p, pos);
    let (mut x, mut y, mut d) = (q.row as isize, q.col as isize, q.heading);
    let mut first = true;
    let mut decided = Vec::new();
    for _ in 0..4 * p * p + 8 {
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        if !inside(ar, ac) {
            return Ok((decided, Vec::new())); // the ray came out (judged on the way)
        }
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let cells = [(ar, ac), (ar + lr, ac + lc), (ar + rr, ac + rc)];
        let value = |k: &[Option<bool>], (r, c): (isize, isize)| {
            if inside(r, c) {
                k[cell(r, c)]
            } else {
                Some(false)
            }
        };
        let vals: [Option<bool>; 3] = cells.map(|rc| value(known, rc));
        let unknown: Vec<usize> = (0..3).filter(|&i| vals[i].is_none()).collect();
        let mut possible: Vec<([bool; 3], Step)> = Vec::new();
        for bits in 0..1u32 << unknown.len() {
            let mut v = vals.map(|o| o.unwrap_or(false));
            for (j, &i) in unknown.iter().enumerate() {
                v[i] = bits >> j & 1 == 1;
            }
            let [a, l, r] = v;
            let step = if a {
                Step::End(Outcome::Absorbed)
            } else if first && (l || r) {
                match rules {
                    Rules::EdgeMiss if l != r => Step::End(Outcome::Miss),
                    _ => Step::End(Outcome::Reflected),
                }
            } else if l && r {
                Step::End(Outcome::Reflected)
            } else if l {
                Step::Go(x, y, d.right())
            } else if r {
                Step::Go(x, y, d.left())
            } else {
                Step::Go(ar, ac, d)
            };
            // A state whose cell ahead is outside the box: the ray comes out there.
            let step = match step {
                Step::Go(sx, sy, sd) if !inside(sx + sd.delta().0, sy + sd.delta().1) => {
                    let (tr, tc) = (sx + sd.delta().0, sy + sd.delta().1);
                    match position_at(p, tr as usize, tc as usize) {
                        Some(k) => Step::End(Outcome::Exit(k)),
                        None => step,
                    }
                }
                other => other,
            };
            let ok = match step {
                Step::End(e) => {
                    e == outcome || (outcome == Outcome::Reflected && e == Outcome::Exit(pos))
                }
                Step::Go(..) => true,
            };
            if ok {
                possible.push((v, step));
            }
        }
        if possible.is_empty() {
            return Err(());
        }
        for &i in &unknown {
            let v0 = possible[0].0[i];
            if possible.iter().all(|(v, _)| v[i] == v0) {
                let (r, c) = cells[i];
                known[cell(r, c)] = Some(v0);
                decided.push(cell(r, c));
            }
        }
        let s0 = possible[0].1;
        if !possible.iter().all(|(_, s)| *s == s0) {
            let frontier = unknown
                .iter()
                .map(|&i| cell(cells[i].0, cells[i].1))
                .filter(|&c| known[c].is_none())
                .collect();
            return Ok((decided, frontier));
        }
        match s0 {
            Step::End(_) => return Ok((decided, Vec::new())),
            Step::Go(nx, ny, nd) => {
                (x, y, d) = (nx, ny, nd);
                first = false;
            }
        }
    }
    Ok((decided, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    fn brute(obs: &Observation, rules: Rules, atoms: usize) -> Vec<Molecule> {
        let config = crate::Config::new(atoms, obs.width()).unwrap();
        Molecules::new(config)
            .filter(|m| obs.matches(&Spectrum::of(m, rules)))
            .collect()
    }

    fn sat(obs: &Observation, rules: Rules, atoms: usize) -> Vec<Molecule> {
        let mut m = RayModel::new(obs.width(), rules, atoms);
        m.observe(obs);
        let mut v = m.solve(atoms..=atoms, None, None).unwrap().molecules;
        v.sort();
        let mut s = RayModel::simplified(obs, rules, atoms);
        let mut w = s.solve(atoms..=atoms, None, None).unwrap().molecules;
        w.sort();
        assert_eq!(v, w, "plain and simplified models disagree");
        v
    }

    #[test]
    fn seed_a4_b6_pair() {
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let obs = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let found = sat(&obs, Rules::Standard, 4);
        let names: Vec<String> = found.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            names,
            [
                "O-O-----------O---------O-----------",
                "--O---------O-O---------O-----------"
            ]
        );
    }

    #[test]
    fn agrees_with_brute_force_on_every_a2_b4_molecule() {
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            for m in Molecules::new("A2_B4".parse().unwrap()) {
                let obs = Observation::full(&Spectrum::of(&m, rules));
                assert_eq!(sat(&obs, rules, 2), brute(&obs, rules, 2), "{m} {rules}");
            }
        }
    }

    #[test]
    fn every_one_and_two_ray_observation_of_small_boards() {
        // Few rays leave most of the box unseen, so molecules come by families;
        // every family must hold exactly molecules that fit.
        for (config, rules) in [
            ("A2_B4", Rules::Standard),
            ("A3_B4", Rules::Standard),
            ("A2_B4", Rules::EdgeMiss),
            ("A3_B4", Rules::EdgeMiss),
            ("A2_B5", Rules::Standard),
        ] {
            let config: crate::Config = config.parse().unwrap();
            let p = config.width;
            let all: Vec<(Molecule, Spectrum)> = Molecules::new(config)
                .map(|m| {
                    let s = Spectrum::of(&m, rules);
                    (m, s)
                })
                .collect();
            let mut observations = std::collections::BTreeSet::new();
            for (_, s) in &all {
                for a in 1..=4 * p {
                    for b in [a, (a * 7) % (4 * p) + 1] {
                        let mut o = Observation::empty(p);
                        o.record(a, s.get(a));
                        o.record(b, s.get(b));
                        observations.insert(o.to_string());
                    }
                }
            }
            for text in observations {
                let o = Observation::parse(&text, "test").unwrap();
                let mut want: Vec<Molecule> = all
                    .iter()
                    .filter(|(_, s)| o.matches(s))
                    .map(|(m, _)| m.clone())
                    .collect();
                want.sort();
                for eager in [false, true] {
                    let mut model = RayModel::simplified(&o, rules, config.atoms);
                    if eager {
                        model.encode_all_rays();
                    }
                    let mut got = model
                        .solve(config.atoms..=config.atoms, None, None)
                        .unwrap()
                        .molecules;
                    got.sort();
                    assert_eq!(got, want, "{config} {rules} {text} eager {eager}");
                }
            }
        }
    }

    #[test]
    fn ranges_of_counts_and_blocking() {
        // Nothing observed on a 2×2 box: every molecule of 1 or 2 atoms.
        let obs = Observation::empty(2);
        let mut m = RayModel::new(2, Rules::Standard, 3);
        m.observe(&obs);
        let found = m.solve(1..=2, None, None).unwrap();
        assert!(found.complete);
        assert_eq!(found.molecules.len(), 4 + 6);
        // Blocking clauses were retired: solving again finds them all again.
        assert_eq!(m.solve(2..=2, None, None).unwrap().molecules.len(), 6);
        assert_eq!(m.solve(0..=0, Some(5), None).unwrap().molecules.len(), 1);
        let limited = m.solve(0..=3, Some(3), None).unwrap();
        assert!(!limited.complete && limited.molecules.len() == 3);
    }

    #[test]
    fn contradictions_give_a_minimal_core() {
        // A ray straight along row 1 means rows 1 and 2 hold no atom, so a ray
        // along row 2 cannot be absorbed. The third ray is not needed.
        let mut obs = Observation::empty(4);
        obs.record(1, Outcome::Exit(12)); // row 1 straight through: rows 1–2 empty
        obs.record(2, Outcome::Absorbed); // row 2 hit: needs an atom on row 2
        obs.record(8, Outcome::Exit(13)); // unrelated ray
        let mut m = RayModel::new(4, Rules::Standard, 2);
        m.observe(&obs);
        assert!(m.solve(2..=2, None, None).unwrap().molecules.is_empty());
        let core = m.conflict(2..=2).unwrap().unwrap();
        let positions: Vec<usize> = core.iter().map(|&i| m.rays()[i].position).collect();
        assert_eq!(positions, [1, 2]);
    }
}
