//! SIGINT and SIGTERM. The handler is installed when the command starts.
//! In a command that stops where it is ([`stop_gracefully`]: `run`,
//! `rerun`, `demo`, sweeps and the reproductions run as batches, the
//! trace tools), the first interrupt
//! asks the work in progress to stop and keep what it has (a run writes
//! its partial result; a sweep or a reproduction keeps its finished runs
//! for `--resume`; a trace conversion removes its unfinished output);
//! a second one ends the process at once. In any other command the first
//! interrupt ends it. Ending the process removes the temporary files of
//! unfinished outputs (every output is written to one and renamed when
//! complete), so nothing is left half-written either way.

use std::sync::atomic::{AtomicBool, Ordering};

use ssdlab::workload::interrupt as flag;

static DISABLED: AtomicBool = AtomicBool::new(false);
static GRACEFUL: AtomicBool = AtomicBool::new(false);

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
            if !GRACEFUL.load(Ordering::SeqCst) || flag::requested() {
                ssdlab::workload::output::remove_temporary_files();
                eprintln!(
                    "\n{}interrupt: stopping now",
                    if flag::requested() { "second " } else { "" }
                );
                std::process::exit(130);
            }
            flag::request();
            eprintln!("\ninterrupt: stopping and keeping the work done (again to stop at once)");
        });
    });
}

/// This command stops where it is at a first interrupt (it looks for one
/// in its loops and reads), keeping what it has.
pub fn stop_gracefully() {
    GRACEFUL.store(true, Ordering::SeqCst);
    install();
}

/// Has an interrupt been received?
pub fn requested() -> bool {
    flag::poll()
}

/// The observer of a run: stop at an interrupt.
pub fn control() -> ssdlab::Control {
    if requested() {
        ssdlab::Control::Stop
    } else {
        ssdlab::Control::Continue
    }
}
