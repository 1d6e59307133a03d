//! Ray engine throughput: full spectra per second on random molecules.
//!
//! `cargo bench --bench engine`

use std::hint::black_box;

use bbx::assistant::generate::seeded;
use bbx::rand::RngExt;
use bbx::rules::enumeration;
use bbx::{Analysis, Config, Molecule, Rules, Tracer};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// `count` random molecules of `config`, reproducibly (the library's seeded
/// generator).
fn random_molecules(config: Config, count: usize) -> Vec<Molecule> {
    let total = config.molecule_count().expect("numbered configuration");
    let mut rng = seeded(0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|_| enumeration::unrank(config, rng.random_range(1..=total)).expect("in range"))
        .collect()
}

fn spectra(c: &mut Criterion) {
    for (cfg, rules) in [
        ("A4_B8", Rules::Standard),
        ("A4_B8", Rules::EdgeMiss),
        ("A5_B10", Rules::Standard),
        ("A12_B20", Rules::Standard),
    ] {
        let config: Config = cfg.parse().expect("valid");
        let molecules = match config.molecule_count() {
            Some(_) => random_molecules(config, 4096),
            None => (0..512)
                .map(|i| {
                    let cells = config.cells();
                    let atoms =
                        (0..config.atoms).map(|k| (i * 7919 + k * 104_729 + k * k * 31) % cells);
                    Molecule::new(
                        config.width,
                        atoms.collect::<std::collections::BTreeSet<_>>(),
                    )
                    .expect("valid")
                })
                .collect(),
        };
        let mut group = c.benchmark_group(format!("spectrum/{cfg}/{rules}"));
        group.throughput(Throughput::Elements(molecules.len() as u64));
        let mut tracer = Tracer::new(config.width, rules);
        let mut rays = Vec::new();
        group.bench_function("trace_all", |b| {
            b.iter(|| {
                for m in &molecules {
                    tracer.load(m);
                    tracer.trace_all(&mut rays);
                    black_box(&rays);
                }
            })
        });
        if cfg == "A4_B8" && rules == Rules::Standard {
            group.bench_function("analysis_with_stats", |b| {
                b.iter(|| {
                    for m in &molecules {
                        tracer.load(m);
                        black_box(Analysis::from_tracer(&tracer));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, spectra);
criterion_main!(benches);
