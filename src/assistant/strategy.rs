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
//! the original game (Emacs's): 1 per ray absorbed or reflected, 2 per ray
//! that comes out, 5 per hidden atom the placed atoms miss; and the same
//! games judged by Tatham's rule, where a placement giving the hidden
//! molecule's result on every ray wins (no penalty).
//!
//! Ties between rays go to the lowest border position.
//!
//! ```
//! use bbx::assistant::strategy::{play_all, Policy, StrategyOptions};
//! let r = play_all("A1_B3".parse().unwrap(), &StrategyOptions::new(Policy::Greedy))
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(r.molecules, 9);
//! assert!(r.rays_total >= 9);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::{Numbering, next_combination};
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::spectrum::Spectrum;

/// The most molecules a strategy is played against (their spectra are held
/// in memory, 4p bytes each).
pub const STRATEGY_LIMIT: u64 = 50_000_000;

/// Points per hidden atom the placed atoms miss.
pub const ATOM_PENALTY: u64 = 5;

/// How the seeker chooses the next ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
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
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Policy, String> {
        match s.to_ascii_lowercase().as_str() {
            "greedy" => Ok(Policy::Greedy),
            "entropy" => Ok(Policy::Entropy),
            "score" => Ok(Policy::Score),
            "lookahead" => Ok(Policy::Lookahead),
            _ => Err(format!(
                "unknown policy '{s}': expected greedy, entropy, score or lookahead"
            )),
        }
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Policy::Greedy => "greedy",
            Policy::Entropy => "entropy",
            Policy::Score => "score",
            Policy::Lookahead => "lookahead",
        })
    }
}

/// What to play.
#[derive(Debug, Clone, Copy)]
pub struct StrategyOptions {
    /// The policy.
    pub policy: Policy,
    /// The ray rules.
    pub rules: Rules,
    /// Give up at this moment.
    pub deadline: Option<Instant>,
    /// Give up when this is set (Ctrl-C).
    pub stop: Option<&'static AtomicBool>,
}

impl StrategyOptions {
    /// `policy` under the standard rules, with no limit.
    pub fn new(policy: Policy) -> StrategyOptions {
        StrategyOptions {
            policy,
            rules: Rules::Standard,
            deadline: None,
            stop: None,
        }
    }
}

/// One game: the rays shot and their outcomes, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Game {
    /// The hidden molecule's number.
    pub number: u64,
    /// The hidden molecule.
    pub molecule: String,
    /// Each ray shot (border position) and its outcome in words.
    pub shots: Vec<(usize, String)>,
    /// Molecules still fitting at the end.
    pub left: u64,
    /// The atoms placed (linear form).
    pub placed: String,
    /// Hidden atoms the placement missed.
    pub missed: u64,
    /// The score: rays plus 5 per atom missed.
    pub score: u64,
    /// The score under Tatham's rule.
    pub score_tatham: u64,
}

/// A policy played against every molecule of a configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StrategyReport {
    /// The configuration.
    pub config: String,
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
    pub hardest: Vec<Game>,
    /// The policy's first rays, along the most likely outcomes: the ray,
    /// the most likely outcome in words, and its share of the games.
    pub first_rays: Vec<(usize, String, f64)>,
    /// Seconds taken.
    pub seconds: f64,
    /// The best strategy's values, when asked for (`--optimal`).
    pub optimal: Option<crate::assistant::optimal::Optimum>,
    /// A proven lower bound of the fewest rays, when asked for (`--bound`).
    pub bound: Option<crate::assistant::optimal::LowerBound>,
}

/// Dense outcome codes in a byte: 0 absorbed, 1 reflected, 2 miss, 2 + k out at k.
fn code(o: Outcome) -> u8 {
    match o {
        Outcome::Absorbed => 0,
        Outcome::Reflected => 1,
        Outcome::Miss => 2,
        Outcome::Exit(k) => (2 + k) as u8,
    }
}

pub(crate) fn outcome(c: u8) -> Outcome {
    match c {
        0 => Outcome::Absorbed,
        1 => Outcome::Reflected,
        2 => Outcome::Miss,
        k => Outcome::Exit(k as usize - 2),
    }
}

/// What a ray costs in the original game.
pub(crate) fn ray_cost(c: u8) -> u64 {
    if c > 2 { 2 } else { 1 }
}

/// Every molecule of a configuration with its spectrum.
pub(crate) struct Table {
    pub(crate) config: Config,
    pub(crate) rays: usize,
    /// Molecule i's atoms at `atoms[i*k..(i+1)*k]` (cell indices).
    pub(crate) atoms: Vec<u16>,
    /// Molecule i's outcome codes at `codes[i*rays..(i+1)*rays]`.
    pub(crate) codes: Vec<u8>,
}

impl Table {
    pub(crate) fn new(config: Config, rules: Rules) -> Result<Table, Error> {
        let count = config.molecule_count().unwrap_or(u64::MAX);
        if count > STRATEGY_LIMIT || config.width > 63 {
            return Err(Error::invalid(format!(
                "{config} has {} molecules: bbx strategy plays every one of them and holds their spectra in memory, up to {STRATEGY_LIMIT} molecules in boxes up to 63×63",
                config
                    .molecule_count()
                    .map_or("more than 2^64".to_string(), |n| n.to_string())
            )));
        }
        let numbering = Numbering::new(config).ok_or_else(|| {
            Error::Internal(format!("{config} has a molecule count but is not numbered"))
        })?;
        let p = config.width;
        let rays = 4 * p;
        let k = config.atoms;
        let n = count as usize;
        let mut atoms = vec![0u16; n * k];
        let mut codes = vec![0u8; n * rays];
        const CHUNK: usize = 1 << 14;
        atoms
            .par_chunks_mut(CHUNK * k.max(1))
            .zip(codes.par_chunks_mut(CHUNK * rays))
            .enumerate()
            .for_each(|(c, (a, s))| {
                let first = (c * CHUNK) as u64 + 1;
                let mut cells = Vec::new();
                numbering.unrank_into(first, &mut cells);
                let mut tracer = Tracer::new(p, rules);
                for (i, spectrum) in s.chunks_mut(rays).enumerate() {
                    tracer.update_cells(&cells);
                    for (j, x) in cells.iter().enumerate() {
                        a[i * k + j] = *x as u16;
                    }
                    for (q, out) in spectrum.iter_mut().enumerate() {
                        *out = code(tracer.trace(q + 1).outcome);
                    }
                    next_combination(&mut cells, p * p);
                }
            });
        Ok(Table {
            config,
            rays,
            atoms,
            codes,
        })
    }

    pub(crate) fn code(&self, m: u32, q: usize) -> u8 {
        self.codes[m as usize * self.rays + q - 1]
    }

    pub(crate) fn atoms(&self, m: u32) -> &[u16] {
        let k = self.config.atoms;
        &self.atoms[m as usize * k..(m as usize + 1) * k]
    }

    /// Where the seeker places the atoms for the molecules of `set`: the
    /// cells most often holding one (ties: the lowest cells).
    fn placement(&self, set: &[u32]) -> Vec<u16> {
        let cells = self.config.width * self.config.width;
        let mut freq = vec![0u64; cells];
        for &m in set {
            for &a in self.atoms(m) {
                freq[a as usize] += 1;
            }
        }
        let mut order: Vec<u16> = (0..cells as u16).collect();
        order.sort_by(|&a, &b| freq[b as usize].cmp(&freq[a as usize]).then(a.cmp(&b)));
        order.truncate(self.config.atoms);
        order
    }

    /// Hidden atoms of `m` not among `placed`.
    fn missed(&self, m: u32, placed: &[u16]) -> u64 {
        self.atoms(m).iter().filter(|a| !placed.contains(a)).count() as u64
    }
}

/// The expected penalty of placing the atoms now, for the molecules with
/// these cell frequencies: 5 per atom, less what the best cells cover.
pub(crate) fn stop_penalty(freq: &mut [u64], atoms: usize, size: u64) -> f64 {
    freq.sort_unstable_by(|a, b| b.cmp(a));
    let covered: u64 = freq.iter().take(atoms).sum();
    ATOM_PENALTY as f64 * (atoms as f64 - covered as f64 / size as f64)
}

/// What the policy does for a set: shoot this ray, or stop.
fn choose(t: &Table, set: &[u32], shot: &[bool], policy: Policy) -> Option<usize> {
    let n = set.len() as f64;
    let codes = t.rays + 3;
    let mut best: Option<(f64, usize)> = None;
    let cells = t.config.width * t.config.width;
    let k = t.config.atoms;
    let mut counts = vec![0u64; codes];
    let mut freq: Vec<u64> = Vec::new();
    for q in 1..=t.rays {
        if shot[q - 1] {
            continue;
        }
        counts.iter_mut().for_each(|c| *c = 0);
        for &m in set {
            counts[t.code(m, q) as usize] += 1;
        }
        if counts.iter().filter(|&&c| c > 0).count() < 2 {
            continue;
        }
        let value = match policy {
            Policy::Greedy => counts.iter().map(|&c| (c * c) as f64).sum::<f64>() / n,
            Policy::Entropy => counts
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
                    classes[t.code(m, q) as usize].push(m);
                }
                let mut next = vec![0u64; codes];
                let mut total: u64 = 0;
                for class in classes.iter().filter(|c| !c.is_empty()) {
                    let size = class.len() as u64;
                    let mut least = size * size;
                    if size > 1 {
                        for q2 in 1..=t.rays {
                            if shot[q2 - 1] || q2 == q {
                                continue;
                            }
                            next.iter_mut().for_each(|c| *c = 0);
                            for &m in class {
                                next[t.code(m, q2) as usize] += 1;
                            }
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
                    let c = t.code(m, q) as usize;
                    for &a in t.atoms(m) {
                        freq[c * cells + a as usize] += 1;
                    }
                }
                let mut v = 0.0;
                for (c, &size) in counts.iter().enumerate() {
                    if size == 0 {
                        continue;
                    }
                    let cost = ray_cost(c as u8) as f64
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
    let (value, q) = best?;
    if policy == Policy::Score {
        let mut now = vec![0u64; cells];
        for &m in set {
            for &a in t.atoms(m) {
                now[a as usize] += 1;
            }
        }
        if stop_penalty(&mut now, k, set.len() as u64) <= value + 1e-12 {
            return None;
        }
    }
    Some(q)
}

/// Per molecule: rays shot, score, score under Tatham's rule, molecules left.
#[derive(Clone, Copy, Default)]
struct Result1 {
    rays: u8,
    score: u32,
    tatham: u32,
}

/// Plays the policy on `set`, with the rays `shot` and the `rays`/`cost`
/// so far, writing each molecule's result.
struct Player<'a> {
    t: &'a Table,
    options: &'a StrategyOptions,
    rules: Rules,
    out: Vec<Result1>,
    undecided: u64,
    penalty: u64,
    nodes: u64,
    cut: bool,
}

impl Player<'_> {
    fn must_stop(&mut self) -> bool {
        self.nodes += 1;
        if !self.cut && self.nodes.is_multiple_of(1024) {
            self.cut = self.options.stop.is_some_and(|s| s.load(Ordering::Relaxed))
                || self.options.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.cut
    }

    fn play(&mut self, set: &mut [u32], shot: &mut Vec<bool>, rays: u8, cost: u32) {
        if self.must_stop() {
            return;
        }
        let next = if set.len() > 1 {
            choose(self.t, set, shot, self.options.policy)
        } else {
            None
        };
        let Some(q) = next else {
            self.leaf(set, rays, cost);
            return;
        };
        // Split the set by the outcome of ray q (a counting sort).
        let codes = self.t.rays + 3;
        let mut starts = vec![0usize; codes + 1];
        for &m in set.iter() {
            starts[self.t.code(m, q) as usize + 1] += 1;
        }
        for c in 0..codes {
            starts[c + 1] += starts[c];
        }
        let mut sorted = vec![0u32; set.len()];
        let mut at = starts.clone();
        for &m in set.iter() {
            let c = self.t.code(m, q) as usize;
            sorted[at[c]] = m;
            at[c] += 1;
        }
        set.copy_from_slice(&sorted);
        drop(sorted);
        for c in 0..codes {
            let (a, b) = (starts[c], starts[c + 1]);
            if a == b {
                continue;
            }
            let o = outcome(c as u8);
            shot[q - 1] = true;
            let partner = match o {
                Outcome::Exit(k) => Some(k),
                _ => None,
            };
            let partner_was = partner.map(|k| shot[k - 1]);
            if let Some(k) = partner {
                shot[k - 1] = true;
            }
            self.play(
                &mut set[a..b],
                shot,
                rays.saturating_add(1),
                cost + ray_cost(c as u8) as u32,
            );
            if let (Some(k), Some(was)) = (partner, partner_was) {
                shot[k - 1] = was;
            }
            shot[q - 1] = false;
        }
    }

    fn leaf(&mut self, set: &[u32], rays: u8, cost: u32) {
        let placed = self.t.placement(set);
        let guess = Molecule::new(self.t.config.width, placed.iter().map(|&a| a as usize))
            .map(|g| Spectrum::of(&g, self.rules));
        if set.len() > 1 {
            self.undecided += set.len() as u64;
        }
        for &m in set {
            let missed = self.t.missed(m, &placed);
            let penalty = (missed * ATOM_PENALTY) as u32;
            self.penalty += u64::from(penalty);
            let same = guess
                .as_ref()
                .is_ok_and(|g| (1..=self.t.rays).all(|q| code(g.get(q)) == self.t.code(m, q)));
            self.out[m as usize] = Result1 {
                rays,
                score: cost + penalty,
                tatham: cost + if same { 0 } else { penalty },
            };
        }
    }
}

/// Plays `options.policy` against every molecule of `config`; `None` when
/// the deadline or the stop flag ended it before every game was played.
pub fn play_all(
    config: Config,
    options: &StrategyOptions,
) -> Result<Option<StrategyReport>, Error> {
    let start = Instant::now();
    let t = Table::new(config, options.rules)?;
    play_all_on(&t, options, start)
}

/// [`play_all`] on a table already made; `start` is when the work began.
fn play_all_on(
    t: &Table,
    options: &StrategyOptions,
    start: Instant,
) -> Result<Option<StrategyReport>, Error> {
    let config = t.config;
    let n = config.molecule_count().unwrap_or(0) as usize;
    let mut set: Vec<u32> = (0..n as u32).collect();
    let mut player = Player {
        t,
        options,
        rules: options.rules,
        out: vec![Result1::default(); n],
        undecided: 0,
        penalty: 0,
        nodes: 0,
        cut: false,
    };
    let mut shot = vec![false; t.rays];
    player.play(&mut set, &mut shot, 0, 0);
    if player.cut {
        return Ok(None);
    }
    let out = &player.out;
    let rays_total: u64 = out.iter().map(|r| u64::from(r.rays)).sum();
    let score_total: u64 = out.iter().map(|r| u64::from(r.score)).sum();
    let score_tatham_total: u64 = out.iter().map(|r| u64::from(r.tatham)).sum();
    let rays_worst = out.iter().map(|r| u64::from(r.rays)).max().unwrap_or(0);
    let score_worst = out.iter().map(|r| u64::from(r.score)).max().unwrap_or(0);
    let mut rays_histogram = vec![0u64; rays_worst as usize + 1];
    let mut score_histogram = vec![0u64; score_worst as usize + 1];
    for r in out {
        rays_histogram[r.rays as usize] += 1;
        score_histogram[r.score as usize] += 1;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (out[a as usize], out[b as usize]);
        y.score
            .cmp(&x.score)
            .then(y.rays.cmp(&x.rays))
            .then(a.cmp(&b))
    });
    let hardest = order
        .iter()
        .take(5)
        .map(|&m| game(t, options, m as u64 + 1))
        .collect::<Result<Vec<Game>, Error>>()?;
    let molecules = n as u64;
    let mean = |x: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    Ok(Some(StrategyReport {
        config: config.to_string(),
        rules: options.rules,
        policy: options.policy,
        molecules,
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
        first_rays: first_rays(t, options.policy, 3),
        seconds: start.elapsed().as_secs_f64(),
        optimal: None,
        bound: None,
    }))
}

/// The policy's first `depth` rays along the most likely outcomes.
fn first_rays(t: &Table, policy: Policy, depth: usize) -> Vec<(usize, String, f64)> {
    let n = t.codes.len() / t.rays;
    let mut set: Vec<u32> = (0..n as u32).collect();
    let mut shot = vec![false; t.rays];
    let mut out = Vec::new();
    for _ in 0..depth {
        let Some(q) = (if set.len() > 1 {
            choose(t, &set, &shot, policy)
        } else {
            None
        }) else {
            break;
        };
        let mut counts = vec![0u64; t.rays + 3];
        for &m in &set {
            counts[t.code(m, q) as usize] += 1;
        }
        let (c, &size) = counts
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .expect("codes");
        out.push((q, outcome(c as u8).words(), size as f64 / n as f64));
        shot[q - 1] = true;
        if let Outcome::Exit(k) = outcome(c as u8) {
            shot[k - 1] = true;
        }
        set.retain(|&m| t.code(m, q) as usize == c);
    }
    out
}

/// Plays the policy against molecule `number` of `config` alone: the rays
/// it shoots, their outcomes, and how the game ends.
pub fn play_one(config: Config, options: &StrategyOptions, number: u64) -> Result<Game, Error> {
    let t = Table::new(config, options.rules)?;
    game(&t, options, number)
}

/// [`play_one`] on a table already made.
fn game(t: &Table, options: &StrategyOptions, number: u64) -> Result<Game, Error> {
    let config = t.config;
    let n = config.molecule_count().unwrap_or(0);
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
    while set.len() > 1 {
        let Some(q) = choose(t, &set, &shot, options.policy) else {
            break;
        };
        let c = t.code(hidden, q);
        shots.push((q, outcome(c).words()));
        cost += ray_cost(c);
        shot[q - 1] = true;
        if let Outcome::Exit(k) = outcome(c) {
            shot[k - 1] = true;
        }
        set.retain(|&m| t.code(m, q) == c);
    }
    let placed = t.placement(&set);
    let missed = t.missed(hidden, &placed);
    let guess = Molecule::new(config.width, placed.iter().map(|&a| a as usize))?;
    let g = Spectrum::of(&guess, options.rules);
    let same = (1..=t.rays).all(|q| code(g.get(q)) == t.code(hidden, q));
    let hidden_molecule = Molecule::new(config.width, t.atoms(hidden).iter().map(|&a| a as usize))?;
    Ok(Game {
        number,
        molecule: hidden_molecule.to_string(),
        shots,
        left: set.len() as u64,
        placed: guess.to_string(),
        missed,
        score: cost + missed * ATOM_PENALTY,
        score_tatham: cost + if same { 0 } else { missed * ATOM_PENALTY },
    })
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
    pub game: Game,
    /// The policy against every molecule of the configuration (`None` when
    /// not asked for).
    pub average: Option<StrategyReport>,
    /// The player's rays, in the order shot, whose result every molecule
    /// still fitting before it agreed on: they split nothing.
    pub idle: Vec<usize>,
}

/// Reviews a game of `config` (its hidden molecule `hidden`): the policy's
/// game against it, the policy against every molecule when `average`, and,
/// of the player's `shots` (border positions in the order shot, after the
/// rays `given` free by a puzzle), those that told nothing new. `None` when
/// the deadline or the stop flag ended it; an error when the configuration
/// has more than [`REVIEW_LIMIT`] molecules. `first` is given the review
/// without its average as soon as that is known (the average takes longer).
pub fn review(
    hidden: &Molecule,
    given: &[usize],
    shots: &[usize],
    options: &StrategyOptions,
    average: bool,
    first: impl FnOnce(&Review),
) -> Result<Option<Review>, Error> {
    let start = Instant::now();
    let config = Config::new(hidden.atoms().len(), hidden.width())?;
    let count = config.molecule_count().unwrap_or(u64::MAX);
    if count > REVIEW_LIMIT {
        return Err(Error::invalid(format!(
            "{config} has {count} molecules: a game is reviewed in configurations of up to {REVIEW_LIMIT}"
        )));
    }
    let t = Table::new(config, options.rules)?;
    let number = crate::rules::enumeration::rank(hidden)
        .ok_or_else(|| Error::Internal(format!("{config} is numbered but {hidden} is not")))?;
    let hidden_index = (number - 1) as u32;
    let mut set: Vec<u32> = (0..count as u32).collect();
    let rays = 4 * config.width;
    let in_range = |q: &&usize| (1..=rays).contains(*q);
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
    let mut r = Review {
        game: game(&t, options, number)?,
        average: None,
        idle,
    };
    if average {
        first(&r);
        match play_all_on(&t, options, start)? {
            Some(a) => r.average = Some(a),
            None => return Ok(None),
        }
    }
    Ok(Some(r))
}

#[cfg(test)]
mod review_tests {
    use super::*;

    #[test]
    fn a_review_agrees_with_the_strategy_and_finds_idle_rays() {
        let options = StrategyOptions::new(Policy::Greedy);
        let config: Config = "A2_B4".parse().unwrap();
        let hidden: Molecule = "O-O-------------".parse().unwrap();
        let number = crate::rules::enumeration::rank(&hidden).unwrap();
        // Spectrum @&ab@&@cbac@&@&@: ray 1 splits, ray 1 again tells nothing
        // (ignored), ray 3 then ray 10 (its pair's other end) tells nothing.
        let r = review(&hidden, &[], &[1, 3, 10], &options, true, |_| {})
            .unwrap()
            .unwrap();
        assert_eq!(r.game, play_one(config, &options, number).unwrap());
        assert_eq!(
            r.average,
            play_all(config, &options).unwrap().map(|mut a| {
                a.seconds = r.average.as_ref().unwrap().seconds;
                a
            })
        );
        assert_eq!(r.idle, vec![10]);
        // A ray given free comes first: the same ray shot after it is idle.
        let r = review(&hidden, &[1], &[1], &options, false, |_| {})
            .unwrap()
            .unwrap();
        assert_eq!(r.idle, vec![1]);
        assert!(r.average.is_none());
        let big: Molecule = Molecule::new(10, [0, 1, 2, 3, 4]).unwrap();
        assert!(review(&big, &[], &[], &options, false, |_| {}).is_err());
    }
}
