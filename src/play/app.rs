//! The game on screen: what the player sees and what each key does.
//!
//! [`App`] holds a [`Game`], the cursor, the coach and whichever window is
//! open (help, the quit question, the save prompt, the list of molecules). It
//! takes keys and mouse clicks as crossterm events; [`crate::play::draw`]
//! draws it on any ratatui backend, so tests drive it on a `TestBackend`
//! exactly as the terminal loop in [`crate::play::terminal`] does on a real
//! terminal. The state knows nothing of how it is drawn.
//!
//! ```
//! use bbx::play::app::{App, Options};
//! use bbx::play::setup::{Setup, Start, start};
//! use ratatui::{Terminal, backend::TestBackend};
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//!
//! let setup = Setup { seed: Some(1), ..Setup::default() };
//! let mut app = App::new(setup.clone(), start(&setup).unwrap(), Options::default());
//! app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)); // shoot ray 1
//! assert_eq!(app.game().observation().shot_count() >= 1, true);
//! let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
//! terminal.draw(|f| bbx::play::draw(&mut app, f)).unwrap();
//! ```

use std::path::Path;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};

use crate::assistant::strategy::Policy;
use crate::play::coach::{Coach, CoachLimits, ReviewRequest};
use crate::play::game::{Action, Game, GuessError, Shot};
use crate::play::input::{Command, Cursor, Target, command};
use crate::play::referee::Verdict;
use crate::play::save::save_text;
use crate::play::setup::{Setup, Source, Started, start};
use crate::render::position_name;
use crate::rules::notation::Notation;
use crate::rules::ray::Outcome;

/// Display and coach settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// How the border marks are written.
    pub notation: Notation,
    /// Bounds on each question to the coach.
    pub coach: CoachLimits,
    /// Where `s` offers to save (default: see [`Started::default_save_path`]).
    pub save_path: Option<String>,
    /// The policy the verdict compares the player's game with.
    pub policy: Policy,
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

/// How a message should look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Plain information.
    Info,
    /// Good news.
    Good,
    /// A problem or bad news.
    Bad,
}

/// Which parts of the coach are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Panels {
    /// The number of molecules that fit.
    pub count: bool,
    /// The cells certain to be atoms or empty.
    pub certain: bool,
    /// The best next ray.
    pub best: bool,
    /// Each cell's chance of holding an atom.
    pub chance: bool,
}

impl Panels {
    fn any(self) -> bool {
        self.count || self.certain || self.best || self.chance
    }
}

/// The game on screen.
#[derive(Debug)]
pub struct App {
    setup: Setup,
    started: Started,
    options: Options,
    cursor: Cursor,
    notation: Notation,
    coach: Coach,
    panels: Panels,
    mode: Mode,
    message: Option<(String, Tone)>,
    save_path: String,
    saved_to: Option<String>,
    unsaved: bool,
    coach_used: bool,
    quit: bool,
    /// The game was ended by Ctrl-C or a signal, not by quitting.
    interrupted: bool,
    /// Where the board's text starts on screen (column, row), from the last
    /// drawing: mouse clicks are mapped through it.
    board_origin: Option<(u16, u16)>,
    /// The count typed so far (digits, Ctrl-U), for the next command.
    count: Option<usize>,
    /// Whether the switch from Emacs digits to letters was told.
    told_letters: bool,
    /// How each earlier game of this session ended (`n` starts another).
    earlier: Vec<String>,
}

impl App {
    /// The screen for a game `started` from `setup` (kept to start new games).
    pub fn new(setup: Setup, started: Started, options: Options) -> App {
        let p = started.game.width();
        let save_path = options
            .save_path
            .clone()
            .unwrap_or_else(|| started.default_save_path());
        let saved_to = match &started.source {
            Source::Saved { path } => Some(path.clone()),
            _ => None,
        };
        let message = Some((
            format!(
                "{} hidden. Shoot rays with Enter, place atoms, then g for the verdict; ? shows every key.",
                atoms_are(started.game.atoms())
            ),
            Tone::Info,
        ));
        let mut app = App {
            setup,
            cursor: Cursor::start(p),
            notation: match (options.notation, started.notation) {
                (Notation::Emacs, _) | (_, Some(Notation::Emacs)) => Notation::Emacs,
                _ => Notation::Letters,
            },
            coach: Coach::new(options.coach),
            panels: Panels::default(),
            mode: Mode::Board,
            message,
            save_path,
            saved_to,
            unsaved: false,
            coach_used: false,
            quit: false,
            interrupted: false,
            board_origin: None,
            count: None,
            told_letters: false,
            earlier: Vec::new(),
            options,
            started,
        };
        if app.started.game.is_over() {
            app.after_verdict();
        }
        app
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.started.game
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

    /// The coach.
    pub fn coach(&self) -> &Coach {
        &self.coach
    }

    /// The display and coach settings.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Which coach panels are on.
    pub fn panels(&self) -> Panels {
        self.panels
    }

    /// The window that has the keyboard.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// The last message and its tone.
    pub fn message(&self) -> Option<(&str, Tone)> {
        self.message.as_ref().map(|(m, t)| (m.as_str(), *t))
    }

    /// Whether the player has asked the coach anything this game.
    pub fn coach_used(&self) -> bool {
        self.coach_used
    }

    /// Whether the player has quit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Ends the game as Ctrl-C or a termination signal does: at once, and
    /// reported as interrupted (exit status 130), not as a quit.
    pub fn interrupt(&mut self) {
        self.quit = true;
        self.interrupted = true;
    }

    /// Whether the game was ended by Ctrl-C or a signal.
    pub fn was_interrupted(&self) -> bool {
        self.interrupted
    }

    /// Whether the coach is working (the screen then refreshes its progress).
    pub fn busy(&self) -> bool {
        !self.coach.is_idle()
    }

    /// Where the last save went.
    pub fn saved_to(&self) -> Option<&str> {
        self.saved_to.as_deref()
    }

    fn say(&mut self, text: impl Into<String>, tone: Tone) {
        self.message = Some((text.into(), tone));
    }

    /// Takes in the coach's progress; returns whether the screen changed.
    pub fn tick(&mut self) -> bool {
        let changed = self.coach.poll();
        self.ask_coach();
        changed
    }

    /// Waits (at most `timeout`) until the coach has answered; for tests and
    /// scripts. Returns whether it has.
    pub fn wait_for_coach(&mut self, timeout: Duration) -> bool {
        self.ask_coach();
        self.coach.wait(timeout)
    }

    fn ask_coach(&mut self) {
        let wanted = self.panels.any() || matches!(self.mode, Mode::Molecules { .. });
        if wanted {
            let g = &self.started.game;
            self.coach.ask(g.observation(), g.rules(), g.atoms());
        }
    }

    /// Records where the board's text starts on the screen, as drawn by
    /// [`crate::play::draw`] (`None` when the screen is too small for it), so
    /// that a mouse click finds its cell.
    pub fn set_board_origin(&mut self, origin: Option<(u16, u16)>) {
        self.board_origin = origin;
    }

    /// Handles one key press (releases and repeats of other kinds are ignored).
    pub fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if command(&key) == Some(Command::Interrupt) {
            self.interrupt();
            return;
        }
        match self.mode.clone() {
            Mode::Board => {
                if let Some(c) = command(&key) {
                    self.run(c);
                }
            }
            Mode::Help => self.mode = Mode::Board,
            Mode::ConfirmResign => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => {
                    self.mode = Mode::Board;
                    if self.started.game.resign().is_ok() {
                        self.unsaved = true;
                        self.after_verdict();
                    }
                }
                _ => {
                    self.mode = Mode::Board;
                    self.say("Back to the game.", Tone::Info);
                }
            },
            Mode::WrongGuess { .. } => match key.code {
                KeyCode::Char('p') | KeyCode::Enter | KeyCode::Char(' ') => {
                    self.mode = Mode::Board;
                    self.play_on();
                }
                KeyCode::Char('e') => {
                    self.mode = Mode::Board;
                    if self.started.game.submit().is_ok() {
                        self.unsaved = true;
                        self.after_verdict();
                    }
                }
                _ => {}
            },
            Mode::ConfirmQuit => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.quit = true,
                KeyCode::Char('s') => self.open_save_prompt(),
                _ => {
                    self.mode = Mode::Board;
                    self.say("Back to the game.", Tone::Info);
                }
            },
            Mode::SavePrompt { mut input } => match key.code {
                KeyCode::Enter => self.save_requested(input),
                KeyCode::Esc => {
                    self.mode = Mode::Board;
                    self.say("Not saved.", Tone::Info);
                }
                KeyCode::Backspace => {
                    input.pop();
                    self.mode = Mode::SavePrompt { input };
                }
                KeyCode::Char(c) if !c.is_control() => {
                    input.push(c);
                    self.mode = Mode::SavePrompt { input };
                }
                _ => {}
            },
            Mode::ConfirmOverwrite { path } => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.save_to(path),
                _ => self.mode = Mode::SavePrompt { input: path },
            },
            Mode::Molecules { scroll } => {
                let scroll = match key.code {
                    KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
                    KeyCode::PageUp => scroll.saturating_sub(10),
                    KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(10),
                    KeyCode::Home => 0,
                    _ => {
                        self.mode = Mode::Board;
                        return;
                    }
                };
                self.mode = Mode::Molecules { scroll };
            }
        }
        self.ask_coach();
    }

    /// Handles a mouse event: a left click on the board moves the cursor there
    /// and shoots or places an atom; the wheel scrolls the list of molecules.
    pub fn handle_mouse(&mut self, event: MouseEvent) {
        match (&self.mode, event.kind) {
            (Mode::Board, MouseEventKind::Down(MouseButton::Left)) => {
                let Some((x0, y0)) = self.board_origin else {
                    return;
                };
                if event.column < x0 || event.row < y0 {
                    return;
                }
                let col = usize::from((event.column - x0) / 2);
                let row = usize::from(event.row - y0);
                if let Some(c) = Cursor::at(self.game().width(), row, col) {
                    self.cursor = c;
                    self.run(Command::Activate);
                }
            }
            (Mode::Help, MouseEventKind::Down(_)) => self.mode = Mode::Board,
            (Mode::Molecules { scroll }, MouseEventKind::ScrollDown) => {
                self.mode = Mode::Molecules {
                    scroll: scroll.saturating_add(3),
                }
            }
            (Mode::Molecules { scroll }, MouseEventKind::ScrollUp) => {
                self.mode = Mode::Molecules {
                    scroll: scroll.saturating_sub(3),
                }
            }
            _ => {}
        }
        self.ask_coach();
    }

    fn run(&mut self, c: Command) {
        // A count (digits, Ctrl-U) is for the next command.
        match c {
            Command::Digit(d) => {
                if d == 0 && self.count.is_none() {
                    return;
                }
                let n = self
                    .count
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d as usize);
                self.count = Some(n.min(9999));
                self.say(format!("count {}", n.min(9999)), Tone::Info);
                return;
            }
            Command::Universal => {
                let n = self.count.map_or(4, |n| n.saturating_mul(4)).min(9999);
                self.count = Some(n);
                self.say(format!("count {n}"), Tone::Info);
                return;
            }
            _ => {}
        }
        let times = self.count.take().unwrap_or(1).max(1);
        if self.game().is_over()
            && matches!(
                c,
                Command::ToggleCount
                    | Command::ToggleCertain
                    | Command::ToggleBest
                    | Command::ToggleChance
            )
        {
            self.say(
                "The game is over: a lists every molecule the rays allowed.",
                Tone::Info,
            );
            return;
        }
        match c {
            Command::Move(d) => {
                for _ in 0..times {
                    self.cursor.step(d);
                }
            }
            Command::Opposite => self.cursor.opposite(),
            Command::Home => self.cursor.to_end(false),
            Command::End => self.cursor.to_end(true),
            Command::Digit(_) | Command::Universal => {}
            Command::MarkEmpty => self.mark_empty(),
            Command::Undo => self.undo(times),
            Command::Redo => self.redo(times),
            Command::Resign => {
                if self.game().is_over() {
                    self.say("The game is over: n starts a new one.", Tone::Info);
                } else {
                    self.mode = Mode::ConfirmResign;
                }
            }
            Command::Activate => self.activate(),
            Command::Submit => self.submit(),
            Command::ToggleCount => {
                self.panels.count = !self.panels.count;
                self.coach_toggled(self.panels.count, "count of molecules that fit");
            }
            Command::ToggleCertain => {
                self.panels.certain = !self.panels.certain;
                self.coach_toggled(self.panels.certain, "certain cells");
            }
            Command::ToggleBest => {
                self.panels.best = !self.panels.best;
                self.coach_toggled(self.panels.best, "best next ray");
            }
            Command::ToggleChance => {
                self.panels.chance = !self.panels.chance;
                self.coach_toggled(self.panels.chance, "chance of an atom in each cell");
            }
            Command::ShowMolecules => {
                if self.game().is_over() {
                    self.mode = Mode::Molecules { scroll: 0 };
                } else {
                    self.say(
                        "Every molecule the rays allow is shown after the game (it would give the game away); c counts them.",
                        Tone::Info,
                    );
                }
            }
            Command::Save => self.open_save_prompt(),
            Command::SwitchNotation => {
                self.notation = match self.notation {
                    Notation::Letters => Notation::Emacs,
                    Notation::Emacs => Notation::Letters,
                };
                let (_, used) = self.game().marks_in(self.notation);
                let text = match (self.notation, used) {
                    (Notation::Emacs, Notation::Emacs) => {
                        "Emacs notation: H hit, R reflection, digits for exit pairs."
                    }
                    (Notation::Emacs, _) => {
                        "Emacs notation has digits for 9 exit pairs only: this game has more, so letters stay."
                    }
                    _ => "J. Forget's notation: @ hit, & reflection, letters for exit pairs.",
                };
                self.say(text, Tone::Info);
            }
            Command::NewGame => self.new_game(),
            Command::Help => self.mode = Mode::Help,
            Command::Quit => {
                if self.game().is_over() {
                    self.quit = true;
                } else {
                    self.mode = Mode::ConfirmQuit;
                }
            }
            Command::Interrupt => self.interrupt(),
        }
    }

    fn activate(&mut self) {
        let p = self.game().width();
        match self.cursor.target() {
            Some(Target::Border(q)) => {
                if self.game().is_over() {
                    return; // the reveal draws the ray's path at the cursor
                }
                let before = self.game().ray_score();
                let shot = self.started.game.shoot(q);
                let name = position_name(p, q);
                match shot {
                    Shot::New(o) => {
                        self.unsaved = true;
                        let cost = self.game().ray_score() - before;
                        let paid = if cost == 0 {
                            "paid already".to_string()
                        } else {
                            format!("+{cost}")
                        };
                        let mut text = format!(
                            "Ray {q} ({name}): {} ({paid}, score {}).",
                            outcome_words(p, o),
                            self.game().ray_score()
                        );
                        if self.notation == Notation::Emacs
                            && !self.told_letters
                            && self.game().marks_in(Notation::Emacs).1 == Notation::Letters
                        {
                            self.told_letters = true;
                            text.push_str(
                                " Emacs notation has digits for 9 exit pairs only: letters from now on.",
                            );
                        }
                        self.say(text, Tone::Info);
                    }
                    Shot::Again(o) => self.say(
                        format!(
                            "Ray {q} ({name}) is known already: {}.",
                            outcome_words(p, o)
                        ),
                        Tone::Info,
                    ),
                    Shot::GameOver => {}
                }
            }
            Some(Target::Cell(i)) => {
                if self.game().is_over() {
                    self.say(
                        "The game is over: n starts a new one, a lists every molecule the rays allowed.",
                        Tone::Info,
                    );
                    return;
                }
                if self.game().is_marked_empty(i) {
                    self.say(
                        format!(
                            "Row {}, column {} is marked empty: m unmarks it.",
                            i / p + 1,
                            i % p + 1
                        ),
                        Tone::Info,
                    );
                    return;
                }
                let on = self.started.game.toggle(i);
                self.unsaved = true;
                let (placed, n) = (self.game().placed(), self.game().atoms());
                let where_ = format!("row {}, column {}", i / p + 1, i % p + 1);
                let text = if on {
                    if placed == n {
                        format!(
                            "Atom at {where_}: all {n} placed. g asks the referee for the verdict."
                        )
                    } else {
                        format!("Atom at {where_} ({placed} of {n}).")
                    }
                } else {
                    format!("Atom removed from {where_} ({placed} of {n}).")
                };
                self.say(text, Tone::Info);
            }
            None => {}
        }
    }

    fn mark_empty(&mut self) {
        if self.game().is_over() {
            self.say("The game is over: n starts a new one.", Tone::Info);
            return;
        }
        let p = self.game().width();
        let (cells, what): (Vec<usize>, String) = match self.cursor.target() {
            Some(Target::Cell(i)) => (vec![i], format!("row {}, column {}", i / p + 1, i % p + 1)),
            Some(Target::Border(q)) => {
                let port = crate::rules::board::port(p, q);
                if port.col == 0 || port.col == p + 1 {
                    let r = port.row - 1;
                    (
                        (0..p).map(|c| p * r + c).collect(),
                        format!("row {}", r + 1),
                    )
                } else {
                    let c = port.col - 1;
                    (
                        (0..p).map(|r| p * r + c).collect(),
                        format!("column {}", c + 1),
                    )
                }
            }
            None => return,
        };
        let (n, marked) = self.started.game.mark_empty(&cells);
        if n == 0 {
            self.say(
                format!("Nothing to mark in {what}: your atoms are never marked empty."),
                Tone::Info,
            );
            return;
        }
        self.unsaved = true;
        let cells = plural(n, "cell", "cells");
        self.say(
            if marked {
                format!("Marked {what} empty ({cells}, drawn :). m again unmarks, u undoes.")
            } else {
                format!("Unmarked {what} ({cells}).")
            },
            Tone::Info,
        );
    }

    fn undo(&mut self, times: usize) {
        if self.game().is_over() {
            self.say("The game is over: nothing to undo.", Tone::Info);
            return;
        }
        let mut last = None;
        let mut n = 0;
        for _ in 0..times {
            match self.started.game.undo() {
                Some(a) => {
                    last = Some(a);
                    n += 1;
                }
                None => break,
            }
        }
        let Some(a) = last else {
            self.say("Nothing to undo.", Tone::Info);
            return;
        };
        self.unsaved = true;
        let what = self.action_words(&a);
        let text = if n > 1 {
            format!("Undid {n} actions, the last {what}; U redoes.")
        } else {
            format!("Undid {what}; U redoes.")
        };
        let text = if matches!(a, Action::Shoot(_)) || n > 1 {
            format!("{text} Rays stay paid: score {}.", self.game().ray_score())
        } else {
            text
        };
        self.say(text, Tone::Info);
    }

    fn redo(&mut self, times: usize) {
        if self.game().is_over() {
            self.say("The game is over: nothing to redo.", Tone::Info);
            return;
        }
        let mut last = None;
        let mut n = 0;
        for _ in 0..times {
            match self.started.game.redo() {
                Some(a) => {
                    last = Some(a);
                    n += 1;
                }
                None => break,
            }
        }
        let Some(a) = last else {
            self.say("Nothing to redo.", Tone::Info);
            return;
        };
        self.unsaved = true;
        let what = self.action_words(&a);
        self.say(
            if n > 1 {
                format!("Redid {n} actions, the last {what}.")
            } else {
                format!("Redid {what}.")
            },
            Tone::Info,
        );
    }

    fn action_words(&self, a: &Action) -> String {
        let p = self.game().width();
        match a {
            Action::Shoot(q) => format!("ray {q} ({})", position_name(p, *q)),
            Action::Atom(i) => format!("the atom at row {}, column {}", i / p + 1, i % p + 1),
            Action::Empty(cells) => format!(
                "the marks of {}",
                plural(cells.len(), "empty cell", "empty cells")
            ),
        }
    }

    fn play_on(&mut self) {
        let p = self.game().width();
        let before = self.game().ray_score();
        match self.started.game.play_on() {
            Some(q) => {
                self.unsaved = true;
                self.cursor = Cursor::at_position(p, q);
                let o = self.game().observation().get(q);
                let cost = self.game().ray_score() - before;
                let told = o.map(|o| outcome_words(p, o)).unwrap_or_default();
                self.say(
                    if cost > 0 {
                        format!(
                            "Playing on: ray {q} ({}) is shot for you, {told} (+{cost}, score {}). Fix your guess, then g.",
                            position_name(p, q),
                            self.game().ray_score()
                        )
                    } else {
                        format!(
                            "Playing on: ray {q} ({}), which you shot, is {told}; your guess does not fit it. Fix it, then g.",
                            position_name(p, q)
                        )
                    },
                    Tone::Info,
                );
            }
            None => self.say("Playing on.", Tone::Info),
        }
    }

    fn submit(&mut self) {
        match self.started.game.check() {
            Ok(v) if !v.won => {
                self.mode = Mode::WrongGuess {
                    verdict: Box::new(v),
                };
            }
            Ok(_) => {
                if self.started.game.submit().is_ok() {
                    self.unsaved = true;
                    self.after_verdict();
                }
            }
            Err(GuessError::AlreadyJudged) => self.say(
                "The guess has been judged: n starts a new game, q quits.",
                Tone::Info,
            ),
            Err(e) => self.say(format!("Not yet: {e}."), Tone::Bad),
        }
    }

    /// Shows the verdict: the message, and the cursor on the ray that tells a
    /// wrong guess apart.
    fn after_verdict(&mut self) {
        let Some(v) = self.game().verdict().cloned() else {
            return;
        };
        let p = self.game().width();
        if let Some(e) = v.evidence {
            self.cursor = Cursor::at_position(p, e.position);
        }
        let g = &self.started.game;
        self.coach.ask_review(ReviewRequest {
            hidden: g.hidden().clone(),
            rules: g.rules(),
            policy: self.options.policy,
            given: g.free_positions(),
            shots: g.shots().to_vec(),
        });
        let text = if v.resigned {
            format!(
                "You resigned: score {}. Move along the border to see each ray's path.",
                v.score
            )
        } else if v.won {
            format!(
                "You win with a score of {}. Move along the border to see each ray's path.",
                v.score
            )
        } else {
            format!(
                "Not this time: score {}. The cursor is on the ray that tells them apart.",
                v.score
            )
        };
        self.say(text, if v.won { Tone::Good } else { Tone::Bad });
    }

    fn coach_toggled(&mut self, on: bool, what: &str) {
        if on {
            self.coach_used = true;
            self.say(format!("Coach: {what} on."), Tone::Info);
        } else {
            self.say(format!("Coach: {what} off."), Tone::Info);
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
            self.say("Type a file name, or Esc not to save.", Tone::Bad);
            return;
        }
        let own = self.saved_to.as_deref() == Some(path.as_str());
        if Path::new(&path).exists() && !own {
            self.mode = Mode::ConfirmOverwrite { path };
        } else {
            self.save_to(path);
        }
    }

    fn save_to(&mut self, path: String) {
        self.mode = Mode::Board;
        let text = match save_text(self.game(), self.notation) {
            Ok(t) => t,
            Err(e) => {
                self.say(format!("Cannot save: {e}."), Tone::Bad);
                return;
            }
        };
        match crate::files::write_whole(Path::new(&path), text.as_bytes()) {
            Ok(()) => {
                self.unsaved = false;
                self.save_path = path.clone();
                let q = shell_word(&path);
                self.say(
                    format!(
                        "Saved to {path}: 'bbx solve {q}' lists what fits, 'bbx play {q}' resumes."
                    ),
                    Tone::Good,
                );
                self.saved_to = Some(path);
            }
            Err(e) => self.say(
                format!("Cannot save to {path}: {e}. s tries again with another name."),
                Tone::Bad,
            ),
        }
    }

    fn new_game(&mut self) {
        if !self.game().is_over() {
            self.say(
                "Finish this game first (g submits your guess, r resigns), or q to quit.",
                Tone::Info,
            );
            return;
        }
        if matches!(self.started.source, Source::Saved { .. }) {
            self.say(
                "This was a saved game: 'bbx play A4_B8' (or any configuration) starts a new one.",
                Tone::Info,
            );
            return;
        }
        let setup = Setup {
            seed: None,
            ..self.setup.clone()
        };
        match start(&setup) {
            Ok(s) => {
                let p = s.game.width();
                let done = self.game_summary();
                self.earlier.push(done);
                self.save_path = self
                    .options
                    .save_path
                    .clone()
                    .unwrap_or_else(|| s.default_save_path());
                self.started = s;
                self.cursor = Cursor::start(p);
                self.coach = Coach::new(self.options.coach);
                self.panels = Panels::default();
                self.saved_to = None;
                self.unsaved = false;
                self.coach_used = false;
                self.say(format!("A new game: {}.", self.started.title()), Tone::Info);
            }
            Err(e) => self.say(format!("Cannot start a new game: {e}"), Tone::Bad),
        }
    }

    /// How the games of the session ended, one line each (the earlier games
    /// `n` started after, then the last), printed after the terminal is
    /// restored.
    pub fn summary(&self) -> String {
        let mut lines = self.earlier.clone();
        lines.push(self.game_summary());
        lines.join("\n")
    }

    /// One line on how the game on screen ended.
    fn game_summary(&self) -> String {
        let title = self.started.title();
        match self.game().verdict() {
            Some(v) => format!(
                "{title}: {} with a score of {}{}.",
                if v.resigned {
                    "resigned (lost)"
                } else if v.won {
                    "won"
                } else {
                    "lost"
                },
                v.score,
                if self.coach_used { " (coached)" } else { "" }
            ),
            None => match (&self.saved_to, self.unsaved) {
                (Some(path), false) => {
                    format!(
                        "{title}: unfinished, saved to {path} ('bbx play {}' resumes it).",
                        shell_word(path)
                    )
                }
                _ => format!("{title}: unfinished, not saved."),
            },
        }
    }
}

/// `1 atom is`, `4 atoms are`.
pub fn atoms_are(n: usize) -> String {
    if n == 1 {
        "1 atom is".to_string()
    } else {
        format!("{n} atoms are")
    }
}

/// `n` and its noun, singular for one: `1 cell`, `3 cells`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A file name as a shell word: as it is when it holds only safe characters,
/// else in double quotes (with `"`, `\`, `$` and `` ` `` escaped), so that
/// the command shown can be pasted as it is.
pub fn shell_word(path: &str) -> String {
    let safe = |c: char| c.is_alphanumeric() || "-_./+,:@%=".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// An outcome in words with the exit's place: `out at 12 (bottom, column 4)`.
pub fn outcome_words(width: usize, o: Outcome) -> String {
    match o {
        Outcome::Exit(k) => format!("out at {k} ({})", position_name(width, k)),
        Outcome::Miss => "missed the board".into(),
        other => other.words(),
    }
}
