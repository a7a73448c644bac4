//! `crawlgate.batch`'s native half: captures of robots.txt judged into the `captures`,
//! `agents` and `rules` tables (the library's `crawlgate::batch`), Arrow in and Arrow out over
//! the Arrow C data interface (the PyCapsule protocol), with the GIL released while judging;
//! and WARC files read into record batches of the input schema.

use std::fs::File;
use std::path::PathBuf;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use crawlgate::audit::Purpose;
use crawlgate::batch::{rows, Settings, Tables, WarcReader};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::{PyRecordBatch, PySchema};

use crate::input;
use crate::robots::load_catalogue;

fn arrow_error(e: ArrowError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// What a call asks, read from its arguments as `crawlgate batch` reads its options.
fn settings(
    agents: Vec<String>,
    purposes: Vec<String>,
    paths: Vec<String>,
    mode: &str,
    rules: bool,
    catalogue: Option<PathBuf>,
    max_bytes: Option<usize>,
) -> PyResult<Settings> {
    let catalogue = load_catalogue(catalogue.as_deref())?;
    let mut names = Vec::new();
    let mut unknown = Vec::new();
    for a in agents.iter().filter(|a| !a.trim().is_empty()) {
        match catalogue.find(a) {
            Some(c) => names.push(c.name.clone()),
            None => unknown.push(format!("{a:?}")),
        }
    }
    if !unknown.is_empty() {
        return Err(PyValueError::new_err(format!(
            "agents: not in the catalogue: {}",
            unknown.join(", ")
        )));
    }
    let purposes = purposes
        .iter()
        .map(|p| {
            Purpose::from_name(p).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "purposes: {p:?} is not training, search, agent or other"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Settings {
        options: input::options(input::mode(mode)?, max_bytes, true),
        catalogue,
        agents: names,
        purposes,
        paths,
        rules,
    })
}

fn export(py: Python<'_>, batch: RecordBatch) -> PyResult<Bound<'_, PyAny>> {
    PyRecordBatch::new(batch).into_pyarrow(py)
}

/// Judges the captures of `data` (anything that exports Arrow record batches: a
/// `pyarrow.RecordBatch`, `Table` or `RecordBatchReader`, a polars or DuckDB result) into
/// `(captures, agents, rules)` as `pyarrow.RecordBatch`es.
#[pyfunction]
#[pyo3(name = "batch_evaluate", signature = (data, *, agents = Vec::new(), purposes = Vec::new(), paths = Vec::new(), mode = "rfc", rules = false, catalogue = None, max_bytes = None, input = "rows"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate<'py>(
    py: Python<'py>,
    data: AnyRecordBatch,
    agents: Vec<String>,
    purposes: Vec<String>,
    paths: Vec<String>,
    mode: &str,
    rules: bool,
    catalogue: Option<PathBuf>,
    max_bytes: Option<usize>,
    input: &str,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let settings = settings(agents, purposes, paths, mode, rules, catalogue, max_bytes)?;
    let reader = data.into_reader()?;
    // Everything below reads Arrow buffers in place and builds new ones: no Python object is
    // touched, so other Python threads run meanwhile.
    let tables = py.detach(move || {
        let batches = reader.collect::<Result<Vec<RecordBatch>, ArrowError>>()?;
        rows::evaluate(&batches, &settings, input)
    });
    let tables = tables.map_err(arrow_error)?;
    Ok((
        export(py, tables.captures)?,
        export(py, tables.agents)?,
        export(py, tables.rules)?,
    ))
}

/// The schemas: `input` (what `read_warc` yields and `evaluate` reads), `captures`, `agents`
/// and `rules`, as `pyarrow.Schema`s.
#[pyfunction]
#[pyo3(name = "batch_schemas")]
pub(crate) fn schemas(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let mut all: Vec<(&str, SchemaRef)> = vec![("input", rows::schema())];
    all.extend(Tables::schemas());
    for (name, schema) in all {
        d.set_item(name, PySchema::new(schema).into_pyarrow(py)?)?;
    }
    Ok(d)
}

/// The response records of a WARC or WARC.gz file as record batches of the input schema, at
/// most `rows` captures each; what cannot be read is a row with `error` set, and the reading
/// goes on. The file is read as the batches are asked for, with the GIL released.
#[pyclass(name = "WarcBatches", module = "crawlgate._crawlgate")]
pub(crate) struct PyWarcBatches {
    reader: Option<WarcReader<File>>,
    rows: usize,
}

#[pymethods]
impl PyWarcBatches {
    #[new]
    #[pyo3(signature = (path, *, rows = 4096, max_bytes = None, name = None))]
    fn new(
        path: PathBuf,
        rows: usize,
        max_bytes: Option<usize>,
        name: Option<String>,
    ) -> PyResult<Self> {
        if rows == 0 {
            return Err(PyValueError::new_err("rows must be at least 1"));
        }
        let file = File::open(&path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let name = name.unwrap_or_else(|| path.to_string_lossy().into_owned());
        let max = max_bytes
            .unwrap_or(crawlgate::DEFAULT_MAX_BYTES)
            .max(crawlgate::DEFAULT_MAX_BYTES);
        Ok(PyWarcBatches {
            reader: Some(WarcReader::new(file, &name, max)),
            rows,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        let rows = self.rows;
        let items: Vec<_> = py.detach(|| reader.by_ref().take(rows).collect());
        if items.len() < rows {
            self.reader = None;
        }
        if items.is_empty() {
            return Ok(None);
        }
        let batch = rows::to_batch(&items).map_err(arrow_error)?;
        Ok(Some(export(py, batch)?))
    }
}
