//! Spectra: the results of all 2(w+h) rays (4p on a square), and the
//! per-molecule ray statistics.
//!
//! A spectrum's string form lists the border positions in order: `@` for a hit,
//! `&` for a reflection, `~` for a miss (edge-miss rules only) and a letter for
//! each ray that comes out, the same letter at both ends of a path. The
//! *normalised* string names the exit pairs `a`, `b`, `c`… in order of first
//! appearance, then `A`…`Z`; a spectrum with more than 52 pairs has no string
//! form.
//!
//! ```
//! use bbx::{Molecule, Rules, Spectrum};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let s = Spectrum::of(&m, Rules::Standard);
//! assert_eq!(s.to_string(), "@&ab@&@cbac@&@&@");
//! assert_eq!(Spectrum::parse("@&ba@&@cabc@&@&@", "example").unwrap(), s);
//! ```

use std::fmt;

use crate::error::ParseError;
use crate::rules::board::Molecule;
use crate::rules::config::Shape;
use crate::rules::notation::{MISS, Notation, pair_label};
use crate::rules::ray::{Outcome, RayTrace, Rules, Tracer};

/// The results of every ray of one board, by border position.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spectrum {
    shape: Shape,
    results: Vec<Outcome>,
}

impl Spectrum {
    /// The spectrum of `molecule` under `rules`.
    pub fn of(molecule: &Molecule, rules: Rules) -> Spectrum {
        Analysis::of(molecule, rules).spectrum
    }

    /// A spectrum from one outcome per border position (`results[i]` is position
    /// i+1) of a box of `shape` (a width alone is a square). Returns `None`
    /// unless there are 2(w+h) results, every exit lies in range and exits
    /// come in mutual pairs.
    pub fn from_outcomes(shape: impl Into<Shape>, results: Vec<Outcome>) -> Option<Spectrum> {
        let shape = shape.into();
        if shape.width == 0 || shape.height == 0 || results.len() != shape.positions() {
            return None;
        }
        for (i, r) in results.iter().enumerate() {
            if let Outcome::Exit(k) = *r
                && (k == 0
                    || k > results.len()
                    || k == i + 1
                    || results[k - 1] != Outcome::Exit(i + 1))
            {
                return None;
            }
        }
        Some(Spectrum { shape, results })
    }

    pub(crate) fn from_outcomes_unchecked(shape: Shape, results: Vec<Outcome>) -> Spectrum {
        Spectrum { shape, results }
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.shape.width
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The outcome at border position `pos` (1-based).
    pub fn get(&self, pos: usize) -> Outcome {
        self.results[pos - 1]
    }

    /// All outcomes, position 1 first.
    pub fn outcomes(&self) -> &[Outcome] {
        &self.results
    }

    /// Number of exit pairs.
    pub fn pairs(&self) -> usize {
        self.results
            .iter()
            .enumerate()
            .filter(|&(i, r)| matches!(*r, Outcome::Exit(k) if k > i + 1))
            .count()
    }

    /// One mark per position: `@`, `&`, `~` or the normalised letter of the
    /// pair; `None` when there are more than 52 pairs.
    pub fn marks(&self) -> Option<Vec<char>> {
        marks_of(self.results.iter().map(|&r| Some(r)))
    }

    /// The marks in `notation` (`~` for a miss); `None` when the notation
    /// cannot write them (more than 52 pairs, or more than 9 in Emacs
    /// notation).
    pub fn marks_in(&self, notation: Notation) -> Option<Vec<char>> {
        if self.pairs() > notation.max_pairs() {
            return None;
        }
        let marks = self.marks()?;
        Some(
            marks
                .into_iter()
                .map(|m| notation.from_letters(m))
                .collect(),
        )
    }

    /// The normalised string, or `None` when there are more than 52 pairs.
    pub fn normalized(&self) -> Option<String> {
        self.marks().map(|m| m.into_iter().collect())
    }

    /// Parses the spectrum string of a square box. Its length must be 4p;
    /// letters may be any labels (they need not be normalised) but each must
    /// appear exactly twice.
    pub fn parse(text: &str, origin: &str) -> Result<Spectrum, ParseError> {
        Spectrum::parse_shaped(text, None, origin)
    }

    /// Parses the spectrum string of a box of `shape`: 2(w+h) characters.
    pub fn parse_in(text: &str, shape: Shape, origin: &str) -> Result<Spectrum, ParseError> {
        Spectrum::parse_shaped(text, Some(shape), origin)
    }

    fn parse_shaped(
        text: &str,
        shape: Option<Shape>,
        origin: &str,
    ) -> Result<Spectrum, ParseError> {
        let chars: Vec<char> = text.trim().chars().collect();
        let n = chars.len();
        let shape = match shape {
            None if n == 0 || !n.is_multiple_of(4) => {
                return Err(ParseError::new(
                    origin,
                    1,
                    0,
                    format!(
                        "a spectrum has 4p characters (one per border position), but this one has {n}"
                    ),
                ));
            }
            None => Shape::square(n / 4),
            Some(shape) if n != shape.positions() => {
                return Err(ParseError::new(
                    origin,
                    1,
                    0,
                    format!(
                        "a spectrum of a {shape} box has 2(w+h) = {} characters (one per border position), but this one has {n}",
                        shape.positions()
                    ),
                ));
            }
            Some(shape) => shape,
        };
        let mut first: [Option<usize>; 128] = [None; 128];
        let mut results = vec![Outcome::Miss; n];
        for (i, &c) in chars.iter().enumerate() {
            results[i] = match c {
                '@' => Outcome::Absorbed,
                '&' => Outcome::Reflected,
                '~' => Outcome::Miss,
                c if c.is_ascii_alphabetic() => match first[c as usize] {
                    None => {
                        first[c as usize] = Some(i);
                        Outcome::Miss // fixed below when the partner appears
                    }
                    Some(j) => {
                        if let Outcome::Exit(_) = results[j] {
                            return Err(ParseError::new(
                                origin,
                                1,
                                i + 1,
                                format!(
                                    "letter '{c}' appears a third time (each exit pair has exactly two ends)"
                                ),
                            ));
                        }
                        results[j] = Outcome::Exit(i + 1);
                        Outcome::Exit(j + 1)
                    }
                },
                _ => {
                    return Err(ParseError::new(
                        origin,
                        1,
                        i + 1,
                        format!(
                            "unexpected character {c:?} in a spectrum (expected '@', '&', '~' or a letter)"
                        ),
                    ));
                }
            };
        }
        for (c, f) in first.iter().enumerate() {
            if let Some(j) = *f
                && !matches!(results[j], Outcome::Exit(_))
            {
                return Err(ParseError::new(
                    origin,
                    1,
                    j + 1,
                    format!(
                        "letter '{}' appears only once (each exit pair has exactly two ends)",
                        c as u8 as char
                    ),
                ));
            }
        }
        Ok(Spectrum { shape, results })
    }
}

impl fmt::Display for Spectrum {
    /// The normalised string; past 52 pairs, the list of results separated by
    /// spaces, each exit written as its partner's position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_results(f, self.results.iter().map(|&r| Some(r)))
    }
}

/// One mark per result (`?` for a ray not shot), exit pairs named `a`, `b`…
/// in order of first appearance; `None` past 52 pairs.
fn marks_of(results: impl Iterator<Item = Option<Outcome>>) -> Option<Vec<char>> {
    let mut label: Vec<char> = Vec::new();
    let mut next = 0;
    for (i, r) in results.enumerate() {
        label.push(match r {
            Some(Outcome::Exit(k)) if k < i + 1 => label[k - 1],
            Some(Outcome::Exit(_)) => {
                next += 1;
                pair_label(next - 1)?
            }
            r => mark(r),
        });
    }
    Some(label)
}

/// The mark of a result other than an exit: `@`, `&`, `~`, or `?` for a
/// ray not shot.
fn mark(result: Option<Outcome>) -> char {
    match result {
        None => '?',
        Some(Outcome::Absorbed) => Notation::Letters.hit(),
        Some(Outcome::Reflected) => Notation::Letters.reflection(),
        Some(Outcome::Miss) => MISS,
        Some(Outcome::Exit(_)) => unreachable!("an exit is marked by its pair"),
    }
}

/// The marks of `results`; past 52 pairs, the results separated by spaces,
/// each exit written as its partner's position.
fn write_results(
    f: &mut fmt::Formatter<'_>,
    results: impl Iterator<Item = Option<Outcome>> + Clone,
) -> fmt::Result {
    if let Some(marks) = marks_of(results.clone()) {
        return f.write_str(&marks.into_iter().collect::<String>());
    }
    for (i, r) in results.enumerate() {
        f.write_str(if i > 0 { " " } else { "" })?;
        match r {
            Some(Outcome::Exit(k)) => write!(f, "{k}")?,
            r => write!(f, "{}", mark(r))?,
        }
    }
    Ok(())
}

/// An observed game: the result of each ray that was shot (`None` for a ray
/// not shot). A full observation is a spectrum.
///
/// Its string form is the spectrum's with `?` for rays not shot; exit pairs are
/// normalised over the rays that were shot.
///
/// ```
/// use bbx::{Observation, Outcome};
/// let o = Observation::parse("@&ab@&@?ba?@&@&@", "example").unwrap();
/// assert_eq!(o.get(8), None);
/// assert_eq!(o.get(3), Some(Outcome::Exit(10)));
/// assert_eq!(o.shot_count(), 14); // border marks
/// assert_eq!(o.ray_count(), 12); // rays: the pairs a and b once each
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Observation {
    shape: Shape,
    results: Vec<Option<Outcome>>,
}

impl Observation {
    /// Nothing shot yet on a box of `shape` (a width alone is a square).
    pub fn empty(shape: impl Into<Shape>) -> Observation {
        let shape = shape.into();
        Observation {
            shape,
            results: vec![None; shape.positions()],
        }
    }

    /// Every ray of a spectrum.
    pub fn full(s: &Spectrum) -> Observation {
        Observation {
            shape: s.shape,
            results: s.results.iter().map(|&r| Some(r)).collect(),
        }
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.shape.width
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The result at border position `pos` (1-based), if that ray was shot.
    pub fn get(&self, pos: usize) -> Option<Outcome> {
        self.results[pos - 1]
    }

    /// All results, position 1 first.
    pub fn results(&self) -> &[Option<Outcome>] {
        &self.results
    }

    /// Records the result of the ray shot from `pos`; an exit also records its
    /// partner. Returns the previous result at `pos`.
    ///
    /// # Panics
    /// When `pos` or an exit position is out of range.
    pub fn record(&mut self, pos: usize, outcome: Outcome) -> Option<Outcome> {
        let old = self.results[pos - 1].replace(outcome);
        if let Outcome::Exit(k) = outcome {
            self.results[k - 1] = Some(Outcome::Exit(pos));
        }
        old
    }

    /// Forgets the ray shot from `pos` (and the other end of its exit pair).
    pub fn forget(&mut self, pos: usize) {
        if let Some(Outcome::Exit(k)) = self.results[pos - 1].take() {
            self.results[k - 1] = None;
        }
    }

    /// Number of positions whose result is known.
    pub fn shot_count(&self) -> usize {
        self.results.iter().filter(|r| r.is_some()).count()
    }

    /// How many rays were shot: [`Observation::rays`]'s count, an exit
    /// pair once (where [`Observation::shot_count`] counts both of its
    /// border marks).
    pub fn ray_count(&self) -> usize {
        (self.results.iter().enumerate())
            .filter(|&(i, r)| match *r {
                Some(Outcome::Exit(k)) => k > i,
                Some(_) => true,
                None => false,
            })
            .count()
    }

    /// Whether every ray's result is known.
    pub fn is_complete(&self) -> bool {
        self.results.iter().all(|r| r.is_some())
    }

    /// The observed rays, one per exit pair (the lower position), in position
    /// order.
    pub fn rays(&self) -> Vec<(usize, Outcome)> {
        self.results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match *r {
                Some(Outcome::Exit(k)) if k < i + 1 => None,
                Some(o) => Some((i + 1, o)),
                None => None,
            })
            .collect()
    }

    /// The first position where `s` disagrees with what was observed.
    pub fn first_difference(&self, s: &Spectrum) -> Option<usize> {
        (1..=self.results.len()).find(|&p| matches!(self.results[p - 1], Some(o) if o != s.get(p)))
    }

    /// Whether spectrum `s` agrees with every observed ray.
    pub fn matches(&self, s: &Spectrum) -> bool {
        s.shape == self.shape && self.first_difference(s).is_none()
    }

    /// The marks: `@`, `&`, `~`, letters for exit pairs (normalised), `?` for rays
    /// not shot; `None` past 52 pairs.
    pub fn marks(&self) -> Option<Vec<char>> {
        marks_of(self.results.iter().copied())
    }

    /// Parses the string form of a square box (a spectrum with `?` for rays
    /// not shot).
    pub fn parse(text: &str, origin: &str) -> Result<Observation, ParseError> {
        Observation::parse_shaped(text, None, origin)
    }

    /// Parses the string form of a box of `shape`.
    pub fn parse_in(text: &str, shape: Shape, origin: &str) -> Result<Observation, ParseError> {
        Observation::parse_shaped(text, Some(shape), origin)
    }

    fn parse_shaped(
        text: &str,
        shape: Option<Shape>,
        origin: &str,
    ) -> Result<Observation, ParseError> {
        let t = text.trim();
        let unknown: Vec<usize> = t
            .chars()
            .enumerate()
            .filter(|&(_, c)| c == '?')
            .map(|(i, _)| i)
            .collect();
        // Parse as a spectrum with '?' read as misses, then blank them.
        let s = Spectrum::parse_shaped(&t.replace('?', "~"), shape, origin)?;
        let mut results: Vec<Option<Outcome>> = s.results.into_iter().map(Some).collect();
        for i in unknown {
            results[i] = None;
        }
        Ok(Observation {
            shape: s.shape,
            results,
        })
    }
}

impl fmt::Display for Observation {
    /// The marks, `?` for rays not shot; past 52 pairs, the list of results
    /// separated by spaces, each exit written as its partner's position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_results(f, self.results.iter().copied())
    }
}

/// The 17 per-molecule ray statistics of J. Forget's catalogue.
///
/// Absorbed and reflected rays are counted per position; exit pairs are counted
/// (and measured) once. Maxima over no ray are 0.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Stats {
    /// Rays absorbed.
    pub absorbed_number: u32,
    /// Longest absorbed path, in cells.
    pub absorbed_max_length: u32,
    /// Most turns on an absorbed path.
    pub absorbed_max_turns: u32,
    /// Cells entered by all absorbed rays.
    pub absorbed_tot_length: u32,
    /// Turns of all absorbed rays.
    pub absorbed_tot_turns: u32,
    /// Rays reflected.
    pub reflected_number: u32,
    /// Rays reflected at the entry (length 0).
    pub reflected_edge: u32,
    /// Rays reflected inside the box.
    pub reflected_deep: u32,
    /// Longest reflected path (cells entered before reversing).
    pub reflected_max_length: u32,
    /// Most turns before reversing.
    pub reflected_max_turns: u32,
    /// Cells entered by all reflected rays before reversing.
    pub reflected_tot_length: u32,
    /// Turns of all reflected rays before reversing.
    pub reflected_tot_turns: u32,
    /// Exit pairs.
    pub out_number: u32,
    /// Longest exit path.
    pub out_max_length: u32,
    /// Most turns on an exit path.
    pub out_max_turns: u32,
    /// Cells entered by all exit paths (each pair once).
    pub out_tot_length: u32,
    /// Turns of all exit paths (each pair once).
    pub out_tot_turns: u32,
}

impl Stats {
    /// The statistics of a full set of traced rays (`rays[i]` is position i+1).
    pub fn from_rays(rays: &[RayTrace]) -> Stats {
        let mut s = Stats::default();
        for (i, r) in rays.iter().enumerate() {
            let (l, t) = (r.length, r.turns);
            match r.outcome {
                Outcome::Absorbed => {
                    s.absorbed_number += 1;
                    s.absorbed_max_length = s.absorbed_max_length.max(l);
                    s.absorbed_max_turns = s.absorbed_max_turns.max(t);
                    s.absorbed_tot_length += l;
                    s.absorbed_tot_turns += t;
                }
                Outcome::Reflected => {
                    s.reflected_number += 1;
                    if l == 0 {
                        s.reflected_edge += 1;
                    } else {
                        s.reflected_deep += 1;
                    }
                    s.reflected_max_length = s.reflected_max_length.max(l);
                    s.reflected_max_turns = s.reflected_max_turns.max(t);
                    s.reflected_tot_length += l;
                    s.reflected_tot_turns += t;
                }
                Outcome::Exit(k) if k > i + 1 => {
                    s.out_number += 1;
                    s.out_max_length = s.out_max_length.max(l);
                    s.out_max_turns = s.out_max_turns.max(t);
                    s.out_tot_length += l;
                    s.out_tot_turns += t;
                }
                Outcome::Exit(_) | Outcome::Miss => {}
            }
        }
        s
    }

    /// The statistics as (J. Forget's column name, value) pairs, in J. Forget's order.
    pub fn named(&self) -> [(&'static str, u32); 17] {
        [
            ("absorbed_number", self.absorbed_number),
            ("absorbed_max_length", self.absorbed_max_length),
            ("absorbed_max_turns", self.absorbed_max_turns),
            ("absorbed_tot_length", self.absorbed_tot_length),
            ("absorbed_tot_turns", self.absorbed_tot_turns),
            ("reflected_number", self.reflected_number),
            ("reflected_edge", self.reflected_edge),
            ("reflected_deep", self.reflected_deep),
            ("reflected_max_length", self.reflected_max_length),
            ("reflected_max_turns", self.reflected_max_turns),
            ("reflected_tot_length", self.reflected_tot_length),
            ("reflected_tot_turns", self.reflected_tot_turns),
            ("out_number", self.out_number),
            ("out_max_length", self.out_max_length),
            ("out_max_turns", self.out_max_turns),
            ("out_tot_length", self.out_tot_length),
            ("out_tot_turns", self.out_tot_turns),
        ]
    }
}

/// Everything the rules say about one molecule: each ray, the spectrum, the
/// statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The traced ray of each position (`rays[i]` is position i+1).
    pub rays: Vec<RayTrace>,
    /// The spectrum.
    pub spectrum: Spectrum,
    /// The 17 statistics.
    pub stats: Stats,
}

impl Analysis {
    /// Traces every ray of `molecule` under `rules`.
    pub fn of(molecule: &Molecule, rules: Rules) -> Analysis {
        let mut t = Tracer::new(molecule.shape(), rules);
        t.load(molecule);
        Analysis::from_tracer(&t)
    }

    /// Traces every ray of the molecule loaded in `tracer`.
    pub fn from_tracer(tracer: &Tracer) -> Analysis {
        let mut rays = Vec::new();
        tracer.trace_all(&mut rays);
        let spectrum = Spectrum {
            shape: tracer.shape(),
            results: rays.iter().map(|r| r.outcome).collect(),
        };
        let stats = Stats::from_rays(&rays);
        Analysis {
            rays,
            spectrum,
            stats,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_a2_b4_spectrum() {
        // The whole record, statistics included, is checked in tests/facts.rs.
        let m: Molecule = "O-O-------------".parse().unwrap();
        let a = Analysis::of(&m, Rules::Standard);
        assert_eq!(a.spectrum.to_string(), "@&ab@&@cbac@&@&@");
        assert_eq!((a.stats.absorbed_number, a.stats.out_number), (6, 3));
    }

    #[test]
    fn parse_errors_name_the_column() {
        let e = Spectrum::parse("@&ab@&@cbac@&@&", "s").unwrap_err();
        assert!(e.message.contains("4p characters"), "{e}");
        let e = Spectrum::parse("@&ab@&@cbac@&@&a", "s").unwrap_err();
        assert_eq!(e.column, 16);
        assert!(e.message.contains("third time"), "{e}");
        let e = Spectrum::parse("@&ab@&@cbac@&@&d", "s").unwrap_err();
        assert!(e.message.contains("only once"), "{e}");
        let e = Spectrum::parse("@&ab@&@cbac@&@&!", "s").unwrap_err();
        assert_eq!(e.column, 16);
    }

    #[test]
    fn more_than_52_pairs_has_no_string_form() {
        // An empty 27×27 box has 54 pairs.
        let m = Molecule::new(27, []).unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        assert_eq!(s.pairs(), 54);
        assert!(s.normalized().is_none());
        assert!(s.to_string().starts_with("81 80 "));
        let m = Molecule::new(26, []).unwrap();
        let s = Spectrum::of(&m, Rules::Standard).to_string();
        assert!(s.starts_with("abc") && s.ends_with("CBA"), "{s}");
    }

    #[test]
    fn observations() {
        let m: Molecule = "O-O-------------".parse().unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        let mut o = Observation::full(&s);
        assert!(o.is_complete() && o.matches(&s));
        assert_eq!(o.rays().len(), 13);
        o.forget(3);
        assert_eq!((o.get(3), o.get(10)), (None, None));
        assert_eq!(o.to_string(), "@&?a@&@ba?b@&@&@");
        assert_eq!(Observation::parse(&o.to_string(), "o").unwrap(), o);
        o.record(3, Outcome::Exit(9));
        assert_eq!(o.first_difference(&s), Some(3));
        let e = Observation::parse("@&?a@&@ba?b@&@&", "o").unwrap_err();
        assert!(e.message.contains("4p characters"));
    }

    #[test]
    fn rectangles() {
        let m: Molecule = "--O--/-----/-----".parse().unwrap();
        let s = Spectrum::of(&m, Rules::Standard);
        assert_eq!(s.outcomes().len(), 16);
        let text = s.to_string();
        let shape = m.shape();
        assert_eq!(Spectrum::parse_in(&text, shape, "s").unwrap(), s);
        // 16 characters read as a square are a 4×4 spectrum, not this one.
        assert_ne!(Spectrum::parse(&text, "s").unwrap(), s);
        let e = Spectrum::parse_in("@&", shape, "s").unwrap_err();
        assert!(
            e.message.contains("5×3 box has 2(w+h) = 16 characters"),
            "{e}"
        );
        let o = Observation::parse_in(&text.replacen('@', "?", 1), shape, "o").unwrap();
        assert_eq!((o.shape(), o.shot_count()), (shape, 15));
        assert!(o.matches(&s));
        assert_eq!(Observation::empty(shape).results().len(), 16);
    }
}
