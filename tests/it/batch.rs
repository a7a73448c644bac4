//! `crawlgate::batch` on WARC files the tests write: the bench-corpus files of
//! `testdata/batch/corpus/` as response records, and hostile records beside them (a broken gzip
//! member, a truncated stream, a declared length far over the real one, HTML at 200, redirect
//! loops, duplicates, bodies that are not UTF-8). The tables agree with `audit` itself.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, RecordBatch};
use crawlgate::audit::{audit, Catalogue};
use crawlgate::batch::{
    Capture, Redirects, Resolution, Settings, StatusClass, Tables, Unreadable, WarcReader,
    SCHEMA_VERSION,
};
use flate2::write::GzEncoder;
use flate2::Compression;

/// One WARC record: `kind`, the target URI, a block.
fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2025-01-02T03:04:05Z\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn response(uri: &str, status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 {status}\r\n{headers}\r\n").into_bytes();
    block.extend_from_slice(body);
    record("response", uri, &block)
}

fn warcinfo(crawl: &str) -> Vec<u8> {
    record(
        "warcinfo",
        "",
        format!("software: test\r\nisPartOf: {crawl}\r\n").as_bytes(),
    )
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// The corpus files, by name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/batch/corpus");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{} corpus files", files.len());
    files
}

/// A WARC.gz of the corpus, a member per record (as Common Crawl writes them), with a
/// warcinfo, and a request and a metadata record around each response; the members' offsets.
fn corpus_warc_gz() -> (Vec<u8>, Vec<u64>) {
    let mut out = gzip(&warcinfo("CC-MAIN-2025-05"));
    let mut offsets = Vec::new();
    for (name, body) in corpus() {
        let uri = format!("https://{name}/robots.txt");
        out.extend(gzip(&record(
            "request",
            &uri,
            b"GET /robots.txt HTTP/1.1\r\n\r\n",
        )));
        offsets.push(out.len() as u64);
        out.extend(gzip(&response(
            &uri,
            "200 OK",
            "Content-Type: text/plain\r\n",
            &body,
        )));
        out.extend(gzip(&record("metadata", &uri, b"fetchTimeMs: 12\r\n")));
    }
    (out, offsets)
}

fn read(data: &[u8]) -> Vec<Result<Capture, Unreadable>> {
    WarcReader::new(data, "test.warc.gz", 512_000).collect()
}

#[test]
fn a_warc_gz_of_the_corpus_reads_back_whole() {
    let (data, offsets) = corpus_warc_gz();
    let items = read(&data);
    let files = corpus();
    assert_eq!(items.len(), files.len());
    for ((item, (name, body)), offset) in items.iter().zip(&files).zip(&offsets) {
        let c = item.as_ref().unwrap();
        assert_eq!(c.url, format!("https://{name}/robots.txt"));
        assert_eq!(c.status, Some(200));
        assert_eq!(&c.body, body, "{name}");
        assert_eq!(c.body_length, body.len() as u64);
        assert_eq!(c.place.offset, Some(*offset), "{name}: the member's offset");
        assert_eq!(c.place.crawl.as_deref(), Some("CC-MAIN-2025-05"));
        assert_eq!(c.fetch_time.as_deref(), Some("2025-01-02T03:04:05Z"));
        assert_eq!(c.content_type.as_deref(), Some("text/plain"));
    }
    // The same records as a plain WARC, and gzipped whole (one member): the same captures.
    let plain: Vec<u8> = files
        .iter()
        .flat_map(|(name, body)| {
            response(&format!("https://{name}/robots.txt"), "200 OK", "", body)
        })
        .collect();
    let bodies = |items: Vec<Result<Capture, Unreadable>>| -> Vec<Vec<u8>> {
        items.into_iter().map(|i| i.unwrap().body).collect()
    };
    let expected: Vec<Vec<u8>> = files.iter().map(|(_, b)| b.clone()).collect();
    assert_eq!(bodies(read(&plain)), expected);
    assert_eq!(bodies(read(&gzip(&plain))), expected);
}

/// A WARC read into rows of the input schema and judged from them (`rows::to_batch`, then
/// `evaluate`: Python's `read_warc` and `evaluate`) gives the tables of the WARC judged
/// directly, damage included: the rows lose nothing.
#[test]
fn rows_written_from_a_warc_are_judged_as_the_warc() {
    let (mut data, _) = corpus_warc_gz();
    let cut = gzip(&response(
        "https://cut.test/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\n",
    ));
    data.extend(&cut[..cut.len() - 9]);
    data.extend(gzip(&response(
        "https://challenge.test/robots.txt",
        "403 Forbidden",
        "cf-mitigated: challenge\r\n",
        b"<html>",
    )));
    let items = read(&data);
    assert!(
        items.iter().any(Result::is_err),
        "the damage is read as such"
    );
    let settings = Settings {
        paths: vec!["/search".into()],
        rules: true,
        ..Settings::default()
    };
    let mut direct = Tables::new(&settings);
    for item in &items {
        match item {
            Ok(c) => direct.push(c, None),
            Err(u) => direct.push_unreadable(u),
        }
    }
    let direct = direct.finish().unwrap();
    let rows = crawlgate::batch::rows::to_batch(&items).unwrap();
    let halves = [rows.slice(0, 10), rows.slice(10, rows.num_rows() - 10)];
    let judged = crawlgate::batch::evaluate(&halves, &settings, "ignored").unwrap();
    assert_eq!(judged.captures, direct.captures);
    assert_eq!(judged.agents, direct.agents);
    assert_eq!(judged.rules, direct.rules);
    assert!(direct.rules.num_rows() > 100);
}

/// Rows whose bodies were kept to a lower limit than the judging one (`read_warc` with the
/// default, `evaluate` with more) are cut files, judged as such, not rules that end early.
#[test]
fn a_body_kept_shorter_than_the_limit_is_a_cut_file() {
    let mut c = Capture::new(
        "https://a.test/robots.txt",
        Some(200),
        b"User-agent: *\nAllow: /\n".to_vec(),
    );
    c.body_length = 2_000_000;
    let rows = crawlgate::batch::rows::to_batch(&[Ok(c)]).unwrap();
    let mut settings = Settings::default();
    settings.options.max_bytes = 4_000_000;
    let judged =
        crawlgate::batch::evaluate(std::slice::from_ref(&rows), &settings, "rows").unwrap();
    assert_eq!(
        strings(&judged.captures, "verdict"),
        [Some("disallow-all".to_owned())]
    );
    assert!(strings(&judged.captures, "reason")[0]
        .as_deref()
        .is_some_and(|r| r.contains("only 23 of the body's 2000000 bytes were kept")));
    // The same body whole is judged by its rules.
    let whole = Capture::new(
        "https://a.test/robots.txt",
        Some(200),
        b"User-agent: *\nAllow: /\n".to_vec(),
    );
    let rows = crawlgate::batch::rows::to_batch(&[Ok(whole)]).unwrap();
    let judged = crawlgate::batch::evaluate(&[rows], &settings, "rows").unwrap();
    assert_eq!(
        strings(&judged.captures, "verdict"),
        [Some("rules".to_owned())]
    );
}

#[test]
fn a_broken_member_is_one_unreadable_row_and_the_rest_is_read() {
    let (mut data, offsets) = corpus_warc_gz();
    let total = corpus().len();
    // Garble the middle of the 6th response's deflate stream.
    let start = offsets[5] as usize;
    for b in &mut data[start + 30..start + 60] {
        *b ^= 0x5a;
    }
    let items = read(&data);
    let errors: Vec<&Unreadable> = items.iter().filter_map(|i| i.as_ref().err()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].place.offset, Some(offsets[5]));
    assert!(
        errors[0].reason.contains("gzip member"),
        "{}",
        errors[0].reason
    );
    let read_ok: Vec<&Capture> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
    assert_eq!(read_ok.len(), total - 1);
    // Every record after the broken one is there.
    let last = &corpus()[total - 1].0;
    assert_eq!(
        read_ok.last().unwrap().url,
        format!("https://{last}/robots.txt")
    );
}

#[test]
fn a_truncated_stream_ends_in_one_unreadable_row() {
    let (data, offsets) = corpus_warc_gz();
    let cut = &data[..offsets[3] as usize + 40];
    let items = read(cut);
    assert_eq!(items.len(), 4, "three records, then the cut one");
    assert!(items[..3].iter().all(Result::is_ok));
    let err = items[3].as_ref().unwrap_err();
    assert_eq!(err.place.offset, Some(offsets[3]));
}

#[test]
fn garbage_between_members_is_skipped_with_one_row() {
    let mut data = gzip(&response(
        "https://a.example/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\nDisallow: /a\n",
    ));
    data.extend_from_slice(b"this is not gzip at all");
    data.extend(gzip(&response(
        "https://b.example/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\nDisallow: /b\n",
    )));
    let items = read(&data);
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items[1].is_err());
    assert_eq!(
        items[2].as_ref().unwrap().url,
        "https://b.example/robots.txt"
    );
}

#[test]
fn a_declared_length_far_over_the_real_one() {
    let good = response(
        "https://a.example/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\nAllow: /\n",
    );
    let mut liar = response(
        "https://liar.example/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\n",
    );
    let text = String::from_utf8(liar.clone()).unwrap();
    liar = text
        .replacen("Content-Length: ", "Content-Length: 9999999", 1)
        .into_bytes();
    // One member per record: the liar's member ends, the next member is read.
    let mut data = gzip(&good);
    data.extend(gzip(&liar));
    data.extend(gzip(&good));
    let items = read(&data);
    assert_eq!(items.len(), 3);
    assert!(items[0].is_ok() && items[2].is_ok());
    let err = items[1].as_ref().unwrap_err();
    assert!(err.reason.contains("declares"), "{}", err.reason);
    // In a plain WARC the lie swallows the rest of the file: one row, and the end.
    let plain: Vec<u8> = [good.clone(), liar, good].concat();
    let items = WarcReader::new(&plain[..], "plain.warc", 512_000).collect::<Vec<_>>();
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok() && items[1].is_err());
}

#[test]
fn a_malformed_header_is_skipped_to_the_next_record() {
    let good = response(
        "https://a.example/robots.txt",
        "200 OK",
        "",
        b"User-agent: *\nAllow: /\n",
    );
    let bad = b"WARC/1.0\r\nWARC-Type: response\r\nthis line has no colon\r\n\r\n".to_vec();
    let plain: Vec<u8> = [good.clone(), bad, good].concat();
    let items = WarcReader::new(&plain[..], "plain.warc", 512_000).collect::<Vec<_>>();
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items[0].is_ok() && items[1].is_err() && items[2].is_ok());
}

fn strings(batch: &RecordBatch, column: &str) -> Vec<Option<String>> {
    let a = batch.column_by_name(column).unwrap().as_string::<i32>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i).to_owned()))
        .collect()
}

fn numbers(batch: &RecordBatch, column: &str) -> Vec<Option<u32>> {
    let a = batch
        .column_by_name(column)
        .unwrap()
        .as_primitive::<UInt32Type>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i)))
        .collect()
}

/// (agent, path) → (access, deciding line) of one capture's `agents` rows.
fn access(batch: &RecordBatch) -> HashMap<(String, String), (String, Option<u32>)> {
    let agents = strings(batch, "agent");
    let paths = strings(batch, "path");
    let access = strings(batch, "access");
    let lines = numbers(batch, "line");
    (0..batch.num_rows())
        .map(|i| {
            (
                (agents[i].clone().unwrap(), paths[i].clone().unwrap()),
                (access[i].clone().unwrap(), lines[i]),
            )
        })
        .collect()
}

#[test]
fn the_agents_table_is_the_audit_on_every_corpus_file() {
    let settings = Settings {
        paths: vec!["/search".into(), "/private/".into()],
        ..Settings::default()
    };
    let catalogue = Catalogue::builtin();
    for (name, body) in corpus() {
        let mut tables = Tables::new(&settings);
        tables.push(
            &Capture::new(
                &format!("https://{name}/robots.txt"),
                Some(200),
                body.clone(),
            ),
            None,
        );
        let batches = tables.finish().unwrap();
        let got = access(&batches.agents);
        let robots = crawlgate::Robots::parse(&body).robots;
        let expected = audit(&robots, &catalogue, &["/search", "/private/"]);
        assert_eq!(got.len(), expected.len() * 3, "{name}");
        for a in &expected {
            for p in std::iter::once(&a.root).chain(&a.paths) {
                let key = (a.crawler.name.clone(), p.path.clone());
                let want = (
                    p.access.as_str().to_owned(),
                    p.decision.rule().map(|r| r.line),
                );
                assert_eq!(got.get(&key), Some(&want), "{name}: {key:?}");
            }
        }
        // The lint counts are the parser's and the catalogue lint's.
        let parsed = crawlgate::Robots::parse(&body);
        let lint = crawlgate::audit::lint(&parsed.robots, &body, &catalogue);
        let errors = parsed
            .diagnostics
            .iter()
            .chain(&lint)
            .filter(|d| d.severity == crawlgate::Severity::Error)
            .count();
        assert_eq!(
            numbers(&batches.captures, "errors"),
            [Some(errors as u32)],
            "{name}"
        );
    }
}

/// Common Crawl's statistics job never resets its "inside a group" flag: after any earlier
/// rule, a stacked `User-agent: GPTBot / ClaudeBot / CCBot / Disallow: /` counts for CCBot
/// alone. It blocks all three.
#[test]
fn a_stacked_ai_group_after_earlier_rules_counts_for_every_agent() {
    let body = b"User-agent: *\nDisallow: /admin/\nAllow: /\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n";
    let settings = Settings {
        agents: vec![
            "GPTBot".into(),
            "ClaudeBot".into(),
            "CCBot".into(),
            "Bytespider".into(),
        ],
        ..Settings::default()
    };
    let mut tables = Tables::new(&settings);
    tables.push(
        &Capture::new("https://example.com/robots.txt", Some(200), body.to_vec()),
        None,
    );
    let batches = tables.finish().unwrap();
    let got = access(&batches.agents);
    for bot in ["GPTBot", "ClaudeBot", "CCBot"] {
        assert_eq!(
            got[&(bot.to_owned(), "/".to_owned())],
            ("blocked".to_owned(), Some(8)),
            "{bot}"
        );
    }
    // A crawler without a group of its own follows `*`.
    assert_eq!(got[&("Bytespider".to_owned(), "/".to_owned())].0, "partly");
    let groups: Vec<(Option<String>, Option<String>)> = strings(&batches.agents, "agent")
        .into_iter()
        .zip(strings(&batches.agents, "group"))
        .collect();
    assert!(
        groups.contains(&(Some("CCBot".into()), Some("token".into()))),
        "{groups:?}"
    );
    assert!(
        groups.contains(&(Some("Bytespider".into()), Some("star".into()))),
        "{groups:?}"
    );
}

fn one(capture: &Capture) -> RecordBatch {
    let settings = Settings::default();
    let mut tables = Tables::new(&settings);
    tables.push(capture, None);
    tables.finish().unwrap().captures
}

#[test]
fn hostile_captures_get_their_class() {
    let html = b"<!DOCTYPE html><html><head><title>Not found</title></head></html>";
    let c = one(&Capture::new(
        "https://a.example/robots.txt",
        Some(200),
        html.to_vec(),
    ));
    assert_eq!(strings(&c, "status_class"), [Some("not-robots".into())]);
    assert!(strings(&c, "reason")[0]
        .as_deref()
        .unwrap()
        .contains("HTML"));
    // Not UTF-8: still parsed, its problems counted.
    let latin1 = b"User-agent: *\nDisallow: /caf\xe9/\n";
    let c = one(&Capture::new(
        "https://b.example/robots.txt",
        Some(200),
        latin1.to_vec(),
    ));
    assert_eq!(strings(&c, "status_class"), [Some("rules".into())]);
    let codes = c.column_by_name("codes").unwrap().as_list::<i32>().value(0);
    let codes: Vec<&str> = codes.as_string::<i32>().iter().flatten().collect();
    assert!(codes.contains(&"invalid-utf8"), "{codes:?}");
    // Over the limit.
    let big = vec![b'#'; 600_000];
    let mut capture = Capture::new(
        "https://c.example/robots.txt",
        Some(200),
        big[..512_001].to_vec(),
    );
    capture.body_length = 600_000;
    let c = one(&capture);
    let over = c
        .column_by_name("over_limit")
        .unwrap()
        .as_boolean()
        .value(0);
    assert!(over);
    // Every row carries the schema's version, the parser and its mode.
    let v = c
        .column_by_name("schema_version")
        .unwrap()
        .as_primitive::<arrow_array::types::UInt16Type>()
        .value(0);
    assert_eq!(v, SCHEMA_VERSION);
    assert_eq!(strings(&c, "mode"), [Some("rfc".into())]);
    assert!(strings(&c, "parser")[0]
        .as_deref()
        .unwrap()
        .starts_with("crawlgate "));
}

#[test]
fn duplicate_captures_are_two_rows_with_one_answer() {
    let settings = Settings::default();
    let mut tables = Tables::new(&settings);
    let c = Capture::new(
        "https://a.example/robots.txt",
        Some(200),
        b"User-agent: *\nDisallow: /\n".to_vec(),
    );
    tables.push(&c, None);
    tables.push(&c, None);
    let b = tables.finish().unwrap();
    assert_eq!(b.captures.num_rows(), 2);
    let sha = strings(&b.captures, "body_sha256");
    assert_eq!(sha[0], sha[1]);
    let n = settings.catalogue.crawlers().len();
    let access = strings(&b.agents, "access");
    assert_eq!(access.len(), 2 * n);
    assert!(access.iter().all(|a| a.as_deref() == Some("blocked")));
}

#[test]
fn redirects_resolve_through_the_input() {
    let max = 512_000;
    let mut redirects = Redirects::new();
    let moved = |from: &str, to: &str| {
        let mut c = Capture::new(from, Some(301), b"<html>moved</html>".to_vec());
        c.location = Some(to.to_owned());
        c
    };
    for c in [
        moved(
            "http://a.example/robots.txt",
            "https://a.example/robots.txt",
        ),
        moved(
            "http://loop.example/robots.txt",
            "http://loop.example/robots.txt?x",
        ),
        moved(
            "http://loop.example/robots.txt?x",
            "http://loop.example/robots.txt",
        ),
        moved(
            "http://lost.example/robots.txt",
            "http://elsewhere.example/robots.txt",
        ),
    ] {
        assert!(redirects.hold(c, max).is_none());
    }
    let target = Capture::new(
        "https://a.example/robots.txt",
        Some(200),
        b"User-agent: *\nDisallow: /\n".to_vec(),
    );
    let wanted = redirects.wanted();
    assert!(Redirects::wants(&wanted, &target.url));
    let targets = HashMap::from([("https://a.example/robots.txt".to_owned(), target)]);
    let settings = Settings::default();
    let mut tables = Tables::new(&settings);
    for (c, r) in redirects.resolve(&targets) {
        let r = match r {
            Resolution::Missing => None,
            r => Some(r),
        };
        tables.push(c, r.as_ref());
    }
    let b = tables.finish().unwrap();
    assert_eq!(
        strings(&b.captures, "status_class"),
        [
            Some(StatusClass::Rules.as_str().into()),
            Some("allow-all".into()),
            Some("allow-all".into()),
            Some("redirect-unresolved".into()),
        ]
    );
    assert_eq!(
        strings(&b.captures, "redirect_target")[0].as_deref(),
        Some("https://a.example/robots.txt")
    );
    assert_eq!(
        strings(&b.captures, "reason")[1].as_deref(),
        Some("redirect loop")
    );
    // The resolved redirect's agents are blocked by the target's rules; the unresolved one has
    // no agents rows.
    let n = settings.catalogue.crawlers().len();
    assert_eq!(b.agents.num_rows(), 3 * n);
}

/// The column names of a Markdown table: the names in backticks in each row's first cell.
fn columns_of(table: &str) -> Vec<String> {
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            let first = l.split(" | ").next().unwrap();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// docs/batch.md documents every column of every table, and only columns that exist: the
/// common columns under "The schema", each table's own under its heading.
#[test]
fn the_docs_name_every_column() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/batch.md"))
        .unwrap();
    let schema = docs.split("\n## The schema").nth(1).unwrap();
    let section = |heading: &str| -> Vec<String> {
        let text = schema
            .split("\n### ")
            .find(|s| s.starts_with(heading))
            .unwrap_or_else(|| panic!("no section {heading}"));
        let table = if heading.is_empty() {
            text.split("\n### ").next().unwrap()
        } else {
            text
        };
        columns_of(table)
    };
    let common = section("");
    assert_eq!(
        common,
        ["schema_version", "parser", "mode", "input", "record", "url"]
    );
    for (name, schema) in Tables::schemas() {
        let mut documented = common.clone();
        documented.extend(section(&format!("`{name}`")));
        let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(documented, columns, "docs/batch.md's `{name}` table");
    }
    // The input schema, under its own heading with the command.
    let input = docs
        .split("\n### The input schema")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .expect("docs/batch.md has an input schema section");
    let documented = columns_of(input);
    let columns: Vec<String> = crawlgate::batch::rows::schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(documented, columns, "docs/batch.md's input schema");
}

mod oracle {
    //! The `agents` table's access (the audit's) against a brute-force oracle: every path
    //! under the one asked about, up to four more bytes over the patterns' alphabet and one
    //! byte outside it, checked one by one. `allowed` must mean every one is allowed, `blocked`
    //! every one blocked; mixed answers must be `partly` (which may also be said when the
    //! patterns cannot be told apart as written).
    use crawlgate::audit::{audit, Access, Catalogue};
    use crawlgate::{ProductToken, Robots};
    use proptest::prelude::*;

    fn pattern() -> impl Strategy<Value = String> {
        ("[ab/*]{0,4}", any::<bool>())
            .prop_map(|(p, anchored)| format!("/{p}{}", if anchored { "$" } else { "" }))
    }

    fn rules() -> impl Strategy<Value = Vec<(bool, String)>> {
        proptest::collection::vec((any::<bool>(), pattern()), 1..6)
    }

    fn under(path: &str) -> Vec<String> {
        let mut all = vec![path.to_owned()];
        let mut frontier = vec![path.to_owned()];
        for _ in 0..4 {
            let next: Vec<String> = frontier
                .iter()
                .flat_map(|p| ["a", "b", "/", "c"].map(|c| format!("{p}{c}")))
                .collect();
            all.extend(next.iter().cloned());
            frontier = next;
        }
        all
    }

    /// What the oracle found first: a disallow ending in `$` blocks only the path itself.
    #[test]
    fn an_anchored_disallow_leaves_the_rest_open() {
        let robots = Robots::parse(b"User-agent: GPTBot\nDisallow: /$\n").robots;
        let catalogue = Catalogue::builtin();
        let report = audit(&robots, &catalogue, &[]);
        let gptbot = report.iter().find(|a| a.crawler.name == "GPTBot").unwrap();
        assert_eq!(gptbot.root.access, Access::Partly);
        assert!(!gptbot.root.decision.allowed);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn access_agrees_with_every_path_under_it(
            own in rules(),
            star in rules(),
            path in "/([ab]{1,2}/?){0,2}",
        ) {
            let mut body = String::from("User-agent: *\n");
            for (allow, p) in &star {
                body.push_str(&format!("{}: {p}\n", if *allow { "Allow" } else { "Disallow" }));
            }
            body.push_str("\nUser-agent: GPTBot\n");
            for (allow, p) in &own {
                body.push_str(&format!("{}: {p}\n", if *allow { "Allow" } else { "Disallow" }));
            }
            let robots = Robots::parse(body.as_bytes()).robots;
            let catalogue = Catalogue::builtin();
            let report = audit(&robots, &catalogue, &[path.as_str()]);
            let gptbot = ProductToken::new("GPTBot").unwrap();
            for a in report.iter().filter(|a| a.crawler.name == "GPTBot" || a.crawler.name == "CCBot") {
                let token = a.crawler.token.clone().unwrap_or_else(|| gptbot.clone());
                let verdicts: Vec<bool> = under(&path)
                    .iter()
                    .map(|p| robots.check_path(&token, p).allowed)
                    .collect();
                let all = verdicts.iter().all(|&v| v);
                let none = verdicts.iter().all(|&v| !v);
                let access = a.paths[0].access;
                match access {
                    Access::Allowed => prop_assert!(all, "{body}\n{path}: allowed, but some path under it is not"),
                    Access::Blocked => prop_assert!(none, "{body}\n{path}: blocked, but some path under it is allowed"),
                    Access::Partly => {}
                }
                if !all && !none {
                    prop_assert_eq!(access, Access::Partly, "{}\n{}", body, path);
                }
            }
        }
    }
}

/// The `warc` fuzz target's invariants (`fuzz/src/lib.rs`) on the WARCs these tests write, cut
/// at many lengths and with bytes flipped: a truncated or damaged file read record by record.
#[cfg(feature = "sitemap")]
#[test]
fn the_warc_fuzz_invariants_hold_on_cut_and_damaged_files() {
    use crate::invariants::assert_warc;
    let (gz, _) = corpus_warc_gz();
    let mut plain = warcinfo("CC-MAIN-2025-05");
    plain.extend(response(
        "https://a.test/robots.txt",
        "200 OK",
        "Content-Type: text/plain\r\n",
        b"User-agent: *\nDisallow: /x\n",
    ));
    plain.extend(response("https://b.test/robots.txt", "503 Busy", "", b""));
    for data in [&gz[..], &plain[..]] {
        for max_body in [8, 512_000] {
            assert_warc(data, max_body);
            for cut in (0..data.len()).step_by(data.len() / 97 + 1) {
                assert_warc(&data[..cut], max_body);
                let mut damaged = data.to_vec();
                damaged[cut] ^= 0x5a;
                assert_warc(&damaged, max_body);
            }
        }
    }
}

/// The `batch_rows` fuzz target's invariants (`fuzz/src/lib.rs`) on JSON Lines of the corpus
/// (text and base64 bodies, every optional field, rows that are not captures), whole and cut
/// at many lengths.
#[test]
fn the_rows_fuzz_invariants_hold_on_the_corpus_as_json_lines() {
    use crate::invariants::assert_batch_rows;
    use base64::Engine as _;
    let mut jsonl = Vec::new();
    for (i, (host, body)) in corpus().iter().enumerate() {
        let url = format!("https://{host}/robots.txt");
        let row = match i % 3 {
            0 => serde_json::json!({"url": url, "status": 200,
                "body_text": String::from_utf8_lossy(body)}),
            1 => serde_json::json!({"url": url, "status": 200,
                "body": base64::engine::general_purpose::STANDARD.encode(body),
                "fetch_time": "2025-01-01T00:00:00Z", "content_type": "text/plain"}),
            _ => serde_json::json!({"url": url, "status": null, "location": "/elsewhere"}),
        };
        jsonl.extend(serde_json::to_vec(&row).unwrap());
        jsonl.push(b'\n');
    }
    jsonl.extend(b"\nnot json\n{\"status\": 200}\n{\"url\": \"x\", \"body\": \"!!\"}\n");
    for max_body in [8, 512_000] {
        assert_batch_rows(&jsonl, max_body);
        for cut in (0..jsonl.len()).step_by(jsonl.len() / 97 + 1) {
            assert_batch_rows(&jsonl[..cut], max_body);
        }
    }
}

/// A gzip member cut short anywhere (its inflater then reads on into the members after it, as
/// if they were its own data) costs its own record only: every member after it is read, at its
/// own offset, and the damage is one `Unreadable` row at the cut member's offset.
#[test]
fn a_member_cut_short_loses_no_member_after_it() {
    let files = corpus();
    let members: Vec<Vec<u8>> = files
        .iter()
        .map(|(name, body)| {
            gzip(&response(
                &format!("https://{name}/robots.txt"),
                "200 OK",
                "",
                body,
            ))
        })
        .collect();
    let victim = 3;
    // Every cut, from inside the gzip header to inside its trailer.
    for keep in (1..members[victim].len()).step_by(7) {
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for (i, m) in members.iter().enumerate() {
            offsets.push(data.len() as u64);
            if i == victim {
                data.extend(&m[..keep]);
            } else {
                data.extend(m);
            }
        }
        let items = read(&data);
        let read_urls: Vec<&str> = items
            .iter()
            .filter_map(|i| i.as_ref().ok())
            .map(|c| c.url.as_str())
            .collect();
        let expected: Vec<String> = files
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != victim)
            .map(|(_, (name, _))| format!("https://{name}/robots.txt"))
            .collect();
        assert_eq!(read_urls, expected, "cut to {keep} bytes");
        let damage: Vec<&Unreadable> = items.iter().filter_map(|i| i.as_ref().err()).collect();
        assert_eq!(damage.len(), 1, "cut to {keep} bytes: {damage:?}");
        assert_eq!(damage[0].place.offset, Some(offsets[victim]));
        for item in items.iter().filter_map(|i| i.as_ref().ok()) {
            let n = files
                .iter()
                .position(|(name, _)| item.url == format!("https://{name}/robots.txt"))
                .unwrap();
            assert_eq!(item.place.offset, Some(offsets[n]), "{}", item.url);
            assert_eq!(item.body, files[n].1);
        }
    }
}
