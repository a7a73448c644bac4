//! Feature `batch`: robots.txt at research scale. Captures of robots.txt (a crawl's WARC
//! files, or rows of URL, status and body) judged as RFC 9309 says and audited for every
//! catalogued crawler, into Arrow record batches with a versioned schema. No fetching.
//!
//! ## Overview
//!
//! - [`WarcReader`] reads the `response` records of a WARC or WARC.gz stream as [`Capture`]s,
//!   one gzip member at a time, in bounded memory; what it cannot read becomes an
//!   [`Unreadable`] and the reading goes on.
//! - [`judge`] gives a capture its [`StatusClass`] (rules, allow-all, disallow-all,
//!   redirect-unresolved, not-robots) and its [`Verdict`](crate::policy::Verdict), by the
//!   rules the fetcher applies to a live response.
//! - [`Redirects`] holds redirect captures back until their targets are found in the input.
//! - [`Tables`] builds the three tables, `captures`, `agents` (capture × crawler × path: the
//!   audit's blocked / partly / allowed, by [`crate::audit::audit`] itself) and `rules`, as
//!   Arrow [`RecordBatch`](arrow_array::RecordBatch)es. Every row carries [`SCHEMA_VERSION`],
//!   the parser's version and its mode. `docs/batch.md` documents every column.
//!
//! ## Examples
//!
//! ```
//! use crawlgate::batch::{Capture, Settings, Tables};
//!
//! let capture = Capture::new(
//!     "https://example.com/robots.txt",
//!     Some(200),
//!     b"User-agent: Google-Extended\nUser-agent: GPTBot\nDisallow: /\n".to_vec(),
//! );
//! let settings = Settings::default();
//! let mut tables = Tables::new(&settings);
//! tables.push(&capture, None);
//! let batches = tables.finish()?;
//! assert_eq!(batches.captures.num_rows(), 1);
//! // One row per catalogued crawler (and per path asked about).
//! assert_eq!(batches.agents.num_rows(), settings.catalogue.crawlers().len());
//! # Ok::<(), arrow_schema::ArrowError>(())
//! ```

mod judge;
mod redirect;
pub mod rows;
mod tables;
mod warc;

use std::sync::Arc;

pub use judge::{judge, looks_binary, Judgement, StatusClass};
pub use redirect::{Redirects, Resolution, MAX_REDIRECTS};
pub use rows::{evaluate, RowError};
pub use tables::{Batches, Settings, Tables, PARSER, SCHEMA_VERSION};
pub use warc::{WarcReader, MAX_HEAD_BYTES};

/// Where a capture or an unreadable stretch was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// The input's name (a file name as given).
    pub input: Arc<str>,
    /// The record's number in its input, from 1 (responses and unreadable stretches counted;
    /// other WARC records not).
    pub record: u64,
    /// The byte offset in the input: of the gzip member for a WARC.gz, of the record for a
    /// plain WARC; `None` for rows.
    pub offset: Option<u64>,
    /// The crawl, from the WARC file's `warcinfo` record (`isPartOf`).
    pub crawl: Option<Arc<str>>,
}

/// One capture of a robots.txt: what a crawl got for one URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// The URL requested, as recorded.
    pub url: String,
    /// The HTTP status; `None` when no response came (unreachable).
    pub status: Option<u16>,
    /// The response's `Content-Type`.
    pub content_type: Option<String>,
    /// The response's `Location`.
    pub location: Option<String>,
    /// A challenge marker among the response's headers (`cf-mitigated: challenge`).
    pub challenge: Option<String>,
    /// When it was fetched, as recorded (`WARC-Date`).
    pub fetch_time: Option<String>,
    /// `WARC-Truncated`'s reason, when the crawler cut the body short.
    pub truncated: Option<String>,
    /// The body: at most the parsing limit plus one byte of it.
    pub body: Vec<u8>,
    /// The body's whole length, as captured.
    pub body_length: u64,
    /// Where it was found.
    pub place: Place,
}

impl Capture {
    /// A capture of `url` with `status` and `body` and nothing else known.
    pub fn new(url: &str, status: Option<u16>, body: Vec<u8>) -> Capture {
        Capture {
            url: url.to_owned(),
            status,
            body_length: body.len() as u64,
            body,
            ..Capture::default()
        }
    }
}

/// A stretch of input that could not be read, and why: a row of its own in `captures`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Where.
    pub place: Place,
    /// Why, in a sentence.
    pub reason: String,
}
