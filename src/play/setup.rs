//! Starting a game: a random molecule of a configuration (or of a range of
//! atom counts, the count hidden), a game of Tatham's Black Box (a game ID,
//! or his parameters and a seed his generator draws the game from), one of
//! the answers of a puzzle, or a saved game resumed.
//!
//! ```
//! use bbx::play::setup::{Setup, Start, start};
//! use bbx::control::Budget;
//! let setup = Setup {
//!     start: Start::Random { config: "A4_B8".parse().unwrap(), unique: false },
//!     seed: Some(42),
//!     ..Setup::default()
//! };
//! let a = start(&setup, &Budget::default()).unwrap();
//! let b = start(&setup, &Budget::default()).unwrap();
//! assert_eq!(a.game.hidden(), b.game.hidden()); // the seed replays the game
//! assert_eq!(a.game.observation().shot_count(), 0);
//! // A range of counts: the count is drawn in it and the player is told the range.
//! let setup = Setup {
//!     start: Start::Random { config: "A3-6_B8x6".parse().unwrap(), unique: false },
//!     seed: Some(42),
//!     ..Setup::default()
//! };
//! let g = start(&setup, &Budget::default()).unwrap().game;
//! assert_eq!((g.counts(), g.shape().to_string()), (3..=6, "8×6".to_string()));
//! ```

use std::path::Path;
use std::time::Duration;

use rand::RngExt as _;
use rand::rngs::ChaCha8Rng;

use crate::assistant::generate::{fresh_seed, random_in, seeded, unique_in};
use crate::control::{Budget, Ended};
use std::ops::RangeInclusive;

use crate::error::{Error, quantity};
use crate::play::game::Game;
use crate::play::referee::Judge;
use crate::play::save::{Resume, read_resume, tatham_game};
use crate::puzzle::{
    Expected, Format, MAX_INPUT_BYTES, Picture, Puzzle, TathamGame, TathamParams, is_tatham,
    parse_puzzle, parse_tatham, read_input,
};
use crate::rules::board::Molecule;
use crate::rules::config::{Config, ConfigRange, Shape};
use crate::rules::notation::Notation;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::{Observation, Spectrum};
use crate::setting::{Job, Setting, Text};
use crate::solver::{self, Limits};

/// Where the game comes from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// A random molecule of a configuration, or of a range of atom counts
    /// (the count drawn as Tatham draws it, and hidden); with `unique`, one
    /// whose full spectrum identifies it among every count of the range.
    Random {
        /// The configuration, or a range of counts.
        config: ConfigRange,
        /// Only molecules that no other molecule shares a spectrum with.
        unique: bool,
    },
    /// A puzzle file (any format `bbx solve` reads) or a saved game (bbx's,
    /// or a save file of Simon Tatham's Black Box).
    File(String),
    /// A game ID of Simon Tatham's Black Box (`w8h8m5M5:…` or
    /// `w8h8m5M5#seed`), given on the command line.
    GameId(String),
    /// The text of a puzzle, saved game, Tatham save file or game ID, as a
    /// file would hold it (a page's pasted or dropped text, a puzzle given
    /// on the command line in the linear form), named `origin` in titles and
    /// errors.
    Text {
        /// The text.
        text: String,
        /// What to call it (a file's name).
        origin: String,
    },
    /// Tatham's parameters alone (`w8h8m5M5`, or one of his presets): the
    /// game his generator draws from the seed (`w8h8m5M5#SEED`, the seed
    /// written in decimal), so that his program plays the same game.
    Tatham(TathamParams),
}

/// How to start a game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Setup {
    /// Where the game comes from.
    pub start: Start,
    /// The seed of the random choices (a fresh one when `None`).
    pub seed: Option<u64>,
    /// The rules (default: what the file implies, else standard).
    pub rules: Option<Rules>,
    /// The number of atoms, for a puzzle file that does not say.
    pub atoms: Option<usize>,
    /// The format of a puzzle file, when its detection would guess wrong
    /// (`None`: detected, as `bbx solve` does).
    pub format: Option<Format>,
    /// How guesses are judged.
    pub judge: Judge,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            start: Start::Random {
                config: ConfigRange {
                    min_atoms: 4,
                    max_atoms: 4,
                    shape: Shape::square(8),
                },
                unique: false,
            },
            seed: None,
            rules: None,
            atoms: None,
            format: None,
            judge: Judge::AllRays,
        }
    }
}

/// Where a game in play came from, for the title bar and the save file name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A random molecule.
    Random {
        /// The seed that draws it again.
        seed: u64,
        /// Whether it was drawn among molecules with a unique spectrum.
        unique: bool,
    },
    /// One of the answers of a puzzle file.
    Puzzle {
        /// The file.
        path: String,
        /// The seed of the choice among the answers.
        seed: u64,
        /// How many answers it was chosen from (`None` when there were too
        /// many to count).
        answers: Option<usize>,
    },
    /// A saved game.
    Saved {
        /// The file.
        path: String,
    },
    /// A save file or game ID of Simon Tatham's Black Box.
    Tatham {
        /// The file (`None` for a game ID given on the command line).
        path: Option<String>,
    },
    /// A game Tatham's generator drew from his parameters and a seed.
    TathamDrawn {
        /// His parameters.
        params: TathamParams,
        /// The seed, which his program reads as text (`w8h8m5M5#42`).
        seed: u64,
    },
}

/// A game ready to play.
#[derive(Debug, Clone)]
pub struct Started {
    /// The game.
    pub game: Game,
    /// Where it came from.
    pub source: Source,
    /// The notation of the file it came from, when it is a display.
    pub notation: Option<Notation>,
}

impl Started {
    /// A one-line description: `A4_B8, standard rules, seed 42`. A game
    /// whose count is hidden names its range (`A3-6_B8`), never the count.
    pub fn title(&self) -> String {
        self.title_with(true)
    }

    /// The title without the rules when they are the standard ones, for a
    /// narrow screen.
    pub fn short_title(&self) -> String {
        self.title_with(self.game.rules() != Rules::Standard)
    }

    fn title_with(&self, with_rules: bool) -> String {
        let g = &self.game;
        let config = g.range().to_string();
        let rules = if with_rules {
            format!("{} rules", g.rules())
        } else {
            String::new()
        };
        let join = |a: &str, b: &str| {
            if b.is_empty() {
                a.to_string()
            } else {
                format!("{a}, {b}")
            }
        };
        match &self.source {
            Source::Random { seed, unique } => {
                let unique = if *unique { " (unique)" } else { "" };
                format!(
                    "{}, seed {seed}",
                    join(&format!("{config}{unique}"), &rules)
                )
            }
            Source::Puzzle {
                path,
                seed,
                answers,
            } => {
                let path = file_name(path);
                let among = match answers {
                    Some(1) => "its only answer".to_string(),
                    Some(n) => format!("one of {n} answers (seed {seed})"),
                    None => format!("one of many answers (seed {seed})"),
                };
                format!("{path}: {}, {among}", join(&config, &rules))
            }
            Source::Saved { path } => {
                let what = format!("saved {config} game");
                format!("{}: {}", file_name(path), join(&what, &rules))
            }
            Source::Tatham { path: Some(path) } => {
                let what = format!("Tatham's Black Box, {config}");
                format!("{}: {}", file_name(path), join(&what, &rules))
            }
            Source::Tatham { path: None } => {
                join(&format!("Tatham's Black Box game ID, {config}"), &rules)
            }
            Source::TathamDrawn { params, seed } if with_rules => {
                let title = params.title();
                format!("Tatham's {title}, seed {seed} (game ID {params}#{seed})")
            }
            // Short: the game ID alone says it all.
            Source::TathamDrawn { params, seed } => format!("Tatham's game {params}#{seed}"),
        }
    }

    /// The name of the file the game came from (its last part), if any.
    pub fn file_name(&self) -> Option<String> {
        match &self.source {
            Source::Random { .. } | Source::Tatham { path: None } | Source::TathamDrawn { .. } => {
                None
            }
            Source::Puzzle { path, .. }
            | Source::Saved { path }
            | Source::Tatham { path: Some(path) } => Some(file_name(path)),
        }
    }

    /// Where `s` saves unless the player says otherwise: the saved game's own
    /// file, or a new name in the current directory.
    pub fn default_save_path(&self) -> String {
        let config = self.game.range().to_string();
        let stem = |path: &str, or: &str| {
            let stem = Path::new(path).file_stem();
            stem.map_or(or.into(), |s| s.to_string_lossy().into_owned())
        };
        match &self.source {
            Source::Saved { path } => path.clone(),
            Source::Random { seed, .. } => format!("bbx-{config}-seed-{seed}.txt"),
            Source::Puzzle { path, .. } => format!("{}-game.txt", stem(path, "puzzle")),
            // Never Tatham's own file: bbx saves in its own format.
            Source::Tatham { path: Some(path) } => format!("{}-bbx.txt", stem(path, "tatham")),
            Source::Tatham { path: None } => format!("bbx-tatham-{config}.txt"),
            Source::TathamDrawn { params, seed } => format!("bbx-{params}-seed-{seed}.txt"),
        }
    }
}

/// The last part of a path, for titles.
fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// Refuses a game with nothing to find: no atom, or a box full of atoms
/// (every ray is absorbed at once, and the answer is known before a ray).
fn playable(atoms: usize, p: Shape, what: &str) -> Result<(), Error> {
    let cells = p.cells();
    if atoms == 0 {
        let example = Config::shaped(4.min(cells.saturating_sub(1)), p)
            .map_or_else(|_| "A4_B8".to_string(), |c| c.to_string());
        return Err(Error::invalid(format!(
            "{what}: a game with no atom has nothing to find; hide 1 to {} atoms ({example}, say)",
            cells.saturating_sub(1)
        )));
    }
    if atoms >= cells {
        return Err(Error::invalid(format!(
            "{what}: {atoms} atoms fill the {p} box, so the answer is known before a ray; hide 1 to {} atoms",
            cells.saturating_sub(1)
        )));
    }
    Ok(())
}

// The caps a start keeps inside its caller's budget. Three are rules of
// the game: a game of molecules their rays identify is looked for at most
// UNIQUE_TIME, then refused; a puzzle's answers are listed for at most
// ANSWER_TIME, and a puzzle none is found for in that time is refused; the
// title counts a puzzle's answers only when COUNT_MAX of them are listed
// within COUNT_TIME. DRAW_TIME is the method's, not a rule: molecules are
// drawn at random that long before the answers are listed.

/// How long a game of molecules their rays identify may look for one.
const UNIQUE_TIME: Duration = Duration::from_secs(30);
/// How long the solver may list a puzzle's answers to choose among them.
const ANSWER_TIME: Duration = Duration::from_secs(20);
/// How long, and up to how many, the answers are counted for the title.
const COUNT_TIME: Duration = Duration::from_secs(2);
const COUNT_MAX: usize = 1000;
/// How long random molecules are drawn before the answers are listed.
const DRAW_TIME: Duration = Duration::from_millis(300);

/// Starts a game as `setup` says, within `budget` (its deadline and token
/// stop the searches a start may make, each also within its cap above; its
/// memory bound bounds the solver's).
pub fn start(setup: &Setup, budget: &Budget) -> Result<Started, Error> {
    let seed = match setup.seed {
        Some(seed) => seed,
        None => fresh_seed()?,
    };
    let mut rng = seeded(seed);
    match &setup.start {
        Start::Random { config, unique: u } => {
            for atoms in [config.min_atoms, config.max_atoms] {
                playable(atoms, config.shape, &config.to_string())?;
            }
            let rules = setup.rules.unwrap_or_default();
            let hidden = if *u {
                let budget = budget.at_most(UNIQUE_TIME);
                unique_in(*config, rules, &mut rng, usize::MAX, &budget)?.molecule
            } else {
                random_in(*config, &mut rng)
            };
            let mut game = Game::new(hidden, rules, setup.judge);
            game.hide_count(config.atoms())?;
            Ok(Started {
                game,
                source: Source::Random { seed, unique: *u },
                notation: None,
            })
        }
        Start::File(path) => {
            let (text, origin) = read_input(path, SAVED_GAME)?;
            from_text(&text, &origin, setup, seed, &mut rng, budget)
        }
        Start::GameId(id) => from_tatham(&parse_tatham(id, "the game ID")?, None, setup),
        Start::Text { text, origin } => {
            if text.len() as u64 > MAX_INPUT_BYTES {
                return Err(Error::invalid(format!(
                    "{origin}: the text is {} bytes long; a puzzle or saved game is at most {MAX_INPUT_BYTES}",
                    text.len()
                )));
            }
            from_text(text, origin, setup, seed, &mut rng, budget)
        }
        Start::Tatham(params) => {
            let id = format!("{params}#{seed}");
            let mut started = from_tatham(&parse_tatham(&id, "the game ID")?, None, setup)?;
            started.source = Source::TathamDrawn {
                params: *params,
                seed,
            };
            Ok(started)
        }
    }
}

/// What `bbx play FILE` reads, for the messages about an empty, binary or
/// oversized file.
const SAVED_GAME: Expected = Expected {
    noun: "puzzle or saved game",
    description: "a puzzle or a game saved by bbx play: a board with its border marks, a line such as 'A4_B8 @&ab…', A. Janns's 'P K' and one ray per line, or a save file or game ID of Tatham's Black Box",
};

/// Starts a game from the text of a puzzle or saved game read from `path`,
/// within `budget`.
fn from_text(
    text: &str,
    path: &str,
    setup: &Setup,
    seed: u64,
    rng: &mut ChaCha8Rng,
    budget: &Budget,
) -> Result<Started, Error> {
    let tatham = match setup.format {
        Some(format) => format == Format::Tatham,
        None => is_tatham(text),
    };
    if tatham {
        return from_tatham(&parse_tatham(text, path)?, Some(path), setup);
    }
    let puzzle = parse_puzzle(text, path, setup.format)?;
    let p = puzzle.shape();
    // A display: its labels' order, and its notation.
    let picture = Picture::parse(text, path).ok();
    let order = picture
        .as_ref()
        .map_or(Vec::new(), |pic| label_order(pic, &puzzle.observation));
    let notation = picture.map(|pic| pic.notation());
    if let Some(resume) = read_resume(text, path)? {
        return Ok(Started {
            game: resumed(resume, &puzzle, &order, setup, path)?,
            source: Source::Saved { path: path.into() },
            notation,
        });
    }
    let rules = setup.rules.or(puzzle.rules).unwrap_or_default();
    let counts = match (setup.atoms, puzzle.atoms, puzzle.atom_range.clone()) {
        (Some(n), _, _) | (None, Some(n), _) => n..=n,
        (None, None, Some(r)) => r,
        (None, None, None) => {
            let how = "add a line 'There are N balls in the box' or give ";
            let what = format!("{path}: the puzzle does not say how many atoms are hidden: {how}");
            return Err(Error::invalid(
                Text::from(what).and(Setting::Atoms).and(" N"),
            ));
        }
    };
    let atoms = *counts.end();
    if atoms > p.cells() {
        return Err(Error::invalid(format!(
            "{atoms} atoms do not fit in the {p} box of {path}"
        )));
    }
    playable(*counts.start(), p, path)?;
    playable(atoms, p, path)?;
    let (hidden, answers) = choose_answer(
        &puzzle.observation,
        rules,
        counts.clone(),
        rng,
        path,
        budget,
    )?;
    let mut game = Game::new(hidden, rules, setup.judge);
    game.hide_count(counts)?;
    game.record_known(&puzzle.observation, &order, true)?;
    if let Some(g) = &puzzle.guess {
        game.set_guess(g);
    }
    Ok(Started {
        game,
        source: Source::Puzzle {
            path: path.into(),
            seed,
            answers,
        },
        notation,
    })
}

/// The game saved in a file: its hidden molecule and what the resume line
/// kept, the rays and the guess on the board of `puzzle`.
fn resumed(
    resume: Resume,
    puzzle: &Puzzle,
    order: &[usize],
    setup: &Setup,
    path: &str,
) -> Result<Game, Error> {
    let (p, w) = (puzzle.shape(), resume.hidden.shape());
    if w != p {
        return Err(Error::invalid(format!(
            "{path}: the saved game is for a {w} box but the board is {p}: was the board edited? Remove the bbx-resume line to play it as a puzzle"
        )));
    }
    if let Some(r) = setup.rules
        && r != resume.rules
    {
        let what = format!(
            "{path}: the saved game was played under the {} rules; leave out ",
            resume.rules
        );
        return Err(Error::invalid(
            Text::from(what).and(Setting::Rules).and(" to resume it"),
        ));
    }
    let mut game = Game::new(resume.hidden, resume.rules, resume.judge);
    game.hide_count(resume.counts.clone())
        .map_err(|e| Error::invalid(format!("{path}: the saved game is damaged: {e}")))?;
    let mut given = Observation::empty(p);
    let mut paid = Observation::empty(p);
    for (q, o) in puzzle.observation.rays() {
        let free = resume.free.contains(&q);
        if free { &mut given } else { &mut paid }.record(q, o);
    }
    let edited = |e: Error| {
        Error::invalid(format!(
            "{path}: {e}: the board no longer matches the saved game (was it edited?); remove the bbx-resume line to play it as a puzzle"
        ))
    };
    game.record_known(&given, order, true).map_err(edited)?;
    game.record_known(&paid, order, false).map_err(edited)?;
    if let Some(g) = &puzzle.guess {
        game.set_guess(g);
    }
    game.restore(&resume.extra).map_err(edited)?;
    if resume.over && resume.extra.resigned {
        let _ = game.resign();
    } else if resume.over {
        // The verdict is recomputed from the guess; a guess edited to the
        // wrong count leaves the game open.
        let _ = game.submit();
    }
    Ok(game)
}

/// Resumes a game of Simon Tatham's Black Box as his program left it (see
/// [`tatham_game`]): its hidden balls, its moves played again as the
/// player's actions (the lasers fired count in the score and keep his
/// numbering of the exit pairs; his locks are cells marked empty), his redo
/// list as bbx's, and a game he had ended judged.
fn from_tatham(t: &TathamGame, path: Option<&str>, setup: &Setup) -> Result<Started, Error> {
    let origin = &t.origin;
    if setup.rules.is_some_and(|r| r != Rules::Standard) {
        return Err(Error::invalid(
            Text::from(format!(
                "{origin}: Tatham's Black Box plays the standard rules; leave out "
            ))
            .and(Setting::Rules),
        ));
    }
    let n = t.hidden.atoms().len();
    if setup.atoms.is_some_and(|a| a != n) {
        return Err(Error::invalid(
            Text::from(format!("{origin}: the game hides {n} balls; leave out "))
                .and(Setting::Atoms),
        ));
    }
    Ok(Started {
        game: tatham_game(t, setup.judge)?,
        source: Source::Tatham {
            path: path.map(str::to_string),
        },
        notation: None,
    })
}

/// The lower end of each exit pair in the order of its label in the picture
/// (`a`, `b`, … or `1`, `2`, …), so that a resumed game or a puzzle keeps its
/// letters; empty when the text is not a display.
fn label_order(pic: &Picture, observed: &Observation) -> Vec<usize> {
    let notations = [Notation::Letters, Notation::Emacs];
    let rank = |c| (0..52).find(|&i| notations.iter().any(|n| n.pair(i) == Some(c)));
    let mut lows: Vec<(usize, usize)> = pic
        .marks
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let q = i + 1;
            match (m, observed.get(q)) {
                (Some(m), Some(Outcome::Exit(k))) if k > q => rank(m.ch).map(|r| (r, q)),
                _ => None,
            }
        })
        .collect();
    lows.sort_unstable();
    lows.into_iter().map(|(_, q)| q).collect()
}

/// Draws the hidden molecule among the answers of a puzzle, uniformly: first
/// by drawing random molecules until one fits (quick when the puzzle says
/// little), else by listing the answers with the solver, within `budget`.
/// Returns the molecule and how many answers there were, when known.
fn choose_answer(
    observed: &Observation,
    rules: Rules,
    atoms: RangeInclusive<usize>,
    rng: &mut ChaCha8Rng,
    path: &str,
    budget: &Budget,
) -> Result<(Molecule, Option<usize>), Error> {
    let config = ConfigRange::new(*atoms.start(), *atoms.end(), observed.shape())?;
    let solve = |max, cap| {
        let budget = budget.at_most(cap);
        let limits = Limits {
            max: Some(max),
            budget,
        };
        solver::solve(observed, rules, atoms.clone(), &limits, |_| {})
    };
    // The answers counted only when there are few (for the title).
    let count = |s: &solver::Solution| {
        let n = usize::try_from(s.count).unwrap_or(usize::MAX);
        s.ended.is_complete().then_some(n)
    };
    let drawing = budget.at_most(DRAW_TIME);
    for i in 0.. {
        if i % 256 == 0 && drawing.check().is_err() {
            break;
        }
        let m = random_in(config, rng);
        if observed.matches(&Spectrum::of(&m, rules)) {
            return Ok((m, count(&solve(COUNT_MAX, COUNT_TIME)?)));
        }
    }
    // Whether the cap, not the caller's deadline, is what may stop it.
    let capped = budget.remaining().is_none_or(|left| left >= ANSWER_TIME);
    let s = solve(100_000, ANSWER_TIME)?;
    if s.molecules.is_empty() {
        return Err(Error::invalid(if s.ended.is_complete() {
            format!(
                "{path}: no molecule of {} fits these rays under the {rules} rules ('bbx solve {path}' shows which rays contradict each other)",
                if atoms.start() == atoms.end() {
                    quantity(*atoms.start(), "atom", "atoms")
                } else {
                    format!("{} to {} atoms", atoms.start(), atoms.end())
                }
            )
        } else {
            let within = match s.ended {
                Ended::Cancelled => "before it was cancelled".into(),
                Ended::OverMemory => "within the memory bound".into(),
                _ if capped => format!("in {} seconds", ANSWER_TIME.as_secs()),
                _ => "within the time limit".into(),
            };
            format!("{path}: the solver found no answer {within}; try a puzzle with more rays shot")
        }));
    }
    // Uniform over every answer found, counted families included.
    let m = s
        .nth(rng.random_range(0..s.count))
        .ok_or_else(|| Error::Internal("an answer past the solver's count".into()))?;
    Ok((m, count(&s)))
}

/// Where the game named `name` comes from, as `bbx play GAME` and the page's
/// new game read a name that is not a file: a configuration or a range of
/// counts (`A4_B8`, `A5_B8x6`, `A3-6_B8`), Tatham's parameters
/// (`w8h6m5M5`), the name of one of his presets (`8x8, 3-6 balls`), a game
/// ID of his (`w8h8m5M5:…`, `w8h8m5M5#seed`) or a puzzle in the linear form
/// (`A2_B4 @&ab…`). `unique` asks for a random molecule whose rays identify
/// it, and is refused for the others.
///
/// ```
/// use bbx::play::setup::{Start, named};
/// assert!(matches!(named("A3-6_B8", false), Ok(Start::Random { .. })));
/// assert!(matches!(named("8x8, 3-6 balls", false), Ok(Start::Tatham(_))));
/// let e = named("A99_B8", false).unwrap_err();
/// assert!(e.to_string().contains("A99_B8"), "{e}");
/// assert!(named("hello", false).unwrap_err().to_string().contains("neither a configuration"));
/// ```
pub fn named(name: &str, unique: bool) -> Result<Start, Error> {
    let game = name.trim();
    let Some(start) = read_name(game, unique)? else {
        return Err(Error::invalid(format!(
            "{} is neither a configuration (An_Bp, such as A4_B8; A5_B8x6 for a box 8 wide and 6 high; A3-6_B8 for 3 to 6 atoms), Tatham's parameters (w8h8m5M5) or one of his presets ('8x8, 5 balls'), a game ID nor a puzzle",
            crate::error::quote(game)
        )));
    };
    if unique && !matches!(start, Start::Random { .. }) {
        return Err(Error::invalid(
            "only molecules whose rays identify them: that chooses random molecules of a configuration (A4_B8, say), not a game of Tatham's or a puzzle",
        ));
    }
    Ok(start)
}

/// What [`named`] reads `game` as; `None` when it names no game (and does
/// not look meant as a configuration, whose error is the better message).
fn read_name(game: &str, unique: bool) -> Result<Option<Start>, Error> {
    use crate::puzzle::{Inline, inline};
    Ok(Some(match game.parse::<ConfigRange>() {
        Ok(config) => Start::Random { config, unique },
        Err(config_error) => match TathamParams::alone(game) {
            Some(Ok(params)) => Start::Tatham(params),
            Some(Err(e)) => return Err(Error::invalid(format!("Tatham's parameters {e}"))),
            None => match (TathamParams::preset(game), inline(game)) {
                (Some(params), _) => Start::Tatham(params),
                (None, Some(Inline::GameId)) => Start::GameId(game.to_string()),
                (None, Some(Inline::Linear)) => Start::Text {
                    text: game.to_string(),
                    origin: Inline::Linear.origin().to_string(),
                },
                (None, None) => {
                    let lower = game.to_ascii_lowercase();
                    // Meant as a configuration: its parse error is the
                    // better message.
                    if lower.starts_with('a') && lower.contains("_b") {
                        return Err(config_error);
                    }
                    return Ok(None);
                }
            },
        },
    }))
}

/// A game asked for by name, with the options given beside it, as a front
/// that takes a name (the command line's game argument) gives them;
/// [`Asked::setup`] reads it.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// The game: a file that exists, a built-in puzzle, or a name
    /// [`named`] reads.
    pub game: String,
    /// Only molecules whose rays identify them (a random molecule's).
    pub unique: bool,
    /// The number of atoms, for a puzzle file that does not say: one,
    /// since a game hides one molecule.
    pub atoms: Option<RangeInclusive<usize>>,
    /// The format of a puzzle file (`None`: detected).
    pub format: Option<Format>,
    /// The seed of the random choices (a fresh one when `None`).
    pub seed: Option<u64>,
    /// The rules (default: what the file implies, else standard).
    pub rules: Option<Rules>,
    /// How guesses are judged.
    pub judge: Judge,
}

impl Asked {
    /// The setup asked for. The game is a configuration unless a file of
    /// that name exists; else that file; else a built-in puzzle, which
    /// `builtin` finds by name (its name and text, as the front keeps
    /// them); else what [`named`] reads. Refused, naming the setting, when
    /// an option does not apply to that start (a format or a count to a
    /// configuration, unique molecules to a puzzle or a game of Tatham's).
    ///
    /// ```
    /// use bbx::play::setup::{Asked, Start};
    /// let asked = Asked { game: "A5_B8".into(), ..Asked::default() };
    /// assert!(matches!(asked.setup(|_| None).unwrap().start, Start::Random { .. }));
    /// let tatham = Asked { game: "w8h8m5M5".into(), unique: true, ..Asked::default() };
    /// let e = tatham.setup(|_| None).unwrap_err().to_string();
    /// assert!(e.ends_with("it does not apply to a game of Tatham's"), "{e}");
    /// ```
    pub fn setup(
        self,
        builtin: impl FnOnce(&str) -> Option<(String, String)>,
    ) -> Result<Setup, Error> {
        let game = self.game.as_str();
        let exists = Path::new(game).exists();
        let start = match game.parse::<ConfigRange>() {
            Ok(config) if !exists => Start::Random {
                config,
                unique: self.unique,
            },
            _ if exists => Start::File(game.to_string()),
            _ => match builtin(game) {
                Some((origin, text)) => Start::Text { text, origin },
                None => read_name(game.trim(), false)?.ok_or_else(|| {
                    let what = format!(
                        "{} is neither a configuration (An_Bp, such as A4_B8), Tatham's parameters (w8h8m5M5) or one of his presets ('8x8, 5 balls'), a game ID, a puzzle, a file that exists nor a built-in puzzle (",
                        crate::error::quote(game)
                    );
                    Error::invalid(Text::from(what).and(Job::Puzzles).and(")"))
                })?,
            },
        };
        let atoms = match self.atoms {
            Some(range) if range.start() != range.end() => {
                let (least, most) = (range.start(), range.end());
                return Err(Error::invalid(Text::from(Setting::Atoms).and(format!(
                    " {least}..{most}: a game hides one molecule: give one number of atoms (a range is for solve and suggest)"
                ))));
            }
            range => range.map(|r| *r.start()),
        };
        let random = " chooses random molecules: it does not apply to";
        let (count, config) = (
            " is for puzzle files that do not give the count;",
            "a configuration such as A5_B8",
        );
        let refused = match &start {
            Start::Random { .. } if self.format.is_some() => Some((
                Setting::Format,
                format!(" is for puzzle files; {config} needs none"),
            )),
            Start::Random { .. } if atoms.is_some() => {
                Some((Setting::Atoms, format!("{count} {config} gives it")))
            }
            Start::File(_) if self.unique => {
                Some((Setting::Unique, format!("{random} a puzzle file")))
            }
            Start::Text { .. } if self.unique => {
                Some((Setting::Unique, format!("{random} a puzzle")))
            }
            Start::GameId(_) | Start::Tatham(_) if self.unique => {
                Some((Setting::Unique, format!("{random} a game of Tatham's")))
            }
            Start::Tatham(_) if atoms.is_some() => Some((
                Setting::Atoms,
                format!("{count} Tatham's parameters give it"),
            )),
            _ => None,
        };
        if let Some((setting, why)) = refused {
            return Err(Error::invalid(Text::from(setting).and(why)));
        }
        Ok(Setup {
            start,
            seed: self.seed,
            rules: self.rules,
            atoms,
            format: self.format,
            judge: self.judge,
        })
    }
}

impl Setup {
    /// The setup a form gives ([`Form`](crate::play::moves::Form)): each
    /// field read as `bbx play` reads its option, an empty one taking the
    /// default (the standard game `A4_B8`, a fresh seed, the rules the game
    /// implies, Tatham's judging). The error names the field.
    ///
    /// ```
    /// use bbx::play::moves::Form;
    /// use bbx::play::setup::Setup;
    /// let form = Form { game: "A5_B8x6".into(), seed: "42".into(), ..Form::default() };
    /// assert_eq!(Setup::from_form(&form).unwrap().seed, Some(42));
    /// let bad = Form { seed: "hello".into(), ..Form::default() };
    /// assert!(Setup::from_form(&bad).unwrap_err().to_string().starts_with("the seed 'hello'"));
    /// ```
    pub fn from_form(form: &crate::play::moves::Form) -> Result<Setup, Error> {
        let game = match form.game.trim() {
            "" => "A4_B8",
            g => g,
        };
        let seed = match form.seed.trim() {
            "" => None,
            s => Some(s.parse::<u64>().map_err(|_| {
                Error::invalid(format!(
                    "the seed '{s}' is not a whole number from 0 to {}",
                    u64::MAX
                ))
            })?),
        };
        let rules = match form.rules.trim() {
            "" => None,
            r => Some(r.parse::<Rules>().map_err(Error::invalid)?),
        };
        let judge = match form.judge.trim() {
            "" => Judge::default(),
            j => j.parse::<Judge>().map_err(Error::invalid)?,
        };
        Ok(Setup {
            start: named(game, form.unique)?,
            seed,
            rules,
            atoms: None,
            format: None,
            judge,
        })
    }
}

/// A game started, as text, to carry it from where it was started (a Web
/// Worker, which may take long for a puzzle) to the game middle: the game
/// as a bbx save, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Carried {
    save: String,
    source: Source,
    /// The file was in Emacs notation.
    emacs: bool,
}

impl Started {
    /// The game, carried as text ([`Started::carried`] reads it back).
    pub fn carry(&self) -> Result<String, Error> {
        let notation = self.notation.unwrap_or_default();
        let save = crate::play::save::save_text(&self.game, notation, &crate::setting::Plain)?;
        let carried = Carried {
            save,
            source: self.source.clone(),
            emacs: self.notation == Some(Notation::Emacs),
        };
        serde_json::to_string(&carried).map_err(|e| Error::Internal(e.to_string()))
    }

    /// The game [`Started::carry`] carried.
    pub fn carried(text: &str, judge: Judge) -> Result<Started, Error> {
        let c: Carried = serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("a game carried as text is damaged: {e}")))?;
        let setup = Setup {
            start: Start::Text {
                text: c.save,
                origin: "the game".into(),
            },
            judge,
            ..Setup::default()
        };
        // A bbx save resumes without a search: no budget to share.
        let mut started = start(&setup, &Budget::default())?;
        started.source = c.source;
        if c.emacs {
            started.notation = Some(Notation::Emacs);
        }
        Ok(started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pure_thought() -> String {
        format!(
            "{}/puzzles/seed-pure-thought-a4-b8.txt",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    #[test]
    fn a_puzzle_hides_one_of_its_answers() {
        let mut hidden = Vec::new();
        for seed in 0..12 {
            let s = start(
                &Setup {
                    start: Start::File(pure_thought()),
                    seed: Some(seed),
                    ..Setup::default()
                },
                &Budget::default(),
            )
            .unwrap();
            assert_eq!(s.game.observation().shot_count(), 32);
            assert_eq!(s.game.ray_score(), 0, "a puzzle's rays are free");
            assert!(matches!(
                s.source,
                Source::Puzzle {
                    answers: Some(3),
                    ..
                }
            ));
            hidden.push(s.game.hidden().clone());
        }
        hidden.sort();
        hidden.dedup();
        assert!(hidden.len() >= 2, "the seed chooses among the answers");
    }

    #[test]
    fn a_puzzle_keeps_its_letters() {
        let s = start(
            &Setup {
                start: Start::File(pure_thought()),
                seed: Some(1),
                ..Setup::default()
            },
            &Budget::default(),
        )
        .unwrap();
        // The file is in Emacs notation: its top line is "   6 7 5 H 4 H 3 H".
        let (marks, _) = s.game.marks_in(crate::rules::notation::Notation::Emacs);
        let top: String = marks[24..32].iter().rev().collect();
        assert_eq!(top, "675H4H3H");
    }

    #[test]
    fn options_that_do_not_apply_to_the_start_are_refused_by_name() {
        struct Flags;
        impl crate::setting::Naming for Flags {
            fn name(&self, s: Setting) -> String {
                format!("--{}", s.key())
            }
            fn job(&self, _: &Job) -> String {
                "the list".into()
            }
        }
        let refused = |game: &str, change: fn(&mut Asked)| {
            let mut asked = Asked {
                game: game.into(),
                ..Asked::default()
            };
            change(&mut asked);
            let builtin = |name: &str| (name == "sample").then(|| (name.into(), "A2_B4".into()));
            asked.setup(builtin).unwrap_err().show(&Flags)
        };
        let random = "--unique chooses random molecules: it does not apply to";
        for (game, change, said) in [
            ("A5_B8", (|a| a.format = Some(Format::Linear)) as fn(&mut Asked), "--format is for puzzle files; a configuration such as A5_B8 needs none".to_string()),
            ("A5_B8", |a| a.atoms = Some(3..=3), "--atoms is for puzzle files that do not give the count; a configuration such as A5_B8 gives it".into()),
            ("A5_B8", |a| a.atoms = Some(3..=5), "--atoms 3..5: a game hides one molecule: give one number of atoms (a range is for solve and suggest)".into()),
            (&pure_thought(), |a| a.unique = true, format!("{random} a puzzle file")),
            ("sample", |a| a.unique = true, format!("{random} a puzzle")),
            ("w8h8m5M5#1", |a| a.unique = true, format!("{random} a game of Tatham's")),
            ("w8h8m5M5", |a| a.atoms = Some(5..=5), "--atoms is for puzzle files that do not give the count; Tatham's parameters give it".into()),
            ("hello", |_| {}, "'hello' is neither a configuration (An_Bp, such as A4_B8), Tatham's parameters (w8h8m5M5) or one of his presets ('8x8, 5 balls'), a game ID, a puzzle, a file that exists nor a built-in puzzle (the list)".into()),
        ] {
            assert_eq!(refused(game, change), said);
        }
    }

    #[test]
    fn the_callers_budget_stops_the_searches_of_a_start() {
        let cancel = crate::control::Cancel::new();
        cancel.cancel();
        let cancelled = Budget::default().with_cancel(cancel);
        let puzzle = Setup {
            start: Start::File(pure_thought()),
            seed: Some(1),
            ..Setup::default()
        };
        let e = start(&puzzle, &cancelled).unwrap_err().to_string();
        assert!(e.ends_with("the solver found no answer before it was cancelled; try a puzzle with more rays shot"), "{e}");
        let unique = Setup {
            start: Start::Random {
                config: "A4_B8".parse().unwrap(),
                unique: true,
            },
            seed: Some(1),
            ..Setup::default()
        };
        let e = start(&unique, &cancelled).unwrap_err().to_string();
        assert!(e.contains("before it was cancelled (1 draw tried)"), "{e}");
        assert!(start(&unique, &Budget::default()).is_ok());
    }

    #[test]
    fn files_without_a_count_need_atoms() {
        let dir = std::env::temp_dir().join(format!("bbx-setup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("nocount.txt");
        std::fs::write(&f, "   @ &\n @ - - -\n   - - -\n   - - -\n").unwrap();
        let path = f.to_string_lossy().into_owned();
        let mut setup = Setup {
            start: Start::File(path),
            seed: Some(3),
            ..Setup::default()
        };
        let Err(Error::Invalid(e)) = start(&setup, &Budget::default()) else {
            panic!("a puzzle without a count is refused")
        };
        assert!(e.settings().eq([Setting::Atoms]), "{e}");
        setup.atoms = Some(2);
        let s = start(&setup, &Budget::default()).unwrap();
        assert_eq!(s.game.atoms(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_text_starts_as_its_file_would() {
        let from_text = |text: &str| {
            start(
                &Setup {
                    start: Start::Text {
                        text: text.into(),
                        origin: "pasted".into(),
                    },
                    seed: Some(5),
                    ..Setup::default()
                },
                &Budget::default(),
            )
        };
        // A Tatham game ID: its balls hidden.
        let s = from_text("w5h5m3M3:a8048f3fbbd74cba").unwrap();
        assert_eq!((s.game.width(), s.game.atoms()), (5, 3));
        // A saved game resumes as it was, and a puzzle hides one of its answers.
        let mut g = s.game.clone();
        g.shoot(1);
        let saved =
            crate::play::save::save_text(&g, Notation::Letters, &crate::setting::Plain).unwrap();
        let resumed = from_text(&saved).unwrap();
        assert_eq!(resumed.game.hidden(), g.hidden());
        assert_eq!(resumed.game.observation(), g.observation());
        assert!(matches!(resumed.source, Source::Saved { .. }));
        let puzzle = from_text("A2_B4 @&ab@&@?ba?@&@&@").unwrap();
        assert!(matches!(puzzle.source, Source::Puzzle { .. }));
        assert_eq!(puzzle.game.observation().shot_count(), 14);
        // Errors name the text.
        let e = from_text("A2_B4 @&ab").unwrap_err().to_string();
        assert!(e.contains("pasted"), "{e}");
    }
}
