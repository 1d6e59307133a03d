//! The game in hand, on the page's thread: [`Play`] holds the library's
//! [`Game`] and answers the page in JSON.

use bbx::play::game::{Game, Shot};
use bbx::play::referee::{Evidence, Judge, Verdict};
use bbx::play::save::save_text;
use bbx::play::setup::{Setup, Start, Started, start};
use bbx::puzzle::game_id;
use bbx::render::position_name;
use bbx::rules::board::{Side, port};
use bbx::rules::config::ConfigRange;
use bbx::rules::notation::Notation;
use bbx::{Molecule, Rules, Tracer};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::{Page, error, message, port_json};

/// The settings of a game's start as the page's fields give them; an empty
/// field takes the library's default (a fresh seed, the rules the file
/// implies, Tatham's judging, the count the file gives).
pub(crate) fn setup(
    start: Start,
    seed: &str,
    rules: &str,
    judge: &str,
    atoms: &str,
) -> Result<Setup, JsError> {
    let seed = match seed.trim() {
        "" => None,
        s => Some(s.parse::<u64>().map_err(|_| {
            message(format!(
                "the seed '{s}' is not a whole number from 0 to {}",
                u64::MAX
            ))
        })?),
    };
    let rules = match rules.trim() {
        "" => None,
        r => Some(r.parse::<Rules>().map_err(message)?),
    };
    let judge = match judge.trim() {
        "" => Judge::default(),
        j => j.parse::<Judge>().map_err(message)?,
    };
    let atoms = match atoms.trim() {
        "" => None,
        a => Some(
            a.parse::<usize>()
                .map_err(|_| message(format!("the atoms field '{a}' is not a number of atoms")))?,
        ),
    };
    Ok(Setup {
        start,
        seed,
        rules,
        atoms,
        judge,
        format: None,
    })
}

/// The path of the ray from `pos` through `molecule`: the cells it enters,
/// in order, as `[row, column]` (1-based), and its outcome.
fn path(molecule: &Molecule, rules: Rules, pos: usize) -> Value {
    let mut t = Tracer::new(molecule.width(), rules);
    t.load(molecule);
    let (trace, steps) = t.trace_path(pos);
    let mut cells: Vec<[usize; 2]> = Vec::with_capacity(steps.len());
    for s in steps {
        if cells.last() != Some(&[s.row, s.col]) {
            cells.push([s.row, s.col]);
        }
    }
    json!({ "position": pos, "outcome": trace.outcome, "cells": cells })
}

/// The cells (linear indices) of the row or column the border position `pos`
/// faces, on a `p`-wide box.
fn line_cells(p: usize, pos: usize) -> Vec<usize> {
    let port = port(p, pos);
    let line = port.line - 1;
    match port.side {
        Side::Left | Side::Right => (0..p).map(|c| line * p + c).collect(),
        Side::Top | Side::Bottom => (0..p).map(|r| r * p + line).collect(),
    }
}

/// The referee's decision, with the ray that tells the guess apart (its
/// path through the guess; through the hidden molecule too once the game
/// is over).
fn verdict_json(g: &Game, v: &Verdict) -> Value {
    let p = g.width();
    let evidence = v.evidence.map(|e: Evidence| {
        json!({
            "position": e.position,
            "name": position_name(p, e.position),
            "shot": e.shot,
            "hidden": e.hidden,
            "guess": e.guess,
            "path_guess": path(&v.guess, g.rules(), e.position),
        })
    });
    json!({
        "won": v.won,
        "exact": v.exact,
        "wrong": v.wrong,
        "missed": v.missed,
        "ray_score": v.ray_score,
        "penalty": v.penalty,
        "score": v.score,
        "resigned": v.resigned,
        "wrong_guesses": v.wrong_guesses,
        "guess": v.guess.atoms(),
        "evidence": evidence,
    })
}

/// One game in play: the library's [`Game`] with where it came from.
#[wasm_bindgen]
pub struct Play {
    started: Started,
    title: String,
}

/// Refuses the games the page does not draw yet: a rectangular box, and a
/// count of atoms drawn in a range (which the page would tell); `bbx play`
/// plays both.
pub(crate) fn page_plays(g: &Game) -> Result<(), JsError> {
    if !g.shape().is_square() {
        return Err(message(format!(
            "this page plays square boxes; a {} box is played by `bbx play`",
            g.shape()
        )));
    }
    if !g.count_is_told() {
        return Err(message(
            "this page plays games of one count of atoms; a range is played by `bbx play`",
        ));
    }
    Ok(())
}

impl Play {
    fn begin(setup: Setup) -> Result<Play, JsError> {
        let started = start(&setup).map_err(error)?;
        page_plays(&started.game)?;
        let title = started.title();
        Ok(Play { started, title })
    }

    fn game(&self) -> &Game {
        &self.started.game
    }

    fn position(&self, pos: usize) -> Result<usize, JsError> {
        let n = 4 * self.game().width();
        if (1..=n).contains(&pos) {
            Ok(pos)
        } else {
            Err(message(format!("border position {pos} is not in 1..={n}")))
        }
    }

    fn cell(&self, cell: usize) -> Result<usize, JsError> {
        let p = self.game().width();
        if cell < p * p {
            Ok(cell)
        } else {
            Err(message(format!("cell {cell} is outside the {p}×{p} box")))
        }
    }
}

#[wasm_bindgen]
impl Play {
    /// A random molecule of `config` (`A4_B8`) hidden, as `bbx play CONFIG`
    /// hides one; `seed` empty for a fresh seed, `rules` and `judge` empty
    /// for the defaults.
    pub fn random(config: &str, seed: &str, rules: &str, judge: &str) -> Result<Play, JsError> {
        let config: ConfigRange = config.trim().parse().map_err(error)?;
        let start = Start::Random {
            config,
            unique: false,
        };
        Play::begin(setup(start, seed, rules, judge, "")?)
    }

    /// A game from the text of a file `bbx play FILE` reads: a game saved by
    /// bbx (resumed), a save file or game ID of Tatham's Black Box, or a
    /// puzzle (one of its answers hidden: the solver may take long, so the
    /// page asks the worker's [`start`](crate::start) for puzzles).
    pub fn open(
        text: &str,
        origin: &str,
        seed: &str,
        rules: &str,
        judge: &str,
        atoms: &str,
    ) -> Result<Play, JsError> {
        let start = Start::Text {
            text: text.into(),
            origin: origin.into(),
        };
        Play::begin(setup(start, seed, rules, judge, atoms)?)
    }

    /// The game's one-line title (`A4_B8, standard rules, seed 42`).
    pub fn title(&self) -> String {
        self.title.clone()
    }

    /// Names the game otherwise (a game the worker started keeps its title).
    pub fn set_title(&mut self, title: &str) {
        self.title = title.into();
    }

    /// Shoots the ray at border position `pos`: `{"shot": "new" | "again" |
    /// "over", "outcome": …}`.
    pub fn shoot(&mut self, pos: usize) -> Result<String, JsError> {
        let pos = self.position(pos)?;
        let v = match self.started.game.shoot(pos) {
            Shot::New(o) => json!({ "shot": "new", "outcome": o }),
            Shot::Again(o) => json!({ "shot": "again", "outcome": o }),
            Shot::GameOver => json!({ "shot": "over" }),
        };
        Ok(v.to_string())
    }

    /// Puts or removes one of the player's atoms; whether the cell holds one.
    pub fn toggle(&mut self, cell: usize) -> Result<bool, JsError> {
        let cell = self.cell(cell)?;
        Ok(self.started.game.toggle(cell))
    }

    /// Marks a cell empty, or unmarks it (Tatham's lock):
    /// `{"changed": n, "marked": bool}`.
    pub fn mark_cell(&mut self, cell: usize) -> Result<String, JsError> {
        let cell = self.cell(cell)?;
        let (n, marked) = self.started.game.mark_empty(&[cell]);
        Ok(json!({ "changed": n, "marked": marked }).to_string())
    }

    /// Marks empty the row or column the border position `pos` faces (or
    /// unmarks it, when it is all marked), as Tatham locks a line.
    pub fn mark_line(&mut self, pos: usize) -> Result<String, JsError> {
        let pos = self.position(pos)?;
        let cells = line_cells(self.game().width(), pos);
        let (n, marked) = self.started.game.mark_empty(&cells);
        Ok(json!({ "changed": n, "marked": marked }).to_string())
    }

    /// Takes back the last action; false when there is none (or the game is
    /// over). An undone ray stays paid.
    pub fn undo(&mut self) -> bool {
        self.started.game.undo().is_some()
    }

    /// Does again the last action undone; false when there is none.
    pub fn redo(&mut self) -> bool {
        self.started.game.redo().is_some()
    }

    /// What the referee would say of the guess now, without ending the game:
    /// the verdict, or `{"error": why}` when it cannot be judged yet.
    pub fn check(&self) -> String {
        match self.game().check() {
            Ok(v) => verdict_json(self.game(), &v).to_string(),
            Err(e) => json!({ "error": e.to_string() }).to_string(),
        }
    }

    /// Hands the guess to the referee, which ends the game.
    pub fn submit(&mut self) -> Result<String, JsError> {
        let v = self.started.game.submit().map_err(message)?.clone();
        Ok(verdict_json(self.game(), &v).to_string())
    }

    /// After a wrong guess, plays on: the ray that disproves it is shot (and
    /// paid for) when it was not. Returns that ray, or nothing when the
    /// guess is not wrong.
    pub fn play_on(&mut self) -> Option<usize> {
        self.started.game.play_on()
    }

    /// Gives up: the game is lost and the answer shown.
    pub fn resign(&mut self) -> Result<String, JsError> {
        let v = self.started.game.resign().map_err(message)?.clone();
        Ok(verdict_json(self.game(), &v).to_string())
    }

    /// The path of the ray from `pos` through the player's atoms (`guess`),
    /// or, once the game is over, through the hidden molecule (`hidden`).
    pub fn path(&self, pos: usize, through: &str) -> Result<String, JsError> {
        let pos = self.position(pos)?;
        let g = self.game();
        let molecule = match through {
            "guess" => g.guess(),
            "hidden" if g.is_over() => g.hidden().clone(),
            "hidden" => return Err(message("the hidden molecule is shown after the game")),
            other => return Err(message(format!("no molecule called '{other}'"))),
        };
        Ok(path(&molecule, g.rules(), pos).to_string())
    }

    /// Everything the page draws, as JSON: the box, the border marks and
    /// where each position is, the player's atoms and marks, the score, undo
    /// and redo, which rays the guess explains, and, once the game is over,
    /// the verdict and the hidden molecule.
    pub fn state(&self) -> String {
        let g = self.game();
        let p = g.width();
        let obs = g.observation();
        let marks = g.marks();
        let border: Vec<Value> = (1..=4 * p)
            .map(|q| {
                let mark = marks[q - 1];
                let mut v = port_json(p, q);
                v["mark"] = json!((mark != ' ').then(|| mark.to_string()));
                v["outcome"] = json!(obs.get(q));
                v["pair"] = json!(g.pair_index(q));
                v["free"] = json!(g.is_free(q));
                v
            })
            .collect();
        let empty: Vec<usize> = (0..p * p).filter(|&i| g.is_marked_empty(i)).collect();
        let history = g.history();
        json!({
            "title": self.title,
            "width": p,
            "atoms": g.atoms(),
            "config": format!("A{}_B{p}", g.atoms()),
            "rules": g.rules().name(),
            "judge": g.judge().name(),
            "border": border,
            "guess": g.guess().atoms(),
            "empty": empty,
            "placed": g.placed(),
            "rays_shot": g.rays_shot(),
            "ray_score": g.ray_score(),
            "given": g.free_positions().len(),
            "wrong_guesses": g.wrong_guesses(),
            "can_undo": !g.is_over() && !history.done.is_empty(),
            "can_redo": !g.is_over() && !history.undone.is_empty(),
            "explained": g.explained(),
            "observation": obs.to_string(),
            "over": g.is_over(),
            "verdict": g.verdict().map(|v| verdict_json(g, v)),
            "hidden": g.is_over().then(|| g.hidden().atoms().to_vec()),
        })
        .to_string()
    }

    /// The coach's question about the rays shot: `{"observation", "rules",
    /// "atoms"}`, for the worker's [`coach`](crate::coach).
    pub fn question(&self) -> String {
        let g = self.game();
        json!({
            "observation": g.observation().to_string(),
            "rules": g.rules().name(),
            "atoms": g.atoms(),
        })
        .to_string()
    }

    /// The game as a bbx puzzle file: the board of the rays shot, which `bbx
    /// solve` reads, with the hidden molecule scrambled in a comment so that
    /// `bbx play FILE` (and this page) resumes it.
    pub fn save(&self) -> Result<String, JsError> {
        let notation = self.started.notation.unwrap_or(Notation::Letters);
        save_text(self.game(), notation, &Page).map_err(error)
    }

    /// The game ID of Tatham's Black Box hiding the same molecule
    /// (`w8h8m4M4:…`): the game from its start, for Tatham's program.
    pub fn tatham_id(&self) -> Result<String, JsError> {
        let g = self.game();
        let params = g.tatham_params().map_err(message)?;
        game_id(&params, g.hidden()).map_err(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_the_row_or_column_a_position_faces() {
        // 4×4: position 2 is the left of row 2, position 5 the bottom of
        // column 1, position 10 the right of row 3 (the right side counts
        // upwards), position 16 the top of column 1.
        assert_eq!(line_cells(4, 2), [4, 5, 6, 7]);
        assert_eq!(line_cells(4, 5), [0, 4, 8, 12]);
        assert_eq!(line_cells(4, 10), [8, 9, 10, 11]);
        assert_eq!(line_cells(4, 16), [0, 4, 8, 12]);
    }

    #[test]
    fn a_path_lists_each_cell_once_in_order() {
        let m: Molecule = "----------------".parse().unwrap();
        let v = path(&m, Rules::Standard, 1);
        assert_eq!(v["cells"], json!([[1, 1], [1, 2], [1, 3], [1, 4]]));
        assert_eq!(v["outcome"]["exit"], json!(12));
    }
}
