//! Properties the project requires of the ray engine, the symmetries, the
//! molecule numbering and the spectrum strings, as `docs/RULES.md` states them.

use std::collections::HashMap;

use bbx::rules::enumeration::{self, binomial, canonical, rank, unrank};
use bbx::{Analysis, Config, Molecule, Outcome, Rules, Spectrum, Tracer, Transform};
use proptest::prelude::*;

use crate::common::{molecules, proptest_config as config, sparse};

const RULES: [Rules; 2] = [Rules::Standard, Rules::EdgeMiss];

// ---------------------------------------------------------------------------
// Reciprocity
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(8000))]

    /// If the ray from k comes out at j, the ray from j comes out at k, with the
    /// same length and turns. Each end is traced on its own.
    #[test]
    fn exits_are_reciprocal(m in molecules(14, 12)) {
        let p = m.width();
        for rules in RULES {
            let mut t = Tracer::new(p, rules);
            t.load(&m);
            for k in 1..=4 * p {
                let there = t.trace(k);
                if let Outcome::Exit(j) = there.outcome {
                    prop_assert!(
                        (1..=4 * p).contains(&j) && j != k,
                        "{} {}: ray {} exits at {}", m, rules, k, j
                    );
                    let back = t.trace(j);
                    prop_assert_eq!(
                        back.outcome,
                        Outcome::Exit(k),
                        "{} {}: {} exits at {} but {} gives {:?}", m, rules, k, j, j, back.outcome
                    );
                    prop_assert_eq!(
                        (back.length, back.turns),
                        (there.length, there.turns),
                        "{} {}: length/turns of {} -> {} and back", m, rules, k, j
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Symmetries
// ---------------------------------------------------------------------------

/// RULES.md, Symmetries: new(r, c) = m(source(r, c)) for the transform named
/// `name`. Rows and columns 0 and p + 1 are the border (RULES.md,
/// Coordinates and the border), and the formulas apply to them too.
fn spec_source(name: &str, p: usize, r: usize, c: usize) -> (usize, usize) {
    let q = p + 1;
    match name {
        "id" => (r, c),
        "rot90" => (c, q - r),
        "rot180" => (q - r, q - c),
        "rot270" => (q - c, r),
        "symm-h" => (r, q - c),
        "symm-v" => (q - r, c),
        "diag-1" => (c, r),
        "diag-2" => (q - c, q - r),
        _ => panic!("unknown transform {name}"),
    }
}

/// The image of a molecule by the RULES.md formula, through its linear form.
fn spec_molecule(name: &str, m: &Molecule) -> Molecule {
    let p = m.width();
    let old: Vec<char> = m.to_string().chars().collect();
    let new: String = (1..=p)
        .flat_map(|r| (1..=p).map(move |c| (r, c)))
        .map(|(r, c)| {
            let (sr, sc) = spec_source(name, p, r, c);
            old[(sr - 1) * p + (sc - 1)]
        })
        .collect();
    new.parse().expect("valid linear form")
}

/// The border cell of position `k` (RULES.md, Coordinates and the border:
/// left (k, 0), bottom (p+1, k−p), right (3p+1−k, p+1), top (0, 4p+1−k)).
fn border_cell(p: usize, k: usize) -> (usize, usize) {
    match (k - 1) / p {
        0 => (k, 0),
        1 => (p + 1, k - p),
        2 => (3 * p + 1 - k, p + 1),
        _ => (0, 4 * p + 1 - k),
    }
}

/// The image of a raw spectrum string, worked out on the board rather than by
/// the string formulas: the new string holds at position k what the old one
/// holds at the position whose border cell is source(border cell of k).
/// Letters are carried unchanged (not renormalised), so the result can be
/// compared character for character with [`Transform::spectrum_string`].
fn image_on_the_board(name: &str, s: &str) -> String {
    let old: Vec<char> = s.chars().collect();
    let p = old.len() / 4;
    (1..=4 * p)
        .map(|k| {
            let (r, c) = border_cell(p, k);
            let source = spec_source(name, p, r, c);
            let j = (1..=4 * p)
                .find(|&j| border_cell(p, j) == source)
                .expect("a symmetry maps the border onto itself");
            old[j - 1]
        })
        .collect()
}

/// The eight transforms by name, in the tie-breaking order of RULES.md
/// (Molecules and their numbers).
const TIE_ORDER: [&str; 8] = [
    "id", "rot180", "rot90", "rot270", "symm-h", "symm-v", "diag-1", "diag-2",
];

fn transform(name: &str) -> Transform {
    name.parse().expect("a transform name from RULES.md")
}

#[test]
fn transforms_are_named_and_ordered_as_in_the_rules() {
    let names: Vec<&str> = Transform::ALL.iter().map(|t| t.name()).collect();
    assert_eq!(names, TIE_ORDER);
    for name in TIE_ORDER {
        assert_eq!(transform(name).to_string(), name);
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// The transforms do what the RULES.md formulas say, and the rules commute
    /// with them: spectrum(g(m)) = g(spectrum(m)), also through the string
    /// formulas, which must agree with the image worked out on the board; the
    /// statistics do not change.
    #[test]
    fn spectra_are_covariant_under_the_eight_symmetries(m in molecules(12, 10)) {
        let p = m.width();
        for rules in RULES {
            let a = Analysis::of(&m, rules);
            let s = &a.spectrum;
            let raw = s.normalized();
            // Up to 12×12 there are at most 24 pairs: always a string form.
            prop_assert!(raw.is_some(), "{} has no spectrum string", m);
            let raw = raw.unwrap();
            for name in TIE_ORDER {
                let t = transform(name);
                let image = t.molecule(&m);
                prop_assert_eq!(&image, &spec_molecule(name, &m), "{}({})", name, m);
                prop_assert_eq!(image.atoms().len(), m.atoms().len());
                let b = Analysis::of(&image, rules);
                prop_assert_eq!(
                    &b.spectrum,
                    &t.spectrum(s),
                    "{} {}: spectrum of the image differs from the image of the spectrum",
                    name,
                    rules
                );
                let via = t.spectrum_string(&raw);
                prop_assert_eq!(&via, &image_on_the_board(name, &raw), "{} of {}", name, raw);
                let parsed = Spectrum::parse(&via, "image");
                prop_assert!(parsed.is_ok(), "{}: {:?}", via, parsed);
                let parsed = parsed.unwrap();
                prop_assert_eq!(parsed.width(), p);
                prop_assert_eq!(
                    parsed.to_string(),
                    b.spectrum.to_string(),
                    "{} {}: string formula on {} ({})",
                    name,
                    rules,
                    raw,
                    m
                );
                prop_assert_eq!(&parsed, &b.spectrum);
                prop_assert_eq!(b.stats, a.stats, "{} {}: stats of {}", name, rules, m);
            }
        }
    }

    /// Each transform has an inverse, the eight are closed under composition,
    /// and canonical numbers agree with the ranks of the eight images.
    #[test]
    fn transforms_form_a_group_and_canonical_numbers_agree(m in sparse(12, 10)) {
        let p = m.width();
        for t in Transform::ALL {
            let u = t.inverse();
            prop_assert!(Transform::ALL.contains(&u));
            prop_assert_eq!(&u.molecule(&t.molecule(&m)), &m, "{} then {}", t, u);
            prop_assert_eq!(&t.molecule(&u.molecule(&m)), &m, "{} then {}", u, t);
            for v in Transform::ALL {
                // v∘t is one of the eight, on molecules as on border positions.
                let composed = v.molecule(&t.molecule(&m));
                let w = Transform::ALL.into_iter().find(|w| {
                    (0..p * p).all(|x| w.cell(p, x) == v.cell(p, t.cell(p, x)))
                        && (1..=4 * p).all(|k| w.position(p, k) == v.position(p, t.position(p, k)))
                });
                prop_assert!(w.is_some(), "{} after {} is not one of the eight (p = {})", v, t, p);
                prop_assert_eq!(&w.unwrap().molecule(&m), &composed);
            }
        }

        // The canonical number is the smallest rank among the eight images,
        // the same for each image, and its transform is the first (in RULES.md
        // order) mapping the canonical molecule onto this one.
        let ranks: Vec<u64> = TIE_ORDER
            .iter()
            .map(|n| rank(&transform(n).molecule(&m)).expect("numbered"))
            .collect();
        let smallest = *ranks.iter().min().unwrap();
        let c = Config { atoms: m.atoms().len(), width: p, height: p };
        let canon = unrank(c, smallest).expect("in range");
        let first = TIE_ORDER
            .iter()
            .map(|n| transform(n))
            .find(|t| t.molecule(&canon) == m)
            .expect("the canonical molecule maps onto m");
        prop_assert_eq!(canonical(&m), Some((smallest, first)), "canonical({})", m);
        for t in Transform::ALL {
            let image = t.molecule(&m);
            let (number, g) = canonical(&image).expect("numbered");
            prop_assert_eq!(number, smallest, "canonical number of {}({})", t, m);
            prop_assert_eq!(&g.molecule(&canon), &image);
        }
    }
}

/// On every board size the eight transforms are eight distinct permutations of
/// the cells (from 2×2 on) and of the border positions, closed under
/// composition, with a two-sided inverse each.
#[test]
fn the_eight_transforms_are_a_group_on_cells_and_positions() {
    for p in 1..=12usize {
        let cells = |t: Transform| (0..p * p).map(|x| t.cell(p, x)).collect::<Vec<_>>();
        let positions = |t: Transform| (1..=4 * p).map(|k| t.position(p, k)).collect::<Vec<_>>();
        for t in Transform::ALL {
            let mut sorted = cells(t);
            sorted.sort_unstable();
            assert_eq!(sorted, (0..p * p).collect::<Vec<_>>(), "{t} on cells");
            let mut sorted = positions(t);
            sorted.sort_unstable();
            assert_eq!(sorted, (1..=4 * p).collect::<Vec<_>>(), "{t} on positions");
            for v in Transform::ALL {
                let vt_cells: Vec<usize> = (0..p * p).map(|x| v.cell(p, t.cell(p, x))).collect();
                let vt_pos: Vec<usize> = (1..=4 * p)
                    .map(|k| v.position(p, t.position(p, k)))
                    .collect();
                assert!(
                    Transform::ALL
                        .iter()
                        .any(|&w| cells(w) == vt_cells && positions(w) == vt_pos),
                    "{v} after {t}, p = {p}"
                );
            }
            let u = t.inverse();
            for x in 0..p * p {
                assert_eq!(u.cell(p, t.cell(p, x)), x);
                assert_eq!(t.cell(p, u.cell(p, x)), x);
            }
            for k in 1..=4 * p {
                assert_eq!(u.position(p, t.position(p, k)), k);
            }
        }
        let distinct: std::collections::HashSet<Vec<usize>> =
            Transform::ALL.iter().map(|&t| positions(t)).collect();
        assert_eq!(distinct.len(), 8, "p = {p}");
        if p >= 2 {
            let distinct: std::collections::HashSet<Vec<usize>> =
                Transform::ALL.iter().map(|&t| cells(t)).collect();
            assert_eq!(distinct.len(), 8, "p = {p}");
        }
    }
}

// ---------------------------------------------------------------------------
// Numbering
// ---------------------------------------------------------------------------

/// C(n, k) in u128, by Pascal's rule.
fn choose(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    let mut row = vec![1u128];
    for _ in 0..n {
        let mut next = vec![1u128; row.len() + 1];
        for i in 1..row.len() {
            next[i] = row[i - 1] + row[i];
        }
        row = next;
    }
    row[k]
}

/// 1 + the number of sorted atom lists lexicographically before `atoms`.
fn naive_rank(cells: usize, atoms: &[usize]) -> u128 {
    let n = atoms.len();
    let mut before = 0u128;
    let mut lowest = 0;
    for (i, &a) in atoms.iter().enumerate() {
        // Lists agreeing on the first i atoms with a smaller i-th atom.
        for x in lowest..a {
            before += choose(cells - 1 - x, n - 1 - i);
        }
        lowest = a + 1;
    }
    before + 1
}

/// The next sorted atom list in lexicographic order.
fn next_atoms(atoms: &[usize], cells: usize) -> Option<Vec<usize>> {
    let mut a = atoms.to_vec();
    let n = a.len();
    for i in (0..n).rev() {
        if a[i] < cells - (n - i) {
            a[i] += 1;
            for j in i + 1..n {
                a[j] = a[j - 1] + 1;
            }
            return Some(a);
        }
    }
    None
}

/// Configurations up to A6_B10 with a molecule number in range (often an end).
fn numbered() -> impl Strategy<Value = (Config, u64)> {
    (1usize..=10)
        .prop_flat_map(|p| (Just(p), 0..=6usize.min(p * p)))
        .prop_flat_map(|(p, n)| {
            let c = Config::new(n, p).expect("valid configuration");
            let count = c.molecule_count().expect("numbered");
            let number = prop_oneof![
                6 => 1..=count,
                1 => Just(1),
                1 => Just(count),
                1 => Just(count.saturating_sub(1).max(1)),
            ];
            (Just(c), number)
        })
}

proptest! {
    #![proptest_config(config(10_000))]

    /// number → unrank → rank gives the number back; the molecule is the one a
    /// direct count of lexicographic predecessors gives; number + 1 is the next
    /// sorted atom list.
    #[test]
    fn unrank_then_rank((c, number) in numbered()) {
        let count = c.molecule_count().unwrap();
        prop_assert_eq!(u128::from(count), choose(c.cells(), c.atoms));
        prop_assert_eq!(binomial(c.cells() as u64, c.atoms as u64), Some(count));
        let m = unrank(c, number).unwrap();
        prop_assert_eq!(m.width(), c.width);
        prop_assert_eq!(m.atoms().len(), c.atoms);
        prop_assert!(m.atoms().windows(2).all(|w| w[0] < w[1]));
        prop_assert_eq!(rank(&m), Some(number), "{} number {}", c, number);
        prop_assert_eq!(naive_rank(c.cells(), m.atoms()), u128::from(number), "{} number {} is {}", c, number, m);
        if number < count {
            let next = unrank(c, number + 1).unwrap();
            prop_assert!(m.atoms() < next.atoms(), "{}: {} is not before {}", c, m, next);
            prop_assert_eq!(Some(next.atoms().to_vec()), next_atoms(m.atoms(), c.cells()));
        } else {
            prop_assert_eq!(next_atoms(m.atoms(), c.cells()), None);
            prop_assert!(unrank(c, number + 1).is_err());
        }
        if number == 1 {
            prop_assert_eq!(m.atoms(), &(0..c.atoms).collect::<Vec<_>>()[..]);
        }
        prop_assert!(unrank(c, 0).is_err());
    }

    /// molecule → rank → unrank gives the molecule back.
    #[test]
    fn rank_then_unrank(m in sparse(10, 6)) {
        let c = m.config();
        let number = rank(&m).expect("numbered");
        prop_assert!(number >= 1 && number <= c.molecule_count().unwrap());
        prop_assert_eq!(u128::from(number), naive_rank(c.cells(), m.atoms()), "{}", m);
        prop_assert_eq!(&unrank(c, number).unwrap(), &m);
    }
}

#[test]
fn molecules_iterate_in_number_order() {
    for cfg in ["A3_B3", "A2_B5", "A6_B3"] {
        let c: Config = cfg.parse().unwrap();
        let all: Vec<Molecule> = enumeration::Molecules::new(c).collect();
        assert_eq!(all.len() as u64, c.molecule_count().unwrap());
        for (i, m) in all.iter().enumerate() {
            assert_eq!(rank(m), Some(i as u64 + 1));
            if i > 0 {
                assert!(all[i - 1].atoms() < m.atoms());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Spectrum strings
// ---------------------------------------------------------------------------

const LABELS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

proptest! {
    #![proptest_config(config(5000))]

    /// A normalised string parses and prints back identically; its letters
    /// appear in label order; permuting the letters gives the same spectrum.
    #[test]
    fn normalised_strings_are_stable_and_letters_are_names(
        m in molecules(14, 12),
        shuffled in Just(LABELS.chars().collect::<Vec<char>>()).prop_shuffle(),
    ) {
        for rules in RULES {
            let s = Spectrum::of(&m, rules);
            let text = s.to_string();
            prop_assert_eq!(Some(text.clone()), s.normalized());
            prop_assert_eq!(text.chars().count(), 4 * m.width());
            // First appearances are a, b, c, …
            let mut seen: Vec<char> = Vec::new();
            for ch in text.chars().filter(|ch| ch.is_ascii_alphabetic()) {
                if !seen.contains(&ch) {
                    seen.push(ch);
                }
            }
            let expected: Vec<char> = LABELS.chars().take(seen.len()).collect();
            prop_assert_eq!(&seen, &expected, "labels of {}", text);
            prop_assert_eq!(seen.len(), s.pairs());

            let parsed = Spectrum::parse(&text, "normalised").unwrap();
            prop_assert_eq!(&parsed, &s);
            prop_assert_eq!(parsed.to_string(), text.clone());

            let rename: HashMap<char, char> = LABELS.chars().zip(shuffled.iter().copied()).collect();
            let permuted: String = text
                .chars()
                .map(|ch| *rename.get(&ch).unwrap_or(&ch))
                .collect();
            let parsed = Spectrum::parse(&permuted, "permuted");
            prop_assert!(parsed.is_ok(), "{}: {:?}", permuted, parsed);
            let parsed = parsed.unwrap();
            prop_assert_eq!(&parsed, &s, "{} vs {}", permuted, text);
            prop_assert_eq!(parsed.to_string(), text);
        }
    }
}
