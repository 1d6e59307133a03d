//! `bbx play`: Black Box with the solver as a fair referee and an honest
//! coach, in the terminal or in any other front.
//!
//! The top layer of the library: it uses every layer below (the rules to shoot
//! rays, the solver for the coach, the puzzle reader for files, the assistant
//! to draw molecules, render for names and pictures) and nothing uses it.
//!
//! The game itself — [`game`], [`referee`], [`setup`], [`save`] and the
//! coach's questions ([`coach::answer`]) — needs no terminal and is always
//! built: the web page plays the same game with the same referee and score.
//! The terminal's screen (the modules marked *terminal* below) comes with the
//! `play` feature, which brings in ratatui and crossterm.
//!
//! The terminal's game is written as state, effects and views: the state ([`app`])
//! changes only through messages (keys, clicks, answers) and returns the
//! effects the loop ([`session`]) carries out (write a file, start a game,
//! ask the coach, quit); after each change it works out what the screen
//! shows, which [`view`] lays out on any ratatui backend. The real terminal
//! (raw mode, signals, the panic hook) is the binary's.
//!
//! | module | job |
//! |--------|-----|
//! | [`game`] | one game's state: hidden molecule, rays shot, guess, score |
//! | [`referee`] | judging a guess (Tatham's rule) and scoring it (the original game's) |
//! | [`setup`] | starting a game: random, from a puzzle file, or a saved game resumed |
//! | [`save`] | the save file: a puzzle `bbx solve` reads, with the hidden molecule scrambled |
//! | [`coach`] | the coach's question answered, the solver on worker threads, bounded in time and count, and what the game knows of its answers |
//! | `input` | *terminal*: the cursor and what each key does |
//! | `words` | *terminal*: every sentence the game says |
//! | `board` | *terminal*: the boards shown, as marks and their meanings |
//! | `app` | *terminal*: the state: messages in, effects out, and what the screen shows |
//! | `view` | *terminal*: drawing with ratatui (the terminal, or `TestBackend` in tests) |
//! | `session` | *terminal*: carrying out the effects, and the loop on any backend |
//!
//! ```
//! # #[cfg(feature = "play")] {
//! use bbx::play::{app::Options, session::Session, setup::{Setup, start}};
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//! let setup = Setup { seed: Some(42), ..Setup::default() };
//! let mut game = Session::new(setup.clone(), start(&setup)?, Options::default());
//! for c in ['q', 'y'] {
//!     game.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
//! }
//! assert!(game.should_quit());
//! assert_eq!(game.played().summary, "A4_B8, standard rules, seed 42: unfinished, not saved.");
//! # }
//! # Ok::<(), bbx::Error>(())
//! ```

pub mod coach;
pub mod game;
pub mod referee;
pub mod save;
pub mod setup;

#[cfg(feature = "play")]
pub mod app;
#[cfg(feature = "play")]
pub mod board;
#[cfg(feature = "play")]
pub mod input;
#[cfg(feature = "play")]
pub mod session;
#[cfg(feature = "play")]
pub mod view;
#[cfg(feature = "play")]
pub mod words;

#[cfg(feature = "play")]
pub use view::{draw, minimum_size};
