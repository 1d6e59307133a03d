//! Census throughput: the steps of one orbit (walk, trace, canonical form)
//! on A5_B8 and A6_B8, the grouping of records, and whole censuses (A4_B8,
//! A5_B8, A6_B8).
//!
//! `cargo bench --bench census`

use std::hint::black_box;

use bbx::Config;
use bbx::census::canonical::{SpectrumSymmetries, Traced, key};
use bbx::census::group::{Grouper, Handover};
use bbx::census::orbits::OrbitWalk;
use bbx::census::record::pack;
use bbx::census::summary::Summary;
use bbx::census::{CensusOptions, run};
use bbx::control::Budget;
use bbx::rules::enumeration::Numbering;
use bbx::work::cluster::Cluster;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The first 2 000 000 molecule numbers of a configuration: about 250 000
/// orbits of A5_B8, 890 000 of A6_B8 (the first numbers hold more orbits
/// than the later ones).
const SLICE: u64 = 2_000_000;

/// The steps of one orbit on A5_B8's and A6_B8's first numbers: the
/// canonical walk; + tracing every ray from scratch; + tracing by the sweep,
/// as the census does (`rules::sweep`); + the canonical spectrum and record.
fn orbits(c: &mut Criterion) {
    for config in ["A5_B8", "A6_B8"] {
        let config: Config = config.parse().expect("valid");
        orbits_of(c, config);
    }
}

fn orbits_of(c: &mut Criterion, config: Config) {
    let reps = {
        let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
        let mut n = 0u64;
        while walk.next_rep().is_some() {
            n += 1;
        }
        n
    };
    let mut group = c.benchmark_group(format!("census/{config} orbits"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(reps));
    group.bench_function("walk", |b| {
        b.iter(|| {
            let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
            let mut n = 0u64;
            while let Some(r) = walk.next_rep() {
                n += r.orbit_size as u64;
            }
            black_box(n)
        })
    });
    group.bench_function("walk + trace from scratch", |b| {
        let mut traced = Traced::new(config.shape());
        b.iter(|| {
            let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
            let mut acc = 0u32;
            while let Some(r) = walk.next_rep() {
                traced.trace(r.atoms);
                acc ^= traced.records()[5];
            }
            black_box(acc)
        })
    });
    group.bench_function("walk + sweep", |b| {
        let mut traced = Traced::new(config.shape());
        b.iter(|| {
            let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
            let mut acc = 0u32;
            while let Some(r) = walk.next_rep() {
                traced.next(r.atoms);
                acc ^= traced.records()[5];
            }
            black_box(acc)
        })
    });
    group.bench_function("walk + sweep + canonical form + record", |b| {
        let mut traced = Traced::new(config.shape());
        let sym = SpectrumSymmetries::new(config.shape());
        let numbering = Numbering::new(config).expect("numbered");
        let mut canonical = sym.canonical(&vec![0; 4 * config.width]);
        let mut out = Vec::with_capacity(reps as usize);
        b.iter(|| {
            out.clear();
            let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
            while let Some(r) = walk.next_rep() {
                traced.next(r.atoms);
                sym.canonical_into(traced.codes(), &mut canonical);
                out.push((
                    key(&canonical.codes),
                    pack(numbering.rank(r.atoms), r.orbit_size, canonical.stabilizer),
                ));
            }
            black_box(out.len())
        })
    });
    group.finish();
}

fn grouping(c: &mut Criterion) {
    let config: Config = "A5_B8".parse().expect("valid");
    let mut traced = Traced::new(config.shape());
    let sym = SpectrumSymmetries::new(config.shape());
    let numbering = Numbering::new(config).expect("numbered");
    let mut records = Vec::new();
    let mut walk = OrbitWalk::new(config, 1, SLICE, true).expect("walk");
    while let Some(r) = walk.next_rep() {
        traced.trace(r.atoms);
        let canonical = sym.canonical(traced.codes());
        records.push((
            key(&canonical.codes),
            pack(numbering.rank(r.atoms), r.orbit_size, canonical.stabilizer),
        ));
    }
    let mut group = c.benchmark_group("census/A5_B8 grouping");
    group.sample_size(10);
    group.throughput(Throughput::Elements(records.len() as u64));
    group.bench_function("sort, find and count the shared spectra", |b| {
        let mut grouper = Grouper::new(config, false).expect("numbered");
        b.iter(|| {
            let mut summary = Summary::default();
            grouper
                .group(
                    records.clone(),
                    &mut summary,
                    &Budget::default(),
                    &mut Handover::default(),
                )
                .expect("nothing handed over fails");
            black_box(summary.ambiguity.len())
        })
    });
    group.finish();
}

fn whole(c: &mut Criterion) {
    let mut group = c.benchmark_group("census/whole");
    group.sample_size(10);
    for (config, workers) in [("A4_B8", 1), ("A5_B8", 1), ("A5_B8", 2), ("A6_B8", 2)] {
        let config: Config = config.parse().expect("valid");
        group.throughput(Throughput::Elements(
            config.molecule_count().expect("numbered"),
        ));
        // Removed, with whatever is in it, when the benchmark is done.
        let dir = tempfile::tempdir().expect("a temporary directory");
        let options = CensusOptions {
            cluster: Cluster::local(workers),
            work_dir: dir.path().to_path_buf(),
            ..CensusOptions::default()
        };
        group.bench_function(format!("{config}, {workers} worker(s)"), |b| {
            b.iter(|| black_box(run(config, &options, |_, _| {}).expect("census").ended))
        });
    }
    group.finish();
}

criterion_group!(benches, orbits, grouping, whole);
criterion_main!(benches);
