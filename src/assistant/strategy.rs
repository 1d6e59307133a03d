//! How well a configuration can be played: a policy played against every
//! molecule of it, one game each.
//!
//! The hidden molecule is chosen uniformly. The seeker starts knowing
//! nothing; at each step the policy looks at the molecules that still fit
//! and either shoots a ray or stops. Shooting one end of an exit pair shows
//! the other end, which is never shot. The game ends when no ray left can
//! tell the molecules that fit apart (they share every result), or, under
//! the `score` policy, when stopping is cheaper on average than shooting on.
//! The seeker then places the atoms on the cells where they most often are
//! among the molecules left (ties: the lowest cells).
//!
//! Every game is played: the molecules are split by the policy's ray into
//! one set per outcome, as a decision tree, so that each molecule's game is
//! the path to its leaf. Per game this counts the rays shot and the score of
//! the original game (Emacs's, [`rules::score`](crate::rules::score)); and
//! the same games judged by Tatham's rule, where a placement giving the
//! hidden molecule's result on every ray wins (no penalty).
//!
//! Ties between rays go to the lowest border position.
//!
//! ```
//! use bbx::assistant::strategy::{play_all, Policy, StrategyOptions};
//! let r = play_all("A1_B3".parse().unwrap(), &StrategyOptions::new(Policy::Greedy))
//!     .unwrap()
//!     .value
//!     .unwrap();
//! assert_eq!(r.molecules, 9);
//! assert!(r.rays_total >= 9);
//! ```

use crate::assistant::optimal::{BoundStopped, LowerBound, Optimum, SetKeys, SetOptimum};
use crate::assistant::spectrum_table::{Spectra, stop_penalty};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::control::{Budget, Cut, Ended, Finished, Instant, Ticker};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::{Config, ConfigRange};
use crate::rules::ray::{Outcome, Rules};
use crate::rules::score::{MISSED_ATOM_PENALTY, ray_cost, score};
use crate::rules::spectrum::Spectrum;

pub use crate::assistant::spectrum_table::{SPECTRA_MEMORY, STRATEGY_LIMIT};

/// How the seeker chooses the next ray; named `greedy`, `entropy`, `score`,
/// `lookahead` or `rollout` (read in any case).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[derive(strum::Display, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
#[strum(parse_err_ty = String, parse_err_fn = unknown_policy)]
pub enum Policy {
    /// The ray that leaves the fewest molecules on average (Σ size²): the
    /// default, and the coach's.
    #[default]
    Greedy,
    /// The ray whose outcome tells the most, in bits.
    Entropy,
    /// The cheapest expected score one step ahead: the ray's own cost and
    /// the penalty of placing the atoms after it, against placing them now.
    Score,
    /// Two plies: the ray that leaves the fewest molecules on average after
    /// it and the best next ray for each of its outcomes.
    Lookahead,
    /// One step of rollout over greedy: the ray whose outcomes, each played
    /// on by greedy to the end, take the fewest rays in all; sets of at most
    /// [`StrategyOptions::exact_below`] molecules are played optimally (by
    /// greedy's rollout and in its games alike). Never more rays than that
    /// base policy, on any set of molecules (Bertsekas, Tsitsiklis and Wu,
    /// 1997).
    Rollout,
}

impl Policy {
    /// Every policy, in the order of [`name`](Policy::name)'s list.
    pub const ALL: [Policy; 5] = [
        Policy::Greedy,
        Policy::Entropy,
        Policy::Score,
        Policy::Lookahead,
        Policy::Rollout,
    ];

    /// `greedy`, `entropy`, `score`, `lookahead` or `rollout`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The error of a name that is no policy.
fn unknown_policy(s: &str) -> String {
    format!(
        "unknown policy {}: expected greedy, entropy, score, lookahead or rollout",
        crate::error::quote(s)
    )
}

/// What to play, and within what: the budget's deadline and token stop
/// the games, and its memory bound ([`SPECTRA_MEMORY`] when it gives none)
/// the spectra of every molecule, held while they are played.
#[derive(Debug, Clone, Default)]
pub struct StrategyOptions {
    /// The policy.
    pub policy: Policy,
    /// The ray rules.
    pub rules: Rules,
    /// The deadline, token and memory bound.
    pub budget: Budget,
    /// Under [`Policy::Rollout`], sets of at most this many molecules are
    /// played optimally (0: greedy plays to the end).
    pub exact_below: usize,
}

/// The default of [`StrategyOptions::exact_below`] where a command gives
/// none.
pub const ROLLOUT_EXACT: usize = 8;

impl StrategyOptions {
    /// `policy` under the standard rules, with no limit.
    pub fn new(policy: Policy) -> StrategyOptions {
        StrategyOptions {
            policy,
            ..StrategyOptions::default()
        }
    }
}

/// A ray shot and its outcome, as JSON writes it.
#[derive(serde::Serialize)]
struct ShotRecord {
    position: usize,
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    share: Option<f64>,
}

/// [`PolicyGame::shots`] as records.
fn shots_as_records<S: serde::Serializer>(
    shots: &[(usize, Outcome)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(shots.iter().map(|&(position, outcome)| ShotRecord {
        position,
        outcome,
        share: None,
    }))
}

/// [`StrategyReport::first_rays`] as records.
fn first_rays_as_records<S: serde::Serializer>(
    rays: &[(usize, Outcome, f64)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(rays.iter().map(|&(position, outcome, share)| ShotRecord {
        position,
        outcome,
        share: Some(share),
    }))
}

/// One game of a policy: the rays shot and their outcomes, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyGame {
    /// The hidden molecule's number.
    pub number: u64,
    /// The hidden molecule.
    pub molecule: String,
    /// Each ray shot (border position) and its outcome; in JSON a record
    /// each, `{"position", "outcome"}`.
    #[serde(serialize_with = "shots_as_records")]
    pub shots: Vec<(usize, Outcome)>,
    /// Molecules still fitting at the end.
    pub left: u64,
    /// The atoms placed (linear form).
    pub placed: String,
    /// Hidden atoms the placement missed.
    pub missed: u64,
    /// The score ([`rules::score`](crate::rules::score)).
    pub score: u64,
    /// The score under Tatham's rule.
    pub score_tatham: u64,
}

/// One game with what it was played under, as its JSON shows it: the
/// game's fields beside the configuration, the rules and the policy.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OneGame {
    /// The configuration.
    pub config: String,
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The ray rules.
    pub rules: Rules,
    /// The policy.
    pub policy: Policy,
    /// The game.
    #[serde(flatten)]
    pub game: PolicyGame,
}

impl OneGame {
    /// `game`, played on `config` under `options`.
    pub fn new(config: Config, options: &StrategyOptions, game: PolicyGame) -> OneGame {
        OneGame {
            config: config.to_string(),
            width: config.width,
            height: config.height,
            rules: options.rules,
            policy: options.policy,
            game,
        }
    }
}

/// A policy played against every molecule of a configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StrategyReport {
    /// The configuration.
    pub config: String,
    /// The box's width (its molecules are written row by row).
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The ray rules.
    pub rules: Rules,
    /// The policy.
    pub policy: Policy,
    /// Games played: one per molecule.
    pub molecules: u64,
    /// Rays shot, all games together (mean = total / molecules).
    pub rays_total: u64,
    /// Scores, all games together.
    pub score_total: u64,
    /// Scores under Tatham's rule, all games together.
    pub score_tatham_total: u64,
    /// Mean rays.
    pub rays_mean: f64,
    /// Mean score.
    pub score_mean: f64,
    /// Mean score under Tatham's rule.
    pub score_tatham_mean: f64,
    /// The most rays a game took.
    pub rays_worst: u64,
    /// The highest score.
    pub score_worst: u64,
    /// `rays_histogram[k]`: games that took k rays.
    pub rays_histogram: Vec<u64>,
    /// `score_histogram[k]`: games that scored k.
    pub score_histogram: Vec<u64>,
    /// Games that ended with more than one molecule left.
    pub undecided_games: u64,
    /// Penalty points of those games, all together: what luck costs.
    pub penalty_total: u64,
    /// The hardest games: highest score first, then most rays, then number.
    pub hardest: Vec<PolicyGame>,
    /// The policy's first rays, along the most likely outcomes: the ray,
    /// the most likely outcome, and its share of the games; in JSON a record
    /// each, `{"position", "outcome", "share"}`.
    #[serde(serialize_with = "first_rays_as_records")]
    pub first_rays: Vec<(usize, Outcome, f64)>,
    /// Seconds taken.
    pub seconds: f64,
    /// The best strategy's values, when asked for.
    pub optimal: Option<Optimum>,
    /// A proven lower bound of the fewest rays, when asked for.
    pub bound: Option<LowerBound>,
    /// When the bound was asked for and its search stopped before it was
    /// found: what stopped it and how far it got.
    pub bound_stopped: Option<BoundStopped>,
}

/// Sets of at least this many molecules ask the budget at each step over
/// them (a count of one ray's outcomes, a split); smaller ones count as a
/// tick of the ticker.
const BIG_SET: usize = 1 << 14;

/// Asks `ticker` about a step of work over `molecules` molecules: at once
/// for a big set (the clock costs nothing beside the step), else every so
/// many steps.
fn step(ticker: &mut Ticker, molecules: usize) -> Result<(), Cut> {
    if molecules >= BIG_SET {
        ticker.check()
    } else {
        ticker.tick()
    }
}

/// What the policy does for a set: shoot this ray, or stop (`None`, also
/// for a set of one molecule). Asks `ticker` at each ray it weighs.
fn choose(
    t: &Spectra,
    set: &[u32],
    shot: &[bool],
    policy: Policy,
    ticker: &mut Ticker,
) -> Result<Option<usize>, Cut> {
    if set.len() < 2 {
        return Ok(None);
    }
    let n = set.len() as f64;
    let codes = t.codes();
    let mut best: Option<(f64, usize)> = None;
    let cells = t.config.cells();
    let k = t.count_for(set);
    // The outcomes' counts, for the policies that weigh each outcome.
    let (mut all, mut splits) = (Vec::new(), Vec::new());
    if matches!(policy, Policy::Entropy | Policy::Score) {
        t.count_rays(set, &mut all);
        t.splits_of(&all, &mut splits);
    } else {
        t.ray_splits(set, &mut all, &mut splits);
    }
    let mut freq: Vec<u64> = Vec::new();
    for q in (1..=t.rays).filter(|&q| !shot[q - 1]) {
        step(ticker, set.len())?;
        let (squares, outcomes) = splits[q - 1];
        if outcomes < 2 {
            continue;
        }
        let counts = || &all[(q - 1) * codes..q * codes];
        let value = match policy {
            // Rollout's own choices are the chooser's: here it is its base.
            // (Σ size² is exact in an f64 below 2^53.)
            Policy::Greedy | Policy::Rollout => squares as f64 / n,
            Policy::Entropy => counts()
                .iter()
                .filter(|&&c| c > 0)
                .map(|&c| {
                    let p = c as f64 / n;
                    p * p.log2()
                })
                .sum::<f64>(),
            Policy::Lookahead => {
                // Per outcome class, the fewest molecules the best next ray
                // leaves on average (Σ size² over its classes, in integers
                // so that ties are exact): the class itself when no ray
                // splits it.
                let mut classes: Vec<Vec<u32>> = vec![Vec::new(); codes];
                for &m in set {
                    classes[usize::from(t.code(m, q))].push(m);
                }
                let mut next = vec![0u64; codes];
                let mut total: u64 = 0;
                for class in classes.iter().filter(|c| !c.is_empty()) {
                    let size = class.len() as u64;
                    let mut least = size * size;
                    if size > 1 {
                        for q2 in (1..=t.rays).filter(|&q2| !shot[q2 - 1] && q2 != q) {
                            step(ticker, class.len())?;
                            t.count(class, q2, &mut next);
                            least = least.min(next.iter().map(|&c| c * c).sum());
                        }
                    }
                    total += least;
                }
                total as f64 / n
            }
            Policy::Score => {
                // Per outcome class: its cell frequencies.
                freq.clear();
                freq.resize(codes * cells, 0);
                for &m in set {
                    let c = usize::from(t.code(m, q));
                    for &a in t.atoms(m) {
                        freq[c * cells + usize::from(a)] += 1;
                    }
                }
                let mut v = 0.0;
                for (c, &size) in counts().iter().enumerate().filter(|c| *c.1 > 0) {
                    let cost = ray_cost(Outcome::from_code(c)) as f64
                        + stop_penalty(&mut freq[c * cells..(c + 1) * cells], k, size);
                    v += size as f64 / n * cost;
                }
                v
            }
        };
        if best.is_none_or(|(b, _)| value < b - 1e-12) {
            best = Some((value, q));
        }
    }
    let Some((value, q)) = best else {
        return Ok(None);
    };
    if policy == Policy::Score
        && stop_penalty(&mut t.frequencies(set), k, set.len() as u64) <= value + 1e-12
    {
        return Ok(None);
    }
    Ok(Some(q))
}

/// A part of rollout's weighing: of the rays that split the molecules, in
/// ray order, the `index`-th of `of` runs of neighbouring rays. Rays of one
/// side meet many of the same sets in the base policy's games, which each
/// part remembers: at the A4_B8 opening each half of the rays costs 40% to
/// 45% of the whole weighing, where every other ray cost 72%. The other
/// policies weigh nothing at length: every part of them is the whole.
///
/// ```
/// use bbx::assistant::strategy::Part;
/// assert_eq!(Part::new(1, 2), Some(Part { index: 1, of: 2 }));
/// assert_eq!(Part::new(2, 2), None);
/// assert!(Part::WHOLE.is_whole());
/// assert_eq!(Part::all(2).len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "PartData")]
pub struct Part {
    /// Which part, from 0.
    pub index: usize,
    /// Of how many.
    pub of: usize,
}

#[derive(serde::Deserialize)]
struct PartData {
    index: usize,
    of: usize,
}

impl TryFrom<PartData> for Part {
    type Error = String;

    fn try_from(d: PartData) -> Result<Part, String> {
        Part::new(d.index, d.of).ok_or_else(|| {
            format!(
                "part {} of {}: the parts of {} are numbered from 0 to {}",
                d.index,
                d.of,
                d.of,
                d.of.saturating_sub(1)
            )
        })
    }
}

impl Default for Part {
    fn default() -> Part {
        Part::WHOLE
    }
}

impl Part {
    /// All of the weighing, in one part.
    pub const WHOLE: Part = Part { index: 0, of: 1 };

    /// Part `index` of `of` (from 0), if there is such a part.
    pub fn new(index: usize, of: usize) -> Option<Part> {
        (index < of).then_some(Part { index, of })
    }

    /// The parts of a weighing shared `of` ways (at least one).
    pub fn all(of: usize) -> Vec<Part> {
        let of = of.max(1);
        (0..of).map(|index| Part { index, of }).collect()
    }

    /// Whether this is the whole weighing.
    pub fn is_whole(&self) -> bool {
        self.of == 1
    }

    /// Whether the ray in place `place` among the `of` weighed is in this
    /// part.
    pub(crate) fn holds(&self, place: usize, of: usize) -> bool {
        place * self.of / of.max(1) == self.index
    }
}

/// Chooses the policy's rays: rollout's choices are worked out here (and
/// remembered, so that a game replayed after the policy's tree was played
/// costs nothing); the other policies are [`choose`].
pub(super) struct Chooser<'a> {
    pub(super) t: &'a Spectra,
    policy: Policy,
    small: usize,
    budget: &'a Budget,
    /// Per molecule, a random word: a set's key is the sum of its words
    /// (shared with the base policies, whose memo keys their sets so too).
    words: Arc<Vec<u128>>,
    /// Rollout's choice per set already decided.
    decided: RefCell<HashMap<u128, Option<usize>>>,
    /// The base policies the rollouts play, one per thread at work.
    bases: std::sync::Mutex<Vec<Base<'a>>>,
    /// The keys of sets, for the optimum of the small ones: made at the
    /// first rollout, shared by the bases.
    keys: std::sync::OnceLock<Arc<SetKeys>>,
}

/// The memory each base policy's search of small sets may hold its memo in
/// (it forgets half when full).
const BASE_MEMORY: u64 = 128 << 20;

impl<'a> Chooser<'a> {
    pub(super) fn new(t: &'a Spectra, options: &'a StrategyOptions) -> Chooser<'a> {
        let words = Arc::new(if options.policy == Policy::Rollout {
            set_words(t)
        } else {
            Vec::new()
        });
        Chooser {
            t,
            policy: options.policy,
            small: options.exact_below,
            budget: &options.budget,
            words,
            decided: RefCell::new(HashMap::new()),
            bases: std::sync::Mutex::new(Vec::new()),
            keys: std::sync::OnceLock::new(),
        }
    }

    /// The ray to shoot at `set`, or stop, asking `ticker` as it goes (a
    /// rollout cut short is recorded in it too).
    pub(super) fn choose(
        &self,
        set: &[u32],
        shot: &[bool],
        ticker: &mut Ticker,
    ) -> Result<Option<usize>, Cut> {
        if self.policy != Policy::Rollout {
            return choose(self.t, set, shot, self.policy, ticker);
        }
        if let Some(cut) = ticker.cut() {
            return Err(cut);
        }
        if set.len() < 2 {
            return Ok(None);
        }
        let key = set
            .iter()
            .fold(0u128, |k, &m| k.wrapping_add(self.words[m as usize]));
        if let Some(&d) = self.decided.borrow().get(&key) {
            return Ok(d);
        }
        let d = self.rollout(set).inspect_err(|&cut| ticker.stop(cut))?;
        self.decided.borrow_mut().insert(key, d);
        Ok(d)
    }

    /// One step of rollout at `set`: the splitting ray whose outcomes, each
    /// played on by the base policy, take the fewest rays (ties: the lowest
    /// ray).
    fn rollout(&self, set: &[u32]) -> Result<Option<usize>, Cut> {
        Ok(self
            .rollout_totals(set, Part::WHOLE)?
            .into_iter()
            .min_by_key(|&(q, total)| (total, q))
            .map(|(q, _)| q))
    }

    /// What one step of rollout at `set` weighs (`part` of it): each ray
    /// that splits it, in ray order, with the rays of the games of `set`
    /// when it is shot first and the base policy plays on (all games
    /// together, this ray included).
    pub(super) fn rollout_totals(&self, set: &[u32], part: Part) -> Result<Vec<(usize, u64)>, Cut> {
        use rayon::prelude::*;
        self.budget.check()?;
        let t = self.t;
        let mut counts = vec![0u64; t.codes()];
        let rays: Vec<usize> = (1..=t.rays)
            .filter(|&q| {
                t.count(set, q, &mut counts);
                counts.iter().filter(|&&c| c > 0).count() >= 2
            })
            .collect();
        let n = rays.len();
        let rays: Vec<usize> = (rays.into_iter().enumerate())
            .filter_map(|(i, q)| part.holds(i, n).then_some(q))
            .collect();
        let (small, budget, bases, words) = (self.small, self.budget, &self.bases, &self.words);
        let keys = (small >= 2).then(|| self.keys.get_or_init(|| Arc::new(SetKeys::new(t))));
        let totals = rays
            .par_iter()
            .map(|&q| {
                // A base from the pool: its optimum of the small sets met
                // so far is kept from one rollout to the next.
                let taken = bases.lock().ok().and_then(|mut b| b.pop());
                let mut base = taken
                    .unwrap_or_else(|| Base::new(t, small, budget, keys.cloned(), words.clone()));
                let total = base.after(set, q);
                if let Ok(mut b) = bases.lock() {
                    b.push(base);
                }
                total
            })
            .collect::<Result<Vec<u64>, Cut>>()?;
        Ok(rays.into_iter().zip(totals).collect())
    }
}

/// Rollout's base policy: greedy, and the optimum on sets of at most
/// `small` molecules; its totals are the rays of every molecule's game.
struct Base<'a> {
    t: &'a Spectra,
    small: usize,
    /// The search of the small sets' optimum (none when `small` < 2).
    exact: Option<SetOptimum<'a>>,
    /// No ray shot: greedy looks at the rays that split a set, and those
    /// shot split nothing.
    shot: Vec<bool>,
    /// The budget, asked as greedy weighs rays.
    ticker: Ticker<'a>,
    /// Per molecule, a random word: a set's key is the sum of its words.
    words: Arc<Vec<u128>>,
    /// The totals of the sets played so far (of [`MEMO_FROM`] molecules or
    /// more), by key: the games after one first ray meet many of the sets
    /// that those after another meet (a total depends on its set alone).
    memo: HashMap<u128, u64, std::hash::BuildHasherDefault<super::optimal::KeyHasher>>,
}

/// The smallest set whose base total is remembered.
const MEMO_FROM: usize = 16;

/// The most totals a base remembers (then it forgets them all).
const MEMO_MOST: usize = 1 << 21;

impl<'a> Base<'a> {
    /// The base policy of `t` within `budget`, playing sets of at most
    /// `small` molecules optimally, their sets keyed by `keys` (needed when
    /// `small` is 2 or more).
    fn new(
        t: &'a Spectra,
        small: usize,
        budget: &'a Budget,
        keys: Option<Arc<SetKeys>>,
        words: Arc<Vec<u128>>,
    ) -> Base<'a> {
        Base {
            t,
            small,
            exact: keys.map(|keys| SetOptimum::new(t, budget, keys, BASE_MEMORY)),
            shot: vec![false; t.rays],
            ticker: budget.ticker(256),
            words,
            memo: HashMap::default(),
        }
    }

    /// The rays of the games of `set` when ray `q` is shot first and the
    /// base policy plays on: |set| + its total over each outcome.
    fn after(&mut self, set: &[u32], q: usize) -> Result<u64, Cut> {
        let (mut part, mut starts) = (vec![0u32; set.len()], Vec::new());
        self.t.split(set, q, &mut part, &mut starts);
        let mut total = set.len() as u64;
        for c in 0..self.t.codes() {
            total += self.total(&part[starts[c]..starts[c + 1]])?;
        }
        Ok(total)
    }

    /// The rays of the base policy's games of `set`, all together.
    fn total(&mut self, set: &[u32]) -> Result<u64, Cut> {
        if set.len() < 2 {
            return Ok(0);
        }
        if set.len() <= self.small
            && let Some(exact) = &mut self.exact
        {
            return exact.rays(set);
        }
        let key = (set.len() >= MEMO_FROM)
            .then(|| (set.iter()).fold(0u128, |k, &m| k.wrapping_add(self.words[m as usize])));
        if let Some(&total) = key.and_then(|k| self.memo.get(&k)) {
            return Ok(total);
        }
        step(&mut self.ticker, set.len())?;
        let total = match choose(self.t, set, &self.shot, Policy::Greedy, &mut self.ticker)? {
            Some(q) => self.after(set, q)?,
            None => 0,
        };
        if let Some(k) = key {
            if self.memo.len() >= MEMO_MOST {
                self.memo.clear();
            }
            self.memo.insert(k, total);
        }
        Ok(total)
    }
}

/// Per molecule of `t`, a random word: a set's key in the memos of
/// rollout and its base policies is the sum of its molecules' words.
fn set_words(t: &Spectra) -> Vec<u128> {
    (0..t.count as u64)
        .map(|m| xxhash_rust::xxh3::xxh3_128_with_seed(&m.to_le_bytes(), 0x726f_6c6c))
        .collect()
}

/// Shoots ray `q`, whose outcome code is `c`: it and the other end of an
/// exit pair are shot, and the molecules of `set` that give another
/// outcome are dropped.
fn shoot(t: &Spectra, set: &mut Vec<u32>, shot: &mut [bool], q: usize, c: u8) {
    shot[q - 1] = true;
    if let Outcome::Exit(k) = Outcome::from_code(c.into()) {
        shot[k - 1] = true;
    }
    set.retain(|&m| t.code(m, q) == c);
}

/// Whether molecule `m` gives the results of `spectrum` on every ray.
fn gives(t: &Spectra, m: u32, spectrum: &Spectrum) -> bool {
    (1..=t.rays).all(|q| spectrum.get(q).code() == usize::from(t.code(m, q)))
}

/// One molecule's game: rays shot, score, score under Tatham's rule.
#[derive(Clone, Copy, Default)]
struct Played {
    rays: u8,
    score: u32,
    tatham: u32,
}

/// Plays the policy on every set of molecules the rays can leave, writing
/// each molecule's game.
struct Player<'a, 'c> {
    t: &'a Spectra,
    options: &'a StrategyOptions,
    chooser: &'a Chooser<'c>,
    /// The budget, asked every 1,024 sets.
    ticker: Ticker<'a>,
    out: Vec<Played>,
    undecided: u64,
    penalty: u64,
    /// Games played so far, told to `progress` with the number of games.
    played: u64,
    progress: &'a mut dyn FnMut(u64, u64),
}

impl Player<'_, '_> {
    /// Plays `set`, with the rays `shot`, `rays` shot so far for `cost`.
    fn play(&mut self, set: &mut [u32], shot: &mut Vec<bool>, rays: u8, cost: u32) {
        if step(&mut self.ticker, set.len()).is_err() {
            return;
        }
        let Ok(choice) = self.chooser.choose(set, shot, &mut self.ticker) else {
            return;
        };
        let Some(q) = choice else {
            self.leaf(set, rays, cost);
            return;
        };
        // Split the set by the outcome of ray q.
        let mut sorted = vec![0u32; set.len()];
        let mut starts = Vec::new();
        self.t.split(set, q, &mut sorted, &mut starts);
        set.copy_from_slice(&sorted);
        drop(sorted);
        for c in 0..self.t.codes() {
            let (a, b) = (starts[c], starts[c + 1]);
            if a == b {
                continue;
            }
            let o = Outcome::from_code(c);
            shot[q - 1] = true;
            let partner = match o {
                Outcome::Exit(k) => Some((k, shot[k - 1])),
                _ => None,
            };
            if let Some((k, _)) = partner {
                shot[k - 1] = true;
            }
            let cost = cost + ray_cost(o) as u32;
            self.play(&mut set[a..b], shot, rays.saturating_add(1), cost);
            if let Some((k, was)) = partner {
                shot[k - 1] = was;
            }
            shot[q - 1] = false;
        }
    }

    fn leaf(&mut self, set: &[u32], rays: u8, cost: u32) {
        let placed = self.t.placement(set);
        let guess = Molecule::new(self.t.config.shape(), placed.iter().map(|&a| a.into()))
            .map(|g| Spectrum::of(&g, self.options.rules));
        if set.len() > 1 {
            self.undecided += set.len() as u64;
        }
        for &m in set {
            let penalty = (self.t.missed(m, &placed) * MISSED_ATOM_PENALTY) as u32;
            self.penalty += u64::from(penalty);
            let same = guess.as_ref().is_ok_and(|g| gives(self.t, m, g));
            self.out[m as usize] = Played {
                rays,
                score: cost + penalty,
                tatham: cost + if same { 0 } else { penalty },
            };
        }
        self.played += set.len() as u64;
        (self.progress)(self.played, self.out.len() as u64);
    }
}

/// Bytes a molecule takes while every game is played, beside its spectrum:
/// its place in the set played, in its split and in the order of the games,
/// and its game's result.
const PLAY_BYTES: u64 = 3 * 4 + std::mem::size_of::<Played>() as u64;

/// The spectra of `config` within the options' budget, room made for
/// playing every game on them, or how building them ended.
fn spectra(config: Config, options: &StrategyOptions) -> Result<Result<Spectra, Ended>, Error> {
    let s = Spectra::new(config, options.rules, &options.budget, PLAY_BYTES)?;
    Ok(s.value.ok_or(s.ended))
}

/// Plays `options.policy` against every molecule of `config`: the report,
/// or nothing (`None`) when the budget's deadline or token ended it before
/// every game was played. An error when the configuration's spectra are too
/// many to hold (see [`STRATEGY_LIMIT`]).
pub fn play_all(
    config: Config,
    options: &StrategyOptions,
) -> Result<Finished<Option<StrategyReport>>, Error> {
    play_all_with(config, options, |_, _| {})
}

/// [`play_all`], telling `progress` how many games are played of how many,
/// once the spectra are held and then as the games end (a front's progress
/// bar).
pub fn play_all_with(
    config: Config,
    options: &StrategyOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<Finished<Option<StrategyReport>>, Error> {
    let start = Instant::now();
    match spectra(config, options)? {
        Ok(t) => play_all_on(&Chooser::new(&t, options), options, start, &mut progress),
        Err(ended) => Ok(Finished::new(None, ended)),
    }
}

#[cfg_attr(not(feature = "census"), allow(dead_code))]
/// [`play_all`] on spectra already held (the optimum's seed).
pub(crate) fn play_all_held(
    t: &Spectra,
    options: &StrategyOptions,
) -> Result<Finished<Option<StrategyReport>>, Error> {
    play_all_on(
        &Chooser::new(t, options),
        options,
        Instant::now(),
        &mut |_, _| {},
    )
}

#[cfg_attr(not(feature = "census"), allow(dead_code))]
/// The rays of the games of a set by rollout's base policy (greedy, and
/// the optimum on sets of at most `small` molecules), all together: an
/// upper bound of the set's fewest rays, for the optimum's cuts.
pub(crate) struct BaseTotals<'a>(Base<'a>);

#[cfg_attr(not(feature = "census"), allow(dead_code))]
impl<'a> BaseTotals<'a> {
    /// The base policy of `t` within `budget`, sets of at most `small`
    /// molecules played optimally (their sets keyed by `keys`).
    pub(crate) fn new(
        t: &'a Spectra,
        small: usize,
        budget: &'a Budget,
        keys: Arc<SetKeys>,
    ) -> BaseTotals<'a> {
        let keys = (small >= 2).then_some(keys);
        BaseTotals(Base::new(t, small, budget, keys, Arc::new(set_words(t))))
    }

    /// The rays of its games of `set`, all together.
    pub(crate) fn total(&mut self, set: &[u32]) -> Result<u64, Cut> {
        self.0.total(set)
    }
}

/// [`play_all`] on spectra already held; `start` is when the work began.
fn play_all_on(
    chooser: &Chooser,
    options: &StrategyOptions,
    start: Instant,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Finished<Option<StrategyReport>>, Error> {
    let t = chooser.t;
    let n = t.count;
    progress(0, n as u64);
    let mut set: Vec<u32> = (0..n as u32).collect();
    let mut player = Player {
        t,
        options,
        chooser,
        ticker: options.budget.ticker(1024),
        out: vec![Played::default(); n],
        undecided: 0,
        penalty: 0,
        played: 0,
        progress,
    };
    player.play(&mut set, &mut vec![false; t.rays], 0, 0);
    if let Some(cut) = player.ticker.cut() {
        return Ok(Finished::new(None, cut.into()));
    }
    let out = &player.out;
    let total = |f: fn(&Played) -> u64| out.iter().map(f).sum::<u64>();
    let worst = |f: fn(&Played) -> u64| out.iter().map(f).max().unwrap_or(0);
    let (rays_total, rays_worst) = (total(|r| r.rays.into()), worst(|r| r.rays.into()));
    let (score_total, score_worst) = (total(|r| r.score.into()), worst(|r| r.score.into()));
    let score_tatham_total = total(|r| r.tatham.into());
    let mut rays_histogram = vec![0u64; rays_worst as usize + 1];
    let mut score_histogram = vec![0u64; score_worst as usize + 1];
    for r in out {
        rays_histogram[r.rays as usize] += 1;
        score_histogram[r.score as usize] += 1;
    }
    // The five hardest games, picked in one pass (not a sort of them all).
    let harder = |&a: &u32, &b: &u32| {
        let (x, y) = (out[a as usize], out[b as usize]);
        y.score
            .cmp(&x.score)
            .then(y.rays.cmp(&x.rays))
            .then(a.cmp(&b))
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    if order.len() > 5 {
        order.select_nth_unstable_by(4, harder);
        order.truncate(5);
    }
    order.sort_by(harder);
    let stopped = |ticker: &Ticker| {
        Ok(Finished::new(
            None,
            ticker.cut().map_or(Ended::Complete, Ended::from),
        ))
    };
    let mut hardest = Vec::new();
    for &m in order.iter().take(5) {
        match game(chooser, options, m as u64 + 1, &mut player.ticker)? {
            Some(g) => hardest.push(g),
            None => return stopped(&player.ticker),
        }
    }
    let Ok(first_rays) = first_rays(chooser, 3, &mut player.ticker) else {
        return stopped(&player.ticker);
    };
    let mean = |x: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    Ok(Finished::complete(Some(StrategyReport {
        config: t.name(),
        width: t.config.width,
        height: t.config.height,
        rules: options.rules,
        policy: options.policy,
        molecules: n as u64,
        rays_total,
        score_total,
        score_tatham_total,
        rays_mean: mean(rays_total),
        score_mean: mean(score_total),
        score_tatham_mean: mean(score_tatham_total),
        rays_worst,
        score_worst,
        rays_histogram,
        score_histogram,
        undecided_games: player.undecided,
        penalty_total: player.penalty,
        hardest,
        first_rays,
        seconds: start.elapsed().as_secs_f64(),
        optimal: None,
        bound: None,
        bound_stopped: None,
    })))
}

/// The policy's first `depth` rays along the most likely outcomes, asking
/// `ticker` as it goes.
fn first_rays(
    chooser: &Chooser,
    depth: usize,
    ticker: &mut Ticker,
) -> Result<Vec<(usize, Outcome, f64)>, Cut> {
    let t = chooser.t;
    let n = t.count;
    let mut set: Vec<u32> = (0..n as u32).collect();
    let mut shot = vec![false; t.rays];
    let mut counts = vec![0u64; t.codes()];
    let mut out = Vec::new();
    while out.len() < depth
        && let Some(q) = chooser.choose(&set, &shot, ticker)?
    {
        t.count(&set, q, &mut counts);
        let (c, &size) = counts
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .expect("codes");
        out.push((q, Outcome::from_code(c), size as f64 / n as f64));
        shoot(t, &mut set, &mut shot, q, c as u8);
    }
    Ok(out)
}

/// Plays the policy against molecule `number` of `config` alone: the rays
/// it shoots, their outcomes, and how the game ends.
pub fn play_one(
    config: Config,
    options: &StrategyOptions,
    number: u64,
) -> Result<Finished<Option<PolicyGame>>, Error> {
    let t = match spectra(config, options)? {
        Ok(t) => t,
        Err(ended) => return Ok(Finished::new(None, ended)),
    };
    let chooser = Chooser::new(&t, options);
    let mut ticker = options.budget.ticker(1024);
    Ok(match game(&chooser, options, number, &mut ticker)? {
        Some(g) => Finished::complete(Some(g)),
        None => Finished::new(None, ticker.cut().map_or(Ended::Complete, Ended::from)),
    })
}

/// [`play_one`] on spectra already held, asking `ticker` as it goes:
/// nothing (`None`) when it says to stop ([`Ticker::cut`] says why).
fn game(
    chooser: &Chooser,
    options: &StrategyOptions,
    number: u64,
    ticker: &mut Ticker,
) -> Result<Option<PolicyGame>, Error> {
    let t = chooser.t;
    let (config, n) = (t.config, t.count as u64);
    if number == 0 || number > n {
        return Err(Error::invalid(format!(
            "molecule number {number} is out of range: {config} has molecules 1 to {n}"
        )));
    }
    let hidden = (number - 1) as u32;
    let mut set: Vec<u32> = (0..n as u32).collect();
    let mut shot = vec![false; t.rays];
    let mut shots = Vec::new();
    let mut cost = 0u64;
    loop {
        let Ok(choice) = chooser.choose(&set, &shot, ticker) else {
            return Ok(None);
        };
        let Some(q) = choice else {
            break;
        };
        let c = t.code(hidden, q);
        let o = Outcome::from_code(c.into());
        shots.push((q, o));
        cost += ray_cost(o);
        shoot(t, &mut set, &mut shot, q, c);
    }
    let placed = t.placement(&set);
    let missed = t.missed(hidden, &placed);
    let guess = Molecule::new(config.shape(), placed.iter().map(|&a| a.into()))?;
    let same = gives(t, hidden, &Spectrum::of(&guess, options.rules));
    let hidden_molecule = Molecule::new(config.shape(), t.atoms(hidden).iter().map(|&a| a.into()))?;
    Ok(Some(PolicyGame {
        number,
        molecule: hidden_molecule.to_string(),
        shots,
        left: set.len() as u64,
        placed: guess.to_string(),
        missed,
        score: score(cost, missed),
        score_tatham: score(cost, if same { 0 } else { missed }),
    }))
}

/// The most molecules [`review`] works out a game against (their spectra are
/// held in memory while it works, 4p bytes each): Tatham's default A5_B8,
/// 7,624,512 molecules, takes about 5 s and 350 MB.
pub const REVIEW_LIMIT: u64 = 10_000_000;

/// The most molecules whose every game a review plays for the policy's
/// average: A4_B8's 635,376 take about 3 s on two cores (A5_B8's 7.6
/// million, a minute and 530 MB, are left to `bbx strategy`).
pub const REVIEW_AVERAGE_LIMIT: u64 = 1_000_000;

/// A game reviewed after it was played: what the policy would have done
/// against the same hidden molecule, the policy's averages over every
/// molecule of the configuration, and which of the player's rays told
/// nothing new.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Review {
    /// The policy's game against the hidden molecule.
    pub game: PolicyGame,
    /// The policy against every molecule of the configuration (`None` when
    /// not asked for).
    pub average: Option<StrategyReport>,
    /// The player's rays, in the order shot, whose result every molecule
    /// still fitting before it agreed on: they split nothing.
    pub idle: Vec<usize>,
}

/// Reviews a game whose player was told that `counts` atoms are hidden (the
/// hidden count, or the range it was drawn in) and whose hidden molecule is
/// `hidden`: the policy's game against it, the policy against every
/// molecule of every count told when `average`, and, of the player's `shots`
/// (border positions in the order shot, after the rays `given` free by a
/// puzzle), those that told nothing new, all over every molecule the
/// player could have faced; an error when they are more than
/// [`REVIEW_LIMIT`]. `first` is given the review without its average as
/// soon as that is known (the average takes longer). When the budget's
/// deadline or token ends it, the review is what was done: nothing before
/// the policy's game was known, else the review without its average.
pub fn review(
    hidden: &Molecule,
    counts: std::ops::RangeInclusive<usize>,
    given: &[usize],
    shots: &[usize],
    options: &StrategyOptions,
    average: bool,
    first: impl FnOnce(&Review),
) -> Result<Finished<Option<Review>>, Error> {
    let start = Instant::now();
    let k = hidden.atoms().len();
    let range = ConfigRange::new(*counts.start(), *counts.end(), hidden.shape())?;
    if !counts.contains(&k) {
        return Err(Error::invalid(format!(
            "the hidden molecule has {k} atoms, not {}",
            range
        )));
    }
    let count = range.molecule_count().unwrap_or(u64::MAX);
    if count > REVIEW_LIMIT {
        return Err(Error::invalid(format!(
            "{range} has {count} molecules: a game is reviewed in configurations of up to {REVIEW_LIMIT}"
        )));
    }
    let s = Spectra::of_range(range, options.rules, &options.budget, PLAY_BYTES)?;
    let Some(t) = s.value else {
        return Ok(Finished::new(None, s.ended));
    };
    // The hidden molecule's place: after every molecule of fewer atoms.
    let before: u64 = (*counts.start()..k)
        .map(|a| range.with_atoms(a).molecule_count().unwrap_or(0))
        .sum();
    let number = crate::rules::enumeration::rank(hidden)
        .ok_or_else(|| Error::Internal(format!("{range} is numbered but {hidden} is not")))?
        + before;
    let hidden_index = (number - 1) as u32;
    let mut set: Vec<u32> = (0..t.count as u32).collect();
    let in_range = |q: &&usize| (1..=t.rays).contains(*q);
    for &q in given.iter().filter(in_range) {
        let c = t.code(hidden_index, q);
        set.retain(|&m| t.code(m, q) == c);
    }
    let mut idle = Vec::new();
    for &q in shots.iter().filter(in_range) {
        let c = t.code(hidden_index, q);
        if set.iter().all(|&m| t.code(m, q) == c) {
            idle.push(q);
        } else {
            set.retain(|&m| t.code(m, q) == c);
        }
    }
    drop(set);
    let chooser = Chooser::new(&t, options);
    let mut ticker = options.budget.ticker(1024);
    let Some(policy_game) = game(&chooser, options, number, &mut ticker)? else {
        return Ok(Finished::new(
            None,
            ticker.cut().map_or(Ended::Complete, Ended::from),
        ));
    };
    let mut r = Review {
        game: policy_game,
        average: None,
        idle,
    };
    let mut ended = Ended::Complete;
    if average {
        first(&r);
        let all = play_all_on(&chooser, options, start, &mut |_, _| {})?;
        (r.average, ended) = (all.value, all.ended);
    }
    Ok(Finished::new(Some(r), ended))
}

#[cfg(test)]
mod review_tests {
    use super::*;

    /// A game whose count was hidden in a range is reviewed over every
    /// count of it: a ray is idle only when every molecule of the range
    /// still fitting agreed on it, counted here by brute force.
    #[test]
    fn a_range_is_reviewed_over_every_count() {
        use crate::rules::enumeration::Molecules;
        use crate::rules::spectrum::Spectrum;
        let options = StrategyOptions::new(Policy::Greedy);
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let all: Vec<Molecule> = (1..=3)
            .flat_map(|k| Molecules::new(Config::shaped(k, hidden.shape()).unwrap()))
            .collect();
        let spectra: Vec<Spectrum> = all
            .iter()
            .map(|m| Spectrum::of(m, Rules::Standard))
            .collect();
        let theirs = Spectrum::of(&hidden, Rules::Standard);
        let shots = [1, 6, 2, 3, 10, 16, 8];
        let mut left: Vec<usize> = (0..all.len()).collect();
        let mut idle = Vec::new();
        for &q in &shots {
            let o = theirs.get(q);
            if left.iter().all(|&m| spectra[m].get(q) == o) {
                idle.push(q);
            }
            left.retain(|&m| spectra[m].get(q) == o);
        }
        let r = review(&hidden, 1..=3, &[], &shots, &options, true, |_| {})
            .unwrap()
            .whole()
            .unwrap()
            .unwrap();
        assert_eq!(r.idle, idle);
        let single = review(&hidden, 2..=2, &[], &shots, &options, false, |_| {})
            .unwrap()
            .value
            .unwrap();
        assert_ne!(
            r.idle, single.idle,
            "the count told changes what a ray tells"
        );
        let a = r.average.unwrap();
        assert_eq!(
            (a.config.as_str(), a.molecules),
            ("A1-3_B4", all.len() as u64)
        );
        assert!(!r.game.shots.is_empty());
        let e = review(&hidden, 3..=4, &[], &shots, &options, false, |_| {}).unwrap_err();
        assert!(e.to_string().contains("not A3-4_B4"), "{e}");
    }

    #[test]
    fn a_review_agrees_with_the_strategy_and_finds_idle_rays() {
        let options = StrategyOptions::new(Policy::Greedy);
        let config: Config = "A2_B4".parse().unwrap();
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let number = crate::rules::enumeration::rank(&hidden).unwrap();
        // Spectrum @&ab@&@cbac@&@&@: ray 1 splits, ray 1 again tells nothing
        // (ignored), ray 3 then ray 10 (its pair's other end) tells nothing.
        let r = review(&hidden, 2..=2, &[], &[1, 3, 10], &options, true, |_| {})
            .unwrap()
            .whole()
            .unwrap()
            .unwrap();
        let one = play_one(config, &options, number).unwrap();
        assert_eq!(Some(r.game.clone()), one.value);
        assert_eq!(
            r.average,
            play_all(config, &options).unwrap().value.map(|mut a| {
                a.seconds = r.average.as_ref().unwrap().seconds;
                a
            })
        );
        assert_eq!(r.idle, vec![10]);
        // A ray given free comes first: the same ray shot after it is idle.
        let r = review(&hidden, 2..=2, &[1], &[1], &options, false, |_| {})
            .unwrap()
            .value
            .unwrap();
        assert_eq!(r.idle, vec![1]);
        assert!(r.average.is_none());
        let big: Molecule = Molecule::new(10, [0, 1, 2, 3, 4]).unwrap();
        assert!(review(&big, 5..=5, &[], &[], &options, false, |_| {}).is_err());
        // Cancelled: no review; the average cancelled, the review without it.
        let cancelled = StrategyOptions::new(Policy::Greedy);
        cancelled.budget.cancel.cancel();
        let r = review(&hidden, 2..=2, &[], &[1], &cancelled, true, |_| {}).unwrap();
        assert_eq!((r.value, r.ended), (None, Ended::Cancelled));
        let cancel = Budget::default();
        let later = StrategyOptions {
            budget: cancel.clone(),
            ..StrategyOptions::new(Policy::Greedy)
        };
        // (A3_B5: enough sets of molecules that the budget is asked.)
        let hidden: Molecule = Molecule::new(5, [0, 7, 19]).unwrap();
        let r = review(&hidden, 3..=3, &[], &[1], &later, true, |_| {
            cancel.cancel.cancel()
        })
        .unwrap();
        assert_eq!(r.ended, Ended::Cancelled);
        assert!(r.value.is_some_and(|r| r.average.is_none()));
    }

    #[test]
    fn a_strategy_stops_on_time_and_when_cancelled() {
        let config: Config = "A3_B5".parse().unwrap();
        let past = StrategyOptions {
            budget: Budget::default().with_timeout(std::time::Duration::ZERO),
            ..StrategyOptions::new(Policy::Greedy)
        };
        let r = play_all(config, &past).unwrap();
        assert_eq!((r.value, r.ended), (None, Ended::TimedOut));
        let r = play_one(config, &past, 1).unwrap();
        assert_eq!((r.value, r.ended), (None, Ended::TimedOut));
        let all = play_all(config, &StrategyOptions::new(Policy::Score)).unwrap();
        assert!(all.is_complete() && all.value.is_some_and(|r| r.molecules == 2300));
    }
}

#[cfg(test)]
mod rollout_tests {
    use super::*;

    /// The rays of the rollout policy's games of `set`, all together.
    fn rollout_total(chooser: &Chooser, set: &[u32]) -> u64 {
        let budget = Budget::default();
        let mut ticker = budget.ticker(1);
        let Some(q) = chooser
            .choose(set, &vec![false; chooser.t.rays], &mut ticker)
            .unwrap()
        else {
            return 0;
        };
        let t = chooser.t;
        let (mut part, mut starts) = (vec![0u32; set.len()], Vec::new());
        t.split(set, q, &mut part, &mut starts);
        (0..t.codes())
            .map(|c| rollout_total(chooser, &part[starts[c]..starts[c + 1]]))
            .sum::<u64>()
            + set.len() as u64
    }

    /// The sets of molecules a policy's games go through, from `set`.
    fn sets_of(t: &Spectra, set: &[u32], policy: Policy, out: &mut Vec<Vec<u32>>) {
        out.push(set.to_vec());
        let budget = Budget::default();
        let Some(q) = choose(t, set, &vec![false; t.rays], policy, &mut budget.ticker(1)).unwrap()
        else {
            return;
        };
        let (mut part, mut starts) = (vec![0u32; set.len()], Vec::new());
        t.split(set, q, &mut part, &mut starts);
        for c in 0..t.codes() {
            sets_of(t, &part[starts[c]..starts[c + 1]], policy, out);
        }
    }

    #[test]
    fn rollout_never_takes_more_rays_than_its_base_policy() {
        use rand::{RngExt as _, SeedableRng as _};
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(31);
        for config in [
            "A1_B3", "A2_B3", "A1_B5", "A2_B4", "A3_B4", "A2_B5", "A4_B4",
        ] {
            let config: Config = config.parse().unwrap();
            let t = Spectra::new(config, Rules::Standard, &Budget::default(), 0)
                .unwrap()
                .whole()
                .unwrap()
                .unwrap();
            let all: Vec<u32> = (0..t.count as u32).collect();
            // Every set greedy and entropy go through, and random sets.
            let mut sets = Vec::new();
            sets_of(&t, &all, Policy::Greedy, &mut sets);
            sets_of(&t, &all, Policy::Entropy, &mut sets);
            for _ in 0..40 {
                let share = rng.random_range(0.05..0.6);
                sets.push(
                    all.iter()
                        .copied()
                        .filter(|_| rng.random_bool(share))
                        .collect(),
                );
            }
            for small in [0, 4] {
                let options = StrategyOptions {
                    exact_below: small,
                    ..StrategyOptions::new(Policy::Rollout)
                };
                let chooser = Chooser::new(&t, &options);
                let budget = Budget::default();
                let keys = (small >= 2).then(|| Arc::new(SetKeys::new(&t)));
                let mut base = Base::new(&t, small, &budget, keys, Arc::new(set_words(&t)));
                for set in &sets {
                    let rollout = rollout_total(&chooser, set);
                    let greedy = base.total(set).unwrap();
                    assert!(
                        rollout <= greedy,
                        "{config}, exact below {small}: rollout {rollout} > base {greedy} on {set:?}"
                    );
                }
            }
        }
    }
}
