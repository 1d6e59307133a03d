//! The certificate of an optimum: its decision trees, replayed against
//! every molecule, as a check written apart from the search.
//!
//! `bbx strategy --optimal --tree FILE` writes the best strategies as JSON
//! decision trees with the totals the search claims. [`check`] reads such
//! a file and, for every molecule of the configuration, plays the game
//! each tree describes with rays traced here by the ray engine
//! ([`Tracer`]): each ray's outcome must have its branch, every game of
//! the rays tree must end where no ray tells the molecules left apart
//! (they share every outcome), and the rays and scores of all the games
//! must add up to the totals the file claims. Nothing here comes from the
//! search: not its spectra, its sets, its bounds nor its memo.
//!
//! ```
//! use bbx::assistant::certificate::check;
//! use bbx::control::Budget;
//! // A1_B2: one atom in a 2×2 box. Ray 1 is absorbed by an atom in the
//! // top-left cell; otherwise it comes out at 8 or is reflected.
//! let text = r#"{"config": "A1_B2", "rules": "standard", "molecules": 4, "rays_total": 0,
//!                "rays": {"stop": {"molecules": 4, "place": [0]}}}"#;
//! let e = check(text, "trees.json", &Budget::default()).unwrap_err().to_string();
//! assert!(e.contains("differ"), "{e}");
//! ```

use std::io::Read as _;
use std::path::Path;

use serde_json::Value;

use crate::assistant::optimal::{Optimum, Tree};
use crate::assistant::strategy::StrategyReport;

use crate::control::{Budget, Finished};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::Molecules;
use crate::rules::ray::{Outcome, Rules, Tracer};
use crate::rules::score::{MISSED_ATOM_PENALTY, ray_cost};

/// What a certificate's replay found: every game of each tree it holds,
/// with the totals it claims, which agree.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TreeCheck {
    /// The configuration.
    pub config: String,
    /// The ray rules.
    pub rules: Rules,
    /// Games replayed per tree: one per molecule.
    pub molecules: u64,
    /// The rays tree's total, replayed (`None`: the file has no rays tree).
    pub rays_total: Option<u64>,
    /// Its longest game.
    pub rays_longest: Option<u64>,
    /// Its stops.
    pub rays_stops: Option<u64>,
    /// The score tree's total, replayed (`None`: no score tree).
    pub score_total: Option<u64>,
    /// Seconds taken.
    pub seconds: f64,
}

/// A node of a tree as read: a shot with its branches (an outcome and the
/// index of its node), or a stop.
enum Node {
    Shoot {
        ray: usize,
        branches: Vec<(Outcome, usize)>,
        at: String,
    },
    Stop {
        molecules: u64,
        place: Vec<usize>,
        at: String,
    },
}

/// The most levels of a tree read (a game shoots each ray once at most
/// usefully; a deeper tree is refused rather than followed).
const MAX_DEPTH: usize = 1024;

/// Reads the tree at `v` (found at `at`, for messages) into `nodes`: its
/// root's index.
fn read_tree(
    v: &Value,
    at: &str,
    config: Config,
    nodes: &mut Vec<Node>,
    depth: usize,
) -> Result<usize, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{at}: deeper than {MAX_DEPTH} levels, which no game of this box needs"
        ));
    }
    let positions = config.shape().positions();
    if let Some(stop) = v.get("stop") {
        let molecules = stop
            .get("molecules")
            .and_then(Value::as_u64)
            .ok_or(format!("{at}.stop: no \"molecules\" count"))?;
        let place = stop
            .get("place")
            .and_then(Value::as_array)
            .ok_or(format!("{at}.stop: no \"place\" list of cells"))?
            .iter()
            .map(|c| c.as_u64().map(|c| c as usize))
            .collect::<Option<Vec<usize>>>()
            .filter(|p| p.iter().all(|&c| c < config.cells()))
            .ok_or(format!(
                "{at}.stop.place: expected cells from 0 to {}",
                config.cells() - 1
            ))?;
        nodes.push(Node::Stop {
            molecules,
            place,
            at: at.to_string(),
        });
        return Ok(nodes.len() - 1);
    }
    let shoot = v
        .get("shoot")
        .ok_or(format!("{at}: neither \"shoot\" nor \"stop\""))?;
    let ray = shoot
        .get("position")
        .and_then(Value::as_u64)
        .map(|q| q as usize)
        .filter(|q| (1..=positions).contains(q))
        .ok_or(format!(
            "{at}.shoot.position: expected a border position from 1 to {positions}"
        ))?;
    let list = shoot
        .get("branches")
        .and_then(Value::as_array)
        .ok_or(format!("{at}.shoot: no \"branches\" list"))?;
    let index = nodes.len();
    nodes.push(Node::Shoot {
        ray,
        branches: Vec::new(),
        at: at.to_string(),
    });
    let mut branches = Vec::with_capacity(list.len());
    for (i, b) in list.iter().enumerate() {
        let here = format!("{at}.shoot.branches[{i}]");
        let pair = b
            .as_array()
            .filter(|p| p.len() == 2)
            .ok_or(format!("{here}: expected [outcome, node]"))?;
        let outcome: Outcome = serde_json::from_value(pair[0].clone())
            .map_err(|e| format!("{here}: not an outcome ({e})"))?;
        if branches.iter().any(|(o, _)| *o == outcome) {
            return Err(format!("{here}: a second branch for {}", outcome.words()));
        }
        let child = read_tree(&pair[1], &format!("{here}[1]"), config, nodes, depth + 1)?;
        branches.push((outcome, child));
    }
    if let Node::Shoot { branches: b, .. } = &mut nodes[index] {
        *b = branches;
    }
    Ok(index)
}

/// One molecule's game on a tree: the stop it reached, its rays and score.
struct Game {
    stop: usize,
    rays: u64,
    score: u64,
}

/// Plays the game of the molecule loaded in `tracer` (whose atoms are
/// `atoms`, numbered `number`) on the tree of `nodes` rooted at `root`.
fn play(
    nodes: &[Node],
    root: usize,
    tracer: &Tracer,
    atoms: &[usize],
    number: u64,
) -> Result<Game, String> {
    let (mut at, mut rays, mut cost) = (root, 0u64, 0u64);
    loop {
        match &nodes[at] {
            Node::Stop { place, .. } => {
                let missed = atoms.iter().filter(|a| !place.contains(a)).count() as u64;
                return Ok(Game {
                    stop: at,
                    rays,
                    score: cost + MISSED_ATOM_PENALTY * missed,
                });
            }
            Node::Shoot {
                ray,
                branches,
                at: path,
            } => {
                let outcome = tracer.trace(*ray).outcome;
                let Some(&(_, next)) = branches.iter().find(|(o, _)| *o == outcome) else {
                    return Err(format!(
                        "molecule {number} (atoms at cells {atoms:?}): ray {ray} at {path} gives {}, for which the tree has no branch",
                        outcome.words()
                    ));
                };
                rays += 1;
                cost += ray_cost(outcome);
                at = next;
            }
        }
    }
}

/// Replays the trees of a certificate (`text`, the JSON `bbx strategy
/// --optimal --tree` writes, read from `origin`) against every molecule of
/// its configuration, asking `budget` as it goes: what it found when every
/// game agrees with the file; an error naming the first molecule, ray or
/// total that does not; nothing (`None`) when the budget stopped it.
pub fn check(
    text: &str,
    origin: &str,
    budget: &Budget,
) -> Result<Finished<Option<TreeCheck>>, Error> {
    let start = web_time::Instant::now();
    let bad = |why: String| Error::invalid(format!("{origin}: {why}"));
    let v: Value = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "not a tree file of the optimum ({e}): give the file its search wrote"
        ))
    })?;
    let config: Config = v
        .get("config")
        .and_then(Value::as_str)
        .ok_or(bad("no \"config\"".into()))?
        .parse()
        .map_err(|e| bad(format!("\"config\": {e}")))?;
    let rules: Rules = match v.get("rules") {
        None => Rules::Standard,
        Some(r) => serde_json::from_value(r.clone()).map_err(|e| bad(format!("\"rules\": {e}")))?,
    };
    let count = config
        .molecule_count()
        .filter(|&n| n <= 1 << 32)
        .ok_or(bad(format!("{config} has too many molecules to replay")))?;
    let claimed = v.get("molecules").and_then(Value::as_u64);
    if claimed != Some(count) {
        return Err(bad(format!(
            "\"molecules\" is {}, but {config} has {count}",
            claimed.map_or("missing".to_string(), |c| c.to_string())
        )));
    }
    let mut nodes = Vec::new();
    let mut trees = Vec::new();
    for (name, total) in [("rays", "rays_total"), ("score", "score_total")] {
        let Some(tree) = v.get(name).filter(|t| !t.is_null()) else {
            continue;
        };
        let root = read_tree(tree, name, config, &mut nodes, 0).map_err(&bad)?;
        let total = v
            .get(total)
            .and_then(Value::as_u64)
            .ok_or(bad(format!("a {name} tree but no \"{total}\"")))?;
        trees.push((name, root, total));
    }
    if trees.is_empty() {
        return Err(bad("no \"rays\" nor \"score\" tree".into()));
    }
    let mut out = TreeCheck {
        config: config.to_string(),
        rules,
        molecules: count,
        rays_total: None,
        rays_longest: None,
        rays_stops: None,
        score_total: None,
        seconds: 0.0,
    };
    let mut tracer = Tracer::new(config.shape(), rules);
    let mut other = Tracer::new(config.shape(), rules);
    let positions = config.shape().positions();
    let mut ticker = budget.ticker(256);
    for (name, root, claimed) in trees {
        // Per stop: the first molecule that reached it, and how many did.
        let mut reached: Vec<Option<(Vec<usize>, u64)>> = Vec::new();
        reached.resize_with(nodes.len(), || None);
        let (mut rays, mut score, mut longest) = (0u64, 0u64, 0u64);
        for (i, m) in Molecules::new(config).enumerate() {
            if let Err(cut) = ticker.tick() {
                return Ok(Finished::new(None, cut.into()));
            }
            let number = i as u64 + 1;
            tracer.load(&m);
            let game = play(&nodes, root, &tracer, m.atoms(), number).map_err(&bad)?;
            rays += game.rays;
            score += game.score;
            longest = longest.max(game.rays);
            match &mut reached[game.stop] {
                Some((first, n)) => {
                    *n += 1;
                    if name == "rays" {
                        // No ray may tell the molecules of a stop apart.
                        other.load_cells(first);
                        if let Some(q) = (1..=positions)
                            .find(|&q| tracer.trace(q).outcome != other.trace(q).outcome)
                        {
                            return Err(bad(format!(
                                "the rays tree stops with molecules that differ: molecule {number} (atoms at cells {:?}) and the one with atoms at cells {first:?} reach the stop at {}, but ray {q} tells them apart",
                                m.atoms(),
                                stop_path(&nodes[game.stop])
                            )));
                        }
                    }
                }
                slot @ None => *slot = Some((m.atoms().to_vec(), 1)),
            }
        }
        for (node, seen) in nodes.iter().zip(&reached) {
            if let (Node::Stop { molecules, at, .. }, Some((_, n))) = (node, seen)
                && molecules != n
            {
                return Err(bad(format!(
                    "{at}.stop: \"molecules\" is {molecules}, but {n} molecules end their game there"
                )));
            }
        }
        let total = if name == "rays" { rays } else { score };
        if total != claimed {
            return Err(bad(format!(
                "the {name} tree's games add up to {total}, not the {claimed} the file claims"
            )));
        }
        if name == "rays" {
            out.rays_total = Some(rays);
            out.rays_longest = Some(longest);
            out.rays_stops = Some(reached.iter().filter(|r| r.is_some()).count() as u64);
        } else {
            out.score_total = Some(score);
        }
    }
    out.seconds = start.elapsed().as_secs_f64();
    Ok(Finished::complete(Some(out)))
}

/// The most bytes of a tree file read: more than any the search writes.
const FILE_LIMIT: u64 = 1 << 31;

/// [`check`] of the tree file at `path`, which must hold the trees of
/// `config`.
pub fn check_file(
    path: &Path,
    config: Config,
    budget: &Budget,
) -> Result<Finished<Option<TreeCheck>>, Error> {
    let shown = path.display().to_string();
    let io = |source| Error::Io {
        path: shown.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    file.take(FILE_LIMIT + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > FILE_LIMIT {
        return Err(Error::invalid(format!(
            "{shown}: larger than {FILE_LIMIT} bytes, more than any tree file bbx writes"
        )));
    }
    let checked = check(&text, &shown, budget)?;
    if let Some(c) = &checked.value
        && c.config != config.to_string()
    {
        return Err(Error::invalid(format!(
            "{shown}: holds the trees of {}, not {config}",
            c.config
        )));
    }
    Ok(checked)
}

/// The file of the best strategies' trees, as [`check`] reads it.
#[derive(serde::Serialize)]
struct Trees<'a> {
    config: &'a str,
    rules: Rules,
    molecules: u64,
    rays_total: Option<u64>,
    rays: Option<&'a Tree>,
    score_total: Option<u64>,
    score: Option<&'a Tree>,
}

/// Writes the best strategies' trees of `o` to `path` (whole or not at
/// all), with what they were found for: `{"config", "rules", "molecules",
/// "rays_total", "rays", "score_total", "score"}`.
pub fn write_trees(path: &Path, report: &StrategyReport, o: &Optimum) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(&Trees {
        config: &report.config,
        rules: report.rules,
        molecules: o.molecules,
        rays_total: o.rays_total,
        rays: o.rays_tree.as_ref(),
        score_total: o.score_total,
        score: o.score_tree.as_ref(),
    })?;
    text.push('\n');
    crate::files::write_whole(path, text.as_bytes()).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Where a stop is in its tree, for messages.
fn stop_path(node: &Node) -> &str {
    match node {
        Node::Stop { at, .. } | Node::Shoot { at, .. } => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rays tree of A1_B2 (one atom in a 2×2 box) with a wrong total:
    /// ray 1, then ray 2 where ray 1 leaves two molecules (the outcomes
    /// traced here).
    fn a1_b2() -> String {
        // Every molecule's outcome of ray 1 and 2, traced.
        let config: Config = "A1_B2".parse().unwrap();
        let mut tracer = Tracer::new(config.shape(), Rules::Standard);
        let mut branches: Vec<(Outcome, Vec<Vec<usize>>)> = Vec::new();
        for m in Molecules::new(config) {
            tracer.load(&m);
            let o = tracer.trace(1).outcome;
            match branches.iter_mut().find(|b| b.0 == o) {
                Some(b) => b.1.push(m.atoms().to_vec()),
                None => branches.push((o, vec![m.atoms().to_vec()])),
            }
        }
        assert!(branches.len() > 1);
        let mut node = |atoms: &Vec<Vec<usize>>| -> Value {
            if atoms.len() == 1 {
                serde_json::json!({"stop": {"molecules": 1, "place": atoms[0]}})
            } else {
                // Split by ray 2, whose outcomes tell them apart here.
                let mut sub: Vec<Value> = Vec::new();
                for a in atoms {
                    tracer.load_cells(a);
                    let o = tracer.trace(2).outcome;
                    sub.push(serde_json::json!([o, {"stop": {"molecules": 1, "place": a}}]));
                }
                serde_json::json!({"shoot": {"position": 2, "branches": sub}})
            }
        };
        let root: Vec<Value> = branches
            .iter()
            .map(|(o, atoms)| serde_json::json!([o, node(atoms)]))
            .collect();
        serde_json::json!({"config": "A1_B2", "rules": "standard", "molecules": 4,
            "rays_total": 0, "rays": {"shoot": {"position": 1, "branches": root}}})
        .to_string()
    }

    #[test]
    fn a_true_tree_passes_and_a_wrong_outcome_or_total_is_refused() {
        let text = a1_b2();
        // The total claimed is 0: wrong, and its replay says the right one.
        let e = check(&text, "t.json", &Budget::default())
            .unwrap_err()
            .to_string();
        let want: u64 = e
            .split("add up to ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{e}"));
        assert!(e.contains("not the 0 the file claims"), "{e}");
        let right = text.replace("\"rays_total\":0", &format!("\"rays_total\":{want}"));
        let ok = check(&right, "t.json", &Budget::default())
            .unwrap()
            .value
            .unwrap();
        assert_eq!(ok.rays_total, Some(want));
        assert_eq!(ok.molecules, 4);
        // One outcome changed: a branch for an outcome no molecule gives,
        // and none for the one it gives.
        let mut v: Value = serde_json::from_str(&right).unwrap();
        v["rays"]["shoot"]["branches"][0][0] = serde_json::json!({"result": "miss", "exit": null});
        let e = check(&v.to_string(), "t.json", &Budget::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("for which the tree has no branch"), "{e}");
    }
}
