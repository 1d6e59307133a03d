//! `bbx play`: Black Box in the terminal, with the solver as a fair referee and
//! an honest coach.
//!
//! The top layer of the library: it uses every layer below (the rules to shoot
//! rays, the solver for the coach, the puzzle reader for files, the assistant
//! to draw molecules, render for names and pictures) and nothing uses it.
//!
//! | module | job |
//! |--------|-----|
//! | [`game`] | one game's state: hidden molecule, rays shot, guess, score |
//! | [`referee`] | judging a guess (Tatham's rule) and scoring it (the original game's) |
//! | [`setup`] | starting a game: random, from a puzzle file, or a saved game resumed |
//! | [`save`] | the save file: a puzzle `bbx solve` reads, with the hidden molecule scrambled |
//! | [`coach`] | the solver on a worker thread, bounded in time and count |
//! | [`input`] | the cursor and what each key does |
//! | [`app`] | the screen's state and the handling of keys and clicks |
//! | `ui` | drawing with ratatui (any backend: the terminal, or `TestBackend` in tests) |
//! | [`terminal`] | the real terminal, always restored |
//!
//! ```no_run
//! use bbx::play::{app::Options, play, setup::Setup};
//! let played = play(Setup::default(), Options::default())?;
//! println!("{}", played.summary);
//! # Ok::<(), bbx::Error>(())
//! ```

pub mod app;
pub mod coach;
pub mod game;
pub mod input;
pub mod referee;
pub mod save;
pub mod setup;
pub mod terminal;
mod ui;

pub use ui::{draw, minimum_size};

use crate::error::Error;

/// How a game in the terminal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// One line on how it ended.
    pub summary: String,
    /// Ended by Ctrl-C or a termination signal rather than by quitting.
    pub interrupted: bool,
}

/// Starts the game `setup` describes and plays it on the terminal until the
/// player quits or it is interrupted.
pub fn play(setup: setup::Setup, options: app::Options) -> Result<Played, Error> {
    // The game first, so that a bad file or option is reported even without
    // a terminal; then the terminal.
    let started = setup::start(&setup)?;
    let mut game = app::App::new(setup, started, options);
    terminal::run(&mut game)?;
    Ok(Played {
        summary: game.summary(),
        interrupted: game.was_interrupted(),
    })
}
