//! `bbx verify` at the census's scale: the census's groups checked against
//! SAT as they are formed.
//!
//! The census ([`crate::census`]) runs as for `bbx stats`, on the same
//! cluster of workers and processes, within the same `--memory`, resumable
//! the same way; each worker hands every class of ambiguous spectra it forms
//! straight to its own [`Checker`], and, once all are grouped, a uniform
//! random sample of the unique spectra (see [`crate::census::sink`]).
//! Nothing is stored and no group is held longer than its check.
//!
//! A class of spectra (a spectrum and its images under the symmetries
//! of the box) is checked through its canonical spectrum alone: the rules,
//! the numbering and the SAT encoding treat the images alike, and a class
//! holds up to eight spectra (four on a rectangle), so checking one of them is an eighth of the
//! work for the same classes. The table counts spectra all the same: a
//! class's check counts for each of its spectra (its rows, and its
//! mismatches, are weighed by the class's spectra), so that the table is the
//! census's ambiguity table and `verify --ambiguous`'s, which checks each
//! spectrum of a stored group.
//!
//! What each worker checked is logged per partition of its records, so that
//! a verify killed or stopped resumes to the same verdict, checking only what
//! was not logged.

use std::sync::Arc;

use crate::census::sink::{Group, GroupSink, Seed, Sink};
use crate::census::{self, Census, CensusOptions, Progress};
use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::spectrum::Observation;
use crate::setting::Setting;
use crate::tables::ReportSource;
use crate::text;
use crate::verify::{Checker, Mismatch, Rows, Verification, VerifyOptions};
use crate::work::cluster::Settings;

/// Unique spectra checked by default: a uniform random sample of this many.
pub const DEFAULT_SAMPLE: u64 = 100_000;

/// Mismatches listed at most (every one is counted in the rows): the first
/// in the order of their observations.
pub const LISTED_MISMATCHES: usize = 1000;

/// Partitions per worker at least: a resumed verify checks again at most one
/// partition per worker.
pub const PARTITIONS: usize = 64;

/// What a streamed verification found, beside the [`Verification`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct Streamed {
    /// The verification: its rows count spectra, a class's check standing
    /// for each of its spectra.
    #[serde(flatten)]
    pub verification: Verification,
    /// Spectra shared by two molecules or more (all checked).
    pub ambiguous_spectra: u64,
    /// Spectra of one molecule each.
    pub unique_spectra: u64,
    /// Of those, checked: a uniform random sample (`--sample`).
    pub unique_checked: u64,
    /// Observations given to SAT: one per class of ambiguous spectra, one
    /// per sampled unique spectrum.
    pub sat_checks: u64,
    /// Mismatches found, every one (at most [`LISTED_MISMATCHES`] are
    /// listed).
    pub mismatches_found: u64,
    /// How the census ran: workers, processes, time, memory, resumed.
    pub census: ReportSource,
}

/// How a streamed verification ended.
#[derive(Debug)]
pub enum Streaming {
    /// Done: the verdict (on process 0).
    Done(Box<Streamed>),
    /// Stopped before the end ([`Census::ended`] says how): the work is
    /// kept in the census's work directory for the same command to resume.
    Interrupted(Box<Census>),
    /// This process (not process 0) has done its share; process 0 has the
    /// verdict.
    ShareDone,
}

/// What a worker checked (or one partition of it): the rows, the
/// mismatches listed (the first in order), and counts.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Part {
    rows: Rows,
    listed: Vec<Mismatch>,
    mismatches: u64,
    checks: u64,
    unique: u64,
}

impl Part {
    fn merge(&mut self, other: Part) {
        self.rows.merge(other.rows);
        self.listed.extend(other.listed);
        self.listed.sort();
        self.listed.truncate(LISTED_MISMATCHES);
        self.mismatches += other.mismatches;
        self.checks += other.checks;
        self.unique += other.unique;
    }
}

/// A worker's sink: its own checker, what it checked since the last log,
/// and before.
struct CheckSink {
    checker: Checker,
    logged: Part,
    delta: Part,
}

impl GroupSink for CheckSink {
    fn group(&mut self, group: &Group<'_>) -> Result<(), Error> {
        let o = Observation::full(group.spectrum);
        let c = self.checker.check(&o, group.molecules.to_vec())?;
        let d = &mut self.delta;
        d.checks += 1;
        d.unique += u64::from(group.molecules.len() == 1);
        d.rows.count(&c, group.spectra as usize);
        if let Some(m) = c.mismatch {
            d.mismatches += group.spectra;
            d.listed.push(m);
            if d.listed.len() > 2 * LISTED_MISMATCHES {
                d.listed.sort();
                d.listed.truncate(LISTED_MISMATCHES);
            }
        }
        Ok(())
    }

    fn take_log(&mut self) -> Result<serde_json::Value, Error> {
        let d = std::mem::take(&mut self.delta);
        let v = serde_json::to_value(&d)?;
        self.logged.merge(d);
        Ok(v)
    }

    fn restore(&mut self, logged: serde_json::Value) -> Result<(), Error> {
        let part: Part = serde_json::from_value(logged).map_err(|e| {
            Error::Internal(format!(
                "a verify's log of its checks does not read back ({e})"
            ))
        })?;
        self.logged.merge(part);
        Ok(())
    }

    fn report(&mut self) -> Result<serde_json::Value, Error> {
        let d = std::mem::take(&mut self.delta);
        self.logged.merge(d);
        Ok(serde_json::to_value(&self.logged)?)
    }
}

/// The unique spectra a streamed verify with `options` samples.
fn sample_of(options: &VerifyOptions) -> u64 {
    if options.ambiguous_only {
        0
    } else {
        options.sample.map_or(DEFAULT_SAMPLE, |n| n as u64)
    }
}

/// The census's sink of a streamed verify of `config` with `options`.
fn sink(config: Config, options: &VerifyOptions) -> Sink {
    let sat_rules = options.sat_rules();
    Sink {
        name: "verify".into(),
        settings: Settings::new()
            .with("the rules of the SAT side", sat_rules)
            .with(
                Setting::Ambiguous,
                if options.ambiguous_only {
                    "given"
                } else {
                    "not given"
                },
            ),
        sample: sample_of(options),
        // Without a sample no seed decides the work.
        seed: match sample_of(options) {
            0 => Seed::Given(0),
            _ => options.seed,
        },
        partitions: PARTITIONS,
        make: Arc::new(move |_| {
            Ok(Box::new(CheckSink {
                checker: Checker::new(config, sat_rules),
                logged: Part::default(),
                delta: Part::default(),
            }) as Box<dyn GroupSink>)
        }),
    }
}

/// The unfinished work of other censuses and verifies where a streamed
/// verify of `config` with `options` on `census` works (see
/// [`census::unfinished`]).
pub fn unfinished(
    config: Config,
    options: &VerifyOptions,
    mut census: CensusOptions,
) -> Vec<census::Unfinished> {
    census.sink = Some(sink(config, options));
    census::unfinished(config, &census)
}

/// Checks `config` against SAT while a census groups it: every class of
/// ambiguous spectra, and a uniform random sample of
/// [`VerifyOptions::sample`] unique spectra (default [`DEFAULT_SAMPLE`];
/// none with [`VerifyOptions::ambiguous_only`]), drawn with
/// [`VerifyOptions::seed`]. `census` says how the census runs (its `sink`
/// is set here); `progress` hears it as [`census::run_with`] reports it.
/// Only the standard rules (the census's) and full observations: other
/// checks go through [`crate::verify::verify_spectra`].
pub fn verify_streaming(
    config: Config,
    options: &VerifyOptions,
    mut census: CensusOptions,
    progress: impl FnMut(&Progress),
) -> Result<Streaming, Error> {
    if options.rules != crate::catalogue::RULES || options.partial.is_some() {
        return Err(Error::Internal(
            "a streamed verify checks full spectra under the standard rules only".into(),
        ));
    }
    let sample = sample_of(options);
    if sample > 0 && census.cluster.processes > 1 && options.seed.drawn() {
        // Each process would draw its own.
        return Err(Error::invalid(text![
            "a verify of several processes samples the unique spectra with one seed, which no process can draw for the others: give every process the same ",
            Setting::Seed,
            " (or check the shared spectra alone with ",
            Setting::Ambiguous,
            ")"
        ]));
    }
    census.sink = Some(sink(config, options));
    let done = census::run_with(config, &census, progress)?;
    if !done.ended.is_complete() {
        return Ok(Streaming::Interrupted(Box::new(done)));
    }
    let Some(report) = done.report else {
        return Ok(Streaming::ShareDone);
    };
    let mut all = Part::default();
    for r in &done.sink_reports {
        let part: Part = serde_json::from_str(r)
            .map_err(|e| Error::Internal(format!("a worker's checks do not read back ({e})")))?;
        all.merge(part);
    }
    let ambiguous: u64 = report.ambiguity.iter().map(|r| r.spectra).sum();
    let unique = report.unique_molecules;
    // Every ambiguous spectrum was checked, through its class: the table
    // says so, or the census and the checks lost a group between them.
    let checked_ambiguous = all.rows.checked_from(2) as u64;
    if checked_ambiguous != ambiguous || all.unique > unique.min(sample) {
        return Err(Error::Internal(format!(
            "the verify of {config} checked {checked_ambiguous} ambiguous and {} unique spectra, but the census counted {ambiguous} and {unique}",
            all.unique
        )));
    }
    let checked = all.rows.checked_from(0);
    let verification = Verification {
        config: config.to_string(),
        rules: options.rules,
        spectra: (ambiguous + unique) as usize,
        checked,
        ambiguous_only: options.ambiguous_only,
        partial: None,
        // The seed said only when it chose: a sample of fewer than all
        // (none with the ambiguous spectra alone).
        seed: (sample > 0 && all.unique < unique).then_some(done.seed.unwrap_or_default()),
        rows: all.rows.0.into_values().collect(),
        mismatches: all.listed,
    };
    Ok(Streaming::Done(Box::new(Streamed {
        verification,
        ambiguous_spectra: ambiguous,
        unique_spectra: unique,
        unique_checked: all.unique,
        sat_checks: all.checks,
        mismatches_found: all.mismatches,
        census: report.source,
    })))
}
