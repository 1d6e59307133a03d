//! Cells the observed rays decide on their own, before any solving.

use crate::control::{Budget, Cut, Halt, Ticker};
use crate::rules::board::{Heading, port, position_at};
use crate::rules::config::Shape;
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;

/// Cells that the observed rays decide on their own.
///
/// Each ray is run forward from its entry (an exit pair from both ends) over
/// the decided cells. Where its next step depends on undecided cells, the values
/// that would end it other than as observed are ruled out, and a cell left with
/// one possible value is decided; when `max_atoms` atoms are placed, every
/// other cell is empty. This repeats until nothing changes. Then each undecided
/// cell that some ray is waiting on is *probed*: a value that makes some ray
/// impossible is ruled out. Contradictory observations are left for the solver
/// to report.
pub fn infer(observed: &Observation, rules: Rules, max_atoms: usize) -> Vec<Option<bool>> {
    infer_within(observed, rules, max_atoms, &Budget::default()).known
}

/// What [`infer_within`] found.
#[derive(Debug, Clone)]
pub(crate) struct Inferred {
    /// Per cell: `Some(true)` atom, `Some(false)` empty, `None` undecided.
    pub(crate) known: Vec<Option<bool>>,
    /// True when the rays cannot all end as observed with at most
    /// `max_atoms` atoms: no molecule fits.
    pub(crate) contradiction: bool,
    /// Set when `budget` stopped the inference early (what is known is still
    /// true, there is just less of it).
    pub(crate) cut: Option<Cut>,
}

/// [`infer`] within `budget` (checked every 64 walks), saying also whether the rays
/// contradict each other (with at most `max_atoms` atoms).
pub(crate) fn infer_within(
    observed: &Observation,
    rules: Rules,
    max_atoms: usize,
    budget: &Budget,
) -> Inferred {
    let p = observed.shape();
    let mut walks: Vec<(usize, Outcome)> = Vec::new();
    for (pos, o) in observed.rays() {
        walks.push((pos, o));
        if let Outcome::Exit(k) = o {
            walks.push((k, Outcome::Exit(pos)));
        }
    }
    let mut net = Inference {
        p,
        rules,
        walks,
        watch: vec![Vec::new(); p.cells()],
        queued: Vec::new(),
        waiters: Vec::new(),
        waited: Vec::new(),
        resume: Vec::new(),
        resume_trail: None,
        ticker: budget.ticker(64),
        decided: Vec::new(),
        frontier: Vec::new(),
        queue: Vec::new(),
    };
    net.queued = vec![false; net.walks.len()];
    net.waited = vec![false; net.walks.len()];
    net.resume = vec![None; net.walks.len()];
    let mut cells = Cells {
        known: vec![None; p.cells()],
        atoms: 0,
        max_atoms,
        filled: false,
        trail: None,
        filled_in_trial: false,
    };
    let all: Vec<usize> = (0..net.walks.len()).collect();
    let mut result = net.propagate(&mut cells, all);
    if result.is_ok() {
        result = net.probe(&mut cells);
    }
    let (contradiction, cut) = match result {
        Ok(()) => (false, None),
        Err(Halt::Failed(Contradiction)) => (true, None),
        Err(Halt::Cut(c)) => (false, Some(c)),
    };
    let filled = cells.filled;
    let mut known = cells.known;
    if filled && !contradiction {
        // Every atom is placed: the rest is empty.
        for k in known.iter_mut().filter(|k| k.is_none()) {
            *k = Some(false);
        }
    }
    Inferred {
        known,
        contradiction,
        cut,
    }
}

/// Why propagation fails before its fixed point (beside a cut): some ray
/// cannot end as observed, or there are too many atoms.
struct Contradiction;

/// How propagation stops short of its fixed point.
type Stop = Halt<Contradiction>;

/// What is known of the cells, and while probing, what to undo.
struct Cells {
    known: Vec<Option<bool>>,
    /// Cells known to hold an atom.
    atoms: usize,
    max_atoms: usize,
    /// True once every atom was found placed when the walks had nothing
    /// more to do: every cell not known is then empty.
    filled: bool,
    /// While probing: the cells decided since the probe began, and whether
    /// the probe filled the rest.
    trail: Option<Vec<usize>>,
    filled_in_trial: bool,
}

impl Cells {
    /// What is known of cell `c`, the rest being empty once filled.
    fn get(&self, c: usize) -> Option<bool> {
        match self.known[c] {
            None if self.filled => Some(false),
            k => k,
        }
    }

    /// Fills the rest with empty cells when every atom is placed (and they
    /// are not yet); says whether it did.
    fn fill(&mut self) -> bool {
        if self.filled || self.atoms < self.max_atoms {
            return false;
        }
        self.filled = true;
        self.filled_in_trial = self.trail.is_some();
        true
    }

    /// Decides cell `c` (too many atoms are found when the walks are done).
    fn set(&mut self, c: usize, v: bool) {
        self.known[c] = Some(v);
        if let Some(t) = &mut self.trail {
            t.push(c);
        }
        if v {
            self.atoms += 1;
        }
    }

    /// Undoes what was decided since the probe began; gives back the
    /// trail, emptied, for the next probe.
    fn undo(&mut self) -> Vec<usize> {
        if self.filled_in_trial {
            self.filled = false;
            self.filled_in_trial = false;
        }
        let mut trail = self.trail.take().unwrap_or_default();
        for c in trail.drain(..) {
            if self.known[c] == Some(true) {
                self.atoms -= 1;
            }
            self.known[c] = None;
        }
        trail
    }
}

/// The rays being run by [`infer`], and which undecided cells each waits on.
struct Inference<'g> {
    p: Shape,
    rules: Rules,
    walks: Vec<(usize, Outcome)>,
    /// Cell → the walks that stopped on it (a superset: entries are never removed).
    watch: Vec<Vec<usize>>,
    /// Walk → whether it is in the queue of [`propagate`](Self::propagate).
    queued: Vec<bool>,
    /// The walks that have waited on some cell (each once), and per walk
    /// whether it is among them.
    waiters: Vec<usize>,
    waited: Vec<bool>,
    /// Walk → the state it last waited in (see [`walk`]).
    resume: Vec<Option<At>>,
    /// While probing: the states replaced since the probe began.
    resume_trail: Option<Vec<(usize, Option<At>)>>,
    /// The budget, asked every 64 walks.
    ticker: Ticker<'g>,
    /// Scratch of [`walk`]: the cells a walk decided, and those it waits on.
    decided: Vec<usize>,
    frontier: Vec<usize>,
    /// Scratch of [`propagate`](Self::propagate): its queue.
    queue: Vec<usize>,
}

impl Inference<'_> {
    /// Counts a walk; asks the budget every 64.
    fn tick(&mut self) -> Result<(), Stop> {
        Ok(self.ticker.tick()?)
    }

    /// Runs the given walks, and every walk waiting on a cell they decide, until
    /// nothing changes; `Err` when some ray cannot end as observed or there are
    /// too many atoms (or a limit is reached).
    fn propagate(&mut self, cells: &mut Cells, start: Vec<usize>) -> Result<(), Stop> {
        let mut queue = std::mem::take(&mut self.queue);
        for w in start {
            if !self.queued[w] {
                self.queued[w] = true;
                queue.push(w);
            }
        }
        self.run_queue(cells, queue)
    }

    /// Drains `queue` (its walks marked queued), then keeps it for the next
    /// time.
    fn run_queue(&mut self, cells: &mut Cells, mut queue: Vec<usize>) -> Result<(), Stop> {
        let result = self.drain(cells, &mut queue);
        for w in queue.drain(..) {
            self.queued[w] = false;
        }
        self.queue = queue;
        result
    }

    fn drain(&mut self, cells: &mut Cells, queue: &mut Vec<usize>) -> Result<(), Stop> {
        loop {
            self.drain_queue(cells, queue)?;
            if cells.atoms > cells.max_atoms {
                return Err(Halt::Failed(Contradiction));
            }
            if !cells.fill() {
                return Ok(());
            }
            // Every atom is placed: the rest is empty, and every walk that
            // waited may go on.
            for i in 0..self.waiters.len() {
                let w = self.waiters[i];
                if !self.queued[w] {
                    self.queued[w] = true;
                    queue.push(w);
                }
            }
        }
    }

    fn drain_queue(&mut self, cells: &mut Cells, queue: &mut Vec<usize>) -> Result<(), Stop> {
        while let Some(w) = queue.pop() {
            self.queued[w] = false;
            self.tick()?;
            let mut decided = std::mem::take(&mut self.decided);
            let mut frontier = std::mem::take(&mut self.frontier);
            let at = walk(
                cells,
                self.p,
                self.rules,
                self.walks[w],
                self.resume[w],
                &mut decided,
                &mut frontier,
            );
            let at = match at {
                Ok(at) => at,
                Err(e) => {
                    self.decided = decided;
                    self.frontier = frontier;
                    return Err(e);
                }
            };
            if at.is_some() && at != self.resume[w] {
                // Every step before `at` is decided by known cells: the walk
                // goes on from there next time (undone after a probe).
                if let Some(t) = &mut self.resume_trail {
                    t.push((w, self.resume[w]));
                }
                self.resume[w] = at;
            }
            for &c in &frontier {
                if !self.watch[c].contains(&w) {
                    if !self.waited[w] {
                        self.waited[w] = true;
                        self.waiters.push(w);
                    }
                    self.watch[c].push(w);
                }
            }
            for &c in &decided {
                for &w2 in &self.watch[c] {
                    if !self.queued[w2] {
                        self.queued[w2] = true;
                        queue.push(w2);
                    }
                }
            }
            self.decided = decided;
            self.frontier = frontier;
        }
        Ok(())
    }

    /// Decides cell `c` and runs the walks waiting on it.
    fn decide(&mut self, cells: &mut Cells, c: usize, v: bool) -> Result<(), Stop> {
        cells.set(c, v);
        let mut queue = std::mem::take(&mut self.queue);
        for &w in &self.watch[c] {
            if !self.queued[w] {
                self.queued[w] = true;
                queue.push(w);
            }
        }
        self.run_queue(cells, queue)
    }

    /// Probes each undecided cell some ray waits on, both ways, until
    /// nothing changes.
    fn probe(&mut self, cells: &mut Cells) -> Result<(), Stop> {
        let n = self.p.cells();
        let mut trail = Vec::new();
        let mut resume_trail = Vec::new();
        // Round the cells until a whole round has decided nothing: every
        // cell was then probed against what is known now.
        let mut c = 0;
        let mut quiet = 0;
        while quiet < n {
            quiet += 1;
            let cell = c;
            c = if c + 1 == n { 0 } else { c + 1 };
            if cells.get(cell).is_some() || self.watch[cell].is_empty() {
                continue;
            }
            for v in [true, false] {
                cells.trail = Some(std::mem::take(&mut trail));
                self.resume_trail = Some(std::mem::take(&mut resume_trail));
                let trial = self.decide(cells, cell, v);
                trail = cells.undo();
                resume_trail = self.resume_trail.take().unwrap_or_default();
                for (w, at) in resume_trail.drain(..).rev() {
                    self.resume[w] = at;
                }
                match trial {
                    Ok(()) => {}
                    Err(Halt::Cut(cut)) => return Err(cut.into()),
                    Err(Halt::Failed(Contradiction)) => {
                        self.decide(cells, cell, !v)?;
                        quiet = 0;
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Where a walk stands: cell, heading, and whether it is still at the entry.
/// Where a ray stands: its cell (row, column, from 1; the border's at its
/// entry), its heading, and whether this is its first step.
pub(crate) type At = (isize, isize, Heading, bool);

/// The step a ray standing at `at` makes when the cell ahead, the one
/// diagonally ahead on its left and the one on its right hold `[a, l, r]`
/// (cells outside the box are empty): the rules of the game, stated once
/// for the inference and the exact count.
fn step(p: Shape, rules: Rules, (x, y, d, first): At, [a, l, r]: [bool; 3]) -> Step {
    let (wi, hi) = (p.width as isize, p.height as isize);
    let inside = |r: isize, c: isize| r >= 1 && c >= 1 && r <= hi && c <= wi;
    let (dr, dc) = d.delta();
    let (ar, ac) = (x + dr, y + dc);
    let step = if a {
        Step::End(Outcome::Absorbed)
    } else if first && (l || r) {
        match rules {
            Rules::EdgeMiss if l != r => Step::End(Outcome::Miss),
            _ => Step::End(Outcome::Reflected),
        }
    } else if l && r {
        Step::End(Outcome::Reflected)
    } else if l {
        Step::Go(x, y, d.right())
    } else if r {
        Step::Go(x, y, d.left())
    } else {
        Step::Go(ar, ac, d)
    };
    // A state whose cell ahead is outside the box: the ray comes out there.
    match step {
        Step::Go(sx, sy, sd) if !inside(sx + sd.delta().0, sy + sd.delta().1) => {
            let (tr, tc) = (sx + sd.delta().0, sy + sd.delta().1);
            match position_at(p, tr as usize, tc as usize) {
                Some(k) => Step::End(Outcome::Exit(k)),
                None => step,
            }
        }
        other => other,
    }
}

/// Where the ray from border position `pos` ends when the cells are as
/// `known` says (`None`: undecided; with `filled`, every undecided cell is
/// empty), or the first undecided cell its way depends on, with the state
/// that needs it (to go on from once that cell is decided). It starts from
/// `from`, a state the cells decided lead it to (`None`: its entry). A
/// reflection at an edge that comes back out where it entered is a
/// reflection.
pub(crate) fn trace_known_from(
    known: &[Option<bool>],
    filled: bool,
    p: Shape,
    rules: Rules,
    pos: usize,
    from: Option<At>,
) -> Result<Outcome, (usize, At)> {
    let (wi, hi) = (p.width as isize, p.height as isize);
    let inside = |r: isize, c: isize| r >= 1 && c >= 1 && r <= hi && c <= wi;
    let cell = |r: isize, c: isize| ((r - 1) * wi + (c - 1)) as usize;
    let mut at: At = from.unwrap_or_else(|| {
        let q = port(p, pos);
        (q.row as isize, q.col as isize, q.heading, true)
    });
    for _ in 0..4 * p.cells() + 8 {
        let (x, y, d, _) = at;
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        if !inside(ar, ac) {
            break;
        }
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let mut v = [false; 3];
        for (i, (r, c)) in [(ar, ac), (ar + lr, ac + lc), (ar + rr, ac + rc)]
            .into_iter()
            .enumerate()
        {
            if inside(r, c) {
                v[i] = match known[cell(r, c)] {
                    Some(b) => b,
                    None if filled => false,
                    None => return Err((cell(r, c), at)),
                };
            }
        }
        match step(p, rules, at, v) {
            Step::End(Outcome::Exit(k)) if k == pos => return Ok(Outcome::Reflected),
            Step::End(o) => return Ok(o),
            Step::Go(nx, ny, nd) => at = (nx, ny, nd, false),
        }
    }
    // A ray turning for ever cannot be (every turn needs an atom beside a
    // cell it has not stood on); counted as staying in, never as fitting.
    Ok(Outcome::Miss)
}

/// The result of one step: the ray goes on (to a state) or ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Go(isize, isize, Heading),
    End(Outcome),
}

/// Runs one ray over the known cells; puts the cells it decided in
/// `decided` and the undecided cells its next step waits on in `frontier`
/// (both emptied first), and returns the state of its first step that
/// known cells do not decide alone (where it starts next time: `from`;
/// `None` for its entry); `Err` when the ray cannot end as observed.
#[allow(clippy::type_complexity)]
fn walk(
    cells: &mut Cells,
    p: Shape,
    rules: Rules,
    (pos, outcome): (usize, Outcome),
    from: Option<At>,
    decided: &mut Vec<usize>,
    frontier: &mut Vec<usize>,
) -> Result<Option<At>, Stop> {
    let (wi, hi) = (p.width as isize, p.height as isize);
    let inside = |r: isize, c: isize| r >= 1 && c >= 1 && r <= hi && c <= wi;
    let cell = |r: isize, c: isize| ((r - 1) * wi + (c - 1)) as usize;
    let q = port(p, pos);
    let (mut x, mut y, mut d, mut first) =
        from.unwrap_or((q.row as isize, q.col as isize, q.heading, true));
    decided.clear();
    frontier.clear();
    let mut resume = None;
    for _ in 0..4 * p.cells() + 8 {
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        if !inside(ar, ac) {
            return Ok(resume); // the ray came out (judged on the way)
        }
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let around = [(ar, ac), (ar + lr, ac + lc), (ar + rr, ac + rc)];
        let look = |(r, c): (isize, isize)| {
            if inside(r, c) {
                cells.get(cell(r, c))
            } else {
                Some(false)
            }
        };
        // Written out rather than `around.map`, which the compiler leaves
        // as a call (10% of a check's time).
        let vals = [look(around[0]), look(around[1]), look(around[2])];
        // The step the three cells make, and whether the observation allows it.
        let step_of = |v: [bool; 3]| {
            let step = step(p, rules, (x, y, d, first), v);
            let ok = match step {
                Step::End(e) => {
                    e == outcome || (outcome == Outcome::Reflected && e == Outcome::Exit(pos))
                }
                Step::Go(..) => true,
            };
            (step, ok)
        };
        if let [Some(a), Some(l), Some(r)] = vals {
            // Known cells decide the step (the common case).
            match step_of([a, l, r]) {
                (_, false) => return Err(Halt::Failed(Contradiction)),
                (Step::End(_), true) => return Ok(resume),
                (Step::Go(nx, ny, nd), true) => {
                    (x, y, d) = (nx, ny, nd);
                    first = false;
                    continue;
                }
            }
        }
        let mut unknown = [0usize; 3];
        let mut unknowns = 0;
        for (i, v) in vals.iter().enumerate() {
            if v.is_none() {
                unknown[unknowns] = i;
                unknowns += 1;
            }
        }
        let unknown = &unknown[..unknowns];
        let mut possible = [([false; 3], Step::End(Outcome::Miss)); 8];
        let mut possibles = 0;
        for bits in 0..1u32 << unknowns {
            // The unknown cells take the bits of `bits` in order (indices
            // written out, so that `v` stays in registers).
            let mut next = 0;
            let mut value = |known: Option<bool>| {
                known.unwrap_or_else(|| {
                    next += 1;
                    bits >> (next - 1) & 1 == 1
                })
            };
            let v = [value(vals[0]), value(vals[1]), value(vals[2])];
            let (step, ok) = step_of(v);
            if ok {
                possible[possibles] = (v, step);
                possibles += 1;
            }
        }
        let possible = &possible[..possibles];
        if possible.is_empty() {
            return Err(Halt::Failed(Contradiction));
        }
        for &i in unknown {
            let v0 = possible[0].0[i];
            if possible.iter().all(|(v, _)| v[i] == v0) {
                let (r, c) = around[i];
                cells.set(cell(r, c), v0);
                decided.push(cell(r, c));
            }
        }
        let open = unknown
            .iter()
            .any(|&i| cells.get(cell(around[i].0, around[i].1)).is_none());
        if open && resume.is_none() {
            // The first step that known cells do not decide alone: a walk
            // run again starts here (the steps before it cannot change).
            resume = Some((x, y, d, first));
        }
        let s0 = possible[0].1;
        if !possible.iter().all(|(_, s)| *s == s0) {
            frontier.extend(
                unknown
                    .iter()
                    .map(|&i| cell(around[i].0, around[i].1))
                    .filter(|&c| cells.get(c).is_none()),
            );
            return Ok(resume);
        }
        match s0 {
            Step::End(_) => return Ok(resume),
            Step::Go(nx, ny, nd) => {
                (x, y, d) = (nx, ny, nd);
                first = false;
            }
        }
    }
    Ok(resume)
}
