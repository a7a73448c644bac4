//! The XML formats: `urlset`, `sitemapindex`, RSS 2.0 (+ Media RSS) and Atom 1.0, read as a
//! stream of quick-xml events with a stack of the open elements.
//!
//! Each element is classified once, on its start tag, into a [`Tag`]; values are collected as
//! text (joined across entity references and CDATA, then trimmed) and checked when their element
//! ends; an entry is checked and yielded when its element ends. Entities other than the five XML
//! ones are never expanded, and a DOCTYPE is refused, so no input can make the reader grow
//! beyond the file itself.

use std::io::Read;

use quick_xml::errors::{Error as XmlError, IllFormedError, SyntaxError};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use super::input::{Input, Stop};
use super::reader::{quote, Sink};
use super::{value, Alternate, Code, Entry, Format, Image, News, Position, Video, MAX_URL_CHARS};

mod media;
mod video;

use media::{mrss_video, Mrss};
use video::{restriction_values, VField, VideoBuilder};

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
/// Images per page Google reads.
const MAX_IMAGES: usize = 1_000;
/// `<video:tag>`s per video Google reads.
const MAX_VIDEO_TAGS: usize = 32;

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

/// What an open element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Root,
    Channel,
    Entry,
    Loc,
    Lastmod,
    Changefreq,
    Priority,
    RssLink,
    PubDate,
    AtomLink,
    AtomUpdated,
    Image,
    ImageLoc,
    Video,
    V(VField),
    News,
    NewsPublication,
    NewsName,
    NewsLanguage,
    NewsDate,
    NewsTitle,
    XhtmlLink,
    MediaContent,
    MediaGroup,
    MediaPlayer,
    MediaTitle,
    MediaDescription,
    MediaThumbnail,
    MediaRestriction,
    MediaPrice,
    DcValid,
    DcType,
    /// An element whose content is not read (unknown namespace, retired container, past the
    /// limit, markup inside a value…).
    Skip,
}

impl Tag {
    /// Elements whose text is their value.
    fn has_value(self) -> bool {
        matches!(
            self,
            Tag::Loc
                | Tag::Lastmod
                | Tag::Changefreq
                | Tag::Priority
                | Tag::RssLink
                | Tag::PubDate
                | Tag::AtomUpdated
                | Tag::ImageLoc
                | Tag::V(_)
                | Tag::NewsName
                | Tag::NewsLanguage
                | Tag::NewsDate
                | Tag::NewsTitle
                | Tag::MediaTitle
                | Tag::MediaDescription
                | Tag::MediaRestriction
                | Tag::DcValid
                | Tag::DcType
        )
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
        (
            self.text
                .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r')),
            self.dropped > 0,
        )
    }
}

/// An entry being read.
#[derive(Debug, Default)]
struct EntryBuilder {
    entry: Entry,
    has_loc: bool,
    /// `<loc>` was there but invalid (already reported).
    loc_bad: bool,
    seen_lastmod: bool,
    seen_changefreq: bool,
    seen_priority: bool,
    /// Uploader `info` URLs to check against the page's domain once `<loc>` is known, by video.
    uploader_info: Vec<(usize, Position)>,
    mrss: Option<Mrss>,
}

/// News being read.
#[derive(Debug, Default)]
struct NewsBuilder {
    at: Position,
    news: News,
    bad: bool,
}

/// The XML state machine.
pub(crate) struct Xml<R: Read> {
    reader: NsReader<Input<R>>,
    buf: Vec<u8>,
    stack: Vec<Frame>,
    /// The root's namespace (`None`: no namespace), which its children share.
    root_ns: Option<Vec<u8>>,
    root_seen: bool,
    text: Text,
    entry: Option<EntryBuilder>,
    video: Option<VideoBuilder>,
    image: Option<(Image, bool)>,
    news: Option<NewsBuilder>,
    at_end: Position,
    /// Reported `unknown prefix` once per prefix.
    unknown_prefixes: Vec<String>,
}

impl<R: Read> Xml<R> {
    pub(crate) fn new(input: Input<R>) -> Xml<R> {
        let mut reader = NsReader::from_reader(input);
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
        let at = self.reader.get_ref().position();
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let more = {
            let root_ns = self.root_ns.as_deref();
            let root_seen = self.root_seen;
            match self.reader.read_event_into(&mut buf) {
                Ok(event) => {
                    // Only start tags need their namespace: resolving is skipped for the rest.
                    let (ns, unknown, bound) = match &event {
                        Event::Start(e) | Event::Empty(e) => {
                            let (resolved, _) = self.reader.resolver().resolve_element(e.name());
                            let ns = classify_ns(&resolved, root_ns, root_seen);
                            match resolved {
                                ResolveResult::Unknown(p) => (ns, Some(p), None),
                                ResolveResult::Bound(n) if !root_seen => {
                                    (ns, None, Some(n.as_ref().as_bytes().to_vec()))
                                }
                                _ => (ns, None, None),
                            }
                        }
                        _ => (Ns::Other, None, None),
                    };
                    self.event(sink, at, ns, unknown, bound, event)
                }
                Err(e) => {
                    self.at_end = self.reader.get_ref().position();
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
        sink.broken = true;
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
                if !self.collecting() {
                    return true;
                }
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
                                    &*r
                                ),
                            );
                        }
                    }
                    return true;
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
                        return true;
                    }
                };
                self.text.push(c);
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
                self.at_end = self.reader.get_ref().position();
                if self.reader.get_ref().stop().is_none() {
                    sink.broken |= !self.stack.is_empty() || !self.root_seen;
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
                false
            }
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
                sink.broken = true;
                return false;
            }
        };
        sink.format = Some(format);
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
        let mut tag = self.classify(sink, at, parent, ns, e);
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
    fn classify(
        &mut self,
        sink: &mut Sink,
        at: Position,
        parent: Tag,
        ns: Ns,
        e: &BytesStart<'_>,
    ) -> Tag {
        let local = e.local_name();
        let local = local.as_ref().as_bytes();
        let format = sink.format;
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
            (Tag::Entry, Ns::Primary) => match (format, local) {
                (Some(Format::UrlSet | Format::Index), b"loc") => Tag::Loc,
                (Some(Format::UrlSet | Format::Index), b"lastmod") => Tag::Lastmod,
                (Some(Format::UrlSet), b"changefreq") => Tag::Changefreq,
                (Some(Format::UrlSet), b"priority") => Tag::Priority,
                (Some(Format::Rss), b"link") => Tag::RssLink,
                (Some(Format::Rss), b"pubDate") => Tag::PubDate,
                (Some(Format::Atom), b"link") => Tag::AtomLink,
                (Some(Format::Atom), b"updated") => Tag::AtomUpdated,
                (Some(Format::UrlSet | Format::Index), _) => Tag::Skip,
                _ => return Tag::Skip,
            },
            (Tag::Entry, Ns::Image) if local == b"image" && format == Some(Format::UrlSet) => {
                Tag::Image
            }
            (Tag::Image, Ns::Image) => match local {
                b"loc" => Tag::ImageLoc,
                b"caption" | b"title" | b"geo_location" | b"license" => {
                    sink.report(
                        Code::RetiredTag,
                        at,
                        format!(
                            "<image:{}> was retired by Google in 2022: it is ignored",
                            String::from_utf8_lossy(local)
                        ),
                    );
                    return Tag::Skip;
                }
                _ => Tag::Skip,
            },
            (Tag::Entry, Ns::Video) if local == b"video" && format == Some(Format::UrlSet) => {
                Tag::Video
            }
            (Tag::Video, Ns::Video) => match VField::from_name(local) {
                Some(f) => Tag::V(f),
                None if local == b"tvshow" || local == b"id" => {
                    sink.report(
                        Code::RetiredTag,
                        at,
                        format!(
                            "<video:{}> was retired by Google: it is ignored",
                            String::from_utf8_lossy(local)
                        ),
                    );
                    return Tag::Skip;
                }
                None => Tag::Skip,
            },
            (Tag::Entry, Ns::News) if local == b"news" && format == Some(Format::UrlSet) => {
                Tag::News
            }
            (Tag::News, Ns::News) => match local {
                b"publication" => Tag::NewsPublication,
                b"publication_date" => Tag::NewsDate,
                b"title" => Tag::NewsTitle,
                b"keywords" | b"stock_tickers" | b"genres" | b"access" => {
                    sink.report(
                        Code::RetiredTag,
                        at,
                        format!(
                            "<news:{}> is no longer used by Google: it is ignored",
                            String::from_utf8_lossy(local)
                        ),
                    );
                    return Tag::Skip;
                }
                _ => Tag::Skip,
            },
            (Tag::NewsPublication, Ns::News) => match local {
                b"name" => Tag::NewsName,
                b"language" => Tag::NewsLanguage,
                _ => Tag::Skip,
            },
            (Tag::Entry, Ns::Xhtml) if local == b"link" && format == Some(Format::UrlSet) => {
                Tag::XhtmlLink
            }
            (Tag::Entry | Tag::MediaGroup | Tag::MediaContent, Ns::Media)
                if format == Some(Format::Rss) =>
            {
                match local {
                    b"content" => Tag::MediaContent,
                    b"group" => Tag::MediaGroup,
                    b"player" => Tag::MediaPlayer,
                    b"title" => Tag::MediaTitle,
                    b"description" => Tag::MediaDescription,
                    b"thumbnail" => Tag::MediaThumbnail,
                    b"restriction" => Tag::MediaRestriction,
                    b"price" => Tag::MediaPrice,
                    _ => return Tag::Skip,
                }
            }
            (Tag::Entry, Ns::Dcterms) if format == Some(Format::Rss) => match local {
                b"valid" => Tag::DcValid,
                b"type" => Tag::DcType,
                _ => return Tag::Skip,
            },
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

    /// Start-tag work: entries and containers begin, attributes are read.
    fn open(&mut self, sink: &mut Sink, at: Position, tag: Tag, e: &BytesStart<'_>) {
        match tag {
            Tag::Entry => {
                self.entry = Some(EntryBuilder {
                    entry: Entry {
                        position: at,
                        ..Entry::default()
                    },
                    ..EntryBuilder::default()
                });
            }
            Tag::Image => {
                if let Some(b) = &self.entry {
                    if b.entry.images.len() == MAX_IMAGES {
                        sink.report(
                            Code::TooManyTags,
                            at,
                            format!(
                                "more than {MAX_IMAGES} images for one page: the rest are not used"
                            ),
                        );
                    }
                }
                self.image = Some((
                    Image {
                        loc: String::new(),
                        position: at,
                    },
                    false,
                ));
            }
            Tag::Video => {
                self.video = Some(VideoBuilder {
                    video: Video {
                        position: at,
                        ..Video::default()
                    },
                    ..VideoBuilder::default()
                });
            }
            Tag::News => {
                self.news = Some(NewsBuilder {
                    at,
                    ..NewsBuilder::default()
                });
            }
            Tag::V(field) => self.open_video_field(sink, at, field, e),
            Tag::AtomLink => {
                let rel = attr(sink, at, e, b"rel");
                if rel.as_deref().is_some_and(|r| r != "alternate") {
                    return;
                }
                let Some(b) = self.entry.as_mut() else { return };
                if b.has_loc {
                    return;
                }
                match attr(sink, at, e, b"href") {
                    Some(href) => {
                        b.has_loc = true;
                        if sink.check_url(&href, at) {
                            b.entry.loc = href;
                        } else {
                            b.loc_bad = true;
                        }
                    }
                    None => sink.missing_attribute(at, b"href", "<link> without href"),
                }
            }
            Tag::XhtmlLink => self.alternate(sink, at, e),
            Tag::MediaContent
            | Tag::MediaPlayer
            | Tag::MediaThumbnail
            | Tag::MediaRestriction
            | Tag::MediaPrice
            | Tag::MediaTitle
            | Tag::MediaDescription => self.open_media(sink, at, tag, e),
            _ => {}
        }
    }

    fn alternate(&mut self, sink: &mut Sink, at: Position, e: &BytesStart<'_>) {
        let rel = attr(sink, at, e, b"rel");
        let hreflang = attr(sink, at, e, b"hreflang");
        let href = attr(sink, at, e, b"href");
        let mut ok = true;
        match rel.as_deref() {
            Some("alternate") => {}
            Some(other) => {
                ok = false;
                sink.report(
                    Code::InvalidAttributeValue,
                    at,
                    format!("<xhtml:link rel={}>: must be \"alternate\"", quote(other)),
                );
            }
            None => {
                ok = false;
                sink.missing_attribute(at, b"rel", "<xhtml:link> without rel=\"alternate\"");
            }
        }
        match hreflang.as_deref() {
            Some(l) if value::is_language_tag(l) => {}
            Some(l) => {
                ok = false;
                sink.report(
                    Code::InvalidAttributeValue,
                    at,
                    format!("hreflang={}: not a language code or x-default", quote(l)),
                );
            }
            None => {
                ok = false;
                sink.missing_attribute(at, b"hreflang", "<xhtml:link> without hreflang");
            }
        }
        match href.as_deref() {
            Some(h) => ok &= sink.check_url(h, at),
            None => {
                ok = false;
                sink.missing_attribute(at, b"href", "<xhtml:link> without href");
            }
        }
        if let (true, Some(b), Some(hreflang), Some(href)) =
            (ok, self.entry.as_mut(), hreflang, href)
        {
            b.entry.alternates.push(Alternate { hreflang, href });
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
            Tag::Entry => self.finish_entry(sink),
            Tag::Image => {
                let Some((image, bad)) = self.image.take() else {
                    return;
                };
                if image.loc.is_empty() {
                    if !bad {
                        sink.report(Code::MissingTag, at, "<image:image> without <image:loc>");
                    }
                    return;
                }
                if let Some(b) = self.entry.as_mut() {
                    if b.entry.images.len() < MAX_IMAGES {
                        b.entry.images.push(image);
                    }
                }
            }
            Tag::Video => self.finish_video(sink, at),
            Tag::News => self.finish_news(sink),
            _ => {}
        }
    }

    /// A value's element ended: check it and store it.
    fn value(&mut self, sink: &mut Sink, at: Position, tag: Tag, text: &Text) {
        if text.bad {
            self.value_bad(tag);
            return;
        }
        let (v, cut) = text.value();
        if let Tag::V(field) = tag {
            self.video_value(sink, at, field, v, cut);
            return;
        }
        match tag {
            Tag::Loc | Tag::RssLink => {
                let Some(b) = self.entry.as_mut() else { return };
                if b.has_loc {
                    sink.report(
                        Code::DuplicateTag,
                        at,
                        "a second URL for this entry: only the first is used",
                    );
                    return;
                }
                b.has_loc = true;
                if let Some(loc) = url_value(sink, at, v, cut) {
                    b.entry.loc = loc;
                } else {
                    b.loc_bad = true;
                }
            }
            Tag::Lastmod | Tag::AtomUpdated | Tag::PubDate => {
                let Some(b) = self.entry.as_mut() else { return };
                if b.seen_lastmod {
                    sink.report(
                        Code::DuplicateTag,
                        at,
                        "a second date for this entry: only the first is used",
                    );
                    return;
                }
                b.seen_lastmod = true;
                // RSS dates are RFC 822, not W3C; they are kept as written.
                if tag != Tag::PubDate && !value::is_w3c_datetime(v) {
                    sink.report(Code::InvalidDate, at, date_message(v));
                    return;
                }
                b.entry.lastmod = Some(v.to_owned());
            }
            Tag::Changefreq | Tag::Priority => {
                let (slot, name, valid) = if tag == Tag::Changefreq {
                    (0, "changefreq", value::is_changefreq(v))
                } else {
                    (1, "priority", value::is_priority(v))
                };
                if !sink.reported_ignored[slot] {
                    sink.reported_ignored[slot] = true;
                    sink.report(
                        Code::IgnoredTag,
                        at,
                        format!("Google ignores <{name}> (reported once per file)"),
                    );
                }
                let Some(b) = self.entry.as_mut() else { return };
                let seen = if tag == Tag::Changefreq {
                    &mut b.seen_changefreq
                } else {
                    &mut b.seen_priority
                };
                if std::mem::replace(seen, true) {
                    sink.report(
                        Code::DuplicateTag,
                        at,
                        format!("a second <{name}>: only the first is used"),
                    );
                    return;
                }
                if !valid {
                    let expected = if tag == Tag::Changefreq {
                        "always, hourly, daily, weekly, monthly, yearly or never"
                    } else {
                        "a number from 0.0 to 1.0"
                    };
                    sink.report(
                        Code::InvalidTagValue,
                        at,
                        format!("<{name}>{}: must be {expected}", quote(v)),
                    );
                    return;
                }
                if tag == Tag::Changefreq {
                    b.entry.changefreq = Some(v.to_owned());
                } else {
                    b.entry.priority = Some(v.to_owned());
                }
            }
            Tag::ImageLoc => {
                let Some((image, bad)) = self.image.as_mut() else {
                    return;
                };
                if !image.loc.is_empty() || *bad {
                    sink.report(
                        Code::DuplicateTag,
                        at,
                        "a second <image:loc>: only the first is used",
                    );
                    return;
                }
                match url_value(sink, at, v, cut) {
                    Some(u) => image.loc = u,
                    None => *bad = true,
                }
            }
            Tag::NewsName | Tag::NewsLanguage | Tag::NewsDate | Tag::NewsTitle => {
                let Some(n) = self.news.as_mut() else { return };
                match tag {
                    Tag::NewsLanguage if !value::is_language_tag(v) => {
                        n.bad = true;
                        sink.report(
                            Code::InvalidTagValue,
                            at,
                            format!("<news:language>{}: not an ISO 639 language code", quote(v)),
                        );
                    }
                    Tag::NewsDate if !value::is_w3c_datetime(v) => {
                        n.bad = true;
                        sink.report(Code::InvalidDate, at, date_message(v));
                    }
                    _ => {}
                }
                let slot = match tag {
                    Tag::NewsName => &mut n.news.publication_name,
                    Tag::NewsLanguage => &mut n.news.publication_language,
                    Tag::NewsDate => &mut n.news.publication_date,
                    _ => &mut n.news.title,
                };
                if slot.is_empty() {
                    *slot = v.to_owned();
                }
            }
            Tag::MediaTitle | Tag::MediaDescription => {
                let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) else {
                    return;
                };
                let (limit, name, slot) = if tag == Tag::MediaTitle {
                    (100, "media:title", &mut m.title)
                } else {
                    (2_048, "media:description", &mut m.description)
                };
                if slot.is_some() {
                    return;
                }
                if let Some(n) = over(v, cut, text, limit) {
                    m.required_bad = true;
                    sink.report(
                        Code::ValueTooLong,
                        at,
                        format!("<{name}> has {n} characters; at most {limit} are allowed"),
                    );
                    return;
                }
                *slot = Some(v.to_owned());
            }
            Tag::MediaRestriction => {
                let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) else {
                    return;
                };
                let pending = std::mem::take(&mut m.pending);
                if let Some(r) = restriction_values(sink, at, "media:restriction", pending, v, true)
                {
                    if m.restriction.is_some() {
                        sink.report(
                            Code::DuplicateTag,
                            at,
                            "a second <media:restriction>: only the first is used",
                        );
                    } else {
                        m.restriction = Some(r);
                    }
                }
            }
            Tag::DcValid => {
                let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) else {
                    return;
                };
                for part in v.split(';') {
                    let Some((key, val)) = part.split_once('=') else {
                        continue;
                    };
                    let (key, val) = (key.trim(), val.trim());
                    let slot = match key {
                        "start" => &mut m.start,
                        "end" => &mut m.end,
                        _ => continue,
                    };
                    if value::is_w3c_datetime(val) {
                        *slot = Some(val.to_owned());
                    } else {
                        sink.report(Code::InvalidDate, at, date_message(val));
                    }
                }
            }
            Tag::DcType => {
                let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) else {
                    return;
                };
                if v == "live-video" {
                    m.live = Some(true);
                }
            }
            _ => {}
        }
    }

    /// A value with a bad reference or bytes (already reported): mark its owner.
    fn value_bad(&mut self, tag: Tag) {
        match tag {
            Tag::Loc | Tag::RssLink => {
                if let Some(b) = self.entry.as_mut() {
                    if !b.has_loc {
                        b.has_loc = true;
                        b.loc_bad = true;
                    }
                }
            }
            Tag::ImageLoc => {
                if let Some((_, bad)) = self.image.as_mut() {
                    *bad = true;
                }
            }
            Tag::V(f) => {
                if let Some(v) = self.video.as_mut() {
                    v.seen |= 1 << f as u32;
                    if matches!(
                        f,
                        VField::Thumbnail
                            | VField::Title
                            | VField::Description
                            | VField::Content
                            | VField::Player
                    ) {
                        v.required_bad = true;
                    }
                }
            }
            Tag::NewsName | Tag::NewsLanguage | Tag::NewsDate | Tag::NewsTitle => {
                if let Some(n) = self.news.as_mut() {
                    n.bad = true;
                }
            }
            Tag::MediaTitle | Tag::MediaDescription => {
                if let Some(m) = self.entry.as_mut().and_then(|b| b.mrss.as_mut()) {
                    m.required_bad = true;
                }
            }
            _ => {}
        }
    }

    fn finish_news(&mut self, sink: &mut Sink) {
        let Some(n) = self.news.take() else { return };
        if n.bad {
            return;
        }
        let mut missing = Vec::new();
        if n.news.publication_name.is_empty() {
            missing.push("<news:name>");
        }
        if n.news.publication_language.is_empty() {
            missing.push("<news:language>");
        }
        if n.news.publication_date.is_empty() {
            missing.push("<news:publication_date>");
        }
        if n.news.title.is_empty() {
            missing.push("<news:title>");
        }
        if !missing.is_empty() {
            sink.report(
                Code::MissingTag,
                n.at,
                format!("<news:news> without {}: it is not used", missing.join(", ")),
            );
            return;
        }
        if let Some(e) = self.entry.as_mut() {
            e.entry.news = Some(n.news);
        }
    }

    fn finish_entry(&mut self, sink: &mut Sink) {
        let Some(mut b) = self.entry.take() else {
            return;
        };
        let format = sink.format;
        let at = b.entry.position;
        if b.entry.loc.is_empty() {
            if !b.loc_bad {
                let what = match format {
                    Some(Format::Rss) => "<item> without <link>",
                    Some(Format::Atom) => "<entry> without <link href>",
                    Some(Format::Index) => "<sitemap> without <loc>",
                    _ => "<url> without <loc>",
                };
                sink.report(
                    Code::MissingTag,
                    at,
                    format!("{what}: the entry is not used"),
                );
            }
            return;
        }
        if let Some(m) = b.mrss.take() {
            if let Some(v) = mrss_video(sink, m) {
                b.entry.videos.push(v);
            }
        }
        let loc = b.entry.loc.clone();
        // Checks that need the page URL, which may come after the video in the file.
        for (i, at) in b.uploader_info.drain(..) {
            if let Some(u) = b.entry.videos.get_mut(i).and_then(|v| v.uploader.as_mut()) {
                if let Some(info) = u.info.as_deref() {
                    if !value::same_domain(&loc, info) {
                        sink.report(
                            Code::UploaderInfoDomain,
                            at,
                            format!(
                                "<video:uploader info={}> is not in the domain of the page {}",
                                quote(info),
                                quote(&loc)
                            ),
                        );
                        u.info = None;
                    }
                }
            }
        }
        b.entry.videos.retain_mut(|v| {
            for (name, slot) in [
                ("content_loc", &mut v.content_loc),
                ("player_loc", &mut v.player_loc),
            ] {
                if slot.as_deref() == Some(loc.as_str()) {
                    sink.report(
                        Code::VideoUrlSameAsPage,
                        v.position,
                        format!(
                            "the video's {name} is the page's own URL {}: it is not used",
                            quote(&loc)
                        ),
                    );
                    *slot = None;
                }
            }
            v.content_loc.is_some() || v.player_loc.is_some()
        });
        sink.finish_entry(b.entry);
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

/// `Some(length)` when `v` is longer than `limit` characters.
fn over(v: &str, cut: bool, text: &Text, limit: usize) -> Option<usize> {
    if cut {
        return Some(v.chars().count() + text.dropped);
    }
    value::chars_over(v, limit)
}

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
                    sink.unusable_attribute = Some((at.offset, name));
                    None
                }
            };
        }
    }
    None
}

/// The namespace kind of an element.
fn classify_ns(resolved: &ResolveResult<'_>, root_ns: Option<&[u8]>, root_seen: bool) -> Ns {
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
