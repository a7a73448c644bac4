//! Survey of the robots-bench corpus (real robots.txt files and real URLs; see
//! `benches/common/mod.rs` for where it lives and `CRAWLGATE_BENCH_CORPUS` to move it).
//!
//! 1. Linter survey: every file parsed with `Robots::parse` (Mode::Rfc): files with errors and
//!    warnings, totals, and the ten most frequent diagnostic codes.
//! 2. Verdict agreement on the check workload (111,215 URLs, agent `googlebot`): crawlgate in
//!    Mode::Rfc and Mode::Google against texting_robots and robotstxt (a Rust port of
//!    google/robotstxt), with the number of disagreements per pair and a few examples each,
//!    showing the crawlgate rule that decided. Disagreements are sorted into classes: a known
//!    robotstxt 0.3 matching bug (checked by re-running it with google/robotstxt's own
//!    `Matches()`), the documented Rfc/Google mode differences, and the rest.
//!
//! Run with `cargo run --release --example corpus_survey`. Exits successfully, doing nothing,
//! when the corpus is absent.

#[path = "../common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crawlgate::{Code, Decision, Mode, Options, ProductToken, Reason, Robots, Severity};
use robotstxt::matcher::{RobotsMatchStrategy, RobotsMatcher};
use robotstxt::DefaultMatcher;

/// Examples printed per pair.
const EXAMPLES: usize = 5;

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Nothing to survey.");
        return;
    };
    lint_survey(corpus);
    agreement(corpus);
}

/// Part 1: what the linter finds in real files.
fn lint_survey(corpus: &common::Corpus) {
    #[derive(Default)]
    struct Tally {
        occurrences: usize,
        files: usize,
        errors: usize,
    }
    let mut files_with_error = 0;
    let mut files_with_warning = 0;
    let mut clean_files = 0;
    let mut total_errors = 0;
    let mut total_warnings = 0;
    let mut by_code: HashMap<Code, Tally> = HashMap::new();

    for (_, bytes) in &corpus.files {
        let parsed = Robots::parse(bytes);
        let errors = parsed
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = parsed.diagnostics.len() - errors;
        total_errors += errors;
        total_warnings += warnings;
        files_with_error += usize::from(errors > 0);
        files_with_warning += usize::from(warnings > 0);
        clean_files += usize::from(parsed.diagnostics.is_empty());

        let mut seen_here: Vec<Code> = Vec::new();
        for d in &parsed.diagnostics {
            let t = by_code.entry(d.code).or_default();
            t.occurrences += 1;
            t.errors += usize::from(d.severity == Severity::Error);
            if !seen_here.contains(&d.code) {
                seen_here.push(d.code);
                t.files += 1;
            }
        }
    }

    println!(
        "== Linter survey: {} files, Mode::Rfc ==",
        corpus.files.len()
    );
    println!("files with >= 1 error:   {files_with_error}");
    println!("files with >= 1 warning: {files_with_warning}");
    println!("files with no diagnostic: {clean_files}");
    println!("total errors:   {total_errors}");
    println!("total warnings: {total_warnings}");
    let mut codes: Vec<(Code, Tally)> = by_code.into_iter().collect();
    codes.sort_by(|a, b| {
        (b.1.occurrences, b.1.files, a.0.as_str()).cmp(&(a.1.occurrences, a.1.files, b.0.as_str()))
    });
    println!("top codes ({} distinct):", codes.len());
    println!(
        "  {:<22} {:>8} {:>11} {:>6}",
        "code", "severity", "occurrences", "files"
    );
    for (code, t) in codes.iter().take(10) {
        let severity = match t.errors {
            0 => "warning",
            n if n == t.occurrences => "error",
            _ => "mixed",
        };
        println!(
            "  {:<22} {:>8} {:>11} {:>6}",
            code.as_str(),
            severity,
            t.occurrences,
            t.files
        );
    }
    println!();
}

/// One site, parsed once by every library that has a parsed form.
struct Prepared<'c> {
    site: &'c common::Site,
    rfc: Robots,
    google: Robots,
    /// `None`: texting_robots refused the file.
    texting: Option<texting_robots::Robot>,
    /// robotstxt takes `&str`: non-UTF-8 files are decoded lossily.
    body: String,
}

/// The verdicts for one URL (`true`: allowed).
#[derive(Clone, Copy)]
struct Verdicts {
    rfc: bool,
    google: bool,
    texting: Option<bool>,
    robotstxt: bool,
    /// robotstxt with google/robotstxt's own `Matches()` (see [`CppMatches`]).
    robotstxt_cpp: bool,
}

/// One side of a comparison.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Rfc,
    Google,
    Texting,
    Robotstxt,
    RobotstxtCpp,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Rfc => "crawlgate Rfc",
            Side::Google => "crawlgate Google",
            Side::Texting => "texting_robots",
            Side::Robotstxt => "robotstxt",
            Side::RobotstxtCpp => "robotstxt+C++ Matches()",
        }
    }

    fn of(self, v: &Verdicts) -> Option<bool> {
        match self {
            Side::Rfc => Some(v.rfc),
            Side::Google => Some(v.google),
            Side::Texting => v.texting,
            Side::Robotstxt => Some(v.robotstxt),
            Side::RobotstxtCpp => Some(v.robotstxt_cpp),
        }
    }
}

/// Why two verdicts differ, as far as can be told automatically.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// robotstxt 0.3's `matches` keeps only the leftmost candidate after a `*`.
    PortWildcardBug,
    /// Mode::Google's `Allow: /dir/index.html` → `/dir/$`.
    IndexHtml,
    /// Mode::Rfc percent-normalises pattern and URL; Google compares the URL as given.
    PercentEncoding,
    /// Another difference between the two modes.
    OtherModeDifference,
    /// None of the above.
    Other,
}

impl Class {
    const ALL: [Class; 5] = [
        Class::PortWildcardBug,
        Class::IndexHtml,
        Class::PercentEncoding,
        Class::OtherModeDifference,
        Class::Other,
    ];

    fn describe(self) -> &'static str {
        match self {
            Class::PortWildcardBug => {
                "robotstxt 0.3 bug: after a `*` only the leftmost candidate position survives \
                 (its Matches() uses Vec::insert where C++ assigns); with C++'s Matches() it agrees"
            }
            Class::IndexHtml => {
                "Google's `Allow: /dir/index.html` also allows `/dir/` (Mode::Google only)"
            }
            Class::PercentEncoding => {
                "percent-encoding: Mode::Rfc normalises pattern and URL (RFC 9309 §2.2.2), \
                 Google compares the URL as given"
            }
            Class::OtherModeDifference => "another Rfc/Google mode difference (see `Mode`)",
            Class::Other => "unexplained",
        }
    }
}

/// Classifies a disagreement between crawlgate (in the mode of `left`) and `right`.
fn classify(left: Side, right: Side, v: &Verdicts, rfc: &Decision, google: &Decision) -> Class {
    let ours = left.of(v);
    if right == Side::Robotstxt && Some(v.robotstxt_cpp) == ours {
        return Class::PortWildcardBug;
    }
    // The other mode agrees with the peer (or the pair is Rfc vs Google): a mode difference.
    let mode_difference = rfc.allowed != google.allowed
        && match left {
            Side::Rfc => right.of(v) == Some(google.allowed),
            _ => right.of(v) == Some(rfc.allowed),
        };
    if !mode_difference {
        return Class::Other;
    }
    if google.rule().is_some_and(|r| r.index_html) {
        return Class::IndexHtml;
    }
    let needs_encoding = |s: &str| {
        s.bytes()
            .any(|b| b == b'%' || !b.is_ascii_graphic() || b"\"<>\\^`{|}".contains(&b))
    };
    let patterns = [rfc.rule(), google.rule()];
    if patterns.iter().flatten().any(|r| needs_encoding(r.pattern)) {
        return Class::PercentEncoding;
    }
    Class::OtherModeDifference
}

struct Example {
    site: String,
    url: String,
    left: bool,
    right: bool,
    why: String,
}

struct Pair {
    left: Side,
    right: Side,
    compared: usize,
    disagreements: usize,
    /// crawlgate allows, the peer disallows.
    left_allows: usize,
    sites: Vec<String>,
    /// Per class: count and examples.
    classes: Vec<(Class, usize, Vec<Example>)>,
}

/// google/robotstxt's `RobotsMatchStrategy::Matches()`, byte for byte: every position a `*`
/// can stretch to stays a candidate. robotstxt 0.3's copy of it keeps only the leftmost one.
#[derive(Default)]
struct CppMatches;

impl CppMatches {
    fn matches(path: &str, pattern: &str) -> bool {
        let (path, pattern) = (path.as_bytes(), pattern.as_bytes());
        let mut pos = vec![0usize; path.len() + 1];
        let mut numpos = 1;
        for (i, &pat) in pattern.iter().enumerate() {
            if pat == b'$' && i + 1 == pattern.len() {
                return pos[numpos - 1] == path.len();
            }
            if pat == b'*' {
                numpos = path.len() - pos[0] + 1;
                for j in 1..numpos {
                    pos[j] = pos[j - 1] + 1;
                }
            } else {
                let mut kept = 0;
                for j in 0..numpos {
                    if pos[j] < path.len() && path[pos[j]] == pat {
                        pos[kept] = pos[j] + 1;
                        kept += 1;
                    }
                }
                numpos = kept;
                if numpos == 0 {
                    return false;
                }
            }
        }
        true
    }

    fn priority(path: &str, pattern: &str) -> i32 {
        if Self::matches(path, pattern) {
            i32::try_from(pattern.len()).unwrap_or(i32::MAX)
        } else {
            -1
        }
    }
}

impl RobotsMatchStrategy for CppMatches {
    fn match_allow(&self, path: &str, pattern: &str) -> i32 {
        Self::priority(path, pattern)
    }

    fn match_disallow(&self, path: &str, pattern: &str) -> i32 {
        Self::priority(path, pattern)
    }
}

/// Part 2: verdicts of crawlgate and its peers on every URL of the check workload.
fn agreement(corpus: &common::Corpus) {
    let token = ProductToken::new(common::AGENT).expect("googlebot is a product token");
    let started = Instant::now();
    let prepared: Vec<Prepared> = corpus
        .sites
        .iter()
        .map(|site| Prepared {
            site,
            rfc: Robots::parse_with(&site.robots, &Options::mode(Mode::Rfc)).robots,
            google: Robots::parse_with(&site.robots, &Options::mode(Mode::Google)).robots,
            texting: texting_robots::Robot::new(common::AGENT, &site.robots).ok(),
            body: String::from_utf8_lossy(&site.robots).into_owned(),
        })
        .collect();
    let refused: Vec<&str> = prepared
        .iter()
        .filter(|p| p.texting.is_none())
        .map(|p| p.site.name.as_str())
        .collect();

    let mut pairs: Vec<Pair> = [
        (Side::Rfc, Side::Texting),
        (Side::Rfc, Side::Robotstxt),
        (Side::Google, Side::Texting),
        (Side::Google, Side::Robotstxt),
        (Side::Google, Side::RobotstxtCpp),
        (Side::Rfc, Side::Google),
    ]
    .into_iter()
    .map(|(left, right)| Pair {
        left,
        right,
        compared: 0,
        disagreements: 0,
        left_allows: 0,
        sites: Vec::new(),
        classes: Class::ALL.iter().map(|&c| (c, 0, Vec::new())).collect(),
    })
    .collect();

    let mut urls = 0;
    let mut robotstxt_time = Duration::ZERO;
    for p in &prepared {
        for url in &p.site.urls {
            urls += 1;
            let rfc = p.rfc.check(&token, url);
            let google = p.google.check(&token, url);
            let t = Instant::now();
            let robotstxt =
                DefaultMatcher::default().one_agent_allowed_by_robots(&p.body, common::AGENT, url);
            robotstxt_time += t.elapsed();
            let robotstxt_cpp = RobotsMatcher::<CppMatches>::default().one_agent_allowed_by_robots(
                &p.body,
                common::AGENT,
                url,
            );
            let v = Verdicts {
                rfc: rfc.allowed,
                google: google.allowed,
                texting: p.texting.as_ref().map(|r| r.allowed(url)),
                robotstxt,
                robotstxt_cpp,
            };
            for pair in &mut pairs {
                let (Some(left), Some(right)) = (pair.left.of(&v), pair.right.of(&v)) else {
                    continue;
                };
                pair.compared += 1;
                if left == right {
                    continue;
                }
                pair.disagreements += 1;
                pair.left_allows += usize::from(left);
                if pair.sites.last() != Some(&p.site.name) {
                    pair.sites.push(p.site.name.clone());
                }
                let class = classify(pair.left, pair.right, &v, &rfc, &google);
                let (_, count, examples) = pair
                    .classes
                    .iter_mut()
                    .find(|(c, ..)| *c == class)
                    .expect("every class has a slot");
                *count += 1;
                // One example per site, so that the examples show different files.
                if examples.len() < EXAMPLES && examples.iter().all(|e| e.site != p.site.name) {
                    let decision = if pair.left == Side::Google {
                        &google
                    } else {
                        &rfc
                    };
                    examples.push(Example {
                        site: p.site.name.clone(),
                        url: url.clone(),
                        left,
                        right,
                        why: explain(decision),
                    });
                }
            }
        }
    }

    println!(
        "== Verdict agreement: {} sites, {urls} URLs, agent {:?} ==",
        prepared.len(),
        common::AGENT
    );
    println!(
        "texting_robots refused {} file(s){}{}",
        refused.len(),
        if refused.is_empty() { "" } else { ": " },
        refused.join(", ")
    );
    println!(
        "robotstxt re-parses the file for every URL: {:.1} s for the full pass \
         (whole agreement run {:.1} s)",
        robotstxt_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    for pair in &pairs {
        println!();
        println!(
            "{} vs {}: {} disagreements out of {} URLs, on {} sites \
             ({} where crawlgate allows, {} where it disallows)",
            pair.left.name(),
            pair.right.name(),
            pair.disagreements,
            pair.compared,
            pair.sites.len(),
            pair.left_allows,
            pair.disagreements - pair.left_allows
        );
        for (class, count, examples) in &pair.classes {
            if *count == 0 {
                continue;
            }
            println!("  [{count}] {}", class.describe());
            for e in examples {
                println!("    {}  {}", e.site, e.url);
                println!(
                    "        {}: {}, {}: {}; crawlgate decided by {}",
                    pair.left.name(),
                    verdict(e.left),
                    pair.right.name(),
                    verdict(e.right),
                    e.why
                );
            }
        }
    }
}

fn verdict(allowed: bool) -> &'static str {
    if allowed {
        "allow"
    } else {
        "disallow"
    }
}

/// What decided, as "line N `text`" or the reason.
fn explain(d: &Decision) -> String {
    match d.reason {
        Reason::Rule(r) => format!(
            "line {} `{}`{}",
            r.line,
            r.text,
            if r.index_html {
                " (its derived `/dir/$` rule)"
            } else {
                ""
            }
        ),
        Reason::NoMatchingRule => format!("no matching rule (group: {:?})", d.group),
        Reason::NoGroup => "no group applies".into(),
        Reason::RobotsTxt => "/robots.txt is always allowed".into(),
    }
}
