//! Saved games: a puzzle file that `bbx solve` reads and `bbx play` resumes.
//!
//! A saved game is J. Forget's display of the rays shot so far (exit pairs
//! lettered in the order they were shot) with the player's atoms as `O`s and a
//! `There are N balls in the box` line, so `bbx solve FILE` lists the
//! molecules that fit and checks the guess. Above the board, comment lines
//! (starting with `#`, which the puzzle reader skips) say what the file is
//! and carry one `# bbx-resume:` line: what `bbx play` needs to go on with the
//! same hidden molecule — the molecule, the rules, the rays given free by a
//! puzzle, whether the guess was judged, and what the board does not show:
//! the rays paid for and undone, the cells marked empty, the order the rays
//! were shot in, undo and redo, wrong guesses played on and a resignation —
//! scrambled so that the molecule does not show at a glance, with a
//! checksum. The scrambling hides; it does
//! not protect (anyone with this source can undo it), which is all a game
//! between friends needs.
//!
//! ```
//! use bbx::play::game::Game;
//! use bbx::play::referee::Judge;
//! use bbx::play::save::{read_resume, save_text};
//! use bbx::rules::notation::Notation;
//! use bbx::setting::Plain;
//! use bbx::{Molecule, Rules};
//!
//! let hidden: Molecule = "O-O-------------".parse().unwrap();
//! let mut game = Game::new(hidden.clone(), Rules::Standard, Judge::AllRays);
//! game.shoot(8);
//! let text = save_text(&game, Notation::Letters, &Plain).unwrap();
//! assert!(!text.contains(&hidden.to_string()));
//! let puzzle = bbx::puzzle::parse_puzzle(&text, "saved", None).unwrap();
//! assert_eq!(puzzle.observation, *game.observation());
//! let resume = read_resume(&text, "saved").unwrap().unwrap();
//! assert_eq!(resume.hidden, hidden);
//! ```

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use crate::error::Error;
use crate::play::game::{Action, Extra, Game, History};
use crate::play::referee::Judge;
use crate::puzzle::{TathamMove, position_to_tatham, save_file};
use crate::render::{balls_range_line, board};
use crate::rules::board::Molecule;
use crate::rules::config::Shape;
use crate::rules::notation::Notation;
use crate::rules::ray::Rules;
use crate::setting::{Naming, Setting, Text};
use rand::rngs::ChaCha8Rng;
use rand::{Rng as _, SeedableRng as _};
use xxhash_rust::xxh3::xxh3_64;

/// The comment that carries the scrambled game.
pub const RESUME_TAG: &str = "bbx-resume:";

/// The format of the resume line: its first byte, once unscrambled. Version
/// 4 added the box's height, the atom counts the player is told and whether
/// the coach helped; version 3 (a square, its count told) is still read.
const VERSION: u8 = 4;
const KEY: u64 = 0x6262_7820_706c_6179; // "bbx play"

/// What a saved game's resume line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// The hidden molecule.
    pub hidden: Molecule,
    /// The atom counts the player is told (the hidden count alone, unless
    /// the game hides a count in a range).
    pub counts: RangeInclusive<usize>,
    /// The rules of the game.
    pub rules: Rules,
    /// How the guess is judged.
    pub judge: Judge,
    /// Border positions given free by the puzzle the game started from.
    pub free: Vec<usize>,
    /// Whether the guess had been judged when the game was saved.
    pub over: bool,
    /// What the board does not show.
    pub extra: Extra,
}

/// The saved game as text: comments, the board in J. Forget's display and the
/// balls line; the comments name the settings `bbx solve` needs as `naming`
/// does. Fails when the rays cannot be written in the display (more than 52
/// exit pairs).
pub fn save_text(game: &Game, notation: Notation, naming: &dyn Naming) -> Result<String, Error> {
    if game.pair_order().len() > 52 {
        return Err(Error::invalid(
            "more than 52 exit pairs cannot be written in J. Forget's display, so this game cannot be saved",
        ));
    }
    let (marks, _) = game.marks_in(notation);
    let board = board(&game.guess(), &marks);
    let state = match game.verdict() {
        Some(v) if v.won => format!("won, score {}", v.score),
        Some(v) => format!("lost, score {}", v.score),
        None => format!(
            "{} rays shot, score so far {}, {} of {} atoms placed",
            game.rays_shot(),
            game.ray_score(),
            game.placed(),
            match game.count_is_told() {
                true => game.atoms().to_string(),
                false => format!("{} to {}", game.counts().start(), game.counts().end()),
            }
        ),
    };
    let mut solve = Text::from("# 'bbx solve FILE");
    if game.rules() != Rules::Standard {
        solve = solve
            .and(" ")
            .and(Setting::Rules)
            .and(format!(" {}", game.rules()));
    }
    let solve =
        solve.and("' lists the molecules that fit these rays; 'bbx play FILE' resumes the game.");
    Ok(format!(
        "# bbx play: a saved game of {} under the {} rules: {state}.\n{}\n\
         # The next line is the hidden molecule, scrambled (bbx solve does not read it):\n\
         # {RESUME_TAG} {}\n\n{board}\n{}\n",
        game.range(),
        game.rules(),
        solve.show(naming),
        encode(game, &board),
        balls_range_line(*game.counts().start(), *game.counts().end())
    ))
}

/// Whether the player asked for a save file of Tatham's Black Box: a name
/// ending in `.sav`, as his program names them.
pub fn is_tatham_save(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sav"))
}

/// The game as a save file of Tatham's Black Box: the rays shot (in the
/// order shot), the cells marked empty as his locks, the guess as his
/// balls, and how it ended (a win as his check, a loss or a resignation as
/// his reveal). Refused for a game his program cannot play.
pub fn tatham_save(g: &Game) -> Result<String, String> {
    let params = g.tatham_params()?;
    let shape = g.shape();
    let mut moves: Vec<TathamMove> = Vec::new();
    let given: Vec<usize> = g.free_positions();
    for &q in given.iter().chain(g.shots()) {
        if !moves.contains(&TathamMove::Fire(position_to_tatham(shape, q)))
            && g.observation().get(q).is_some()
        {
            moves.push(TathamMove::Fire(position_to_tatham(shape, q)));
        }
    }
    let cell = |i: usize| {
        let (r, c) = shape.row_col(i);
        (c, r)
    };
    for i in (0..shape.cells()).filter(|&i| g.is_marked_empty(i)) {
        let (x, y) = cell(i);
        moves.push(TathamMove::Lock(x, y));
    }
    for &i in g.guess().atoms() {
        let (x, y) = cell(i);
        moves.push(TathamMove::Toggle(x, y));
    }
    match g.verdict() {
        Some(v) if v.won => moves.push(TathamMove::Check),
        Some(_) => moves.push(TathamMove::Solve),
        None => {}
    }
    save_file(&params, g.hidden(), &moves, g.wrong_guesses())
}

/// Finds and unscrambles the resume line of a saved game; `Ok(None)` when the
/// text has none (a plain puzzle). `origin` names the text in errors.
pub fn read_resume(text: &str, origin: &str) -> Result<Option<Resume>, Error> {
    let mut found = text.lines().enumerate().filter_map(|(i, l)| {
        let t = l.trim_start();
        let rest = t.strip_prefix('#')?.trim_start();
        rest.strip_prefix(RESUME_TAG).map(|r| (i + 1, r.trim()))
    });
    let Some((line, token)) = found.next() else {
        return Ok(None);
    };
    if let Some((second, _)) = found.next() {
        return Err(Error::invalid(format!(
            "{origin}:{second}: a second '# {RESUME_TAG}' line (the first is line {line}): a saved game has one, and bbx cannot tell which game this file is; keep the line of the game you want"
        )));
    }
    decode(token).map(Some).map_err(|why| {
        Error::invalid(format!(
            "{origin}:{line}: the {RESUME_TAG} line is damaged ({why}); remove it to play the file as a puzzle with a new hidden molecule"
        ))
    })
}

/// The checksum of a payload: the first four bytes of its XXH3 hash.
fn checksum(bytes: &[u8]) -> [u8; 4] {
    let h = xxh3_64(bytes).to_le_bytes();
    [h[0], h[1], h[2], h[3]]
}

/// The keystream that scrambles a payload: ChaCha8 keyed with bbx's key and
/// the nonce.
fn keystream(nonce: u32, len: usize) -> Vec<u8> {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&KEY.to_le_bytes());
    seed[8..12].copy_from_slice(&nonce.to_le_bytes());
    let mut out = vec![0u8; len];
    ChaCha8Rng::from_seed(seed).fill_bytes(&mut out);
    out
}

/// A payload being written: little-endian words and bit sets.
struct Writer(Vec<u8>);

impl Writer {
    fn tag(&mut self, tag: u8) -> &mut Writer {
        self.0.push(tag);
        self
    }

    fn word(&mut self, x: usize) {
        self.0.extend_from_slice(&(x as u32).to_le_bytes());
    }

    /// A list: its length, then its words.
    fn list(&mut self, xs: &[usize]) {
        self.word(xs.len());
        xs.iter().for_each(|&x| self.word(x));
    }

    /// The members of `set` (from `base`) among `len`, a bit each.
    fn bits(&mut self, set: &[usize], len: usize, base: usize) {
        let mut b = vec![0u8; len.div_ceil(8)];
        for &i in set {
            b[(i - base) / 8] |= 1 << ((i - base) % 8);
        }
        self.0.extend_from_slice(&b);
    }
}

/// The scrambled payload of `game`, whose board is `board`: the nonce, from
/// the board's hash so that two saves of different games scramble
/// differently, then the payload and its checksum XORed with the keystream,
/// in hexadecimal.
fn encode(game: &Game, board: &str) -> String {
    let p = game.shape();
    let mut w = Writer(vec![
        VERSION,
        u8::from(game.rules() == Rules::EdgeMiss),
        u8::from(game.judge() == Judge::RaysShot),
        // 2: a wrong guess waits for the player to play on or end.
        if game.pending().is_some() {
            2
        } else {
            u8::from(game.is_over())
        },
    ]);
    w.word(p.width);
    w.word(p.height);
    let counts = game.counts();
    w.word(*counts.start());
    w.word(*counts.end());
    w.list(game.hidden().atoms());
    w.bits(&game.free_positions(), p.positions(), 1);
    let extra = game.extra();
    w.bits(&extra.paid, p.positions(), 1);
    w.bits(&extra.empty, p.cells(), 0);
    w.word(extra.wrong_guesses);
    w.tag(u8::from(extra.resigned)).tag(u8::from(extra.coached));
    w.list(&extra.shots);
    for list in [&extra.history.done, &extra.history.undone] {
        w.word(list.len());
        for a in list {
            match a {
                Action::Shoot(q) => w.tag(0).word(*q),
                Action::Atom(i) => w.tag(1).word(*i),
                Action::Empty(cells) => w.tag(2).list(cells),
            }
        }
    }
    let sum = checksum(&w.0);
    w.0.extend_from_slice(&sum);
    let nonce = xxh3_64(board.as_bytes()) as u32;
    let mut out = format!("{nonce:08x}");
    for (b, k) in w.0.iter().zip(keystream(nonce, w.0.len())) {
        let _ = write!(out, "{:02x}", b ^ k);
    }
    out
}

/// A payload being read: what is left of it.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        let (head, rest) = self.0.split_at_checked(len).ok_or("wrong length")?;
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn word(&mut self) -> Result<usize, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    /// A count, refused past the payload's length so that a damaged one
    /// cannot ask for gigabytes.
    fn count(&mut self) -> Result<usize, String> {
        let n = self.word()?;
        if n > self.0.len() {
            return Err("wrong length".into());
        }
        Ok(n)
    }

    /// A list: its length, then its words.
    fn list(&mut self) -> Result<Vec<usize>, String> {
        (0..self.count()?).map(|_| self.word()).collect()
    }

    /// A bit set of `len` members from `base`.
    fn bits(&mut self, len: usize, base: usize) -> Result<Vec<usize>, String> {
        let b = self.take(len.div_ceil(8))?;
        Ok((0..len)
            .filter(|&i| b[i / 8] & (1 << (i % 8)) != 0)
            .map(|i| i + base)
            .collect())
    }
}

/// The payload of a resume line, unscrambled, its checksum checked.
fn unscramble(token: &str) -> Result<Vec<u8>, String> {
    if token.is_ascii() && token.len() < 8 {
        return Err("too short".into());
    }
    if !token.len().is_multiple_of(2) || !token.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err("not hexadecimal".into());
    }
    let bytes: Vec<u8> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token[i..i + 2], 16).unwrap_or(0))
        .collect();
    if bytes.len() < 4 + 4 + 2 + 4 + 4 {
        return Err("too short".into());
    }
    let nonce = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let stream = keystream(nonce, bytes.len() - 4);
    let mut payload: Vec<u8> = bytes[4..].iter().zip(stream).map(|(b, k)| b ^ k).collect();
    let sum = payload.split_off(payload.len() - 4);
    if checksum(&payload) != *sum {
        return Err("its checksum does not match".into());
    }
    Ok(payload)
}

fn decode(token: &str) -> Result<Resume, String> {
    let body = unscramble(token)?;
    let mut r = Reader(&body);
    let version = r.byte()?;
    if version != VERSION && version != 3 {
        return Err(format!(
            "version {version} (this bbx reads versions 3 and {VERSION})"
        ));
    }
    let rules = match r.byte()? {
        0 => Rules::Standard,
        1 => Rules::EdgeMiss,
        x => return Err(format!("unknown rules {x}")),
    };
    let judge = match r.byte()? {
        0 => Judge::AllRays,
        1 => Judge::RaysShot,
        x => return Err(format!("unknown judge {x}")),
    };
    let ending = r.byte()?;
    let (over, pending) = (ending == 1, ending == 2);
    let (p, counts) = if version == 3 {
        let w = r.take(2)?;
        (
            Shape::square(usize::from(u16::from_le_bytes([w[0], w[1]]))),
            None,
        )
    } else {
        let (w, h) = (r.word()?, r.word()?);
        let shape = Shape::new(w, h).map_err(|e| e.to_string())?;
        (shape, Some((r.word()?, r.word()?)))
    };
    let hidden = Molecule::new(p, r.list()?).map_err(|e| e.to_string())?;
    let n = hidden.atoms().len();
    let counts = match counts {
        None => n..=n,
        Some((lo, hi)) if lo <= n && n <= hi && hi <= p.cells() => lo..=hi,
        Some((lo, hi)) => return Err(format!("{n} atoms hidden but {lo} to {hi} told")),
    };
    let (free, paid) = (r.bits(p.positions(), 1)?, r.bits(p.positions(), 1)?);
    let empty = r.bits(p.cells(), 0)?;
    let wrong_guesses = r.word()?;
    let resigned = r.byte()? != 0;
    let coached = version > 3 && r.byte()? != 0;
    let shots = r.list()?;
    let mut history = [Vec::new(), Vec::new()];
    for list in &mut history {
        for _ in 0..r.count()? {
            list.push(match r.byte()? {
                0 => Action::Shoot(r.word()?),
                1 => Action::Atom(r.word()?),
                2 => Action::Empty(r.list()?),
                t => return Err(format!("unknown action {t}")),
            });
        }
    }
    if !r.0.is_empty() {
        return Err("wrong length".into());
    }
    let [done, undone] = history;
    let extra = Extra {
        paid,
        empty,
        shots,
        history: History { done, undone },
        wrong_guesses,
        pending,
        resigned,
        coached,
    };
    Ok(Resume {
        hidden,
        counts,
        rules,
        judge,
        free,
        over,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::spectrum::Observation;

    /// A naming that shows where a setting is named.
    struct Flags;
    impl Naming for Flags {
        fn name(&self, s: Setting) -> String {
            format!("[{}]", s.key())
        }
    }

    fn sample() -> Game {
        let hidden: Molecule = "-------------------------------O-------------O-O-----------O----"
            .parse()
            .unwrap();
        let mut g = Game::new(hidden, Rules::EdgeMiss, Judge::RaysShot);
        let mut given = Observation::empty(8);
        given.record(1, g.spectrum().get(1));
        g.record_known(&given, &[], true).unwrap();
        for q in [5, 12, 20, 31] {
            g.shoot(q);
        }
        g.toggle(10);
        g.mark_empty(&[0, 1, 2]);
        g.shoot(7);
        g.undo();
        g
    }

    #[test]
    fn round_trip() {
        let g = sample();
        let text = save_text(&g, Notation::Letters, &Flags).unwrap();
        let r = read_resume(&text, "t").unwrap().unwrap();
        assert_eq!(r.hidden, *g.hidden());
        assert_eq!(
            (r.rules, r.judge, r.over),
            (Rules::EdgeMiss, Judge::RaysShot, false)
        );
        assert!(r.free.contains(&1));
        assert_eq!(r.free, g.free_positions());
        assert_eq!(r.extra, g.extra());
        assert_eq!(r.extra.empty, vec![0, 1, 2]);
        assert!(r.extra.paid.contains(&7), "the undone ray stays paid");
        assert_eq!(r.extra.history.undone, vec![Action::Shoot(7)]);
        assert!(
            text.contains("'bbx solve FILE [rules] edge-miss' lists"),
            "{text}"
        );
        let puzzle = crate::puzzle::parse_puzzle(&text, "t", None).unwrap();
        assert_eq!(puzzle.observation, *g.observation());
        assert_eq!(puzzle.atoms, Some(4));
        assert_eq!(puzzle.guess.unwrap().atoms(), &[10]);
    }

    #[test]
    fn damage_is_reported() {
        let text = save_text(&sample(), Notation::Emacs, &Flags).unwrap();
        let line = text.lines().find(|l| l.contains(RESUME_TAG)).unwrap();
        let last = line.chars().last().unwrap();
        let flipped = if last == '0' { '1' } else { '0' };
        let damaged = text.replace(line, &format!("{}{flipped}", &line[..line.len() - 1]));
        let e = read_resume(&damaged, "saved.txt").unwrap_err().to_string();
        assert!(
            e.starts_with("saved.txt:4: the bbx-resume: line is damaged"),
            "{e}"
        );
        assert_eq!(read_resume("   @ &\n", "t").unwrap(), None);
        for token in [
            "",
            "zz",
            "ééééééééé",
            "00000000",
            "0000000000",
            &"f".repeat(300),
        ] {
            let text = format!("# {RESUME_TAG} {token}\n");
            assert!(read_resume(&text, "t").is_err(), "{token}");
        }
    }

    #[test]
    fn another_version_is_refused() {
        // A payload of version 2: version, rules, judge, over, width, atoms,
        // free bits, checksum.
        let mut body = vec![2u8, 0, 1, 0];
        body.extend_from_slice(&4u16.to_le_bytes());
        body.extend_from_slice(&2u32.to_le_bytes());
        for a in [0u32, 2] {
            body.extend_from_slice(&a.to_le_bytes());
        }
        body.extend_from_slice(&[0b0000_0001, 0]);
        let sum = checksum(&body);
        body.extend_from_slice(&sum);
        let nonce = 0x1234_5678u32;
        let mut token = format!("{nonce:08x}");
        for (b, k) in body.iter().zip(keystream(nonce, body.len())) {
            token.push_str(&format!("{:02x}", b ^ k));
        }
        let e = read_resume(&format!("# {RESUME_TAG} {token}\n"), "v2.txt").unwrap_err();
        assert!(
            e.to_string()
                .contains("(version 2 (this bbx reads versions 3 and 4))"),
            "{e}"
        );
    }

    #[test]
    fn emacs_notation_uses_digits() {
        let g = sample();
        let (marks, used) = g.marks_in(Notation::Emacs);
        assert_eq!(used, Notation::Emacs);
        assert!(marks.iter().all(|c| !c.is_ascii_lowercase()));
    }
}
