//! `crawlgate batch`: WARC.gz files the tests write (bench-corpus files and hostile members),
//! JSON Lines, Parquet and plain files in; Parquet read back with arrow's reader, JSON Lines and
//! CSV beside it; the `agents` table against `audit --json`; exit statuses 0, 1, 2.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray, UInt16Array};
use arrow_schema::{DataType, Field, Schema};
use flate2::write::GzEncoder;
use flate2::Compression;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use serde_json::Value;

use crate::run::{assert_exit, on_a_terminal, stderr, Dir};
use crate::ROOT;

fn response(uri: &str, status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 {status}\r\n{headers}\r\n").into_bytes();
    block.extend_from_slice(body);
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(&block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(ROOT).join("testdata/batch/corpus");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The corpus as a WARC.gz, a member per record, with one member broken in the middle.
fn corpus_warc_gz(broken: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (name, body)) in corpus().iter().enumerate() {
        let mut member = gzip(&response(
            &format!("https://{name}/robots.txt"),
            "200 OK",
            "",
            body,
        ));
        if broken && i == 4 {
            let n = member.len();
            for b in &mut member[20..n - 10] {
                *b ^= 0x33;
            }
        }
        out.extend(member);
    }
    out
}

fn parquet_rows(path: &str) -> Vec<RecordBatch> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn column(batches: &[RecordBatch], name: &str) -> Vec<Option<String>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name(name).unwrap().as_string::<i32>().clone();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_owned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

#[test]
fn warc_gz_to_parquet_jsonl_and_csv() {
    let dir = Dir::new();
    let warc = dir.file("crawl.warc.gz", &corpus_warc_gz(true));
    let n = corpus().len();
    let out = dir.join("parquet");
    let o = dir.run(&["batch", "-o", &out, "--rules", "--path", "/search", &warc]);
    // One member could not be read: exit 1, its row written, the others judged.
    assert_exit(&o, 1);
    let captures = parquet_rows(&format!("{out}/captures.parquet"));
    assert_eq!(count(&captures), n);
    let classes = column(&captures, "status_class");
    assert_eq!(
        classes
            .iter()
            .filter(|c| c.as_deref() == Some("unreadable"))
            .count(),
        1
    );
    assert_eq!(
        classes
            .iter()
            .filter(|c| c.as_deref() == Some("rules"))
            .count(),
        n - 1
    );
    let agents = parquet_rows(&format!("{out}/agents.parquet"));
    let crawlers = crawlgate::audit::Catalogue::builtin().crawlers().len();
    assert_eq!(count(&agents), (n - 1) * crawlers * 2);
    let rules = parquet_rows(&format!("{out}/rules.parquet"));
    assert!(count(&rules) > 100, "{}", count(&rules));
    // JSON Lines and CSV: the same rows.
    for format in ["jsonl", "csv"] {
        let out = dir.join(format);
        let o = dir.run(&[
            "batch", "-o", &out, "--format", format, "--path", "/search", &warc,
        ]);
        assert_exit(&o, 1);
        let lines = |table: &str| {
            let text = std::fs::read_to_string(format!("{out}/{table}.{format}")).unwrap();
            text.lines().count() - usize::from(format == "csv")
        };
        assert_eq!(lines("captures"), n, "{format}");
        assert_eq!(lines("agents"), (n - 1) * crawlers * 2, "{format}");
        assert!(!Path::new(&format!("{out}/rules.{format}")).exists());
    }
    let text = std::fs::read_to_string(dir.join("jsonl/captures.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "capture");
    assert_eq!(first["schema_version"], 1);
    assert!(first["codes"].is_array());
    // Whole: exit 0.
    let clean = dir.file("clean.warc.gz", &corpus_warc_gz(false));
    assert_exit(&dir.run(&["batch", "-o", &dir.join("clean"), &clean]), 0);
}

/// Every crawler's access to `/` and `/v/venue` on the real files, as `audit --json` gives it.
#[test]
fn agents_agree_with_audit() {
    let dir = Dir::new();
    let real = Path::new(ROOT).join("testdata/audit/real");
    let out = dir.join("out");
    let o = dir.run(&[
        "batch",
        "-o",
        &out,
        "--format",
        "jsonl",
        "--path",
        "/v/venue",
        real.to_str().unwrap(),
    ]);
    assert_exit(&o, 0);
    let text = std::fs::read_to_string(format!("{out}/agents.jsonl")).unwrap();
    let mut got: HashMap<(String, String, String), (String, Value)> = HashMap::new();
    for line in text.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let file = r["input"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_owned();
        got.insert(
            (
                file,
                r["agent"].as_str().unwrap().into(),
                r["path"].as_str().unwrap().into(),
            ),
            (r["access"].as_str().unwrap().into(), r["line"].clone()),
        );
    }
    let mut compared = 0;
    for file in std::fs::read_dir(&real).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let o = dir.run(&[
            "audit",
            "--json",
            "--path",
            "/v/venue",
            path.to_str().unwrap(),
        ]);
        for line in crate::run::stdout(&o).lines() {
            let r: Value = serde_json::from_str(line).unwrap();
            if r["type"] != "audit" {
                continue;
            }
            for p in r["paths"].as_array().unwrap() {
                let key = (
                    name.clone(),
                    r["crawler"].as_str().unwrap().to_owned(),
                    p["path"].as_str().unwrap().to_owned(),
                );
                let want = (p["access"].as_str().unwrap().to_owned(), p["line"].clone());
                assert_eq!(got.get(&key), Some(&want), "{key:?}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, got.len());
    assert!(compared > 400, "{compared}");
}

#[test]
fn rows_in_jsonl_and_parquet_and_redirects_across_inputs() {
    let dir = Dir::new();
    let rows = [
        r#"{"url": "https://a.example/robots.txt", "status": 200, "body_text": "User-agent: GPTBot\nDisallow: /\n"}"#.to_owned(),
        // "User-agent: *\nDisallow: /x\n" in base64.
        r#"{"url": "https://b.example/robots.txt", "status": 200, "body": "VXNlci1hZ2VudDogKgpEaXNhbGxvdzogL3gK"}"#.to_owned(),
        r#"{"url": "http://c.example/robots.txt", "status": 301, "location": "https://www.c.example/robots.txt"}"#.to_owned(),
        r#"{"url": "https://d.example/robots.txt", "status": 404}"#.to_owned(),
        r#"{"url": "https://e.example/robots.txt", "status": 503}"#.to_owned(),
        r#"{"url": "https://f.example/robots.txt", "status": 200, "body": "not base64!"}"#.to_owned(),
        "this is not JSON".to_owned(),
    ];
    let jsonl = dir.file("rows.jsonl", rows.join("\n").as_bytes());
    // The redirect's target, in another input (Parquet).
    let schema = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("status", DataType::UInt16, true),
        Field::new("body", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec!["https://www.c.example/robots.txt"])),
        Arc::new(UInt16Array::from(vec![Some(200)])),
        Arc::new(StringArray::from(vec!["User-agent: *\nDisallow: /\n"])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let parquet = dir.join("target.parquet");
    let mut w = ArrowWriter::try_new(File::create(&parquet).unwrap(), schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let out = dir.join("out");
    let o = dir.run(&["batch", "-o", &out, "--crawler", "gptbot", &jsonl, &parquet]);
    assert_exit(&o, 1);
    let captures = parquet_rows(&format!("{out}/captures.parquet"));
    let urls = column(&captures, "url");
    let classes = column(&captures, "status_class");
    let by_url: HashMap<Option<String>, Vec<Option<String>>> =
        urls.iter()
            .zip(&classes)
            .fold(HashMap::new(), |mut m, (u, c)| {
                m.entry(u.clone()).or_default().push(c.clone());
                m
            });
    let class = |u: &str| by_url[&Some(u.to_owned())][0].clone().unwrap();
    assert_eq!(class("https://a.example/robots.txt"), "rules");
    assert_eq!(class("https://b.example/robots.txt"), "rules");
    assert_eq!(
        class("http://c.example/robots.txt"),
        "rules",
        "resolved through the Parquet input"
    );
    assert_eq!(class("https://d.example/robots.txt"), "allow-all");
    assert_eq!(class("https://e.example/robots.txt"), "disallow-all");
    assert_eq!(
        by_url[&None].len(),
        2,
        "two unreadable rows: bad base64, not JSON"
    );
    let agents = parquet_rows(&format!("{out}/agents.parquet"));
    let access: HashMap<String, String> = column(&agents, "url")
        .into_iter()
        .zip(column(&agents, "access"))
        .map(|(u, a)| (u.unwrap(), a.unwrap()))
        .collect();
    assert_eq!(access["https://a.example/robots.txt"], "blocked");
    assert_eq!(access["https://b.example/robots.txt"], "partly");
    assert_eq!(access["http://c.example/robots.txt"], "blocked");
    assert_eq!(access["https://d.example/robots.txt"], "allowed");
    assert_eq!(access["https://e.example/robots.txt"], "blocked");
}

#[test]
fn usage_errors_exit_2() {
    let dir = Dir::new();
    let file = dir.file("robots.txt", b"User-agent: *\nDisallow: /\n");
    assert_exit(&dir.run(&["batch", &file]), 2);
    assert_exit(
        &dir.run(&["batch", "-o", &dir.join("o"), "--format", "xml", &file]),
        2,
    );
    let bad = dir.file("bad.json", b"[]");
    let o = dir.run(&["batch", "-o", &dir.join("o"), "--catalogue", &bad, &file]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("catalogue"), "{}", stderr(&o));
    // A missing input is a row, not a usage error.
    let o = dir.run(&[
        "batch",
        "-o",
        &dir.join("o"),
        &file,
        &dir.join("missing.warc"),
    ]);
    assert_exit(&o, 1);
}

/// The files of `dir` in name order.
fn files_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The URLs of a table, without repeats.
fn urls(batches: &[RecordBatch]) -> std::collections::BTreeSet<String> {
    column(batches, "url").into_iter().flatten().collect()
}

#[test]
fn parts_split_the_tables_by_captures_and_keep_each_captures_rows_together() {
    let dir = Dir::new();
    let warc = dir.file("crawl.warc.gz", &corpus_warc_gz(false));
    let n = corpus().len();
    let out = dir.join("out");
    // Another run's parts are removed; other files are left alone.
    std::fs::create_dir_all(format!("{out}/captures")).unwrap();
    std::fs::write(format!("{out}/captures/part-00042.parquet"), b"stale").unwrap();
    std::fs::write(format!("{out}/captures/notes.txt"), b"mine").unwrap();
    let o = dir.run(&[
        "batch",
        "-o",
        &out,
        "--rules",
        "--crawler",
        "GPTBot",
        "--part-rows",
        "5",
        "--chunk-rows",
        "1",
        &warc,
    ]);
    assert_exit(&o, 0);
    let parts = |table: &str| -> Vec<String> {
        files_in(&format!("{out}/{table}"))
            .into_iter()
            .filter(|f| f.starts_with("part-"))
            .collect()
    };
    let expected: Vec<String> = (0..n.div_ceil(5))
        .map(|k| format!("part-{k:05}.parquet"))
        .collect();
    assert_eq!(parts("captures"), expected);
    assert_eq!(parts("agents"), expected);
    assert_eq!(parts("rules"), expected);
    assert!(Path::new(&format!("{out}/captures/notes.txt")).exists());
    let mut seen = 0;
    for (k, part) in expected.iter().enumerate() {
        let captures = parquet_rows(&format!("{out}/captures/{part}"));
        // A chunk is one capture's rows here: every part but the last holds exactly 5.
        let want = if k + 1 < expected.len() { 5 } else { n - 5 * k };
        assert_eq!(count(&captures), want, "{part}");
        seen += want;
        let agents = parquet_rows(&format!("{out}/agents/{part}"));
        assert_eq!(
            urls(&agents),
            urls(&captures),
            "{part}: agents rows of its captures"
        );
        let rules = parquet_rows(&format!("{out}/rules/{part}"));
        assert!(
            urls(&rules).is_subset(&urls(&captures)),
            "{part}: rules rows of its captures"
        );
    }
    assert_eq!(seen, n);
    // Fewer captures than a part: one part a table, in any format.
    let small = dir.join("small");
    let o = dir.run(&[
        "batch",
        "-o",
        &small,
        "--format",
        "jsonl",
        "--part-rows",
        "1000",
        &warc,
    ]);
    assert_exit(&o, 0);
    assert_eq!(files_in(&format!("{small}/captures")), ["part-00000.jsonl"]);
    assert_eq!(files_in(&format!("{small}/agents")), ["part-00000.jsonl"]);
    let lines = std::fs::read_to_string(format!("{small}/captures/part-00000.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), n);
}

/// On a terminal (a pseudo-terminal from util-linux `script`), a run shows how far through
/// its inputs' bytes it is, with the captures judged and their rate, then the summary line;
/// captured, standard error stays empty (the other tests).
#[test]
fn a_terminal_sees_bytes_captures_and_rate_then_the_summary() {
    let dir = Dir::new();
    // Enough captures for the line to be drawn a few times by a debug build.
    let mut warc = Vec::new();
    for round in 0..20 {
        for (name, body) in corpus() {
            warc.extend(gzip(&response(
                &format!("https://r{round}.{name}/robots.txt"),
                "200 OK",
                "",
                &body,
            )));
        }
    }
    let n = 20 * corpus().len();
    let warc_path = dir.file("crawl.warc.gz", &warc);
    let out = dir.join("out");
    let home = tempfile::tempdir().expect("temp dir");
    let o = on_a_terminal(
        home.path(),
        &["batch", "-o", &out, "--crawler", "GPTBot", &warc_path],
    );
    assert_eq!(o.status.code(), Some(0));
    let screen = String::from_utf8_lossy(&o.stdout).into_owned();
    // A drawn line: the count and rate of captures, then bytes read of the inputs' total.
    let kib = warc.len() as f64 / 1024.0;
    let total = if kib < 1024.0 {
        format!("/{kib:.2} KiB (ETA")
    } else {
        format!("/{:.2} MiB (ETA", kib / 1024.0)
    };
    let line = screen
        .split(['\r', '\n'])
        .find(|l| l.contains(" captures (") && l.contains(&total))
        .unwrap_or_else(|| panic!("no progress line with {total:?}: {screen:?}"));
    assert!(line.contains("judged "), "{line:?}");
    assert!(line.contains("/s) "), "{line:?}");
    assert!(
        screen.replace("\r\n", "\n").ends_with(&format!(
            "{n} captures: {n} captures rows, {n} agents rows in {}; exit 0\n",
            out
        )),
        "{screen:?}"
    );
}
