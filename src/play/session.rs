//! A game being played in the terminal: the game middle ([`Middle`]), the
//! coach's worker, and the loop that carries out what the middle asks for —
//! writing a save file, starting a new game, asking the coach — and draws its
//! scene on any ratatui backend.
//!
//! The terminal's keys (crossterm's) become the library's [`Key`]s, read by
//! the player's profile; a mouse click on the board becomes a
//! [`Move::Press`]. The loop ([`run`]) takes its events from a function and
//! its stop from a [`Cancel`] token, so that the same game runs on the real
//! terminal (the binary gives it crossterm's events and its signals) and,
//! key by key, in tests on a `TestBackend`. It never exits the process.
//!
//! ```
//! use bbx::play::middle::Options;
//! use bbx::play::session::Session;
//! use bbx::play::setup::{Setup, start};
//! use bbx::control::Budget;
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//! use ratatui::{Terminal, backend::TestBackend};
//!
//! let setup = Setup { seed: Some(1), ..Setup::default() };
//! let mut game = Session::new(setup.clone(), start(&setup, &Budget::default()).unwrap(), Options::default());
//! game.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)); // shoots ray 1
//! assert_eq!(game.middle().game().observation().shot_count(), 1);
//! let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
//! terminal.draw(|f| bbx::play::view::draw(game.middle().scene(), f)).unwrap();
//! ```

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{
    Event, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::layout::Rect;

use crate::control::Budget;
use crate::control::Cancel;
use crate::error::Error;
use crate::files::write_whole;
use crate::play::coach::Coach;
use crate::play::cursor::Cursor;
use crate::play::keys::{Key, KeyCode};
use crate::play::middle::{Effect, Middle, Options};
use crate::play::moves::Move;
use crate::play::setup::{Setup, Started, start};
use crate::play::view;
use crate::play::words;

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// One line on how each game of the session ended.
    pub summary: String,
    /// Ended by Ctrl-C or a termination signal rather than by quitting.
    pub interrupted: bool,
}

/// A game being played, with the coach's worker.
#[derive(Debug)]
pub struct Session {
    middle: Middle,
    coach: Coach,
    quit: bool,
}

/// The library's key for a key crossterm read; `None` for a release or a
/// key the game has no use for.
pub fn key_of(event: &KeyEvent) -> Option<Key> {
    use crossterm::event::KeyCode as C;
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let code = match event.code {
        C::Char(c) => KeyCode::Char(c),
        C::Enter => KeyCode::Enter,
        C::Esc => KeyCode::Esc,
        C::Backspace => KeyCode::Backspace,
        C::Delete => KeyCode::Delete,
        C::Insert => KeyCode::Insert,
        C::Tab => KeyCode::Tab,
        C::BackTab => KeyCode::BackTab,
        C::Up => KeyCode::Up,
        C::Down => KeyCode::Down,
        C::Left => KeyCode::Left,
        C::Right => KeyCode::Right,
        C::Home => KeyCode::Home,
        C::End => KeyCode::End,
        C::PageUp => KeyCode::PageUp,
        C::PageDown => KeyCode::PageDown,
        C::F(n) => KeyCode::F(n),
        _ => return None,
    };
    Some(Key {
        code,
        ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
        alt: event.modifiers.contains(KeyModifiers::ALT),
    })
}

impl Session {
    /// Plays the game `started` from `setup`.
    pub fn new(setup: Setup, started: Started, options: Options) -> Session {
        let (middle, effects) = Middle::new(setup, started, options);
        let mut session = Session {
            middle,
            coach: Coach::new(),
            quit: false,
        };
        session.perform(effects);
        session
    }

    /// The game middle.
    pub fn middle(&self) -> &Middle {
        &self.middle
    }

    /// Makes `m`, and carries out what the middle asks for.
    pub fn apply(&mut self, m: Move) {
        let effects = self.middle.apply(m);
        self.perform(effects);
    }

    fn perform(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            let next = match effect {
                Effect::Save {
                    path,
                    text,
                    replace,
                } => {
                    if !replace && Path::new(&path).exists() {
                        self.middle.exists(path)
                    } else {
                        let written = write_whole(Path::new(&path), text.as_bytes());
                        self.middle.saved(path, written.map_err(|e| e.to_string()))
                    }
                }
                Effect::Start(setup) => self.middle.begin(start(&setup, &Budget::default())),
                Effect::Ask(question) => {
                    self.coach.ask(question);
                    Vec::new()
                }
                Effect::Review(request) => {
                    self.coach.review(request);
                    Vec::new()
                }
                Effect::ForgetCoach => {
                    self.coach.reset();
                    Vec::new()
                }
                Effect::Quit => {
                    self.quit = true;
                    Vec::new()
                }
            };
            self.perform(next);
        }
    }

    /// Handles one key press (releases are ignored).
    pub fn handle_key(&mut self, key: KeyEvent) {
        if let Some(k) = key_of(&key) {
            let effects = self.middle.key(k);
            self.perform(effects);
        }
    }

    /// Handles a mouse event on a screen of `area`: a left click on the
    /// board presses there, a right click marks; any click closes the help;
    /// the wheel scrolls the window open.
    pub fn handle_mouse(&mut self, event: MouseEvent, area: Rect) {
        let scene = self.middle.scene();
        let m = match event.kind {
            MouseEventKind::Down(button @ (MouseButton::Left | MouseButton::Right)) => {
                if scene.help.is_some() {
                    Some(Move::Cancel)
                } else {
                    let shape = scene.board.shape();
                    view::board_at(scene, area, event.column, event.row)
                        .and_then(|(row, col)| Cursor::at(shape, row, col))
                        .and_then(|c| c.target())
                        .map(|at| Move::Press {
                            at,
                            secondary: button == MouseButton::Right,
                        })
                }
            }
            MouseEventKind::ScrollDown if scene.list_open || scene.help.is_some() => {
                Some(Move::Scroll(3))
            }
            MouseEventKind::ScrollUp if scene.list_open || scene.help.is_some() => {
                Some(Move::Scroll(-3))
            }
            _ => None,
        };
        if let Some(m) = m {
            self.apply(m);
        }
    }

    /// Ends the game as Ctrl-C or a termination signal does: at once, and
    /// reported as interrupted, not as a quit.
    pub fn interrupt(&mut self) {
        self.apply(Move::Interrupt);
    }

    /// Takes in what the coach has said; returns whether it said anything.
    pub fn tick(&mut self) -> bool {
        let news = self.coach.poll();
        let said = !news.is_empty();
        for n in news {
            let effects = self.middle.hear(n);
            self.perform(effects);
        }
        said
    }

    /// Whether the coach is working (the screen then refreshes its progress).
    pub fn busy(&self) -> bool {
        !self.middle.coach().is_idle()
    }

    /// Waits (at most `timeout`) until the coach has answered; for tests and
    /// scripts. Returns whether it has.
    pub fn wait_for_coach(&mut self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        while self.busy() {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            for n in self.coach.wait(left.min(Duration::from_millis(50))) {
                let effects = self.middle.hear(n);
                self.perform(effects);
            }
        }
        true
    }

    /// Whether the game is over: the player quit, or it was interrupted.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// How the session ended.
    pub fn played(&self) -> Played {
        Played {
            summary: self.middle.summary(),
            interrupted: self.middle.was_interrupted(),
        }
    }
}

/// A terminal's failure.
fn tty(e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: "the terminal".into(),
        source: io::Error::other(e.to_string()),
    }
}

/// Plays `session` on `terminal` until the player quits or `stop` is
/// cancelled (then as interrupted): draws, takes the events `next` gives
/// (waiting at most the time it is given; `None` when none came), and takes
/// in the coach's progress between them. A terminal that stops answering, or
/// an endless stream of events that are neither keys nor the mouse, ends the
/// game with an error.
pub fn run<B: Backend>(
    session: &mut Session,
    terminal: &mut Terminal<B>,
    next: &mut dyn FnMut(Duration) -> io::Result<Option<Event>>,
    stop: &Cancel,
) -> Result<(), Error> {
    loop {
        terminal
            .draw(|f| view::draw(session.middle().scene(), f))
            .map_err(tty)?;
        if stop.is_cancelled() {
            session.interrupt();
        }
        if session.should_quit() {
            return Ok(());
        }
        // A terminal that went away (its window closed without a hang-up
        // signal) answers no more questions: stop, rather than poll a dead
        // line forever.
        let Ok(size) = terminal.size() else {
            return Err(Error::invalid(words::GONE));
        };
        let mut wait = Duration::from_millis(if session.busy() { 100 } else { 250 });
        // Take the events waiting before drawing again.
        let mut idle = 0u32;
        while let Some(event) = next(wait).map_err(tty)? {
            match event {
                Event::Key(k) => session.handle_key(k),
                Event::Mouse(m) => session.handle_mouse(m, Rect::from((Default::default(), size))),
                Event::Resize(..) => terminal.autoresize().map_err(tty)?,
                _ => idle += 1,
            }
            if stop.is_cancelled() {
                session.interrupt();
            }
            if session.should_quit() {
                break;
            }
            if idle > 10_000 {
                return Err(Error::invalid(words::GONE_UNSAVED));
            }
            wait = Duration::ZERO;
        }
        session.tick();
    }
}
