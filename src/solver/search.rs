//! Searching: solve, read the molecule, block it (or its whole family), solve
//! again, until the formula is unsatisfiable.

use std::ops::RangeInclusive;
use std::time::Instant;

use varisat::Lit;

use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::enumeration::{binomial, next_combination};
use crate::solver::model::{L, RayModel};

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

/// What [`RayModel::family`] found around one model.
enum Family {
    /// Every atom is needed where it is: block the molecule alone.
    Single,
    /// A member disagreed with a ray not yet encoded, which now is: solve again.
    Retry,
    /// The cells the model needs as they are, and every member (all fit).
    Members(Vec<bool>, Vec<Molecule>),
}

impl RayModel {
    pub(super) fn count_assumptions(&mut self, atoms: &RangeInclusive<usize>) -> Vec<Lit> {
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

    pub(super) fn run(&mut self, assumptions: &[Lit]) -> Result<bool, Error> {
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
        let size = binomial(free.len() as u64, k as u64).unwrap_or(u64::MAX);
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
            if !next_combination(&mut pick, free.len()) {
                break;
            }
        }
        Family::Members(needed, members)
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
}
