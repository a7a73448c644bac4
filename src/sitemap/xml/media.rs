//! Media RSS (`xmlns:media="http://search.yahoo.com/mrss/"`): the video of an RSS `<item>`,
//! gathered from `<media:content>`, `<media:player>`, `<media:title>`… wherever they sit in the
//! item, then checked like a `<video:video>`.

use quick_xml::events::BytesStart;
use std::io::Read;

use super::video::{relationship, PendingRestriction};
use super::{attr, quote, Position, Sink, Tag, Xml};
use crate::sitemap::{value, Code, Price, Restriction, Video};

/// Media RSS parts of an item being read.
#[derive(Debug, Default)]
pub(super) struct Mrss {
    pub(super) at: Position,
    pub(super) video: bool,
    pub(super) content: Option<String>,
    pub(super) player: Option<String>,
    pub(super) duration: Option<u32>,
    pub(super) title: Option<String>,
    pub(super) description: Option<String>,
    pub(super) thumbnail: Option<String>,
    pub(super) restriction: Option<Restriction>,
    pub(super) pending: PendingRestriction,
    pub(super) prices: Vec<Price>,
    pub(super) start: Option<String>,
    pub(super) end: Option<String>,
    pub(super) live: Option<bool>,
    /// A required part was present but invalid (already reported).
    pub(super) required_bad: bool,
}

impl<R: Read> Xml<R> {
    pub(super) fn open_media(
        &mut self,
        sink: &mut Sink,
        at: Position,
        tag: Tag,
        e: &BytesStart<'_>,
    ) {
        let Some(b) = self.entry.as_mut() else { return };
        let m = b.mrss.get_or_insert_with(|| Mrss {
            at,
            ..Mrss::default()
        });
        match tag {
            Tag::MediaContent => {
                let medium = attr(sink, at, e, b"medium");
                let kind = attr(sink, at, e, b"type");
                let is_video = medium.as_deref() == Some("video")
                    || medium.is_none() && kind.as_deref().is_some_and(|t| t.starts_with("video/"));
                if !is_video || m.video {
                    // An image or audio item, or an alternate rendition of the first video.
                    return;
                }
                m.video = true;
                m.at = at;
                if let Some(url) = attr(sink, at, e, b"url") {
                    if sink.check_url(&url, at) {
                        m.content = Some(url);
                    } else {
                        m.required_bad = true;
                    }
                }
                if let Some(d) = attr(sink, at, e, b"duration") {
                    match value::parse_media_duration(&d) {
                        Some(d) => m.duration = Some(d),
                        None => sink.report(
                            Code::InvalidAttributeValue,
                            at,
                            format!("duration={}: must be seconds from 1 to 28,800", quote(&d)),
                        ),
                    }
                }
            }
            Tag::MediaPlayer => match attr(sink, at, e, b"url") {
                Some(url) if m.player.is_none() => {
                    m.video = true;
                    if sink.check_url(&url, at) {
                        m.player = Some(url);
                    } else {
                        m.required_bad = true;
                    }
                }
                Some(_) => {}
                None => sink.missing_attribute(at, b"url", "<media:player> without url"),
            },
            Tag::MediaThumbnail => match attr(sink, at, e, b"url") {
                Some(url) if m.thumbnail.is_none() => {
                    if sink.check_url(&url, at) {
                        m.thumbnail = Some(url);
                    } else {
                        m.required_bad = true;
                    }
                }
                Some(_) => {}
                None => sink.missing_attribute(at, b"url", "<media:thumbnail> without url"),
            },
            Tag::MediaRestriction => {
                m.pending = relationship(sink, at, e, "media:restriction");
                match attr(sink, at, e, b"type") {
                    Some(t) if t == "country" => {}
                    Some(t) => {
                        m.pending.bad = true;
                        sink.report(
                            Code::InvalidAttributeValue,
                            at,
                            format!("type={}: Google supports only type=\"country\"", quote(&t)),
                        );
                    }
                    None => {
                        m.pending.bad = true;
                        sink.missing_attribute(
                            at,
                            b"type",
                            "<media:restriction> without type=\"country\"",
                        );
                    }
                }
            }
            Tag::MediaPrice => {
                // Media RSS makes every attribute optional (Google's own example has a price
                // without type and one without currency); the values given must be valid.
                let currency = attr(sink, at, e, b"currency");
                if let Some(c) = currency.as_deref().filter(|c| !value::is_currency_code(c)) {
                    sink.report(
                        Code::InvalidAttributeValue,
                        at,
                        format!("currency={}: not an ISO 4217 code", quote(c)),
                    );
                }
                let kind = attr(sink, at, e, b"type");
                if let Some(k) = kind
                    .as_deref()
                    .filter(|k| !matches!(*k, "rent" | "purchase" | "package" | "subscription"))
                {
                    sink.report(
                        Code::InvalidAttributeValue,
                        at,
                        format!(
                            "type={}: must be rent, purchase, package or subscription",
                            quote(k)
                        ),
                    );
                }
                m.prices.push(Price {
                    amount: attr(sink, at, e, b"price").unwrap_or_default(),
                    currency,
                    kind,
                    resolution: None,
                });
            }
            _ => {}
        }
    }
}

/// The video of a Media RSS item, checked like a `<video:video>`.
pub(super) fn mrss_video(sink: &mut Sink, m: Mrss) -> Option<Video> {
    if !m.video {
        return None;
    }
    if m.required_bad {
        return None;
    }
    let mut missing = Vec::new();
    if m.content.is_none() && m.player.is_none() {
        missing.push("<media:content url> or <media:player url>");
    }
    if m.title.is_none() {
        missing.push("<media:title>");
    }
    if m.description.is_none() {
        missing.push("<media:description>");
    }
    if m.thumbnail.is_none() {
        missing.push("<media:thumbnail url>");
    }
    if !missing.is_empty() {
        sink.report(
            Code::MissingTag,
            m.at,
            format!(
                "a Media RSS video without {}: the video is not used",
                missing.join(", ")
            ),
        );
        return None;
    }
    Some(Video {
        position: m.at,
        thumbnail_loc: m.thumbnail.unwrap_or_default(),
        title: m.title.unwrap_or_default(),
        description: m.description.unwrap_or_default(),
        content_loc: m.content,
        player_loc: m.player,
        duration: m.duration,
        expiration_date: m.end,
        publication_date: m.start,
        restriction: m.restriction,
        live: m.live,
        prices: m.prices,
        ..Video::default()
    })
}
