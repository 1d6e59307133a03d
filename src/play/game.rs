//! One game of Black Box: the hidden molecule, the rays shot, the player's
//! guess and, once the guess is submitted, the referee's verdict.
//!
//! A [`Game`] knows nothing of terminals: it is the state machine the user
//! interface drives and the save file records.
//!
//! ```
//! use bbx::play::game::{Game, Shot};
//! use bbx::play::referee::Judge;
//! use bbx::{Molecule, Outcome, Rules};
//!
//! let hidden: Molecule = "O-O-------------".parse().unwrap();
//! let mut game = Game::new(hidden, Rules::Standard, Judge::AllRays);
//! assert_eq!(game.shoot(8), Shot::New(Outcome::Exit(11)));
//! assert_eq!(game.shoot(11), Shot::Again(Outcome::Exit(8)));
//! assert_eq!(game.ray_score(), 2); // an exit pair costs 2
//! game.toggle(0);
//! game.toggle(2);
//! let verdict = game.submit().unwrap();
//! assert!(verdict.won && verdict.score == 2);
//! ```

use crate::error::Error;
use crate::play::referee::{Judge, Verdict, judge};
use crate::render::{Notation, emacs_mark};
use crate::rules::board::Molecule;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::{Observation, Spectrum, pair_label};

/// What shooting a ray did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shot {
    /// A new ray, with its result.
    New(Outcome),
    /// The ray had been shot already (or is the other end of an exit pair
    /// already seen): nothing new, nothing to pay.
    Again(Outcome),
    /// The game is over: rays are no longer shot.
    GameOver,
}

/// Why a guess cannot be submitted yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuessError {
    /// The guess has this many atoms, not as many as hidden.
    WrongCount {
        /// Atoms placed.
        placed: usize,
        /// Atoms hidden.
        hidden: usize,
    },
    /// The guess was already judged.
    AlreadyJudged,
}

impl std::fmt::Display for GuessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            GuessError::WrongCount { placed, hidden } => write!(
                f,
                "place exactly {hidden} atoms before asking for the verdict (you have placed {placed})"
            ),
            GuessError::AlreadyJudged => f.write_str("the guess has already been judged"),
        }
    }
}

/// The rays shot, what each one cost, the guess and the verdict.
#[derive(Debug, Clone)]
pub struct Game {
    rules: Rules,
    judge: Judge,
    hidden: Molecule,
    spectrum: Spectrum,
    observation: Observation,
    /// Per border position: given by the puzzle, so it costs nothing.
    free: Vec<bool>,
    /// The lower end of each exit pair, in the order the pairs were seen.
    pairs: Vec<usize>,
    /// Per cell: the player has put an atom there.
    guess: Vec<bool>,
    /// The rays the player paid for, in the order shot (one end per ray).
    shots: Vec<usize>,
    verdict: Option<Verdict>,
}

impl Game {
    /// A game hiding `hidden`, nothing shot yet.
    pub fn new(hidden: Molecule, rules: Rules, judge: Judge) -> Game {
        let p = hidden.width();
        let spectrum = Spectrum::of(&hidden, rules);
        Game {
            rules,
            judge,
            spectrum,
            observation: Observation::empty(p),
            free: vec![false; 4 * p],
            pairs: Vec::new(),
            guess: vec![false; p * p],
            shots: Vec::new(),
            verdict: None,
            hidden,
        }
    }

    /// Records rays already known when the game starts, in `order` (the lower
    /// end of each exit pair first in the order its labels should follow; pairs
    /// not listed come after, by position). `free` rays cost nothing (a
    /// puzzle's); others count in the score (a saved game's). Refuses rays the
    /// hidden molecule does not give.
    pub fn record_known(
        &mut self,
        known: &Observation,
        order: &[usize],
        free: bool,
    ) -> Result<(), Error> {
        let p = self.width();
        if known.width() != p {
            return Err(Error::Invalid(format!(
                "the rays are for a {w}×{w} box but the game's box is {p}×{p}",
                w = known.width()
            )));
        }
        if let Some(pos) = known.first_difference(&self.spectrum) {
            return Err(Error::Invalid(format!(
                "ray {pos} is recorded as {} but the hidden molecule gives {}",
                known.get(pos).map(Outcome::words).unwrap_or_default(),
                self.spectrum.get(pos).words()
            )));
        }
        let mut lows: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&q| matches!(known.get(q), Some(Outcome::Exit(k)) if k > q))
            .collect();
        for (q, o) in known.rays() {
            if matches!(o, Outcome::Exit(_)) && !lows.contains(&q) {
                lows.push(q);
            }
        }
        for q in lows {
            if !self.pairs.contains(&q) && self.observation.get(q).is_none() {
                self.pairs.push(q);
            }
        }
        for (i, r) in known.results().iter().enumerate() {
            if r.is_some() && self.observation.get(i + 1).is_none() {
                self.free[i] = free;
            }
        }
        if !free {
            for (q, _) in known.rays() {
                if self.observation.get(q).is_none() {
                    self.shots.push(q);
                }
            }
        }
        for (q, o) in known.rays() {
            self.observation.record(q, o);
        }
        Ok(())
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.hidden.width()
    }

    /// Number of atoms hidden.
    pub fn atoms(&self) -> usize {
        self.hidden.atoms().len()
    }

    /// The rules rays follow.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// How a guess is judged.
    pub fn judge(&self) -> Judge {
        self.judge
    }

    /// The hidden molecule (for the reveal and the save file: do not show it
    /// before the game is over).
    pub fn hidden(&self) -> &Molecule {
        &self.hidden
    }

    /// The hidden molecule's full spectrum.
    pub fn spectrum(&self) -> &Spectrum {
        &self.spectrum
    }

    /// The rays shot so far (given rays included).
    pub fn observation(&self) -> &Observation {
        &self.observation
    }

    /// Whether the ray at `pos` was given by the puzzle (it costs nothing).
    pub fn is_free(&self, pos: usize) -> bool {
        self.free[pos - 1]
    }

    /// The free positions, for the save file.
    pub fn free_positions(&self) -> Vec<usize> {
        (1..=4 * self.width())
            .filter(|&q| self.is_free(q))
            .collect()
    }

    /// The lower end of each exit pair, in the order they were seen.
    pub fn pair_order(&self) -> &[usize] {
        &self.pairs
    }

    /// The label of the exit pair through `pos` (its rank in the order the pairs
    /// were seen: `a`, `b`, … in J. Forget's notation), if `pos` is such an end.
    pub fn pair_index(&self, pos: usize) -> Option<usize> {
        match self.observation.get(pos)? {
            Outcome::Exit(k) => {
                let low = pos.min(k);
                self.pairs.iter().position(|&q| q == low)
            }
            _ => None,
        }
    }

    /// The border marks in `notation`, and the notation actually used: Emacs
    /// notation has digits for 9 exit pairs only, so past that J. Forget's
    /// letters are used.
    pub fn marks_in(&self, notation: Notation) -> (Vec<char>, Notation) {
        let marks = self.marks();
        if notation == Notation::Seed || self.pair_order().len() > 9 {
            return (marks, Notation::Seed);
        }
        (marks.into_iter().map(emacs_mark).collect(), Notation::Emacs)
    }

    /// The border marks in J. Forget's notation, pairs lettered in the order they
    /// were seen (so a label never changes during a game); a space where no ray
    /// was shot, `+` for pairs past the 52 letters.
    pub fn marks(&self) -> Vec<char> {
        (1..=4 * self.width())
            .map(|q| match self.observation.get(q) {
                None => ' ',
                Some(Outcome::Absorbed) => '@',
                Some(Outcome::Reflected) => '&',
                Some(Outcome::Miss) => '~',
                Some(Outcome::Exit(_)) => self.pair_index(q).and_then(pair_label).unwrap_or('+'),
            })
            .collect()
    }

    /// Shoots the ray at border position `pos` (1..=4p).
    ///
    /// # Panics
    /// When `pos` is out of range.
    pub fn shoot(&mut self, pos: usize) -> Shot {
        if let Some(o) = self.observation.get(pos) {
            return Shot::Again(o);
        }
        if self.verdict.is_some() {
            return Shot::GameOver;
        }
        let o = self.spectrum.get(pos);
        self.observation.record(pos, o);
        if let Outcome::Exit(k) = o {
            self.pairs.push(pos.min(k));
        }
        self.shots.push(pos);
        Shot::New(o)
    }

    /// The rays' part of the score, as the original game counts it: one point
    /// per marked border position that the player paid for (1 per hit,
    /// reflection or miss, 2 per exit pair).
    pub fn ray_score(&self) -> usize {
        (1..=4 * self.width())
            .filter(|&q| self.observation.get(q).is_some() && !self.is_free(q))
            .count()
    }

    /// The rays the player shot, in the order shot (the end shot of an exit
    /// pair; for a resumed game whose file does not keep the order, by
    /// position), given rays excluded.
    pub fn shots(&self) -> &[usize] {
        &self.shots
    }

    /// How many rays the player shot (an exit pair once), given rays excluded.
    pub fn rays_shot(&self) -> usize {
        self.observation
            .rays()
            .iter()
            .filter(|(q, _)| !self.is_free(*q))
            .count()
    }

    /// Whether the cell (linear index) holds one of the player's atoms.
    pub fn is_guessed(&self, cell: usize) -> bool {
        self.guess[cell]
    }

    /// Atoms the player has placed.
    pub fn placed(&self) -> usize {
        self.guess.iter().filter(|&&g| g).count()
    }

    /// Puts or removes one of the player's atoms; returns whether the cell now
    /// holds one. Does nothing once the guess is judged.
    pub fn toggle(&mut self, cell: usize) -> bool {
        if self.verdict.is_none() {
            self.guess[cell] = !self.guess[cell];
        }
        self.guess[cell]
    }

    /// Replaces the player's atoms (a saved or puzzle file's guess).
    pub fn set_guess(&mut self, guess: &Molecule) {
        self.guess = guess.cells();
    }

    /// The player's atoms as a molecule (`None` when there are none).
    pub fn guess(&self) -> Option<Molecule> {
        let atoms: Vec<usize> = (0..self.guess.len()).filter(|&i| self.guess[i]).collect();
        if atoms.is_empty() {
            None
        } else {
            Molecule::new(self.width(), atoms).ok()
        }
    }

    /// Hands the guess to the referee. It needs exactly as many atoms as are
    /// hidden.
    pub fn submit(&mut self) -> Result<&Verdict, GuessError> {
        if self.verdict.is_some() {
            return Err(GuessError::AlreadyJudged);
        }
        let placed = self.placed();
        if placed != self.atoms() {
            return Err(GuessError::WrongCount {
                placed,
                hidden: self.atoms(),
            });
        }
        let guess = self.guess().unwrap_or_else(|| self.hidden.clone());
        let v = judge(
            &self.hidden,
            &guess,
            &self.observation,
            self.rules,
            self.judge,
            self.ray_score(),
        );
        Ok(self.verdict.insert(v))
    }

    /// The verdict, once the guess is judged.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// Whether the guess has been judged.
    pub fn is_over(&self) -> bool {
        self.verdict.is_some()
    }
}

/// Where a ray from `position` goes in `molecule` under `rules`: its outcome
/// and, for each linear cell, whether the ray crosses it (what the reveal
/// draws).
pub fn ray_path(molecule: &Molecule, rules: Rules, position: usize) -> (Outcome, Vec<bool>) {
    let p = molecule.width();
    let mut t = Tracer::new(p, rules);
    t.load(molecule);
    let (trace, path) = t.trace_path(position);
    let mut cells = vec![false; p * p];
    for s in path {
        cells[p * (s.row - 1) + s.col - 1] = true;
    }
    (trace.outcome, cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        Game::new(
            "O-O-------------".parse().unwrap(),
            Rules::Standard,
            Judge::AllRays,
        )
    }

    #[test]
    fn pairs_keep_their_labels_in_the_order_shot() {
        let mut g = game();
        // Spectrum @&ab@&@cbac@&@&@: pairs 3-10, 4-9, 8-11.
        assert_eq!(g.shoot(8), Shot::New(Outcome::Exit(11)));
        assert_eq!(g.shoot(3), Shot::New(Outcome::Exit(10)));
        let m: String = g.marks().into_iter().collect();
        assert_eq!(m, "  b    a ba     ");
        assert_eq!(g.ray_score(), 4);
        assert_eq!(g.rays_shot(), 2);
    }

    #[test]
    fn given_rays_are_free() {
        let mut g = game();
        let given = Observation::parse("@&??????????????", "t").unwrap();
        g.record_known(&given, &[], true).unwrap();
        assert_eq!(g.ray_score(), 0);
        g.shoot(5);
        assert_eq!(g.ray_score(), 1);
        let wrong = Observation::parse("&???????????????", "t").unwrap();
        let e = g.record_known(&wrong, &[], false).unwrap_err();
        assert!(e.to_string().contains("ray 1"), "{e}");
    }

    #[test]
    fn a_guess_needs_the_right_count() {
        let mut g = game();
        g.toggle(0);
        assert_eq!(
            g.submit().unwrap_err(),
            GuessError::WrongCount {
                placed: 1,
                hidden: 2
            }
        );
        g.toggle(5);
        let v = g.submit().unwrap().clone();
        assert!(!v.won);
        assert_eq!(g.shoot(1), Shot::GameOver);
        assert!(!g.toggle(7), "the guess is frozen once judged");
    }
}
