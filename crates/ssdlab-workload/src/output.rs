//! Output files: every file ssdlab writes (a trace, a result, a table, a
//! page) is written through [`OutputFile`], so that all outputs behave
//! alike:
//!
//! * a path that does not exist, or names a regular file, gets its content
//!   in a temporary file in the same directory that is renamed over it only
//!   once complete: a crash, an error or an interrupt never leaves a
//!   truncated file, and never a temporary one (dropped unfinished it is
//!   removed; a process ended by an interrupt removes it through
//!   [`remove_temporary_files`]);
//! * a symbolic link to a regular file is followed: the file it points to
//!   is replaced, the link stays;
//! * a character device or a FIFO (`/dev/null`, a named pipe, a terminal,
//!   `/dev/stdout` and other links to a descriptor) is written in place,
//!   never replaced: a FIFO is opened once it has a reader (waiting for one
//!   stops at an interrupt);
//! * a directory, a block device, a socket and a link to nothing are
//!   refused.
//!
//! [`check`] tells before the work whether an output can be written there.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// Longest file name most file systems take (`NAME_MAX`), in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// How an output path is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A new file or a regular one (at this path, a link's target resolved):
    /// a temporary file in its directory, renamed over it when complete.
    Replace(PathBuf),
    /// A character device or a FIFO: written in place.
    InPlace,
}

fn refuse(path: &Path, why: &str) -> Error {
    Error::Invalid(format!("{}: {why}", path.display()))
}

/// How `path` would be written, or why it cannot be.
pub fn target(path: &Path) -> Result<Target> {
    if let Some(name) = path.file_name() {
        if name.len() > MAX_NAME_BYTES {
            return Err(refuse(
                path,
                &format!(
                    "the file name is {} bytes long, more than the {MAX_NAME_BYTES} a file system takes",
                    name.len()
                ),
            ));
        }
    }
    let link = std::fs::symlink_metadata(path);
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if link.is_ok() {
                return Err(refuse(
                    path,
                    "is a symbolic link to nothing; give the file it should point to",
                ));
            }
            return Ok(Target::Replace(path.to_path_buf()));
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        let is_link = link.is_ok_and(|m| m.file_type().is_symlink());
        let resolved = if is_link {
            std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?
        } else {
            path.to_path_buf()
        };
        return Ok(Target::Replace(resolved));
    }
    if kind.is_dir() {
        return Err(refuse(path, "is a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Target::InPlace);
        }
        if kind.is_block_device() {
            return Err(refuse(
                path,
                "is a block device; results are written to files, pipes and character devices only",
            ));
        }
        if kind.is_socket() {
            return Err(refuse(
                path,
                "is a socket, which cannot be opened for writing",
            ));
        }
    }
    Err(refuse(path, "is not a file ssdlab can write"))
}

/// The directory a file `path` goes to (`.` for a bare file name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Can an output be written at `path`? Checked before the work, so that a
/// wrong path fails at once, not after an hour of simulation: the kind of
/// file ([`target`]); for a new file, that its directory exists and that a
/// file of exactly that name can be created there (created and removed at
/// once: a name too long or a read-only directory shows here); for an
/// existing regular file, that its directory takes new files (the
/// temporary one).
pub fn check(path: &Path) -> Result<()> {
    match target(path)? {
        Target::InPlace => Ok(()),
        Target::Replace(file) => {
            let dir = parent(&file);
            if !dir.is_dir() {
                return Err(refuse(
                    path,
                    &format!("directory {} does not exist", dir.display()),
                ));
            }
            if file.exists() {
                let probe = temp_in(&dir).map_err(|e| cannot_write_in(path, &dir, e))?;
                drop(probe);
            } else {
                match std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&file)
                {
                    Ok(f) => {
                        drop(f);
                        let _ = std::fs::remove_file(&file);
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(cannot_write_in(path, &dir, e)),
                }
            }
            Ok(())
        }
    }
}

fn cannot_write_in(path: &Path, dir: &Path, e: io::Error) -> Error {
    Error::Invalid(format!(
        "{}: cannot write in directory {}: {e}",
        path.display(),
        dir.display()
    ))
}

/// Temporary files in use, removed by [`remove_temporary_files`] when the
/// process ends at an interrupt (destructors do not run then).
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remove every temporary output file still in use: for a process about to
/// end at an interrupt.
pub fn remove_temporary_files() {
    for p in registry().drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

fn forget(path: &Path) {
    registry().retain(|p| p != path);
}

/// A temporary file in `dir` that becomes an output: readable by all, as a
/// file created the usual way would be (tempfile makes 0600 files).
fn temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut b = tempfile::Builder::new();
    b.prefix(".ssdlab-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o644));
    }
    b.tempfile_in(dir)
}

/// Capacity of an output's buffer.
const BUF_BYTES: usize = 1 << 20;

enum Sink {
    /// Renamed over `to` by [`OutputFile::finish`].
    Temp {
        file: BufWriter<tempfile::NamedTempFile>,
        to: PathBuf,
    },
    InPlace(BufWriter<File>),
}

/// An output being written (see the [module documentation](self)): created
/// with [`create`](Self::create), written through [`Write`], completed by
/// [`finish`](Self::finish). Dropped unfinished, a temporary file is
/// removed and the target is left as it was.
pub struct OutputFile {
    path: PathBuf,
    sink: Option<Sink>,
}

impl OutputFile {
    /// Start writing `path`.
    pub fn create(path: &Path) -> Result<OutputFile> {
        let sink = match target(path)? {
            Target::Replace(to) => {
                let dir = parent(&to);
                let tmp = temp_in(&dir).map_err(|e| cannot_write_in(path, &dir, e))?;
                registry().push(tmp.path().to_path_buf());
                Sink::Temp {
                    file: BufWriter::with_capacity(BUF_BYTES, tmp),
                    to,
                }
            }
            Target::InPlace => {
                Sink::InPlace(BufWriter::with_capacity(BUF_BYTES, open_in_place(path)?))
            }
        };
        Ok(OutputFile {
            path: path.to_path_buf(),
            sink: Some(sink),
        })
    }

    /// The path given to [`create`](Self::create).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush everything, and put a new or regular file in place.
    pub fn finish(mut self) -> Result<()> {
        let path = self.path.clone();
        match self.sink.take().expect("not finished yet") {
            Sink::InPlace(w) => {
                w.into_inner()
                    .map_err(|e| Error::io(&path, e.into_error()))?;
                Ok(())
            }
            Sink::Temp { file, to } => {
                let tmp = file
                    .into_inner()
                    .map_err(|e| Error::io(&path, e.into_error()))?;
                let tmp_path = tmp.path().to_path_buf();
                let result = tmp.persist(&to).map_err(|e| Error::io(&path, e.error));
                forget(&tmp_path);
                result.map(|_| ())
            }
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(Sink::Temp { file, .. }) = &self.sink {
            // the NamedTempFile removes itself
            forget(file.get_ref().path());
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sink.as_mut().expect("not finished") {
            Sink::Temp { file, .. } => file.write(buf),
            Sink::InPlace(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self.sink.as_mut().expect("not finished") {
            Sink::Temp { file, .. } => file.flush(),
            Sink::InPlace(w) => w.flush(),
        }
    }
}

/// Write `bytes` to `path` as an [`OutputFile`].
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = OutputFile::create(path)?;
    out.write_all(bytes).map_err(|e| Error::io(path, e))?;
    out.finish()
}

/// Open a character device or a FIFO for writing, without truncating it. A
/// FIFO without a reader is waited for (as a shell's `>` would), looking
/// for an interrupt every [`POLL_MS`](crate::interrupt::POLL_MS).
fn open_in_place(path: &Path) -> Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        use std::os::unix::io::AsRawFd;
        let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
        loop {
            let mut o = std::fs::OpenOptions::new();
            o.write(true);
            if fifo {
                o.custom_flags(libc::O_NONBLOCK);
            }
            match o.open(path) {
                Ok(f) => {
                    if fifo {
                        // Writes block again (a full pipe waits for its reader).
                        // SAFETY: fcntl on a descriptor this function owns.
                        unsafe {
                            let fd = f.as_raw_fd();
                            let flags = libc::fcntl(fd, libc::F_GETFL);
                            if flags >= 0 {
                                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
                            }
                        }
                    }
                    return Ok(f);
                }
                Err(e) if fifo && e.raw_os_error() == Some(libc::ENXIO) => {
                    if crate::interrupt::poll() {
                        return Err(Error::Interrupted(format!(
                            "while waiting for a reader of the FIFO {}",
                            path.display()
                        )));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(crate::interrupt::POLL_MS));
                }
                Err(e) => return Err(Error::io(path, e)),
            }
        }
    }
    #[cfg(not(unix))]
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))
}
