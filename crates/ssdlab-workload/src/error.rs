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
    /// The work stopped for an interrupt ([`crate::interrupt`]); the
    /// message says where it was.
    #[error("interrupted {0}")]
    Interrupted(String),
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
    /// An I/O error about `path`; a read stopped by an interrupt
    /// ([`crate::interrupt::io_error`]) becomes [`Error::Interrupted`].
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Self {
        let path = path.into();
        if crate::interrupt::is_io_stop(&cause) {
            return Error::Interrupted(format!("while reading {}", path.display()));
        }
        Error::Io { path, cause }
    }

    /// Did the work stop for an interrupt?
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Error::Interrupted(_))
    }
}

/// "; did you mean `x`?" when one of `known` is close to `name` (a typo, a
/// letter case, a separator), or nothing; for the end of an "unknown …"
/// message. Close means a normalised Damerau-Levenshtein similarity of at
/// least 0.7 after lower-casing, or one name containing the other.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let lower = name.to_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for k in known {
        let kl = k.to_lowercase();
        let mut score = strsim::normalized_damerau_levenshtein(&lower, &kl);
        if lower.len() >= 3 && (kl.contains(&lower) || lower.contains(&kl)) {
            score = score.max(0.7);
        }
        if score >= 0.7 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, k));
        }
    }
    match best {
        Some((_, k)) if k != name => format!("; did you mean `{k}`?"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggestions() {
        let known = ["spd-512g", "small", "pa-tlc", "dvp-proto"];
        assert_eq!(did_you_mean("spd512g", known), "; did you mean `spd-512g`?");
        assert_eq!(did_you_mean("SMALL", known), "; did you mean `small`?");
        assert_eq!(did_you_mean("patlc", known), "; did you mean `pa-tlc`?");
        assert_eq!(did_you_mean("xyz", known), "");
        assert_eq!(
            did_you_mean("hm_0", ["spd/hm_0", "spd/prn_0"]),
            "; did you mean `spd/hm_0`?"
        );
    }
}
