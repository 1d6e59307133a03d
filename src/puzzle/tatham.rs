//! Simon Tatham's Black Box: the save files its Save command writes and its
//! game IDs.
//!
//! A **game ID** is `PARAMS:DESC` (such as `w8h8m5M5:925fa66636a72ed6ae1c5015`)
//! or `PARAMS#SEED` (`w8h8m5M5#12345`). The parameters are the box's width
//! `w` and height `h` and the least and most balls, `m` and `M`; the
//! description is the hidden balls, obfuscated: the bytes `w h x1 y1 x2 y2 …`
//! (0-based columns and rows), scrambled by the collection's SHA-1 mask
//! ([`obfuscate`]) and written in hexadecimal. A seed stands for the balls
//! the collection's random generator draws from it ([`TathamRandom`]).
//!
//! A **save file** is a list of records `KEY:LENGTH:VALUE`, the key padded to
//! eight characters, one a line: `SAVEFILE` (the collection's name), `VERSION`
//! (1), `GAME` (`Black Box`), `PARAMS`, `CPARAMS`, `DESC`, `NSTATES`,
//! `STATEPOS` and one `MOVE` (or `SOLVE`, `RESTART`) record for each state
//! after the first. Its moves are `F<n>` (fire laser n), `T<x>,<y>` (toggle a
//! guessed ball at 1-based column x, row y), `LB<x>,<y>`, `LC<x>`, `LR<y>`
//! (lock a cell, column or row), `R` (check the guess) and `S` (reveal the
//! answer). The game stands at state `STATEPOS`; the moves past it are the
//! redo list, checked but not played. [`TathamGame::steps`] says what each
//! move did, the redo list's too.
//!
//! Tatham numbers lasers from 0, clockwise from the top-left corner; bbx's
//! position is `2(w+h) − n` ([`tatham_to_position`]; `4p − n` on a square).
//! The results of the lasers fired are those bbx's standard rules give for
//! the balls of the description (Tatham's rules are the standard ones:
//! `tests/tatham.rs` traces both on every molecule of small boxes).
//!
//! bbx writes game IDs and save files too: [`TathamParams`] displays as its
//! parameter string, [`encode_description`] hides balls as Tatham's
//! `new_game_desc` does, [`game_id`] joins them, [`save_file_at`] writes a
//! save file, and [`TathamBoard`] plays its moves as Tatham's program does,
//! so that the file written is one it opens. [`PRESETS`] are the five games
//! of Tatham's Type menu.

use std::ops::RangeInclusive;

use sha1::{Digest, Sha1};

use crate::control::{Budget, Cut, Finished, Halt, Ticker};
use crate::error::{Error, ParseError, field, quantity, quote};
use crate::puzzle::{Format, Puzzle, is_comment_or_blank, without_bom};
use crate::rules::board::Molecule;
use crate::rules::config::{ConfigRange, Shape};
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Observation;
use crate::setting::Setting;

/// The value of the first record of every save file of Tatham's collection.
pub const SAVE_MAGIC: &str = "Simon Tatham's Portable Puzzle Collection";

/// The name of the game in a Black Box save file's `GAME` record.
pub const GAME_NAME: &str = "Black Box";

/// Converts Tatham's laser number n (0..2(w+h), clockwise from the top-left
/// corner: along the top, down the right side, back along the bottom, up the
/// left side) to bbx's border position on a box of `shape` (a width alone is
/// a square): `2(w+h) − n` on every side.
///
/// ```
/// use bbx::puzzle::tatham_to_position;
/// use bbx::rules::config::Shape;
/// assert_eq!(tatham_to_position(8, 0), 32); // top, column 1
/// assert_eq!(tatham_to_position(8, 8), 24); // right, row 1
/// assert_eq!(tatham_to_position(8, 16), 16); // bottom, column 8
/// assert_eq!(tatham_to_position(8, 31), 1); // left, row 1
/// let r = Shape::new(8, 6).unwrap();
/// assert_eq!(tatham_to_position(r, 8), 20); // right, row 1
/// assert_eq!(tatham_to_position(r, 14), 14); // bottom, column 8
/// ```
///
/// # Panics
/// When `laser` is not in 0..2(w+h).
pub fn tatham_to_position(shape: impl Into<Shape>, laser: usize) -> usize {
    let n = shape.into().positions();
    assert!(laser < n, "Tatham's laser {laser} out of 0..{n}");
    n - laser
}

/// Converts a bbx border position to Tatham's laser number (the inverse of
/// [`tatham_to_position`]).
///
/// # Panics
/// When `pos` is not in 1..=2(w+h).
pub fn position_to_tatham(shape: impl Into<Shape>, pos: usize) -> usize {
    let n = shape.into().positions();
    assert!(pos >= 1 && pos <= n, "border position {pos} out of 1..={n}");
    n - pos
}

/// The parameters of a Tatham game: `w8h8m5M5` is an 8×8 box with 5 balls,
/// `w8h6m3M6` a box 8 wide and 6 high with 3 to 6. Displayed as Tatham's
/// program writes them (`w8h6m3M6`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TathamParams {
    /// Width of the box (`w`).
    pub width: usize,
    /// Height of the box (`h`).
    pub height: usize,
    /// The fewest balls (`m`).
    pub min_balls: usize,
    /// The most balls (`M`).
    pub max_balls: usize,
}

impl Default for TathamParams {
    /// Tatham's defaults, which a parameter string starts from: `w8h8m5M5`.
    fn default() -> TathamParams {
        TathamParams {
            width: 8,
            height: 8,
            min_balls: 5,
            max_balls: 5,
        }
    }
}

impl TathamParams {
    /// Reads a parameter string as Tatham's program does: from the defaults,
    /// each of `w`, `h`, `m`, `M` followed by a number sets that value (other
    /// characters are skipped); then checks the values as Tatham does (a box
    /// of 2 to 255 cells a side, at least one ball, fewer balls than cells).
    /// The error says what is wrong.
    pub fn parse(text: &str) -> Result<TathamParams, String> {
        let mut p = TathamParams::default();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            i += 1;
            let digits = b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
            let value = || {
                // Any number past 255 is refused below; keep it from overflowing.
                b[i..i + digits].iter().fold(0usize, |n, &d| {
                    (n * 10 + usize::from(d - b'0')).min(1 << 20)
                })
            };
            match c {
                b'w' => p.width = value(),
                b'h' => p.height = value(),
                b'm' => p.min_balls = value(),
                b'M' => p.max_balls = value(),
                _ => continue,
            }
            i += digits;
        }
        let text = quote(text);
        if p.width < 2 || p.height < 2 {
            return Err(format!(
                "{text}: the width and height must both be at least 2"
            ));
        }
        if p.width > 255 || p.height > 255 {
            return Err(format!(
                "{text}: Tatham's boxes are at most 255 cells a side"
            ));
        }
        if p.min_balls < 1 {
            return Err(format!("{text}: the number of balls must be at least 1"));
        }
        if p.min_balls > p.max_balls {
            return Err(format!(
                "{text}: the fewest balls (m{}) is more than the most (M{})",
                p.min_balls, p.max_balls
            ));
        }
        if p.min_balls >= p.width * p.height {
            return Err(format!(
                "{text}: {} do not fit in a {}×{} box",
                quantity(p.min_balls, "ball", "balls"),
                p.width,
                p.height
            ));
        }
        Ok(p)
    }

    /// The parameters of a game of `range` (its box 2 to 255 cells a side,
    /// at least one atom and fewer than cells, as Tatham's program checks),
    /// or what Tatham's program would refuse.
    pub fn of(range: &ConfigRange) -> Result<TathamParams, String> {
        let p = TathamParams {
            width: range.shape.width,
            height: range.shape.height,
            min_balls: range.min_atoms,
            max_balls: range.max_atoms,
        };
        TathamParams::parse(&p.to_string()).map_err(|e| {
            let why = e.split_once(": ").map_or(e.as_str(), |(_, why)| why);
            format!("{range} is no game of Tatham's Black Box: {why}")
        })
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        Shape {
            width: self.width,
            height: self.height,
        }
    }

    /// The parameters of a puzzle of `config` written as his save file to
    /// `path` ([`Setting::Out`], a name ending in .sav): refused for a game
    /// his program cannot play.
    pub fn for_save(path: &str, config: &ConfigRange, rules: Rules) -> Result<TathamParams, Error> {
        let sav = " a name ending in .sav writes a save file of Tatham's Black Box";
        if rules != Rules::Standard {
            return Err(Error::invalid(crate::text![
                Setting::Out,
                format!(" {path}:{sav}, which plays the standard rules only: leave out "),
                Setting::Rules,
                format!(" {rules}, or give a name ending in .txt")
            ]));
        }
        TathamParams::of(config).map_err(|e| {
            let why = format!(" {path}:{sav}, but {e}: give a name ending in .txt");
            Error::invalid(crate::text![Setting::Out, why])
        })
    }

    /// The configuration range of the game (`A3-6_B8` for `w8h8m3M6`), the
    /// most atoms kept within the box.
    pub fn range(&self) -> ConfigRange {
        let r = self.balls();
        ConfigRange {
            min_atoms: *r.start(),
            max_atoms: *r.end(),
            shape: self.shape(),
        }
    }

    /// The name of Tatham's Type menu for these parameters: `8x6, 5 balls`,
    /// `8x8, 3-6 balls` (its `game_fetch_preset`).
    pub fn title(&self) -> String {
        if self.min_balls == self.max_balls {
            format!("{}x{}, {} balls", self.width, self.height, self.min_balls)
        } else {
            format!(
                "{}x{}, {}-{} balls",
                self.width, self.height, self.min_balls, self.max_balls
            )
        }
    }

    /// The ball counts the parameters allow, as `--atoms` reads them (the
    /// upper end kept within the box).
    pub fn balls(&self) -> RangeInclusive<usize> {
        self.min_balls..=self.max_balls.min(self.width * self.height)
    }
}

impl std::fmt::Display for TathamParams {
    /// `w8h6m3M6`, as Tatham's `encode_params` writes them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "w{}h{}m{}M{}",
            self.width, self.height, self.min_balls, self.max_balls
        )
    }
}

/// The five games of Tatham's Type menu, in its order: 5×5 with 3 balls,
/// 8×8 with 5, 8×8 with 3 to 6, 10×10 with 5, 10×10 with 4 to 10.
pub const PRESETS: [TathamParams; 5] = [
    TathamParams {
        width: 5,
        height: 5,
        min_balls: 3,
        max_balls: 3,
    },
    TathamParams {
        width: 8,
        height: 8,
        min_balls: 5,
        max_balls: 5,
    },
    TathamParams {
        width: 8,
        height: 8,
        min_balls: 3,
        max_balls: 6,
    },
    TathamParams {
        width: 10,
        height: 10,
        min_balls: 5,
        max_balls: 5,
    },
    TathamParams {
        width: 10,
        height: 10,
        min_balls: 4,
        max_balls: 10,
    },
];

impl TathamParams {
    /// The parameters written alone, as Tatham writes them (`w8h6m3M6`, any
    /// of the four left out keeping its default, but nothing else in the
    /// text), checked as [`TathamParams::parse`] checks them; `None` when
    /// the text is not shaped so.
    ///
    /// ```
    /// use bbx::puzzle::TathamParams;
    /// assert_eq!(TathamParams::alone("w8h6m3M6").unwrap().unwrap().to_string(), "w8h6m3M6");
    /// assert!(TathamParams::alone("w1h1").unwrap().is_err());
    /// assert!(TathamParams::alone("w8h8m5M5#12").is_none());
    /// ```
    pub fn alone(text: &str) -> Option<Result<TathamParams, String>> {
        let t = text.trim();
        let shaped = !t.is_empty()
            && t.bytes()
                .all(|b| matches!(b, b'w' | b'h' | b'm' | b'M') || b.is_ascii_digit())
            && t.starts_with(['w', 'h', 'm', 'M']);
        shaped.then(|| TathamParams::parse(t))
    }

    /// One of Tatham's [`PRESETS`] by the name his Type menu gives it
    /// (`8x8, 3-6 balls`; any case, the comma and spaces optional, `×` for
    /// `x`).
    ///
    /// ```
    /// use bbx::puzzle::TathamParams;
    /// assert_eq!(TathamParams::preset("10x10, 4-10 balls").unwrap().to_string(), "w10h10m4M10");
    /// assert_eq!(TathamParams::preset("8×8 5 balls").unwrap().to_string(), "w8h8m5M5");
    /// assert_eq!(TathamParams::preset("8x8, 4 balls"), None);
    /// ```
    pub fn preset(name: &str) -> Option<TathamParams> {
        let squash = |s: &str| -> String {
            s.to_lowercase()
                .replace('×', "x")
                .chars()
                .filter(|c| !c.is_whitespace() && *c != ',')
                .collect()
        };
        let want = squash(name);
        PRESETS.into_iter().find(|p| squash(&p.title()) == want)
    }
}

/// The mask of Tatham's obfuscation: the SHA-1 digests of `seed` followed by
/// the decimal numbers 0, 1, 2…, concatenated, XORed over `target`. The
/// seed is hashed once and its state copied for each block of 20 bytes (as
/// the collection's `obfuscate_bitmap` does), so that the mask costs time
/// linear in the two lengths.
fn xor_mask(seed: &[u8], target: &mut [u8], ticker: &mut Ticker) -> Result<(), Cut> {
    let mut after_seed = Sha1::new();
    after_seed.update(seed);
    for (counter, chunk) in target.chunks_mut(20).enumerate() {
        ticker.tick()?;
        let mut h = after_seed.clone();
        h.update(counter.to_string().as_bytes());
        let digest = h.finalize();
        for (t, d) in chunk.iter_mut().zip(digest.iter()) {
            *t ^= d;
        }
    }
    Ok(())
}

/// Tatham's obfuscation of a whole number of bytes (the collection's
/// `obfuscate_bitmap`): the bytes are cut in two halves (the first the
/// smaller); a mask made from the second half is XORed over the first, then
/// a mask made from the first over the second. `decode` undoes it (the two
/// steps in the other order).
///
/// ```
/// use bbx::puzzle::obfuscate;
/// let mut b = vec![8, 8, 1, 2, 3, 4];
/// obfuscate(&mut b, false);
/// assert_ne!(b, [8, 8, 1, 2, 3, 4]);
/// obfuscate(&mut b, true);
/// assert_eq!(b, [8, 8, 1, 2, 3, 4]);
/// ```
pub fn obfuscate(bytes: &mut [u8], decode: bool) {
    let budget = Budget::default();
    // A budget without a deadline or a token anyone holds never stops it.
    let _ = obfuscate_within(bytes, decode, &mut budget.ticker(u32::MAX));
}

/// [`obfuscate`], asking `ticker` once for each block of 20 bytes; a cut
/// leaves `bytes` half done.
fn obfuscate_within(bytes: &mut [u8], decode: bool, ticker: &mut Ticker) -> Result<(), Cut> {
    let first = bytes.len() / 2;
    let (a, b) = bytes.split_at_mut(first);
    if decode {
        xor_mask(a, b, ticker)?;
        xor_mask(b, a, ticker)
    } else {
        xor_mask(b, a, ticker)?;
        xor_mask(a, b, ticker)
    }
}

/// The random generator of Tatham's collection (its `random.c`), which turns
/// a game ID's seed into the game: SHA-1 of the seed and of a counter.
#[derive(Debug, Clone)]
pub struct TathamRandom {
    seed: [u8; 40],
    data: [u8; 20],
    pos: usize,
}

fn sha1_of(bytes: &[u8]) -> [u8; 20] {
    Sha1::digest(bytes).into()
}

impl TathamRandom {
    /// The generator seeded with `seed` (`random_new`).
    pub fn new(seed: &[u8]) -> TathamRandom {
        let mut s = [0u8; 40];
        s[..20].copy_from_slice(&sha1_of(seed));
        let second = sha1_of(&s[..20]);
        s[20..].copy_from_slice(&second);
        TathamRandom {
            data: sha1_of(&s),
            seed: s,
            pos: 0,
        }
    }

    /// The next `bits` random bits, 1 to 32 (`random_bits`).
    pub fn bits(&mut self, bits: u32) -> u64 {
        let mut out = 0u64;
        for _ in (0..bits).step_by(8) {
            if self.pos >= 20 {
                for byte in &mut self.seed[..20] {
                    if *byte != 0xFF {
                        *byte += 1;
                        break;
                    }
                    *byte = 0;
                }
                self.data = sha1_of(&self.seed);
                self.pos = 0;
            }
            out = (out << 8) | u64::from(self.data[self.pos]);
            self.pos += 1;
        }
        out & ((1u64 << bits) - 1)
    }

    /// A random number in 0..limit, `limit` at least 1 and below 2^28
    /// (`random_upto`).
    pub fn upto(&mut self, limit: u64) -> u64 {
        let bits = 64 - limit.leading_zeros() + 3;
        let divisor = (1u64 << bits) / limit;
        let max = limit * divisor;
        loop {
            let data = self.bits(bits);
            if data < max {
                return data / divisor;
            }
        }
    }
}

/// A budget that never stops the work: for the functions that take none.
fn unbounded<T, E>(work: impl FnOnce(&mut Ticker) -> Result<T, Halt<E>>) -> Result<T, E>
where
    E: From<&'static str>,
{
    let budget = Budget::default();
    match work(&mut budget.ticker(u32::MAX)) {
        Ok(value) => Ok(value),
        Err(Halt::Failed(e)) => Err(e),
        // Nobody holds the token and there is no deadline.
        Err(Halt::Cut(_)) => Err("stopped".into()),
    }
}

/// The balls Tatham's program hides for the seed of a game ID `PARAMS#SEED`
/// (its `new_game_desc`): the count drawn in the parameters' range, then each
/// ball's column and row until a free cell comes up. Returns 0-based
/// (column, row) pairs in the order drawn, or an error when the count drawn
/// is more than the box holds (Tatham's program would never finish).
pub fn balls_from_seed(params: &TathamParams, seed: &str) -> Result<Vec<(usize, usize)>, String> {
    unbounded(|ticker| seed_balls(params, seed, ticker))
}

/// [`balls_from_seed`], asking `ticker` at each draw.
fn seed_balls(
    params: &TathamParams,
    seed: &str,
    ticker: &mut Ticker,
) -> Result<Vec<(usize, usize)>, Halt<String>> {
    let mut rs = TathamRandom::new(seed.as_bytes());
    let mut n = params.min_balls;
    if params.max_balls > params.min_balls {
        n += rs.upto((params.max_balls - params.min_balls + 1) as u64) as usize;
    }
    let (w, h) = (params.width, params.height);
    if n > w * h {
        return Err(Halt::Failed(format!(
            "the seed draws {n} balls, more than the {w}×{h} box holds (lower M)"
        )));
    }
    let mut taken = vec![false; w * h];
    let mut balls = Vec::with_capacity(n);
    for _ in 0..n {
        loop {
            ticker.tick()?;
            let x = rs.upto(w as u64) as usize;
            let y = rs.upto(h as u64) as usize;
            if !taken[y * w + x] {
                taken[y * w + x] = true;
                balls.push((x, y));
                break;
            }
        }
    }
    Ok(balls)
}

/// Reads a game description (the part of a game ID after `:`): hex digits
/// for `w h x1 y1 …`, obfuscated. Checks its hex, its length, the box it
/// names and each ball against `params`; returns 0-based (column, row)
/// pairs, or what is wrong. A description of more balls than the box has
/// cells is refused before it is decoded (two of its balls would share a
/// cell, which Tatham's program never writes). The cost is linear in its
/// length.
pub fn decode_description(
    params: &TathamParams,
    desc: &str,
) -> Result<Vec<(usize, usize)>, String> {
    unbounded(|ticker| decode(params, desc, ticker))
}

/// [`decode_description`], asking `ticker` for each block of the mask.
fn decode(
    params: &TathamParams,
    desc: &str,
    ticker: &mut Ticker,
) -> Result<Vec<(usize, usize)>, Halt<String>> {
    let bad = |m: String| Err(Halt::Failed(m));
    if let Some((i, c)) = desc
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return bad(format!(
            "the description's character {} ({}) is not a hexadecimal digit",
            i + 1,
            quote(c.encode_utf8(&mut [0; 4]))
        ));
    }
    let len = desc.len();
    if len < 4 || !len.is_multiple_of(4) {
        return bad(format!(
            "the description is {} long; it has 4 hex digits for the box and 4 for each ball",
            quantity(len, "hex digit", "hex digits")
        ));
    }
    let n = len / 4 - 1;
    if n < params.min_balls || n > params.max_balls {
        let allowed = if params.min_balls == params.max_balls {
            format!("{}", params.min_balls)
        } else {
            format!("{} to {}", params.min_balls, params.max_balls)
        };
        return bad(format!(
            "the description hides {} but the parameters say {allowed}",
            quantity(n, "ball", "balls")
        ));
    }
    let cells = params.width * params.height;
    if n > cells {
        return bad(format!(
            "the description is corrupted: it hides {n} balls, more than the {}×{} box's {cells} cells (was it edited?)",
            params.width, params.height
        ));
    }
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    let mut bytes: Vec<u8> = (desc.as_bytes().chunks_exact(2))
        .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
        .collect();
    obfuscate_within(&mut bytes, true, ticker)?;
    let (w, h) = (usize::from(bytes[0]), usize::from(bytes[1]));
    if (w, h) != (params.width, params.height) {
        return bad(format!(
            "the description is corrupted: it decodes to a {w}×{h} box but the parameters say {}×{} (was it edited or cut?)",
            params.width, params.height
        ));
    }
    let mut taken = vec![false; w * h];
    let mut balls = Vec::with_capacity(n);
    for (i, xy) in bytes[2..].chunks(2).enumerate() {
        let (x, y) = (usize::from(xy[0]), usize::from(xy[1]));
        if x >= w || y >= h {
            return bad(format!(
                "the description is corrupted: ball {} decodes to column {}, row {}, outside the {w}×{h} box",
                i + 1,
                x + 1,
                y + 1
            ));
        }
        if std::mem::replace(&mut taken[y * w + x], true) {
            return bad(format!(
                "the description is corrupted: two balls decode to column {}, row {}",
                x + 1,
                y + 1
            ));
        }
        balls.push((x, y));
    }
    Ok(balls)
}

/// Tatham's description of the balls of `m` (its `new_game_desc`): the
/// bytes `w h x1 y1 x2 y2 …` (0-based columns and rows, in cell order),
/// obfuscated ([`obfuscate`]) and written in lower-case hexadecimal (the
/// inverse of [`decode_description`]). Refuses what Tatham's program cannot
/// open: a side outside 2..=255 (Tatham keeps each number in a byte), no
/// ball.
///
/// ```
/// use bbx::Molecule;
/// use bbx::puzzle::{TathamParams, decode_description, encode_description};
/// let m: Molecule = "O-------/--------/-------O/--------/--------/--------".parse().unwrap();
/// let desc = encode_description(&m).unwrap();
/// let params = TathamParams::parse("w8h6m2M2").unwrap();
/// assert_eq!(decode_description(&params, &desc).unwrap(), [(0, 0), (7, 2)]);
/// ```
pub fn encode_description(m: &Molecule) -> Result<String, String> {
    let w = m.width();
    let balls: Vec<(usize, usize)> = m.atoms().iter().map(|&a| (a % w, a / w)).collect();
    describe_balls(w, m.height(), &balls)
}

/// [`encode_description`] of the balls at 0-based (column, row) pairs of a
/// `width`×`height` box, in the order given (Tatham's generator writes them
/// in the order it drew them).
fn describe_balls(width: usize, height: usize, balls: &[(usize, usize)]) -> Result<String, String> {
    let side = |n: usize| u8::try_from(n).ok().filter(|&b| b >= 2);
    let (Some(w), Some(h)) = (side(width), side(height)) else {
        return Err(format!(
            "Tatham's Black Box opens boxes of 2 to 255 cells a side, not {width}×{height}"
        ));
    };
    if balls.is_empty() {
        return Err("Tatham's Black Box hides at least one ball".into());
    }
    let mut bytes = vec![w, h];
    for &(x, y) in balls {
        if x >= width || y >= height {
            return Err(format!(
                "a ball at column {}, row {} is outside the {width}×{height} box",
                x + 1,
                y + 1
            ));
        }
        // Both below 255, as the box is.
        bytes.extend([x as u8, y as u8]);
    }
    obfuscate(&mut bytes, false);
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The game ID `PARAMS:DESC` of the hidden balls `m` under `params`, which
/// Tatham's program opens (Game > Specific… or its command line). Refused
/// when `m` does not fit the parameters (its box, or a count outside the
/// range) or Tatham's bytes.
///
/// ```
/// use bbx::Molecule;
/// use bbx::puzzle::{TathamParams, game_id};
/// let m = Molecule::new(8, [12, 38, 46]).unwrap();
/// let params = TathamParams::parse("w8h8m3M6").unwrap();
/// let id = game_id(&params, &m).unwrap();
/// assert!(id.starts_with("w8h8m3M6:") && id.len() == 9 + 16);
/// ```
pub fn game_id(params: &TathamParams, m: &Molecule) -> Result<String, String> {
    if m.shape() != params.shape() {
        return Err(format!(
            "the balls are in a {} box but the parameters {params} say {}",
            m.shape(),
            params.shape()
        ));
    }
    let n = m.atoms().len();
    if n < params.min_balls || n > params.max_balls {
        return Err(format!(
            "{} hidden but the parameters {params} allow {} to {}",
            quantity(n, "ball", "balls"),
            params.min_balls,
            params.max_balls
        ));
    }
    Ok(format!("{params}:{}", encode_description(m)?))
}

/// One move of a Tatham game, as its save files record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TathamMove {
    /// `F<n>`: fire laser n (Tatham's numbering, [`position_to_tatham`]).
    Fire(usize),
    /// `T<x>,<y>`: put or take away a guessed ball at 1-based column x, row y.
    Toggle(usize, usize),
    /// `LB<x>,<y>`: lock or unlock the cell at column x, row y (marked empty).
    Lock(usize, usize),
    /// `LC<x>`: lock every cell of column x, or unlock them all when more
    /// than half are locked.
    LockColumn(usize),
    /// `LR<y>`: the same for row y.
    LockRow(usize),
    /// `R`: check the guess.
    Check,
    /// `S`: reveal the answer (recorded as a `SOLVE` record).
    Solve,
}

impl std::fmt::Display for TathamMove {
    /// The move as Tatham writes it: `F12`, `T3,4`, `LB3,4`, `LC3`, `LR4`,
    /// `R`, `S`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TathamMove::Fire(n) => write!(f, "F{n}"),
            TathamMove::Toggle(x, y) => write!(f, "T{x},{y}"),
            TathamMove::Lock(x, y) => write!(f, "LB{x},{y}"),
            TathamMove::LockColumn(x) => write!(f, "LC{x}"),
            TathamMove::LockRow(y) => write!(f, "LR{y}"),
            TathamMove::Check => f.write_str("R"),
            TathamMove::Solve => f.write_str("S"),
        }
    }
}

/// What one move of a Tatham game did, in bbx's terms (border positions and
/// linear cells), as his program plays it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TathamStep {
    /// `F`: the player fired the laser at this border position.
    Fire(usize),
    /// `T`: a guessed ball put on or taken off this cell.
    Toggle(usize),
    /// `LB`, `LC`, `LR`: the cells whose lock the move flipped.
    Lock(Vec<usize>),
    /// `R` on a wrong guess, which the game goes on after: the border
    /// position of the laser the check fired to disprove it, or `None` when
    /// a laser fired already disproved it (Tatham's program then fires
    /// none).
    Wrong(Option<usize>),
    /// `R` on a right guess: the answer shown, the game over.
    Right,
    /// `S`: the answer revealed (Tatham's Solve), the game over.
    Solve,
}

/// A Tatham game played move by move as his program's `execute_move` plays
/// it: each move refused where his program refuses it, and what it did.
/// bbx plays the moves of each save file it writes here first, so that it
/// never writes a file his program refuses.
///
/// ```
/// use bbx::Molecule;
/// use bbx::puzzle::{TathamBoard, TathamMove, TathamParams, TathamStep};
/// let params = TathamParams::parse("w5h5m2M2").unwrap();
/// let hidden = Molecule::new(5, [6, 18]).unwrap();
/// let mut board = TathamBoard::new(&params, &hidden).unwrap();
/// // Laser 0 (bbx's position 20) goes down column 1 and comes out.
/// assert!(matches!(board.play(TathamMove::Fire(0)), Ok(TathamStep::Fire(20))));
/// let out = match board.play(TathamMove::Fire(0)) {
///     Err(e) => e,
///     Ok(_) => unreachable!(),
/// };
/// assert_eq!(out, "laser 0 was already fired or lit");
/// ```
#[derive(Debug, Clone)]
pub struct TathamBoard {
    state: State,
}

impl TathamBoard {
    /// The game of the hidden balls `hidden` under `params`, before its first
    /// move; refused when the balls do not fit the parameters ([`game_id`]).
    pub fn new(params: &TathamParams, hidden: &Molecule) -> Result<TathamBoard, String> {
        game_id(params, hidden)?;
        let w = hidden.width();
        let balls: Vec<(usize, usize)> = hidden.atoms().iter().map(|&a| (a % w, a / w)).collect();
        Ok(TathamBoard {
            state: State::new(params, &balls),
        })
    }

    /// Plays `m`: what it did, or why Tatham's program would refuse it.
    pub fn play(&mut self, m: TathamMove) -> Result<TathamStep, String> {
        let state = &mut self.state;
        unbounded(|ticker| state.play(&m.to_string(), ticker))
    }

    /// Whether a laser lights the border position `pos` (fired from there,
    /// or come out there).
    pub fn is_lit(&self, pos: usize) -> bool {
        let p = self.state.shape;
        (1..=p.positions()).contains(&pos) && self.state.exits[position_to_tatham(p, pos)].is_some()
    }

    /// Whether the game is over (the answer shown).
    pub fn is_over(&self) -> bool {
        self.state.ending.is_some()
    }
}

/// A save file of Tatham's Black Box for the hidden balls `hidden` under
/// `params`, with `moves` played from the start (the game stands after the
/// last), and `errors` wrong checks counted in its `UI` record, as its
/// midend writes one: [`save_file_at`] with every move done.
pub fn save_file(
    params: &TathamParams,
    hidden: &Molecule,
    moves: &[TathamMove],
    errors: usize,
) -> Result<String, String> {
    save_file_at(params, hidden, moves, moves.len(), errors)
}

/// A save file of Tatham's Black Box for the hidden balls `hidden` under
/// `params`, whose game stands after the first `done` of `moves` (the rest
/// are his redo list), with `errors` wrong checks counted in its `UI`
/// record, as his midend writes one: records `SAVEFILE`, `VERSION`, `GAME`,
/// `PARAMS`, `CPARAMS`, `DESC`, `UI`, `NSTATES`, `STATEPOS`, then a `MOVE`
/// (or `SOLVE`) record a move. The moves are not checked (see
/// [`TathamBoard`]). Refused when the balls do not fit the parameters
/// ([`game_id`]), or `done` is past the moves.
pub fn save_file_at(
    params: &TathamParams,
    hidden: &Molecule,
    moves: &[TathamMove],
    done: usize,
    errors: usize,
) -> Result<String, String> {
    if done > moves.len() {
        return Err(format!(
            "the game stands after move {done} of {}",
            moves.len()
        ));
    }
    let id = game_id(params, hidden)?;
    let desc = id.split_once(':').map_or("", |(_, d)| d);
    let mut out = String::new();
    let mut record = |key: &str, value: &str| {
        out.push_str(&format!("{key:<8}:{}:{value}\n", value.len()));
    };
    let params = params.to_string();
    record("SAVEFILE", SAVE_MAGIC);
    record("VERSION", "1");
    record("GAME", GAME_NAME);
    record("PARAMS", &params);
    record("CPARAMS", &params);
    record("DESC", desc);
    record("UI", &format!("E{errors}"));
    record("NSTATES", &(moves.len() + 1).to_string());
    record("STATEPOS", &(done + 1).to_string());
    for m in moves {
        let key = if *m == TathamMove::Solve {
            "SOLVE"
        } else {
            "MOVE"
        };
        record(key, &m.to_string());
    }
    Ok(out)
}

/// The lasers (Tatham's numbers) that light the rays of `rays`, in the
/// order bbx's save files fire the rays a game starts with: the exit pairs
/// in the order of their labels (`pairs` lists their lower border
/// positions; pairs it does not list come after, by position, as J.
/// Forget's letters go), then the other rays by Tatham's numbering; each
/// ray from its end first in his numbering. Tatham's program numbers the
/// exit pairs in the order fired, so that its numbers follow the letters.
///
/// ```
/// use bbx::puzzle::laser_order;
/// use bbx::Observation;
/// // 4×4: an exit pair 3-10 (b in the display's order), a hit at 5, a
/// // pair 1-8 (a).
/// let o = Observation::parse("a?b?@??a?b??????", "rays").unwrap();
/// // Lasers 8 (position 8) and 6 (position 10), then the hit: laser 11.
/// assert_eq!(laser_order(&o, &[]), [8, 6, 11]);
/// assert_eq!(laser_order(&o, &[3, 1]), [6, 8, 11]);
/// ```
pub fn laser_order(rays: &Observation, pairs: &[usize]) -> Vec<usize> {
    let p = rays.shape();
    let tatham = |q: usize| position_to_tatham(p, q);
    let all = rays.rays();
    let exit_of = |low: usize| {
        all.iter().find_map(|&(q, o)| match o {
            Outcome::Exit(k) if q == low => Some(k),
            _ => None,
        })
    };
    let mut lows: Vec<usize> = pairs
        .iter()
        .copied()
        .filter(|&q| exit_of(q).is_some())
        .collect();
    for &(q, o) in &all {
        if matches!(o, Outcome::Exit(_)) && !lows.contains(&q) {
            lows.push(q);
        }
    }
    let mut out: Vec<usize> = lows
        .iter()
        .filter_map(|&q| exit_of(q).map(|k| tatham(q).min(tatham(k))))
        .collect();
    let mut others: Vec<usize> = all
        .iter()
        .filter(|(_, o)| !matches!(o, Outcome::Exit(_)))
        .map(|&(q, _)| tatham(q))
        .collect();
    others.sort_unstable();
    out.extend(others);
    out
}

/// A save file of Tatham's Black Box for a puzzle: the hidden balls
/// `hidden` under `params`, the rays of `rays` fired in the order of
/// [`laser_order`] (as a game bbx starts from the puzzle saves them), the
/// game standing after them. Refused when a ray's result is not what the
/// balls give under the standard rules (Tatham's), or when the balls do
/// not fit the parameters.
pub fn puzzle_save(
    params: &TathamParams,
    hidden: &Molecule,
    rays: &Observation,
) -> Result<String, String> {
    let mut board = TathamBoard::new(params, hidden)?;
    let mut tracer = Tracer::new(hidden.shape(), Rules::Standard);
    tracer.load(hidden);
    if let Some((q, o)) = rays
        .rays()
        .into_iter()
        .find(|&(q, o)| tracer.trace(q).outcome != o)
    {
        return Err(format!(
            "ray {q} is {} but the hidden balls give {} under the standard rules, which Tatham's Black Box plays",
            o.words(),
            tracer.trace(q).outcome.words()
        ));
    }
    let moves: Vec<TathamMove> = laser_order(rays, &[])
        .into_iter()
        .map(TathamMove::Fire)
        .collect();
    for &m in &moves {
        board.play(m)?;
    }
    save_file(params, hidden, &moves, 0)
}

/// Where a Tatham game came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TathamKind {
    /// A save file.
    Save,
    /// A game ID with a description, `PARAMS:DESC`.
    GameId,
    /// A game ID with a random seed, `PARAMS#SEED`.
    Seed(String),
}

/// How a saved game had ended, at its current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TathamEnding {
    /// The player's guess was checked and found right.
    Checked,
    /// The player gave up: Tatham's Solve revealed the answer.
    Solved,
}

/// A Tatham game read from a save file or a game ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TathamGame {
    /// Where the text came from (a file name, `standard input`, …).
    pub origin: String,
    /// A save file or a game ID.
    pub kind: TathamKind,
    /// The game's parameters (`CPARAMS` of a save file).
    pub params: TathamParams,
    /// The hidden balls.
    pub hidden: Molecule,
    /// The border positions (bbx's numbering) of the lasers fired, in the
    /// order they were fired: by the player, and by a check of a wrong guess
    /// that fires a laser to disprove it (as Tatham counts them).
    pub fired: Vec<usize>,
    /// The cells (linear indices) of the player's guessed balls.
    pub guess: Vec<usize>,
    /// The cells the player locked (known empty, in Tatham's terms).
    pub locked: Vec<usize>,
    /// How many times the guess was checked and found wrong.
    pub wrong_checks: usize,
    /// How the game had ended, if it had.
    pub ending: Option<TathamEnding>,
    /// Moves past the current state (the redo list), not played.
    pub redo: usize,
    /// What each move did, oldest first, from the start of the game (or
    /// its last restart before the current state): the first
    /// [`TathamGame::done`] lead to the current state, the others are the
    /// redo list (up to a restart in it).
    pub steps: Vec<TathamStep>,
    /// How many of [`TathamGame::steps`] are done.
    pub done: usize,
    /// The wrong checks Tatham's program had counted (the `E<n>` of the
    /// file's `UI` record), when the file says.
    pub errors: Option<usize>,
}

impl TathamGame {
    /// Width w (p) of the box.
    pub fn width(&self) -> usize {
        self.hidden.width()
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.hidden.shape()
    }

    /// The rays fired, with the results bbx's standard rules give for the
    /// hidden balls.
    pub fn observation(&self) -> Observation {
        let p = self.shape();
        let mut tracer = Tracer::new(p, Rules::Standard);
        tracer.load(&self.hidden);
        let mut o = Observation::empty(p);
        for &pos in &self.fired {
            o.record(pos, tracer.trace(pos).outcome);
        }
        o
    }

    /// The game as a puzzle: the rays fired, the ball range of the
    /// parameters (one count when they give one), the guess, standard rules.
    pub fn puzzle(&self) -> Puzzle {
        let range = self.params.balls();
        let one = (range.start() == range.end()).then_some(*range.start());
        Puzzle {
            origin: self.origin.clone(),
            format: Format::Tatham,
            observation: self.observation(),
            atoms: one,
            atom_range: if one.is_some() { None } else { Some(range) },
            guess: (!self.guess.is_empty())
                .then(|| Molecule::new(self.shape(), self.guess.iter().copied()).ok())
                .flatten(),
            rules: Some(Rules::Standard),
        }
    }
}

/// Whether `text` is a Tatham save file or game ID: its first line (past
/// blank lines and, before a game ID, `#` comments) starts with `SAVEFILE:`,
/// or is `PARAMS:…` or `PARAMS#…` whose parameters are made of `w`, `h`,
/// `m`, `M` and digits (a seed may hold spaces: `w8h8m5M5#my seed`).
pub fn is_tatham(text: &str) -> bool {
    let text = without_bom(text);
    let Some(first) = text.lines().find(|l| !is_comment_or_blank(l)) else {
        return false;
    };
    if text.trim_start().starts_with("SAVEFILE:") {
        return true;
    }
    game_id_parts(first.trim()).is_some()
}

/// Splits a game ID into its parameters, and its description (`:`) or seed
/// (`#`), cut at the first of the two as Tatham's program cuts it; `None`
/// when the text is not shaped as a game ID.
fn game_id_parts(id: &str) -> Option<(&str, Result<&str, &str>)> {
    let cut = id.find([':', '#'])?;
    let (params, rest) = id.split_at(cut);
    let ok = !params.is_empty()
        && params
            .bytes()
            .all(|b| matches!(b, b'w' | b'h' | b'm' | b'M') || b.is_ascii_digit())
        && params.bytes().any(|b| b.is_ascii_alphabetic());
    if !ok {
        return None;
    }
    Some(match rest.split_at(1) {
        (":", desc) => (params, Ok(desc)),
        (_, seed) => (params, Err(seed)),
    })
}

/// Reads a Tatham save file or game ID (see the module's documentation);
/// `origin` names the text in errors. [`parse_tatham_within`] reads within
/// a budget.
pub fn parse_tatham(text: &str, origin: &str) -> Result<TathamGame, ParseError> {
    let read = parse_tatham_within(text, origin, &Budget::default())?;
    // Nobody holds the token and there is no deadline: never cut.
    read.value
        .ok_or_else(|| ParseError::new(origin, 0, 0, "stopped before it was read"))
}

/// Reads a Tatham save file or game ID (see the module's documentation)
/// within `budget`: the game, or nothing (`None`) when the budget's
/// deadline or token stopped the reading. `origin` names the text in
/// errors. The time taken is linear in the text's length, apart from the
/// moves of a save file, each of which costs at most a few traces of every
/// laser and a hash of the grid (Tatham's own work for it), and usually
/// far less: a check that changes nothing, repeated, costs nothing more.
///
/// A save file is read as Tatham's program loads one: it must start with
/// its `SAVEFILE` record (no byte-order mark before it) and hold both
/// `PARAMS` and `CPARAMS`, valid parameters each.
pub fn parse_tatham_within(
    text: &str,
    origin: &str,
    budget: &Budget,
) -> Result<Finished<Option<TathamGame>>, ParseError> {
    let mut ticker = budget.ticker(TICKS);
    let read = if without_bom(text).trim_start().starts_with("SAVEFILE:") {
        parse_save(text, origin, &mut ticker)
    } else {
        parse_game_id(text, origin, &mut ticker)
    };
    match read {
        Ok(game) => Ok(Finished::complete(Some(game))),
        Err(Halt::Failed(e)) => Err(e),
        Err(Halt::Cut(cut)) => Ok(Finished::new(None, cut.into())),
    }
}

/// Steps of reading (records, blocks of a description, traces) between two
/// looks at the budget.
const TICKS: u32 = 256;

/// Reads a game ID, alone on its line among comments and blank lines.
fn parse_game_id(
    text: &str,
    origin: &str,
    ticker: &mut Ticker,
) -> Result<TathamGame, Halt<ParseError>> {
    let text = without_bom(text);
    let (line_no, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !is_comment_or_blank(l))
        .ok_or_else(|| {
            Halt::Failed(ParseError::new(
                origin,
                0,
                0,
                "no Tatham game ID in the text",
            ))
        })?;
    let id = line.trim();
    let at = |msg: String| ParseError::new(origin, line_no + 1, 0, msg);
    let err = |msg: String| Halt::Failed(at(msg));
    if let Some((n, extra)) = text
        .lines()
        .enumerate()
        .skip(line_no + 1)
        .find(|(_, l)| !is_comment_or_blank(l))
    {
        return Err(Halt::Failed(ParseError::new(
            origin,
            n + 1,
            0,
            format!(
                "{} after the game ID: a file holds one game ID, alone on its line",
                quote(extra.trim())
            ),
        )));
    }
    let (params_text, rest) = game_id_parts(id).ok_or_else(|| {
        err(format!(
            "{} is not a Tatham game ID (parameters such as w8h8m5M5, then ':' and the description, or '#' and a seed)",
            quote(id)
        ))
    })?;
    let params = TathamParams::parse(params_text)
        .map_err(|e| err(format!("the game ID's parameters {e}")))?;
    let (balls, kind) = match rest {
        Ok(desc) => (
            decode(&params, desc, ticker)
                .map_err(|s| s.map(|e| at(format!("the game ID {}: {e}", quote(id)))))?,
            TathamKind::GameId,
        ),
        Err(seed) => (
            seed_balls(&params, seed, ticker)
                .map_err(|s| s.map(|e| at(format!("the game ID {}: {e}", quote(id)))))?,
            TathamKind::Seed(seed.to_string()),
        ),
    };
    let state = State::new(&params, &balls);
    Ok(state.finish(origin, kind, &params, 0))
}

/// One record `KEY:LENGTH:VALUE` of a save file.
struct Record<'a> {
    key: &'a str,
    value: &'a str,
    line: usize,
}

/// Reads the records of a save file one at a time, as Tatham's loader does:
/// line ends before a record are skipped, the key is eight characters
/// (padded with spaces) and a colon, the length a decimal number and a
/// colon, the value exactly that many bytes.
struct Records<'a> {
    text: &'a str,
    pos: usize,
    origin: &'a str,
    /// Line ends counted before `counted`.
    lines: usize,
    counted: usize,
}

impl<'a> Records<'a> {
    /// The line of byte `pos`, counted on from the last one asked (`pos` never
    /// goes back), so that a long file is read in linear time.
    fn line_at(&mut self, pos: usize) -> usize {
        let pos = pos.min(self.text.len()).max(self.counted);
        self.lines += self.text.as_bytes()[self.counted..pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted = pos;
        self.lines + 1
    }

    /// The next record, `Ok(None)` at the end of the text.
    fn next(&mut self) -> Result<Option<Record<'a>>, ParseError> {
        let b = self.text.as_bytes();
        while self.pos < b.len() && matches!(b[self.pos], b'\r' | b'\n') {
            self.pos += 1;
        }
        if self.pos >= b.len() {
            return Ok(None);
        }
        let line = self.line_at(self.pos);
        let origin = self.origin;
        let err = |m: String| ParseError::new(origin, line, 0, m);
        let head = (b.get(self.pos..self.pos + 9)).ok_or_else(|| {
            err("a record is cut short: each starts with an 8-character key and ':'".into())
        })?;
        if head[8] != b':' {
            let rest = self.text[self.pos..].split(['\n', '\r']).next();
            return Err(err(format!(
                "{} is not a record: each starts with an 8-character key (padded with spaces) and ':'",
                quote(rest.unwrap_or_default())
            )));
        }
        // Up to an ASCII byte, or to the colon: a character boundary.
        let key_end = head[..8].iter().position(|&c| matches!(c, b':' | b' '));
        let key = &self.text[self.pos..self.pos + key_end.unwrap_or(8)];
        let shown = field(key);
        let start = self.pos + 9;
        let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || b.get(start + digits) != Some(&b':') || digits > 9 {
            return Err(err(format!(
                "record {shown}: its length is not a number followed by ':'"
            )));
        }
        let len: usize = self.text[start..start + digits]
            .parse()
            .unwrap_or(usize::MAX);
        let vstart = start + digits + 1;
        let value = vstart
            .checked_add(len)
            .and_then(|end| self.text.get(vstart..end))
            .ok_or_else(|| {
                err(format!(
                    "record {shown} says its value is {len} bytes long but the file ends (or a character is cut) before: the file is cut short or was edited"
                ))
            })?;
        if value.contains(['\n', '\r']) {
            return Err(err(format!(
                "record {shown} says its value is {len} bytes long, but its line ends before: the length is wrong or the file was edited"
            )));
        }
        if let Some(c) = value.chars().find(|c| !(' '..='~').contains(c)) {
            return Err(err(format!(
                "record {shown}: its value holds {c:?}, which Tatham's files never hold"
            )));
        }
        self.pos = vstart + len;
        Ok(Some(Record { key, value, line }))
    }
}

/// Reads a save file (the text starts with `SAVEFILE:`), as Tatham's
/// program loads one, asking `ticker` at each record and each step of its
/// moves.
fn parse_save(
    text: &str,
    origin: &str,
    ticker: &mut Ticker,
) -> Result<TathamGame, Halt<ParseError>> {
    let at = |line: usize, m: String| ParseError::new(origin, line, 0, m);
    let bad = |line: usize, m: String| Halt::Failed(at(line, m));
    if text.starts_with('\u{feff}') {
        return Err(bad(
            1,
            "the save file starts with a byte-order mark (U+FEFF, which some editors add), and Tatham's program refuses it: remove it, or save the game again from Tatham's Black Box".into(),
        ));
    }
    let mut records = Records {
        text,
        pos: 0,
        origin,
        lines: 0,
        counted: 0,
    };
    let first = records.next().map_err(Halt::Failed)?;
    match &first {
        Some(r) if r.key == "SAVEFILE" && r.value == SAVE_MAGIC => {}
        _ => {
            return Err(bad(
                1,
                format!(
                    "not a save file of Simon Tatham's Puzzles: it starts with a record SAVEFILE:41:{SAVE_MAGIC}"
                ),
            ));
        }
    }
    let (mut params, mut cparams, mut desc) = (None, None, None);
    let mut nstates: Option<(usize, usize)> = None;
    let mut statepos: Option<(usize, usize)> = None;
    let mut moves: Vec<Record> = Vec::new();
    let mut errors = None;
    let mut last_line = 1;
    while !matches!((nstates, statepos), (Some((n, _)), Some(_)) if moves.len() + 1 >= n) {
        ticker.tick()?;
        let Some(r) = records.next().map_err(Halt::Failed)? else {
            let what = match nstates {
                None => "its NSTATES record".to_string(),
                Some((n, _)) if statepos.is_some() => {
                    format!("all its moves ({} of {} read)", moves.len(), n - 1)
                }
                Some(_) => "its STATEPOS record".to_string(),
            };
            return Err(bad(
                records.line_at(text.len()),
                format!("the save file ends before {what}: is it whole?"),
            ));
        };
        last_line = r.line;
        let number = |r: &Record| -> Result<usize, Halt<ParseError>> {
            r.value.trim().parse::<usize>().map_err(|_| {
                bad(
                    r.line,
                    format!("record {}: {} is not a whole number", r.key, quote(r.value)),
                )
            })
        };
        match r.key {
            "VERSION" if r.value != "1" => {
                return Err(bad(
                    r.line,
                    format!(
                        "record VERSION: version {} of the save format; bbx reads version 1",
                        quote(r.value)
                    ),
                ));
            }
            "GAME" if r.value != GAME_NAME => {
                return Err(bad(
                    r.line,
                    format!(
                        "record GAME: a save file of Tatham's {}, not of {GAME_NAME}",
                        quote(r.value)
                    ),
                ));
            }
            "PARAMS" => params = Some((r.value, r.line)),
            "CPARAMS" => cparams = Some((r.value, r.line)),
            "DESC" => desc = Some((r.value, r.line)),
            // Tatham's `decode_ui` reads `E<n>`, the wrong checks counted.
            "UI" => {
                errors = r
                    .value
                    .strip_prefix('E')
                    .filter(|n| !n.is_empty() && n.len() <= 9)
                    .and_then(|n| n.parse::<usize>().ok());
            }
            "NSTATES" => {
                if nstates.is_some() {
                    return Err(bad(r.line, "a second NSTATES record".into()));
                }
                let n = number(&r)?;
                if n == 0 {
                    return Err(bad(r.line, "record NSTATES: 0 states (at least 1)".into()));
                }
                nstates = Some((n, r.line));
            }
            "STATEPOS" => statepos = Some((number(&r)?, r.line)),
            "MOVE" | "SOLVE" | "RESTART" if moves.len() >= MAX_MOVES => {
                return Err(bad(
                    r.line,
                    format!("more than {MAX_MOVES} moves: not a game bbx reads"),
                ));
            }
            "MOVE" | "SOLVE" | "RESTART" => {
                if nstates.is_none() || statepos.is_none() {
                    return Err(bad(
                        r.line,
                        format!("record {} before the NSTATES and STATEPOS records", r.key),
                    ));
                }
                moves.push(r);
            }
            _ => {}
        }
    }
    let (Some((nstates, _)), Some((statepos, pos_line))) = (nstates, statepos) else {
        return Err(bad(last_line, "no NSTATES or STATEPOS record".into()));
    };
    // Both parameter records, each valid, as Tatham's program requires;
    // the game is played by the current ones (CPARAMS).
    let mut read_params = |record: Option<(&str, usize)>, key: &str| {
        let (text, line) = record.ok_or_else(|| {
            bad(
                last_line,
                format!("no {key} record: the game's parameters are missing, and Tatham's program refuses such a file"),
            )
        })?;
        ticker.tick()?;
        TathamParams::parse(text)
            .map_err(|e| bad(line, format!("record {key}: the parameters {e}")))
    };
    read_params(params, "PARAMS")?;
    let params = read_params(cparams, "CPARAMS")?;
    if statepos < 1 || statepos > nstates {
        return Err(bad(
            pos_line,
            format!("record STATEPOS: {statepos} is not a state of 1 to {nstates}"),
        ));
    }
    let (desc, dline) = desc.ok_or_else(|| {
        bad(
            last_line,
            "no DESC record: the game's description is missing".into(),
        )
    })?;
    let balls = decode(&params, desc, ticker)
        .map_err(|s| s.map(|e| at(dline, format!("record DESC: {e}"))))?;
    let mut state = State::new(&params, &balls);
    let mut current = None;
    // What the moves did since the last restart before the current state,
    // up to a restart after it.
    let (mut steps, mut done, mut stopped) = (Vec::new(), None, false);
    for (i, m) in moves.iter().enumerate() {
        ticker.tick()?;
        if i + 1 == statepos {
            current = Some(state.clone());
            done = Some(steps.len());
        }
        let wrong = |why: String| {
            at(
                m.line,
                format!(
                    "record {} (move {} of the file): {}: {why}",
                    m.key,
                    i + 1,
                    quote(m.value)
                ),
            )
        };
        if m.key == "RESTART" {
            let balls = decode(&params, m.value, ticker).map_err(|s| s.map(wrong))?;
            state = State::new(&params, &balls);
            stopped |= done.is_some();
            if !stopped {
                steps.clear();
            }
        } else {
            let step = state.play(m.value, ticker).map_err(|s| s.map(wrong))?;
            if !stopped {
                steps.push(step);
            }
        }
    }
    let done = done.unwrap_or(steps.len());
    let state = current.unwrap_or(state);
    let mut game = state.finish(origin, TathamKind::Save, &params, nstates - statepos);
    game.steps = steps;
    game.done = done;
    game.errors = errors;
    Ok(game)
}

/// The most moves bbx replays from a save file (a game on Tatham's largest
/// box, 255×255, fires at most 1020 lasers).
const MAX_MOVES: usize = 100_000;

/// Tatham's value in a laser cell of the grid for a hit and a reflection.
const LASER_HIT: u32 = 0x2000;
const LASER_REFLECT: u32 = 0x1000;
const BALL_CORRECT: u32 = 0x01;
const BALL_GUESS: u32 = 0x02;
const BALL_LOCK: u32 = 0x04;

/// A laser's result in Tatham's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Hit,
    Reflect,
    Out(usize),
}

/// The state of a Tatham game as its program keeps it, enough to replay
/// moves: the guess, locks, the lasers fired and the numbers drawn in their
/// cells (which seed the choice of a laser when a check fails).
///
/// Replaying costs little per move: each laser's result for the hidden
/// balls is traced once, the guess is kept loaded in a tracer changed a
/// cell at a time, each laser's result for the guess is traced again only
/// after the guess changed, and a check of the same guess against the same
/// lasers is known to fail again without a trace.
#[derive(Debug, Clone)]
struct State {
    shape: Shape,
    min: usize,
    max: usize,
    hidden: Molecule,
    /// Each laser's result for the hidden balls.
    answer: Vec<Exit>,
    guess: Vec<bool>,
    /// How many balls are guessed.
    guessed: usize,
    /// The guessed balls, loaded for tracing.
    guess_tracer: Tracer,
    /// Each laser's result for the guess, with the [`State::version`] of
    /// the guess it was traced for.
    guess_exits: Vec<Option<(u64, Exit)>>,
    /// Counts the changes of the guess.
    version: u64,
    /// The guess's version and the lasers fired when a check last found
    /// the guess contradicted: the same check again is contradicted too.
    contradicted_at: Option<(u64, usize)>,
    /// The laser that contradicted the guess last, looked at first.
    contradicting: Option<usize>,
    lock: Vec<bool>,
    exits: Vec<Option<Exit>>,
    cells: Vec<u32>,
    next_laser: u32,
    fired: Vec<usize>,
    wrong_checks: usize,
    ending: Option<TathamEnding>,
}

/// Laser `n`'s result for the balls loaded in `tracer`, by bbx's standard
/// rules, in Tatham's terms.
fn laser_exit(p: Shape, tracer: &Tracer, n: usize) -> Exit {
    match tracer.trace(tatham_to_position(p, n)).outcome {
        Outcome::Absorbed => Exit::Hit,
        Outcome::Exit(q) => Exit::Out(position_to_tatham(p, q)),
        Outcome::Reflected | Outcome::Miss => Exit::Reflect,
    }
}

impl State {
    fn new(params: &TathamParams, balls: &[(usize, usize)]) -> State {
        let shape = params.shape();
        let w = shape.width;
        let hidden = Molecule::new(shape, balls.iter().map(|&(x, y)| y * w + x))
            .unwrap_or_else(|_| Molecule::new(shape, []).expect("an empty box of 2 to 255 cells"));
        let mut tracer = Tracer::new(shape, Rules::Standard);
        tracer.load(&hidden);
        let answer = (0..shape.positions())
            .map(|n| laser_exit(shape, &tracer, n))
            .collect();
        // The same empty board, for the guess.
        tracer.load_cells(&[]);
        State {
            shape,
            min: params.min_balls,
            max: params.max_balls,
            hidden,
            answer,
            guess: vec![false; shape.cells()],
            guessed: 0,
            guess_tracer: tracer,
            guess_exits: vec![None; shape.positions()],
            version: 0,
            contradicted_at: None,
            contradicting: None,
            lock: vec![false; shape.cells()],
            exits: vec![None; shape.positions()],
            cells: vec![0; shape.positions()],
            next_laser: 1,
            fired: Vec::new(),
            wrong_checks: 0,
            ending: None,
        }
    }

    /// Laser `n`'s result for the guess, traced once for each version of
    /// the guess.
    fn guess_exit(&mut self, n: usize) -> Exit {
        match self.guess_exits[n] {
            Some((version, exit)) if version == self.version => exit,
            _ => {
                let exit = laser_exit(self.shape, &self.guess_tracer, n);
                self.guess_exits[n] = Some((self.version, exit));
                exit
            }
        }
    }

    /// Puts a guessed ball on cell `c`, or takes it away.
    fn toggle_guess(&mut self, c: usize) {
        self.guess[c] = !self.guess[c];
        if self.guess[c] {
            self.guessed += 1;
        } else {
            self.guessed -= 1;
        }
        self.guess_tracer.toggle_cell(c);
        self.version += 1;
    }

    /// Fires laser `n`: its result, and its number in both end cells.
    fn fire(&mut self, n: usize) {
        let exit = self.answer[n];
        match exit {
            Exit::Hit => self.cells[n] = LASER_HIT,
            Exit::Reflect => self.cells[n] = LASER_REFLECT,
            Exit::Out(m) => {
                self.cells[n] = self.next_laser;
                self.cells[m] = self.next_laser;
                self.next_laser += 1;
                self.exits[m] = Some(Exit::Out(n));
            }
        }
        self.exits[n] = Some(exit);
        self.fired.push(n);
    }

    /// Plays one move: what it did, or why Tatham's program would refuse it;
    /// asks `ticker` at each trace.
    fn play(&mut self, mv: &str, ticker: &mut Ticker) -> Result<TathamStep, Halt<String>> {
        let shape = self.shape;
        let (w, h, n_lasers) = (shape.width, shape.height, shape.positions());
        let refuse = |why: String| Err(Halt::Failed(why));
        if mv == "S" {
            self.ending.get_or_insert(TathamEnding::Solved);
            return Ok(TathamStep::Solve);
        }
        if self.ending.is_some() {
            return refuse("a move after the answer was revealed".into());
        }
        let number = |s: &str| -> Option<usize> {
            (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let cell = |s: &str| -> Option<usize> {
            let (x, y) = s.split_once(',')?;
            let (x, y) = (number(x)?, number(y)?);
            ((1..=w).contains(&x) && (1..=h).contains(&y)).then_some(shape.index(y, x))
        };
        let column = |s: &str| number(s).filter(|n| (1..=w).contains(n));
        let row = |s: &str| number(s).filter(|n| (1..=h).contains(n));
        let outside = || Halt::Failed(format!("outside the {shape} box"));
        let step = if let Some(rest) = mv.strip_prefix('T') {
            let c = cell(rest).ok_or_else(outside)?;
            self.toggle_guess(c);
            TathamStep::Toggle(c)
        } else if let Some(rest) = mv.strip_prefix('F') {
            let Some(n) = number(rest).filter(|&n| n < n_lasers) else {
                return refuse(format!(
                    "no laser {} (they are 0 to {})",
                    field(rest),
                    n_lasers - 1
                ));
            };
            if self.exits[n].is_some() {
                return refuse(format!("laser {n} was already fired or lit"));
            }
            self.fire(n);
            TathamStep::Fire(tatham_to_position(shape, n))
        } else if let Some(rest) = mv.strip_prefix("LB") {
            let c = cell(rest).ok_or_else(outside)?;
            self.lock[c] = !self.lock[c];
            TathamStep::Lock(vec![c])
        } else if let Some(rest) = mv.strip_prefix("LC") {
            let x = column(rest).ok_or_else(outside)? - 1;
            TathamStep::Lock(self.lock_line((0..h).map(|y| y * w + x).collect()))
        } else if let Some(rest) = mv.strip_prefix("LR") {
            let y = row(rest).ok_or_else(outside)? - 1;
            TathamStep::Lock(self.lock_line((0..w).map(|x| y * w + x).collect()))
        } else if mv == "R" {
            let n = self.guessed;
            if n < self.min || n > self.max {
                return refuse(format!(
                    "a check with {} guessed, which Tatham's program does not allow",
                    quantity(n, "ball", "balls")
                ));
            }
            self.check(ticker)?
        } else {
            return refuse(
                "not a move of Black Box (F<n>, T<x>,<y>, LB<x>,<y>, LC<x>, LR<y>, R or S)".into(),
            );
        };
        Ok(step)
    }

    /// Locks every cell of a row or column, or unlocks them all when more
    /// than half are locked (half a column's h cells, or a row's w);
    /// returns the cells whose lock changed.
    fn lock_line(&mut self, cells: Vec<usize>) -> Vec<usize> {
        let locked = cells.iter().filter(|&&c| self.lock[c]).count();
        let set = locked <= cells.len() / 2;
        cells
            .into_iter()
            .filter(|&c| std::mem::replace(&mut self.lock[c], set) != set)
            .collect()
    }

    /// Tatham's check of the guess: a fired laser the guess contradicts
    /// leaves the game as it is; else a laser not fired that tells the
    /// guess from the answer is fired (one chosen by a generator seeded with
    /// the grid's bytes); else the guess is right and the game ends. Asks
    /// `ticker` at each trace.
    fn check(&mut self, ticker: &mut Ticker) -> Result<TathamStep, Cut> {
        if self.contradicted_at == Some((self.version, self.fired.len())) {
            // Nothing changed since this guess was found contradicted.
            self.wrong_checks += 1;
            return Ok(TathamStep::Wrong(None));
        }
        let lit = |s: &State, i: usize| s.exits[i].is_some();
        let last = self.contradicting.filter(|&i| lit(self, i));
        for i in last.into_iter().chain(0..self.shape.positions()) {
            if !lit(self, i) {
                continue;
            }
            ticker.tick()?;
            // A lit laser's result is the answer's (both ends of an exit).
            if self.guess_exit(i) != self.answer[i] {
                self.contradicting = Some(i);
                self.contradicted_at = Some((self.version, self.fired.len()));
                self.wrong_checks += 1;
                return Ok(TathamStep::Wrong(None));
            }
        }
        let mut telling = Vec::new();
        for i in 0..self.shape.positions() {
            if !lit(self, i) {
                ticker.tick()?;
                if self.guess_exit(i) != self.answer[i] {
                    telling.push(i);
                }
            }
        }
        if telling.is_empty() {
            self.ending = Some(TathamEnding::Checked);
            return Ok(TathamStep::Right);
        }
        let mut rs = TathamRandom::new(&self.grid_bytes());
        let k = rs.upto(telling.len() as u64) as usize;
        self.fire(telling[k]);
        self.wrong_checks += 1;
        Ok(TathamStep::Wrong(Some(tatham_to_position(
            self.shape, telling[k],
        ))))
    }

    /// The bytes of Tatham's grid with the guess in place of the balls: a
    /// (w+2)×(h+2) array of 32-bit numbers, row by row, little-endian (the
    /// machines Tatham's program runs on), the lasers' numbers on the border.
    fn grid_bytes(&self) -> Vec<u8> {
        let (w, h) = (self.shape.width, self.shape.height);
        let side = w + 2;
        let mut grid = vec![0u32; side * (h + 2)];
        for r in 0..h {
            for c in 0..w {
                let i = r * w + c;
                let mut v = 0;
                if self.guess[i] {
                    v |= BALL_GUESS | BALL_CORRECT;
                }
                if self.lock[i] {
                    v |= BALL_LOCK;
                }
                grid[(r + 1) * side + (c + 1)] = v;
            }
        }
        for n in 0..self.shape.positions() {
            let (x, y) = laser_cell(self.shape, n);
            grid[y * side + x] = self.cells[n];
        }
        grid.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn finish(
        self,
        origin: &str,
        kind: TathamKind,
        params: &TathamParams,
        redo: usize,
    ) -> TathamGame {
        let p = self.shape;
        TathamGame {
            origin: origin.to_string(),
            kind,
            params: *params,
            fired: self
                .fired
                .iter()
                .map(|&n| tatham_to_position(p, n))
                .collect(),
            guess: (0..p.cells()).filter(|&i| self.guess[i]).collect(),
            locked: (0..p.cells()).filter(|&i| self.lock[i]).collect(),
            wrong_checks: self.wrong_checks,
            ending: self.ending,
            redo,
            steps: Vec::new(),
            done: 0,
            errors: None,
            hidden: self.hidden,
        }
    }
}

/// The grid cell (column 0..=w+1, row 0..=h+1) of Tatham's laser `n` (his
/// `range2grid`).
fn laser_cell(shape: Shape, n: usize) -> (usize, usize) {
    let (w, h) = (shape.width, shape.height);
    if n < w {
        (n + 1, 0)
    } else if n < w + h {
        (w + 1, n - w + 1)
    } else if n < 2 * w + h {
        (2 * w + h - n, h + 1)
    } else {
        (0, 2 * (w + h) - n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::{Heading, port};

    /// Tatham's `range2grid`, written again from his code: laser n's grid
    /// cell (x, y) and the direction it fires (0 up, 1 right, 2 down, 3 left).
    fn range2grid(w: usize, h: usize, n: usize) -> (usize, usize, usize) {
        let mut r = n;
        if r < w {
            return (r + 1, 0, 2);
        }
        r -= w;
        if r < h {
            return (w + 1, r + 1, 3);
        }
        r -= h;
        if r < w {
            return (w - r, h + 1, 0);
        }
        r -= w;
        assert!(r < h);
        (0, h - r, 1)
    }

    /// Tatham's `grid2range`, written again from his code.
    fn grid2range(w: usize, h: usize, x: usize, y: usize) -> usize {
        let (x1, y1) = (w + 1, h + 1);
        if y == 0 {
            x - 1
        } else if x == x1 {
            y - 1 + w
        } else if y == y1 {
            (w - x) + w + h
        } else {
            (h - y) + w + w + h
        }
    }

    #[test]
    fn lasers_map_to_the_same_cell_and_heading_on_squares_and_rectangles() {
        let headings = [Heading::North, Heading::East, Heading::South, Heading::West];
        for (w, h) in [(8, 8), (5, 5), (8, 6), (5, 9), (2, 7), (255, 2)] {
            let shape = Shape::new(w, h).unwrap();
            for n in 0..shape.positions() {
                let pos = tatham_to_position(shape, n);
                let port = port(shape, pos);
                let (x, y, dir) = range2grid(w, h, n);
                assert_eq!(
                    (port.col, port.row, port.heading),
                    (x, y, headings[dir]),
                    "{shape}, laser {n}"
                );
                assert_eq!(grid2range(w, h, port.col, port.row), n);
                assert_eq!(position_to_tatham(shape, pos), n);
                assert_eq!((port.col, port.row), laser_cell(shape, n));
            }
        }
        // Each side's first and last laser, by hand from RULES.md's numbering:
        // top col 1, top col w, right row 1, right row h, bottom col w,
        // bottom col 1, left row h, left row 1.
        let ends = |w: usize, h: usize| -> Vec<usize> {
            let shape = Shape::new(w, h).unwrap();
            let lasers = [
                0,
                w - 1,
                w,
                w + h - 1,
                w + h,
                2 * w + h - 1,
                2 * w + h,
                2 * (w + h) - 1,
            ];
            lasers
                .iter()
                .map(|&n| tatham_to_position(shape, n))
                .collect()
        };
        assert_eq!(ends(8, 8), [32, 25, 24, 17, 16, 9, 8, 1]);
        assert_eq!(ends(5, 5), [20, 16, 15, 11, 10, 6, 5, 1]);
        assert_eq!(ends(8, 6), [28, 21, 20, 15, 14, 7, 6, 1]);
        assert_eq!(ends(5, 9), [28, 24, 23, 15, 14, 10, 9, 1]);
    }

    /// Game IDs written by Tatham's own program (built from the collection's
    /// source), with the balls it placed (1-based column, row).
    /// A game ID with a seed, the ID with the description Tatham's program
    /// made of it, and the balls.
    type Example = (&'static str, &'static str, &'static [(usize, usize)]);

    const FROM_TATHAM: [Example; 6] = [
        (
            "w8h8m5M5#12345",
            "w8h8m5M5:925fa66636a72ed6ae1c5015",
            &[(7, 2), (3, 4), (4, 5), (5, 7), (6, 7)],
        ),
        (
            "w5h5m3M3#bbx",
            "w5h5m3M3:a8048f3fbbd74cba",
            &[(1, 1), (4, 2), (5, 4)],
        ),
        (
            "w10h10m4M10#987654321",
            "w10h10m4M10:2e5800db68f31961d07d5eac2d48e9d0",
            &[(5, 3), (8, 4), (5, 6), (6, 6), (6, 7), (9, 7), (2, 8)],
        ),
        (
            "w8h8m3M6#tatham",
            "w8h8m3M6:20cd5f10972764dd",
            &[(2, 4), (4, 4), (4, 8)],
        ),
        (
            "w2h2m1M3#x",
            "w2h2m1M3:125c67fa2c30f954",
            &[(1, 1), (2, 1), (2, 2)],
        ),
        ("w255h255m1M1#big", "w255h255m1M1:3aaed5a5", &[(238, 81)]),
    ];

    fn sorted(mut balls: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
        balls.sort_by_key(|&(x, y)| (y, x));
        balls
    }

    #[test]
    fn seeds_and_descriptions_give_tatham_s_balls() {
        for (seed_id, desc_id, balls) in FROM_TATHAM {
            let want: Vec<(usize, usize)> = balls.iter().map(|&(x, y)| (x - 1, y - 1)).collect();
            let (params, seed) = seed_id.split_once('#').unwrap();
            let params = TathamParams::parse(params).unwrap();
            assert_eq!(
                sorted(balls_from_seed(&params, seed).unwrap()),
                want,
                "{seed_id}"
            );
            let desc = desc_id.split_once(':').unwrap().1;
            assert_eq!(
                sorted(decode_description(&params, desc).unwrap()),
                want,
                "{desc_id}"
            );
            for id in [seed_id, desc_id] {
                let g = parse_tatham(id, "id").unwrap();
                let p = params.width;
                let cells: Vec<usize> = want.iter().map(|&(x, y)| y * p + x).collect();
                let mut atoms = g.hidden.atoms().to_vec();
                atoms.sort_unstable();
                let mut cells = cells;
                cells.sort_unstable();
                assert_eq!(atoms, cells, "{id}");
            }
        }
    }

    #[test]
    fn descriptions_written_are_tatham_s() {
        for (seed_id, desc_id, _) in FROM_TATHAM {
            let (params, seed) = seed_id.split_once('#').unwrap();
            let params = TathamParams::parse(params).unwrap();
            // The balls in the order Tatham's program drew them give its
            // own description, byte for byte.
            let drawn = balls_from_seed(&params, seed).unwrap();
            let desc = describe_balls(params.width, params.height, &drawn).unwrap();
            assert_eq!(desc, desc_id.split_once(':').unwrap().1, "{seed_id}");
            // A game ID written from the molecule opens the same molecule.
            let hidden = parse_tatham(desc_id, "id").unwrap().hidden;
            let id = game_id(&params, &hidden).unwrap();
            assert_eq!(parse_tatham(&id, "id").unwrap().hidden, hidden, "{id}");
        }
        assert!(describe_balls(256, 256, &[(0, 0)]).is_err());
        assert!(describe_balls(1, 1, &[(0, 0)]).is_err());
        assert!(describe_balls(5, 5, &[]).is_err());
        assert!(
            describe_balls(5, 5, &[(5, 0)])
                .unwrap_err()
                .contains("column 6, row 1")
        );
    }

    #[test]
    fn obfuscation_round_trips_and_matches_tatham() {
        // Tatham's description of 12345 above, encoded again from its balls.
        let mut b = vec![8u8, 8, 6, 1, 2, 3, 3, 4, 4, 6, 5, 6];
        let mut from_seed: Vec<u8> = vec![8, 8];
        let params = TathamParams::default();
        for (x, y) in balls_from_seed(&params, "12345").unwrap() {
            from_seed.extend([x as u8, y as u8]);
        }
        obfuscate(&mut from_seed, false);
        let hex: String = from_seed.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "925fa66636a72ed6ae1c5015");
        let orig = b.clone();
        obfuscate(&mut b, false);
        obfuscate(&mut b, true);
        assert_eq!(b, orig);
    }

    #[test]
    fn corrupt_descriptions_are_refused_with_the_reason() {
        let params = TathamParams::default();
        let e = |d: &str| decode_description(&params, d).unwrap_err();
        assert!(e("925fa66636a72ed6ae1c501z").contains("character 24 ('z')"));
        assert!(e("925fa66636a72ed6ae1c50").contains("22 hex digits"));
        assert!(e("925fa66636a72ed6ae1c501500").contains("hex digits"));
        // Four balls where the parameters say five.
        assert!(e("925fa66636a72ed6ae1c").contains("hides 4 balls but the parameters say 5"));
        // One digit changed: the mask of every byte changes.
        assert!(e("925fa66636a72ed6ae1c5016").contains("corrupted"));
        // A ball outside the box, and two balls on one cell.
        let encode = |bytes: &[u8]| {
            let mut b = bytes.to_vec();
            obfuscate(&mut b, false);
            b.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        let p5 = TathamParams::parse("w5h5m2M2").unwrap();
        let outside = encode(&[5, 5, 0, 0, 5, 1]);
        assert!(
            decode_description(&p5, &outside)
                .unwrap_err()
                .contains("ball 2 decodes to column 6, row 2, outside")
        );
        let twice = encode(&[5, 5, 1, 1, 1, 1]);
        assert!(
            decode_description(&p5, &twice)
                .unwrap_err()
                .contains("two balls")
        );
        assert_eq!(
            decode_description(&p5, &encode(&[5, 5, 1, 1, 4, 4])).unwrap(),
            [(1, 1), (4, 4)]
        );
    }

    #[test]
    fn parameters_as_tatham_reads_them() {
        assert_eq!(TathamParams::parse("w5h5m3M3").unwrap().balls(), 3..=3);
        assert_eq!(TathamParams::parse("w8h8m3M6").unwrap().balls(), 3..=6);
        // Missing values keep Tatham's defaults (8×8, 5 balls).
        assert_eq!(TathamParams::parse("w8").unwrap(), TathamParams::default());
        let r = TathamParams::parse("w8h6m5M5").unwrap();
        assert_eq!(
            (r.shape(), r.to_string()),
            (Shape::new(8, 6).unwrap(), "w8h6m5M5".into())
        );
        assert_eq!(r.range().to_string(), "A5_B8x6");
        assert_eq!(TathamParams::parse("h6").unwrap().to_string(), "w8h6m5M5");
        assert!(
            TathamParams::parse("w8h3m24M24")
                .unwrap_err()
                .contains("24 balls do not fit in a 8×3 box")
        );
        assert!(
            TathamParams::parse("w1h1")
                .unwrap_err()
                .contains("at least 2")
        );
        assert!(TathamParams::parse("w8h8m6M5").unwrap_err().contains("m6"));
        assert!(
            TathamParams::parse("w2h2m4M4")
                .unwrap_err()
                .contains("do not fit")
        );
    }

    #[test]
    fn presets_are_tatham_s_type_menu() {
        let titles: Vec<String> = PRESETS.iter().map(TathamParams::title).collect();
        assert_eq!(
            titles,
            [
                "5x5, 3 balls",
                "8x8, 5 balls",
                "8x8, 3-6 balls",
                "10x10, 5 balls",
                "10x10, 4-10 balls"
            ]
        );
        let names: Vec<String> = PRESETS.iter().map(|p| p.range().to_string()).collect();
        assert_eq!(names, ["A3_B5", "A5_B8", "A3-6_B8", "A5_B10", "A4-10_B10"]);
        for p in PRESETS {
            assert_eq!(TathamParams::of(&p.range()), Ok(p));
        }
        let e = TathamParams::of(&"A3_B1x5".parse().unwrap()).unwrap_err();
        assert!(
            e.contains("A3_B1x5 is no game of Tatham's Black Box"),
            "{e}"
        );
        assert!(e.contains("at least 2"), "{e}");
        let e = TathamParams::of(&"A0_B5".parse().unwrap()).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
    }

    #[test]
    fn descriptions_are_written_as_tatham_writes_them() {
        // Tatham's own description of the seed 12345, written again from
        // the balls he drew (the order of the balls is his).
        let params = TathamParams::default();
        let balls = balls_from_seed(&params, "12345").unwrap();
        let mut sorted_cells: Vec<usize> = balls.iter().map(|&(x, y)| y * 8 + x).collect();
        sorted_cells.sort_unstable();
        let m = Molecule::new(8, sorted_cells).unwrap();
        let id = game_id(&params, &m).unwrap();
        // bbx writes the balls in cell order: another description of the
        // same balls, which decodes to them.
        let (_, desc) = id.split_once(':').unwrap();
        let mut back = decode_description(&params, desc).unwrap();
        back.sort_by_key(|&(x, y)| (y, x));
        let mut want = balls.clone();
        want.sort_by_key(|&(x, y)| (y, x));
        assert_eq!(back, want);
        // On rectangles, both ways.
        for (w, h, cells) in [
            (8, 6, vec![0, 13, 47]),
            (5, 9, vec![4, 40, 44]),
            (2, 255, vec![509]),
        ] {
            let shape = Shape::new(w, h).unwrap();
            let m = Molecule::new(shape, cells.clone()).unwrap();
            let n = cells.len();
            let params = TathamParams {
                width: w,
                height: h,
                min_balls: 1,
                max_balls: n + 1,
            };
            let id = game_id(&params, &m).unwrap();
            assert!(id.starts_with(&format!("w{w}h{h}m1M{}:", n + 1)), "{id}");
            let g = parse_tatham(&id, "id").unwrap();
            assert_eq!(g.hidden, m);
            assert_eq!(g.params, params);
        }
        let big = Molecule::new(Shape::new(256, 2).unwrap(), [0]).unwrap();
        assert!(
            encode_description(&big)
                .unwrap_err()
                .contains("2 to 255 cells a side")
        );
        let e = game_id(&PRESETS[0], &Molecule::new(5, [1, 2]).unwrap()).unwrap_err();
        assert!(
            e.contains("2 balls hidden but the parameters w5h5m3M3 allow 3 to 3"),
            "{e}"
        );
        let e = game_id(&PRESETS[0], &Molecule::new(6, [1, 2, 3]).unwrap()).unwrap_err();
        assert!(e.contains("6×6 box"), "{e}");
    }

    #[test]
    fn save_files_written_are_read_back() {
        let params = TathamParams::parse("w8h6m3M6").unwrap();
        let shape = params.shape();
        let hidden = Molecule::new(shape, [9, 20, 30, 44]).unwrap();
        let moves = [
            TathamMove::Fire(0),
            TathamMove::Fire(9),
            TathamMove::Toggle(2, 2),
            TathamMove::Lock(1, 1),
            TathamMove::Fire(22),
        ];
        let text = save_file(&params, &hidden, &moves, 1).unwrap();
        assert!(text.starts_with(
            "SAVEFILE:41:Simon Tatham's Portable Puzzle Collection\nVERSION :1:1\nGAME    :9:Black Box\nPARAMS  :8:w8h6m3M6\nCPARAMS :8:w8h6m3M6\nDESC    :20:"
        ), "{text}");
        assert!(
            text.contains("\nUI      :2:E1\nNSTATES :1:6\nSTATEPOS:1:6\nMOVE    :2:F0\n"),
            "{text}"
        );
        let g = parse_tatham(&text, "save").unwrap();
        assert_eq!(g.hidden, hidden);
        assert_eq!(g.params, params);
        let fired: Vec<usize> = [0, 9, 22]
            .iter()
            .map(|&n| tatham_to_position(shape, n))
            .collect();
        assert_eq!(g.fired, fired);
        assert_eq!(g.guess, [shape.index(2, 2)]);
        assert_eq!(g.locked, [0]);
        assert_eq!((g.ending, g.redo), (None, 0));
        let solved = save_file(&params, &hidden, &[TathamMove::Solve], 0).unwrap();
        assert!(solved.ends_with("SOLVE   :1:S\n"), "{solved}");
        assert_eq!(
            parse_tatham(&solved, "save").unwrap().ending,
            Some(TathamEnding::Solved)
        );
    }

    #[test]
    fn steps_say_what_each_move_did_and_where_the_game_stands() {
        // 5×5, balls at (2,2) and (4,4) (0-based (1,1) and (3,3)).
        let params = TathamParams::parse("w5h5m2M2").unwrap();
        let hidden = Molecule::new(5, [6, 18]).unwrap();
        let shape = params.shape();
        let mut board = TathamBoard::new(&params, &hidden).unwrap();
        let mut play = |m| board.play(m).unwrap();
        assert_eq!(play(TathamMove::Lock(1, 1)), TathamStep::Lock(vec![0]));
        // Column 1: one of five locked, so all are; then, more than half
        // locked, all unlocked.
        let column: Vec<usize> = (0..5).map(|y| y * 5).collect();
        assert_eq!(
            play(TathamMove::LockColumn(1)),
            TathamStep::Lock(column[1..].to_vec())
        );
        assert_eq!(
            play(TathamMove::LockColumn(1)),
            TathamStep::Lock(column.clone())
        );
        assert_eq!(
            play(TathamMove::LockRow(5)),
            TathamStep::Lock((20..25).collect())
        );
        assert_eq!(play(TathamMove::Toggle(1, 1)), TathamStep::Toggle(0));
        assert_eq!(play(TathamMove::Toggle(4, 4)), TathamStep::Toggle(18));
        // A wrong guess: no laser fired yet, so the check fires one.
        let TathamStep::Wrong(Some(q)) = play(TathamMove::Check) else {
            panic!("the check fires a laser")
        };
        assert!(board.is_lit(q));
        // Checked again, the laser it fired disproves it: nothing fired.
        assert_eq!(board.play(TathamMove::Check), Ok(TathamStep::Wrong(None)));
        board.play(TathamMove::Toggle(1, 1)).unwrap();
        board.play(TathamMove::Toggle(2, 2)).unwrap();
        assert_eq!(board.play(TathamMove::Check), Ok(TathamStep::Right));
        assert!(board.is_over());
        assert!(board.play(TathamMove::Fire(0)).is_err());
        assert_eq!(board.play(TathamMove::Solve), Ok(TathamStep::Solve));

        // A file: two moves, a restart, three more, standing after the
        // fourth; a restart in the redo list ends the steps read.
        let moves = [
            "LB1,1", "T2,2", "RESTART", "F0", "T4,4", "LR1", "RESTART", "T1,1",
        ];
        let desc = encode_description(&hidden).unwrap();
        let mut text = save_file_at(&params, &hidden, &[], 0, 3).unwrap();
        text = text.replace(
            "NSTATES :1:1\nSTATEPOS:1:1\n",
            "NSTATES :1:9\nSTATEPOS:1:6\n",
        );
        for m in moves {
            let (key, value) = match m {
                "RESTART" => ("RESTART", desc.as_str()),
                m => ("MOVE", m),
            };
            text.push_str(&format!("{key:<8}:{}:{value}\n", value.len()));
        }
        let g = parse_tatham(&text, "t").unwrap();
        assert_eq!(
            g.steps,
            [
                TathamStep::Fire(tatham_to_position(shape, 0)),
                TathamStep::Toggle(18),
                TathamStep::Lock((0..5).collect()),
            ]
        );
        assert_eq!((g.done, g.redo, g.errors), (2, 3, Some(3)));
        assert_eq!((g.guess.clone(), g.locked.clone()), (vec![18], vec![]));
        assert!(save_file_at(&params, &hidden, &[], 1, 0).is_err());
    }

    #[test]
    fn detection() {
        assert!(is_tatham(
            "SAVEFILE:41:Simon Tatham's Portable Puzzle Collection\n"
        ));
        assert!(is_tatham("w8h8m5M5:925fa66636a72ed6ae1c5015\n"));
        assert!(is_tatham("# a comment\n\nw8h8m5M5#12345\n"));
        assert!(!is_tatham("A4_B8 @&ab@&@?ba?@&@&@"));
        assert!(!is_tatham("5 5\n1\n"));
        assert!(!is_tatham("   @ &\n @ - - -\n"));
        assert!(!is_tatham("8:abc"));
    }
}
