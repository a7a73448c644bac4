//! Read a sitemap and check it: its own problems (format, dates, URLs…) and every URL it lists
//! against a robots.txt, for one crawler.
//!
//! ```text
//! cargo run --example sitemap_check -- testdata/sitemap/seeds/basic.xml testdata/examples/robots.txt Googlebot
//! ```
//!
//! Arguments: the sitemap file (XML, text, RSS or Atom; gzip or not), the robots.txt file, and
//! the crawler's product token. It exits 1 if the sitemap has errors.

use std::fs::File;
use std::io::BufReader;

use crawlgate::sitemap::{CrossCheck, Item, Reader, Severity};
use crawlgate::{ProductToken, Robots};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [sitemap, robots, agent] = &args[..] else {
        eprintln!("usage: sitemap_check SITEMAP ROBOTS.TXT AGENT");
        std::process::exit(2);
    };
    let robots = Robots::parse(&std::fs::read(robots)?).robots;
    let agent = ProductToken::new(agent)?;
    let check = CrossCheck::new(&robots, &agent);

    // The reader streams: one entry at a time, in file order, whatever the file's size.
    let (mut entries, mut errors) = (0, 0);
    for item in Reader::new(BufReader::new(File::open(sitemap)?)) {
        let problems = match item {
            Item::Entry(entry) => {
                entries += 1;
                check.check(&entry)
            }
            Item::Diagnostic(d) => vec![d],
        };
        for d in problems {
            errors += usize::from(d.severity == Severity::Error);
            println!("{sitemap}: {d}");
        }
    }
    println!("{entries} entries, {errors} errors");
    if errors > 0 {
        std::process::exit(1);
    }
    Ok(())
}
