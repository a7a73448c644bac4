//! `crawlgate batch` per core: captures/s from WARC.gz to Parquet with the `agents` table for
//! the built-in catalogue, beside the same file only inflated (flate2's `MultiGzDecoder`) and
//! only read into captures (`WarcReader`), in the same run (figures, not a test).
//!
//! The WARC.gz is written here from the robots-bench corpus (`../shared/corpus/robots-bench`
//! or `$CRAWLGATE_BENCH_CORPUS`): every file as a response record in a gzip member of its own,
//! as Common Crawl writes them, the corpus repeated `$BATCH_ROUNDS` times (default 4). The
//! binary runs as a user runs it, with `--threads 1`, so its time includes starting the
//! process and writing the Parquet files.
//!
//! Run: `cargo bench -p crawlgate-cli --no-default-features --features batch --bench batch`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crawlgate::batch::WarcReader;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

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

fn main() {
    let rounds: usize = std::env::var("BATCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
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
    println!(
        "{captures} captures, {:.1} MB of WARC.gz ({} rounds of the corpus), one core",
        data.len() as f64 / 1e6,
        rounds
    );
    for run in 1..=3 {
        let start = Instant::now();
        let mut out = Vec::with_capacity(64 * 1024);
        let mut inflated = 0usize;
        let mut d = MultiGzDecoder::new(&data[..]);
        loop {
            out.resize(64 * 1024, 0);
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

        let out_dir = dir.path().join(format!("out{run}"));
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_crawlgate"))
            .args(["batch", "--threads", "1", "-o"])
            .arg(&out_dir)
            .arg(&warc)
            .status()
            .expect("crawlgate batch");
        let batch = start.elapsed().as_secs_f64();
        assert!(status.success(), "{status}");
        let agents = std::fs::metadata(out_dir.join("agents.parquet")).map_or(0, |m| m.len());

        let rate = |s: f64| captures as f64 / s;
        println!(
            "run {run}: inflate only {:.0} captures/s ({:.0} MB/s out); WARC read {:.0} captures/s; \
             batch to Parquet {:.0} captures/s ({:.2}x inflate; agents.parquet {:.1} MB)",
            rate(inflate),
            inflated as f64 / inflate / 1e6,
            rate(reading),
            rate(batch),
            rate(batch) / rate(inflate),
            agents as f64 / 1e6,
        );
    }
}
