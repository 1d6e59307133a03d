//! Solving full spectra with the SAT solver: all solutions, including the proof
//! that there are no more.
//!
//! `cargo bench --bench solve`

use std::hint::black_box;

use bbx::assistant::generate::seeded;
use bbx::puzzle::load_puzzle;
use bbx::rand::RngExt;
use bbx::rules::enumeration;
use bbx::solver::{self, Limits};
use bbx::{Config, Molecule, Observation, Rules, Spectrum};
use criterion::{Criterion, criterion_group, criterion_main};

fn random_observations(config: Config, count: usize, seed: u64) -> Vec<Observation> {
    let total = config.molecule_count().expect("numbered");
    let mut rng = seeded(seed);
    (0..count)
        .map(|_| {
            let m: Molecule =
                enumeration::unrank(config, rng.random_range(1..=total)).expect("in range");
            Observation::full(&Spectrum::of(&m, Rules::Standard))
        })
        .collect()
}

fn solve_all(o: &Observation, atoms: usize) -> usize {
    let s = solver::solve(
        o,
        Rules::Standard,
        atoms..=atoms,
        &Limits::default(),
        |_| {},
    )
    .expect("solves");
    assert!(s.ended.is_complete());
    s.molecules.len()
}

fn full_spectra(c: &mut Criterion) {
    for (cfg, seed) in [("A4_B8", 0x0A4B8u64), ("A5_B10", 0x0A5B10)] {
        let config: Config = cfg.parse().expect("valid");
        let games = random_observations(config, 50, seed);
        let mut group = c.benchmark_group(format!("solve/{cfg}"));
        for (i, o) in games.iter().enumerate().take(5) {
            group.bench_function(format!("game-{i}"), |b| {
                b.iter(|| black_box(solve_all(o, config.atoms)))
            });
        }
        group.finish();
    }
}

fn a12_b20_set(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve/A12_B20");
    group.sample_size(10);
    for i in 1..=20 {
        let path = format!(
            "{}/puzzles/a12-b20-set/game-{i:02}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let p = load_puzzle(&path, None).expect("puzzle");
        group.bench_function(format!("game-{i:02}"), |b| {
            b.iter(|| black_box(solve_all(&p.observation, 12)))
        });
    }
    group.finish();
}

criterion_group!(benches, full_spectra, a12_b20_set);
criterion_main!(benches);
