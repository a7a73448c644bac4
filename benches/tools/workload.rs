//! One pass of a bench workload, for counting instructions under callgrind, which repeat
//! exactly where wall-clock figures on a shared 2-core machine do not:
//!
//! ```sh
//! cargo build --profile bench --example workload
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/workload check
//! ```
//!
//! `load` only reads the corpus (subtract it from the others); `parse` parses every file once
//! (`Mode::Rfc`); `parse-quiet` the same without diagnostics (`Options::diagnostics` off);
//! `check` parses every site's file, resolves `googlebot`'s rules once per site, then checks
//! every URL once (subtract `load` and `parse-sites`); `parse-sites` is that
//! without the checks; `check 2` makes two passes over the URLs (minus `check` is the steady
//! state the bench times, without the first pass's index builds). `first` parses each site's
//! file without diagnostics and checks its first URL (subtract `load`). `fast-parse`,
//! `fast-first` and `fast-check N` are the same workloads for fast-robots (`&str` bodies and
//! paths prepared before; subtract `fast-load`, which only prepares them; `fast-check` builds
//! its compiled matchers, subtract `fast-matchers`). The corpus is read as the benches read it
//! (`benches/common/mod.rs`).
//!
//! Two more compare the checks on the same work: `check-path N` is `check N` with
//! `AgentRules::check_path` on the paths fast-robots is given (taken out of the URLs by
//! [`crawlgate::request_path`] before the passes; subtract `check-path 1` from `check-path 2`);
//! `fast-check-url N` is `fast-check N` with the path taken out of each URL inside the loop,
//! by `request_path` (borrowed, no allocation: the cheapest correct way for a crawler holding
//! URL strings; fast-robots' docs only ask for "the URL path and optional query string"), and
//! `fast-check-whatwg N` by a `url::Url` parse (what a crawler that resolves dot segments, as
//! crawlgate's `Mode::Rfc` check does, would call).
//!
//! `site` is what a crawler pays for a site from its body: the parse without diagnostics,
//! `googlebot`'s rules, and a check of each of its URLs (subtract `load`); `fast-site` and
//! `fast-site-matcher` the same for fast-robots, without and with its compiled matcher, the
//! path taken out of each URL inside the loop (subtract `fast-load`).

#[path = "../common/mod.rs"]
mod common;

use std::hint::black_box;

use crawlgate::{Options, ProductToken, Robots};

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("No corpus.");
        return;
    };
    let what = std::env::args().nth(1).unwrap_or_default();
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    match what.as_str() {
        "load" => {}
        "parse" | "parse-quiet" => {
            let mut options = Options::default();
            options.diagnostics = what == "parse";
            for (_, body) in &corpus.files {
                black_box(Robots::parse_with(black_box(body), &options));
            }
        }
        "parse-sites" | "check" | "check-path" => {
            let parsed: Vec<Robots> = corpus
                .sites
                .iter()
                .map(|s| Robots::parse(&s.robots).robots)
                .collect();
            if what == "check-path" {
                let passes = passes();
                let paths: Vec<Vec<String>> = corpus
                    .sites
                    .iter()
                    .map(|s| {
                        s.urls
                            .iter()
                            .map(|u| crawlgate::request_path(u).into_owned())
                            .collect()
                    })
                    .collect();
                let mut allowed = 0;
                for _ in 0..passes {
                    for (robots, paths) in parsed.iter().zip(&paths) {
                        let rules = robots.rules_for(&token);
                        for path in paths {
                            allowed += usize::from(rules.check_path(black_box(path)).allowed);
                        }
                    }
                }
                println!("{allowed} allowed");
            }
            if what == "check" {
                // `check N`: N passes. The first builds the prefix indexes of the sites that
                // need one; `check 2` minus `check 1` is a pass as the bench times it.
                let passes = passes();
                let mut allowed = 0;
                for _ in 0..passes {
                    for (robots, site) in parsed.iter().zip(&corpus.sites) {
                        let rules = robots.rules_for(&token);
                        for url in &site.urls {
                            allowed += usize::from(rules.check(black_box(url)).allowed);
                        }
                    }
                }
                println!("{allowed} allowed");
            }
        }
        "first" => {
            let mut options = Options::default();
            options.diagnostics = false;
            let mut allowed = 0;
            for site in &corpus.sites {
                if let Some(url) = site.urls.first() {
                    let robots = Robots::parse_with(black_box(&site.robots), &options).robots;
                    allowed += usize::from(robots.check(&token, black_box(url)).allowed);
                }
            }
            println!("{allowed} allowed");
        }
        "site" => {
            let mut options = Options::default();
            options.diagnostics = false;
            let mut allowed = 0;
            for site in &corpus.sites {
                let robots = Robots::parse_with(black_box(&site.robots), &options).robots;
                let rules = robots.rules_for(&token);
                for url in &site.urls {
                    allowed += usize::from(rules.check(black_box(url)).allowed);
                }
            }
            println!("{allowed} allowed");
        }
        "fast-load" | "fast-parse" | "fast-first" | "fast-matchers" | "fast-check"
        | "fast-check-url" | "fast-check-whatwg" | "fast-site" | "fast-site-matcher" => {
            fast(&what, corpus)
        }
        _ => eprintln!(
            "usage: workload load|parse|parse-quiet|parse-sites|check [N]|check-path [N]|first|\
             site|fast-load|fast-parse|fast-first|fast-matchers|fast-check [N]|\
             fast-check-url [N]|fast-check-whatwg [N]|fast-site|fast-site-matcher"
        ),
    }
}

/// The number of passes of a check workload: the second argument, 1 by default.
fn passes() -> usize {
    std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

/// The fast-robots workloads: bodies as `&str` (lossy) and paths taken out of the URLs, as
/// `benches/parse.rs` and `benches/check.rs` give them to it.
fn fast(what: &str, corpus: &common::Corpus) {
    let files: Vec<String> = corpus
        .files
        .iter()
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    let sites: Vec<(String, Vec<String>)> = corpus
        .sites
        .iter()
        .map(|s| {
            let paths = s
                .urls
                .iter()
                .map(|u| crawlgate::request_path(u).into_owned())
                .collect();
            (String::from_utf8_lossy(&s.robots).into_owned(), paths)
        })
        .collect();
    let mut allowed = 0;
    match what {
        "fast-parse" => {
            for text in &files {
                black_box(fast_robots::RobotsTxt::parse(black_box(text)));
            }
        }
        "fast-first" => {
            for (text, paths) in &sites {
                if let Some(path) = paths.first() {
                    let robots = fast_robots::RobotsTxt::parse(black_box(text));
                    allowed += usize::from(robots.is_allowed(common::AGENT, black_box(path)));
                }
            }
        }
        "fast-site" | "fast-site-matcher" => {
            for ((text, _), site) in sites.iter().zip(&corpus.sites) {
                let robots = fast_robots::RobotsTxt::parse(black_box(text));
                if what == "fast-site-matcher" {
                    let matcher = robots.matcher();
                    for url in &site.urls {
                        let path = crawlgate::request_path(black_box(url));
                        allowed += usize::from(matcher.is_allowed(common::AGENT, &path));
                    }
                } else {
                    for url in &site.urls {
                        let path = crawlgate::request_path(black_box(url));
                        allowed += usize::from(robots.is_allowed(common::AGENT, &path));
                    }
                }
            }
        }
        "fast-matchers" | "fast-check" | "fast-check-url" | "fast-check-whatwg" => {
            let parsed: Vec<_> = sites
                .iter()
                .map(|(text, _)| fast_robots::RobotsTxt::parse(text))
                .collect();
            let matchers: Vec<_> = parsed.iter().map(|r| r.matcher()).collect();
            if what == "fast-check-url" {
                for _ in 0..passes() {
                    for (m, site) in matchers.iter().zip(&corpus.sites) {
                        for url in &site.urls {
                            let path = crawlgate::request_path(black_box(url));
                            allowed += usize::from(m.is_allowed(common::AGENT, &path));
                        }
                    }
                }
            }
            if what == "fast-check-whatwg" {
                for _ in 0..passes() {
                    for (m, site) in matchers.iter().zip(&corpus.sites) {
                        for url in &site.urls {
                            // The corpus URLs are absolute; one the parser refuses is "/".
                            let parsed = url::Url::parse(black_box(url));
                            let path = parsed.as_ref().map_or("/", |u| {
                                &u[url::Position::BeforePath..url::Position::AfterQuery]
                            });
                            allowed += usize::from(m.is_allowed(common::AGENT, path));
                        }
                    }
                }
            }
            if what == "fast-check" {
                for _ in 0..passes() {
                    for (m, (_, paths)) in matchers.iter().zip(&sites) {
                        for path in paths {
                            allowed += usize::from(m.is_allowed(common::AGENT, black_box(path)));
                        }
                    }
                }
            }
            black_box(&matchers);
        }
        _ => {}
    }
    println!("{allowed} allowed");
}
