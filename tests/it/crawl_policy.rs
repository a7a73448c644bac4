//! `RobotsCache::crawl_policy` and `page_directives` against real servers on 127.0.0.1: each
//! part with its source, the edge refusals, TDMRep's page fields over the well-known file, and
//! the classic trap (a URL robots.txt disallows whose page says `noindex`).

use crate::support::{Reply, TestServer};
use crawlgate::engine::{
    CacheOptions, CrawlPolicy, Edge, PagePart, PolicyWarning, RobotsCache, TdmReservation,
    TdmSource,
};
use crawlgate::http::Fetcher;
use crawlgate::ProductToken;

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// The page fetched as the CLI's `policy` does, and the policy with it.
async fn policy(cache: &RobotsCache, url: &str) -> CrawlPolicy {
    let fetcher = Fetcher::new(cache.options().fetch.clone()).expect("fetcher");
    let page = match fetcher
        .fetch_page(url, cache.options().page.html_budget)
        .await
    {
        Ok(r) => {
            let directives = cache.page_directives(
                &bot(),
                r.status,
                r.headers
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_slice()))
                    .chain(
                        r.content_type
                            .as_deref()
                            .map(|t| ("content-type", t.as_bytes())),
                    ),
                Some(&r.body),
            );
            Some(PagePart::new(r.status, Some(r.final_url), directives))
        }
        Err(_) => None,
    };
    cache.crawl_policy(&bot(), url, page).await.expect("policy")
}

fn html(body: &str) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("content-type".into(), "text/html".into())],
        body: body.as_bytes().to_vec(),
    }
}

#[tokio::test]
async fn disallowed_noindex_page_is_the_trap() {
    let server = TestServer::start(|r| match r.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisallow: /private\n"),
        "/private" | "/open" => html(r#"<head><meta name="robots" content="noindex"></head>"#),
        "/.well-known/tdmrep.json" => Reply::text(
            200,
            r#"[{"location": "/private", "tdm-reservation": 1, "tdm-policy": "https://example.com/p.json"}]"#,
        ),
        _ => Reply::status(404),
    })
    .await;
    let cache = RobotsCache::new(CacheOptions::default()).expect("engine");
    let p = policy(&cache, &server.url("/private")).await;
    assert!(!p.allowed());
    assert_eq!(p.robots.rule.as_ref().map(|r| r.line), Some(2));
    assert_eq!(p.warnings, [PolicyWarning::NoindexUnseen]);
    assert!(p.edge.is_none());
    assert_eq!(p.tdm.source, TdmSource::File);
    assert_eq!(p.tdm.reservation, TdmReservation::Reserved);
    assert_eq!(p.tdm.policy.as_deref(), Some("https://example.com/p.json"));
    // Allowed and noindex: the noindex is seen, no warning; without the page, none either.
    let open = policy(&cache, &server.url("/open")).await;
    assert!(open.allowed() && open.warnings.is_empty());
    assert_eq!(open.tdm.reservation, TdmReservation::Unset);
    let unfetched = cache
        .crawl_policy(&bot(), &server.url("/private"), None)
        .await
        .expect("policy");
    assert!(unfetched.warnings.is_empty() && unfetched.page.is_none());
    assert_eq!(server.hits_on("/robots.txt"), 1);
    assert_eq!(server.hits_on("/.well-known/tdmrep.json"), 1);
}

#[tokio::test]
async fn a_page_header_supersedes_the_file() {
    let server = TestServer::start(|r| match r.path.as_str() {
        "/robots.txt" => Reply::status(404),
        "/page" => html("<p>x").with_header("tdm-reservation", "0"),
        "/.well-known/tdmrep.json" => {
            Reply::text(200, r#"[{"location": "/", "tdm-reservation": 1}]"#)
        }
        _ => Reply::status(404),
    })
    .await;
    let cache = RobotsCache::new(CacheOptions::default()).expect("engine");
    let p = policy(&cache, &server.url("/page")).await;
    assert_eq!(p.tdm.reservation, TdmReservation::NotReserved);
    assert_eq!(p.tdm.source, TdmSource::Header);
    let file = p.tdm.file.as_ref().expect("the file's answer kept");
    assert_eq!(file.reservation, TdmReservation::Reserved);
}

#[tokio::test]
async fn edge_refusals_are_their_own_part() {
    let server = TestServer::start(|r| match r.path.as_str() {
        "/robots.txt" => Reply::Full {
            status: 402,
            headers: vec![("crawler-price".into(), "USD 0.01".into())],
            body: Vec::new(),
        },
        _ => Reply::status(404),
    })
    .await;
    let challenged = TestServer::start(|r| match r.path.as_str() {
        "/robots.txt" => Reply::Full {
            status: 403,
            headers: vec![
                ("cf-mitigated".into(), "challenge".into()),
                ("content-type".into(), "text/html".into()),
            ],
            body: b"<html>Just a moment...</html>".to_vec(),
        },
        _ => Reply::status(404),
    })
    .await;
    let cache = RobotsCache::new(CacheOptions::default()).expect("engine");
    let paid = cache
        .crawl_policy(&bot(), &server.url("/a"), None)
        .await
        .expect("policy");
    assert!(!paid.allowed());
    match &paid.edge {
        Some(Edge::PaymentRequired(p)) => assert_eq!(
            p.headers,
            [("crawler-price".to_owned(), "USD 0.01".to_owned())]
        ),
        other => panic!("{other:?}"),
    }
    let wall = cache
        .crawl_policy(&bot(), &challenged.url("/a"), None)
        .await
        .expect("policy");
    assert!(!wall.allowed());
    assert!(
        matches!(&wall.edge, Some(Edge::Challenge { status: 403, .. })),
        "{:?}",
        wall.edge
    );
}

/// The engine's page options bound the scan; headers count whatever the status, `<meta>` only
/// in a 2xx HTML body.
#[test]
fn page_directives_use_the_engine_options() {
    let rt = crate::support::runtime(1);
    rt.block_on(async {
        let mut options = CacheOptions::default();
        options.page.html_budget = 64;
        let cache = RobotsCache::new(options).expect("engine");
        let late = format!(
            "<head>{}<meta name=robots content=noindex>",
            " ".repeat(100)
        );
        let d = cache.page_directives(
            &bot(),
            200,
            [("content-type", "text/html")],
            Some(late.as_bytes()),
        );
        assert!(d.rules.index && d.html_scanned == 64);
        let meta = b"<head><meta name=robots content=noindex>";
        let d = cache.page_directives(&bot(), 404, [("x-robots-tag", "nofollow")], Some(meta));
        assert!(d.rules.index && !d.rules.follow);
        let d = cache.page_directives(
            &bot(),
            200,
            [("content-type", "application/json")],
            Some(meta),
        );
        assert!(d.rules.index);
        let d = cache.page_directives(&bot(), 200, std::iter::empty::<(&str, &str)>(), Some(meta));
        assert!(!d.rules.index, "no content type: sniffed");
    });
}

/// TDMRep's file is kept in the store as a record of its own: an embedded store reopened
/// answers without fetching it again (the server counts the requests), robots.txt's state is
/// untouched by it.
#[cfg(feature = "redb")]
#[tokio::test]
async fn tdmrep_survives_a_reopened_store() {
    let server = TestServer::start(|r| match r.path.as_str() {
        "/.well-known/tdmrep.json" => Reply::text(
            200,
            r#"[{"location": "/books/", "tdm-reservation": 1, "tdm-policy": "https://example.com/p.json"}]"#,
        ),
        _ => Reply::status(404),
    })
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("state.redb");
    let url = server.url("/books/a");
    {
        let cache = RobotsCache::durable(&path, CacheOptions::default()).expect("durable");
        let answer = cache.tdm(&url).await.expect("tdm");
        assert_eq!(answer.reservation, TdmReservation::Reserved);
        cache.flush().await.expect("flush");
    }
    assert_eq!(server.hits_on("/.well-known/tdmrep.json"), 1);
    let cache = RobotsCache::durable(&path, CacheOptions::default()).expect("reopen");
    let answer = cache.tdm(&url).await.expect("tdm");
    assert_eq!(answer.reservation, TdmReservation::Reserved);
    assert_eq!(answer.policy.as_deref(), Some("https://example.com/p.json"));
    assert_eq!(answer.rule.map(|r| r.number), Some(1));
    assert_eq!(
        server.hits_on("/.well-known/tdmrep.json"),
        1,
        "answered from the store"
    );
    let open = cache.tdm(&server.url("/films/a")).await.expect("tdm");
    assert_eq!(open.reservation, TdmReservation::Unset);
    assert_eq!(server.hits_on("/.well-known/tdmrep.json"), 1);
}

/// The memory store keeps the record too: a second engine on the same store does not fetch.
#[tokio::test]
async fn tdmrep_record_is_shared_through_the_store() {
    use crawlgate::engine::SystemClock;
    use crawlgate::store::MemoryStore;
    use std::sync::Arc;

    let server = TestServer::start(|r| match r.path.as_str() {
        "/.well-known/tdmrep.json" => {
            Reply::text(200, r#"[{"location": "/", "tdm-reservation": 0}]"#)
        }
        _ => Reply::status(404),
    })
    .await;
    let store = Arc::new(MemoryStore::new());
    let engine = |store: Arc<MemoryStore>| {
        RobotsCache::with_store(CacheOptions::default(), store, Arc::new(SystemClock))
            .expect("engine")
    };
    let first = engine(store.clone())
        .tdm(&server.url("/a"))
        .await
        .expect("tdm");
    let second = engine(store).tdm(&server.url("/a")).await.expect("tdm");
    assert_eq!(first.reservation, TdmReservation::NotReserved);
    assert_eq!(second.reservation, TdmReservation::NotReserved);
    assert_eq!(server.hits_on("/.well-known/tdmrep.json"), 1);
}
