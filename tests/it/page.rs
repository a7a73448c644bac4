//! Page-level directives (`crawlgate::page`): the drafts' and Google's documented examples,
//! both header syntaxes, agent scoping, merges, every limit, and the HTML scan.
//!
//! Sources cited: draft-illyes-repext (working copy of 2026-04-18, in the project's reference
//! specs) §3.1.1 "HTTP Response Header" and §3.1.2 "HTML Meta Element"; Google Search Central,
//! "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications" (the page's examples);
//! W3C TDM Reservation Protocol (community group report, commit 1a547b5) "TDM Header Field in
//! HTTP Responses" and "TDM Metadata in HTML Content"; draft-ietf-aipref-attach §2.

use crawlgate::page::{
    evaluate, Code, Directive, ImagePreview, Options, PageDirectives, SourceKind,
};
use crawlgate::{Preference, ProductToken, UsagePreferences};
use proptest::prelude::*;

fn bot(name: &str) -> ProductToken {
    ProductToken::new(name).expect("token")
}

fn headers(agent: &str, fields: &[(&str, &str)]) -> PageDirectives {
    evaluate(
        fields.iter().copied(),
        None,
        &bot(agent),
        &Options::default(),
    )
}

fn html(agent: &str, body: &str) -> PageDirectives {
    evaluate(
        std::iter::empty::<(&str, &str)>(),
        Some(body.as_bytes()),
        &bot(agent),
        &Options::default(),
    )
}

fn codes(p: &PageDirectives) -> Vec<&'static str> {
    p.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

// draft-illyes-repext §3.1.1: `Robots-Tag: *;nosnippet, ExampleBot;noindex` gives `*`
// nosnippet, and ExampleBot noindex and nosnippet.
#[test]
fn repext_header_example() {
    let field = [("Robots-Tag", "*;nosnippet, ExampleBot;noindex")];
    let example = headers("ExampleBot", &field);
    assert!(
        !example.rules.index && !example.rules.snippet,
        "{example:?}"
    );
    let other = headers("OtherBot", &field);
    assert!(other.rules.index && !other.rules.snippet, "{other:?}");
    assert!(codes(&example).is_empty(), "{:?}", example.diagnostics);
    // Sources: the parameter as written, where it is in the field.
    let noindex: Vec<_> = example.sources("noindex").collect();
    assert_eq!(noindex.len(), 1);
    assert_eq!(noindex[0].source.kind, SourceKind::Header);
    assert_eq!(noindex[0].source.agent.as_deref(), Some("examplebot"));
    assert_eq!(noindex[0].source.raw, "noindex");
    assert_eq!(noindex[0].source.offset, "*;nosnippet, ExampleBot;".len());
}

// The brief's form and a repeated token: `*;noindex, ExampleBot;nosnippet, ExampleBot;noarchive`
// (§3.1.1: a token appearing multiple times: the union).
#[test]
fn repext_repeated_token_and_the_legacy_name() {
    let field = [(
        "X-Robots-Tag",
        "*;noindex, ExampleBot;nosnippet, ExampleBot;noarchive",
    )];
    let p = headers("examplebot", &field);
    assert!(!p.rules.index && !p.rules.snippet && !p.rules.archive);
    let other = headers("otherbot", &field);
    assert!(!other.rules.index && other.rules.snippet && other.rules.archive);
}

// draft-illyes-repext §3.1.2: `<meta name="robots" content="noindex">` and
// `<meta name="examplebot" content="nosnippet">`: the union for examplebot.
#[test]
fn repext_meta_example() {
    let doc = r#"<html><head>
<meta name="robots" content="noindex">
<meta name="examplebot" content="nosnippet">
</head><body></body></html>"#;
    let p = html("ExampleBot", doc);
    assert!(!p.rules.index && !p.rules.snippet);
    let other = html("OtherBot", doc);
    assert!(!other.rules.index && other.rules.snippet);
    let lines: Vec<_> = p
        .found
        .iter()
        .map(|f| (f.source.name.as_str(), f.source.line))
        .collect();
    assert_eq!(lines, [("robots", 2), ("examplebot", 3)]);
}

// Google: `X-Robots-Tag: googlebot: nofollow` and `X-Robots-Tag: otherbot: noindex, nofollow`.
#[test]
fn google_agent_prefixes() {
    let fields = [
        ("X-Robots-Tag", "googlebot: nofollow"),
        ("X-Robots-Tag", "otherbot: noindex, nofollow"),
    ];
    let g = headers("googlebot", &fields);
    assert!(g.rules.index && !g.rules.follow);
    let o = headers("otherbot", &fields);
    assert!(!o.rules.index && !o.rules.follow);
    let third = headers("thirdbot", &fields);
    assert_eq!(third.rules, crawlgate::page::Rules::default());
}

// Google: `X-Robots-Tag: noimageindex` and `X-Robots-Tag: unavailable_after: 25 Jun 2010
// 15:00:00 PST` — the colon of `unavailable_after:` is no agent prefix.
#[test]
fn google_unavailable_after_is_no_agent() {
    let fields = [
        ("X-Robots-Tag", "noimageindex"),
        (
            "X-Robots-Tag",
            "unavailable_after: 25 Jun 2010 15:00:00 PST",
        ),
    ];
    let p = headers("anybot", &fields);
    assert!(!p.rules.image_index);
    assert_eq!(p.rules.unavailable_after, Some(1_277_506_800));
    // Agent-scoped, and an RFC 822 date whose comma is not a list separator.
    let p = headers(
        "googlebot",
        &[(
            "X-Robots-Tag",
            "googlebot: unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT, noarchive",
        )],
    );
    assert_eq!(p.rules.unavailable_after, Some(1_277_478_000));
    assert!(!p.rules.archive, "{p:?}");
    assert!(codes(&p).is_empty(), "{:?}", p.diagnostics);
    // RFC 850 and ISO 8601 (Google's other documented formats); the earliest wins.
    let p = headers(
        "x",
        &[
            (
                "X-Robots-Tag",
                "unavailable_after: Friday, 25-Jun-10 15:00:00 GMT",
            ),
            (
                "X-Robots-Tag",
                "unavailable_after: 2025-07-01T15:00:00+02:00",
            ),
        ],
    );
    assert_eq!(p.rules.unavailable_after, Some(1_277_478_000));
    let p = headers(
        "x",
        &[(
            "X-Robots-Tag",
            "unavailable_after: 2025-07-01T15:00:00+02:00",
        )],
    );
    assert_eq!(p.rules.unavailable_after, Some(1_751_374_800));
    let p = headers("x", &[("X-Robots-Tag", "unavailable_after: someday")]);
    assert_eq!(p.rules.unavailable_after, None);
    assert_eq!(codes(&p), ["invalid-value"]);
}

// Google's meta examples: `max-snippet:20, max-image-preview:large`; `<meta name="googlebot"
// content="notranslate">`; `<meta name="googlebot-news" content="nosnippet">`.
#[test]
fn google_meta_examples() {
    let doc = r#"<!doctype html><head>
<meta name="robots" content="max-snippet:20, max-image-preview:large">
<meta name="googlebot" content="notranslate">
<meta name="googlebot-news" content="nosnippet">
"#;
    let g = html("googlebot", doc);
    assert_eq!(g.rules.max_snippet, Some(20));
    assert_eq!(g.rules.max_image_preview, Some(ImagePreview::Large));
    assert!(!g.rules.translate && g.rules.snippet);
    let news = html("googlebot-news", doc);
    assert!(news.rules.translate && !news.rules.snippet);
}

// Most restrictive wins (Google: "the more restrictive rule applies"; the draft: the union).
#[test]
fn merges_most_restrictive() {
    let p = headers(
        "bot",
        &[
            (
                "X-Robots-Tag",
                "max-snippet:-1, max-image-preview:large, max-video-preview:-1",
            ),
            (
                "X-Robots-Tag",
                "bot: max-snippet:50, max-image-preview:standard",
            ),
            ("Robots-Tag", "*;max-snippet=20;max-video-preview=0"),
        ],
    );
    assert_eq!(p.rules.max_snippet, Some(20));
    assert_eq!(p.rules.max_image_preview, Some(ImagePreview::Standard));
    assert_eq!(p.rules.max_video_preview, Some(0));
    assert!(p.rules.snippet);
    assert!(
        codes(&p).iter().all(|c| *c == "conflicting-values"),
        "{:?}",
        p.diagnostics
    );
    // `none` is noindex + nofollow; `max-snippet:0` is no snippet; `all` changes nothing;
    // `nocache` is `noarchive`.
    let p = headers(
        "bot",
        &[("X-Robots-Tag", "all, none, max-snippet:0, nocache")],
    );
    assert!(!p.rules.index && !p.rules.follow && !p.rules.snippet && !p.rules.archive);
    assert_eq!(p.sources("noindex").count(), 1);
    assert_eq!(p.sources("snippet").count(), 1);
    // A generic rule cannot be undone by the agent's own tag (§3.1.2).
    let p = html(
        "bot",
        r#"<meta name="robots" content="noindex"><meta name="bot" content="index, follow">"#,
    );
    assert!(!p.rules.index);
}

#[test]
fn ai_reservations() {
    let p = html(
        "bot",
        r#"<head><meta name="robots" content="noai, noimageai"><meta name="bot" content="noml">
<meta name="tdm-reservation" content="1">
<meta name="tdm-policy" content="https://provider.com/policies/policy.json">"#,
    );
    assert!(p.rules.noai && p.rules.noimageai && p.rules.noml);
    assert_eq!(p.rules.tdm_reservation, Some(true));
    assert_eq!(
        p.rules.tdm_policy.as_deref(),
        Some("https://provider.com/policies/policy.json")
    );
}

// TDMRep's header examples (`tdm-reservation: 1`, `tdm-policy: …`); HTML metadata supersedes
// the header; a value other than 0 or 1 is an error that leaves it unset.
#[test]
fn tdmrep_headers_and_meta() {
    let fields = [
        ("tdm-reservation", "1"),
        ("TDM-Policy", "https://provider.com/policies/policy.json"),
    ];
    let p = headers("bot", &fields);
    assert_eq!(p.rules.tdm_reservation, Some(true));
    assert!(p.rules.tdm_policy.is_some());
    let p = evaluate(
        fields,
        Some(br#"<meta name="tdm-reservation" content="0">"#),
        &bot("bot"),
        &Options::default(),
    );
    assert_eq!(p.rules.tdm_reservation, Some(false));
    assert_eq!(codes(&p), ["conflicting-values"]);
    let p = headers("bot", &[("tdm-reservation", "yes")]);
    assert_eq!(p.rules.tdm_reservation, None);
    assert_eq!(codes(&p), ["invalid-value"]);
}

// draft-ietf-aipref-attach §2: `Content-Usage: train-ai=n` on a response.
#[test]
fn content_usage_header() {
    let p = headers(
        "bot",
        &[
            ("Content-Usage", "train-ai=n"),
            ("content-usage", "search=y"),
        ],
    );
    assert_eq!(
        p.rules.content_usage,
        UsagePreferences {
            train_ai: Preference::Disallowed,
            search: Preference::Allowed
        }
    );
    let p = headers("bot", &[("Content-Usage", "train-ai=n, bots=n")]);
    assert_eq!(p.rules.content_usage.train_ai, Preference::Disallowed);
    assert_eq!(codes(&p), ["unknown-directive"]);
    let p = headers("bot", &[("Content-Usage", "train-ai=(n")]);
    assert!(p.rules.content_usage.is_unknown());
    assert!(
        codes(&p).contains(&"malformed-field"),
        "{:?}",
        p.diagnostics
    );
}

#[test]
fn unknown_tokens_are_kept_and_reported() {
    let p = headers("bot", &[("X-Robots-Tag", "noindex, noodp, nofolow")]);
    assert!(!p.rules.index && p.rules.follow);
    let unknown: Vec<_> = p.unknown.iter().map(|s| s.raw.as_str()).collect();
    assert_eq!(unknown, ["noodp", "nofolow"]);
    assert_eq!(codes(&p), ["unknown-directive", "unknown-directive"]);
    // Another agent's unknown token is reported, not kept for this one.
    let p = headers("bot", &[("X-Robots-Tag", "otherbot: noodp")]);
    assert!(p.unknown.is_empty());
    assert_eq!(codes(&p), ["unknown-directive"]);
}

#[test]
fn robots_tag_in_the_legacy_syntax_and_malformed_lists() {
    let p = headers("googlebot", &[("Robots-Tag", "googlebot: noindex")]);
    assert!(!p.rules.index);
    assert_eq!(codes(&p), ["legacy-syntax"]);
    let p = headers("bot", &[("Robots-Tag", "*;noindex, bot;\"x")]);
    assert!(p.rules.index, "a List that does not parse is not used");
    assert_eq!(codes(&p), ["malformed-field"]);
    // Boolean false parameters set nothing; values are read.
    let p = headers(
        "bot",
        &[(
            "Robots-Tag",
            "*;noindex=?0;max-snippet=5;unavailable_after=\"2025-07-01\"",
        )],
    );
    assert!(p.rules.index);
    assert_eq!(p.rules.max_snippet, Some(5));
    assert_eq!(p.rules.unavailable_after, Some(1_751_328_000));
}

// §3.1.1: at least 8 KiB parsed; a member cut by the limit and everything after it ignored.
#[test]
fn field_limit() {
    let pad = "x".repeat(8 * 1024 - "noindex, ".len() - 3);
    let value = format!("noindex, {pad}, nofollow");
    let p = headers("bot", &[("X-Robots-Tag", &value)]);
    assert!(!p.rules.index && p.rules.follow);
    assert!(codes(&p).contains(&"field-too-long"));
    // Structured: the complete members before the limit are honoured.
    let filler = format!("a;{}", "b".repeat(8 * 1024 - 16));
    let value = format!("*;noindex, {filler}, *;nofollow");
    let p = headers("bot", &[("Robots-Tag", &value)]);
    assert!(!p.rules.index && p.rules.follow, "{:?}", p.rules);
    // At the limit exactly: read whole.
    let value = format!("nofollow,{}", " ".repeat(8 * 1024 - 9));
    assert_eq!(value.len(), 8 * 1024);
    let p = headers("bot", &[("X-Robots-Tag", &value)]);
    assert!(!p.rules.follow && codes(&p).is_empty());
    // A `<meta content>` longer than the limit is cut too.
    let doc = format!(r#"<meta name="robots" content="noarchive, {pad}, noindex">"#);
    let p = html("bot", &doc);
    assert!(!p.rules.archive && p.rules.index);
    assert_eq!(codes(&p), ["field-too-long", "unknown-directive"]);
}

#[test]
fn html_markup_that_is_not_a_meta() {
    let doc = r#"<!DOCTYPE html><html><head>
<!-- <meta name="robots" content="noindex"> -->
<script>document.write('<meta name="robots" content="nofollow">')</script>
<style>/* <meta name="robots" content="noarchive"> */</style>
<title><meta name="robots" content="nosnippet"></title>
<noscript><meta name="robots" content="notranslate"></noscript>
<template><meta name="robots" content="noimageindex"></template>
<META CONTENT="no&#105;ndex, max-image-preview&colon;none" Name=" ROBOTS ">
</head><body><meta name="robots" content="nofollow"></body></html>"#;
    let p = html("bot", doc);
    let r = &p.rules;
    assert!(
        !r.index,
        "attributes in any order and case, references decoded"
    );
    assert_eq!(r.max_image_preview, Some(ImagePreview::None));
    assert!(
        r.follow && r.archive && r.snippet && r.translate && r.image_index,
        "{r:?}"
    );
    assert_eq!(p.found[0].source.line, 8);
}

#[test]
fn the_head_ends_where_a_browser_ends_it() {
    // An element that cannot be in a head ends it (Google reads what follows as the body).
    let p = html(
        "bot",
        r#"<head><div></div><meta name="robots" content="noindex"></head>"#,
    );
    assert!(p.rules.index);
    // Text ends it too; whitespace does not.
    let p = html(
        "bot",
        "<head>\n  oops<meta name=\"robots\" content=\"noindex\">",
    );
    assert!(p.rules.index);
    let p = html(
        "bot",
        "<html>\n <head>\n  <link rel=x>\n  <meta name=robots content=noindex>",
    );
    assert!(!p.rules.index);
    // Between `</head>` and `<body>` a browser puts a `<meta>` back into the head.
    let p = html(
        "bot",
        "<head></head>\n<meta name=robots content=noindex>\n<body>",
    );
    assert!(!p.rules.index);
    // No head at all: a meta before any body content is in the head a browser makes.
    let p = html("bot", r#"<meta name="robots" content="noindex"><p>hi"#);
    assert!(!p.rules.index);
    assert!(p.html_scanned < 50);
}

// A hostile page without `</head>`: the scan reads the budget and no more.
#[test]
fn html_budget() {
    let mut doc = String::from("<html><head><script>");
    doc.push_str(&"x".repeat(10 * 1024 * 1024));
    doc.push_str(r#"</script><meta name="robots" content="noindex">"#);
    let options = Options {
        html_budget: 64 * 1024,
        ..Options::default()
    };
    let p = evaluate(
        std::iter::empty::<(&str, &str)>(),
        Some(doc.as_bytes()),
        &bot("bot"),
        &options,
    );
    assert!(p.rules.index);
    assert!(p.html_scanned <= 64 * 1024);
    assert_eq!(codes(&p), ["html-budget"]);
    // The same page within a larger budget is read to its meta.
    let small = doc.replace(&"x".repeat(10 * 1024 * 1024), "x");
    let p = evaluate(
        std::iter::empty::<(&str, &str)>(),
        Some(small.as_bytes()),
        &bot("bot"),
        &options,
    );
    assert!(!p.rules.index && codes(&p).is_empty());
}

/// Header fields, an HTML stand-in, the code it must raise.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, Code);

/// Every page code fires from some input: the catalogue has no dead entry.
#[test]
fn every_code_fires() {
    let cases: &[Case] = &[
        (
            &[("X-Robots-Tag", "max-snippet:many")],
            "",
            Code::InvalidValue,
        ),
        (
            &[("Robots-Tag", "*;noindex, (a)")],
            "",
            Code::MalformedField,
        ),
        (&[("X-Robots-Tag", "noodp")], "", Code::UnknownDirective),
        (&[("Robots-Tag", "noindex")], "", Code::LegacySyntax),
        (&[("X-Robots-Tag", "x")], "LONG", Code::FieldTooLong),
        (&[], "BUDGET", Code::HtmlBudget),
        (
            &[("X-Robots-Tag", "max-snippet:1, max-snippet:2")],
            "",
            Code::ConflictingValues,
        ),
    ];
    let long = format!(r#"<meta name="robots" content="{}">"#, "n".repeat(9000));
    let budget = format!("<head><style>{}", " ".repeat(DEFAULT_BUDGET + 1));
    for code in Code::ALL {
        let (fields, doc, _) = cases
            .iter()
            .find(|(_, _, c)| c == code)
            .unwrap_or_else(|| panic!("no case for {code}"));
        let body = match *doc {
            "LONG" => long.as_str(),
            "BUDGET" => budget.as_str(),
            other => other,
        };
        let p = evaluate(
            fields.iter().copied(),
            Some(body.as_bytes()),
            &bot("bot"),
            &Options::default(),
        );
        assert!(
            p.diagnostics.iter().any(|d| d.code == *code),
            "{code}: {:?}",
            p.diagnostics
        );
    }
}

const DEFAULT_BUDGET: usize = crawlgate::page::DEFAULT_HTML_BUDGET;

/// Found by the `page_headers` fuzzer: bytes that are not UTF-8 before a directive moved its
/// offset past the end of the field (read through `from_utf8_lossy`). Offsets are byte offsets
/// of the value as sent.
#[test]
fn offsets_are_bytes_of_the_value_even_when_not_utf8() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/fuzz/page-headers-lossy-offset"
    );
    let data = std::fs::read(path).expect("fixture");
    let fields: Vec<(String, Vec<u8>)> = data
        .split(|&b| b == b'\n')
        .map(|line| match line.iter().position(|&b| b == b':') {
            Some(i) => (
                String::from_utf8_lossy(&line[..i]).into_owned(),
                line[i + 1..].to_vec(),
            ),
            None => ("x-robots-tag".to_owned(), line.to_vec()),
        })
        .collect();
    let options = Options {
        field_limit: 256,
        ..Options::default()
    };
    let p = evaluate(
        fields.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        None,
        &bot("examplebot"),
        &options,
    );
    for f in &p.found {
        let (_, value) = &fields[f.source.index];
        assert!(f.source.offset <= value.len().min(256), "{f:?}");
    }
    let p = headers("x", &[("X-Robots-Tag", "\u{fffd}")]);
    assert!(p.rules.index);
    let raw = [(&b"x-robots-tag"[..], &b"\xff\xfe, noindex"[..])];
    let p = evaluate(
        raw.iter()
            .map(|(k, v)| (std::str::from_utf8(k).unwrap_or(""), *v)),
        None,
        &bot("x"),
        &Options::default(),
    );
    assert_eq!(p.found[0].source.offset, 4);
}

#[test]
fn directives_name_their_rules() {
    let p = headers("bot", &[("X-Robots-Tag", "none")]);
    assert_eq!(p.found[0].directive, Directive::None);
    assert_eq!(p.sources("nofollow").count(), 1);
}

fn directive_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("noindex".to_owned()),
        Just("nofollow".to_owned()),
        Just("none".to_owned()),
        Just("noarchive".to_owned()),
        Just("nosnippet".to_owned()),
        Just("noimageindex".to_owned()),
        Just("notranslate".to_owned()),
        Just("indexifembedded".to_owned()),
        Just("noai".to_owned()),
        Just("noimageai".to_owned()),
        Just("noml".to_owned()),
        Just("all".to_owned()),
        (-1i64..300).prop_map(|n| format!("max-snippet:{n}")),
        (-1i64..300).prop_map(|n| format!("max-video-preview:{n}")),
        prop_oneof![Just("none"), Just("standard"), Just("large")]
            .prop_map(|v| format!("max-image-preview:{v}")),
        (2000i64..2040, 1i64..13, 1i64..29)
            .prop_map(|(y, m, d)| format!("unavailable_after: {y:04}-{m:02}-{d:02}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The same directives as headers or as `<meta>` give the same answer, for the agent's own
    /// and the generic scope alike.
    #[test]
    fn headers_and_meta_agree(
        generic in prop::collection::vec(directive_strategy(), 0..5),
        own in prop::collection::vec(directive_strategy(), 0..5),
        other in prop::collection::vec(directive_strategy(), 0..3),
    ) {
        let mut fields = Vec::new();
        let mut doc = String::from("<html><head>\n");
        if !generic.is_empty() {
            fields.push(("X-Robots-Tag".to_owned(), generic.join(", ")));
            doc.push_str(&format!("<meta name=\"robots\" content=\"{}\">\n", generic.join(", ")));
        }
        for (token, list) in [("bot", &own), ("otherbot", &other)] {
            if !list.is_empty() {
                fields.push(("X-Robots-Tag".to_owned(), format!("{token}: {}", list.join(", "))));
                doc.push_str(&format!("<meta name=\"{token}\" content=\"{}\">\n", list.join(", ")));
            }
        }
        doc.push_str("</head>");
        let from_headers = evaluate(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())), None, &bot("bot"), &Options::default());
        let from_meta = html("bot", &doc);
        prop_assert_eq!(&from_headers.rules, &from_meta.rules);
        prop_assert_eq!(from_headers.found.len(), from_meta.found.len());
        prop_assert!(from_meta.found.iter().all(|f| f.source.kind == SourceKind::Meta));
    }
}

/// `<meta http-equiv="X-Robots-Tag">` is read as the header's legacy syntax (agent prefixes
/// included); Google documents the header and the robots `<meta>`, sites write this pragma
/// meaning the header.
#[test]
fn http_equiv_x_robots_tag() {
    let page = html(
        "examplebot",
        r#"<head><META HTTP-EQUIV="X-Robots-Tag" CONTENT="noarchive, otherbot: noindex"></head>"#,
    );
    assert!(!page.rules.archive);
    assert!(page.rules.index, "scoped to otherbot");
    let from: Vec<_> = page.sources("noarchive").map(|f| &f.source).collect();
    assert_eq!(from.len(), 1);
    assert_eq!(from[0].kind, SourceKind::Meta);
    assert_eq!(from[0].name, "x-robots-tag");
    let other = html(
        "otherbot",
        r#"<head><meta http-equiv="x-robots-tag" content="otherbot: noindex"></head>"#,
    );
    assert!(!other.rules.index);
    // Another pragma is not read, nor an element outside the head.
    let refresh = html(
        "examplebot",
        r#"<head><meta http-equiv="refresh" content="noindex"></head><body><meta http-equiv="X-Robots-Tag" content="noindex">"#,
    );
    assert!(refresh.rules.index && refresh.found.is_empty());
}

/// TDMRep's HTML technique puts `http-equiv` out of scope ("the http-equiv attribute is out of
/// scope in our case", technique-html-meta): only `name` counts.
#[test]
fn tdm_reservation_is_not_read_from_http_equiv() {
    let page = html(
        "examplebot",
        r#"<head><meta http-equiv="tdm-reservation" content="1"></head>"#,
    );
    assert_eq!(page.rules.tdm_reservation, None);
}

/// Space-separated directives are one unknown value, as Google reads them (Google Webmaster
/// Central blog, "Using the robots meta tag", 2007-03-05: "If you have multiple content
/// values, you must place a comma between them, but it doesn't matter if you also include
/// spaces"), with a message that says so.
#[test]
fn space_separated_directives_are_not_read() {
    let page = html(
        "examplebot",
        r#"<head><meta name="robots" content="noindex nofollow"></head>"#,
    );
    assert!(page.rules.index && page.rules.follow);
    assert_eq!(page.unknown.len(), 1);
    assert_eq!(page.unknown[0].raw, "noindex nofollow");
    assert_eq!(codes(&page), ["unknown-directive"]);
    assert!(
        page.diagnostics[0].message.contains("commas"),
        "{:?}",
        page.diagnostics
    );
    let comma = html(
        "examplebot",
        r#"<head><meta name="robots" content="noindex ,  nofollow"></head>"#,
    );
    assert!(!comma.rules.index && !comma.rules.follow);
    let header = headers("examplebot", &[("X-Robots-Tag", "noindex nofollow")]);
    assert!(header.rules.index && header.rules.follow);
    assert_eq!(codes(&header), ["unknown-directive"]);
}
