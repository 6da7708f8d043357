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
    let mut tmp = builder.tempfile_in(dir).map_err(io_at(path))?;
    write(tmp.as_file_mut()).map_err(|e| e.in_file(path, None))?;
    tmp.as_file().sync_all().map_err(io_at(path))?;
    tmp.persist(path).map_err(|e| io_at(path)(e.error))?;
    Ok(())
}
