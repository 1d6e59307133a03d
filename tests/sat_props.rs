//! The SAT solver against brute force: for random molecules and random subsets
//! of their rays, the molecules SAT returns are exactly those that brute force
//! finds, under both rule sets, with the plain and the simplified encodings
//! (rays encoded lazily or all at once). The raw stream of molecules the search
//! hands to its callback is checked, not a deduplicated set: no molecule may
//! come twice, and the families must be disjoint with sizes that add up to the
//! brute-force count. Minimal conflicts are checked against brute force too.

use std::collections::BTreeSet;

use bbx::solver::RayModel;
use bbx::{Molecule, Observation, Outcome, Rules, Spectrum};
use proptest::prelude::*;

use crate::common::{proptest_config, rules, sparse};

/// The observation of `m` keeping the positions whose bit in `keep` is set.
fn partial(m: &Molecule, rules: Rules, keep: &[bool]) -> Observation {
    let s = Spectrum::of(m, rules);
    let mut o = Observation::empty(m.width());
    for (i, &k) in keep.iter().enumerate().take(4 * m.width()) {
        if k {
            o.record(i + 1, s.get(i + 1));
        }
    }
    o
}

fn brute(o: &Observation, rules: Rules, atoms: usize) -> BTreeSet<Molecule> {
    crate::common::brute_force(o, rules, atoms)
        .into_iter()
        .collect()
}

/// Solves with `model`, collecting the raw stream of molecules handed to the
/// `found` callback, and checks it against brute force (`expected`): each
/// molecule comes exactly once, the stream is what the search returns, and
/// the families are disjoint, with sizes that add up to the count.
fn check_stream(
    model: &mut RayModel,
    n: usize,
    expected: &BTreeSet<Molecule>,
) -> Result<(), TestCaseError> {
    let selectors: Vec<_> = model.rays().iter().map(|r| r.selector).collect();
    let mut stream: Vec<Molecule> = Vec::new();
    let found = model
        .solve_with(&selectors, n..=n, None, |m| stream.push(m.clone()))
        .unwrap();
    prop_assert!(found.ended.is_complete());
    let mut seen = BTreeSet::new();
    for m in &stream {
        prop_assert!(seen.insert(m.clone()), "a molecule was found twice: {}", m);
    }
    prop_assert_eq!(&seen, expected);
    prop_assert_eq!(&found.molecules, &stream);
    prop_assert_eq!(found.count, expected.len() as u128);
    let sizes: u128 = found.families.iter().map(|f| f.size()).sum();
    prop_assert_eq!(sizes, expected.len() as u128, "family sizes");
    for f in &found.families {
        prop_assert_eq!(f.members().count() as u128, f.size());
    }
    for m in expected {
        let holders = found.families.iter().filter(|f| f.contains(m)).count();
        prop_assert_eq!(holders, 1, "{} is in {} families", m, holders);
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(300))]

    #[test]
    fn sat_equals_brute_force(
        m in sparse(6, 4),
        rules in rules(),
        keep in proptest::collection::vec(proptest::bool::weighted(0.6), 24),
    ) {
        let o = partial(&m, rules, &keep);
        let n = m.atoms().len();
        let expected = brute(&o, rules, n);
        prop_assert!(expected.contains(&m));

        let mut plain = RayModel::new(o.width(), rules, n);
        plain.observe(&o);
        check_stream(&mut plain, n, &expected)?;
        // `solve` (all rays) gives the same molecules.
        let mut plain = RayModel::new(o.width(), rules, n);
        plain.observe(&o);
        let found = plain.solve(n..=n, None).unwrap();
        let got: BTreeSet<Molecule> = found.molecules.iter().cloned().collect();
        prop_assert_eq!(&got, &expected);

        let mut simplified = RayModel::simplified(&o, rules, n);
        check_stream(&mut simplified, n, &expected)?;

        // Every ray encoded up front, no candidate checked by the ray engine
        // (what `bbx verify` solves with).
        let mut eager = RayModel::simplified(&o, rules, n);
        eager.encode_all_rays();
        check_stream(&mut eager, n, &expected)?;

        // Every returned molecule reproduces every observed ray.
        for s in &expected {
            prop_assert!(o.matches(&Spectrum::of(s, rules)));
        }
    }

    #[test]
    fn a_changed_ray_is_explained(
        m in sparse(6, 4),
        rules in rules(),
        pos_seed in 0usize..1000,
    ) {
        // Change one observed ray; if nothing fits any more, the conflict must
        // be a set of rays that still admits no molecule, each of them needed.
        let s = Spectrum::of(&m, rules);
        let mut o = Observation::full(&s);
        let p = m.width();
        let pos = pos_seed % (4 * p) + 1;
        let new = match s.get(pos) {
            Outcome::Absorbed => Outcome::Reflected,
            _ => Outcome::Absorbed,
        };
        o.forget(pos);
        o.record(pos, new);
        let n = m.atoms().len();
        let mut model = RayModel::new(p, rules, n);
        model.observe(&o);
        match model.conflict(n..=n).unwrap() {
            None => prop_assert!(!brute(&o, rules, n).is_empty()),
            Some(core) => {
                prop_assert!(brute(&o, rules, n).is_empty());
                let rays: Vec<(usize, Outcome)> =
                    core.iter().map(|&i| (model.rays()[i].position, model.rays()[i].outcome)).collect();
                let keep = |skip: Option<usize>| {
                    let mut sub = Observation::empty(p);
                    for (j, &(q, out)) in rays.iter().enumerate() {
                        if Some(j) != skip {
                            sub.record(q, out);
                        }
                    }
                    sub
                };
                prop_assert!(brute(&keep(None), rules, n).is_empty());
                for (j, ray) in rays.iter().enumerate() {
                    prop_assert!(!brute(&keep(Some(j)), rules, n).is_empty(), "ray {:?} is not needed", ray);
                }
            }
        }
    }
}
