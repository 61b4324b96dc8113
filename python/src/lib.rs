//! `ssdlab._native`: the simulator's jobs for the Python package
//! (`python/ssdlab/__init__.py` wraps them). Every call releases the GIL
//! while it simulates; errors become `ssdlab.SsdlabError` carrying the same
//! file/line/field message as the command line. Ctrl-C (Python's signal
//! handlers) is looked for while a call runs: a run returns its result so
//! far, marked partial; anything else raises the KeyboardInterrupt.

use std::path::PathBuf;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use ssdlab_cli::api;

pyo3::create_exception!(_native, SsdlabError, PyException);

fn error(e: anyhow::Error) -> PyErr {
    if api::is_interrupted(&e) {
        // the KeyboardInterrupt that stopped it, raised again
        return take_pending()
            .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err(format!("{e:#}")));
    }
    SsdlabError::new_err(format!("{e:#}"))
}

/// The exception Python's signal handler raised while a native call ran
/// (KeyboardInterrupt, usually): the call stops, and raises it again if it
/// has no partial result to return.
static PENDING: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);

fn take_pending() -> Option<PyErr> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The interrupt hook of the native calls: Python's pending signals, run
/// by their handlers (on the main thread; elsewhere this finds none).
fn python_interrupted() -> bool {
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            *PENDING.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
            true
        }
    })
}

/// Before a native call: no interrupt yet.
fn fresh() {
    api::clear_interrupt();
    take_pending();
}

/// Run one simulation; returns the JSON `{"result": …, "latency_cdf": […]}`.
#[pyfunction]
#[pyo3(signature = (*, preset=None, config=None, scheme=None, conventions=None, sets=Vec::new(), workload=None,
                    trace=None, trace_format=None, profile=None, precondition=None, seed=None,
                    limit=None, save_state=None, load_state=None, flows=Vec::new(), alone=false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    preset: Option<String>,
    config: Option<PathBuf>,
    scheme: Option<String>,
    conventions: Option<String>,
    sets: Vec<String>,
    workload: Option<String>,
    trace: Option<PathBuf>,
    trace_format: Option<String>,
    profile: Option<PathBuf>,
    precondition: Option<String>,
    seed: Option<u64>,
    limit: Option<u64>,
    save_state: Option<PathBuf>,
    load_state: Option<PathBuf>,
    flows: Vec<String>,
    alone: bool,
) -> PyResult<String> {
    let req = api::RunRequest {
        preset,
        config,
        scheme,
        conventions,
        sets,
        workload,
        trace,
        trace_format,
        profile,
        precondition,
        save_state,
        load_state,
        seed,
        limit,
        flows,
        alone,
    };
    fresh();
    // Ctrl-C stops the run where it is: the result so far comes back,
    // marked partial (`Result.partial`).
    let result = py.detach(|| api::run(&req)).map_err(error);
    take_pending();
    result
}

/// Run the sweep `spec` into `out` (or one shard `I/N` of it), reusing the
/// runs saved under the `merge` directories; `seeds` replaces the spec's.
#[pyfunction]
#[pyo3(signature = (spec, out, *, jobs=None, shard=None, merge=Vec::new(), seeds=None))]
fn sweep(
    py: Python<'_>,
    spec: PathBuf,
    out: PathBuf,
    jobs: Option<usize>,
    shard: Option<String>,
    merge: Vec<PathBuf>,
    seeds: Option<u64>,
) -> PyResult<()> {
    fresh();
    let result = py
        .detach(|| api::sweep(&spec, &out, jobs, shard.as_deref(), merge, seeds))
        .map_err(error);
    take_pending();
    result
}

/// A sweep spec given as JSON, as TOML text.
#[pyfunction]
fn spec_toml(json: &str) -> PyResult<String> {
    api::spec_toml(json).map_err(error)
}

/// The runs of a sweep (with `seeds` replacing the spec's): (index, file,
/// label).
#[pyfunction]
#[pyo3(signature = (spec, *, seeds=None))]
fn sweep_runs(
    py: Python<'_>,
    spec: PathBuf,
    seeds: Option<u64>,
) -> PyResult<Vec<(usize, String, String)>> {
    py.detach(|| api::sweep_runs(&spec, seeds)).map_err(error)
}

/// Schemes `a` and `b` of the sweep results `dir` compared, as the JSON
/// `ssdlab compare --json` writes.
#[pyfunction]
fn compare(py: Python<'_>, dir: PathBuf, a: String, b: String) -> PyResult<String> {
    py.detach(|| api::compare(&dir, &a, &b)).map_err(error)
}

/// Built-in drives as JSON.
#[pyfunction]
fn presets() -> PyResult<String> {
    api::presets().map_err(error)
}

/// Registered schemes as JSON.
#[pyfunction]
fn schemes() -> PyResult<String> {
    api::schemes().map_err(error)
}

/// Built-in workloads as JSON.
#[pyfunction]
fn workloads() -> PyResult<String> {
    api::workloads().map_err(error)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Ctrl-C stays Python's KeyboardInterrupt, seen by the native calls.
    api::leave_signals_alone();
    api::set_interrupt_hook(python_interrupted);
    m.add("SsdlabError", m.py().get_type::<SsdlabError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_runs, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(spec_toml, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    Ok(())
}
