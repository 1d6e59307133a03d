//! Puzzles in J. Forget's display (or Emacs notation): border marks around the
//! box, the player's guess inside it.

use crate::error::{ParseError, quantity};
use crate::puzzle::marks::{ShotMark, UNKNOWN_MARK, mark_kind, observation_from_marks};
use crate::puzzle::picture::{Located, Picture, emacs_witness};
use crate::puzzle::{Format, Puzzle, tokens};
use crate::rules::board::Molecule;
use crate::rules::notation::Notation;

/// The column of N in the `There are N balls in the box` line.
fn balls_column(text: &str, line: usize) -> usize {
    text.lines()
        .nth(line.saturating_sub(1))
        .and_then(|l| tokens(l).get(2).map(|&(c, _)| c))
        .unwrap_or(0)
}

pub(super) fn parse_display(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
    let pic = Picture::parse(text, origin)?;
    let p = pic.shape;
    let mut located: Vec<(usize, Located)> = pic
        .marks
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.map(|m| (i + 1, m)))
        .collect();
    located.sort_by_key(|(_, m)| (m.line, m.column));

    let in_order: Vec<Located> = located.iter().map(|&(_, m)| m).collect();
    let emacs = emacs_witness(&in_order);
    let notation = match emacs {
        Some(_) => Notation::Emacs,
        None => Notation::Letters,
    };

    let mut marks = Vec::with_capacity(located.len());
    for &(pos, m) in &located {
        let err = |msg: String| ParseError::new(origin, m.line, m.column, msg);
        let kind = match (emacs, m.ch, mark_kind(notation, m.ch)) {
            (_, '?', _) => continue,
            (_, _, Some(kind)) => kind,
            (Some(w), c, None) if mark_kind(Notation::Letters, c).is_some() => {
                let why = if w.ch.is_ascii_digit() {
                    format!("the digit '{}' at {}:{}", w.ch, w.line, w.column)
                } else {
                    format!(
                        "the '{}' at {}:{} and no lower-case letter",
                        w.ch, w.line, w.column
                    )
                };
                return Err(err(format!(
                    "mark '{c}' belongs to J. Forget's notation (letters, '@', '&', '~'), but this board is in Emacs notation (digits, 'H', 'R'), as {why} shows: one board cannot mix the two notations"
                )));
            }
            (_, c, None) => return Err(err(format!("unknown border mark {c:?} {UNKNOWN_MARK}"))),
        };
        marks.push(ShotMark {
            pos,
            ch: m.ch,
            line: m.line,
            column: m.column,
            kind,
        });
    }
    let observation = observation_from_marks(p, &marks, origin, notation.reflection())?;

    let most = pic
        .balls
        .map(|(n, line)| (pic.most_balls.unwrap_or(n), line));
    if let Some((n, line)) = most
        && n > p.cells()
    {
        return Err(ParseError::new(
            origin,
            line,
            balls_column(text, line),
            format!(
                "{n} balls do not fit in the {p} box ({})",
                quantity(p.cells(), "cell", "cells")
            ),
        ));
    }
    let (atoms, atom_range) = match (pic.balls, pic.most_balls) {
        (Some((n, _)), Some(most)) => (None, Some(n..=most)),
        (Some((n, _)), None) => (Some(n), None),
        (None, _) => (None, None),
    };
    let guess_cells: Vec<usize> = pic
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.ch == 'O')
        .map(|(i, _)| i)
        .collect();
    let guess = (!guess_cells.is_empty()).then(|| Molecule::from_sorted_unchecked(p, guess_cells));
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Display,
        observation,
        atoms,
        atom_range,
        guess,
        rules: None,
    })
}
