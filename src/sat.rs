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
//! ```
//! use bbx::{Molecule, Observation, Rules, Spectrum};
//! use bbx::sat::RayModel;
//!
//! let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
//! let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
//! let mut model = RayModel::new(6, Rules::Standard, 4);
//! model.observe(&observed);
//! let found = model.solve(4..=4, None, None).unwrap();
//! assert!(found.complete);
//! assert_eq!(found.molecules.len(), 2); // molecules 868 and 15993
//! ```

use std::ops::RangeInclusive;
use std::time::Instant;

use varisat::{ExtendFormula, Lit, Solver, Var};

use crate::board::{Heading, Molecule, port, position_at};
use crate::error::Error;
use crate::ray::{Outcome, Rules};
use crate::spectrum::Observation;

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
    /// `at_least[j]` is true iff at least j cells hold atoms (`at_least[0]` is true).
    at_least: Vec<L>,
    rays: Vec<ObservedRay>,
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
        let t = solver.new_lit();
        solver.add_clause(&[t]);
        let mut m = RayModel {
            width,
            rules,
            solver,
            size: EncodingSize {
                variables: width * width + 1,
                clauses: 1,
            },
            t,
            atoms,
            at_least: Vec::new(),
            rays: Vec::new(),
            state: vec![None; width * width * 4],
            touched: Vec::new(),
        };
        m.build_counter(max_atoms.min(width * width) + 1);
        m
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
    }

    /// Sequential counter: `r[i][j]` ⇔ at least j of the first i cells hold atoms,
    /// for j up to `limit`.
    fn build_counter(&mut self, limit: usize) {
        let n = self.atoms.len();
        let mut prev: Vec<L> = (0..=limit)
            .map(|j| if j == 0 { L::True } else { L::False })
            .collect();
        for i in 1..=n {
            let x = L::Lit(self.atoms[i - 1].positive());
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

    /// The literal `count ≥ j`, as a constant when decided.
    fn at_least_lit(&self, j: usize) -> L {
        if j == 0 {
            L::True
        } else if j < self.at_least.len() {
            self.at_least[j]
        } else if j > self.atoms.len() {
            L::False
        } else {
            panic!(
                "the counter was built for at most {} atoms",
                self.at_least.len() - 2
            )
        }
    }

    /// The atom literal of padded cell (r, c), false outside the box.
    fn atom(&self, r: isize, c: isize) -> L {
        let p = self.width as isize;
        if r >= 1 && c >= 1 && r <= p && c <= p {
            L::Lit(self.atoms[((r - 1) * p + (c - 1)) as usize].positive())
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

    fn encode_ray(&mut self, pos: usize, outcome: Outcome, selector: Lit) {
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
        let first = self.state_lit(ar, ac, d, &mut queue);
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
            self.encode_state(pos, outcome, x, y, d, &mut queue);
        }
        for idx in self.touched.drain(..) {
            self.state[idx] = None;
        }
    }

    fn encode_state(
        &mut self,
        pos: usize,
        outcome: Outcome,
        x: isize,
        y: isize,
        d: Heading,
        queue: &mut Vec<(isize, isize, Heading)>,
    ) {
        let p = self.width as isize;
        let s = self.state_lit(x, y, d, queue);
        let ns = !s;
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        if ar < 1 || ac < 1 || ar > p || ac > p {
            let k = position_at(self.width, ar as usize, ac as usize).expect("a border cell");
            let allowed =
                outcome == Outcome::Exit(k) || (outcome == Outcome::Reflected && k == pos);
            if !allowed {
                self.clause(&[ns]);
            }
            return;
        }
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        if outcome != Outcome::Absorbed {
            self.clause(&[ns, !a]);
        }
        if outcome != Outcome::Reflected {
            self.clause(&[ns, a, !l, !r]);
        }
        if l != L::False {
            let next = self.state_lit(x, y, d.right(), queue);
            self.clause(&[ns, a, !l, r, next]);
        }
        if r != L::False {
            let next = self.state_lit(x, y, d.left(), queue);
            self.clause(&[ns, a, !r, l, next]);
        }
        let next = self.state_lit(ar, ac, d, queue);
        self.clause(&[ns, a, l, r, next]);
    }

    fn count_assumptions(&self, atoms: &RangeInclusive<usize>) -> Vec<Lit> {
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

    fn molecule_from_model(&self) -> Molecule {
        let model = self.solver.model().unwrap_or_default();
        let mut value = vec![false; self.size.variables + 1];
        for l in model {
            if l.var().index() < value.len() {
                value[l.var().index()] = l.is_positive();
            }
        }
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
            let m = self.molecule_from_model();
            let mut block: Vec<L> = vec![L::Lit(!act)];
            block.extend(m.atoms().iter().map(|&i| L::Lit(self.atoms[i].negative())));
            block.push(self.at_least_lit(m.atoms().len() + 1));
            self.clause(&block);
            found(&m);
            out.molecules.push(m);
        }
        // Retire this enumeration's blocking clauses.
        self.clause(&[L::Lit(!act)]);
        Ok(out)
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
        self.run(&assumptions)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumeration::Molecules;
    use crate::spectrum::Spectrum;

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
