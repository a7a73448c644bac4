//! Page directives (`crawlgate::page::evaluate`): how fast a real-world-like page is read, and
//! that a hostile one costs the HTML byte budget and no more.
//!
//! - `page/realistic`: the headers of a news article (`X-Robots-Tag` with an agent prefix and
//!   `unavailable_after`, `Robots-Tag`, `Content-Usage`, TDMRep) and a ~100 KB head built like
//!   a big publisher's: preload links, JSON-LD and analytics scripts, inline CSS, Open Graph
//!   and Twitter `<meta>`, comments, character references, then the robots `<meta>` last.
//!   Throughput in bytes of head per second.
//! - `page/hostile-10MB`: 10 MiB that never ends the head (`<head><style>` then text, the
//!   worst case: all of it would be one text token) against `page/budget-sized`, a page of
//!   exactly the budget's size (512 KiB): the two cost the same, since the scan stops at the
//!   budget. A second hostile page, 10 MiB of `<meta name=x content=y>` (a token every 25
//!   bytes), shows the same bound with many small tokens.
//!
//! Run: `cargo bench --bench page -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use crawlgate::page::{evaluate, Options, DEFAULT_HTML_BUDGET};
use crawlgate::ProductToken;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const HEADERS: [(&str, &str); 6] = [
    ("content-type", "text/html; charset=utf-8"),
    (
        "x-robots-tag",
        "googlebot: unavailable_after: Wed, 25 Jun 2031 15:00:00 GMT, max-image-preview:large",
    ),
    ("x-robots-tag", "noarchive"),
    ("robots-tag", "*;max-snippet=160, examplebot;nosnippet"),
    ("content-usage", "train-ai=n, search=y"),
    ("tdm-reservation", "1"),
];

/// A ~100 KB head in the shape of a big publisher's article page.
fn realistic_head() -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\" class=\"no-js\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Markets rally as central bank holds rates &mdash; Example News</title>\n",
    );
    let mut i = 0;
    while h.len() < 100_000 {
        i += 1;
        h.push_str(&format!(
            "<link rel=\"preload\" href=\"/static/fonts/font-{i}.woff2\" as=\"font\" crossorigin>\n\
             <meta property=\"og:image:{i}\" content=\"https://cdn.example.com/img/{i}.jpg?w=1200&amp;h=630\">\n\
             <meta name=\"twitter:data{i}\" CONTENT=\"Reporter &#8212; {i} min read\">\n\
             <!-- block {i}: ad slot <meta name=\"robots\" content=\"noindex\"> -->\n\
             <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"Story {i} </div> <meta name=robots content=noindex>\",\"datePublished\":\"2026-11-2{}T10:00:00Z\"}}</script>\n\
             <style>.c{i}{{margin:0 auto;max-width:{}px}} .c{i}::after{{content:\"</head>\"}}</style>\n\
             <script>window.dataLayer=window.dataLayer||[];dataLayer.push({{'event':'view','slot':{i}}});if(a<b&&c>d){{}}</script>\n",
            i % 10,
            600 + i
        ));
    }
    h.push_str(
        "<meta name=\"robots\" content=\"max-snippet:-1, max-image-preview:large, max-video-preview:-1\">\n\
         <meta name=\"examplebot\" content=\"noai, noimageai\">\n</head>\n<body>\n<p>Story</p>\n",
    );
    h
}

fn bench(c: &mut Criterion) {
    let bot = ProductToken::new("examplebot").expect("token");
    let options = Options::default();
    let head = realistic_head();
    let page = evaluate(HEADERS, Some(head.as_bytes()), &bot, &options);
    assert!(!page.rules.snippet && page.rules.noai && page.rules.tdm_reservation == Some(true));
    let mut group = c.benchmark_group("page");
    group.throughput(Throughput::Bytes(head.len() as u64));
    group.bench_function("realistic", |b| {
        b.iter(|| evaluate(HEADERS, Some(black_box(head.as_bytes())), &bot, &options))
    });

    let mut hostile = String::from("<html><head><style>");
    hostile.push_str(&"x".repeat(10 * 1024 * 1024));
    let budget_sized = &hostile.as_bytes()[..DEFAULT_HTML_BUDGET];
    let mut metas = String::from("<html><head>");
    while metas.len() < 10 * 1024 * 1024 {
        metas.push_str("<meta name=x content=y>");
    }
    let none: [(&str, &str); 0] = [];
    let p = evaluate(none, Some(hostile.as_bytes()), &bot, &options);
    assert!(p.html_scanned <= DEFAULT_HTML_BUDGET);
    group.throughput(Throughput::Bytes(DEFAULT_HTML_BUDGET as u64));
    group.bench_function("hostile-10MB", |b| {
        b.iter(|| evaluate(none, Some(black_box(hostile.as_bytes())), &bot, &options))
    });
    group.bench_function("budget-sized", |b| {
        b.iter(|| evaluate(none, Some(black_box(budget_sized)), &bot, &options))
    });
    group.bench_function("hostile-10MB-metas", |b| {
        b.iter(|| evaluate(none, Some(black_box(metas.as_bytes())), &bot, &options))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
