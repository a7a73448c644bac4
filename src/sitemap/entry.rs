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
pub struct Image {
    /// `<image:loc>`.
    pub loc: String,
    /// Where `<image:image>` starts.
    pub position: Position,
}

/// `allow` or `deny`, the `relationship` of a restriction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
pub struct Uploader {
    /// The name.
    pub name: String,
    /// The `info` URL, in the page's domain.
    pub info: Option<String>,
}

/// `<video:price>` (retired by Google) or `<media:price>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    /// The amount, as written (may be empty in Media RSS).
    pub amount: String,
    /// ISO 4217 `currency`.
    pub currency: Option<String>,
    /// `type`: `rent`/`own` (video), `rent`/`purchase`/`package`/`subscription` (Media RSS).
    pub kind: Option<String>,
    /// `resolution`: `hd`/`sd`.
    pub resolution: Option<String>,
}

/// `<video:video>`, or the video of a Media RSS `<item>`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Video {
    /// Where the video's element starts.
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
    pub restriction: Option<Restriction>,
    /// `<video:platform>`.
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
pub struct Alternate {
    /// `hreflang`: a language(-region) code or `x-default`.
    pub hreflang: String,
    /// `href`: an absolute URL.
    pub href: String,
}
