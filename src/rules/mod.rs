//! The rules of the game: boxes, molecules, rays and what they show.
//!
//! Everything else in bbx is built on this layer, and this layer imports
//! nothing from the rest of the crate. Its modules stand in the order they
//! depend on each other, each using only those above it:
//!
//! | module | what it holds |
//! |--------|---------------|
//! | [`config`] | configurations `An_Bp` and `An_BwxH`, shapes, ranges of atom counts and the binomial counts |
//! | [`board`] | cells, headings, border positions and molecules |
//! | [`ray`] | the ray rules and the [`Tracer`](ray::Tracer) that applies them |
//! | [`notation`] | the marks of results on the border, in J. Forget's and Emacs's notations |
//! | [`score`] | what rays and wrong guesses cost |
//! | [`spectrum`] | spectra, observations and the 17 per-molecule statistics |
//! | [`symmetry`] | the symmetries of the box (eight for a square, four for a rectangle) |
//! | [`enumeration`] | molecule numbers, canonical molecules, walking a configuration |
//! | [`sweep`] | tracing molecules met in number order, only the rays that may have changed |
//! | [`trace_report`] | what a trace reports about one molecule |

pub mod board;
pub mod config;
pub mod enumeration;
pub mod notation;
pub mod ray;
pub mod score;
pub mod spectrum;
pub mod sweep;
pub mod symmetry;
pub mod trace_report;
