//! The rows the catalogue stores: molecules and ambiguous spectra.

use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::canonical;
use crate::rules::ray::Tracer;
use crate::rules::spectrum::{Analysis, Stats};
use crate::rules::symmetry::Transform;

/// The 17 statistics columns of the `molecules` table, in J. Forget's order.
pub(super) const STAT_COLUMNS: [&str; 17] = [
    "absorbed_number",
    "absorbed_max_length",
    "absorbed_max_turns",
    "absorbed_tot_length",
    "absorbed_tot_turns",
    "reflected_number",
    "reflected_edge",
    "reflected_deep",
    "reflected_max_length",
    "reflected_max_turns",
    "reflected_tot_length",
    "reflected_tot_turns",
    "out_number",
    "out_max_length",
    "out_max_turns",
    "out_tot_length",
    "out_tot_turns",
];

/// The `CREATE TABLE` statements of the `molecules` and `spectrums` tables.
pub(super) fn row_tables_sql() -> String {
    let stats: String = STAT_COLUMNS
        .iter()
        .map(|c| format!("  {c} INTEGER NOT NULL,\n"))
        .collect();
    format!(
        "CREATE TABLE molecules (
           config TEXT NOT NULL,
           number INTEGER NOT NULL,
           canonical_number INTEGER NOT NULL,
           molecule TEXT NOT NULL,
           spectrum TEXT NOT NULL,
           transform TEXT NOT NULL,
         {stats}  created_at TEXT NOT NULL,
           updated_at TEXT NOT NULL,
           PRIMARY KEY (config, number)
         ) WITHOUT ROWID;
         CREATE TABLE spectrums (
           config TEXT NOT NULL,
           spectrum TEXT NOT NULL,
           nb_mol INTEGER NOT NULL,
           transform TEXT NOT NULL,
           canonical_number INTEGER NOT NULL,
           created_at TEXT NOT NULL,
           updated_at TEXT NOT NULL,
           PRIMARY KEY (config, spectrum)
         ) WITHOUT ROWID;"
    )
}

/// The statement inserting a row into the `molecules` table, for
/// [`insert_row`].
pub(super) static INSERT_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let placeholders: Vec<String> = (1..=25).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO molecules (config, number, canonical_number, molecule, spectrum, transform, {}, created_at, updated_at) VALUES ({})",
        STAT_COLUMNS.join(", "),
        placeholders.join(", ")
    )
});

/// Inserts `row` of configuration `key`, stamped `now`, with a statement
/// prepared from [`INSERT_SQL`].
pub(super) fn insert_row(
    stmt: &mut rusqlite::Statement<'_>,
    key: &str,
    row: &MoleculeRow,
    now: &str,
) -> rusqlite::Result<usize> {
    let stats = row.stats.named().map(|(_, value)| value);
    let number = row.number as i64;
    let canonical_number = row.canonical_number as i64;
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![
        &key,
        &number,
        &canonical_number,
        &row.molecule,
        &row.spectrum,
        &row.transform,
    ];
    values.extend(stats.iter().map(|v| v as &dyn rusqlite::ToSql));
    values.extend([&now as &dyn rusqlite::ToSql, &now]);
    stmt.execute(values.as_slice())
}

/// One row of the `molecules` table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MoleculeRow {
    /// The molecule's number (1-based rank).
    pub number: u64,
    /// The smallest number in its enantiomer group.
    pub canonical_number: u64,
    /// Linear form.
    pub molecule: String,
    /// Normalised spectrum.
    pub spectrum: String,
    /// The transform mapping the canonical molecule onto this one.
    pub transform: String,
    /// The 17 statistics.
    pub stats: Stats,
}

/// Molecules shown, and the spectral group asked for, as their JSON shows
/// them, with the configuration and the rules.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShownRows {
    /// The configuration.
    pub config: String,
    /// The box's width.
    pub width: usize,
    /// The box's height.
    pub height: usize,
    /// The ray rules (a catalogue's).
    pub rules: crate::rules::ray::Rules,
    /// The molecules asked for.
    pub rows: Vec<MoleculeRow>,
    /// The spectral group asked for.
    pub group: Option<Vec<MoleculeRow>>,
}

impl ShownRows {
    /// `rows` and `group` of `config`.
    pub fn new(config: Config, rows: Vec<MoleculeRow>, group: Option<Vec<MoleculeRow>>) -> Self {
        let (width, height, rules) = (config.width, config.height, crate::catalogue::RULES);
        ShownRows {
            config: config.to_string(),
            width,
            height,
            rules,
            rows,
            group,
        }
    }
}

impl MoleculeRow {
    /// Computes the row of molecule `m`, numbered `number`, with `tracer` (of the
    /// molecule's width, standard rules).
    pub fn compute(tracer: &mut Tracer, m: &Molecule, number: u64) -> MoleculeRow {
        let (canonical_number, transform) = canonical(m).unwrap_or((number, Transform::Id));
        MoleculeRow::with_canonical(tracer, m, number, canonical_number, transform)
    }

    /// Computes the row of molecule `m`, numbered `number`, whose canonical
    /// number and transform are known already.
    pub fn with_canonical(
        tracer: &mut Tracer,
        m: &Molecule,
        number: u64,
        canonical_number: u64,
        transform: Transform,
    ) -> MoleculeRow {
        tracer.load(m);
        let a = Analysis::from_tracer(tracer);
        MoleculeRow {
            number,
            canonical_number,
            molecule: m.to_string(),
            spectrum: a.spectrum.to_string(),
            transform: transform.name().to_string(),
            stats: a.stats,
        }
    }
}

/// One row of the `spectrums` table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SpectrumRow {
    /// The normalised spectrum.
    pub spectrum: String,
    /// How many molecules share it.
    pub nb_mol: u64,
    /// The transform stamped on it (see docs/RULES.md, Molecules and their numbers: from the lowest-numbered canonical
    /// molecule whose spectrum is ambiguous).
    pub transform: String,
    /// The canonical number stamped on it.
    pub canonical_number: u64,
}
