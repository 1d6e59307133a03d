//! Verification and enumeration throughput.
//!
//! `cargo bench --bench verify`

use std::hint::black_box;

use bbx::catalogue::{Catalogue, ExploreOptions};
use bbx::verify::{VerifyOptions, spectra, verify_spectra};
use bbx::{Config, Rules};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn enumeration(c: &mut Criterion) {
    let config: Config = "A4_B6".parse().expect("valid");
    let mut group = c.benchmark_group("enumerate/A4_B6");
    group.sample_size(10);
    group.throughput(Throughput::Elements(58_905));
    group.bench_function("spectra_in_memory", |b| {
        b.iter(|| black_box(spectra(config, Rules::Standard).expect("enumerates")))
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
    let groups = spectra(config, Rules::Standard).expect("enumerates");
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

criterion_group!(benches, enumeration, verification);
criterion_main!(benches);
