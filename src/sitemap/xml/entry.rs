//! The entry itself: `<url>` and `<sitemap>` ([sitemaps.org](https://www.sitemaps.org/protocol.html)),
//! RSS 2.0 `<item>` and Atom 1.0 `<entry>`: its URL, date, `changefreq` and `priority`, the
//! extensions hung on it, and the checks that need the page URL once the entry ends.
//!
//! Not a field table: each format has one URL and one date, written differently (`<loc>`,
//! `<link>`, `<link href>`; `<lastmod>`, `<pubDate>`, `<updated>`), and each pair shares one
//! slot and one duplicate rule.

use quick_xml::events::BytesStart;

use super::media::Mrss;
use super::{attr, date_message, quote, url_value, Position, Sink, Text};
use crate::sitemap::{field_values, Alternate, Code, Entry, Format, Image, News, Video};

/// A child of an entry in the root's own namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// `<loc>` (`urlset`, `sitemapindex`).
    Loc,
    /// `<lastmod>` (`urlset`, `sitemapindex`).
    Lastmod,
    /// `<changefreq>` (`urlset`).
    Changefreq,
    /// `<priority>` (`urlset`).
    Priority,
    /// RSS `<link>`.
    RssLink,
    /// RSS `<pubDate>` (RFC 822: kept as written).
    PubDate,
    /// Atom `<link rel="alternate" href>`.
    AtomLink,
    /// Atom `<updated>`.
    AtomUpdated,
}

impl Part {
    /// The part `local` is in an entry of `format`, or `None`.
    pub(super) fn of(format: Option<Format>, local: &[u8]) -> Option<Part> {
        Some(match (format?, local) {
            (Format::UrlSet | Format::Index, b"loc") => Part::Loc,
            (Format::UrlSet | Format::Index, b"lastmod") => Part::Lastmod,
            (Format::UrlSet, b"changefreq") => Part::Changefreq,
            (Format::UrlSet, b"priority") => Part::Priority,
            (Format::Rss, b"link") => Part::RssLink,
            (Format::Rss, b"pubDate") => Part::PubDate,
            (Format::Atom, b"link") => Part::AtomLink,
            (Format::Atom, b"updated") => Part::AtomUpdated,
            _ => return None,
        })
    }

    /// Whether the element's text is its value (Atom's link is an attribute).
    pub(super) fn has_value(self) -> bool {
        self != Part::AtomLink
    }
}

/// An entry being read.
#[derive(Debug, Default)]
pub(super) struct EntryBuilder {
    entry: Entry,
    has_loc: bool,
    /// The URL was there but unusable (already reported).
    loc_bad: bool,
    seen_lastmod: bool,
    seen_changefreq: bool,
    seen_priority: bool,
    /// Uploader `info` URLs to check against the page's domain once `<loc>` is known, by video.
    uploader_info: Vec<(usize, Position)>,
    /// The item's Media RSS parts.
    pub(super) mrss: Option<Mrss>,
}

impl EntryBuilder {
    /// An entry starting at `at`.
    pub(super) fn new(at: Position) -> EntryBuilder {
        EntryBuilder {
            entry: Entry {
                position: at,
                ..Entry::default()
            },
            ..EntryBuilder::default()
        }
    }

    /// Images so far.
    pub(super) fn images(&self) -> usize {
        self.entry.images.len()
    }

    /// Adds an image, up to `max`.
    pub(super) fn add_image(&mut self, image: Image, max: usize) {
        if self.entry.images.len() < max {
            self.entry.images.push(image);
        }
    }

    /// Adds a video, with where its uploader is when it has an `info` URL to check.
    pub(super) fn add_video(&mut self, video: Video, uploader_at: Option<Position>) {
        if let Some(at) = uploader_at {
            self.uploader_info.push((self.entry.videos.len(), at));
        }
        self.entry.videos.push(video);
    }

    /// Sets the news.
    pub(super) fn set_news(&mut self, news: News) {
        self.entry.news = Some(news);
    }

    /// Adds an `xhtml:link` alternate.
    pub(super) fn add_alternate(&mut self, alternate: Alternate) {
        self.entry.alternates.push(alternate);
    }

    /// A part's value ended.
    pub(super) fn value(&mut self, sink: &mut Sink, at: Position, part: Part, text: &Text) {
        if text.bad {
            // Already reported; an unusable URL is still this entry's one URL.
            if matches!(part, Part::Loc | Part::RssLink) && !self.has_loc {
                self.has_loc = true;
                self.loc_bad = true;
            }
            return;
        }
        let (v, cut) = text.value();
        match part {
            Part::Loc | Part::RssLink => self.loc(sink, at, v, cut),
            Part::Lastmod | Part::AtomUpdated | Part::PubDate => self.date(sink, at, part, v),
            Part::Changefreq => {
                sink.report_ignored(at, "changefreq");
                let valid = field_values::is_changefreq(v);
                if let Some(v) = once(
                    sink,
                    at,
                    &mut self.seen_changefreq,
                    "changefreq",
                    v,
                    valid,
                    "always, hourly, daily, weekly, monthly, yearly or never",
                ) {
                    self.entry.changefreq = Some(v);
                }
            }
            Part::Priority => {
                sink.report_ignored(at, "priority");
                let valid = field_values::is_priority(v);
                if let Some(v) = once(
                    sink,
                    at,
                    &mut self.seen_priority,
                    "priority",
                    v,
                    valid,
                    "a number from 0.0 to 1.0",
                ) {
                    self.entry.priority = Some(v);
                }
            }
            Part::AtomLink => {}
        }
    }

    fn loc(&mut self, sink: &mut Sink, at: Position, v: &str, cut: bool) {
        if self.has_loc {
            sink.report(
                Code::DuplicateTag,
                at,
                "a second URL for this entry: only the first is used",
            );
            return;
        }
        self.has_loc = true;
        match url_value(sink, at, v, cut) {
            Some(loc) => self.entry.loc = loc,
            None => self.loc_bad = true,
        }
    }

    fn date(&mut self, sink: &mut Sink, at: Position, part: Part, v: &str) {
        if self.seen_lastmod {
            sink.report(
                Code::DuplicateTag,
                at,
                "a second date for this entry: only the first is used",
            );
            return;
        }
        self.seen_lastmod = true;
        // RSS dates are RFC 822, not W3C; they are kept as written.
        if part != Part::PubDate && !field_values::is_w3c_datetime(v) {
            sink.report(Code::InvalidDate, at, date_message(v));
            return;
        }
        self.entry.lastmod = Some(v.to_owned());
    }

    /// Atom `<link rel="alternate" href>`: the first one is the entry's URL.
    pub(super) fn atom_link(&mut self, sink: &mut Sink, at: Position, e: &BytesStart<'_>) {
        let rel = attr(sink, at, e, b"rel");
        if rel.as_deref().is_some_and(|r| r != "alternate") || self.has_loc {
            return;
        }
        match attr(sink, at, e, b"href") {
            Some(href) => {
                self.has_loc = true;
                if sink.check_url(&href, at) {
                    self.entry.loc = href;
                } else {
                    self.loc_bad = true;
                }
            }
            None => sink.missing_attribute(at, b"href", "<link> without href"),
        }
    }

    /// Drops each uploader `info` URL outside the page's domain (reported).
    fn check_uploader_info(&mut self, sink: &mut Sink, loc: &str) {
        for (i, at) in self.uploader_info.drain(..) {
            let uploader = self
                .entry
                .videos
                .get_mut(i)
                .and_then(|v| v.uploader.as_mut());
            let Some(u) = uploader else { continue };
            let Some(info) = u.info.as_deref() else {
                continue;
            };
            if !field_values::same_domain(loc, info) {
                sink.report(
                    Code::UploaderInfoDomain,
                    at,
                    format!(
                        "<video:uploader info={}> is not in the domain of the page {}",
                        quote(info),
                        quote(loc)
                    ),
                );
                u.info = None;
            }
        }
    }

    /// The entry ended: yield it when it has a URL, after the checks that need that URL.
    pub(super) fn finish(mut self, sink: &mut Sink) {
        let at = self.entry.position;
        if self.entry.loc.is_empty() {
            if !self.loc_bad {
                let what = match sink.format() {
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
        if let Some(v) = self.mrss.take().and_then(|m| m.finish(sink)) {
            self.entry.videos.push(v);
        }
        let loc = self.entry.loc.clone();
        // Checks that need the page URL, which may come after the video in the file.
        self.check_uploader_info(sink, &loc);
        drop_videos_of_the_page(sink, &mut self.entry.videos, &loc);
        sink.finish_entry(self.entry);
    }
}

/// Drops video URLs that are the page's own (reported), and the videos left without one.
fn drop_videos_of_the_page(sink: &mut Sink, videos: &mut Vec<Video>, loc: &str) {
    videos.retain_mut(|v| {
        for (name, slot) in [
            ("content_loc", &mut v.content_loc),
            ("player_loc", &mut v.player_loc),
        ] {
            if slot.as_deref() == Some(loc) {
                sink.report(
                    Code::VideoUrlSameAsPage,
                    v.position,
                    format!(
                        "the video's {name} is the page's own URL {}: it is not used",
                        quote(loc)
                    ),
                );
                *slot = None;
            }
        }
        v.content_loc.is_some() || v.player_loc.is_some()
    });
}

/// A value that may appear once: `Some` when it is the first and valid (else reported).
fn once(
    sink: &mut Sink,
    at: Position,
    seen: &mut bool,
    name: &str,
    v: &str,
    valid: bool,
    expected: &str,
) -> Option<String> {
    if std::mem::replace(seen, true) {
        sink.report(
            Code::DuplicateTag,
            at,
            format!("a second <{name}>: only the first is used"),
        );
        return None;
    }
    if !valid {
        sink.report(
            Code::InvalidTagValue,
            at,
            format!("<{name}>{}: must be {expected}", quote(v)),
        );
        return None;
    }
    Some(v.to_owned())
}
