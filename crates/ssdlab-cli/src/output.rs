//! Output files of every command, all written by one function,
//! [`ssdlab::workload::output::OutputFile`]: a new or regular file
//! atomically (a temporary file in its directory, renamed over it when
//! complete, removed if the work fails or is interrupted), a character
//! device or a FIFO in place (never replaced), a directory, a block device
//! or a socket refused. Outputs are checked before a run starts (a missing
//! or read-only directory, a name too long, a path that cannot be written
//! is refused at once, not after an hour of simulation); an output
//! directory is locked by the command writing it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use ssdlab::workload::output::{self as out, OutputFile};

/// Can an output be written at `path`? `what` names the option (`--json`).
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    out::check(path).map_err(|e| anyhow::anyhow!("{what} {e}"))
}

/// A directory for a command's outputs: created if missing (with its
/// parents), checked to take files, and locked for this command (hold the
/// lock while writing it).
pub fn check_out_dir(dir: &Path, what: &str) -> Result<DirLock> {
    if dir.exists() && !dir.is_dir() {
        bail!("{what} {}: not a directory", dir.display());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{what} {}: cannot create it", dir.display()))?;
    check_writable(&dir.join(".ssdlab-probe"), what)?;
    lock_dir(dir, what)
}

/// Write `bytes` to `path` (see the module documentation).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OutputFile::create(path)?;
    f.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    f.finish()?;
    Ok(())
}

/// A file written as a stream (the request log): an [`OutputFile`].
pub type AtomicFile = OutputFile;

/// Start writing the stream `path`.
pub fn create(path: &Path) -> Result<AtomicFile> {
    Ok(OutputFile::create(path)?)
}

/// An output directory held by this process: an exclusive lock
/// (`flock(2)`) on its `.ssdlab-lock` file, released when dropped (or when
/// the process ends), so that two commands never write one directory at
/// once.
pub struct DirLock {
    _file: std::fs::File,
}

/// Lock `dir` (which exists) for this command, or refuse if another holds
/// it. `what` names the option (`--out`).
pub fn lock_dir(dir: &Path, what: &str) -> Result<DirLock> {
    let path: PathBuf = dir.join(".ssdlab-lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("{what} {}: cannot create its lock file", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor this function owns.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                bail!(
                    "{what} {}: another ssdlab command is writing this directory now (it holds {}); \
                     wait for it to end, or give another --out",
                    dir.display(),
                    path.display()
                );
            }
            return Err(e).with_context(|| format!("{what} {}: cannot lock it", dir.display()));
        }
    }
    Ok(DirLock { _file: file })
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
        let long = "x".repeat(300) + ".json";
        let e = check_writable(&dir.path().join(long), "--json").unwrap_err();
        assert!(e.to_string().contains("305 bytes long"), "{e}");
        // Nothing left behind by the checks.
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
        let mut f = create(&q).unwrap();
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
        // Unfinished: nothing changes, nothing is left.
        let mut f = create(&p).unwrap();
        f.write_all(b"third").unwrap();
        drop(f);
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_file_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        std::fs::remove_file(&real).unwrap();
        let e = write_atomic(&link, b"x").unwrap_err();
        assert!(e.to_string().contains("link to nothing"), "{e}");
    }

    #[test]
    fn a_second_lock_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_dir(dir.path(), "--out").unwrap();
        let e = lock_dir(dir.path(), "--out").err().expect("refused");
        assert!(e.to_string().contains("another ssdlab command"), "{e}");
        drop(first);
        lock_dir(dir.path(), "--out").unwrap();
    }
}
