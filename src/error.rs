//! Errors: what went wrong, where, and what was expected.
//!
//! Every error that comes from user input names its origin (a file name, or the
//! command-line argument it came from), the line and column, and what was
//! expected there, in the style of a compiler message:
//!
//! ```text
//! puzzle.txt:3:7: unknown border mark '%' (expected a letter, a digit, '@', '&', 'H', 'R', '?' or a blank)
//! ```

use std::fmt;

use crate::setting::{Job, Naming, Plain, Setting, Text};

/// A problem in some text given to bbx, with its location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Where the text came from: a file name or a description such as `molecule argument`.
    pub origin: String,
    /// 1-based line number (1 for a one-line argument).
    pub line: usize,
    /// 1-based column (in characters); 0 when the problem concerns the whole line or text.
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ParseError {
    /// Builds an error at `line`:`column` of `origin`.
    pub fn new(
        origin: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> ParseError {
        ParseError {
            origin: origin.into(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = one_line(&self.origin);
        match (self.line, self.column) {
            (0, _) => write!(f, "{origin}: {}", self.message),
            (l, 0) => write!(f, "{origin}:{l}: {}", self.message),
            (l, c) => write!(f, "{origin}:{l}:{c}: {}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Everything that can go wrong in the bbx library.
///
/// Messages that say what would get further name a
/// [`Setting`], never a command-line flag:
/// [`show`](Error::show) names the settings the way a front does, and
/// `Display` in plain words ([`Plain`]). Its kind is the variant's name in
/// snake case (`<&str>::from(&error)`: `work_dir`), as JSON names it.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr)]
#[error("{}", self.show(&Plain))]
#[strum(serialize_all = "snake_case")]
pub enum Error {
    /// Text that does not say what bbx expects (a molecule, a spectrum, a puzzle).
    Parse(#[from] ParseError),
    /// A configuration such as `A4_B8` that is malformed or impossible.
    Config {
        /// The text as given.
        input: String,
        /// Why it was refused and what is expected.
        reason: String,
    },
    /// A request that does not fit the board or configuration (a ray position out of
    /// range, a molecule number beyond the count, ...).
    Invalid(Text),
    /// A file that could not be read or written.
    Io {
        /// The file concerned.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file of a census's work directory that could not be made, read or
    /// written.
    WorkDir {
        /// The file or directory concerned.
        path: String,
        /// What bbx was doing: "write a partition file", ...
        what: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The SQLite database of a catalogue failed.
    #[cfg(feature = "catalogue")]
    Database {
        /// The catalogue file.
        path: String,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The SAT solver failed (not: found no answer).
    Solver(#[source] varisat::solver::SolverError),
    /// A value could not be written as JSON.
    Json(#[from] serde_json::Error),
    /// A catalogue file whose content bbx cannot have written: a damaged page,
    /// a row that is not a molecule. Said only of a file whose header says
    /// bbx made it (the message may advise removing it).
    Damaged {
        /// The catalogue file.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// The machine refused what bbx needs to run: a thread, a network
    /// connection to another process of a census.
    System(Text),
    /// A file another program is writing: another bbx holds its writer's
    /// lock, or SQLite's lock outlasted the wait; the message names the file
    /// and says what to do.
    Busy(Text),
    /// Something bbx relies on did not hold: a bug, or damaged data it made
    /// itself (a catalogue row that is not a molecule, say).
    Internal(String),
}

impl Error {
    /// A request that does not fit ([`Error::Invalid`]).
    pub fn invalid(message: impl Into<Text>) -> Error {
        Error::Invalid(message.into())
    }

    /// The machine refused what bbx needs ([`Error::System`]).
    pub fn system(message: impl Into<Text>) -> Error {
        Error::System(message.into())
    }

    /// A file another program holds ([`Error::Busy`]).
    pub fn busy(message: impl Into<Text>) -> Error {
        Error::Busy(message.into())
    }

    /// The message, with each setting it refers to named by `naming`.
    pub fn show(&self, naming: &dyn Naming) -> String {
        match self {
            Error::Parse(e) => e.to_string(),
            Error::Config { input, reason } => {
                format!("invalid configuration {}: {reason}", quote(input))
            }
            Error::Invalid(t) | Error::System(t) | Error::Busy(t) => t.show(naming),
            Error::Io { path, source } => format!("{}: {source}", one_line(path)),
            Error::WorkDir { path, what, source } => format!(
                "{}: cannot {what}: {source} (is there room on the disk? {} chooses another place)",
                one_line(path),
                naming.name(Setting::WorkDir)
            ),
            #[cfg(feature = "catalogue")]
            Error::Database { path, source } => {
                format!("{path}: {}", database_message(source, naming))
            }
            Error::Solver(e) => format!("the SAT solver failed: {e}"),
            Error::Json(e) => format!("cannot write JSON: {e}"),
            Error::Damaged { path, detail } => format!(
                "{path}: the catalogue is damaged ({detail}); {}",
                rebuild(naming)
            ),
            Error::Internal(m) => {
                format!("{m} (this is a bug or damaged data: please report it)")
            }
        }
    }
}

/// What to do with a damaged catalogue.
fn rebuild(naming: &dyn Naming) -> String {
    let explore = naming.job(&Job::Explore(None, "NEW".into()));
    let census = naming.job(&Job::StoreGroups(None, "NEW".into()));
    format!(
        "build it again in a new file ({explore}, or for a census {census}), or remove this one"
    )
}

impl Error {
    /// Whether this is a failure of bbx or of the machine rather than bad
    /// input: the database, the solver, writing JSON, a file that cannot be
    /// written for want of space or rights, a broken invariant. The command
    /// line tells them apart by its exit status (3 against 2).
    pub fn is_failure(&self) -> bool {
        use std::io::ErrorKind;
        match self {
            Error::Parse(_) | Error::Config { .. } | Error::Invalid(_) => false,
            Error::Io { source, .. } | Error::WorkDir { source, .. } => !matches!(
                source.kind(),
                ErrorKind::NotFound
                    | ErrorKind::PermissionDenied
                    | ErrorKind::IsADirectory
                    | ErrorKind::NotADirectory
                    | ErrorKind::AlreadyExists
                    | ErrorKind::InvalidData
                    | ErrorKind::InvalidInput
                    | ErrorKind::UnexpectedEof
            ),
            #[cfg(feature = "catalogue")]
            Error::Database { .. } => true,
            Error::Damaged { .. }
            | Error::Solver(_)
            | Error::Json(_)
            | Error::System(_)
            | Error::Busy(_)
            | Error::Internal(_) => true,
        }
    }
}

/// What SQLite said, and what to do about it when that is clear.
#[cfg(feature = "catalogue")]
fn database_message(e: &rusqlite::Error, naming: &dyn Naming) -> String {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => format!(
            "{e}: another program holds the catalogue (another bbx writing it, or a reader inside a long transaction); when it is done, run the same command again: an exploration resumes where it stopped"
        ),
        Some(ErrorCode::DatabaseCorrupt) => {
            format!("{e}: the catalogue is damaged; {}", rebuild(naming))
        }
        Some(ErrorCode::NotADatabase) => {
            format!(
                "{e}: not a bbx catalogue; give another file with {}",
                naming.name(Setting::Db)
            )
        }
        Some(ErrorCode::ReadOnly) => format!(
            "{e}: the catalogue cannot be written; SQLite also needs to create its journal (FILE-journal) beside it, so the directory must be writable too"
        ),
        Some(ErrorCode::CannotOpen) => format!(
            "{e}: cannot open or create the catalogue here: the directory must exist and be writable"
        ),
        Some(ErrorCode::DiskFull) => format!(
            "{e}: the disk is full; what was committed is kept: free some space and run the same command again"
        ),
        _ => e.to_string(),
    }
}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A count with its noun, singular for one: `quantity(1, "atom", "atoms")` is
/// `"1 atom"`, `quantity(3, "atom", "atoms")` is `"3 atoms"`. Every message
/// that counts something says it this way.
///
/// ```
/// use bbx::error::quantity;
/// assert_eq!(quantity(1usize, "spectrum", "spectra"), "1 spectrum");
/// assert_eq!(quantity(0u64, "molecule", "molecules"), "0 molecules");
/// ```
pub fn quantity<T>(n: T, singular: &str, plural: &str) -> String
where
    T: fmt::Display + PartialEq + From<u8>,
{
    if n == T::from(1) {
        format!("{n} {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// A whole number with its thousands grouped: `229,246`.
///
/// ```
/// assert_eq!(bbx::error::grouped(229246u32), "229,246");
/// assert_eq!(bbx::error::grouped(17u8), "17");
/// ```
pub fn grouped(n: impl Into<u128>) -> String {
    let digits = n.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// [`quantity`] with the number's thousands grouped: `229,246 molecules`.
pub fn counted(n: impl Into<u128>, singular: &str, plural: &str) -> String {
    let n = n.into();
    let noun = if n == 1 { singular } else { plural };
    format!("{} {noun}", grouped(n))
}

/// A number that is an estimate, in words: `94.4 billion`, `229 thousand`,
/// `5,210`.
///
/// ```
/// assert_eq!(bbx::error::about(94.4e9), "94.4 billion");
/// assert_eq!(bbx::error::about(5210.4), "5,210");
/// ```
pub fn about(n: f64) -> String {
    if !n.is_finite() || n < 0.0 {
        return format!("{n}");
    }
    if n < 1e5 {
        grouped(n.round() as u128)
    } else if n < 1e6 {
        format!("{:.0} thousand", n / 1e3)
    } else if n < 1e9 {
        format!("{:.1} million", n / 1e6)
    } else if n < 1e12 {
        format!("{:.1} billion", n / 1e9)
    } else if n < 1e15 {
        format!("{:.1} trillion", n / 1e12)
    } else {
        format!("{n:.2e}")
    }
}

/// A mean number of molecules, such as those a ray is expected to leave, as
/// the rankings show it: an exact mean with two decimals and its thousands
/// grouped (`27,236.28`; from a million on, whole: `1,576,760,333,552`), a
/// mean estimated from a sample in words ([`about`]: `1.6 trillion`).
///
/// ```
/// assert_eq!(bbx::error::mean(27236.284, false), "27,236.28");
/// assert_eq!(bbx::error::mean(1_576_760_333_552.43, false), "1,576,760,333,552");
/// assert_eq!(bbx::error::mean(1_576_760_333_552.43, true), "1.6 trillion");
/// ```
pub fn mean(n: f64, estimate: bool) -> String {
    if !n.is_finite() || n < 0.0 {
        return format!("{n}");
    }
    if estimate {
        return about(n);
    }
    if n >= 1e6 {
        return grouped(n.round() as u128);
    }
    let two = format!("{n:.2}");
    let (whole, fraction) = two.split_once('.').unwrap_or((&two, "00"));
    format!(
        "{}.{fraction}",
        grouped(whole.parse::<u128>().unwrap_or_default())
    )
}

/// A name the user gave (a file's path) as a message shows it: whole, its
/// line ends and other control characters escaped (`\n`), so that the
/// message stays on one line.
///
/// ```
/// use bbx::error::one_line;
/// assert_eq!(one_line("games/a.txt"), "games/a.txt");
/// assert_eq!(one_line("a\nb.txt"), "a\\nb.txt");
/// ```
pub fn one_line(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.chars().any(char::is_control) {
        return name.into();
    }
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// The most characters of a user's text a message quotes ([`quote`]).
pub const QUOTE_CHARS: usize = 60;

/// A piece of a user's text as a message shows it, on one line and short:
/// line ends, tabs, quotes and other characters that are not plainly
/// printable escaped as Rust escapes them (`\n`, `\t`, `\'`, `\u{feff}`),
/// and only its first [`QUOTE_CHARS`] characters, with `…` after them when
/// there are more. [`quote`] puts it between single quotes.
///
/// ```
/// use bbx::error::field;
/// assert_eq!(field("F2\nMOVE"), "F2\\nMOVE");
/// assert_eq!(field(&"ab".repeat(40)), format!("{}…", "ab".repeat(30)));
/// ```
pub fn field(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == QUOTE_CHARS {
            out.push('…');
            break;
        }
        // Escaped as in Rust's source, except that a double quote stands
        // as it is (fields are quoted with single ones).
        if c == '"' {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// [`field`] between single quotes: how every message quotes what the
/// user wrote.
///
/// ```
/// use bbx::error::quote;
/// assert_eq!(quote("w8h6m5M5"), "'w8h6m5M5'");
/// assert_eq!(quote("it's"), "'it\\'s'");
/// ```
pub fn quote(text: &str) -> String {
    format!("'{}'", field(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::ErrorKind;

    #[test]
    fn quoted_fields_stay_on_one_short_line() {
        assert_eq!(quote("F2\r\nMOVE    :"), "'F2\\r\\nMOVE    :'");
        assert_eq!(quote("\u{feff}x\ty"), "'\\u{feff}x\\ty'");
        let long = "0123456789".repeat(1_000_000);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_CHARS + 3, "{q}");
        assert!(q.ends_with("…'"), "{q}");
        // Exactly the cap: nothing cut.
        let sixty = "x".repeat(QUOTE_CHARS);
        assert_eq!(quote(&sixty), format!("'{sixty}'"));
        assert_eq!(quote("é→ü"), "'é→ü'");
    }

    #[test]
    fn bad_input_and_failures_are_told_apart() {
        let input = [
            Error::invalid("ray 99"),
            Error::Io {
                path: "x.txt".into(),
                source: std::io::Error::from(ErrorKind::NotFound),
            },
        ];
        for e in input {
            assert!(!e.is_failure(), "{e}");
        }
        let failures = [
            Error::system("cannot start the solver's thread"),
            Error::busy("another program is writing bbx.sqlite"),
            Error::Internal("a census worker failed".into()),
            Error::WorkDir {
                path: "work/part-0".into(),
                what: "write a partition file".into(),
                source: std::io::Error::from(ErrorKind::StorageFull),
            },
        ];
        for e in failures {
            assert!(e.is_failure(), "{e}");
        }
        let full = Error::WorkDir {
            path: "work/part-0".into(),
            what: "write a partition file".into(),
            source: std::io::Error::from(ErrorKind::StorageFull),
        };
        assert!(
            full.to_string()
                .contains("the work directory chooses another place")
        );
    }
}
