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
//! The search grows quickly with the molecules, so it is bounded by a
//! [`Budget`]: its deadline, its token and its memory bound on the subsets
//! remembered ([`DEFAULT_PLAN_MEMORY`] when it gives none); cut short, it
//! says how it ended ([`why_no_plan`] in words) instead of giving a strategy
//! that is not the best.
//!
//! ```
//! use bbx::assistant::plan::plan;
//! use bbx::control::Budget;
//! use bbx::{Molecule, Observation, Rules};
//! let a: Molecule = "O--------".parse().unwrap();
//! let b: Molecule = "--O------".parse().unwrap();
//! let p = plan(&[a, b], &Observation::empty(3), Rules::Standard, &Budget::default());
//! assert_eq!(p.value.unwrap().expected_rays, 1.0); // one ray tells two molecules apart
//! ```

use std::collections::HashMap;

use crate::control::{Budget, Cut, Ended, Finished, Ticker};
use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules, outcome_table};
use crate::rules::spectrum::Observation;
use crate::setting::{Setting, Text};

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
        /// One branch per outcome: the outcome and the subtree.
        branches: Vec<(Outcome, Node)>,
    },
}

/// The best strategy: its expected rays and its decision tree.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShootingPlan {
    /// Expected number of further rays.
    pub expected_rays: f64,
    /// The decision tree.
    pub tree: Node,
}

/// The memory bound of the subsets remembered when the budget gives none:
/// 50 million molecules in all (4 bytes each), about 200 MB with the
/// table's own overhead.
pub const DEFAULT_PLAN_MEMORY: u64 = 200_000_000;

/// The most molecules the subsets remembered may hold within `budget`.
fn most_remembered(budget: &Budget) -> usize {
    (budget.memory_or(DEFAULT_PLAN_MEMORY) / 4) as usize
}

/// The strategy for telling `molecules` apart, given what was `observed`;
/// nothing (`None`) when the budget ended the search first (see
/// [`why_no_plan`]).
pub fn plan(
    molecules: &[Molecule],
    observed: &Observation,
    rules: Rules,
    budget: &Budget,
) -> Finished<Option<ShootingPlan>> {
    let outcomes = outcome_table(molecules, rules);
    let unshot: Vec<usize> = (1..=observed.shape().positions())
        .filter(|&pos| observed.get(pos).is_none())
        .collect();
    let mut search = Search {
        outcomes: &outcomes,
        unshot: &unshot,
        memo: HashMap::new(),
        ticker: budget.ticker(256),
        most: most_remembered(budget),
        remembered: 0,
    };
    let all: Vec<u32> = (0..molecules.len() as u32).collect();
    let expected_rays = search.best(&all).0;
    if let Some(cut) = search.ticker.cut() {
        return Finished::new(None, cut.into());
    }
    let tree = search.tree(&all, molecules);
    Finished::complete(Some(ShootingPlan {
        expected_rays,
        tree,
    }))
}

/// Why a search within `budget` that ended as `ended` gave no strategy, in
/// words.
pub fn why_no_plan(ended: Ended, budget: &Budget) -> Text {
    match ended {
        Ended::TimedOut => Text::from("the time limit stopped it before it was done (")
            .and(Setting::Timeout)
            .and(" raises it)"),
        Ended::OverMemory => Text::from(format!(
            "it needed to remember more than {} molecules' worth of subsets (fewer molecules, ",
            most_remembered(budget)
        ))
        .and(Setting::PlanMax)
        .and(", keep it smaller)"),
        _ => "it was interrupted".into(),
    }
}

struct Search<'a> {
    outcomes: &'a [Vec<Outcome>],
    unshot: &'a [usize],
    memo: HashMap<Vec<u32>, (f64, usize)>,
    /// The budget, asked every 256 sets.
    ticker: Ticker<'a>,
    /// The most molecules the subsets remembered may hold.
    most: usize,
    /// Molecules in the subsets remembered.
    remembered: usize,
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

    /// Whether the search must stop now (the budget is asked every few
    /// hundred sets).
    fn must_stop(&mut self) -> bool {
        if self.remembered > self.most {
            self.ticker.stop(Cut::OverMemory);
        }
        self.ticker.tick().is_err()
    }

    /// E(set), and the best ray (0 when none splits the set). Once the search
    /// is cut short the values are meaningless and the ticker says so.
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
            if self.ticker.cut().is_some() {
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
            .map(|(o, c)| (o, self.tree(&c, molecules)))
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
        let ended = |budget: &Budget| {
            let p = plan(&all, &seen, Rules::Standard, budget);
            assert!(p.value.is_none());
            p.ended
        };
        let tight = Budget::default().with_memory(Some(400));
        assert_eq!(ended(&tight), Ended::OverMemory);
        assert_eq!(
            why_no_plan(Ended::OverMemory, &tight).to_string(),
            "it needed to remember more than 100 molecules' worth of subsets (fewer molecules, the most molecules a plan tells apart, keep it smaller)"
        );
        let past = Budget::default().with_timeout(std::time::Duration::ZERO);
        assert_eq!(ended(&past), Ended::TimedOut);
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        assert_eq!(ended(&cancelled), Ended::Cancelled);
        // Within its limits it answers.
        let p = plan(&all, &seen, Rules::Standard, &Budget::default());
        assert!(p.value.unwrap().expected_rays > 1.0);
    }
}
