//! The encoding: the ray rules of one box as clauses, written against
//! varisat's [`ExtendFormula`] as varisat's own encoders are, so that the
//! clauses go into a solver or into a [`CnfFormula`](varisat::CnfFormula)
//! alike.
//!
//! One variable per cell, constants for the cells decided in advance; for
//! each observed ray, one variable per state the ray can be in, the rules as
//! implications from each state, and every ending but the observed one
//! forbidden; the atom counter. The search state (the solver, the rays
//! observed so far, blocking clauses, limits) is [`RayModel`](super::RayModel)'s.

use varisat::{ExtendFormula, Lit, Var};

use crate::rules::board::{Heading, port, position_at};
use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules};

/// A formula the encoding writes into: varisat's [`ExtendFormula`] (a
/// solver, a [`CnfFormula`](varisat::CnfFormula)), which may also stop a
/// long encoding — the states of a ray on a large box, an atom counter — at
/// a limit. The encoding asks [`halted`](Formula::halted) inside those
/// loops and leaves its work unfinished when told to; the formula then
/// knows why.
pub(super) trait Formula: ExtendFormula {
    /// Whether to stop adding clauses now. Never, by default.
    fn halted(&mut self) -> bool {
        false
    }
}

impl Formula for varisat::CnfFormula {}

impl Formula for varisat::Solver<'_> {}

/// A literal or a constant, while building clauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Term {
    True,
    False,
    Lit(Lit),
}

impl std::ops::Not for Term {
    type Output = Term;
    fn not(self) -> Term {
        match self {
            Term::True => Term::False,
            Term::False => Term::True,
            Term::Lit(l) => Term::Lit(!l),
        }
    }
}

/// The clauses of the encoded rays (and of blocking clauses), one after
/// another, for the search to tell which cells a model needs.
#[derive(Debug, Clone, Default)]
pub(super) struct Record {
    /// Their literals.
    pub(super) lits: Vec<Lit>,
    /// Where each clause ends in `lits`.
    pub(super) ends: Vec<usize>,
    /// True while clauses are recorded.
    on: bool,
}

/// The ray rules of one box as clauses: the variables of its cells, what is
/// known of them, the atom counter, and the scratch to encode a ray.
#[derive(Debug, Clone)]
pub(super) struct Encoding {
    pub(super) shape: Shape,
    pub(super) rules: Rules,
    /// A literal that is always true.
    pub(super) t: Lit,
    /// The atom variable of each cell (variable i for cell i).
    pub(super) atoms: Vec<Var>,
    /// What is known of each cell: `Some(true)` atom, `Some(false)` empty.
    pub(super) known: Vec<Option<bool>>,
    /// Number of cells known to hold atoms.
    known_atoms: usize,
    /// Number of cells not known.
    undecided: usize,
    /// Largest atom count asked for.
    max_atoms: usize,
    /// `at_least[j]` is true iff at least j of the unknown cells hold atoms
    /// (`at_least[0]` is true); built on first use.
    at_least: Vec<Term>,
    /// The clauses of the encoded rays.
    pub(super) record: Record,
    /// Scratch: state variable of (cell, heading) for the ray being encoded.
    state: Vec<Option<Lit>>,
    touched: Vec<usize>,
    /// Whether each ray state also states that its cell is empty: redundant
    /// (the step into it said so), it helps a long search and slows a short
    /// one. On by default.
    pub(super) prune_states: bool,
}

/// Estimated bytes of a sequential counter up to `limit` over `inputs`
/// cells: a variable and four clauses per input and count.
pub(super) fn counter_bytes(inputs: usize, limit: usize) -> u64 {
    use crate::solver::limits::{CLAUSE_BYTES, VAR_BYTES};
    (inputs as u64)
        .saturating_mul(limit as u64)
        .saturating_mul(VAR_BYTES + 4 * CLAUSE_BYTES)
}

impl Encoding {
    /// The cells of a box of `shape` in `f` (its first w·h variables) and a
    /// true literal, with a counter for up to `max_atoms` atoms.
    pub(super) fn new<F: Formula>(
        f: &mut F,
        shape: Shape,
        rules: Rules,
        max_atoms: usize,
    ) -> Encoding {
        let cells = shape.cells();
        let atoms: Vec<Var> = (0..cells).map(|_| f.new_var()).collect();
        let t = f.new_lit();
        f.add_clause(&[t]);
        Encoding {
            shape,
            rules,
            t,
            atoms,
            known: vec![None; cells],
            known_atoms: 0,
            undecided: cells,
            max_atoms: max_atoms.min(cells),
            at_least: Vec::new(),
            record: Record::default(),
            state: vec![None; cells * 4],
            touched: Vec::new(),
            prune_states: true,
        }
    }

    /// Makes the cells of `known` constants (`Some(true)` an atom,
    /// `Some(false)` empty), each stated by a unit clause.
    pub(super) fn fix<F: Formula>(&mut self, f: &mut F, known: Vec<Option<bool>>) {
        for (cell, k) in known.iter().enumerate() {
            if let Some(v) = *k {
                f.add_clause(&[self.atoms[cell].lit(v)]);
                self.known_atoms += usize::from(v);
                self.undecided -= 1;
            }
        }
        self.known = known;
    }

    /// Makes the cells of `known` constants, as [`fix`](Self::fix) does,
    /// without stating them: the clauses never mention their variables,
    /// and whoever reads a model takes these cells from `known`.
    pub(super) fn fix_unstated(&mut self, known: Vec<Option<bool>>) {
        for k in known.iter().flatten() {
            self.known_atoms += usize::from(*k);
            self.undecided -= 1;
        }
        self.known = known;
    }

    /// Adds a clause, dropping false constants; a true constant satisfies it.
    pub(super) fn clause<F: Formula>(&mut self, f: &mut F, lits: &[Term]) {
        // Clauses are short; a long one (a blocking clause) gets a vector.
        let mut short = [self.t; 8];
        let mut long = Vec::new();
        let mut n = 0;
        for &l in lits {
            match l {
                Term::True => return,
                Term::False => {}
                Term::Lit(x) if lits.len() <= short.len() => {
                    short[n] = x;
                    n += 1;
                }
                Term::Lit(x) => long.push(x),
            }
        }
        if n == 0 && long.is_empty() {
            // Every literal false: the empty clause, as a false constant.
            short[0] = !self.t;
            n = 1;
        }
        let c: &[Lit] = if long.is_empty() { &short[..n] } else { &long };
        f.add_clause(c);
        if self.record.on {
            self.record.lits.extend_from_slice(c);
            self.record.ends.push(self.record.lits.len());
        }
    }

    /// Adds a clause that is recorded with the ray clauses (a blocking
    /// clause, which later models keep clear of with the cells they need).
    pub(super) fn recorded_clause<F: Formula>(&mut self, f: &mut F, lits: &[Term]) {
        let on = std::mem::replace(&mut self.record.on, true);
        self.clause(f, lits);
        self.record.on = on;
    }

    /// One step of a sequential counter: a new literal r ⇔ `at_least_j` ∨
    /// (`at_least_j_minus_1` ∧ `x`), "at least j inputs so far are true" once
    /// input `x` is counted.
    fn counter_step<F: Formula>(
        &mut self,
        f: &mut F,
        at_least_j: Term,
        at_least_j_minus_1: Term,
        x: Term,
    ) -> Term {
        let r = Term::Lit(f.new_lit());
        self.clause(f, &[!at_least_j, r]);
        self.clause(f, &[!at_least_j_minus_1, !x, r]);
        self.clause(f, &[!r, at_least_j, x]);
        self.clause(f, &[!r, at_least_j, at_least_j_minus_1]);
        r
    }

    /// How far the atom counter counts: up to one more atom than can be
    /// asked for, among the undecided cells.
    fn counter_limit(&self) -> usize {
        (self.max_atoms + 1)
            .saturating_sub(self.known_atoms)
            .min(self.undecided)
    }

    /// Estimated bytes of the atom counter ([`counter_bytes`]).
    pub(super) fn counter_memory(&self) -> u64 {
        counter_bytes(self.undecided, self.counter_limit())
    }

    /// The largest atom count the counter counts to.
    pub(super) fn max_atoms(&self) -> usize {
        self.max_atoms
    }

    /// The literal `count ≥ j` over the whole box when the known cells
    /// decide it (a constant).
    pub(super) fn at_least_constant(&self, j: usize) -> Option<Term> {
        if j <= self.known_atoms {
            Some(Term::True)
        } else if j - self.known_atoms > self.undecided {
            Some(Term::False)
        } else {
            None
        }
    }

    /// Whether the atom counter is built.
    pub(super) fn has_counter(&self) -> bool {
        !self.at_least.is_empty()
    }

    /// The counter's literal `count ≥ j` (not decided by the known cells);
    /// `None` past what it counts, or before it is built.
    pub(super) fn at_least_counted(&self, j: usize) -> Option<Term> {
        self.at_least.get(j.checked_sub(self.known_atoms)?).copied()
    }

    /// Sequential counter over the undecided cells: `r[i][j]` ⇔ at least j of the
    /// first i of them hold atoms, for j up to the limit. Stopped by the
    /// formula, it is left unbuilt.
    pub(super) fn build_counter<F: Formula>(&mut self, f: &mut F) {
        let inputs: Vec<Var> = self
            .atoms
            .iter()
            .zip(&self.known)
            .filter(|(_, k)| k.is_none())
            .map(|(v, _)| *v)
            .collect();
        let limit = self.counter_limit();
        let mut prev: Vec<Term> = (0..=limit)
            .map(|j| if j == 0 { Term::True } else { Term::False })
            .collect();
        for (i, v) in inputs.iter().enumerate() {
            if f.halted() {
                return;
            }
            let i = i + 1;
            let x = Term::Lit(v.positive());
            let mut cur = vec![Term::True; limit + 1];
            for j in 1..=limit {
                if j > i {
                    cur[j] = Term::False;
                    continue;
                }
                cur[j] = self.counter_step(f, prev[j], prev[j - 1], x);
            }
            prev = cur;
        }
        self.at_least = prev;
    }

    /// A unary counter over `inputs` up to `reach`: `out[j]` is true iff at
    /// least j of them are (`out[0]` true). Stopped by the formula, it is
    /// left unfinished (`None`).
    pub(super) fn unary_counter<F: Formula>(
        &mut self,
        f: &mut F,
        inputs: &[Lit],
        reach: usize,
    ) -> Option<Vec<Term>> {
        let n = reach.min(inputs.len());
        let mut prev: Vec<Term> = (0..=n)
            .map(|j| if j == 0 { Term::True } else { Term::False })
            .collect();
        for (i, &x) in inputs.iter().enumerate() {
            if f.halted() {
                return None;
            }
            let x = Term::Lit(x);
            let mut cur = vec![Term::False; n + 1];
            cur[0] = Term::True;
            for j in 1..=(i + 1).min(n) {
                cur[j] = self.counter_step(f, prev[j], prev[j - 1], x);
            }
            prev = cur;
        }
        Some(prev)
    }

    /// The atom literal of linear cell `cell` (a constant when known).
    pub(super) fn atom_of(&self, cell: usize) -> Term {
        match self.known[cell] {
            Some(true) => Term::True,
            Some(false) => Term::False,
            None => Term::Lit(self.atoms[cell].positive()),
        }
    }

    /// The atom literal of padded cell (r, c), false outside the box.
    pub(super) fn atom(&self, r: isize, c: isize) -> Term {
        let (w, h) = (self.shape.width as isize, self.shape.height as isize);
        if r >= 1 && c >= 1 && r <= h && c <= w {
            self.atom_of(((r - 1) * w + (c - 1)) as usize)
        } else {
            Term::False
        }
    }

    /// Encodes an observed ray (an exit pair from both ends) under
    /// `selector`: its clauses hold when the selector does (always, for
    /// [`Term::True`], and then the clauses do without it). Stopped by the
    /// formula, the encoding is left unfinished.
    pub(super) fn ray<F: Formula>(
        &mut self,
        f: &mut F,
        pos: usize,
        outcome: Outcome,
        selector: Term,
    ) {
        self.ray_from(f, pos, outcome, selector);
        if let Outcome::Exit(k) = outcome {
            self.ray_from(f, k, Outcome::Exit(pos), selector);
        }
    }

    fn state_lit<F: Formula>(
        &mut self,
        f: &mut F,
        r: isize,
        c: isize,
        d: Heading,
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> Term {
        let w = self.shape.width as isize;
        let idx = (((r - 1) * w + (c - 1)) * 4) as usize + d.index();
        if let Some(l) = self.state[idx] {
            return Term::Lit(l);
        }
        let l = f.new_lit();
        self.state[idx] = Some(l);
        self.touched.push(idx);
        queue.push((r, c, d));
        Term::Lit(l)
    }

    /// Whether a ray from `pos` observed as `outcome` may end with `ending`.
    fn allowed(pos: usize, outcome: Outcome, ending: Outcome) -> Term {
        let ok =
            ending == outcome || (outcome == Outcome::Reflected && ending == Outcome::Exit(pos));
        if ok { Term::True } else { Term::False }
    }

    /// The ray on cell (x, y) heading d: follows the steps that known cells
    /// decide and returns the first undecided state's literal, or a constant for
    /// an ending (true when the observation allows it).
    fn follow<F: Formula>(
        &mut self,
        f: &mut F,
        pos: usize,
        outcome: Outcome,
        (mut x, mut y, mut d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> Term {
        let (w, h) = (self.shape.width as isize, self.shape.height as isize);
        for _ in 0..4 * w * h + 4 {
            let (dr, dc) = d.delta();
            let (ar, ac) = (x + dr, y + dc);
            if ar < 1 || ac < 1 || ar > h || ac > w {
                let k = position_at(self.shape, ar as usize, ac as usize).expect("a border cell");
                return Self::allowed(pos, outcome, Outcome::Exit(k));
            }
            let (lr, lc) = d.left().delta();
            let (rr, rc) = d.right().delta();
            let a = self.atom(ar, ac);
            let l = self.atom(ar + lr, ac + lc);
            let r = self.atom(ar + rr, ac + rc);
            match (a, l, r) {
                (Term::True, _, _) => return Self::allowed(pos, outcome, Outcome::Absorbed),
                (Term::False, Term::True, Term::True) => {
                    return Self::allowed(pos, outcome, Outcome::Reflected);
                }
                (Term::False, Term::True, Term::False) => d = d.right(),
                (Term::False, Term::False, Term::True) => d = d.left(),
                (Term::False, Term::False, Term::False) => (x, y) = (ar, ac),
                _ => return self.state_lit(f, x, y, d, queue),
            }
        }
        // Decided steps that go round in a circle: no ray from the border gets there.
        Term::False
    }

    /// The clauses of the ray shot from `pos`, recorded.
    fn ray_from<F: Formula>(&mut self, f: &mut F, pos: usize, outcome: Outcome, selector: Term) {
        self.record.on = true;
        self.ray_clauses(f, pos, outcome, selector);
        self.record.on = false;
    }

    fn ray_clauses<F: Formula>(&mut self, f: &mut F, pos: usize, outcome: Outcome, selector: Term) {
        let q = port(self.shape, pos);
        let d = q.heading;
        let (dr, dc) = d.delta();
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let (er, ec) = (q.row as isize, q.col as isize);
        let (ar, ac) = (er + dr, ec + dc);
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let sel = !selector;
        let mut queue = Vec::new();
        // A ray that misses never enters the box: its path is not encoded.
        let first = match outcome {
            Outcome::Miss => Term::False,
            _ => self.follow(f, pos, outcome, (ar, ac, d), &mut queue),
        };
        match (outcome, self.rules) {
            (Outcome::Absorbed, _) => {
                self.clause(f, &[sel, a, !l]);
                self.clause(f, &[sel, a, !r]);
                self.clause(f, &[sel, a, first]);
            }
            (Outcome::Reflected, Rules::Standard) => {
                self.clause(f, &[sel, !a]);
                self.clause(f, &[sel, l, r, first]);
            }
            (Outcome::Reflected, Rules::EdgeMiss) => {
                self.clause(f, &[sel, !a]);
                self.clause(f, &[sel, !l, r]);
                self.clause(f, &[sel, l, !r]);
                self.clause(f, &[sel, l, first]);
            }
            (Outcome::Exit(_), _) => {
                self.clause(f, &[sel, !a]);
                self.clause(f, &[sel, !l]);
                self.clause(f, &[sel, !r]);
                self.clause(f, &[sel, first]);
            }
            (Outcome::Miss, Rules::Standard) => self.clause(f, &[sel]),
            (Outcome::Miss, Rules::EdgeMiss) => {
                self.clause(f, &[sel, !a]);
                self.clause(f, &[sel, l, r]);
                self.clause(f, &[sel, !l, !r]);
            }
        }
        while let Some((x, y, d)) = queue.pop() {
            // A ray on a large box has millions of states: the formula's
            // limits are kept inside.
            if f.halted() {
                break;
            }
            self.state_clauses(f, pos, outcome, (x, y, d), &mut queue);
        }
        for idx in self.touched.drain(..) {
            self.state[idx] = None;
        }
    }

    /// The clauses of one undecided state.
    fn state_clauses<F: Formula>(
        &mut self,
        f: &mut F,
        pos: usize,
        outcome: Outcome,
        (x, y, d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) {
        let s = self.state_lit(f, x, y, d, queue);
        let ns = !s;
        // Redundant, but it prunes a search: a ray only stands on empty cells.
        if self.prune_states {
            let here = self.atom(x, y);
            self.clause(f, &[ns, !here]);
        }
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        // An undecided state has its cell ahead inside the box.
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let hit = Self::allowed(pos, outcome, Outcome::Absorbed);
        self.clause(f, &[ns, !a, hit]);
        let reflect = Self::allowed(pos, outcome, Outcome::Reflected);
        self.clause(f, &[ns, a, !l, !r, reflect]);
        if l != Term::False && r != Term::True {
            let next = self.follow(f, pos, outcome, (x, y, d.right()), queue);
            self.clause(f, &[ns, a, !l, r, next]);
        }
        if r != Term::False && l != Term::True {
            let next = self.follow(f, pos, outcome, (x, y, d.left()), queue);
            self.clause(f, &[ns, a, !r, l, next]);
        }
        if l != Term::True && r != Term::True {
            let next = self.follow(f, pos, outcome, (ar, ac, d), queue);
            self.clause(f, &[ns, a, l, r, next]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::spectrum::{Observation, Spectrum};
    use crate::solver::RayModel;
    use varisat::CnfFormula;

    /// The encoding writes the same clauses into a plain formula as into a
    /// model's solver.
    #[test]
    fn a_formula_gets_the_clauses_a_model_does() {
        let m: crate::Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let mut formula = CnfFormula::new();
        let mut encoding = Encoding::new(&mut formula, Shape::square(6), Rules::Standard, 4);
        let mut model = RayModel::new(6, Rules::Standard, 4);
        for (pos, outcome) in observed.rays() {
            let selector = formula.new_lit();
            encoding.ray(&mut formula, pos, outcome, Term::Lit(selector));
            model.add_ray(pos, outcome);
        }
        assert_eq!(formula.var_count(), model.size().variables);
        assert_eq!(formula.len(), model.size().clauses);
        assert_eq!(encoding.record.ends.len(), model.encoding.record.ends.len());
    }
}
