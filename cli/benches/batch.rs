//! `crawlgate batch` per core: captures/s from WARC.gz to Parquet with the `agents` table for
//! the built-in catalogue, beside the same file only inflated (flate2's `MultiGzDecoder`, the
//! library's own decoder and backend) and only read into captures (`WarcReader`: inflate and
//! WARC parsing), and, when a Python with Protego is given, beside Protego and
//! `urllib.robotparser` answering `/` for the same agents on the same bodies (and the C zlib
//! inflating the same file, from Python) — all in the same run (figures, not a test).
//!
//! The WARC.gz is written here from the robots-bench corpus (`../shared/corpus/robots-bench`
//! or `$CRAWLGATE_BENCH_CORPUS`): every file as a `200 text/plain` response record in a gzip
//! member of its own, as Common Crawl writes them, the corpus repeated `$BATCH_ROUNDS` times
//! (default 4) under distinct hosts. The binary runs as a user runs it, with `--threads 1`, so
//! its time includes starting the process and writing the Parquet files; its writer is a
//! thread of its own, so its rate per core is taken from its CPU time (user + system, read
//! from `/proc/self/stat` after it exits; on other systems, its wall time). Each run checks
//! that `agents.parquet` holds a row per capture and catalogued crawler.
//!
//! Also timed, in process: judging alone (`crawlgate::batch::Tables` filled and finished in the
//! command's chunks, as its threads do, with no Parquet), so that a capture's time splits into
//! reading, judging and writing; the Parquet writer alone on those rows, as the command
//! writes them and with their strings as Arrow dictionaries; and the peers' own work done by crawlgate (each body parsed once, without
//! diagnostics, and `/` answered for every crawler's token): the like-for-like measure beside
//! Protego and urllib, which neither lint, audit what lies under a path, nor write tables.
//!
//! `$CRAWLGATE_BENCH_PYTHON`: an interpreter with Protego (and crawlgate's `python/bench/`
//! beside this file): `python/bench/batch_peers.py` is run on the same WARC.gz and the
//! catalogue's product tokens, once per run, one core.
//!
//! Run: `cargo bench -p crawlgate-cli --no-default-features --features batch --bench batch`,
//! or `scripts/bench-batch.sh`, which makes the venv and runs this.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use crawlgate::audit::Catalogue;
use crawlgate::batch::{Settings, Tables, WarcReader};
use crawlgate::{Options, Robots};
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;

use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::env::var_os("CRAWLGATE_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/corpus/robots-bench"
            ))
        })
        .join("robotfiles");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (set CRAWLGATE_BENCH_CORPUS)", dir.display()))
        .map(|e| {
            let p = e.expect("entry").path();
            (
                p.file_name().expect("name").to_string_lossy().into_owned(),
                std::fs::read(&p).expect("file"),
            )
        })
        .collect();
    files.sort();
    files
}

fn member(uri: &str, body: &[u8]) -> Vec<u8> {
    let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".to_vec();
    block.extend_from_slice(body);
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2025-01-01T00:00:00Z\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    record.extend_from_slice(&block);
    record.extend_from_slice(b"\r\n\r\n");
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(&record).expect("gzip");
    e.finish().expect("gzip")
}

/// The CPU seconds (user + system) of this process's waited-for children, from
/// `/proc/self/stat` (fields 16 and 17, in the kernel's fixed 100 ticks a second); `None` where
/// there is no such file.
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count from after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // `rest` starts at field 3; cutime and cstime are fields 16 and 17.
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn rows(path: &Path) -> i64 {
    let file = std::fs::File::open(path).expect("agents.parquet");
    SerializedFileReader::new(file)
        .expect("a Parquet file")
        .metadata()
        .file_metadata()
        .num_rows()
}

/// Protego's and urllib's captures per CPU second, from `batch_peers.py`.
struct Peers {
    protego: f64,
    urllib: f64,
    /// The C zlib's inflate alone, from Python.
    zlib: f64,
    versions: String,
}

fn peers(python: &Path, warc: &Path, agents: &Path, captures: usize) -> Peers {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../python/bench/batch_peers.py"
    );
    let out = Command::new(python)
        .arg(script)
        .arg(warc)
        .arg(agents)
        .output()
        .expect("run $CRAWLGATE_BENCH_PYTHON");
    assert!(
        out.status.success(),
        "batch_peers.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("batch_peers.py's JSON");
    assert_eq!(v["captures"].as_u64(), Some(captures as u64), "{v}");
    Peers {
        protego: v["protego"]["per_core"].as_f64().expect("protego"),
        urllib: v["urllib"]["per_core"].as_f64().expect("urllib"),
        zlib: v["zlib"]["per_core"].as_f64().expect("zlib"),
        versions: format!(
            "Python {}, Protego {}, zlib {}",
            v["python"].as_str().unwrap_or("?"),
            v["protego_version"].as_str().unwrap_or("?"),
            v["zlib"]["version"].as_str().unwrap_or("?")
        ),
    }
}

/// The `agents` batch with every string column but `rule` (free text) as a dictionary.
fn as_dictionaries(batch: &RecordBatch) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if field.data_type() == &DataType::Utf8 && field.name() != "rule" {
            let mut keyed = StringDictionaryBuilder::<Int32Type>::new();
            for value in column.as_string::<i32>().iter() {
                keyed.append_option(value);
            }
            columns.push(Arc::new(keyed.finish()));
            let key = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
            fields.push(Field::new(field.name(), key, field.is_nullable()));
        } else {
            columns.push(column.clone());
            fields.push(field.as_ref().clone());
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("same rows")
}

/// `batches` written to Parquet in memory with the command's properties for `agents`
/// (cli/src/batch/write.rs: snappy, 1,048,576 rows a group, statistics per chunk); the bytes
/// written. Dictionary columns are written without the Arrow schema, so that they read back
/// as strings.
fn write_parquet(batches: &[RecordBatch], dictionaries: bool) -> usize {
    let props = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .set_max_row_group_row_count(Some(1 << 20))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .build();
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_skip_arrow_metadata(dictionaries);
    let mut w = ArrowWriter::try_new_with_options(Vec::new(), batches[0].schema(), options)
        .expect("writer");
    for b in batches {
        w.write(b).expect("write");
    }
    w.into_inner().expect("close").len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let rounds: usize = std::env::var("BATCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let runs: usize = std::env::var("BATCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let python = std::env::var_os("CRAWLGATE_BENCH_PYTHON").map(PathBuf::from);
    let files = corpus();
    let dir = tempfile::tempdir().expect("temp dir");
    let warc = dir.path().join("bench.warc.gz");
    let mut data = Vec::new();
    for round in 0..rounds {
        for (name, body) in &files {
            data.extend(member(&format!("https://r{round}.{name}/robots.txt"), body));
        }
    }
    std::fs::write(&warc, &data).expect("write");
    let captures = files.len() * rounds;
    let catalogue = Catalogue::builtin();
    let crawlers = catalogue.crawlers();
    let agents_file = dir.path().join("agents.txt");
    let tokens: Vec<String> = crawlers
        .iter()
        .map(|c| {
            c.token
                .as_ref()
                .map_or(c.name.clone(), |t| t.as_str().to_owned())
        })
        .collect();
    std::fs::write(&agents_file, tokens.join("\n")).expect("write");
    println!(
        "{captures} captures, {:.1} MB of WARC.gz ({rounds} rounds of the corpus), {} crawlers \
         of the catalogue; one core each; load average {}",
        data.len() as f64 / 1e6,
        crawlers.len(),
        load(),
    );
    let rate = |s: f64| captures as f64 / s;
    let (mut inflate_r, mut read_r, mut batch_r, mut batch_wall_r) =
        (vec![], vec![], vec![], vec![]);
    let (mut protego_r, mut urllib_r, mut zlib_r) = (vec![], vec![], vec![]);
    let (mut alike_r, mut judge_r) = (vec![], vec![]);
    let (mut writer_r, mut keyed_r) = (vec![], vec![]);
    let read_all: Vec<_> = WarcReader::new(&data[..], "bench", 512_000)
        .filter_map(Result::ok)
        .collect();
    let bodies: Vec<&[u8]> = read_all.iter().map(|c| &c.body[..]).collect();
    // As the command runs by default: every crawler of the built-in catalogue, `/` only.
    let settings = Settings::default();
    let crawler_tokens: Vec<_> = crawlers.iter().filter_map(|c| c.token.clone()).collect();
    let mut quiet = Options::default();
    quiet.diagnostics = false;
    let mut versions = None;
    for run in 1..=runs {
        let start = Instant::now();
        let mut out = vec![0; 64 * 1024];
        let mut inflated = 0usize;
        let mut d = MultiGzDecoder::new(&data[..]);
        loop {
            let n = d.read(&mut out).expect("inflate");
            if n == 0 {
                break;
            }
            inflated += n;
        }
        let inflate = start.elapsed().as_secs_f64();

        let start = Instant::now();
        let read = WarcReader::new(&data[..], "bench", 512_000)
            .filter(Result::is_ok)
            .count();
        let reading = start.elapsed().as_secs_f64();
        assert_eq!(read, captures);

        // The peers' work: parse each body, answer `/` for every crawler.
        let start = Instant::now();
        let mut allowed = 0usize;
        for body in &bodies {
            let robots = Robots::parse_with(body, &quiet).robots;
            allowed += crawler_tokens
                .iter()
                .filter(|t| robots.is_allowed(t, "/"))
                .count();
        }
        let alike = start.elapsed().as_secs_f64();
        assert!(allowed > 0);
        alike_r.push(rate(alike));

        // Judging alone: the command's tables, filled and finished in its chunks.
        let start = Instant::now();
        let mut tables = Tables::new(&settings);
        let mut agents = Vec::new();
        for capture in &read_all {
            tables.push(capture, None);
            if tables.rows() >= 16_384 {
                agents.push(tables.finish().expect("tables").agents);
            }
        }
        agents.push(tables.finish().expect("tables").agents);
        let judging = start.elapsed().as_secs_f64();
        let agent_rows: usize = agents.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(agent_rows, captures * crawlers.len());
        judge_r.push(rate(judging));

        // The Parquet writer alone on those `agents` rows: as the command writes them, and
        // with their strings handed over as Arrow dictionaries (which parquet interns once
        // per distinct value, not once a row), the next step measured before it is taken.
        let dictionaries: Vec<RecordBatch> = agents.iter().map(as_dictionaries).collect();
        let start = Instant::now();
        let plain = write_parquet(&agents, false);
        writer_r.push(start.elapsed().as_secs_f64() * 1e6 / captures as f64);
        let start = Instant::now();
        let keyed = write_parquet(&dictionaries, true);
        keyed_r.push(start.elapsed().as_secs_f64() * 1e6 / captures as f64);
        assert!(plain > 0 && keyed > 0);

        let out_dir = dir.path().join(format!("out{run}"));
        let cpu_before = children_cpu();
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_crawlgate"))
            .args(["batch", "--threads", "1", "-o"])
            .arg(&out_dir)
            .arg(&warc)
            .status()
            .expect("crawlgate batch");
        let wall = start.elapsed().as_secs_f64();
        let cpu = match (cpu_before, children_cpu()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        assert!(status.success(), "{status}");
        let agents_parquet = out_dir.join("agents.parquet");
        assert_eq!(
            rows(&agents_parquet),
            (captures * crawlers.len()) as i64,
            "an agents row per capture and crawler"
        );
        let agents_mb = std::fs::metadata(&agents_parquet).map_or(0, |m| m.len()) as f64 / 1e6;
        std::fs::remove_dir_all(&out_dir).ok();

        print!(
            "run {run}: parse + `/` per crawler {:.0}/s; judge only {:.0}/s; ",
            rate(alike),
            rate(judging)
        );
        print!(
            "inflate only {:.0} captures/s ({:.0} MB/s out); WARC read {:.0}/s; \
             batch {:.0}/s per CPU second ({:.0}/s wall, {:.2} CPU s for {:.2} s; \
             agents.parquet {agents_mb:.1} MB)",
            rate(inflate),
            inflated as f64 / inflate / 1e6,
            rate(reading),
            rate(cpu),
            rate(wall),
            cpu,
            wall,
        );
        inflate_r.push(rate(inflate));
        read_r.push(rate(reading));
        batch_r.push(rate(cpu));
        batch_wall_r.push(rate(wall));
        if let Some(python) = &python {
            let p = peers(python, &warc, &agents_file, captures);
            print!(
                "; Protego {:.0}/s, urllib {:.0}/s, C zlib inflate {:.0}/s",
                p.protego, p.urllib, p.zlib
            );
            protego_r.push(p.protego);
            urllib_r.push(p.urllib);
            zlib_r.push(p.zlib);
            versions = Some(p.versions);
        }
        println!("; load {}", load());
    }

    let batch = median(batch_r);
    let inflate = median(inflate_r);
    let (read, judge) = (median(read_r), median(judge_r));
    println!("\nmedian of {runs} runs, captures per second per core:");
    println!("| | captures/s per core | batch ÷ this | goal |");
    println!("|---|---|---|---|");
    println!("| `crawlgate batch --threads 1` (CPU time) | {batch:.0} | | |");
    println!(
        "| `crawlgate batch --threads 1` (wall time) | {:.0} | | |",
        median(batch_wall_r)
    );
    println!(
        "| read only (`WarcReader`: inflate + WARC) | {:.0} | {:.2}× | |",
        read,
        batch / read
    );
    println!(
        "| inflate only (flate2 `MultiGzDecoder`) | {inflate:.0} | {:.2}× | ≥ 0.5× |",
        batch / inflate
    );
    println!(
        "| judge only (parse, lint, audit, Arrow rows of the three tables; no Parquet), in process | {judge:.0} | {:.2}× | |",
        batch / judge
    );
    if !protego_r.is_empty() {
        let zlib = median(zlib_r);
        println!(
            "| inflate only (the C zlib, from Python's `zlib`, member by member) | {zlib:.0} | {:.2}× | |",
            batch / zlib
        );
        let protego = median(protego_r);
        let urllib = median(urllib_r);
        println!(
            "| Protego: parse + `/` for each agent | {protego:.0} | {:.1}× | ≥ 20× |",
            batch / protego
        );
        let alike = median(alike_r.clone());
        println!(
            "| crawlgate doing Protego's work (parse, `/` for each agent), in process | {alike:.0} | Protego's rate × {:.1} | |",
            alike / protego
        );
        println!(
            "| urllib.robotparser: parse + `/` for each agent | {urllib:.0} | {:.1}× | |",
            batch / urllib
        );
        println!("({})", versions.unwrap_or_default());
    } else {
        println!(
            "| crawlgate doing the peers' work (parse, `/` for each agent), in process | {:.0} | | |",
            median(alike_r)
        );
        println!(
            "(set CRAWLGATE_BENCH_PYTHON to an interpreter with Protego for its row and urllib's)"
        );
    }
    // Where a capture's CPU time goes: what is neither reading nor judging is the Parquet
    // writer (and starting the process, a few milliseconds a run).
    let us = |rate: f64| 1e6 / rate;
    println!(
        "\na capture's CPU time in `batch`: {:.0} µs = read {:.0} µs + judge {:.0} µs + \
         Parquet and the rest {:.0} µs",
        us(batch),
        us(read),
        us(judge),
        us(batch) - us(read) - us(judge),
    );
    println!(
        "the Parquet writer alone on the `agents` rows: {:.0} µs a capture as written, {:.0} µs \
         with their strings as Arrow dictionaries",
        median(writer_r),
        median(keyed_r),
    );
    println!("load average at the end: {}", load());
}
