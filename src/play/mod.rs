//! `bbx play`: Black Box with the solver as a fair referee and an honest
//! coach, in the terminal or in any other front.
//!
//! The top layer of the library: it uses every layer below (the rules to shoot
//! rays, the solver for the coach, the puzzle reader for files, the assistant
//! to draw molecules, render for names and pictures) and nothing uses it.
//!
//! One game middle serves every front, as the midend of Simon Tatham's
//! puzzles does: [`middle::Middle`] holds the game, the cursor, the coach's
//! answers, the windows, new games and restarts, and changes only through
//! [`moves::Move`]s (a front turns its keys, through the player's
//! [`keys::Profile`], and its clicks and taps into moves). Each change
//! returns the [`middle::Effect`]s the front carries out (write a file,
//! start a game, ask the coach, review the game, quit) and a new
//! [`scene::Scene`], which the front draws: the terminal with ratatui (the
//! `play` feature: [`view`], and the loop of [`session`]), the web page in
//! SVG from the scene's JSON. Everything but those two modules builds
//! without a terminal, for WebAssembly too. The real terminal (raw mode,
//! signals, the panic hook) is the binary's.
//!
//! | module | job |
//! |--------|-----|
//! | [`game`] | one game's state: hidden molecule, rays shot, guess, undo and redo, a wrong guess waiting, score |
//! | [`referee`] | judging a guess (Tatham's rule) and scoring it (the original game's) |
//! | [`setup`] | starting a game: named (`A4_B8`, Tatham's presets) or asked with its options, random, from a puzzle file, or a saved game resumed |
//! | [`save`] | the save files: a puzzle `bbx solve` reads, with the hidden molecule scrambled, and Tatham's |
//! | [`coach`] | the coach's questions and answers as data, the review of a finished game, the terminal's worker threads |
//! | [`cursor`] | the cursor over the board and its border |
//! | [`keys`] | keys as every front reads them, and the three profiles (bbx's, Tatham's, Emacs's) |
//! | [`moves`] | everything a player does |
//! | [`marks`] | the boards drawn, as marks: each cell's and border position's facts and text marks, and rays' trails |
//! | [`words`] | every sentence the game says |
//! | [`scene`] | what a front draws, serialisable |
//! | [`middle`] | the game middle: moves in, effects and a scene out |
//! | `view` | *terminal*: drawing the scene with ratatui (the terminal, or `TestBackend` in tests) |
//! | `session` | *terminal*: crossterm's keys and mouse as moves, the effects carried out, and the loop on any backend |
//!
//! ```
//! use bbx::play::middle::{Middle, Options};
//! use bbx::play::moves::Move;
//! use bbx::play::setup::{Setup, start};
//! use bbx::control::Budget;
//! let setup = Setup { seed: Some(42), ..Setup::default() };
//! let (mut game, _) = Middle::new(setup.clone(), start(&setup, &Budget::default())?, Options::default());
//! game.apply(Move::Quit);
//! game.apply(Move::Confirm);
//! assert_eq!(game.summary(), "A4_B8, standard rules, seed 42: unfinished, not saved.");
//! # Ok::<(), bbx::Error>(())
//! ```

pub mod coach;
pub mod cursor;
pub mod game;
pub mod keys;
pub mod marks;
pub mod middle;
pub mod moves;
pub mod referee;
pub mod save;
pub mod scene;
pub mod setup;
pub mod words;

#[cfg(feature = "play")]
pub mod session;
#[cfg(feature = "play")]
pub mod view;

#[cfg(feature = "play")]
pub use view::{draw, minimum_size};
