//! Reading the catalogue: molecules by number, range or spectrum, the
//! `spectrums` rows, the ambiguity table and the records.

use rusqlite::OptionalExtension;

use crate::catalogue::rows::{MoleculeRow, STAT_COLUMNS, SpectrumRow};
use crate::catalogue::{Catalogue, sql_err};
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::spectrum::Stats;
use crate::rules::symmetry::Transform;
use crate::tables::AmbiguityRow;

impl Catalogue {
    pub(super) fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MoleculeRow> {
        let mut v = [0u32; 17];
        for (i, x) in v.iter_mut().enumerate() {
            *x = r.get(6 + i)?;
        }
        Ok(MoleculeRow {
            number: r.get::<_, i64>(1)? as u64,
            canonical_number: r.get::<_, i64>(2)? as u64,
            molecule: r.get(3)?,
            spectrum: r.get(4)?,
            transform: r.get(5)?,
            stats: Stats {
                absorbed_number: v[0],
                absorbed_max_length: v[1],
                absorbed_max_turns: v[2],
                absorbed_tot_length: v[3],
                absorbed_tot_turns: v[4],
                reflected_number: v[5],
                reflected_edge: v[6],
                reflected_deep: v[7],
                reflected_max_length: v[8],
                reflected_max_turns: v[9],
                reflected_tot_length: v[10],
                reflected_tot_turns: v[11],
                out_number: v[12],
                out_max_length: v[13],
                out_max_turns: v[14],
                out_tot_length: v[15],
                out_tot_turns: v[16],
            },
        })
    }

    fn select(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        self.select_from("molecules", filter, args)
    }

    /// The rows of `table` (`molecules` or `census_molecules`) that pass
    /// `filter`, each checked to be a molecule's row.
    pub(super) fn select_from(
        &self,
        table: &str,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        self.reading(|| self.select_from_once(table, filter, args))
    }

    fn select_from_once(
        &self,
        table: &str,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        let e = sql_err(&self.path);
        // Without statistics SQLite prefers the primary key (it covers every
        // column) to the spectrum index; name the index when it is the one.
        let indexed = if filter.contains("spectrum = ") {
            format!("INDEXED BY {table}_spectrum")
        } else {
            String::new()
        };
        let sql = format!(
            "SELECT config, number, canonical_number, molecule, spectrum, transform, {} FROM {table} {indexed} WHERE {filter}",
            STAT_COLUMNS.join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(&e)?;
        let rows = stmt.query_map(args, Catalogue::row).map_err(&e)?;
        let rows = rows.collect::<Result<Vec<_>, _>>().map_err(&e)?;
        for r in &rows {
            self.check_row(r)?;
        }
        Ok(rows)
    }

    /// Refuses a row that bbx cannot have written: a molecule that is not a
    /// square of `O` and `-`, a spectrum of the wrong length, an unknown
    /// transform. Such a row means a damaged file, never an empty board.
    pub(super) fn check_row(&self, r: &MoleculeRow) -> Result<(), Error> {
        let damaged = |what: &str| {
            Err(Error::Damaged {
                path: self.path.clone(),
                detail: format!("the row of molecule {} {what}", r.number),
            })
        };
        let m = match Molecule::parse_linear(&r.molecule, &self.path) {
            Ok(m) => m,
            Err(_) => return damaged("holds no board"),
        };
        if r.spectrum.chars().count() != 4 * m.width() {
            return damaged("has a spectrum that does not fit its board");
        }
        if !Transform::ALL.iter().any(|t| t.name() == r.transform) {
            return damaged("names no transform of the square");
        }
        Ok(())
    }

    /// The row of molecule `number`, if stored.
    pub fn molecule(&self, config: Config, number: u64) -> Result<Option<MoleculeRow>, Error> {
        let key = config.to_string();
        Ok(self
            .select("config = ?1 AND number = ?2", &[&key, &(number as i64)])?
            .pop())
    }

    /// The rows of molecules `from..=to` that are stored.
    pub fn molecules(&self, config: Config, from: u64, to: u64) -> Result<Vec<MoleculeRow>, Error> {
        let key = config.to_string();
        self.select(
            "config = ?1 AND number BETWEEN ?2 AND ?3 ORDER BY number",
            &[&key, &(from as i64), &(to as i64)],
        )
    }

    /// Every stored molecule with this (normalised) spectrum, by number.
    pub fn with_spectrum(&self, config: Config, spectrum: &str) -> Result<Vec<MoleculeRow>, Error> {
        let key = config.to_string();
        self.select(
            "config = ?1 AND spectrum = ?2 ORDER BY number",
            &[&key, &spectrum],
        )
    }

    /// Every stored spectrum with the numbers of its molecules, in spectrum
    /// order (one scan of the spectrum index).
    pub fn spectral_groups(&self, config: Config) -> Result<Vec<(String, Vec<u64>)>, Error> {
        self.numbers_by_spectrum("molecules", config)
    }

    /// The numbers of `table`'s molecules (`molecules` or `census_molecules`)
    /// grouped by spectrum, in spectrum order, by one scan of the table's
    /// spectrum index.
    pub(super) fn numbers_by_spectrum(
        &self,
        table: &str,
        config: Config,
    ) -> Result<Vec<(String, Vec<u64>)>, Error> {
        self.reading(|| self.numbers_by_spectrum_once(table, config))
    }

    fn numbers_by_spectrum_once(
        &self,
        table: &str,
        config: Config,
    ) -> Result<Vec<(String, Vec<u64>)>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT spectrum, number FROM {table} INDEXED BY {table}_spectrum
                 WHERE config = ?1 ORDER BY spectrum, number"
            ))
            .map_err(&e)?;
        let mut rows = stmt.query([config.to_string()]).map_err(&e)?;
        let mut out: Vec<(String, Vec<u64>)> = Vec::new();
        while let Some(r) = rows.next().map_err(&e)? {
            let s: String = r.get(0).map_err(&e)?;
            let n = r.get::<_, i64>(1).map_err(&e)? as u64;
            match out.last_mut() {
                Some((last, v)) if *last == s => v.push(n),
                _ => out.push((s, vec![n])),
            }
        }
        Ok(out)
    }

    /// The `spectrums` row of a spectrum, if it is ambiguous.
    pub fn spectrum(&self, config: Config, spectrum: &str) -> Result<Option<SpectrumRow>, Error> {
        self.spectra_where(
            "config = ?1 AND spectrum = ?2",
            &[&config.to_string(), &spectrum],
        )
        .map(|mut v| v.pop())
    }

    /// The `spectrums` rows, largest groups first.
    pub fn spectra(&self, config: Config) -> Result<Vec<SpectrumRow>, Error> {
        self.spectra_where(
            "config = ?1 ORDER BY nb_mol DESC, canonical_number, spectrum",
            &[&config.to_string()],
        )
    }

    fn spectra_where(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<SpectrumRow>, Error> {
        self.reading(|| self.spectra_where_once(filter, args))
    }

    fn spectra_where_once(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<SpectrumRow>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT spectrum, nb_mol, transform, canonical_number FROM spectrums WHERE {filter}"
            ))
            .map_err(&e)?;
        let rows = stmt
            .query_map(args, |r| {
                Ok(SpectrumRow {
                    spectrum: r.get(0)?,
                    nb_mol: r.get::<_, i64>(1)? as u64,
                    transform: r.get(2)?,
                    canonical_number: r.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(&e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(&e)
    }

    /// The ambiguity table: for each group size (molecules per spectrum), the
    /// spectra up to symmetry, the spectra, and the molecules.
    pub fn ambiguity(&self, config: Config) -> Result<Vec<AmbiguityRow>, Error> {
        self.reading(|| self.ambiguity_once(config))
    }

    fn ambiguity_once(&self, config: Config) -> Result<Vec<AmbiguityRow>, Error> {
        let e = sql_err(&self.path);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT nb_mol, sum(transform = 'id'), count(*), sum(nb_mol) FROM spectrums
                 WHERE config = ?1 GROUP BY nb_mol ORDER BY nb_mol",
            )
            .map_err(&e)?;
        let rows = stmt
            .query_map([config.to_string()], |r| {
                Ok(AmbiguityRow {
                    nb_mol: r.get::<_, i64>(0)? as u64,
                    spectra_up_to_symmetry: r.get::<_, i64>(1)? as u64,
                    spectra: r.get::<_, i64>(2)? as u64,
                    molecules: r.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(&e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(&e)
    }

    /// The molecule with the largest value of a statistics column (ties: lowest
    /// number), with that value.
    pub fn record(&self, config: Config, column: &str) -> Result<Option<(u64, u32)>, Error> {
        if !STAT_COLUMNS.contains(&column) {
            return Err(Error::invalid(format!(
                "no statistics column named {column}"
            )));
        }
        self.reading(|| {
            self.conn
                .query_row(
                    &format!(
                        "SELECT number, {column} FROM molecules WHERE config = ?1 ORDER BY {column} DESC, number LIMIT 1"
                    ),
                    [config.to_string()],
                    |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, u32>(1)?)),
                )
                .optional()
                .map_err(sql_err(&self.path))
        })
    }
}
