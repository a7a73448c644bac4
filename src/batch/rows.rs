//! Captures as rows: Arrow record batches and JSON Lines of `url`, `status` and `body` (the
//! input schema), read into [`Capture`]s and written back from them.
//!
//! One reading serves every caller: `crawlgate batch`'s Parquet, Arrow IPC and JSON Lines
//! inputs, [`evaluate`] (record batches in, the three tables out), and Python's
//! `crawlgate.batch`. [`to_batch`] writes captures (and unreadable stretches) in the same
//! schema, so a WARC file read into rows and judged from them loses nothing: the optional
//! columns carry what a WARC record says besides the status and the body.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{BinaryBuilder, StringBuilder, UInt16Builder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, UInt16Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::{Batches, Capture, Place, Redirects, Resolution, Settings, Tables, Unreadable};

/// Why a row is not a capture: the reason of its `unreadable` row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// The row has no `url`.
    #[error("no `url`")]
    NoUrl,
    /// The batch has no `status` column.
    #[error("no `status` column")]
    NoStatus,
    /// A column of the wrong type.
    #[error("`{column}` is {found}, not {wanted}")]
    Type {
        /// The column.
        column: &'static str,
        /// Its type.
        found: String,
        /// What it should be.
        wanted: &'static str,
    },
    /// A status outside 0–65535.
    #[error("status {0} is not an HTTP status")]
    Status(i64),
    /// A JSON line that is not an object of the input schema.
    #[error("{0}")]
    Json(String),
    /// A `body` that is not standard base64.
    #[error("`body` is not base64: {0}")]
    Base64(String),
    /// The row records a stretch of input that could not be read (its `error` column).
    #[error("{0}")]
    Recorded(String),
}

/// The input schema, as [`to_batch`] writes it. Only `url` and `status` are required of a
/// batch to read; every other column may be missing, and text columns may be `Utf8`,
/// `LargeUtf8` or `Utf8View`, `body` any binary or text type, `status` any integer type.
pub fn schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(Schema::new(vec![
                Field::new("url", DataType::Utf8, true),
                Field::new("status", DataType::UInt16, true),
                Field::new("body", DataType::Binary, true),
                Field::new("body_length", DataType::UInt64, true),
                Field::new("fetch_time", DataType::Utf8, true),
                Field::new("content_type", DataType::Utf8, true),
                Field::new("location", DataType::Utf8, true),
                Field::new("challenge", DataType::Utf8, true),
                Field::new("truncated", DataType::Utf8, true),
                Field::new("input", DataType::Utf8, true),
                Field::new("record", DataType::UInt64, true),
                Field::new("offset", DataType::UInt64, true),
                Field::new("crawl", DataType::Utf8, true),
                Field::new("error", DataType::Utf8, true),
            ]))
        })
        .clone()
}

/// Captures and unreadable stretches as one record batch of [`schema`]: a capture's body as
/// kept, an unreadable stretch as a row with `error` set and no `url`.
pub fn to_batch(items: &[Result<Capture, Unreadable>]) -> Result<RecordBatch, ArrowError> {
    let n = items.len();
    let mut url = StringBuilder::with_capacity(n, n * 32);
    let mut status = UInt16Builder::with_capacity(n);
    let bytes = items
        .iter()
        .map(|i| i.as_ref().map_or(0, |c| c.body.len()))
        .sum();
    let mut body = BinaryBuilder::with_capacity(n, bytes);
    let mut body_length = UInt64Builder::with_capacity(n);
    let mut texts: [StringBuilder; 5] = Default::default();
    let mut input = StringBuilder::new();
    let mut record = UInt64Builder::with_capacity(n);
    let mut offset = UInt64Builder::with_capacity(n);
    let mut crawl = StringBuilder::new();
    let mut error = StringBuilder::new();
    for item in items {
        let place = match item {
            Ok(c) => {
                url.append_value(&c.url);
                status.append_option(c.status);
                body.append_value(&c.body);
                body_length.append_value(c.body_length);
                for (b, v) in texts.iter_mut().zip([
                    &c.fetch_time,
                    &c.content_type,
                    &c.location,
                    &c.challenge,
                    &c.truncated,
                ]) {
                    b.append_option(v.as_deref());
                }
                error.append_null();
                &c.place
            }
            Err(u) => {
                url.append_null();
                status.append_null();
                body.append_null();
                body_length.append_null();
                for b in &mut texts {
                    b.append_null();
                }
                error.append_value(&u.reason);
                &u.place
            }
        };
        input.append_value(&place.input);
        record.append_value(place.record);
        offset.append_option(place.offset);
        crawl.append_option(place.crawl.as_deref());
    }
    let [fetch_time, content_type, location, challenge, truncated] = texts;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(url.finish()),
        Arc::new(status.finish()),
        Arc::new(body.finish()),
        Arc::new(body_length.finish()),
        Arc::new({ fetch_time }.finish()),
        Arc::new({ content_type }.finish()),
        Arc::new({ location }.finish()),
        Arc::new({ challenge }.finish()),
        Arc::new({ truncated }.finish()),
        Arc::new(input.finish()),
        Arc::new(record.finish()),
        Arc::new(offset.finish()),
        Arc::new(crawl.finish()),
        Arc::new(error.finish()),
    ];
    RecordBatch::try_new(schema(), columns)
}

fn text<'b>(
    batch: &'b RecordBatch,
    column: &'static str,
    i: usize,
) -> Result<Option<&'b str>, RowError> {
    let Some(a) = batch.column_by_name(column) else {
        return Ok(None);
    };
    if a.is_null(i) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(i),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i),
        DataType::Utf8View => a.as_string_view().value(i),
        other => {
            return Err(RowError::Type {
                column,
                found: other.to_string(),
                wanted: "text",
            })
        }
    }))
}

fn integer(batch: &RecordBatch, column: &'static str, i: usize) -> Result<Option<i64>, RowError> {
    let Some(a) = batch.column_by_name(column) else {
        return Ok(None);
    };
    if a.is_null(i) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        // Past i64: no status, offset or record number is that large; -1 is refused below.
        DataType::UInt64 => i64::try_from(a.as_primitive::<UInt64Type>().value(i)).unwrap_or(-1),
        other => {
            return Err(RowError::Type {
                column,
                found: other.to_string(),
                wanted: "an integer",
            })
        }
    }))
}

fn count(batch: &RecordBatch, column: &'static str, i: usize) -> Result<Option<u64>, RowError> {
    integer(batch, column, i)?
        .map(|n| {
            u64::try_from(n).map_err(|_| RowError::Type {
                column,
                found: format!("the negative {n}"),
                wanted: "a count",
            })
        })
        .transpose()
}

/// Row `i` of `batch` as a capture (its body kept up to `max_bytes` plus one byte), or why it
/// is not one. `place` is where the row is; the row's own `input`, `record`, `offset` and
/// `crawl` columns, when set, say where the capture was first read and take precedence.
pub fn capture_of_row(
    batch: &RecordBatch,
    i: usize,
    max_bytes: usize,
    place: &Place,
) -> Result<Capture, Unreadable> {
    let place = row_place(batch, i, place);
    read_row(batch, i, max_bytes, &place).map_err(|e| Unreadable {
        reason: match e {
            RowError::Recorded(why) => why,
            e => format!("row {}: {e}", place.record),
        },
        place,
    })
}

fn row_place(batch: &RecordBatch, i: usize, place: &Place) -> Place {
    let mut place = place.clone();
    if let Ok(Some(input)) = text(batch, "input", i) {
        place.input = Arc::from(input);
    }
    if let Ok(Some(record)) = count(batch, "record", i) {
        place.record = record;
    }
    if let Ok(Some(offset)) = count(batch, "offset", i) {
        place.offset = Some(offset);
    }
    if let Ok(Some(crawl)) = text(batch, "crawl", i) {
        place.crawl = Some(Arc::from(crawl));
    }
    place
}

fn read_row(
    batch: &RecordBatch,
    i: usize,
    max_bytes: usize,
    place: &Place,
) -> Result<Capture, RowError> {
    if let Some(why) = text(batch, "error", i)? {
        return Err(RowError::Recorded(why.to_owned()));
    }
    let url = text(batch, "url", i)?.ok_or(RowError::NoUrl)?;
    if batch.column_by_name("status").is_none() {
        return Err(RowError::NoStatus);
    }
    let status = integer(batch, "status", i)?
        .map(|n| u16::try_from(n).map_err(|_| RowError::Status(n)))
        .transpose()?;
    let bytes: &[u8] = match batch.column_by_name("body") {
        None => &[],
        Some(a) if a.is_null(i) => &[],
        Some(a) => match a.data_type() {
            DataType::Binary => a.as_binary::<i32>().value(i),
            DataType::LargeBinary => a.as_binary::<i64>().value(i),
            DataType::BinaryView => a.as_binary_view().value(i),
            DataType::Utf8 => a.as_string::<i32>().value(i).as_bytes(),
            DataType::LargeUtf8 => a.as_string::<i64>().value(i).as_bytes(),
            DataType::Utf8View => a.as_string_view().value(i).as_bytes(),
            other => {
                return Err(RowError::Type {
                    column: "body",
                    found: other.to_string(),
                    wanted: "bytes",
                })
            }
        },
    };
    let kept = bytes[..bytes.len().min(max_bytes.saturating_add(1))].to_vec();
    let mut c = Capture::new(url, status, kept);
    // A row written from a capture says how long the body was before it was cut.
    c.body_length = count(batch, "body_length", i)?.unwrap_or(bytes.len() as u64);
    let owned = |column| text(batch, column, i).map(|t| t.map(str::to_owned));
    c.fetch_time = owned("fetch_time")?;
    c.content_type = owned("content_type")?;
    c.location = owned("location")?;
    c.challenge = owned("challenge")?;
    c.truncated = owned("truncated")?;
    c.place = place.clone();
    Ok(c)
}

/// A JSON Lines row: the input schema's columns, the body in standard base64 (`body`) or as
/// text (`body_text`).
#[derive(serde::Deserialize)]
struct JsonRow {
    url: String,
    status: Option<u16>,
    body: Option<String>,
    body_text: Option<String>,
    fetch_time: Option<String>,
    content_type: Option<String>,
    location: Option<String>,
}

/// One JSON Lines line as a capture at `place` (its body kept up to `max_bytes` plus one byte);
/// `Ok(None)` for a blank line. The reason of an error names the line (`place.record`).
pub fn capture_of_json(
    line: &[u8],
    max_bytes: usize,
    place: &Place,
) -> Result<Option<Capture>, Unreadable> {
    if line.trim_ascii().is_empty() {
        return Ok(None);
    }
    read_json(line, max_bytes, place)
        .map(Some)
        .map_err(|e| Unreadable {
            reason: format!("line {}: {e}", place.record),
            place: place.clone(),
        })
}

fn read_json(line: &[u8], max_bytes: usize, place: &Place) -> Result<Capture, RowError> {
    use base64::Engine as _;
    let row: JsonRow = serde_json::from_slice(line).map_err(|e| RowError::Json(e.to_string()))?;
    let body = match (&row.body, row.body_text) {
        (Some(b64), _) => base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|e| RowError::Base64(e.to_string()))?,
        (None, Some(text)) => text.into_bytes(),
        (None, None) => Vec::new(),
    };
    let mut capture = Capture::new(&row.url, row.status, body);
    capture.body.truncate(max_bytes.saturating_add(1));
    capture.fetch_time = row.fetch_time;
    capture.content_type = row.content_type;
    capture.location = row.location;
    capture.place = place.clone();
    Ok(capture)
}

/// Record batches of captures (the input schema) judged into the three tables, as
/// `crawlgate batch` judges a file: rows numbered from 1 in `input` (unless the rows say where
/// they were read), a row that is not a capture an `unreadable` row, a redirect judged by its
/// target when the batches hold the target's capture (the first one).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{BinaryArray, RecordBatch, StringArray, UInt16Array};
/// use arrow_schema::{DataType, Field, Schema};
/// use crawlgate::batch::{evaluate, Settings};
///
/// let schema = Schema::new(vec![
///     Field::new("url", DataType::Utf8, false),
///     Field::new("status", DataType::UInt16, true),
///     Field::new("body", DataType::Binary, true),
/// ]);
/// let rows = RecordBatch::try_new(
///     Arc::new(schema),
///     vec![
///         Arc::new(StringArray::from(vec!["https://a.example/robots.txt", "https://b.example/robots.txt"])),
///         Arc::new(UInt16Array::from(vec![Some(200), Some(503)])),
///         Arc::new(BinaryArray::from(vec![&b"User-agent: GPTBot\nDisallow: /\n"[..], b""])),
///     ],
/// )?;
/// let tables = evaluate(&[rows], &Settings::default(), "rows")?;
/// assert_eq!(tables.captures.num_rows(), 2);
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
pub fn evaluate(
    batches: &[RecordBatch],
    settings: &Settings,
    input: &str,
) -> Result<Batches, ArrowError> {
    let max = settings.options.max_bytes;
    let input: Arc<str> = Arc::from(input);
    let mut tables = Tables::new(settings);
    let mut redirects = Redirects::new();
    // Every row, with its number in the call (the place of a row that does not say its own).
    let rows = || {
        batches
            .iter()
            .flat_map(|batch| (0..batch.num_rows()).map(move |i| (batch, i)))
            .zip(1u64..)
    };
    let place = |record| Place {
        input: input.clone(),
        record,
        offset: None,
        crawl: None,
    };
    for ((batch, i), record) in rows() {
        match capture_of_row(batch, i, max, &place(record)) {
            Ok(capture) => {
                if let Some(capture) = redirects.hold(capture, max) {
                    tables.push(&capture, None);
                }
            }
            Err(u) => tables.push_unreadable(&u),
        }
    }
    if !redirects.is_empty() {
        // The targets' captures: only rows whose URL is wanted are read again.
        let wanted = redirects.wanted();
        let mut targets: HashMap<String, Capture> = HashMap::new();
        for ((batch, i), record) in rows() {
            let Ok(Some(url)) = text(batch, "url", i) else {
                continue;
            };
            if !Redirects::wants(&wanted, url) {
                continue;
            }
            if let Ok(capture) = capture_of_row(batch, i, max, &place(record)) {
                if let Some(key) = super::redirect::normal(&capture.url) {
                    targets.entry(key).or_insert(capture);
                }
            }
        }
        for (capture, resolution) in redirects.resolve(&targets) {
            let resolution = match resolution {
                Resolution::Missing => None,
                r => Some(r),
            };
            tables.push(capture, resolution.as_ref());
        }
    }
    tables.finish()
}
