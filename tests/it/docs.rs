//! `docs/diagnostics.md` lists every diagnostic code, and only those: its robots.txt table
//! against `crawlgate::Code::ALL`, its sitemap table against `crawlgate::sitemap::Code::ALL`,
//! its page table against `crawlgate::page::Code::ALL`.

use std::collections::BTreeSet;

/// The page's two tables: the codes in the first column of the rows before the
/// `## Sitemap diagnostics` heading, and of those after it.
fn documented() -> (BTreeSet<String>, BTreeSet<String>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
    let page = std::fs::read_to_string(path).expect("docs/diagnostics.md");
    let (robots, sitemap) = page
        .split_once("\n## Sitemap diagnostics\n")
        .expect("a `## Sitemap diagnostics` section");
    let sitemap = sitemap
        .split_once("\n## Page diagnostics\n")
        .map_or(sitemap, |(s, _)| s);
    (codes(robots), codes(sitemap))
}

/// The backquoted first cell of each table row (`| `code` | severity | what |`).
fn codes(section: &str) -> BTreeSet<String> {
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(code, _)| code.to_owned())
        .collect()
}

#[test]
fn robots_txt_table_lists_every_code() {
    let (documented, _) = documented();
    let defined: BTreeSet<String> = crawlgate::Code::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect();
    assert_eq!(
        documented, defined,
        "docs/diagnostics.md's robots.txt table and crawlgate::Code differ"
    );
}

#[test]
fn sitemap_table_lists_every_code() {
    let (_, documented) = documented();
    let defined: BTreeSet<String> = crawlgate::sitemap::Code::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect();
    assert_eq!(
        documented, defined,
        "docs/diagnostics.md's sitemap table and crawlgate::sitemap::Code differ"
    );
}

#[test]
fn page_table_lists_every_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
    let page = std::fs::read_to_string(path).expect("docs/diagnostics.md");
    let (_, table) = page
        .split_once("\n## Page diagnostics\n")
        .expect("a `## Page diagnostics` section");
    let defined: BTreeSet<String> = crawlgate::page::Code::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect();
    assert_eq!(
        codes(table),
        defined,
        "docs/diagnostics.md's page table and crawlgate::page::Code differ"
    );
}
