//! What `bbx trace` reports about one molecule: numbers, spectrum, every ray
//! and the 17 statistics, as one value to print or serialise.

use crate::rules::board::{Heading, Molecule};
use crate::rules::enumeration::{canonical, rank};
use crate::rules::ray::{Outcome, PathStep, RayTrace, Rules, Tracer};
use crate::rules::spectrum::{Analysis, Stats};

/// Everything `bbx trace` reports about one molecule, ready to print as text
/// or to serialise as JSON.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceReport {
    /// The configuration, `An_Bp`.
    pub config: String,
    /// The box's width: a cell's linear index is row × width + column.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The rules used.
    pub rules: Rules,
    /// The linear form.
    pub molecule: String,
    /// The normalised spectrum (`null` past 52 exit pairs).
    pub spectrum: Option<String>,
    /// The molecule's number (`null` when the configuration is not numbered).
    pub number: Option<u64>,
    /// The smallest number in its enantiomer group.
    pub canonical_number: Option<u64>,
    /// The transform mapping the canonical molecule onto this one.
    pub transform: Option<String>,
    /// One entry per border position.
    pub rays: Vec<RayReport>,
    /// The 17 statistics.
    pub stats: Stats,
    #[serde(skip)]
    analysis: Analysis,
    #[serde(skip)]
    molecule_value: Molecule,
    #[serde(skip)]
    paths: Vec<(usize, RayTrace, Vec<PathStep>)>,
}

/// One ray of a [`TraceReport`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct RayReport {
    /// Border position, 1..=4p.
    pub position: usize,
    /// `absorbed`, `reflected`, `exit` or `miss`.
    pub result: &'static str,
    /// The mark on the border in J. Forget's notation (`null` past 52 pairs).
    pub mark: Option<char>,
    /// Where the ray comes out, for `exit`.
    pub exit: Option<usize>,
    /// Cells entered.
    pub length: u32,
    /// 90° turns.
    pub turns: u32,
    /// The path, when requested: `[row, column, heading]` per state
    /// (`null` when not requested).
    pub path: Option<Vec<(usize, usize, Heading)>>,
}

impl TraceReport {
    /// Traces `m` under `rules`, recording the paths of the rays from the
    /// positions in `paths` (positions outside 1..=4p are ignored).
    pub fn new(m: &Molecule, rules: Rules, paths: &[usize]) -> TraceReport {
        let analysis = Analysis::of(m, rules);
        let marks = analysis.spectrum.marks();
        let canonical = canonical(m);
        let mut tracer = Tracer::new(m.shape(), rules);
        tracer.load(m);
        let positions = m.shape().positions();
        let mut traced: Vec<(usize, RayTrace, Vec<PathStep>)> = Vec::new();
        for &k in paths {
            if (1..=positions).contains(&k) && !traced.iter().any(|t| t.0 == k) {
                let (trace, path) = tracer.trace_path(k);
                traced.push((k, trace, path));
            }
        }
        let rays = analysis
            .rays
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let pos = i + 1;
                let (result, exit) = match r.outcome {
                    Outcome::Absorbed => ("absorbed", None),
                    Outcome::Reflected => ("reflected", None),
                    Outcome::Exit(k) => ("exit", Some(k)),
                    Outcome::Miss => ("miss", None),
                };
                let path = traced
                    .iter()
                    .find(|t| t.0 == pos)
                    .map(|t| t.2.iter().map(|s| (s.row, s.col, s.heading)).collect());
                RayReport {
                    position: pos,
                    result,
                    mark: marks.as_ref().map(|m| m[i]),
                    exit,
                    length: r.length,
                    turns: r.turns,
                    path,
                }
            })
            .collect();
        TraceReport {
            config: m.config().to_string(),
            width: m.width(),
            height: m.height(),
            rules,
            molecule: m.to_string(),
            spectrum: analysis.spectrum.normalized(),
            number: rank(m),
            canonical_number: canonical.map(|c| c.0),
            transform: canonical.map(|c| c.1.name().to_string()),
            rays,
            stats: analysis.stats,
            analysis,
            molecule_value: m.clone(),
            paths: traced,
        }
    }

    /// The molecule traced.
    pub fn molecule(&self) -> &Molecule {
        &self.molecule_value
    }

    /// Its spectrum, results and statistics.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The traced path of the ray from `pos`, if it was asked for.
    pub fn path(&self, pos: usize) -> Option<(&RayTrace, &[PathStep])> {
        self.paths
            .iter()
            .find(|(k, _, _)| *k == pos)
            .map(|(_, t, p)| (t, p.as_slice()))
    }
}
