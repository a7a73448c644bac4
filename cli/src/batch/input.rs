//! `crawlgate batch`'s inputs, each read as a stream of captures (or stretches that could not be
//! read): WARC and WARC.gz by the library's reader, JSON Lines, Parquet and Arrow IPC rows of
//! `url`, `status`, `body`, and plain files.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, UInt16Type, UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use base64::Engine as _;
use crawlgate::batch::{Capture, Place, Unreadable, WarcReader};
use serde::Deserialize;

use crate::args::BatchInput;

/// One item of an input.
pub type Item = Result<Capture, Unreadable>;

/// An input and how to read it.
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub kind: BatchInput,
}

/// The inputs named: files as they are, directories' files (sorted, not recursive into
/// hidden entries), with their kinds decided.
pub fn expand(paths: &[PathBuf], kind: BatchInput) -> Vec<Input> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = walk(path);
            files.sort();
            out.extend(files.into_iter().map(|p| Input {
                kind: if kind == BatchInput::Auto {
                    BatchInput::File
                } else {
                    kind
                },
                path: p,
            }));
        } else {
            out.push(Input {
                kind: if kind == BatchInput::Auto {
                    sniff(path)
                } else {
                    kind
                },
                path: path.clone(),
            });
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Read again by `open`, which reports the error as a row.
        return vec![dir.to_path_buf()];
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The kind of a file: by its name, else by its first bytes.
fn sniff(path: &Path) -> BatchInput {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let by_name = [
        (".warc", BatchInput::Warc),
        (".warc.gz", BatchInput::Warc),
        (".jsonl", BatchInput::Jsonl),
        (".ndjson", BatchInput::Jsonl),
        (".parquet", BatchInput::Parquet),
        (".arrow", BatchInput::Arrow),
        (".feather", BatchInput::Arrow),
        (".ipc", BatchInput::Arrow),
    ];
    if let Some((_, kind)) = by_name.iter().find(|(ext, _)| name.ends_with(ext)) {
        return *kind;
    }
    let mut head = [0u8; 8];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(b"WARC/") || head.starts_with(&[0x1f, 0x8b]) {
        BatchInput::Warc
    } else if head.starts_with(b"PAR1") {
        BatchInput::Parquet
    } else if head.starts_with(b"ARROW1") {
        BatchInput::Arrow
    } else {
        BatchInput::File
    }
}

/// How a run reads inputs.
pub struct Reading {
    /// The parsing limit: bodies are kept up to it plus one byte.
    pub max_bytes: usize,
    /// `--url-template`.
    pub url_template: String,
}

fn place(input: &Arc<str>, record: u64) -> Place {
    Place {
        input: input.clone(),
        record,
        offset: None,
        crawl: None,
    }
}

fn unreadable(input: &Arc<str>, record: u64, reason: String) -> Unreadable {
    Unreadable {
        place: place(input, record),
        reason,
    }
}

/// The items of `input`. An input that cannot be opened is one unreadable item.
pub fn open(input: &Input, reading: &Reading) -> Box<dyn Iterator<Item = Item> + Send> {
    let name: Arc<str> = Arc::from(input.path.to_string_lossy().as_ref());
    let file = match File::open(&input.path) {
        Ok(f) => f,
        Err(e) => {
            let u = unreadable(&name, 1, format!("cannot open: {e}"));
            return Box::new(std::iter::once(Err(u)));
        }
    };
    match input.kind {
        BatchInput::Warc | BatchInput::Auto => {
            Box::new(WarcReader::new(file, &name, reading.max_bytes))
        }
        BatchInput::Jsonl => Box::new(jsonl(file, name, reading.max_bytes)),
        BatchInput::Parquet => rows(parquet(file), name, reading.max_bytes),
        BatchInput::Arrow => rows(arrow_ipc(file), name, reading.max_bytes),
        BatchInput::File => Box::new(std::iter::once(plain(file, &input.path, name, reading))),
    }
}

fn plain(file: File, path: &Path, name: Arc<str>, reading: &Reading) -> Item {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let url = reading.url_template.replace("{name}", &file_name);
    let mut body = Vec::new();
    let mut limited = file.take(reading.max_bytes as u64 + 1);
    if let Err(e) = limited.read_to_end(&mut body) {
        return Err(unreadable(&name, 1, format!("cannot read: {e}")));
    }
    let rest = std::io::copy(&mut limited.into_inner(), &mut std::io::sink()).unwrap_or(0);
    let mut capture = Capture::new(&url, Some(200), body);
    capture.body_length += rest;
    capture.place = place(&name, 1);
    Ok(capture)
}

/// A JSON Lines row.
#[derive(Deserialize)]
struct Row {
    url: String,
    status: Option<u16>,
    /// The body in standard base64.
    body: Option<String>,
    /// The body as text, when it is UTF-8.
    body_text: Option<String>,
    fetch_time: Option<String>,
    content_type: Option<String>,
    location: Option<String>,
}

fn jsonl(file: File, name: Arc<str>, max_bytes: usize) -> impl Iterator<Item = Item> + Send {
    let mut lines = BufReader::new(file).split(b'\n');
    let mut number = 0u64;
    std::iter::from_fn(move || loop {
        let line = lines.next()?;
        number += 1;
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                return Some(Err(unreadable(
                    &name,
                    number,
                    format!("line {number}: {e}"),
                )))
            }
        };
        if line.trim_ascii().is_empty() {
            continue;
        }
        let row: Row = match serde_json::from_slice(&line) {
            Ok(r) => r,
            Err(e) => {
                return Some(Err(unreadable(
                    &name,
                    number,
                    format!("line {number}: {e}"),
                )))
            }
        };
        let body = match (&row.body, row.body_text) {
            (Some(b64), _) => match base64::engine::general_purpose::STANDARD.decode(b64.trim()) {
                Ok(b) => b,
                Err(e) => {
                    let why = format!("line {number}: `body` is not base64: {e}");
                    return Some(Err(unreadable(&name, number, why)));
                }
            },
            (None, Some(text)) => text.into_bytes(),
            (None, None) => Vec::new(),
        };
        let mut capture = Capture::new(&row.url, row.status, body);
        capture.body.truncate(max_bytes + 1);
        capture.fetch_time = row.fetch_time;
        capture.content_type = row.content_type;
        capture.location = row.location;
        capture.place = place(&name, number);
        return Some(Ok(capture));
    })
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>> + Send>;

fn parquet(file: File) -> Result<Batches, String> {
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(1024).build())
        .map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|b| b.map_err(|e| e.to_string()))))
}

fn arrow_ipc(file: File) -> Result<Batches, String> {
    let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None)
        .map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|b| b.map_err(|e| e.to_string()))))
}

/// Rows of record batches as captures: `url` (text), `status` (an integer), `body` (binary or
/// text), optional `fetch_time`, `content_type`, `location` (text).
fn rows(
    batches: Result<Batches, String>,
    name: Arc<str>,
    max_bytes: usize,
) -> Box<dyn Iterator<Item = Item> + Send> {
    let batches = match batches {
        Ok(b) => b,
        Err(e) => return Box::new(std::iter::once(Err(unreadable(&name, 1, e)))),
    };
    let mut record = 0u64;
    Box::new(batches.flat_map(move |batch| {
        let items: Vec<Item> = match batch {
            Err(e) => {
                record += 1;
                vec![Err(unreadable(&name, record, e))]
            }
            Ok(batch) => (0..batch.num_rows())
                .map(|i| {
                    record += 1;
                    row(&batch, i, max_bytes)
                        .map(|mut c| {
                            c.place = place(&name, record);
                            c
                        })
                        .map_err(|e| unreadable(&name, record, format!("row {record}: {e}")))
                })
                .collect(),
        };
        items
    }))
}

fn text(batch: &RecordBatch, column: &str, i: usize) -> Result<Option<String>, String> {
    let Some(a) = batch.column_by_name(column) else {
        return Ok(None);
    };
    if a.is_null(i) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(i).to_owned(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).to_owned(),
        DataType::Utf8View => a.as_string_view().value(i).to_owned(),
        other => return Err(format!("`{column}` is {other}, not text")),
    }))
}

fn row(batch: &RecordBatch, i: usize, max_bytes: usize) -> Result<Capture, String> {
    let url = text(batch, "url", i)?.ok_or("no `url`")?;
    let status = match batch.column_by_name("status") {
        None => return Err("no `status` column".to_owned()),
        Some(a) if a.is_null(i) => None,
        Some(a) => {
            let n: i64 = match a.data_type() {
                DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
                DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
                DataType::Int64 => a.as_primitive::<Int64Type>().value(i),
                DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
                DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
                DataType::UInt64 => {
                    i64::try_from(a.as_primitive::<UInt64Type>().value(i)).unwrap_or(-1)
                }
                other => return Err(format!("`status` is {other}, not an integer")),
            };
            Some(u16::try_from(n).map_err(|_| format!("status {n} is not an HTTP status"))?)
        }
    };
    let body: Vec<u8> = match batch.column_by_name("body") {
        None => Vec::new(),
        Some(a) if a.is_null(i) => Vec::new(),
        Some(a) => {
            let bytes: &[u8] = match a.data_type() {
                DataType::Binary => a.as_binary::<i32>().value(i),
                DataType::LargeBinary => a.as_binary::<i64>().value(i),
                DataType::BinaryView => a.as_binary_view().value(i),
                DataType::Utf8 => a.as_string::<i32>().value(i).as_bytes(),
                DataType::LargeUtf8 => a.as_string::<i64>().value(i).as_bytes(),
                DataType::Utf8View => a.as_string_view().value(i).as_bytes(),
                other => return Err(format!("`body` is {other}, not bytes")),
            };
            let kept = bytes[..bytes.len().min(max_bytes + 1)].to_vec();
            let mut c = Capture::new(&url, status, kept);
            c.body_length = bytes.len() as u64;
            c.fetch_time = text(batch, "fetch_time", i)?;
            c.content_type = text(batch, "content_type", i)?;
            c.location = text(batch, "location", i)?;
            return Ok(c);
        }
    };
    let mut c = Capture::new(&url, status, body);
    c.fetch_time = text(batch, "fetch_time", i)?;
    c.content_type = text(batch, "content_type", i)?;
    c.location = text(batch, "location", i)?;
    Ok(c)
}

/// `--files-from`: one input a line (blank lines skipped).
pub fn files_from(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        Box::new(BufReader::new(File::open(path)?))
    };
    let mut out = Vec::new();
    for line in reader.lines() {
        let line = line?;
        let line = line.trim();
        if !line.is_empty() {
            out.push(PathBuf::from(line));
        }
    }
    Ok(out)
}
