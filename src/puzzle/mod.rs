//! Reading boards drawn in the seed's display.
//!
//! The seed draws a box like this, the border marks around the cells, one
//! character every two columns:
//!
//! ```text
//!    @ & @ &
//!  @ O - O - @
//!  & - - - - c
//!  a - - - - a
//!  b - - - - b
//!    @ & @ c
//!
//! There are 2 balls in the box
//! ```
//!
//! The top line holds positions 4p..3p+1 from left to right, each row r starts
//! with position r and ends with position 3p+1−r, and the bottom line holds
//! positions p+1..2p. A board may also be drawn without its border, with or
//! without the three leading spaces. [`Picture::parse`] reads the layout and
//! keeps every mark with its line and column so that callers can interpret and
//! report them.
//!
//! Observed games (*puzzles*: the rays shot and their results) are read by
//! [`parse_puzzle`] and [`load_puzzle`] in three [`Format`]s: this display (in
//! the seed's notation or Emacs `blackbox.el`'s `H`/`R`/digits), the linear
//! form `A2_B4 @&ab@&@?ba?@&@&@` and seed 001's `P K` list of rays.

use std::collections::HashMap;
use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::str::FromStr;

use crate::error::{Error, ParseError};
use crate::rules::board::Molecule;
use crate::rules::config::{Config, MAX_WIDTH};
use crate::rules::enumeration::unrank;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;

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

/// A board read from the seed's display, before interpretation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Where the text came from.
    pub origin: String,
    /// Width p of the box.
    pub width: usize,
    /// The p² cell characters, row by row.
    pub cells: Vec<Located>,
    /// The mark of each border position (`marks[i]` is position i+1); `None`
    /// where the picture leaves it blank.
    pub marks: Vec<Option<Located>>,
    /// The count given by a `There are N balls in the box` line.
    pub balls: Option<(usize, usize)>,
}

fn is_cell(c: char) -> bool {
    CELL_CHARS.contains(&c)
}

/// Parses `There are N balls in the box` (also `is`, `ball`, `atoms`), returning N.
fn balls_line(s: &str) -> Option<usize> {
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
            n.parse().ok()
        }
        _ => None,
    }
}

impl Picture {
    /// Reads a picture; `origin` names the text in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Picture, ParseError> {
        let err =
            |line: usize, column: usize, msg: String| ParseError::new(origin, line, column, msg);
        let mut balls = None;
        // Non-blank lines other than the balls line: (line number, characters).
        let mut lines: Vec<(usize, Vec<char>)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            if line.is_empty() {
                continue;
            }
            if line.trim_start().to_ascii_lowercase().starts_with("there ") {
                match balls_line(line) {
                    Some(n) if balls.is_none() => {
                        balls = Some((n, i + 1));
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
                            "expected 'There are N balls in the box' with N a number".into(),
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
        let p = last_row - first_row + 1;
        if p > MAX_WIDTH {
            return Err(err(
                lines[first_row].0,
                0,
                format!("a box is at most {MAX_WIDTH} cells wide"),
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
                    "unexpected line after the board, which has {p} rows (a board is square: is a row missing or extra?)"
                ),
            ));
        }
        if offset == 0 && (top.is_some() || bottom.is_some()) {
            let (n, _) = &lines[top.or(bottom).unwrap_or(0)];
            return Err(err(
                *n,
                1,
                "border marks need the seed's layout: each row starts with ' m ' (a mark or a blank between spaces)".into(),
            ));
        }
        let mut cells = Vec::with_capacity(p * p);
        let mut marks: Vec<Option<Located>> = vec![None; 4 * p];
        let at = |l: &[char], col: usize| l.get(col).copied().unwrap_or(' ');
        let mark = |ch: char, line: usize, col: usize| {
            (ch != ' ').then_some(Located {
                ch,
                line,
                column: col + 1,
            })
        };
        for (r, (n, l)) in lines[first_row..=last_row].iter().enumerate() {
            let row = r + 1;
            let cell_count = (offset..l.len())
                .step_by(2)
                .take_while(|&c| is_cell(l[c]))
                .count();
            let limit = if offset == 3 {
                offset + 2 * p + 1
            } else {
                offset + 2 * p - 1
            };
            for k in 0..p {
                let col = offset + 2 * k;
                let ch = at(l, col);
                if !is_cell(ch) {
                    return Err(err(
                        *n,
                        col + 1,
                        if ch == ' ' {
                            format!(
                                "row {row} has {cell_count} cells but the board has {p} rows: a board is square"
                            )
                        } else {
                            // A mark where the row's last cell should be may
                            // mean too few cells for the number of rows.
                            let hint = if offset == 3 && k > 0 && col + 1 >= l.len() {
                                format!(
                                    "; if {ch:?} is a border mark, row {row} has {cell_count} cells but the board has {p} rows: a board is square"
                                )
                            } else {
                                String::new()
                            };
                            format!(
                                "unexpected character {ch:?} in the box (expected 'O' for an atom, '-' or '.' for an empty cell){hint}"
                            )
                        },
                    ));
                }
                cells.push(Located {
                    ch,
                    line: *n,
                    column: col + 1,
                });
                if k + 1 < p && at(l, col + 1) != ' ' {
                    return Err(err(
                        *n,
                        col + 2,
                        "expected a space between two cells".into(),
                    ));
                }
            }
            if offset == 3 {
                marks[row - 1] = mark(l[1], *n, 1);
                if at(l, 2 * p + 2) != ' ' {
                    return Err(err(
                        *n,
                        2 * p + 3,
                        "expected a space between the last cell and the border mark".into(),
                    ));
                }
                marks[3 * p + 1 - row - 1] = mark(at(l, 2 * p + 3), *n, 2 * p + 3);
                if is_cell(at(l, 2 * p + 3)) && at(l, 2 * p + 3) != 'O' {
                    return Err(err(
                        *n,
                        2 * p + 4,
                        format!(
                            "row {row} has more than {p} cells but the board has {p} rows: a board is square"
                        ),
                    ));
                }
            }
            if l.len() > limit {
                let extra = if offset == 0 && is_cell(at(l, limit + 1)) {
                    format!(
                        "row {row} has more than {p} cells but the board has {p} rows: a board is square"
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
            if l.len() > 3 + 2 * p - 1 || l.iter().take(3).any(|&c| c != ' ') {
                return Err(err(
                    *n,
                    0,
                    format!(
                        "the {which} border line must hold {p} marks at the columns of the cells"
                    ),
                ));
            }
            for k in 0..p {
                let col = 3 + 2 * k;
                if k + 1 < p && at(l, col + 1) != ' ' {
                    return Err(err(
                        *n,
                        col + 2,
                        format!("expected a space between two marks of the {which} border"),
                    ));
                }
                let pos = if which == "top" { 4 * p - k } else { p + 1 + k };
                marks[pos - 1] = mark(at(l, col), *n, col);
            }
        }
        Ok(Picture {
            origin: origin.to_string(),
            width: p,
            cells,
            marks,
            balls,
        })
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
            && n != atoms.len()
        {
            return Err(ParseError::new(
                &self.origin,
                line,
                0,
                format!(
                    "the text says {n} balls but the box holds {} atoms",
                    atoms.len()
                ),
            ));
        }
        Ok(Molecule::from_sorted_unchecked(self.width, atoms))
    }
}

/// Reads a molecule from text: the linear form on one line, or a picture.
pub fn parse_molecule(text: &str, origin: &str) -> Result<Molecule, ParseError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ParseError::new(
            origin,
            0,
            0,
            "no molecule found (expected the linear form, e.g. O-O-------------, or a picture of the box)",
        ));
    }
    if !t.contains('\n') && !t.contains(' ') {
        return Molecule::parse_linear(t, origin);
    }
    Picture::parse(text, origin)?.molecule()
}

/// Resolves a molecule given on the command line: `-` reads standard input; an
/// existing file is read (a picture or the linear form); a number is unranked
/// in `config`; anything else is parsed as the linear form. When `config` is
/// given, the molecule must belong to it.
pub fn load_molecule(arg: &str, config: Option<Config>) -> Result<Molecule, Error> {
    let m = if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|source| Error::Io {
                path: "standard input".into(),
                source,
            })?;
        parse_molecule(&text, "standard input")?
    } else if Path::new(arg).is_file() {
        let text = std::fs::read_to_string(arg).map_err(|source| Error::Io {
            path: arg.into(),
            source,
        })?;
        parse_molecule(&text, arg)?
    } else if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
        let config = config.ok_or_else(|| {
            Error::Invalid(format!(
                "'{arg}' looks like a molecule number: say which configuration with --config (e.g. --config A4_B8)"
            ))
        })?;
        let n: u64 = arg
            .parse()
            .map_err(|_| Error::Invalid(format!("molecule number {arg} is too large")))?;
        return unrank(config, n);
    } else if arg.contains(['/', '\\']) || arg.ends_with(".txt") {
        return Err(Error::Io {
            path: arg.into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    } else if arg.parse::<Config>().is_ok() {
        return Err(Error::Invalid(format!(
            "'{arg}' is a configuration, not a molecule: give a molecule (e.g. O-O-------------) or a number with --config {arg}"
        )));
    } else {
        Molecule::parse_linear(arg, "molecule argument")?
    };
    if let Some(c) = config {
        m.check_config(c)?;
    }
    Ok(m)
}

// ---------------------------------------------------------------------------
// Observed games ("puzzles") in three formats.
// ---------------------------------------------------------------------------

/// The ways an observed game (a puzzle) can be written.
///
/// * [`Format::Display`]: the seed's display — border marks around the box, in
///   the seed's notation (letters for exit pairs, `@` hit, `&` reflection, `~`
///   miss) or Emacs `blackbox.el`'s (digits for exit pairs, `H` hit, `R`
///   reflection); a blank or `?` mark is a ray not shot, interior `O`s are the
///   player's guess, and a `There are N balls in the box` line may give the
///   atom count.
/// * [`Format::Linear`]: one line `A4_B8 <spectrum>`, the spectrum string with
///   `?` for rays not shot; blank lines and lines starting with `#` around it.
/// * [`Format::Seed001`]: seed 001's input — `P K`, then one ray per line in
///   its own clockwise numbering (see [`seed001_to_position`]); rays that
///   appear on no line missed the board (rules [`Rules::EdgeMiss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The seed's display, in the seed's or Emacs notation.
    Display,
    /// `An_Bp` and a spectrum string with `?` for rays not shot.
    Linear,
    /// Seed 001's `P K` header and one ray per line.
    Seed001,
}

impl Format {
    /// Every format, in the order of [`Format::name`]'s documentation.
    pub const ALL: [Format; 3] = [Format::Display, Format::Linear, Format::Seed001];

    /// `display`, `linear` or `seed001` (the values of a `--format` flag).
    pub fn name(self) -> &'static str {
        match self {
            Format::Display => "display",
            Format::Linear => "linear",
            Format::Seed001 => "seed001",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    /// Parses a format name, case-insensitively (`seed-001` is also accepted).
    fn from_str(s: &str) -> Result<Format, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "display" => Ok(Format::Display),
            "linear" => Ok(Format::Linear),
            "seed001" | "seed-001" | "seed_001" => Ok(Format::Seed001),
            _ => Err(format!(
                "unknown puzzle format '{s}' (expected 'display', 'linear' or 'seed001')"
            )),
        }
    }
}

/// An observed game: the rays shot and their results, with what the text says
/// about the atoms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Puzzle {
    /// Where the text came from (a file name or `standard input`).
    pub origin: String,
    /// The format it was written in.
    pub format: Format,
    /// The rays shot and their results.
    pub observation: Observation,
    /// The atom count, when the text gives it: a `There are N balls in the box`
    /// line, seed 001's `K`, or the linear format's configuration.
    pub atoms: Option<usize>,
    /// The player's guess: the `O` cells of a display (`None` if the box has
    /// none). Its atom count need not equal [`Puzzle::atoms`] (a guess may be
    /// incomplete).
    pub guess: Option<Molecule>,
    /// The rules the format implies: `Some(EdgeMiss)` for seed 001's format
    /// (its rays that never appear are misses), `None` otherwise.
    pub rules: Option<Rules>,
}

impl Puzzle {
    /// Width p of the box.
    pub fn width(&self) -> usize {
        self.observation.width()
    }

    /// The configuration `An_Bp`, when the atom count is known.
    pub fn config(&self) -> Option<Config> {
        self.atoms.and_then(|n| Config::new(n, self.width()).ok())
    }
}

/// Converts a border position of seed 001's numbering to bbx's.
///
/// Seed 001 numbers the 4P positions from 1, **clockwise** from the top-left
/// corner: 1..P along the top from left to right, P+1..2P down the right side,
/// 2P+1..3P along the bottom from right to left, 3P+1..4P up the left side.
/// bbx numbers them counter-clockwise from the same corner (see
/// [`crate::rules::board`]), so both walk the same ring in opposite directions and
/// seed 001's `k` is bbx's `4P+1−k` on every side: top column c (`k = c`) is
/// `4P+1−c`, right row r (`k = P+r`) is `3P+1−r`, bottom column c
/// (`k = 3P+1−c`) is `P+c`, left row r (`k = 4P+1−r`) is `r`.
///
/// ```
/// use bbx::puzzle::seed001_to_position;
/// assert_eq!(seed001_to_position(5, 1), 20); // top, column 1
/// assert_eq!(seed001_to_position(5, 6), 15); // right, row 1
/// assert_eq!(seed001_to_position(5, 11), 10); // bottom, column 5
/// assert_eq!(seed001_to_position(5, 20), 1); // left, row 1
/// ```
///
/// # Panics
/// When `k` is not in 1..=4·width.
pub fn seed001_to_position(width: usize, k: usize) -> usize {
    assert!(
        k >= 1 && k <= 4 * width,
        "seed 001 position {k} out of 1..={}",
        4 * width
    );
    4 * width + 1 - k
}

/// Converts a bbx border position to seed 001's numbering (the inverse of
/// [`seed001_to_position`]).
///
/// # Panics
/// When `pos` is not in 1..=4·width.
pub fn position_to_seed001(width: usize, pos: usize) -> usize {
    assert!(
        pos >= 1 && pos <= 4 * width,
        "border position {pos} out of 1..={}",
        4 * width
    );
    4 * width + 1 - pos
}

/// Guesses the format of a puzzle text from its first lines (blank lines and
/// lines starting with `#` are skipped):
///
/// * the first line starts with a configuration `An_Bp` → [`Format::Linear`];
/// * the first line is two numbers (`P K`) and the next line, if any, holds
///   only numbers → [`Format::Seed001`] (a display's next line holds cells);
/// * anything else → [`Format::Display`].
pub fn detect_format(text: &str) -> Format {
    let mut content = text.lines().filter(|l| !is_comment_or_blank(l));
    let Some(first) = content.next() else {
        return Format::Display;
    };
    if starts_with_config(first) {
        return Format::Linear;
    }
    let numbers_only = |l: &str| l.chars().all(|c| c.is_ascii_digit() || c.is_whitespace());
    let first_tokens = tokens(first);
    if first_tokens.len() == 2 && numbers_only(first) && content.next().is_none_or(numbers_only) {
        return Format::Seed001;
    }
    Format::Display
}

/// Reads an observed game; `origin` names the text in error messages and
/// `format` is detected with [`detect_format`] when `None`.
///
/// ```
/// use bbx::puzzle::{parse_puzzle, Format};
/// let p = parse_puzzle("A2_B4 @&ab@&@?ba?@&@&@", "example", None).unwrap();
/// assert_eq!(p.format, Format::Linear);
/// assert_eq!((p.width(), p.atoms, p.observation.shot_count()), (4, Some(2), 14));
/// ```
pub fn parse_puzzle(
    text: &str,
    origin: &str,
    format: Option<Format>,
) -> Result<Puzzle, ParseError> {
    match format.unwrap_or_else(|| detect_format(text)) {
        Format::Display => parse_display(text, origin),
        Format::Linear => parse_linear(text, origin),
        Format::Seed001 => parse_seed001(text, origin),
    }
}

/// Reads an observed game from a file (`-` reads standard input); see
/// [`parse_puzzle`]. A file that cannot be read is an [`Error::Io`] naming it.
pub fn load_puzzle(path: &str, format: Option<Format>) -> Result<Puzzle, Error> {
    let (text, origin) = if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|source| Error::Io {
                path: "standard input".into(),
                source,
            })?;
        (text, "standard input")
    } else {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.into(),
            source,
        })?;
        (text, path)
    };
    Ok(parse_puzzle(&text, origin, format)?)
}

fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// The whitespace-separated words of a line with their 1-based columns (in
/// characters).
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, column)
    let mut column = 0;
    for (byte, c) in line.char_indices() {
        column += 1;
        if c.is_whitespace() {
            if let Some((b, col)) = start.take() {
                out.push((col, &line[b..byte]));
            }
        } else if start.is_none() {
            start = Some((byte, column));
        }
    }
    if let Some((b, col)) = start {
        out.push((col, &line[b..]));
    }
    out
}

/// Whether the line's first word starts with `An_Bp` (any case).
fn starts_with_config(line: &str) -> bool {
    let Some(&(_, word)) = tokens(line).first() else {
        return false;
    };
    let b = word.as_bytes();
    let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.is_empty() || !b[0].eq_ignore_ascii_case(&b'a') {
        return false;
    }
    let n = digits(1);
    if n == 0
        || b.get(1 + n) != Some(&b'_')
        || !b.get(2 + n).is_some_and(|c| c.eq_ignore_ascii_case(&b'b'))
    {
        return false;
    }
    digits(3 + n) > 0
}

/// What a border mark says about its ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MarkKind {
    Hit,
    Reflection,
    Miss,
    Label,
}

/// One mark of a ray that was shot, with its place in the text.
#[derive(Debug, Clone, Copy)]
struct ShotMark {
    pos: usize,
    ch: char,
    line: usize,
    column: usize,
    kind: MarkKind,
}

fn places(marks: &[&ShotMark]) -> String {
    let v: Vec<String> = marks
        .iter()
        .map(|m| format!("{}:{}", m.line, m.column))
        .collect();
    match v.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Builds the observation from marks given in text order: each pair label must
/// appear exactly twice. `reflection` is how the notation writes a reflection
/// (for the hint when a label appears once).
fn observation_from_marks(
    width: usize,
    marks: &[ShotMark],
    origin: &str,
    reflection: char,
) -> Result<Observation, ParseError> {
    let mut by_label: HashMap<char, Vec<&ShotMark>> = HashMap::new();
    for m in marks.iter().filter(|m| m.kind == MarkKind::Label) {
        by_label.entry(m.ch).or_default().push(m);
    }
    let mut obs = Observation::empty(width);
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

/// The column of N in the `There are N balls in the box` line.
fn balls_column(text: &str, line: usize) -> usize {
    text.lines()
        .nth(line.saturating_sub(1))
        .and_then(|l| tokens(l).get(2).map(|&(c, _)| c))
        .unwrap_or(0)
}

const UNKNOWN_MARK: &str = "(expected a letter, a digit, '@', '&', '~', 'H', 'R', '?' or a blank)";

fn parse_display(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
    let pic = Picture::parse(text, origin)?;
    let p = pic.width;
    let mut located: Vec<(usize, Located)> = pic
        .marks
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.map(|m| (i + 1, m)))
        .collect();
    located.sort_by_key(|(_, m)| (m.line, m.column));

    // The notation: Emacs if a mark is a digit, or if 'H'/'R' appear with no
    // lower-case letter and none of '@', '&', '~'.
    let digit = located.iter().find(|(_, m)| m.ch.is_ascii_digit());
    let h_or_r = located.iter().find(|(_, m)| matches!(m.ch, 'H' | 'R'));
    let seed_only = located
        .iter()
        .any(|(_, m)| m.ch.is_ascii_lowercase() || matches!(m.ch, '@' | '&' | '~'));
    let emacs = digit.or(if seed_only { None } else { h_or_r });

    let mut marks = Vec::with_capacity(located.len());
    for &(pos, m) in &located {
        let err = |msg: String| ParseError::new(origin, m.line, m.column, msg);
        let kind = match (emacs, m.ch) {
            (_, '?') => continue,
            (Some(_), c) if c.is_ascii_digit() => MarkKind::Label,
            (Some(_), 'H') => MarkKind::Hit,
            (Some(_), 'R') => MarkKind::Reflection,
            (Some((_, w)), c) if c.is_ascii_alphabetic() || matches!(c, '@' | '&' | '~') => {
                let why = if w.ch.is_ascii_digit() {
                    format!("the digit '{}' at {}:{}", w.ch, w.line, w.column)
                } else {
                    format!(
                        "the '{}' at {}:{} and no lower-case letter",
                        w.ch, w.line, w.column
                    )
                };
                return Err(err(format!(
                    "mark '{c}' belongs to the seed's notation (letters, '@', '&', '~'), but this board is in Emacs notation (digits, 'H', 'R'), as {why} shows: one board cannot mix the two notations"
                )));
            }
            (None, c) if c.is_ascii_alphabetic() => MarkKind::Label,
            (None, '@') => MarkKind::Hit,
            (None, '&') => MarkKind::Reflection,
            (None, '~') => MarkKind::Miss,
            (_, c) => return Err(err(format!("unknown border mark {c:?} {UNKNOWN_MARK}"))),
        };
        marks.push(ShotMark {
            pos,
            ch: m.ch,
            line: m.line,
            column: m.column,
            kind,
        });
    }
    let reflection = if emacs.is_some() { 'R' } else { '&' };
    let observation = observation_from_marks(p, &marks, origin, reflection)?;

    let atoms = match pic.balls {
        Some((n, line)) if n > p * p => {
            return Err(ParseError::new(
                origin,
                line,
                balls_column(text, line),
                format!("{n} balls do not fit in the {p}×{p} box ({} cells)", p * p),
            ));
        }
        Some((n, _)) => Some(n),
        None => None,
    };
    let guess_cells: Vec<usize> = pic
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.ch == 'O')
        .map(|(i, _)| i)
        .collect();
    let guess = (!guess_cells.is_empty()).then(|| Molecule::from_sorted_unchecked(p, guess_cells));
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Display,
        observation,
        atoms,
        guess,
        rules: None,
    })
}

fn parse_linear(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
    let mut content = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !is_comment_or_blank(l));
    let Some((index, line)) = content.next() else {
        return Err(ParseError::new(
            origin,
            0,
            0,
            "no puzzle found (expected a line such as 'A2_B4 @&ab@&@cbac@&@&@', '?' for rays not shot)",
        ));
    };
    let n = index + 1;
    let err = |column: usize, msg: String| ParseError::new(origin, n, column, msg);
    let words = tokens(line);
    let (config_col, config_text) = words[0];
    let config: Config = config_text.parse().map_err(|e| match e {
        Error::Config { reason, .. } => err(
            config_col,
            format!("invalid configuration '{config_text}': {reason}"),
        ),
        other => err(config_col, other.to_string()),
    })?;
    let p = config.width;
    let Some(&(col, spectrum)) = words.get(1) else {
        return Err(err(
            0,
            format!(
                "expected the spectrum after the configuration: {} characters, one per border position ('?' for a ray not shot)",
                4 * p
            ),
        ));
    };
    if let Some(&(extra, _)) = words.get(2) {
        return Err(err(
            extra,
            "unexpected text after the spectrum (comments go on lines of their own, starting with '#')".into(),
        ));
    }
    let chars: Vec<char> = spectrum.chars().collect();
    if chars.len() != 4 * p {
        return Err(err(
            col,
            format!(
                "the spectrum of {config} has 4p = {} characters (one per border position, '?' for a ray not shot), but this one has {}",
                4 * p,
                chars.len()
            ),
        ));
    }
    let mut marks = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let kind = match c {
            '?' => continue,
            '@' => MarkKind::Hit,
            '&' => MarkKind::Reflection,
            '~' => MarkKind::Miss,
            c if c.is_ascii_alphabetic() => MarkKind::Label,
            c => {
                return Err(err(
                    col + i,
                    format!(
                        "unexpected character {c:?} in the spectrum (expected '@', '&', '~', '?' or a letter)"
                    ),
                ));
            }
        };
        marks.push(ShotMark {
            pos: i + 1,
            ch: c,
            line: n,
            column: col + i,
            kind,
        });
    }
    let observation = observation_from_marks(p, &marks, origin, '&')?;
    if let Some((index, _)) = content.next() {
        return Err(ParseError::new(
            origin,
            index + 1,
            1,
            "unexpected line after the puzzle (the linear format is one line; comments start with '#')",
        ));
    }
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Linear,
        observation,
        atoms: Some(config.atoms),
        guess: None,
        rules: None,
    })
}

/// Parses a whole number token of a seed-001 file.
fn seed001_number(
    origin: &str,
    line: usize,
    (column, word): (usize, &str),
    what: &str,
) -> Result<usize, ParseError> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::new(
            origin,
            line,
            column,
            format!("expected {what} (a whole number), found '{word}'"),
        ));
    }
    word.parse()
        .map_err(|_| ParseError::new(origin, line, column, format!("{what} {word} is too large")))
}

fn parse_seed001(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
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
            "no puzzle found (seed 001's format starts with a line 'P K': box width and atom count)",
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
    let p = seed001_number(origin, head, words[0], "the box width P")?;
    let k = seed001_number(origin, head, words[1], "the atom count K")?;
    if p == 0 || p > MAX_WIDTH {
        return Err(ParseError::new(
            origin,
            head,
            words[0].0,
            format!("the box width P must be 1 to {MAX_WIDTH}, not {p}"),
        ));
    }
    if k > p * p {
        return Err(ParseError::new(
            origin,
            head,
            words[1].0,
            format!(
                "K = {k} atoms do not fit in the {p}×{p} box ({} cells)",
                p * p
            ),
        ));
    }
    let describe = |o: Outcome| match o {
        Outcome::Absorbed => "absorbed".to_string(),
        Outcome::Reflected => "reflected".to_string(),
        Outcome::Miss => "missed".to_string(),
        Outcome::Exit(b) => format!("came out at {}", position_to_seed001(p, b)),
    };
    // For each bbx position: its outcome and the line that gave it.
    let mut seen: Vec<Option<(Outcome, usize)>> = vec![None; 4 * p];
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
            let k = seed001_number(origin, n, w, "a border position")?;
            if k == 0 || k > 4 * p {
                return Err(ParseError::new(
                    origin,
                    n,
                    w.0,
                    format!(
                        "border position {k} is out of range: a {p}×{p} box has positions 1 to {}",
                        4 * p
                    ),
                ));
            }
            ends.push((w.0, k, seed001_to_position(p, k)));
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
                    let k = position_to_seed001(p, pos);
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
    let mut observation = Observation::empty(p);
    for (i, s) in seen.iter().enumerate() {
        observation.record(i + 1, s.map_or(Outcome::Miss, |(o, _)| o));
    }
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Seed001,
        observation,
        atoms: Some(k),
        guess: None,
        rules: Some(Rules::EdgeMiss),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n\nThere are 2 balls in the box\n";

    #[test]
    fn reads_the_seed_display() {
        let p = Picture::parse(SEED, "seed").unwrap();
        assert_eq!(p.width, 4);
        assert_eq!(p.balls, Some((2, 8)));
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
        assert_eq!(p.width, 8);
        assert_eq!(p.molecule().unwrap().atoms().len(), 4);
        assert_eq!(p.marks[26].map(|m| m.ch), Some('3')); // top, column 6 is position 27
        assert_eq!(p.marks[0].map(|m| m.ch), Some('1'));
        assert_eq!(p.marks[3], None);
    }

    #[test]
    fn errors() {
        let e = Picture::parse(" a O - x\n", "f").unwrap_err();
        assert!(e.to_string().starts_with("f:1:"), "{e}");
        let e = parse_molecule("   O -\n   - -\n   - -\n", "f").unwrap_err();
        assert!(e.message.contains("square"), "{e}");
        let e = parse_molecule("   O - -\n   - - -\n", "f").unwrap_err();
        assert!(e.message.contains("square"), "{e}");
        let e = parse_molecule("   O X\n   - -\n", "f").unwrap_err();
        assert!(e.message.contains("'X'"), "{e}");
        let e = parse_molecule("   O -\n   - -\nThere are 2 balls in the box", "f").unwrap_err();
        assert!(e.message.contains("2 balls"), "{e}");
        let e = parse_molecule("hello world", "f").unwrap_err();
        assert!(e.message.contains("no board row"), "{e}");
    }
}

#[cfg(test)]
mod puzzle_tests {
    use super::*;
    use crate::rules::board::{Side, port};
    use crate::rules::enumeration::Molecules;
    use crate::rules::spectrum::Spectrum;

    const A2_B4_SEED: &str = "   @ & @ &\n @ O - O - @\n & - - - - c\n a - - - - a\n b - - - - b\n   @ & @ c\n\nThere are 2 balls in the box\n";
    const A2_B4_EMACS: &str = "   H R H R\n H O - O - H\n R - - - - 3\n 1 - - - - 1\n 2 - - - - 2\n   H R H 3\n\nThere are 2 balls in the box\n";

    fn file(name: &str) -> String {
        format!("{}/puzzles/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    fn err(text: &str, format: Option<Format>) -> ParseError {
        match parse_puzzle(text, "f", format) {
            Ok(p) => panic!("expected an error, got {p:?}"),
            Err(e) => e,
        }
    }

    fn at(e: &ParseError) -> (usize, usize) {
        (e.line, e.column)
    }

    #[test]
    fn format_names() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!("SEED001".parse::<Format>(), Ok(Format::Seed001));
        let e = "emacs".parse::<Format>().unwrap_err();
        assert!(e.contains("'display', 'linear' or 'seed001'"), "{e}");
    }

    #[test]
    fn detection() {
        assert_eq!(detect_format(A2_B4_SEED), Format::Display);
        assert_eq!(
            detect_format("# c\n\na2_b4 @&ab@&@cbac@&@&@\n"),
            Format::Linear
        );
        assert_eq!(detect_format("5 5\n1\n2 6\n"), Format::Seed001);
        assert_eq!(detect_format("# c\n 5  5 \n"), Format::Seed001);
        assert_eq!(detect_format("5 5\n1 2 3\n"), Format::Seed001);
        // A display whose top line holds two digit marks stays a display.
        let t = "   1 2\n 3 - - 3\n   - -\n   1 2\n";
        assert_eq!(detect_format(t), Format::Display);
        assert_eq!(
            parse_puzzle(t, "t", None).unwrap().observation.shot_count(),
            6
        );
        assert_eq!(detect_format(""), Format::Display);
    }

    #[test]
    fn seed001_numbering_on_all_four_sides() {
        for p in 1..=9 {
            for k in 1..=4 * p {
                // Seed 001's own description of position k.
                let (side, line) = if k <= p {
                    (Side::Top, k)
                } else if k <= 2 * p {
                    (Side::Right, k - p)
                } else if k <= 3 * p {
                    (Side::Bottom, 3 * p + 1 - k)
                } else {
                    (Side::Left, 4 * p + 1 - k)
                };
                let pos = seed001_to_position(p, k);
                let q = port(p, pos);
                assert_eq!((q.side, q.line), (side, line), "p={p} k={k}");
                assert_eq!(position_to_seed001(p, pos), k);
            }
        }
        // p = 5: top column c is 4p+1−c; right row r is 3p+1−r; bottom column
        // c is p+c; left row r is r.
        assert_eq!(seed001_to_position(5, 2), 19);
        assert_eq!(seed001_to_position(5, 7), 14);
        assert_eq!(seed001_to_position(5, 15), 6);
        assert_eq!(seed001_to_position(5, 18), 3);
    }

    #[test]
    fn display_a2_b4_in_both_notations() {
        let seed = parse_puzzle(A2_B4_SEED, "seed", None).unwrap();
        assert_eq!(seed.format, Format::Display);
        assert_eq!(seed.observation.to_string(), "@&ab@&@cbac@&@&@");
        assert!(seed.observation.is_complete());
        assert_eq!(seed.atoms, Some(2));
        assert_eq!(seed.rules, None);
        let guess = seed.guess.clone().unwrap();
        assert_eq!(guess.to_string(), "O-O-------------");
        assert!(
            seed.observation
                .matches(&Spectrum::of(&guess, Rules::Standard))
        );
        // Positions by hand: 3 is left row 3 ('a'), its partner right row 3 = 10.
        assert_eq!(seed.observation.get(3), Some(Outcome::Exit(10)));
        assert_eq!(seed.observation.get(8), Some(Outcome::Exit(11)));
        assert_eq!(seed.observation.get(13), Some(Outcome::Reflected));
        assert_eq!(seed.observation.get(16), Some(Outcome::Absorbed));
        let emacs = parse_puzzle(A2_B4_EMACS, "emacs", None).unwrap();
        assert_eq!(emacs.observation, seed.observation);
        assert_eq!((emacs.atoms, emacs.guess), (seed.atoms, seed.guess));
    }

    #[test]
    fn display_blanks_and_question_marks_are_not_shot() {
        let t = "   ? & @\n @ - - - a\n   - - - a\n   - - -\n";
        let p = parse_puzzle(t, "t", None).unwrap();
        // Top (right to left) 12 '?', 11 '&', 10 '@'; left row 1 is 1, right
        // rows 1 and 2 are 9 and 8.
        assert_eq!(p.observation.to_string(), "@??????aa@&?");
        assert_eq!(p.observation.shot_count(), 5);
        assert_eq!((p.atoms, p.guess), (None, None));
    }

    #[test]
    fn seed_upper_case_letters_are_labels() {
        // In the seed's notation 'H' and 'R' are pair labels like any letter.
        let t = "   H a\n & - - a\n R - - H\n   R &\n";
        let p = parse_puzzle(t, "t", None).unwrap();
        // 'H': top column 1 (8) and right row 2 (5); 'a': top column 2 (7)
        // and right row 1 (6); 'R': left row 2 (2) and bottom column 1 (3).
        assert_eq!(p.observation.get(8), Some(Outcome::Exit(5)));
        assert_eq!(p.observation.get(7), Some(Outcome::Exit(6)));
        assert_eq!(p.observation.get(2), Some(Outcome::Exit(3)));
        assert_eq!(p.observation.to_string(), "&aa&bccb");
    }

    #[test]
    fn pure_thought_game() {
        let p = load_puzzle(&file("seed-pure-thought-a4-b8.txt"), None).unwrap();
        assert_eq!(
            (p.format, p.width(), p.atoms),
            (Format::Display, 8, Some(4))
        );
        assert_eq!(p.guess, None);
        assert_eq!(p.observation.shot_count(), 32);
        // Left 1 2 3 H 4 H 5 H; bottom 6 7 R H R H R H; right (bottom to top)
        // H R H R H R 2 1; top (right to left) H 3 H 4 H 5 7 6.
        assert_eq!(
            p.observation.to_string(),
            "abc@d@e@fg&@&@&@@&@&@&ba@c@d@egf"
        );
        assert_eq!(p.observation.get(1), Some(Outcome::Exit(24)));
        assert_eq!(p.observation.get(3), Some(Outcome::Exit(26)));
        assert_eq!(p.observation.get(10), Some(Outcome::Exit(31)));
        assert_eq!(p.config(), Some(Config::new(4, 8).unwrap()));
    }

    /// Rays shot and the observation string (derived by hand from the
    /// numbering) of each Emacs game; the player's four `O`s must explain every
    /// ray shot.
    #[test]
    fn seed_emacs_games() {
        let games = [
            (
                "seed-emacs-game-1.txt",
                12,
                "a&@?b?&@??c??c?d?d?????a??b?????",
            ),
            (
                "seed-emacs-game-2.txt",
                18,
                "@?a??b?@@??@&c?d@ee?fab?d?cf????",
            ),
            (
                "seed-emacs-game-3.txt",
                14,
                "@a?????&??b?c??dd?ea?fe????c?bf?",
            ),
            (
                "seed-emacs-game-4.txt",
                17,
                "a??@b&@cb??defc??????????gfedg?a",
            ),
        ];
        for (name, shot, expected) in games {
            let p = load_puzzle(&file(name), None).unwrap();
            assert_eq!(
                (p.format, p.width(), p.atoms),
                (Format::Display, 8, Some(4)),
                "{name}"
            );
            assert_eq!(p.observation.shot_count(), shot, "{name}");
            let guess = p.guess.clone().unwrap();
            assert_eq!(guess.atoms().len(), 4, "{name}");
            let s = Spectrum::of(&guess, Rules::Standard);
            assert!(p.observation.matches(&s), "{name}: guess {guess} gives {s}");
            assert_eq!(p.observation.to_string(), expected, "{name}");
        }
        // Game 1 by hand: top column 6 ('3') is position 27 and pairs with left
        // row 5; bottom columns 3 and 6 ('4') are positions 11 and 14; right
        // row 7 ('2') is 18 and pairs with bottom column 8 (16).
        let g1 = load_puzzle(&file("seed-emacs-game-1.txt"), None).unwrap();
        assert_eq!(g1.observation.get(27), Some(Outcome::Exit(5)));
        assert_eq!(g1.observation.get(11), Some(Outcome::Exit(14)));
        assert_eq!(g1.observation.get(18), Some(Outcome::Exit(16)));
        assert_eq!(g1.observation.get(2), Some(Outcome::Reflected));
        assert_eq!(g1.observation.get(8), Some(Outcome::Absorbed));
        assert_eq!(g1.observation.get(4), None);
    }

    #[test]
    fn seed001_sample() {
        let p = load_puzzle(&file("seed001-sample.txt"), None).unwrap();
        assert_eq!(
            (p.format, p.width(), p.atoms),
            (Format::Seed001, 5, Some(5))
        );
        assert_eq!(p.rules, Some(Rules::EdgeMiss));
        assert!(p.observation.is_complete());
        assert_eq!(p.observation.shot_count(), 20);
        let o = &p.observation;
        // "1": top column 1 = bbx 20, absorbed.
        assert_eq!(o.get(20), Some(Outcome::Absorbed));
        // "2 6": top column 2 (19) ↔ right row 1 (15).
        assert_eq!(o.get(19), Some(Outcome::Exit(15)));
        // "10 11": right row 5 (11) ↔ bottom column 5 (10).
        assert_eq!(o.get(11), Some(Outcome::Exit(10)));
        // "18 18": left row 3, reflected.
        assert_eq!(o.get(3), Some(Outcome::Reflected));
        // 16 and 20 appear on no line: left rows 5 and 1 missed.
        assert_eq!(
            (o.get(5), o.get(1)),
            (Some(Outcome::Miss), Some(Outcome::Miss))
        );
        // Exactly one 5-atom molecule fits (seed 001's claim).
        let fits: Vec<Molecule> = Molecules::new(p.config().unwrap())
            .filter(|m| o.matches(&Spectrum::of(m, Rules::EdgeMiss)))
            .collect();
        assert_eq!(fits.len(), 1, "{fits:?}");
    }

    #[test]
    fn seed001_tolerates_comments_and_repeated_pairs() {
        let p = parse_puzzle("# sample\n2 1\n\n1 3\n3 1\n", "t", None).unwrap();
        assert_eq!(p.observation.get(8), Some(Outcome::Exit(6)));
        assert_eq!(p.observation.get(1), Some(Outcome::Miss));
    }

    #[test]
    fn linear_puzzles() {
        let p = load_puzzle(&file("seed-a2-b4-molecule-2-spectrum.txt"), None).unwrap();
        assert_eq!((p.format, p.width(), p.atoms), (Format::Linear, 4, Some(2)));
        assert_eq!(p.observation.shot_count(), 16);
        assert_eq!(p.observation.to_string(), "@&ab@&@cbac@&@&@");
        assert_eq!(
            p.observation,
            parse_puzzle(A2_B4_SEED, "s", None).unwrap().observation
        );
        let p = load_puzzle(&file("a4-b6-molecules-868-and-15993.txt"), None).unwrap();
        assert_eq!((p.format, p.width(), p.atoms), (Format::Linear, 6, Some(4)));
        assert_eq!(p.observation.shot_count(), 24);
        for m in [
            "O-O-----------O---------O-----------",
            "--O---------O-O---------O-----------",
        ] {
            let m: Molecule = m.parse().unwrap();
            assert!(p.observation.matches(&Spectrum::of(&m, Rules::Standard)));
        }
        let p = parse_puzzle("a2_b4 @&ab@&@?ba?@&@&@\n# end\n", "t", None).unwrap();
        assert_eq!(p.observation.get(8), None);
        assert_eq!(p.observation.get(3), Some(Outcome::Exit(10)));
    }

    #[test]
    fn puzzle_files() {
        let files = [
            ("seed-pure-thought-a4-b8.txt", 8, Some(4), 32),
            ("seed-emacs-game-1.txt", 8, Some(4), 12),
            ("seed-emacs-game-2.txt", 8, Some(4), 18),
            ("seed-emacs-game-3.txt", 8, Some(4), 14),
            ("seed-emacs-game-4.txt", 8, Some(4), 17),
            ("seed001-sample.txt", 5, Some(5), 20),
            ("a4-b6-molecules-868-and-15993.txt", 6, Some(4), 24),
            ("seed-a2-b4-molecule-2-spectrum.txt", 4, Some(2), 16),
        ];
        for (name, width, atoms, shot) in files {
            let p = load_puzzle(&file(name), None).unwrap();
            assert_eq!(
                (p.width(), p.atoms, p.observation.shot_count()),
                (width, atoms, shot),
                "{name}"
            );
        }
    }

    #[test]
    fn missing_file_is_an_io_error_naming_it() {
        let e = load_puzzle("/nonexistent/puzzle.txt", None).unwrap_err();
        assert!(matches!(&e, Error::Io { path, .. } if path == "/nonexistent/puzzle.txt"));
    }

    // ---- errors: display ----

    #[test]
    fn display_unknown_mark() {
        let e = err("   @ &\n % - - a\n   - - a\n   @ &\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(e.message.contains("unknown border mark '%'"), "{e}");
        assert!(e.to_string().starts_with("f:2:2: "), "{e}");
    }

    #[test]
    fn display_unknown_cell() {
        let e = err("   @ &\n a - X a\n   - -\n", None);
        assert_eq!(at(&e), (2, 6));
        assert!(e.message.contains("'X'"), "{e}");
    }

    #[test]
    fn display_label_once() {
        let e = err("   @ &\n a - - @\n   - - &\n   @ &\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(
            e.message
                .contains("pair label 'a' appears only once (at 2:2)"),
            "{e}"
        );
        assert!(e.message.contains("cannot pair with itself"), "{e}");
        // In Emacs notation the hint names 'R'.
        let e = err("   H R\n 1 - - H\n   - - R\n   H R\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(
            e.message.contains("'1' appears only once") && e.message.contains("'R'"),
            "{e}"
        );
    }

    #[test]
    fn display_label_three_times() {
        let e = err("   a &\n a - - @\n   - - a\n   @ &\n", None);
        assert_eq!(at(&e), (3, 8));
        assert!(
            e.message
                .contains("pair label 'a' appears 3 times (at 1:4, 2:2 and 3:8)"),
            "{e}"
        );
        let e = err("   1 1\n 1 - - 1\n   - -\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(
            e.message
                .contains("'1' appears 4 times (at 1:4, 1:6, 2:2 and 2:8)"),
            "{e}"
        );
    }

    #[test]
    fn display_mixed_notations() {
        let e = err("   1 a\n 1 - - a\n   - -\n", None);
        assert_eq!(at(&e), (1, 6));
        assert!(
            e.message
                .contains("mark 'a' belongs to the seed's notation"),
            "{e}"
        );
        assert!(e.message.contains("the digit '1' at 1:4"), "{e}");
        let e = err("   1 1\n @ - -\n   - -\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(e.message.contains("cannot mix"), "{e}");
        // 'H' with no lower-case letter and no '@', '&', '~' is Emacs; another
        // upper-case letter is then out of place.
        let e = err("   H R\n A - - A\n   - -\n", None);
        assert_eq!(at(&e), (2, 2));
        assert!(
            e.message
                .contains("the 'H' at 1:4 and no lower-case letter"),
            "{e}"
        );
    }

    #[test]
    fn display_not_square() {
        let e = err("   @ &\n a - - - a\n   - - -\n", None);
        assert_eq!(at(&e), (2, 8));
        assert!(e.message.contains("square"), "{e}");
        // Three rows of two cells: the right mark of row 1 stands where its
        // third cell should be.
        let e = err("   @ & @\n a - - a\n   - -\n   - -\n", None);
        assert_eq!(at(&e), (2, 8));
        assert!(
            e.message.contains(
                "if 'a' is a border mark, row 1 has 2 cells but the board has 3 rows: a board is square"
            ),
            "{e}"
        );
        let e = err("   - -\n   - -\n   - -\n", Some(Format::Display));
        assert_eq!(at(&e), (1, 8));
        assert!(
            e.message
                .contains("row 1 has 2 cells but the board has 3 rows"),
            "{e}"
        );
    }

    #[test]
    fn display_too_many_balls() {
        let e = err(
            "   @ &\n a - - a\n   - -\n\nThere are 5 balls in the box\n",
            None,
        );
        assert_eq!(at(&e), (5, 11));
        assert!(
            e.message
                .contains("5 balls do not fit in the 2×2 box (4 cells)"),
            "{e}"
        );
    }

    // ---- errors: linear ----

    #[test]
    fn linear_wrong_length() {
        let e = err("# c\nA2_B4 @&ab@&@cbac@&@&\n", None);
        assert_eq!(at(&e), (2, 7));
        assert!(
            e.message.contains("4p = 16 characters") && e.message.contains("this one has 15"),
            "{e}"
        );
    }

    #[test]
    fn linear_bad_config_and_count() {
        let e = err("A5_B2 ????????\n", None);
        assert_eq!(at(&e), (1, 1));
        assert!(e.message.contains("5 atoms do not fit in a 2×2 box"), "{e}");
        let e = err("A2_B4 @&ab@&@cbac@&@&@\n", Some(Format::Seed001));
        assert_eq!(at(&e), (1, 1));
        let e = err("X2_B4 @&ab@&@cbac@&@&@\n", Some(Format::Linear));
        assert_eq!(at(&e), (1, 1));
        assert!(e.message.contains("invalid configuration 'X2_B4'"), "{e}");
    }

    #[test]
    fn linear_bad_characters_and_labels() {
        let e = err("A2_B4 @&ab@&@cb%c@&@&@", None);
        assert_eq!(at(&e), (1, 16));
        assert!(e.message.contains("unexpected character '%'"), "{e}");
        let e = err("A2_B4 @&ab@&@cbaa@&@&@", None);
        assert_eq!(at(&e), (1, 17));
        assert!(
            e.message
                .contains("pair label 'a' appears 3 times (at 1:9, 1:16 and 1:17)"),
            "{e}"
        );
        let e = err("  A2_B4 @&ab@&@cbaa@&@&@", None);
        assert_eq!(at(&e), (1, 19));
        let e = err("A2_B4 @&ab@&@cbac@&@&d", None);
        assert_eq!(at(&e), (1, 22));
        assert!(e.message.contains("'d' appears only once"), "{e}");
        let e = err("A2_B4 @&ab@&@cbac@&@&@ extra", None);
        assert_eq!(at(&e), (1, 24));
        let e = err("A2_B4 @&ab@&@cbac@&@&@\nA2_B4 @&ab@&@cbac@&@&@\n", None);
        assert_eq!(at(&e), (2, 1));
        let e = err("A2_B4\n", None);
        assert!(e.message.contains("expected the spectrum"), "{e}");
    }

    // ---- errors: seed 001 ----

    #[test]
    fn seed001_out_of_range() {
        let e = err("5 5\n1\n2 21\n", None);
        assert_eq!(at(&e), (3, 3));
        assert!(
            e.message.contains("border position 21 is out of range"),
            "{e}"
        );
        let e = err("5 5\n0\n", None);
        assert_eq!(at(&e), (2, 1));
    }

    #[test]
    fn seed001_recorded_twice() {
        let e = err("5 5\n2 6\n1\n6 3\n", None);
        assert_eq!(at(&e), (4, 1));
        assert!(
            e.message.contains("ray recorded twice with different results: at position 6, line 2 says came out at 2 but line 4 says came out at 3"),
            "{e}"
        );
        let e = err("5 5\n4\n4 4\n", None);
        assert_eq!(at(&e), (3, 1));
        assert!(
            e.message
                .contains("line 2 says absorbed but line 3 says reflected"),
            "{e}"
        );
    }

    #[test]
    fn seed001_three_numbers_and_words() {
        let e = err("5 5\n1 2 3\n", None);
        assert_eq!(at(&e), (2, 5));
        assert!(e.message.contains("not 3"), "{e}");
        let e = err("5 5\n1\n2 x\n", Some(Format::Seed001));
        assert_eq!(at(&e), (3, 3));
        assert!(e.message.contains("found 'x'"), "{e}");
        let e = err("5 five\n", Some(Format::Seed001));
        assert_eq!(at(&e), (1, 3));
    }

    #[test]
    fn seed001_too_many_atoms() {
        let e = err("5 26\n1\n", None);
        assert_eq!(at(&e), (1, 3));
        assert!(
            e.message
                .contains("K = 26 atoms do not fit in the 5×5 box (25 cells)"),
            "{e}"
        );
        let e = err("0 0\n", None);
        assert_eq!(at(&e), (1, 1));
    }
}
