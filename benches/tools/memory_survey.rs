//! What the compiled rules of the robots-bench corpus cost in memory: for every file, the bytes
//! `Robots::heap_size` reports and the bytes the allocator really holds for the `Robots` (a
//! counting global allocator, `stats_alloc`; the parse's diagnostics are dropped first, and every agent's
//! lookup (buckets, prefix index) is built by checks, as a crawler's checks would),
//! against the body's size; then the same with no check at all, after one agent's first
//! verdict (`googlebot`: a file's first check builds nothing), and with that agent's lookups
//! built by its later checks, which is what a crawler holds.
//!
//! Run with `cargo run --release --example memory_survey` (`-- google` for `Mode::Google`).
//! Exits successfully, doing nothing, when the corpus is absent.

#[path = "../common/mod.rs"]
mod common;

use std::alloc::System;

use crawlgate::{Agent, Mode, Options, ProductToken, Robots};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes the allocator holds now.
fn live() -> isize {
    let s = GLOBAL.stats();
    // A reallocation is already counted in these two (its growth or its shrinkage).
    s.bytes_allocated as isize - s.bytes_deallocated as isize
}

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Nothing to survey.");
        return;
    };
    let mode = match std::env::args().nth(1).as_deref() {
        Some("google") => Mode::Google,
        _ => Mode::Rfc,
    };
    let options = Options::mode(mode);
    let (mut body, mut reported, mut held) = (0usize, 0usize, 0usize);
    let mut ratios: Vec<f64> = Vec::new();
    let mut kept = Vec::with_capacity(corpus.files.len());
    let mut parts: Vec<(&'static str, usize)> = Vec::new();
    let (mut rules, mut value_bytes, mut line_bytes) = (0usize, 0usize, 0usize);
    for (_, bytes) in &corpus.files {
        let before = live();
        let robots = Robots::parse_with(bytes, &options).robots;
        build_indexes(&robots);
        let after = live();
        body += bytes.len();
        reported += robots.heap_size();
        held += (after - before).max(0) as usize;
        if !bytes.is_empty() {
            ratios.push(robots.heap_size() as f64 / bytes.len() as f64);
        }
        for (i, (name, n)) in robots.heap_parts().into_iter().enumerate() {
            match parts.get_mut(i) {
                Some(p) => p.1 += n,
                None => parts.push((name, n)),
            }
        }
        rules += robots.rule_count();
        for r in (0..robots.rule_count()).filter_map(|i| robots.rule(i)) {
            value_bytes += r.pattern.len();
            line_bytes += r.text.len();
        }
        kept.push(robots);
    }
    ratios.sort_by(f64::total_cmp);
    let pct = |p: usize| ratios[(ratios.len() - 1) * p / 100];
    println!("{} files, {mode:?}", corpus.files.len());
    println!("body bytes:            {body:>11}");
    println!(
        "heap_size:             {reported:>11}  ({:.2}× the bodies)",
        reported as f64 / body as f64
    );
    println!(
        "allocator, live bytes: {held:>11}  ({:.2}× the bodies; heap_size is {:.2}× this)",
        held as f64 / body as f64,
        reported as f64 / held as f64
    );
    println!(
        "heap_size / body per file: median {:.2}, p90 {:.2}, max {:.2}",
        pct(50),
        pct(90),
        pct(100)
    );
    println!("by part (Robots::heap_parts):");
    for (name, n) in &parts {
        println!("  {name:<34} {n:>11}");
    }
    println!("rules: {rules}; their values {value_bytes} bytes, their lines {line_bytes} bytes");
    drop(kept);
    // What a crawler holds: after its first verdict (a file's first check builds nothing),
    // then with the lookup of its agent built by its next checks, the others never.
    let token = ProductToken::verbatim(common::AGENT);
    let (mut unchecked, mut first, mut one_agent) = (0usize, 0usize, 0usize);
    for (_, bytes) in &corpus.files {
        let robots = Robots::parse_with(bytes, &options).robots;
        unchecked += robots.heap_size();
        robots.check(&token, "/");
        first += robots.heap_size();
        robots.check(&token, "/");
        one_agent += robots.heap_size();
    }
    let times = |n: usize| n as f64 / body as f64;
    println!(
        "before any check:      {unchecked:>11}  ({:.2}× the bodies)",
        times(unchecked)
    );
    println!(
        "after the first verdict of `{}`: {first} ({:.2}×); with its lookups built (its \
         later checks): {one_agent} ({:.2}×)",
        common::AGENT,
        times(first),
        times(one_agent)
    );
}

/// Checks one URL twice for every agent the file names and for `*`, so that every lazily
/// built index exists.
fn build_indexes(robots: &Robots) {
    let mut tokens = vec![ProductToken::verbatim("crawlgate-memory-survey")];
    for g in robots.groups() {
        for (agent, _) in g.agents() {
            if let Agent::Token(t) = agent {
                tokens.push(ProductToken::verbatim(t));
            }
        }
    }
    // Twice: a file's first check scans rather than build (see `AgentRules::check`).
    for t in &tokens {
        robots.check(t, "/");
        robots.check(t, "/");
    }
}
