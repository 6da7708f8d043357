//! The `.bin` weights file: bytes read into memory, or a memory map of
//! the file when the caller opts in (see the `mmap` module).

use std::fmt;
use std::io;
use std::path::Path;

use memmap2::Mmap;

enum Storage {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// The bytes of a weights (`.bin`) file.
///
/// `Const` values borrow their bytes from it without copying, so it is
/// shared behind an `Arc` and lives as long as any of them.
pub struct Weights {
    storage: Storage,
}

impl Weights {
    /// Reads a weights file into memory.
    ///
    /// The bytes are the model's own from then on, whatever happens to the
    /// file. [`Weights::map`] maps the file instead, for callers who can
    /// promise that nobody changes it while the model is in use.
    pub fn open(path: &Path) -> io::Result<Weights> {
        Ok(Weights::from_bytes(std::fs::read(path)?))
    }

    /// Weights held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Weights {
        Weights { storage: Storage::Owned(bytes) }
    }

    /// Weights that are a memory map of a file.
    pub(crate) fn from_map(map: Mmap) -> Weights {
        Weights { storage: Storage::Mapped(map) }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.as_ref().len()
    }

    /// `true` when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `true` when the bytes are a memory map of a file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }
}

impl AsRef<[u8]> for Weights {
    fn as_ref(&self) -> &[u8] {
        match &self.storage {
            Storage::Mapped(m) => m,
            Storage::Owned(v) => v,
        }
    }
}

impl fmt::Debug for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Weights").field("len", &self.len()).field("mapped", &self.is_mapped()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_reads_the_file_into_memory() {
        let dir = std::env::temp_dir().join(format!("ovir-ir-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("read.bin");
        std::fs::write(&path, [1u8, 2, 3]).unwrap();
        let w = Weights::open(&path).unwrap();
        assert!(!w.is_mapped());
        // The bytes stay the model's own when the file changes.
        std::fs::write(&path, [9u8]).unwrap();
        assert_eq!(w.as_ref(), &[1, 2, 3]);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(Weights::open(&path).unwrap_err().kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir(&dir).unwrap();
    }
}
