//! Boards with their border marks, in J. Forget's display.

use std::fmt::Write as _;

use crate::rules::board::{Heading, Molecule, port};
use crate::rules::notation::Notation;
use crate::rules::spectrum::Observation;

/// Draws a board: `cell(i)` gives the character of linear cell i, `marks[i]`
/// the mark of position i+1 (a space for none). Trailing blanks are trimmed.
pub fn grid(width: usize, cell: impl Fn(usize) -> char, marks: &[char]) -> String {
    let p = width;
    let mark = |pos: usize| marks.get(pos - 1).copied().unwrap_or(' ');
    let mut out = String::new();
    let mut push = |line: String| {
        out.push_str(line.trim_end());
        out.push('\n');
    };
    let mut top = String::from("  ");
    for k in 0..p {
        let _ = write!(top, " {}", mark(4 * p - k));
    }
    push(top);
    for r in 1..=p {
        let mut line = format!(" {}", mark(r));
        for c in 1..=p {
            let _ = write!(line, " {}", cell(p * (r - 1) + c - 1));
        }
        let _ = write!(line, " {}", mark(3 * p + 1 - r));
        push(line);
    }
    let mut bottom = String::from("  ");
    for k in 0..p {
        let _ = write!(bottom, " {}", mark(p + 1 + k));
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
    grid(m.width(), |i| if cells[i] { 'O' } else { '-' }, marks)
}

/// J. Forget's closing line: `There are N balls in the box`.
pub fn balls_line(n: usize) -> String {
    if n == 1 {
        "There is 1 ball in the box".to_string()
    } else {
        format!("There are {n} balls in the box")
    }
}

/// Where a border position is, in words: `left, row 3`.
pub fn position_name(width: usize, pos: usize) -> String {
    let q = port(width, pos);
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
