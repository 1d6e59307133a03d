//! One store: what a catalogue file (`--db`) holds of one configuration,
//! read through one set of methods whatever it is.
//!
//! A file may hold a configuration's complete catalogue (every molecule's
//! row), the groups a census stored (`bbx stats --store-groups`: the rows of
//! the molecules whose spectrum is shared, and the census's report), an
//! exploration not finished yet, or nothing of it. [`Store::open`] says
//! which ([`Holding`]); its methods then answer alike for a catalogue and a
//! census — a molecule by number, a spectrum's molecules, a molecule's
//! group, every group, the `bbx stats` report — so that no caller chooses
//! between twin methods.
//!
//! ```
//! use bbx::catalogue::{Catalogue, ExploreOptions, Holding, Store};
//! let dir = tempfile::tempdir().unwrap();
//! let db = dir.path().join("bbx.sqlite");
//! let config = "A2_B4".parse().unwrap();
//! assert_eq!(*Store::open(&db, config, 1000).unwrap().holding(), Holding::NoFile);
//! let mut cat = Catalogue::open(&db).unwrap();
//! cat.explore(config, &ExploreOptions::default(), |_| {}).unwrap();
//! drop(cat);
//! let store = Store::open(&db, config, 1000).unwrap();
//! assert_eq!(*store.holding(), Holding::Catalogue);
//! let row = store.molecule(2).unwrap().unwrap();
//! assert_eq!(store.group_of(row).unwrap().len(), 1); // every A2_B4 spectrum is unique
//! ```

use std::path::Path;

use crate::catalogue::{Catalogue, CensusStatus, MoleculeRow, Status};
use crate::error::Error;
use crate::rules::config::{Config, binomial_wide};
use crate::rules::enumeration::unrank;
use crate::rules::ray::{Rules, Tracer};
use crate::rules::spectrum::Spectrum;
use crate::tables::StatsReport;

/// The rules every catalogue and every stored census is written under: a
/// molecule a store does not hold is traced under them.
pub const RULES: Rules = Rules::Standard;

/// What a file holds of one configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holding {
    /// There is no file (and none is created).
    NoFile,
    /// Its complete catalogue: every molecule's row.
    Catalogue,
    /// A census's groups (`bbx stats --store-groups`): the rows of the
    /// molecules whose spectrum is shared, and the census's report.
    Census(CensusStatus),
    /// An exploration of it that has not finished.
    Unfinished(Status),
    /// Nothing of it: a catalogue of other configurations, another
    /// configuration's census, or a catalogue with no table filled yet.
    Other,
}

/// A configuration's spectral groups as a store holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    /// Spectra with the numbers of their molecules, in spectrum order: every
    /// spectrum of a catalogue, the shared ones only of a census.
    pub groups: Vec<(String, Vec<u64>)>,
    /// Distinct spectra in the whole configuration, those not held included.
    pub spectra: u64,
    /// Whether `groups` holds every spectrum (a catalogue) or only the
    /// shared ones (a census).
    pub every_spectrum: bool,
}

/// What a catalogue file holds of one configuration, opened read-only (see
/// the module documentation).
#[derive(Debug)]
pub struct Store {
    config: Config,
    path: String,
    catalogue: Option<Catalogue>,
    holding: Holding,
}

impl Store {
    /// Opens file `path` read-only for `config` and finds what it holds,
    /// waiting at most `busy_ms` milliseconds for writers (see
    /// [`Catalogue::open_existing_waiting`]). A missing file is
    /// [`Holding::NoFile`] and is not created; a file that is not a bbx
    /// catalogue (empty, another database, text) is refused.
    pub fn open(path: impl AsRef<Path>, config: Config, busy_ms: u32) -> Result<Store, Error> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let Some(cat) = Catalogue::open_existing_waiting(path, busy_ms)? else {
            return Ok(Store {
                config,
                path: name,
                catalogue: None,
                holding: Holding::NoFile,
            });
        };
        let status = cat.status(config)?;
        let holding = match status {
            Some(s) if s.complete => Holding::Catalogue,
            _ => match (cat.census_status(config)?, status) {
                (Some(census), _) => Holding::Census(census),
                (None, Some(s)) => Holding::Unfinished(s),
                (None, None) => Holding::Other,
            },
        };
        Ok(Store {
            config,
            path: name,
            catalogue: Some(cat),
            holding,
        })
    }

    /// What the file holds of the configuration.
    pub fn holding(&self) -> &Holding {
        &self.holding
    }

    /// Whether it holds the configuration's rows: a complete catalogue or a
    /// census's groups.
    pub fn has_rows(&self) -> bool {
        matches!(self.holding, Holding::Catalogue | Holding::Census(_))
    }

    /// The configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The catalogue the file is opened as (`None` when there is no file),
    /// for queries of one's own.
    pub fn catalogue(&self) -> Option<&Catalogue> {
        self.catalogue.as_ref()
    }

    /// The catalogue, when the holding is `Catalogue` or `Census`.
    fn with_rows(&self) -> Option<&Catalogue> {
        self.catalogue.as_ref().filter(|_| self.has_rows())
    }

    /// The row of molecule `number` (1 to the configuration's count): read
    /// from a catalogue; for a census, traced on the spot (under [`RULES`],
    /// as the census was: the row is the one it stores for a shared
    /// spectrum). `None` when the file holds no rows of the configuration.
    pub fn molecule(&self, number: u64) -> Result<Option<MoleculeRow>, Error> {
        match (&self.holding, self.with_rows()) {
            (Holding::Catalogue, Some(cat)) => cat.molecule(self.config, number),
            (Holding::Census(_), Some(_)) => self.trace(number).map(Some),
            _ => Ok(None),
        }
    }

    /// The row of molecule `number` computed under [`RULES`].
    fn trace(&self, number: u64) -> Result<MoleculeRow, Error> {
        let m = unrank(self.config, number)?;
        let mut tracer = Tracer::new(self.config.shape(), RULES);
        Ok(MoleculeRow::compute(&mut tracer, &m, number))
    }

    /// The rows of molecules `from..=to`, as [`molecule`](Self::molecule)
    /// gives them.
    pub fn molecules(&self, from: u64, to: u64) -> Result<Vec<MoleculeRow>, Error> {
        match (&self.holding, self.with_rows()) {
            (Holding::Catalogue, Some(cat)) => cat.molecules(self.config, from, to),
            (Holding::Census(_), Some(_)) => (from..=to)
                .filter_map(|n| self.molecule(n).transpose())
                .collect(),
            _ => Ok(Vec::new()),
        }
    }

    /// The molecules held with this (normalised) spectrum, by number: every
    /// one in a catalogue; in a census, those of a shared spectrum only
    /// (none for a spectrum of one molecule).
    pub fn with_spectrum(&self, spectrum: &str) -> Result<Vec<MoleculeRow>, Error> {
        match (&self.holding, self.with_rows()) {
            (Holding::Catalogue, Some(cat)) => cat.with_spectrum(self.config, spectrum),
            (Holding::Census(_), Some(cat)) => {
                let mut tracer = Tracer::new(self.config.shape(), RULES);
                cat.census_with_spectrum(self.config, spectrum, &mut tracer)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// The molecules with `spectrum`, by number; an error saying so when the
    /// store holds none (in a census: the spectrum is not shared).
    pub fn spectrum_group(&self, spectrum: &Spectrum) -> Result<Vec<MoleculeRow>, Error> {
        let found = self.with_spectrum(&spectrum.to_string())?;
        if !found.is_empty() {
            return Ok(found);
        }
        let config = self.config;
        Err(Error::invalid(match self.holding {
            Holding::Census(_) => crate::text![
                format!(
                    "spectrum {spectrum} is not shared by two molecules of {config} (the census in {} stores only those); to find the molecules of any spectrum, ",
                    self.path
                ),
                crate::setting::Job::Solve
            ],
            _ => format!("no molecule of {config} has spectrum {spectrum}").into(),
        }))
    }

    /// The spectral group of a molecule (its `row`, from
    /// [`molecule`](Self::molecule)): every molecule with its spectrum, by
    /// number; the molecule alone when no other has it.
    pub fn group_of(&self, row: MoleculeRow) -> Result<Vec<MoleculeRow>, Error> {
        let found = self.with_spectrum(&row.spectrum)?;
        Ok(if found.is_empty() { vec![row] } else { found })
    }

    /// The spectral groups held, with the numbers of their molecules (see
    /// [`Groups`]); `None` when the file holds no rows of the configuration.
    pub fn groups(&self) -> Result<Option<Groups>, Error> {
        match (&self.holding, self.with_rows()) {
            (Holding::Catalogue, Some(cat)) => {
                let groups = cat.spectral_groups(self.config)?;
                Ok(Some(Groups {
                    spectra: groups.len() as u64,
                    groups,
                    every_spectrum: true,
                }))
            }
            (Holding::Census(status), Some(cat)) => Ok(Some(Groups {
                groups: cat.census_groups(self.config)?,
                // Every spectrum not stored is a molecule's own.
                spectra: status.nb_mol - status.ambiguous_molecules + status.ambiguous_spectra,
                every_spectrum: false,
            })),
            _ => Ok(None),
        }
    }

    /// The `bbx stats` report of the configuration: built from a complete
    /// catalogue, or the one a census stored with its groups. `None` when
    /// the file holds neither, or holds a census's report that this bbx
    /// cannot read (written in another form).
    pub fn stats_report(&self) -> Result<Option<StatsReport>, Error> {
        match (&self.holding, self.with_rows()) {
            (Holding::Catalogue, Some(cat)) => cat.stats_report(self.config).map(Some),
            (Holding::Census(status), Some(_)) => {
                Ok(serde_json::from_str::<StatsReport>(&status.report).ok())
            }
            _ => Ok(None),
        }
    }
}

/// How many molecules `config` has, exactly, or "more than 2^128
/// molecules", for messages.
pub fn molecules_of(config: Config) -> String {
    match binomial_wide(config.cells() as u64, config.atoms as u64) {
        Some(1) => "1 molecule".to_string(),
        Some(n) => format!("{n} molecules"),
        None => "more than 2^128 molecules".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::ExploreOptions;
    use crate::tables::ReportSource;

    const BUSY_MS: u32 = 1000;

    fn explore(db: &Path, config: Config, stop_after: Option<u64>) {
        let mut cat = Catalogue::open(db).unwrap();
        let faults = match stop_after {
            Some(n) => format!("unit-size=100,stop-after={n}"),
            None => "unit-size=100".into(),
        };
        let options = ExploreOptions {
            budget: crate::control::Budget::default()
                .with_faults(crate::control::Faults::parse(&faults).unwrap()),
            ..Default::default()
        };
        cat.explore(config, &options, |_| {}).unwrap();
    }

    #[test]
    fn no_file_holds_nothing_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("none.sqlite");
        let store = Store::open(&db, "A2_B4".parse().unwrap(), BUSY_MS).unwrap();
        assert_eq!(*store.holding(), Holding::NoFile);
        assert!(!store.has_rows());
        assert_eq!(store.molecule(1).unwrap(), None);
        assert!(store.molecules(1, 5).unwrap().is_empty());
        assert_eq!(store.groups().unwrap(), None);
        assert_eq!(store.stats_report().unwrap(), None);
        assert!(!db.exists());
    }

    #[test]
    fn a_complete_catalogue_holds_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bbx.sqlite");
        let config: Config = "A3_B4".parse().unwrap();
        explore(&db, config, None);
        let store = Store::open(&db, config, BUSY_MS).unwrap();
        assert_eq!(*store.holding(), Holding::Catalogue);
        let row = store.molecule(7).unwrap().unwrap();
        assert_eq!(row.number, 7);
        assert_eq!(store.molecules(3, 9).unwrap().len(), 7);
        let groups = store.groups().unwrap().unwrap();
        assert!(groups.every_spectrum);
        assert_eq!(groups.spectra, groups.groups.len() as u64);
        let molecules: usize = groups.groups.iter().map(|(_, v)| v.len()).sum();
        assert_eq!(molecules, 560);
        let group = store.group_of(row.clone()).unwrap();
        assert!(group.contains(&row));
        let spectrum = Spectrum::parse(&row.spectrum, "test").unwrap();
        assert_eq!(store.spectrum_group(&spectrum).unwrap(), group);
        let report = store.stats_report().unwrap().unwrap();
        assert_eq!(report.source, ReportSource::Catalogue);
        assert_eq!(report.molecules, 560);
        let empty = Spectrum::parse("@@@@@@@@@@@@@@@@", "test").unwrap();
        assert_eq!(
            store.spectrum_group(&empty).unwrap_err().to_string(),
            "no molecule of A3_B4 has spectrum @@@@@@@@@@@@@@@@"
        );
    }

    #[test]
    fn an_unfinished_exploration_holds_no_rows() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bbx.sqlite");
        let config: Config = "A3_B4".parse().unwrap();
        explore(&db, config, Some(2));
        let store = Store::open(&db, config, BUSY_MS).unwrap();
        let Holding::Unfinished(status) = store.holding() else {
            panic!("{:?}", store.holding());
        };
        assert_eq!((status.nb_mol, status.complete), (560, false));
        assert!(status.stored > 0);
        assert!(!store.has_rows());
        assert_eq!(store.molecule(1).unwrap(), None);
        assert_eq!(store.groups().unwrap(), None);
        assert_eq!(store.stats_report().unwrap(), None);
    }

    #[test]
    fn another_configuration_is_nothing_of_this_one() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bbx.sqlite");
        explore(&db, "A2_B4".parse().unwrap(), None);
        let store = Store::open(&db, "A3_B4".parse().unwrap(), BUSY_MS).unwrap();
        assert_eq!(*store.holding(), Holding::Other);
        assert!(!store.has_rows());
        assert_eq!(store.molecule(1).unwrap(), None);
        assert!(store.with_spectrum("@@@@@@@@@@@@@@@@").unwrap().is_empty());
        assert_eq!(store.stats_report().unwrap(), None);
    }

    #[test]
    fn a_stored_census_holds_the_shared_spectra_and_its_report() {
        // The census's groups are the catalogue's rows of its shared
        // spectra: stored here from a catalogue, one class a spectrum.
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A3_B4".parse().unwrap();
        let full = dir.path().join("catalogue.sqlite");
        explore(&full, config, None);
        let catalogue = Store::open(&full, config, BUSY_MS).unwrap();
        let cat = catalogue.catalogue().unwrap();
        let mut report = cat.stats_report(config).unwrap();
        report.source = ReportSource::Census {
            symmetry: true,
            molecules_traced: 99,
            seconds: 0.123456789,
            peak_memory_bytes: 1 << 20,
            workers: 2,
            processes: 1,
            resumed: false,
        };
        let shared = cat.spectra(config).unwrap();
        let classes = classes_of(cat, config, &shared);
        let db = dir.path().join("census.sqlite");
        let mut census = Catalogue::open(&db).unwrap();
        let json = serde_json::to_string(&report).unwrap();
        census
            .store_census(config, &json, classes, |_| Ok(()))
            .unwrap()
            .whole()
            .unwrap();
        drop(census);
        check_census(&db, &catalogue, config, &report, &json, shared.len());
        // A group that is not a list of molecules is damage, said as such.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE census_groups SET molecules = x'0102' WHERE rowid = 1",
            [],
        )
        .unwrap();
        drop(conn);
        let store = Store::open(&db, config, BUSY_MS).unwrap();
        let err = store.groups().unwrap_err();
        assert!(matches!(err, Error::Damaged { .. }), "{err}");
    }

    /// The shared spectra of a catalogue as a census hands them to the
    /// store: one class a spectrum, with its molecules' numbers.
    fn classes_of(
        cat: &Catalogue,
        config: Config,
        shared: &[crate::catalogue::SpectrumRow],
    ) -> Vec<Result<crate::catalogue::ClassGroups, Error>> {
        shared
            .iter()
            .map(|s| {
                let rows = cat.with_spectrum(config, &s.spectrum)?;
                Ok(vec![(
                    s.spectrum.clone(),
                    rows.iter().map(|r| r.number).collect(),
                )])
            })
            .collect()
    }

    /// What a stored census of `config` in `db` must answer, against its
    /// complete catalogue.
    fn check_census(
        db: &Path,
        catalogue: &Store,
        config: Config,
        report: &StatsReport,
        json: &str,
        shared: usize,
    ) {
        let store = Store::open(db, config, BUSY_MS).unwrap();
        let Holding::Census(status) = store.holding() else {
            panic!("{:?}", store.holding());
        };
        assert_eq!(status.ambiguous_spectra, shared as u64);
        assert!(store.has_rows());
        // The report read back is the one stored, byte for byte.
        let read = store.stats_report().unwrap().unwrap();
        assert_eq!(&read, report);
        assert_eq!(serde_json::to_string(&read).unwrap(), json);
        // The shared spectra only, but the count of every spectrum.
        let groups = store.groups().unwrap().unwrap();
        let every = catalogue.groups().unwrap().unwrap();
        assert!(!groups.every_spectrum);
        assert_eq!(groups.spectra, every.spectra);
        let expected: Vec<_> = every
            .groups
            .into_iter()
            .filter(|(_, v)| v.len() > 1)
            .collect();
        assert_eq!(groups.groups, expected);
        // Molecules are traced as the catalogue has them; a spectrum of one
        // molecule is not stored, and its group is the molecule alone.
        for n in 1..=560 {
            let row = store.molecule(n).unwrap().unwrap();
            assert_eq!(Some(&row), catalogue.molecule(n).unwrap().as_ref());
            assert_eq!(
                store.group_of(row.clone()).unwrap(),
                catalogue.group_of(row).unwrap()
            );
        }
        assert_eq!(
            store.molecules(5, 9).unwrap(),
            catalogue.molecules(5, 9).unwrap()
        );
        let lone = lone_spectrum(catalogue);
        let spectrum = Spectrum::parse(&lone, "test").unwrap();
        assert!(store.with_spectrum(&lone).unwrap().is_empty());
        let err = store.spectrum_group(&spectrum).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "spectrum {lone} is not shared by two molecules of A3_B4 (the census in {} stores only those)",
                db.display()
            )),
            "{err}"
        );
        // Nothing of another configuration.
        let other = Store::open(db, "A2_B4".parse().unwrap(), BUSY_MS).unwrap();
        assert_eq!(*other.holding(), Holding::Other);
    }

    #[test]
    fn a_census_report_this_bbx_cannot_read_is_no_report() {
        let dir = tempfile::tempdir().unwrap();
        let config: Config = "A2_B4".parse().unwrap();
        let db = dir.path().join("census.sqlite");
        let mut census = Catalogue::open(&db).unwrap();
        census
            .store_census(config, "{}", Vec::new(), |_| Ok(()))
            .unwrap()
            .whole()
            .unwrap();
        drop(census);
        let store = Store::open(&db, config, BUSY_MS).unwrap();
        assert!(matches!(store.holding(), Holding::Census(_)));
        assert_eq!(store.stats_report().unwrap(), None);
    }

    /// A spectrum of the catalogue that one molecule has alone.
    fn lone_spectrum(catalogue: &Store) -> String {
        let groups = catalogue.groups().unwrap().unwrap();
        let (s, _) = groups
            .groups
            .into_iter()
            .find(|(_, v)| v.len() == 1)
            .unwrap();
        s
    }
}
