//! One fixture per sitemap diagnostic code, in `testdata/sitemap/diagnostics/`: each `NAME.xml`,
//! `NAME.txt` or `NAME.gz` has a `NAME.expect` listing, in order, exactly the diagnostics it
//! gives (`line:column code`). Header lines in the `.expect` file set up the run:
//!
//! - `# options: max_bytes=N max_entries=N max_text_bytes=N` — smaller limits, to reach the size codes with
//!   small files (the real limits are tested in `tests/sitemap_limits.rs`);
//! - `# fail_after: N` — the source fails with an I/O error after N bytes;
//! - `# robots: FILE` and `# agent: TOKEN` — cross-check entries against that robots.txt;
//! - `# location: URL` — where the sitemap lives: its entries must be under that directory.
//!
//! Directory fixtures (`NAME/` with a `robots.txt`) run a discovery walk over the files in the
//! directory, served by name as `https://example.com/FILE`; their `.expect` lines are
//! `FILE line:column code`.
use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crawlgate::sitemap::discover::{Walk, WalkOptions};
use crawlgate::sitemap::{Code, CrossCheck, Item, Options, Reader, Scope};
use crawlgate::{Origin, ProductToken, Robots};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sitemap/diagnostics")
}

/// A source that fails after `left` bytes.
struct Failing<R> {
    inner: R,
    left: usize,
}

impl<R: Read> Read for Failing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "connection reset",
            ));
        }
        let n = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..n])?;
        self.left -= n;
        Ok(n)
    }
}

struct Expect {
    options: Options,
    fail_after: Option<usize>,
    robots: Option<String>,
    agent: Option<String>,
    location: Option<String>,
    lines: Vec<String>,
}

fn read_expect(path: &Path) -> Expect {
    let text = fs::read_to_string(path).unwrap();
    let mut e = Expect {
        options: Options::default(),
        fail_after: None,
        robots: None,
        agent: None,
        location: None,
        lines: Vec::new(),
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# options:") {
            for kv in rest.split_whitespace() {
                let (k, v) = kv.split_once('=').unwrap();
                match k {
                    "max_bytes" => e.options.max_bytes = v.parse().unwrap(),
                    "max_entries" => e.options.max_entries = v.parse().unwrap(),
                    "max_text_bytes" => e.options.max_text_bytes = v.parse().unwrap(),
                    other => panic!("{}: unknown option {other}", path.display()),
                }
            }
        } else if let Some(rest) = line.strip_prefix("# fail_after:") {
            e.fail_after = Some(rest.trim().parse().unwrap());
        } else if let Some(rest) = line.strip_prefix("# robots:") {
            e.robots = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("# agent:") {
            e.agent = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("# location:") {
            e.location = Some(rest.trim().to_owned());
        } else if line.starts_with('#') || line.trim().is_empty() {
            continue;
        } else {
            e.lines.push(line.trim().to_owned());
        }
    }
    e
}

/// What a file fixture gives, as `line:column code` lines.
fn run_file(path: &Path, e: &Expect) -> Vec<String> {
    let bytes = fs::read(path).unwrap();
    let source: Box<dyn Read> = match e.fail_after {
        Some(n) => Box::new(Failing {
            inner: io::Cursor::new(bytes),
            left: n,
        }),
        None => Box::new(io::Cursor::new(bytes)),
    };
    let robots = e
        .robots
        .as_ref()
        .map(|r| Robots::parse(&fs::read(dir().join(r)).unwrap()).robots);
    let agent = ProductToken::new(e.agent.as_deref().unwrap_or("googlebot")).unwrap();
    let check = robots.as_ref().map(|r| CrossCheck::new(r, &agent));
    let scope = e.location.as_deref().map(|u| Scope::location(u).unwrap());
    let mut out = Vec::new();
    for item in Reader::with_options(source, e.options.clone()) {
        let diagnostics = match item {
            Item::Diagnostic(d) => vec![d],
            Item::Entry(entry) => {
                let mut found = check.as_ref().map_or_else(Vec::new, |c| c.check(&entry));
                found.extend(scope.as_ref().and_then(|s| s.check(&entry)));
                found
            }
        };
        for d in diagnostics {
            assert_eq!(d.severity, d.code.default_severity());
            out.push(format!("{}:{} {}", d.line(), d.column(), d.code));
        }
    }
    out
}

/// What a directory fixture's walk gives, as `FILE line:column code` lines (FILE: the sitemap
/// whose report holds the diagnostic; walk-level ones sit where the parent lists it, or at 0:0
/// for a sitemap robots.txt announced).
fn run_walk(dir: &Path) -> Vec<String> {
    let robots = Robots::parse(&fs::read(dir.join("robots.txt")).unwrap()).robots;
    let announced = robots.sitemaps().map(|s| s.url.to_owned());
    let mut options = WalkOptions::default();
    options.scope = Some(Scope::site(
        Origin::from_url("https://example.com/").unwrap(),
    ));
    let mut walk = Walk::new(announced, options);
    while let Some(request) = walk.next_request() {
        let file = request.url.strip_prefix("https://example.com/").unwrap();
        let body = fs::read(dir.join(file)).map_err(|_| "HTTP 404".to_owned());
        walk.record(request, body.as_deref().map_err(Clone::clone), None);
    }
    let mut out = Vec::new();
    for report in walk.finish().sitemaps {
        let file = report.url.rsplit('/').next().unwrap().to_owned();
        for d in &report.diagnostics {
            assert_eq!(d.severity, d.code.default_severity());
            out.push(format!("{file} {}:{} {}", d.line(), d.column(), d.code));
        }
    }
    out
}

#[test]
fn every_walk_fixture_gives_exactly_its_expected_diagnostics() {
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let e = read_expect(&dir().join(format!("{name}.expect")));
        let got = run_walk(&path);
        count += 1;
        if got != e.lines {
            failures.push(format!(
                "{name}/:\n  expected {:?}\n  got      {:?}",
                e.lines, got
            ));
        }
    }
    assert!(count >= 4, "only {count} walk fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_gives_exactly_its_expected_diagnostics() {
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir()
            || name.ends_with(".expect")
            || name.ends_with(".robots.txt")
            || name == "README.md"
        {
            continue;
        }
        let stem = name.split('.').next().unwrap();
        let expect_path = dir().join(format!("{stem}.expect"));
        let e = read_expect(&expect_path);
        let got = run_file(&path, &e);
        count += 1;
        if got != e.lines {
            failures.push(format!(
                "{name}:\n  expected {:?}\n  got      {:?}",
                e.lines, got
            ));
        }
    }
    assert!(count >= 30, "only {count} fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_code_has_a_fixture_that_shows_it() {
    let mut shown = BTreeSet::new();
    for entry in fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "expect") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let e = read_expect(&path);
            let code =
                Code::from_name(&stem).unwrap_or_else(|| panic!("{stem}.expect names no code"));
            assert!(
                e.lines.iter().any(|l| l.ends_with(&format!(" {stem}"))),
                "{stem}.expect does not expect {stem}"
            );
            shown.insert(code);
        }
    }
    let missing: Vec<_> = Code::ALL.iter().filter(|c| !shown.contains(c)).collect();
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
}
