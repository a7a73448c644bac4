//! The sitemap reader on well-formed input: Google's own examples read with no error and with
//! every value where it belongs; the formats are told apart; text is joined across entity
//! references and CDATA, then trimmed; positions point at the element.

use crate::support;
use crate::support::gzip::{gzip_at, Compression};
use crawlgate::sitemap::{self, Code, Format, Item, Reader, Relationship, Severity};

fn seed(name: &str) -> Vec<u8> {
    support::testdata(&format!("sitemap/seeds/{name}"))
}

fn codes(parsed: &sitemap::Parsed) -> Vec<(u32, Code)> {
    parsed
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.code))
        .collect()
}

#[test]
fn google_examples_read_without_errors() {
    for name in ["basic.xml", "image-video.xml", "video-full.xml", "mrss.xml"] {
        let parsed = sitemap::parse(&seed(name));
        let errors: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(parsed.entries.len(), 1, "{name}");
    }
}

#[test]
fn basic_sitemap() {
    let parsed = sitemap::parse(&seed("basic.xml"));
    assert_eq!(parsed.format, Some(Format::UrlSet));
    assert_eq!(codes(&parsed), []);
    let e = &parsed.entries[0];
    assert_eq!(e.loc, "http://www.example.com/foo.html");
    assert_eq!((e.position.line, e.position.column), (3, 2));
}

#[test]
fn image_and_video_example() {
    let parsed = sitemap::parse(&seed("image-video.xml"));
    // image:caption and player_loc's allow_embed and autoplay were retired in 2022.
    assert_eq!(
        codes(&parsed),
        [
            (9, Code::RetiredTag),
            (15, Code::RetiredTag),
            (15, Code::RetiredTag)
        ]
    );
    let e = &parsed.entries[0];
    assert_eq!(e.images.len(), 1);
    assert_eq!(e.images[0].loc, "http://example.com/obrazek.jpg");
    let v = &e.videos[0];
    // Values written across lines are trimmed.
    assert_eq!(
        v.content_loc.as_deref(),
        Some("http://www.example.com/video123.flv")
    );
    assert_eq!(
        v.player_loc.as_deref(),
        Some("http://www.example.com/videoplayer.swf?video=123")
    );
    assert_eq!(v.thumbnail_loc, "http://www.example.com/miniatury/123.jpg");
    assert_eq!(v.title, "Letní grilování steaků");
    assert_eq!(v.description, "Naučte se udělat steak pokaždé perfektně.");
}

#[test]
fn full_video_example() {
    let parsed = sitemap::parse(&seed("video-full.xml"));
    // Only the retired <video:price> is reported; its syntax is valid.
    assert_eq!(codes(&parsed), [(21, Code::RetiredTag)]);
    let v = &parsed.entries[0].videos[0];
    assert_eq!(v.duration, Some(600));
    assert_eq!(v.rating, Some(4.2));
    assert_eq!(v.view_count, Some(12345));
    assert_eq!(
        v.expiration_date.as_deref(),
        Some("2021-11-05T19:20:30+08:00")
    );
    assert_eq!(
        v.publication_date.as_deref(),
        Some("2007-11-05T19:20:30+08:00")
    );
    assert_eq!(v.family_friendly, Some(true));
    assert_eq!(v.requires_subscription, Some(true));
    assert_eq!(v.live, Some(false));
    let r = v.restriction.as_ref().unwrap();
    assert_eq!(r.relationship, Relationship::Allow);
    assert_eq!(r.values, ["IE", "GB", "US", "CA"]);
    assert_eq!(v.prices.len(), 1);
    assert_eq!(v.prices[0].currency.as_deref(), Some("EUR"));
    assert_eq!(v.prices[0].amount, "1.99");
    let u = v.uploader.as_ref().unwrap();
    assert_eq!(u.name, "Jan Kuchař");
    assert_eq!(
        u.info.as_deref(),
        Some("http://www.example.com/uzivatele/jankuchar")
    );
    assert_eq!(
        v.description,
        "Alkis ukazuje, jak pokaždé dosáhnout perfektně propečených\n     steaků"
    );
}

#[test]
fn mrss_example() {
    let parsed = sitemap::parse(&seed("mrss.xml"));
    assert_eq!(parsed.format, Some(Format::Rss));
    assert_eq!(codes(&parsed), []);
    let e = &parsed.entries[0];
    assert_eq!(e.loc, "http://www.example.com/priklady/mrss/priklad.html");
    let v = &e.videos[0];
    assert_eq!(
        v.content_loc.as_deref(),
        Some("http://www.example.com/priklady/mrss/priklad.flv")
    );
    assert_eq!(
        v.player_loc.as_deref(),
        Some("http://www.example.com/shows/example/video.swf?flash_params")
    );
    assert_eq!(
        v.thumbnail_loc,
        "http://www.example.com/priklady/mrss/priklad.png"
    );
    assert_eq!(v.title, "Letní grilování steaků");
    assert_eq!(v.duration, Some(120));
    assert_eq!(v.expiration_date.as_deref(), Some("2020-10-15T00:00+01:00"));
    assert_eq!(v.live, Some(true));
    assert_eq!(v.prices.len(), 2);
    let r = v.restriction.as_ref().unwrap();
    assert_eq!(r.values, ["us", "ca"]);
}

#[test]
fn text_is_joined_across_references_and_cdata_then_trimmed() {
    let xml = br#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">
      <url>
        <loc>
          https://example.com/a?b=1&amp;c=<![CDATA[2&d=3]]>&#38;e=&#x34;
        </loc>
        <video:video>
          <video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
          <video:title> Fish &amp; <![CDATA[<chips>]]> </video:title>
          <video:description>&lt;b&gt; &quot;bold&quot; &apos;s</video:description>
          <video:player_loc>https://example.com/p</video:player_loc>
        </video:video>
      </url>
    </urlset>"#;
    let parsed = sitemap::parse(xml);
    assert_eq!(codes(&parsed), []);
    let e = &parsed.entries[0];
    assert_eq!(e.loc, "https://example.com/a?b=1&c=2&d=3&e=4");
    assert_eq!(e.videos[0].title, "Fish & <chips>");
    assert_eq!(e.videos[0].description, "<b> \"bold\" 's");
}

#[test]
fn formats_are_told_from_the_bytes() {
    let cases: [(&[u8], Option<Format>); 6] = [
        (b"https://example.com/a\r\nhttps://example.com/b\r\n", Some(Format::Text)),
        (b"\xEF\xBB\xBFhttps://example.com/a\n", Some(Format::Text)),
        (
            b"\xEF\xBB\xBF<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>https://example.com/s.xml</loc></sitemap></sitemapindex>",
            Some(Format::Index),
        ),
        (
            b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><link href=\"https://example.com/a\"/></entry></feed>",
            Some(Format::Atom),
        ),
        (
            b"<rss version=\"2.0\"><channel><item><link>https://example.com/a</link></item></channel></rss>",
            Some(Format::Rss),
        ),
        (b"<html><body>404</body></html>", None),
    ];
    for (bytes, format) in cases {
        let parsed = sitemap::parse(bytes);
        assert_eq!(parsed.format, format, "{}", String::from_utf8_lossy(bytes));
        if format.is_some() {
            assert_eq!(codes(&parsed), [], "{}", String::from_utf8_lossy(bytes));
            assert!(!parsed.entries.is_empty());
        }
    }
}

#[test]
fn gzip_is_told_from_the_bytes_not_the_name() {
    let gz = gzip_at(Compression::default(), &seed("mrss.xml"));
    let mut reader = Reader::new(&gz[..]);
    let items: Vec<Item> = reader.by_ref().collect();
    assert!(reader.is_gzip());
    assert_eq!(reader.bytes_read(), seed("mrss.xml").len() as u64);
    assert_eq!(
        items,
        Reader::new(&seed("mrss.xml")[..]).collect::<Vec<_>>()
    );
}

#[test]
fn positions_count_characters_not_bytes() {
    // "é" is two bytes: the column of <loc> counts it once.
    let xml = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<!-- é --><url><loc>/x</loc></url></urlset>";
    let parsed = sitemap::parse(xml.as_bytes());
    let d = &parsed.diagnostics[0];
    assert_eq!(d.code, Code::InvalidUrl);
    assert_eq!((d.line(), d.column()), (2, 16));
    assert_eq!(&xml.as_bytes()[d.position.offset as usize..][..5], b"<loc>");
}

#[test]
fn an_unusable_attribute_is_reported_once_and_a_missing_one_still_is() {
    let xml = br#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
      <url><loc>https://example.com/</loc>
        <xhtml:link rel="alternate" hreflang="de" href="https://example.com/&nbsp;de"/>
        <xhtml:link rel="alternate" href="https://example.com/&nbsp;fr"/>
      </url>
    </urlset>"#;
    let parsed = sitemap::parse(xml);
    assert_eq!(
        codes(&parsed),
        [
            (4, Code::UndefinedEntity),
            (5, Code::UndefinedEntity),
            (5, Code::MissingAttribute),
        ]
    );
    assert!(parsed.diagnostics[2].message.contains("hreflang"));
    assert!(parsed.entries[0].alternates.is_empty());
}
