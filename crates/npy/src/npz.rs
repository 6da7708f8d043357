//! `.npz` archives: zip files holding one `.npy` file per array.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, Write};
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
        let mut zip = ZipWriter::new(BufWriter::new(file));
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

#[cfg(test)]
mod tests {
    use super::*;

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
