//! The options many commands take the same way: `--quiet`, `--workers`,
//! `--seed`, `--max`.

use bbx::assistant::generate::fresh_seed;

use crate::values::{parse_max, parse_seed};

/// `-q/--quiet`, taken by every command that prints results, so that a
/// script may give it to any: the commands that can run long hide their
/// progress bar or spinner; those that never show one (`trace`, `show`,
/// `play`) take it and have nothing to hide.
#[derive(clap::Args)]
pub struct Quiet {
    /// No progress bar or spinner.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `-w/--workers`, the same on every command that works on several threads
/// (`stats` and `verify` take it with the census's options, [`CensusArgs`]).
#[derive(clap::Args)]
pub struct Workers {
    /// Worker threads [default: all cores]
    ///
    /// 1 to 256. Without it, the environment variable RAYON_NUM_THREADS, when
    /// set, gives the number.
    #[arg(long, short = 'w', value_name = "N", allow_negative_numbers = true,
        value_parser = crate::values::whole::<usize>("a number of threads", 1, Some(bbx::work::cluster::MAX_WORKERS as u64)))]
    workers: Option<usize>,
}

impl Workers {
    /// Sets the number of threads the library's parallel work runs on.
    pub fn apply(&self) -> bbx::Result<()> {
        threads(self.workers)
    }

    /// The number of threads given, if one was.
    pub fn given(&self) -> Option<usize> {
        self.workers
    }
}

/// Runs the library's parallel work (rayon's pool) on `n` threads, when
/// given; otherwise rayon's default holds (`RAYON_NUM_THREADS`, else every
/// core).
pub fn threads(n: Option<usize>) -> bbx::Result<()> {
    let Some(n) = n else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| bbx::Error::system(format!("cannot start {n} worker threads: {e}")))
}

/// `--seed`, the same on every command that draws at random.
#[derive(clap::Args)]
pub struct Seed {
    /// Seed of the random choices, to repeat a run [default: random]
    ///
    /// 0 to 9007199254740991 (2^53 - 1). Without it, one is drawn at random
    /// and printed.
    #[arg(long, value_name = "SEED", value_parser = parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
}

impl Seed {
    /// The seed given, if one was.
    pub fn given(&self) -> Option<u64> {
        self.seed
    }

    /// The seed given, or a fresh one drawn from the operating system's
    /// randomness ([`fresh_seed`]).
    pub fn value(&self) -> bbx::Result<u64> {
        match self.seed {
            Some(seed) => Ok(seed),
            None => fresh_seed(),
        }
    }
}

/// `--max`, the same on every command that lists molecules.
#[derive(clap::Args)]
pub struct MaxMolecules {
    /// Stop the search after N molecules [default: 100000]
    ///
    /// What follows rests on the molecules found, and says so. Regions no ray
    /// looks at are counted, not listed, so the count can go past N. On
    /// boards of more than 1000 cells the default is lower, so that at most
    /// 100 million cells are listed.
    #[arg(long, value_name = "N", value_parser = parse_max, allow_negative_numbers = true)]
    pub max: Option<usize>,
}

impl MaxMolecules {
    /// The limit for a box of `cells` cells: `--max`, or the default.
    pub fn limit(&self, cells: usize) -> usize {
        self.max
            .unwrap_or_else(|| 100_000.min(100_000_000 / cells.max(1)).max(100))
    }
}
