//! Boards with their border marks, in J. Forget's display.

use std::fmt::Write as _;

use crate::rules::board::{Heading, Molecule, port};
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::spectrum::Observation;

/// Draws a board of `shape` (a width alone is a square): `cell(i)` gives the
/// character of linear cell i, `marks[i]` the mark of position i+1 (a space
/// for none). Trailing blanks are trimmed.
pub fn grid(shape: impl Into<Shape>, cell: impl Fn(usize) -> char, marks: &[char]) -> String {
    let shape = shape.into();
    let (w, h) = (shape.width, shape.height);
    let n = shape.positions();
    let mark = |pos: usize| marks.get(pos - 1).copied().unwrap_or(' ');
    let mut out = String::new();
    let mut push = |line: String| {
        out.push_str(line.trim_end());
        out.push('\n');
    };
    let mut top = String::from("  ");
    for k in 0..w {
        let _ = write!(top, " {}", mark(n - k));
    }
    push(top);
    for r in 1..=h {
        let mut line = format!(" {}", mark(r));
        for c in 1..=w {
            let _ = write!(line, " {}", cell(w * (r - 1) + c - 1));
        }
        let _ = write!(line, " {}", mark(2 * h + w + 1 - r));
        push(line);
    }
    let mut bottom = String::from("  ");
    for k in 0..w {
        let _ = write!(bottom, " {}", mark(h + 1 + k));
    }
    push(bottom);
    out
}

/// The marks of an observation in J. Forget's notation, a blank for each
/// ray not shot; `None` past 52 exit pairs.
pub fn observed_marks(observed: &Observation) -> Option<Vec<char>> {
    let marks = observed.marks()?;
    Some(
        marks
            .into_iter()
            .map(|c| if c == '?' { ' ' } else { c })
            .collect(),
    )
}

/// Border marks written in J. Forget's notation (letters), in `notation`;
/// `None` when it cannot write them (more than 9 exit pairs in Emacs
/// notation, whose pairs are the digits 1 to 9).
pub fn marks_in(marks: &[char], notation: Notation) -> Option<Vec<char>> {
    let beyond = |c: char| c.is_ascii_alphabetic() && notation.from_letters(c) == c;
    if notation == Notation::Emacs && marks.iter().any(|&c| beyond(c)) {
        return None;
    }
    Some(marks.iter().map(|&c| notation.from_letters(c)).collect())
}

/// Draws a molecule (`O` atoms, `-` empty) with the given border marks.
pub fn board(m: &Molecule, marks: &[char]) -> String {
    let cells = m.cells();
    grid(m.shape(), |i| if cells[i] { 'O' } else { '-' }, marks)
}

/// J. Forget's closing line: `There are N balls in the box`.
pub fn balls_line(n: usize) -> String {
    if n == 1 {
        "There is 1 ball in the box".to_string()
    } else {
        format!("There are {n} balls in the box")
    }
}

/// The closing line of a game whose count is a range, as bbx writes it and
/// reads it back: `There are 3 to 6 balls in the box` (a range of one count
/// is [`balls_line`]).
pub fn balls_range_line(least: usize, most: usize) -> String {
    if least == most {
        balls_line(least)
    } else {
        format!("There are {least} to {most} balls in the box")
    }
}

/// Where a border position is, in words: `left, row 3`.
pub fn position_name(shape: impl Into<Shape>, pos: usize) -> String {
    let q = port(shape, pos);
    let what = match q.heading {
        Heading::East | Heading::West => "row",
        Heading::North | Heading::South => "column",
    };
    format!("{}, {what} {}", q.side.name(), q.line)
}

/// Boards side by side, separated by `gap` spaces, as J. Forget's exploration shows spectral
/// groups.
pub fn side_by_side(boards: &[String], gap: usize) -> String {
    let blocks: Vec<Vec<&str>> = boards.iter().map(|b| b.lines().collect()).collect();
    let widths: Vec<usize> = blocks
        .iter()
        .map(|b| b.iter().map(|l| l.chars().count()).max().unwrap_or(0))
        .collect();
    let height = blocks.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..height {
        let mut line = String::new();
        for (j, b) in blocks.iter().enumerate() {
            let part = b.get(i).copied().unwrap_or("");
            line.push_str(part);
            if j + 1 < blocks.len() {
                let pad = widths[j] - part.chars().count() + gap;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
