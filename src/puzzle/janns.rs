//! Puzzles in A. Janns's format: `P K`, then one ray per line in its own
//! clockwise numbering, rules [`Rules::EdgeMiss`].

use crate::error::{ParseError, field, quantity, quote};
use crate::puzzle::{Format, Puzzle, is_comment_or_blank, tokens};
use crate::rules::config::{MAX_WIDTH, Shape};
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;

/// Converts a border position of A. Janns's numbering to bbx's.
///
/// A. Janns's solver numbers the 4P positions from 1, **clockwise** from the top-left
/// corner: 1..P along the top from left to right, P+1..2P down the right side,
/// 2P+1..3P along the bottom from right to left, 3P+1..4P up the left side.
/// bbx numbers them counter-clockwise from the same corner (see
/// [`crate::rules::board`]), so both walk the same ring in opposite directions and
/// A. Janns's `k` is bbx's `4P+1−k` on every side: top column c (`k = c`) is
/// `4P+1−c`, right row r (`k = P+r`) is `3P+1−r`, bottom column c
/// (`k = 3P+1−c`) is `P+c`, left row r (`k = 4P+1−r`) is `r`.
///
/// ```
/// use bbx::puzzle::janns_to_position;
/// assert_eq!(janns_to_position(5, 1), 20); // top, column 1
/// assert_eq!(janns_to_position(5, 6), 15); // right, row 1
/// assert_eq!(janns_to_position(5, 11), 10); // bottom, column 5
/// assert_eq!(janns_to_position(5, 20), 1); // left, row 1
/// ```
///
/// # Panics
/// When `k` is not in 1..=4·width.
pub fn janns_to_position(width: usize, k: usize) -> usize {
    assert!(
        k >= 1 && k <= 4 * width,
        "A. Janns's position {k} out of 1..={}",
        4 * width
    );
    4 * width + 1 - k
}

/// Converts a bbx border position to A. Janns's numbering (the inverse of
/// [`janns_to_position`]).
///
/// # Panics
/// When `pos` is not in 1..=4·width.
pub fn position_to_janns(width: usize, pos: usize) -> usize {
    assert!(
        pos >= 1 && pos <= 4 * width,
        "border position {pos} out of 1..={}",
        4 * width
    );
    4 * width + 1 - pos
}

/// Parses a whole number token of a file in A. Janns's format; `range` says which
/// values are allowed, for the message about a negative number.
fn janns_number(
    origin: &str,
    line: usize,
    (column, word): (usize, &str),
    what: &str,
    range: &str,
) -> Result<usize, ParseError> {
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let err = |message: String| ParseError::new(origin, line, column, message);
    let noun = what.trim_start_matches("a ").trim_start_matches("the ");
    if let Some(rest) = word.strip_prefix('-')
        && digits(rest)
    {
        return Err(err(format!(
            "{noun} {} is out of range: {range}",
            field(word)
        )));
    }
    let unsigned = word.strip_prefix('+').unwrap_or(word);
    if !digits(unsigned) {
        return Err(err(format!(
            "expected {what} (a whole number), found {}",
            quote(word)
        )));
    }
    unsigned
        .parse()
        .map_err(|_| err(format!("{noun} {} is out of range: {range}", field(word))))
}

pub(super) fn parse_janns(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
    let mut content = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !is_comment_or_blank(l))
        .map(|(i, l)| (i + 1, l));
    let Some((head, header)) = content.next() else {
        return Err(ParseError::new(
            origin,
            0,
            0,
            "no puzzle found (A. Janns's format starts with a line 'P K': box width and atom count)",
        ));
    };
    let words = tokens(header);
    if words.len() != 2 {
        let column = words.get(2).map_or(0, |&(c, _)| c);
        return Err(ParseError::new(
            origin,
            head,
            column,
            format!(
                "the first line must be 'P K' (box width and atom count), but it holds {} word(s)",
                words.len()
            ),
        ));
    }
    let width_range = format!("P must be 1 to {MAX_WIDTH}");
    let p = janns_number(origin, head, words[0], "the box width P", &width_range)?;
    let k = janns_number(
        origin,
        head,
        words[1],
        "the atom count K",
        "K is a number of atoms, from 0 to P × P",
    )?;
    if p == 0 || p > MAX_WIDTH {
        return Err(ParseError::new(
            origin,
            head,
            words[0].0,
            format!("the box width {width_range}, not {p}"),
        ));
    }
    if k > p * p {
        return Err(ParseError::new(
            origin,
            head,
            words[1].0,
            format!(
                "K = {k} atoms do not fit in the {p}×{p} box ({})",
                quantity(p * p, "cell", "cells")
            ),
        ));
    }
    let describe = |o: Outcome| match o {
        Outcome::Absorbed => "absorbed".to_string(),
        Outcome::Reflected => "reflected".to_string(),
        Outcome::Miss => "missed".to_string(),
        Outcome::Exit(b) => format!("came out at {}", position_to_janns(p, b)),
    };
    // For each bbx position: its outcome and the line that gave it.
    let mut seen: Vec<Option<(Outcome, usize)>> = vec![None; 4 * p];
    let positions = format!("a {p}×{p} box has positions 1 to {}", 4 * p);
    for (n, line) in content {
        let words = tokens(line);
        if words.len() > 2 {
            return Err(ParseError::new(
                origin,
                n,
                words[2].0,
                format!(
                    "a ray line holds 1 number (the ray was absorbed) or 2 (where it entered and where it came out; the same number twice for a reflection), not {}",
                    words.len()
                ),
            ));
        }
        let mut ends = Vec::with_capacity(2);
        for &w in &words {
            let k = janns_number(origin, n, w, "a border position", &positions)?;
            if k == 0 || k > 4 * p {
                return Err(ParseError::new(
                    origin,
                    n,
                    w.0,
                    format!("border position {k} is out of range: {positions}"),
                ));
            }
            ends.push((w.0, k, janns_to_position(p, k)));
        }
        let facts: Vec<(usize, usize, Outcome)> = match ends.as_slice() {
            [(c, _, a)] => vec![(*c, *a, Outcome::Absorbed)],
            [(c, _, a), (_, _, b)] if a == b => vec![(*c, *a, Outcome::Reflected)],
            [(c, _, a), (d, _, b)] => {
                vec![(*c, *a, Outcome::Exit(*b)), (*d, *b, Outcome::Exit(*a))]
            }
            _ => continue,
        };
        for (column, pos, outcome) in facts {
            match seen[pos - 1] {
                Some((old, line)) if old != outcome => {
                    let k = position_to_janns(p, pos);
                    return Err(ParseError::new(
                        origin,
                        n,
                        column,
                        format!(
                            "ray recorded twice with different results: at position {k}, line {line} says {} but line {n} says {}",
                            describe(old),
                            describe(outcome)
                        ),
                    ));
                }
                Some(_) => {}
                None => seen[pos - 1] = Some((outcome, n)),
            }
        }
    }
    let mut observation = Observation::empty(Shape::square(p));
    for (i, s) in seen.iter().enumerate() {
        observation.record(i + 1, s.map_or(Outcome::Miss, |(o, _)| o));
    }
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Janns,
        observation,
        atoms: Some(k),
        atom_range: None,
        guess: None,
        rules: Some(Rules::EdgeMiss),
    })
}
