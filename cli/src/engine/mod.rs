//! The engine on the crawl state: its options, runtime and setup, the origins of URLs, the
//! answers for a crawler and which recorded version is in force; shared by every command that
//! goes to the network. Results are returned (or streamed) in order: printing is the commands'.

pub mod fetch_now;
pub mod pages;
pub mod politeness;
pub mod report;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use crawlgate::engine::{Answer, CacheOptions, CheckError, RobotsCache};

use crawlgate::http::FetchOptions;
use crawlgate::policy::{
    Content, GoodVersion, Judgement, OriginState, Verdict, VerdictReason, Version,
};
use crawlgate::{Origin, Parsed, ProductToken, Robots};
use futures_util::stream::{Stream, StreamExt};
use futures_util::FutureExt;

use crate::args::{AgentArgs, HttpArgs};
use crate::crawler::{chosen, Crawlers};
use crate::output::Out;
use crate::progress::Progress;
use crate::state::State;

/// The User-Agent header `check` and `explain` send: `--user-agent`, else the first `--agent`
/// (or `--agents` token) as given, else the library's default.
pub fn crawler_user_agent(http: &HttpArgs, crawlers: &AgentArgs) -> String {
    http.user_agent
        .clone()
        .or_else(|| Crawlers::user_agent(&crawlers.agent, &crawlers.agents))
        .unwrap_or_else(|| FetchOptions::default().user_agent)
}

/// The fetch options of `page` and `policy`, which read pages for one `--agent`: its token
/// (or `--user-agent`) as the User-Agent header, in RFC 9309 mode.
pub fn agent_fetch_options(http: &HttpArgs, agent: &str) -> anyhow::Result<FetchOptions> {
    let user_agent = http.user_agent.clone().unwrap_or_else(|| agent.to_owned());
    fetch_options(http, user_agent, crawlgate::Mode::Rfc)
}

/// The engine's fetch options from `--timeout` (a positive number of seconds, at most an
/// hour), the User-Agent header and the mode.
pub fn fetch_options(
    http: &HttpArgs,
    user_agent: String,
    mode: crawlgate::Mode,
) -> anyhow::Result<FetchOptions> {
    if !(http.timeout.is_finite() && http.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let timeout = Duration::from_secs_f64(http.timeout.min(3600.0));
    let mut fetch = FetchOptions::default();
    fetch.user_agent = user_agent;
    fetch.timeout = timeout;
    fetch.connect_timeout = timeout.min(FetchOptions::default().connect_timeout);
    fetch.mode = mode;
    Ok(fetch)
}

/// The single-threaded runtime the engine runs on: the commands wait on one thing at a time,
/// and buffered streams give them concurrency.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The engine on `state`'s store. It keeps no file's diagnostics (they would cost every origin
/// in memory, in `serve` and `mcp` for as long as they run): what lists a file's problems
/// parses its body again ([`problems_of`]).
pub fn engine(fetch: FetchOptions, state: &State) -> anyhow::Result<RobotsCache> {
    let mut options = CacheOptions::default();
    options.fetch = fetch;
    engine_with(options, state)
}

/// [`engine`] with `options` (the fetch options among them) as given.
pub fn engine_with(options: CacheOptions, state: &State) -> anyhow::Result<RobotsCache> {
    Ok(RobotsCache::with_store(
        options,
        state.store.clone(),
        crate::clock::clock()?,
    )?)
}

/// The distinct origins of `urls`, in order, and how many URLs had none (each reported).
pub fn origins(urls: &[String], out: &mut Out) -> (Vec<Origin>, usize) {
    let mut origins: Vec<Origin> = Vec::new();
    let mut bad = 0;
    for url in urls {
        match Origin::from_url(url) {
            Ok(o) if !origins.contains(&o) => origins.push(o),
            Ok(_) => {}
            Err(e) => {
                out.error(format_args!("{e}"));
                bad += 1;
            }
        }
    }
    (origins, bad)
}

/// The next item of `results`; when it is not ready yet, what `out` holds is written out
/// first, so that what is done shows while the rest is waited for (a dead host, a pipe
/// that has nothing more yet) and, when everything is ready at once, is written in blocks.
pub async fn next_flushing<S: Stream + Unpin>(
    results: &mut S,
    out: &mut Out,
    progress: &Progress,
) -> std::io::Result<Option<S::Item>> {
    // Polled once: `Next` keeps no state, so dropping it loses nothing.
    if let Some(item) = results.next().now_or_never() {
        return Ok(item);
    }
    progress.flush(out)?;
    Ok(results.next().await)
}

/// Asks the engine for each crawler. For a crawler with several tokens (`--agents`), the
/// engine answers for one token only, so the origin's rules (the engine's last good file)
/// pick it, the token [`chosen`] by `rules_for_any`, whose groups are the crawler's; the
/// engine then answers for it, with the failure rules exactly as for one `--agent`. When
/// there are no rules, the verdict decides alone and any token will do: the first.
pub async fn answer_crawlers(
    cache: &RobotsCache,
    crawlers: &Crawlers,
    origin: &Origin,
    url: &str,
) -> Result<Vec<(ProductToken, Answer)>, CheckError> {
    let rules = cache.rules(origin).await;
    let mut answers = Vec::with_capacity(crawlers.count());
    for crawler in crawlers.each() {
        let token = match &rules {
            Some(parsed) => chosen(&parsed.robots, crawler),
            None => crawler.first(),
        };
        let Some(token) = token else { continue };
        answers.push((token.clone(), cache.check(token, url).await?));
    }
    Ok(answers)
}

/// The file whose rules are in force, to show its `user-agent` lines as written (`None`
/// when the verdict is not `rules`, or the store cannot give it back).
pub async fn body_in_force(
    cache: &RobotsCache,
    state: &State,
    origin: &Origin,
    verdict: Verdict,
) -> Option<Arc<[u8]>> {
    if verdict != Verdict::Rules {
        return None;
    }
    let digest = cache
        .state(origin)
        .await
        .and_then(|s| s.good_file().map(|f| f.digest))?;
    state.store.body(origin, &digest).await.ok().flatten()
}

/// The file `digest` of `origin` parsed again from the store with its diagnostics, as the
/// engine's fetch parsed it (its mode and byte limit); `None` when the store cannot give the
/// body back.
pub async fn problems_of(
    cache: &RobotsCache,
    origin: &Origin,
    digest: &crawlgate::policy::Digest,
) -> Option<Parsed> {
    let body = cache.store().body(origin, digest).await.ok().flatten()?;
    Some(reparse(cache, &body))
}

/// `body` parsed with its diagnostics, as the engine's fetch parses it (its mode and byte
/// limit).
pub fn reparse(cache: &RobotsCache, body: &[u8]) -> Parsed {
    let fetch = &cache.options().fetch;
    let mut options = crawlgate::Options::mode(fetch.mode);
    options.max_bytes = fetch.max_bytes;
    options.diagnostics = true;
    Robots::parse_with(body, &options)
}

/// The cause of a result that is not a file.
pub fn cause(content: &Content) -> Option<String> {
    match content {
        Content::Rules(_) => None,
        Content::NoRobotsTxt(why) => Some(why.to_string()),
        Content::Unreachable(why) => Some(why.to_string()),
        Content::PaymentRequired(p) => Some(price_text(p)),
    }
}

/// A 402's price headers as `crawler-price: USD 0.01` (`; ` between several), or
/// `no price given`; the values are the site's, to be escaped when shown.
pub fn price_text(p: &crawlgate::policy::Payment) -> String {
    if p.headers.is_empty() {
        return "no price given".to_owned();
    }
    p.headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Which listed version the verdict comes from: the last good one while it applies, else
/// the failure that overrides it. `None` when nothing listed is (never fetched, or the good
/// version is older than the listing).
pub fn in_force(state: &OriginState, versions: &[&Version], j: &Judgement) -> Option<usize> {
    if j.reason == VerdictReason::NotFetched {
        return None;
    }
    if matches!(j.reason, VerdictReason::PaymentRequired(_)) {
        // The newest answer, a 402, decides.
        let last = versions.len().checked_sub(1)?;
        return matches!(versions[last].content, Content::PaymentRequired(_)).then_some(last);
    }
    let uses_good = matches!(j.reason, VerdictReason::LastGoodVersion { .. })
        || state.failing_since().is_none();
    if uses_good {
        let (_, good) = state.last_good()?;
        versions.iter().rposition(|v| match (good, &v.content) {
            (GoodVersion::Rules(g), Content::Rules(f)) => g.digest == f.digest,
            (GoodVersion::NoRobotsTxt(g), Content::NoRobotsTxt(w)) => g == w,
            _ => false,
        })
    } else {
        let last = versions.len().checked_sub(1)?;
        matches!(versions[last].content, Content::Unreachable(_)).then_some(last)
    }
}
