//! `<video:video>`: the fields of Google's video extension and the rules of its table
//! (required tags, lengths, ranges, yes/no values, at-most-one tags, restrictions, prices,
//! the uploader), shared with Media RSS where the rules are the same.

use quick_xml::events::BytesStart;
use std::io::Read;

use super::{
    attr, date_message, over, quote, url_value, Position, Sink, Text, Xml, MAX_VIDEO_TAGS,
};
use crate::sitemap::{value, Code, Price, Relationship, Restriction, Uploader, Video};

/// A `<video:…>` child with a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum VField {
    Thumbnail,
    Title,
    Description,
    Content,
    Player,
    Duration,
    Expiration,
    Rating,
    ViewCount,
    Publication,
    FamilyFriendly,
    Restriction,
    Platform,
    Price,
    RequiresSubscription,
    Uploader,
    Live,
    Tag,
    Category,
    GalleryLoc,
}

impl VField {
    pub(super) fn from_name(local: &[u8]) -> Option<VField> {
        Some(match local {
            b"thumbnail_loc" => VField::Thumbnail,
            b"title" => VField::Title,
            b"description" => VField::Description,
            b"content_loc" => VField::Content,
            b"player_loc" => VField::Player,
            b"duration" => VField::Duration,
            b"expiration_date" => VField::Expiration,
            b"rating" => VField::Rating,
            b"view_count" => VField::ViewCount,
            b"publication_date" => VField::Publication,
            b"family_friendly" => VField::FamilyFriendly,
            b"restriction" => VField::Restriction,
            b"platform" => VField::Platform,
            b"price" => VField::Price,
            b"requires_subscription" => VField::RequiresSubscription,
            b"uploader" => VField::Uploader,
            b"live" => VField::Live,
            b"tag" => VField::Tag,
            b"category" => VField::Category,
            b"gallery_loc" => VField::GalleryLoc,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            VField::Thumbnail => "video:thumbnail_loc",
            VField::Title => "video:title",
            VField::Description => "video:description",
            VField::Content => "video:content_loc",
            VField::Player => "video:player_loc",
            VField::Duration => "video:duration",
            VField::Expiration => "video:expiration_date",
            VField::Rating => "video:rating",
            VField::ViewCount => "video:view_count",
            VField::Publication => "video:publication_date",
            VField::FamilyFriendly => "video:family_friendly",
            VField::Restriction => "video:restriction",
            VField::Platform => "video:platform",
            VField::Price => "video:price",
            VField::RequiresSubscription => "video:requires_subscription",
            VField::Uploader => "video:uploader",
            VField::Live => "video:live",
            VField::Tag => "video:tag",
            VField::Category => "video:category",
            VField::GalleryLoc => "video:gallery_loc",
        }
    }

    /// May appear more than once.
    pub(super) fn repeats(self) -> bool {
        matches!(self, VField::Tag | VField::Price)
    }
}

/// `relationship` and values of a restriction being read.
#[derive(Debug, Default)]
pub(super) struct PendingRestriction {
    pub(super) relationship: Option<Relationship>,
    /// The attribute was missing or wrong (already reported).
    pub(super) bad: bool,
}

/// A video being read.
#[derive(Debug, Default)]
pub(super) struct VideoBuilder {
    pub(super) video: Video,
    /// Fields set (or found invalid), by `VField as u32`, for `duplicate-tag`.
    pub(super) seen: u32,
    /// A required field was present but invalid (already reported): drop without `missing-tag`.
    pub(super) required_bad: bool,
    pub(super) tags: usize,
    pub(super) restriction: PendingRestriction,
    pub(super) price: Option<Price>,
    pub(super) uploader_info: Option<String>,
    /// Where `<video:uploader>` is, for `uploader-info-domain`.
    pub(super) uploader_at: Position,
}

impl<R: Read> Xml<R> {
    pub(super) fn open_video_field(
        &mut self,
        sink: &mut Sink,
        at: Position,
        field: VField,
        e: &BytesStart<'_>,
    ) {
        let Some(v) = self.video.as_mut() else { return };
        match field {
            VField::Restriction | VField::Platform => {
                v.restriction = relationship(sink, at, e, field.name());
            }
            VField::Price => {
                sink.report(
                    Code::RetiredTag,
                    at,
                    "<video:price> was retired by Google in 2022: its syntax is checked, and it is ignored",
                );
                let currency = attr(sink, at, e, b"currency");
                match &currency {
                    None => {
                        sink.missing_attribute(at, b"currency", "<video:price> without currency")
                    }
                    Some(c) if !value::is_currency_code(c) => sink.report(
                        Code::InvalidAttributeValue,
                        at,
                        format!("currency={}: not an ISO 4217 code", quote(c)),
                    ),
                    _ => {}
                }
                let kind = attr(sink, at, e, b"type");
                if let Some(k) = &kind {
                    if k != "rent" && k != "own" {
                        sink.report(
                            Code::InvalidAttributeValue,
                            at,
                            format!("type={}: must be rent or own", quote(k)),
                        );
                    }
                }
                let resolution = attr(sink, at, e, b"resolution");
                if let Some(r) = &resolution {
                    if r != "hd" && r != "sd" {
                        sink.report(
                            Code::InvalidAttributeValue,
                            at,
                            format!("resolution={}: must be hd or sd", quote(r)),
                        );
                    }
                }
                v.price = Some(Price {
                    amount: String::new(),
                    currency,
                    kind,
                    resolution,
                });
            }
            VField::Uploader => {
                v.uploader_info = attr(sink, at, e, b"info");
                v.uploader_at = at;
            }
            VField::Player => {
                for (name, check_yes_no) in [("allow_embed", true), ("autoplay", false)] {
                    if let Some(value) = attr(sink, at, e, name.as_bytes()) {
                        sink.report(
                            Code::RetiredTag,
                            at,
                            format!("<video:player_loc {name}> was retired by Google in 2022: it is ignored"),
                        );
                        if check_yes_no && value::parse_yes_no(&value).is_none() {
                            sink.report(
                                Code::InvalidAttributeValue,
                                at,
                                format!("{name}={}: must be yes or no", quote(&value)),
                            );
                        }
                    }
                }
            }
            VField::Category | VField::GalleryLoc => {
                sink.report(
                    Code::RetiredTag,
                    at,
                    format!(
                        "<{}> was retired by Google in 2022: its syntax is checked, and it is ignored",
                        field.name()
                    ),
                );
            }
            _ => {}
        }
    }

    pub(super) fn video_value(
        &mut self,
        sink: &mut Sink,
        at: Position,
        field: VField,
        v: &str,
        cut: bool,
    ) {
        let Some(b) = self.video.as_mut() else { return };
        let bit = 1u32 << field as u32;
        if !field.repeats() && b.seen & bit != 0 {
            sink.report(
                Code::DuplicateTag,
                at,
                format!("a second <{}>: only the first is used", field.name()),
            );
            return;
        }
        b.seen |= bit;
        let video = &mut b.video;
        let invalid = |sink: &mut Sink, expected: &str| {
            sink.report(
                Code::InvalidTagValue,
                at,
                format!("<{}>{}: must be {expected}", field.name(), quote(v)),
            );
        };
        match field {
            VField::Thumbnail | VField::Content | VField::Player | VField::GalleryLoc => {
                match url_value(sink, at, v, cut) {
                    Some(u) => match field {
                        VField::Thumbnail => video.thumbnail_loc = u,
                        VField::Content => video.content_loc = Some(u),
                        VField::Player => video.player_loc = Some(u),
                        _ => {}
                    },
                    None if field != VField::GalleryLoc => b.required_bad = true,
                    None => {}
                }
            }
            VField::Title => video.title = v.to_owned(),
            VField::Description => {
                let n = if cut {
                    Some(v.chars().count() + 1)
                } else {
                    value::chars_over(v, 2_048)
                };
                match n {
                    Some(n) => {
                        b.required_bad = true;
                        sink.report(
                            Code::ValueTooLong,
                            at,
                            format!("<video:description> has {n}{} characters; at most 2,048 are allowed", if cut { "+" } else { "" }),
                        );
                    }
                    None => video.description = v.to_owned(),
                }
            }
            VField::Duration => match value::parse_duration(v) {
                Some(d) => video.duration = Some(d),
                None => invalid(sink, "whole seconds from 1 to 28,800"),
            },
            VField::Expiration | VField::Publication => {
                if value::is_w3c_datetime(v) {
                    let slot = if field == VField::Expiration {
                        &mut video.expiration_date
                    } else {
                        &mut video.publication_date
                    };
                    *slot = Some(v.to_owned());
                } else {
                    sink.report(Code::InvalidDate, at, date_message(v));
                }
            }
            VField::Rating => match value::parse_rating(v) {
                Some(r) => video.rating = Some(r),
                None => invalid(sink, "a number from 0.0 to 5.0"),
            },
            VField::ViewCount => match value::parse_count(v) {
                Some(n) => video.view_count = Some(n),
                None => invalid(sink, "a whole number"),
            },
            VField::FamilyFriendly | VField::RequiresSubscription | VField::Live => {
                match value::parse_yes_no(v) {
                    Some(yes) => {
                        let slot = match field {
                            VField::FamilyFriendly => &mut video.family_friendly,
                            VField::RequiresSubscription => &mut video.requires_subscription,
                            _ => &mut video.live,
                        };
                        *slot = Some(yes);
                    }
                    None => invalid(sink, "yes or no"),
                }
            }
            VField::Restriction | VField::Platform => {
                let pending = std::mem::take(&mut b.restriction);
                let countries = field == VField::Restriction;
                if let Some(r) = restriction_values(sink, at, field.name(), pending, v, countries) {
                    if countries {
                        video.restriction = Some(r);
                    } else {
                        video.platform = Some(r);
                    }
                }
            }
            VField::Price => {
                let Some(mut price) = b.price.take() else {
                    return;
                };
                if !is_amount(v) {
                    invalid(sink, "an amount such as 1.99");
                }
                price.amount = v.to_owned();
                video.prices.push(price);
            }
            VField::Uploader => {
                if let Some(n) = over(v, cut, &Text::default(), 255) {
                    sink.report(
                        Code::ValueTooLong,
                        at,
                        format!("<video:uploader> has {n} characters; at most 255 are allowed"),
                    );
                    return;
                }
                let info = match b.uploader_info.take() {
                    Some(i) if sink.check_url(&i, at) => Some(i),
                    _ => None,
                };
                video.uploader = Some(Uploader {
                    name: v.to_owned(),
                    info,
                });
            }
            VField::Tag => {
                b.tags += 1;
                if b.tags == MAX_VIDEO_TAGS + 1 {
                    sink.report(
                        Code::TooManyTags,
                        at,
                        format!("more than {MAX_VIDEO_TAGS} <video:tag>s: the rest are not used"),
                    );
                }
                if b.tags <= MAX_VIDEO_TAGS {
                    video.tags.push(v.to_owned());
                }
            }
            VField::Category => {
                if let Some(n) = over(v, cut, &Text::default(), 256) {
                    sink.report(
                        Code::ValueTooLong,
                        at,
                        format!("<video:category> has {n} characters; at most 256 are allowed"),
                    );
                    return;
                }
                video.category = Some(v.to_owned());
            }
        }
    }

    pub(super) fn finish_video(&mut self, sink: &mut Sink, at: Position) {
        let Some(b) = self.video.take() else { return };
        let v = b.video;
        let mut missing = Vec::new();
        if v.thumbnail_loc.is_empty() {
            missing.push("<video:thumbnail_loc>");
        }
        if v.title.is_empty() {
            missing.push("<video:title>");
        }
        if v.description.is_empty() {
            missing.push("<video:description>");
        }
        if v.content_loc.is_none() && v.player_loc.is_none() {
            missing.push("<video:content_loc> or <video:player_loc>");
        }
        if b.required_bad {
            return;
        }
        if !missing.is_empty() {
            sink.report(
                Code::MissingTag,
                at,
                format!(
                    "<video:video> without {}: the video is not used",
                    missing.join(", ")
                ),
            );
            return;
        }
        if let Some(e) = self.entry.as_mut() {
            if v.uploader.as_ref().is_some_and(|u| u.info.is_some()) {
                e.uploader_info.push((e.entry.videos.len(), b.uploader_at));
            }
            e.entry.videos.push(v);
        }
    }
}

/// `relationship="allow|deny"` of a restriction, reported when missing or wrong.
pub(super) fn relationship(
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
    name: &str,
) -> PendingRestriction {
    match attr(sink, at, e, b"relationship").as_deref() {
        Some("allow") => PendingRestriction {
            relationship: Some(Relationship::Allow),
            bad: false,
        },
        Some("deny") => PendingRestriction {
            relationship: Some(Relationship::Deny),
            bad: false,
        },
        Some(other) => {
            sink.report(
                Code::InvalidAttributeValue,
                at,
                format!(
                    "<{name} relationship={}>: must be allow or deny",
                    quote(other)
                ),
            );
            PendingRestriction {
                relationship: None,
                bad: true,
            }
        }
        None => {
            sink.missing_attribute(
                at,
                b"relationship",
                format!("<{name}> without relationship=\"allow\" or \"deny\""),
            );
            PendingRestriction {
                relationship: None,
                bad: true,
            }
        }
    }
}

/// The values of a restriction (country codes, or platforms), all valid, or `None` (reported).
pub(super) fn restriction_values(
    sink: &mut Sink,
    at: Position,
    name: &str,
    pending: PendingRestriction,
    v: &str,
    countries: bool,
) -> Option<Restriction> {
    let values: Vec<String> = v.split_ascii_whitespace().map(str::to_owned).collect();
    let bad: Vec<&str> = values
        .iter()
        .map(String::as_str)
        .filter(|c| {
            if countries {
                !value::is_country_code(c)
            } else {
                !value::is_platform(c)
            }
        })
        .collect();
    if !bad.is_empty() {
        let expected = if countries {
            "ISO 3166 country codes separated by spaces"
        } else {
            "web, mobile or tv, separated by spaces"
        };
        sink.report(
            Code::InvalidTagValue,
            at,
            format!("<{name}> {}: must be {expected}", quote(&bad.join(" "))),
        );
        return None;
    }
    if pending.bad {
        return None;
    }
    Some(Restriction {
        relationship: pending.relationship?,
        values,
    })
}

/// A price: digits with an optional decimal part.
pub(super) fn is_amount(v: &str) -> bool {
    let (int, frac) = v.split_once('.').unwrap_or((v, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}
