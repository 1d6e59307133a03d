//! Explaining a contradiction: a smallest set of observed rays that cannot
//! hold together, every one of them needed.

use std::ops::RangeInclusive;

use varisat::Lit;

use crate::control::Halt;
use crate::error::Error;
use crate::solver::model::RayModel;

impl RayModel {
    /// When no molecule fits, a smallest set of observed rays that cannot hold
    /// together with an atom count in `atoms` (indices into
    /// [`rays`](Self::rays)): every ray in it is needed. `None` when some
    /// molecule fits.
    ///
    /// This question is answered whatever the model's limits (see
    /// [`RayModel::satisfiable`]).
    pub fn conflict(&mut self, atoms: RangeInclusive<usize>) -> Result<Option<Vec<usize>>, Error> {
        self.unlimited(|m| m.conflict_within(atoms))
    }

    /// [`conflict`](Self::conflict) within the model's limits.
    pub(super) fn conflict_within(
        &mut self,
        atoms: RangeInclusive<usize>,
    ) -> Result<Option<Vec<usize>>, Halt> {
        let all: Vec<usize> = (0..self.rays.len()).collect();
        let Some(core) = self.misfit(&all, &atoms)? else {
            return Ok(None);
        };
        let mut current = if core.len() < all.len() && self.misfit(&core, &atoms)?.is_some() {
            core
        } else {
            all
        };
        // Deletion-based shrinking: drop each ray that is not needed.
        let mut i = 0;
        while i < current.len() {
            let mut trial: Vec<usize> = current.clone();
            trial.remove(i);
            match self.misfit(&trial, &atoms)? {
                None => i += 1,
                Some(core) => {
                    // A core the solver names is checked before it is taken.
                    current = if core.len() < trial.len() && self.misfit(&core, &atoms)?.is_some() {
                        core
                    } else {
                        trial
                    };
                    // The kept prefix is still needed; restart the scan within it.
                    i = i.min(current.len());
                }
            }
        }
        Ok(Some(current))
    }

    /// `None` when some molecule with a count in `atoms` fits the rays
    /// `subset` (indices into [`rays`](Self::rays)); else rays of `subset`
    /// that already fail (all of them, or the ones the solver's cores name).
    ///
    /// Too few atoms for the rays is shown by their fewest atoms (see
    /// [`fewest_atoms`](Self::fewest_atoms)), quickly; the atom counter is
    /// asked only whether the range can be reached from below.
    fn misfit(
        &mut self,
        subset: &[usize],
        atoms: &RangeInclusive<usize>,
    ) -> Result<Option<Vec<usize>>, Halt> {
        let mut assumptions: Vec<Lit> = subset.iter().map(|&k| self.rays[k].selector).collect();
        assumptions.extend(self.count_assumptions(atoms)?);
        if self.run(&assumptions)? {
            Ok(None)
        } else {
            Ok(Some(self.failed_rays(subset)))
        }
    }

    /// The rays of `subset` whose selectors are in the solver's failed core
    /// (all of `subset` when the core names none of them).
    fn failed_rays(&self, subset: &[usize]) -> Vec<usize> {
        let v = self.in_failed_core(subset.iter().copied(), |k| self.rays[k].selector);
        if v.is_empty() { subset.to_vec() } else { v }
    }
}
