//! Loader for the robots-bench corpus, shared by the benches and `benches/tools/corpus_survey.rs`.
//!
//! The corpus lives outside the repository, in `../shared/corpus/robots-bench` relative to the
//! crate root (override with the `CRAWLGATE_BENCH_CORPUS` environment variable):
//!
//! - `robotfiles/NAME`: the robots.txt body served by site NAME (1,613 files, 2 not UTF-8);
//! - `links/NAME`: URLs seen on site NAME, one per line.
//!
//! Standard workload: *parse* every file of `robotfiles/` as bytes; *check* every URL of
//! `links/NAME` against `robotfiles/NAME` for every NAME that has both (111,215 URLs), as
//! `googlebot`. The corpus is read once per process; when it is absent, [`corpus`] prints why
//! and returns `None`, and callers exit successfully.
//!
//! Also here: the short Criterion configuration the benches share, and a no-op robotstxt
//! parse handler.
#![allow(dead_code)] // Each bench and example uses a different part of this module.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Environment variable naming the corpus directory.
pub const CORPUS_ENV: &str = "CRAWLGATE_BENCH_CORPUS";

/// The product token of the check workload.
pub const AGENT: &str = "googlebot";

/// One site of the check workload.
pub struct Site {
    /// The site's name (its file name in both folders).
    pub name: String,
    /// Its robots.txt body, bytes as stored.
    pub robots: Vec<u8>,
    /// Its URLs, in file order.
    pub urls: Vec<String>,
}

/// The whole corpus, sorted by name.
pub struct Corpus {
    /// Every robots.txt file: (name, bytes).
    pub files: Vec<(String, Vec<u8>)>,
    /// Every site that has both a robots.txt and a link list.
    pub sites: Vec<Site>,
}

impl Corpus {
    /// Total bytes of all robots.txt files (the parse workload).
    pub fn total_bytes(&self) -> usize {
        self.files.iter().map(|(_, b)| b.len()).sum()
    }

    /// Number of URLs in the check workload.
    pub fn url_count(&self) -> usize {
        self.sites.iter().map(|s| s.urls.len()).sum()
    }
}

/// Where the corpus is looked for.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os(CORPUS_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/robots-bench"),
    }
}

/// The corpus, read on first use; `None` (with a message on stderr) when it is absent.
pub fn corpus() -> Option<&'static Corpus> {
    static CORPUS: OnceLock<Option<Corpus>> = OnceLock::new();
    CORPUS.get_or_init(load).as_ref()
}

fn load() -> Option<Corpus> {
    let dir = corpus_dir();
    let robot_dir = dir.join("robotfiles");
    let link_dir = dir.join("links");
    if !robot_dir.is_dir() || !link_dir.is_dir() {
        eprintln!(
            "robots-bench corpus not found at {} (expected robotfiles/ and links/ inside); \
             set {CORPUS_ENV} to its directory.",
            dir.display()
        );
        return None;
    }

    let files: Vec<(String, Vec<u8>)> = sorted_names(&robot_dir)
        .into_iter()
        .map(|name| {
            let path = robot_dir.join(&name);
            let bytes = fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read corpus file {}: {e}", path.display()));
            (name, bytes)
        })
        .collect();

    let mut sites = Vec::new();
    for (name, robots) in &files {
        let path = link_dir.join(name);
        if !path.is_file() {
            continue;
        }
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read link list {}: {e}", path.display()));
        let urls = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect();
        sites.push(Site {
            name: name.clone(),
            robots: robots.clone(),
            urls,
        });
    }
    Some(Corpus { files, sites })
}

fn sorted_names(dir: &Path) -> Vec<String> {
    let entries = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list corpus folder {}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap_or_else(|e| panic!("cannot list corpus folder {}: {e}", dir.display())))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Criterion with short runs by default (the bench machine has 2 cores): 10 samples, 1 s of
/// warm-up, 3 s of measurement. Command-line flags (`--measurement-time` …) override these.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

/// robotstxt reports what it reads through callbacks; these do nothing, so that a bench
/// measures its parser alone.
pub struct NoopHandler;

impl robotstxt::RobotsParseHandler for NoopHandler {
    fn handle_robots_start(&mut self) {}
    fn handle_robots_end(&mut self) {}
    fn handle_user_agent(&mut self, _line: u32, _user_agent: &str) {}
    fn handle_allow(&mut self, _line: u32, _value: &str) {}
    fn handle_disallow(&mut self, _line: u32, _value: &str) {}
    fn handle_sitemap(&mut self, _line: u32, _value: &str) {}
    fn handle_unknown_action(&mut self, _line: u32, _action: &str, _value: &str) {}
}
