//! `<video:video>`: Google's video extension, one row of [`VideoBuilder::FIELDS`] per child
//! (required tags, lengths, ranges, yes/no values, at-most-one tags, restrictions, prices,
//! the uploader). Adding a field is a row here and a field of [`Video`].
//!
//! The rules are those of [Google's video sitemap reference](https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps).

use quick_xml::events::BytesStart;

use super::price::{self, PriceRules};
use super::restriction::{self, PendingRestriction};
use super::rules::{self, Check, Child, CutCount, Field, Fields, MaxChars, Repeat, Seen, Value};
use super::{attr, quote, Position, Sink};
use crate::sitemap::{field_values, Code, Price, Uploader, Video};

/// The longest `<video:description>`, in characters (Google's video sitemap reference).
pub(super) const MAX_DESCRIPTION_CHARS: usize = 2_048;
/// The longest `<video:uploader>` name, in characters (Google's video sitemap reference).
pub(super) const MAX_UPLOADER_CHARS: usize = 255;
/// The longest `<video:category>`, in characters (Google's video sitemap reference, before 2022).
pub(super) const MAX_CATEGORY_CHARS: usize = 256;
/// `<video:tag>`s per video Google reads (Google's video sitemap reference).
pub(super) const MAX_VIDEO_TAGS: usize = 32;

/// `<video:price>`: `type` is `rent` or `own`; `currency` is required.
const PRICE: PriceRules = PriceRules {
    kinds: &["rent", "own"],
    resolutions: Some(&["hd", "sd"]),
    currency_required: Some("<video:price> without currency"),
};

/// A video being read.
#[derive(Debug, Default)]
pub(super) struct VideoBuilder {
    video: Video,
    seen: Seen,
    tags: usize,
    restriction: PendingRestriction,
    price: Option<Price>,
    uploader_info: Option<String>,
    /// Where `<video:uploader>` is, for `uploader-info-domain`.
    uploader_at: Position,
}

/// A row of the table below.
type Row = Field<VideoBuilder>;

impl Fields for VideoBuilder {
    const FIELDS: &'static [Field<Self>] = &[
        Row::new(
            "video:thumbnail_loc",
            Check::Url(|b, u| b.video.thumbnail_loc = u),
        )
        .required(),
        Row::new("video:title", Check::Text(|b, t| b.video.title = t)).required(),
        Row::new(
            "video:description",
            Check::Text(|b, t| b.video.description = t),
        )
        .required()
        .max(MaxChars {
            chars: MAX_DESCRIPTION_CHARS,
            shown: "2,048",
            cut: CutCount::AtLeast,
        }),
        Row::new(
            "video:content_loc",
            Check::Url(|b, u| b.video.content_loc = Some(u)),
        )
        .one_of(0),
        Row::new(
            "video:player_loc",
            Check::Url(|b, u| b.video.player_loc = Some(u)),
        )
        .one_of(0)
        .open(player_attributes),
        Row::new(
            "video:duration",
            Check::Duration(|b, d| b.video.duration = Some(d)),
        ),
        Row::new(
            "video:expiration_date",
            Check::Date(|b, d| b.video.expiration_date = Some(d)),
        ),
        Row::new(
            "video:rating",
            Check::Rating(|b, r| b.video.rating = Some(r)),
        ),
        Row::new(
            "video:view_count",
            Check::Count(|b, n| b.video.view_count = Some(n)),
        ),
        Row::new(
            "video:publication_date",
            Check::Date(|b, d| b.video.publication_date = Some(d)),
        ),
        Row::new(
            "video:family_friendly",
            Check::YesNo(|b, y| b.video.family_friendly = Some(y)),
        ),
        Row::new("video:restriction", Check::Own(countries)).open(countries_relationship),
        Row::new("video:platform", Check::Own(platforms)).open(platforms_relationship),
        Row::new("video:price", Check::Own(amount))
            .repeat(Repeat::Many)
            .retired()
            .open(price_attributes),
        Row::new(
            "video:requires_subscription",
            Check::YesNo(|b, y| b.video.requires_subscription = Some(y)),
        ),
        Row::new("video:uploader", Check::Own(uploader))
            .max(MaxChars {
                chars: MAX_UPLOADER_CHARS,
                shown: "255",
                cut: CutCount::Kept,
            })
            .open(uploader_info),
        Row::new("video:live", Check::YesNo(|b, y| b.video.live = Some(y))),
        Row::new("video:tag", Check::Own(tag)).repeat(Repeat::Many),
        Row::new(
            "video:category",
            Check::Text(|b, t| b.video.category = Some(t)),
        )
        .max(MaxChars {
            chars: MAX_CATEGORY_CHARS,
            shown: "256",
            cut: CutCount::Kept,
        })
        .retired(),
        Row::new("video:gallery_loc", Check::Url(|_, _| {})).retired(),
    ];

    fn seen(&mut self) -> &mut Seen {
        &mut self.seen
    }
}

impl VideoBuilder {
    /// A video starting at `at`.
    pub(super) fn new(at: Position) -> VideoBuilder {
        VideoBuilder {
            video: Video {
                position: at,
                ..Video::default()
            },
            ..VideoBuilder::default()
        }
    }

    /// What `<video:{local}>` is (reported when retired).
    pub(super) fn child(sink: &mut Sink, at: Position, local: &[u8]) -> Child {
        if let Some(row) = rules::find(Self::FIELDS, b"video", local) {
            return Child::Row(row);
        }
        if local != b"tvshow" && local != b"id" {
            return Child::Unknown;
        }
        sink.report(
            Code::RetiredTag,
            at,
            format!(
                "<video:{}> was retired by Google: it is ignored",
                String::from_utf8_lossy(local)
            ),
        );
        Child::Retired
    }

    /// The video when `</video:video>` ends, with where its uploader is when it has an `info`
    /// URL (checked against the page's domain once the page is known); `None` (reported) when
    /// it is not usable.
    pub(super) fn finish(self, sink: &mut Sink, at: Position) -> Option<(Video, Option<Position>)> {
        if self.seen.required_bad {
            return None;
        }
        if let Some(missing) = rules::missing::<Self>(&self.seen) {
            sink.report(
                Code::MissingTag,
                at,
                format!("<video:video> without {missing}: the video is not used"),
            );
            return None;
        }
        let info = self
            .video
            .uploader
            .as_ref()
            .is_some_and(|u| u.info.is_some());
        Some((self.video, info.then_some(self.uploader_at)))
    }
}

/// `<video:player_loc allow_embed autoplay>`: retired attributes, still checked.
fn player_attributes(
    _: &mut VideoBuilder,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    for (name, check_yes_no) in [("allow_embed", true), ("autoplay", false)] {
        if let Some(value) = attr(sink, at, e, name.as_bytes()) {
            sink.report(
                Code::RetiredTag,
                at,
                format!("<video:player_loc {name}> was retired by Google in 2022: it is ignored"),
            );
            if check_yes_no && field_values::parse_yes_no(&value).is_none() {
                sink.report(
                    Code::InvalidAttributeValue,
                    at,
                    format!("{name}={}: must be yes or no", quote(&value)),
                );
            }
        }
    }
    None
}

/// `relationship` of `<video:restriction>`.
fn countries_relationship(
    b: &mut VideoBuilder,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    b.restriction = restriction::relationship(sink, at, e, "video:restriction");
    None
}

/// `relationship` of `<video:platform>`.
fn platforms_relationship(
    b: &mut VideoBuilder,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    b.restriction = restriction::relationship(sink, at, e, "video:platform");
    None
}

fn countries(b: &mut VideoBuilder, sink: &mut Sink, v: &Value<'_>) -> bool {
    let pending = std::mem::take(&mut b.restriction);
    let Some(r) = restriction::values(sink, v, pending, true) else {
        return false;
    };
    b.video.restriction = Some(r);
    true
}

fn platforms(b: &mut VideoBuilder, sink: &mut Sink, v: &Value<'_>) -> bool {
    let pending = std::mem::take(&mut b.restriction);
    let Some(r) = restriction::values(sink, v, pending, false) else {
        return false;
    };
    b.video.platform = Some(r);
    true
}

fn price_attributes(
    b: &mut VideoBuilder,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    b.price = Some(price::attributes(sink, at, e, &PRICE));
    None
}

fn amount(b: &mut VideoBuilder, sink: &mut Sink, v: &Value<'_>) -> bool {
    let Some(mut price) = b.price.take() else {
        return true;
    };
    if !price::is_amount(v.text) {
        v.invalid(sink, "an amount such as 1.99");
    }
    price.amount = v.text.to_owned();
    b.video.prices.push(price);
    true
}

fn uploader_info(
    b: &mut VideoBuilder,
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
) -> Option<bool> {
    b.uploader_info = attr(sink, at, e, b"info");
    b.uploader_at = at;
    None
}

fn uploader(b: &mut VideoBuilder, sink: &mut Sink, v: &Value<'_>) -> bool {
    let info = match b.uploader_info.take() {
        Some(i) if sink.check_url(&i, v.at) => Some(i),
        _ => None,
    };
    b.video.uploader = Some(Uploader {
        name: v.text.to_owned(),
        info,
    });
    true
}

fn tag(b: &mut VideoBuilder, sink: &mut Sink, v: &Value<'_>) -> bool {
    b.tags += 1;
    if b.tags == MAX_VIDEO_TAGS + 1 {
        sink.report(
            Code::TooManyTags,
            v.at,
            format!("more than {MAX_VIDEO_TAGS} <video:tag>s: the rest are not used"),
        );
    }
    if b.tags <= MAX_VIDEO_TAGS {
        b.video.tags.push(v.text.to_owned());
    }
    true
}
