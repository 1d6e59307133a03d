//! Explaining a contradiction: a smallest set of observed rays that cannot
//! hold together, every one of them needed.

use std::ops::RangeInclusive;

use varisat::Lit;

use crate::error::Error;
use crate::solver::model::{ObservedRay, RayModel};

impl RayModel {
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
