//! A process-wide request to stop: set by a front end when the user
//! interrupts (SIGINT, SIGTERM, Python's KeyboardInterrupt), and looked at
//! by everything that may take long or block: trace reads (also while
//! waiting on a pipe that sends nothing), the simulator's event loop,
//! preconditioning, hashing.
//!
//! What stops returns [`Error::Interrupted`](crate::Error::Interrupted) (a
//! read, a preconditioning) or ends where it is and says so (a run's report
//! is then marked partial). Nothing here handles signals: the command line
//! sets the request from its signal handler; an embedding program may
//! instead give a [poll hook](set_poll_hook) that tells whether its own
//! interrupt came (Python: `PyErr_CheckSignals`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static HOOK: OnceLock<fn() -> bool> = OnceLock::new();
/// When the hook was last asked, ms since [`EPOCH`].
static LAST_POLL_MS: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Longest wait between two looks at the request while blocked (a read
/// of a pipe that sends nothing), and shortest between two calls of the
/// poll hook.
pub const POLL_MS: u64 = 50;

/// Ask everything under way to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Forget a request (an embedding program, before its next call).
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// Has a stop been asked for? (One atomic load; does not call the hook.)
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Set, once per process, a function that says whether the embedding
/// program was interrupted; [`poll`] calls it at most every [`POLL_MS`].
/// Later calls do nothing.
pub fn set_poll_hook(hook: fn() -> bool) {
    let _ = HOOK.set(hook);
}

/// Has a stop been asked for, by [`request`] or by the poll hook (asked
/// at most every [`POLL_MS`])? Cheap enough for every few thousand steps
/// of a loop.
pub fn poll() -> bool {
    if requested() {
        return true;
    }
    let Some(hook) = HOOK.get() else {
        return false;
    };
    let now = EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + POLL_MS;
    let last = LAST_POLL_MS.load(Ordering::Relaxed);
    if now < last + POLL_MS
        || LAST_POLL_MS
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
    {
        return false;
    }
    if hook() {
        request();
        return true;
    }
    false
}

/// The payload of the I/O error a read returns when it stops for an
/// interrupt ([`io_error`]); [`Error::io`](crate::Error::io) turns such an
/// error into [`Error::Interrupted`](crate::Error::Interrupted).
#[derive(Debug)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Stopped {}

/// The I/O error of a read stopped by an interrupt.
pub fn io_error() -> std::io::Error {
    std::io::Error::other(Stopped)
}

/// Is `e` a read stopped by an interrupt?
pub fn is_io_stop(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Stopped>())
}
