//! The ray rules as SAT clauses, and every molecule that fits an observation.
//!
//! The encoding (built by [`RayModel`]) and the search ([`RayModel::solve`],
//! [`RayModel::conflict`]) are separate steps, as in varisat itself.
//!
//! **Variables.** One per cell, true when the cell holds an atom. For each
//! observed ray, one per state the ray can be in — a cell and a heading — true
//! when the ray passes through that state. A sequential counter over the atom
//! variables gives literals `count ≥ j`.
//!
//! **Clauses.** For a ray on cell X heading d, with A the cell ahead and L, R
//! the cells diagonally ahead, the rules become implications from the state:
//!
//! ```text
//! s(X,d) ∧ a(A)                 → the ray is absorbed here
//! s(X,d) ∧ ¬a(A) ∧ a(L) ∧ a(R)  → the ray is reflected here
//! s(X,d) ∧ ¬a(A) ∧ a(L) ∧ ¬a(R) → s(X, right of d)
//! s(X,d) ∧ ¬a(A) ∧ ¬a(L) ∧ a(R) → s(X, left of d)
//! s(X,d) ∧ ¬a(A) ∧ ¬a(L) ∧ ¬a(R)→ s(A,d), or the ray comes out if A is outside
//! ```
//!
//! Every ending other than the observed one is forbidden, so the forced path
//! must end exactly as observed. The path is deterministic and every clause
//! contains `¬s`, so states off the path can all be false: only the entry
//! clauses (which force the first state) hang on the ray's *selector* literal,
//! and a ray whose selector is not assumed constrains nothing. An exit pair is
//! encoded from both ends (under one selector), so unit propagation runs the
//! ray forward from each end.
//!
//! **Search.** Solve under the assumptions (selectors and the atom count), read
//! the molecule, add a clause that blocks it, solve again, until the formula is
//! unsatisfiable. Blocking clauses mention only atom variables, the counter
//! literal `count ≥ |S|+1` (so that a molecule with more atoms than this one is
//! not blocked when a range of counts is asked for) and an activation literal
//! that retires them after the enumeration.
//!
//! **Families.** A clause the model satisfies with a ray state holds whatever
//! the atoms do; one it satisfies with atom literals alone needs one of them
//! kept. The cells kept that way are all the model needs: every molecule that
//! agrees with it there and has as many atoms satisfies every ray clause with
//! the same states. Such a family (an atom free to sit anywhere in a region no
//! ray looks at, say) is listed at once and blocked by one clause.
//!
//! **Files.** The encoding and the search state are apart: `encode.rs`
//! writes the rules as clauses (the cell variables, what is known of the
//! cells, the rays' states, the atom counter) into any varisat
//! `ExtendFormula`, as varisat's own encoders do; [`RayModel`] (`model.rs`)
//! is the search state — the solver kept to its limits, the observed rays
//! under their selectors, the rays still waiting to be encoded — and its
//! searches fill the other files: `limits.rs` the limits a search keeps to
//! ([`Limits`]: a most molecules and a [`Budget`](crate::control::Budget)),
//! how it ended being [`Ended`](crate::control::Ended); `infer.rs` decides
//! cells before solving ([`infer`]); `search.rs` enumerates molecules and
//! families, blocking each; `bounds.rs` the fewest atoms the rays allow;
//! `conflict.rs` explains contradictions; `clauses.rs` holds one
//! observation's clauses for a check ([`ObservationClauses`]: does each
//! given molecule fit, and does any other?);
//! `solution.rs` is the whole answer to a game ([`solve`], [`Solution`]) and
//! `solve_report.rs` what a solve reports of it.
//!
//! **Speed.** Before any clause, `solve` runs every ray forward over the
//! cells it forces empty or full, probing the cells the rays wait on (the
//! edge analysis of A. Janns's solver, generalised); decided cells become
//! constants, steps they decide are not encoded, and a ray is encoded only
//! when a candidate molecule disagrees with it (lazy encoding). Each step,
//! measured on random A12_B20 games as it was built (median; 5 games for
//! the first three rows, 20 after):
//!
//! ```text
//! encoding                                               median   slowest
//! every state of every ray, both ends of each exit pair  825 ms   1.3 s
//! cells decided by running rays forward become constants 455 ms   660 ms
//! and probing the cells rays wait on                     117 ms   334 ms
//! and rays encoded only when a candidate disagrees        44 ms   291 ms
//! ```
//!
//! Listing families then took the median to 39 ms (at most 327 ms); the
//! spread between games is mostly the solver's search, not the encoding.
//! docs/performance.md has today's figures on `puzzles/a12-b20-set/`.
//!
//! **Large boxes.** A ray has a state for each of the 4wh cells and
//! headings it may pass, and the counter a variable per undecided cell and
//! count (1000×1000, five atoms: 4 million states a ray, 6 million counter
//! steps). So the limits are asked inside every long loop — inference, the
//! encoding of each ray, the counters, the solver calls, the certainty map
//! — through `limits.rs`'s guard (deadline, cancellation, a search no longer
//! needed, one memory budget shared by every model of one `solve`, charged
//! as clauses are added). A model stopped while adding clauses is *broken*
//! and answers nothing more; the answer says what was cut short. A search
//! whose counter alone would pass the budget is refused before it is built.
//! A ray that misses the board under the edge-miss rules is decided at the
//! entry and never encoded. Inference traces a ray again only from the
//! first step the known cells left open and undoes a probe instead of
//! copying the box; rays that contradict each other need no solver. The
//! certainty map of a search stopped at `--max` is left out, and said to
//! be, when it would take thousands of solver calls.
//!
//! **Too few atoms.** Asking the counter for fewer atoms than the rays need
//! makes it try every placement: on boxes larger than 10×10 `solve` runs the
//! search on its own thread and, when it is slow, works out the fewest atoms
//! the rays allow (`bounds.rs`) beside it.
//!
//! ```
//! use bbx::{Molecule, Observation, Rules, Spectrum};
//! use bbx::solver::RayModel;
//!
//! let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
//! let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
//! let mut model = RayModel::new(6, Rules::Standard, 4);
//! model.observe(&observed);
//! let found = model.solve(4..=4, None).unwrap();
//! assert!(found.ended.is_complete());
//! assert_eq!(found.molecules.len(), 2); // molecules 868 and 15993
//! ```

mod bounds;
mod clauses;
mod conflict;
pub mod count;
mod encode;
pub mod forward;
mod infer;
mod limits;
mod model;
mod search;
mod solution;
pub mod solve_report;

pub use bounds::Fewest;
pub use clauses::ObservationClauses;
pub use infer::infer;
pub(crate) use limits::human_bytes;
pub use limits::{DEFAULT_MEMORY, Limits};
pub use model::{EncodingSize, ObservedRay, RayModel};
pub use search::{Family, Found};
pub use solution::{Certainty, OutcomeClass, Solution, Split, solve};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{Budget, Cut, Ended};
    use crate::rules::board::Molecule;
    use crate::rules::enumeration::Molecules;
    use crate::rules::ray::{Outcome, Rules};
    use crate::rules::spectrum::{Observation, Spectrum};

    fn brute(obs: &Observation, rules: Rules, atoms: usize) -> Vec<Molecule> {
        let config = crate::Config::shaped(atoms, obs.shape()).unwrap();
        Molecules::new(config)
            .filter(|m| obs.matches(&Spectrum::of(m, rules)))
            .collect()
    }

    fn sat(obs: &Observation, rules: Rules, atoms: usize) -> Vec<Molecule> {
        let mut m = RayModel::new(obs.shape(), rules, atoms);
        m.observe(obs);
        let mut v = m.solve(atoms..=atoms, None).unwrap().molecules;
        v.sort();
        let mut s = RayModel::simplified(obs, rules, atoms);
        let mut w = s.solve(atoms..=atoms, None).unwrap().molecules;
        w.sort();
        assert_eq!(v, w, "plain and simplified models disagree");
        v
    }

    #[test]
    fn seed_a4_b6_pair() {
        let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
        let obs = Observation::full(&Spectrum::of(&m, Rules::Standard));
        let found = sat(&obs, Rules::Standard, 4);
        let names: Vec<String> = found.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            names,
            [
                "O-O-----------O---------O-----------",
                "--O---------O-O---------O-----------"
            ]
        );
    }

    #[test]
    fn agrees_with_brute_force_on_every_a2_b4_molecule() {
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            for m in Molecules::new("A2_B4".parse().unwrap()) {
                let obs = Observation::full(&Spectrum::of(&m, rules));
                assert_eq!(sat(&obs, rules, 2), brute(&obs, rules, 2), "{m} {rules}");
            }
        }
    }

    #[test]
    fn every_one_and_two_ray_observation_of_small_boards() {
        // Few rays leave most of the box unseen, so molecules come by families;
        // every family must hold exactly molecules that fit.
        for (config, rules) in [
            ("A2_B4", Rules::Standard),
            ("A3_B4", Rules::Standard),
            ("A2_B4", Rules::EdgeMiss),
            ("A3_B4", Rules::EdgeMiss),
            ("A2_B5", Rules::Standard),
            ("A2_B5x3", Rules::Standard),
            ("A3_B3x4", Rules::EdgeMiss),
        ] {
            let config: crate::Config = config.parse().unwrap();
            let (shape, n) = (config.shape(), config.positions());
            let all: Vec<(Molecule, Spectrum)> = Molecules::new(config)
                .map(|m| {
                    let s = Spectrum::of(&m, rules);
                    (m, s)
                })
                .collect();
            let mut observations = std::collections::BTreeSet::new();
            for (_, s) in &all {
                for a in 1..=n {
                    for b in [a, (a * 7) % n + 1] {
                        let mut o = Observation::empty(shape);
                        o.record(a, s.get(a));
                        o.record(b, s.get(b));
                        observations.insert(o.to_string());
                    }
                }
            }
            for text in observations {
                let o = Observation::parse_in(&text, shape, "test").unwrap();
                let mut want: Vec<Molecule> = all
                    .iter()
                    .filter(|(_, s)| o.matches(s))
                    .map(|(m, _)| m.clone())
                    .collect();
                want.sort();
                for eager in [false, true] {
                    let mut model = RayModel::simplified(&o, rules, config.atoms);
                    if eager {
                        model.encode_all_rays();
                    }
                    let mut got = model
                        .solve(config.atoms..=config.atoms, None)
                        .unwrap()
                        .molecules;
                    got.sort();
                    assert_eq!(got, want, "{config} {rules} {text} eager {eager}");
                }
            }
        }
    }

    #[test]
    fn ranges_of_counts_and_blocking() {
        // Nothing observed on a 2×2 box: every molecule of 1 or 2 atoms.
        let obs = Observation::empty(2);
        let mut m = RayModel::new(2, Rules::Standard, 3);
        m.observe(&obs);
        let found = m.solve(1..=2, None).unwrap();
        assert_eq!(found.ended, Ended::Complete);
        assert_eq!(found.molecules.len(), 4 + 6);
        // Blocking clauses were retired: solving again finds them all again.
        assert_eq!(m.solve(2..=2, None).unwrap().molecules.len(), 6);
        assert_eq!(m.solve(0..=0, Some(5)).unwrap().molecules.len(), 1);
        let limited = m.solve(0..=3, Some(3)).unwrap();
        assert!(limited.ended == Ended::ReachedMax && limited.molecules.len() == 3);
        // A range open at the top: every molecule with an atom or more.
        assert_eq!(m.solve(1..=usize::MAX, None).unwrap().count, 15);
    }

    #[test]
    fn a_ray_that_misses_is_not_encoded_inside_the_box() {
        // Under the edge-miss rules a miss is decided at the entry: the path
        // the ray would take inside (a state per cell and heading, 40000 on
        // a 100-wide box) is not encoded.
        let mut m = RayModel::new(100, Rules::EdgeMiss, 5);
        m.add_ray(7, Outcome::Miss);
        assert!(m.size().variables < 100 * 100 + 10, "{:?}", m.size());
        assert!(m.size().clauses < 10, "{:?}", m.size());
        // Under the standard rules it cannot happen at all.
        let mut s = RayModel::new(100, Rules::Standard, 5);
        s.add_ray(7, Outcome::Miss);
        assert!(s.size().clauses < 10, "{:?}", s.size());
        assert!(s.solve(5..=5, None).unwrap().molecules.is_empty());
    }

    #[test]
    fn a_cancellation_is_kept_inside_the_encoding_of_a_ray() {
        // One absorbed ray across a 100-wide box is 40000 states; cancelled,
        // the encoding stops within a few hundred, and the model, left with
        // a ray half encoded, answers nothing more.
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        let mut whole = RayModel::new(100, Rules::Standard, 5);
        whole.add_ray(50, Outcome::Absorbed);
        assert!(
            whole.size().variables > 100 * 100 + 30000,
            "{:?}",
            whole.size()
        );
        let mut m = RayModel::new(100, Rules::Standard, 5).within(&cancelled);
        m.add_ray(50, Outcome::Absorbed);
        assert_eq!(m.cut(), Some(Cut::Cancelled), "{:?}", m.size());
        assert!(m.size().variables < 100 * 100 + 1000, "{:?}", m.size());
        let found = m.solve(5..=5, None).unwrap();
        assert!(found.ended == Ended::Cancelled && found.molecules.is_empty());
    }

    #[test]
    fn the_counter_over_a_core_counts_only_as_far_as_needed() {
        // A hit on the first row of a 100-wide box needs an atom among
        // about a hundred cells; asking whether one atom is enough counts
        // that core up to two, not to a hundred (ten thousand clauses).
        let mut m = RayModel::new(100, Rules::Standard, 100 * 100);
        m.add_ray(1, Outcome::Absorbed);
        m.add_ray(3, Outcome::Absorbed);
        let selectors: Vec<_> = m.rays().iter().map(|r| r.selector).collect();
        let before = m.size().clauses;
        let fewest = m.fewest_atoms(&selectors, 1).unwrap();
        assert!(matches!(fewest, Fewest::MoreThan(1, _)), "{fewest:?}");
        let added = m.size().clauses - before;
        assert!(added < 5000, "{added} clauses for the counters");
        // The bound is still exact when it is reached.
        assert_eq!(m.fewest_atoms(&selectors, 10).unwrap(), Fewest::Atoms(2));
    }

    #[test]
    fn contradictions_give_a_minimal_core() {
        // A ray straight along row 1 means rows 1 and 2 hold no atom, so a ray
        // along row 2 cannot be absorbed. The third ray is not needed.
        let mut obs = Observation::empty(4);
        obs.record(1, Outcome::Exit(12)); // row 1 straight through: rows 1–2 empty
        obs.record(2, Outcome::Absorbed); // row 2 hit: needs an atom on row 2
        obs.record(8, Outcome::Exit(13)); // unrelated ray
        let mut m = RayModel::new(4, Rules::Standard, 2);
        m.observe(&obs);
        assert!(m.solve(2..=2, None).unwrap().molecules.is_empty());
        let core = m.conflict(2..=2).unwrap().unwrap();
        let positions: Vec<usize> = core.iter().map(|&i| m.rays()[i].position).collect();
        assert_eq!(positions, [1, 2]);
    }
}
