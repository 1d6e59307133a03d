//! Writes reproducible random games into `puzzles/`: the generated puzzles that
//! the tests and benchmarks use. Run from the repository root:
//!
//! ```sh
//! cargo run --release --example generate_games
//! ```
//!
//! Each game hides a random molecule (the library's [`random_molecule`], drawn
//! with [`seeded`]: ChaCha8 with a fixed seed per file, so the files come out
//! the same on every machine) and shows all or some of its rays; the linear
//! files name the hidden molecule in a comment.

use std::fs;

use bbx::assistant::generate::{random_molecule, seeded};
use bbx::rand::RngExt;
use bbx::render::grid;
use bbx::{Config, Observation, Rules, Spectrum};

/// A configuration written as a literal.
fn config(s: &str) -> Config {
    s.parse().expect("valid configuration")
}

/// The display of an observation: its marks on an empty board.
fn display(obs: &Observation, atoms: usize) -> String {
    let marks: Vec<char> = obs
        .marks()
        .expect("at most 52 pairs")
        .into_iter()
        .map(|c| if c == '?' { ' ' } else { c })
        .collect();
    format!(
        "{}\nThere are {atoms} balls in the box\n",
        grid(obs.width(), |_| '-', &marks)
    )
}

fn main() -> std::io::Result<()> {
    fs::create_dir_all("puzzles/a12-b20-set")?;
    // A full game on 10×10 and 20×20, a partial one on 15×15.
    let mut rng = seeded(0x5EED_0010);
    let m = random_molecule(config("A5_B10"), &mut rng);
    let obs = Observation::full(&Spectrum::of(&m, Rules::Standard));
    fs::write("puzzles/generated-a5-b10-full.txt", display(&obs, 5))?;
    println!("a5-b10 full: {m}");

    let mut rng = seeded(0x5EED_0015);
    let m = random_molecule(config("A8_B15"), &mut rng);
    let mut obs = Observation::full(&Spectrum::of(&m, Rules::Standard));
    for pos in 1..=60 {
        if rng.random_ratio(1, 3) {
            obs.forget(pos);
        }
    }
    fs::write("puzzles/generated-a8-b15-partial.txt", display(&obs, 8))?;
    println!("a8-b15 partial: {m}");

    let mut rng = seeded(0x5EED_0020);
    let m = random_molecule(config("A10_B20"), &mut rng);
    let s = Spectrum::of(&m, Rules::Standard);
    fs::write(
        "puzzles/generated-a10-b20-full.txt",
        format!(
            "# A generated 20×20 game with 10 atoms, all rays shot.\n# hidden molecule: {m}\nA10_B20 {s}\n"
        ),
    )?;
    println!("a10-b20 full: {m}");

    // The A12_B20 benchmark set: 20 full games.
    let mut rng = seeded(0x5EED_1220);
    for i in 1..=20 {
        let m = random_molecule(config("A12_B20"), &mut rng);
        let s = Spectrum::of(&m, Rules::Standard);
        fs::write(
            format!("puzzles/a12-b20-set/game-{i:02}.txt"),
            format!(
                "# Generated A12_B20 game {i} of 20, all rays shot.\n# hidden molecule: {m}\nA12_B20 {s}\n"
            ),
        )?;
    }
    // A partial 8×8 game.
    let mut rng = seeded(0x5EED_0008);
    let m = random_molecule(config("A4_B8"), &mut rng);
    let s = Spectrum::of(&m, Rules::Standard);
    let mut obs = Observation::full(&s);
    for pos in 1..=32 {
        if rng.random_ratio(1, 2) {
            obs.forget(pos);
        }
    }
    fs::write("puzzles/generated-a4-b8-partial.txt", display(&obs, 4))?;
    println!("a4-b8 partial: {m}");
    Ok(())
}
