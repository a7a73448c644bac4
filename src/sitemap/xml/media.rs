//! Media RSS (`xmlns:media="http://search.yahoo.com/mrss/"`): the video of an RSS `<item>`,
//! gathered from `<media:content>`, `<media:player>`, `<media:title>`… (and `<dcterms:valid>`,
//! `<dcterms:type>`) wherever they sit in the item, one row of [`Mrss::FIELDS`] each, then
//! checked like a `<video:video>` (Google's [video sitemap reference], Media RSS section).
//!
//! [video sitemap reference]: https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps

use quick_xml::events::BytesStart;

use super::price::{self, PriceRules};
use super::restriction::{self, PendingRestriction};
use super::rules::{self, Check, CutCount, Field, Fields, MaxChars, Repeat, Seen, Value};
use super::video::MAX_DESCRIPTION_CHARS;
use super::{attr, date_message, quote, Position, Sink};
use crate::sitemap::{field_values, Code, Video};

/// The longest `<media:title>`, in characters (Google's video sitemap reference).
const MAX_TITLE_CHARS: usize = 100;

/// `<media:price>`: Media RSS makes every attribute optional (Google's own example has a price
/// without type and one without currency); the values given must be valid.
const PRICE: PriceRules = PriceRules {
    kinds: &["rent", "purchase", "package", "subscription"],
    resolutions: None,
    currency_required: None,
};

/// The row of `<media:content>`, in which other media elements may sit.
const CONTENT: u8 = 0;
/// The rows past this one are Dublin Core terms: alone, they do not make an item a video.
const LAST_MEDIA_ROW: u8 = 6;

/// Media RSS parts of an item being read.
#[derive(Debug, Default)]
pub(super) struct Mrss {
    at: Position,
    /// A video `<media:content>` or a `<media:player>` was seen.
    video: bool,
    v: Video,
    seen: Seen,
    pending: PendingRestriction,
}

/// A row of the table below.
type Row = Field<Mrss>;

impl Fields for Mrss {
    const FIELDS: &'static [Field<Self>] = &[
        Row::new("media:content", Check::Attributes)
            .one_of(0)
            .attribute("url", content),
        Row::new("media:player", Check::Attributes)
            .one_of(0)
            .attribute("url", player),
        Row::new("media:title", Check::MaybeEmpty(|m, t| m.v.title = t))
            .required()
            .repeat(Repeat::First)
            .max(MaxChars {
                chars: MAX_TITLE_CHARS,
                shown: "100",
                cut: CutCount::All,
            }),
        Row::new(
            "media:description",
            Check::MaybeEmpty(|m, t| m.v.description = t),
        )
        .required()
        .repeat(Repeat::First)
        .max(MaxChars {
            chars: MAX_DESCRIPTION_CHARS,
            shown: "2048",
            cut: CutCount::All,
        }),
        Row::new("media:thumbnail", Check::Attributes)
            .required()
            .attribute("url", thumbnail),
        Row::new("media:restriction", Check::Own(countries))
            .repeat(Repeat::Many)
            .open(restriction_attributes),
        Row::new("media:price", Check::Attributes)
            .repeat(Repeat::Many)
            .open(price_attributes),
        Row::new("dcterms:valid", Check::Own(valid)).repeat(Repeat::Many),
        Row::new("dcterms:type", Check::Own(kind)).repeat(Repeat::Many),
    ];

    fn seen(&mut self) -> &mut Seen {
        &mut self.seen
    }
}

impl Mrss {
    /// The row of `<media:{local}>` (`media` false: `<dcterms:{local}>`).
    pub(super) fn field(media: bool, local: &[u8]) -> Option<u8> {
        let prefix: &[u8] = if media { b"media" } else { b"dcterms" };
        rules::find(Self::FIELDS, prefix, local)
    }

    /// Whether the row is `<media:content>`.
    pub(super) fn is_content(row: u8) -> bool {
        row == CONTENT
    }

    /// The item's Media RSS parts for a row opening at `at`: started by the first media element,
    /// not by Dublin Core terms.
    pub(super) fn for_row(slot: &mut Option<Mrss>, row: u8, at: Position) -> Option<&mut Mrss> {
        if row <= LAST_MEDIA_ROW && slot.is_none() {
            *slot = Some(Mrss {
                at,
                ..Mrss::default()
            });
        }
        slot.as_mut()
    }

    /// The video of the item, checked like a `<video:video>`; `None` when there is none or it
    /// is not usable (reported).
    pub(super) fn finish(self, sink: &mut Sink) -> Option<Video> {
        if !self.video || self.seen.required_bad {
            return None;
        }
        if let Some(missing) = rules::missing::<Self>(&self.seen) {
            sink.report(
                Code::MissingTag,
                self.at,
                format!("a Media RSS video without {missing}: the video is not used"),
            );
            return None;
        }
        Some(Video {
            position: self.at,
            ..self.v
        })
    }
}

/// `<media:content medium type url duration>`: the first video rendition is the video.
fn content(m: &mut Mrss, sink: &mut Sink, at: Position, e: &BytesStart<'_>) -> Option<bool> {
    let medium = attr(sink, at, e, b"medium");
    let kind = attr(sink, at, e, b"type");
    let is_video = medium.as_deref() == Some("video")
        || medium.is_none() && kind.as_deref().is_some_and(|t| t.starts_with("video/"));
    if !is_video || m.video {
        // An image or audio item, or an alternate rendition of the first video.
        return None;
    }
    m.video = true;
    m.at = at;
    let mut got = None;
    if let Some(url) = attr(sink, at, e, b"url") {
        let ok = sink.check_url(&url, at);
        if ok {
            m.v.content_loc = Some(url);
        }
        got = Some(ok);
    }
    if let Some(d) = attr(sink, at, e, b"duration") {
        match field_values::parse_media_duration(&d) {
            Some(d) => m.v.duration = Some(d),
            None => sink.report(
                Code::InvalidAttributeValue,
                at,
                format!("duration={}: must be seconds from 1 to 28,800", quote(&d)),
            ),
        }
    }
    got
}

/// `<media:player url>`: the first one is kept.
fn player(m: &mut Mrss, sink: &mut Sink, at: Position, e: &BytesStart<'_>) -> Option<bool> {
    match attr(sink, at, e, b"url") {
        Some(url) if m.v.player_loc.is_none() => {
            m.video = true;
            let ok = sink.check_url(&url, at);
            if ok {
                m.v.player_loc = Some(url);
            }
            Some(ok)
        }
        Some(_) => None,
        None => {
            sink.missing_attribute(at, b"url", "<media:player> without url");
            None
        }
    }
}

/// `<media:thumbnail url>`: the first one is kept.
fn thumbnail(m: &mut Mrss, sink: &mut Sink, at: Position, e: &BytesStart<'_>) -> Option<bool> {
    match attr(sink, at, e, b"url") {
        Some(url) if m.v.thumbnail_loc.is_empty() => {
            let ok = sink.check_url(&url, at);
            if ok {
                m.v.thumbnail_loc = url;
            }
            Some(ok)
        }
        Some(_) => None,
        None => {
            sink.missing_attribute(at, b"url", "<media:thumbnail> without url");
            None
        }
    }
}

/// `<media:restriction relationship type="country">`.
fn restriction_attributes(
    m: &mut Mrss,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    m.pending = restriction::relationship(sink, at, e, "media:restriction");
    match attr(sink, at, e, b"type") {
        Some(t) if t == "country" => {}
        Some(t) => {
            m.pending.set_bad();
            sink.report(
                Code::InvalidAttributeValue,
                at,
                format!("type={}: Google supports only type=\"country\"", quote(&t)),
            );
        }
        None => {
            m.pending.set_bad();
            sink.missing_attribute(at, b"type", "<media:restriction> without type=\"country\"");
        }
    }
    None
}

/// The countries of `<media:restriction>`: the first valid one is kept.
fn countries(m: &mut Mrss, sink: &mut Sink, v: &Value<'_>) -> bool {
    let pending = std::mem::take(&mut m.pending);
    let Some(r) = restriction::values(sink, v, pending, true) else {
        return false;
    };
    if m.v.restriction.is_some() {
        sink.report(
            Code::DuplicateTag,
            v.at,
            "a second <media:restriction>: only the first is used",
        );
    } else {
        m.v.restriction = Some(r);
    }
    true
}

fn price_attributes(
    m: &mut Mrss,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    let mut p = price::attributes(sink, at, e, &PRICE);
    p.amount = attr(sink, at, e, b"price").unwrap_or_default();
    m.v.prices.push(p);
    None
}

/// `<dcterms:valid>start=…; end=…</dcterms:valid>`: publication and expiration dates.
fn valid(m: &mut Mrss, sink: &mut Sink, v: &Value<'_>) -> bool {
    for part in v.text.split(';') {
        let Some((key, val)) = part.split_once('=') else {
            continue;
        };
        let (key, val) = (key.trim(), val.trim());
        let slot = match key {
            "start" => &mut m.v.publication_date,
            "end" => &mut m.v.expiration_date,
            _ => continue,
        };
        if field_values::is_w3c_datetime(val) {
            *slot = Some(val.to_owned());
        } else {
            sink.report(Code::InvalidDate, v.at, date_message(val));
        }
    }
    true
}

/// `<dcterms:type>live-video</dcterms:type>`.
fn kind(m: &mut Mrss, _: &mut Sink, v: &Value<'_>) -> bool {
    if v.text == "live-video" {
        m.v.live = Some(true);
    }
    true
}
