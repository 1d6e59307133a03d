//! Puzzle generation: `generate --minimal` on A5_B10, one benchmark per seed.
//!
//! `cargo bench --bench generate`

use std::hint::black_box;

use bbx::assistant::generate::{minimize, seeded, unique};
use bbx::control::Budget;
use bbx::{Config, Rules};
use criterion::{Criterion, criterion_group, criterion_main};

fn minimal(c: &mut Criterion) {
    let config: Config = "A5_B10".parse().expect("valid");
    let mut group = c.benchmark_group("generate/minimal/A5_B10");
    group.sample_size(10);
    for seed in 1..=20u64 {
        group.bench_function(format!("seed-{seed:02}"), |b| {
            b.iter(|| {
                let (mut rng, anytime) = (seeded(seed), Budget::default());
                let g =
                    unique(config, Rules::Standard, &mut rng, 10_000, &anytime).expect("unique");
                let o = &g.observation;
                black_box(
                    minimize(o, Rules::Standard, config.atoms, &mut rng, &anytime)
                        .expect("minimal"),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, minimal);
criterion_main!(benches);
