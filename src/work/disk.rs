//! Where a work directory's files are written: the disk itself, or, for
//! tests of a full disk, one that fills up after a number of bytes.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The disk a work directory's files are written to: the real one, or a
/// fake one that fills up after a number of bytes (the
/// `fail-writes-after` fault). The fake disk behaves as a real one does:
/// space is taken by 4 KiB blocks, so a short write into a file's last
/// block still succeeds when the disk is full, and a write that needs more
/// blocks than are free writes what fits, then fails with
/// [`std::io::ErrorKind::StorageFull`].
#[derive(Debug, Clone, Default)]
pub struct Disk {
    left: Option<Arc<AtomicU64>>,
}

/// The fake disk's block.
const BLOCK: u64 = 4096;

impl Disk {
    /// The disk itself.
    pub fn real() -> Disk {
        Disk::default()
    }

    /// A disk with `bytes` more bytes free, shared by every clone.
    pub fn filling_after(bytes: u64) -> Disk {
        Disk {
            left: Some(Arc::new(AtomicU64::new(bytes / BLOCK * BLOCK))),
        }
    }

    /// The real disk, or the fake one of a `fail-writes-after` fault of
    /// `bytes`.
    pub fn of_fault(bytes: Option<u64>) -> Disk {
        bytes.map_or_else(Disk::real, Disk::filling_after)
    }

    /// Writes all of `bytes` to `file` at its current position, which is
    /// `at`, or as much as fits and then fails as a full disk does.
    pub fn write_all(&self, file: &mut File, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        let Some(left) = &self.left else {
            return file.write_all(bytes);
        };
        let allocated = file.metadata()?.len().div_ceil(BLOCK) * BLOCK;
        let end = at + bytes.len() as u64;
        let need = (end.div_ceil(BLOCK) * BLOCK).saturating_sub(allocated);
        let granted = match left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
            Some(l - l.min(need))
        }) {
            Ok(before) | Err(before) => before.min(need),
        };
        if granted == need {
            return file.write_all(bytes);
        }
        let fits = (allocated + granted)
            .saturating_sub(at)
            .min(bytes.len() as u64);
        file.write_all(&bytes[..fits as usize])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "No space left on device (a full disk faked by the fail-writes-after fault)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_fake_disk_fails_as_a_real_one_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut file = File::create(&path).unwrap();
        let disk = Disk::filling_after(2 * BLOCK);
        disk.write_all(&mut file, 0, &[1; 100]).unwrap();
        // Within the block already taken: no new space needed.
        disk.write_all(&mut file, 100, &[2; 3000]).unwrap();
        // Crosses into the second block, then past it: what fits is written.
        let e = disk.write_all(&mut file, 3100, &[3; 6000]).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * BLOCK);
        // Full: a short write into the last block's slack would still pass,
        // but this one needs a block.
        assert!(disk.write_all(&mut file, 2 * BLOCK, &[4; 1]).is_err());
    }
}
