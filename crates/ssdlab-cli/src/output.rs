//! Output files: checked before a run starts (a missing or read-only
//! directory is refused at once, not after an hour of simulation), and
//! written atomically (a temporary file in the same directory, then a
//! rename), so that a crash or an interruption never leaves a truncated
//! JSON or CSV behind.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The directory a file `path` goes to (`.` for a bare file name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Can a file be written at `path`? Its directory must exist and take a new
/// file (tried with a temporary one, removed at once); `path` itself must
/// not be a directory.
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    let dir = parent(path);
    if !dir.is_dir() {
        bail!(
            "{what} {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    if path.is_dir() {
        bail!("{what} {}: is a directory", path.display());
    }
    let probe = tempfile::NamedTempFile::new_in(&dir).with_context(|| {
        format!(
            "{what} {}: cannot write in directory {}",
            path.display(),
            dir.display()
        )
    })?;
    drop(probe);
    Ok(())
}

/// A directory for a run's outputs: created if missing (with its parents),
/// and checked to take files.
pub fn check_out_dir(dir: &Path, what: &str) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{what} {}: cannot create it", dir.display()))?;
    check_writable(&dir.join("probe"), what)
}

/// A temporary file in `dir` that becomes an output: readable by all, as a
/// file created the usual way would be (tempfile makes 0600 files).
fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut b = tempfile::Builder::new();
    b.prefix(".ssdlab-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o644));
    }
    b.tempfile_in(dir)
}

/// Write `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed, then renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent(path);
    let mut tmp = temp_in(&dir).with_context(|| {
        format!(
            "writing {}: cannot create a file in {}",
            path.display(),
            dir.display()
        )
    })?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.flush())
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// A file written as a stream and put in place atomically: a temporary
/// file in the target's directory until [`finish`](Self::finish) renames
/// it; dropped unfinished (an error, an interrupt), it is removed.
pub struct AtomicFile {
    path: PathBuf,
    writer: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let dir = parent(path);
        let tmp = temp_in(&dir).with_context(|| {
            format!(
                "writing {}: cannot create a file in {}",
                path.display(),
                dir.display()
            )
        })?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            writer: std::io::BufWriter::with_capacity(1 << 20, tmp),
        })
    }

    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let tmp = self
            .writer
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("writing {}", path.display()))?;
        tmp.persist(&path)
            .map_err(|e| e.error)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_file_directories_are_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_writable(&dir.path().join("no/such/out.json"), "--json").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check_writable(dir.path(), "--json").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        check_writable(&dir.path().join("out.json"), "--json").unwrap();
        // Nothing left behind by the check.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn outputs_are_readable_by_all() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"{}").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
        let q = dir.path().join("log.csv");
        let mut f = AtomicFile::create(&q).unwrap();
        f.write_all(b"x\n").unwrap();
        f.finish().unwrap();
        assert_eq!(
            std::fs::metadata(&q).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }

    #[test]
    fn atomic_writes_replace_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
