//! The score of a game: what each ray costs and what a wrong guess costs.
//!
//! Black Box is scored as Eric Solomon's original game and Emacs's
//! `blackbox.el` score it, lower being better: a ray that is absorbed,
//! reflected or (under the edge-miss rules) misses costs 1 point, a ray that
//! comes out costs 2 (one for each end of the exit pair it marks), and each
//! hidden atom the final guess misses costs [`MISSED_ATOM_PENALTY`]. Tatham's
//! rule differs in one thing: a guess that gives the hidden molecule's result
//! on every ray wins, with no penalty, even where its atoms stand elsewhere.
//!
//! A player may also play on after a wrong guess, as Tatham's program lets
//! one check and go on. Each wrong guess played on costs
//! [`WRONG_GUESS_PENALTY`], as much as one missed atom whatever the number
//! of atoms wrong (so that the score tells nothing of them), and the ray
//! that disproves the guess is shot and paid for if it was not already: a
//! guess is never checked for free.
//!
//! ```
//! use bbx::Outcome;
//! use bbx::rules::score::{MISSED_ATOM_PENALTY, ray_cost, score};
//! assert_eq!(ray_cost(Outcome::Exit(5)), 2);
//! assert_eq!(ray_cost(Outcome::Reflected), 1);
//! assert_eq!(score(7, 1), 7 + MISSED_ATOM_PENALTY);
//! ```

use crate::rules::ray::Outcome;

/// Points per hidden atom the guess misses.
pub const MISSED_ATOM_PENALTY: u64 = 5;

/// Points per wrong guess played on: one missed atom's, whatever the number
/// of atoms wrong.
pub const WRONG_GUESS_PENALTY: u64 = MISSED_ATOM_PENALTY;

/// The scoring rule in one sentence, for players.
pub const RULE: &str =
    "1 per hit or reflection, 2 per exit pair, 5 per misplaced atom, 5 per wrong guess played on";

/// What a ray costs: 2 for a ray that comes out (it marks two border
/// positions), 1 otherwise.
pub const fn ray_cost(outcome: Outcome) -> u64 {
    match outcome {
        Outcome::Exit(_) => 2,
        Outcome::Absorbed | Outcome::Reflected | Outcome::Miss => 1,
    }
}

/// The score of a game whose rays cost `rays` points and whose guess missed
/// `missed` hidden atoms.
pub const fn score(rays: u64, missed: u64) -> u64 {
    rays + MISSED_ATOM_PENALTY * missed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_sentence_says_the_constants() {
        assert!(RULE.contains(&format!("{MISSED_ATOM_PENALTY} per misplaced atom")));
        assert!(RULE.contains(&format!("{WRONG_GUESS_PENALTY} per wrong guess")));
        assert_eq!(ray_cost(Outcome::Miss), 1);
        assert_eq!(ray_cost(Outcome::Absorbed), 1);
        assert_eq!(score(0, 0), 0);
    }
}
