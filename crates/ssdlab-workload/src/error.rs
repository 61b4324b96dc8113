//! One error type for the whole library. Every variant carries enough context
//! (file, line, field) for a user to find and fix the bad input.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration value is missing, unknown or impossible.
    #[error("config error in {origin}: {field}: {msg}")]
    Config {
        origin: String,
        field: String,
        msg: String,
    },
    /// A trace or profile record could not be parsed.
    #[error("{}:{line}: field `{field}`: {msg}", path.display())]
    Parse {
        path: PathBuf,
        line: u64,
        field: String,
        msg: String,
    },
    /// The cause is part of the message (not a separate `source`), so that
    /// it is printed once.
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// Invalid argument from the caller (command line, API).
    #[error("{0}")]
    Invalid(String),
    /// The consistency checker found the model in an impossible state.
    #[error("consistency check failed: {0}")]
    Consistency(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn config(
        origin: impl Into<String>,
        field: impl Into<String>,
        msg: impl Into<String>,
    ) -> Self {
        Error::Config {
            origin: origin.into(),
            field: field.into(),
            msg: msg.into(),
        }
    }
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            cause,
        }
    }
}
