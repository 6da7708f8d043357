//! Memory-mapped weights, an opt-in: the one place where this crate uses
//! `unsafe`.
//!
//! A memory map shows the file as it is now, not as it was when it was
//! opened. If another process writes to the file or truncates it while the
//! map is alive, the bytes that `Const` values borrow change under them, or
//! reading them stops the process with a bus error: undefined behaviour
//! that no check in safe code can rule out. So reading a file into memory
//! is the default, and mapping is only done for a caller who promises, by
//! calling an `unsafe fn`, that the file stays unchanged.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::path::Path;

use memmap2::Mmap;

use crate::weights::Weights;

/// How the reader gets the bytes of a weights file: read into memory (the
/// default, [`WeightsAccess::read`]), or memory-mapped
/// ([`WeightsAccess::map`], whose safety contract the caller takes on).
///
/// Mapping saves copying the bytes and lets pages load on demand, which
/// pays off for weights of many gigabytes; for small weights reading costs
/// about the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WeightsAccess {
    map: bool,
}

impl WeightsAccess {
    /// Read the weights file into memory.
    pub const fn read() -> WeightsAccess {
        WeightsAccess { map: false }
    }

    /// Memory-map the weights file.
    ///
    /// # Safety
    ///
    /// The caller promises that no process writes to or truncates the
    /// weights file while the model read with this choice, or any tensor
    /// taken from it, is alive. The bytes of `Const` values are borrowed
    /// from the map, and a change to the file changes them under the model
    /// or, for a truncated file, ends the process when they are read.
    pub const unsafe fn map() -> WeightsAccess {
        WeightsAccess { map: true }
    }

    /// `true` when this choice maps the file.
    pub const fn is_map(self) -> bool {
        self.map
    }

    /// Opens a weights file as this choice says.
    pub(crate) fn open(self, path: &Path) -> io::Result<Weights> {
        if !self.map {
            return Weights::open(path);
        }
        // SAFETY: a mapping choice is only made by `WeightsAccess::map`,
        // whose caller promised what `Weights::map` needs.
        unsafe { Weights::map(path) }
    }
}

impl Weights {
    /// Maps a weights file into memory instead of reading it.
    ///
    /// An empty file is not mapped (mapping it fails on some systems and
    /// gains nothing), so its weights are not [`is_mapped`](Weights::is_mapped).
    ///
    /// # Safety
    ///
    /// The caller promises that no process writes to or truncates the file
    /// while these weights, or any tensor borrowing from them, are alive:
    /// the map shows the file as it is at each read, and reading a part
    /// that was truncated away ends the process with a bus error on most
    /// systems. [`Weights::open`] reads the file instead and has no such
    /// contract.
    pub unsafe fn map(path: &Path) -> io::Result<Weights> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(Weights::from_bytes(Vec::new()));
        }
        // SAFETY: the map is read-only and only ever read through `&[u8]`;
        // that the file does not change while the map lives is this
        // function's contract, which its caller accepted.
        let map = unsafe { Mmap::map(&file)? };
        Ok(Weights::from_map(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_shows_the_file_and_is_an_explicit_choice() {
        let dir = std::env::temp_dir().join(format!("ovir-ir-mmap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mapped.bin");
        std::fs::write(&path, [1u8, 2, 3]).unwrap();

        assert_eq!(WeightsAccess::default(), WeightsAccess::read());
        let read = WeightsAccess::read().open(&path).unwrap();
        assert!(!read.is_mapped());
        // SAFETY: nothing writes to the file while the weights are alive.
        let access = unsafe { WeightsAccess::map() };
        assert!(access.is_map());
        let mapped = access.open(&path).unwrap();
        assert!(mapped.is_mapped());
        assert_eq!(mapped.as_ref(), read.as_ref());
        drop(mapped);

        std::fs::write(&path, []).unwrap();
        let empty = access.open(&path).unwrap();
        assert!(empty.is_empty() && !empty.is_mapped());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(access.open(&path).unwrap_err().kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir(&dir).unwrap();
    }
}
