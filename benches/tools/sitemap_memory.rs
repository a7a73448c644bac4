//! Peak memory (and time) of streaming a large sitemap from a file: crawlgate's
//! `sitemap::Reader` against `sitemapo` 0.3.0, on the generated video sitemap of
//! `benches/support/video_sitemap.rs` (50 MiB by default: 52,428,800 bytes, the protocol's limit).
//!
//! Each parse runs in a process of its own, so that its peak resident set (`VmHWM` in
//! `/proc/self/status`, Linux) is the parser's: the file is streamed from disk (crawlgate's reader
//! takes the `File` itself; sitemapo needs a `BufRead` and gets a 64 KiB `BufReader`) and nothing
//! else big is allocated. The peak is printed twice: just before the
//! parser is created (the process's baseline) and after the last item.
//!
//! ```sh
//! # Everything: generate a temporary file (and its .gz) and parse it in a child process per
//! # parser: crawlgate, crawlgate on the .gz, sitemapo, sitemapo on the .gz (inflated by flate2).
//! cargo run --release --example sitemap_memory -- all [MiB]
//!
//! # Or step by step:
//! cargo run --release --example sitemap_memory -- generate /tmp/video-sitemap.xml [MiB]
//! cargo run --release --example sitemap_memory -- generate /tmp/video-sitemap.xml.gz [MiB]
//! cargo run --release --example sitemap_memory -- parse crawlgate /tmp/video-sitemap.xml
//! cargo run --release --example sitemap_memory -- parse crawlgate /tmp/video-sitemap.xml.gz
//! cargo run --release --example sitemap_memory -- parse sitemapo /tmp/video-sitemap.xml
//! cargo run --release --example sitemap_memory -- parse sitemapo /tmp/video-sitemap.xml.gz
//! ```
//!
//! `generate` gzip-compresses when the path ends in `.gz`. crawlgate tells gzip from the bytes;
//! sitemapo leaves decompression to the caller, so `parse sitemapo` puts flate2's
//! `MultiGzDecoder` in front of it when the file starts with the gzip magic bytes. Throughput is
//! of uncompressed XML bytes.

#[path = "../support/video_sitemap.rs"]
mod video_sitemap;

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use crawlgate::sitemap::{Item, Reader};

const USAGE: &str = "usage: sitemap_memory all [MiB]
       sitemap_memory generate PATH[.gz] [MiB]
       sitemap_memory parse crawlgate|sitemapo PATH";

/// The buffer between the file and the parser.
const BUFFER: usize = 64 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["all"] => all(50),
        ["all", mib] => mib_arg(mib).and_then(all),
        ["generate", path] => generate(Path::new(path), 50),
        ["generate", path, mib] => mib_arg(mib).and_then(|mib| generate(Path::new(path), mib)),
        ["parse", parser, path] => parse(parser, Path::new(path)),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn mib_arg(mib: &str) -> Result<usize, String> {
    mib.parse()
        .map_err(|_| format!("not a number of MiB: {mib}\n{USAGE}"))
}

/// Writes the sitemap (gzip-compressed if `path` ends in `.gz`).
fn generate(path: &Path, mib: usize) -> Result<(), String> {
    let bytes = video_sitemap::video_sitemap(mib * 1024 * 1024);
    let entries = video_sitemap::count(&bytes, video_sitemap::ENTRY_OPEN);
    let videos = video_sitemap::count(&bytes, video_sitemap::VIDEO_OPEN);
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let written = if path.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        gz.write_all(&bytes)
            .and_then(|()| gz.finish())
            .and_then(|f| f.metadata())
    } else {
        let mut file = file;
        file.write_all(&bytes).and_then(|()| file.metadata())
    }
    .map_err(|e| format!("{}: {e}", path.display()))?;
    println!(
        "{}: {} bytes of XML ({entries} entries, {videos} videos), {} bytes on disk",
        path.display(),
        bytes.len(),
        written.len()
    );
    Ok(())
}

/// Generates the file and its .gz in the temporary directory, parses each in a child process
/// per parser, then removes them.
fn all(mib: usize) -> Result<(), String> {
    let dir = std::env::temp_dir();
    let xml: PathBuf = dir.join(format!(
        "crawlgate-video-sitemap-{}.xml",
        std::process::id()
    ));
    let gz = xml.with_extension("xml.gz");
    let result = (|| {
        generate(&xml, mib)?;
        generate(&gz, mib)?;
        let me = std::env::current_exe().map_err(|e| e.to_string())?;
        for (parser, path) in [
            ("crawlgate", &xml),
            ("crawlgate", &gz),
            ("sitemapo", &xml),
            ("sitemapo", &gz),
        ] {
            println!();
            let status = Command::new(&me)
                .args(["parse", parser])
                .arg(path)
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!(
                    "parse {parser} {} failed: {status}",
                    path.display()
                ));
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_file(&xml);
    let _ = std::fs::remove_file(&gz);
    result
}

/// Parses the file with one parser and prints counts, time, throughput and peak memory.
fn parse(parser: &str, path: &Path) -> Result<(), String> {
    let open = || File::open(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut magic = [0u8; 2];
    open()?
        .read_exact(&mut magic)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let gzip = magic == [0x1f, 0x8b];
    let file = open()?;
    let on_disk = file.metadata().map_err(|e| e.to_string())?.len();

    let before = peak_rss_kib();
    let start = Instant::now();
    let (entries, videos, problems) = match parser {
        "crawlgate" => {
            let (mut entries, mut videos, mut diagnostics) = (0, 0, 0);
            // crawlgate reads any `Read` (and tells gzip from the bytes): the file as it is.
            for item in Reader::new(file) {
                match item {
                    Item::Entry(entry) => {
                        entries += 1;
                        videos += entry.videos.len();
                    }
                    Item::Diagnostic(_) => diagnostics += 1,
                }
            }
            (entries, videos, format!("{diagnostics} diagnostics"))
        }
        "sitemapo" => {
            let input: Box<dyn BufRead> = if gzip {
                let gz = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUFFER, file));
                Box::new(BufReader::with_capacity(BUFFER, gz))
            } else {
                Box::new(BufReader::with_capacity(BUFFER, file))
            };
            let (mut entries, mut videos, mut error) = (0, 0, None);
            for record in sitemapo::Parser::new(input) {
                match record {
                    Ok(sitemapo::Record::Entry(entry)) => {
                        entries += 1;
                        videos += entry.videos.len();
                    }
                    Ok(sitemapo::Record::Sitemap(_)) => {}
                    Err(e) => error = Some(e.to_string()),
                }
            }
            let problems = match error {
                Some(e) => format!("stopped by an error: {e}"),
                None => "no error".to_owned(),
            };
            (entries, videos, problems)
        }
        other => return Err(format!("unknown parser {other}\n{USAGE}")),
    };
    let elapsed = start.elapsed();
    let after = peak_rss_kib();

    // The XML size of a .gz file: inflate it again, after the measurement.
    let xml_bytes = if gzip {
        std::io::copy(
            &mut flate2::read::MultiGzDecoder::new(BufReader::new(open()?)),
            &mut std::io::sink(),
        )
        .map_err(|e| e.to_string())?
    } else {
        on_disk
    };
    let secs = elapsed.as_secs_f64();
    println!(
        "{parser} on {} ({}{} bytes on disk): {entries} entries, {videos} videos, {problems}",
        path.display(),
        if gzip { "gzip, " } else { "" },
        on_disk
    );
    println!(
        "  {xml_bytes} bytes of XML in {:.3} s: {:.1} MiB/s ({:.1} MB/s)",
        secs,
        xml_bytes as f64 / (1024.0 * 1024.0) / secs,
        xml_bytes as f64 / 1e6 / secs
    );
    println!(
        "  peak RSS (VmHWM): {} before parsing, {} after ({} of growth)",
        mib(before),
        mib(after),
        match (before, after) {
            (Some(b), Some(a)) => format!("{:.1} MiB", a.saturating_sub(b) as f64 / 1024.0),
            _ => "unknown".to_owned(),
        }
    );
    Ok(())
}

/// `VmHWM` (the peak resident set) of this process, in KiB; `None` off Linux.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mib(kib: Option<u64>) -> String {
    match kib {
        Some(k) => format!("{:.1} MiB", k as f64 / 1024.0),
        None => "unknown".to_owned(),
    }
}
