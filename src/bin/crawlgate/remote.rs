//! The commands that go to the network: `crawlgate fetch`, and `crawlgate check` without
//! `--robots`, both through the engine and its crawl state (`--state`). Without the `fetch`
//! feature they say so.

use crate::output::Out;
use crate::{CheckArgs, FetchArgs, Status};
#[cfg(not(feature = "fetch"))]
use crawlgate::ProductToken;

#[cfg(not(feature = "fetch"))]
pub fn check(_: &CheckArgs, _: &ProductToken, _: &[String], _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("--robots FILE is required: this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(not(feature = "fetch"))]
pub fn fetch(_: &FetchArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::{cause, check, fetch, fetch_each, origins, runtime, FetchEach, Fetched};

#[cfg(feature = "fetch")]
mod enabled {
    use std::collections::HashSet;
    use std::sync::Arc;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use anyhow::Context;
    use crawlgate::fetch::{
        Answer, CacheOptions, FetchOptions, LocalError, RobotsCache, SystemClock,
    };
    use crawlgate::policy::{Content, Judgement, OriginState, RobotsFile, VerdictReason, Version};
    use crawlgate::{Origin, ProductToken};
    use serde_json::json;

    use super::*;
    use crate::history::rfc3339;
    use crate::output::escape;
    use crate::state::{self, State};
    use crate::HttpArgs;

    pub fn fetch_options(
        http: &HttpArgs,
        user_agent: String,
        mode: crawlgate::Mode,
    ) -> anyhow::Result<FetchOptions> {
        if !(http.timeout.is_finite() && http.timeout > 0.0) {
            anyhow::bail!("--timeout must be a positive number of seconds");
        }
        let timeout = Duration::from_secs_f64(http.timeout.min(3600.0));
        Ok(FetchOptions {
            user_agent,
            timeout,
            connect_timeout: timeout.min(FetchOptions::default().connect_timeout),
            mode,
            ..FetchOptions::default()
        })
    }

    pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    }

    /// The engine on `state`'s store.
    pub fn engine(fetch: FetchOptions, state: &State) -> anyhow::Result<RobotsCache> {
        let options = CacheOptions {
            fetch,
            ..CacheOptions::default()
        };
        Ok(RobotsCache::with_store(
            options,
            state.store.clone(),
            Arc::new(SystemClock),
        )?)
    }

    /// The distinct origins of `urls`, in order; a URL without one is reported and makes the
    /// status `Failed`.
    pub fn origins(urls: &[String], out: &mut Out, status: &mut Status) -> Vec<Origin> {
        let mut origins: Vec<Origin> = Vec::new();
        for url in urls {
            match Origin::from_url(url) {
                Ok(o) if !origins.contains(&o) => origins.push(o),
                Ok(_) => {}
                Err(e) => {
                    out.error(format_args!("{e}"));
                    *status = Status::Failed;
                }
            }
        }
        origins
    }

    /// `crawlgate check` without `--robots`: answers from the crawl state, fetching an origin
    /// only when the state has nothing for it or it is due.
    pub fn check(
        args: &CheckArgs,
        token: &ProductToken,
        urls: &[String],
        out: &mut Out,
    ) -> anyhow::Result<Status> {
        let user_agent = args
            .http
            .user_agent
            .clone()
            .unwrap_or_else(|| args.agent.clone());
        let fetch = fetch_options(&args.http, user_agent, args.mode.into())?;
        runtime()?.block_on(async {
            let state = state::open(&args.state, true).await?;
            let cache = engine(fetch, &state)?;
            // Load every origin first, then wait for the refreshes of those that were due, so
            // that each answer below comes from a current state rather than a stale copy.
            let mut seen = HashSet::new();
            for url in urls {
                if let Ok(origin) = Origin::from_url(url) {
                    if seen.insert(origin.clone()) {
                        cache.judgement(&origin).await;
                    }
                }
            }
            // A failure here is reported by `finish`.
            let _ = cache.flush().await;
            let result = check_all(&cache, args.json, token, urls, out).await;
            state::finish(&cache, &state, out).await;
            result
        })
    }

    async fn check_all(
        cache: &RobotsCache,
        json: bool,
        token: &ProductToken,
        urls: &[String],
        out: &mut Out,
    ) -> anyhow::Result<Status> {
        let mut status = Status::Clean;
        for url in urls {
            match cache.check(token, url).await {
                Ok(answer) => {
                    // After the flush, only a fetch that failed on this machine leaves an
                    // origin unfetched: not an answer about the site.
                    let local = (answer.reason == VerdictReason::NotFetched)
                        .then(|| cache.local_failures().last)
                        .flatten();
                    if let Some(e) = local {
                        out.error(format_args!(
                            "{}: not fetched: {e}; nothing was recorded",
                            answer.origin.robots_txt_url()
                        ));
                        status = Status::Failed;
                    } else if !answer.allowed && status == Status::Clean {
                        status = Status::Findings;
                    }
                    report(out, json, url, &answer)?;
                }
                Err(e) => {
                    out.error(format_args!("{e}"));
                    status = Status::Failed;
                }
            }
        }
        Ok(status)
    }

    fn report(out: &mut Out, json: bool, url: &str, a: &Answer) -> std::io::Result<()> {
        if json {
            return out.json(&[
                ("url", json!(url)),
                ("allowed", json!(a.allowed)),
                ("verdict", json!(a.reason.as_str())),
                ("line", json!(a.rule.as_ref().map(|r| r.line))),
                ("rule", json!(a.rule.as_ref().map(|r| r.text.as_str()))),
                ("robots_txt", json!(a.origin.robots_txt_url())),
            ]);
        }
        let url = escape(url);
        match (a.allowed, &a.rule) {
            (true, _) => out.line(format_args!("allowed\t{url}")),
            (false, Some(r)) => out.line(format_args!(
                "disallowed\t{url}\tline {}: {}",
                r.line,
                escape(&r.text)
            )),
            (false, None) => out.line(format_args!(
                "disallowed\t{url}\t{}",
                escape(&a.reason.to_string())
            )),
        }
    }

    /// A forced fetch of one origin, as recorded in the state.
    pub struct Fetched {
        pub origin: Origin,
        /// The verdict in force after it.
        pub judgement: Judgement,
        /// The history entry the fetch was recorded in; `None` if it was not recorded (a newer
        /// recrawl request, from another process, superseded it).
        pub version: Option<Version>,
        /// The fetch started a new history entry rather than repeating the newest one.
        pub new_version: bool,
        /// When the next fetch is due.
        pub next_due: Option<SystemTime>,
        /// The fetch failed on this machine (file descriptors, memory…): nothing was recorded.
        pub local: Option<LocalError>,
        /// The codes of the file's problems, each once, in the order first found.
        pub codes: Vec<&'static str>,
    }

    impl Fetched {
        pub fn unreachable(&self) -> bool {
            self.version
                .as_ref()
                .is_some_and(|v| matches!(v.content, Content::Unreachable(_)))
        }

        /// `fetched`, `not-modified` (a 304 re-confirmed the file), `not-found`, `unreachable`,
        /// `local-failure` (nothing recorded).
        pub fn outcome(&self) -> &'static str {
            if self.local.is_some() {
                return "local-failure";
            }
            match &self.version {
                Some(v) if v.status == Some(304) && matches!(v.content, Content::Rules(_)) => {
                    "not-modified"
                }
                Some(v) => v.content.as_str(),
                None => "not-recorded",
            }
        }

        pub fn cause(&self) -> Option<String> {
            if let Some(e) = &self.local {
                return Some(format!("{e}; nothing was recorded"));
            }
            self.version.as_ref().and_then(|v| cause(&v.content))
        }

        /// The file fetched, if the fetch gave one.
        pub fn file(&self) -> Option<&RobotsFile> {
            self.version.as_ref().and_then(|v| match &v.content {
                Content::Rules(f) => Some(f),
                _ => None,
            })
        }

        /// The file's size: what was read, or for a file cut at the limit, the size the server
        /// declared (`None` when it did not).
        pub fn size(&self) -> Option<u64> {
            let f = self.file()?;
            if f.cut {
                f.declared_size
            } else {
                Some(f.size)
            }
        }

        /// `1234 bytes`; for a file cut at the limit, `2600000 bytes, cut: only the first
        /// 512000 are read` or `more than 512000 bytes, cut`.
        pub fn size_text(&self) -> String {
            let Some(f) = self.file() else {
                return "0 bytes".to_owned();
            };
            // One byte past the limit is read to learn that the file goes on.
            let limit = f.size.saturating_sub(1);
            match (f.cut, f.declared_size) {
                (false, _) => format!("{} bytes", f.size),
                (true, Some(d)) if d > limit => {
                    format!("{d} bytes, cut: only the first {limit} are read")
                }
                (true, _) => format!("more than {limit} bytes, cut"),
            }
        }

        /// `new`, or `same as before (N fetches since TIME)`.
        pub fn version_text(&self) -> String {
            match &self.version {
                None => "not recorded: a newer recrawl request superseded this fetch".to_owned(),
                Some(v) if self.new_version => match v.content.digest() {
                    Some(d) => format!("new ({})", d.short()),
                    None => "new".to_owned(),
                },
                Some(v) => format!(
                    "same as before ({} fetches since {})",
                    v.count,
                    rfc3339(v.first_at)
                ),
            }
        }

        /// The JSON fields `fetch` and `recrawl` print (those of `fetch` before the state
        /// existed first, so that readers of them keep working).
        pub fn json_fields(&self) -> Vec<(&'static str, serde_json::Value)> {
            let v = self.version.as_ref();
            let file = self.file();
            vec![
                ("robots_txt", json!(self.origin.robots_txt_url())),
                ("status", json!(v.and_then(|v| v.status))),
                ("outcome", json!(self.outcome())),
                ("cause", json!(self.cause())),
                ("final_url", json!(v.map(|v| v.final_url.as_str()))),
                ("redirects", json!(v.map_or(0, |v| v.redirects))),
                (
                    "size",
                    json!(if file.is_some() { self.size() } else { Some(0) }),
                ),
                ("bytes_read", json!(file.map_or(0, |f| f.size))),
                ("cut", json!(file.is_some_and(|f| f.cut))),
                ("errors", json!(file.map_or(0, |f| f.errors))),
                ("warnings", json!(file.map_or(0, |f| f.warnings))),
                ("problems", json!(self.codes)),
                ("verdict", json!(self.judgement.verdict.as_str())),
                ("reason", json!(self.judgement.reason.to_string())),
                ("digest", json!(file.map(|f| f.digest.to_string()))),
                ("new_version", json!(self.new_version)),
                ("next_due", json!(self.next_due.map(rfc3339))),
            ]
        }
    }

    /// The cause of a result that is not a file.
    pub fn cause(content: &Content) -> Option<String> {
        match content {
            Content::Rules(_) => None,
            Content::NoRobotsTxt(why) => Some(why.to_string()),
            Content::Unreachable(why) => Some(why.to_string()),
        }
    }

    /// Fetches the origin's robots.txt now (a recrawl request: recorded, and it wins over any
    /// older fetch still running) and reads back what the state made of it.
    pub async fn fetch_now(cache: &RobotsCache, origin: &Origin) -> Fetched {
        // Stored times are whole milliseconds.
        let started = floor_ms(SystemTime::now());
        let local_before = cache.local_failures().count;
        let judgement = cache.request_recrawl(origin).await;
        let state: Option<OriginState> = cache.state(origin).await;
        let version = state
            .as_ref()
            .and_then(OriginState::last_fetch)
            .filter(|v| v.last_at >= started)
            .cloned();
        let new_version = version
            .as_ref()
            .is_some_and(|v| v.count == 1 && v.first_at >= started);
        let local = if version.is_none() {
            let failures = cache.local_failures();
            failures.last.filter(|_| failures.count > local_before)
        } else {
            None
        };
        let mut codes = Vec::new();
        if version
            .as_ref()
            .is_some_and(|v| matches!(v.content, Content::Rules(_)))
        {
            if let Some(parsed) = cache.rules(origin).await {
                for d in &parsed.diagnostics {
                    if !codes.contains(&d.code.as_str()) {
                        codes.push(d.code.as_str());
                    }
                }
            }
        }
        Fetched {
            origin: origin.clone(),
            judgement,
            version,
            new_version,
            next_due: state.as_ref().and_then(OriginState::next_due),
            local,
            codes,
        }
    }

    fn floor_ms(t: SystemTime) -> SystemTime {
        let ms = t
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        UNIX_EPOCH + Duration::from_millis(ms)
    }

    /// `crawlgate fetch`: each origin's robots.txt now, what came back, and the verdict the
    /// state holds after it.
    pub fn fetch(args: &FetchArgs, out: &mut Out) -> anyhow::Result<Status> {
        let request = FetchEach {
            http: &args.http,
            mode: args.mode,
            state: &args.state,
            urls: &args.urls,
            json: args.json,
        };
        fetch_each(&request, out, report_fetch)
    }

    /// What `fetch` and `recrawl` both take.
    pub struct FetchEach<'a> {
        pub http: &'a HttpArgs,
        pub mode: crate::ModeArg,
        pub state: &'a crate::StateArgs,
        pub urls: &'a [String],
        pub json: bool,
    }

    /// Fetches each origin now (a recrawl: whatever the state says), records it, and shows it
    /// with `report`. Exit status: 1 if a robots.txt is unreachable.
    pub fn fetch_each(
        request: &FetchEach<'_>,
        out: &mut Out,
        report: fn(&mut Out, bool, &Fetched) -> std::io::Result<()>,
    ) -> anyhow::Result<Status> {
        let user_agent = request
            .http
            .user_agent
            .clone()
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        let options = fetch_options(request.http, user_agent, request.mode.into())?;
        let mut status = Status::Clean;
        let origins = origins(request.urls, out, &mut status);
        if origins.is_empty() {
            // Every URL was bad (and reported): no state to open.
            return Ok(status);
        }
        runtime()?.block_on(async {
            let state = state::open(request.state, true).await?;
            let cache = engine(options, &state)?;
            let result = async {
                for origin in &origins {
                    let fetched = fetch_now(&cache, origin).await;
                    if let Some(e) = &fetched.local {
                        out.error(format_args!(
                            "{}: not fetched: {e}; nothing was recorded",
                            origin.robots_txt_url()
                        ));
                        status = Status::Failed;
                    } else if fetched.unreachable() && status == Status::Clean {
                        status = Status::Findings;
                    }
                    report(out, request.json, &fetched)?;
                }
                anyhow::Ok(status)
            }
            .await;
            state::finish(&cache, &state, out).await;
            result
        })
    }

    fn report_fetch(out: &mut Out, json: bool, f: &Fetched) -> std::io::Result<()> {
        if json {
            return out.json(&f.json_fields());
        }
        let v = f.version.as_ref();
        let file = f.file();
        let status_text = v
            .and_then(|v| v.status)
            .map_or("-".to_owned(), |s| s.to_string());
        out.line(format_args!("{}", f.origin.robots_txt_url()))?;
        out.line(format_args!("  status:    {status_text}"))?;
        match f.cause() {
            Some(c) => out.line(format_args!(
                "  outcome:   {} ({})",
                f.outcome(),
                escape(&c)
            ))?,
            None => out.line(format_args!("  outcome:   {}", f.outcome()))?,
        }
        if let Some(v) = v.filter(|v| v.redirects > 0) {
            out.line(format_args!(
                "  final url: {} ({} redirect{})",
                escape(&v.final_url),
                v.redirects,
                if v.redirects == 1 { "" } else { "s" }
            ))?;
        }
        let (errors, warnings) = file.map_or((0, 0), |f| (f.errors, f.warnings));
        out.line(format_args!("  size:      {}", f.size_text()))?;
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        let codes = if f.codes.is_empty() {
            String::new()
        } else {
            format!(" ({})", f.codes.join(", "))
        };
        out.line(format_args!(
            "  problems:  {errors} error{}, {warnings} warning{}{codes}",
            plural(errors),
            plural(warnings)
        ))?;
        out.line(format_args!("  version:   {}", f.version_text()))?;
        out.line(format_args!(
            "  verdict:   {} ({})",
            f.judgement.verdict.as_str(),
            escape(&f.judgement.reason.to_string())
        ))
    }
}
