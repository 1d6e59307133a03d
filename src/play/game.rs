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

use std::ops::RangeInclusive;

use crate::error::Error;
use crate::play::referee::{Judge, Verdict, explained, judge_counting, resign};
use crate::puzzle::{TathamParams, game_id};
use crate::rules::board::Molecule;
use crate::rules::config::{ConfigRange, Shape};
use crate::rules::notation::{MISS, Notation};
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::score::ray_cost;
use crate::rules::spectrum::{Observation, Spectrum};

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
    /// A wrong guess waits for the player to play on or end the game.
    Waiting,
}

/// Why a guess cannot be submitted yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GuessError {
    /// The guess has this many atoms, not as many as hidden.
    #[error(
        "place exactly {hidden} atoms before asking for the verdict (you have placed {placed})"
    )]
    WrongCount {
        /// Atoms placed.
        placed: usize,
        /// Atoms hidden.
        hidden: usize,
    },
    /// The guess has this many atoms, outside the range the player is told
    /// (the count hidden is one of `least..=most`).
    #[error(
        "place {least} to {most} atoms before asking for the verdict (you have placed {placed}): that many may be hidden"
    )]
    OutOfRange {
        /// Atoms placed.
        placed: usize,
        /// The fewest that may be hidden.
        least: usize,
        /// The most that may be hidden.
        most: usize,
    },
    /// The guess was already judged.
    #[error("the guess has already been judged")]
    AlreadyJudged,
    /// A wrong guess waits for the player to play on or end the game.
    #[error("your guess was judged wrong: play on, or end the game")]
    Waiting,
}

/// One of the player's actions, as undo and redo take them back and do them
/// again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A ray shot from this border position.
    Shoot(usize),
    /// An atom put on or taken off this cell.
    Atom(usize),
    /// These cells marked empty, or unmarked (each flipped).
    Empty(Vec<usize>),
}

/// The player's actions: those done (the last one undone first) and those
/// undone (the last one redone first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// Actions done, oldest first.
    pub done: Vec<Action>,
    /// Actions undone, oldest undone last.
    pub undone: Vec<Action>,
}

/// What a game keeps beyond the board, for the save file: the rays paid for
/// (undone ones included), the cells marked empty, the player's history, the
/// order the rays were shot in, and how the game went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extra {
    /// Border positions paid for, undone rays included.
    pub paid: Vec<usize>,
    /// Cells the player marked empty.
    pub empty: Vec<usize>,
    /// The rays shot, in order.
    pub shots: Vec<usize>,
    /// Undo and redo.
    pub history: History,
    /// Wrong guesses played on after.
    pub wrong_guesses: usize,
    /// A wrong guess was judged and waits for the player to play on or end
    /// the game: it is charged whatever the player does next.
    pub pending: bool,
    /// The player resigned.
    pub resigned: bool,
    /// The coach helped in this game.
    pub coached: bool,
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
    /// Per border position: paid for (it stays paid when the ray is undone).
    paid: Vec<bool>,
    /// Per cell: the player marked it empty.
    empty: Vec<bool>,
    history: History,
    wrong_guesses: usize,
    /// The atom counts the player is told: the hidden count, or the range
    /// it was drawn in.
    counts: RangeInclusive<usize>,
    coached: bool,
    /// A wrong guess judged, waiting for the player to play on or end the
    /// game.
    pending: Option<Verdict>,
    verdict: Option<Verdict>,
}

impl Game {
    /// A game hiding `hidden`, nothing shot yet.
    pub fn new(hidden: Molecule, rules: Rules, judge: Judge) -> Game {
        let p = hidden.shape();
        let spectrum = Spectrum::of(&hidden, rules);
        Game {
            rules,
            judge,
            spectrum,
            observation: Observation::empty(p),
            free: vec![false; p.positions()],
            pairs: Vec::new(),
            guess: vec![false; p.cells()],
            shots: Vec::new(),
            paid: vec![false; p.positions()],
            empty: vec![false; p.cells()],
            history: History::default(),
            wrong_guesses: 0,
            counts: hidden.atoms().len()..=hidden.atoms().len(),
            coached: false,
            pending: None,
            verdict: None,
            hidden,
        }
    }

    /// Tells the player only that `counts` atoms are hidden (the count was
    /// drawn in that range and stays hidden until the end, as in Tatham's
    /// games `w8h8m3M6`). Refused when the hidden count is not in it.
    pub fn hide_count(&mut self, counts: RangeInclusive<usize>) -> Result<(), Error> {
        let n = self.atoms();
        if !counts.contains(&n) || *counts.end() > self.shape().cells() {
            return Err(Error::invalid(format!(
                "{n} atoms are hidden, not {} to {}",
                counts.start(),
                counts.end()
            )));
        }
        self.counts = counts;
        Ok(())
    }

    /// The atom counts the player is told: one count, or the range the
    /// hidden count was drawn in.
    pub fn counts(&self) -> RangeInclusive<usize> {
        self.counts.clone()
    }

    /// The configuration the player is told: `A4_B8`, or the range
    /// `A3-6_B8` when the count is hidden.
    pub fn range(&self) -> ConfigRange {
        ConfigRange {
            min_atoms: *self.counts.start(),
            max_atoms: *self.counts.end(),
            shape: self.shape(),
        }
    }

    /// The parameters of the game in Simon Tatham's Black Box (`w8h8m5M5`,
    /// the range told), or why his program cannot play it (other rules, a
    /// box past 255 cells a side, no atom, a box full of atoms).
    pub fn tatham_params(&self) -> Result<TathamParams, String> {
        if self.rules != Rules::Standard {
            return Err(format!(
                "Tatham's Black Box plays the standard rules, not {}",
                self.rules
            ));
        }
        TathamParams::of(&self.range())
    }

    /// The game's ID in Simon Tatham's Black Box (`w8h8m5M5:…`, the hidden
    /// molecule in his description), when his program can play it. It
    /// gives the answer away to whoever decodes it: show it after the game.
    pub fn tatham_id(&self) -> Option<String> {
        game_id(&self.tatham_params().ok()?, &self.hidden).ok()
    }

    /// Whether the player is told the number of atoms hidden.
    pub fn count_is_told(&self) -> bool {
        self.counts.start() == self.counts.end()
    }

    /// Records that the coach helped in this game.
    pub fn note_coached(&mut self) {
        self.coached = true;
    }

    /// Whether the coach helped in this game.
    pub fn coached(&self) -> bool {
        self.coached
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
        let p = self.shape();
        if known.shape() != p {
            return Err(Error::invalid(format!(
                "the rays are for a {} box but the game's box is {p}",
                known.shape()
            )));
        }
        if let Some(pos) = known.first_difference(&self.spectrum) {
            return Err(Error::invalid(format!(
                "ray {pos} is recorded as {} but the hidden molecule gives {}",
                known.get(pos).map(Outcome::words).unwrap_or_default(),
                self.spectrum.get(pos).words()
            )));
        }
        // Rays seen already stay as they are.
        let mut new = known.rays();
        new.retain(|&(q, _)| self.observation.get(q).is_none());
        let pairs: Vec<usize> = new
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::Exit(_)))
            .map(|&(q, _)| q)
            .collect();
        self.pairs
            .extend(order.iter().filter(|q| pairs.contains(q)));
        self.pairs
            .extend(pairs.iter().filter(|q| !order.contains(q)));
        for (q, o) in new {
            for end in ends(q, o) {
                self.free[end - 1] = free;
                self.paid[end - 1] |= !free;
            }
            if !free {
                self.shots.push(q);
            }
            self.observation.record(q, o);
        }
        Ok(())
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.hidden.width()
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.hidden.shape()
    }

    /// Number of border positions.
    pub fn positions(&self) -> usize {
        self.shape().positions()
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
        (1..=self.positions())
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
        let used = if self.pairs.len() > notation.max_pairs() {
            Notation::Letters
        } else {
            notation
        };
        let marks = (1..=self.positions())
            .map(|q| match self.observation.get(q) {
                None => ' ',
                Some(o) => mark_of(used, o, self.pair_index(q).unwrap_or(usize::MAX)),
            })
            .collect();
        (marks, used)
    }

    /// The border marks in J. Forget's notation, pairs lettered in the order they
    /// were seen (so a label never changes during a game); a space where no ray
    /// was shot, `+` for pairs past the 52 letters.
    pub fn marks(&self) -> Vec<char> {
        self.marks_in(Notation::Letters).0
    }

    /// Shoots the ray at border position `pos` (1..=2(w+h)).
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
        if self.pending.is_some() {
            return Shot::Waiting;
        }
        let o = self.put_ray(pos);
        self.pay(pos, o);
        self.done(Action::Shoot(pos));
        Shot::New(o)
    }

    /// Puts the ray from `pos` on the board (a shot, or a redo).
    fn put_ray(&mut self, pos: usize) -> Outcome {
        let o = self.spectrum.get(pos);
        self.observation.record(pos, o);
        if let Outcome::Exit(k) = o {
            self.pairs.push(pos.min(k));
        }
        self.shots.push(pos);
        o
    }

    /// Takes the ray from `pos` off the board (an undo); it stays paid.
    fn take_ray(&mut self, pos: usize) {
        if let Some(Outcome::Exit(k)) = self.observation.get(pos) {
            let low = pos.min(k);
            self.pairs.retain(|&q| q != low);
        }
        self.observation.forget(pos);
        if let Some(i) = self.shots.iter().rposition(|&q| q == pos) {
            self.shots.remove(i);
        }
    }

    fn pay(&mut self, pos: usize, o: Outcome) {
        ends(pos, o).for_each(|q| self.paid[q - 1] = true);
    }

    fn done(&mut self, a: Action) {
        self.history.done.push(a);
        self.history.undone.clear();
    }

    /// Does or undoes `a`.
    fn apply(&mut self, a: &Action, forward: bool) {
        match a {
            Action::Shoot(q) => {
                if forward {
                    if self.observation.get(*q).is_none() {
                        self.put_ray(*q);
                    }
                } else {
                    self.take_ray(*q);
                }
            }
            Action::Atom(i) => self.guess[*i] = !self.guess[*i],
            Action::Empty(cells) => {
                for &i in cells {
                    self.empty[i] = !self.empty[i];
                }
            }
        }
    }

    /// Takes back the last action (a shot, an atom, a mark); returns it, or
    /// `None` when there is none or the game is over. An undone shot leaves
    /// the board (and what the coach and the referee count as shot) but stays
    /// paid: shooting it again, or redoing it, costs nothing more.
    pub fn undo(&mut self) -> Option<Action> {
        self.travel(false)
    }

    /// Does again the last action undone; `None` when there is none, or the
    /// game is over.
    pub fn redo(&mut self) -> Option<Action> {
        self.travel(true)
    }

    /// Undoes the last action done, or (`forward`) redoes the last undone.
    fn travel(&mut self, forward: bool) -> Option<Action> {
        if self.verdict.is_some() || self.pending.is_some() {
            return None;
        }
        let h = &mut self.history;
        let (from, to) = if forward {
            (&mut h.undone, &mut h.done)
        } else {
            (&mut h.done, &mut h.undone)
        };
        let a = from.pop()?;
        to.push(a.clone());
        self.apply(&a, forward);
        Some(a)
    }

    /// Starts the game again from its start: every action undone (they can
    /// be redone), the rays paid for staying paid, as the rules keep an
    /// undone ray paid. Returns how many actions were undone; none once the
    /// game is over or while a wrong guess waits.
    pub fn restart(&mut self) -> usize {
        let mut n = 0;
        while self.undo().is_some() {
            n += 1;
        }
        n
    }

    /// Undo and redo.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Whether the player marked the cell (linear index) empty.
    pub fn is_marked_empty(&self, cell: usize) -> bool {
        self.empty[cell]
    }

    /// Marks `cells` empty, as Tatham locks a cell, a row or a column: the
    /// cells without an atom of the player's are marked, or, when they all
    /// are already, unmarked. Returns how many cells changed and whether they
    /// are now marked. Does nothing once the game is over.
    pub fn mark_empty(&mut self, cells: &[usize]) -> (usize, bool) {
        if self.verdict.is_some() || self.pending.is_some() {
            return (0, false);
        }
        let open: Vec<usize> = cells.iter().copied().filter(|&i| !self.guess[i]).collect();
        let mark = open.iter().any(|&i| !self.empty[i]);
        let flipped: Vec<usize> = open
            .into_iter()
            .filter(|&i| self.empty[i] != mark)
            .collect();
        if flipped.is_empty() {
            return (0, mark);
        }
        let n = flipped.len();
        let a = Action::Empty(flipped);
        self.apply(&a, true);
        self.done(a);
        (n, mark)
    }

    /// What a save file keeps beyond the board.
    pub fn extra(&self) -> Extra {
        Extra {
            paid: (1..=self.positions())
                .filter(|&q| self.paid[q - 1])
                .collect(),
            empty: (0..self.empty.len()).filter(|&i| self.empty[i]).collect(),
            shots: self.shots.clone(),
            history: self.history.clone(),
            wrong_guesses: self.wrong_guesses,
            pending: self.pending.is_some(),
            resigned: self.verdict.as_ref().is_some_and(|v| v.resigned),
            coached: self.coached,
        }
    }

    /// Restores what a save file kept beyond the board (after the rays and
    /// the guess are recorded). Positions and cells out of range are refused.
    pub fn restore(&mut self, extra: &Extra) -> Result<(), Error> {
        let p = self.shape();
        let ok_pos = |q: &usize| (1..=p.positions()).contains(q);
        let ok_cell = |i: &usize| *i < p.cells();
        let ok_action = |a: &Action| match a {
            Action::Shoot(q) => ok_pos(q),
            Action::Atom(i) => ok_cell(i),
            Action::Empty(c) => c.iter().all(ok_cell),
        };
        let h = &extra.history;
        if !(extra.paid.iter().chain(&extra.shots).all(ok_pos)
            && extra.empty.iter().all(ok_cell)
            && h.done.iter().chain(&h.undone).all(ok_action))
        {
            return Err(Error::invalid(format!(
                "a saved position or cell is out of range for a {p} box"
            )));
        }
        for &q in &extra.paid {
            self.paid[q - 1] |= !self.free[q - 1];
        }
        for &i in &extra.empty {
            self.empty[i] = true;
        }
        // The order shot, where it agrees with the board: each position's
        // first place in the saved order, found in one pass (a saved list
        // may be long; a search of it for every ray would not be).
        let mut rank = vec![usize::MAX; p.positions() + 1];
        for (i, &q) in extra.shots.iter().enumerate().rev() {
            rank[q] = i;
        }
        self.shots.sort_by_key(|&q| rank[q]);
        self.history = extra.history.clone();
        self.wrong_guesses = extra.wrong_guesses;
        self.coached |= extra.coached;
        if extra.pending && self.verdict.is_none() {
            // The wrong guess was judged before the save: judged again, it
            // waits again for the player's choice.
            let _ = self.hand_in();
        }
        Ok(())
    }

    /// The rays' part of the score: what each ray the player paid for costs
    /// ([`ray_cost`]). Rays undone stay paid.
    pub fn ray_score(&self) -> usize {
        (1..=self.positions())
            .filter(|&q| self.paid[q - 1] && !self.is_free(q))
            .map(|q| match self.spectrum.get(q) {
                // Counted at its other end.
                Outcome::Exit(k) if k < q => 0,
                o => ray_cost(o) as usize,
            })
            .sum()
    }

    /// The score so far: the rays' part and each wrong guess played on
    /// ([`WRONG_GUESS_PENALTY`](crate::rules::score::WRONG_GUESS_PENALTY)).
    pub fn score(&self) -> usize {
        self.ray_score() + self.wrong_guesses * crate::rules::score::WRONG_GUESS_PENALTY as usize
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
    /// holds one. Does nothing once the guess is judged, nor on a cell the
    /// player marked empty.
    pub fn toggle(&mut self, cell: usize) -> bool {
        if self.verdict.is_none() && self.pending.is_none() && !self.empty[cell] {
            let a = Action::Atom(cell);
            self.apply(&a, true);
            self.done(a);
        }
        self.guess[cell]
    }

    /// Replaces the player's atoms (a saved or puzzle file's guess).
    pub fn set_guess(&mut self, guess: &Molecule) {
        self.guess = guess.cells();
    }

    /// The player's atoms as a molecule.
    pub fn guess(&self) -> Molecule {
        let atoms = (0..self.guess.len()).filter(|&i| self.guess[i]).collect();
        Molecule::from_sorted_unchecked(self.shape(), atoms)
    }

    /// For each ray shot (an exit pair once, at its lower end), whether the
    /// player's atoms as they stand explain it ([`explained`]): what
    /// Tatham's players mark by hand as a laser done.
    pub fn explained(&self) -> Vec<(usize, bool)> {
        explained(&self.guess(), &self.observation, self.rules)
    }

    /// What the referee would say of the guess now, without ending the game:
    /// the wrong guesses played on before are charged in its score. It needs
    /// as many atoms as are hidden (or a count of the range told).
    pub fn check(&self) -> Result<Verdict, GuessError> {
        if self.verdict.is_some() {
            return Err(GuessError::AlreadyJudged);
        }
        if let Some(v) = &self.pending {
            return Ok(v.clone());
        }
        let placed = self.placed();
        if !self.counts.contains(&placed) {
            let (least, most) = (*self.counts.start(), *self.counts.end());
            return Err(if least == most {
                GuessError::WrongCount {
                    placed,
                    hidden: least,
                }
            } else {
                GuessError::OutOfRange {
                    placed,
                    least,
                    most,
                }
            });
        }
        let (o, score) = (&self.observation, self.ray_score());
        let v = judge_counting(
            &self.hidden,
            &self.guess(),
            &self.counts,
            o,
            self.rules,
            self.judge,
            score,
        );
        Ok(v.after_wrong_guesses(self.wrong_guesses))
    }

    /// Hands the guess to the referee: a winning guess ends the game; a
    /// wrong one is recorded at once (saves keep it, so that it is never
    /// checked for free) and waits for the player to play on
    /// ([`play_on`](Game::play_on)) or end the game ([`submit`](Game::submit)).
    pub fn hand_in(&mut self) -> Result<&Verdict, GuessError> {
        let v = self.check()?;
        if v.won {
            return Ok(self.verdict.insert(v));
        }
        Ok(self.pending.insert(v))
    }

    /// The wrong guess waiting for the player to play on or end the game.
    pub fn pending(&self) -> Option<&Verdict> {
        self.pending.as_ref()
    }

    /// Hands the guess to the referee, which ends the game (the wrong guess
    /// waiting, if one is). It needs as many atoms as are hidden.
    pub fn submit(&mut self) -> Result<&Verdict, GuessError> {
        if let Some(v) = self.pending.take() {
            return Ok(self.verdict.insert(v));
        }
        let v = self.check()?;
        Ok(self.verdict.insert(v))
    }

    /// After a wrong guess, plays on rather than ending the game (Tatham's
    /// way): the wrong guess is charged
    /// ([`WRONG_GUESS_PENALTY`](crate::rules::score::WRONG_GUESS_PENALTY)),
    /// and the ray that disproves it is shot and paid for when it was not
    /// shot yet. Returns that ray, or `None` when the guess is not wrong
    /// (or the game is over). The guess is judged first when it was not.
    pub fn play_on(&mut self) -> Option<usize> {
        if self.pending.is_none() {
            let v = self.check().ok().filter(|v| !v.won)?;
            self.pending = Some(v);
        }
        let v = self.pending.take()?;
        self.wrong_guesses += 1;
        let e = v.evidence?;
        if !e.shot {
            self.shoot(e.position);
        }
        Some(e.position)
    }

    /// Wrong guesses played on after.
    pub fn wrong_guesses(&self) -> usize {
        self.wrong_guesses
    }

    /// Gives up: the game is lost and the answer shown (see
    /// [`crate::play::referee::resign`] for the score); a wrong guess
    /// waiting counts as played on.
    pub fn resign(&mut self) -> Result<&Verdict, GuessError> {
        if self.verdict.is_some() {
            return Err(GuessError::AlreadyJudged);
        }
        if self.pending.take().is_some() {
            self.wrong_guesses += 1;
        }
        let v = resign(&self.hidden, &self.guess(), self.ray_score());
        Ok(self
            .verdict
            .insert(v.after_wrong_guesses(self.wrong_guesses)))
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

/// The mark of `outcome` in `notation`, an exit pair numbered `pair` from 0
/// (`+` past the notation's marks).
pub fn mark_of(notation: Notation, outcome: Outcome, pair: usize) -> char {
    match outcome {
        Outcome::Absorbed => notation.hit(),
        Outcome::Reflected => notation.reflection(),
        Outcome::Miss => MISS,
        Outcome::Exit(_) => notation.pair(pair).unwrap_or('+'),
    }
}

/// The border positions a ray from `pos` with outcome `o` reaches: `pos`,
/// and the other end of an exit.
fn ends(pos: usize, o: Outcome) -> impl Iterator<Item = usize> {
    let exit = match o {
        Outcome::Exit(k) => Some(k),
        _ => None,
    };
    std::iter::once(pos).chain(exit)
}

/// Where a ray from `position` goes in `molecule` under `rules`: its outcome
/// and, for each linear cell, whether the ray crosses it (what the reveal
/// draws).
pub fn ray_path(molecule: &Molecule, rules: Rules, position: usize) -> (Outcome, Vec<bool>) {
    let p = molecule.shape();
    let mut t = Tracer::new(p, rules);
    t.load(molecule);
    let (trace, path) = t.trace_path(position);
    let mut cells = vec![false; p.cells()];
    for s in path {
        cells[p.index(s.row, s.col)] = true;
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
        assert_eq!(g.undo(), None, "no undo once judged");
        assert_eq!(g.shoot(1), Shot::GameOver);
        assert!(!g.toggle(7), "the guess is frozen once judged");
    }

    #[test]
    fn undo_and_redo_keep_the_score_of_a_shot() {
        let mut g = game();
        g.shoot(8); // out at 11: 2 points
        g.toggle(4);
        assert_eq!(g.mark_empty(&[0, 1, 4]), (2, true));
        assert_eq!(g.undo(), Some(Action::Empty(vec![0, 1])));
        assert!(!g.is_marked_empty(0));
        assert_eq!(g.undo(), Some(Action::Atom(4)));
        assert_eq!(g.undo(), Some(Action::Shoot(8)));
        assert_eq!(g.observation().shot_count(), 0);
        assert_eq!(g.ray_score(), 2, "an undone shot stays paid");
        assert_eq!(g.redo(), Some(Action::Shoot(8)));
        assert_eq!(g.ray_score(), 2, "and redoing it costs nothing");
        assert_eq!(g.observation().get(11), Some(Outcome::Exit(8)));
        g.undo();
        assert_eq!(g.shoot(11), Shot::New(Outcome::Exit(8)));
        assert_eq!(g.ray_score(), 2, "nor shooting it again");
        assert_eq!(g.redo(), None, "a new action clears what was undone");
    }

    #[test]
    fn playing_on_after_a_wrong_guess_shows_the_ray() {
        let mut g = game();
        g.toggle(0);
        g.toggle(5);
        let v = g.check().unwrap();
        let e = v.evidence.unwrap();
        assert!(!v.won && !e.shot);
        assert_eq!(g.play_on(), Some(e.position));
        assert!(!g.is_over());
        assert_eq!(g.observation().get(e.position), Some(e.hidden));
        assert!(g.ray_score() >= 1);
        assert_eq!(g.wrong_guesses(), 1);
        let v = g.resign().unwrap();
        assert!(v.resigned && !v.won && v.wrong_guesses == 1);
    }
}
