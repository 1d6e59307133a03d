//! The answer to an observed game: every molecule that fits, what is certain,
//! the rays that would tell the molecules apart, and the contradiction when
//! nothing fits.

use std::ops::RangeInclusive;
use std::time::Instant;

use varisat::Lit;

use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules, outcome_table};
use crate::rules::spectrum::Observation;
use crate::solver::model::RayModel;

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
