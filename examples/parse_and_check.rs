//! Parse a robots.txt, print its problems, then check URLs and print the line that decided.
//!
//! ```text
//! cargo run --example parse_and_check -- testdata/examples/robots.txt Googlebot \
//!     https://shop.example/cart/ https://shop.example/about
//! ```
//!
//! Arguments: the robots.txt file, the crawler's product token, then the URLs to check.

use crawlgate::{ProductToken, Robots};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(agent)) = (args.next(), args.next()) else {
        eprintln!("usage: parse_and_check ROBOTS.TXT AGENT URL…");
        std::process::exit(2);
    };
    let body = std::fs::read(&path)?;

    // Parsing never fails: every problem is a diagnostic with a code, a line and a severity.
    let parsed = Robots::parse(&body);
    for d in &parsed.diagnostics {
        println!("{path}: {d}");
    }

    let agent = ProductToken::new(&agent)?;
    // Resolve the agent's groups once, then check each URL against them.
    let rules = parsed.robots.rules_for(&agent);
    for url in args {
        let decision = rules.check(&url);
        let verdict = if decision.allowed {
            "allowed"
        } else {
            "disallowed"
        };
        match decision.rule() {
            Some(rule) => println!("{verdict}\t{url}\tline {}: {}", rule.line, rule.text),
            None => println!("{verdict}\t{url}\t(no rule matched)"),
        }
    }
    Ok(())
}
