//! Pictures of a box in J. Forget's display: where every mark and cell stands,
//! and the molecules drawn in them.

use std::path::Path;

use crate::error::{Error, ParseError, field, quantity, quote};
use crate::puzzle::{Expected, check_text, directory_error, read_input, without_bom};
use crate::rules::board::Molecule;
use crate::rules::config::{Config, MAX_WIDTH, Shape};
use crate::rules::enumeration::unrank;
use crate::rules::notation::Notation;
use crate::setting::{Setting, Text};

/// Characters accepted inside the box: `O` atom; `-`, `.` empty or unknown; `+`
/// a drawn path.
pub const CELL_CHARS: &[char] = &['O', '-', '.', '+'];

/// One character of a picture with its place in the text (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    /// The character.
    pub ch: char,
    /// Line number.
    pub line: usize,
    /// Column.
    pub column: usize,
}

/// A board read from J. Forget's display, before interpretation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Where the text came from.
    pub origin: String,
    /// The box: its width (cells in a row) and height (rows).
    pub shape: Shape,
    /// The w·h cell characters, row by row.
    pub cells: Vec<Located>,
    /// The mark of each border position (`marks[i]` is position i+1); `None`
    /// where the picture leaves it blank.
    pub marks: Vec<Option<Located>>,
    /// The count given by a `There are N balls in the box` line, and the
    /// line: with a range (`There are 3 to 6 balls in the box`), its least.
    pub balls: Option<(usize, usize)>,
    /// The most balls of a range `There are 3 to 6 balls in the box`.
    pub most_balls: Option<usize>,
}

fn is_cell(c: char) -> bool {
    CELL_CHARS.contains(&c)
}

/// Parses `There are N balls in the box` (also `is`, `ball`, `atoms`),
/// returning N, or `There are M to N balls in the box`, returning M and N.
fn balls_line(s: &str) -> Option<(usize, Option<usize>)> {
    let words: Vec<String> = s
        .trim()
        .trim_end_matches('.')
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    match words.as_slice() {
        [there, verb, n, what, in_, the, bx]
            if there == "there"
                && (verb == "are" || verb == "is")
                && ["balls", "ball", "atoms", "atom"].contains(&what.as_str())
                && in_ == "in"
                && the == "the"
                && bx == "box" =>
        {
            Some((n.parse().ok()?, None))
        }
        [there, are, least, to, most, what, in_, the, bx]
            if there == "there"
                && are == "are"
                && to == "to"
                && ["balls", "atoms"].contains(&what.as_str())
                && in_ == "in"
                && the == "the"
                && bx == "box" =>
        {
            let (least, most) = (least.parse().ok()?, most.parse().ok()?);
            (least <= most).then_some((least, Some(most)))
        }
        _ => None,
    }
}

/// Whether a line of a picture is a comment: it starts with `#` (after
/// blanks), unless it has the shape of a bordered row whose left mark is a
/// `#` (` # O - -`), which is a wrong mark to report, not a line to skip.
fn is_comment(line: &str) -> bool {
    let c: Vec<char> = line.chars().take(4).collect();
    let row_shape = c.len() == 4 && c[0] == ' ' && c[1] == '#' && c[2] == ' ' && is_cell(c[3]);
    line.trim_start().starts_with('#') && !row_shape
}

/// The message for a character in the box that is no cell.
fn unexpected_cell(ch: char) -> String {
    format!(
        "unexpected character {ch:?} in the box (expected 'O' for an atom, '-' or '.' for an empty cell)"
    )
}

/// In a line shaped like a row of the box (one character every two columns
/// from `offset`, the border layout's ` m ` before them when `offset` is 3)
/// with at least one cell character, the first character at a cell's column
/// that is no cell, with its 1-based column. The last character of a
/// bordered row may be its right mark and is not reported.
fn bad_cell(l: &[char], offset: usize) -> Option<(usize, char)> {
    if offset == 3 && !(l.len() >= 4 && l[0] == ' ' && l[2] == ' ') {
        return None;
    }
    let columns: Vec<usize> = (offset..l.len()).step_by(2).collect();
    if columns
        .iter()
        .any(|&c| l.get(c + 1).is_some_and(|&x| x != ' '))
    {
        return None;
    }
    if !columns.iter().any(|&c| is_cell(l[c])) {
        return None;
    }
    let cells = match columns.len() {
        n if offset == 3 && n > 1 => &columns[..n - 1],
        _ => &columns[..],
    };
    cells
        .iter()
        .find(|&&c| l[c] != ' ' && !is_cell(l[c]))
        .map(|&c| (c + 1, l[c]))
}

/// The number of cells in each row of a picture: the rows' cells are read
/// from column `offset` every two columns, and a border line above or below
/// showing `marks` marks needs at least as many. A square whose rows are as
/// many as their cells is read as such, even when a right mark is an `O` (a
/// letter in J. Forget's notation); otherwise the width is the fewest cells
/// a row starts with, a row with one more ending the line on an `O` holding
/// its right mark there. When the rows disagree, the width most of them have
/// (the larger on a tie) is taken, and the odd rows are reported as read.
fn row_width(rows: &[(usize, Vec<char>)], offset: usize, marks: usize) -> usize {
    let run = |l: &[char]| {
        (offset..l.len())
            .step_by(2)
            .take_while(|&c| is_cell(l[c]))
            .count()
    };
    let first = run(&rows[0].1);
    if offset == 0 {
        return first;
    }
    // The row's cells are `w` when it has w of them, or w + 1 whose last is
    // an `O` that ends the line (its right mark).
    let fits = |w: usize| {
        rows.iter().all(|(_, l)| {
            let n = run(l);
            n == w || (n == w + 1 && l.len() == offset + 2 * w + 1 && l[offset + 2 * w] == 'O')
        })
    };
    let h = rows.len();
    if h >= marks && fits(h) {
        return h;
    }
    let runs: Vec<usize> = rows.iter().map(|(_, l)| run(l)).collect();
    let least = runs.iter().copied().min().unwrap_or(first);
    if least >= marks && fits(least) {
        return least;
    }
    // The rows disagree: the width most of them have (the larger on a tie)
    // names the odd rows in the errors.
    let most = |w: &usize| runs.iter().filter(|&&n| n == *w).count();
    runs.iter()
        .copied()
        .max_by_key(|w| (most(w), *w))
        .unwrap_or(first)
}

impl Picture {
    /// Reads a picture; `origin` names the text in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Picture, ParseError> {
        let err =
            |line: usize, column: usize, msg: String| ParseError::new(origin, line, column, msg);
        let mut balls = None;
        let mut most_balls = None;
        // Lines other than blank lines, comments (starting with `#`) and the
        // balls line: (line number, characters).
        let mut lines: Vec<(usize, Vec<char>)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            if line.is_empty() || is_comment(line) {
                continue;
            }
            if line.trim_start().to_ascii_lowercase().starts_with("there ") {
                match balls_line(line) {
                    Some((n, most)) if balls.is_none() => {
                        balls = Some((n, i + 1));
                        most_balls = most;
                        continue;
                    }
                    Some(_) => {
                        return Err(err(
                            i + 1,
                            0,
                            "a second 'There are N balls in the box' line".into(),
                        ));
                    }
                    None => {
                        return Err(err(
                            i + 1,
                            0,
                            "expected 'There are N balls in the box' with N a number (or 'There are M to N balls in the box')".into(),
                        ));
                    }
                }
            }
            if line.contains('\t') {
                let col = line.chars().position(|c| c == '\t').unwrap_or(0) + 1;
                return Err(err(
                    i + 1,
                    col,
                    "tab character: draw the board with spaces".into(),
                ));
            }
            lines.push((i + 1, line.chars().collect()));
        }
        if lines.is_empty() {
            return Err(err(
                0,
                0,
                "no board found (expected rows of 'O' and '-' cells)".into(),
            ));
        }
        // A bordered row has a cell at column 4 (index 3) after " m "; a bare row
        // starts with a cell.
        let bordered = |l: &[char]| {
            l.len() >= 4
                && l[0] == ' '
                && l[2] == ' '
                && is_cell(l[3])
                && (l.len() < 6 || is_cell(l[5]) || l[4] == ' ')
        };
        let bare = |l: &[char]| !l.is_empty() && is_cell(l[0]) && (l.len() == 1 || l[1] == ' ');
        let first_row = lines
            .iter()
            .position(|(_, l)| bordered(l) || bare(l))
            .ok_or_else(|| {
                err(
                    lines[0].0,
                    0,
                    "no board row found (expected rows like ' a O - - - a' or 'O - - -')".into(),
                )
            })?;
        let offset = if bordered(&lines[first_row].1) { 3 } else { 0 };
        let is_row = |l: &[char]| if offset == 3 { bordered(l) } else { bare(l) };
        let mut last_row = first_row;
        while last_row + 1 < lines.len() && is_row(&lines[last_row + 1].1) {
            last_row += 1;
        }
        // A row moved by a space or two, as a board typed by hand may have:
        // said so, rather than that the board ends above it.
        if let Some((n, l)) = lines.get(last_row + 1) {
            let shift = (1..=2usize).find_map(|k| {
                let right = l.len() > k && l[..k].iter().all(|&c| c == ' ') && is_row(&l[k..]);
                let padded: Vec<char> = std::iter::repeat_n(' ', k)
                    .chain(l.iter().copied())
                    .collect();
                match (right, is_row(&padded)) {
                    (true, _) => Some(("right", k)),
                    (false, true) => Some(("left", k)),
                    _ => None,
                }
            });
            if let Some((way, k)) = shift {
                return Err(err(
                    *n,
                    1,
                    format!(
                        "this row is shifted {way} by {} from the rows above it: the rows of a board line up, cell under cell",
                        quantity(k, "space", "spaces")
                    ),
                ));
            }
        }
        let h = last_row - first_row + 1;
        if h > MAX_WIDTH {
            return Err(err(
                lines[first_row].0,
                0,
                format!("a box is at most {MAX_WIDTH} cells high"),
            ));
        }
        let top = if first_row > 0 {
            Some(first_row - 1)
        } else {
            None
        };
        let bottom = if last_row + 1 < lines.len() {
            Some(last_row + 1)
        } else {
            None
        };
        // A line outside the rows found that has a row's shape, with a
        // character that is no cell, is a row with a wrong cell (not stray
        // text or a border line): point at that character. Only a line the
        // layout cannot take as a border line is suspected: one with a left
        // mark, or any line once there are too many around the rows.
        let suspect = |i: usize| {
            let left_mark = offset == 3 && lines[i].1.get(1).is_some_and(|&c| c != ' ');
            (i < first_row && (first_row > 1 || left_mark || offset == 0))
                || (i > last_row && (last_row + 2 < lines.len() || left_mark || offset == 0))
        };
        if let Some((n, col, ch)) = (0..lines.len())
            .filter(|&i| suspect(i))
            .find_map(|i| bad_cell(&lines[i].1, offset).map(|(col, ch)| (lines[i].0, col, ch)))
        {
            return Err(err(n, col, unexpected_cell(ch)));
        }
        if first_row > 1 {
            let (n, _) = &lines[first_row - 2];
            return Err(err(
                *n,
                1,
                "unexpected line before the board (expected at most one line of border marks)"
                    .into(),
            ));
        }
        if last_row + 2 < lines.len() {
            let (n, _) = &lines[last_row + 2];
            return Err(err(
                *n,
                1,
                format!(
                    "unexpected line after the board, which has {} (expected at most one line of border marks after it)",
                    quantity(h, "row", "rows")
                ),
            ));
        }
        if offset == 0 && (top.is_some() || bottom.is_some()) {
            let (n, _) = &lines[top.or(bottom).unwrap_or(0)];
            return Err(err(
                *n,
                1,
                "border marks need J. Forget's layout: each row starts with ' m ' (a mark or a blank between spaces)".into(),
            ));
        }
        let rows = &lines[first_row..=last_row];
        // Marks stand one every two columns from column 4.
        let border_marks = [top, bottom]
            .iter()
            .flatten()
            .map(|&i| lines[i].1.len().saturating_sub(2) / 2)
            .max()
            .unwrap_or(0);
        let w = row_width(rows, offset, border_marks);
        if w > MAX_WIDTH {
            return Err(err(
                rows[0].0,
                0,
                format!("a box is at most {MAX_WIDTH} cells wide"),
            ));
        }
        let shape = Shape {
            width: w,
            height: h,
        };
        let mut cells = Vec::with_capacity(shape.cells());
        let mut marks: Vec<Option<Located>> = vec![None; shape.positions()];
        let at = |l: &[char], col: usize| l.get(col).copied().unwrap_or(' ');
        let mark = |ch: char, line: usize, col: usize| {
            (ch != ' ').then_some(Located {
                ch,
                line,
                column: col + 1,
            })
        };
        let others = |row: usize| {
            if row == 1 {
                "row 2".to_string()
            } else {
                "row 1".to_string()
            }
        };
        for (r, (n, l)) in rows.iter().enumerate() {
            let row = r + 1;
            let cell_count = (offset..l.len())
                .step_by(2)
                .take_while(|&c| is_cell(l[c]))
                .count();
            let limit = if offset == 3 {
                offset + 2 * w + 1
            } else {
                offset + 2 * w - 1
            };
            for k in 0..w {
                let col = offset + 2 * k;
                let ch = at(l, col);
                if !is_cell(ch) {
                    return Err(err(
                        *n,
                        col + 1,
                        if ch == ' ' {
                            format!(
                                "row {row} has {} but {} has {}: every row of a box has as many cells",
                                quantity(cell_count, "cell", "cells"),
                                others(row),
                                quantity(w, "cell", "cells"),
                            )
                        } else {
                            // A mark where the row's last cell should be may
                            // mean too few cells in this row.
                            let hint = if offset == 3 && k > 0 && col + 1 >= l.len() {
                                format!(
                                    "; if {ch:?} is a border mark, row {row} has {} but {} has {}: every row of a box has as many cells",
                                    quantity(cell_count, "cell", "cells"),
                                    others(row),
                                    quantity(w, "cell", "cells"),
                                )
                            } else {
                                String::new()
                            };
                            format!("{}{hint}", unexpected_cell(ch))
                        },
                    ));
                }
                cells.push(Located {
                    ch,
                    line: *n,
                    column: col + 1,
                });
                if k + 1 < w && at(l, col + 1) != ' ' {
                    return Err(err(
                        *n,
                        col + 2,
                        "expected a space between two cells".into(),
                    ));
                }
            }
            if offset == 3 {
                marks[row - 1] = mark(l[1], *n, 1);
                if at(l, 2 * w + 2) != ' ' {
                    return Err(err(
                        *n,
                        2 * w + 3,
                        "expected a space between the last cell and the border mark".into(),
                    ));
                }
                marks[2 * h + w + 1 - row - 1] = mark(at(l, 2 * w + 3), *n, 2 * w + 3);
                if is_cell(at(l, 2 * w + 3)) && at(l, 2 * w + 3) != 'O' {
                    return Err(err(
                        *n,
                        2 * w + 4,
                        format!(
                            "row {row} has more than {} but {} has {}: every row of a box has as many cells",
                            quantity(w, "cell", "cells"),
                            others(row),
                            quantity(w, "cell", "cells"),
                        ),
                    ));
                }
            }
            if l.len() > limit {
                let extra = if offset == 0 && is_cell(at(l, limit + 1)) {
                    format!(
                        "row {row} has more than {} but {} has {}: every row of a box has as many cells",
                        quantity(w, "cell", "cells"),
                        others(row),
                        quantity(w, "cell", "cells"),
                    )
                } else {
                    "unexpected text after the end of the row".into()
                };
                return Err(err(*n, limit + 1, extra));
            }
        }
        for (which, idx) in [("top", top), ("bottom", bottom)] {
            let Some(idx) = idx else { continue };
            let (n, l) = &lines[idx];
            if l.len() > 3 + 2 * w - 1 || l.iter().take(3).any(|&c| c != ' ') {
                return Err(err(
                    *n,
                    0,
                    format!(
                        "the {which} border line must hold {} at the columns of the cells",
                        quantity(w, "mark", "marks")
                    ),
                ));
            }
            for k in 0..w {
                let col = 3 + 2 * k;
                if k + 1 < w && at(l, col + 1) != ' ' {
                    return Err(err(
                        *n,
                        col + 2,
                        format!("expected a space between two marks of the {which} border"),
                    ));
                }
                let pos = if which == "top" {
                    shape.positions() - k
                } else {
                    h + 1 + k
                };
                marks[pos - 1] = mark(at(l, col), *n, col);
            }
        }
        Ok(Picture {
            origin: origin.to_string(),
            shape,
            cells,
            marks,
            balls,
            most_balls,
        })
    }

    /// The notation of the border marks (see [`Format::Display`]): Emacs
    /// when a mark is a digit, or `H`/`R` appear with none of J. Forget's
    /// marks (a lower-case letter, `@`, `&`, `~`); J. Forget's otherwise.
    ///
    /// [`Format::Display`]: crate::puzzle::Format::Display
    ///
    /// ```
    /// use bbx::puzzle::Picture;
    /// use bbx::rules::notation::Notation;
    /// let emacs = Picture::parse("   H R\n 1 - - H\n R - - 1\n", "game").unwrap();
    /// assert_eq!(emacs.notation(), Notation::Emacs);
    /// let forget = Picture::parse("   @ &\n a - - @\n & - - a\n", "game").unwrap();
    /// assert_eq!(forget.notation(), Notation::Letters);
    /// ```
    pub fn notation(&self) -> Notation {
        let marks: Vec<Located> = self.marks.iter().flatten().copied().collect();
        match emacs_witness(&marks) {
            Some(_) => Notation::Emacs,
            None => Notation::Letters,
        }
    }

    /// The molecule drawn in the box (`O` atoms; border marks ignored). The
    /// atom count must agree with a `There are N balls` line if there is one.
    pub fn molecule(&self) -> Result<Molecule, ParseError> {
        let atoms: Vec<usize> = self
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.ch == 'O')
            .map(|(i, _)| i)
            .collect();
        if let Some((n, line)) = self.balls
            && self.most_balls.is_none()
            && n != atoms.len()
        {
            return Err(ParseError::new(
                &self.origin,
                line,
                0,
                format!(
                    "the text says {} but the box holds {}",
                    quantity(n, "ball", "balls"),
                    quantity(atoms.len(), "atom", "atoms")
                ),
            ));
        }
        Ok(Molecule::from_sorted_unchecked(self.shape, atoms))
    }
}

/// The first of `marks` that shows a board in Emacs notation: a digit, or
/// else `H` or `R` when none is a mark of J. Forget's notation (a
/// lower-case letter, `@`, `&`, `~`).
pub(super) fn emacs_witness(marks: &[Located]) -> Option<Located> {
    let letters =
        (marks.iter()).any(|m| m.ch.is_ascii_lowercase() || matches!(m.ch, '@' | '&' | '~'));
    (marks.iter().find(|m| m.ch.is_ascii_digit()))
        .or_else(|| marks.iter().find(|m| !letters && matches!(m.ch, 'H' | 'R')))
        .copied()
}

/// What a molecule is, for the messages about an empty or binary input.
const MOLECULE: Expected = Expected {
    noun: "molecule",
    description: "a molecule: its linear form, e.g. O-O-------------, or a picture of the box",
};

/// Reads a molecule from text: the linear form on one line, or a picture.
pub fn parse_molecule(text: &str, origin: &str) -> Result<Molecule, ParseError> {
    check_text(text, origin, MOLECULE)?;
    let text = without_bom(text);
    let t = text.trim();
    if !t.contains('\n') && !t.contains(' ') {
        return Molecule::parse_linear(t, origin);
    }
    Picture::parse(text, origin)?.molecule()
}

/// Whether `arg` is made of a linear form's characters only (`O`, `-`, `.`
/// and the `/` between a rectangle's rows), so that a `/` in it does not
/// make it a path.
fn is_linear_form(arg: &str) -> bool {
    !arg.is_empty() && arg.chars().all(|c| matches!(c, 'O' | '-' | '.' | '/'))
}

/// Resolves a molecule given on the command line: `-` reads standard input; an
/// existing file is read (a picture or the linear form); a number is unranked
/// in `config`; anything else is parsed as the linear form. When `config` is
/// given, the molecule must belong to it.
pub fn load_molecule(arg: &str, config: Option<Config>) -> Result<Molecule, Error> {
    let path = Path::new(arg);
    let m = if arg == "-" || (path.exists() && !path.is_dir()) {
        let (text, origin) = read_input(arg, MOLECULE)?;
        parse_molecule(&text, &origin)?
    } else if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
        let config = config.ok_or_else(|| {
            let first = format!(
                "{} looks like a molecule number: give its configuration first (e.g. A4_B8 {}, or ",
                quote(arg),
                field(arg)
            );
            Error::invalid(Text::from(first).and(Setting::Config).and(" A4_B8)"))
        })?;
        let n: u64 = arg
            .parse()
            .map_err(|_| Error::invalid(format!("molecule number {} is too large", field(arg))))?;
        return unrank(config, n);
    } else if path.is_dir() {
        return Err(directory_error(arg, MOLECULE));
    } else if !is_linear_form(arg) && (arg.contains(['/', '\\']) || arg.ends_with(".txt")) {
        return Err(Error::Io {
            path: arg.into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    } else if arg.parse::<Config>().is_ok() {
        return Err(Error::invalid(format!(
            "{} is a configuration, not a molecule: give a molecule after it (its number, e.g. {} 1, or its linear form)",
            quote(arg),
            field(arg)
        )));
    } else {
        match config {
            // A rectangle's cells need not be cut into rows: the
            // configuration says where each row ends.
            Some(c) if !c.is_square() => {
                Molecule::parse_linear_in(arg, c.shape(), "molecule argument")?
            }
            _ => Molecule::parse_linear(arg, "molecule argument")?,
        }
    };
    if let Some(c) = config {
        m.check_config(c)?;
    }
    Ok(m)
}

// ---------------------------------------------------------------------------
// Observed games ("puzzles") in three formats.
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n\nThere are 2 balls in the box\n";

    #[test]
    fn reads_j_forgets_display() {
        let p = Picture::parse(SEED, "seed").unwrap();
        assert_eq!(p.shape, Shape::square(4));
        assert_eq!((p.balls, p.most_balls), (Some((2, 8)), None));
        let marks: String = p.marks.iter().map(|m| m.map_or(' ', |m| m.ch)).collect();
        assert_eq!(marks, "@&ab@&@cbac@&@&@");
        assert_eq!(p.molecule().unwrap().to_string(), "O-O-------------");
        let m = p.marks[11].unwrap();
        assert_eq!((m.line, m.column), (2, 12));
    }

    #[test]
    fn reads_bare_boards() {
        let m = parse_molecule("   - O\n   O -\n", "x").unwrap();
        assert_eq!(m.to_string(), "-OO-");
        let m = parse_molecule("- O\nO -", "x").unwrap();
        assert_eq!(m.to_string(), "-OO-");
        let m = parse_molecule("-OO-", "x").unwrap();
        assert_eq!(m.to_string(), "-OO-");
    }

    #[test]
    fn blank_marks() {
        let text = "             3\n 1 - - - - - - - - 1\n R - - - - - - - -\n H O - - O - - - -\n   - - - - - - - -\n 3 - - - - - - - -\n   - - - - - - O -\n R - - - - - - - - 2\n H O - - - - - - -\n       4     4   2\n\nThere are 4 balls in the box\n";
        let p = Picture::parse(text, "emacs").unwrap();
        assert_eq!(p.shape, Shape::square(8));
        assert_eq!(p.molecule().unwrap().atoms().len(), 4);
        assert_eq!(p.marks[26].map(|m| m.ch), Some('3')); // top, column 6 is position 27
        assert_eq!(p.marks[0].map(|m| m.ch), Some('1'));
        assert_eq!(p.marks[3], None);
    }

    #[test]
    fn errors() {
        let e = Picture::parse(" a O x -\n", "f").unwrap_err();
        assert!(e.to_string().starts_with("f:1:"), "{e}");
        let e = parse_molecule("   O -\n   - - -\n   - -\n", "f").unwrap_err();
        assert!(
            e.message
                .contains("row 2 has more than 2 cells but row 1 has 2 cells"),
            "{e}"
        );
        let e = parse_molecule("   O - -\n   - -\n", "f").unwrap_err();
        assert!(
            e.message
                .contains("row 2 has 2 cells but row 1 has 3 cells"),
            "{e}"
        );
        let e = parse_molecule("   O X\n   - -\n", "f").unwrap_err();
        assert!(e.message.contains("'X'"), "{e}");
        let e = parse_molecule("   O -\n   - -\nThere are 2 balls in the box", "f").unwrap_err();
        assert!(e.message.contains("2 balls"), "{e}");
        let e = parse_molecule("hello world", "f").unwrap_err();
        assert!(e.message.contains("no board row"), "{e}");
    }

    #[test]
    fn rectangles() {
        let m = parse_molecule("   O -\n   - -\n   - O\n", "f").unwrap();
        assert_eq!(
            (m.shape(), m.atoms()),
            (Shape::new(2, 3).unwrap(), &[0, 5][..])
        );
        let m = parse_molecule("O - - -\n- - O -\n", "f").unwrap();
        assert_eq!(m.to_string(), "O---/--O-");
        // 3 wide, 2 high, with marks all round: left 1..2, bottom 3..5,
        // right 6..7 (bottom to top), top 8..10 (right to left).
        let text = "   a b c\n d - O - e\n f - - - g\n   h i j\n";
        let p = Picture::parse(text, "f").unwrap();
        assert_eq!(p.shape, Shape::new(3, 2).unwrap());
        let marks: String = p.marks.iter().map(|m| m.map_or(' ', |m| m.ch)).collect();
        assert_eq!(marks, "dfhijgecba");
        // A right mark 'O' (a letter of J. Forget's notation) on a row of a
        // rectangle is a mark, not a fourth cell.
        let text = " a - - - O\n b - - - O\n";
        let p = Picture::parse(text, "f").unwrap();
        assert_eq!(p.shape, Shape::new(4, 2).unwrap(), "no right mark at all");
        let text = " a - - - O\n b - - - c\n";
        let p = Picture::parse(text, "f").unwrap();
        assert_eq!(p.shape, Shape::new(3, 2).unwrap());
        assert_eq!(p.marks[6].map(|m| m.ch), Some('O'));
    }
}
