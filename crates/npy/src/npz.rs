//! `.npz` archives: zip files holding one `.npy` file per array.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use ovir_tensor::Tensor;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::error::{io_at, stream, NpyError};
use crate::file::write_atomically;
use crate::npy::{read_unsized, Plan};

/// Reads every array of the archive at `path`, in archive order.
pub(crate) fn read(path: &Path) -> Result<Vec<(String, Tensor)>, NpyError> {
    let file = File::open(path).map_err(io_at(path))?;
    let mut archive =
        ZipArchive::new(BufReader::new(file)).map_err(NpyError::from).map_err(locate(path, None))?;
    let mut arrays = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(NpyError::from).map_err(locate(path, None))?;
        let full_name = entry.name().map_err(NpyError::from).map_err(locate(path, None))?.into_owned();
        let not_npy =
            || NpyError::BadArchive { reason: format!("the entry '{full_name}' is not a .npy file") };
        if entry.is_dir() {
            return Err(not_npy().in_file(path, None));
        }
        let name = full_name.strip_suffix(".npy").ok_or_else(not_npy).map_err(locate(path, None))?;
        let announced = entry.size();
        let tensor = read_unsized(&mut entry, announced).map_err(locate(path, Some(name)))?;
        arrays.push((name.to_owned(), tensor));
    }
    Ok(arrays)
}

/// Attaches the archive and the array to an error.
fn locate<'a>(path: &'a Path, array: Option<&'a str>) -> impl Fn(NpyError) -> NpyError + 'a {
    move |e| e.in_file(path, array)
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
