//! The boards the screen shows, as data: each cell's and border position's
//! mark and what it means, worked out once each time the game changes (the
//! view only gives each meaning its colour).
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
//! use bbx::play::board::{Board, Look, playing};
//! use bbx::play::coach::Panels;
//! use bbx::play::game::Game;
//! use bbx::play::input::Cursor;
//! use bbx::play::referee::Judge;
//! use bbx::rules::notation::Notation;
//! use bbx::Rules;
//! let mut game = Game::new("O-O-------------".parse().unwrap(), Rules::Standard, Judge::AllRays);
//! game.shoot(1);
//! let board = playing(&game, Notation::Letters, Cursor::start(4), Panels::default(), None, false);
//! assert_eq!(board.rows[1][0].ch, '@');
//! assert_eq!(board.rows[1][0].look, Look::Absorbed);
//! ```

use crate::play::coach::{Answer, Panels};
use crate::play::game::{Game, mark_of, ray_path};
use crate::play::input::{Cursor, Target};
use crate::play::words::arrow;
use crate::rules::board::position_at;
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::Outcome;
use crate::solver::Certainty;

/// What a mark means, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A board as drawn: h+2 rows of w+2 marks, the border around the cells
/// (the corners blank).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Board {
    /// The rows, top first.
    pub rows: Vec<Vec<Mark>>,
}

const BLANK: Mark = Mark {
    ch: ' ',
    look: Look::Plain,
    lit: false,
    explained: None,
};

/// A board of a box of `shape` from its cells' and border positions' marks.
fn board(shape: Shape, cell: impl Fn(usize) -> Mark, border: impl Fn(usize) -> Mark) -> Board {
    let (w, h) = (shape.width, shape.height);
    let rows = (0..h + 2)
        .map(|r| {
            (0..w + 2)
                .map(|c| {
                    if (1..=h).contains(&r) && (1..=w).contains(&c) {
                        cell(shape.index(r, c))
                    } else {
                        position_at(shape, r, c).map_or(BLANK, &border)
                    }
                })
                .collect()
        })
        .collect();
    Board { rows }
}

/// The mark of a ray shot, at border position `q`: its result in the
/// notation's marks, the exit pair under the cursor lit up.
fn shot(g: &Game, marks: &[char], cursor: Cursor, q: usize) -> Option<Mark> {
    let look = match g.observation().get(q)? {
        Outcome::Absorbed => Look::Absorbed,
        Outcome::Reflected => Look::Reflected,
        Outcome::Miss => Look::Miss,
        Outcome::Exit(_) => Look::Pair(g.pair_index(q).unwrap_or(0)),
    };
    let lit = matches!(cursor.target(), Some(Target::Border(c))
        if g.observation().get(c) == Some(Outcome::Exit(q)));
    Some(Mark {
        ch: marks[q - 1],
        look,
        lit,
        explained: None,
    })
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
        .and_then(|a| a.certainty())
        .filter(|_| panels.certain);
    let chances = answer.and_then(|a| a.chances()).filter(|_| panels.chance);
    let best = answer
        .and_then(|a| a.best())
        .filter(|_| panels.best)
        .map(|s| s.position);
    board(
        p,
        |i| {
            let c = certainty.map(|c| c[i]);
            match (g.is_guessed(i), c) {
                (false, _) if g.is_marked_empty(i) => Mark::new(':', Look::MarkedEmpty),
                (false, _) if chances.is_some() => chance(chances.map_or(0.0, |ch| ch[i])),
                (true, Some(Certainty::Empty)) => Mark::new('!', Look::Wrong),
                (true, _) => Mark::new('O', Look::Guess),
                (false, Some(Certainty::Atom)) => Mark::new('*', Look::CertainAtom),
                (false, Some(Certainty::Empty)) => Mark::new('.', Look::CertainEmpty),
                (false, _) => Mark::new('-', Look::Plain),
            }
        },
        |q| match shot(g, &marks, cursor, q) {
            Some(m) => Mark {
                explained: verdicts[q - 1],
                ..m
            },
            None if best == Some(q) => Mark::new(arrow(p, q), Look::Best),
            None => BLANK,
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
    let path = selected(cursor).map(|q| ray_path(g.hidden(), g.rules(), q).1);
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
            (e.position, other, Mark::new(ch, Look::Telling))
        });
    board(
        g.shape(),
        |i| {
            let on_path = path.as_ref().is_some_and(|c| c[i]);
            match (hidden[i], g.is_guessed(i)) {
                (true, true) => Mark::new('O', Look::Right),
                // Your wrong atom does not hide the ray's path.
                (false, true) => Mark::new(if on_path { 'X' } else { 'x' }, Look::Wrong),
                (true, false) => Mark::new('#', Look::Missed),
                (false, false) if on_path => Mark::new('+', Look::Path),
                _ => Mark::new('-', Look::Plain),
            }
        },
        |q| match (shot(g, &marks, cursor, q), telling) {
            (Some(m), _) => m,
            (None, Some((a, b, m))) if a == q || b == Some(q) => m,
            _ => BLANK,
        },
    )
}

/// The player's molecule after the game, with the path the ray at the
/// cursor would take in it; `None` before the verdict.
pub fn guessed(g: &Game, notation: Notation, cursor: Cursor) -> Option<Board> {
    let guess = &g.verdict()?.guess;
    let (_, used) = g.marks_in(notation);
    let cells = guess.cells();
    let traced = selected(cursor).map(|q| (q, ray_path(guess, g.rules(), q)));
    Some(board(
        g.shape(),
        |i| match &traced {
            _ if cells[i] => Mark::new('O', Look::Guess),
            Some((_, (_, path))) if path[i] => Mark::new('+', Look::Path),
            _ => Mark::new('-', Look::Plain),
        },
        |q| match &traced {
            Some((a, (o, _))) if *a == q => Mark::new(
                match o {
                    Outcome::Exit(_) => '+',
                    o => mark_of(used, *o, 0),
                },
                Look::Traced,
            ),
            Some((_, (Outcome::Exit(k), _))) if *k == q => Mark::new('+', Look::Traced),
            _ => BLANK,
        },
    ))
}
