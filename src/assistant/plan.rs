//! The shooting strategy that tells the remaining molecules apart with the
//! fewest rays on average.
//!
//! Given the molecules that fit a partial game, each ray not yet shot splits
//! them by its outcome. The best strategy minimises the expected number of
//! further rays until one molecule is left, or until no ray can tell the rest
//! apart: E(S) = 0 when nothing splits S, otherwise the least over splitting
//! rays r of 1 + Σ |c|/|S| · E(c) over the classes c of r. Subsets are
//! memoised, so this is exact for sets of a few dozen molecules.
//!
//! The search grows quickly with the molecules, so it is bounded: by a
//! deadline, a stop flag (Ctrl-C) and the number of subsets it may remember
//! ([`PlanLimits`]); cut short, it says why ([`PlanCut`]) instead of giving a
//! strategy that is not the best.
//!
//! ```
//! use bbx::assistant::plan::{plan, PlanLimits};
//! use bbx::{Molecule, Observation, Rules};
//! let a: Molecule = "O--------".parse().unwrap();
//! let b: Molecule = "--O------".parse().unwrap();
//! let p = plan(&[a, b], &Observation::empty(3), Rules::Standard, &PlanLimits::default()).unwrap();
//! assert_eq!(p.expected_rays, 1.0); // one ray tells two molecules apart
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules, outcome_table};
use crate::rules::spectrum::Observation;

/// A node of the decision tree.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    /// One molecule is left (linear form).
    Known(String),
    /// Several are left and no ray tells them apart.
    Undecidable(Vec<String>),
    /// Shoot this ray; then follow the branch of its outcome.
    Shoot {
        /// Border position (`position` in JSON, as everywhere).
        #[serde(rename = "position")]
        ray: usize,
        /// Expected rays from here on, this one included.
        expected_rays: f64,
        /// One branch per outcome: the outcome's words and the subtree.
        branches: Vec<(String, Node)>,
    },
}

/// The best strategy.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Plan {
    /// Expected number of further rays.
    pub expected_rays: f64,
    /// The decision tree.
    pub tree: Node,
}

/// How far the search for the best strategy may go.
#[derive(Debug, Clone, Copy)]
pub struct PlanLimits {
    /// Give up at this moment.
    pub deadline: Option<Instant>,
    /// Give up when this is set (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
    /// Give up when the subsets remembered hold more molecules than this in
    /// all (4 bytes each).
    pub memory: usize,
}

/// The default bound on the subsets remembered: 50 million molecules in
/// all, about 200 MB with the table's own overhead.
pub const DEFAULT_PLAN_MEMORY: usize = 50_000_000;

impl Default for PlanLimits {
    fn default() -> PlanLimits {
        PlanLimits {
            deadline: None,
            stop: None,
            memory: DEFAULT_PLAN_MEMORY,
        }
    }
}

/// Why no strategy was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlanCut {
    /// The deadline passed.
    #[error("the time limit stopped it before it was done (--timeout raises it)")]
    TimeLimit,
    /// The stop flag was set.
    #[error("it was interrupted")]
    Interrupted,
    /// The subsets to remember outgrew [`PlanLimits::memory`].
    #[error(
        "it needed to remember more than {0} molecules' worth of subsets (fewer molecules, --plan-max, keep it smaller)"
    )]
    Memory(usize),
}

/// The strategy for telling `molecules` apart, given what was `observed`,
/// or why it was not found within `limits`.
pub fn plan(
    molecules: &[Molecule],
    observed: &Observation,
    rules: Rules,
    limits: &PlanLimits,
) -> Result<Plan, PlanCut> {
    let p = observed.width();
    let outcomes = outcome_table(molecules, rules);
    let unshot: Vec<usize> = (1..=4 * p)
        .filter(|&pos| observed.get(pos).is_none())
        .collect();
    let mut search = Search {
        outcomes: &outcomes,
        unshot: &unshot,
        memo: HashMap::new(),
        limits: *limits,
        remembered: 0,
        calls: 0,
        cut: None,
    };
    let all: Vec<u32> = (0..molecules.len() as u32).collect();
    let expected_rays = search.expected(&all);
    if let Some(cut) = search.cut {
        return Err(cut);
    }
    let tree = search.tree(&all, molecules);
    Ok(Plan {
        expected_rays,
        tree,
    })
}

struct Search<'a> {
    outcomes: &'a [Vec<Outcome>],
    unshot: &'a [usize],
    memo: HashMap<Vec<u32>, (f64, usize)>,
    limits: PlanLimits,
    /// Molecules in the subsets remembered.
    remembered: usize,
    calls: u64,
    cut: Option<PlanCut>,
}

impl Search<'_> {
    /// The classes of `set` under ray `pos`, in order of first appearance.
    fn classes(&self, set: &[u32], pos: usize) -> Vec<(Outcome, Vec<u32>)> {
        let mut classes: Vec<(Outcome, Vec<u32>)> = Vec::new();
        for &m in set {
            let o = self.outcomes[m as usize][pos - 1];
            match classes.iter_mut().find(|(x, _)| *x == o) {
                Some(c) => c.1.push(m),
                None => classes.push((o, vec![m])),
            }
        }
        classes
    }

    /// Whether the search must stop now (checked every few hundred sets).
    fn must_stop(&mut self) -> bool {
        if self.cut.is_some() {
            return true;
        }
        self.calls += 1;
        if self.calls.is_multiple_of(256) {
            if self.limits.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                self.cut = Some(PlanCut::Interrupted);
            } else if self.limits.deadline.is_some_and(|d| Instant::now() >= d) {
                self.cut = Some(PlanCut::TimeLimit);
            }
        }
        if self.remembered > self.limits.memory {
            self.cut = Some(PlanCut::Memory(self.limits.memory));
        }
        self.cut.is_some()
    }

    /// E(set), and the best ray (0 when none splits the set). Once the search
    /// is cut short the values are meaningless and [`Search::cut`] says so.
    fn best(&mut self, set: &[u32]) -> (f64, usize) {
        if set.len() <= 1 {
            return (0.0, 0);
        }
        if let Some(&r) = self.memo.get(set) {
            return r;
        }
        if self.must_stop() {
            return (f64::INFINITY, 0);
        }
        let mut best = (f64::INFINITY, 0);
        for &pos in self.unshot {
            let classes = self.classes(set, pos);
            if classes.len() < 2 {
                continue;
            }
            let mut e = 1.0;
            for (_, c) in &classes {
                e += c.len() as f64 / set.len() as f64 * self.best(c).0;
            }
            if self.cut.is_some() {
                return (f64::INFINITY, 0);
            }
            if e < best.0 - 1e-12 {
                best = (e, pos);
            }
        }
        if best.1 == 0 {
            best.0 = 0.0;
        }
        self.remembered += set.len();
        self.memo.insert(set.to_vec(), best);
        best
    }

    fn expected(&mut self, set: &[u32]) -> f64 {
        self.best(set).0
    }

    fn tree(&mut self, set: &[u32], molecules: &[Molecule]) -> Node {
        let name = |i: &u32| molecules[*i as usize].to_string();
        if set.len() == 1 {
            return Node::Known(name(&set[0]));
        }
        let (e, pos) = self.best(set);
        if pos == 0 {
            return Node::Undecidable(set.iter().map(name).collect());
        }
        let branches = self
            .classes(set, pos)
            .into_iter()
            .map(|(o, c)| (o.words(), self.tree(&c, molecules)))
            .collect();
        Node::Shoot {
            ray: pos,
            expected_rays: e,
            branches,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::config::Config;
    use crate::rules::enumeration::Molecules;

    #[test]
    fn a_search_past_its_limits_says_why_instead_of_answering() {
        // Every molecule of A2_B4: 120 of them, far more subsets than a
        // memory bound of 100 molecules lets it remember.
        let all: Vec<Molecule> = Molecules::new(Config::new(2, 4).unwrap()).collect();
        let seen = Observation::empty(4);
        let tight = PlanLimits {
            memory: 100,
            ..PlanLimits::default()
        };
        assert_eq!(
            plan(&all, &seen, Rules::Standard, &tight),
            Err(PlanCut::Memory(100))
        );
        let past = PlanLimits {
            deadline: Some(Instant::now()),
            ..PlanLimits::default()
        };
        assert_eq!(
            plan(&all, &seen, Rules::Standard, &past),
            Err(PlanCut::TimeLimit)
        );
        static STOP: AtomicBool = AtomicBool::new(true);
        let stopped = PlanLimits {
            stop: Some(&STOP),
            ..PlanLimits::default()
        };
        assert_eq!(
            plan(&all, &seen, Rules::Standard, &stopped),
            Err(PlanCut::Interrupted)
        );
        // Within its limits it answers.
        let p = plan(&all, &seen, Rules::Standard, &PlanLimits::default()).unwrap();
        assert!(p.expected_rays > 1.0);
    }
}
