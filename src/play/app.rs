//! The game's state and how it changes.
//!
//! [`App`] holds a [`Game`], the cursor, what the coach has said and
//! whichever window is open (help, a question, the save prompt, the list of
//! molecules). It changes only through [`App::update`], which takes a
//! [`Msg`] — a key, a click, or the result of something it asked for — and
//! returns the [`Effect`]s the game's loop must carry out: write a file,
//! start a game, ask the coach, quit. It never does them itself, so the state
//! is the same whoever drives it: the loop of [`crate::play::session`] on a
//! real terminal or in tests, key by key.
//!
//! After each change the state works out what the screen shows (its
//! [`Scene`]: the boards' marks, the side panel's lines, the list of
//! molecules), once; [`crate::play::view::draw`] only lays it out.
//!
//! ```
//! use bbx::play::app::{App, Effect, Msg, Options};
//! use bbx::play::setup::{Setup, start};
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//!
//! let setup = Setup { seed: Some(1), ..Setup::default() };
//! let (mut app, _) = App::new(setup.clone(), start(&setup).unwrap(), Options::default());
//! let key = |c| Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
//! app.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))); // shoots ray 1
//! assert_eq!(app.game().observation().shot_count(), 1);
//! app.update(key('q')); // the game is not over: "Quit?"
//! assert_eq!(app.update(key('y')), vec![Effect::Quit]);
//! ```

use std::fmt;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEventKind};

use crate::assistant::strategy::{Policy, REVIEW_AVERAGE_LIMIT, REVIEW_LIMIT};
use crate::error::Error;
use crate::play::board::{self as boards, Board};
use crate::play::coach::{Advice, CoachLimits, News, Panels, Question, ReviewRequest, ReviewState};
use crate::play::game::{Game, GuessError, Shot};
use crate::play::input::{Command, Cursor, Target, command};
use crate::play::referee::Verdict;
use crate::play::save::save_text;
use crate::play::save::{is_tatham_save, tatham_save};
use crate::play::setup::{Setup, Source, Start, Started};
use crate::play::words::{self, Lines, Tone, say};
use crate::puzzle::TathamParams;
use crate::render::board;
use crate::rules::board::{Molecule, port};
use crate::rules::notation::Notation;
use crate::setting::{Naming, Plain};

/// Display and coach settings.
#[derive(Clone)]
pub struct Options {
    /// How the border marks are written.
    pub notation: Notation,
    /// Bounds on each question to the coach.
    pub coach: CoachLimits,
    /// Where `s` offers to save (default: see [`Started::default_save_path`]).
    pub save_path: Option<String>,
    /// The policy the player named (`None`: none): the coach's best-ray
    /// panel names the ray it shoots next, and the verdict compares the
    /// player's game with it (with the default, greedy, when none).
    pub policy: Option<Policy>,
    /// How the game names the settings it refers to (the command line as
    /// its flags; plain words by default).
    pub naming: Arc<dyn Naming + Send + Sync>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            notation: Notation::default(),
            coach: CoachLimits::default(),
            save_path: None,
            policy: None,
            naming: Arc::new(Plain),
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
            .finish_non_exhaustive()
    }
}

/// Which window has the keyboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The board.
    Board,
    /// The help screen.
    Help,
    /// "Quit this unfinished game?"
    ConfirmQuit,
    /// "Resign and see the answer?"
    ConfirmResign,
    /// The guess is wrong: play on, or end the game?
    WrongGuess {
        /// The referee's verdict, not yet final.
        verdict: Box<Verdict>,
    },
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

/// What happens to the game.
#[derive(Debug)]
pub enum Msg {
    /// A key pressed.
    Key(KeyEvent),
    /// The mouse, and the board's padded row and column under it (if it is
    /// over the board).
    Mouse(MouseEventKind, Option<(usize, usize)>),
    /// Ctrl-C or a termination signal: the game ends at once.
    Interrupt,
    /// What the coach has to say.
    Coach(News),
    /// The file to save to exists (and was not saved over).
    Exists(String),
    /// The game was saved to a file, or could not be (why).
    Saved(String, Result<(), String>),
    /// A new game, or why it could not start.
    Started(Box<Result<Started, Error>>),
}

/// What an update asks the game's loop to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Write `text` to `path` (answered by [`Msg::Saved`]); unless
    /// `replace`, a file that exists is left alone (answered by
    /// [`Msg::Exists`]).
    Save {
        /// The file.
        path: String,
        /// What to write.
        text: String,
        /// Whether to write over a file that exists.
        replace: bool,
    },
    /// Start a new game (answered by [`Msg::Started`]).
    Start(Setup),
    /// Ask the coach (answered by [`Msg::Coach`]).
    Ask(Question),
    /// Review the finished game (answered by [`Msg::Coach`]).
    Review(ReviewRequest),
    /// Cancel the coach's questions and review: they were about another
    /// game.
    ForgetCoach,
    /// End the game.
    Quit,
}

/// The list of every molecule the rays allowed, after the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoleculeList {
    /// Its first line, or (`Err`) what stands in for it while the coach
    /// works.
    pub heading: Result<String, String>,
    /// Each molecule's board with its title, the hidden one first.
    pub boards: Vec<String>,
    /// The last line, when the list is not whole.
    pub cut: Option<String>,
}

/// What the screen shows of the state, worked out once per change.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// The box: during the game, or the hidden molecule after it.
    pub board: Board,
    /// After a verdict that is not the hidden molecule itself: the player's
    /// molecule.
    pub guess: Option<Board>,
    /// The side panel.
    pub side: Lines,
    /// The score and atoms, for the board's frame when the side panel has
    /// no room.
    pub status: String,
    /// The list of molecules, in that window.
    pub molecules: Option<MoleculeList>,
}

/// Most molecules the list after the game draws.
const MOLECULES_LISTED: usize = 500;

/// The game on screen.
#[derive(Debug)]
pub struct App {
    setup: Setup,
    started: Started,
    options: Options,
    cursor: Cursor,
    notation: Notation,
    advice: Advice,
    panels: Panels,
    mode: Mode,
    message: Option<(String, Tone)>,
    save_path: String,
    saved_to: Option<String>,
    unsaved: bool,
    /// Beside each ray shot, whether the guess explains it.
    explained: bool,
    /// The game was ended by Ctrl-C or a signal, not by quitting.
    interrupted: bool,
    /// The count typed so far (digits, Ctrl-U), for the next command.
    count: Option<usize>,
    /// Whether the switch from Emacs digits to letters was told.
    told_letters: bool,
    /// How each earlier game of this session ended (`n` starts another).
    earlier: Vec<String>,
    scene: Scene,
    /// What this update asks of the loop, handed over when it returns.
    effects: Vec<Effect>,
}

impl App {
    /// The screen for a game `started` from `setup` (kept to start new
    /// games), and what the loop must do first.
    pub fn new(setup: Setup, started: Started, options: Options) -> (App, Vec<Effect>) {
        let mut app = App::fresh(setup, started, options);
        if app.game().is_over() {
            app.after_verdict();
        }
        app.refresh();
        let effects = std::mem::take(&mut app.effects);
        (app, effects)
    }

    /// The game in `started` afresh: where it saves, the cursor, the coach.
    fn fresh(setup: Setup, started: Started, options: Options) -> App {
        let saved_to = match &started.source {
            Source::Saved { path } => Some(path.clone()),
            _ => None,
        };
        let emacs = started.notation.filter(|n| *n == Notation::Emacs);
        App {
            setup,
            cursor: Cursor::start(started.game.shape()),
            notation: emacs.unwrap_or(options.notation),
            advice: Advice::default(),
            panels: Panels::default(),
            mode: Mode::Board,
            message: Some((say::welcome(&started.game.counts()), Tone::Info)),
            save_path: options
                .save_path
                .clone()
                .unwrap_or_else(|| started.default_save_path()),
            saved_to,
            unsaved: false,
            explained: false,
            interrupted: false,
            count: None,
            told_letters: false,
            earlier: Vec::new(),
            options,
            started,
            scene: Scene::default(),
            effects: Vec::new(),
        }
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

    /// The window that has the keyboard.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// What the screen shows.
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

    fn say(&mut self, text: impl Into<String>, tone: Tone) {
        self.message = Some((text.into(), tone));
    }

    fn info(&mut self, text: impl Into<String>) {
        self.say(text, Tone::Info);
    }

    /// Takes `msg` in; returns what the loop must do.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Key(key) if key.kind == KeyEventKind::Release => {}
            Msg::Key(key) if command(&key) != Some(Command::Interrupt) => self.key(key),
            Msg::Mouse(kind, at) => self.mouse(kind, at),
            Msg::Key(_) | Msg::Interrupt => {
                self.interrupted = true;
                self.effects.push(Effect::Quit);
            }
            Msg::Coach(news) => self.advice.hear(news),
            Msg::Exists(path) => self.mode = Mode::ConfirmOverwrite { path },
            Msg::Saved(path, Ok(())) => {
                self.unsaved = false;
                self.save_path = path.clone();
                self.say(say::saved(&path), Tone::Good);
                self.saved_to = Some(path);
            }
            Msg::Saved(path, Err(why)) => self.say(say::save_failed(&path, &why), Tone::Bad),
            Msg::Started(started) => self.started_new(*started),
        }
        let wanted = self.panels.any() || matches!(self.mode, Mode::Molecules { .. });
        let g = &self.started.game;
        if wanted && let Some(q) = self.advice.question(g.observation(), g.rules(), g.counts()) {
            self.effects.push(Effect::Ask(q));
        }
        self.refresh();
        std::mem::take(&mut self.effects)
    }

    /// Works out the scene anew.
    fn refresh(&mut self) {
        let g = &self.started.game;
        let (cursor, target) = (self.cursor, self.cursor.target());
        let (board, guess, side) = if g.is_over() {
            let second = g.verdict().is_some_and(|v| !v.exact && !v.resigned);
            let (review, policy) = (self.advice.review(), self.review_policy());
            (
                boards::reveal(g, self.notation, cursor),
                boards::guessed(g, self.notation, cursor).filter(|_| second),
                words::verdict_panel(g, target, review, policy, g.coached()),
            )
        } else {
            let answer = self.advice.answer_for(g.observation());
            let explained = self.explained;
            (
                boards::playing(g, self.notation, cursor, self.panels, answer, explained),
                None,
                words::game_panel(g, target, self.panels, &self.advice, explained),
            )
        };
        let listed = matches!(self.mode, Mode::Molecules { .. });
        self.scene = Scene {
            board,
            guess,
            side,
            status: words::status(g),
            molecules: listed.then(|| self.molecules()),
        };
    }

    /// The list of every molecule the rays allowed: the hidden molecule
    /// first, then the guess, then the others as found.
    fn molecules(&self) -> MoleculeList {
        let g = self.game();
        let answer = self.advice.answer_for(g.observation());
        let mut mols: Vec<&Molecule> =
            answer.map_or(Vec::new(), |a| a.molecules().iter().collect());
        let guess = g.verdict().map(|v| &v.guess);
        mols.sort_by_key(|m| (*m != g.hidden(), Some(*m) != guess));
        let (marks, _) = g.marks_in(self.notation);
        let boards: Vec<String> = mols
            .iter()
            .take(MOLECULES_LISTED)
            .enumerate()
            .map(|(n, m)| {
                let title = words::molecule_title(n + 1, *m == g.hidden(), Some(*m) == guess);
                format!("  {title}\n{}", board(m, &marks))
            })
            .collect();
        let cut =
            answer.and_then(|a| words::molecules_cut(boards.len(), mols.len(), a.all_listed()));
        MoleculeList {
            heading: words::molecules_heading(g, &self.advice),
            cut: cut.map(|t| t.show(self.options.naming.as_ref())),
            boards,
        }
    }

    fn key(&mut self, key: KeyEvent) {
        let c = command(&key);
        let yes = matches!(key.code, KeyCode::Char('y' | 'Y'));
        match std::mem::replace(&mut self.mode, Mode::Board) {
            Mode::Board => {
                if let Some(c) = c {
                    self.run(c);
                }
            }
            Mode::Help => {}
            Mode::ConfirmResign if yes => self.end(Game::resign),
            Mode::ConfirmQuit if yes => self.effects.push(Effect::Quit),
            Mode::ConfirmQuit if key.code == KeyCode::Char('s') => self.open_save_prompt(),
            Mode::ConfirmResign | Mode::ConfirmQuit => self.info(say::BACK),
            Mode::WrongGuess { verdict } => match key.code {
                KeyCode::Char('p' | ' ') | KeyCode::Enter => self.play_on(),
                KeyCode::Char('e') => self.end(Game::submit),
                _ => self.mode = Mode::WrongGuess { verdict },
            },
            Mode::SavePrompt { mut input } => match key.code {
                KeyCode::Enter => self.save_requested(input),
                KeyCode::Esc => self.info(say::NOT_SAVED),
                code => {
                    match code {
                        KeyCode::Backspace => drop(input.pop()),
                        KeyCode::Char(c) if !c.is_control() => input.push(c),
                        _ => {}
                    }
                    self.mode = Mode::SavePrompt { input };
                }
            },
            Mode::ConfirmOverwrite { path } if yes => self.save_to(path, true),
            Mode::ConfirmOverwrite { path } => self.mode = Mode::SavePrompt { input: path },
            Mode::Molecules { scroll } => {
                let scroll = match key.code {
                    KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
                    KeyCode::PageUp => scroll.saturating_sub(10),
                    KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(10),
                    KeyCode::Home => 0,
                    _ => return,
                };
                self.mode = Mode::Molecules { scroll };
            }
        }
    }

    /// A left click on the board moves the cursor there and shoots or places
    /// an atom, a right click marks empty (Tatham's lock); any click closes
    /// the help; the wheel scrolls the list of molecules.
    fn mouse(&mut self, kind: MouseEventKind, at: Option<(usize, usize)>) {
        let p = self.game().shape();
        match (&mut self.mode, kind) {
            (
                Mode::Board,
                MouseEventKind::Down(button @ (MouseButton::Left | MouseButton::Right)),
            ) => {
                if let Some(c) = at.and_then(|(row, col)| Cursor::at(p, row, col)) {
                    self.cursor = c;
                    self.run(if button == MouseButton::Left {
                        Command::Activate
                    } else {
                        Command::MarkEmpty
                    });
                }
            }
            (Mode::Help, MouseEventKind::Down(_)) => self.mode = Mode::Board,
            (Mode::Molecules { scroll }, MouseEventKind::ScrollDown) => {
                *scroll = scroll.saturating_add(3)
            }
            (Mode::Molecules { scroll }, MouseEventKind::ScrollUp) => {
                *scroll = scroll.saturating_sub(3)
            }
            _ => {}
        }
    }

    fn run(&mut self, c: Command) {
        // A count (digits, Ctrl-U) is for the next command.
        let typed = match c {
            Command::Digit(0) if self.count.is_none() => return,
            Command::Digit(d) => Some(self.count.unwrap_or(0).saturating_mul(10) + d as usize),
            Command::Universal => Some(self.count.map_or(4, |n| n.saturating_mul(4))),
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
                .is_some_and(|(m, _)| *m == say::count(n))
        {
            // The count is used now: it is no longer being typed.
            self.message = None;
        }
        let times = typed.unwrap_or(1).max(1);
        let over = self.game().is_over();
        if let Some((on, what)) = panel(&mut self.panels, c) {
            let (text, asked) = if over {
                (say::OVER_COACH.to_string(), false)
            } else {
                *on = !*on;
                (say::coach(what, *on), *on)
            };
            if asked {
                self.game_mut().note_coached();
            }
            return self.info(text);
        }
        match c {
            Command::Move(d) => (0..times).for_each(|_| self.cursor.step(d)),
            Command::Opposite => self.cursor.opposite(),
            Command::Home => self.cursor.to_end(false),
            Command::End => self.cursor.to_end(true),
            Command::MarkEmpty if over => self.info(say::OVER),
            Command::MarkEmpty => self.mark_empty(),
            Command::Undo | Command::Redo => self.undo(c == Command::Redo, times),
            Command::Resign if over => self.info(say::OVER),
            Command::Resign => self.mode = Mode::ConfirmResign,
            Command::Activate => self.activate(),
            Command::Submit => self.submit(),
            Command::ShowMolecules if over => self.mode = Mode::Molecules { scroll: 0 },
            Command::ShowMolecules => self.info(say::NOT_YET_MOLECULES),
            Command::Save => self.open_save_prompt(),
            Command::SwitchNotation => {
                self.notation = match self.notation {
                    Notation::Letters => Notation::Emacs,
                    Notation::Emacs => Notation::Letters,
                };
                let (_, used) = self.game().marks_in(self.notation);
                self.info(say::notation(self.notation, used));
            }
            Command::NewGame => self.new_game(),
            Command::ToggleExplained if over => self.info(say::OVER),
            Command::ToggleExplained => {
                self.explained = !self.explained;
                let text = say::explained(self.explained);
                self.info(text);
            }
            Command::Help => self.mode = Mode::Help,
            Command::Quit if over => self.effects.push(Effect::Quit),
            Command::Quit => self.mode = Mode::ConfirmQuit,
            // Taken above.
            Command::Interrupt
            | Command::Digit(_)
            | Command::Universal
            | Command::ToggleCount
            | Command::ToggleCertain
            | Command::ToggleBest
            | Command::ToggleChance => {}
        }
    }

    fn activate(&mut self) {
        let p = self.game().shape();
        match self.cursor.target() {
            // After the game the reveal draws the ray's path at the cursor.
            Some(Target::Border(_)) if self.game().is_over() => {}
            Some(Target::Border(q)) => {
                let before = self.game().ray_score();
                match self.game_mut().shoot(q) {
                    Shot::New(o) => {
                        self.unsaved = true;
                        let letters = self.notation == Notation::Emacs
                            && !self.told_letters
                            && self.game().marks_in(Notation::Emacs).1 == Notation::Letters;
                        self.told_letters |= letters;
                        let score = self.game().ray_score();
                        self.info(say::shot(p, q, o, score - before, score, letters));
                    }
                    Shot::Again(o) => self.info(say::known(p, q, o)),
                    Shot::GameOver => {}
                }
            }
            Some(Target::Cell(_)) if self.game().is_over() => self.info(say::OVER_CELL),
            Some(Target::Cell(i)) if self.game().is_marked_empty(i) => self.info(say::marked(p, i)),
            Some(Target::Cell(i)) => {
                let on = self.game_mut().toggle(i);
                self.unsaved = true;
                let (placed, counts) = (self.game().placed(), self.game().counts());
                self.info(say::atom(p, i, on, placed, &counts));
            }
            None => {}
        }
    }

    /// Marks empty the cell at the cursor, or the row or column of the
    /// border position at the cursor (or unmarks them).
    fn mark_empty(&mut self) {
        let p = self.game().shape();
        let Some(target) = self.cursor.target() else {
            return;
        };
        let cells: Vec<usize> = match target {
            Target::Cell(i) => vec![i],
            Target::Border(q) => {
                // The row of a position on the left or right, the column of
                // one on the top or bottom.
                let q = port(p, q);
                (0..p.cells())
                    .filter(|&i| {
                        let (r, c) = p.row_col(i);
                        r == q.row || c == q.col
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
        let (p, score) = (self.game().shape(), self.game().ray_score());
        self.info(say::undid(p, redo, done.len(), done.last(), score));
    }

    fn play_on(&mut self) {
        let p = self.game().shape();
        let before = self.game().ray_score();
        match self.game_mut().play_on() {
            Some(q) => {
                self.unsaved = true;
                self.cursor = Cursor::at_position(p, q);
                let o = self.game().observation().get(q);
                let score = self.game().ray_score();
                self.info(say::playing_on(p, q, o, score - before, score));
            }
            None => self.info(say::PLAYING_ON),
        }
    }

    fn submit(&mut self) {
        match self.game().check() {
            Ok(v) if !v.won => self.mode = Mode::WrongGuess { verdict: v.into() },
            Ok(_) => self.end(Game::submit),
            Err(GuessError::AlreadyJudged) => self.info(say::JUDGED),
            Err(e) => self.say(say::not_yet(&e.to_string()), Tone::Bad),
        }
    }

    /// Ends the game as `how` does (the guess submitted, or resigning), and
    /// shows the verdict.
    fn end(&mut self, how: fn(&mut Game) -> Result<&Verdict, GuessError>) {
        if how(self.game_mut()).is_ok() {
            self.unsaved = true;
            self.after_verdict();
        }
    }

    /// Shows the verdict: the message, the cursor on the ray that tells a
    /// wrong guess apart; and asks for the review.
    fn after_verdict(&mut self) {
        let Some(v) = self.game().verdict().cloned() else {
            return;
        };
        let p = self.game().shape();
        if let Some(e) = v.evidence {
            self.cursor = Cursor::at_position(p, e.position);
        }
        let g = &self.started.game;
        if *self.advice.review() == ReviewState::NotAsked {
            let config = g.hidden().config();
            let count = config.molecule_count();
            if count.is_none_or(|n| n > REVIEW_LIMIT) {
                let why = words::too_large_to_review(config, count);
                self.advice.set_review(ReviewState::Unavailable(why));
            } else {
                let request = ReviewRequest {
                    hidden: g.hidden().clone(),
                    rules: g.rules(),
                    policy: self.review_policy(),
                    given: g.free_positions(),
                    shots: g.shots().to_vec(),
                    average: count.is_some_and(|n| n <= REVIEW_AVERAGE_LIMIT),
                };
                self.advice.set_review(ReviewState::Working);
                self.effects.push(Effect::Review(request));
            }
        }
        self.say(say::verdict(&v), if v.won { Tone::Good } else { Tone::Bad });
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
        let naming = self.options.naming.as_ref();
        let text = if is_tatham_save(&path) {
            tatham_save(self.game()).map_err(Error::invalid)
        } else {
            save_text(self.game(), self.notation, naming)
        };
        match text {
            Ok(text) => {
                self.effects.push(Effect::Save {
                    path,
                    text,
                    replace,
                });
            }
            Err(e) => self.say(say::cannot_save(&e.show(naming)), Tone::Bad),
        }
    }

    fn new_game(&mut self) {
        if !self.game().is_over() {
            return self.info(say::FINISH_FIRST);
        }
        let setup = next_setup(&self.setup, &self.started);
        self.effects.push(Effect::Start(setup));
    }

    fn started_new(&mut self, started: Result<Started, Error>) {
        let s = match started {
            Ok(s) => s,
            Err(e) => {
                let why = e.show(self.options.naming.as_ref());
                return self.say(say::no_new_game(&why), Tone::Bad);
            }
        };
        let mut earlier = std::mem::take(&mut self.earlier);
        earlier.push(self.game_summary());
        // The notation chosen and what was told stay.
        *self = App {
            notation: self.notation,
            told_letters: self.told_letters,
            earlier,
            effects: std::mem::take(&mut self.effects),
            ..App::fresh(self.setup.clone(), s, self.options.clone())
        };
        self.effects.push(Effect::ForgetCoach);
        self.info(say::new_game(&self.started.title()));
    }

    /// How the games of the session ended, one line each (the earlier games
    /// `n` started after, then the last).
    pub fn summary(&self) -> String {
        let mut lines = self.earlier.clone();
        lines.push(self.game_summary());
        lines.join("\n")
    }

    /// One line on how the game on screen ended.
    fn game_summary(&self) -> String {
        let saved = self.saved_to.as_deref().filter(|_| !self.unsaved);
        words::summary(
            &self.started.title(),
            self.game().verdict(),
            self.game().coached(),
            saved,
        )
    }
}

/// The setup of the game `n` starts after `started`: the same setup with a
/// fresh seed (another random molecule, another answer of the puzzle);
/// after a saved game or a game of Tatham's, a new random game of the same
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

/// The coach panel a command switches on or off, and its name.
fn panel(panels: &mut Panels, c: Command) -> Option<(&mut bool, &'static str)> {
    Some(match c {
        Command::ToggleCount => (&mut panels.count, "count of molecules that fit"),
        Command::ToggleCertain => (&mut panels.certain, "certain cells"),
        Command::ToggleBest => (&mut panels.best, "best next ray"),
        Command::ToggleChance => (&mut panels.chance, "chance of an atom in each cell"),
        _ => return None,
    })
}
