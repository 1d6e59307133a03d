//! Using bbx as a library: trace a molecule, hide some of its rays, and ask the
//! SAT solver which molecules fit what is left.
//!
//! ```sh
//! cargo run --release --example library
//! ```

use bbx::rules::enumeration;
use bbx::solver::{self, Limits};
use bbx::{Analysis, Molecule, Observation, Rules};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // J. Forget's A4_B6 molecule 868.
    let m: Molecule = "O-O-----------O---------O-----------".parse()?;
    let a = Analysis::of(&m, Rules::Standard);
    println!("molecule {m}, number {:?}", enumeration::rank(&m));
    println!("spectrum {}", a.spectrum);
    println!("longest exit path: {} cells", a.stats.out_max_length);

    // All rays observed: the spectrum is shared with molecule 15993.
    let full = Observation::full(&a.spectrum);
    let s = solver::solve(&full, Rules::Standard, 4..=4, &Limits::default(), |_| {})?;
    println!("\nall rays: {} molecules fit", s.molecules.len());
    for found in &s.molecules {
        println!("  {found} (number {:?})", enumeration::rank(found));
    }

    // Only the left and bottom sides shot.
    let mut partial = Observation::empty(6);
    for pos in 1..=12 {
        partial.record(pos, a.spectrum.get(pos));
    }
    let s = solver::solve(&partial, Rules::Standard, 4..=4, &Limits::default(), |_| {})?;
    println!(
        "\nleft and bottom only ({partial}): {} molecules fit",
        s.molecules.len()
    );
    if let Some(best) = s.splits().first() {
        println!(
            "the next ray to shoot is {}: it leaves about {:.1} of them on average",
            best.position, best.expected_remaining
        );
    }
    println!("cells certainly empty: {}", s.certain_empty().len());
    Ok(())
}
