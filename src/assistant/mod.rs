//! The assistant: what to shoot next and puzzles worth playing.
//!
//! Built on the solver: [`suggest`] ranks the rays not yet shot by how well
//! they split the molecules that still fit, [`plan`] finds the shooting strategy with the fewest
//! rays on average as a decision tree, [`strategy`] plays a policy against
//! every molecule of a configuration and [`optimal`] finds the best one
//! there by exhaustive search ([`certificate`] replays its trees apart
//! from it) (both on the spectra of every molecule, held
//! by `spectrum_table.rs`), [`next`] asks a policy of `strategy` for its next ray
//! in a game under way (on the molecules that fit), `study` runs
//! a configuration's policy, optimum and bound in turn, [`generate`] draws molecules whose
//! spectrum has exactly one answer and removes rays while it stays so.

#[cfg(feature = "census")]
pub mod bound;
pub mod certificate;
pub mod generate;
pub mod next;
pub mod optimal;
#[cfg(feature = "census")]
pub mod optimum_units;
pub mod plan;
mod spectrum_table;
pub mod strategy;
#[cfg(feature = "census")]
pub mod study;
pub mod suggest;
