//! Sitemap problems: a stable [`Code`], a [`Severity`], and where (line, column, byte offset in
//! the uncompressed file).
//!
//! Severity means what it means for robots.txt, at the level the problem is about: an **error**
//! means that part is not used (a file-level error: Search Console rejects the file; an entry-level
//! error: the entry is dropped; a value-level error: the value is dropped, the entry kept); a
//! **warning** means it is still used. The names follow Search Console's sitemap report where it
//! has one.

use std::borrow::Cow;
use std::fmt;

use crate::diagnostic::{codes, Severity};

codes! {
    /// The stable identifier of a kind of sitemap problem.
    ///
    /// [`Code::as_str`] gives the kebab-case name used by `crawlgate sitemap lint` and its JSON.
    Code {
    /// Not a sitemap: neither XML (`urlset`, `sitemapindex`, RSS 2.0, Atom 1.0) nor a text
    /// sitemap (for instance HTML, or an unknown root element). Nothing is read.
    UnsupportedFormat = "unsupported-format", Error;
    /// The XML is not well-formed (a mismatched end tag, a raw `&` or `<`, a broken attribute…).
    /// Reading stops there; what came before is kept.
    XmlMalformed = "xml-malformed", Error;
    /// The file ends inside an element (or inside a tag): it was cut short.
    XmlTruncated = "xml-truncated", Error;
    /// A `<!DOCTYPE …>`: refused, and its entity declarations are never used.
    Doctype = "doctype", Error;
    /// A reference to an entity other than the five XML ones or a character reference: never
    /// expanded, and the value holding it is not used.
    UndefinedEntity = "undefined-entity", Error;
    /// Something (whitespace included) before `<?xml`: Search Console's "leading whitespace".
    LeadingContent = "leading-content", Error;
    /// Bytes that are not UTF-8, or an XML declaration naming another encoding.
    Encoding = "encoding", Error;
    /// The root element is not in the namespace its format requires
    /// (`http://www.sitemaps.org/schemas/sitemap/0.9` for `urlset` and `sitemapindex`).
    IncorrectNamespace = "incorrect-namespace", Error;
    /// More than 52,428,800 bytes once uncompressed: reading stops at the limit.
    TooLarge = "too-large", Error;
    /// An XML text node, comment, CDATA section or tag of more than 1 MiB: no value is allowed a
    /// thousandth of that, so reading stops there, which bounds memory.
    OversizedText = "oversized-text", Error;
    /// More than 50,000 entries: the entries after the 50,000th are not used.
    TooManyUrls = "too-many-urls", Error;
    /// The gzip stream is broken: reading stops where it breaks.
    CompressionError = "compression-error", Error;
    /// The input could not be read to its end (an I/O error of the source): reading stops.
    ReadError = "read-error", Error;
    /// A sitemap index lists another sitemap index; indexes do not nest.
    NestedIndex = "nested-index", Error;
    /// A sitemap index lists itself, or a sitemap already being read above it.
    IndexCycle = "index-cycle", Error;
    /// A sitemap could not be fetched (status, timeout, refused address…).
    FetchFailed = "fetch-failed", Error;
    /// A required element is missing (`<loc>`, a video's `<video:title>`…): its parent is not used.
    MissingTag = "missing-tag", Error;
    /// A required attribute is missing (`relationship`, `currency`, `hreflang`…).
    MissingAttribute = "missing-attribute", Error;
    /// Not an absolute `http`/`https` URL.
    InvalidUrl = "invalid-url", Error;
    /// A `<loc>` outside what the sitemap may list: another site, or outside the sitemap's
    /// directory when robots.txt does not announce it (Search Console's "URL not allowed").
    UrlNotAllowed = "url-not-allowed", Error;
    /// A URL longer than 2,048 characters.
    UrlTooLong = "url-too-long", Error;
    /// A date that is not in W3C Datetime format (`YYYY-MM-DD`, or with `Thh:mm[:ss[.s]]` and a
    /// zone `Z` or `±hh:mm`).
    InvalidDate = "invalid-date", Error;
    /// A value outside what its element allows (`yes`/`no`, a range, a list of codes…).
    InvalidTagValue = "invalid-tag-value", Error;
    /// An attribute value outside what the attribute allows.
    InvalidAttributeValue = "invalid-attribute-value", Error;
    /// A text value longer than its element allows (a video description over 2,048 characters…).
    ValueTooLong = "value-too-long", Error;
    /// A video's `<video:content_loc>` or `<video:player_loc>` is the page's own `<loc>`.
    VideoUrlSameAsPage = "video-url-same-as-page", Error;
    /// A `<video:uploader info>` URL outside the domain of the page's `<loc>`.
    UploaderInfoDomain = "uploader-info-domain", Error;
    /// An element that may appear once appears again: only the first is used.
    DuplicateTag = "duplicate-tag", Warning;
    /// More repetitions of an element than allowed (32 `<video:tag>`, 1,000 images): the rest are
    /// not used.
    TooManyTags = "too-many-tags", Warning;
    /// An element, in a namespace crawlgate knows, that the format does not define: ignored.
    UnknownTag = "unknown-tag", Warning;
    /// An element or attribute Google retired in 2022 (`video:category`, `image:caption`…): its
    /// syntax is checked, and it is ignored.
    RetiredTag = "retired-tag", Warning;
    /// `<priority>` or `<changefreq>`: valid, but Google ignores them (reported once per file).
    IgnoredTag = "ignored-tag", Warning;
    /// A URL with characters that must be percent-encoded (non-ASCII, spaces, `{`…): it is used in
    /// its percent-encoded form.
    UrlNotEncoded = "url-not-encoded", Warning;
    /// A URL carrying a session ID (`jsessionid`, `PHPSESSID`, `sid=`…).
    SessionId = "session-id", Warning;
    /// The same URL twice in one sitemap.
    DuplicateUrl = "duplicate-url", Warning;
    /// A sitemap announced or listed more than once: it is read once.
    DuplicateSitemap = "duplicate-sitemap", Warning;
    /// A sitemap with no entries.
    EmptySitemap = "empty-sitemap", Warning;
    /// A URL (page, image, video content, player or thumbnail) that robots.txt blocks for the
    /// chosen agent; the message names the rule.
    BlockedByRobots = "blocked-by-robots", Warning;
}}

/// Where something is in a sitemap: 1-based line and column (in characters) and the byte offset
/// in the uncompressed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset from the start of the uncompressed file.
    pub offset: u64,
}

/// One problem in a sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// Error (not used) or warning (used).
    pub severity: Severity,
    /// Where: the start of the element (or text line) the problem is about.
    pub position: Position,
    /// A sentence for people; may change between versions.
    pub message: Cow<'static, str>,
}

impl Diagnostic {
    /// A diagnostic with the code's severity.
    pub fn new(code: Code, position: Position, message: impl Into<Cow<'static, str>>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            position,
            message: message.into(),
        }
    }

    /// 1-based line.
    pub fn line(&self) -> u32 {
        self.position.line
    }

    /// 1-based column, in characters.
    pub fn column(&self) -> u32 {
        self.position.column
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}[{}]: {}",
            self.position.line, self.position.column, self.severity, self.code, self.message
        )
    }
}
