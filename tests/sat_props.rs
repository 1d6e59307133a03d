//! The SAT solver against brute force: for random molecules and random subsets
//! of their rays, the molecules SAT returns are exactly those that brute force
//! finds, under both rule sets, with the plain and the simplified encodings
//! (rays encoded lazily or all at once).

use std::collections::BTreeSet;

use bbx::rules::enumeration::Molecules;
use bbx::solver::RayModel;
use bbx::{Config, Molecule, Observation, Outcome, Rules, Spectrum};
use proptest::prelude::*;

fn molecule() -> impl Strategy<Value = Molecule> {
    (1usize..=6, 0usize..=4).prop_flat_map(|(p, n)| {
        let n = n.min(p * p);
        proptest::sample::subsequence((0..p * p).collect::<Vec<_>>(), n)
            .prop_map(move |atoms| Molecule::new(p, atoms).expect("valid"))
    })
}

fn rules() -> impl Strategy<Value = Rules> {
    prop_oneof![Just(Rules::Standard), Just(Rules::EdgeMiss)]
}

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
    let config = Config::new(atoms, o.width()).expect("fits");
    Molecules::new(config)
        .filter(|m| o.matches(&Spectrum::of(m, rules)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn sat_equals_brute_force(
        m in molecule(),
        rules in rules(),
        keep in proptest::collection::vec(proptest::bool::weighted(0.6), 24),
    ) {
        let o = partial(&m, rules, &keep);
        let n = m.atoms().len();
        let expected = brute(&o, rules, n);
        prop_assert!(expected.contains(&m));

        let mut plain = RayModel::new(o.width(), rules, n);
        plain.observe(&o);
        let found = plain.solve(n..=n, None, None).unwrap();
        prop_assert!(found.complete);
        let got: BTreeSet<Molecule> = found.molecules.iter().cloned().collect();
        prop_assert_eq!(got.len(), found.molecules.len(), "a molecule was found twice");
        prop_assert_eq!(&got, &expected);

        let mut simplified = RayModel::simplified(&o, rules, n);
        let found = simplified.solve(n..=n, None, None).unwrap();
        let got: BTreeSet<Molecule> = found.molecules.iter().cloned().collect();
        prop_assert_eq!(&got, &expected);

        // Every ray encoded up front, no candidate checked by the ray engine
        // (what `bbx verify` solves with).
        let mut eager = RayModel::simplified(&o, rules, n);
        eager.encode_all_rays();
        let found = eager.solve(n..=n, None, None).unwrap();
        prop_assert!(found.complete);
        let got: BTreeSet<Molecule> = found.molecules.iter().cloned().collect();
        prop_assert_eq!(&got, &expected);

        // Every returned molecule reproduces every observed ray.
        for s in &got {
            prop_assert!(o.matches(&Spectrum::of(s, rules)));
        }
    }

    #[test]
    fn a_changed_ray_is_explained(
        m in molecule(),
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
