//! The `bbx stats` report, read from a complete catalogue.

use crate::catalogue::Catalogue;
use crate::error::Error;
use crate::rules::board::Molecule;
use crate::rules::config::Config;
use crate::rules::enumeration::unrank;
use crate::tables::{GroupReport, RECORDS, RecordReport, ReportSource, StatsReport};

impl Catalogue {
    /// The summary of `config`, read from this catalogue, which must hold it
    /// complete.
    pub fn stats_report(&self, config: Config) -> Result<StatsReport, Error> {
        let ambiguity = self.ambiguity(config)?;
        let mut groups = Vec::new();
        for s in self.spectra(config)?.iter().filter(|s| s.transform == "id") {
            let rows = self.with_spectrum(config, &s.spectrum)?;
            let molecules = rows
                .iter()
                .map(|r| Molecule::parse_linear(&r.molecule, self.path()))
                .collect::<Result<Vec<_>, _>>()?;
            let numbers = rows.iter().map(|r| r.number).collect();
            groups.push(GroupReport::new(s.spectrum.clone(), numbers, &molecules));
        }
        let mut records = Vec::new();
        for (kind, measure, column) in RECORDS {
            let Some((number, value)) = self.record(config, column)? else {
                continue;
            };
            let m = unrank(config, number)?;
            records.push(RecordReport::new(kind, measure, value, number, &m));
        }
        Ok(StatsReport::assemble(
            config,
            ReportSource::Catalogue,
            ambiguity,
            groups,
            records,
        ))
    }
}
