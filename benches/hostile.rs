//! Hostile robots.txt files, built in code, each against a normal file of the same byte size,
//! so that the cost ratio hostile/normal can be read off (the two are adjacent in Criterion's
//! output, and a table of ratios is printed at the end):
//!
//! - `many_rules`: 40,000 `Disallow: /pathN$` rules under `User-agent: *` (869 kB);
//! - `many_stars`: one rule, `Disallow: /` + `*a` × 3,000 + `$`;
//! - `long_line`: one 500 KiB line, `Disallow: /` followed by `a`s;
//! - `star_rules`: 20,000 rules `Disallow: *a{N}b`, all starting with `*` (so no prefix rules
//!   any of them out), every byte of which is in the long URL (so the byte summary does not
//!   either); the long URL for this case is `/` + `a0123456789b` repeated, which each rule
//!   almost matches (the case of `tests/it/bounds.rs`).
//! - `repeated_segments`: 254 rules `Disallow: /` + `*a` × 1,000 + `*b` (500 KiB, the default
//!   limit): every segment occurs all over the long URL (`/b` then `a`s) and each rule fails
//!   only at its last segment, so each of its thousand segments is looked up before it does.
//!
//! The normal files repeat the real files of the robots-bench corpus (those up to 32 KiB, in
//! name order) and are cut to the hostile file's size, so they hold many sites' groups (their
//! `googlebot` and `*` groups merge into long rule lists); without the corpus
//! (`../shared/corpus/robots-bench` or `$CRAWLGATE_BENCH_CORPUS`, see `benches/common/mod.rs`)
//! they repeat a built-in, realistic file instead.
//!
//! For each case and each parser: parse time, then check time for a 2,000-character URL and
//! for a normal URL (agent `googlebot`; crawlgate and texting_robots parse once, outside the
//! timed loop; robotstxt has no parsed form, so its check includes the parse). crawlgate reads
//! the whole file here (`max_bytes` raised to the file's size) rather than its first 500 KiB,
//! so that all 40,000 rules and the whole long line are really processed.
//!
//! Bench ids: `hostile/{case}/{parse|check-long-url|check-normal-url}/{parser}/{hostile|normal}`.
//! A peer is skipped, with a note on stderr, where one iteration would take more than a second.
//!
//! Run: `cargo bench --bench hostile -- --warm-up-time 1 --measurement-time 3`.

mod common;

use std::cell::RefCell;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crawlgate::{Mode, Options, ProductToken, Robots};
use criterion::BenchmarkGroup;
use robotstxt::DefaultMatcher;

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// The "normal" URL checked against every file.
const NORMAL_URL: &str =
    "https://www.example.com/en/catalog/shoes/item-12345.html?color=navy&size=42";

/// What is measured for every case and parser.
const OPS: [&str; 3] = ["parse", "check-long-url", "check-normal-url"];

/// Length of the long URL: `https://www.example.com/` followed by `a`s.
const LONG_URL_LEN: usize = 2_000;

/// Normal files are built from corpus files up to this size.
const MAX_PIECE: usize = 32 * 1024;

/// Used for the normal files when the corpus is absent.
const SAMPLE: &str = "\
# robots.txt for www.example.com
User-agent: *
Disallow: /cgi-bin/
Disallow: /search
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Disallow: /*?sessionid=
Disallow: /*.pdf$
Allow: /search/about
Allow: /account/login

User-agent: Googlebot
Disallow: /private/
Allow: /private/press-kit/
Disallow: /*?sort=

User-agent: BadBot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
";

struct Case {
    name: &'static str,
    hostile: Vec<u8>,
    normal: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Parser {
    CrawlgateRfc,
    CrawlgateGoogle,
    TextingRobots,
    Robotstxt,
}

impl Parser {
    const ALL: [Parser; 4] = [
        Parser::CrawlgateRfc,
        Parser::CrawlgateGoogle,
        Parser::TextingRobots,
        Parser::Robotstxt,
    ];

    fn mode(self) -> Mode {
        match self {
            Parser::CrawlgateGoogle => Mode::Google,
            _ => Mode::Rfc,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Parser::CrawlgateRfc => "crawlgate-rfc",
            Parser::CrawlgateGoogle => "crawlgate-google",
            Parser::TextingRobots => "texting_robots",
            Parser::Robotstxt => "robotstxt",
        }
    }
}

fn main() {
    let corpus = common::corpus();
    if corpus.is_none() {
        eprintln!("The normal files repeat a built-in sample instead of real files.");
    }
    let cases = cases(corpus);
    describe(&cases);
    let means = Means::default();
    let mut c = common::criterion();
    let mut group = c.benchmark_group("hostile");
    for case in &cases {
        bench_case(&mut group, &means, case);
    }
    group.finish();
    c.final_summary();
    means.print_ratios(&cases);
}

fn cases(corpus: Option<&common::Corpus>) -> Vec<Case> {
    let mut many_rules = b"User-agent: *\n".to_vec();
    for n in 0..40_000 {
        many_rules.extend_from_slice(format!("Disallow: /path{n}$\n").as_bytes());
    }

    let many_stars = format!("User-agent: *\nDisallow: /{}$\n", "*a".repeat(3_000)).into_bytes();

    let line = "Disallow: /";
    let long_line = format!(
        "User-agent: *\n{line}{}\n",
        "a".repeat(500 * 1024 - line.len())
    )
    .into_bytes();

    let mut star_rules = b"User-agent: *\n".to_vec();
    for n in 0..20_000 {
        star_rules.extend_from_slice(format!("Disallow: *a{n}b\n").as_bytes());
    }

    let mut repeated_segments = b"User-agent: *\n".to_vec();
    let repeated = format!("Disallow: /{}*b\n", "*a".repeat(1_000));
    while repeated_segments.len() + repeated.len() <= 500 * 1024 {
        repeated_segments.extend_from_slice(repeated.as_bytes());
    }

    [
        ("many_rules", many_rules),
        ("many_stars", many_stars),
        ("long_line", long_line),
        ("star_rules", star_rules),
        ("repeated_segments", repeated_segments),
    ]
    .into_iter()
    .map(|(name, hostile)| Case {
        name,
        normal: normal_file(hostile.len(), corpus),
        hostile,
    })
    .collect()
}

/// `size` bytes of real robots.txt files (or of [`SAMPLE`]), repeated and cut.
fn normal_file(size: usize, corpus: Option<&common::Corpus>) -> Vec<u8> {
    let mut pieces: Vec<&[u8]> = corpus
        .map(|c| {
            c.files
                .iter()
                .map(|(_, b)| b.as_slice())
                .filter(|b| !b.is_empty() && b.len() <= MAX_PIECE)
                .collect()
        })
        .unwrap_or_default();
    if pieces.is_empty() {
        pieces.push(SAMPLE.as_bytes());
    }
    let mut out = Vec::with_capacity(size + MAX_PIECE + 1);
    for piece in pieces.iter().cycle() {
        if out.len() >= size {
            break;
        }
        out.extend_from_slice(piece);
        if !piece.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out.truncate(size);
    out
}

/// crawlgate's options here: the whole file is read, whatever its size.
fn options(mode: Mode, body: &[u8]) -> Options {
    {
        let mut options = Options::default();
        options.mode = mode;
        options.max_bytes = body.len();
        options
    }
}

/// The long URL of `case`: `https://www.example.com/` followed by `a`s (after a `b` for
/// `repeated_segments`), or for `star_rules` by `a0123456789b` repeated; 2,000 characters.
fn long_url(case: &str) -> String {
    let mut url = String::from("https://www.example.com/");
    if case == "repeated_segments" {
        url.push('b');
    }
    let unit = if case == "star_rules" {
        "a0123456789b"
    } else {
        "a"
    };
    while url.len() < LONG_URL_LEN {
        url.push_str(unit);
    }
    url.truncate(LONG_URL_LEN);
    url
}

/// Prints what each file is, as crawlgate sees it.
fn describe(cases: &[Case]) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    for case in cases {
        for (variant, body) in [("hostile", &case.hostile), ("normal", &case.normal)] {
            let parsed = Robots::parse_with(body, &options(Mode::Rfc, body));
            eprintln!(
                "{}/{variant}: {} bytes, {} lines, {} rules ({} apply to {}), {} diagnostics",
                case.name,
                body.len(),
                body.iter().filter(|&&b| b == b'\n').count(),
                parsed.robots.rule_count(),
                parsed.robots.rules_for(&token).rules().count(),
                common::AGENT,
                parsed.diagnostics.len()
            );
        }
    }
}

/// Why a peer is not run on this input, if it is not: one iteration would take more than a
/// second.
fn skip(case: &str, op: &str, parser: Parser, variant: &str) -> Option<&'static str> {
    // robotstxt 0.3's matcher grows and shifts a Vec for every `*` (and after a `*`,
    // `chars().nth()` makes each step quadratic): against `*a` × 3,000 one check took 0.9 s
    // with a 400-character URL and 16 s with an 800-character one; 20,000 `*`-leading rules
    // are 20,000 such scans of the URL.
    (matches!(case, "many_stars" | "star_rules" | "repeated_segments")
        && op == "check-long-url"
        && parser == Parser::Robotstxt
        && variant == "hostile")
        .then_some("robotstxt: one check of the 2,000-character URL takes far more than a second")
}

fn bench_case(group: &mut Group<'_>, means: &Means, case: &Case) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    let long = long_url(case.name);
    for op in OPS {
        let url = match op {
            "check-long-url" => Some(long.as_str()),
            "check-normal-url" => Some(NORMAL_URL),
            _ => None,
        };
        for parser in Parser::ALL {
            for (variant, body) in [("hostile", &case.hostile), ("normal", &case.normal)] {
                let id = format!("{}/{op}/{}/{variant}", case.name, parser.name());
                if let Some(why) = skip(case.name, op, parser, variant) {
                    eprintln!("hostile/{id}: skipped ({why})");
                    continue;
                }
                match url {
                    None => bench_parse(group, means, &id, parser, body),
                    Some(url) => bench_check(group, means, &id, parser, body, &token, url),
                }
            }
        }
    }
}

fn bench_parse(group: &mut Group<'_>, means: &Means, id: &str, parser: Parser, body: &[u8]) {
    match parser {
        Parser::CrawlgateRfc | Parser::CrawlgateGoogle => {
            let options = options(parser.mode(), body);
            means.bench(group, id, || Robots::parse_with(black_box(body), &options));
        }
        // Keeps only googlebot's (here: `*`'s) rules. On `many_stars` it fails: the rule's
        // regex exceeds its size limit, and the time measured is the time to refuse the file.
        Parser::TextingRobots => {
            means.bench(group, id, || {
                texting_robots::Robot::new(common::AGENT, black_box(body)).ok()
            });
        }
        Parser::Robotstxt => {
            let text = String::from_utf8_lossy(body);
            means.bench(group, id, || {
                robotstxt::parse_robotstxt(black_box(&text), &mut common::NoopHandler)
            });
        }
    }
}

fn bench_check(
    group: &mut Group<'_>,
    means: &Means,
    id: &str,
    parser: Parser,
    body: &[u8],
    token: &ProductToken,
    url: &str,
) {
    match parser {
        Parser::CrawlgateRfc | Parser::CrawlgateGoogle => {
            let robots = Robots::parse_with(body, &options(parser.mode(), body)).robots;
            means.bench(group, id, || robots.check(token, black_box(url)).allowed);
        }
        Parser::TextingRobots => match texting_robots::Robot::new(common::AGENT, body) {
            Ok(robot) => means.bench(group, id, || robot.allowed(black_box(url))),
            Err(e) => eprintln!(
                "hostile/{id}: skipped (texting_robots refuses the file: {})",
                e.root_cause()
            ),
        },
        // No parsed form: every check parses the file again.
        Parser::Robotstxt => {
            let text = String::from_utf8_lossy(body);
            means.bench(group, id, || {
                DefaultMatcher::default().one_agent_allowed_by_robots(
                    black_box(&text),
                    common::AGENT,
                    black_box(url),
                )
            });
        }
    }
}

/// The mean time per iteration of every bench, warm-up included, kept for the ratio table
/// printed at the end (Criterion's own estimates are in its report).
#[derive(Default)]
struct Means(RefCell<HashMap<String, (Duration, u64)>>);

impl Means {
    /// Benches `routine` under `id`, recording its time.
    fn bench<R>(&self, group: &mut Group<'_>, id: &str, mut routine: impl FnMut() -> R) {
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(routine());
                }
                let elapsed = start.elapsed();
                let mut means = self.0.borrow_mut();
                let entry = means.entry(id.to_owned()).or_default();
                entry.0 += elapsed;
                entry.1 += iters;
                elapsed
            })
        });
    }

    fn mean(&self, id: &str) -> Option<Duration> {
        let means = self.0.borrow();
        let &(total, iters) = means.get(id)?;
        let iters = u32::try_from(iters).ok().filter(|&n| n > 0)?;
        Some(total / iters)
    }

    /// hostile/normal for every case, operation and parser that ran on both files.
    fn print_ratios(&self, cases: &[Case]) {
        println!();
        println!("hostile/normal (mean time per iteration, warm-up included):");
        println!(
            "  {:<11} {:<17} {:<17} {:>12} {:>12} {:>9}",
            "case", "operation", "parser", "hostile", "normal", "ratio"
        );
        for case in cases {
            for op in OPS {
                for parser in Parser::ALL {
                    let id = |variant| format!("{}/{op}/{}/{variant}", case.name, parser.name());
                    let (hostile, normal) = (self.mean(&id("hostile")), self.mean(&id("normal")));
                    let show = |d: Option<Duration>| d.map_or("-".into(), |d| format!("{d:.2?}"));
                    let ratio = match (hostile, normal) {
                        (Some(h), Some(n)) if !n.is_zero() => {
                            format!("{:.2}", h.as_secs_f64() / n.as_secs_f64())
                        }
                        _ => "-".into(),
                    };
                    println!(
                        "  {:<11} {:<17} {:<17} {:>12} {:>12} {:>9}",
                        case.name,
                        op,
                        parser.name(),
                        show(hostile),
                        show(normal),
                        ratio
                    );
                }
            }
        }
    }
}
