//! An independent, deliberately naive re-implementation of the ray rules of
//! `docs/RULES.md`,
//! and property tests comparing it with the library's [`Tracer`], [`Analysis`]
//! and [`Stats`].
//!
//! Everything in this file is written from RULES.md alone:
//!
//! * the board is a 2-D grid of booleans built from the molecule's linear form;
//! * a ray is a (row, column, heading) state that starts on its border position,
//!   just outside the box, and applies rules 1–4 literally, one at a time;
//! * a deep reflection (rule 2) really reverses the ray, which then keeps going
//!   under the same rules until it comes back out; the length and turns are
//!   recorded at the moment of reversal, as "Path statistics" asks, and the
//!   tracer checks that the retraced ray does come out where it entered;
//! * border positions are computed from the numbering section, exits by looking
//!   up which border position owns the cell the ray stepped onto.

use std::collections::{BTreeMap, HashMap};

use bbx::{Analysis, Molecule, Outcome, RayTrace, Rules, Stats, Tracer};
use proptest::prelude::*;

use crate::common::{dense, proptest_config as config, sparse};

// ---------------------------------------------------------------------------
// The naive engine
// ---------------------------------------------------------------------------

/// A heading as (row step, column step); rows grow downwards.
type Dir = (isize, isize);

const NORTH: Dir = (-1, 0);
const EAST: Dir = (0, 1);
const SOUTH: Dir = (1, 0);
const WEST: Dir = (0, -1);

/// 90° to the left of `d` (north → west → south → east → north).
fn left_of(d: Dir) -> Dir {
    (-d.1, d.0)
}

/// 90° to the right of `d` (north → east → south → west → north).
fn right_of(d: Dir) -> Dir {
    (d.1, -d.0)
}

/// A box w wide and h high (p×p for a square) as a grid of booleans,
/// `cell[r-1][c-1]` for row r, column c.
#[derive(Debug, Clone)]
pub(crate) struct Board {
    w: usize,
    h: usize,
    cell: Vec<Vec<bool>>,
}

impl Board {
    /// From the linear form: row by row from the top, `O` atom; a square's
    /// p·p characters, or a rectangle's rows separated by `/`.
    pub(crate) fn from_linear(s: &str) -> Board {
        let rows: Vec<Vec<char>> = if s.contains('/') {
            // A single row ends with `/`.
            s.split('/')
                .filter(|r| !r.is_empty())
                .map(|r| r.chars().collect())
                .collect()
        } else {
            let chars: Vec<char> = s.chars().collect();
            let p = (1..=chars.len())
                .find(|p| p * p == chars.len())
                .expect("square");
            chars.chunks(p).map(<[char]>::to_vec).collect()
        };
        let cell: Vec<Vec<bool>> = rows
            .iter()
            .map(|row| row.iter().map(|&ch| ch == 'O').collect())
            .collect();
        Board {
            w: cell[0].len(),
            h: cell.len(),
            cell,
        }
    }

    pub(crate) fn from_molecule(m: &Molecule) -> Board {
        let b = Board::from_linear(&m.to_string());
        assert_eq!((b.w, b.h), (m.width(), m.height()));
        b
    }

    fn linear(&self) -> String {
        let rows: Vec<String> = self
            .cell
            .iter()
            .map(|row| row.iter().map(|&a| if a { 'O' } else { '-' }).collect())
            .collect();
        if self.w == self.h {
            rows.concat()
        } else if self.h == 1 {
            format!("{}/", rows[0])
        } else {
            rows.join("/")
        }
    }

    /// Border positions, 2(w+h).
    pub(crate) fn positions(&self) -> usize {
        2 * (self.w + self.h)
    }

    fn molecule(&self) -> Molecule {
        self.linear().parse().expect("valid linear form")
    }

    fn inside(&self, r: isize, c: isize) -> bool {
        (1..=self.h as isize).contains(&r) && (1..=self.w as isize).contains(&c)
    }

    /// Whether (r, c) holds an atom; nothing outside the box does.
    fn atom(&self, r: isize, c: isize) -> bool {
        self.inside(r, c) && self.cell[(r - 1) as usize][(c - 1) as usize]
    }

    /// The border position's cell just outside the box, and the entry heading.
    pub(crate) fn start(&self, pos: usize) -> (isize, isize, Dir) {
        assert!((1..=self.positions()).contains(&pos));
        let (w, h, q) = (self.w as isize, self.h as isize, pos as isize);
        if q <= h {
            // left side, top to bottom, heading east
            (q, 0, EAST)
        } else if q <= h + w {
            // bottom side, left to right, heading north
            (h + 1, q - h, NORTH)
        } else if q <= 2 * h + w {
            // right side, bottom to top, heading west
            (h - (q - h - w - 1), w + 1, WEST)
        } else {
            // top side, right to left, heading south
            (0, w - (q - 2 * h - w - 1), SOUTH)
        }
    }

    /// The border position owning the outside cell (r, c).
    pub(crate) fn position_of(&self, r: isize, c: isize) -> usize {
        (1..=self.positions())
            .find(|&q| {
                let (sr, sc, _) = self.start(q);
                (sr, sc) == (r, c)
            })
            .unwrap_or_else(|| panic!("({r}, {c}) is not a border position"))
    }
}

/// What the naive engine found for one ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Naive {
    pub(crate) outcome: Outcome,
    /// Cells entered (before reversing, for a deep reflection).
    pub(crate) length: u32,
    /// 90° deflections (before reversing, for a deep reflection).
    pub(crate) turns: u32,
    /// Decided at the entry, before the ray entered any cell.
    at_entry: bool,
}

impl Naive {
    fn trace(self) -> RayTrace {
        RayTrace {
            outcome: self.outcome,
            length: self.length,
            turns: self.turns,
        }
    }
}

/// Traces the ray shot from `pos`, literally.
fn naive_trace(b: &Board, rules: Rules, pos: usize) -> Naive {
    let (mut r, mut c, mut d) = b.start(pos);

    // Entry: rules 1-3 from just outside the box, except that one atom on a
    // diagonal reflects at once (standard) or makes the ray miss (edge-miss).
    {
        let (ar, ac) = (r + d.0, c + d.1);
        let (l, rt) = (left_of(d), right_of(d));
        let on_left = b.atom(ar + l.0, ac + l.1);
        let on_right = b.atom(ar + rt.0, ac + rt.1);
        let at_entry = |outcome| Naive {
            outcome,
            length: 0,
            turns: 0,
            at_entry: true,
        };
        if b.atom(ar, ac) {
            return at_entry(Outcome::Absorbed);
        }
        if on_left && on_right {
            return at_entry(Outcome::Reflected);
        }
        if on_left || on_right {
            return at_entry(match rules {
                Rules::Standard => Outcome::Reflected,
                Rules::EdgeMiss => Outcome::Miss,
            });
        }
        r = ar;
        c = ac;
    }

    let mut length = 1u32;
    let mut turns = 0u32;
    // (length, turns) when the ray reversed (rule 2).
    let mut reversed: Option<(u32, u32)> = None;
    let limit = 16 * (b.w + 2) * (b.h + 2);
    for _ in 0..limit {
        if !b.inside(r, c) {
            let q = b.position_of(r, c);
            return match reversed {
                Some((length, turns)) => {
                    assert_eq!(
                        q,
                        pos,
                        "{}: a reflected ray from {pos} retraced its path but came out at {q}",
                        b.linear()
                    );
                    Naive {
                        outcome: Outcome::Reflected,
                        length,
                        turns,
                        at_entry: false,
                    }
                }
                None => {
                    assert_ne!(
                        q,
                        pos,
                        "{}: ray {pos} came back out at its entry without reversing",
                        b.linear()
                    );
                    Naive {
                        outcome: Outcome::Exit(q),
                        length,
                        turns,
                        at_entry: false,
                    }
                }
            };
        }
        let (ar, ac) = (r + d.0, c + d.1);
        let (l, rt) = (left_of(d), right_of(d));
        let on_left = b.atom(ar + l.0, ac + l.1);
        let on_right = b.atom(ar + rt.0, ac + rt.1);
        if b.atom(ar, ac) {
            // Rule 1.
            assert!(
                reversed.is_none(),
                "{}: ray {pos} was absorbed while retracing its path",
                b.linear()
            );
            return Naive {
                outcome: Outcome::Absorbed,
                length,
                turns,
                at_entry: false,
            };
        } else if on_left && on_right {
            // Rule 2: reverse, and let the ray retrace its path.
            assert!(
                reversed.is_none(),
                "{}: ray {pos} reversed twice",
                b.linear()
            );
            reversed = Some((length, turns));
            d = (-d.0, -d.1);
        } else if on_left {
            // Rule 3: turn away from the atom, stay on the cell.
            d = right_of(d);
            turns += 1;
        } else if on_right {
            d = left_of(d);
            turns += 1;
        } else {
            // Rule 4.
            r = ar;
            c = ac;
            if b.inside(r, c) {
                length += 1;
            }
        }
    }
    panic!("{}: ray {pos} does not terminate", b.linear());
}

pub(crate) fn naive_rays(b: &Board, rules: Rules) -> Vec<Naive> {
    (1..=b.positions())
        .map(|q| naive_trace(b, rules, q))
        .collect()
}

/// The spectrum string: `@`, `&`, `~`, and a letter per exit pair, `a`..`z` then
/// `A`..`Z` in order of first appearance; `None` past 52 pairs.
pub(crate) fn naive_spectrum(rays: &[Naive]) -> Option<String> {
    let labels: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
    let mut label_of: HashMap<usize, char> = HashMap::new();
    let mut s = String::new();
    for (i, r) in rays.iter().enumerate() {
        let pos = i + 1;
        s.push(match r.outcome {
            Outcome::Absorbed => '@',
            Outcome::Reflected => '&',
            Outcome::Miss => '~',
            Outcome::Exit(q) => {
                if let Some(&ch) = label_of.get(&q) {
                    ch
                } else {
                    let ch = *labels.get(label_of.len())?;
                    label_of.insert(pos, ch);
                    ch
                }
            }
        });
    }
    Some(s)
}

/// The 17 statistics, per RULES.md "Path statistics": absorbed and reflected
/// rays per position, exit pairs once each.
fn naive_stats(rays: &[Naive]) -> Stats {
    let mut s = Stats::default();
    let absorbed: Vec<&Naive> = rays
        .iter()
        .filter(|r| r.outcome == Outcome::Absorbed)
        .collect();
    let reflected: Vec<&Naive> = rays
        .iter()
        .filter(|r| r.outcome == Outcome::Reflected)
        .collect();
    let out: Vec<&Naive> = rays
        .iter()
        .enumerate()
        .filter(|(i, r)| matches!(r.outcome, Outcome::Exit(q) if q > i + 1))
        .map(|(_, r)| r)
        .collect();
    let max = |v: &[&Naive], f: fn(&Naive) -> u32| v.iter().map(|r| f(r)).max().unwrap_or(0);
    let tot = |v: &[&Naive], f: fn(&Naive) -> u32| v.iter().map(|r| f(r)).sum::<u32>();
    let len = |r: &Naive| r.length;
    let trn = |r: &Naive| r.turns;

    s.absorbed_number = absorbed.len() as u32;
    s.absorbed_max_length = max(&absorbed, len);
    s.absorbed_max_turns = max(&absorbed, trn);
    s.absorbed_tot_length = tot(&absorbed, len);
    s.absorbed_tot_turns = tot(&absorbed, trn);

    s.reflected_number = reflected.len() as u32;
    s.reflected_edge = reflected.iter().filter(|r| r.at_entry).count() as u32;
    s.reflected_deep = reflected.iter().filter(|r| !r.at_entry).count() as u32;
    s.reflected_max_length = max(&reflected, len);
    s.reflected_max_turns = max(&reflected, trn);
    s.reflected_tot_length = tot(&reflected, len);
    s.reflected_tot_turns = tot(&reflected, trn);

    s.out_number = out.len() as u32;
    s.out_max_length = max(&out, len);
    s.out_max_turns = max(&out, trn);
    s.out_tot_length = tot(&out, len);
    s.out_tot_turns = tot(&out, trn);
    s
}

// ---------------------------------------------------------------------------
// Comparison with the library
// ---------------------------------------------------------------------------

/// Compares every ray, the spectrum and the statistics of `m` under both rule
/// sets with the naive engine.
fn compare(m: &Molecule) -> Result<(), TestCaseError> {
    let b = Board::from_molecule(m);
    let n = b.positions();
    for rules in [Rules::Standard, Rules::EdgeMiss] {
        let naive = naive_rays(&b, rules);
        let mut t = Tracer::new(m.shape(), rules);
        t.load(m);
        for pos in 1..=n {
            prop_assert_eq!(
                t.trace(pos),
                naive[pos - 1].trace(),
                "Tracer::trace: molecule {} ({}×{}), rules {}, position {}",
                m,
                b.w,
                b.h,
                rules,
                pos
            );
        }
        let mut all = Vec::new();
        t.trace_all(&mut all);
        prop_assert_eq!(all.len(), n);
        for pos in 1..=n {
            prop_assert_eq!(
                all[pos - 1],
                naive[pos - 1].trace(),
                "Tracer::trace_all: molecule {}, rules {}, position {}",
                m,
                rules,
                pos
            );
        }
        let a = Analysis::of(m, rules);
        let expected: Vec<RayTrace> = naive.iter().map(|r| r.trace()).collect();
        prop_assert_eq!(&a.rays, &expected, "Analysis rays: {} {}", m, rules);
        let outcomes: Vec<Outcome> = naive.iter().map(|r| r.outcome).collect();
        prop_assert_eq!(a.spectrum.outcomes(), &outcomes[..]);
        prop_assert_eq!((a.spectrum.width(), a.spectrum.shape().height), (b.w, b.h));
        prop_assert_eq!(
            a.spectrum.normalized(),
            naive_spectrum(&naive),
            "spectrum string: {} {}",
            m,
            rules
        );
        prop_assert_eq!(
            a.stats,
            naive_stats(&naive),
            "stats: molecule {}, rules {}",
            m,
            rules
        );
        prop_assert_eq!(Stats::from_rays(&expected), naive_stats(&naive));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(10_000))]

    #[test]
    fn tracer_matches_naive_on_sparse_boards(m in sparse(14, 12)) {
        compare(&m)?;
    }
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn tracer_matches_naive_on_dense_boards(m in dense(14)) {
        compare(&m)?;
    }

    /// Rectangles, 1 to 12 cells a side, sparse or dense.
    #[test]
    fn tracer_matches_naive_on_rectangles(
        m in (1usize..=12, 1usize..=12, 0.05f64..0.7).prop_flat_map(|(w, h, density)| {
            proptest::collection::vec(proptest::bool::weighted(density), w * h).prop_map(move |v| {
                let shape = bbx::rules::config::Shape::new(w, h).unwrap();
                Molecule::new(shape, v.iter().enumerate().filter(|(_, a)| **a).map(|(i, _)| i))
                    .expect("valid atoms")
            })
        })
    ) {
        compare(&m)?;
    }

    /// A tracer reused for a second molecule forgets the first one's atoms.
    #[test]
    fn reloading_a_tracer_forgets_the_previous_molecule(
        (m1, m2) in (1usize..=10).prop_flat_map(|p| {
            let cells: Vec<usize> = (0..p * p).collect();
            (
                proptest::sample::subsequence(cells.clone(), 0..=(p * p).min(12)),
                proptest::sample::subsequence(cells, 0..=(p * p).min(12)),
            )
                .prop_map(move |(a, b)| (Molecule::new(p, a).unwrap(), Molecule::new(p, b).unwrap()))
        })
    ) {
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            let mut t = Tracer::new(m1.width(), rules);
            t.load(&m1);
            t.load(&m2);
            let naive = naive_rays(&Board::from_molecule(&m2), rules);
            for (i, n) in naive.iter().enumerate() {
                prop_assert_eq!(t.trace(i + 1), n.trace(), "{} then {}, {}, position {}", m1, m2, rules, i + 1);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Exhaustive comparisons and J. Forget's facts
// ---------------------------------------------------------------------------

/// Every subset of cells on every board up to 4×4 (2^16 boards at 4×4).
#[test]
fn tracer_matches_naive_on_every_board_up_to_4x4() {
    for p in 1..=4usize {
        for bits in 0u32..(1 << (p * p)) {
            let linear: String = (0..p * p)
                .map(|i| if bits >> i & 1 == 1 { 'O' } else { '-' })
                .collect();
            let m: Molecule = linear.parse().unwrap();
            if let Err(e) = compare(&m) {
                panic!("{e}");
            }
        }
    }
}

/// Next combination of `a` (sorted, below `cells`) in lexicographic order.
fn next_combination(a: &mut [usize], cells: usize) -> bool {
    let n = a.len();
    for i in (0..n).rev() {
        if a[i] < cells - (n - i) {
            a[i] += 1;
            for j in i + 1..n {
                a[j] = a[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// Every molecule of `n` atoms in a p×p box, as a board.
fn all_boards(n: usize, p: usize) -> Vec<Board> {
    let mut out = Vec::new();
    let mut a: Vec<usize> = (0..n).collect();
    loop {
        let mut cell = vec![vec![false; p]; p];
        for &x in &a {
            cell[x / p][x % p] = true;
        }
        out.push(Board { w: p, h: p, cell });
        if !next_combination(&mut a, p * p) {
            return out;
        }
    }
}

#[test]
fn naive_engine_reproduces_the_a2_b4_record() {
    let b = Board::from_linear("O-O-------------");
    let rays = naive_rays(&b, Rules::Standard);
    assert_eq!(naive_spectrum(&rays).unwrap(), "@&ab@&@cbac@&@&@");
    let s = naive_stats(&rays);
    assert_eq!(
        (
            s.absorbed_number,
            s.absorbed_max_length,
            s.absorbed_tot_length
        ),
        (6, 3, 7)
    );
    assert_eq!(
        (
            s.reflected_number,
            s.reflected_edge,
            s.reflected_deep,
            s.reflected_max_length
        ),
        (4, 3, 1, 3)
    );
    assert_eq!(
        (
            s.out_number,
            s.out_max_length,
            s.out_max_turns,
            s.out_tot_length,
            s.out_tot_turns
        ),
        (3, 4, 1, 11, 1)
    );
    assert_eq!(Analysis::of(&b.molecule(), Rules::Standard).stats, s);
}

/// Renormalises the letters of a spectrum string by first appearance.
fn renormalise(s: &str) -> String {
    let labels: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
    let mut map: HashMap<char, char> = HashMap::new();
    s.chars()
        .map(|ch| {
            if ch.is_ascii_alphabetic() {
                let next = labels[map.len()];
                *map.entry(ch).or_insert(next)
            } else {
                ch
            }
        })
        .collect()
}

/// The eight images of a spectrum string under the string formulas of
/// RULES.md, Symmetries.
fn string_images(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let p = c.len() / 4;
    let f: Vec<char> = c.iter().rev().copied().collect();
    let rot = |v: &[char], k: usize| -> String { v[k..].iter().chain(&v[..k]).collect() };
    vec![
        c.iter().collect(),
        rot(&c, 3 * p),
        rot(&c, 2 * p),
        rot(&c, p),
        f.iter().collect(),
        rot(&f, p),
        rot(&f, 3 * p),
        rot(&f, 2 * p),
    ]
    .into_iter()
    .map(|x| renormalise(&x))
    .collect()
}

#[test]
fn naive_engine_reproduces_the_a4_b6_facts() {
    let a = Board::from_linear("O-O-----------O---------O-----------");
    let b = Board::from_linear("--O---------O-O---------O-----------");
    let expected = "@&@&@&@a@bcda@b@&@dc&@&@";
    assert_eq!(
        naive_spectrum(&naive_rays(&a, Rules::Standard)).unwrap(),
        expected
    );
    assert_eq!(
        naive_spectrum(&naive_rays(&b, Rules::Standard)).unwrap(),
        expected
    );
    // The 180° image, traced on the rotated board.
    let mut rot = a.clone();
    for r in 0..6 {
        for c in 0..6 {
            rot.cell[r][c] = a.cell[5 - r][5 - c];
        }
    }
    assert_eq!(
        naive_spectrum(&naive_rays(&rot, Rules::Standard)).unwrap(),
        "a@b@&@cd&@&@@&@&@&@a@bdc"
    );
    assert_eq!(string_images(expected)[2], "a@b@&@cd&@&@@&@&@&@a@bdc");
}

/// Every molecule of A4_B6, traced by the naive engine: J. Forget's ambiguity
/// counts, and the library agrees on every molecule.
#[test]
fn a4_b6_ambiguity_and_exhaustive_agreement() {
    let boards = all_boards(4, 6);
    assert_eq!(boards.len(), 58905);
    let mut by_spectrum: HashMap<String, u32> = HashMap::new();
    let mut t = Tracer::new(6, Rules::Standard);
    let mut rays = Vec::new();
    for b in &boards {
        let naive = naive_rays(b, Rules::Standard);
        t.load(&b.molecule());
        t.trace_all(&mut rays);
        for (i, n) in naive.iter().enumerate() {
            assert_eq!(rays[i], n.trace(), "{} position {}", b.linear(), i + 1);
        }
        *by_spectrum
            .entry(naive_spectrum(&naive).unwrap())
            .or_default() += 1;
    }
    let mut sizes: BTreeMap<u32, u32> = BTreeMap::new();
    for &k in by_spectrum.values().filter(|&&k| k >= 2) {
        *sizes.entry(k).or_default() += 1;
    }
    assert_eq!(
        sizes,
        BTreeMap::from([(2, 696), (3, 36), (4, 24), (5, 8)]),
        "spectra shared by k molecules"
    );
    // Up to the square's symmetries: one representative per orbit.
    let mut orbits: BTreeMap<u32, std::collections::BTreeSet<String>> = BTreeMap::new();
    for (s, &k) in by_spectrum.iter().filter(|&(_, &k)| k >= 2) {
        let rep = string_images(s).into_iter().min().unwrap();
        assert_eq!(by_spectrum.get(&rep), Some(&k), "images share the count");
        orbits.entry(k).or_default().insert(rep);
    }
    let orbit_sizes: Vec<(u32, usize)> = orbits.iter().map(|(&k, v)| (k, v.len())).collect();
    assert_eq!(orbit_sizes, [(2, 89), (3, 6), (4, 4), (5, 1)]);
}

/// A. Janns's sample puzzle (its own clockwise numbering, edge-miss rules) has
/// exactly one 5-atom answer, for the naive engine and for the library.
#[test]
fn seed_001_sample_has_one_answer_under_edge_miss() {
    let p = 5usize;
    // A. Janns's position (clockwise from the top-left corner) → bbx's numbering
    // (RULES.md, Puzzle formats).
    let ours = |q: usize| -> usize {
        if q <= p {
            4 * p + 1 - q // top, column q
        } else if q <= 2 * p {
            3 * p + 1 - (q - p) // right side, row q - p
        } else if q <= 3 * p {
            p + (3 * p + 1 - q) // bottom, column 3p + 1 - q
        } else {
            4 * p + 1 - q // left side, row 4p + 1 - q
        }
    };
    let lines: &[&[usize]] = &[
        &[1],
        &[2, 6],
        &[3],
        &[4],
        &[5, 7],
        &[8],
        &[9],
        &[10, 11],
        &[12],
        &[13, 14],
        &[15],
        &[17],
        &[18, 18],
        &[19],
    ];
    let mut expected = vec![Outcome::Miss; 4 * p];
    for l in lines {
        match **l {
            [a] => expected[ours(a) - 1] = Outcome::Absorbed,
            [a, b] if a == b => expected[ours(a) - 1] = Outcome::Reflected,
            [a, b] => {
                expected[ours(a) - 1] = Outcome::Exit(ours(b));
                expected[ours(b) - 1] = Outcome::Exit(ours(a));
            }
            _ => unreachable!(),
        }
    }
    let mut naive_answers = Vec::new();
    let mut tracer_answers = Vec::new();
    let mut t = Tracer::new(p, Rules::EdgeMiss);
    let mut rays = Vec::new();
    for b in all_boards(5, p) {
        let naive: Vec<Outcome> = naive_rays(&b, Rules::EdgeMiss)
            .iter()
            .map(|r| r.outcome)
            .collect();
        if naive == expected {
            naive_answers.push(b.linear());
        }
        t.load(&b.molecule());
        t.trace_all(&mut rays);
        if rays.iter().map(|r| r.outcome).eq(expected.iter().copied()) {
            tracer_answers.push(b.linear());
        }
    }
    assert_eq!(naive_answers.len(), 1, "{naive_answers:?}");
    assert_eq!(tracer_answers, naive_answers);
}

/// Boards wider than 26 with no atoms: more than 52 pairs, no string form.
#[test]
fn spectrum_strings_of_empty_boards() {
    for p in 1..=30usize {
        let b = Board {
            w: p,
            h: p,
            cell: vec![vec![false; p]; p],
        };
        let m = Molecule::new(p, []).unwrap();
        for rules in [Rules::Standard, Rules::EdgeMiss] {
            let naive = naive_rays(&b, rules);
            assert!(naive.iter().all(|r| r.length == p as u32 && r.turns == 0));
            let a = Analysis::of(&m, rules);
            assert_eq!(a.spectrum.normalized(), naive_spectrum(&naive), "p = {p}");
            assert_eq!(a.spectrum.normalized().is_some(), p <= 26);
            assert_eq!(a.stats, naive_stats(&naive));
        }
    }
}

/// RULES.md, Facts to test against: "with 4 atoms in 8×8 a ray can turn 6
/// times and cross 23 cells", refined to 26 cells. Runs the naive engine and
/// the library over all 635376 molecules, checks that they agree on every
/// ray, and finds the extremes per kind of ray. About 4 s in release builds
/// (how the tests are meant to run); ignored in debug builds, where it takes
/// minutes.
#[test]
#[cfg_attr(debug_assertions, ignore = "enumerates all of A4_B8: run in release")]
fn a4_b8_longest_and_most_deflected_rays() {
    // kind → (max length, example, max turns, example)
    let mut best: BTreeMap<&str, (u32, String, u32, String)> = BTreeMap::new();
    let mut t = Tracer::new(8, Rules::Standard);
    let mut rays = Vec::new();
    for b in all_boards(4, 8) {
        let naive = naive_rays(&b, Rules::Standard);
        t.load(&b.molecule());
        t.trace_all(&mut rays);
        for (i, r) in naive.iter().enumerate() {
            assert_eq!(rays[i], r.trace(), "{} position {}", b.linear(), i + 1);
            let kind = match r.outcome {
                Outcome::Absorbed => "absorbed",
                Outcome::Reflected => "reflected",
                Outcome::Exit(_) => "out",
                Outcome::Miss => "miss",
            };
            let e = best.entry(kind).or_default();
            let here = || format!("{} position {}", b.linear(), i + 1);
            if r.length > e.0 {
                e.0 = r.length;
                e.1 = here();
            }
            if r.turns > e.2 {
                e.2 = r.turns;
                e.3 = here();
            }
        }
    }
    let extremes: Vec<(&str, u32, u32)> = best
        .iter()
        .map(|(kind, (len, _, turns, _))| (*kind, *len, *turns))
        .collect();
    // The most turns and the longest path over all rays: 6 and 26 (the
    // published drawing shows 6 and 23).
    let overall_turns = extremes.iter().map(|e| e.2).max().unwrap();
    let overall_len = extremes.iter().map(|e| e.1).max().unwrap();
    assert_eq!((overall_turns, overall_len), (6, 26), "{best:?}");
    // Per kind of ray (length, turns): found by this enumeration, and the
    // same as the catalogue's ray records in docs/findings.md, which
    // come from the library's tracer; no ray misses under the standard rules.
    assert_eq!(
        extremes,
        [("absorbed", 26, 5), ("out", 26, 6), ("reflected", 17, 3)],
        "{best:?}"
    );
    // Where they are reached first, in the enumeration's order.
    assert_eq!(
        best["out"].1,
        "O----O--------------------------------------------------O------O position 13"
    );
    assert_eq!(
        best["out"].3,
        "O---O---------------------O---O--------------------------------- position 3"
    );
}
