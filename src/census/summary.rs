//! What each worker counts, how the counts add up, and the report they make.
//!
//! Workers count two things. While tracing, a [`Tally`] of the orbits they
//! traced and the ray records (the record value and the lowest molecule
//! number reaching it). While grouping, a [`Summary`] of the ambiguous
//! spectra whose keys they own: the ambiguity table, how far apart each
//! class's molecules are, the largest groups. Both add up by plain sums,
//! maxima and minima, so it does not matter which worker counted what: one
//! thread, many threads and many processes give the same totals.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::error::Error;
use crate::rules::config::Config;
use crate::rules::enumeration::unrank;
use crate::tables::{
    AmbiguityRow, GroupReport, LARGEST_GROUPS, RECORDS, RecordReport, ReportSource, StatsReport,
    rank_groups,
};

/// What a worker counted while tracing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// Molecules traced (orbits, with symmetry reduction).
    pub traced: u64,
    /// Molecules they stand for.
    pub molecules: u64,
    /// Per record of [`RECORDS`]: the largest value met and the lowest
    /// molecule number reaching it.
    pub records: [(u32, u64); 6],
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            traced: 0,
            molecules: 0,
            records: [(0, u64::MAX); 6],
        }
    }
}

impl Tally {
    /// Counts molecule `number`, standing for `molecules` molecules, with
    /// these record values.
    #[inline]
    pub fn add(&mut self, number: u64, molecules: u64, values: [u32; 6]) {
        self.traced += 1;
        self.molecules += molecules;
        for (r, v) in self.records.iter_mut().zip(values) {
            if v > r.0 || (v == r.0 && number < r.1) {
                *r = (v, number);
            }
        }
    }

    /// Counts molecule `number` as [`add`](Self::add) does, when its
    /// record values are at most `turns` (the even ones, turns) and
    /// `length` (the odd ones, cells): `values` gives them, and is asked
    /// only when one of them could reach a record kept.
    #[inline]
    pub fn add_bounded(
        &mut self,
        number: u64,
        molecules: u64,
        (turns, length): (u32, u32),
        values: impl FnOnce() -> [u32; 6],
    ) {
        let reaches = self
            .records
            .iter()
            .enumerate()
            .any(|(k, r)| if k % 2 == 0 { turns } else { length } >= r.0);
        if reaches {
            self.add(number, molecules, values());
        } else {
            self.traced += 1;
            self.molecules += molecules;
        }
    }

    /// Adds another worker's tally.
    pub fn merge(&mut self, other: &Tally) {
        self.traced += other.traced;
        self.molecules += other.molecules;
        for (r, &o) in self.records.iter_mut().zip(&other.records) {
            if o.0 > r.0 || (o.0 == r.0 && o.1 < r.1) {
                *r = o;
            }
        }
    }
}

/// One of the largest spectral groups, as a worker found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TopGroup {
    /// The group as the report lists it: the spectrum shown is that of the
    /// molecule numbered `canonical_number`.
    pub group: GroupReport,
    /// The lowest canonical number among the molecules of its class.
    pub canonical_number: u64,
}

impl TopGroup {
    /// The report's order ([`rank_groups`]: more molecules, further apart),
    /// then lower canonical number first.
    pub fn order(&self, other: &TopGroup) -> Ordering {
        rank_groups(&self.group, &other.group)
            .then(self.canonical_number.cmp(&other.canonical_number))
    }
}

/// What a worker counted while grouping, and what it brings to the report.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// The tracing counts.
    pub tally: Tally,
    /// Molecules per spectrum → (classes, spectra, molecules).
    pub ambiguity: BTreeMap<u64, [u64; 3]>,
    /// Most atoms apart → classes of ambiguous spectra.
    pub by_difference: BTreeMap<usize, u64>,
    /// The largest groups met, in report order, at most [`LARGEST_GROUPS`].
    pub top: Vec<TopGroup>,
    /// With stored groups: per class of ambiguous spectra, the numbers of the
    /// molecules sharing its canonical spectrum.
    pub classes: Vec<Vec<u64>>,
    /// The largest resident memory of the process, in bytes.
    pub peak_memory: u64,
    /// Whether every unit of work was done (false when stopped).
    pub complete: bool,
    /// Spectra whose keys collided with another's (found and separated).
    pub collisions: u64,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// With a sink ([`crate::census::sink`]), every worker's report, as
    /// JSON text (which every wire format between processes carries).
    pub sinks: Vec<String>,
}

impl Summary {
    /// Counts a class of ambiguous spectra: `molecules` molecules per
    /// spectrum, `spectra` spectra in the class.
    pub fn add_class(&mut self, molecules: u64, spectra: u64, atoms_apart: usize) {
        let row = self.ambiguity.entry(molecules).or_default();
        row[0] += 1;
        row[1] += spectra;
        row[2] += spectra * molecules;
        *self.by_difference.entry(atoms_apart).or_default() += 1;
    }

    /// Whether a group of `molecules` molecules `atoms_apart` apart could
    /// enter the largest groups (ties on both may, by canonical number).
    pub fn could_rank(&self, molecules: usize, atoms_apart: usize) -> bool {
        if self.top.len() < LARGEST_GROUPS {
            return true;
        }
        let last = &self.top[self.top.len() - 1].group;
        (molecules, atoms_apart) >= (last.numbers.len(), last.atoms_apart)
    }

    /// Offers a group to the largest ones.
    pub fn offer(&mut self, group: TopGroup) {
        let at = self
            .top
            .partition_point(|g| g.order(&group) != Ordering::Greater);
        if at < LARGEST_GROUPS {
            self.top.insert(at, group);
            self.top.truncate(LARGEST_GROUPS);
        }
    }

    /// Adds another worker's summary.
    pub fn merge(&mut self, other: Summary) {
        self.tally.merge(&other.tally);
        for (n, row) in other.ambiguity {
            let mine = self.ambiguity.entry(n).or_default();
            for k in 0..3 {
                mine[k] += row[k];
            }
        }
        for (d, n) in other.by_difference {
            *self.by_difference.entry(d).or_default() += n;
        }
        for g in other.top {
            self.offer(g);
        }
        self.classes.extend(other.classes);
        self.sinks.extend(other.sinks);
        self.peak_memory = self.peak_memory.max(other.peak_memory);
        self.complete &= other.complete;
        self.collisions += other.collisions;
        if self.error.is_none() {
            self.error = other.error;
        }
    }

    /// The report of `config` these counts make.
    pub fn report(&self, config: Config, source: ReportSource) -> Result<StatsReport, Error> {
        let ambiguity = self
            .ambiguity
            .iter()
            .map(|(&nb_mol, r)| AmbiguityRow {
                nb_mol,
                spectra_up_to_symmetry: r[0],
                spectra: r[1],
                molecules: r[2],
            })
            .collect();
        let largest = self.top.iter().map(|g| g.group.clone()).collect();
        let mut records = Vec::new();
        for (&(kind, measure, _), &(value, number)) in RECORDS.iter().zip(&self.tally.records) {
            if number == u64::MAX {
                continue;
            }
            let m = unrank(config, number)?;
            records.push(RecordReport::new(kind, measure, value, number, &m));
        }
        Ok(StatsReport::assemble_ranked(
            config,
            source,
            ambiguity,
            largest,
            self.by_difference.iter().map(|(&d, &n)| (d, n)).collect(),
            records,
        ))
    }
}

/// The largest resident memory of this process so far, in bytes (0 where the
/// system does not say).
pub fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(n: usize, apart: usize, c: u64) -> TopGroup {
        TopGroup {
            group: GroupReport {
                atoms_apart: apart,
                spectrum: String::new(),
                numbers: (0..n as u64).collect(),
            },
            canonical_number: c,
        }
    }

    #[test]
    fn the_largest_groups_keep_the_report_order_whoever_offers_them() {
        let groups: Vec<TopGroup> = (0..40)
            .map(|i| group(2 + i % 5, i % 3, 1000 - i as u64))
            .collect();
        let mut sorted = groups.clone();
        sorted.sort_by(|a, b| a.order(b));
        sorted.truncate(LARGEST_GROUPS);
        let mut one = Summary::default();
        for g in &groups {
            one.offer(g.clone());
        }
        assert_eq!(one.top, sorted);
        let (mut a, mut b) = (Summary::default(), Summary::default());
        for (i, g) in groups.iter().enumerate() {
            if i % 2 == 0 { &mut a } else { &mut b }.offer(g.clone());
        }
        b.merge(a);
        assert_eq!(b.top, sorted);
    }

    #[test]
    fn tallies_keep_the_lowest_number_at_the_record() {
        let mut a = Tally::default();
        a.add(50, 8, [3, 1, 0, 0, 0, 0]);
        a.add(40, 8, [3, 0, 0, 0, 0, 0]);
        let mut b = Tally::default();
        b.add(30, 4, [2, 1, 0, 0, 0, 0]);
        b.merge(&a);
        assert_eq!(b.records[0], (3, 40));
        assert_eq!(b.records[1], (1, 30));
        assert_eq!((b.traced, b.molecules), (3, 20));
    }

    #[test]
    fn a_molecule_below_every_record_is_counted_without_its_values() {
        let mut t = Tally::default();
        t.add(40, 8, [3, 9, 2, 5, 4, 7]);
        t.add_bounded(50, 8, (1, 4), || unreachable!("no record within reach"));
        assert_eq!((t.traced, t.molecules), (2, 16));
        assert_eq!(t.records[2], (2, 40));
        // Within reach of one (a tie, at a lower number): asked.
        t.add_bounded(10, 1, (3, 5), || [3, 5, 0, 0, 0, 0]);
        assert_eq!(t.records[0], (3, 10));
        assert_eq!(t.records[1], (9, 40));
        assert_eq!((t.traced, t.molecules), (3, 17));
    }
}
