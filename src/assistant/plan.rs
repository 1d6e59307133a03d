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
//! ```
//! use bbx::assistant::plan::plan;
//! use bbx::{Molecule, Observation, Rules};
//! let a: Molecule = "O--------".parse().unwrap();
//! let b: Molecule = "--O------".parse().unwrap();
//! let p = plan(&[a, b], &Observation::empty(3), Rules::Standard);
//! assert_eq!(p.expected_rays, 1.0); // one ray tells two molecules apart
//! ```

use std::collections::HashMap;

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
        /// Border position.
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

/// The strategy for telling `molecules` apart, given what was `observed`.
pub fn plan(molecules: &[Molecule], observed: &Observation, rules: Rules) -> Plan {
    let p = observed.width();
    let outcomes = outcome_table(molecules, rules);
    let unshot: Vec<usize> = (1..=4 * p)
        .filter(|&pos| observed.get(pos).is_none())
        .collect();
    let mut search = Search {
        outcomes: &outcomes,
        unshot: &unshot,
        memo: HashMap::new(),
    };
    let all: Vec<u16> = (0..molecules.len() as u16).collect();
    let expected_rays = search.expected(&all);
    let tree = search.tree(&all, molecules);
    Plan {
        expected_rays,
        tree,
    }
}

struct Search<'a> {
    outcomes: &'a [Vec<Outcome>],
    unshot: &'a [usize],
    memo: HashMap<Vec<u16>, (f64, usize)>,
}

impl Search<'_> {
    /// The classes of `set` under ray `pos`, in order of first appearance.
    fn classes(&self, set: &[u16], pos: usize) -> Vec<(Outcome, Vec<u16>)> {
        let mut classes: Vec<(Outcome, Vec<u16>)> = Vec::new();
        for &m in set {
            let o = self.outcomes[m as usize][pos - 1];
            match classes.iter_mut().find(|(x, _)| *x == o) {
                Some(c) => c.1.push(m),
                None => classes.push((o, vec![m])),
            }
        }
        classes
    }

    /// E(set), and the best ray (0 when none splits the set).
    fn best(&mut self, set: &[u16]) -> (f64, usize) {
        if set.len() <= 1 {
            return (0.0, 0);
        }
        if let Some(&r) = self.memo.get(set) {
            return r;
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
            if e < best.0 - 1e-12 {
                best = (e, pos);
            }
        }
        if best.1 == 0 {
            best.0 = 0.0;
        }
        self.memo.insert(set.to_vec(), best);
        best
    }

    fn expected(&mut self, set: &[u16]) -> f64 {
        self.best(set).0
    }

    fn tree(&mut self, set: &[u16], molecules: &[Molecule]) -> Node {
        let name = |i: &u16| molecules[*i as usize].to_string();
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
