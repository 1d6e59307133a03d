//! The census's unit of data: one traced orbit in 16 bytes.
//!
//! A record is `(key, payload)`: the 64-bit [`key`](super::canonical::key) of
//! the orbit's canonical spectrum, and a payload holding the number of the
//! orbit's canonical molecule, the size of its orbit and the size of its
//! spectrum's stabiliser. Records travel between workers by key and are
//! sorted by key to find spectra that several orbits share.
//!
//! ```
//! use bbx::census::record::{pack, number, orbit_size, spectrum_stabilizer};
//! let p = pack(868, 8, 2);
//! assert_eq!((number(p), orbit_size(p), spectrum_stabilizer(p)), (868, 8, 2));
//! ```

/// One traced orbit: `(key, payload)`.
pub type Record = (u64, u64);

/// Bytes of a record on disk.
pub const RECORD_BYTES: usize = 16;

/// The largest molecule number a payload holds.
pub const MAX_NUMBER: u64 = (1 << 58) - 1;

/// The payload of the orbit of molecule `number`, with `orbit_size` members
/// (1, 2, 4 or 8) and a spectrum fixed by `stabilizer` symmetries (1, 2, 4 or 8).
#[inline]
pub fn pack(number: u64, orbit_size: u8, stabilizer: u8) -> u64 {
    debug_assert!(number <= MAX_NUMBER);
    number << 6 | (orbit_size.trailing_zeros() as u64) << 2 | stabilizer.trailing_zeros() as u64
}

/// The molecule number of a payload.
#[inline]
pub fn number(payload: u64) -> u64 {
    payload >> 6
}

/// The orbit size of a payload.
#[inline]
pub fn orbit_size(payload: u64) -> u8 {
    1 << ((payload >> 2) & 3)
}

/// The spectrum's stabiliser size of a payload.
#[inline]
pub fn spectrum_stabilizer(payload: u64) -> u8 {
    1 << (payload & 3)
}

/// Writes records as little-endian bytes.
pub fn encode(records: &[Record], out: &mut Vec<u8>) {
    out.reserve(records.len() * RECORD_BYTES);
    for &(k, p) in records {
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&p.to_le_bytes());
    }
}

/// Reads records written by [`encode`] (a trailing partial record is ignored).
pub fn decode(bytes: &[u8]) -> Vec<Record> {
    bytes
        .chunks_exact(RECORD_BYTES)
        .map(|c| {
            let mut k = [0u8; 8];
            let mut p = [0u8; 8];
            k.copy_from_slice(&c[..8]);
            p.copy_from_slice(&c[8..]);
            (u64::from_le_bytes(k), u64::from_le_bytes(p))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for n in [1, 2, 868, MAX_NUMBER] {
            for o in [1u8, 2, 4, 8] {
                for s in [1u8, 2, 4, 8] {
                    let p = pack(n, o, s);
                    assert_eq!(
                        (number(p), orbit_size(p), spectrum_stabilizer(p)),
                        (n, o, s)
                    );
                }
            }
        }
        let recs = vec![(1, 2), (u64::MAX, 7)];
        let mut bytes = Vec::new();
        encode(&recs, &mut bytes);
        bytes.push(0);
        assert_eq!(decode(&bytes), recs);
    }
}
