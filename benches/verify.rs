//! Verification and enumeration throughput.
//!
//! `cargo bench --bench verify`

use std::hint::black_box;

use bbx::catalogue::{Catalogue, ExploreOptions};
use bbx::control::Budget;
use bbx::verify::{Checker, VerifyOptions, check_afresh, spectra, verify_spectra};
use bbx::{Config, Observation, Rules, Spectrum};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn enumeration(c: &mut Criterion) {
    let config: Config = "A4_B6".parse().expect("valid");
    let mut group = c.benchmark_group("enumerate/A4_B6");
    group.sample_size(10);
    group.throughput(Throughput::Elements(58_905));
    group.bench_function("spectra_in_memory", |b| {
        b.iter(|| {
            black_box(
                spectra(config, Rules::Standard, &Budget::default())
                    .expect("enumerates")
                    .value,
            )
        })
    });
    group.bench_function("catalogue_in_memory", |b| {
        b.iter(|| {
            let mut cat = Catalogue::open_in_memory().expect("opens");
            black_box(
                cat.explore(config, &ExploreOptions::default(), |_| {})
                    .expect("explores"),
            )
        })
    });
    group.finish();
}

fn verification(c: &mut Criterion) {
    let config: Config = "A4_B6".parse().expect("valid");
    let groups = spectra(config, Rules::Standard, &Budget::default())
        .expect("enumerates")
        .value;
    let mut group = c.benchmark_group("verify/A4_B6");
    group.sample_size(10);
    let options = VerifyOptions {
        ambiguous_only: true,
        ..VerifyOptions::default()
    };
    group.throughput(Throughput::Elements(764));
    group.bench_function("ambiguous_spectra", |b| {
        b.iter(|| {
            black_box(
                verify_spectra(config, groups.clone(), &options, |_, _| {}).expect("verifies"),
            )
        })
    });
    let options = VerifyOptions {
        sample: Some(500),
        partial: Some(0.5),
        ..VerifyOptions::default()
    };
    group.throughput(Throughput::Elements(500));
    group.bench_function("sample_500_half_hidden", |b| {
        b.iter(|| {
            black_box(
                verify_spectra(config, groups.clone(), &options, |_, _| {}).expect("verifies"),
            )
        })
    });
    group.finish();
}

/// The SAT check of one group at a time: the checker against the check
/// afresh it replaced, on the 764 ambiguous A4_B6 spectra and on 2000
/// spectra of every kind.
fn check(c: &mut Criterion) {
    let config: Config = "A4_B6".parse().expect("valid");
    let groups = spectra(config, Rules::Standard, &Budget::default())
        .expect("enumerates")
        .value;
    let observation = |i: usize| {
        let s = Spectrum::from_outcomes(config.width, groups.outcomes(i)).expect("a spectrum");
        (Observation::full(&s), groups.molecules(i).to_vec())
    };
    let ambiguous: Vec<(Observation, Vec<u64>)> = (0..groups.len())
        .filter(|&i| groups.molecules(i).len() > 1)
        .map(observation)
        .collect();
    let any: Vec<(Observation, Vec<u64>)> = (0..groups.len())
        .step_by(groups.len() / 2000)
        .take(2000)
        .map(observation)
        .collect();
    let mut group = c.benchmark_group("check/A4_B6");
    group.sample_size(10);
    for (name, work) in [("ambiguous", &ambiguous), ("any_2000", &any)] {
        group.throughput(Throughput::Elements(work.len() as u64));
        group.bench_function(format!("{name}/checker"), |b| {
            b.iter(|| {
                let mut checker = Checker::new(config, Rules::Standard);
                for (o, want) in work {
                    black_box(checker.check(o, want.clone()).expect("checks"));
                }
            })
        });
        group.bench_function(format!("{name}/afresh"), |b| {
            b.iter(|| {
                for (o, want) in work {
                    black_box(
                        check_afresh(config, o, want.clone(), Rules::Standard).expect("checks"),
                    );
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, enumeration, verification, check);
criterion_main!(benches);
