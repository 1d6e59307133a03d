//! Encoding observed rays: one variable per state a ray can be in, the rules
//! as implications from each state, and every ending but the observed one
//! forbidden.

use varisat::Lit;

use crate::rules::board::{Heading, Molecule, port, position_at};
use crate::rules::ray::{Outcome, Rules};
use crate::rules::spectrum::Observation;
use crate::solver::limits::Halt;
use crate::solver::model::{L, ObservedRay, RayModel};

impl RayModel {
    /// Adds every ray of `observed` (an exit pair once) under its own selector
    /// and returns their indices in [`rays`](Self::rays).
    pub fn observe(&mut self, observed: &Observation) -> Vec<usize> {
        observed
            .rays()
            .into_iter()
            .map(|(pos, o)| self.add_ray(pos, o))
            .collect()
    }

    /// Adds one observed ray under a new selector; returns its index.
    ///
    /// # Panics
    /// When `pos` or an exit position is outside 1..=4p.
    pub fn add_ray(&mut self, pos: usize, outcome: Outcome) -> usize {
        let selector = self.new_lit();
        self.add_ray_under(pos, outcome, selector)
    }

    /// Encodes an observed ray (an exit pair from both ends) under `selector`.
    fn add_ray_under(&mut self, pos: usize, outcome: Outcome, selector: Lit) -> usize {
        self.encode_ray(pos, outcome, selector);
        if let Outcome::Exit(k) = outcome {
            self.encode_ray(k, Outcome::Exit(pos), selector);
        }
        self.rays.push(ObservedRay {
            position: pos,
            outcome,
            selector,
        });
        self.rays.len() - 1
    }

    fn state_lit(
        &mut self,
        r: isize,
        c: isize,
        d: Heading,
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> L {
        let p = self.width as isize;
        let idx = (((r - 1) * p + (c - 1)) * 4) as usize + d.index();
        if let Some(l) = self.state[idx] {
            return L::Lit(l);
        }
        let l = self.new_lit();
        self.state[idx] = Some(l);
        self.touched.push(idx);
        queue.push((r, c, d));
        L::Lit(l)
    }

    /// Whether a ray from `pos` observed as `outcome` may end with `ending`.
    fn allowed(pos: usize, outcome: Outcome, ending: Outcome) -> L {
        let ok =
            ending == outcome || (outcome == Outcome::Reflected && ending == Outcome::Exit(pos));
        if ok { L::True } else { L::False }
    }

    /// The ray on cell (x, y) heading d: follows the steps that known cells
    /// decide and returns the first undecided state's literal, or a constant for
    /// an ending (true when the observation allows it).
    fn follow(
        &mut self,
        pos: usize,
        outcome: Outcome,
        (mut x, mut y, mut d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) -> L {
        let p = self.width as isize;
        for _ in 0..4 * p * p + 4 {
            let (dr, dc) = d.delta();
            let (ar, ac) = (x + dr, y + dc);
            if ar < 1 || ac < 1 || ar > p || ac > p {
                let k = position_at(self.width, ar as usize, ac as usize).expect("a border cell");
                return Self::allowed(pos, outcome, Outcome::Exit(k));
            }
            let (lr, lc) = d.left().delta();
            let (rr, rc) = d.right().delta();
            let a = self.atom(ar, ac);
            let l = self.atom(ar + lr, ac + lc);
            let r = self.atom(ar + rr, ac + rc);
            match (a, l, r) {
                (L::True, _, _) => return Self::allowed(pos, outcome, Outcome::Absorbed),
                (L::False, L::True, L::True) => {
                    return Self::allowed(pos, outcome, Outcome::Reflected);
                }
                (L::False, L::True, L::False) => d = d.right(),
                (L::False, L::False, L::True) => d = d.left(),
                (L::False, L::False, L::False) => (x, y) = (ar, ac),
                _ => return self.state_lit(x, y, d, queue),
            }
        }
        // Decided steps that go round in a circle: no ray from the border gets there.
        L::False
    }

    fn encode_ray(&mut self, pos: usize, outcome: Outcome, selector: Lit) {
        self.recording = true;
        self.encode_ray_clauses(pos, outcome, selector);
        self.recording = false;
    }

    fn encode_ray_clauses(&mut self, pos: usize, outcome: Outcome, selector: Lit) {
        let p = self.width;
        let q = port(p, pos);
        let d = q.heading;
        let (dr, dc) = d.delta();
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        let (er, ec) = (q.row as isize, q.col as isize);
        let (ar, ac) = (er + dr, ec + dc);
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let sel = L::Lit(!selector);
        let mut queue = Vec::new();
        // A ray that misses never enters the box: its path is not encoded.
        let first = match outcome {
            Outcome::Miss => L::False,
            _ => self.follow(pos, outcome, (ar, ac, d), &mut queue),
        };
        match (outcome, self.rules) {
            (Outcome::Absorbed, _) => {
                self.clause(&[sel, a, !l]);
                self.clause(&[sel, a, !r]);
                self.clause(&[sel, a, first]);
            }
            (Outcome::Reflected, Rules::Standard) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, l, r, first]);
            }
            (Outcome::Reflected, Rules::EdgeMiss) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, !l, r]);
                self.clause(&[sel, l, !r]);
                self.clause(&[sel, l, first]);
            }
            (Outcome::Exit(_), _) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, !l]);
                self.clause(&[sel, !r]);
                self.clause(&[sel, first]);
            }
            (Outcome::Miss, Rules::Standard) => self.clause(&[sel]),
            (Outcome::Miss, Rules::EdgeMiss) => {
                self.clause(&[sel, !a]);
                self.clause(&[sel, l, r]);
                self.clause(&[sel, !l, !r]);
            }
        }
        while let Some((x, y, d)) = queue.pop() {
            // A ray on a large box has millions of states: the limits are
            // kept inside (a model stopped here is broken).
            if self.poll() {
                break;
            }
            self.encode_state(pos, outcome, (x, y, d), &mut queue);
        }
        for idx in self.touched.drain(..) {
            self.state[idx] = None;
        }
    }

    /// The clauses of one undecided state.
    fn encode_state(
        &mut self,
        pos: usize,
        outcome: Outcome,
        (x, y, d): (isize, isize, Heading),
        queue: &mut Vec<(isize, isize, Heading)>,
    ) {
        let s = self.state_lit(x, y, d, queue);
        let ns = !s;
        // Redundant, but it prunes: a ray only stands on empty cells.
        let here = self.atom(x, y);
        self.clause(&[ns, !here]);
        let (dr, dc) = d.delta();
        let (ar, ac) = (x + dr, y + dc);
        let (lr, lc) = d.left().delta();
        let (rr, rc) = d.right().delta();
        // An undecided state has its cell ahead inside the box.
        let a = self.atom(ar, ac);
        let l = self.atom(ar + lr, ac + lc);
        let r = self.atom(ar + rr, ac + rc);
        let hit = Self::allowed(pos, outcome, Outcome::Absorbed);
        self.clause(&[ns, !a, hit]);
        let reflect = Self::allowed(pos, outcome, Outcome::Reflected);
        self.clause(&[ns, a, !l, !r, reflect]);
        if l != L::False && r != L::True {
            let next = self.follow(pos, outcome, (x, y, d.right()), queue);
            self.clause(&[ns, a, !l, r, next]);
        }
        if r != L::False && l != L::True {
            let next = self.follow(pos, outcome, (x, y, d.left()), queue);
            self.clause(&[ns, a, !r, l, next]);
        }
        if l != L::True && r != L::True {
            let next = self.follow(pos, outcome, (ar, ac, d), queue);
            self.clause(&[ns, a, l, r, next]);
        }
    }

    /// In a simplified model, encodes the pending rays on which candidate `m`
    /// disagrees with the observation; returns whether there were any.
    pub(super) fn encode_disagreeing(&mut self, m: &Molecule) -> Result<bool, Halt> {
        let Some((observed, mut tracer)) = self.check.take() else {
            return Ok(false);
        };
        tracer.load(m);
        let pending = std::mem::take(&mut self.pending);
        let mut any = false;
        for (pos, outcome) in pending {
            if self.broken.is_some() || tracer.trace(pos).outcome == outcome {
                self.pending.push((pos, outcome));
            } else {
                any = true;
                self.encode_for_good(pos, outcome);
            }
        }
        self.check = Some((observed, tracer));
        self.whole()?;
        Ok(any)
    }

    /// Encodes an observed ray that always holds (selector `true`).
    fn encode_for_good(&mut self, pos: usize, outcome: Outcome) {
        self.add_ray_under(pos, outcome, self.t);
    }

    /// Whether observed rays still wait to be encoded (candidates are then
    /// checked with the ray engine).
    pub(super) fn has_pending(&self) -> bool {
        self.check.is_some() && !self.pending.is_empty()
    }

    /// In a simplified model, encodes every observed ray that is still waiting
    /// for a candidate to disagree with it, and stops checking candidates with
    /// the ray engine: from then on the molecules found rest on the clauses
    /// alone. `bbx verify` does this so that the SAT side does not share the
    /// ray engine with the enumeration it checks; the answer is the same, and
    /// so, measured, is the time.
    ///
    /// ```
    /// use bbx::{Molecule, Observation, Rules, Spectrum};
    /// use bbx::solver::RayModel;
    ///
    /// let m: Molecule = "O-O-----------O---------O-----------".parse().unwrap();
    /// let observed = Observation::full(&Spectrum::of(&m, Rules::Standard));
    /// let mut model = RayModel::simplified(&observed, Rules::Standard, 4);
    /// model.encode_all_rays();
    /// assert_eq!(model.solve(4..=4, None, None).unwrap().molecules.len(), 2);
    /// ```
    pub fn encode_all_rays(&mut self) {
        self.check = None;
        for (pos, outcome) in std::mem::take(&mut self.pending) {
            if self.broken.is_some() {
                break;
            }
            self.encode_for_good(pos, outcome);
        }
    }

    /// [`encode_all_rays`](Self::encode_all_rays), `Err` when a limit
    /// stopped it.
    pub(super) fn encode_pending(&mut self) -> Result<(), Halt> {
        self.encode_all_rays();
        self.whole()
    }
}
