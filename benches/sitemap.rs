//! Streaming sitemap throughput on a generated 50 MiB video sitemap (52,428,800 bytes, the
//! protocol's limit; see `benches/support/video_sitemap.rs`), beside the peer `sitemapo` 0.3.0
//! (quick-xml 0.42, like crawlgate). Criterion reports MiB/s of uncompressed XML.
//!
//! - `crawlgate`: `sitemap::Reader` over the bytes, iterated to the end, counting the entries and
//!   their videos;
//! - `crawlgate-gz`: the same over the gzip-compressed file (compressed once, in setup): the
//!   reader tells gzip from the bytes, so the time includes inflating;
//! - `sitemapo`: `sitemapo::Parser` over the bytes, iterated to the end, counting the same;
//! - `quick-xml-tokens`: quick-xml alone (the tokenizer under both), its bare events read to
//!   the end straight from the bytes (namespaces unresolved,
//!   nothing decoded or checked): the floor a reader built on it cannot go below;
//! - `quick-xml-ns-tokens`: the same through `NsReader`, resolving each start tag's namespace,
//!   as crawlgate's reader configures it.
//!
//! Before measuring, the three are run once and must agree on the number of entries and videos
//! (and that number must be the generator's); the counts are printed.
//!
//! Run: `cargo bench --bench sitemap` (10 flat samples, 3 s warm-up, 20 s each: about 1.5 min).
//! Another size: `CRAWLGATE_SITEMAP_MB=10 cargo bench --bench sitemap`.

#[path = "support/video_sitemap.rs"]
mod video_sitemap;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::{Read, Write};
use std::time::Duration;

use crawlgate::sitemap::{Item, Reader};
use criterion::{Criterion, SamplingMode, Throughput};

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(3))
        .measurement_time(Duration::from_secs(20))
        .configure_from_args();
    bench_sitemap(&mut c);
    c.final_summary();
}

/// Entries and videos seen by one parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    entries: usize,
    videos: usize,
}

/// Iterates crawlgate's reader to the end. `problems` (when given) tallies the diagnostics.
fn crawlgate(input: impl Read, mut problems: Option<&mut BTreeMap<String, usize>>) -> Counts {
    let mut counts = Counts {
        entries: 0,
        videos: 0,
    };
    for item in Reader::new(input) {
        match black_box(item) {
            Item::Entry(entry) => {
                counts.entries += 1;
                counts.videos += entry.videos.len();
            }
            Item::Diagnostic(d) => {
                if let Some(problems) = problems.as_deref_mut() {
                    *problems
                        .entry(format!("{} {}", d.severity.as_str(), d.code.as_str()))
                        .or_default() += 1;
                }
            }
        }
    }
    counts
}

/// Iterates sitemapo's parser to the end (it stops at its first error, which `error` keeps).
fn sitemapo(input: &[u8], error: Option<&mut Option<String>>) -> Counts {
    let mut counts = Counts {
        entries: 0,
        videos: 0,
    };
    let mut first_error = None;
    for record in sitemapo::Parser::new(input) {
        match black_box(record) {
            Ok(sitemapo::Record::Entry(entry)) => {
                counts.entries += 1;
                counts.videos += entry.videos.len();
            }
            Ok(sitemapo::Record::Sitemap(_)) => {}
            Err(e) => first_error = Some(e.to_string()),
        }
    }
    if let Some(error) = error {
        *error = first_error;
    }
    counts
}

/// quick-xml's events read to the end, counted (`ns`: through `NsReader`, each start tag's
/// namespace resolved).
fn quick_xml_events(input: &[u8], ns: bool) -> usize {
    use quick_xml::events::Event;
    let mut buf = Vec::with_capacity(4096);
    let mut events = 0;
    if ns {
        let mut reader = quick_xml::NsReader::from_reader(input);
        let config = reader.config_mut();
        config.expand_empty_elements = false;
        config.check_end_names = true;
        config.trim_text(false);
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(Event::Eof) | Err(_) => break,
                Ok(Event::Start(e) | Event::Empty(e)) => {
                    black_box(reader.resolver().resolve_element(e.name()));
                }
                Ok(event) => {
                    black_box(event);
                }
            }
            events += 1;
            buf.clear();
        }
    } else {
        let mut reader = quick_xml::Reader::from_reader(input);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.trim_text(false);
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(Event::Eof) | Err(_) => break,
                Ok(event) => {
                    black_box(event);
                }
            }
            events += 1;
            buf.clear();
        }
    }
    events
}

fn bench_sitemap(c: &mut Criterion) {
    let mib: usize = std::env::var("CRAWLGATE_SITEMAP_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let bytes = video_sitemap::video_sitemap(mib * 1024 * 1024);
    let generated = Counts {
        entries: video_sitemap::count(&bytes, video_sitemap::ENTRY_OPEN),
        videos: video_sitemap::count(&bytes, video_sitemap::VIDEO_OPEN),
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let gz = gz.finish().unwrap();
    println!(
        "video sitemap: {} bytes ({:.2} MiB), gzip {} bytes; generated {} entries, {} videos",
        bytes.len(),
        bytes.len() as f64 / (1024.0 * 1024.0),
        gz.len(),
        generated.entries,
        generated.videos,
    );

    // Sanity: every parser sees every entry and video.
    let mut problems = BTreeMap::new();
    let ours = crawlgate(&bytes[..], Some(&mut problems));
    let mut problems_gz = BTreeMap::new();
    let ours_gz = crawlgate(&gz[..], Some(&mut problems_gz));
    let mut error = None;
    let theirs = sitemapo(&bytes[..], Some(&mut error));
    println!("crawlgate:    {ours:?}, diagnostics {problems:?}");
    println!("crawlgate-gz: {ours_gz:?}, diagnostics {problems_gz:?}");
    println!("sitemapo:     {theirs:?}, error {error:?}");
    assert_eq!(ours, generated, "crawlgate does not see every entry");
    assert_eq!(ours_gz, generated, "crawlgate-gz does not see every entry");
    assert_eq!(theirs, generated, "sitemapo does not see every entry");

    let mut group = c.benchmark_group(format!("sitemap_{mib}mb"));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    // One iteration takes a good part of a second: the same number of iterations per sample.
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("crawlgate", |b| {
        b.iter(|| crawlgate(black_box(&bytes[..]), None))
    });
    group.bench_function("crawlgate-gz", |b| {
        b.iter(|| crawlgate(black_box(&gz[..]), None))
    });
    group.bench_function("sitemapo", |b| {
        b.iter(|| sitemapo(black_box(&bytes[..]), None))
    });
    group.bench_function("quick-xml-tokens", |b| {
        b.iter(|| quick_xml_events(black_box(&bytes[..]), false))
    });
    group.bench_function("quick-xml-ns-tokens", |b| {
        b.iter(|| quick_xml_events(black_box(&bytes[..]), true))
    });
    group.finish();
}
