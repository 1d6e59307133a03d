//! The boards a front draws, as data: each cell's and border position's
//! facts (the player's atom, a mark, what the coach says, the hidden atom
//! after the game) and its mark in text, worked out once each time the game
//! changes. A front that draws pictures (the web page) reads the facts; a
//! front that draws text (the terminal) reads the marks ([`Board::rows`]),
//! whose meanings it gives colours.
//!
//! Each mark has its own glyph, so that a board reads without colour
//! (`NO_COLOR`): in the game `O` your atom, `:` a cell you marked empty, `-` a
//! cell not known; the coach's `*` certain atom, `.` certain empty, `!` your
//! atom on a cell certainly empty, digits for chances, and the best ray as an
//! arrow into the box on the border (`>` `<` `v` `^`); on the reveal `O` your
//! atom where one is hidden, `x` your atom where none is (`X` where the ray at
//! the cursor crosses it), `#` a hidden atom you missed, `+` the path of the
//! ray at the cursor.
//!
//! ```
//! use bbx::play::marks::{Board, Look, playing};
//! use bbx::play::coach::Panels;
//! use bbx::play::game::Game;
//! use bbx::play::cursor::Cursor;
//! use bbx::play::referee::Judge;
//! use bbx::rules::notation::Notation;
//! use bbx::Rules;
//! let mut game = Game::new("O-O-------------".parse().unwrap(), Rules::Standard, Judge::AllRays);
//! game.shoot(1);
//! let board = playing(&game, Notation::Letters, Cursor::start(4), Panels::default(), None, false);
//! assert_eq!(board.rows()[1][0].ch, '@');
//! assert_eq!(board.slot(1).mark.look, Look::Absorbed);
//! ```

use crate::play::coach::{Answer, Panels};
use crate::play::cursor::{Cursor, Target};
use crate::play::game::{Game, mark_of};
use crate::render::position_name;
use crate::rules::board::{Molecule, Side, port, position_at};
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::solver::Certainty;

/// What a mark means, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Look {
    /// Nothing known: `-` in the box, a blank on the border.
    Plain,
    /// The player's atom.
    Guess,
    /// The player's atom on a cell certainly empty (`!`), or where no atom
    /// is hidden (`x`, `X`).
    Wrong,
    /// A cell the player marked empty.
    MarkedEmpty,
    /// A cell certain to hold an atom (or an atom's chance of 1).
    CertainAtom,
    /// A cell certainly empty (or an atom's chance of 0).
    CertainEmpty,
    /// A cell's chance of an atom, in tenths.
    Chance(u32),
    /// The player's atom where an atom is hidden.
    Right,
    /// A hidden atom the player missed.
    Missed,
    /// The path of the ray at the cursor.
    Path,
    /// A ray absorbed.
    Absorbed,
    /// A ray reflected.
    Reflected,
    /// A ray that missed the board.
    Miss,
    /// An end of an exit pair, the pairs numbered in the order seen.
    Pair(usize),
    /// The coach's best ray.
    Best,
    /// The ray that tells a wrong guess apart, not shot.
    Telling,
    /// The ray at the cursor, traced in the player's molecule.
    Traced,
}

/// A character of a board and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Mark {
    /// The character.
    pub ch: char,
    /// What it means.
    pub look: Look,
    /// The other end of the exit pair under the cursor (drawn lit up).
    pub lit: bool,
    /// On a ray shot, when asked: whether the guess placed so far explains
    /// it (drawn plain) or not (drawn crossed out).
    pub explained: Option<bool>,
}

impl Mark {
    fn new(ch: char, look: Look) -> Mark {
        Mark {
            ch,
            look,
            lit: false,
            explained: None,
        }
    }
}

const BLANK: Mark = Mark {
    ch: ' ',
    look: Look::Plain,
    lit: false,
    explained: None,
};

/// A cell of a board: its mark, and what a picture of it draws.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Cell {
    /// The mark in text.
    pub mark: Mark,
    /// The player's atom is there.
    pub atom: bool,
    /// The player marked it empty.
    pub locked: bool,
    /// What the coach is sure of, when the certain cells are shown.
    pub certain: Option<Certainty>,
    /// Its chance of an atom, when the chances are shown.
    pub chance: Option<f64>,
    /// After the game: whether an atom is hidden there.
    pub hidden: Option<bool>,
    /// The ray drawn after the game crosses it.
    pub path: bool,
}

impl Cell {
    fn plain(mark: Mark) -> Cell {
        Cell {
            mark,
            atom: false,
            locked: false,
            certain: None,
            chance: None,
            hidden: None,
            path: false,
        }
    }
}

/// A border position of a board: its mark, and what a picture of it draws.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Slot {
    /// The border position.
    pub position: usize,
    /// Its row in the board as drawn (0 and h+1 are outside the box).
    pub row: usize,
    /// Its column in the board as drawn (0 and w+1 are outside the box).
    pub col: usize,
    /// The side of the box.
    pub side: Side,
    /// Where it is, in words: `left, row 3`.
    pub name: String,
    /// The mark in text.
    pub mark: Mark,
    /// The result of its ray, when known.
    pub outcome: Option<Outcome>,
    /// Its exit pair's number, in the order the pairs were seen.
    pub pair: Option<usize>,
    /// Given by the puzzle, free.
    pub free: bool,
    /// The coach's best ray.
    pub best: bool,
    /// The ray the chosen policy shoots next.
    pub next: bool,
    /// The ray that tells a wrong guess apart.
    pub telling: bool,
}

/// A board as drawn: the w×h cells and the 2(w+h) border positions around
/// them.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Board {
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The cells, row by row (linear index).
    pub cells: Vec<Cell>,
    /// The border positions, from 1.
    pub slots: Vec<Slot>,
}

impl Board {
    /// The box.
    pub fn shape(&self) -> Shape {
        Shape {
            width: self.width,
            height: self.height,
        }
    }

    /// Border position `q` (1..=2(w+h)).
    ///
    /// # Panics
    /// When `q` is out of range.
    pub fn slot(&self, q: usize) -> &Slot {
        &self.slots[q - 1]
    }

    /// The board in text: h+2 rows of w+2 marks, the border around the
    /// cells (the corners blank), as `bbx trace` prints a board.
    pub fn rows(&self) -> Vec<Vec<Mark>> {
        let (w, h) = (self.width, self.height);
        let shape = self.shape();
        (0..h + 2)
            .map(|r| {
                (0..w + 2)
                    .map(|c| {
                        if (1..=h).contains(&r) && (1..=w).contains(&c) {
                            self.cells[shape.index(r, c)].mark
                        } else {
                            position_at(shape, r, c).map_or(BLANK, |q| self.slots[q - 1].mark)
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// A board of a box of `shape` from its cells and border positions.
fn board(shape: Shape, cell: impl Fn(usize) -> Cell, slot: impl Fn(usize) -> Slot) -> Board {
    Board {
        width: shape.width,
        height: shape.height,
        cells: (0..shape.cells()).map(cell).collect(),
        slots: (1..=shape.positions()).map(slot).collect(),
    }
}

/// Border position `q` with nothing on it.
fn empty_slot(shape: Shape, q: usize) -> Slot {
    let p = port(shape, q);
    Slot {
        position: q,
        row: p.row,
        col: p.col,
        side: p.side,
        name: position_name(shape, q),
        mark: BLANK,
        outcome: None,
        pair: None,
        free: false,
        best: false,
        next: false,
        telling: false,
    }
}

/// Border position `q` with its ray shot, if it was: its result in the
/// notation's marks, the exit pair under the cursor lit up.
fn shot(g: &Game, marks: &[char], cursor: Cursor, q: usize) -> Slot {
    let mut slot = empty_slot(g.shape(), q);
    let Some(o) = g.observation().get(q) else {
        return slot;
    };
    let look = match o {
        Outcome::Absorbed => Look::Absorbed,
        Outcome::Reflected => Look::Reflected,
        Outcome::Miss => Look::Miss,
        Outcome::Exit(_) => Look::Pair(g.pair_index(q).unwrap_or(0)),
    };
    let lit = matches!(cursor.target(), Some(Target::Border(c))
        if g.observation().get(c) == Some(Outcome::Exit(q)));
    slot.mark = Mark {
        ch: marks[q - 1],
        look,
        lit,
        explained: None,
    };
    slot.outcome = Some(o);
    slot.pair = g.pair_index(q);
    slot.free = g.is_free(q);
    slot
}

/// A cell's chance of an atom: `.` never, `*` always, else the tenths (`7`
/// is 70 to 79%).
fn chance(q: f64) -> Mark {
    if q < 0.0005 {
        Mark::new('.', Look::CertainEmpty)
    } else if q > 0.9995 {
        Mark::new('*', Look::CertainAtom)
    } else {
        let tenths = ((q * 10.0) as u32).min(9);
        Mark::new(
            char::from_digit(tenths, 10).unwrap_or('?'),
            Look::Chance(tenths),
        )
    }
}

/// The arrow drawn on the border for the best ray at `q`, into the box.
pub fn arrow(p: Shape, q: usize) -> char {
    match port(p, q).side {
        Side::Left => '>',
        Side::Bottom => '^',
        Side::Right => '<',
        Side::Top => 'v',
    }
}

/// The board during the game: the rays shot, the player's atoms and marks,
/// what the coach's `answer` says in the `panels` shown and, with
/// `explained`, whether the guess explains each ray shot.
pub fn playing(
    g: &Game,
    notation: Notation,
    cursor: Cursor,
    panels: Panels,
    answer: Option<&Answer>,
    explained: bool,
) -> Board {
    let mut verdicts = vec![None; g.positions()];
    if explained {
        for (q, ok) in g.explained() {
            verdicts[q - 1] = Some(ok);
            if let Some(Outcome::Exit(k)) = g.observation().get(q) {
                verdicts[k - 1] = Some(ok);
            }
        }
    }
    let p = g.shape();
    let (marks, _) = g.marks_in(notation);
    let certainty = answer
        .and_then(|a| a.certainty.as_deref())
        .filter(|_| panels.certain);
    let chances = answer
        .and_then(|a| a.chances.as_deref())
        .filter(|_| panels.chance);
    let best = answer
        .and_then(|a| a.best())
        .filter(|_| panels.best)
        .map(|s| s.position);
    let next = answer
        .and_then(|a| a.policy.as_ref())
        .and_then(|n| n.ray)
        .filter(|_| panels.best);
    board(
        p,
        |i| {
            let c = certainty.map(|c| c[i]);
            let atom = g.is_guessed(i);
            let locked = !atom && g.is_marked_empty(i);
            let mark = match (atom, c) {
                (false, _) if locked => Mark::new(':', Look::MarkedEmpty),
                (false, _) if chances.is_some() => chance(chances.map_or(0.0, |ch| ch[i])),
                (true, Some(Certainty::Empty)) => Mark::new('!', Look::Wrong),
                (true, _) => Mark::new('O', Look::Guess),
                (false, Some(Certainty::Atom)) => Mark::new('*', Look::CertainAtom),
                (false, Some(Certainty::Empty)) => Mark::new('.', Look::CertainEmpty),
                (false, _) => Mark::new('-', Look::Plain),
            };
            Cell {
                atom,
                locked,
                certain: c,
                chance: chances.map(|ch| ch[i]),
                ..Cell::plain(mark)
            }
        },
        |q| {
            let mut slot = shot(g, &marks, cursor, q);
            slot.mark.explained = verdicts[q - 1];
            slot.best = best == Some(q);
            slot.next = next == Some(q);
            if slot.outcome.is_none() && slot.best {
                slot.mark = Mark::new(arrow(p, q), Look::Best);
            }
            slot
        },
    )
}

/// The ray the reveal draws: the one at the cursor.
fn selected(cursor: Cursor) -> Option<usize> {
    match cursor.target() {
        Some(Target::Border(q)) => Some(q),
        _ => None,
    }
}

/// The hidden molecule after the game, the player's atoms on it, the path
/// of the ray at the cursor, and the ray that tells a wrong guess apart
/// drawn though not shot.
pub fn reveal(g: &Game, notation: Notation, cursor: Cursor) -> Board {
    let (marks, used) = g.marks_in(notation);
    let hidden = g.hidden().cells();
    let path = selected(cursor).map(|q| trail(g.hidden(), g.rules(), q).crossed(g.shape()));
    let telling = g
        .verdict()
        .and_then(|v| v.evidence)
        .filter(|e| !e.shot)
        .map(|e| {
            let other = match e.hidden {
                Outcome::Exit(k) => Some(k),
                _ => None,
            };
            let ch = mark_of(used, e.hidden, g.pair_order().len());
            (e.position, other, e.hidden, Mark::new(ch, Look::Telling))
        });
    board(
        g.shape(),
        |i| {
            let on_path = path.as_ref().is_some_and(|c| c[i]);
            let atom = g.is_guessed(i);
            let mark = match (hidden[i], atom) {
                (true, true) => Mark::new('O', Look::Right),
                // Your wrong atom does not hide the ray's path.
                (false, true) => Mark::new(if on_path { 'X' } else { 'x' }, Look::Wrong),
                (true, false) => Mark::new('#', Look::Missed),
                (false, false) if on_path => Mark::new('+', Look::Path),
                _ => Mark::new('-', Look::Plain),
            };
            Cell {
                atom,
                hidden: Some(hidden[i]),
                path: on_path,
                ..Cell::plain(mark)
            }
        },
        |q| {
            let mut slot = shot(g, &marks, cursor, q);
            if let (None, Some((a, b, o, m))) = (slot.outcome, telling)
                && (a == q || b == Some(q))
            {
                slot.mark = m;
                slot.telling = true;
                slot.outcome = Some(match o {
                    Outcome::Exit(k) if b == Some(q) && k == q => Outcome::Exit(a),
                    o => o,
                });
            }
            slot
        },
    )
}

/// The player's molecule after the game, with the path the ray at the
/// cursor would take in it; `None` before the verdict.
pub fn guessed(g: &Game, notation: Notation, cursor: Cursor) -> Option<Board> {
    let guess = &g.verdict()?.guess;
    let (_, used) = g.marks_in(notation);
    let cells = guess.cells();
    let traced = selected(cursor).map(|q| (q, trail(guess, g.rules(), q)));
    let crossed = traced.as_ref().map(|(_, t)| t.crossed(g.shape()));
    let shape = g.shape();
    Some(board(
        shape,
        |i| {
            let on_path = crossed.as_ref().is_some_and(|c| c[i]);
            let mark = match () {
                _ if cells[i] => Mark::new('O', Look::Guess),
                _ if on_path => Mark::new('+', Look::Path),
                _ => Mark::new('-', Look::Plain),
            };
            Cell {
                atom: cells[i],
                path: on_path,
                ..Cell::plain(mark)
            }
        },
        |q| {
            let mut slot = empty_slot(shape, q);
            match &traced {
                Some((a, t)) if *a == q => {
                    slot.mark = Mark::new(
                        match t.outcome {
                            Outcome::Exit(_) => '+',
                            o => mark_of(used, o, 0),
                        },
                        Look::Traced,
                    );
                    slot.outcome = Some(t.outcome);
                }
                Some((a, t)) if t.outcome == Outcome::Exit(q) => {
                    slot.mark = Mark::new('+', Look::Traced);
                    slot.outcome = Some(Outcome::Exit(*a));
                }
                _ => {}
            }
            slot
        },
    ))
}

/// Which molecule a [`Trail`] goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Through {
    /// The hidden molecule (after the game).
    Hidden,
    /// The player's atoms.
    Guess,
}

/// A ray's way through a molecule, for a front that draws it as a line:
/// the cells it enters in order and, when it is absorbed, the atom's cell.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Trail {
    /// The border position it enters at.
    pub position: usize,
    /// Through which molecule.
    pub through: Through,
    /// Its result.
    pub outcome: Outcome,
    /// The cells it enters, in order, as (row, column) from 1, each once
    /// per visit (a turn on a cell does not repeat it).
    pub cells: Vec<(usize, usize)>,
    /// The cell of the atom that absorbs it, when one does.
    pub atom: Option<(usize, usize)>,
}

impl Trail {
    /// Per linear cell, whether the ray crosses it.
    fn crossed(&self, shape: Shape) -> Vec<bool> {
        let mut cells = vec![false; shape.cells()];
        for &(r, c) in &self.cells {
            cells[shape.index(r, c)] = true;
        }
        cells
    }
}

/// The way of the ray from `position` through `molecule` under `rules`.
pub fn trail(molecule: &Molecule, rules: Rules, position: usize) -> Trail {
    trail_through(molecule, rules, position, Through::Guess)
}

/// [`trail`], saying which molecule it goes through.
pub fn trail_through(
    molecule: &Molecule,
    rules: Rules,
    position: usize,
    through: Through,
) -> Trail {
    let shape = molecule.shape();
    let mut t = Tracer::new(shape, rules);
    t.load(molecule);
    let (trace, steps) = t.trace_path(position);
    let mut cells: Vec<(usize, usize)> = Vec::with_capacity(steps.len());
    for s in &steps {
        if cells.last() != Some(&(s.row, s.col)) {
            cells.push((s.row, s.col));
        }
    }
    let atom = (trace.outcome == Outcome::Absorbed).then(|| {
        // The atom is the cell ahead of the ray's last heading: from the
        // last cell it entered, or from its border position.
        let (row, col, heading) = match steps.last() {
            Some(s) => (s.row as isize, s.col as isize, s.heading),
            None => {
                let p = port(shape, position);
                (p.row as isize, p.col as isize, p.heading)
            }
        };
        let (dr, dc) = heading.delta();
        ((row + dr) as usize, (col + dc) as usize)
    });
    Trail {
        position,
        through,
        outcome: trace.outcome,
        cells,
        atom,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absorbed_ray_ends_on_the_atom() {
        // A2_B4 O-O-: ray 1 (left of row 1) hits the atom at row 1, column 1
        // at once; ray 5 (bottom of column 1) climbs to row 2 and hits it.
        let m: Molecule = "O-O-------------".parse().unwrap();
        let t = trail(&m, Rules::Standard, 1);
        assert_eq!(
            (t.outcome, t.cells.clone(), t.atom),
            (Outcome::Absorbed, vec![], Some((1, 1)))
        );
        let t = trail(&m, Rules::Standard, 5);
        assert_eq!(t.outcome, Outcome::Absorbed);
        assert_eq!(t.cells, vec![(4, 1), (3, 1), (2, 1)]);
        assert_eq!(t.atom, Some((1, 1)));
        let out = trail(&m, Rules::Standard, 8);
        assert_eq!((out.outcome, out.atom), (Outcome::Exit(11), None));
    }

    #[test]
    fn the_text_rows_put_each_slot_where_the_border_is() {
        let mut game = Game::new(
            "O-O-------------".parse().unwrap(),
            Rules::Standard,
            crate::play::referee::Judge::AllRays,
        );
        game.shoot(8);
        let b = playing(
            &game,
            Notation::Letters,
            Cursor::start(4),
            Panels::default(),
            None,
            false,
        );
        let rows = b.rows();
        assert_eq!(rows.len(), 6);
        assert!(rows.iter().all(|r| r.len() == 6));
        // Position 8 is the bottom of column 4, position 11 the right of row 2.
        assert_eq!(rows[5][4].ch, 'a');
        assert_eq!(rows[2][5].ch, 'a');
        assert_eq!(b.slot(8).outcome, Some(Outcome::Exit(11)));
        assert_eq!((b.slot(11).row, b.slot(11).col), (2, 5));
    }
}
