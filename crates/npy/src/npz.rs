//! `.npz` archives: zip files holding one `.npy` file per array.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

use ovir_tensor::Tensor;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::error::{io_at, stream, NpyError};
use crate::file::write_atomically;
use crate::npy::{read_unsized, Plan};

/// Reads every array of the archive at `path`, in archive order; no
/// array's data may be larger than `limit` bytes.
pub(crate) fn read(path: &Path, limit: u64) -> Result<Vec<(String, Tensor)>, NpyError> {
    let file = File::open(path).map_err(io_at(path))?;
    read_archive(BufReader::new(file), limit).map_err(|(e, array)| e.in_file(path, array.as_deref()))
}

/// Reads every array of an archive held in memory, in archive order.
pub(crate) fn read_bytes(bytes: &[u8], limit: u64) -> Result<Vec<(String, Tensor)>, NpyError> {
    read_archive(Cursor::new(bytes), limit).map_err(|(e, array)| match array {
        Some(array) => NpyError::InArray { array, error: Box::new(e) },
        None => e,
    })
}

/// An error, with the name of the array it concerns when there is one.
type ArchiveError = (NpyError, Option<String>);

/// The arrays of an archive; an error comes with the array it concerns.
///
/// A compressed entry can inflate a thousandfold, so its size is checked
/// against `limit` before it is read; reading never keeps more than that
/// size, whatever the entry's data really holds.
fn read_archive<R: Read + Seek>(reader: R, limit: u64) -> Result<Vec<(String, Tensor)>, ArchiveError> {
    let whole = |e: NpyError| (e, None);
    let mut archive = ZipArchive::new(reader).map_err(NpyError::from).map_err(whole)?;
    let mut arrays = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(NpyError::from).map_err(whole)?;
        let full_name = entry.name().map_err(NpyError::from).map_err(whole)?.into_owned();
        let not_npy =
            || NpyError::BadArchive { reason: format!("the entry '{full_name}' is not a .npy file") };
        if entry.is_dir() {
            return Err(whole(not_npy()));
        }
        let name = full_name.strip_suffix(".npy").ok_or_else(not_npy).map_err(whole)?;
        let announced = entry.size();
        if announced > limit {
            let e = NpyError::OverLimit { size: announced, limit };
            return Err((e, Some(name.to_owned())));
        }
        let tensor = read_unsized(&mut entry, announced).map_err(|e| (e, Some(name.to_owned())))?;
        arrays.push((name.to_owned(), tensor));
    }
    Ok(arrays)
}

/// Writes `entries` as an uncompressed archive at `path`, as `np.savez`
/// does.
pub(crate) fn write(entries: &[(String, Tensor)], path: &Path) -> Result<(), NpyError> {
    let mut seen = HashSet::new();
    for (name, _) in entries {
        if !seen.insert(name.as_str()) {
            return Err(NpyError::DuplicateName { name: name.clone() }.in_file(path, None));
        }
    }
    let plans = entries
        .iter()
        .map(|(name, tensor)| Plan::new(tensor).map_err(|e| e.in_file(path, Some(name))))
        .collect::<Result<Vec<_>, _>>()?;
    write_atomically(path, |file| {
        let mut out = Fused::new(BufWriter::new(file));
        let mut zip = ZipWriter::new(&mut out);
        for ((name, tensor), plan) in entries.iter().zip(&plans) {
            // Zip64 extensions are only needed, and only written, for
            // entries of 4 GiB or more.
            let options = SimpleFileOptions::default()
                .compression_method(CompressionMethod::Stored)
                .large_file(plan.total_len() >= u64::from(u32::MAX));
            zip.start_file(format!("{name}.npy"), options)?;
            plan.write(tensor, &mut zip)?;
        }
        zip.finish()?.flush().map_err(stream)
    })
}

/// A writer that fails once: after its first error it takes and discards
/// everything. A `ZipWriter` dropped unfinished, as it is on every error
/// path, finalises the archive and prints to standard error when that
/// fails; through this writer the finalising succeeds, into nothing, and
/// only the first error reaches the caller. The temporary file it wrote
/// to is dropped anyway.
///
/// It keeps the position and the length the stream would have had, so
/// that the seeks of the finalising (whose positions the zip writer checks
/// against each other) stay consistent.
struct Fused<W> {
    inner: W,
    failed: bool,
    pos: u64,
    len: u64,
}

impl<W> Fused<W> {
    fn new(inner: W) -> Self {
        Fused { inner, failed: false, pos: 0, len: 0 }
    }

    /// `result`, noting an error.
    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        self.failed |= result.is_err();
        result
    }

    /// Moves the position by `n` bytes written.
    fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n as u64);
        self.len = self.len.max(self.pos);
    }
}

impl<W: Write> Write for Fused<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = if self.failed { Ok(buf.len()) } else { self.inner.write(buf) };
        let n = self.note(result)?;
        self.advance(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.note(result)
    }
}

impl<W: Seek> Seek for Fused<W> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let result = if self.failed {
            let (base, delta) = match to {
                SeekFrom::Start(n) => (n, 0),
                SeekFrom::Current(d) => (self.pos, d),
                SeekFrom::End(d) => (self.len, d),
            };
            base.checked_add_signed(delta).ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))
        } else {
            self.inner.seek(to)
        };
        self.pos = self.note(result)?;
        self.len = self.len.max(self.pos);
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose every call fails after `room` bytes, as a full disk
    /// does.
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Seek for Full {
        fn seek(&mut self, _: SeekFrom) -> io::Result<u64> {
            Err(io::Error::from(io::ErrorKind::StorageFull))
        }
    }

    #[test]
    fn after_its_first_error_a_fused_writer_takes_everything() {
        let mut out = Fused::new(Full { room: 3 });
        assert_eq!(out.write(b"abcd").unwrap(), 3);
        assert_eq!(out.write(b"d").unwrap_err().kind(), io::ErrorKind::StorageFull);
        assert_eq!(out.write(b"efgh").unwrap(), 4);
        out.flush().unwrap();
        // Positions stay those of a stream that took every byte.
        assert_eq!(out.stream_position().unwrap(), 7);
        assert_eq!(out.seek(SeekFrom::Start(1)).unwrap(), 1);
        assert_eq!(out.seek(SeekFrom::End(-2)).unwrap(), 5);
        assert_eq!(out.seek(SeekFrom::Current(1)).unwrap(), 6);
        let mut out = Fused::new(Full { room: 3 });
        assert!(out.seek(SeekFrom::Start(0)).is_err());
        out.write_all(b"anything").unwrap();
    }

    #[test]
    fn arrays_larger_than_the_limit_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.npz");
        let t = Tensor::from_vec(&[250], vec![1.0f32; 250]).unwrap();
        write(&[("x".to_string(), t.clone())], &path).unwrap();
        let err = read(&path, 500).unwrap_err();
        assert!(matches!(err.cause(), NpyError::OverLimit { limit: 500, .. }), "{err}");
        assert!(err.to_string().contains("array 'x'"), "{err}");
        let bytes = std::fs::read(&path).unwrap();
        let err = read_bytes(&bytes, 500).unwrap_err();
        assert!(err.to_string().starts_with("array 'x': the array takes"), "{err}");
        assert_eq!(read_bytes(&bytes, 2000).unwrap(), vec![("x".to_string(), t)]);
    }
}
