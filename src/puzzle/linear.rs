//! Puzzles in the linear form: `A4_B8` (or a range of atom counts,
//! `A3-6_B8`) and the spectrum string, `?` for rays not shot.

use crate::error::{Error, ParseError, quote};
use crate::puzzle::marks::{ShotMark, mark_kind, observation_from_marks};
use crate::puzzle::{Format, Puzzle, is_comment_or_blank, tokens};
use crate::rules::config::ConfigRange;
use crate::rules::notation::Notation;

pub(super) fn parse_linear(text: &str, origin: &str) -> Result<Puzzle, ParseError> {
    let mut content = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !is_comment_or_blank(l));
    let Some((index, line)) = content.next() else {
        return Err(ParseError::new(
            origin,
            0,
            0,
            "no puzzle found (expected a line such as 'A2_B4 @&ab@&@cbac@&@&@', '?' for rays not shot)",
        ));
    };
    let n = index + 1;
    let err = |column: usize, msg: String| ParseError::new(origin, n, column, msg);
    let words = tokens(line);
    let (config_col, config_text) = words[0];
    // One count (`A4_B8`) or a range (`A3-6_B8`, as Tatham's `8x8, 3-6
    // balls` hides).
    let config: ConfigRange = config_text.parse().map_err(|e| match e {
        Error::Config { reason, .. } => err(
            config_col,
            format!("invalid configuration {}: {reason}", quote(config_text)),
        ),
        other => err(config_col, other.to_string()),
    })?;
    let p = config.shape;
    let positions = p.positions();
    let Some(&(col, spectrum)) = words.get(1) else {
        return Err(err(
            0,
            format!(
                "expected the spectrum after the configuration: {positions} characters, one per border position ('?' for a ray not shot)"
            ),
        ));
    };
    if let Some(&(extra, _)) = words.get(2) {
        return Err(err(
            extra,
            "unexpected text after the spectrum (comments go on lines of their own, starting with '#')".into(),
        ));
    }
    let chars: Vec<char> = spectrum.chars().collect();
    if chars.len() != positions {
        let formula = if p.is_square() { "4p" } else { "2(w+h)" };
        return Err(err(
            col,
            format!(
                "the spectrum of {config} has {formula} = {positions} characters (one per border position, '?' for a ray not shot), but this one has {}",
                chars.len()
            ),
        ));
    }
    let mut marks = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let kind = match mark_kind(Notation::Letters, c) {
            _ if c == '?' => continue,
            Some(kind) => kind,
            None => {
                return Err(err(
                    col + i,
                    format!(
                        "unexpected character {c:?} in the spectrum (expected '@', '&', '~', '?' or a letter)"
                    ),
                ));
            }
        };
        marks.push(ShotMark {
            pos: i + 1,
            ch: c,
            line: n,
            column: col + i,
            kind,
        });
    }
    let observation = observation_from_marks(p, &marks, origin, Notation::Letters.reflection())?;
    if let Some((index, _)) = content.next() {
        return Err(ParseError::new(
            origin,
            index + 1,
            1,
            "unexpected line after the puzzle (the linear format is one line; comments start with '#')",
        ));
    }
    Ok(Puzzle {
        origin: origin.to_string(),
        format: Format::Linear,
        observation,
        atoms: config.exact().map(|c| c.atoms),
        atom_range: config.exact().is_none().then(|| config.atoms()),
        guess: None,
        rules: None,
    })
}
