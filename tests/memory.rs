//! `Robots::heap_size` against the bytes the allocator really holds for a `Robots`, counted by
//! a counting global allocator (`stats_alloc`), and the compiled form's size against the body.
//!
//! Without the libtest harness (`harness = false` in Cargo.toml): the allocator's count is
//! global, so the cases run one after another on one thread, with nothing else allocating.
//!
//! Bounds checked: for each file, after every agent's lazily built indexes exist,
//! `heap_size` is within ±10% of the allocator's count (it counts capacities, as the allocator
//! does; neither counts the allocator's own overhead), and equal to it for every case but the
//! `*`-leading rules'. And the compiled form's size, per case
//! (see `main`; measured 3.2–3.4× for the samples, 5.0× for 40,000 18-byte rules, 6.8× for
//! 20,000 `*`-leading rules with their segments automaton): a realistic file compiles to at
//! most 4× its size, 500 KiB of comments to almost nothing (no reservation made from the
//! input's size outlives the parse). And, per case, the bytes held before any check.

mod support;

use std::alloc::System;

use crawlgate::{Agent, Mode, Options, ProductToken, Robots};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use support::rules::{many_anchored_rules, star_rules};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes the allocator holds now.
fn live() -> isize {
    let s = GLOBAL.stats();
    // A reallocation is already counted in these two (its growth or its shrinkage).
    s.bytes_allocated as isize - s.bytes_deallocated as isize
}

/// A realistic file: several groups, wildcards, escapes, records, usage lines, sitemaps.
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
Disallow: /caf%C3%A9/
Disallow: /ツ/
Allow: /search/about
Allow: /account/login
Allow: /index.html
Crawl-delay: 5
Content-Usage: train-ai=n
Content-Usage: /docs/ train-ai=y
Content-Signal: search=yes, ai-train=no

User-agent: Googlebot
User-agent: Bingbot
Disallow: /private/
Allow: /private/press-kit/
Disallow: /*?sort=
Disallow: /*/print$

User-agent: BadBot
Disallow: /

License: https://www.example.com/license.xml
Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/news-sitemap.xml
";

/// `SAMPLE`'s groups with `n` more rules each, so that agents pass the prefix index's size.
fn big_sample(n: usize) -> Vec<u8> {
    let mut body = String::new();
    for (i, part) in SAMPLE.split("\n\n").enumerate() {
        body.push_str(part);
        body.push('\n');
        for j in 0..n {
            body.push_str(&format!("Disallow: /section-{i}/page-{j}.html\n"));
            if j % 7 == 0 {
                body.push_str(&format!("Disallow: /*/tag-{i}-{j}/*.json$\n"));
            }
        }
        body.push('\n');
    }
    body.into_bytes()
}

fn comments() -> Vec<u8> {
    let mut body = b"User-agent: *\nDisallow: /x\n".to_vec();
    while body.len() + 80 < crawlgate::DEFAULT_MAX_BYTES {
        body.extend_from_slice(&[b'#'; 79]);
        body.push(b'\n');
    }
    body
}

/// Parses `body`, then checks a short and a 2,000-character URL for every agent it names and
/// for one it does not, so that every lazily built part exists. Returns the `Robots`, the
/// bytes the allocator held for it before any check, and those it holds now.
fn compile(body: &[u8], mode: Mode) -> (Robots, usize, usize) {
    let mut options = Options::default();
    options.mode = mode;
    options.max_bytes = body.len();
    let long: String = std::iter::once('/')
        .chain("a0123456789b".chars().cycle().take(1_999))
        .collect();
    let before = live();
    let robots = Robots::parse_with(body, &options).robots;
    let parsed = (live() - before).max(0) as usize;
    let mut tokens = vec![ProductToken::verbatim("unnamedbot")];
    for g in robots.groups() {
        for (agent, _) in g.agents() {
            if let Agent::Token(t) = agent {
                tokens.push(ProductToken::verbatim(t));
            }
        }
    }
    for t in &tokens {
        robots.check(t, "/section-1/page-3.html");
        robots.check(t, &long);
    }
    drop(tokens);
    let held = (live() - before).max(0) as usize;
    drop(long);
    (robots, parsed, held)
}

/// Every agent its own group, each with the same rules, a crawl-delay and a sitemap between:
/// the most common shape of a file that names many crawlers (a fifth of the bench corpus's
/// bytes).
fn group_per_agent() -> Vec<u8> {
    let mut body = String::new();
    for i in 0..300 {
        body.push_str(&format!("User-agent: Crawler{i}bot\nCrawl-delay: 10\n"));
        for rule in ["/admin/", "/cart", "/search?q=", "/*.pdf$", "/account/"] {
            body.push_str(&format!("Disallow: {rule}\n"));
        }
        body.push('\n');
    }
    body.push_str("Sitemap: https://www.example.com/sitemap.xml\n");
    body.into_bytes()
}

fn main() {
    // (name, body, most bytes held per body byte). A file of nothing but short rules is the
    // worst ratio: each rule keeps its value as written, a 16-byte slot in its agent's
    // precedence list and a place in the agent's prefix index (and, for the `*`-leading rules
    // once a long URL was checked, the segments automaton). The bounds are 10–20% above what
    // these files held when they were set (2.3, 2.1, 1.9, 2.55, 4.3; they were 4, 4, 4, 5.5,
    // 7.5 when a rule also kept its line as written and a 20-byte record besides its slot).
    //
    // And the bytes held before any check (the compiled file as parsing leaves it, what a
    // cache holds for an origin until its first check), about 10% above the larger of the two
    // modes' when set (1.89, 1.49, 1.23, 1.14, 1.27, 1.27): small files pay for their tables
    // more than for their rules; `benches/tools/memory_survey.rs` gives the corpus's ratio (0.99).
    let cases: Vec<(&str, Vec<u8>, f64, f64)> = vec![
        // Held after every agent's checks: 2.88-2.96 since each agent asked about keeps its
        // own sorted copy of its rules (the parse keeps them in file order only).
        ("sample", SAMPLE.as_bytes().to_vec(), 2.1, 3.2),
        ("a group per agent", group_per_agent(), 1.65, 2.7),
        ("sample with 40 rules per group", big_sample(40), 1.35, 2.5),
        (
            "sample with 2,000 rules per group",
            big_sample(2_000),
            1.25,
            2.2,
        ),
        ("40,000 anchored rules", many_anchored_rules(), 1.4, 3.0),
        ("20,000 `*`-leading rules", star_rules(), 1.4, 5.0),
        ("500 KiB of comments", comments(), 0.01, 0.01),
        ("empty", Vec::new(), 0.0, 0.0),
    ];
    let mut failed = 0;
    let mut passed = 0;
    for (name, body, parsed_factor, factor) in &cases {
        for mode in [Mode::Rfc, Mode::Google] {
            let (robots, parsed, held) = compile(body, mode);
            let reported = robots.heap_size();
            let ratio = reported as f64 / held.max(1) as f64;
            let per_body = |n: usize| n as f64 / body.len().max(1) as f64;
            println!(
                "{name}, {mode:?}: {} body bytes, heap_size {reported}, allocator {held} \
                 (heap_size/allocator {ratio:.3}, allocator/body {:.2}, before any check {:.2})",
                body.len(),
                per_body(held),
                per_body(parsed),
            );
            let mut ok = true;
            // ±10%, or 64 bytes for tiny files (the empty file holds nothing at all).
            if reported.abs_diff(held) > 64 && !(0.9..=1.1).contains(&ratio) {
                println!("  FAILED: heap_size is not within 10% of the allocator's count");
                ok = false;
            }
            // Every case but the `*`-leading rules' (their segments automaton's own vectors,
            // 424 bytes of 1.46 MB, are not counted) is counted to the byte: a part left out,
            // such as the usage records' box in "sample", shows here.
            if !name.starts_with("20,000 `*`") && reported != held {
                println!("  FAILED: heap_size is not the allocator's count to the byte");
                ok = false;
            }
            let parts: usize = robots.heap_parts().iter().map(|p| p.1).sum();
            if parts != reported {
                println!("  FAILED: heap_parts add up to {parts}, not heap_size");
                ok = false;
            }
            let limit = (parsed_factor * body.len() as f64) as usize;
            if parsed > limit {
                println!("  FAILED: {parsed} bytes held before any check, more than {limit}");
                ok = false;
            }
            let limit = (factor * body.len() as f64) as usize;
            if held > limit {
                println!("  FAILED: {held} bytes held, more than the bound {limit}");
                ok = false;
            }
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
