//! Border marks read from a puzzle and what they observe: a hit, a
//! reflection, a miss, or one end of an exit pair.

use std::collections::HashMap;

use crate::error::ParseError;
use crate::rules::config::Shape;
use crate::rules::notation::{MISS, Notation};
use crate::rules::ray::Outcome;
use crate::rules::spectrum::Observation;

pub(super) const UNKNOWN_MARK: &str =
    "(expected a letter, a digit, '@', '&', '~', 'H', 'R', '?' or a blank)";

/// What a border mark says about its ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MarkKind {
    Hit,
    Reflection,
    Miss,
    Label,
}

/// One mark of a ray that was shot, with its place in the text.
#[derive(Debug, Clone, Copy)]
pub(super) struct ShotMark {
    pub(super) pos: usize,
    pub(super) ch: char,
    pub(super) line: usize,
    pub(super) column: usize,
    pub(super) kind: MarkKind,
}

/// What mark `c` says in `notation`: its hit, reflection or (J. Forget's
/// notation only) miss, or one end of an exit pair (a letter in J.
/// Forget's notation, a digit in Emacs's); `None` for any other character.
pub(super) fn mark_kind(notation: Notation, c: char) -> Option<MarkKind> {
    Some(match (notation, c) {
        (_, c) if c == notation.hit() => MarkKind::Hit,
        (_, c) if c == notation.reflection() => MarkKind::Reflection,
        (Notation::Letters, MISS) => MarkKind::Miss,
        (Notation::Letters, c) if c.is_ascii_alphabetic() => MarkKind::Label,
        (Notation::Emacs, c) if c.is_ascii_digit() => MarkKind::Label,
        _ => return None,
    })
}

/// The places (`line:column`) of `marks`, for a message: the first
/// [`PLACES`] of them, and how many more there are.
pub(super) fn places(marks: &[&ShotMark]) -> String {
    let v: Vec<String> = (marks.iter().take(PLACES))
        .map(|m| format!("{}:{}", m.line, m.column))
        .collect();
    if marks.len() > PLACES {
        return format!("{} and {} more", v.join(", "), marks.len() - PLACES);
    }
    match v.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The most places a message lists.
const PLACES: usize = 5;

/// Builds the observation from marks given in text order: each pair label must
/// appear exactly twice. `reflection` is how the notation writes a reflection
/// (for the hint when a label appears once).
pub(super) fn observation_from_marks(
    shape: Shape,
    marks: &[ShotMark],
    origin: &str,
    reflection: char,
) -> Result<Observation, ParseError> {
    let mut by_label: HashMap<char, Vec<&ShotMark>> = HashMap::new();
    for m in marks.iter().filter(|m| m.kind == MarkKind::Label) {
        by_label.entry(m.ch).or_default().push(m);
    }
    let mut obs = Observation::empty(shape);
    for m in marks {
        let outcome = match m.kind {
            MarkKind::Hit => Outcome::Absorbed,
            MarkKind::Reflection => Outcome::Reflected,
            MarkKind::Miss => Outcome::Miss,
            MarkKind::Label => {
                let ends = by_label.get(&m.ch).map(Vec::as_slice).unwrap_or(&[]);
                match ends {
                    [a, b] => Outcome::Exit(if a.pos == m.pos { b.pos } else { a.pos }),
                    [_] => {
                        return Err(ParseError::new(
                            origin,
                            m.line,
                            m.column,
                            format!(
                                "pair label '{}' appears only once (at {}): an exit pair has two ends and a single mark cannot pair with itself (a ray that comes back where it entered is a reflection, '{reflection}')",
                                m.ch,
                                places(ends)
                            ),
                        ));
                    }
                    _ => {
                        let third = ends.get(2).copied().unwrap_or(m);
                        return Err(ParseError::new(
                            origin,
                            third.line,
                            third.column,
                            format!(
                                "pair label '{}' appears {} times (at {}): an exit pair has exactly two ends",
                                m.ch,
                                ends.len(),
                                places(ends)
                            ),
                        ));
                    }
                }
            }
        };
        obs.record(m.pos, outcome);
    }
    Ok(obs)
}
