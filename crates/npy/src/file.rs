//! Replacing a file as a whole: the new content goes to a temporary file
//! next to it, which is renamed over the target only once it is complete.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::error::{io_at, NpyError};

/// Writes `path` through `write`, so that readers see either the old file
/// or the complete new one, never a partial one.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), NpyError>,
) -> Result<(), NpyError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io_at(path)(io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file"))
    })?;
    // A shortened name keeps the temporary name within file name limits
    // while still showing what it belongs to, should it ever be left over.
    let stem: String = name.to_string_lossy().chars().take(64).collect();
    let prefix = format!(".{stem}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Temporary files are private by default; the result should get
        // the permissions any newly created file would (0666 less umask).
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| io_at(path)(without_temporary_name(dir, e)))?;
    write(tmp.as_file_mut()).map_err(|e| e.in_file(path, None))?;
    tmp.as_file().sync_all().map_err(io_at(path))?;
    tmp.persist(path).map_err(|e| io_at(path)(e.error))?;
    Ok(())
}

/// The error of creating the temporary file, told about the target's
/// folder: the temporary file's name is an internal detail, yet the
/// error that creating it gives ends with ` at path "…/.x.npz.Bl6KSv.tmp"`.
fn without_temporary_name(dir: &Path, error: io::Error) -> io::Error {
    // The usual cause is a folder that is missing or is not a folder;
    // asking the folder itself gives the system's own words for it.
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            io::Error::new(e.kind(), format!("the folder {} does not exist", dir.display()))
        }
        Err(e) => io::Error::new(e.kind(), format!("the folder {} cannot be used: {e}", dir.display())),
        Ok(meta) if !meta.is_dir() => {
            io::Error::new(io::ErrorKind::NotADirectory, format!("{} is not a folder", dir.display()))
        }
        Ok(_) => {
            let text = error.to_string();
            let reason = text.split_once(" at path ").map_or(text.as_str(), |(reason, _)| reason);
            io::Error::new(error.kind(), format!("cannot create a file in {}: {reason}", dir.display()))
        }
    }
}
