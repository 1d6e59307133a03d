//! The fewest atoms the observed rays allow.
//!
//! Asking the solver for a molecule with too few atoms — a puzzle file that
//! says 11 balls where the rays need 12 — makes it prove that no placement of
//! the atoms works, which the atom counter turns into a search of minutes.
//! The fewest atoms are found instead the way core-guided MaxSAT solvers find
//! an optimum (the OLL algorithm): assume every undecided cell empty; each time
//! that fails, the solver names a *core* of cells not all of which can be
//! empty, the bound grows by one, and a counter over the core lets one of them
//! hold an atom. Every call is on the rays alone under strong assumptions,
//! which the solver answers quickly, and the bound is exact.

use varisat::Lit;

use crate::control::Halt;
use crate::error::Error;
use crate::solver::encode::Term;
use crate::solver::model::RayModel;

/// What [`RayModel::fewest_atoms`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fewest {
    /// The fewest atoms of a molecule that fits.
    Atoms(usize),
    /// Every molecule that fits has more atoms than the cut-off (or none
    /// fits): a proof that no molecule with at most that many atoms fits.
    /// The selectors named by the cores that proved it come with it (a subset
    /// of the rays that already needs that many atoms).
    MoreThan(usize, Vec<Lit>),
    /// Stopped before either was known.
    Unknown,
}

/// A core: indices of soft literals, and the selectors the solver named with
/// them.
type Core = (Vec<usize>, Vec<Lit>);

/// An assumed literal: a cell's value, or a bound on a core's counter.
struct Soft {
    lit: Lit,
    /// For a bound: the counter and the bound k (at most k of its inputs).
    bound: Option<(usize, usize)>,
}

impl RayModel {
    /// The fewest atoms of a molecule that fits the rays whose selectors are
    /// given; past `cut_off` atoms it stops with
    /// [`MoreThan`](Fewest::MoreThan). When the model's budget (see
    /// [`within`](RayModel::within)) stops the search, the answer is
    /// [`Unknown`](Fewest::Unknown).
    ///
    /// ```
    /// use bbx::solver::{Fewest, RayModel};
    /// use bbx::{Molecule, Observation, Rules, Spectrum};
    /// let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
    /// let seen = Observation::full(&Spectrum::of(&m, Rules::Standard));
    /// let mut model = RayModel::new(6, Rules::Standard, 36);
    /// model.observe(&seen);
    /// let all: Vec<_> = model.rays().iter().map(|r| r.selector).collect();
    /// // A three-atom molecule gives the same spectrum as this four-atom one.
    /// assert_eq!(model.fewest_atoms(&all, 36).unwrap(), Fewest::Atoms(3));
    /// assert!(matches!(model.fewest_atoms(&all, 2).unwrap(), Fewest::MoreThan(2, _)));
    /// ```
    pub fn fewest_atoms(&mut self, selectors: &[Lit], cut_off: usize) -> Result<Fewest, Error> {
        match self.fewest_within(selectors, cut_off) {
            Ok(f) => Ok(f),
            Err(Halt::Cut(_)) => Ok(Fewest::Unknown),
            Err(Halt::Failed(e)) => Err(e),
        }
    }

    fn fewest_within(&mut self, selectors: &[Lit], cut_off: usize) -> Result<Fewest, Halt> {
        let known_atoms = self
            .encoding
            .known
            .iter()
            .filter(|k| **k == Some(true))
            .count();
        let mut used: Vec<Lit> = Vec::new();
        let mut lower = known_atoms;
        let mut soft: Vec<Soft> = (0..self.encoding.atoms.len())
            .filter(|&c| self.encoding.known[c].is_none())
            .map(|c| Soft {
                lit: self.encoding.atoms[c].negative(),
                bound: None,
            })
            .collect();
        // counters[t][j]: at least j + 1 of core t's cells break their soft literal.
        let mut counters: Vec<Vec<Lit>> = Vec::new();
        loop {
            if lower > cut_off {
                used.sort_unstable();
                used.dedup();
                return Ok(Fewest::MoreThan(cut_off, used));
            }
            let mut assumptions = selectors.to_vec();
            assumptions.extend(soft.iter().map(|s| s.lit));
            if self.run(&assumptions)? {
                let m = self.molecule_from_model();
                if self.encode_disagreeing(&m)? {
                    continue;
                }
                return Ok(Fewest::Atoms(m.atoms().len()));
            }
            let Some((core, rays)) = self.core(selectors, &soft)? else {
                // The rays fail without any assumption: no molecule at all.
                used = self.failed_selectors(selectors);
                lower = usize::MAX;
                continue;
            };
            used.extend(rays);
            lower += 1;
            let mut relaxed: Vec<Soft> = Vec::new();
            let mut broken: Vec<Lit> = Vec::new();
            for &i in &core {
                broken.push(!soft[i].lit);
                if let Some((t, k)) = soft[i].bound
                    && k + 1 < counters[t].len()
                {
                    relaxed.push(Soft {
                        lit: !counters[t][k + 1],
                        bound: Some((t, k + 1)),
                    });
                }
            }
            let mut keep = vec![true; soft.len()];
            for &i in &core {
                keep[i] = false;
            }
            let mut i = 0;
            soft.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            soft.extend(relaxed);
            if broken.len() > 1 && lower <= cut_off {
                // The bound can grow by cut_off − lower + 1 more at most
                // before the answer is known: the counter need not count
                // further (a core of thousands of cells would otherwise take
                // millions of clauses). A soft literal whose count reaches
                // the end of its counter is only dropped once the bound has
                // passed cut_off, so an answer of Atoms stays exact.
                let reach = cut_off
                    .saturating_add(2)
                    .saturating_sub(lower)
                    .min(broken.len());
                let outputs = self.unary_counter(&broken, reach)?;
                soft.push(Soft {
                    lit: !outputs[1],
                    bound: Some((counters.len(), 1)),
                });
                counters.push(outputs);
            }
        }
    }

    /// After a call under `selectors` and every `soft` literal failed: a core,
    /// the indices of soft literals that cannot all hold, checked and shrunk
    /// by asking again under the core alone; `None` when the selectors fail
    /// without any soft literal.
    ///
    /// The solver's failed core is checked because it is not always one: after
    /// clauses are added between calls, varisat 0.2 can name a single
    /// assumption whose failure took others. An unchecked core would raise the
    /// bound too far.
    fn core(&mut self, selectors: &[Lit], soft: &[Soft]) -> Result<Option<Core>, Halt> {
        let mut all = selectors.to_vec();
        all.extend(soft.iter().map(|s| s.lit));
        let mut best: Vec<usize> = (0..soft.len()).collect();
        let mut best_rays: Vec<Lit> = selectors.to_vec();
        let mut candidate = self.failed_soft(soft);
        let mut tries = 0;
        while tries < 6 {
            tries += 1;
            let mut again = selectors.to_vec();
            again.extend(candidate.iter().map(|&i| soft[i].lit));
            if self.run(&again)? {
                // Not a core: ask the whole question again for another.
                if self.run(&all)? {
                    // Cannot happen (the question failed a moment ago); keep
                    // every soft literal, which is always a core.
                    break;
                }
                candidate = self.failed_soft(soft);
                continue;
            }
            // `candidate` is a core, with the rays the solver names.
            if candidate.len() < best.len() {
                best = candidate;
                best_rays = self.failed_selectors(selectors);
            }
            let smaller = self.failed_soft(soft);
            if smaller.len() >= best.len() {
                break;
            }
            candidate = smaller;
        }
        if best.is_empty() {
            return Ok(None);
        }
        Ok(Some((best, best_rays)))
    }

    /// The selectors in the solver's failed core.
    fn failed_selectors(&self, selectors: &[Lit]) -> Vec<Lit> {
        self.in_failed_core(selectors.iter().copied(), |l| l)
    }

    /// The indices in `soft` of the literals in the solver's failed core.
    fn failed_soft(&self, soft: &[Soft]) -> Vec<usize> {
        self.in_failed_core(0..soft.len(), |i| soft[i].lit)
    }

    /// A counter over `inputs` up to `reach` (at most their number): output
    /// j (j < `reach`) is true exactly when at least j + 1 of them are.
    fn unary_counter(&mut self, inputs: &[Lit], reach: usize) -> Result<Vec<Lit>, Halt> {
        let counted = self.encoding.unary_counter(&mut self.solver, inputs, reach);
        self.solver.whole()?;
        let Some(prev) = counted else {
            return Err(Halt::Failed(Error::Internal(
                "the core's counter stopped with the model whole".into(),
            )));
        };
        prev[1..]
            .iter()
            .map(|l| match l {
                Term::Lit(x) => Ok(*x),
                _ => Err(Halt::Failed(Error::Internal(
                    "a count of the core's counter has no variable".into(),
                ))),
            })
            .collect()
    }
}
