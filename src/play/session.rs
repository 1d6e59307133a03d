//! A game being played: the state ([`App`]), the coach's worker, and the
//! loop that carries out what the state asks for — writing a save file,
//! starting a new game, asking the coach — and draws the screen on any
//! ratatui backend.
//!
//! The loop ([`run`]) takes its events from a function and its stop from a
//! [`Cancel`] token, so that the same game runs on the real terminal (the
//! binary gives it crossterm's events and its signals) and, key by key, in
//! tests on a `TestBackend`. It never exits the process.
//!
//! ```
//! use bbx::play::app::Options;
//! use bbx::play::session::Session;
//! use bbx::play::setup::{Setup, start};
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//! use ratatui::{Terminal, backend::TestBackend};
//!
//! let setup = Setup { seed: Some(1), ..Setup::default() };
//! let mut game = Session::new(setup.clone(), start(&setup).unwrap(), Options::default());
//! game.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)); // shoots ray 1
//! assert_eq!(game.app().game().observation().shot_count(), 1);
//! let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
//! terminal.draw(|f| bbx::play::view::draw(game.app(), f)).unwrap();
//! ```

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyEvent, MouseEvent};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::layout::Rect;

use crate::control::Cancel;
use crate::error::Error;
use crate::files::write_whole;
use crate::play::app::{App, Effect, Msg, Options};
use crate::play::coach::Coach;
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
    app: App,
    coach: Coach,
    quit: bool,
}

impl Session {
    /// Plays the game `started` from `setup`.
    pub fn new(setup: Setup, started: Started, options: Options) -> Session {
        let coach = Coach::new(options.coach, options.policy);
        let (app, effects) = App::new(setup, started, options);
        let mut session = Session {
            app,
            coach,
            quit: false,
        };
        session.perform(effects);
        session
    }

    /// The game's state.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Takes `msg` in, and carries out what the state asks for.
    pub fn update(&mut self, msg: Msg) {
        let effects = self.app.update(msg);
        self.perform(effects);
    }

    fn perform(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Save {
                    path,
                    text,
                    replace,
                } => self.update(if !replace && Path::new(&path).exists() {
                    Msg::Exists(path)
                } else {
                    let written = write_whole(Path::new(&path), text.as_bytes());
                    Msg::Saved(path, written.map_err(|e| e.to_string()))
                }),
                Effect::Start(setup) => self.update(Msg::Started(Box::new(start(&setup)))),
                Effect::Ask(question) => self.coach.ask(question),
                Effect::Review(request) => self.coach.review(request),
                Effect::ForgetCoach => self.coach.reset(),
                Effect::Quit => self.quit = true,
            }
        }
    }

    /// Handles one key press (releases are ignored).
    pub fn handle_key(&mut self, key: KeyEvent) {
        self.update(Msg::Key(key));
    }

    /// Handles a mouse event on a screen of `area`.
    pub fn handle_mouse(&mut self, event: MouseEvent, area: Rect) {
        let at = view::board_at(&self.app, area, event.column, event.row);
        self.update(Msg::Mouse(event.kind, at));
    }

    /// Ends the game as Ctrl-C or a termination signal does: at once, and
    /// reported as interrupted, not as a quit.
    pub fn interrupt(&mut self) {
        self.update(Msg::Interrupt);
    }

    /// Takes in what the coach has said; returns whether it said anything.
    pub fn tick(&mut self) -> bool {
        let news = self.coach.poll();
        let said = !news.is_empty();
        news.into_iter().for_each(|n| self.update(Msg::Coach(n)));
        said
    }

    /// Whether the coach is working (the screen then refreshes its progress).
    pub fn busy(&self) -> bool {
        !self.app.coach().is_idle()
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
            let news = self.coach.wait(left.min(Duration::from_millis(50)));
            news.into_iter().for_each(|n| self.update(Msg::Coach(n)));
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
            summary: self.app.summary(),
            interrupted: self.app.was_interrupted(),
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
            .draw(|f| view::draw(session.app(), f))
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
