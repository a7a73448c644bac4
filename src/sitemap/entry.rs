//! What a sitemap lists: [`Entry`] (a page, or a sitemap of an index) and the extensions hung on
//! it (images, videos, news, `xhtml:link` alternates).
//!
//! Values are kept as written (after joining text across entity references and CDATA, and
//! trimming); a value that breaks its rule is dropped with an error, so what is here is valid.

use super::Position;

/// The kind of file a sitemap is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// XML `<urlset>`: pages.
    UrlSet,
    /// XML `<sitemapindex>`: other sitemaps.
    Index,
    /// One URL per line.
    Text,
    /// RSS 2.0 (with or without Media RSS): each `<item>`'s `<link>`.
    Rss,
    /// Atom 1.0: each `<entry>`'s `<link href>`.
    Atom,
}

impl Format {
    /// `"urlset"`, `"sitemapindex"`, `"text"`, `"rss"` or `"atom"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::UrlSet => "urlset",
            Format::Index => "sitemapindex",
            Format::Text => "text",
            Format::Rss => "rss",
            Format::Atom => "atom",
        }
    }
}

/// One URL a sitemap lists: a page (`<url>`, a text line, an RSS `<item>`, an Atom `<entry>`), or
/// in a sitemap index a sitemap (`<sitemap>`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// The URL (`<loc>`, the text line, RSS `<link>`, Atom `<link href>`), as written.
    pub loc: String,
    /// Where the entry starts.
    pub position: Position,
    /// `<lastmod>` (Atom `<updated>`, RSS `<pubDate>`), as written.
    pub lastmod: Option<String>,
    /// `<changefreq>` (Google ignores it).
    pub changefreq: Option<String>,
    /// `<priority>` (Google ignores it).
    pub priority: Option<String>,
    /// `<image:image>` children (Google image extension 1.1).
    pub images: Vec<Image>,
    /// `<video:video>` children (Google video extension 1.1), or the Media RSS video of an item.
    pub videos: Vec<Video>,
    /// `<news:news>` (Google news extension 0.9).
    pub news: Option<News>,
    /// `<xhtml:link rel="alternate" hreflang href>` children.
    pub alternates: Vec<Alternate>,
}

impl Entry {
    /// Every URL of the entry that a crawler fetches, with the element it came from:
    /// the page, image locations, and video content, player and thumbnail URLs.
    pub fn urls(&self) -> impl Iterator<Item = (&'static str, &str, Position)> + '_ {
        let page = std::iter::once(("loc", self.loc.as_str(), self.position));
        let images = self
            .images
            .iter()
            .map(|i| ("image:loc", i.loc.as_str(), i.position));
        let videos = self.videos.iter().flat_map(|v| {
            let content = v
                .content_loc
                .as_deref()
                .map(|u| ("video:content_loc", u, v.position));
            let player = v
                .player_loc
                .as_deref()
                .map(|u| ("video:player_loc", u, v.position));
            let thumbnail = ("video:thumbnail_loc", v.thumbnail_loc.as_str(), v.position);
            content
                .into_iter()
                .chain(player)
                .chain(std::iter::once(thumbnail))
        });
        page.chain(images).chain(videos)
    }
}

/// `<image:image>`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Image {
    /// `<image:loc>`.
    pub loc: String,
    /// Where `<image:image>` starts.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub position: Position,
}

/// `allow` or `deny`, the `relationship` of a restriction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Relationship {
    /// Only the listed values.
    Allow,
    /// All but the listed values.
    Deny,
}

/// `<video:restriction>` (countries) or `<video:platform>` (platforms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restriction {
    /// `relationship`.
    pub relationship: Relationship,
    /// The space-separated values: ISO 3166 country codes, or `web`/`mobile`/`tv`.
    pub values: Vec<String>,
}

/// `<video:uploader>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Uploader {
    /// The name.
    pub name: String,
    /// The `info` URL, in the page's domain.
    pub info: Option<String>,
}

/// `<video:price>` (retired by Google) or `<media:price>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Price {
    /// The amount, as written (may be empty in Media RSS).
    pub amount: String,
    /// ISO 4217 `currency`.
    pub currency: Option<String>,
    /// `type`: `rent`/`own` (video), `rent`/`purchase`/`package`/`subscription` (Media RSS).
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Option<String>,
    /// `resolution`: `hd`/`sd`.
    pub resolution: Option<String>,
}

/// `<video:video>`, or the video of a Media RSS `<item>`.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Video {
    /// Where the video's element starts.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub position: Position,
    /// `<video:thumbnail_loc>` / `<media:thumbnail url>` (required).
    pub thumbnail_loc: String,
    /// `<video:title>` / `<media:title>` (required).
    pub title: String,
    /// `<video:description>` / `<media:description>` (required, ≤ 2,048 characters).
    pub description: String,
    /// `<video:content_loc>` / `<media:content url>`.
    pub content_loc: Option<String>,
    /// `<video:player_loc>` / `<media:player url>`.
    pub player_loc: Option<String>,
    /// `<video:duration>` / `<media:content duration>`: seconds, 1 to 28,800.
    pub duration: Option<u32>,
    /// `<video:expiration_date>` / `<dcterms:valid>`'s `end`.
    pub expiration_date: Option<String>,
    /// `<video:rating>`: 0.0 to 5.0.
    pub rating: Option<f32>,
    /// `<video:view_count>`.
    pub view_count: Option<u64>,
    /// `<video:publication_date>` / `<dcterms:valid>`'s `start`.
    pub publication_date: Option<String>,
    /// `<video:family_friendly>`.
    pub family_friendly: Option<bool>,
    /// `<video:restriction>` / `<media:restriction type="country">`.
    #[cfg_attr(feature = "serde", serde(serialize_with = "json::countries"))]
    pub restriction: Option<Restriction>,
    /// `<video:platform>`.
    #[cfg_attr(feature = "serde", serde(serialize_with = "json::platforms"))]
    pub platform: Option<Restriction>,
    /// `<video:requires_subscription>`.
    pub requires_subscription: Option<bool>,
    /// `<video:uploader>`.
    pub uploader: Option<Uploader>,
    /// `<video:live>` / `<dcterms:type>live-video`.
    pub live: Option<bool>,
    /// `<video:tag>`, at most 32.
    pub tags: Vec<String>,
    /// `<video:category>` (retired by Google).
    pub category: Option<String>,
    /// `<video:price>` (retired by Google) / `<media:price>`.
    pub prices: Vec<Price>,
}

/// `<news:news>`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct News {
    /// `<news:publication><news:name>`.
    pub publication_name: String,
    /// `<news:publication><news:language>`: an ISO 639 code.
    pub publication_language: String,
    /// `<news:publication_date>`: W3C Datetime.
    pub publication_date: String,
    /// `<news:title>`.
    pub title: String,
}

/// `<xhtml:link rel="alternate" hreflang="…" href="…"/>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Alternate {
    /// `hreflang`: a language(-region) code or `x-default`.
    pub hreflang: String,
    /// `href`: an absolute URL.
    pub href: String,
}

/// The extensions as JSON (feature `serde`): what `crawlgate sitemap urls --json` writes for an
/// entry, so that a field added here reaches the JSON with no second list to keep in step.
/// Positions are left out (the entry's record carries its line and column).
#[cfg(feature = "serde")]
mod json {
    use super::{Relationship, Restriction};
    use serde::{Serialize, Serializer};

    /// A restriction names what its values are: countries or platforms.
    #[derive(Serialize)]
    struct Named<'a> {
        relationship: Relationship,
        #[serde(skip_serializing_if = "Option::is_none")]
        countries: Option<&'a [String]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        platforms: Option<&'a [String]>,
    }

    pub(super) fn countries<S: Serializer>(
        r: &Option<Restriction>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        r.as_ref()
            .map(|r| Named {
                relationship: r.relationship,
                countries: Some(&r.values),
                platforms: None,
            })
            .serialize(s)
    }

    pub(super) fn platforms<S: Serializer>(
        r: &Option<Restriction>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        r.as_ref()
            .map(|r| Named {
                relationship: r.relationship,
                countries: None,
                platforms: Some(&r.values),
            })
            .serialize(s)
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    /// The names scripts read: `countries` and `platforms` for the two restrictions, `type` for
    /// a price's kind, no position.
    #[test]
    fn video_json_names_its_restrictions_and_price_type() {
        let video = Video {
            thumbnail_loc: "https://e.example/t.jpg".into(),
            restriction: Some(Restriction {
                relationship: Relationship::Deny,
                values: vec!["FR".into()],
            }),
            platform: Some(Restriction {
                relationship: Relationship::Allow,
                values: vec!["tv".into()],
            }),
            prices: vec![Price {
                amount: "2.5".into(),
                currency: Some("USD".into()),
                kind: Some("rent".into()),
                resolution: None,
            }],
            ..Video::default()
        };
        let json = serde_json::to_value(&video).expect("serialize");
        assert_eq!(json.get("position"), None);
        assert_eq!(
            json["restriction"],
            serde_json::json!({ "relationship": "deny", "countries": ["FR"] })
        );
        assert_eq!(
            json["platform"],
            serde_json::json!({ "relationship": "allow", "platforms": ["tv"] })
        );
        assert_eq!(json["prices"][0]["type"], "rent");
        assert_eq!(json["uploader"], serde_json::Value::Null);
    }
}
