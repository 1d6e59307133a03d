//! Reading boards drawn in J. Forget's display.
//!
//! J. Forget's exploration draws a box like this, the border marks around the cells, one
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
//! [`parse_puzzle`] and [`load_puzzle`] in four [`Format`]s: this display (in
//! J. Forget's notation or Emacs `blackbox.el`'s `H`/`R`/digits), the linear
//! form `A2_B4 @&ab@&@?ba?@&@&@`, A. Janns's `P K` list of rays, and Simon
//! Tatham's Black Box save files and game IDs.
//!
//! One file per job: `picture.rs` reads the layout of a drawn box,
//! `marks.rs` turns border marks into an observation, and `display.rs`,
//! `linear.rs`, `janns.rs` and `tatham.rs` read the four formats.

use std::io::Read;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use crate::control::{Budget, Finished};
use crate::error::{Error, ParseError};
use crate::rules::board::Molecule;
use crate::rules::config::{Config, Shape};
use crate::rules::ray::Rules;
use crate::rules::spectrum::Observation;
use crate::setting::{Setting, Text};

mod display;
mod janns;
mod linear;
mod marks;
mod picture;
mod tatham;
#[cfg(test)]
mod tests;

use display::parse_display;
use janns::parse_janns;
use linear::parse_linear;

pub use janns::{janns_to_position, position_to_janns};
pub use picture::{CELL_CHARS, Located, Picture, load_molecule, parse_molecule};
pub use tatham::{
    GAME_NAME, PRESETS, SAVE_MAGIC, TathamBoard, TathamEnding, TathamGame, TathamKind, TathamMove,
    TathamParams, TathamRandom, TathamStep, balls_from_seed, decode_description,
    encode_description, game_id, is_tatham, laser_order, obfuscate, parse_tatham,
    parse_tatham_within, position_to_tatham, puzzle_save, save_file, save_file_at,
    tatham_to_position,
};

/// The ways an observed game (a puzzle) can be written.
///
/// * [`Format::Display`]: J. Forget's display — border marks around the box, in
///   J. Forget's notation (letters for exit pairs, `@` hit, `&` reflection, `~`
///   miss) or Emacs `blackbox.el`'s (digits for exit pairs, `H` hit, `R`
///   reflection); a blank or `?` mark is a ray not shot, interior `O`s are the
///   player's guess, and a `There are N balls in the box` line may give the
///   atom count; lines starting with `#` are comments.
/// * [`Format::Linear`]: one line `A4_B8 <spectrum>`, the spectrum string with
///   `?` for rays not shot; blank lines and lines starting with `#` around it.
/// * [`Format::Janns`]: A. Janns's input — `P K`, then one ray per line in
///   its own clockwise numbering (see [`janns_to_position`]); rays that
///   appear on no line missed the board (rules [`Rules::EdgeMiss`]).
/// * [`Format::Tatham`]: a save file of Simon Tatham's Black Box, or one of
///   its game IDs (`w8h8m5M5:…` or `w8h8m5M5#seed`); see [`parse_tatham`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    strum::Display,
    strum::IntoStaticStr,
    serde::Serialize,
    serde::Deserialize,
)]
#[strum(serialize_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// J. Forget's display, in J. Forget's or Emacs notation.
    Display,
    /// `An_Bp` and a spectrum string with `?` for rays not shot.
    Linear,
    /// A. Janns's `P K` header and one ray per line (the format named
    /// `seed001`).
    #[strum(to_string = "seed001")]
    Janns,
    /// Simon Tatham's Black Box: a save file or a game ID.
    Tatham,
}

impl Format {
    /// Every format, in the order of [`Format::name`]'s documentation.
    pub const ALL: [Format; 4] = [
        Format::Display,
        Format::Linear,
        Format::Janns,
        Format::Tatham,
    ];

    /// `display`, `linear`, `seed001` or `tatham`: the format's name (A.
    /// Janns's is `seed001`).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl FromStr for Format {
    type Err = String;

    /// Parses a format name, case-insensitively (`seed-001` is also accepted).
    fn from_str(s: &str) -> Result<Format, String> {
        let name = s.trim().to_ascii_lowercase();
        let name = if name == "seed-001" || name == "seed_001" {
            "seed001"
        } else {
            &name
        };
        (Format::ALL.into_iter().find(|f| f.name() == name)).ok_or_else(|| {
            format!(
                "unknown puzzle format {} (expected 'display', 'linear', 'seed001' or 'tatham')",
                crate::error::quote(s)
            )
        })
    }
}

/// A named puzzle as a listing of puzzles shows it: its name, file and
/// what it is, with what its text holds, and (asked for one) the text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PuzzleEntry<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its file.
    pub file: &'a str,
    /// What it is.
    pub about: &'a str,
    /// Its format.
    pub format: String,
    /// Its configuration, when its text gives one count of atoms.
    pub config: Option<String>,
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The fewest atoms it may hold, when its text says.
    pub atoms_min: Option<usize>,
    /// The most.
    pub atoms_max: Option<usize>,
    /// Rays shot, an exit pair once.
    pub rays_shot: usize,
    /// Border marks known: both ends of an exit pair.
    pub marks_known: usize,
    /// Its text (not in a listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
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
    /// line, A. Janns's `K`, the linear format's configuration, or Tatham's
    /// parameters when their least and most balls are equal.
    pub atoms: Option<usize>,
    /// The atom counts the text allows when it gives a range rather than one
    /// count (Tatham's parameters `m3M6`); [`Puzzle::atoms`] is then `None`.
    pub atom_range: Option<RangeInclusive<usize>>,
    /// The player's guess: the `O` cells of a display (`None` if the box has
    /// none). Its atom count need not equal [`Puzzle::atoms`] (a guess may be
    /// incomplete).
    pub guess: Option<Molecule>,
    /// The rules the format implies: `Some(EdgeMiss)` for A. Janns's format
    /// (its rays that never appear are misses), `None` otherwise.
    pub rules: Option<Rules>,
}

impl Puzzle {
    /// Width w (p) of the box.
    pub fn width(&self) -> usize {
        self.observation.width()
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.observation.shape()
    }

    /// The configuration `An_Bp` (`An_BwxH`), when the atom count is known.
    pub fn config(&self) -> Option<Config> {
        self.atoms
            .and_then(|n| Config::shaped(n, self.shape()).ok())
    }

    /// This puzzle as a listing shows it, named `name` in `file`, which is
    /// `about` ([`PuzzleEntry`]; no text).
    pub fn entry<'a>(&self, name: &'a str, file: &'a str, about: &'a str) -> PuzzleEntry<'a> {
        let atoms = self.atoms.map(|n| n..=n).or(self.atom_range.clone());
        PuzzleEntry {
            name,
            file,
            about,
            format: self.format.to_string(),
            config: self.config().map(|c| c.to_string()),
            width: self.width(),
            height: self.shape().height,
            atoms_min: atoms.as_ref().map(|r| *r.start()),
            atoms_max: atoms.as_ref().map(|r| *r.end()),
            rays_shot: self.observation.ray_count(),
            marks_known: self.observation.shot_count(),
            text: None,
        }
    }

    /// The atom counts and the rules to search this puzzle under: `atoms`
    /// and `rules` when given, else the puzzle's own ([`atoms_to_search`],
    /// the rules its file gives, else the standard ones). A game of
    /// Tatham's Black Box follows the standard rules only.
    ///
    /// [`atoms_to_search`]: Puzzle::atoms_to_search
    pub fn search_settings(
        &self,
        atoms: Option<RangeInclusive<usize>>,
        rules: Option<Rules>,
    ) -> Result<(RangeInclusive<usize>, Rules), Error> {
        let atoms = self.atoms_to_search(atoms)?;
        if self.format == Format::Tatham
            && let Some(rules) = rules.filter(|&r| r != Rules::Standard)
        {
            let why = format!(
                " {rules}: {} is a game of Tatham's Black Box, whose rays follow the standard rules: leave out ",
                self.origin
            );
            return Err(Error::invalid(crate::text![
                Setting::Rules,
                why,
                Setting::Rules
            ]));
        }
        Ok((atoms, rules.or(self.rules).unwrap_or_default()))
    }

    /// The atom counts to search the puzzle under: `given` (a front's
    /// atoms setting), else the count the puzzle gives, else its range. An
    /// error says to give the setting when the puzzle gives no count, or
    /// that the counts do not fit in its box.
    ///
    /// ```
    /// use bbx::puzzle::parse_puzzle;
    /// let p = parse_puzzle("A2_B4 @&??????????????", "p", None).unwrap();
    /// assert_eq!(p.atoms_to_search(None).unwrap(), 2..=2);
    /// assert_eq!(p.atoms_to_search(Some(1..=3)).unwrap(), 1..=3);
    /// let e = p.atoms_to_search(Some(3..=17)).unwrap_err().to_string();
    /// assert!(e.contains("17 atoms do not fit in the 4×4 box of p (16 cells)"), "{e}");
    /// ```
    pub fn atoms_to_search(
        &self,
        given: Option<RangeInclusive<usize>>,
    ) -> Result<RangeInclusive<usize>, Error> {
        let origin = &self.origin;
        let atoms = match (given.clone(), self.atoms, self.atom_range.clone()) {
            (Some(r), _, _) => r,
            (None, Some(n), _) => n..=n,
            (None, None, Some(r)) => r,
            (None, None, None) => {
                let what = format!(
                    "{origin}: the number of atoms is needed: add a line 'There are N balls in the box' or give "
                );
                return Err(Error::invalid(
                    Text::from(what)
                        .and(Setting::Atoms)
                        .and(" N (or a range, 3..5)"),
                ));
            }
        };
        let (shape, cells) = (self.shape(), self.shape().cells());
        if *atoms.start() > cells {
            return Err(Error::invalid(format!(
                "{} atoms do not fit in the {shape} box of {origin}",
                atoms.start(),
            )));
        }
        if *atoms.end() > cells {
            let (a, b) = (atoms.start(), atoms.end());
            return Err(Error::invalid(
                Text::default().and(Setting::Atoms).and(format!(
                    " {a}..{b}: {b} atoms do not fit in the {shape} box of {origin} ({cells} cells): end the range at {cells} at most"
                )),
            ));
        }
        Ok(atoms)
    }
}

/// Reads a number of atoms `N` or a range `A..B` (also `A..=B`), as the
/// fronts' atoms settings take it.
///
/// ```
/// use bbx::puzzle::parse_atom_counts;
/// assert_eq!(parse_atom_counts("4"), Ok(4..=4));
/// assert_eq!(parse_atom_counts(" 3..=5 "), Ok(3..=5));
/// assert!(parse_atom_counts("5..3").unwrap_err().contains("A at most B"));
/// assert!(parse_atom_counts("four").is_err());
/// ```
pub fn parse_atom_counts(s: &str) -> Result<RangeInclusive<usize>, String> {
    let bad = |why: &str| format!("expected a number of atoms N or a range A..B{why}");
    let num = |x: &str| {
        let x = x.trim();
        let digits = !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        digits
            .then(|| x.parse::<usize>().ok())
            .flatten()
            .ok_or_else(|| bad(""))
    };
    match s.split_once("..") {
        None => num(s).map(|n| n..=n),
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
            if a > b {
                return Err(bad(", A at most B (3..5, not 5..3)"));
            }
            Ok(a..=b)
        }
    }
}

/// Guesses the format of a puzzle text from its first lines (blank lines and
/// lines starting with `#` are skipped):
///
/// * the text starts with a record `SAVEFILE:`, or its first line is shaped
///   as a Tatham game ID (`w8h8m5M5:…`, `w8h8m5M5#…`: see
///   [`is_tatham`]) → [`Format::Tatham`];
/// * the first line starts with a configuration `An_Bp` → [`Format::Linear`];
/// * the first line is two whole numbers (`P K`) and the next line, if any,
///   holds only numbers, signed or not → [`Format::Janns`] (a display's
///   next line holds cells, so a wrong number such as `-1` is then reported
///   as A. Janns's error on its line);
/// * anything else → [`Format::Display`].
pub fn detect_format(text: &str) -> Format {
    let text = without_bom(text);
    let mut content = text.lines().filter(|l| !is_comment_or_blank(l));
    let Some(first) = content.next() else {
        return Format::Display;
    };
    if is_tatham(text) {
        return Format::Tatham;
    }
    if starts_with_config(first) {
        return Format::Linear;
    }
    let whole = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let number = |w: &str| whole(w.strip_prefix(['-', '+']).unwrap_or(w));
    let first_tokens = tokens(first);
    if first_tokens.len() == 2
        && first_tokens.iter().all(|&(_, w)| whole(w))
        && content
            .next()
            .is_none_or(|l| tokens(l).iter().all(|&(_, w)| number(w)))
    {
        return Format::Janns;
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
    let read = parse_puzzle_within(text, origin, format, &Budget::default())?;
    // Nobody holds the token and there is no deadline: never cut.
    read.value
        .ok_or_else(|| ParseError::new(origin, 0, 0, "stopped before it was read"))
}

/// [`parse_puzzle`] within `budget`: the puzzle, or nothing (`None`) when
/// the budget's deadline or token stopped the reading. Every format is read
/// in time linear in the text's length; a Tatham save file replays its
/// moves, which [`parse_tatham_within`] bounds.
pub fn parse_puzzle_within(
    text: &str,
    origin: &str,
    format: Option<Format>,
    budget: &Budget,
) -> Result<Finished<Option<Puzzle>>, ParseError> {
    check_text(text, origin, PUZZLE)?;
    let bare = without_bom(text);
    let read = |puzzle| Ok(Finished::complete(Some(puzzle)));
    match format.unwrap_or_else(|| detect_format(bare)) {
        Format::Display => read(parse_display(bare, origin)?),
        Format::Linear => read(parse_linear(bare, origin)?),
        Format::Janns => read(parse_janns(bare, origin)?),
        // Tatham's program refuses a save file with a byte-order mark:
        // the reader sees it.
        Format::Tatham => {
            let game = parse_tatham_within(text, origin, budget)?;
            Ok(game.map(|g| g.map(|g| g.puzzle())))
        }
    }
}

/// Reads an observed game from a file (`-` reads standard input); see
/// [`parse_puzzle`]. A file that cannot be read is an [`Error::Io`] naming it;
/// one that is empty, or is not text, is a [`ParseError`] naming it.
pub fn load_puzzle(path: &str, format: Option<Format>) -> Result<Puzzle, Error> {
    let (text, origin) = read_input(path, PUZZLE)?;
    Ok(parse_puzzle(&text, &origin, format)?)
}

/// [`load_puzzle`] within `budget`, reading included: the puzzle, or
/// nothing (`None`) when the budget's deadline or token stopped the work
/// (while the file or standard input was still being read — from a pipe
/// that is slow or never ends, say — or while the text was being read as a
/// puzzle).
pub fn load_puzzle_within(
    path: &str,
    format: Option<Format>,
    budget: &Budget,
) -> Result<Finished<Option<Puzzle>>, Error> {
    let read = read_input_within(path, PUZZLE, budget)?;
    let Some((text, origin)) = read.value else {
        return Ok(Finished::new(None, read.ended));
    };
    Ok(parse_puzzle_within(&text, &origin, format, budget)?)
}

/// What an argument that is no file holds, when it holds a puzzle itself: a
/// Tatham game ID (`w5h5m3M3:a8048f3fbbd74cba`, `w8h8m5M5#12345`) or a
/// puzzle in the linear form (`A2_B4 @&ab@&@cbac@&@&@`); `None` otherwise.
/// Both are one line.
///
/// ```
/// use bbx::puzzle::{Inline, inline};
/// assert_eq!(inline("w5h5m3M3:a8048f3fbbd74cba"), Some(Inline::GameId));
/// assert_eq!(inline("A2_B4 @&ab@&@cbac@&@&@"), Some(Inline::Linear));
/// assert_eq!(inline("game.txt"), None);
/// ```
pub fn inline(arg: &str) -> Option<Inline> {
    let t = arg.trim();
    if t.is_empty() || t.contains('\n') {
        return None;
    }
    if is_tatham(t) && !t.starts_with("SAVEFILE:") {
        Some(Inline::GameId)
    } else if starts_with_config(t) && tokens(t).len() == 2 {
        Some(Inline::Linear)
    } else {
        None
    }
}

/// What an argument holds in place of a file name ([`inline`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inline {
    /// A game ID of Tatham's Black Box.
    GameId,
    /// A puzzle in the linear form.
    Linear,
}

impl Inline {
    /// The name the text goes by in messages: `the game ID`, `the puzzle
    /// given inline`.
    pub fn origin(self) -> &'static str {
        match self {
            Inline::GameId => "the game ID",
            Inline::Linear => "the puzzle given inline",
        }
    }
}

/// Reads an observed game named on the command line: a file, `-` for
/// standard input, or the puzzle itself ([`inline`]: a Tatham game ID or
/// the linear form). A file that exists wins over the same text read as a
/// puzzle; an argument that is neither is the error of a missing file.
///
/// ```
/// use bbx::puzzle::load_puzzle_arg;
/// let p = load_puzzle_arg("A2_B4 @&ab@&@?ba?@&@&@", None).unwrap();
/// assert_eq!((p.origin.as_str(), p.observation.shot_count()), ("the puzzle given inline", 14));
/// ```
pub fn load_puzzle_arg(arg: &str, format: Option<Format>) -> Result<Puzzle, Error> {
    let exists = arg == "-" || std::path::Path::new(arg).exists();
    match inline(arg) {
        Some(kind) if !exists => Ok(parse_puzzle(arg.trim(), kind.origin(), format)?),
        _ => load_puzzle(arg, format),
    }
}

/// [`load_puzzle_arg`] within `budget`, as [`load_puzzle_within`] reads a
/// file: the puzzle, or nothing (`None`) when the budget stopped the work.
pub fn load_puzzle_arg_within(
    arg: &str,
    format: Option<Format>,
    budget: &Budget,
) -> Result<Finished<Option<Puzzle>>, Error> {
    let exists = arg == "-" || std::path::Path::new(arg).exists();
    match inline(arg) {
        Some(kind) if !exists => Ok(parse_puzzle_within(
            arg.trim(),
            kind.origin(),
            format,
            budget,
        )?),
        _ => load_puzzle_within(arg, format, budget),
    }
}

/// What a puzzle is, for the messages about an empty or binary input.
const PUZZLE: Expected = Expected {
    noun: "puzzle",
    description: "a puzzle: a board with its border marks, a line such as 'A4_B8 @&ab…', A. Janns's 'P K' and one ray per line, or a save file or game ID of Tatham's Black Box",
};

/// What an input should hold, for the messages about one that is empty, binary
/// or a directory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected {
    /// One word: `puzzle`, `molecule`.
    pub noun: &'static str,
    /// What the text should look like, for an empty input.
    pub description: &'static str,
}

/// The most bytes bbx reads of a puzzle, a molecule or a saved game: the
/// largest board bbx takes, 1000×1000, is about 2 MB in the display format.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Reads at most [`MAX_INPUT_BYTES`] from `source`, refusing more with an
/// error that names `origin` and says what was expected.
fn read_bounded(source: impl Read, origin: &str, expected: Expected) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    source
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            path: origin.into(),
            source,
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Error::invalid(format!(
            "{origin}: more than {} MiB, too much for a {} (the largest board, 1000×1000, takes about 2 MB): is it the right file?",
            MAX_INPUT_BYTES >> 20,
            expected.noun
        )));
    }
    Ok(bytes)
}

/// Reads the text of `path` (`-`: standard input), checked with
/// [`check_text`] and bounded by [`MAX_INPUT_BYTES`]; returns it with the
/// name to give it in messages. `expected` says what the text should hold
/// (for an empty, binary or oversized input).
pub(crate) fn read_input(path: &str, expected: Expected) -> Result<(String, String), Error> {
    let (bytes, origin) = if path == "-" {
        let origin = "standard input".to_string();
        (read_bounded(std::io::stdin(), &origin, expected)?, origin)
    } else {
        if std::path::Path::new(path).is_dir() {
            return Err(directory_error(path, expected));
        }
        let file = std::fs::File::open(path).map_err(|source| Error::Io {
            path: path.into(),
            source,
        })?;
        (read_bounded(file, path, expected)?, path.to_string())
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            // Valid up to here: count lines and characters in it.
            let before = std::str::from_utf8(good).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let byte = e.as_bytes()[good.len()];
            return Err(ParseError::new(
                origin,
                line,
                column,
                format!(
                    "not a text {}: byte 0x{byte:02X} is not UTF-8 (binary data, or text in another encoding such as UTF-16?)",
                    expected.noun
                ),
            )
            .into());
        }
    };
    check_text(&text, &origin, expected)?;
    Ok((text, origin))
}

/// How often a read waiting on its thread looks at its budget: a file read
/// sooner is never cut.
const READ_POLL: Duration = Duration::from_millis(50);

/// [`read_input`] within `budget`: the text and its name, or nothing
/// (`None`) when the budget's deadline or token stopped the reading. The
/// file is read on a thread of its own, so that a read that blocks (a pipe
/// that is slow or never ends) is given up when the budget says so, at
/// most [`READ_POLL`] later; the thread is then left to the end of the
/// process. Where no thread can be started (WebAssembly), it is read here.
pub(crate) fn read_input_within(
    path: &str,
    expected: Expected,
    budget: &Budget,
) -> Result<Finished<Option<(String, String)>>, Error> {
    // The budget is looked at every READ_POLL, not before the first: an
    // input read at once is read whatever the limit, so that the search
    // after it can say what the limit stopped.
    let (tx, rx) = mpsc::channel();
    let owned = path.to_string();
    let reader = std::thread::Builder::new()
        .name("bbx-read".into())
        .spawn(move || {
            let _ = tx.send(read_input(&owned, expected));
        });
    if reader.is_err() {
        return read_input(path, expected).map(|read| Finished::complete(Some(read)));
    }
    loop {
        match rx.recv_timeout(READ_POLL) {
            Ok(read) => return read.map(|read| Finished::complete(Some(read))),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(cut) = budget.check() {
                    return Ok(Finished::new(None, cut.into()));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::Internal(
                    "the thread reading the input stopped without an answer".into(),
                ));
            }
        }
    }
}

/// The error for a directory named where a file holding `expected` was.
pub(crate) fn directory_error(path: &str, expected: Expected) -> Error {
    Error::Io {
        path: path.into(),
        source: std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            format!("is a directory, not a {} file", expected.noun),
        ),
    }
}

/// Checks that `text` can be what `expected` describes: not empty (blanks only),
/// and text rather than binary data (no NUL or other control characters
/// besides tabs and line ends). A leading UTF-8 byte-order mark is allowed:
/// [`without_bom`] drops it.
pub(crate) fn check_text(text: &str, origin: &str, expected: Expected) -> Result<(), ParseError> {
    let text = without_bom(text);
    if text.trim().is_empty() {
        return Err(ParseError::new(
            origin,
            0,
            0,
            format!("the input is empty (expected {})", expected.description),
        ));
    }
    for (i, line) in text.split('\n').enumerate() {
        let bad = line
            .chars()
            .enumerate()
            .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\r'));
        if let Some((column, c)) = bad {
            let what = match c {
                '\0' => "a NUL byte".to_string(),
                c => format!("the control character U+{:04X}", c as u32),
            };
            return Err(ParseError::new(
                origin,
                i + 1,
                column + 1,
                format!(
                    "not a text {}: it holds {what} (binary data?)",
                    expected.noun
                ),
            ));
        }
    }
    Ok(())
}

/// `text` without a leading UTF-8 byte-order mark (some editors write one).
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

pub(crate) fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// The whitespace-separated words of a line with their 1-based columns (in
/// characters).
pub(crate) fn tokens(line: &str) -> Vec<(usize, &str)> {
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

/// Whether the line's first word starts with `An_Bp`, or `Am-M_Bp` for a
/// range (any case), or is a configuration mistyped: `A` and a digit, then
/// `_B` somewhere.
pub(crate) fn starts_with_config(line: &str) -> bool {
    let Some(&(_, word)) = tokens(line).first() else {
        return false;
    };
    let b = word.as_bytes();
    let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.is_empty() || !b[0].eq_ignore_ascii_case(&b'a') {
        return false;
    }
    let mut n = digits(1);
    // A configuration mistyped (`A3-_B8`, `A4_Bx`) is one all the same, for
    // the reader to say what is wrong with it.
    if n > 0 && word.to_ascii_lowercase().contains("_b") {
        return true;
    }
    // A range of counts: `A3-6_B8`.
    if n > 0 && b.get(1 + n) == Some(&b'-') {
        let more = digits(2 + n);
        if more == 0 {
            return false;
        }
        n += 1 + more;
    }
    if n == 0
        || b.get(1 + n) != Some(&b'_')
        || !b.get(2 + n).is_some_and(|c| c.eq_ignore_ascii_case(&b'b'))
    {
        return false;
    }
    digits(3 + n) > 0
}
