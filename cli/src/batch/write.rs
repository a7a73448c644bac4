//! `crawlgate batch`'s tables written out: `DIR/captures.*`, `DIR/agents.*`, `DIR/rules.*`, or
//! with `--part-rows` directories of parts (`DIR/captures/part-00000.*`, …), as Parquet
//! (snappy), JSON Lines (a `type` first in each record) or CSV (a header row; lists as JSON
//! arrays). One Arrow schema, three renderings: JSON Lines and CSV are read off the same record
//! batches as Parquet.

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

use crawlgate::batch::Batches;

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

/// A table of the output: its name (of its file or directory) and the `type` of its JSON
/// Lines records.
pub struct Table {
    /// `captures`, `agents` or `rules`.
    pub name: &'static str,
    /// `capture`, `agent` or `rule`.
    pub record: &'static str,
    /// Its columns.
    pub schema: SchemaRef,
}

/// The tables of a run: one file each, or parts. A part is closed once it holds `part_rows`
/// captures rows (and then at most a chunk more); part N of `agents` and `rules` holds the rows
/// of the captures in part N, so that memory (a Parquet writer keeps its footer until the file
/// closes) stays flat however long the run.
pub struct Output {
    dir: std::path::PathBuf,
    format: BatchFormat,
    tables: Vec<Table>,
    part_rows: Option<u64>,
    /// The next part's number.
    part: u32,
    /// The open files (one per table), if any.
    open: Option<Vec<TableWriter>>,
    /// Rows written per table, over every part.
    rows: Vec<u64>,
}

impl Output {
    /// The output in `dir` (made already). With `part_rows`, each table is a directory of
    /// parts, emptied first of the parts of an earlier run.
    pub fn create(
        dir: &Path,
        format: BatchFormat,
        tables: Vec<Table>,
        part_rows: Option<u64>,
    ) -> anyhow::Result<Output> {
        if part_rows.is_some() {
            for table in &tables {
                let parts = dir.join(table.name);
                std::fs::create_dir_all(&parts)
                    .with_context(|| format!("cannot make {}", parts.display()))?;
                remove_parts(&parts, extension(format))?;
            }
        }
        let rows = vec![0; tables.len()];
        let mut output = Output {
            dir: dir.to_owned(),
            format,
            tables,
            part_rows,
            part: 0,
            open: None,
            rows,
        };
        if part_rows.is_none() {
            output.open()?;
        }
        Ok(output)
    }

    /// Opens the next part (or the one file of each table).
    fn open(&mut self) -> anyhow::Result<&mut Vec<TableWriter>> {
        let mut writers = Vec::with_capacity(self.tables.len());
        for table in &self.tables {
            let path = match self.part_rows {
                None => self
                    .dir
                    .join(format!("{}.{}", table.name, extension(self.format))),
                Some(_) => self.dir.join(table.name).join(format!(
                    "part-{:05}.{}",
                    self.part,
                    extension(self.format)
                )),
            };
            writers.push(TableWriter::create(
                &path,
                table.name,
                table.record,
                table.schema.clone(),
                self.format,
            )?);
        }
        self.part += 1;
        Ok(self.open.insert(writers))
    }

    /// Appends a chunk's rows (`captures`, `agents`, then `rules` when it is written); closes
    /// the part when it is full.
    pub fn write(&mut self, batches: &Batches) -> anyhow::Result<()> {
        let part_rows = self.part_rows;
        let writers = match self.open {
            Some(ref mut w) => w,
            None => self.open()?,
        };
        for (writer, batch) in
            writers
                .iter_mut()
                .zip([&batches.captures, &batches.agents, &batches.rules])
        {
            writer.write(batch)?;
        }
        let full = match (part_rows, writers.first()) {
            (Some(max), Some(captures)) => captures.rows >= max,
            _ => false,
        };
        if full {
            self.close_part()?;
        }
        Ok(())
    }

    /// Closes the open files, counting their rows.
    fn close_part(&mut self) -> anyhow::Result<()> {
        for (i, writer) in self.open.take().into_iter().flatten().enumerate() {
            self.rows[i] += writer.close()?;
        }
        Ok(())
    }

    /// Finishes every file (a run without rows still leaves one, empty, per table); the rows
    /// written per table.
    pub fn close(mut self) -> anyhow::Result<Vec<u64>> {
        if self.part == 0 {
            self.open()?;
        }
        self.close_part()?;
        Ok(self.rows)
    }
}

/// The file name extension of `format`.
fn extension(format: BatchFormat) -> &'static str {
    match format {
        BatchFormat::Parquet => "parquet",
        BatchFormat::Jsonl => "jsonl",
        BatchFormat::Csv => "csv",
    }
}

/// Removes the files of `dir` named as parts (`part-` and digits, then `.ext`): another run's,
/// which would otherwise read as this one's.
fn remove_parts(dir: &Path, ext: &str) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let name = entry.file_name();
        let is_part = name
            .to_str()
            .and_then(|n| n.strip_prefix("part-"))
            .and_then(|n| n.strip_suffix(ext))
            .and_then(|n| n.strip_suffix('.'))
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
        if is_part {
            let path = entry.path();
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// One table's file.
enum Sink {
    /// (Boxed: the writer's state is large beside a buffered file.)
    Parquet(Box<ArrowWriter<File>>),
    Lines(BufWriter<File>, &'static str),
    Csv(BufWriter<File>),
}

/// A table's writer (one file).
struct TableWriter {
    sink: Sink,
    rows: u64,
}

impl TableWriter {
    /// The file `path` of table `name`, for `schema`; `record` is the `type` of a JSON Lines
    /// record.
    fn create(
        path: &Path,
        name: &str,
        record: &'static str,
        schema: SchemaRef,
        format: BatchFormat,
    ) -> anyhow::Result<TableWriter> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
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
    fn write(&mut self, batch: &RecordBatch) -> anyhow::Result<()> {
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
    fn close(self) -> anyhow::Result<u64> {
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
