//! The exact count of the molecules that fit (`solver::count`): the count,
//! the chances and the ranking of every ray not shot, from one walk, on the
//! positions of docs/performance.md's table "Counting the molecules that
//! fit"; and `suggest` end to end on the same positions (the count first,
//! then the few molecules listed).
//!
//! `cargo bench --bench count`

use std::hint::black_box;

use bbx::assistant::suggest::{SuggestOptions, suggest};
use bbx::control::Budget;
use bbx::solver::count::{Prior, count};
use bbx::{Observation, Rules};
use criterion::{Criterion, criterion_group, criterion_main};

/// (name, width, rays, atoms): the position's rays as a linear
/// observation, `?` for a ray not shot.
const POSITIONS: [(&str, usize, &str, (usize, usize)); 5] = [
    (
        "A4_B8 opening",
        8,
        "????????????????????????????????",
        (4, 4),
    ),
    (
        "A4_B8 ray 2 absorbed",
        8,
        "?@??????????????????????????????",
        (4, 4),
    ),
    (
        "A4_B8 rays 14 and 22 absorbed",
        8,
        "?????????????@???????@??????????",
        (4, 4),
    ),
    (
        "8x8, 3-6 atoms, opening",
        8,
        "????????????????????????????????",
        (3, 6),
    ),
    (
        "10x10, 4-10 atoms, opening",
        10,
        "????????????????????????????????????????",
        (4, 10),
    ),
];

fn observation(width: usize, rays: &str) -> Observation {
    let seen = Observation::parse(rays, "bench").expect("a linear observation");
    assert_eq!(seen.shape().width, width);
    seen
}

fn counts(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for (name, width, rays, (lo, hi)) in POSITIONS {
        let seen = observation(width, rays);
        group.bench_function(name, |b| {
            b.iter(|| {
                let c = count(&seen, Rules::Standard, lo..=hi, &Budget::default())
                    .expect("counts")
                    .value
                    .expect("finished");
                black_box((
                    c.total(),
                    c.chances(Prior::Molecules),
                    c.splits(Prior::Molecules),
                ))
            })
        });
    }
    group.finish();
}

fn suggestions(c: &mut Criterion) {
    let mut group = c.benchmark_group("suggest");
    group.sample_size(10);
    let options = SuggestOptions {
        max: 100_000,
        top: 5,
        plan_max: None,
        plan_budget: Budget::default(),
        budget: Budget::default(),
        policy: None,
        exact_below: 8,
    };
    for (name, width, rays, (lo, hi)) in POSITIONS {
        let seen = observation(width, rays);
        group.bench_function(name, |b| {
            b.iter(|| {
                let s =
                    suggest("bench", &seen, Rules::Standard, lo..=hi, &options).expect("suggests");
                black_box((s.count, s.rays.len()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, counts, suggestions);
criterion_main!(benches);
