//! The census against the catalogue, and the symmetry-reduced census against
//! the full one, through the library.

use bbx::Config;
use bbx::catalogue::{Catalogue, ExploreOptions};
use bbx::census::{CensusOptions, run};
use bbx::control::{Budget, Faults};
use bbx::tables::{ReportSource, StatsReport};
use bbx::work::cluster::Cluster;
use proptest::prelude::*;

use crate::common::temp_dir;

fn census(config: Config, symmetry: bool, workers: usize) -> StatsReport {
    // A work directory of its own for each census (tests run side by side),
    // removed with everything in it once the census is checked.
    let scratch = temp_dir("census-lib");
    let options = CensusOptions {
        symmetry,
        cluster: Cluster::local(workers),
        work_dir: scratch.to_path_buf(),
        // Small units, so that even small configurations are cut in many.
        budget: Budget::default().with_faults(
            Faults::parse(&format!(
                "unit-size={}",
                (config.molecule_count().unwrap() / 37).max(1)
            ))
            .unwrap(),
        ),
        ..CensusOptions::default()
    };
    let done = run(config, &options, |_, _| {}).expect("census");
    assert!(done.ended.is_complete());
    assert!(!done.work_dir.exists(), "the work directory is removed");
    assert!(scratch.is_dir(), "but not the directory it was given");
    done.report.expect("a report")
}

fn catalogue(config: Config) -> StatsReport {
    let mut cat = Catalogue::open_in_memory().unwrap();
    cat.explore(config, &ExploreOptions::default(), |_| {})
        .unwrap();
    cat.stats_report(config).unwrap()
}

/// The report with its source set aside (the only field allowed to differ).
fn counts(mut r: StatsReport) -> StatsReport {
    assert!(matches!(
        r.source,
        ReportSource::Catalogue | ReportSource::Census { .. }
    ));
    r.source = ReportSource::Catalogue;
    r
}

#[test]
fn the_census_gives_the_catalogues_report_on_every_small_configuration() {
    let mut checked = 0;
    for width in 1..=8usize {
        for atoms in 0..=8usize {
            let Ok(config) = Config::new(atoms, width) else {
                continue;
            };
            if config.molecule_count().is_none_or(|n| n > 700_000) {
                continue;
            }
            let expected = catalogue(config);
            assert_eq!(counts(census(config, true, 2)), expected, "{config}");
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} configurations");
}

#[test]
fn the_census_gives_the_catalogues_report_on_small_rectangles() {
    let mut checked = 0;
    for (w, h) in [
        (2, 3),
        (3, 2),
        (4, 2),
        (3, 5),
        (5, 3),
        (4, 6),
        (6, 3),
        (1, 7),
        (7, 2),
    ] {
        for atoms in 0..=5usize {
            let shape = bbx::rules::config::Shape::new(w, h).unwrap();
            let Ok(config) = Config::shaped(atoms, shape) else {
                continue;
            };
            if config.molecule_count().is_none_or(|n| n > 150_000) {
                continue;
            }
            let expected = catalogue(config);
            assert_eq!(counts(census(config, true, 2)), expected, "{config}");
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} configurations");
}

#[test]
fn one_worker_and_three_give_the_same_report() {
    let config: Config = "A4_B7".parse().unwrap();
    assert_eq!(
        counts(census(config, true, 1)),
        counts(census(config, true, 3))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Tracing one molecule per orbit counts what tracing every molecule
    /// counts, on even and odd boards alike (every board has molecules that
    /// some symmetries fix, and spectra fixed by more symmetries than their
    /// molecules).
    #[test]
    fn the_reduced_census_equals_the_full_one(width in 2usize..=7, atoms in 1usize..=5) {
        let config = Config::new(atoms.min(width * width), width).unwrap();
        prop_assume!(config.molecule_count().is_some_and(|n| n <= 250_000));
        prop_assert_eq!(counts(census(config, true, 2)), counts(census(config, false, 2)));
    }
}
