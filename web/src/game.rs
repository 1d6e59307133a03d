//! The game in hand, on the page's thread: [`Play`] holds the library's
//! [`Game`] and answers the page in JSON.

use bbx::play::game::{Game, Shot};
use bbx::play::referee::{Evidence, Judge, Verdict};
use bbx::play::save::save_text;
use bbx::play::setup::{Setup, Start, Started, start};
use bbx::puzzle::{TathamParams, game_id};
use bbx::render::position_name;
use bbx::rules::board::{Side, port};
use bbx::rules::config::{ConfigRange, Shape};
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

/// Where the game named in the new game's field comes from, as `bbx play
/// GAME` reads the name: a configuration or a range of counts (`A4_B8`,
/// `A5_B8x6`, `A3-6_B8`), Tatham's parameters (`w8h6m5M5`) or the name of
/// one of his presets (`8x8, 3-6 balls`), whose games his generator draws
/// from the seed.
pub(crate) fn named_start(name: &str) -> Result<Start, JsError> {
    let name = name.trim();
    let config_error = match name.parse::<ConfigRange>() {
        Ok(config) => {
            return Ok(Start::Random {
                config,
                unique: false,
            });
        }
        Err(e) => e,
    };
    if let Some(params) = TathamParams::alone(name) {
        let params = params.map_err(|e| message(format!("Tatham's parameters {e}")))?;
        return Ok(Start::Tatham(params));
    }
    if let Some(params) = TathamParams::preset(name) {
        return Ok(Start::Tatham(params));
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with('a') && lower.contains("_b") {
        return Err(error(config_error));
    }
    Err(message(format!(
        "'{name}' is neither a configuration (A4_B8, A5_B8x6, A3-6_B8), Tatham's parameters (w8h6m5M5) nor one of his presets ('8x8, 3-6 balls')"
    )))
}

/// The path of the ray from `pos` through `molecule`: the cells it enters,
/// in order, as `[row, column]` (1-based), and its outcome.
fn path(molecule: &Molecule, rules: Rules, pos: usize) -> Value {
    let mut t = Tracer::new(molecule.shape(), rules);
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
/// faces, on a box of `shape`.
fn line_cells(shape: Shape, pos: usize) -> Vec<usize> {
    let port = port(shape, pos);
    let line = port.line - 1;
    let w = shape.width;
    match port.side {
        Side::Left | Side::Right => (0..w).map(|c| line * w + c).collect(),
        Side::Top | Side::Bottom => (0..shape.height).map(|r| r * w + line).collect(),
    }
}

/// The referee's decision, with the ray that tells the guess apart (its
/// path through the guess; through the hidden molecule too once the game
/// is over).
fn verdict_json(g: &Game, v: &Verdict) -> Value {
    let shape = g.shape();
    let evidence = v.evidence.map(|e: Evidence| {
        json!({
            "position": e.position,
            "name": position_name(shape, e.position),
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

impl Play {
    fn begin(setup: Setup) -> Result<Play, JsError> {
        let started = start(&setup).map_err(error)?;
        let title = started.title();
        Ok(Play { started, title })
    }

    fn game(&self) -> &Game {
        &self.started.game
    }

    fn position(&self, pos: usize) -> Result<usize, JsError> {
        let n = self.game().positions();
        if (1..=n).contains(&pos) {
            Ok(pos)
        } else {
            Err(message(format!("border position {pos} is not in 1..={n}")))
        }
    }

    fn cell(&self, cell: usize) -> Result<usize, JsError> {
        let shape = self.game().shape();
        if cell < shape.cells() {
            Ok(cell)
        } else {
            Err(message(format!("cell {cell} is outside the {shape} box")))
        }
    }
}

#[wasm_bindgen]
impl Play {
    /// A new game named as `bbx play GAME` names it: a random molecule of a
    /// configuration (`A4_B8`, the rectangle `A5_B8x6`, the range `A3-6_B8`
    /// whose count stays hidden), or Tatham's game of his parameters
    /// (`w8h6m5M5`) or preset (`8x8, 3-6 balls`) drawn from the seed; `seed`
    /// empty for a fresh seed, `rules` and `judge` empty for the defaults.
    pub fn random(config: &str, seed: &str, rules: &str, judge: &str) -> Result<Play, JsError> {
        Play::begin(setup(named_start(config)?, seed, rules, judge, "")?)
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
        let cells = line_cells(self.game().shape(), pos);
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

    /// Everything the page draws, as JSON: the box (`width` and `height`),
    /// the border marks and where each position is, the player's atoms and
    /// marks, the score, undo and redo, which rays the guess explains, and,
    /// once the game is over, the verdict and the hidden molecule. The
    /// number of atoms hidden (`atoms`) is `null` while the player is told
    /// only a range (`counts`, and the configuration `A3-6_B8`), until the
    /// game is over.
    pub fn state(&self) -> String {
        let g = self.game();
        let shape = g.shape();
        let obs = g.observation();
        let marks = g.marks();
        let border: Vec<Value> = (1..=g.positions())
            .map(|q| {
                let mark = marks[q - 1];
                let mut v = port_json(shape, q);
                v["mark"] = json!((mark != ' ').then(|| mark.to_string()));
                v["outcome"] = json!(obs.get(q));
                v["pair"] = json!(g.pair_index(q));
                v["free"] = json!(g.is_free(q));
                v
            })
            .collect();
        let empty: Vec<usize> = (0..shape.cells())
            .filter(|&i| g.is_marked_empty(i))
            .collect();
        let history = g.history();
        let counts = g.counts();
        json!({
            "title": self.title,
            "width": shape.width,
            "height": shape.height,
            "atoms": (g.count_is_told() || g.is_over()).then(|| g.atoms()),
            "counts": [counts.start(), counts.end()],
            "config": g.range().to_string(),
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

    /// The coach's question about the rays shot: `{"observation", "width",
    /// "height", "rules", "atoms": [fewest, most]}` (the counts the player is told), for the
    /// worker's [`coach`](crate::coach).
    pub fn question(&self) -> String {
        let g = self.game();
        let counts = g.counts();
        json!({
            "observation": g.observation().to_string(),
            "width": g.shape().width,
            "height": g.shape().height,
            "rules": g.rules().name(),
            "atoms": [counts.start(), counts.end()],
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
        let sq = Shape::square(4);
        assert_eq!(line_cells(sq, 2), [4, 5, 6, 7]);
        assert_eq!(line_cells(sq, 5), [0, 4, 8, 12]);
        assert_eq!(line_cells(sq, 10), [8, 9, 10, 11]);
        assert_eq!(line_cells(sq, 16), [0, 4, 8, 12]);
    }

    #[test]
    fn a_line_of_a_rectangle_spans_its_width_or_its_height() {
        // 5 wide, 3 high: positions 1..=3 the left side, 4..=8 the bottom,
        // 9..=11 the right (upwards), 12..=16 the top (leftwards).
        let r = Shape::new(5, 3).unwrap();
        assert_eq!(line_cells(r, 3), [10, 11, 12, 13, 14]);
        assert_eq!(line_cells(r, 4), [0, 5, 10]);
        assert_eq!(line_cells(r, 8), [4, 9, 14]);
        assert_eq!(line_cells(r, 9), [10, 11, 12, 13, 14]);
        assert_eq!(line_cells(r, 11), [0, 1, 2, 3, 4]);
        assert_eq!(line_cells(r, 12), [4, 9, 14]);
        assert_eq!(line_cells(r, 16), [0, 5, 10]);
    }

    #[test]
    fn a_game_is_named_as_bbx_play_names_it() {
        let config = |name: &str| match named_start(name).ok().unwrap() {
            Start::Random { config, .. } => config.to_string(),
            Start::Tatham(p) => p.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(config("A4_B8"), "A4_B8");
        assert_eq!(config(" A5_B8x6 "), "A5_B8x6");
        assert_eq!(config("A3-6_B8"), "A3-6_B8");
        assert_eq!(config("w8h6m5M5"), "w8h6m5M5");
        assert_eq!(config("8x8, 3-6 balls"), "w8h8m3M6");
        assert_eq!(config("10×10 4-10 balls"), "w10h10m4M10");
    }

    #[test]
    fn a_rectangle_is_drawn_w_wide_and_h_high_with_its_border_numbered() {
        let play = Play::random("A5_B8x6", "7", "", "").ok().unwrap();
        let st: Value = serde_json::from_str(&play.state()).unwrap();
        assert_eq!(
            (st["width"].as_u64(), st["height"].as_u64()),
            (Some(8), Some(6))
        );
        assert_eq!(st["config"], "A5_B8x6");
        assert_eq!(st["atoms"], 5);
        let border = st["border"].as_array().unwrap();
        assert_eq!(border.len(), 28);
        // Left 1..=6, bottom 7..=14, right 15..=20 upwards, top 21..=28.
        let at = |q: usize| {
            let b = &border[q - 1];
            (b["row"].as_u64().unwrap(), b["col"].as_u64().unwrap())
        };
        assert_eq!(at(1), (1, 0));
        assert_eq!(at(6), (6, 0));
        assert_eq!(at(7), (7, 1));
        assert_eq!(at(14), (7, 8));
        assert_eq!(at(15), (6, 9));
        assert_eq!(at(20), (1, 9));
        assert_eq!(at(21), (0, 8));
        assert_eq!(at(28), (0, 1));
        let q: Value = serde_json::from_str(&play.question()).unwrap();
        assert_eq!(
            (q["width"].as_u64(), q["height"].as_u64()),
            (Some(8), Some(6))
        );
        assert_eq!(q["atoms"], json!([5, 5]));
    }

    #[test]
    fn a_range_hides_its_count_until_the_end() {
        let mut play = Play::random("A3-6_B8", "11", "", "").ok().unwrap();
        let st: Value = serde_json::from_str(&play.state()).unwrap();
        assert_eq!(st["atoms"], Value::Null);
        assert_eq!(st["counts"], json!([3, 6]));
        assert_eq!(st["config"], "A3-6_B8");
        assert!(play.title().starts_with("A3-6_B8"), "{}", play.title());
        let q: Value = serde_json::from_str(&play.question()).unwrap();
        assert_eq!(q["atoms"], json!([3, 6]));
        let hidden = play.game().hidden().atoms().len();
        play.resign().ok().unwrap();
        let st: Value = serde_json::from_str(&play.state()).unwrap();
        assert_eq!(st["atoms"].as_u64(), Some(hidden as u64));
        assert_eq!(st["hidden"].as_array().unwrap().len(), hidden);
    }

    #[test]
    fn a_range_game_travels_with_its_count_hidden() {
        let play = Play::random("8x8, 3-6 balls", "5", "", "").ok().unwrap();
        let save = play.save().ok().unwrap();
        let again = Play::open(&save, "the link", "", "", "", "").ok().unwrap();
        assert_eq!(again.game().hidden(), play.game().hidden());
        assert_eq!(again.game().counts(), 3..=6);
        let id = play.tatham_id().ok().unwrap();
        assert!(id.starts_with("w8h8m3M6:"), "{id}");
        let from_id = Play::open(&id, "the game ID", "", "", "", "").ok().unwrap();
        assert_eq!(from_id.game().hidden(), play.game().hidden());
        assert_eq!(from_id.game().counts(), 3..=6);
    }

    #[test]
    fn a_path_crosses_a_rectangle_w_cells_wide() {
        let m = Molecule::parse_linear_in("-".repeat(18).as_str(), Shape::new(6, 3).unwrap(), "t")
            .unwrap();
        // Position 2 is the left of row 2; it leaves on the right of row 2,
        // position 2·3 + 6 + 1 − 2 = 11.
        let v = path(&m, Rules::Standard, 2);
        assert_eq!(v["cells"].as_array().unwrap().len(), 6);
        assert_eq!(v["outcome"]["exit"], json!(11));
        // Position 5 is the bottom of column 2; it climbs 3 cells to the top.
        let v = path(&m, Rules::Standard, 5);
        assert_eq!(v["cells"], json!([[3, 2], [2, 2], [1, 2]]));
        assert_eq!(v["outcome"]["exit"], json!(17));
    }

    #[test]
    fn a_path_lists_each_cell_once_in_order() {
        let m: Molecule = "----------------".parse().unwrap();
        let v = path(&m, Rules::Standard, 1);
        assert_eq!(v["cells"], json!([[1, 1], [1, 2], [1, 3], [1, 4]]));
        assert_eq!(v["outcome"]["exit"], json!(12));
    }
}
