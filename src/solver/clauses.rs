//! The clauses of one observation, built to check a group of molecules
//! against them (the SAT side of `bbx verify`): does each molecule satisfy
//! them, and does any other?

use varisat::{CnfFormula, Lit, Solver};

use crate::control::Budget;
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;
use crate::solver::encode::{Encoding, Term};
use crate::solver::infer::infer_within;

/// The clauses of one observation with exactly `atoms` atoms, in a solver
/// of their own: the cells the rays decide first become constants
/// ([`infer`](crate::solver::infer)), folded into the clauses (the solver
/// never sees them), every observed ray is encoded, and the atom count is
/// fixed.
///
/// Every answer rests on the clauses alone: the ray engine is never asked.
/// Whether a given molecule fits is the clauses evaluated at it (every cell
/// a constant, so every clause is one), with no solver call; whether any
/// other molecule fits is the solver's, except when inference decided every
/// cell: the clauses are then constants too, and are evaluated at the one
/// molecule they may allow.
///
/// ```
/// use bbx::{Molecule, Observation, Rules, Spectrum};
/// use bbx::solver::ObservationClauses;
///
/// let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
/// let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
/// let mut clauses = ObservationClauses::new(&observed, Rules::Standard, 4);
/// assert!(clauses.fits(&m).unwrap());
/// // The one other molecule with this spectrum (A4_B6 number 15993).
/// let others = clauses.others(&[m]).unwrap();
/// assert_eq!(others.len(), 1);
/// ```
pub struct ObservationClauses {
    shape: Shape,
    rules: Rules,
    /// Exactly this many atoms.
    atoms: usize,
    /// The observed rays.
    rays: Vec<(usize, Outcome)>,
    /// True when inference showed that no molecule fits.
    contradiction: bool,
    /// The clauses in a solver, when inference left some cell undecided.
    sat: Option<Sat>,
    /// When inference decided every cell, the clauses are constants: the
    /// one molecule they may allow, until it is found or blocked.
    decided: Option<Molecule>,
    /// Solver calls made so far.
    calls: usize,
}

/// The clauses of [`ObservationClauses`] in a solver.
struct Sat {
    solver: Solver<'static>,
    encoding: Encoding,
    /// Scratch for assumptions.
    assumed: Vec<Lit>,
}

impl std::fmt::Debug for ObservationClauses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObservationClauses")
            .field("shape", &self.shape)
            .field("rules", &self.rules)
            .field("atoms", &self.atoms)
            .field("calls", &self.calls)
            .finish()
    }
}

impl ObservationClauses {
    /// The clauses of `observed` under `rules` with exactly `atoms` atoms.
    pub fn new(observed: &Observation, rules: Rules, atoms: usize) -> ObservationClauses {
        let shape = observed.shape();
        let inferred = infer_within(observed, rules, atoms, &Budget::default());
        let rays = observed.rays();
        let mut clauses = ObservationClauses {
            shape,
            rules,
            atoms,
            rays,
            contradiction: inferred.contradiction,
            sat: None,
            decided: None,
            calls: 0,
        };
        if inferred.contradiction {
            return clauses;
        }
        if inferred.known.iter().all(Option::is_some) {
            // Every cell a constant: every clause is one, evaluated when
            // asked (`others`), with no solver to build.
            let atoms = (0..inferred.known.len())
                .filter(|&c| inferred.known[c] == Some(true))
                .collect();
            clauses.decided = Some(Molecule::from_sorted_unchecked(shape, atoms));
            return clauses;
        }
        let mut solver = Solver::new();
        let mut encoding = Encoding::new(&mut solver, shape, rules, atoms);
        encoding.fix_unstated(inferred.known);
        // The few cells inference leaves undecided make a short search,
        // faster without the redundant clauses (measured: docs/performance.md).
        encoding.prune_states = false;
        for &(pos, outcome) in &clauses.rays {
            // Every ray always holds: no selector in its clauses.
            encoding.ray(&mut solver, pos, outcome, Term::True);
        }
        encoding.build_counter(&mut solver);
        for l in [
            at_least(&encoding, atoms),
            !at_least(&encoding, atoms.saturating_add(1)),
        ] {
            encoding.clause(&mut solver, &[l]);
        }
        clauses.sat = Some(Sat {
            solver,
            encoding,
            assumed: Vec::new(),
        });
        clauses
    }

    /// Solver calls made so far.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Whether molecule `m` satisfies the clauses: the rays are encoded
    /// again with every cell of `m` a constant, which leaves each clause a
    /// constant (no ray state is left undecided), and the clauses are
    /// evaluated; the atom count is `m`'s. No solver call is needed, and
    /// the answer rests on the clauses alone — neither on the ray engine nor
    /// on the cells inference decided.
    pub fn fits(&self, m: &Molecule) -> Result<bool, Error> {
        let shape = self.shape;
        if m.shape() != shape {
            return Err(Error::invalid(format!(
                "molecule {m} is not on a {shape} box"
            )));
        }
        if m.atoms().len() != self.atoms {
            return Ok(false);
        }
        let mut formula = CnfFormula::new();
        let mut at_m = Encoding::new(&mut formula, shape, self.rules, self.atoms);
        let mut known = vec![Some(false); shape.cells()];
        for &c in m.atoms() {
            known[c] = Some(true);
        }
        at_m.fix_unstated(known);
        for &(pos, outcome) in &self.rays {
            at_m.ray(&mut formula, pos, outcome, Term::True);
        }
        // With every cell a constant, each clause is one: a true clause is
        // left out, a false one is written as the false literal `¬t`.
        let t = at_m.t;
        Ok(formula.iter().all(|clause| clause.contains(&t)))
    }

    /// Every molecule that satisfies the clauses other than those of
    /// `known` (in the order found), and the proof that there are no more:
    /// `known` are blocked all at once, then each molecule found in turn,
    /// until the solver answers that nothing else fits. The blocking
    /// clauses stay: a second call finds nothing that the first found.
    ///
    /// When inference decided every cell, the clauses allow that one
    /// molecule or none: they are evaluated at it ([`fits`](Self::fits))
    /// rather than solved.
    pub fn others(&mut self, known: &[Molecule]) -> Result<Vec<Molecule>, Error> {
        if self.contradiction {
            return Ok(Vec::new());
        }
        let Some(sat) = &mut self.sat else {
            let Some(m) = self.decided.take() else {
                return Ok(Vec::new());
            };
            if known.contains(&m) || !self.fits(&m)? {
                return Ok(Vec::new());
            }
            return Ok(vec![m]);
        };
        for m in known {
            // A molecule of another box or count is not among the answers.
            if m.shape() == self.shape && m.atoms().len() == self.atoms {
                sat.block(m);
            }
        }
        sat.assumed.clear();
        let mut found = Vec::new();
        loop {
            self.calls += 1;
            sat.solver.assume(&sat.assumed);
            if !sat.solver.solve().map_err(Error::Solver)? {
                return Ok(found);
            }
            let m = sat.molecule_from_model();
            sat.block(&m);
            found.push(m);
        }
    }
}

impl Sat {
    /// Adds the clause that `m` is not the molecule (with the atom count
    /// fixed, one of its atoms must be missing).
    fn block(&mut self, m: &Molecule) {
        let clause: Vec<Term> = m
            .atoms()
            .iter()
            .map(|&c| !self.encoding.atom_of(c))
            .collect();
        self.encoding.clause(&mut self.solver, &clause);
    }

    /// The molecule of the solver's model.
    fn molecule_from_model(&self) -> Molecule {
        let known = &self.encoding.known;
        let mut atom: Vec<bool> = known.iter().map(|k| k == &Some(true)).collect();
        for l in self.solver.model().unwrap_or_default() {
            let cell = l.var().index();
            if cell < atom.len() && known[cell].is_none() {
                atom[cell] = l.is_positive();
            }
        }
        let atoms = (0..atom.len()).filter(|&c| atom[c]).collect();
        Molecule::from_sorted_unchecked(self.encoding.shape, atoms)
    }
}

/// The literal `count ≥ j` of the built counter, or the constant that the
/// cells decide.
fn at_least(encoding: &Encoding, j: usize) -> Term {
    encoding
        .at_least_constant(j)
        .or_else(|| encoding.at_least_counted(j))
        // The counter counts to one past the atoms asked for.
        .unwrap_or(Term::False)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    /// Every molecule of `config` against the clauses of every observation
    /// given, by brute force: a molecule fits exactly when its spectrum
    /// matches, and the others are exactly the matching molecules not given.
    fn brute(config: &str, rules: Rules, observations: impl Fn(&Spectrum) -> Vec<Observation>) {
        let config: crate::Config = config.parse().unwrap();
        let all: Vec<(Molecule, Spectrum)> = Molecules::new(config)
            .map(|m| {
                let s = Spectrum::of(&m, rules);
                (m, s)
            })
            .collect();
        for (_, s) in &all {
            for o in observations(s) {
                let mut clauses = ObservationClauses::new(&o, rules, config.atoms);
                let fit: Vec<Molecule> = all
                    .iter()
                    .filter(|(_, s)| o.matches(s))
                    .map(|(m, _)| m.clone())
                    .collect();
                for (m, s) in &all {
                    assert_eq!(
                        clauses.fits(m).unwrap(),
                        o.matches(s),
                        "{config} {rules} {o} {m}"
                    );
                }
                // Given half of them, the clauses find the other half.
                let (given, rest): (Vec<_>, Vec<_>) = fit
                    .iter()
                    .cloned()
                    .enumerate()
                    .partition(|(i, _)| i % 2 == 0);
                let given: Vec<Molecule> = given.into_iter().map(|(_, m)| m).collect();
                let mut rest: Vec<Molecule> = rest.into_iter().map(|(_, m)| m).collect();
                let mut others = clauses.others(&given).unwrap();
                others.sort();
                rest.sort();
                assert_eq!(others, rest, "{config} {rules} {o}");
                // Blocked once, found once.
                assert!(clauses.others(&[]).unwrap().is_empty());
            }
        }
    }

    #[test]
    fn full_observations_of_small_boards() {
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            brute("A2_B4", rules, |s| vec![Observation::full(s)]);
            brute("A3_B4", rules, |s| vec![Observation::full(s)]);
            brute("A3_B5x3", rules, |s| vec![Observation::full(s)]);
            brute("A2_B2x4", rules, |s| vec![Observation::full(s)]);
        }
    }

    #[test]
    fn partial_observations_of_small_boards() {
        // Each spectrum with the rays of one side, and with every other ray.
        for (config, rules) in [
            ("A2_B4", Rules::Standard),
            ("A2_B4", Rules::EdgeMiss),
            ("A2_B4x3", Rules::Standard),
            ("A2_B3x4", Rules::EdgeMiss),
        ] {
            brute(config, rules, |s| {
                let shape = s.shape();
                let full = Observation::full(s);
                let mut side = Observation::empty(shape);
                for pos in 1..=shape.height {
                    side.record(pos, s.get(pos));
                }
                let mut every_other = full.clone();
                for pos in (1..=shape.positions()).step_by(2) {
                    every_other.forget(pos);
                }
                vec![side, every_other, Observation::empty(shape)]
            });
        }
    }

    #[test]
    fn a_molecule_of_another_box_is_refused() {
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let o = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let mut clauses = ObservationClauses::new(&o, Rules::Standard, 4);
        let small: Molecule = "O---O---O---O---".parse().unwrap();
        assert!(clauses.fits(&small).is_err());
        // A molecule of the box with one atom fewer, whose rays are the
        // same but one, does not fit: the count is part of the clauses.
        let three: Molecule = "O-O-----------O---------------------".parse().unwrap();
        assert!(!clauses.fits(&three).unwrap());
        // Nor is it blocked: both molecules of the spectrum are found.
        assert_eq!(clauses.others(&[small]).unwrap().len(), 2);
    }
}
