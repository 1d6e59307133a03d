//! The ray rules and the tracer that applies them.
//!
//! A ray stands on a cell X heading d. Let A be the cell ahead and L, R the two
//! cells diagonally ahead. Then, in this order:
//!
//! 1. an atom on A absorbs the ray (a *hit*);
//! 2. atoms on both L and R reflect it: it retraces its path back out (`&`);
//! 3. an atom on one of L, R turns the ray 90° away from it, on X, and the rules
//!    apply again with the new heading;
//! 4. otherwise the ray moves to A, and comes out if A is outside the box.
//!
//! At entry the ray stands just outside the box. There, a single atom on a
//! diagonal reflects it at once under [`Rules::Standard`], and makes it miss the
//! board under [`Rules::EdgeMiss`].
//!
//! [`Tracer`] holds a board prepared for fast tracing: each cell stores the
//! atoms among its eight neighbours, so one table look-up decides each step.
//!
//! ```
//! use bbx::{Molecule, Rules, Tracer, Outcome};
//! let m: Molecule = "O-O-------------".parse().unwrap();
//! let mut t = Tracer::new(m.width(), Rules::Standard);
//! t.load(&m);
//! let ray = t.trace(8); // bottom side, column 4
//! assert_eq!(ray.outcome, Outcome::Exit(11));
//! assert_eq!((ray.length, ray.turns), (3, 1));
//! ```

use crate::rules::board::{Heading, Molecule, port, position_at};
use crate::rules::config::Shape;

/// Which rule set decides what happens when a ray enters next to an atom.
///
/// Its name is `standard` or `edge-miss` (read in any case, also
/// `edgemiss` and `edge_miss`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::Display, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case", ascii_case_insensitive)]
#[strum(parse_err_ty = String, parse_err_fn = unknown_rules)]
pub enum Rules {
    /// Emacs `blackbox.el`, Tatham's Puzzles and J. Forget's exploration: an atom on one
    /// diagonal of the entry reflects the ray at once.
    #[default]
    Standard,
    /// A. Janns's variant: an atom on exactly one diagonal of the entry makes the
    /// ray miss the board; it gives no result (`~`).
    #[strum(to_string = "edge-miss")]
    #[strum(serialize = "edgemiss", serialize = "edge_miss")]
    EdgeMiss,
}

impl Rules {
    /// `standard` or `edge-miss`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The error of a name that is no rule set.
fn unknown_rules(s: &str) -> String {
    format!(
        "unknown rules {} (expected 'standard' or 'edge-miss')",
        crate::error::quote(s)
    )
}

/// What became of a ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Hit an atom (`@`).
    Absorbed,
    /// Came back out where it entered (`&`).
    Reflected,
    /// Came out at this other border position (1-based).
    Exit(usize),
    /// Missed the board at entry (only under [`Rules::EdgeMiss`], `~`).
    Miss,
}

/// The outcome as one JSON object everywhere: `{"result": "exit", "exit": 26}`,
/// `{"result": "absorbed", "exit": null}`; `result` is `absorbed`,
/// `reflected`, `exit` or `miss`.
#[derive(serde::Serialize, serde::Deserialize)]
struct OutcomeObject {
    result: OutcomeKind,
    exit: Option<usize>,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum OutcomeKind {
    Absorbed,
    Reflected,
    Exit,
    Miss,
}

impl serde::Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (result, exit) = match *self {
            Outcome::Absorbed => (OutcomeKind::Absorbed, None),
            Outcome::Reflected => (OutcomeKind::Reflected, None),
            Outcome::Exit(k) => (OutcomeKind::Exit, Some(k)),
            Outcome::Miss => (OutcomeKind::Miss, None),
        };
        OutcomeObject { result, exit }.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Outcome, D::Error> {
        let o = OutcomeObject::deserialize(d)?;
        match (o.result, o.exit) {
            (OutcomeKind::Absorbed, None) => Ok(Outcome::Absorbed),
            (OutcomeKind::Reflected, None) => Ok(Outcome::Reflected),
            (OutcomeKind::Miss, None) => Ok(Outcome::Miss),
            (OutcomeKind::Exit, Some(k)) if k >= 1 => Ok(Outcome::Exit(k)),
            (OutcomeKind::Exit, _) => Err(serde::de::Error::custom(
                "an exit needs its border position (1 or more) in \"exit\"",
            )),
            (_, Some(_)) => Err(serde::de::Error::custom(
                "only an exit has a border position in \"exit\"",
            )),
        }
    }
}

impl Outcome {
    /// The outcome's dense code, the one table every compact store of
    /// outcomes uses (the strategy's spectra, the forward tallies, verify's
    /// groups, the census's records): 0 absorbed, 1 reflected, 2 miss,
    /// 2 + k out at border position k (so codes run to 2 + the number of
    /// border positions).
    ///
    /// ```
    /// use bbx::Outcome;
    /// for o in [Outcome::Absorbed, Outcome::Reflected, Outcome::Miss, Outcome::Exit(7)] {
    ///     assert_eq!(Outcome::from_code(o.code()), o);
    /// }
    /// assert_eq!(Outcome::Exit(1).code(), 3);
    /// assert_eq!(Outcome::codes(32), 35);
    /// ```
    pub const fn code(self) -> usize {
        match self {
            Outcome::Absorbed => 0,
            Outcome::Reflected => 1,
            Outcome::Miss => 2,
            Outcome::Exit(k) => 2 + k,
        }
    }

    /// The outcome of a [`code`](Outcome::code).
    pub const fn from_code(code: usize) -> Outcome {
        match code {
            0 => Outcome::Absorbed,
            1 => Outcome::Reflected,
            2 => Outcome::Miss,
            k => Outcome::Exit(k - 2),
        }
    }

    /// How many codes a box with `positions` border positions needs
    /// (every code is below it).
    pub const fn codes(positions: usize) -> usize {
        positions + 3
    }

    /// The outcome in words: `absorbed`, `reflected`, `out at 12`, `miss`.
    ///
    /// ```
    /// use bbx::Outcome;
    /// assert_eq!(Outcome::Exit(12).words(), "out at 12");
    /// ```
    pub fn words(self) -> String {
        match self {
            Outcome::Absorbed => "absorbed".into(),
            Outcome::Reflected => "reflected".into(),
            Outcome::Miss => "miss".into(),
            Outcome::Exit(k) => format!("out at {k}"),
        }
    }
}

/// One traced ray: its outcome, the cells it entered and its 90° turns.
///
/// The length of a hit or reflection at the entry is 0; a deep reflection counts
/// the cells entered before the ray reverses, and its turns before that point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RayTrace {
    /// What became of the ray.
    pub outcome: Outcome,
    /// Cells entered.
    pub length: u32,
    /// 90° deflections.
    pub turns: u32,
}

/// One state along a ray's path: a cell (1-based) and the heading the ray has
/// there. A cell appears once per heading, so a turn shows as the same cell twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathStep {
    /// Row, 1..=h.
    pub row: usize,
    /// Column, 1..=w.
    pub col: usize,
    /// Heading on this cell.
    pub heading: Heading,
}

const OUTSIDE: u16 = 0x100;
const MOVE: u8 = 0;
const HIT: u8 = 1;
const REFLECT: u8 = 2;
const TURN_LEFT: u8 = 3;
const TURN_RIGHT: u8 = 4;

/// Neighbour bits: bit k is the k-th of N, NE, E, SE, S, SW, W, NW.
const NEIGHBOURS: [(isize, isize); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// `ACTIONS[heading << 8 | mask]`: what a ray with this heading does on a cell
/// whose neighbour mask is `mask` (rules 1 to 4).
static ACTIONS: [u8; 1024] = build_actions();

const fn build_actions() -> [u8; 1024] {
    let mut t = [MOVE; 1024];
    let mut d = 0;
    while d < 4 {
        let a = 1usize << (2 * d);
        let l = 1usize << ((2 * d + 7) % 8);
        let r = 1usize << ((2 * d + 1) % 8);
        let mut m = 0;
        while m < 256 {
            t[d << 8 | m] = if m & a != 0 {
                HIT
            } else if m & l != 0 && m & r != 0 {
                REFLECT
            } else if m & l != 0 {
                TURN_RIGHT
            } else if m & r != 0 {
                TURN_LEFT
            } else {
                MOVE
            };
            m += 1;
        }
        d += 1;
    }
    t
}

/// What a ray tells of its decisions as it is traced
/// ([`Tracer::run_with`]): every one is taken on a cell (the padded index
/// `x`, outside the box at the entry) with a heading, and reads the three
/// cells ahead ([`Tracer::ahead`]) and nothing else.
pub(crate) trait Watch {
    /// The decision at the entry, on the outside cell `x`.
    #[inline(always)]
    fn entry(&mut self, _tracer: &Tracer, _x: usize, _d: usize) {}
    /// A decision on cell `x` inside the box.
    #[inline(always)]
    fn inside(&mut self, _tracer: &Tracer, _x: usize, _d: usize) {}
}

/// Watches nothing: the plain trace.
pub(crate) struct Unwatched;

impl Watch for Unwatched {}

/// Records the path: every cell inside the box with the heading the ray
/// has there.
struct Path<'a>(&'a mut Vec<PathStep>);

impl Watch for Path<'_> {
    #[inline(always)]
    fn inside(&mut self, tracer: &Tracer, x: usize, d: usize) {
        self.0.push(tracer.step_at(x, d));
    }
}

/// A board prepared for tracing rays under one rule set.
///
/// Create one per box and rule set and [`load`](Tracer::load) molecules into
/// it: loading costs a few dozen writes, so a tracer is cheap to reuse across
/// millions of molecules.
#[derive(Debug, Clone)]
pub struct Tracer {
    shape: Shape,
    stride: usize,
    rules: Rules,
    /// Padded (h+2)×(w+2) grid: low 8 bits = atoms among the 8 neighbours,
    /// `OUTSIDE` for the ring around the box.
    grid: Vec<u16>,
    /// Padded index → border position (0 inside and at corners).
    exit: Vec<u32>,
    /// Border position − 1 → (padded index, heading index).
    entry: Vec<(usize, usize)>,
    /// Padded-index step per heading.
    step: [isize; 4],
    /// Padded indices of the atoms currently loaded.
    loaded: Vec<usize>,
    /// Linear cell index → padded index.
    padded: Vec<u32>,
    /// Padded-index offsets of the eight neighbours, in `NEIGHBOURS` order.
    neighbour_offsets: [isize; 8],
}

impl Tracer {
    /// An empty board of the given box (a width alone is a square; each side
    /// 1..=[`MAX_WIDTH`](crate::rules::config::MAX_WIDTH)).
    pub fn new(shape: impl Into<Shape>, rules: Rules) -> Tracer {
        let shape = shape.into();
        let (w, h) = (shape.width, shape.height);
        let stride = w + 2;
        let rows = h + 2;
        let mut grid = vec![0u16; stride * rows];
        let mut exit = vec![0u32; stride * rows];
        for r in 0..rows {
            for c in 0..stride {
                if r == 0 || c == 0 || r == h + 1 || c == w + 1 {
                    grid[r * stride + c] = OUTSIDE;
                    if let Some(pos) = position_at(shape, r, c) {
                        exit[r * stride + c] = pos as u32;
                    }
                }
            }
        }
        let entry = (1..=shape.positions())
            .map(|pos| {
                let q = port(shape, pos);
                (q.row * stride + q.col, q.heading.index())
            })
            .collect();
        let s = stride as isize;
        Tracer {
            shape,
            stride,
            rules,
            grid,
            exit,
            entry,
            step: [-s, 1, s, -1],
            loaded: Vec::new(),
            padded: (0..shape.cells())
                .map(|a| ((a / w + 1) * stride + a % w + 1) as u32)
                .collect(),
            neighbour_offsets: NEIGHBOURS.map(|(dr, dc)| dr * s + dc),
        }
    }

    /// Width of the box.
    pub fn width(&self) -> usize {
        self.shape.width
    }

    /// The box.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The rule set in force.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Places the molecule's atoms on the board, replacing the previous ones.
    ///
    /// # Panics
    /// When the molecule's box differs from the tracer's.
    pub fn load(&mut self, molecule: &Molecule) {
        assert_eq!(
            molecule.shape(),
            self.shape,
            "molecule and tracer boxes differ"
        );
        self.load_cells(molecule.atoms());
    }

    /// Places atoms given by linear cell indices (each below w·h), replacing the
    /// previous ones.
    pub fn load_cells(&mut self, atoms: &[usize]) {
        let offsets = self.neighbour_offsets;
        for &x in &self.loaded {
            for off in offsets {
                self.grid[x.wrapping_add_signed(off)] &= OUTSIDE;
            }
        }
        self.loaded.clear();
        for &a in atoms {
            let x = self.padded[a] as usize;
            self.loaded.push(x);
            for (k, off) in offsets.into_iter().enumerate() {
                // The neighbour in direction k sees this atom in the opposite direction.
                self.grid[x.wrapping_add_signed(off)] |= 1 << ((k + 4) % 8);
            }
        }
    }

    /// Places these atoms (distinct cells), replacing the previous ones, as
    /// [`load_cells`](Self::load_cells) does, but moves only the atoms whose
    /// place in the list changed: molecules met in number order mostly differ
    /// in their last atom, which then costs 16 writes instead of 16 per atom.
    pub fn update_cells(&mut self, atoms: &[usize]) {
        if self.loaded.len() != atoms.len() {
            self.load_cells(atoms);
            return;
        }
        let offsets = self.neighbour_offsets;
        // Every removal before any addition: an atom may change places in the
        // list without leaving the board.
        for (i, &a) in atoms.iter().enumerate() {
            let old = self.loaded[i];
            if old != self.padded[a] as usize {
                for (k, off) in offsets.into_iter().enumerate() {
                    self.grid[old.wrapping_add_signed(off)] &= !(1 << ((k + 4) % 8));
                }
            }
        }
        for (i, &a) in atoms.iter().enumerate() {
            let x = self.padded[a] as usize;
            if self.loaded[i] != x {
                for (k, off) in offsets.into_iter().enumerate() {
                    self.grid[x.wrapping_add_signed(off)] |= 1 << ((k + 4) % 8);
                }
                self.loaded[i] = x;
            }
        }
    }

    /// Puts an atom on cell `a` (a linear index below w×h) if it has none,
    /// else takes it away, keeping the other atoms: 8 writes, and, to take
    /// one away, a search of the atoms loaded (the latest first). For a
    /// board changed one cell at a time, as a player places and removes
    /// atoms.
    ///
    /// ```
    /// use bbx::{Molecule, Rules, Tracer};
    /// let mut t = Tracer::new(4, Rules::Standard);
    /// t.toggle_cell(0);
    /// t.toggle_cell(2);
    /// t.toggle_cell(5);
    /// t.toggle_cell(5);
    /// let mut u = Tracer::new(4, Rules::Standard);
    /// u.load(&"O-O-------------".parse::<Molecule>().unwrap());
    /// assert!((1..=16).all(|q| t.trace(q) == u.trace(q)));
    /// ```
    pub fn toggle_cell(&mut self, a: usize) {
        let x = self.padded[a] as usize;
        match self.loaded.iter().rposition(|&y| y == x) {
            Some(i) => {
                self.loaded.swap_remove(i);
            }
            None => self.loaded.push(x),
        }
        for (k, off) in self.neighbour_offsets.into_iter().enumerate() {
            // The neighbour in direction k sees this cell in the opposite
            // direction; its bit flips with the atom.
            self.grid[x.wrapping_add_signed(off)] ^= 1 << ((k + 4) % 8);
        }
    }

    /// Puts an atom on cell `a` (a linear index below w×h, with no atom
    /// yet), after the atoms loaded: 8 writes.
    #[inline]
    pub(crate) fn push_cell(&mut self, a: usize) {
        let x = self.padded[a] as usize;
        self.loaded.push(x);
        for (k, off) in self.neighbour_offsets.into_iter().enumerate() {
            self.grid[x.wrapping_add_signed(off)] |= 1 << ((k + 4) % 8);
        }
    }

    /// Takes away the atom loaded last, if any: 8 writes.
    #[inline]
    pub(crate) fn pop_cell(&mut self) {
        if let Some(x) = self.loaded.pop() {
            for (k, off) in self.neighbour_offsets.into_iter().enumerate() {
                self.grid[x.wrapping_add_signed(off)] &= !(1 << ((k + 4) % 8));
            }
        }
    }

    /// Traces the ray shot from border position `pos` (1..=2(w+h)).
    #[inline]
    pub fn trace(&self, pos: usize) -> RayTrace {
        self.run(pos, None)
    }

    /// Traces the ray shot from `pos` and records its path: every cell it enters,
    /// with the heading it has there (a turn adds the same cell with the new
    /// heading). A deep reflection's path stops where the ray reverses.
    pub fn trace_path(&self, pos: usize) -> (RayTrace, Vec<PathStep>) {
        let mut path = Vec::new();
        let t = self.run(pos, Some(&mut path));
        (t, path)
    }

    /// Traces every border position into `out` (resized to 2(w+h)), tracing
    /// each exit pair once: the partner gets the same length and turns (paths
    /// are reversible).
    pub fn trace_all(&self, out: &mut Vec<RayTrace>) {
        let n = self.shape.positions();
        const UNSET: RayTrace = RayTrace {
            outcome: Outcome::Miss,
            length: u32::MAX,
            turns: 0,
        };
        out.clear();
        out.resize(n, UNSET);
        let out = &mut out[..n];
        for pos in 1..=n {
            if out[pos - 1].length != u32::MAX {
                continue;
            }
            let t = self.trace(pos);
            out[pos - 1] = t;
            if let Outcome::Exit(k) = t.outcome {
                out[k - 1] = RayTrace {
                    outcome: Outcome::Exit(pos),
                    ..t
                };
            }
        }
    }

    /// Traces every border position as a census needs it, exit pairs once:
    /// `codes[i]` (2(w+h) of them) becomes the [`code`](Outcome::code) of the
    /// ray from position i+1, as a byte; `records` becomes the most turns
    /// and the longest path of the absorbed, reflected (or missing) and exit
    /// rays, in that order (0 where there is no such ray). Boxes of up to
    /// 252 border positions (63 wide for a square: the codes are bytes).
    ///
    /// ```
    /// use bbx::{Molecule, Outcome, Rules, Tracer};
    /// let m: Molecule = "O-O-------------".parse().unwrap();
    /// let mut t = Tracer::new(4, Rules::Standard);
    /// t.load(&m);
    /// let (mut codes, mut records) = (vec![0u8; 16], [0u32; 6]);
    /// t.trace_codes(&mut codes, &mut records);
    /// assert_eq!(&codes[..4], &[0, 1, 12, 11]); // @ & (out at 10) (out at 9)
    /// assert_eq!(Outcome::from_code(12), Outcome::Exit(10));
    /// assert_eq!(records, [0, 3, 0, 3, 1, 4]);
    /// ```
    pub fn trace_codes(&self, codes: &mut [u8], records: &mut [u32; 6]) {
        let n = self.shape.positions();
        // Every code is below `Outcome::codes(n)`, and u8::MAX marks a
        // position not traced yet.
        assert!(
            Outcome::codes(n) <= u8::MAX as usize,
            "trace_codes takes boxes of up to 252 border positions"
        );
        let code = |o: Outcome| o.code() as u8;
        let codes = &mut codes[..n];
        codes.fill(u8::MAX);
        *records = [0; 6];
        for pos in 1..=n {
            if codes[pos - 1] != u8::MAX {
                continue;
            }
            let t = self.run(pos, None);
            codes[pos - 1] = code(t.outcome);
            let kind = match t.outcome {
                Outcome::Absorbed => 0,
                Outcome::Reflected | Outcome::Miss => 2,
                Outcome::Exit(k) => {
                    codes[k - 1] = code(Outcome::Exit(pos));
                    4
                }
            };
            records[kind] = records[kind].max(t.turns);
            records[kind + 1] = records[kind + 1].max(t.length);
        }
    }

    #[inline(always)]
    fn run(&self, pos: usize, path: Option<&mut Vec<PathStep>>) -> RayTrace {
        match path {
            Some(path) => self.run_with(pos, &mut Path(path)),
            None => self.run_with(pos, &mut Unwatched),
        }
    }

    /// Traces the ray shot from `pos`, telling `watch` of every decision it
    /// takes: at the entry, and on each cell inside the box it stands on
    /// (once per heading it has there).
    #[inline(always)]
    pub(crate) fn run_with<W: Watch>(&self, pos: usize, watch: &mut W) -> RayTrace {
        let (start, mut d) = self.entry[pos - 1];
        let grid = &self.grid[..];
        let edge = |outcome| RayTrace {
            outcome,
            length: 0,
            turns: 0,
        };
        watch.entry(self, start, d);
        match ACTIONS[d << 8 | (grid[start] & 0xFF) as usize] {
            MOVE => {}
            HIT => return edge(Outcome::Absorbed),
            REFLECT => return edge(Outcome::Reflected),
            _ => {
                return edge(match self.rules {
                    Rules::Standard => Outcome::Reflected,
                    Rules::EdgeMiss => Outcome::Miss,
                });
            }
        }
        let mut step = self.step[d];
        let mut x = start.wrapping_add_signed(step);
        let mut length = 1u32;
        let mut turns = 0u32;
        loop {
            debug_assert!(x < grid.len());
            // SAFETY: the ray starts on a cell inside the box and moves one step at
            // a time; it stops on the first cell of the outside ring, so `x` never
            // leaves the padded grid.
            let cell = unsafe { *grid.get_unchecked(x) };
            if cell & OUTSIDE == 0 {
                watch.inside(self, x, d);
            }
            if cell == 0 {
                // No atom among the eight neighbours: straight on.
                x = x.wrapping_add_signed(step);
                length += 1;
                continue;
            }
            if cell & OUTSIDE != 0 {
                let k = self.exit[x] as usize;
                let outcome = if k == pos {
                    Outcome::Reflected
                } else {
                    Outcome::Exit(k)
                };
                return RayTrace {
                    outcome,
                    length: length - 1,
                    turns,
                };
            }
            match ACTIONS[d << 8 | cell as usize] {
                MOVE => {
                    x = x.wrapping_add_signed(step);
                    length += 1;
                }
                HIT => {
                    return RayTrace {
                        outcome: Outcome::Absorbed,
                        length,
                        turns,
                    };
                }
                REFLECT => {
                    return RayTrace {
                        outcome: Outcome::Reflected,
                        length,
                        turns,
                    };
                }
                TURN_LEFT => {
                    d = (d + 3) & 3;
                    step = self.step[d];
                    turns += 1;
                    self.check_turns(pos, turns);
                }
                _ => {
                    d = (d + 1) & 3;
                    step = self.step[d];
                    turns += 1;
                    self.check_turns(pos, turns);
                }
            }
        }
    }

    /// The padded indices of the three cells a ray on padded cell `x`
    /// heading `d` decides by: the cell ahead and the two diagonally ahead.
    #[inline(always)]
    pub(crate) fn ahead(&self, x: usize, d: usize) -> [usize; 3] {
        let a = x.wrapping_add_signed(self.step[d]);
        [
            a,
            a.wrapping_add_signed(self.step[(d + 3) & 3]),
            a.wrapping_add_signed(self.step[(d + 1) & 3]),
        ]
    }

    /// The number of cells of the padded grid (the box and the ring around it).
    pub(crate) fn padded_len(&self) -> usize {
        self.grid.len()
    }

    /// The padded index of cell `a` (a linear index below w×h).
    #[inline(always)]
    pub(crate) fn padded(&self, a: usize) -> usize {
        self.padded[a] as usize
    }

    /// A ray cannot turn more often than there are states: past that it would be
    /// going round in circles, which the rules (being reversible) never allow
    /// from the border. Only turns are counted: a straight run always ends.
    #[inline(always)]
    fn check_turns(&self, pos: usize, turns: u32) {
        assert!(
            (turns as usize) <= 4 * self.grid.len(),
            "bug: the ray from position {pos} does not terminate"
        );
    }

    fn step_at(&self, x: usize, d: usize) -> PathStep {
        PathStep {
            row: x / self.stride,
            col: x % self.stride,
            heading: Heading::ALL[d],
        }
    }
}

/// Every ray's outcome for each of `molecules` (all of one box): row i is
/// molecule i, column j border position j+1.
pub fn outcome_table(molecules: &[Molecule], rules: Rules) -> Vec<Vec<Outcome>> {
    let Some(first) = molecules.first() else {
        return Vec::new();
    };
    let mut tracer = Tracer::new(first.shape(), rules);
    let mut rays = Vec::new();
    molecules
        .iter()
        .map(|m| {
            tracer.load(m);
            tracer.trace_all(&mut rays);
            rays.iter().map(|r| r.outcome).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_read_in_any_case_and_named_in_kebab_case() {
        for (text, rules) in [
            ("standard", Rules::Standard),
            ("STANDARD", Rules::Standard),
            ("edge-miss", Rules::EdgeMiss),
            ("Edge_Miss", Rules::EdgeMiss),
            ("edgemiss", Rules::EdgeMiss),
        ] {
            assert_eq!(text.parse::<Rules>(), Ok(rules));
        }
        assert_eq!(Rules::EdgeMiss.to_string(), "edge-miss");
        assert_eq!(Rules::Standard.name(), "standard");
        assert_eq!(
            "edge miss".parse::<Rules>(),
            Err("unknown rules 'edge miss' (expected 'standard' or 'edge-miss')".to_string())
        );
    }

    fn tracer(m: &str, rules: Rules) -> Tracer {
        let m: Molecule = m.parse().unwrap();
        let mut t = Tracer::new(m.shape(), rules);
        t.load(&m);
        t
    }

    #[test]
    fn empty_board_goes_straight_through() {
        for p in 1..=6 {
            let t = Tracer::new(p, Rules::Standard);
            for pos in 1..=4 * p {
                // Left row r ↔ right row r; bottom column c ↔ top column c.
                let partner = if pos <= p || (2 * p < pos && pos <= 3 * p) {
                    3 * p + 1 - pos
                } else {
                    5 * p + 1 - pos
                };
                let r = t.trace(pos);
                assert_eq!(
                    r,
                    RayTrace {
                        outcome: Outcome::Exit(partner),
                        length: p as u32,
                        turns: 0
                    }
                );
            }
        }
    }

    #[test]
    fn empty_rectangles_go_straight_through() {
        for (w, h) in [(8, 6), (5, 9), (1, 4), (3, 1)] {
            let shape = Shape::new(w, h).unwrap();
            let t = Tracer::new(shape, Rules::Standard);
            for pos in 1..=shape.positions() {
                let q = port(shape, pos);
                let r = t.trace(pos);
                let Outcome::Exit(k) = r.outcome else {
                    panic!("{shape} position {pos}: {r:?}");
                };
                let e = port(shape, k);
                // Out on the facing side, on the same line, across the box.
                assert_eq!((e.line, e.heading), (q.line, q.heading.reverse()));
                let across = if q.heading.delta().0 == 0 { w } else { h };
                assert_eq!((r.length, r.turns), (across as u32, 0));
            }
        }
    }

    #[test]
    fn a_ray_turns_in_a_rectangle() {
        // 5 wide, 3 high, one atom at row 1, column 3: the ray up column 2
        // turns left at row 2 and leaves on the left side at row 2.
        let m: Molecule = "--O--/-----/-----".parse().unwrap();
        let mut t = Tracer::new(m.shape(), Rules::Standard);
        t.load(&m);
        // Bottom of column 2 is position 3 + 2 = 5; left of row 2 is 2.
        assert_eq!(
            t.trace(5),
            RayTrace {
                outcome: Outcome::Exit(2),
                length: 3,
                turns: 1
            }
        );
        // Straight down column 3 from the top: top column 3 is 16 + 1 − 3.
        assert_eq!(t.trace(14).outcome, Outcome::Absorbed);
    }

    #[test]
    fn hit_on_first_cell_wins_over_edge_reflection() {
        // Atoms on the first cell and on both diagonals of the entry at position 2.
        let t = tracer("O---O---O-------", Rules::Standard);
        assert_eq!(t.trace(2).outcome, Outcome::Absorbed);
        let t = tracer("O---O---O-------", Rules::EdgeMiss);
        assert_eq!(t.trace(2).outcome, Outcome::Absorbed);
    }

    #[test]
    fn edge_reflection_and_edge_miss() {
        // Atom at row 1, column 1: the ray from position 2 (row 2) sees it diagonally.
        let m = "O---------------";
        let t = tracer(m, Rules::Standard);
        assert_eq!(
            t.trace(2),
            RayTrace {
                outcome: Outcome::Reflected,
                length: 0,
                turns: 0
            }
        );
        let t = tracer(m, Rules::EdgeMiss);
        assert_eq!(
            t.trace(2),
            RayTrace {
                outcome: Outcome::Miss,
                length: 0,
                turns: 0
            }
        );
        // The ray along row 1 hits it before entering; a hit wins.
        assert_eq!(
            t.trace(1),
            RayTrace {
                outcome: Outcome::Absorbed,
                length: 0,
                turns: 0
            }
        );
        // Position 3 (row 3) goes straight through.
        assert_eq!(t.trace(3).outcome, Outcome::Exit(10));
    }

    #[test]
    fn ray_along_an_empty_edge_goes_straight_through() {
        // Atoms on rows 3 and 4 are never diagonally ahead of a ray on row 1.
        let t = tracer("--------OO--OO--", Rules::Standard);
        assert_eq!(
            t.trace(1),
            RayTrace {
                outcome: Outcome::Exit(12),
                length: 4,
                turns: 0
            }
        );
        assert_eq!(
            t.trace(13),
            RayTrace {
                outcome: Outcome::Exit(8),
                length: 4,
                turns: 0
            }
        );
    }

    #[test]
    fn updating_atoms_is_loading_them() {
        // Molecules of 3 atoms in 4×4 in number order, and the same jumbled.
        let mut all = Vec::new();
        for a in 0..16 {
            for b in a + 1..16 {
                for c in b + 1..16 {
                    all.push(Molecule::new(4, [a, b, c]).unwrap());
                }
            }
        }
        let mut updated = Tracer::new(4, Rules::Standard);
        let mut loaded = Tracer::new(4, Rules::Standard);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in (0..all.len()).chain((0..all.len()).map(|i| i * 37 % all.len())) {
            updated.update_cells(all[i].atoms());
            loaded.load(&all[i]);
            updated.trace_all(&mut a);
            loaded.trace_all(&mut b);
            assert_eq!(a, b, "{}", all[i]);
        }
    }

    #[test]
    fn deflection_to_the_own_entry_is_a_reflection() {
        // 3×3, atoms at (1,1) and (1,3): a ray from the bottom of column 2 reaches
        // (2,2), sees both diagonals and comes back.
        let t = tracer("O-O------", Rules::Standard);
        let r = t.trace(5);
        assert_eq!(
            r,
            RayTrace {
                outcome: Outcome::Reflected,
                length: 2,
                turns: 0
            }
        );
    }
}
