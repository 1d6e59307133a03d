//! The game middle: one game as every front plays it.
//!
//! As the midend of Simon Tatham's puzzles, [`Middle`] holds what is the
//! same whatever draws the game: the [`Game`] (the rays, the atoms, the
//! marks, undo and redo, the referee), the cursor, which coach panels are
//! on and what the coach said, the window open, the message, new games and
//! restarts, saves. It changes only through [`Middle::apply`], which takes
//! a [`Move`] (what the player did: the fronts turn keys with
//! [`Middle::key`], and clicks and taps, into moves) or the answer to
//! something it asked for ([`Middle::hear`], [`Middle::saved`],
//! [`Middle::begin`]), and returns the [`Effect`]s the front must carry
//! out: write a file, start a game, ask the coach, review the game, quit.
//! It never does them itself, so that the same moves give the same
//! [`Scene`] on every front: the terminal (`play::session`, with the `play`
//! feature) and the web page (`bbx-web`, in WebAssembly).
//!
//! ```
//! use bbx::play::middle::{Effect, Middle, Options};
//! use bbx::play::moves::Move;
//! use bbx::play::setup::{Setup, start};
//! use bbx::control::Budget;
//!
//! let setup = Setup { seed: Some(1), ..Setup::default() };
//! let (mut game, _) = Middle::new(setup.clone(), start(&setup, &Budget::default()).unwrap(), Options::default());
//! game.apply(Move::Activate); // shoots ray 1, where the cursor starts
//! assert_eq!(game.game().observation().shot_count(), 1);
//! game.apply(Move::Quit); // the game is not over: "Quit?"
//! assert_eq!(game.apply(Move::Confirm), vec![Effect::Quit]);
//! ```

use std::fmt;
use std::sync::Arc;

use crate::assistant::strategy::{Part, Policy, REVIEW_AVERAGE_LIMIT};
use crate::error::Error;
use crate::play::coach::{Advice, CoachLimits, News, Panels, Question, ReviewRequest, ReviewState};
use crate::play::cursor::{Cursor, Target};
use crate::play::game::{Game, GuessError, Shot};
use crate::play::keys::{self, Key, KeyCode, Profile};
use crate::play::marks::{self as boards, Through, trail_through};
use crate::play::moves::{Move, Panel};
use crate::play::save::{is_tatham_save, save_text, tatham_save};
use crate::play::scene::{CoachSwitches, Help, Listed, MoleculeList, Scene, Share, Tools};
use crate::play::setup::{Setup, Source, Start, Started};
use crate::play::words::{self, Tone, say};
use crate::puzzle::TathamParams;
use crate::render::board;
use crate::rules::board::port;
use crate::rules::notation::Notation;
use crate::setting::{Naming, Plain};
use crate::solver::count::Prior;

/// The settings a front gives the game.
#[derive(Clone)]
pub struct Options {
    /// How the border marks are written.
    pub notation: Notation,
    /// Bounds on each question to the coach.
    pub coach: CoachLimits,
    /// Where a save goes unless the player says otherwise (default: see
    /// [`Started::default_save_path`]).
    pub save_path: Option<String>,
    /// The policy the player named (`None`: none): the coach's best-ray
    /// panel names the ray it shoots next, and the verdict compares the
    /// player's game with it (with the default, greedy, when none).
    pub policy: Option<Policy>,
    /// How the game names the settings it refers to (the command line as
    /// its flags; plain words by default).
    pub naming: Arc<dyn Naming + Send + Sync>,
    /// Whose keys the player uses.
    pub profile: Profile,
    /// Whether the front can quit (a terminal can; a page has nowhere to
    /// quit to). When it cannot, no key quits and no line or help offers
    /// to.
    pub quits: bool,
    /// How many workers of its own the front has to answer one question
    /// at once: a page's Web Workers, which share no memory, take a part
    /// each of rollout's weighing ([`Question::parts`]: one
    /// [`Effect::Ask`] per part, each with its part). A terminal's coach
    /// weighs on every core in one question: 1.
    pub coach_workers: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            notation: Notation::default(),
            coach: CoachLimits::default(),
            save_path: None,
            policy: None,
            naming: Arc::new(Plain),
            profile: Profile::default(),
            quits: true,
            coach_workers: 1,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("notation", &self.notation)
            .field("coach", &self.coach)
            .field("save_path", &self.save_path)
            .field("policy", &self.policy)
            .field("profile", &self.profile)
            .field("quits", &self.quits)
            .finish_non_exhaustive()
    }
}

/// Which window has the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The board.
    Board,
    /// The help.
    Help {
        /// Lines scrolled.
        scroll: u16,
    },
    /// "Quit this unfinished game?"
    ConfirmQuit,
    /// "Resign and see the answer?"
    ConfirmResign,
    /// "Abandon this game for a new one?"
    ConfirmNew,
    /// "Start this game again?"
    ConfirmRestart,
    /// The guess is wrong: play on, or end the game? The game keeps the
    /// wrong guess ([`Game::pending`]), so that a save or a reload comes back
    /// here.
    WrongGuess,
    /// Typing the file to save to.
    SavePrompt {
        /// The file name typed so far.
        input: String,
    },
    /// "Replace this file?"
    ConfirmOverwrite {
        /// The file.
        path: String,
    },
    /// Every molecule the rays allowed (after the game).
    Molecules {
        /// Lines scrolled.
        scroll: u16,
    },
}

/// What a move asks the front to do; in JSON its snake-case name with its
/// value (`{"ask": {…}}`, `"quit"`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Write `text` to `path` (answered by [`Middle::saved`]); unless
    /// `replace`, a file that exists is left alone (answered by
    /// [`Middle::exists`]). The page offers it as a download.
    Save {
        /// The file.
        path: String,
        /// What to write.
        text: String,
        /// Whether to write over a file that exists.
        replace: bool,
    },
    /// Start a new game (answered by [`Middle::begin`]).
    Start(Setup),
    /// Ask the coach (answered by [`Middle::hear`]).
    Ask(Question),
    /// Review the finished game (answered by [`Middle::hear`]).
    Review(ReviewRequest),
    /// Cancel the coach's questions and review: they were about another
    /// game.
    ForgetCoach,
    /// End the session.
    Quit,
}

/// Most molecules the list after the game draws.
const MOLECULES_LISTED: usize = 500;

/// The game middle: one game, its cursor, coach and windows.
#[derive(Debug)]
pub struct Middle {
    setup: Setup,
    started: Started,
    options: Options,
    cursor: Cursor,
    cursor_shown: bool,
    notation: Notation,
    advice: Advice,
    panels: Panels,
    explained: bool,
    marking: bool,
    mode: Mode,
    message: Option<(String, Tone)>,
    save_path: String,
    saved_to: Option<String>,
    unsaved: bool,
    /// The game was ended by Ctrl-C or a signal, not by quitting.
    interrupted: bool,
    /// The count typed so far (digits, Ctrl-U), for the next move.
    count: Option<usize>,
    /// Whether the switch from Emacs digits to letters was told.
    told_letters: bool,
    /// The cursor goes to the best ray once the coach answers.
    to_best: bool,
    /// How each earlier game of this session ended.
    earlier: Vec<String>,
    scene: Scene,
    /// What this change asks of the front, handed over when it returns.
    effects: Vec<Effect>,
}

impl Middle {
    /// The game `started` from `setup` (kept to start new games), and what
    /// the front must do first.
    pub fn new(setup: Setup, started: Started, options: Options) -> (Middle, Vec<Effect>) {
        let mut m = Middle::fresh(setup, started, options);
        m.after();
        let effects = std::mem::take(&mut m.effects);
        (m, effects)
    }

    /// The game in `started` afresh: where it saves, the cursor, the coach.
    fn fresh(setup: Setup, started: Started, options: Options) -> Middle {
        let saved_to = match &started.source {
            Source::Saved { path } => Some(path.clone()),
            _ => None,
        };
        let emacs = started.notation.filter(|n| *n == Notation::Emacs);
        let welcome = say::welcome(&started.game.counts(), options.profile);
        let mut m = Middle {
            setup,
            cursor: Cursor::start(started.game.shape()),
            cursor_shown: true,
            notation: emacs.unwrap_or(options.notation),
            advice: Advice::default(),
            panels: Panels::default(),
            explained: false,
            marking: false,
            mode: Mode::Board,
            message: Some((welcome, Tone::Info)),
            save_path: options
                .save_path
                .clone()
                .unwrap_or_else(|| started.default_save_path()),
            saved_to,
            unsaved: false,
            interrupted: false,
            count: None,
            told_letters: false,
            to_best: false,
            earlier: Vec::new(),
            options,
            started,
            scene: Scene::default(),
            effects: Vec::new(),
        };
        if m.game().pending().is_some() {
            m.mode = Mode::WrongGuess;
            m.message = Some((say::WAITING.into(), Tone::Bad));
        }
        if m.game().is_over() {
            m.after_verdict();
        }
        m
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.started.game
    }

    fn game_mut(&mut self) -> &mut Game {
        &mut self.started.game
    }

    /// Where the game came from.
    pub fn started(&self) -> &Started {
        &self.started
    }

    /// The cursor.
    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    /// The notation the border is written in.
    pub fn notation(&self) -> Notation {
        self.notation
    }

    /// The policy the verdict compares the player's game with: the one
    /// named, else greedy.
    pub fn review_policy(&self) -> Policy {
        self.options.policy.unwrap_or_default()
    }

    /// What the coach has said.
    pub fn coach(&self) -> &Advice {
        &self.advice
    }

    /// Which coach panels are on.
    pub fn panels(&self) -> Panels {
        self.panels
    }

    /// The window that has the keys.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// What the front draws.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The last message and its tone.
    pub fn message(&self) -> Option<(&str, Tone)> {
        self.message.as_ref().map(|(m, t)| (m.as_str(), *t))
    }

    /// Whether the player has asked the coach anything this game (a saved
    /// game remembers it).
    pub fn coach_used(&self) -> bool {
        self.game().coached()
    }

    /// Whether each ray shot shows if the guess explains it.
    pub fn shows_explained(&self) -> bool {
        self.explained
    }

    /// Whether the game was ended by Ctrl-C or a signal.
    pub fn was_interrupted(&self) -> bool {
        self.interrupted
    }

    /// Where the last save went.
    pub fn saved_to(&self) -> Option<&str> {
        self.saved_to.as_deref()
    }

    /// Whose keys the player uses.
    pub fn profile(&self) -> Profile {
        self.options.profile
    }

    /// The coach's question about the game as it stands, when the player
    /// wants an answer (a panel on, the jump to the best ray, the list of
    /// molecules after the game).
    pub fn question(&self) -> Option<Question> {
        let g = self.game();
        let wanted = if g.is_over() {
            true
        } else {
            g.pending().is_none() && (self.panels.any() || self.to_best)
        };
        wanted.then(|| self.question_now())
    }

    /// The coach's question about the game as it stands: its rays, the
    /// counts the player is told (a range drawn count first, as Tatham's
    /// generator and bbx's draw it), the policy while the best ray is shown.
    fn question_now(&self) -> Question {
        let g = self.game();
        Question {
            observation: g.observation().clone(),
            rules: g.rules(),
            atoms: g.counts(),
            policy: self
                .options
                .policy
                .filter(|_| !g.is_over() && self.panels.best),
            limits: self.options.coach,
            prior: if g.count_is_told() {
                Prior::Molecules
            } else {
                Prior::CountsFirst
            },
            part: Part::WHOLE,
        }
    }

    fn say(&mut self, text: impl Into<String>, tone: Tone) {
        self.message = Some((text.into(), tone));
    }

    fn info(&mut self, text: impl Into<String>) {
        self.say(text, Tone::Info);
    }

    /// Takes `m` in; returns what the front must do.
    pub fn apply(&mut self, m: Move) -> Vec<Effect> {
        self.act(m);
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// A key pressed, read through the player's profile as the window open
    /// reads it; returns what the front must do.
    pub fn key(&mut self, key: Key) -> Vec<Effect> {
        match self.key_move(&key) {
            Some(m) => self.apply(m),
            None => Vec::new(),
        }
    }

    /// The move `key` makes in the window open.
    pub fn key_move(&self, key: &Key) -> Option<Move> {
        let m = self.any_key_move(key);
        if self.options.quits {
            m
        } else {
            m.filter(|m| !matches!(m, Move::Quit | Move::Interrupt))
        }
    }

    /// [`Middle::key_move`] on a front that quits.
    fn any_key_move(&self, key: &Key) -> Option<Move> {
        if key.ctrl && matches!(key.code, KeyCode::Char('c' | 'd')) {
            return Some(Move::Interrupt);
        }
        let yes = matches!(key.code, KeyCode::Char('y' | 'Y'));
        let scroll = |key: &Key| match key.code {
            KeyCode::Up | KeyCode::Char('k') => Some(Move::Scroll(-1)),
            KeyCode::Down | KeyCode::Char('j') => Some(Move::Scroll(1)),
            KeyCode::PageUp => Some(Move::Scroll(-10)),
            KeyCode::PageDown | KeyCode::Char(' ') => Some(Move::Scroll(10)),
            KeyCode::Home => Some(Move::Scroll(i32::MIN)),
            _ => None,
        };
        Some(match &self.mode {
            Mode::Board => return keys::board_move(self.options.profile, key),
            Mode::Help { .. } | Mode::Molecules { .. } => scroll(key).unwrap_or(Move::Cancel),
            Mode::WrongGuess => match key.code {
                KeyCode::Char('p' | ' ') | KeyCode::Enter => Move::PlayOn,
                KeyCode::Char('e') => Move::EndGame,
                KeyCode::Char('r' | 'S') => Move::Resign,
                KeyCode::Char('?') | KeyCode::F(1) => Move::Help,
                _ => return None,
            },
            Mode::ConfirmQuit if key.code == KeyCode::Char('s') => Move::Save(None),
            Mode::ConfirmQuit
            | Mode::ConfirmResign
            | Mode::ConfirmNew
            | Mode::ConfirmRestart
            | Mode::ConfirmOverwrite { .. } => {
                if yes {
                    Move::Confirm
                } else {
                    Move::Cancel
                }
            }
            Mode::SavePrompt { .. } => match key.code {
                KeyCode::Enter => Move::Confirm,
                KeyCode::Esc => Move::Cancel,
                KeyCode::Backspace => Move::Erase,
                _ => Move::Type(key.typed()?),
            },
        })
    }

    /// Takes in what the coach said; returns what the front must do.
    pub fn hear(&mut self, news: News) -> Vec<Effect> {
        self.advice.hear(news);
        if self.to_best
            && let Some((best, count)) = self.best_now()
        {
            self.jump_to(best, count);
        }
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// The file to save to exists, and was not saved over.
    pub fn exists(&mut self, path: String) -> Vec<Effect> {
        self.mode = Mode::ConfirmOverwrite { path };
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// The game was saved to `path`, or could not be (why).
    pub fn saved(&mut self, path: String, result: Result<(), String>) -> Vec<Effect> {
        match result {
            Ok(()) => {
                self.unsaved = false;
                self.save_path = path.clone();
                self.say(say::saved(&path), Tone::Good);
                self.saved_to = Some(path);
            }
            Err(why) => self.say(say::save_failed(&path, &why), Tone::Bad),
        }
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// A new game, or why it could not start (the answer to
    /// [`Effect::Start`]).
    pub fn begin(&mut self, started: Result<Started, Error>) -> Vec<Effect> {
        match started {
            Ok(s) => {
                let mut earlier = std::mem::take(&mut self.earlier);
                earlier.push(self.game_summary());
                let keep = (self.notation, self.told_letters, self.panels);
                let setup = self.setup.clone();
                *self = Middle {
                    earlier,
                    effects: std::mem::take(&mut self.effects),
                    ..Middle::fresh(setup, s, self.options.clone())
                };
                (self.notation, self.told_letters, self.panels) = keep;
                self.effects.push(Effect::ForgetCoach);
                let title = self.started.title();
                self.info(say::new_game(&title));
            }
            Err(e) => {
                let why = e.show(self.options.naming.as_ref());
                self.say(say::no_new_game(&why), Tone::Bad);
            }
        }
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// The game a link held could not be opened (a front's address, or
    /// the answer to an [`Effect::Start`] it made for one): the game in
    /// hand goes on, and the message says why.
    ///
    /// ```
    /// use bbx::play::middle::{Middle, Options};
    /// use bbx::play::setup::{Setup, start};
    /// use bbx::control::Budget;
    /// use bbx::play::words::Tone;
    /// let setup = Setup { seed: Some(3), ..Setup::default() };
    /// let (mut game, _) = Middle::new(setup.clone(), start(&setup, &Budget::default())?, Options::default());
    /// game.not_opened(bbx::Error::invalid("it is cut short"));
    /// let said = Some(("The link holds no game to open: it is cut short", Tone::Bad));
    /// assert_eq!(game.message(), said);
    /// assert!(game.game().observation().shot_count() == 0); // the game goes on
    /// # Ok::<(), bbx::Error>(())
    /// ```
    pub fn not_opened(&mut self, e: Error) -> Vec<Effect> {
        let why = e.show(self.options.naming.as_ref());
        self.say(say::not_opened(&why), Tone::Bad);
        self.after();
        std::mem::take(&mut self.effects)
    }

    /// What follows every change: the coach asked what the player wants
    /// to know, and the scene worked out anew.
    fn after(&mut self) {
        if self.game().pending().is_some() && self.mode == Mode::Board {
            self.mode = Mode::WrongGuess;
        }
        if let Some(q) = self.question().and_then(|q| self.advice.question(q)) {
            let parts = q.parts(self.options.coach_workers);
            self.effects.extend(parts.into_iter().map(Effect::Ask));
        }
        self.refresh();
    }

    fn act(&mut self, m: Move) {
        if !self.options.quits && matches!(m, Move::Quit | Move::Interrupt) {
            return;
        }
        match m {
            Move::Interrupt => {
                self.interrupted = true;
                return self.effects.push(Effect::Quit);
            }
            Move::Limits { max, timeout_ms } => {
                self.options.coach = CoachLimits {
                    max: max.max(1),
                    timeout: std::time::Duration::from_millis(timeout_ms),
                };
                return;
            }
            Move::Policy(p) => {
                self.options.policy = p;
                if p.is_some() && !self.game().is_over() {
                    self.panels.best = true;
                    self.game_mut().note_coached();
                }
                let text = say::policy(p);
                return self.info(text);
            }
            Move::NewFrom(form) => {
                return match Setup::from_form(&form) {
                    Ok(setup) => {
                        self.setup = setup.clone();
                        self.effects.push(Effect::Start(setup));
                    }
                    Err(e) => {
                        let why = e.show(self.options.naming.as_ref());
                        self.say(say::no_new_game(&why), Tone::Bad);
                    }
                };
            }
            Move::Open { text, origin } => {
                let setup = Setup {
                    start: Start::Text { text, origin },
                    judge: self.game().judge(),
                    ..Setup::default()
                };
                self.setup = setup.clone();
                return self.effects.push(Effect::Start(setup));
            }
            _ => {}
        }
        match std::mem::replace(&mut self.mode, Mode::Board) {
            Mode::Board => self.on_board(m),
            Mode::Help { scroll } => match m {
                Move::Scroll(n) => {
                    self.mode = Mode::Help {
                        scroll: scrolled(scroll, n),
                    }
                }
                Move::Help => self.mode = Mode::Help { scroll },
                _ => {}
            },
            Mode::Molecules { scroll } => match m {
                Move::Scroll(n) => {
                    self.mode = Mode::Molecules {
                        scroll: scrolled(scroll, n),
                    }
                }
                Move::Molecules => self.mode = Mode::Molecules { scroll },
                _ => {}
            },
            Mode::WrongGuess => match m {
                Move::PlayOn | Move::Confirm | Move::Activate => self.play_on(),
                Move::EndGame => self.end(Game::submit),
                Move::Resign => self.mode = Mode::ConfirmResign,
                Move::Help => self.mode = Mode::Help { scroll: 0 },
                Move::Save(path) => {
                    self.mode = Mode::WrongGuess;
                    self.save(path);
                }
                Move::Quit => self.mode = Mode::ConfirmQuit,
                Move::Coach(_) | Move::Notation => {
                    self.mode = Mode::WrongGuess;
                    self.on_board(m);
                }
                _ => {
                    self.mode = Mode::WrongGuess;
                    self.say(say::WAITING, Tone::Bad);
                }
            },
            Mode::ConfirmQuit => match m {
                Move::Confirm | Move::Quit => self.effects.push(Effect::Quit),
                Move::Save(None) => self.open_save_prompt(),
                _ => self.back(),
            },
            Mode::ConfirmResign => match m {
                Move::Confirm | Move::Resign => self.end(Game::resign),
                _ => self.back(),
            },
            Mode::ConfirmNew => match m {
                Move::Confirm | Move::NewGame => self.new_game(),
                _ => self.back(),
            },
            Mode::ConfirmRestart => match m {
                Move::Confirm | Move::Restart => self.restart(),
                _ => self.back(),
            },
            Mode::SavePrompt { mut input } => match m {
                Move::Confirm => self.save_requested(input),
                Move::Cancel => self.back_with(say::NOT_SAVED),
                Move::Save(Some(path)) => self.save_to(path, false),
                Move::Type(c) => {
                    if !c.is_control() {
                        input.push(c);
                    }
                    self.mode = Mode::SavePrompt { input };
                }
                Move::Erase => {
                    input.pop();
                    self.mode = Mode::SavePrompt { input };
                }
                _ => self.mode = Mode::SavePrompt { input },
            },
            Mode::ConfirmOverwrite { path } => match m {
                Move::Confirm => self.save_to(path, true),
                _ => self.mode = Mode::SavePrompt { input: path },
            },
        }
    }

    /// Back to the board after a question answered no (to the wrong guess,
    /// when one waits).
    fn back(&mut self) {
        self.back_with(say::BACK);
    }

    fn back_with(&mut self, text: &str) {
        if self.game().pending().is_some() {
            self.mode = Mode::WrongGuess;
        }
        self.info(text);
    }

    /// A move on the board.
    fn on_board(&mut self, m: Move) {
        // A count (digits, Ctrl-U) is for the next move.
        let typed = match m {
            Move::Digit(0) if self.count.is_none() => return,
            Move::Digit(d) => Some(
                self.count
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(usize::from(d)),
            ),
            Move::Universal => Some(self.count.map_or(4, |n| n.saturating_mul(4))),
            _ => None,
        };
        if let Some(n) = typed {
            self.count = Some(n.min(9999));
            return self.info(say::count(n.min(9999)));
        }
        let typed = self.count.take();
        if let Some(n) = typed
            && self
                .message
                .as_ref()
                .is_some_and(|(msg, _)| *msg == say::count(n))
        {
            // The count is used now: it is no longer being typed.
            self.message = None;
        }
        let times = typed.unwrap_or(1).max(1);
        let over = self.game().is_over();
        let p = self.game().shape();
        match m {
            Move::Step(d) => {
                self.cursor_shown = true;
                (0..times).for_each(|_| self.cursor.step(d));
            }
            Move::Opposite => self.moved(Cursor::opposite),
            Move::Home => self.moved(|c| c.to_end(false)),
            Move::End => self.moved(|c| c.to_end(true)),
            Move::CursorTo(t) => {
                if let Some(c) = cursor_on(p, t) {
                    self.cursor = c;
                    self.cursor_shown = true;
                }
            }
            Move::ToBest => self.go_to_best(),
            Move::Press { at, secondary } => {
                let Some(c) = cursor_on(p, at) else {
                    return;
                };
                self.cursor = c;
                self.cursor_shown = false;
                if over {
                    // After the game a click on the border shows its ray.
                    if let Target::Border(q) = at {
                        self.info(say::path_shown(p, q, self.game()));
                    }
                } else if secondary || self.marking {
                    self.mark_at(at);
                } else {
                    self.activate(at);
                }
            }
            Move::Activate => match self.cursor.target() {
                Some(t) if over => {
                    if let Target::Border(q) = t {
                        self.info(say::path_shown(p, q, self.game()));
                    } else {
                        self.info(say::OVER_CELL);
                    }
                }
                Some(t) => self.activate(t),
                None => {}
            },
            Move::Mark if over => self.info(say::OVER),
            Move::Mark => {
                if let Some(t) = self.cursor.target() {
                    self.mark_at(t);
                }
            }
            Move::Shoot(q) | Move::MarkLine(q) if !(1..=p.positions()).contains(&q) => {
                self.say(say::no_position(p, q), Tone::Bad)
            }
            Move::Atom(i) | Move::MarkCell(i) if i >= p.cells() => {
                self.say(say::no_cell(p, i), Tone::Bad)
            }
            Move::Shoot(q) if !over => self.activate(Target::Border(q)),
            Move::Atom(i) if !over => self.activate(Target::Cell(i)),
            Move::MarkCell(i) if !over => self.mark_at(Target::Cell(i)),
            Move::MarkLine(q) if !over => self.mark_at(Target::Border(q)),
            Move::Shoot(_) | Move::Atom(_) | Move::MarkCell(_) | Move::MarkLine(_) => {
                self.info(say::OVER)
            }
            Move::Marking if over => self.info(say::OVER),
            Move::Marking => {
                self.marking = !self.marking;
                let text = say::marking(self.marking);
                self.info(text);
            }
            Move::Undo | Move::Redo => self.undo(m == Move::Redo, times),
            Move::Guess => self.guess(),
            Move::PlayOn | Move::EndGame => self.info(say::NO_WRONG_GUESS),
            Move::Resign if over => self.info(say::OVER),
            Move::Resign => self.mode = Mode::ConfirmResign,
            Move::NewGame if over => self.new_game(),
            Move::NewGame => self.mode = Mode::ConfirmNew,
            Move::Restart if over => self.info(say::OVER),
            Move::Restart => self.mode = Mode::ConfirmRestart,
            Move::Coach(Panel::Explained) if over => self.info(say::OVER),
            Move::Coach(Panel::Explained) => {
                self.explained = !self.explained;
                let text = say::explained(self.explained);
                self.info(text);
            }
            Move::Coach(_) if over => self.info(say::OVER_COACH),
            Move::Coach(panel) => {
                let (on, what) = match panel {
                    Panel::Count => (&mut self.panels.count, "count of molecules that fit"),
                    Panel::Certain => (&mut self.panels.certain, "certain cells"),
                    Panel::Best => (&mut self.panels.best, "best next ray"),
                    Panel::Chance => (&mut self.panels.chance, "chance of an atom in each cell"),
                    Panel::Explained => unreachable!("taken above"),
                };
                *on = !*on;
                let now = *on;
                if now {
                    self.game_mut().note_coached();
                }
                self.info(say::coach(what, now));
            }
            Move::Notation => {
                self.notation = match self.notation {
                    Notation::Letters => Notation::Emacs,
                    Notation::Emacs => Notation::Letters,
                };
                let (_, used) = self.game().marks_in(self.notation);
                self.info(say::notation(self.notation, used));
            }
            Move::Molecules if over => self.mode = Mode::Molecules { scroll: 0 },
            Move::Molecules => self.info(say::NOT_YET_MOLECULES),
            Move::Help => self.mode = Mode::Help { scroll: 0 },
            Move::Save(path) => self.save(path),
            Move::Quit if over => self.effects.push(Effect::Quit),
            Move::Quit => self.mode = Mode::ConfirmQuit,
            Move::Scroll(_)
            | Move::Type(_)
            | Move::Erase
            | Move::Confirm
            | Move::Cancel
            | Move::Digit(_)
            | Move::Universal
            | Move::Interrupt
            | Move::Limits { .. }
            | Move::Policy(_)
            | Move::NewFrom(_)
            | Move::Open { .. } => {}
        }
    }

    /// Moves the cursor as `f` does, and shows it.
    fn moved(&mut self, f: impl FnOnce(&mut Cursor)) {
        f(&mut self.cursor);
        self.cursor_shown = true;
    }

    /// Puts the cursor on the coach's best ray, asking the coach first when
    /// it has not answered.
    fn go_to_best(&mut self) {
        let p = self.game().shape();
        if self.game().is_over() {
            return self.info(say::OVER_COACH);
        }
        let _ = p;
        self.game_mut().note_coached();
        self.to_best = true;
        match self.best_now() {
            Some((best, count)) => self.jump_to(best, count),
            None => self.info(say::ASKING_BEST),
        }
    }

    /// The coach's best ray now and how many molecules fit, when its answer
    /// is in.
    fn best_now(&self) -> Option<(Option<usize>, u128)> {
        self.current_answer()
            .map(|a| (a.best().map(|b| b.position), a.count))
    }

    /// Puts the cursor on `best`, the best ray when `count` molecules fit.
    fn jump_to(&mut self, best: Option<usize>, count: u128) {
        self.to_best = false;
        let p = self.game().shape();
        match best {
            Some(q) => {
                self.cursor = Cursor::at_position(p, q);
                self.cursor_shown = true;
                self.info(say::at_best(p, q));
            }
            None => self.info(say::no_best(count == 1)),
        }
    }

    /// The coach's answer for the game as it stands, if it is in.
    fn current_answer(&self) -> Option<&crate::play::coach::Answer> {
        self.advice.answer_for(&self.question_now())
    }

    /// Shoots the ray of a border position, or puts or takes an atom.
    fn activate(&mut self, t: Target) {
        let p = self.game().shape();
        match t {
            Target::Border(q) => {
                let before = self.game().score();
                match self.game_mut().shoot(q) {
                    Shot::New(o) => {
                        self.unsaved = true;
                        let letters = self.notation == Notation::Emacs
                            && !self.told_letters
                            && self.game().marks_in(Notation::Emacs).1 == Notation::Letters;
                        self.told_letters |= letters;
                        let score = self.game().score();
                        self.info(say::shot(p, q, o, score - before, score, letters));
                    }
                    Shot::Again(o) => {
                        let free = self.game().is_free(q);
                        self.info(say::known(p, q, o, free));
                    }
                    Shot::GameOver => self.info(say::OVER),
                    Shot::Waiting => self.say(say::WAITING, Tone::Bad),
                }
            }
            Target::Cell(i) if self.game().is_marked_empty(i) => self.info(say::marked(p, i)),
            Target::Cell(i) => {
                let on = self.game_mut().toggle(i);
                self.unsaved = true;
                let (placed, counts) = (self.game().placed(), self.game().counts());
                self.info(say::atom(p, i, on, placed, &counts));
            }
        }
    }

    /// Marks empty a cell, or the row or column of a border position (or
    /// unmarks them).
    fn mark_at(&mut self, target: Target) {
        let p = self.game().shape();
        let cells: Vec<usize> = match target {
            Target::Cell(i) => vec![i],
            Target::Border(q) => {
                // The row of a position on the left or right, the column of
                // one on the top or bottom.
                let q = port(p, q);
                (0..p.cells())
                    .filter(|&i| {
                        let (r, c) = p.row_col(i);
                        match q.side {
                            crate::rules::board::Side::Left | crate::rules::board::Side::Right => {
                                r == q.row
                            }
                            _ => c == q.col,
                        }
                    })
                    .collect()
            }
        };
        let (n, marked) = self.game_mut().mark_empty(&cells);
        self.unsaved |= n > 0;
        self.info(say::marks(p, target, n, marked));
    }

    /// Undoes (or, with `redo`, redoes) up to `times` actions.
    fn undo(&mut self, redo: bool, times: usize) {
        if self.game().is_over() {
            return self.info(say::over_undo(redo));
        }
        let g = self.game_mut();
        let done: Vec<_> = (0..times)
            .map_while(|_| if redo { g.redo() } else { g.undo() })
            .collect();
        self.unsaved |= !done.is_empty();
        let (p, score) = (self.game().shape(), self.game().score());
        let profile = self.options.profile;
        self.info(say::undid(p, redo, done.len(), done.last(), score, profile));
    }

    /// Starts the game again from its start.
    fn restart(&mut self) {
        let n = self.game_mut().restart();
        self.unsaved |= n > 0;
        self.cursor = Cursor::start(self.game().shape());
        let (score, profile) = (self.game().score(), self.options.profile);
        self.info(say::restarted(n, score, profile));
    }

    /// Hands the guess to the referee: a win ends the game, a wrong guess
    /// waits (kept by the game) for the player to play on or end.
    fn guess(&mut self) {
        if self.game().is_over() {
            return self.info(say::judged(self.options.quits));
        }
        match self.game_mut().hand_in() {
            Ok(v) if v.won => {
                self.unsaved = true;
                self.after_verdict();
            }
            Ok(v) => {
                let e = v.evidence;
                self.unsaved = true;
                self.mode = Mode::WrongGuess;
                if let Some(e) = e {
                    self.cursor = Cursor::at_position(self.game().shape(), e.position);
                }
                self.say(say::WRONG, Tone::Bad);
            }
            Err(GuessError::AlreadyJudged) => self.info(say::judged(self.options.quits)),
            Err(e) => self.say(say::not_yet(&e.to_string()), Tone::Bad),
        }
    }

    fn play_on(&mut self) {
        let p = self.game().shape();
        let before = self.game().score();
        match self.game_mut().play_on() {
            Some(q) => {
                self.unsaved = true;
                self.cursor = Cursor::at_position(p, q);
                let o = self.game().observation().get(q);
                let score = self.game().score();
                self.info(say::playing_on(p, q, o, score - before, score));
            }
            None => self.info(say::PLAYING_ON),
        }
    }

    /// Ends the game as `how` does (the guess submitted, or resigning), and
    /// shows the verdict.
    fn end(&mut self, how: fn(&mut Game) -> Result<&crate::play::referee::Verdict, GuessError>) {
        if how(self.game_mut()).is_ok() {
            self.unsaved = true;
            self.after_verdict();
        }
    }

    /// Shows the verdict: the message, the cursor on the ray that tells a
    /// wrong guess apart; and asks for the review.
    fn after_verdict(&mut self) {
        self.mode = Mode::Board;
        self.marking = false;
        let Some(v) = self.game().verdict().cloned() else {
            return;
        };
        let p = self.game().shape();
        if let Some(e) = v.evidence {
            self.cursor = Cursor::at_position(p, e.position);
        }
        let g = &self.started.game;
        if *self.advice.review() == ReviewState::NotAsked {
            let range = g.range();
            let count = range.molecule_count();
            let request = ReviewRequest {
                hidden: g.hidden().clone(),
                atoms: g.counts(),
                rules: g.rules(),
                policy: self.review_policy(),
                given: g.free_positions(),
                shots: g.shots().to_vec(),
                average: count.is_some_and(|n| n <= REVIEW_AVERAGE_LIMIT),
            };
            self.advice.set_review(ReviewState::Working);
            self.effects.push(Effect::Review(request));
        }
        let tone = if v.won { Tone::Good } else { Tone::Bad };
        self.say(say::verdict(&v), tone);
    }

    fn save(&mut self, path: Option<String>) {
        match path {
            None => self.open_save_prompt(),
            Some(path) => self.save_to(path, false),
        }
    }

    fn open_save_prompt(&mut self) {
        self.mode = Mode::SavePrompt {
            input: self.save_path.clone(),
        };
    }

    fn save_requested(&mut self, input: String) {
        let path = input.trim().to_string();
        if path.is_empty() {
            self.mode = Mode::SavePrompt { input };
            return self.say(say::NO_NAME, Tone::Bad);
        }
        let own = self.saved_to.as_deref() == Some(path.as_str());
        self.save_to(path, own);
    }

    fn save_to(&mut self, path: String, replace: bool) {
        if self.game().pending().is_some() {
            self.mode = Mode::WrongGuess;
        }
        match self.save_text(&path) {
            Ok(text) => self.effects.push(Effect::Save {
                path,
                text,
                replace,
            }),
            Err(why) => self.say(say::cannot_save(&why), Tone::Bad),
        }
    }

    /// The game as the file `path` holds it: Tatham's save file for a name
    /// ending in `.sav`, else bbx's.
    fn save_text(&self, path: &str) -> Result<String, String> {
        let naming = self.options.naming.as_ref();
        if is_tatham_save(path) {
            tatham_save(self.game())
        } else {
            save_text(self.game(), self.notation, naming).map_err(|e| e.show(naming))
        }
    }

    fn new_game(&mut self) {
        let setup = next_setup(&self.setup, &self.started);
        self.effects.push(Effect::Start(setup));
    }

    /// How the games of the session ended, one line each (the earlier games
    /// first, then the last).
    pub fn summary(&self) -> String {
        let mut lines = self.earlier.clone();
        lines.push(self.game_summary());
        lines.join("\n")
    }

    /// One line on how the game in hand ended.
    fn game_summary(&self) -> String {
        let saved = self.saved_to.as_deref().filter(|_| !self.unsaved);
        words::summary(
            &self.started.title(),
            self.game().verdict(),
            self.game().coached(),
            saved,
        )
    }

    /// Works out the scene anew.
    fn refresh(&mut self) {
        let g = &self.started.game;
        let (cursor, target) = (self.cursor, self.cursor.target());
        let answer = self.current_answer();
        let over = g.is_over();
        let (board, guess, side) = if over {
            let second = g.verdict().is_some_and(|v| !v.exact && !v.resigned);
            let review = self.advice.review();
            (
                boards::reveal(g, self.notation, cursor),
                boards::guessed(g, self.notation, cursor).filter(|_| second),
                words::verdict_panel(g, target, review, self.review_policy(), g.coached()),
            )
        } else {
            let failure = self
                .question()
                .and_then(|q| self.advice.failure(&q).map(String::from));
            let explained = self.explained;
            (
                boards::playing(g, self.notation, cursor, self.panels, answer, explained),
                None,
                words::game_panel(
                    g,
                    target,
                    self.panels,
                    answer,
                    self.advice.progress(),
                    failure.as_deref(),
                    explained,
                    self.options.naming.as_ref(),
                ),
            )
        };
        let dialog = match &self.mode {
            Mode::ConfirmQuit => Some(words::quit_dialog(self.saved_to.as_deref())),
            Mode::ConfirmResign => Some(words::resign_dialog(g.score())),
            Mode::ConfirmNew => Some(words::new_dialog()),
            Mode::ConfirmRestart => Some(words::restart_dialog()),
            Mode::WrongGuess => g.pending().map(|v| words::wrong_dialog(g.shape(), v)),
            Mode::SavePrompt { input } => Some(words::save_dialog(input)),
            Mode::ConfirmOverwrite { path } => Some(words::replace_dialog(path)),
            Mode::Board | Mode::Help { .. } | Mode::Molecules { .. } => None,
        };
        let help = match self.mode {
            Mode::Help { scroll } => {
                let (above, below) = words::help(g, self.options.profile);
                let keys = keys::help(self.options.profile)
                    .into_iter()
                    .filter(|(_, what)| self.options.quits || !what.starts_with("quit"))
                    .map(|(k, w)| (k.to_string(), w.to_string()))
                    .collect();
                Some(Help {
                    above,
                    keys,
                    below,
                    scroll,
                })
            }
            _ => None,
        };
        let history = g.history();
        let waiting = g.pending().is_some();
        let tools = Tools {
            undo: !over && !waiting && !history.done.is_empty(),
            redo: !over && !waiting && !history.undone.is_empty(),
            guess: !over && !waiting,
            resign: !over,
            restart: !over && !waiting && !history.done.is_empty(),
            marking: self.marking && !over,
        };
        let mut on = Vec::new();
        for (is, panel) in [
            (self.panels.count, Panel::Count),
            (self.panels.certain, Panel::Certain),
            (self.panels.best, Panel::Best),
            (self.panels.chance, Panel::Chance),
            (self.explained, Panel::Explained),
        ] {
            if is {
                on.push(panel);
            }
        }
        let coach = CoachSwitches {
            legend: words::coach_legend(self.panels.any() || self.explained, over),
            on,
            policy: self.options.policy.map(|p| p.to_string()),
            limits: (
                self.options.coach.max,
                self.options.coach.timeout.as_millis() as u64,
            ),
        };
        let trails = self.trails();
        let molecules = over.then(|| self.molecules());
        let share = self.share();
        let quits = self.options.quits;
        let keys_line = match self.mode {
            Mode::Board if over => words::keys::OVER,
            Mode::Board => words::keys::board(self.options.profile),
            Mode::Help { .. } => words::keys::HELP,
            Mode::ConfirmQuit => words::keys::QUIT,
            Mode::ConfirmResign
            | Mode::ConfirmNew
            | Mode::ConfirmRestart
            | Mode::ConfirmOverwrite { .. } => words::keys::CONFIRM,
            Mode::WrongGuess => words::keys::WRONG,
            Mode::SavePrompt { .. } => words::keys::SAVE,
            Mode::Molecules { .. } => words::keys::MOLECULES,
        };
        let keys_line = match keys_line.strip_suffix(" · q quit") {
            Some(line) if !quits => line,
            _ => keys_line,
        }
        .to_string();
        self.scene = Scene {
            title: self.started.title(),
            short_title: self.started.short_title(),
            board,
            guess,
            cursor: cursor.row_col(),
            cursor_shown: self.cursor_shown,
            trails,
            side,
            status: words::status(g),
            message: self.message.clone(),
            keys: keys_line,
            dialog,
            help,
            molecules,
            list_open: matches!(self.mode, Mode::Molecules { .. }),
            tools,
            coach,
            share,
            over,
        };
    }

    /// The rays drawn as lines: after the game, the ray at the cursor
    /// through the hidden molecule and the player's (else the ray that
    /// tells a wrong guess apart); while a wrong guess waits, that ray
    /// through the guess.
    fn trails(&self) -> Vec<crate::play::marks::Trail> {
        let g = self.game();
        let rules = g.rules();
        if let Some(v) = g.verdict() {
            let q = match self.cursor.target() {
                Some(Target::Border(q)) => Some(q),
                _ => v.evidence.map(|e| e.position),
            };
            let Some(q) = q else {
                return Vec::new();
            };
            let mut out = vec![trail_through(g.hidden(), rules, q, Through::Hidden)];
            if !v.exact && !v.resigned {
                out.push(trail_through(&v.guess, rules, q, Through::Guess));
            }
            return out;
        }
        match g.pending().and_then(|v| v.evidence) {
            Some(e) => vec![trail_through(&g.guess(), rules, e.position, Through::Guess)],
            None => Vec::new(),
        }
    }

    /// The list of every molecule the rays allowed: the hidden molecule
    /// first, then the guess, then the others as found.
    fn molecules(&self) -> MoleculeList {
        let g = self.game();
        let answer = self.current_answer();
        let mut mols = answer.map_or(Vec::new(), |a| a.molecules());
        let guess = g.verdict().map(|v| &v.guess);
        mols.sort_by_key(|m| (m != g.hidden(), Some(m) != guess));
        let (marks, _) = g.marks_in(self.notation);
        let listed: Vec<Listed> = mols
            .iter()
            .take(MOLECULES_LISTED)
            .enumerate()
            .map(|(n, m)| {
                let (hidden, yours) = (m == g.hidden(), Some(m) == guess);
                Listed {
                    title: words::molecule_title(n + 1, hidden, yours),
                    atoms: m.atoms().to_vec(),
                    hidden,
                    yours,
                    text: board(m, &marks),
                }
            })
            .collect();
        let cut =
            answer.and_then(|a| words::molecules_cut(listed.len(), a.listed(), a.all_listed()));
        let failure = self
            .question()
            .and_then(|q| self.advice.failure(&q).map(String::from));
        MoleculeList {
            heading: words::molecules_heading(
                g,
                answer,
                self.advice.progress(),
                failure.as_deref(),
            ),
            cut: cut.map(|t| t.show(self.options.naming.as_ref())),
            molecules: listed,
            scroll: match self.mode {
                Mode::Molecules { scroll } => scroll,
                _ => 0,
            },
        }
    }

    /// The game as the page shares it.
    fn share(&self) -> Share {
        let g = self.game();
        let naming = self.options.naming.as_ref();
        let file = self.save_path.clone();
        let tatham_file = g.tatham_params().ok().map(|_| {
            let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
            format!("{stem}.sav")
        });
        Share {
            save: save_text(g, self.notation, naming).map_err(|e| e.show(naming)),
            link: self.started.carry().map_err(|e| e.show(naming)),
            tatham_id: g.tatham_id(),
            file,
            tatham_file,
        }
    }
}

/// `scroll` moved by `n` lines (`i32::MIN`: back to the top).
fn scrolled(scroll: u16, n: i32) -> u16 {
    if n == i32::MIN {
        return 0;
    }
    (i32::from(scroll) + n).clamp(0, i32::from(u16::MAX)) as u16
}

/// The cursor on `t` in a box of `shape`, when `t` is in it.
fn cursor_on(shape: crate::rules::config::Shape, t: Target) -> Option<Cursor> {
    match t {
        Target::Border(q) if (1..=shape.positions()).contains(&q) => {
            Some(Cursor::at_position(shape, q))
        }
        Target::Cell(i) if i < shape.cells() => {
            let (r, c) = shape.row_col(i);
            Cursor::at(shape, r, c)
        }
        _ => None,
    }
}

/// The setup of the next game after `started`: the same setup with a fresh
/// seed (another random molecule, another answer of the puzzle); after a
/// saved game or a game of Tatham's, a new random game of the same
/// configuration (a range stays a range) under the same rules, his
/// generator drawing it when the game was his.
pub fn next_setup(setup: &Setup, started: &Started) -> Setup {
    let g = &started.game;
    let start = match &started.source {
        Source::Saved { .. } => Start::Random {
            config: g.range(),
            unique: false,
        },
        Source::Tatham { .. } | Source::TathamDrawn { .. } => match TathamParams::of(&g.range()) {
            Ok(params) => Start::Tatham(params),
            Err(_) => Start::Random {
                config: g.range(),
                unique: false,
            },
        },
        Source::Random { .. } | Source::Puzzle { .. } => setup.start.clone(),
    };
    let same = start == setup.start;
    Setup {
        start,
        seed: None,
        // A new kind of game keeps the rules the last one was played under.
        rules: if same { setup.rules } else { Some(g.rules()) },
        atoms: if same { setup.atoms } else { None },
        format: if same { setup.format } else { None },
        judge: g.judge(),
    }
}
