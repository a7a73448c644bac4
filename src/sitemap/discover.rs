//! Walking an origin's sitemaps without doing any I/O: the robots.txt `Sitemap:` URLs, and the
//! sitemaps their indexes list, one level deep.
//!
//! [`Walk`] is a state machine. [`Walk::next_request`] says which sitemap to fetch next; the
//! caller fetches it however it likes and hands the bytes (or why it failed) to
//! [`Walk::record`], which reads them with a [`Reader`] and may queue more requests;
//! [`Walk::finish`] returns one [`SitemapReport`] per sitemap requested. `http::sitemaps`
//! (features `fetch` + `sitemap`) drives it over HTTP.
//!
//! Rules:
//!
//! - Announced sitemaps (depth 0) are requested in the order given. A sitemap index at depth 0
//!   has its entries queued at depth 1, after everything already queued.
//! - A sitemap index at depth 1 is a `nested-index` error on its own report, and the sitemaps it
//!   lists are not requested (indexes do not nest).
//! - An index entry naming the index itself or its parent is an `index-cycle` error on the
//!   index's report, at the entry's position, and is not requested again.
//! - A URL already requested or queued is a `duplicate-sitemap` warning and is not requested
//!   again: on the listing index's report at the entry's position, or, for a URL announced twice,
//!   on that sitemap's own report.
//! - URLs are compared after normalising them with the `url` crate (scheme and host case,
//!   default port, percent-encoding, dot segments), userinfo and fragment removed, as the
//!   fetcher removes them; a URL that does not parse is compared as written.
//! - At most [`WalkOptions::max_sitemaps`] are requested; the rest are counted in
//!   [`WalkReport::skipped`].
//!
//! ```
//! use crawlgate::sitemap::discover::{Walk, WalkOptions};
//! use crawlgate::sitemap::{Code, Format};
//!
//! let index = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <sitemap><loc>https://example.com/pages.xml</loc></sitemap>
//! </sitemapindex>"#;
//! let pages = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://example.com/a</loc></url>
//! </urlset>"#;
//!
//! let mut walk = Walk::new(["https://example.com/index.xml".to_owned()], WalkOptions::default());
//! while let Some(request) = walk.next_request() {
//!     let body: &[u8] = match request.url.as_str() {
//!         "https://example.com/index.xml" => index,
//!         "https://example.com/pages.xml" => pages,
//!         _ => b"",
//!     };
//!     walk.record(request, Ok(body), None);
//! }
//! let report = walk.finish();
//! assert_eq!(report.sitemaps.len(), 2);
//! assert_eq!(report.sitemaps[0].format, Some(Format::Index));
//! assert_eq!(report.sitemaps[1].parent.as_deref(), Some("https://example.com/index.xml"));
//! assert_eq!(report.sitemaps[1].entries, 1);
//! assert_eq!(report.sitemaps[1].errors, 0);
//! ```

use std::collections::{BTreeMap, HashSet, VecDeque};

use url::Url;

use super::{Code, CrossCheck, Diagnostic, Format, Item, Options, Position, Reader, Scope};
use crate::diagnostic::Severity;

/// Limits of a [`Walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalkOptions {
    /// The most sitemaps requested, announced and listed together. Default 1,000.
    pub max_sitemaps: usize,
    /// The most diagnostics kept per sitemap; the rest are still counted
    /// ([`SitemapReport::errors`], [`SitemapReport::warnings`], [`SitemapReport::by_code`]).
    /// Default 1,000.
    pub max_diagnostics_per_sitemap: usize,
    /// The limits each sitemap is read with (50 MiB, 50,000 entries).
    pub reader: Options,
    /// The URLs the sitemaps may list (`url-not-allowed`); sitemaps an index lists outside it
    /// are not followed. `Fetcher::discover_sitemaps` sets the robots.txt's origin. Default none.
    pub scope: Option<Scope>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_sitemaps: 1_000,
            max_diagnostics_per_sitemap: 1_000,
            reader: Options::default(),
            scope: None,
        }
    }
}

/// A sitemap to fetch, from [`Walk::next_request`]; hand it back to [`Walk::record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The URL, as announced or listed.
    pub url: String,
    /// The index that listed it (`None`: announced in robots.txt).
    pub parent: Option<String>,
    /// 0 for an announced sitemap, 1 for one listed by an index.
    pub depth: u8,
    /// Which report it fills; private so that a request comes only from [`Walk::next_request`].
    slot: usize,
}

/// What the walk found about one sitemap it requested.
///
/// Positions of diagnostics are in this sitemap's uncompressed bytes, except for those the walk
/// adds about the sitemap as a whole (`fetch-failed`, `nested-index`, and `duplicate-sitemap`
/// for a URL announced twice): they carry [`SitemapReport::listed_at`], the position of the
/// entry in the parent that listed it, or the default position (line 0) for an announced one.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SitemapReport {
    /// The URL, as announced or listed.
    pub url: String,
    /// The index that listed it (`None`: announced in robots.txt).
    pub parent: Option<String>,
    /// 0 for an announced sitemap, 1 for one listed by an index.
    pub depth: u8,
    /// Where the parent lists it (`None`: announced in robots.txt).
    pub listed_at: Option<Position>,
    /// The format, if the bytes were recognised as one.
    pub format: Option<Format>,
    /// Bytes fetched (before any gzip decompression the reader does).
    pub size: usize,
    /// Valid entries read: pages, or for an index the sitemaps it lists.
    pub entries: usize,
    /// Error diagnostics, all counted (kept or not).
    pub errors: usize,
    /// Warning diagnostics, all counted (kept or not).
    pub warnings: usize,
    /// Diagnostics per code, all counted (kept or not).
    pub by_code: BTreeMap<Code, usize>,
    /// The first [`WalkOptions::max_diagnostics_per_sitemap`] diagnostics, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Why the sitemap could not be fetched, if it could not.
    pub fetch_error: Option<String>,
}

impl SitemapReport {
    /// How many diagnostics of `code` were found.
    pub fn count(&self, code: Code) -> usize {
        self.by_code.get(&code).copied().unwrap_or(0)
    }

    /// How many diagnostics were counted but not kept.
    pub fn omitted(&self) -> usize {
        (self.errors + self.warnings).saturating_sub(self.diagnostics.len())
    }
}

/// The result of a [`Walk`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WalkReport {
    /// One report per sitemap requested, in request order.
    pub sitemaps: Vec<SitemapReport>,
    /// Sitemap URLs not requested because [`WalkOptions::max_sitemaps`] was reached (or the walk
    /// was finished before they were): a URL listed twice past the limit counts twice.
    pub skipped: usize,
}

/// Reports in request order (announced sitemaps first, then what their indexes list) put in
/// tree order: each report followed by those whose `parent` it is, in request order, so that a
/// listing shows every child under its own index. A report whose parent is not among them comes
/// last.
pub fn tree_order(reports: &[SitemapReport]) -> Vec<&SitemapReport> {
    let mut out: Vec<&SitemapReport> = Vec::with_capacity(reports.len());
    let mut placed = vec![false; reports.len()];
    for (i, root) in reports.iter().enumerate() {
        if root.parent.is_some() {
            continue;
        }
        placed[i] = true;
        out.push(root);
        for (j, child) in reports.iter().enumerate() {
            if !placed[j] && child.parent.as_deref() == Some(root.url.as_str()) {
                placed[j] = true;
                out.push(child);
            }
        }
    }
    out.extend(
        reports
            .iter()
            .zip(&placed)
            .filter(|(_, &p)| !p)
            .map(|(r, _)| r),
    );
    out
}

impl WalkReport {
    /// Whether some sitemaps were not requested.
    pub fn truncated(&self) -> bool {
        self.skipped > 0
    }

    /// The reports as a tree: each announced sitemap followed by the ones its index lists (see
    /// [`tree_order`]).
    pub fn in_tree_order(&self) -> Vec<&SitemapReport> {
        tree_order(&self.sitemaps)
    }
}

/// A sitemap waiting to be requested.
#[derive(Debug)]
struct Queued {
    url: String,
    key: String,
    parent: Option<(String, String)>,
    depth: u8,
    listed_at: Option<Position>,
    /// How many times robots.txt announced it (depth 0 only).
    announced: usize,
}

/// A requested sitemap: its report and what the cycle check needs.
#[derive(Debug)]
struct Slot {
    report: SitemapReport,
    key: String,
    parent_key: Option<String>,
    recorded: bool,
}

/// A sans-I/O walk over an origin's sitemaps (see the module docs).
#[derive(Debug)]
pub struct Walk {
    options: WalkOptions,
    queue: VecDeque<Queued>,
    /// Normalised URLs requested or queued: bounded by `max_sitemaps`, as URLs past the limit
    /// are counted, not kept.
    seen: HashSet<String>,
    slots: Vec<Slot>,
    skipped: usize,
}

impl Walk {
    /// A walk over the sitemaps robots.txt announces, in order. A URL announced twice is
    /// requested once, with a `duplicate-sitemap` warning on its report.
    pub fn new(announced: impl IntoIterator<Item = String>, options: WalkOptions) -> Walk {
        let mut walk = Walk {
            options,
            queue: VecDeque::new(),
            seen: HashSet::new(),
            slots: Vec::new(),
            skipped: 0,
        };
        for url in announced {
            let key = normalize(&url);
            if walk.seen.contains(&key) {
                if let Some(q) = walk.queue.iter_mut().find(|q| q.key == key) {
                    q.announced += 1;
                }
                continue;
            }
            walk.enqueue(Queued {
                url,
                key,
                parent: None,
                depth: 0,
                listed_at: None,
                announced: 1,
            });
        }
        walk
    }

    /// Queues `q` unless the limit is reached (then it is counted as skipped).
    fn enqueue(&mut self, q: Queued) {
        if self.slots.len() + self.queue.len() >= self.options.max_sitemaps {
            self.skipped += 1;
            return;
        }
        self.seen.insert(q.key.clone());
        self.queue.push_back(q);
    }

    /// The next sitemap to fetch, or `None` when nothing is queued. Requests may be taken
    /// several at a time (to fetch them concurrently); an index's entries are queued only when
    /// it is recorded.
    pub fn next_request(&mut self) -> Option<Request> {
        let q = self.queue.pop_front()?;
        let slot = self.slots.len();
        let (parent, parent_key) = match q.parent {
            Some((url, key)) => (Some(url), Some(key)),
            None => (None, None),
        };
        let mut report = SitemapReport {
            url: q.url.clone(),
            parent: parent.clone(),
            depth: q.depth,
            listed_at: q.listed_at,
            format: None,
            size: 0,
            entries: 0,
            errors: 0,
            warnings: 0,
            by_code: BTreeMap::new(),
            diagnostics: Vec::new(),
            fetch_error: None,
        };
        if q.announced > 1 {
            let message = format!(
                "{} is announced {} times in robots.txt; it is read once",
                q.url, q.announced
            );
            add(
                &mut report,
                self.options.max_diagnostics_per_sitemap,
                Diagnostic::new(Code::DuplicateSitemap, Position::default(), message),
            );
        }
        self.slots.push(Slot {
            report,
            key: q.key,
            parent_key,
            recorded: false,
        });
        Some(Request {
            url: q.url,
            parent,
            depth: q.depth,
            slot,
        })
    }

    /// Records what fetching `request` gave: the body (compressed or not), or why it failed
    /// (a `fetch-failed` error). The body is read in full; with `cross_check`, every entry's
    /// URLs are checked against robots.txt too. A request recorded twice, or taken from another
    /// walk, is ignored.
    pub fn record(
        &mut self,
        request: Request,
        body: Result<&[u8], String>,
        cross_check: Option<&CrossCheck<'_>>,
    ) {
        let cap = self.options.max_diagnostics_per_sitemap;
        let Some(slot) = self.slots.get_mut(request.slot) else {
            return;
        };
        if slot.recorded || slot.report.url != request.url {
            return;
        }
        slot.recorded = true;
        let bytes = match body {
            Ok(bytes) => bytes,
            Err(why) => {
                let position = slot.report.listed_at.unwrap_or_default();
                let message = format!("cannot fetch {}: {why}", slot.report.url);
                add(
                    &mut slot.report,
                    cap,
                    Diagnostic::new(Code::FetchFailed, position, message),
                );
                slot.report.fetch_error = Some(why);
                return;
            }
        };
        slot.report.size = bytes.len();
        let key = slot.key.clone();
        let parent_key = slot.parent_key.clone();
        let depth = slot.report.depth;
        let url = slot.report.url.clone();

        let scope = self.options.scope.clone();
        let mut reader = Reader::with_options(bytes, self.options.reader.clone());
        let mut nested_flagged = false;
        // `while let`, not `for`: the reader's format is read between items.
        while let Some(item) = reader.next() {
            let format = reader.format();
            if !nested_flagged && depth > 0 && format == Some(Format::Index) {
                nested_flagged = true;
                self.flag_nested(request.slot);
            }
            match item {
                Item::Diagnostic(d) => self.add_to(request.slot, d),
                Item::Entry(entry) => {
                    if let Some(report) = self.report_mut(request.slot) {
                        report.entries += 1;
                    }
                    if let Some(check) = cross_check {
                        for d in check.check(&entry) {
                            self.add_to(request.slot, d);
                        }
                    }
                    if let Some(d) = scope.as_ref().and_then(|s| s.check(&entry)) {
                        // Not used: an index's entry outside the scope is not followed.
                        self.add_to(request.slot, d);
                        continue;
                    }
                    if format == Some(Format::Index) {
                        self.listed(
                            request.slot,
                            &url,
                            &key,
                            parent_key.as_deref(),
                            depth,
                            entry,
                        );
                    }
                }
            }
        }
        let format = reader.format();
        if !nested_flagged && depth > 0 && format == Some(Format::Index) {
            self.flag_nested(request.slot);
        }
        if let Some(report) = self.report_mut(request.slot) {
            report.format = format;
        }
    }

    /// Handles one entry of the index in `slot`: a cycle, a duplicate, or a new request.
    fn listed(
        &mut self,
        slot: usize,
        index_url: &str,
        index_key: &str,
        parent_key: Option<&str>,
        depth: u8,
        entry: super::Entry,
    ) {
        let key = normalize(&entry.loc);
        if key == index_key || parent_key == Some(key.as_str()) {
            let what = if key == index_key {
                "itself"
            } else {
                "its parent"
            };
            let message = format!(
                "the sitemap index lists {what} ({}); it is not read again",
                entry.loc
            );
            self.add_to(
                slot,
                Diagnostic::new(Code::IndexCycle, entry.position, message),
            );
            return;
        }
        if depth > 0 {
            // A nested index: its entries are not followed (the `nested-index` error says so).
            return;
        }
        if self.seen.contains(&key) {
            let message = format!(
                "{} is already announced or listed; it is read once",
                entry.loc
            );
            self.add_to(
                slot,
                Diagnostic::new(Code::DuplicateSitemap, entry.position, message),
            );
            return;
        }
        self.enqueue(Queued {
            url: entry.loc,
            key,
            parent: Some((index_url.to_owned(), index_key.to_owned())),
            depth: depth + 1,
            listed_at: Some(entry.position),
            announced: 0,
        });
    }

    /// Adds the `nested-index` error to the sitemap in `slot`.
    fn flag_nested(&mut self, slot: usize) {
        let Some(report) = self.report_mut(slot) else {
            return;
        };
        let message = format!(
            "{} is a sitemap index listed by another index ({}); indexes do not nest, so the \
             sitemaps it lists are not read",
            report.url,
            report.parent.as_deref().unwrap_or("?")
        );
        let position = report.listed_at.unwrap_or_default();
        self.add_to(slot, Diagnostic::new(Code::NestedIndex, position, message));
    }

    fn report_mut(&mut self, slot: usize) -> Option<&mut SitemapReport> {
        self.slots.get_mut(slot).map(|s| &mut s.report)
    }

    fn add_to(&mut self, slot: usize, d: Diagnostic) {
        let cap = self.options.max_diagnostics_per_sitemap;
        if let Some(report) = self.report_mut(slot) {
            add(report, cap, d);
        }
    }

    /// Ends the walk: a report per sitemap requested, in request order. A request never
    /// recorded gets a `fetch-failed` error; sitemaps still queued count as skipped.
    pub fn finish(self) -> WalkReport {
        let cap = self.options.max_diagnostics_per_sitemap;
        let sitemaps = self
            .slots
            .into_iter()
            .map(|mut slot| {
                if !slot.recorded {
                    let why = "never fetched: the walk ended first".to_owned();
                    let position = slot.report.listed_at.unwrap_or_default();
                    let message = format!("cannot fetch {}: {why}", slot.report.url);
                    add(
                        &mut slot.report,
                        cap,
                        Diagnostic::new(Code::FetchFailed, position, message),
                    );
                    slot.report.fetch_error = Some(why);
                }
                slot.report
            })
            .collect();
        WalkReport {
            sitemaps,
            skipped: self.skipped + self.queue.len(),
        }
    }
}

/// Counts `d` and keeps it if fewer than `cap` are kept.
fn add(report: &mut SitemapReport, cap: usize, d: Diagnostic) {
    match d.severity {
        Severity::Error => report.errors += 1,
        Severity::Warning => report.warnings += 1,
    }
    *report.by_code.entry(d.code).or_insert(0) += 1;
    if report.diagnostics.len() < cap {
        report.diagnostics.push(d);
    }
}

/// The form URLs are compared in: parsed and serialised by the `url` crate, without userinfo
/// and fragment (never sent); the raw string if it does not parse.
fn normalize(raw: &str) -> String {
    match Url::parse(raw.trim()) {
        Ok(mut url) => {
            // These fail only for URLs that cannot have userinfo, which then have none.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_fragment(None);
            url.into()
        }
        Err(_) => raw.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::io::Write;

    use crate::{Origin, ProductToken, Robots};

    const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

    fn index(locs: &[&str]) -> Vec<u8> {
        let mut out =
            format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"{NS}\">\n");
        for loc in locs {
            out.push_str(&format!("  <sitemap><loc>{loc}</loc></sitemap>\n"));
        }
        out.push_str("</sitemapindex>\n");
        out.into_bytes()
    }

    fn urlset(locs: &[&str]) -> Vec<u8> {
        let mut out =
            format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"{NS}\">\n");
        for loc in locs {
            out.push_str(&format!("  <url><loc>{loc}</loc></url>\n"));
        }
        out.push_str("</urlset>\n");
        out.into_bytes()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    /// Runs a walk over an in-memory site (URL → body; a missing URL is a 404), returning the
    /// report and the URLs requested, in order.
    fn run(
        announced: &[&str],
        site: &HashMap<&str, Vec<u8>>,
        options: WalkOptions,
        cross_check: Option<&CrossCheck<'_>>,
    ) -> (WalkReport, Vec<String>) {
        let mut walk = Walk::new(announced.iter().map(|s| s.to_string()), options);
        let mut requested = Vec::new();
        while let Some(request) = walk.next_request() {
            requested.push(request.url.clone());
            let body = match site.get(request.url.as_str()) {
                Some(b) => Ok(b.as_slice()),
                None => Err("HTTP 404".to_owned()),
            };
            walk.record(request, body, cross_check);
        }
        (walk.finish(), requested)
    }

    fn codes(report: &SitemapReport) -> Vec<Code> {
        report.diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn index_children_are_read_once() {
        let site = HashMap::from([
            (
                "https://ex.com/index.xml",
                index(&[
                    "https://ex.com/a.xml",
                    "https://ex.com/b.xml.gz",
                    "https://EX.com:443/a.xml#frag",
                ]),
            ),
            (
                "https://ex.com/a.xml",
                urlset(&["https://ex.com/1", "https://ex.com/2"]),
            ),
            (
                "https://ex.com/b.xml.gz",
                gzip(&urlset(&["https://ex.com/3"])),
            ),
            ("https://ex.com/c.xml", urlset(&["https://ex.com/4"])),
        ]);
        let (report, requested) = run(
            &[
                "https://ex.com/index.xml",
                "https://ex.com/c.xml",
                "https://ex.com/c.xml",
            ],
            &site,
            WalkOptions::default(),
            None,
        );
        assert_eq!(
            requested,
            [
                "https://ex.com/index.xml",
                "https://ex.com/c.xml",
                "https://ex.com/a.xml",
                "https://ex.com/b.xml.gz",
            ]
        );
        let s = &report.sitemaps;
        assert_eq!(s[0].format, Some(Format::Index));
        assert_eq!(s[0].entries, 3);
        assert_eq!(codes(&s[0]), [Code::DuplicateSitemap]);
        assert_eq!(s[0].diagnostics[0].position.line, 5);
        assert_eq!(codes(&s[1]), [Code::DuplicateSitemap]);
        assert_eq!(s[1].entries, 1);
        assert_eq!((s[2].entries, s[2].errors, s[2].warnings), (2, 0, 0));
        assert_eq!(s[2].parent.as_deref(), Some("https://ex.com/index.xml"));
        assert_eq!(s[2].depth, 1);
        assert_eq!(s[2].listed_at.map(|p| p.line), Some(3));
        assert_eq!((s[3].format, s[3].entries), (Some(Format::UrlSet), 1));
        assert!(!report.truncated());
    }

    #[test]
    fn cycles_and_nesting() {
        let site = HashMap::from([
            (
                "https://ex.com/self.xml",
                index(&["https://ex.com/self.xml", "https://ex.com/nested.xml"]),
            ),
            (
                "https://ex.com/nested.xml",
                index(&["https://ex.com/self.xml", "https://ex.com/grandchild.xml"]),
            ),
            (
                "https://ex.com/grandchild.xml",
                urlset(&["https://ex.com/x"]),
            ),
        ]);
        let (report, requested) = run(
            &["https://ex.com/self.xml"],
            &site,
            WalkOptions::default(),
            None,
        );
        assert_eq!(
            requested,
            ["https://ex.com/self.xml", "https://ex.com/nested.xml"]
        );
        let s = &report.sitemaps;
        assert_eq!(codes(&s[0]), [Code::IndexCycle]);
        assert_eq!(s[0].diagnostics[0].position.line, 3);
        assert_eq!(s[0].errors, 1);
        // The nested index: flagged, its parent in it is a cycle, its child never requested.
        assert_eq!(codes(&s[1]), [Code::NestedIndex, Code::IndexCycle]);
        assert_eq!(s[1].diagnostics[0].position.line, 4);
        assert_eq!(s[1].entries, 2);
    }

    #[test]
    fn fetch_failures_and_limits() {
        let site = HashMap::from([(
            "https://ex.com/index.xml",
            index(&[
                "https://ex.com/1.xml",
                "https://ex.com/2.xml",
                "https://ex.com/3.xml",
            ]),
        )]);
        let options = WalkOptions {
            max_sitemaps: 3,
            ..WalkOptions::default()
        };
        let (report, requested) = run(
            &["https://ex.com/index.xml", "https://ex.com/gone.xml"],
            &site,
            options,
            None,
        );
        assert_eq!(requested.len(), 3);
        assert_eq!(report.skipped, 2);
        assert!(report.truncated());
        let gone = &report.sitemaps[1];
        assert_eq!(gone.fetch_error.as_deref(), Some("HTTP 404"));
        assert_eq!(codes(gone), [Code::FetchFailed]);
        assert_eq!(gone.count(Code::FetchFailed), 1);
        assert_eq!(report.sitemaps[2].count(Code::FetchFailed), 1);
        assert_eq!(report.sitemaps[2].listed_at.map(|p| p.line), Some(3));
    }

    #[test]
    fn announced_duplicates_without_reading() {
        let mut walk = Walk::new(
            [
                "https://ex.com/a.xml".to_owned(),
                "HTTPS://EX.COM/a.xml".to_owned(),
                "not a url".to_owned(),
                "not a url".to_owned(),
            ],
            WalkOptions::default(),
        );
        let a = walk.next_request().unwrap();
        let b = walk.next_request().unwrap();
        assert_eq!(b.url, "not a url");
        assert!(walk.next_request().is_none());
        walk.record(b.clone(), Err("bad URL".to_owned()), None);
        // Recorded twice: ignored.
        walk.record(b, Err("again".to_owned()), None);
        let report = walk.finish();
        // `a` was never recorded.
        assert_eq!(report.sitemaps.len(), 2);
        assert_eq!(
            codes(&report.sitemaps[0]),
            [Code::DuplicateSitemap, Code::FetchFailed]
        );
        assert_eq!(a.depth, 0);
        assert_eq!(
            codes(&report.sitemaps[1]),
            [Code::DuplicateSitemap, Code::FetchFailed]
        );
        assert_eq!(report.sitemaps[1].fetch_error.as_deref(), Some("bad URL"));
        assert_eq!(report.skipped, 0);
    }

    #[test]
    fn no_sitemaps_at_all() {
        let options = WalkOptions {
            max_sitemaps: 0,
            ..WalkOptions::default()
        };
        let mut walk = Walk::new(["https://ex.com/a.xml".to_owned()], options);
        assert!(walk.next_request().is_none());
        let report = walk.finish();
        assert!(report.sitemaps.is_empty());
        assert_eq!(report.skipped, 1);
    }

    #[test]
    fn diagnostics_are_capped_but_counted() {
        let locs: Vec<String> = (0..10).map(|i| format!("/relative/{i}")).collect();
        let refs: Vec<&str> = locs.iter().map(String::as_str).collect();
        let site = HashMap::from([("https://ex.com/a.xml", urlset(&refs))]);
        let options = WalkOptions {
            max_diagnostics_per_sitemap: 3,
            ..WalkOptions::default()
        };
        let (report, _) = run(&["https://ex.com/a.xml"], &site, options, None);
        let s = &report.sitemaps[0];
        assert_eq!(s.diagnostics.len(), 3);
        assert_eq!(s.count(Code::InvalidUrl), 10);
        assert_eq!(s.errors, 10);
        assert_eq!(s.omitted(), 7);
        assert_eq!(s.entries, 0);
    }

    #[test]
    fn cross_check_blocks() {
        let robots = Robots::parse(b"User-agent: *\nDisallow: /private\n").robots;
        let agent = ProductToken::new("TestBot").unwrap();
        let origin = Origin::from_url("https://ex.com/").unwrap();
        let check = CrossCheck::scoped(&robots, &agent, origin);
        let site = HashMap::from([(
            "https://ex.com/a.xml",
            urlset(&[
                "https://ex.com/public",
                "https://ex.com/private/x",
                "https://other.example/private/y",
            ]),
        )]);
        let (report, _) = run(
            &["https://ex.com/a.xml"],
            &site,
            WalkOptions::default(),
            Some(&check),
        );
        let s = &report.sitemaps[0];
        assert_eq!(s.entries, 3);
        assert_eq!(codes(s), [Code::BlockedByRobots]);
        assert_eq!(s.diagnostics[0].position.line, 4);
        assert_eq!(s.warnings, 1);
    }

    #[test]
    fn tree_order_puts_children_under_their_index() {
        let r = |url: &str, parent: Option<&str>| SitemapReport {
            url: url.to_owned(),
            parent: parent.map(str::to_owned),
            depth: u8::from(parent.is_some()),
            listed_at: None,
            format: None,
            size: 0,
            entries: 0,
            errors: 0,
            warnings: 0,
            by_code: BTreeMap::new(),
            diagnostics: Vec::new(),
            fetch_error: None,
        };
        // Request order: the announced ones, then the children of both indexes.
        let reports = [
            r("a-index", None),
            r("b-index", None),
            r("c", None),
            r("b1", Some("b-index")),
            r("a1", Some("a-index")),
            r("b2", Some("b-index")),
            r("orphan", Some("nowhere")),
        ];
        let order: Vec<&str> = tree_order(&reports)
            .iter()
            .map(|r| r.url.as_str())
            .collect();
        assert_eq!(
            order,
            ["a-index", "a1", "b-index", "b1", "b2", "c", "orphan"]
        );
    }

    #[test]
    fn scope_drops_other_sites_and_does_not_follow_them() {
        let site: HashMap<&str, Vec<u8>> = HashMap::from([
            (
                "https://ex.com/index.xml",
                index(&["https://ex.com/a.xml", "https://cdn.other/b.xml"]),
            ),
            (
                "https://ex.com/a.xml",
                urlset(&[
                    "https://ex.com/p",
                    "http://ex.com/q",
                    "https://www.ex.com/r",
                ]),
            ),
        ]);
        let options = WalkOptions {
            scope: Some(Scope::site(
                crate::Origin::from_url("https://ex.com/").unwrap(),
            )),
            ..WalkOptions::default()
        };
        let (report, requested) = run(&["https://ex.com/index.xml"], &site, options, None);
        assert_eq!(
            requested,
            ["https://ex.com/index.xml", "https://ex.com/a.xml"]
        );
        assert_eq!(codes(&report.sitemaps[0]), [Code::UrlNotAllowed]);
        assert_eq!(report.sitemaps[0].diagnostics[0].position.line, 4);
        assert_eq!(
            codes(&report.sitemaps[1]),
            [Code::UrlNotAllowed, Code::UrlNotAllowed]
        );
    }

    #[test]
    fn normalizing() {
        assert_eq!(
            normalize("HTTPS://u:p@Ex.COM:443/a/../b.xml#f"),
            "https://ex.com/b.xml"
        );
        assert_eq!(normalize("/relative"), "/relative");
    }
}
