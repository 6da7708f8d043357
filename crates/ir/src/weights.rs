//! The `.bin` weights file: memory-mapped, or bytes already in memory.

use std::fmt;
use std::fs::File;
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
    /// Maps a weights file into memory.
    ///
    /// The file must not be modified or truncated while the model is in use:
    /// the mapped bytes would change under the model (on some systems,
    /// reading a truncated part stops the process). Use
    /// [`Weights::from_bytes`] with the file's contents when that cannot be
    /// promised.
    pub fn open(path: &Path) -> io::Result<Weights> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            // Mapping an empty file fails on some systems and gains nothing.
            return Ok(Weights::from_bytes(Vec::new()));
        }
        Ok(Weights { storage: Storage::Mapped(map_read_only(&file)?) })
    }

    /// Weights held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Weights {
        Weights { storage: Storage::Owned(bytes) }
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

/// The one place where the crate maps a file.
#[allow(unsafe_code)]
fn map_read_only(file: &File) -> io::Result<Mmap> {
    // SAFETY: the map is read-only and only ever read through `&[u8]`.
    // Undefined behaviour is possible only if another process changes or
    // truncates the file while it is mapped; a weights file is not written
    // while a model reads it, and `Weights::open` documents the requirement
    // (the same trade-off as every mmap-based file reader).
    unsafe { Mmap::map(file) }
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
    fn maps_a_file_and_reads_its_bytes() {
        let path = std::env::temp_dir().join(format!("ovir-ir-weights-{}.bin", std::process::id()));
        std::fs::write(&path, [1u8, 2, 3]).unwrap();
        let w = Weights::open(&path).unwrap();
        assert!(w.is_mapped());
        assert_eq!(w.as_ref(), &[1, 2, 3]);
        std::fs::remove_file(&path).unwrap();

        std::fs::write(&path, []).unwrap();
        let w = Weights::open(&path).unwrap();
        assert!(w.is_empty());
        std::fs::remove_file(&path).unwrap();
    }
}
