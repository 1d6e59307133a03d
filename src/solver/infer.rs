//! Cells the observed rays decide on their own, before any solving.

use crate::rules::board::{Heading, port, position_at};
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
    let p = observed.width();
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
        max_atoms,
        walks,
        watch: vec![Vec::new(); p * p],
    };
    let mut known: Vec<Option<bool>> = vec![None; p * p];
    let all: Vec<usize> = (0..net.walks.len()).collect();
    if net.propagate(&mut known, all).is_err() {
        return known;
    }
    loop {
        let mut progress = false;
        for c in 0..p * p {
            if known[c].is_some() || net.watch[c].is_empty() {
                continue;
            }
            for v in [true, false] {
                let mut trial = known.clone();
                trial[c] = Some(v);
                let waiting = net.watch[c].clone();
                if net.propagate(&mut trial, waiting).is_err() {
                    known[c] = Some(!v);
                    let waiting = net.watch[c].clone();
                    if net.propagate(&mut known, waiting).is_err() {
                        return known;
                    }
                    progress = true;
                    break;
                }
            }
        }
        if !progress {
            return known;
        }
    }
}

/// The rays being run by [`infer`], and which undecided cells each waits on.
struct Inference {
    p: usize,
    rules: Rules,
    max_atoms: usize,
    walks: Vec<(usize, Outcome)>,
    /// Cell → the walks that stopped on it (a superset: entries are never removed).
    watch: Vec<Vec<usize>>,
}

impl Inference {
    /// Runs the given walks, and every walk waiting on a cell they decide, until
    /// nothing changes; `Err` when some ray cannot end as observed or there are
    /// too many atoms.
    fn propagate(&mut self, known: &mut [Option<bool>], start: Vec<usize>) -> Result<(), ()> {
        let mut queued = vec![false; self.walks.len()];
        let mut queue = start;
        for &w in &queue {
            queued[w] = true;
        }
        loop {
            while let Some(w) = queue.pop() {
                queued[w] = false;
                let (pos, outcome) = self.walks[w];
                let (decided, frontier) = walk(known, self.p, self.rules, pos, outcome)?;
                for c in frontier {
                    if !self.watch[c].contains(&w) {
                        self.watch[c].push(w);
                    }
                }
                for c in decided {
                    for &w2 in &self.watch[c] {
                        if !queued[w2] {
                            queued[w2] = true;
                            queue.push(w2);
                        }
                    }
                }
            }
            let atoms = known.iter().filter(|k| **k == Some(true)).count();
            if atoms > self.max_atoms {
                return Err(());
            }
            if atoms < self.max_atoms || known.iter().all(|k| k.is_some()) {
                return Ok(());
            }
            // Every atom is placed: the rest is empty.
            for (c, k) in known.iter_mut().enumerate() {
                if k.is_none() {
                    *k = Some(false);
                    for &w2 in &self.watch[c] {
                        if !queued[w2] {
                            queued[w2] = true;
                            queue.push(w2);
                        }
                    }
                }
            }
        }
    }
}

/// The result of one step: the ray goes on (to a state) or ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Go(isize, isize, Heading),
    End(Outcome),
}

/// Runs one ray over the known cells; returns the cells it decided and the
/// undecided cells its next step waits on, or `Err` when the ray cannot end as
/// observed.
#[allow(clippy::type_complexity)]
fn walk(
    known: &mut [Option<bool>],
    p: usize,
    rules: Rules,
    pos: usize,
    outcome: Outcome,
) -> Result<(Vec<usize>, Vec<usize>), ()> {
    let pi = p as isize;
    let inside = |r: isize, c: isize| r >= 1 && c >= 1 && r <= pi && c <= pi;
    let cell = |r: isize, c: isize| ((r - 1) * pi + (c - 1)) as usize;
    let q = port(p, pos);
    let (mut x, mut y, mut d) = (q.row as isize, q.col as isize, q.heading);
    let mut first = true;
    let mut decided = Vec::new();
    for _ in 0..4 * p * p + 8 {
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        if !inside(ar, ac) {
            return Ok((decided, Vec::new())); // the ray came out (judged on the way)
        }
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let cells = [(ar, ac), (ar + lr, ac + lc), (ar + rr, ac + rc)];
        let value = |k: &[Option<bool>], (r, c): (isize, isize)| {
            if inside(r, c) {
                k[cell(r, c)]
            } else {
                Some(false)
            }
        };
        let vals: [Option<bool>; 3] = cells.map(|rc| value(known, rc));
        let unknown: Vec<usize> = (0..3).filter(|&i| vals[i].is_none()).collect();
        let mut possible: Vec<([bool; 3], Step)> = Vec::new();
        for bits in 0..1u32 << unknown.len() {
            let mut v = vals.map(|o| o.unwrap_or(false));
            for (j, &i) in unknown.iter().enumerate() {
                v[i] = bits >> j & 1 == 1;
            }
            let [a, l, r] = v;
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
            let step = match step {
                Step::Go(sx, sy, sd) if !inside(sx + sd.delta().0, sy + sd.delta().1) => {
                    let (tr, tc) = (sx + sd.delta().0, sy + sd.delta().1);
                    match position_at(p, tr as usize, tc as usize) {
                        Some(k) => Step::End(Outcome::Exit(k)),
                        None => step,
                    }
                }
                other => other,
            };
            let ok = match step {
                Step::End(e) => {
                    e == outcome || (outcome == Outcome::Reflected && e == Outcome::Exit(pos))
                }
                Step::Go(..) => true,
            };
            if ok {
                possible.push((v, step));
            }
        }
        if possible.is_empty() {
            return Err(());
        }
        for &i in &unknown {
            let v0 = possible[0].0[i];
            if possible.iter().all(|(v, _)| v[i] == v0) {
                let (r, c) = cells[i];
                known[cell(r, c)] = Some(v0);
                decided.push(cell(r, c));
            }
        }
        let s0 = possible[0].1;
        if !possible.iter().all(|(_, s)| *s == s0) {
            let frontier = unknown
                .iter()
                .map(|&i| cell(cells[i].0, cells[i].1))
                .filter(|&c| known[c].is_none())
                .collect();
            return Ok((decided, frontier));
        }
        match s0 {
            Step::End(_) => return Ok((decided, Vec::new())),
            Step::Go(nx, ny, nd) => {
                (x, y, d) = (nx, ny, nd);
                first = false;
            }
        }
    }
    Ok((decided, Vec::new()))
}
