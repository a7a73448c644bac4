//! Pages fetched to see what they say (`policy`, and `explain --pages` / `report --pages`):
//! one GET each, the directives read for an agent by the engine, and the classic trap of a URL
//! that robots.txt disallows while its page says `noindex` (the library's
//! [`PolicyWarning::NoindexUnseen`](crawlgate::engine::PolicyWarning), from
//! [`CrawlPolicy::new`]).

use crawlgate::engine::{Answer, CrawlPolicy, PagePart, RobotsCache};
use crawlgate::http::{Fetcher, PageResponse};
use crawlgate::policy::Verdict;
use crawlgate::ProductToken;
use futures_util::stream::{self, StreamExt};

pub use crate::schema::UrlWarning;

/// Pages fetched at once by `--pages`.
pub const CONCURRENCY: usize = 4;

/// The page at `url` fetched once (even when robots.txt disallows it: the point is to see
/// what it says), or why it could not be.
pub async fn fetch(
    cache: &RobotsCache,
    fetcher: &Fetcher,
    url: &str,
) -> Result<PageResponse, String> {
    fetcher
        .fetch_page(url, cache.options().page.html_budget)
        .await
        .map_err(|e| e.to_string())
}

/// What `r` says to `agent`: its directives, read by the engine.
pub fn part(cache: &RobotsCache, agent: &ProductToken, url: &str, r: &PageResponse) -> PagePart {
    let html = r.is_html();
    let directives = cache.page_directives(
        agent,
        r.status,
        r.headers.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        html.then_some(r.body.as_slice()),
    );
    let final_url = (r.final_url != url).then(|| r.final_url.clone());
    PagePart::new(r.status, final_url, directives)
}

/// A URL whose page to read, and the agents robots.txt disallows it for (their name as given,
/// their token, the engine's answer and the origin's verdict).
pub struct Disallowed {
    pub url: String,
    pub agents: Vec<(String, ProductToken, Answer, Verdict)>,
}

/// Each URL's page fetched once, [`CONCURRENCY`] at a time, results in order: per URL, the
/// warnings of its agents (the library's, with the directives that set `noindex`), or why the
/// page could not be read.
pub async fn trap_warnings(
    cache: &RobotsCache,
    fetcher: &Fetcher,
    urls: Vec<Disallowed>,
) -> Vec<(String, Result<Vec<UrlWarning>, String>)> {
    stream::iter(urls)
        .map(|d| async move {
            let warnings = match fetch(cache, fetcher, &d.url).await {
                Ok(r) => Ok(d
                    .agents
                    .into_iter()
                    .flat_map(|(name, token, answer, verdict)| {
                        let page = part(cache, &token, &d.url, &r);
                        let policy = CrawlPolicy::new(
                            &token,
                            &d.url,
                            answer,
                            verdict,
                            // TDMRep's file is not asked for here.
                            Err("not read".to_owned()),
                            Some(page),
                        );
                        warnings(&name, &policy)
                    })
                    .collect()),
                Err(e) => Err(e),
            };
            (d.url, warnings)
        })
        .buffered(CONCURRENCY)
        .collect()
        .await
}

/// `policy`'s warnings as URL warnings of `agent`, each with the page's directives behind it.
fn warnings(agent: &str, policy: &CrawlPolicy) -> Vec<UrlWarning> {
    let sources: Vec<String> = policy.page.as_ref().map_or_else(Vec::new, |p| {
        p.directives
            .sources("noindex")
            .map(|f| format!("{} ({})", f.source.raw, f.source.place()))
            .collect()
    });
    policy
        .warnings
        .iter()
        .map(|w| UrlWarning {
            agent: agent.to_owned(),
            code: w.code(),
            message: w.message(),
            sources: sources.clone(),
        })
        .collect()
}
