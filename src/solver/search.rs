//! Searching: solve, read the molecule, block it (or its whole family), solve
//! again, until the formula is unsatisfiable.

use std::ops::RangeInclusive;

use itertools::Itertools;
use varisat::Lit;

use crate::control::{Ended, Halt};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::binomial_wide;
use crate::solver::encode::Term;
use crate::solver::model::RayModel;

/// The molecules found by [`RayModel::solve`].
#[derive(Debug, Clone)]
pub struct Found {
    /// The molecules listed, in the order found: every one, or the first
    /// `limit` when a limit was given.
    pub molecules: Vec<Molecule>,
    /// Every molecule found, as families (disjoint: no molecule is in two).
    pub families: Vec<Family>,
    /// How many molecules the families hold (saturating at `u128::MAX`).
    pub count: u128,
    /// How the search ended: complete (there are no others), at the limit
    /// of molecules asked for, or cut short by the model's budget (see
    /// [`RayModel::within`]).
    pub ended: Ended,
}

/// Molecules found together: the atoms of `base`, on cells a model needs as
/// they are, plus `extra` atoms anywhere among the `free` cells. With the
/// same atom count, every such molecule satisfies the clauses the model
/// satisfies, with the same ray states, so one solver call finds them all.
///
/// ```
/// use bbx::solver::Family;
/// use bbx::Molecule;
/// let f = Family { base: Molecule::new(4, [0]).unwrap(), free: vec![5, 6, 7], extra: 2 };
/// assert_eq!(f.size(), 3);
/// let members: Vec<String> = f.members().map(|m| m.to_string()).collect();
/// assert_eq!(members[0], "O----OO---------");
/// assert!(f.contains(&"O----O-O--------".parse().unwrap()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// The atoms every member has.
    pub base: Molecule,
    /// The cells where the other atoms may stand (sorted).
    pub free: Vec<usize>,
    /// How many atoms stand among `free`.
    pub extra: usize,
}

impl Family {
    /// How many molecules the family holds (saturating at `u128::MAX`).
    pub fn size(&self) -> u128 {
        binomial_wide(self.free.len() as u64, self.extra as u64).unwrap_or(u128::MAX)
    }

    /// Every member, in lexicographic order of the free cells chosen.
    pub fn members(&self) -> impl Iterator<Item = Molecule> + '_ {
        self.free.iter().combinations(self.extra).map(|pick| {
            let mut atoms = self.base.atoms().to_vec();
            atoms.extend(pick);
            atoms.sort_unstable();
            Molecule::from_sorted_unchecked(self.base.shape(), atoms)
        })
    }

    /// The member of rank `index` in the order of [`members`](Self::members)
    /// (0-based), without listing those before it; `None` past the end.
    ///
    /// ```
    /// use bbx::solver::Family;
    /// use bbx::Molecule;
    /// let f = Family { base: Molecule::new(4, [0]).unwrap(), free: vec![5, 6, 7, 9], extra: 2 };
    /// let all: Vec<Molecule> = f.members().collect();
    /// for (i, m) in all.iter().enumerate() {
    ///     assert_eq!(f.member(i as u128).as_ref(), Some(m));
    /// }
    /// assert_eq!(f.member(all.len() as u128), None);
    /// ```
    pub fn member(&self, mut index: u128) -> Option<Molecule> {
        if index >= self.size() {
            return None;
        }
        let n = self.free.len();
        let mut atoms = self.base.atoms().to_vec();
        let mut next = 0;
        for left in (1..=self.extra).rev() {
            // The first free cell still to choose, skipping the blocks of
            // combinations that start earlier.
            loop {
                let block =
                    binomial_wide((n - next - 1) as u64, (left - 1) as u64).unwrap_or(u128::MAX);
                if index < block {
                    break;
                }
                index -= block;
                next += 1;
            }
            atoms.push(self.free[next]);
            next += 1;
        }
        atoms.sort_unstable();
        Some(Molecule::from_sorted_unchecked(self.base.shape(), atoms))
    }

    /// Whether `m` is a member.
    pub fn contains(&self, m: &Molecule) -> bool {
        if m.shape() != self.base.shape() || m.atoms().len() != self.base.atoms().len() + self.extra
        {
            return false;
        }
        let mut extra = 0;
        for a in m.atoms() {
            if self.free.binary_search(a).is_ok() {
                extra += 1;
            } else if self.base.atoms().binary_search(a).is_err() {
                return false;
            }
        }
        extra == self.extra
    }
}

/// What [`RayModel::family`] made of one model.
enum Next {
    /// A member disagreed with a ray not yet encoded, which now is: solve again.
    Retry,
    /// The model's family, and the cells it needs as they are.
    Found(Family, Vec<bool>),
}

impl RayModel {
    pub(super) fn count_assumptions(
        &mut self,
        atoms: &RangeInclusive<usize>,
    ) -> Result<Vec<Lit>, Halt> {
        let mut v = Vec::new();
        if *atoms.start() == 0 && *atoms.end() >= self.encoding.atoms.len() {
            // Any count: no counter needed.
            return Ok(v);
        }
        for l in [
            self.at_least_lit(*atoms.start())?,
            !self.at_least_lit(atoms.end().saturating_add(1))?,
        ] {
            match l {
                Term::Lit(x) => v.push(x),
                Term::False => v.push(!self.encoding.t),
                Term::True => {}
            }
        }
        Ok(v)
    }

    /// One solver call under `assumptions`, unless a limit has been reached.
    pub(super) fn run(&mut self, assumptions: &[Lit]) -> Result<bool, Halt> {
        self.solver.keep_limits()?;
        if self.contradiction {
            // Inference showed that no molecule fits: nothing is satisfiable.
            return Ok(false);
        }
        self.calls += 1;
        self.solver.solver.assume(assumptions);
        Ok(self.solver.solver.solve().map_err(Error::Solver)?)
    }

    /// The value of every variable in the solver's model.
    fn model_values(&self) -> Vec<bool> {
        let model = self.solver.solver.model().unwrap_or_default();
        let mut value = vec![false; self.solver.size.variables + 1];
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
        let cells = self.encoding.atoms.len();
        let mut need = vec![false; cells];
        let holds =
            |l: Lit| value.get(l.var().index()).copied().unwrap_or(false) == l.is_positive();
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        for &end in &self.encoding.record.ends {
            let c = &self.encoding.record.lits[start..end];
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
            let c = &self.encoding.record.lits[s..e];
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

    pub(super) fn molecule_from_model(&self) -> Molecule {
        self.molecule_from_values(&self.model_values())
    }

    fn molecule_from_values(&self, value: &[bool]) -> Molecule {
        let atoms = self
            .encoding
            .atoms
            .iter()
            .enumerate()
            .filter(|(_, v)| value[v.index()])
            .map(|(i, _)| i)
            .collect();
        Molecule::from_sorted_unchecked(self.encoding.shape, atoms)
    }

    /// Every molecule with an atom count in `atoms` that fits all the observed
    /// rays, found by solving and blocking each model in turn. Stops after
    /// `limit` molecules, or when the model's budget is spent (between two
    /// solver calls), and says so in [`Found::ended`].
    pub fn solve(
        &mut self,
        atoms: RangeInclusive<usize>,
        limit: Option<usize>,
    ) -> Result<Found, Error> {
        let selectors: Vec<Lit> = self.rays.iter().map(|r| r.selector).collect();
        self.solve_with(&selectors, atoms, limit, |_| {})
    }

    /// Like [`solve`](Self::solve), for the rays whose selectors are given, and
    /// calling `found` on each molecule listed as soon as it is found.
    ///
    /// Molecules come by families (see [`Family`]): a region no ray looks at
    /// is counted, not enumerated, so that a nearly empty observation of a
    /// large box is answered at once. The families are disjoint: each one is
    /// blocked by one clause, and the next model keeps clear of every
    /// blocking clause with the cells it needs. With a `limit`, at most that
    /// many molecules are listed, and the search stops once the families
    /// found hold that many (the count is then a lower bound).
    pub fn solve_with(
        &mut self,
        selectors: &[Lit],
        atoms: RangeInclusive<usize>,
        limit: Option<usize>,
        found: impl FnMut(&Molecule),
    ) -> Result<Found, Error> {
        let mut out = Found {
            molecules: Vec::new(),
            families: Vec::new(),
            count: 0,
            ended: Ended::ReachedMax,
        };
        out.ended = match self.enumerate(selectors, atoms, limit, found, &mut out) {
            Ok(ended) => ended,
            Err(Halt::Cut(cut)) => cut.into(),
            Err(Halt::Failed(e)) => return Err(e),
        };
        Ok(out)
    }

    /// The loop of [`solve_with`](Self::solve_with), filling `out`: how it
    /// ended, `Err` when a limit or a failure stopped it.
    fn enumerate(
        &mut self,
        selectors: &[Lit],
        atoms: RangeInclusive<usize>,
        limit: Option<usize>,
        mut found: impl FnMut(&Molecule),
        out: &mut Found,
    ) -> Result<Ended, Halt> {
        self.solver.keep_limits()?;
        if self.contradiction {
            // Inference showed that no molecule fits: no counter is needed.
            return Ok(Ended::Complete);
        }
        let act = self.new_lit();
        let mut assumptions: Vec<Lit> = selectors.to_vec();
        assumptions.extend(self.count_assumptions(&atoms)?);
        assumptions.push(act);
        let ended = loop {
            if !self.run(&assumptions)? {
                break Ended::Complete;
            }
            let values = self.model_values();
            let m = self.molecule_from_values(&values);
            if self.encode_disagreeing(&m)? {
                continue;
            }
            if limit.is_some_and(|n| out.count >= n as u128) {
                // Another molecule fits, and enough are found.
                break Ended::ReachedMax;
            }
            let (family, needed) = match self.family(&m, &values)? {
                Next::Retry => continue,
                Next::Found(f, needed) => (f, needed),
            };
            self.block(&m, &family, &needed, act)?;
            let room = limit.map_or(usize::MAX, |n| n.saturating_sub(out.molecules.len()));
            for member in family.members().take(room) {
                found(&member);
                out.molecules.push(member);
            }
            out.count = out.count.saturating_add(family.size());
            out.families.push(family);
        };
        // Retire this enumeration's blocking clauses.
        self.clause(&[Term::Lit(!act)]);
        Ok(ended)
    }

    /// Adds the clause (under `act`) that blocks the family of model `m`; it
    /// is recorded with the ray clauses, so that later models keep clear of it
    /// with the cells they need.
    fn block(
        &mut self,
        m: &Molecule,
        family: &Family,
        needed: &[bool],
        act: Lit,
    ) -> Result<(), Halt> {
        let n = m.atoms().len();
        let mut block: Vec<Term> = vec![Term::Lit(!act)];
        if family.extra == 0 {
            // Every atom is needed where it is: block the molecule alone.
            block.extend(
                m.atoms()
                    .iter()
                    .map(|&i| Term::Lit(self.encoding.atoms[i].negative())),
            );
            block.push(self.at_least_lit(n + 1)?);
        } else {
            // Every molecule that agrees with this one on the cells it needs
            // and has as many atoms.
            for (c, &kept) in needed.iter().enumerate() {
                if kept {
                    let atom = m.atoms().binary_search(&c).is_ok();
                    block.push(Term::Lit(self.encoding.atoms[c].lit(!atom)));
                }
            }
            block.push(self.at_least_lit(n + 1)?);
            block.push(!self.at_least_lit(n)?);
        }
        self.encoding.recorded_clause(&mut self.solver, &block);
        Ok(())
    }

    /// The family of model `m` (see [`Family`]): the molecules that differ
    /// from it only in cells it does not need (see [`RayModel::needed`]). Rays
    /// not yet encoded are checked on each member, as on any model; a member
    /// that disagrees gets its ray encoded and the search goes on (`Retry`).
    /// A family too large to check member by member has every pending ray
    /// encoded first, after which the clauses vouch for all its members.
    fn family(&mut self, m: &Molecule, values: &[bool]) -> Result<Next, Halt> {
        let needed = self.needed(values);
        let free: Vec<usize> = (0..self.encoding.atoms.len())
            .filter(|&c| self.encoding.known[c].is_none() && !needed[c])
            .collect();
        let base: Vec<usize> = m
            .atoms()
            .iter()
            .copied()
            .filter(|c| free.binary_search(c).is_err())
            .collect();
        let extra = m.atoms().len() - base.len();
        let family = Family {
            base: Molecule::from_sorted_unchecked(self.encoding.shape, base),
            free: if extra == 0 { Vec::new() } else { free },
            extra,
        };
        if extra > 0 && self.has_pending() {
            if family.size() > 200_000 {
                self.encode_pending()?;
                return Ok(Next::Retry);
            }
            for candidate in family.members() {
                // Up to 200000 members, each traced ray by ray.
                self.solver.keep_limits()?;
                if self.encode_disagreeing(&candidate)? {
                    return Ok(Next::Retry);
                }
            }
        }
        Ok(Next::Found(family, needed))
    }

    /// Whether some molecule with a count in `atoms` fits the rays whose
    /// selectors are given, together with the extra assumed literals.
    ///
    /// This question is answered whatever the model's limits: a model that
    /// an earlier search left cut short (see [`cut`](Self::cut)) cannot
    /// answer it, which is an error.
    pub fn satisfiable(
        &mut self,
        selectors: &[Lit],
        atoms: &RangeInclusive<usize>,
        extra: &[Lit],
    ) -> Result<bool, Error> {
        self.unlimited(|m| Ok(m.witness(selectors, atoms, extra)?.is_some()))
    }

    /// A molecule with a count in `atoms` that fits the rays whose selectors
    /// are given, together with the extra assumed literals, if there is one.
    pub(super) fn witness(
        &mut self,
        selectors: &[Lit],
        atoms: &RangeInclusive<usize>,
        extra: &[Lit],
    ) -> Result<Option<Molecule>, Halt> {
        let mut assumptions = selectors.to_vec();
        assumptions.extend(self.count_assumptions(atoms)?);
        assumptions.extend_from_slice(extra);
        loop {
            if !self.run(&assumptions)? {
                return Ok(None);
            }
            let m = self.molecule_from_model();
            if !self.encode_disagreeing(&m)? {
                return Ok(Some(m));
            }
        }
    }
}
