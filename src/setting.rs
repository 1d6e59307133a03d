//! The settings a user can change, as the library names them, and prose
//! that refers to them.
//!
//! The library never names a command-line flag. When a message says what
//! would get further ("the memory bound stopped the search: raise it"), it
//! names a [`Setting`], and the front that shows the message — the `bbx`
//! command line, the web page, a program of yours — names the setting its
//! own way through [`Naming`]: the command line as `--memory`, a page as
//! "the memory bound". [`Text`] is prose with such references left open
//! until it is shown.
//!
//! ```
//! use bbx::setting::{Naming, Plain, Setting, Text};
//!
//! struct Flags;
//! impl Naming for Flags {
//!     fn name(&self, s: Setting) -> String {
//!         format!("--{}", s.key())
//!     }
//! }
//!
//! let t = Text::from("raise the bound (")
//!     .and(Setting::Memory)
//!     .and(" raises it)");
//! assert_eq!(t.show(&Flags), "raise the bound (--memory raises it)");
//! assert_eq!(t.to_string(), "raise the bound (the memory bound raises it)");
//! assert_eq!(t.show(&Plain), t.to_string());
//! ```

use std::cell::Cell;
use std::fmt;

/// A setting of some piece of work that the user can change.
///
/// [`key`](Setting::key) is a stable identifier in kebab case; the command
/// line happens to spell its flags that way, but the library never adds
/// the dashes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
#[non_exhaustive]
pub enum Setting {
    /// Checking only the spectra shared by two molecules or more.
    Ambiguous,
    /// The number of atoms hidden, or their range.
    Atoms,
    /// How many boards a listing draws.
    Boards,
    /// The configuration of a molecule given by its number.
    Config,
    /// The catalogue file.
    Db,
    /// The size of the sets an optimum in units cuts a level deeper.
    Deeper,
    /// How many rays deep a lower bound's search tries every strategy.
    Depth,
    /// The size of the sets searched to the end (played exactly).
    ExactBelow,
    /// Exploring a configuration past the size limit.
    Force,
    /// The puzzle format, instead of detecting it.
    Format,
    /// The addresses of a census's processes.
    Hostfile,
    /// Writing the answer as JSON.
    Json,
    /// The most molecules a search lists.
    Max,
    /// The most draws of a puzzle generator.
    MaxDraws,
    /// A memory bound.
    Memory,
    /// Tracing every molecule instead of one per orbit.
    NoSymmetry,
    /// The file a result is written to.
    Out,
    /// The most molecules a plan tells apart.
    PlanMax,
    /// This process's index in a census.
    Process,
    /// The number of processes of a census.
    Processes,
    /// The ray rules.
    Rules,
    /// How many unique spectra a verify samples.
    Sample,
    /// The seed of the random choices.
    Seed,
    /// Storing a census's groups in the catalogue.
    StoreGroups,
    /// A time limit.
    Timeout,
    /// Drawing only molecules whose rays identify them.
    Unique,
    /// The directory a census works in.
    WorkDir,
    /// Worker threads per process.
    Workers,
}

impl Setting {
    /// A stable identifier in kebab case: `work-dir`, `plan-max`.
    pub fn key(self) -> &'static str {
        self.into()
    }

    /// The setting in plain words: `the memory bound`.
    pub const fn words(self) -> &'static str {
        match self {
            Setting::Ambiguous => "the ambiguous spectra alone",
            Setting::Atoms => "the number of atoms",
            Setting::Boards => "the number of boards",
            Setting::Config => "the configuration",
            Setting::Db => "the catalogue file",
            Setting::Deeper => "the size of the sets cut a level deeper",
            Setting::Depth => "the search depth",
            Setting::ExactBelow => "the size of the sets played exactly",
            Setting::Force => "forcing past the size limit",
            Setting::Format => "the puzzle format",
            Setting::Hostfile => "the host file",
            Setting::Json => "the JSON output",
            Setting::Max => "the most molecules listed",
            Setting::MaxDraws => "the most draws",
            Setting::Memory => "the memory bound",
            Setting::NoSymmetry => "tracing every molecule",
            Setting::Out => "the output file",
            Setting::PlanMax => "the most molecules a plan tells apart",
            Setting::Process => "the process index",
            Setting::Processes => "the number of processes",
            Setting::Rules => "the ray rules",
            Setting::Sample => "the sample size",
            Setting::Seed => "the seed",
            Setting::StoreGroups => "storing the groups",
            Setting::Timeout => "the time limit",
            Setting::Unique => "drawing molecules their rays identify",
            Setting::WorkDir => "the work directory",
            Setting::Workers => "the number of workers",
        }
    }
}

/// Work a message advises the user to do, in the library's words
/// ([`Job::words`]); a front may name it its own way ([`Naming::job`]):
/// the command line as the command to run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Job {
    /// Exploring a configuration (`None`: the one the file held) into a
    /// catalogue file: every molecule.
    Explore(Option<String>, String),
    /// A census of a configuration (`None`: the one the file held) storing
    /// its ambiguous groups in a catalogue file.
    StoreGroups(Option<String>, String),
    /// Checking the groups of a configuration stored in a catalogue file.
    VerifyStored(String, String),
    /// A census of a configuration: its tables without a catalogue.
    Census(String),
    /// Reading a configuration's tables from its catalogue file.
    ReadTables(String, String),
    /// Solving games, one at a time.
    Solve,
    /// Tracing a molecule.
    Trace,
    /// Seeing the built-in puzzles a front offers.
    Puzzles,
}

impl Job {
    /// What to do, in plain words: `explore A4_B6 into a.sqlite`.
    pub fn words(&self) -> String {
        let its = |c: &Option<String>| c.clone().unwrap_or_else(|| "its configuration".into());
        match self {
            Job::Explore(c, db) => format!("explore {} into {db}", its(c)),
            Job::StoreGroups(c, db) => format!("store {}'s census groups in {db}", its(c)),
            Job::VerifyStored(c, db) => format!("check the groups of {c} stored in {db}"),
            Job::Census(c) => format!("take a census of {c}"),
            Job::ReadTables(c, db) => format!("read the tables of {c} from {db}"),
            Job::Solve => "use the solver".into(),
            Job::Trace => "use the tracer".into(),
            Job::Puzzles => "the front's list of puzzles names them".into(),
        }
    }
}

/// How a front names the settings, and the work advised, in what it shows.
pub trait Naming {
    /// The name of `setting`, as the user would type or find it.
    fn name(&self, setting: Setting) -> String;

    /// What to do for `job`, as the user would do it: in the library's
    /// words unless the front has its own.
    fn job(&self, job: &Job) -> String {
        job.words()
    }
}

/// The library's own naming: each setting in plain words
/// ([`Setting::words`]). `Display` of a [`Text`] and of an
/// [`Error`](crate::Error) uses it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl Naming for Plain {
    fn name(&self, setting: Setting) -> String {
        setting.words().to_string()
    }
}

/// Prose that may refer to settings, each named when it is shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    pieces: Vec<Piece>,
}

/// A piece of [`Text`]: words, or a setting to be named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    /// Words shown as they are.
    Words(String),
    /// A setting, named by the front.
    Setting(Setting),
    /// Work advised, named by the front.
    Job(Job),
}

impl Text {
    /// The same text, followed by `piece`.
    pub fn and(mut self, piece: impl Into<Piece>) -> Text {
        self.push(piece);
        self
    }

    /// The same text, followed by `other`.
    pub fn and_text(mut self, other: Text) -> Text {
        for piece in other.pieces {
            self.push(piece);
        }
        self
    }

    /// Adds `piece` at the end.
    pub fn push(&mut self, piece: impl Into<Piece>) {
        match (piece.into(), self.pieces.last_mut()) {
            (Piece::Words(w), Some(Piece::Words(last))) => last.push_str(&w),
            (p, _) => self.pieces.push(p),
        }
    }

    /// The text with each setting named by `naming`.
    pub fn show(&self, naming: &dyn Naming) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Words(w) => out.push_str(w),
                Piece::Setting(s) => out.push_str(&naming.name(*s)),
                Piece::Job(j) => out.push_str(&naming.job(j)),
            }
        }
        out
    }

    /// The settings the text refers to, in order.
    pub fn settings(&self) -> impl Iterator<Item = Setting> + '_ {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Setting(s) => Some(*s),
            _ => None,
        })
    }

    /// The pieces of the text.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

impl From<String> for Piece {
    fn from(s: String) -> Piece {
        Piece::Words(s)
    }
}

impl From<&str> for Piece {
    fn from(s: &str) -> Piece {
        Piece::Words(s.to_string())
    }
}

impl From<Setting> for Piece {
    fn from(s: Setting) -> Piece {
        Piece::Setting(s)
    }
}

impl From<Job> for Piece {
    fn from(j: Job) -> Piece {
        Piece::Job(j)
    }
}

impl<T: Into<Piece>> From<T> for Text {
    fn from(piece: T) -> Text {
        Text::default().and(piece)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.show(&Plain))
    }
}

thread_local! {
    /// How the [`Text`]s serialised on this thread name the settings.
    static SERIALISING: Cell<&'static dyn Naming> = const { Cell::new(&Plain) };
}

/// Runs `write` with `naming` naming the settings of every [`Text`]
/// serialised meanwhile on this thread: a front writes its JSON with the
/// names it shows (a `Text` serialises as a string, in plain words
/// otherwise).
///
/// ```
/// use bbx::setting::{Naming, Setting, Text, serialising_with};
/// struct Flags;
/// impl Naming for Flags {
///     fn name(&self, s: Setting) -> String {
///         format!("--{}", s.key())
///     }
/// }
/// let t = Text::from("raise ").and(Setting::Timeout);
/// assert_eq!(serde_json::to_string(&t).unwrap(), "\"raise the time limit\"");
/// let json = serialising_with(&Flags, || serde_json::to_string(&t)).unwrap();
/// assert_eq!(json, "\"raise --timeout\"");
/// ```
pub fn serialising_with<T>(naming: &'static dyn Naming, write: impl FnOnce() -> T) -> T {
    /// Gives the naming before back, even when `write` panics.
    struct Restore(&'static dyn Naming);
    impl Drop for Restore {
        fn drop(&mut self) {
            SERIALISING.with(|n| n.set(self.0));
        }
    }
    let _restore = Restore(SERIALISING.with(|n| n.replace(naming)));
    write()
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&SERIALISING.with(|n| self.show(n.get())))
    }
}

/// [`Text`] from pieces: words (`&str`, `String`) and [`Setting`]s.
///
/// ```
/// use bbx::setting::{Setting, Plain};
/// let t = bbx::text!["give at least ", Setting::Memory, format!(" {}M", 12)];
/// assert_eq!(t.show(&Plain), "give at least the memory bound 12M");
/// ```
#[macro_export]
macro_rules! text {
    ($($piece:expr),* $(,)?) => {{
        let mut t = $crate::setting::Text::default();
        $(t.push($piece);)*
        t
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Flags;
    impl Naming for Flags {
        fn name(&self, s: Setting) -> String {
            format!("--{}", s.key())
        }
    }

    #[test]
    fn work_advised_is_said_in_words_unless_the_front_names_it() {
        let explore = Job::Explore(Some("A4_B6".into()), "a.sqlite".into());
        let t = text!["first ", explore.clone(), " (", Setting::Db, ")"];
        assert_eq!(
            t.to_string(),
            "first explore A4_B6 into a.sqlite (the catalogue file)"
        );
        assert_eq!(t.show(&Flags), "first explore A4_B6 into a.sqlite (--db)");
        assert_eq!(t.settings().collect::<Vec<_>>(), [Setting::Db]);
        let census = Job::StoreGroups(None, "NEW".into()).words();
        assert_eq!(census, "store its configuration's census groups in NEW");
        let json = serde_json::to_string(&Piece::Job(explore)).unwrap();
        assert_eq!(json, r#"{"job":{"explore":["A4_B6","a.sqlite"]}}"#);
    }

    #[test]
    fn words_run_together_and_settings_are_named_when_shown() {
        let t = text!["a ", "b ", Setting::WorkDir, " c"];
        assert_eq!(t.pieces().len(), 3);
        assert_eq!(t.show(&Flags), "a b --work-dir c");
        assert_eq!(t.to_string(), "a b the work directory c");
        assert_eq!(t.settings().collect::<Vec<_>>(), [Setting::WorkDir]);
        assert_eq!(Text::from("plain").show(&Flags), "plain");
    }

    #[test]
    fn keys_are_kebab_case() {
        let keys = [
            Setting::Db,
            Setting::Hostfile,
            Setting::MaxDraws,
            Setting::NoSymmetry,
            Setting::PlanMax,
            Setting::StoreGroups,
            Setting::WorkDir,
        ]
        .map(Setting::key);
        assert_eq!(
            keys.join(" "),
            "db hostfile max-draws no-symmetry plan-max store-groups work-dir"
        );
    }
}
