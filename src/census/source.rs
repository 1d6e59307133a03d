//! Where a configuration's tables come from: the one place that chooses
//! between a complete catalogue, a census's stored groups and a census run.
//!
//! [`tables`] gives `bbx stats` its report from the best source: read from
//! `--db` when it holds the configuration's complete catalogue or a stored
//! census, counted by a census otherwise (or when asked to count, or to
//! store the groups). [`rows`] gives `bbx show` the [`Store`] its rows are
//! read from, or says how to make one.

use std::path::{Path, PathBuf};

use crate::catalogue::{Catalogue, Store, WriterLock, busy_ms, molecules_of};
use crate::census::store::{Stored, store};
use crate::census::{Census, CensusOptions, countable, run};
use crate::control::Ended;
use crate::error::Error;
use crate::rules::config::Config;
use crate::setting::{Job, Setting, Text};
use crate::tables::StatsReport;
use crate::text;

/// How [`tables`] finds a configuration's report.
#[derive(Debug, Clone)]
pub struct TablesOptions {
    /// The catalogue file: read when it holds the tables; written only to
    /// store a census's groups.
    pub db: String,
    /// Count with a census even when `db` holds the tables.
    pub count: bool,
    /// Count with a census and store its groups in `db`, which must hold
    /// nothing else.
    pub store: bool,
    /// How a census runs (its `keep_classes` and `keep_work` are set when
    /// the groups are stored); its budget stops storing them too, and its
    /// faults say how long to wait for other programs to let go of `db`
    /// (`busy-timeout-ms`) and when to stop storing (`stop-storing-after`).
    pub census: CensusOptions,
}

/// What [`tables`] is doing, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Reading the report from the file.
    Reading,
    /// About to count with a census (said once, before it starts: the time
    /// to catch Ctrl-C, which cancels [`CensusOptions::budget`]).
    Counting,
    /// Counting: the molecules this process has accounted for, out of its
    /// share (as [`run`] reports them).
    Counted {
        /// Molecules accounted for.
        counted: u64,
        /// This process's share (an estimate with several processes).
        share: u64,
    },
    /// Counted; now storing the groups in the file.
    Storing,
}

/// How [`tables`] ended.
#[derive(Debug)]
pub enum Tables {
    /// The report, read or counted; with [`TablesOptions::store`], what was
    /// stored.
    Report {
        /// The report.
        report: StatsReport,
        /// The groups stored in the file, when asked to store them.
        stored: Option<Stored>,
    },
    /// The census stopped before the end ([`Census::ended`] says how); its
    /// work is kept in its work directory for the same command to resume.
    Interrupted(Box<Census>),
    /// This process (not process 0) has done its share of the census;
    /// process 0 has the report.
    ShareDone,
    /// Stopped while storing the groups (as it says): the file is as it
    /// was, and the census is kept in this work directory, so that the same
    /// command stores it without counting again.
    StoreInterrupted(PathBuf, Ended),
}

/// The `bbx stats` report of `config` from the best source (see the
/// [module documentation](self)); `progress` hears what is being done.
/// With [`TablesOptions::store`], a configuration no census can count or a
/// file that must not take its census is refused before any work and
/// without creating the file.
pub fn tables(
    config: Config,
    options: &TablesOptions,
    mut progress: impl FnMut(Step),
) -> Result<Tables, Error> {
    let busy_ms = busy_ms(&options.census.budget.faults);
    if !options.count && !options.store {
        let held = Store::open(&options.db, config, busy_ms)?;
        if held.has_rows() {
            progress(Step::Reading);
            if let Some(report) = held.stats_report()? {
                return Ok(Tables::Report {
                    report,
                    stored: None,
                });
            }
        }
    }
    let mut census_options = options.census.clone();
    if options.store {
        // Checked again, under the writer's lock, when the groups are stored.
        countable(config)?;
        Catalogue::check_census_file(&options.db, config, busy_ms)?;
        census_options.keep_classes = true;
        // Kept until the groups are stored: stopped while storing, the same
        // command stores them without counting again.
        census_options.keep_work = true;
    }
    progress(Step::Counting);
    let mut done = run(config, &census_options, |counted, share| {
        progress(Step::Counted { counted, share })
    })?;
    if !done.ended.is_complete() {
        return Ok(Tables::Interrupted(Box::new(done)));
    }
    let Some(report) = done.report.take() else {
        done.remove_work();
        return Ok(Tables::ShareDone);
    };
    if !options.store {
        return Ok(Tables::Report {
            report,
            stored: None,
        });
    }
    progress(Step::Storing);
    let census = &options.census;
    let stored = store(&options.db, config, &report, &done.classes, &census.budget).map_err(
        |e| match e {
            Error::Busy(m) => Error::Busy(kept(&done.work_dir, m, false)),
            Error::Invalid(m) => Error::Invalid(kept(&done.work_dir, m, true)),
            other => other,
        },
    )?;
    let stored = match stored.whole() {
        Ok(stored) => stored,
        Err(ended) => return Ok(Tables::StoreInterrupted(done.work_dir.clone(), ended)),
    };
    done.remove_work();
    Ok(Tables::Report {
        report,
        stored: Some(stored),
    })
}

/// `what` happened while storing a census kept in `work_dir`, and how to
/// store it without counting again (the same command, with another
/// catalogue file when `other_db`).
pub fn kept(work_dir: &Path, what: Text, other_db: bool) -> Text {
    let mut t = what.and(format!(
        "; the census is kept in {}: the same command",
        crate::files::shown(work_dir)
    ));
    if other_db {
        t = t.and(" with another ").and(Setting::Db);
    }
    t.and(" stores it without counting again")
}

/// The [`Store`] in `db` holding `config`'s rows (a complete catalogue or
/// a census's groups), for `bbx show`; when it holds neither, an error
/// that says so: busy while a bbx writes it, and otherwise advice that works
/// for this configuration (`explore` within its limits, `stats
/// --store-groups` where a census can count it).
pub fn rows(file: &str, config: Config, busy_ms: u32) -> Result<Store, Error> {
    let held = Store::open(file, config, busy_ms)?;
    if held.has_rows() {
        return Ok(held);
    }
    drop(held);
    let db = crate::files::shown(file);
    if WriterLock::is_held(Path::new(file)) {
        return Err(Error::busy(format!(
            "another program is writing {db}, which holds no complete catalogue or census of {config} yet: run the same command again when it is done"
        )));
    }
    let explore = Catalogue::explorable(config, false).is_ok();
    let count = countable(config).is_ok();
    if !explore && !count {
        return Err(Error::invalid(text![
            format!(
                "{db}: no complete catalogue or census of {config}, and {config} ({}) is too large for either; to see one of its molecules given as a board, ",
                molecules_of(config)
            ),
            Job::Trace
        ]));
    }
    let mut ways = Text::from(format!(
        "{db}: no complete catalogue or census of {config}: "
    ));
    let (config, db) = (Some(config.to_string()), db.to_string());
    if explore {
        let job = Job::Explore(config.clone(), db.clone());
        ways = ways.and(job).and(" (every molecule)");
    }
    if count {
        if explore {
            ways.push(" or ");
        }
        ways = ways
            .and(Job::StoreGroups(config, db))
            .and(" (the ambiguous groups)");
    }
    Err(Error::invalid(ways.and(" first")))
}
