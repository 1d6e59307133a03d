//! Where `bbx verify` takes a configuration's spectra from: the one place
//! that chooses between a complete catalogue, a census's stored groups and
//! an enumeration in memory.

use std::fmt;

use crate::catalogue::{Holding, RULES, SANE_LIMIT, Store, busy_ms, molecules_of};
use crate::census::countable;
use crate::control::Ended;
use crate::error::Error;
use crate::files::shown;
use crate::rules::config::Config;
use crate::setting::Job;
use crate::text;
use crate::verify::VerifyOptions;
use crate::verify::groups::{SpectralGroups, spectra, spectra_from_store};

/// Where the spectra checked come from; displayed as the verification's
/// source (`catalogue FILE`, `census FILE: ambiguous spectra only`,
/// `enumeration in memory`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpectraSource {
    /// The complete catalogue in this file.
    Catalogue(String),
    /// The groups a census stored in this file: the shared spectra only.
    Census(String),
    /// Every molecule traced in memory.
    Enumeration,
}

impl SpectraSource {
    /// What reading the spectra from this source is, for a progress display.
    pub fn reading(&self) -> String {
        match self {
            SpectraSource::Catalogue(db) => format!("reading the spectra from {}", shown(db)),
            SpectraSource::Census(db) => {
                format!("reading the census's ambiguous spectra from {}", shown(db))
            }
            SpectraSource::Enumeration => "enumerating the spectra".to_string(),
        }
    }
}

impl fmt::Display for SpectraSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpectraSource::Catalogue(db) => write!(f, "catalogue {}", shown(db)),
            SpectraSource::Census(db) => {
                write!(f, "census {}: ambiguous spectra only", shown(db))
            }
            SpectraSource::Enumeration => f.write_str("enumeration in memory"),
        }
    }
}

/// Where the spectra checked come from, or that a census streams them.
#[derive(Debug)]
pub enum Spectra {
    /// Read or enumerated in memory, from this source.
    Groups(SpectralGroups, SpectraSource),
    /// No complete catalogue (nor, with `--ambiguous`, stored groups): a
    /// census streams the groups to SAT ([`crate::verify::verify_streaming`]).
    Stream,
    /// The enumeration in memory was stopped by the options' budget.
    Stopped(Ended),
}

/// The spectra of `config` to check with `options`, from the best source:
/// the complete catalogue in file `db`; with
/// [`ambiguous_only`](VerifyOptions::ambiguous_only), the groups a census
/// stored there; otherwise, under the standard rules and with full
/// observations (no `partial`), for a configuration a census can count, a
/// census streams them ([`Spectra::Stream`]); otherwise an enumeration in
/// memory (within the options' budget), refused (with what to do instead)
/// for a configuration of more than [`SANE_LIMIT`] molecules. `db` is read
/// only under the rules it is written in ([`RULES`]). `reading` hears the
/// source chosen before the spectra are read.
pub fn spectra_or_stream(
    config: Config,
    db: &str,
    options: &VerifyOptions,
    reading: impl FnOnce(&SpectraSource),
) -> Result<Spectra, Error> {
    let held = if options.rules == RULES {
        Some(Store::open(db, config, busy_ms(&options.budget.faults))?)
    } else {
        None
    };
    let store = held.filter(|s| match s.holding() {
        Holding::Catalogue => true,
        Holding::Census(_) => options.ambiguous_only,
        _ => false,
    });
    let source = match store.as_ref().map(Store::holding) {
        Some(Holding::Catalogue) => SpectraSource::Catalogue(db.to_string()),
        Some(_) => SpectraSource::Census(db.to_string()),
        None if options.rules == RULES
            && options.partial.is_none()
            && countable(config).is_ok() =>
        {
            return Ok(Spectra::Stream);
        }
        None if config.molecule_count().is_none_or(|n| n > SANE_LIMIT) => {
            return Err(too_many(config, options));
        }
        None => SpectraSource::Enumeration,
    };
    reading(&source);
    let groups = match &store {
        Some(store) => spectra_from_store(store)?.ok_or_else(|| {
            Error::Internal(format!(
                "{}: the spectra of {config} went missing",
                shown(db)
            ))
        })?,
        None => match spectra(config, options.rules, &options.budget)?.whole() {
            Ok(groups) => groups,
            Err(ended) => return Ok(Spectra::Stopped(ended)),
        },
    };
    Ok(Spectra::Groups(groups, source))
}

/// The error for a configuration too large to enumerate with no spectra
/// stored for it.
fn too_many(config: Config, options: &VerifyOptions) -> Error {
    let size = molecules_of(config);
    let limit = SANE_LIMIT;
    let too_many =
        format!("{config} has {size}, too many to enumerate in memory (at most {limit})");
    Error::invalid(match (countable(config), options.rules == RULES) {
        (Ok(_), true) => {
            let (config, db) = (config.to_string(), "FILE".to_string());
            let store = Job::StoreGroups(Some(config.clone()), db.clone());
            text![
                format!("{too_many}: "),
                store,
                ", then ",
                Job::VerifyStored(config, db)
            ]
        }
        (Ok(_), false) => text![format!(
            "{too_many}; a census's stored groups are checked under the standard rules only"
        )],
        (Err(why), _) => text![
            format!(
                "{too_many}, and no census can count it ({why}); to check single games of it, "
            ),
            Job::Solve
        ],
    })
}
