//! The exact tables of a whole configuration, whoever computed them.
//!
//! `bbx stats` prints a [`StatsReport`]: J. Forget's ambiguity table, the
//! molecules whose spectrum is theirs alone, the largest spectral groups and
//! the ray records. The catalogue builds one from its SQLite tables
//! ([`Catalogue::stats_report`](crate::catalogue::Catalogue::stats_report));
//! any other way of counting must build the same value, which
//! [`StatsReport::assemble`] makes easy: it takes the raw counts and groups and
//! applies the ordering, truncation and totals in one place.

use std::collections::BTreeMap;

use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::ray::{Outcome, Rules, Tracer};

/// How many spectral groups a report lists.
pub const LARGEST_GROUPS: usize = 10;

/// The summary `bbx stats` prints for a configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StatsReport {
    /// The configuration.
    pub config: String,
    /// The rules: always the standard rules, which catalogues and censuses
    /// count under.
    pub rules: Rules,
    /// Molecules in it.
    pub molecules: u64,
    /// Where the counts come from.
    pub source: ReportSource,
    /// The ambiguity table.
    pub ambiguity: Vec<AmbiguityRow>,
    /// Molecules whose spectrum no other molecule has.
    pub unique_molecules: u64,
    /// The largest spectral groups, one per class under the symmetries.
    pub largest_groups: Vec<GroupReport>,
    /// How many spectral groups (up to symmetry) have molecules differing by at
    /// most 1, 2, 3… atoms: `(atoms, groups)`.
    pub groups_by_difference: Vec<(usize, u64)>,
    /// The ray records.
    pub records: Vec<RecordReport>,
}

/// Where a [`StatsReport`]'s counts come from. Two reports of one
/// configuration differ at most here.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportSource {
    /// Read from a complete catalogue.
    Catalogue,
    /// Counted by a census (the `census` module), which traced every molecule or
    /// one per orbit without storing them.
    Census {
        /// Whether one molecule per orbit was traced (the default) or every one.
        symmetry: bool,
        /// Molecules traced (one per orbit with symmetry).
        molecules_traced: u64,
        /// Wall-clock seconds.
        seconds: f64,
        /// The largest resident memory of a process, in bytes (0 where the
        /// system does not say, `null` in JSON).
        #[serde(serialize_with = "zero_is_null", deserialize_with = "null_is_zero")]
        peak_memory_bytes: u64,
        /// Worker threads in all.
        workers: usize,
        /// Processes.
        processes: usize,
        /// Whether it resumed an interrupted census.
        resumed: bool,
    },
}

/// One line of the ambiguity table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AmbiguityRow {
    /// Molecules per spectrum (`molecules_per_spectrum` in JSON).
    #[serde(rename = "molecules_per_spectrum")]
    pub nb_mol: u64,
    /// Spectra of this size, counting the images of one under the symmetries once.
    pub spectra_up_to_symmetry: u64,
    /// Spectra of this size.
    pub spectra: u64,
    /// Molecules sharing those spectra.
    pub molecules: u64,
}

/// One spectral group in a [`StatsReport`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GroupReport {
    /// The shared spectrum.
    pub spectrum: String,
    /// The molecules' numbers.
    pub numbers: Vec<u64>,
    /// The most atoms in which two of them differ.
    pub atoms_apart: usize,
}

impl GroupReport {
    /// The group of `molecules` (in number order, with their `numbers`) sharing
    /// `spectrum`.
    pub fn new(spectrum: String, numbers: Vec<u64>, molecules: &[Molecule]) -> GroupReport {
        let mut apart = 0;
        for a in molecules {
            for b in molecules {
                apart = apart.max(atoms_apart(a, b));
            }
        }
        GroupReport {
            spectrum,
            numbers,
            atoms_apart: apart,
        }
    }
}

/// One ray record in a [`StatsReport`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordReport {
    /// `absorbed`, `reflected` or `out`.
    #[serde(deserialize_with = "record_name")]
    pub kind: RecordName,
    /// `turns` or `length`.
    #[serde(deserialize_with = "record_name")]
    pub measure: RecordName,
    /// The record value.
    pub value: u32,
    /// The lowest-numbered molecule reaching it (`None` when no molecule
    /// has a ray of this kind).
    pub number: Option<u64>,
    /// The border position of a ray of that molecule reaching it (`None`
    /// when no molecule has a ray of this kind: a box full of atoms reflects
    /// nothing and lets nothing out).
    pub position: Option<usize>,
}

/// Writes a count that is 0 when unknown as `null`.
fn zero_is_null<S: serde::Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
    match n {
        0 => s.serialize_none(),
        n => s.serialize_u64(*n),
    }
}

/// Reads what [`zero_is_null`] writes.
fn null_is_zero<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(<Option<u64> as serde::Deserialize>::deserialize(d)?.unwrap_or(0))
}

/// A name [`RECORDS`] uses (an alias, so that serde does not take the
/// field for a string borrowed from its input).
type RecordName = &'static str;

/// Reads a [`RecordReport`]'s `kind` or `measure` back (from a census's
/// stored report): one of the names [`RECORDS`] uses.
fn record_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(d)?;
    RECORDS
        .iter()
        .flat_map(|(kind, measure, _)| [*kind, *measure])
        .find(|known| *known == name)
        .ok_or_else(|| serde::de::Error::custom(format!("no ray record is named {name:?}")))
}

/// The six records a report lists, in its order: `(kind, measure, statistics
/// column)`.
pub const RECORDS: [(&str, &str, &str); 6] = [
    ("absorbed", "turns", "absorbed_max_turns"),
    ("absorbed", "length", "absorbed_max_length"),
    ("reflected", "turns", "reflected_max_turns"),
    ("reflected", "length", "reflected_max_length"),
    ("out", "turns", "out_max_turns"),
    ("out", "length", "out_max_length"),
];

impl RecordReport {
    /// The record `kind`/`measure` = `value` held by molecule `number`, `m`:
    /// traces it under the standard rules to name the first ray reaching it.
    pub fn new(
        kind: &'static str,
        measure: &'static str,
        value: u32,
        number: u64,
        m: &Molecule,
    ) -> RecordReport {
        let mut tracer = Tracer::new(m.shape(), Rules::Standard);
        tracer.load(m);
        let mut rays = Vec::new();
        tracer.trace_all(&mut rays);
        let ray = rays
            .iter()
            .position(|r| {
                let k = match r.outcome {
                    Outcome::Absorbed => "absorbed",
                    Outcome::Reflected => "reflected",
                    Outcome::Exit(_) => "out",
                    Outcome::Miss => "miss",
                };
                k == kind
                    && if measure == "turns" {
                        r.turns == value
                    } else {
                        r.length == value
                    }
            })
            .map(|i| i + 1);
        RecordReport {
            kind,
            measure,
            value,
            number: ray.map(|_| number),
            position: ray,
        }
    }
}

impl StatsReport {
    /// Puts a report together from the raw tables: `ambiguity` by group size,
    /// `groups` one per class of spectra under the symmetries (in the order
    /// ties are to keep: largest first, then lowest canonical number, then
    /// spectrum), and the `records`.
    pub fn assemble(
        config: Config,
        source: ReportSource,
        ambiguity: Vec<AmbiguityRow>,
        mut groups: Vec<GroupReport>,
        records: Vec<RecordReport>,
    ) -> StatsReport {
        let mut by_difference: BTreeMap<usize, u64> = BTreeMap::new();
        for g in &groups {
            *by_difference.entry(g.atoms_apart).or_default() += 1;
        }
        groups.sort_by(rank_groups);
        groups.truncate(LARGEST_GROUPS);
        StatsReport::assemble_ranked(
            config,
            source,
            ambiguity,
            groups,
            by_difference.into_iter().collect(),
            records,
        )
    }

    /// Puts a report together from counts made elsewhere: `largest` already
    /// ranked by [`rank_groups`] (ties by lowest canonical number) and cut to
    /// [`LARGEST_GROUPS`], and `groups_by_difference` counted over every class
    /// of ambiguous spectra. [`assemble`](Self::assemble) is this with the
    /// ranking and counting done for it.
    pub fn assemble_ranked(
        config: Config,
        source: ReportSource,
        ambiguity: Vec<AmbiguityRow>,
        largest: Vec<GroupReport>,
        groups_by_difference: Vec<(usize, u64)>,
        records: Vec<RecordReport>,
    ) -> StatsReport {
        let molecules = config.molecule_count().unwrap_or(0);
        let shared: u64 = ambiguity.iter().map(|a| a.molecules).sum();
        StatsReport {
            config: config.to_string(),
            rules: Rules::Standard,
            molecules,
            source,
            ambiguity,
            unique_molecules: molecules - shared,
            largest_groups: largest,
            groups_by_difference,
            records,
        }
    }
}

/// The order of the largest groups: more molecules first, then molecules
/// further apart. It is a stable order: groups it ties keep their order
/// (lowest canonical number first).
pub fn rank_groups(a: &GroupReport, b: &GroupReport) -> std::cmp::Ordering {
    b.numbers
        .len()
        .cmp(&a.numbers.len())
        .then(b.atoms_apart.cmp(&a.atoms_apart))
}

/// The atom cells of `a` that are not atoms in `b`.
///
/// ```
/// use bbx::Molecule;
/// let a: Molecule = "OO--".parse().unwrap();
/// let b: Molecule = "O-O-".parse().unwrap();
/// assert_eq!(bbx::tables::atoms_apart(&a, &b), 1);
/// ```
pub fn atoms_apart(a: &Molecule, b: &Molecule) -> usize {
    a.atoms()
        .iter()
        .filter(|x| b.atoms().binary_search(x).is_err())
        .count()
}
