//! Check throughput on the robots-bench corpus: the 111,215 real URLs of 1,225 sites, each
//! checked against its own site's robots.txt as `googlebot`. Criterion reports URLs/s
//! ("elem/s").
//!
//! crawlgate and texting_robots parse every file once, outside the timed loop; the loop only
//! checks. robotstxt (a port of google/robotstxt) has no parsed form and re-parses the file for
//! every URL, as the C++ library does; a full pass takes about 4 s, so it runs on a fixed 10%
//! subset (every tenth URL of the workload) and its throughput is per URL of that subset.
//!
//! The corpus is read from `../shared/corpus/robots-bench` (or `$CRAWLGATE_BENCH_CORPUS`); see
//! `benches/common/mod.rs`. Without it the bench prints why and exits successfully.
//!
//! `crawlgate-*-check_path` and `fast-robots-matcher` are given the same paths, taken out of
//! the URLs before the timed loop; `crawlgate-*-rules_for` and `fast-robots-matcher-url` the
//! URLs (crawlgate's `check` also canonicalises the path and, in `Mode::Rfc`, judges the one a
//! client requests).
//!
//! The `site` group times what a crawler pays for a site from its body: the parse (without
//! diagnostics, as the engine parses), the agent's rules, and a check of every URL of the
//! site, each library in its fastest way (fast-robots both with and without its compiled
//! matcher, the path taken out of each URL inside the loop). Its throughput is URLs/s.
//!
//! Run: `cargo bench --bench check -- --warm-up-time 1 --measurement-time 3`.

mod common;

use std::hint::black_box;

use crawlgate::{AgentRules, Mode, Options, ProductToken, Robots};
use criterion::{Criterion, Throughput};
use robotstxt::DefaultMatcher;

/// robotstxt runs on every `SUBSET`-th URL of the workload.
const SUBSET: usize = 10;

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Skipping the check bench.");
        return;
    };
    let mut c = common::criterion();
    bench_check(&mut c, corpus);
    bench_site(&mut c, corpus);
    c.final_summary();
}

fn bench_check(c: &mut Criterion, corpus: &common::Corpus) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    let sites = &corpus.sites;

    let mut group = c.benchmark_group("check");
    group.throughput(Throughput::Elements(corpus.url_count() as u64));

    for (name, mode) in [
        ("crawlgate-rfc", Mode::Rfc),
        ("crawlgate-google", Mode::Google),
    ] {
        let parsed: Vec<(Robots, &[String])> = sites
            .iter()
            .map(|s| {
                let robots = Robots::parse_with(&s.robots, &Options::mode(mode)).robots;
                (robots, s.urls.as_slice())
            })
            .collect();

        // `Robots::check`: the token's rules are looked up for every URL.
        group.bench_function(name, |b| {
            b.iter(|| {
                for (robots, urls) in &parsed {
                    for url in *urls {
                        black_box(robots.check(&token, black_box(url)).allowed);
                    }
                }
            })
        });

        // `Robots::rules_for`: the token's rules resolved once per site (outside the timed
        // loop, like the parse), then `AgentRules::check` per URL.
        let resolved: Vec<(AgentRules, &[String])> = parsed
            .iter()
            .map(|(robots, urls)| (robots.rules_for(&token), *urls))
            .collect();
        group.bench_function(format!("{name}-rules_for"), |b| {
            b.iter(|| {
                for (rules, urls) in &resolved {
                    for url in *urls {
                        black_box(rules.check(black_box(url)).allowed);
                    }
                }
            })
        });

        // `AgentRules::check_path` on the paths fast-robots is given (taken out of the URLs
        // by `request_path` outside the timed loop): the same work as its matcher's.
        let paths: Vec<(&AgentRules, Vec<String>)> = resolved
            .iter()
            .map(|(rules, urls)| {
                let paths = urls
                    .iter()
                    .map(|u| crawlgate::request_path(u).into_owned())
                    .collect();
                (rules, paths)
            })
            .collect();
        group.bench_function(format!("{name}-check_path"), |b| {
            b.iter(|| {
                for (rules, paths) in &paths {
                    for path in paths {
                        black_box(rules.check_path(black_box(path)).allowed);
                    }
                }
            })
        });
    }

    // texting_robots: `Robot::new` keeps only googlebot's rules (see benches/parse.rs).
    let robots: Vec<(texting_robots::Robot, &[String])> = sites
        .iter()
        .map(|s| {
            let robot = texting_robots::Robot::new(common::AGENT, &s.robots)
                .unwrap_or_else(|e| panic!("texting_robots refused {}: {e:#}", s.name));
            (robot, s.urls.as_slice())
        })
        .collect();
    group.bench_function("texting_robots", |b| {
        b.iter(|| {
            for (robot, urls) in &robots {
                for url in *urls {
                    black_box(robot.allowed(black_box(url)));
                }
            }
        })
    });

    // fast-robots: its compiled matcher (`RobotsTxt::matcher`), built per site outside the
    // timed loop; it takes a path, taken out of each URL here (`request_path`, as written),
    // also outside the loop.
    let texts: Vec<(String, Vec<String>)> = sites
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
    let parsed: Vec<fast_robots::RobotsTxt> = texts
        .iter()
        .map(|(body, _)| fast_robots::RobotsTxt::parse(body))
        .collect();
    let matchers: Vec<(fast_robots::RobotsMatcher, &[String])> = parsed
        .iter()
        .zip(&texts)
        .map(|(robots, (_, paths))| (robots.matcher(), paths.as_slice()))
        .collect();
    group.bench_function("fast-robots-matcher", |b| {
        b.iter(|| {
            for (matcher, paths) in &matchers {
                for path in *paths {
                    black_box(matcher.is_allowed(common::AGENT, black_box(path)));
                }
            }
        })
    });

    // The same matchers given the URLs: the path taken out inside the loop, the cheapest
    // correct way for a crawler holding URL strings (`request_path`: borrowed, no
    // allocation; fast-robots' docs only ask for "the URL path and optional query string"),
    // as `crawlgate-*-rules_for` does inside `check`.
    let with_urls: Vec<(&fast_robots::RobotsMatcher, &[String])> = matchers
        .iter()
        .zip(sites)
        .map(|((matcher, _), s)| (matcher, s.urls.as_slice()))
        .collect();
    group.bench_function("fast-robots-matcher-url", |b| {
        b.iter(|| {
            for (matcher, urls) in &with_urls {
                for url in *urls {
                    let path = crawlgate::request_path(black_box(url));
                    black_box(matcher.is_allowed(common::AGENT, &path));
                }
            }
        })
    });

    // robotstxt: every check parses the whole file again (its API has no parsed form). On
    // every tenth URL only: a full pass takes seconds. Non-UTF-8 files are decoded lossily.
    let mut subset: Vec<(String, Vec<&str>)> = Vec::new();
    let mut index = 0;
    for s in sites {
        let urls: Vec<&str> = s
            .urls
            .iter()
            .filter(|_| {
                index += 1;
                (index - 1) % SUBSET == 0
            })
            .map(String::as_str)
            .collect();
        if !urls.is_empty() {
            subset.push((String::from_utf8_lossy(&s.robots).into_owned(), urls));
        }
    }
    let subset_urls: usize = subset.iter().map(|(_, urls)| urls.len()).sum();
    group.throughput(Throughput::Elements(subset_urls as u64));
    group.bench_function("robotstxt-reparse-10pct-subset", |b| {
        b.iter(|| {
            for (body, urls) in &subset {
                for &url in urls {
                    black_box(DefaultMatcher::default().one_agent_allowed_by_robots(
                        black_box(body),
                        common::AGENT,
                        black_box(url),
                    ));
                }
            }
        })
    });

    group.finish();
}

/// A site from its body: parse, resolve the agent, check every URL of the site.
fn bench_site(c: &mut Criterion, corpus: &common::Corpus) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    // (body, lossy text for fast-robots, URLs).
    let sites: Vec<(&[u8], String, &[String])> = corpus
        .sites
        .iter()
        .map(|s| {
            (
                s.robots.as_slice(),
                String::from_utf8_lossy(&s.robots).into_owned(),
                s.urls.as_slice(),
            )
        })
        .collect();

    let mut group = c.benchmark_group("site");
    group.throughput(Throughput::Elements(corpus.url_count() as u64));

    for (name, mode) in [
        ("crawlgate-rfc", Mode::Rfc),
        ("crawlgate-google", Mode::Google),
    ] {
        let mut options = Options::mode(mode);
        options.diagnostics = false;
        group.bench_function(name, |b| {
            b.iter(|| {
                for (body, _, urls) in &sites {
                    let robots = Robots::parse_with(black_box(body), &options).robots;
                    let rules = robots.rules_for(&token);
                    for url in *urls {
                        black_box(rules.check(black_box(url)).allowed);
                    }
                }
            })
        });
    }

    group.bench_function("fast-robots-matcher", |b| {
        b.iter(|| {
            for (_, text, urls) in &sites {
                let robots = fast_robots::RobotsTxt::parse(black_box(text));
                let matcher = robots.matcher();
                for url in *urls {
                    let path = crawlgate::request_path(black_box(url));
                    black_box(matcher.is_allowed(common::AGENT, &path));
                }
            }
        })
    });

    group.bench_function("fast-robots", |b| {
        b.iter(|| {
            for (_, text, urls) in &sites {
                let robots = fast_robots::RobotsTxt::parse(black_box(text));
                for url in *urls {
                    let path = crawlgate::request_path(black_box(url));
                    black_box(robots.is_allowed(common::AGENT, &path));
                }
            }
        })
    });

    group.bench_function("texting_robots", |b| {
        b.iter(|| {
            for (body, _, urls) in &sites {
                if let Ok(robot) = texting_robots::Robot::new(common::AGENT, black_box(body)) {
                    for url in *urls {
                        black_box(robot.allowed(black_box(url)));
                    }
                }
            }
        })
    });

    group.finish();
}
