//! Parse throughput on the robots-bench corpus: every one of its 1,613 real robots.txt files
//! (4.7 MB) parsed once per iteration, by crawlgate (Mode::Rfc and Mode::Google, with and
//! without diagnostics) and by the peers, fast-robots, texting_robots and robotstxt. Criterion
//! reports the throughput in MiB/s.
//!
//! Group `first-verdict`: what a crawler pays before its first answer. For each of the 1,225
//! sites of the check workload, its file parsed (without diagnostics) and its first URL
//! checked as `googlebot`; throughput in MiB/s of those sites' files.
//!
//! The corpus is read from `../shared/corpus/robots-bench` (or `$CRAWLGATE_BENCH_CORPUS`); see
//! `benches/common/mod.rs`. Without it the bench prints why and exits successfully.
//!
//! Run: `cargo bench --bench parse -- --warm-up-time 1 --measurement-time 3`.

mod common;

use std::hint::black_box;

use crawlgate::{Mode, Options, ProductToken, Robots};
use criterion::{Criterion, Throughput};

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Skipping the parse bench.");
        return;
    };
    let mut c = common::criterion();
    bench_parse(&mut c, corpus);
    bench_first_verdict(&mut c, corpus);
    c.final_summary();
}

fn bench_parse(c: &mut Criterion, corpus: &common::Corpus) {
    let files: Vec<&[u8]> = corpus.files.iter().map(|(_, b)| b.as_slice()).collect();
    // robotstxt takes `&str`; the conversion (lossy for the 2 non-UTF-8 files) is done here,
    // outside the timed loop.
    let texts: Vec<String> = files
        .iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(corpus.total_bytes() as u64));

    // `-quiet`: without diagnostics (`Options::diagnostics` off), as the engine parses: the
    // same rules, without the lint.
    for (name, mode, diagnostics) in [
        ("crawlgate-rfc", Mode::Rfc, true),
        ("crawlgate-google", Mode::Google, true),
        ("crawlgate-rfc-quiet", Mode::Rfc, false),
        ("crawlgate-google-quiet", Mode::Google, false),
    ] {
        let mut options = Options::mode(mode);
        options.diagnostics = diagnostics;
        group.bench_function(name, |b| {
            b.iter(|| {
                for &file in &files {
                    black_box(Robots::parse_with(black_box(file), &options));
                }
            })
        });
    }

    // texting_robots compiles only the rules of the agent it is given (here `googlebot`, or
    // `*` when no group names it) and skips the other groups' rules, so it does less work
    // than a parser that keeps every group, as crawlgate and robotstxt do.
    group.bench_function("texting_robots", |b| {
        b.iter(|| {
            for &file in &files {
                black_box(texting_robots::Robot::new(common::AGENT, black_box(file)).ok());
            }
        })
    });

    // fast-robots borrows the body (`&str`: the same lossy texts as robotstxt's) and compiles
    // nothing until asked.
    group.bench_function("fast-robots", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(fast_robots::RobotsTxt::parse(black_box(text)));
            }
        })
    });

    // robotstxt has no parsed form: `parse_robotstxt` drives callbacks line by line.
    group.bench_function("robotstxt", |b| {
        b.iter(|| {
            for text in &texts {
                robotstxt::parse_robotstxt(black_box(text), &mut common::NoopHandler);
            }
        })
    });

    group.finish();
}

fn bench_first_verdict(c: &mut Criterion, corpus: &common::Corpus) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    // (body, lossy text, first URL, its path as written): the sites that have a URL.
    let sites: Vec<(&[u8], String, &str, String)> = corpus
        .sites
        .iter()
        .filter_map(|s| {
            let url = s.urls.first()?;
            Some((
                s.robots.as_slice(),
                String::from_utf8_lossy(&s.robots).into_owned(),
                url.as_str(),
                // fast-robots takes a path: taken out of the URL here, outside the timed loop.
                crawlgate::request_path(url).into_owned(),
            ))
        })
        .collect();
    let bytes: usize = sites.iter().map(|s| s.0.len()).sum();

    let mut group = c.benchmark_group("first-verdict");
    group.throughput(Throughput::Bytes(bytes as u64));

    for (name, mode) in [
        ("crawlgate-rfc-quiet", Mode::Rfc),
        ("crawlgate-google-quiet", Mode::Google),
    ] {
        let mut options = Options::mode(mode);
        options.diagnostics = false;
        group.bench_function(name, |b| {
            b.iter(|| {
                for (body, _, url, _) in &sites {
                    let robots = Robots::parse_with(black_box(body), &options).robots;
                    black_box(robots.check(&token, black_box(url)).allowed);
                }
            })
        });
    }

    group.bench_function("fast-robots", |b| {
        b.iter(|| {
            for (_, text, _, path) in &sites {
                let robots = fast_robots::RobotsTxt::parse(black_box(text));
                black_box(robots.is_allowed(common::AGENT, black_box(path)));
            }
        })
    });

    group.bench_function("texting_robots", |b| {
        b.iter(|| {
            for (body, _, url, _) in &sites {
                if let Ok(robot) = texting_robots::Robot::new(common::AGENT, black_box(body)) {
                    black_box(robot.allowed(black_box(url)));
                }
            }
        })
    });

    group.finish();
}
