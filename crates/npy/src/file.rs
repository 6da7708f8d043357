//! Replacing files as a whole, one or several at once: each new file is
//! written in full beside its target first, and only once every one of
//! them is complete are they moved into place.
//!
//! On Linux the new content goes to an unnamed file (`O_TMPFILE`), which
//! the system removes by itself if the process dies before it is given a
//! name, so a run killed while writing leaves nothing behind. It gets a
//! name (a hidden `.NAME.XXXXXX.tmp` beside the target) only when every
//! file is complete, and is renamed over the target right after. Where
//! unnamed files are not available (other systems, or file systems without
//! them), the content goes to such a named temporary file from the start;
//! a process killed while writing then leaves it behind. Either way the
//! target itself is never seen half-written, and a leftover is recognised
//! by its leading dot and `.tmp` suffix.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::{io_at, NpyError};

/// The content of one target, complete and flushed to disk, but not yet
/// in its place.
pub(crate) struct Staged {
    target: PathBuf,
    temp: Temp,
}

enum Temp {
    /// A file without a name, which disappears with its last descriptor.
    #[cfg(target_os = "linux")]
    Unnamed(File),
    /// A hidden temporary file beside the target, removed when dropped.
    Named(NamedTempFile),
}

/// Writes `path` through `write`, so that readers see either the old file
/// or the complete new one, never a partial one.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), NpyError>,
) -> Result<(), NpyError> {
    commit(vec![stage(path, write)?])
}

/// The folder a target lives in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The start of the hidden temporary names beside `path`,
/// `.NAME.XXXXXX.tmp`.
fn temp_prefix(path: &Path) -> Result<String, NpyError> {
    let name = path.file_name().ok_or_else(|| {
        io_at(path)(io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file"))
    })?;
    // A shortened name keeps the temporary name within file name limits
    // while still showing what it belongs to, should it ever be left over.
    let stem: String = name.to_string_lossy().chars().take(64).collect();
    Ok(format!(".{stem}."))
}

/// Writes the new content of `path` through `write` into a temporary file
/// beside it, and flushes it to disk; `path` itself is not touched.
/// Dropping the result, on any error, leaves the folder as it was.
pub(crate) fn stage(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), NpyError>,
) -> Result<Staged, NpyError> {
    let dir = folder_of(path);
    let prefix = temp_prefix(path)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(target_os = "linux")]
    let unnamed = unnamed_file(dir);
    #[cfg(not(target_os = "linux"))]
    let unnamed: Option<File> = None;
    let mut temp = match unnamed {
        #[cfg(target_os = "linux")]
        Some(file) => Temp::Unnamed(file),
        _ => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                // Temporary files are private by default; the result should
                // get the permissions any newly created file would (0666
                // less umask).
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let file = builder.tempfile_in(dir).map_err(|e| io_at(path)(without_temporary_name(dir, e)))?;
            Temp::Named(file)
        }
    };
    let file = match &mut temp {
        #[cfg(target_os = "linux")]
        Temp::Unnamed(file) => file,
        Temp::Named(named) => named.as_file_mut(),
    };
    write(file).map_err(|e| e.in_file(path, None))?;
    file.sync_all().map_err(io_at(path))?;
    Ok(Staged { target: path.to_path_buf(), temp })
}

/// Moves every staged file into its place. Each first gets its temporary
/// name (unnamed files are linked into the folder), so that a failure
/// there leaves every target as it was; then each is renamed over its
/// target. A folder in the place of any target is refused before the
/// first rename; a rename can still fail part-way for reasons the system
/// only gives at that moment (permissions changing under it), which would
/// leave the targets before it replaced.
pub(crate) fn commit(staged: Vec<Staged>) -> Result<(), NpyError> {
    // A folder in the way of any target fails its rename; refused before
    // the first one, so that no target is replaced without the others.
    if let Some(folder) = staged.iter().find(|s| s.target.is_dir()) {
        let err = io::Error::new(io::ErrorKind::IsADirectory, "it is a folder");
        return Err(io_at(&folder.target)(err));
    }
    let mut named = Vec::with_capacity(staged.len());
    for Staged { target, temp } in staged {
        let path = match temp {
            #[cfg(target_os = "linux")]
            Temp::Unnamed(file) => link(&file, &target)?.into_temp_path(),
            Temp::Named(file) => file.into_temp_path(),
        };
        named.push((target, path));
    }
    for (target, path) in named {
        path.persist(&target).map_err(|e| io_at(&target)(e.error))?;
    }
    Ok(())
}

/// A file without a name in `dir`, open for writing, with the permissions
/// a newly created file gets; `None` where the system or the file system
/// has no such files, or `/proc` is not there to give it a name later.
#[cfg(target_os = "linux")]
fn unnamed_file(dir: &Path) -> Option<File> {
    use rustix::fs::{Mode, OFlags, CWD};
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
    rustix::fs::openat(CWD, dir, flags, Mode::from_raw_mode(0o666)).ok().map(File::from)
}

/// Gives an unnamed file a hidden temporary name beside `target`.
#[cfg(target_os = "linux")]
fn link(file: &File, target: &Path) -> Result<NamedTempFile<()>, NpyError> {
    use rustix::fs::{AtFlags, CWD};
    use std::os::fd::AsRawFd;
    // Linking the descriptor itself (`AT_EMPTY_PATH`) needs a privilege;
    // following its `/proc` link does not.
    let source = format!("/proc/self/fd/{}", file.as_raw_fd());
    let prefix = temp_prefix(target)?;
    let linked = tempfile::Builder::new().prefix(&prefix).suffix(".tmp").make_in(folder_of(target), |name| {
        rustix::fs::linkat(CWD, source.as_str(), CWD, name, AtFlags::SYMLINK_FOLLOW).map_err(io::Error::from)
    });
    linked.map_err(io_at(target))
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
