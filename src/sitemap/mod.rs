//! Sitemaps: a streaming reader and validator (feature `sitemap`).
//!
//! [`Reader`] reads any of the formats Google accepts — XML `urlset` and `sitemapindex`, plain
//! text, RSS 2.0 (with Media RSS), Atom 1.0 — gzip-compressed or not (told from the bytes, not
//! the name), and yields [`Item`]s in file order: each [`Entry`] as soon as its element closes,
//! and each [`Diagnostic`] where it is found. Memory stays flat however long the file: nothing
//! but the current entry is kept (plus 12 bytes per URL, for duplicates, up to the 50,000-entry
//! limit), and no XML event (text node, tag, comment, CDATA section) may pass 1 MiB
//! ([`Options::max_text_bytes`]).
//!
//! The rules checked are those of the sitemaps protocol, Google's image, video and news
//! extensions, and Search Console ([sitemaps.org](https://www.sitemaps.org/protocol.html),
//! [Google's sitemap docs](https://developers.google.com/search/docs/crawling-indexing/sitemaps/overview));
//! [`Code`] lists them. [`CrossCheck`] checks
//! every URL an entry makes a crawler fetch against robots.txt.
//!
//! ```
//! use crawlgate::sitemap::{self, Code, Format};
//!
//! let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2024-01-31</lastmod></url>
//!   <url><loc>/relative</loc></url>
//! </urlset>"#;
//! let parsed = sitemap::parse(xml);
//! assert_eq!(parsed.format, Some(Format::UrlSet));
//! assert_eq!(parsed.entries.len(), 1);
//! assert_eq!(parsed.entries[0].loc, "https://example.com/a?x=1&y=2");
//! assert_eq!(parsed.entries[0].lastmod.as_deref(), Some("2024-01-31"));
//! let problems: Vec<_> = parsed.diagnostics.iter().map(|d| (d.line(), d.code)).collect();
//! assert_eq!(problems, [(4, Code::InvalidUrl)]);
//! ```

mod crosscheck;
mod diagnostic;
pub mod discover;
mod entry;
mod field_values;
mod input;
mod reader;
mod scope;
mod sink;
mod xml;

pub use crate::diagnostic::Severity;
pub use crosscheck::CrossCheck;
pub use diagnostic::{Code, Diagnostic, Position};
pub use discover::{SitemapReport, Walk, WalkOptions, WalkReport};
pub use entry::{
    Alternate, Entry, Format, Image, News, Price, Relationship, Restriction, Uploader, Video,
};
pub use reader::Reader;
pub use scope::Scope;

/// The most bytes a sitemap may have once uncompressed: 50 MiB (52,428,800)
/// ([sitemaps.org](https://www.sitemaps.org/protocol.html#index)).
pub const MAX_BYTES: u64 = 52_428_800;
/// The most entries (URLs, or sitemaps in an index) one sitemap may list
/// ([sitemaps.org](https://www.sitemaps.org/protocol.html#index)).
pub const MAX_ENTRIES: usize = 50_000;
/// The most bytes one XML event (a text node, tag, comment or CDATA section) may span: 1 MiB, 512 times the longest
/// value any rule allows (a 2,048-character description).
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// The longest URL, in characters ([sitemaps.org](https://www.sitemaps.org/protocol.html#locdef)).
pub const MAX_URL_CHARS: usize = 2_048;

/// Limits a [`Reader`] applies; the defaults are the protocol's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Uncompressed bytes read before `too-large` stops reading ([`MAX_BYTES`]).
    pub max_bytes: u64,
    /// Entries yielded before `too-many-urls` ([`MAX_ENTRIES`]).
    pub max_entries: usize,
    /// The most bytes one XML event may span (a text node, a tag, a comment, a CDATA section, the
    /// space between elements) before `oversized-text` stops reading ([`MAX_TEXT_BYTES`]):
    /// what bounds the reader's memory on hostile files.
    pub max_text_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_bytes: MAX_BYTES,
            max_entries: MAX_ENTRIES,
            max_text_bytes: MAX_TEXT_BYTES,
        }
    }
}

/// What a [`Reader`] yields, in file order.
// Entries are most of what is yielded: boxing them would cost an allocation each for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An entry whose required parts are valid.
    Entry(Entry),
    /// A problem.
    Diagnostic(Diagnostic),
}

impl Item {
    /// The entry, if this is one.
    pub fn into_entry(self) -> Option<Entry> {
        match self {
            Item::Entry(e) => Some(e),
            Item::Diagnostic(_) => None,
        }
    }
}

/// A whole sitemap read into memory: what [`parse`] returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    /// The format, if the file was recognised as one.
    pub format: Option<Format>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// The problems, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads a whole sitemap (compressed or not) from memory. For large files, iterate a [`Reader`]
/// instead: it keeps only the current entry.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut reader = Reader::new(bytes);
    let mut parsed = Parsed::default();
    for item in reader.by_ref() {
        match item {
            Item::Entry(e) => parsed.entries.push(e),
            Item::Diagnostic(d) => parsed.diagnostics.push(d),
        }
    }
    parsed.format = reader.format();
    parsed
}
