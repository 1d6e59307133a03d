//! Reading the catalogue: molecules by number, range or spectrum, the
//! `spectrums` rows, the ambiguity table and the records.

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

    /// The rows `sql` reads with `args`, each made by `row` (read again
    /// after a journal in the way, see [`reading`](Catalogue::reading)).
    pub(super) fn query<T>(
        &self,
        sql: &str,
        args: &[&dyn rusqlite::ToSql],
        row: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, Error> {
        self.reading(|| {
            let e = sql_err(&self.path);
            let mut stmt = self.conn.prepare_cached(sql).map_err(&e)?;
            let rows = stmt.query_map(args, &row).map_err(&e)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(&e)
        })
    }

    /// The molecules' rows that pass `filter`, each checked to be a
    /// molecule's row.
    fn select(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MoleculeRow>, Error> {
        // Without statistics SQLite prefers the primary key (it covers every
        // column) to the spectrum index; name the index when it is the one.
        let indexed = if filter.contains("spectrum = ") {
            "INDEXED BY molecules_spectrum"
        } else {
            ""
        };
        let sql = format!(
            "SELECT config, number, canonical_number, molecule, spectrum, transform, {} FROM molecules {indexed} WHERE {filter}",
            STAT_COLUMNS.join(", ")
        );
        let rows = self.query(&sql, args, Catalogue::row)?;
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
        if r.spectrum.chars().count() != m.shape().positions() {
            return damaged("has a spectrum that does not fit its board");
        }
        if !Transform::of(m.shape())
            .iter()
            .any(|t| t.name() == r.transform)
        {
            return damaged("names no transform of the box");
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
        let rows = self.query(
            "SELECT spectrum, number FROM molecules INDEXED BY molecules_spectrum
             WHERE config = ?1 ORDER BY spectrum, number",
            &[&config.to_string()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)),
        )?;
        let mut out: Vec<(String, Vec<u64>)> = Vec::new();
        for (s, n) in rows {
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
        self.query(
            &format!(
                "SELECT spectrum, nb_mol, transform, canonical_number FROM spectrums WHERE {filter}"
            ),
            args,
            |r| {
                Ok(SpectrumRow {
                    spectrum: r.get(0)?,
                    nb_mol: r.get::<_, i64>(1)? as u64,
                    transform: r.get(2)?,
                    canonical_number: r.get::<_, i64>(3)? as u64,
                })
            },
        )
    }

    /// The ambiguity table: for each group size (molecules per spectrum), the
    /// spectra up to symmetry, the spectra, and the molecules.
    pub fn ambiguity(&self, config: Config) -> Result<Vec<AmbiguityRow>, Error> {
        self.query(
            "SELECT nb_mol, sum(transform = 'id'), count(*), sum(nb_mol) FROM spectrums
             WHERE config = ?1 GROUP BY nb_mol ORDER BY nb_mol",
            &[&config.to_string()],
            |r| {
                Ok(AmbiguityRow {
                    nb_mol: r.get::<_, i64>(0)? as u64,
                    spectra_up_to_symmetry: r.get::<_, i64>(1)? as u64,
                    spectra: r.get::<_, i64>(2)? as u64,
                    molecules: r.get::<_, i64>(3)? as u64,
                })
            },
        )
    }

    /// The molecule with the largest value of a statistics column (ties: lowest
    /// number), with that value.
    pub fn record(&self, config: Config, column: &str) -> Result<Option<(u64, u32)>, Error> {
        if !STAT_COLUMNS.contains(&column) {
            return Err(Error::invalid(format!(
                "no statistics column named {column}"
            )));
        }
        let sql = format!(
            "SELECT number, {column} FROM molecules WHERE config = ?1 ORDER BY {column} DESC, number LIMIT 1"
        );
        let mut rows = self.query(&sql, &[&config.to_string()], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, u32>(1)?))
        })?;
        Ok(rows.pop())
    }
}
