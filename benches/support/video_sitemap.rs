//! A deterministic video sitemap for the sitemap benches (`benches/sitemap.rs`) and
//! `benches/tools/sitemap_memory.rs`.
//!
//! [`video_sitemap`] writes an XML `<urlset>` (sitemap 0.9 and Google video 1.1 namespaces) whose
//! entries follow Google's full video example: a page `<loc>` and `<lastmod>`, and a
//! `<video:video>` with thumbnail, title, description, content and player URLs, duration, rating,
//! view count, publication date, tags, family-friendly flag, country restriction, subscription,
//! uploader (with an `info` URL on the page's host) and live flag; some also carry an expiration
//! date and a platform restriction, and every tenth page has a second video. Text varies with a
//! small LCG (no randomness crate), so the same size always gives the same bytes. Titles mix plain
//! text, `&amp;` entity references and CDATA sections; descriptions (about 200 to 700 characters,
//! on their own indented lines as in Google's example) mix the five XML entities, character
//! references and non-ASCII text. Every entry and every video is valid for both crawlgate and
//! sitemapo: absolute `https` URLs, W3C dates, values in range, unique page URLs.
//!
//! Entries are added while the next one still fits in `target_bytes` with the closing
//! `</urlset>`; 50 MiB (52,428,800 bytes, the protocol's limit) holds about 30,000 of them.
#![allow(dead_code)] // The bench and the example each use part of this module.

use std::fmt::Write as _;

/// Start of the file, up to and including the `<urlset …>` start tag.
const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"\n        \
xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\">\n";

/// End of the file.
const TAIL: &str = "</urlset>\n";

/// What opens each entry: counting it in the output counts the entries.
pub const ENTRY_OPEN: &[u8] = b"<url>";

/// What opens each video.
pub const VIDEO_OPEN: &[u8] = b"<video:video>";

/// A video sitemap of at most `target_bytes` bytes (and at least its head and tail).
pub fn video_sitemap(target_bytes: usize) -> Vec<u8> {
    let mut out = String::with_capacity(target_bytes);
    out.push_str(HEAD);
    let mut rng = Lcg(0x5eed_c0de_2024_0001);
    let mut entry = String::with_capacity(8 * 1024);
    for n in 1u64.. {
        entry.clear();
        write_entry(&mut entry, n, &mut rng);
        if out.len() + entry.len() + TAIL.len() > target_bytes {
            break;
        }
        out.push_str(&entry);
    }
    out.push_str(TAIL);
    out.into_bytes()
}

/// How many times `needle` occurs in `haystack` (entries: [`ENTRY_OPEN`]; videos: [`VIDEO_OPEN`]).
pub fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// Knuth's MMIX linear congruential generator; the high bits are the output.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.next() % (hi - lo + 1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next() as usize % items.len()]
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u32) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// Dishes and subjects for titles, as they are written in XML text (escaped).
const SUBJECTS: &[&str] = &[
    "Grilling steaks for summer",
    "Perfect pancakes",
    "Sourdough from scratch",
    "Knife skills for beginners",
    "Crème brûlée without a torch",
    "Smoked brisket, low and slow",
    "Weeknight ramen",
    "Homemade pasta dough",
    "Thai green curry",
    "Roasting a whole chicken",
    "Five-minute vinaigrettes",
    "Tacos al pastor at home",
    "Shakshuka for a crowd",
    "Caramel that never seizes",
    "Dumplings, folded three ways",
    "Cast-iron care",
];

/// Second halves of `&amp;` titles.
const PAIRINGS: &[&str] = &[
    "chips",
    "a green salad",
    "garlic bread",
    "roasted vegetables",
    "a quick pickle",
    "lemonade",
    "dessert",
];

/// Title suffixes inside CDATA sections: raw `&` and `<` are literal there.
const CDATA_SUFFIXES: &[&str] = &[
    "Q&A <live>",
    "Tips & tricks",
    "<Part 2> & more",
    "Salt & pepper only",
    "\"Chef's cut\" & sides",
];

/// Description sentences, escaped as XML text.
const SENTENCES: &[&str] = &[
    "Alkis shows you how to get perfectly done steaks every time.",
    "We start with the basics &amp; build up to a dish you&#8217;ll make every week.",
    "No special equipment needed: a heavy pan, a sharp knife and a little patience.",
    "Season generously, rest the meat, and slice against the grain &#8212; that&apos;s the whole secret.",
    "Our test kitchen cooked this recipe 14 times to get the timing right for home stoves.",
    "Viewers asked &quot;can I make it ahead?&quot; &#8212; yes, and we show you how to reheat it.",
    "Ingredients are listed in grams &amp; cups, with substitutions for common allergies.",
    "The sauce keeps for a week in the fridge, so double the batch.",
    "Temperatures: oven at 220 &#176;C (425 &#176;F), pan at medium-high, resting for 5 minutes.",
    "Chef Zoë walks through each step at a relaxed pace, with close-ups of the tricky parts.",
    "Filmed in our São Paulo studio with subtitles in English, Español and Português.",
    "If the dough tears, it needs more time &lt; not more flour &gt; so cover it and wait.",
    "This episode is part of our weeknight series: dinners in under 30 minutes.",
    "Serve with a crisp salad, warm bread, or simply a squeeze of lemon.",
    "Leftovers make an excellent lunch; see the end of the video for two ideas.",
    "Questions? Leave them below and we&apos;ll answer the best ones in the next episode.",
];

const TAGS: &[&str] = &[
    "steak",
    "meat",
    "summer",
    "outdoor",
    "grilling",
    "baking",
    "vegetarian",
    "vegan",
    "quick",
    "weeknight",
    "dessert",
    "bread",
    "asian",
    "mexican",
    "comfort food",
    "meal prep",
    "budget",
    "technique",
    "family",
    "holiday",
];

const COUNTRIES: &[&str] = &[
    "IE GB US CA",
    "US CA MX",
    "DE AT CH",
    "FR BE LU MC",
    "BR PT",
    "AU NZ",
    "JP KR SG",
    "ES IT GR",
];

const PLATFORMS: &[&str] = &["web mobile", "web", "web mobile tv", "mobile tv"];

const UPLOADERS: &[&str] = &[
    "GrillyMcGrillerson",
    "ChefZoe",
    "TheSourdoughShop",
    "WeeknightKitchen",
    "PastaLab",
    "SmokeAndFire",
    "BakeItEasy",
];

/// `YYYY-MM-DD`, or with a time and zone (all valid W3C Datetime).
fn write_date(out: &mut String, rng: &mut Lcg, years: (u32, u32), with_time: bool) {
    let (y, m, d) = (
        rng.range(years.0, years.1),
        rng.range(1, 12),
        rng.range(1, 28),
    );
    write!(out, "{y}-{m:02}-{d:02}").unwrap();
    if with_time {
        let (h, mi, s) = (rng.range(0, 23), rng.range(0, 59), rng.range(0, 59));
        let zone = rng.pick(&["+00:00", "Z", "+08:00", "-05:00", "+01:00"]);
        write!(out, "T{h:02}:{mi:02}:{s:02}{zone}").unwrap();
    }
}

fn write_entry(out: &mut String, n: u64, rng: &mut Lcg) {
    out.push_str("  <url>\n");
    writeln!(
        out,
        "    <loc>https://www.example.com/videos/{n}.html</loc>"
    )
    .unwrap();
    out.push_str("    <lastmod>");
    let with_time = rng.one_in(2);
    write_date(out, rng, (2020, 2024), with_time);
    out.push_str("</lastmod>\n");
    let videos = if n.is_multiple_of(10) { 2 } else { 1 };
    for v in 1..=videos {
        write_video(out, n, v, rng);
    }
    out.push_str("  </url>\n");
}

fn write_video(out: &mut String, n: u64, v: u32, rng: &mut Lcg) {
    let id = n * 10 + u64::from(v);
    out.push_str("    <video:video>\n");
    writeln!(
        out,
        "      <video:thumbnail_loc>https://www.example.com/thumbs/{id}.jpg</video:thumbnail_loc>"
    )
    .unwrap();

    // Title: plain, with an entity reference, or in a CDATA section.
    let subject = rng.pick(SUBJECTS);
    out.push_str("      <video:title>");
    match rng.next() % 4 {
        0 => write!(out, "{subject} &amp; {}", rng.pick(PAIRINGS)).unwrap(),
        1 => write!(out, "<![CDATA[{subject}: {}]]>", rng.pick(CDATA_SUFFIXES)).unwrap(),
        _ => write!(out, "{subject} (episode {id})").unwrap(),
    }
    out.push_str("</video:title>\n");

    // Description: 3 to 8 sentences on an indented line of its own, as Google's example does.
    out.push_str("      <video:description>\n        ");
    for i in 0..rng.range(3, 8) {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(SENTENCES));
    }
    out.push_str("\n      </video:description>\n");

    writeln!(
        out,
        "      <video:content_loc>https://streamserver.example.com/video{id}.mp4</video:content_loc>"
    )
    .unwrap();
    writeln!(
        out,
        "      <video:player_loc>https://www.example.com/videoplayer.php?video={id}&amp;autoplay=0</video:player_loc>"
    )
    .unwrap();
    writeln!(
        out,
        "      <video:duration>{}</video:duration>",
        rng.range(30, 5_400)
    )
    .unwrap();
    if rng.one_in(4) {
        out.push_str("      <video:expiration_date>");
        write_date(out, rng, (2031, 2035), true);
        out.push_str("</video:expiration_date>\n");
    }
    writeln!(
        out,
        "      <video:rating>{}.{}</video:rating>",
        rng.range(0, 4),
        rng.range(0, 9)
    )
    .unwrap();
    writeln!(
        out,
        "      <video:view_count>{}</video:view_count>",
        rng.next() % 5_000_000
    )
    .unwrap();
    out.push_str("      <video:publication_date>");
    write_date(out, rng, (2010, 2024), true);
    out.push_str("</video:publication_date>\n");

    let first = rng.next() as usize;
    for t in 0..rng.range(3, 8) as usize {
        // Consecutive tags from a random start: never the same tag twice in one video.
        let tag = TAGS[(first + t) % TAGS.len()];
        writeln!(out, "      <video:tag>{tag}</video:tag>").unwrap();
    }

    writeln!(
        out,
        "      <video:family_friendly>{}</video:family_friendly>",
        if rng.one_in(8) { "no" } else { "yes" }
    )
    .unwrap();
    writeln!(
        out,
        "      <video:restriction relationship=\"allow\">{}</video:restriction>",
        rng.pick(COUNTRIES)
    )
    .unwrap();
    writeln!(
        out,
        "      <video:requires_subscription>{}</video:requires_subscription>",
        if rng.one_in(3) { "yes" } else { "no" }
    )
    .unwrap();
    let uploader = rng.pick(UPLOADERS);
    writeln!(
        out,
        "      <video:uploader info=\"https://www.example.com/users/{}\">{uploader}</video:uploader>",
        uploader.to_ascii_lowercase()
    )
    .unwrap();
    if rng.one_in(3) {
        writeln!(
            out,
            "      <video:platform relationship=\"allow\">{}</video:platform>",
            rng.pick(PLATFORMS)
        )
        .unwrap();
    }
    writeln!(
        out,
        "      <video:live>{}</video:live>",
        if rng.one_in(20) { "yes" } else { "no" }
    )
    .unwrap();
    out.push_str("    </video:video>\n");
}
