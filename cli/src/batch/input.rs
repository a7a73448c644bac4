//! `crawlgate batch`'s inputs, each read as a stream of captures (or stretches that could not be
//! read): WARC and WARC.gz by the library's reader, JSON Lines, Parquet and Arrow IPC rows of
//! `url`, `status`, `body`, and plain files.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use crawlgate::batch::{rows, Capture, Place, Unreadable, WarcReader};

use crate::args::BatchInput;
use crate::progress::Progress;

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

/// The bytes of the inputs (on disk, as the progress line counts them).
pub fn size(inputs: &[Input]) -> u64 {
    inputs
        .iter()
        .filter_map(|i| std::fs::metadata(&i.path).ok())
        .map(|m| m.len())
        .sum()
}

/// A file that moves the progress line by what is read from it.
struct Counted {
    file: File,
    progress: Progress,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.progress.read(n as u64);
        Ok(n)
    }
}

impl std::io::Seek for Counted {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(to)
    }
}

/// The items of `input`, its bytes counted on `progress` as they are read. An input that
/// cannot be opened is one unreadable item.
pub fn open(
    input: &Input,
    reading: &Reading,
    progress: &Progress,
) -> Box<dyn Iterator<Item = Item> + Send> {
    let name: Arc<str> = Arc::from(input.path.to_string_lossy().as_ref());
    let file = match File::open(&input.path) {
        Ok(f) => f,
        Err(e) => {
            let u = unreadable(&name, 1, format!("cannot open: {e}"));
            return Box::new(std::iter::once(Err(u)));
        }
    };
    let progress = progress.clone();
    match input.kind {
        BatchInput::Parquet => {
            // Parquet is read by its footer's offsets, not as a stream: counted whole when done.
            let size = file.metadata().map_or(0, |m| m.len());
            let done = std::iter::once_with(move || {
                progress.read(size);
                None
            })
            .flatten();
            Box::new(rows(parquet(file), name, reading.max_bytes).chain(done))
        }
        kind => {
            let file = Counted { file, progress };
            match kind {
                BatchInput::Jsonl => Box::new(jsonl(file, name, reading.max_bytes)),
                BatchInput::Arrow => rows(arrow_ipc(file), name, reading.max_bytes),
                BatchInput::File => {
                    Box::new(std::iter::once(plain(file, &input.path, name, reading)))
                }
                _ => Box::new(WarcReader::new(file, &name, reading.max_bytes)),
            }
        }
    }
}

fn plain(file: impl Read, path: &Path, name: Arc<str>, reading: &Reading) -> Item {
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

fn jsonl(
    file: impl Read + Send,
    name: Arc<str>,
    max_bytes: usize,
) -> impl Iterator<Item = Item> + Send {
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
        match rows::capture_of_json(&line, max_bytes, &place(&name, number)) {
            Ok(None) => continue,
            Ok(Some(capture)) => return Some(Ok(capture)),
            Err(u) => return Some(Err(u)),
        }
    })
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>> + Send>;

fn parquet(file: File) -> Result<Batches, String> {
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(1024).build())
        .map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|b| b.map_err(|e| e.to_string()))))
}

fn arrow_ipc(file: impl Read + std::io::Seek + Send + 'static) -> Result<Batches, String> {
    let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None)
        .map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|b| b.map_err(|e| e.to_string()))))
}

/// Rows of record batches as captures (the library's input schema).
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
                    rows::capture_of_row(&batch, i, max_bytes, &place(&name, record))
                })
                .collect(),
        };
        items
    }))
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
