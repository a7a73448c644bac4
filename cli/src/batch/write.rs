//! `crawlgate batch`'s tables written out: `DIR/captures.*`, `DIR/agents.*`, `DIR/rules.*`, as
//! Parquet (snappy), JSON Lines (a `type` first in each record) or CSV (a header row; lists as
//! JSON arrays). One Arrow schema, three renderings: JSON Lines and CSV are read off the same
//! record batches as Parquet.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt16Type, UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::args::BatchFormat;

/// Rows of a Parquet row group of `captures`, whose rows are wide (lint codes, sitemaps, usage
/// records): the open group is held in memory until it is closed, and the parquet crate's
/// default (1,048,576 rows) let a run's memory grow with its first million captures. DuckDB
/// writes 122,880.
const CAPTURE_ROWS: usize = 128 * 1024;

/// Rows of a row group of `agents` and `rules`: narrow, dictionary-encoded rows, 166 a capture
/// for the catalogue; fewer groups keep the footer (held in memory until the file is closed)
/// small.
const ROW_GROUP_ROWS: usize = 1024 * 1024;

/// One table's file.
enum Sink {
    /// (Boxed: the writer's state is large beside a buffered file.)
    Parquet(Box<ArrowWriter<File>>),
    Lines(BufWriter<File>, &'static str),
    Csv(BufWriter<File>),
}

/// A table's writer.
pub struct TableWriter {
    sink: Sink,
    rows: u64,
}

impl TableWriter {
    /// `dir/name.ext`, for `schema`; `record` is the `type` of a JSON Lines record.
    pub fn create(
        dir: &Path,
        name: &str,
        record: &'static str,
        schema: SchemaRef,
        format: BatchFormat,
    ) -> anyhow::Result<TableWriter> {
        let ext = match format {
            BatchFormat::Parquet => "parquet",
            BatchFormat::Jsonl => "jsonl",
            BatchFormat::Csv => "csv",
        };
        let path = dir.join(format!("{name}.{ext}"));
        let file =
            File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let sink = match format {
            BatchFormat::Parquet => {
                let rows = if name == "captures" {
                    CAPTURE_ROWS
                } else {
                    ROW_GROUP_ROWS
                };
                // Statistics per column chunk, not per page: the pages' index is held until
                // the file is closed and grew with every row (about 30 bytes a capture).
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .set_max_row_group_row_count(Some(rows))
                    .set_statistics_enabled(EnabledStatistics::Chunk)
                    .build();
                Sink::Parquet(Box::new(ArrowWriter::try_new(file, schema, Some(props))?))
            }
            BatchFormat::Jsonl => Sink::Lines(BufWriter::new(file), record),
            BatchFormat::Csv => {
                let mut w = BufWriter::new(file);
                let names: Vec<String> = schema
                    .fields()
                    .iter()
                    .map(|f| csv_field(f.name()))
                    .collect();
                writeln!(w, "{}", names.join(","))?;
                Sink::Csv(w)
            }
        };
        Ok(TableWriter { sink, rows: 0 })
    }

    /// Appends the rows of `batch`.
    pub fn write(&mut self, batch: &RecordBatch) -> anyhow::Result<()> {
        self.rows += batch.num_rows() as u64;
        match &mut self.sink {
            Sink::Parquet(w) => w.write(batch)?,
            Sink::Lines(w, record) => {
                for i in 0..batch.num_rows() {
                    let mut object = serde_json::Map::new();
                    object.insert("type".into(), (*record).into());
                    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                        object.insert(field.name().clone(), value(column.as_ref(), i));
                    }
                    serde_json::to_writer(&mut *w, &object)?;
                    w.write_all(b"\n")?;
                }
            }
            Sink::Csv(w) => {
                for i in 0..batch.num_rows() {
                    let cells: Vec<String> = batch
                        .columns()
                        .iter()
                        .map(|c| match value(c.as_ref(), i) {
                            serde_json::Value::Null => String::new(),
                            serde_json::Value::String(s) => csv_field(&s),
                            other => csv_field(&other.to_string()),
                        })
                        .collect();
                    writeln!(w, "{}", cells.join(","))?;
                }
            }
        }
        Ok(())
    }

    /// Finishes the file (Parquet's footer); the number of rows written.
    pub fn close(self) -> anyhow::Result<u64> {
        match self.sink {
            Sink::Parquet(w) => {
                w.close()?;
            }
            Sink::Lines(mut w, _) | Sink::Csv(mut w) => w.flush()?,
        }
        Ok(self.rows)
    }
}

/// A cell quoted as RFC 4180 says when it must be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Row `i` of `column` as JSON, for the types the tables use.
fn value(column: &dyn Array, i: usize) -> serde_json::Value {
    use serde_json::Value;
    if column.is_null(i) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(i).into(),
        DataType::Boolean => column.as_boolean().value(i).into(),
        DataType::UInt16 => column.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => column.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Float64 => column.as_primitive::<Float64Type>().value(i).into(),
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(i);
            Value::Array((0..items.len()).map(|j| value(items.as_ref(), j)).collect())
        }
        // The tables use no other type (a test writes every table in every format).
        other => Value::String(format!("<{other}>")),
    }
}
