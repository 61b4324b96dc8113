//! SIGINT and SIGTERM: the first asks the work in progress to stop where it
//! is and keep what it has (a run writes its partial result; a sweep or a
//! reproduction keeps its finished runs for `--resume`); a second one ends
//! the process at once (every output is written atomically, so nothing is
//! left half-written either way).

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Never install the handler in this process (an embedding program, such
/// as a Python interpreter, handles its signals itself).
pub fn disable() {
    DISABLED.store(true, Ordering::SeqCst);
}

/// Install the handler (once per process; later calls do nothing).
pub fn install() {
    if DISABLED.load(Ordering::SeqCst) {
        return;
    }
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // A process that cannot install it (a handler already set by an
        // embedding program) runs on without: interrupts then end it.
        let _ = ctrlc::set_handler(|| {
            if REQUESTED.swap(true, Ordering::SeqCst) {
                eprintln!("\nsecond interrupt: stopping now");
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: stopping and keeping the work done (again to stop at once)");
        });
    });
}

/// Has an interrupt been received?
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// The observer of a run: stop at an interrupt.
pub fn control() -> ssdlab::Control {
    if requested() {
        ssdlab::Control::Stop
    } else {
        ssdlab::Control::Continue
    }
}
