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

pub mod coach;
pub mod game;
pub mod referee;
pub mod save;
pub mod setup;
