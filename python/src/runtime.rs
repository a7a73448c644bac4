//! The module's tokio runtime, on which the engine's futures run.

use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tokio::runtime::Runtime;

/// The module's tokio runtime, built on first use and kept for the life of the process.
static RUNTIME: Mutex<Option<&'static Runtime>> = Mutex::new(None);

/// The runtime the engine's futures run on (pyo3-async-runtimes spawns them there too).
pub(crate) fn runtime() -> PyResult<&'static Runtime> {
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = *slot {
        return Ok(rt);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("crawlgate")
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the tokio runtime: {e}")))?;
    let rt: &'static Runtime = Box::leak(Box::new(rt));
    // Only this module initialises pyo3-async-runtimes (its state is this library's own), and
    // only here, under the lock: it cannot have a runtime yet. Were it to, its own would be
    // used for everything, so that the engine and its futures share one.
    let rt = match pyo3_async_runtimes::tokio::init_with_runtime(rt) {
        Ok(()) => rt,
        Err(()) => pyo3_async_runtimes::tokio::get_runtime(),
    };
    *slot = Some(rt);
    Ok(rt)
}
