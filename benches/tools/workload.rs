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
//! state the bench times, without the first pass's index builds). The corpus is read as the benches read it (`benches/common/mod.rs`).

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
        "parse-sites" | "check" => {
            let parsed: Vec<Robots> = corpus
                .sites
                .iter()
                .map(|s| Robots::parse(&s.robots).robots)
                .collect();
            if what == "check" {
                // `check N`: N passes. The first builds the prefix indexes of the sites that
                // need one; `check 2` minus `check 1` is a pass as the bench times it.
                let passes: usize = std::env::args()
                    .nth(2)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
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
        _ => eprintln!("usage: workload load|parse|parse-sites|check"),
    }
}
