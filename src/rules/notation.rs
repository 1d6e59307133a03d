//! How results are written on the border: the mark of each outcome in each
//! notation.
//!
//! bbx writes J. Forget's notation by default: `@` a hit, `&` a reflection,
//! `~` a miss (edge-miss rules), and a letter for each exit pair, `a`, `b`, …
//! in order of first appearance along the border (after `z`, `A`…`Z`).
//! Emacs `blackbox.el` writes `H`, `R` and the digits `1`–`9`, so it can
//! write at most 9 exit pairs. Every reader and writer of marks — spectra,
//! puzzle files, the boards drawn, the game — takes them from here.
//!
//! ```
//! use bbx::rules::notation::Notation;
//! assert_eq!(Notation::Letters.pair(0), Some('a'));
//! assert_eq!(Notation::Emacs.pair(0), Some('1'));
//! assert_eq!(Notation::Emacs.hit(), 'H');
//! assert_eq!(Notation::Emacs.from_letters('b'), '2');
//! ```

/// How exit pairs and results are written on the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notation {
    /// J. Forget's, bbx's own: `@` hit, `&` reflection, letters for exit
    /// pairs.
    #[default]
    Letters,
    /// Emacs `blackbox.el`'s: `H` hit, `R` reflection, digits 1–9 for exit
    /// pairs (so at most 9 pairs).
    Emacs,
}

/// The mark of a ray that missed the board (edge-miss rules), in every
/// notation.
pub const MISS: char = '~';

/// The letter of the exit pair numbered `i` from 0 in J. Forget's notation:
/// `a`…`z`, then `A`…`Z`; `None` past 52 pairs.
pub fn pair_label(i: usize) -> Option<char> {
    match i {
        0..=25 => Some((b'a' + i as u8) as char),
        26..=51 => Some((b'A' + (i - 26) as u8) as char),
        _ => None,
    }
}

impl Notation {
    /// Emacs notation when `emacs` is asked for, letters otherwise.
    pub fn emacs_if(emacs: bool) -> Notation {
        if emacs {
            Notation::Emacs
        } else {
            Notation::Letters
        }
    }

    /// The mark of a ray absorbed (a hit): `@`, or `H` in Emacs notation.
    pub const fn hit(self) -> char {
        match self {
            Notation::Letters => '@',
            Notation::Emacs => 'H',
        }
    }

    /// The mark of a ray reflected: `&`, or `R` in Emacs notation.
    pub const fn reflection(self) -> char {
        match self {
            Notation::Letters => '&',
            Notation::Emacs => 'R',
        }
    }

    /// The mark of the exit pair numbered `n` (from 0, in the order the pairs
    /// were found): a digit in Emacs notation while there are at most 9, a
    /// letter otherwise; `None` past the 52 letters.
    pub fn pair(self, n: usize) -> Option<char> {
        match self {
            Notation::Emacs if n < 9 => Some((b'1' + n as u8) as char),
            _ => pair_label(n),
        }
    }

    /// The most exit pairs this notation can write: 9 in Emacs notation, 52
    /// in letters.
    pub const fn max_pairs(self) -> usize {
        match self {
            Notation::Letters => 52,
            Notation::Emacs => 9,
        }
    }

    /// A mark of J. Forget's notation in this one: in Emacs notation `@` →
    /// `H`, `&` → `R`, pair letters `a`–`i` → digits `1`–`9`; any other mark
    /// (`~`, a blank) as it is.
    pub fn from_letters(self, mark: char) -> char {
        match (self, mark) {
            (Notation::Letters, m) => m,
            (Notation::Emacs, '@') => 'H',
            (Notation::Emacs, '&') => 'R',
            (Notation::Emacs, 'a'..='i') => (b'1' + (mark as u8 - b'a')) as char,
            (Notation::Emacs, other) => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_labels_run_through_both_alphabets() {
        assert_eq!(pair_label(0), Some('a'));
        assert_eq!(pair_label(25), Some('z'));
        assert_eq!(pair_label(26), Some('A'));
        assert_eq!(pair_label(51), Some('Z'));
        assert_eq!(pair_label(52), None);
        assert_eq!(Notation::Emacs.pair(8), Some('9'));
        assert_eq!(Notation::Emacs.pair(9), Some('j'));
    }

    #[test]
    fn emacs_marks_are_the_letters_marks_renamed() {
        for (letters, emacs) in [
            ('@', 'H'),
            ('&', 'R'),
            ('a', '1'),
            ('i', '9'),
            ('~', '~'),
            (' ', ' '),
        ] {
            assert_eq!(Notation::Emacs.from_letters(letters), emacs);
            assert_eq!(Notation::Letters.from_letters(letters), letters);
        }
    }
}
