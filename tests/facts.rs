//! The facts of `docs/RULES.md` ("Facts to test against") that concern single molecules,
//! checked through the library.

use bbx::rules::enumeration;
use bbx::{Analysis, Config, Molecule, Rules, Spectrum, Stats, Transform};

fn molecule(s: &str) -> Molecule {
    s.parse().expect("valid molecule")
}

#[test]
fn a2_b4_molecule_2_record() {
    let m = molecule("O-O-------------");
    assert_eq!(enumeration::rank(&m), Some(2));
    assert_eq!(enumeration::unrank("A2_B4".parse().unwrap(), 2).unwrap(), m);
    let a = Analysis::of(&m, Rules::Standard);
    assert_eq!(a.spectrum.to_string(), "@&ab@&@cbac@&@&@");
    assert_eq!(
        a.stats,
        Stats {
            absorbed_number: 6,
            absorbed_max_length: 3,
            absorbed_max_turns: 0,
            absorbed_tot_length: 7,
            absorbed_tot_turns: 0,
            reflected_number: 4,
            reflected_edge: 3,
            reflected_deep: 1,
            reflected_max_length: 3,
            reflected_max_turns: 0,
            reflected_tot_length: 3,
            reflected_tot_turns: 0,
            out_number: 3,
            out_max_length: 4,
            out_max_turns: 1,
            out_tot_length: 11,
            out_tot_turns: 1,
        }
    );
}

#[test]
fn a2_b4_rot180_image_is_number_119() {
    // J. Forget's second record of the group: rot180 of molecule 2.
    let m = molecule("O-O-------------");
    let image = Transform::Rot180.molecule(&m);
    assert_eq!(image.to_string(), "-------------O-O");
    assert_eq!(enumeration::rank(&image), Some(119));
    assert_eq!(enumeration::canonical(&image), Some((2, Transform::Rot180)));
    let s = Spectrum::of(&image, Rules::Standard);
    assert_eq!(s.to_string(), "abc@&@&@@&ba@&@c");
    assert_eq!(
        Transform::Rot180.spectrum(&Spectrum::of(&m, Rules::Standard)),
        s
    );
}

#[test]
fn a4_b6_molecules_868_and_15993_share_a_spectrum() {
    let config: Config = "A4_B6".parse().unwrap();
    let m868 = molecule("O-O-----------O---------O-----------");
    let m15993 = molecule("--O---------O-O---------O-----------");
    assert_eq!(enumeration::rank(&m868), Some(868));
    assert_eq!(enumeration::rank(&m15993), Some(15993));
    assert_eq!(enumeration::unrank(config, 868).unwrap(), m868);
    assert_eq!(enumeration::unrank(config, 15993).unwrap(), m15993);
    assert_eq!(enumeration::canonical(&m868), Some((868, Transform::Id)));
    let (canonical, transform) = enumeration::canonical(&m15993).unwrap();
    assert_eq!(canonical, 7361);
    // J. Forget's record says `transform: 'id'`, which cannot be: molecule 15993 is
    // not its group's canonical molecule. The definition (docs/RULES.md, Molecules and
    // their numbers) gives rot90.
    assert_eq!(transform, Transform::Rot90);
    let canonical_molecule = enumeration::unrank(config, 7361).unwrap();
    assert_eq!(Transform::Rot90.molecule(&canonical_molecule), m15993);

    let s868 = Spectrum::of(&m868, Rules::Standard);
    let s15993 = Spectrum::of(&m15993, Rules::Standard);
    assert_eq!(s868.to_string(), "@&@&@&@a@bcda@b@&@dc&@&@");
    assert_eq!(s868, s15993);
    assert_eq!(
        Transform::Rot180.spectrum(&s868).to_string(),
        "a@b@&@cd&@&@@&@&@&@a@bdc"
    );
    assert_eq!(
        Spectrum::of(&Transform::Rot180.molecule(&m868), Rules::Standard).to_string(),
        "a@b@&@cd&@&@@&@&@&@a@bdc"
    );
}

#[test]
fn molecule_counts() {
    for (cfg, count) in [
        ("A2_B4", 120u64),
        ("A3_B4", 560),
        ("A4_B4", 1820),
        ("A4_B5", 12650),
        ("A4_B6", 58905),
        ("A4_B8", 635376),
    ] {
        let config: Config = cfg.parse().unwrap();
        assert_eq!(config.molecule_count(), Some(count), "{cfg}");
        // Walk the enumeration too: it must produce exactly that many molecules
        // and end on the last one.
        let mut atoms: Vec<usize> = (0..config.atoms).collect();
        let mut n = 1u64;
        while enumeration::next_combination(&mut atoms, config.cells()).is_some() {
            n += 1;
        }
        assert_eq!(n, count, "{cfg}");
        let last: Vec<usize> = (config.cells() - config.atoms..config.cells()).collect();
        assert_eq!(atoms, last);
        assert_eq!(
            enumeration::unrank(config, count).unwrap().atoms(),
            &last[..]
        );
    }
}

#[test]
fn seed_23_cell_path_with_6_turns() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/seed-23-cell-path.txt"
    ))
    .unwrap();
    let m = bbx::puzzle::parse_molecule(&text, "seed-23-cell-path.txt").unwrap();
    let mut t = bbx::Tracer::new(8, Rules::Standard);
    t.load(&m);
    let ray = t.trace(31);
    assert_eq!(ray.outcome, bbx::Outcome::Exit(15));
    assert_eq!((ray.length, ray.turns), (23, 6));
    let a = Analysis::of(&m, Rules::Standard);
    assert_eq!((a.stats.out_max_length, a.stats.out_max_turns), (23, 6));
}

#[test]
fn seed_out_ray_extremes_in_a4_b8() {
    // J. Forget's first-optimisation examples: 14 pairs and 4 hits; 4 pairs, 16
    // hits and 8 reflections.
    let many = "--------\
                ---O----\
                --O-O---\
                ---O----\
                --------\
                --------\
                --------\
                --------";
    let a = Analysis::of(&molecule(many), Rules::Standard);
    assert_eq!(a.spectrum.to_string(), "ab@cdefghcd@ijklgfeij@mnlkmn@abh");
    assert_eq!((a.stats.out_number, a.stats.absorbed_number), (14, 4));
    let few = "-O------\
               -------O\
               --------\
               --------\
               --------\
               --------\
               O-------\
               ------O-";
    let a = Analysis::of(&molecule(few), Rules::Standard);
    assert_eq!(a.spectrum.to_string(), "@@@ab&@&@@@cd&@&@@@ba&@&@@@dc&@&");
    assert_eq!(
        (
            a.stats.out_number,
            a.stats.absorbed_number,
            a.stats.reflected_number
        ),
        (4, 16, 8)
    );
}
