//! The XML formats: `urlset`, `sitemapindex`, RSS 2.0 (+ Media RSS) and Atom 1.0, read as a
//! stream of quick-xml events with a stack of the open elements.
//!
//! This file is the reader: the event loop, namespaces, the element stack, and dispatch. Each
//! element is classified once, on its start tag, into a [`Tag`] naming its owner: the entry
//! itself (`entry.rs`), or a row of an extension's field table (`image.rs`, `video.rs`,
//! `news.rs`, `media.rs`, driven by `rules.rs`); `xhtml.rs` reads alternates. Values are
//! collected as text (joined across entity references and CDATA, then trimmed) and handed to
//! their owner when their element ends; an entry is checked and yielded when its element ends.
//! Entities other than the five XML ones are never expanded, and a DOCTYPE is refused, so no
//! input can make the reader grow beyond the file itself.

use std::io::Read;

use quick_xml::errors::{Error as XmlError, IllFormedError, SyntaxError};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::{NamespaceError, NamespaceResolver, QName, ResolveResult};

use super::input::{Input, Stop};
use super::sink::{quote, Sink};
use super::{Code, Format, Position, MAX_URL_CHARS};

mod entry;
mod image;
mod media;
mod news;
mod price;
mod restriction;
mod rules;
mod video;
mod xhtml;

use entry::{EntryBuilder, Part};
use image::{ImageBuilder, MAX_IMAGES};
use media::Mrss;
use news::NewsBuilder;
use rules::{Child, Fields};
use video::VideoBuilder;

const SITEMAP_NS: &[u8] = b"http://www.sitemaps.org/schemas/sitemap/0.9";
const IMAGE_NS: &[u8] = b"http://www.google.com/schemas/sitemap-image/1.1";
const VIDEO_NS: &[u8] = b"http://www.google.com/schemas/sitemap-video/1.1";
const NEWS_NS: &[u8] = b"http://www.google.com/schemas/sitemap-news/0.9";
const XHTML_NS: &[u8] = b"http://www.w3.org/1999/xhtml";
const MEDIA_NS: &[u8] = b"http://search.yahoo.com/mrss/";
const DCTERMS_NS: &[u8] = b"http://purl.org/dc/terms/";
const ATOM_NS: &[u8] = b"http://www.w3.org/2005/Atom";

/// Text kept per value; longer values are counted, not stored (every limit is far below).
const MAX_VALUE_BYTES: usize = 16 * 1024;

/// The namespace of an element, as far as sitemaps care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    /// The root's own namespace: sitemap for `urlset`/`sitemapindex`, none for RSS, Atom's.
    Primary,
    Image,
    Video,
    News,
    Xhtml,
    Media,
    Dcterms,
    Other,
}

/// The extensions whose children are rows of a field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    Image,
    Video,
    News,
    /// Media RSS and its Dublin Core terms.
    Media,
}

/// What an open element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Root,
    Channel,
    Entry,
    /// A child of the entry in the root's namespace.
    Core(Part),
    Image,
    Video,
    News,
    NewsPublication,
    MediaGroup,
    /// A row of an extension's table whose text is its value.
    Value(Table, u8),
    /// A row of an extension's table read from its attributes.
    Attributes(Table, u8),
    XhtmlLink,
    /// An element whose content is not read (unknown namespace, retired container, past the
    /// limit, markup inside a value…).
    Skip,
}

impl Tag {
    /// Elements whose text is their value.
    fn has_value(self) -> bool {
        match self {
            Tag::Core(p) => p.has_value(),
            Tag::Value(..) => true,
            _ => false,
        }
    }

    /// The tag of a table row.
    fn row<B: Fields>(table: Table, row: u8) -> Tag {
        match B::FIELDS.get(usize::from(row)) {
            Some(f) if f.has_value() => Tag::Value(table, row),
            _ => Tag::Attributes(table, row),
        }
    }
}

#[derive(Debug)]
struct Frame {
    tag: Tag,
    at: Position,
}

/// The text of the value being read.
#[derive(Debug, Default)]
struct Text {
    text: String,
    /// Characters past `MAX_VALUE_BYTES`, counted but not kept.
    dropped: usize,
    /// A reference or bytes that made the value unusable (already reported).
    bad: bool,
}

impl Text {
    fn clear(&mut self) {
        self.text.clear();
        self.dropped = 0;
        self.bad = false;
    }

    fn push(&mut self, s: &str) {
        let room = MAX_VALUE_BYTES.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
        } else {
            let mut cut = room;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.push_str(&s[..cut]);
            self.dropped += s[cut..].chars().count();
        }
    }

    /// The trimmed value, and whether part of it was dropped.
    fn value(&self) -> (&str, bool) {
        (trim_xml_space(&self.text), self.dropped > 0)
    }
}

/// The XML state machine.
pub(crate) struct Xml<R: Read> {
    reader: quick_xml::Reader<Input<R>>,
    buf: Vec<u8>,
    stack: Vec<Frame>,
    /// The root's namespace (`None`: no namespace), which its children share.
    root_ns: Option<Vec<u8>>,
    root_seen: bool,
    text: Text,
    entry: Option<EntryBuilder>,
    video: Option<VideoBuilder>,
    image: Option<ImageBuilder>,
    news: Option<NewsBuilder>,
    at_end: Position,
    /// Reported `unknown prefix` once per prefix.
    unknown_prefixes: Vec<String>,
    /// Namespace bindings in scope, and start tags' namespaces by prefix.
    ns: Namespaces,
    /// Every start tag's namespace kind and undeclared prefix, for the tests to compare.
    #[cfg(test)]
    trace: Vec<(Ns, Option<String>)>,
}

/// Namespaces as quick-xml's `NsReader` keeps them (its resolver, a scope pushed per start tag
/// and popped before the event after its end), with two shortcuts that change no answer:
///
/// - only start tags that may declare namespaces (`xmlns` somewhere in their attributes) push a
///   scope: pushing an element without declarations adds no binding, so only its nesting
///   counted, and the nesting limit is checked here instead (the same error at the same tag);
/// - what a start tag's prefix resolves to is remembered: resolving (a search of the bindings,
///   then comparisons with the namespaces sitemaps use) was a twentieth of the reader's work,
///   and a sitemap uses two or three prefixes throughout. The answer for a prefix changes only
///   when bindings do: the cache is emptied when an element that may declare some opens and
///   when it ends (an empty element's declarations are its own: it is resolved without it).
#[derive(Debug)]
struct Namespaces {
    resolver: NamespaceResolver,
    /// An element whose scope was pushed ended: its scope is popped before the next event.
    pending_pop: bool,
    /// The prefix with its colon (empty: none) and what it resolved to.
    entries: Vec<(Box<[u8]>, Ns, Option<String>)>,
    /// Elements open.
    depth: usize,
    /// The depths of the open elements whose scope was pushed.
    scopes: Vec<usize>,
    /// Finds `xmlns` in a start tag's attributes.
    xmlns: memchr::memmem::Finder<'static>,
}

/// Prefixes remembered at most: a file with more resolves the others every time.
const NS_CACHE_ENTRIES: usize = 8;

/// The most elements open at once, as quick-xml's resolver counts them (`u16`).
const MAX_DEPTH: usize = u16::MAX as usize;

impl Namespaces {
    fn new() -> Namespaces {
        Namespaces {
            resolver: NamespaceResolver::default(),
            pending_pop: false,
            entries: Vec::new(),
            depth: 0,
            scopes: Vec::new(),
            xmlns: memchr::memmem::Finder::new(b"xmlns"),
        }
    }

    /// Whether a start tag may declare namespaces (any `xmlns` in its attributes: a few
    /// false alarms cost a resolution each).
    fn declares(&self, e: &BytesStart<'_>) -> bool {
        let raw = e.attributes_raw().as_bytes();
        raw.len() >= 5 && self.xmlns.find(raw).is_some()
    }

    /// Before reading an event: the scope of an element that ended is dropped.
    fn before_read(&mut self) {
        if self.pending_pop {
            self.resolver.pop();
            self.pending_pop = false;
        }
    }

    /// An element opened (`empty`: and closed): its declarations are bound. Returns whether
    /// the cache may answer for it; an error (bad declaration, too deep) ends reading.
    fn open(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<bool, NamespaceError> {
        if self.depth >= MAX_DEPTH {
            // What `NsReader`'s resolver would say first: it counts every open element, this
            // one's counts only those that pushed a scope.
            return Err(NamespaceError::TooDeeplyNested(MAX_DEPTH));
        }
        let push = self.declares(e);
        if push {
            self.resolver.push(e)?;
        }
        if empty {
            self.pending_pop |= push;
            return Ok(!push);
        }
        self.depth += 1;
        if push {
            self.scopes.push(self.depth);
            self.entries.clear();
        }
        Ok(true)
    }

    /// An element ended: the bindings it declared go out of scope.
    fn close(&mut self) {
        if self.scopes.last() == Some(&self.depth) {
            self.scopes.pop();
            self.pending_pop = true;
            self.entries.clear();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    /// The namespace kind of a start tag, its prefix when undeclared, and (before the root) its
    /// namespace.
    fn resolve(
        &mut self,
        name: QName<'_>,
        root_ns: Option<&[u8]>,
        root_seen: bool,
        cacheable: bool,
    ) -> (Ns, Option<String>, Option<Vec<u8>>) {
        let raw_name = name.as_ref().as_bytes();
        if cacheable {
            if let Some((ns, unknown)) = self.get(raw_name) {
                return (ns, unknown, None);
            }
        }
        let (resolved, _) = self.resolver.resolve_element(name);
        let ns = namespace_of(&resolved, root_ns, root_seen);
        let (unknown, bound) = match resolved {
            ResolveResult::Unknown(p) => (Some(p), None),
            ResolveResult::Bound(n) if !root_seen => (None, Some(n.as_ref().as_bytes().to_vec())),
            _ => (None, None),
        };
        if cacheable {
            self.insert(Self::key(raw_name), ns, unknown.as_ref());
        }
        (ns, unknown, bound)
    }

    /// The prefix of `name` with its colon (empty when unprefixed), as the cache keys it.
    fn key(name: &[u8]) -> &[u8] {
        // Names are short: a plain loop beats memchr's setup.
        match name.iter().position(|&b| b == b':') {
            Some(i) => name.get(..=i).unwrap_or(name),
            None => &[],
        }
    }

    /// What `name`'s prefix resolved to, if remembered.
    fn get(&self, name: &[u8]) -> Option<(Ns, Option<String>)> {
        let key = Self::key(name);
        self.entries
            .iter()
            .find(|(k, ..)| **k == *key)
            .map(|(_, ns, unknown)| (*ns, unknown.clone()))
    }

    fn insert(&mut self, key: &[u8], ns: Ns, unknown: Option<&String>) {
        if self.entries.len() < NS_CACHE_ENTRIES {
            self.entries.push((key.into(), ns, unknown.cloned()));
        }
    }
}

impl<R: Read> Xml<R> {
    pub(crate) fn new(input: Input<R>) -> Xml<R> {
        let mut reader = quick_xml::Reader::from_reader(input);
        let config = reader.config_mut();
        config.expand_empty_elements = false;
        config.check_end_names = true;
        config.trim_text(false);
        Xml {
            reader,
            buf: Vec::with_capacity(4096),
            stack: Vec::with_capacity(16),
            root_ns: None,
            root_seen: false,
            text: Text::default(),
            entry: None,
            video: None,
            image: None,
            news: None,
            at_end: Position::default(),
            unknown_prefixes: Vec::new(),
            ns: Namespaces::new(),
            #[cfg(test)]
            trace: Vec::new(),
        }
    }

    /// Uncompressed bytes consumed.
    pub(crate) fn consumed(&self) -> u64 {
        self.reader.get_ref().consumed()
    }

    /// Whether the input is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        self.reader.get_ref().is_gzip()
    }

    /// Why the input stopped early, and where reading ended.
    pub(crate) fn stop(&self) -> (Option<Stop>, Position) {
        (self.reader.get_ref().stop().cloned(), self.at_end)
    }

    /// Handles one event; false when reading is over.
    pub(crate) fn step(&mut self, sink: &mut Sink) -> bool {
        self.reader.get_mut().start_event();
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let more = {
            let root_ns = self.root_ns.as_deref();
            let root_seen = self.root_seen;
            self.ns.before_read();
            let read = self.reader.read_event_into(&mut buf).and_then(|event| {
                let opened = match &event {
                    Event::Start(e) | Event::Empty(e) => {
                        Some(self.ns.open(e, matches!(event, Event::Empty(_)))?)
                    }
                    Event::End(_) => {
                        self.ns.close();
                        None
                    }
                    _ => None,
                };
                Ok((event, opened))
            });
            match read {
                Ok((event, opened)) => {
                    // Only start tags need their namespace: resolving is skipped for the rest.
                    let (ns, unknown, bound) = match (&event, opened) {
                        (Event::Start(e) | Event::Empty(e), Some(cacheable)) => {
                            self.ns
                                .resolve(e.name(), root_ns, root_seen, cacheable && root_seen)
                        }
                        _ => (Ns::Other, None, None),
                    };
                    #[cfg(test)]
                    if opened.is_some() {
                        self.trace.push((ns, unknown.clone()));
                    }
                    // Counted only for the events that use it: most (text, end tags) do not.
                    let at = match &event {
                        Event::Start(_)
                        | Event::Empty(_)
                        | Event::GeneralRef(_)
                        | Event::Decl(_)
                        | Event::DocType(_) => self.reader.get_mut().event_position(),
                        _ => Position::default(),
                    };
                    self.event(sink, at, ns, unknown, bound, event)
                }
                Err(e) => {
                    self.at_end = self.reader.get_mut().position();
                    self.error(sink, e);
                    false
                }
            }
        };
        self.buf = buf;
        more
    }

    fn error(&mut self, sink: &mut Sink, e: XmlError) {
        let at = self.at_end;
        sink.set_broken();
        if self.reader.get_ref().stop().is_some() {
            // The input was cut (limit, broken gzip, read error): that is the diagnostic.
            return;
        }
        let truncated = matches!(
            &e,
            XmlError::Syntax(
                SyntaxError::UnclosedTag
                    | SyntaxError::UnclosedComment
                    | SyntaxError::UnclosedCData
                    | SyntaxError::UnclosedDoctype
                    | SyntaxError::UnclosedPI
                    | SyntaxError::UnclosedXmlDecl
                    | SyntaxError::UnclosedSingleQuotedAttributeValue
                    | SyntaxError::UnclosedDoubleQuotedAttributeValue,
            ) | XmlError::IllFormed(IllFormedError::MissingEndTag(_))
        );
        if matches!(e, XmlError::Encoding(_)) {
            sink.report(
                Code::Encoding,
                at,
                format!("bytes that are not UTF-8 ({e}): reading stopped here"),
            );
        } else if truncated {
            sink.report(
                Code::XmlTruncated,
                at,
                format!("the file ends inside markup ({e}): it was cut short"),
            );
        } else {
            sink.report(
                Code::XmlMalformed,
                at,
                format!("not well-formed XML ({e}): reading stopped here"),
            );
        }
    }

    fn event(
        &mut self,
        sink: &mut Sink,
        at: Position,
        ns: Ns,
        unknown_prefix: Option<String>,
        root_ns: Option<Vec<u8>>,
        event: Event<'_>,
    ) -> bool {
        match event {
            Event::Start(e) => {
                self.start(sink, at, ns, unknown_prefix, root_ns, &e);
                true
            }
            Event::Empty(e) => {
                self.start(sink, at, ns, unknown_prefix, root_ns, &e);
                self.end(sink);
                true
            }
            Event::End(_) => {
                self.end(sink);
                true
            }
            Event::Text(t) => {
                self.text_str(&t);
                true
            }
            Event::CData(t) => {
                self.text_str(&t);
                true
            }
            Event::GeneralRef(r) => {
                if self.collecting() {
                    self.reference(sink, at, &r);
                }
                true
            }
            Event::Decl(d) => {
                if let Some(Ok(enc)) = d.encoding() {
                    if !enc.eq_ignore_ascii_case("utf-8") && !enc.eq_ignore_ascii_case("utf8") {
                        sink.report(
                            Code::Encoding,
                            at,
                            format!(
                                "encoding {}: sitemaps must be UTF-8, and this file is read as UTF-8",
                                quote(&enc)
                            ),
                        );
                    }
                }
                true
            }
            Event::DocType(d) => {
                let html = d
                    .as_bytes()
                    .get(..4)
                    .is_some_and(|p| p.eq_ignore_ascii_case(b"html"));
                if !html {
                    sink.report(
                        Code::Doctype,
                        at,
                        "a DOCTYPE: refused, and its entity declarations are never used",
                    );
                }
                true
            }
            Event::Comment(_) | Event::PI(_) => true,
            Event::Eof => {
                self.eof(sink);
                false
            }
        }
    }

    /// An entity or character reference inside a value: the five XML entities and valid
    /// character references are expanded; anything else makes the value unusable.
    fn reference(&mut self, sink: &mut Sink, at: Position, r: &BytesRef<'_>) {
        if r.is_char_ref() {
            match r.resolve_char_ref() {
                Ok(Some(c)) => self.text.push(c.encode_utf8(&mut [0; 4])),
                _ => {
                    self.text.bad = true;
                    sink.report(
                        Code::UndefinedEntity,
                        at,
                        format!(
                            "&{}; is not a valid character reference: the value is not used",
                            &**r
                        ),
                    );
                }
            }
            return;
        }
        let c = match r.as_bytes() {
            b"amp" => "&",
            b"lt" => "<",
            b"gt" => ">",
            b"apos" => "'",
            b"quot" => "\"",
            other => {
                self.text.bad = true;
                sink.report(
                    Code::UndefinedEntity,
                    at,
                    format!(
                        "&{}; is not one of XML's five entities; it is never expanded, \
                         and the value is not used",
                        String::from_utf8_lossy(other)
                    ),
                );
                return;
            }
        };
        self.text.push(c);
    }

    /// The end of the input: an element left open, or no root element at all.
    fn eof(&mut self, sink: &mut Sink) {
        self.at_end = self.reader.get_mut().position();
        if self.reader.get_ref().stop().is_some() {
            return;
        }
        if !self.stack.is_empty() || !self.root_seen {
            sink.set_broken();
        }
        if let Some(open) = self.stack.last() {
            sink.report(
                Code::XmlTruncated,
                self.at_end,
                format!(
                    "the file ends inside an element opened at line {}: it was cut short",
                    open.at.line
                ),
            );
        } else if !self.root_seen {
            sink.report(
                Code::UnsupportedFormat,
                self.at_end,
                "an XML file without a root element",
            );
        }
    }

    fn collecting(&self) -> bool {
        self.stack.last().is_some_and(|f| f.tag.has_value())
    }

    fn text_str(&mut self, s: &str) {
        if self.collecting() {
            self.text.push(s);
        }
    }

    /// The format of a root element, or `None` (reported) when it is not a sitemap.
    fn root(
        &mut self,
        sink: &mut Sink,
        at: Position,
        e: &BytesStart<'_>,
        ns: Option<&[u8]>,
    ) -> bool {
        let local = e.local_name();
        let (format, want): (Format, &[u8]) = match local.as_ref().as_bytes() {
            b"urlset" => (Format::UrlSet, SITEMAP_NS),
            b"sitemapindex" => (Format::Index, SITEMAP_NS),
            b"rss" => (Format::Rss, b""),
            b"feed" => (Format::Atom, ATOM_NS),
            other => {
                let what = if other.eq_ignore_ascii_case(b"html") {
                    "an HTML page, not a sitemap".to_owned()
                } else {
                    format!(
                        "root element <{}>: not a sitemap (urlset, sitemapindex, rss or feed)",
                        e.name().as_ref()
                    )
                };
                sink.report(Code::UnsupportedFormat, at, what);
                sink.set_broken();
                return false;
            }
        };
        sink.set_format(format);
        self.root_ns = ns.map(<[u8]>::to_vec);
        if format == Format::Rss {
            match attr(sink, at, e, b"version") {
                Some(v) if v == "2.0" || v == "2.0.1" => {}
                Some(v) => sink.report(
                    Code::InvalidAttributeValue,
                    at,
                    format!(
                        "<rss version={}>: only RSS 2.0 is a sitemap format",
                        quote(&v)
                    ),
                ),
                None => sink.missing_attribute(at, b"version", "<rss> without version=\"2.0\""),
            }
        } else if ns != Some(want) {
            let have = match ns {
                Some(n) => quote(&String::from_utf8_lossy(n)),
                None => "none".to_owned(),
            };
            sink.report(
                Code::IncorrectNamespace,
                at,
                format!(
                    "<{}> namespace is {have}; it must be \"{}\"",
                    local.as_ref(),
                    String::from_utf8_lossy(want)
                ),
            );
        }
        true
    }

    fn start(
        &mut self,
        sink: &mut Sink,
        at: Position,
        ns: Ns,
        unknown_prefix: Option<String>,
        root_ns: Option<Vec<u8>>,
        e: &BytesStart<'_>,
    ) {
        let Some(parent) = self.stack.last().map(|f| f.tag) else {
            if self.root_seen {
                sink.report(
                    Code::XmlMalformed,
                    at,
                    "a second root element: everything after the first is ignored",
                );
                self.stack.push(Frame { tag: Tag::Skip, at });
                return;
            }
            self.root_seen = true;
            let tag = if self.root(sink, at, e, root_ns.as_deref()) {
                Tag::Root
            } else {
                Tag::Skip
            };
            self.stack.push(Frame { tag, at });
            return;
        };
        if let Some(prefix) = unknown_prefix {
            if !self.unknown_prefixes.contains(&prefix) {
                sink.report(
                    Code::IncorrectNamespace,
                    at,
                    format!("prefix {prefix}: is not declared (xmlns:{prefix}=\"…\" is missing); its elements are ignored"),
                );
                self.unknown_prefixes.push(prefix);
            }
            self.stack.push(Frame { tag: Tag::Skip, at });
            return;
        }
        let mut tag = self.tag_of(sink, at, parent, ns, e);
        if tag == Tag::Entry && !sink.start_entry(at) {
            // Past the limit: read on for well-formedness only.
            tag = Tag::Skip;
        }
        if tag.has_value() {
            self.text.clear();
        }
        self.open(sink, at, tag, e);
        self.stack.push(Frame { tag, at });
    }

    /// What a child element is, reporting unknown and retired ones.
    fn tag_of(
        &mut self,
        sink: &mut Sink,
        at: Position,
        parent: Tag,
        ns: Ns,
        e: &BytesStart<'_>,
    ) -> Tag {
        let local = e.local_name();
        let local = local.as_ref().as_bytes();
        let format = sink.format();
        let urlset = format == Some(Format::UrlSet);
        let tag = match (parent, ns) {
            (Tag::Skip, _) => return Tag::Skip,
            (p, _) if p.has_value() => {
                sink.report(
                    Code::InvalidTagValue,
                    at,
                    format!(
                        "markup <{}> inside a value: escape it (&lt;) or wrap the value in CDATA",
                        e.name().as_ref()
                    ),
                );
                self.text.bad = true;
                return Tag::Skip;
            }
            (Tag::Root, Ns::Primary) => match (format, local) {
                (Some(Format::UrlSet), b"url") | (Some(Format::Index), b"sitemap") => Tag::Entry,
                (Some(Format::Atom), b"entry") => Tag::Entry,
                (Some(Format::Rss), b"channel") => Tag::Channel,
                (Some(Format::UrlSet | Format::Index), _) => Tag::Skip,
                _ => return Tag::Skip,
            },
            (Tag::Channel, Ns::Primary) if local == b"item" => Tag::Entry,
            (Tag::Entry, Ns::Primary) => match Part::of(format, local) {
                Some(part) => Tag::Core(part),
                None if matches!(format, Some(Format::UrlSet | Format::Index)) => Tag::Skip,
                None => return Tag::Skip,
            },
            (Tag::Entry, Ns::Image) if local == b"image" && urlset => Tag::Image,
            (Tag::Image, Ns::Image) => match ImageBuilder::child(sink, at, local) {
                Child::Row(row) => Tag::row::<ImageBuilder>(Table::Image, row),
                Child::Retired => return Tag::Skip,
                Child::Unknown => Tag::Skip,
            },
            (Tag::Entry, Ns::Video) if local == b"video" && urlset => Tag::Video,
            (Tag::Video, Ns::Video) => match VideoBuilder::child(sink, at, local) {
                Child::Row(row) => Tag::row::<VideoBuilder>(Table::Video, row),
                Child::Retired => return Tag::Skip,
                Child::Unknown => Tag::Skip,
            },
            (Tag::Entry, Ns::News) if local == b"news" && urlset => Tag::News,
            (Tag::News, Ns::News) if local == b"publication" => Tag::NewsPublication,
            (Tag::News | Tag::NewsPublication, Ns::News) => {
                let in_publication = parent == Tag::NewsPublication;
                match NewsBuilder::child(sink, at, in_publication, local) {
                    Child::Row(row) => Tag::row::<NewsBuilder>(Table::News, row),
                    Child::Retired => return Tag::Skip,
                    Child::Unknown => Tag::Skip,
                }
            }
            (Tag::Entry, Ns::Xhtml) if local == b"link" && urlset => Tag::XhtmlLink,
            (Tag::Entry | Tag::MediaGroup | Tag::Attributes(Table::Media, _), Ns::Media)
                if format == Some(Format::Rss) && Self::media_parent(parent) =>
            {
                if local == b"group" {
                    Tag::MediaGroup
                } else {
                    match Mrss::field(true, local) {
                        Some(row) => Tag::row::<Mrss>(Table::Media, row),
                        None => return Tag::Skip,
                    }
                }
            }
            (Tag::Entry, Ns::Dcterms) if format == Some(Format::Rss) => {
                match Mrss::field(false, local) {
                    Some(row) => Tag::row::<Mrss>(Table::Media, row),
                    None => return Tag::Skip,
                }
            }
            // Other namespaces (PageMap, mobile, …) are extensions Google may read: not ours.
            (_, Ns::Other | Ns::Media | Ns::Dcterms | Ns::Xhtml) => return Tag::Skip,
            (_, Ns::Primary) if matches!(format, Some(Format::Rss | Format::Atom)) => {
                return Tag::Skip
            }
            _ => Tag::Skip,
        };
        if tag == Tag::Skip {
            sink.report(
                Code::UnknownTag,
                at,
                format!("<{}> is not defined here: it is ignored", e.name().as_ref()),
            );
        }
        tag
    }

    /// Media RSS elements sit in an item, a `<media:group>` or a `<media:content>`.
    fn media_parent(parent: Tag) -> bool {
        match parent {
            Tag::Attributes(Table::Media, row) => Mrss::is_content(row),
            _ => true,
        }
    }

    /// Start-tag work: entries and containers begin, attributes are read.
    fn open(&mut self, sink: &mut Sink, at: Position, tag: Tag, e: &BytesStart<'_>) {
        match tag {
            Tag::Entry => self.entry = Some(EntryBuilder::new(at)),
            Tag::Image => {
                let images = self.entry.as_ref().map_or(0, EntryBuilder::images);
                self.image = Some(ImageBuilder::new(sink, at, images));
            }
            Tag::Video => self.video = Some(VideoBuilder::new(at)),
            Tag::News => self.news = Some(NewsBuilder::new(at)),
            Tag::Core(Part::AtomLink) => {
                if let Some(b) = self.entry.as_mut() {
                    b.atom_link(sink, at, e);
                }
            }
            Tag::XhtmlLink => {
                let alternate = xhtml::alternate(sink, at, e);
                if let (Some(b), Some(a)) = (self.entry.as_mut(), alternate) {
                    b.add_alternate(a);
                }
            }
            Tag::Value(table, row) | Tag::Attributes(table, row) => match table {
                Table::Image => {
                    if let Some(b) = self.image.as_mut() {
                        rules::open(b, sink, at, row, e);
                    }
                }
                Table::Video => {
                    if let Some(b) = self.video.as_mut() {
                        rules::open(b, sink, at, row, e);
                    }
                }
                Table::News => {
                    if let Some(b) = self.news.as_mut() {
                        rules::open(b, sink, at, row, e);
                    }
                }
                Table::Media => {
                    let slot = self.entry.as_mut().map(|b| &mut b.mrss);
                    if let Some(m) = slot.and_then(|s| Mrss::for_row(s, row, at)) {
                        rules::open(m, sink, at, row, e);
                    }
                }
            },
            _ => {}
        }
    }

    fn end(&mut self, sink: &mut Sink) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let at = frame.at;
        if frame.tag.has_value() {
            let text = std::mem::take(&mut self.text);
            self.value(sink, at, frame.tag, &text);
            self.text = text;
            self.text.clear();
            return;
        }
        match frame.tag {
            Tag::Entry => {
                if let Some(b) = self.entry.take() {
                    b.finish(sink);
                }
            }
            Tag::Image => {
                let image = self.image.take().and_then(|b| b.finish(sink));
                if let (Some(b), Some(image)) = (self.entry.as_mut(), image) {
                    b.add_image(image, MAX_IMAGES);
                }
            }
            Tag::Video => {
                let video = self.video.take().and_then(|b| b.finish(sink, at));
                if let (Some(b), Some((video, uploader_at))) = (self.entry.as_mut(), video) {
                    b.add_video(video, uploader_at);
                }
            }
            Tag::News => {
                let news = self.news.take().and_then(|b| b.finish(sink));
                if let (Some(b), Some(news)) = (self.entry.as_mut(), news) {
                    b.set_news(news);
                }
            }
            _ => {}
        }
    }

    /// A value's element ended: its owner checks it and stores it.
    fn value(&mut self, sink: &mut Sink, at: Position, tag: Tag, text: &Text) {
        match tag {
            Tag::Core(part) => {
                if let Some(b) = self.entry.as_mut() {
                    b.value(sink, at, part, text);
                }
            }
            Tag::Value(Table::Image, row) => {
                if let Some(b) = self.image.as_mut() {
                    rules::value(b, sink, at, row, text);
                }
            }
            Tag::Value(Table::Video, row) => {
                if let Some(b) = self.video.as_mut() {
                    rules::value(b, sink, at, row, text);
                }
            }
            Tag::Value(Table::News, row) => {
                if let Some(b) = self.news.as_mut() {
                    rules::value(b, sink, at, row, text);
                }
            }
            Tag::Value(Table::Media, row) => {
                if let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) {
                    rules::value(m, sink, at, row, text);
                }
            }
            _ => {}
        }
    }
}

/// A URL value, checked (a value cut for length is too long by definition).
fn url_value(sink: &mut Sink, at: Position, v: &str, cut: bool) -> Option<String> {
    if cut {
        sink.report(
            Code::UrlTooLong,
            at,
            format!("a URL of more than {MAX_VALUE_BYTES} bytes; at most {MAX_URL_CHARS} characters are allowed"),
        );
        return None;
    }
    if v.is_empty() {
        sink.report(Code::InvalidUrl, at, "an empty URL");
        return None;
    }
    sink.check_url(v, at).then(|| v.to_owned())
}

/// The message of an invalid W3C Datetime.
fn date_message(v: &str) -> String {
    format!(
        "{}: not a W3C Datetime (YYYY-MM-DD, or YYYY-MM-DDThh:mm[:ss[.s]] with Z or ±hh:mm)",
        quote(v)
    )
}

/// An unprefixed attribute's value, with the five XML entities and character references
/// replaced; `None` when absent or not usable.
fn attr(sink: &mut Sink, at: Position, e: &BytesStart<'_>, name: &'static [u8]) -> Option<String> {
    for a in e.attributes().with_checks(false).flatten() {
        if a.key.as_ref().as_bytes() == name {
            return match a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
                Ok(v) => Some(v.trim().to_owned()),
                Err(why) => {
                    sink.report(
                        Code::UndefinedEntity,
                        at,
                        format!(
                            "attribute {} ({why}): only XML's five entities and character \
                             references are expanded; the attribute is not used",
                            String::from_utf8_lossy(name)
                        ),
                    );
                    // Reported once: not again as missing.
                    sink.set_unusable_attribute(at, name);
                    None
                }
            };
        }
    }
    None
}

/// `s` without the XML white space (space, tab, line feed, carriage return) at either end.
fn trim_xml_space(s: &str) -> &str {
    // Byte loops: the four are ASCII, so every cut is at a character boundary (`str::trim_matches`
    // decodes characters, at several times the cost on every value).
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let b = s.as_bytes();
    let start = b.iter().position(|c| !space(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !space(c)).map_or(start, |i| i + 1);
    s.get(start..end).unwrap_or("")
}

/// The namespace kind of an element.
fn namespace_of(resolved: &ResolveResult<'_>, root_ns: Option<&[u8]>, root_seen: bool) -> Ns {
    let ns: Option<&[u8]> = match resolved {
        ResolveResult::Bound(n) => Some(n.as_ref().as_bytes()),
        ResolveResult::Unbound => None,
        ResolveResult::Unknown(_) => return Ns::Other,
    };
    if root_seen && ns == root_ns {
        return Ns::Primary;
    }
    match ns {
        Some(IMAGE_NS) => Ns::Image,
        Some(VIDEO_NS) => Ns::Video,
        Some(NEWS_NS) => Ns::News,
        Some(XHTML_NS) => Ns::Xhtml,
        Some(MEDIA_NS) => Ns::Media,
        Some(DCTERMS_NS) => Ns::Dcterms,
        _ => Ns::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sitemap::{Item, Options};
    use proptest::prelude::*;

    /// Every item the XML reader queues for `doc`, and each start tag's namespace kind and
    /// undeclared prefix.
    fn items(doc: &[u8]) -> (Vec<Item>, Vec<(Ns, Option<String>)>) {
        let mut sink = Sink::new(Options::default());
        let mut xml = Xml::new(Input::new(doc, u64::MAX));
        let mut out = Vec::new();
        while xml.step(&mut sink) {
            out.extend(sink.take_items());
        }
        out.extend(sink.take_items());
        (out, xml.trace)
    }

    /// The oracle: each start tag's namespace kind and undeclared prefix as quick-xml's
    /// `NsReader` resolves them (every start tag pushing a scope), and whether it stopped on an
    /// error.
    fn ns_reader(doc: &[u8]) -> (Vec<(Ns, Option<String>)>, bool) {
        let mut reader = quick_xml::NsReader::from_reader(doc);
        let config = reader.config_mut();
        config.expand_empty_elements = false;
        config.check_end_names = true;
        config.trim_text(false);
        let mut buf = Vec::new();
        let mut root_ns: Option<Vec<u8>> = None;
        let mut out = Vec::new();
        loop {
            buf.clear();
            match reader.read_event_into(&mut buf) {
                Ok(Event::Start(e) | Event::Empty(e)) => {
                    let (resolved, _) = reader.resolver().resolve_element(e.name());
                    let root_seen = !out.is_empty();
                    let ns = namespace_of(&resolved, root_ns.as_deref(), root_seen);
                    match resolved {
                        ResolveResult::Unknown(p) => out.push((ns, Some(p))),
                        ResolveResult::Bound(n) if !root_seen => {
                            root_ns = Some(n.as_ref().as_bytes().to_vec());
                            out.push((ns, None));
                        }
                        _ => out.push((ns, None)),
                    }
                }
                Ok(Event::Eof) => return (out, false),
                Ok(_) => {}
                Err(_) => return (out, true),
            }
        }
    }

    const NAMES: [&str; 14] = [
        "url",
        "loc",
        "lastmod",
        "video:video",
        "video:title",
        "video:thumbnail_loc",
        "image:image",
        "image:loc",
        "news:news",
        "a:b",
        ":x",
        "video:",
        "xhtml:link",
        "v:title",
    ];
    const DECLARATIONS: [&str; 15] = [
        "",
        "",
        "",
        " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"",
        " xmlns=\"http://example.com/other\"",
        " xmlns=\"\"",
        " xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\"",
        " xmlns:video=\"http://www.google.com/schemas/sitemap-image/1.1\"",
        " xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\"",
        " xmlns:v=\"http://www.google.com/schemas/sitemap-video/1.1\"",
        " xmlns:video=\"\"",
        " a=\"xmlns\" xmlns:a=\"http://www.google.com/schemas/sitemap-news/0.9\"",
        " xmlns:xml=\"http://example.com/x\"",
        " xmlns:xmlns=\"http://example.com/x\"",
        " xmlns:x=\"http://www.w3.org/XML/1998/namespace\"",
    ];

    /// A document from a list of operations: (0) open, (1) close, (2) an empty element, (3)
    /// text, each with a name and a declaration picked by the other numbers.
    fn document(ops: &[(u8, u8, u8)]) -> Vec<u8> {
        let mut doc = String::from(
            "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
             xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\">",
        );
        let mut open = Vec::new();
        for &(op, name, decl) in ops {
            let name = NAMES[usize::from(name) % NAMES.len()];
            let decl = DECLARATIONS[usize::from(decl) % DECLARATIONS.len()];
            match op % 4 {
                0 => {
                    doc.push_str(&format!("<{name}{decl}>"));
                    open.push(name);
                }
                1 => {
                    if let Some(name) = open.pop() {
                        doc.push_str(&format!("</{name}>"));
                    }
                }
                2 => doc.push_str(&format!("<{name}{decl}/>")),
                _ => doc.push_str("https://example.com/a"),
            }
        }
        while let Some(name) = open.pop() {
            doc.push_str(&format!("</{name}>"));
        }
        doc.push_str("</urlset>");
        doc.into_bytes()
    }

    /// Start tags that push no scope are still counted: quick-xml's nesting limit (65,535 open
    /// elements) gives the same error at the same tag, empty or not, declaring or not.
    #[test]
    fn nesting_limit_as_the_resolver_counts_it() {
        for open in [65_533usize, 65_534, 65_535] {
            for last in [
                "<b/>",
                "<b>x</b>",
                "<b xmlns:v=\"http://example.com/v\"/>",
                "<b xmlns=\"\">",
            ] {
                let mut doc =
                    String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
                doc.push_str(&"<a>".repeat(open));
                doc.push_str(last);
                let (items, trace) = items(doc.as_bytes());
                let malformed = items
                    .iter()
                    .any(|i| matches!(i, Item::Diagnostic(d) if d.code == Code::XmlMalformed));
                // The root and `open` elements are open when `last` starts.
                assert_eq!(malformed, open + 1 >= MAX_DEPTH, "{open} {last}");
                assert_eq!(
                    (trace, malformed),
                    ns_reader(doc.as_bytes()),
                    "{open} {last}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// The namespace shortcuts (scopes pushed only by declaring tags, prefixes remembered)
        /// change nothing: prefixes declared, redeclared, unbound, refused and unknown, in and
        /// out of scope, on empty elements too.
        #[test]
        fn namespace_shortcuts_match_pushing_and_resolving_every_tag(
            ops in prop::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..60),
        ) {
            let doc = document(&ops);
            let (items, trace) = items(&doc);
            let (want, failed) = ns_reader(&doc);
            let malformed = items
                .iter()
                .any(|i| matches!(i, Item::Diagnostic(d) if d.code == Code::XmlMalformed));
            prop_assert_eq!(trace, want, "{}", String::from_utf8_lossy(&doc));
            prop_assert_eq!(malformed, failed, "{}", String::from_utf8_lossy(&doc));
        }

        /// Trimming bytes gives what trimming characters gives.
        #[test]
        fn trim_matches_the_char_trim(s in "[ \t\r\n\u{a0}\u{2003}a-c\u{e9}]{0,12}") {
            prop_assert_eq!(
                trim_xml_space(&s),
                s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'))
            );
        }
    }
}
