//! The commands that go to the network: `crawlgate fetch`, and `crawlgate check` without
//! `--robots`, both through the engine and its crawl state (`--state`). Without the `fetch`
//! feature they say so.

use crate::args::{CheckArgs, FetchArgs};
use crate::output::Out;
use crate::status::Status;
#[cfg(not(feature = "fetch"))]
pub fn check(
    _: &CheckArgs,
    _: &crate::check::Crawlers,
    _: Option<crate::check::UrlLines>,
    _: &mut Out,
    _: &mut crate::check::Tally,
) -> anyhow::Result<Status> {
    anyhow::bail!("--robots FILE is required: this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(not(feature = "fetch"))]
pub fn fetch(_: &FetchArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::{
    answer_crawlers, cause, check, engine, fetch, fetch_all, fetch_each, fetch_options, file_facts,
    next_flushing, origins, record as state_check_record, runtime, FetchEach, Fetched,
};

#[cfg(feature = "fetch")]
mod enabled {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    use std::sync::Arc;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use anyhow::Context;
    use crawlgate::fetch::{
        Answer, CacheOptions, CheckError, FetchOptions, LocalError, RobotsCache,
    };
    use crawlgate::policy::{
        Content, Judgement, OriginState, PolicyOptions, RobotsFile, Verdict, VerdictReason, Version,
    };
    use crawlgate::{Origin, Parsed, ProductToken};
    use futures_util::stream::{self, Stream, StreamExt};
    use futures_util::FutureExt;
    use tokio::sync::OnceCell;

    use super::*;
    use crate::args::HttpArgs;
    use crate::check::{chosen, url_of, Crawlers, Rules, Stop, Tally, UrlLine, UrlLines};
    use crate::history::rfc3339;
    use crate::output::{escape, plural};
    use crate::progress::Progress;
    use crate::schema::{self, FileFacts, Record};
    use crate::state::{self, State};

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

    pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    }

    /// The engine on `state`'s store.
    pub fn engine(fetch: FetchOptions, state: &State) -> anyhow::Result<RobotsCache> {
        let mut options = CacheOptions::default();
        options.fetch = fetch;
        // `fetch` lists the problem codes of each file it fetched, from the engine's parse.
        options.keep_diagnostics = true;
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

    /// A `--urls` input read on a thread of its own (reading standard input blocks, and the
    /// engine's fetches run on this thread meanwhile), handed over a few lines at a time: a
    /// bounded channel, so memory stays flat however long the input.
    fn read_in_background(
        lines: UrlLines,
        ahead: usize,
    ) -> tokio::sync::mpsc::Receiver<anyhow::Result<UrlLine>> {
        let (tx, rx) = tokio::sync::mpsc::channel(ahead.max(1));
        // Detached: if the answers stop early (a closed pipe), the process exits without
        // waiting for a read that may never end.
        std::thread::spawn(move || {
            for item in lines {
                if tx.blocking_send(item).is_err() {
                    break;
                }
            }
        });
        rx
    }

    /// Per origin, whether it is ready to answer from: loaded, and refreshed if it was due.
    /// Shared by the URLs of an origin being answered at the same time, so that the second
    /// waits for the first one's refresh rather than answering from the stale copy.
    #[derive(Default)]
    struct Ready {
        origins: RefCell<HashMap<Origin, Rc<OnceCell<()>>>>,
    }

    impl Ready {
        /// Loads the origin (reading the state, fetching if it has nothing) and, if its state
        /// is due, waits for its refresh (`RobotsCache::current`), so that the answer comes
        /// from a current state rather than the stale copy; the other origins' fetches are not
        /// waited for.
        async fn wait(&self, cache: &RobotsCache, origin: &Origin) {
            let cell = self
                .origins
                .borrow_mut()
                .entry(origin.clone())
                .or_default()
                .clone();
            cell.get_or_init(|| async {
                cache.current(origin).await;
            })
            .await;
        }
    }

    /// One URL answered by the engine, per crawler, with what its record needs (read once
    /// per URL: every crawler's answer comes from the same state).
    struct Answered {
        /// One per crawler, in order: the token it was answered for, and the answer.
        answers: Vec<(ProductToken, Answer)>,
        /// The origin was not fetched because of a failure on this machine.
        local: Option<LocalError>,
        /// The origin's verdict and rules (for the JSON record, and the usage preferences).
        detail: (Judgement, Option<Arc<Parsed>>),
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

    async fn answer_one(
        cache: &RobotsCache,
        ready: &Ready,
        crawlers: &Crawlers,
        url: &str,
    ) -> Result<Answered, CheckError> {
        let origin = Origin::from_url(url)?;
        ready.wait(cache, &origin).await;
        let answers = answer_crawlers(cache, crawlers, &origin, url).await?;
        // Once loaded (and refreshed), only a fetch that failed on this machine leaves an
        // origin unfetched: not an answer about the site.
        let not_fetched = answers
            .first()
            .is_some_and(|(_, a)| a.reason == VerdictReason::NotFetched);
        let local = if not_fetched {
            cache.local_failure(&origin).await
        } else {
            None
        };
        // From memory: the origin was just loaded.
        let detail = (cache.judgement(&origin).await, cache.rules(&origin).await);
        Ok(Answered {
            answers,
            local,
            detail,
        })
    }

    /// What became of one input line, in input order.
    enum Done {
        // Boxed: a stopped line is small, an answer is not.
        Answered(String, Box<Result<Answered, CheckError>>),
        Stopped(Stop),
    }

    /// `crawlgate check` without `--robots`: answers from the crawl state, fetching an origin
    /// only when the state has nothing for it or it is due; up to `--concurrency` origins at
    /// once, the answers in input order, each written as soon as the ones before it are.
    pub fn check(
        args: &CheckArgs,
        crawlers: &Crawlers,
        lines: Option<UrlLines>,
        out: &mut Out,
        tally: &mut Tally,
    ) -> anyhow::Result<Status> {
        // The first --agent (or --agents token), as given, is the User-Agent header unless
        // --user-agent says.
        let user_agent = args
            .http
            .user_agent
            .clone()
            .or_else(|| Crawlers::user_agent(&args.crawlers.agent, &args.crawlers.agents))
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        let several = crawlers.count() > 1;
        let fetch = fetch_options(&args.http, user_agent, args.mode.into())?;
        let window = args.concurrency;
        runtime()?.block_on(async {
            let state = state::open(&args.state, true).await?;
            let cache = engine(fetch, &state)?;
            let progress = if lines.is_some() || args.url.len() > 1 {
                Progress::open_ended("checked", "URLs")
            } else {
                Progress::hidden()
            };
            let given = stream::iter(args.url.iter().cloned().map(|u| Ok(UrlLine::Url(u))));
            let read = stream::unfold(
                lines.map(|l| read_in_background(l, window * 4)),
                |rx| async {
                    let mut rx = rx?;
                    let item = rx.recv().await?;
                    Some((item, Some(rx)))
                },
            );
            let ready = Ready::default();
            let json = args.json;
            let results = given.chain(read).map(|item| {
                let (cache, ready, progress) = (&cache, &ready, &progress);
                let url = url_of(item);
                async move {
                    let done = match url {
                        Ok(url) => {
                            let answered = answer_one(cache, ready, crawlers, &url).await;
                            Done::Answered(url, Box::new(answered))
                        }
                        Err(stop) => Done::Stopped(stop),
                    };
                    progress.inc();
                    done
                }
            });
            let mut results = Box::pin(results.buffered(window));
            let result = async {
                let mut status = Status::Clean;
                while let Some(done) = next_flushing(&mut results, out, &progress).await? {
                    let (url, answered) = match done {
                        Done::Answered(url, answered) => (url, answered),
                        Done::Stopped(stop) => {
                            progress.error(out, stop.message());
                            tally.failed += 1;
                            status = Status::Failed;
                            continue;
                        }
                    };
                    let a = match *answered {
                        Ok(a) => a,
                        Err(e) => {
                            progress.error(out, e);
                            tally.failed += 1;
                            status = Status::Failed;
                            continue;
                        }
                    };
                    if let Some(e) = &a.local {
                        progress.error(
                            out,
                            format_args!(
                                "{}: not fetched: {e}; nothing was recorded",
                                a.answers.first().map_or_else(
                                    || url.clone(),
                                    |(_, x)| x.origin.robots_txt_url()
                                )
                            ),
                        );
                        tally.failed += 1;
                        status = Status::Failed;
                    }
                    let (verdict, rules) = (Some(a.detail.0.verdict), a.detail.1.as_ref());
                    for (crawler, (token, answer)) in crawlers.each().zip(&a.answers) {
                        if a.local.is_none() && !answer.allowed && status == Status::Clean {
                            status = Status::Findings;
                        }
                        tally.add(answer.allowed);
                        let robots_txt = answer.origin.robots_txt_url();
                        let r = record(&url, token, crawler, answer, verdict, rules, &robots_txt);
                        if json {
                            out.json(&Record::Check(r))?;
                        } else {
                            report(out, several.then(|| token.as_str()), &url, answer, &r)?;
                        }
                    }
                    if progress.is_visible() {
                        progress.flush(out)?;
                    }
                }
                anyhow::Ok(status)
            }
            .await;
            drop(results);
            progress.finish();
            state::finish(&cache, &state, out).await;
            result
        })
    }

    /// The `check` record of an answer from the crawl state: the same shape as with
    /// `--robots`. [`Answer`] carries neither the verdict nor the group, so they come from the
    /// origin's judgement and rules, read once per origin; while the verdict is `rules`, the
    /// URL is matched against those rules as `--robots` would match it (and so are its usage
    /// preferences). `token` is the one of `crawler` the engine answered for.
    pub fn record<'a>(
        url: &'a str,
        token: &'a ProductToken,
        crawler: &'a [ProductToken],
        a: &Answer,
        verdict: Option<Verdict>,
        rules: Option<&Arc<Parsed>>,
        robots_txt: &'a str,
    ) -> schema::Check<'a> {
        let why = Rules {
            reason: a.reason.as_str(),
            reason_text: a.reason.to_string(),
        };
        if let (Some(Verdict::Rules), Some(parsed)) = (verdict, rules) {
            // The path the engine judged (`request_target`), in either mode.
            let usage = parsed
                .robots
                .rules_for(token)
                .usage_path(&crawlgate::request_target(url));
            let mut r = crate::check::record(url, token, crawler, &usage, robots_txt, why);
            // The engine's answer is the one the exit status follows (and preferences apply
            // only to what may be crawled).
            r.allowed = a.allowed;
            if !a.allowed {
                r.usage = None;
            }
            return r;
        }
        // The verdict decided (or the rules could not be read back: nothing but robots.txt
        // is allowed until they are).
        let verdict = verdict.unwrap_or(Verdict::DisallowAll);
        let decided_by = if a.allowed && verdict != Verdict::AllowAll {
            "robots-txt"
        } else {
            "policy"
        };
        schema::Check {
            url,
            judged_url: a.judged_url.clone(),
            agent: token.as_str(),
            allowed: a.allowed,
            decided_by,
            line: a.rule.as_ref().map(|r| r.line),
            rule: a.rule.as_ref().map(|r| r.text.clone()),
            group: None,
            robots_txt,
            verdict: verdict.as_str(),
            reason: why.reason,
            reason_text: why.reason_text,
            agents: crawler.iter().map(ProductToken::as_str).collect(),
            usage: None,
        }
    }

    /// One answer as a line; `c` is its record, for the usage preferences.
    fn report(
        out: &mut Out,
        agent: Option<&str>,
        url: &str,
        a: &Answer,
        c: &schema::Check<'_>,
    ) -> std::io::Result<()> {
        let url = crate::check::url_column(url, a.judged_url.as_deref());
        let agent = crate::check::agent_column(agent);
        let word = if a.allowed { "allowed" } else { "disallowed" };
        let usage = crate::check::usage_column(c.usage.as_ref(), a.rule.is_some());
        match (a.allowed, &a.rule) {
            // The deciding rule, for an allowed URL too (as with --robots).
            (_, Some(r)) => out.line(format_args!(
                "{agent}{word}\t{url}\tline {}: {}{usage}",
                r.line,
                escape(&r.text)
            )),
            // No rule decided: nothing after an allowed URL (no rule matched, no robots.txt)
            // but its usage preferences, the reason after a disallowed one (the failure rules).
            (true, None) => out.line(format_args!("{agent}{word}\t{url}{usage}")),
            (false, None) => out.line(format_args!(
                "{agent}{word}\t{url}\t{}",
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

        /// `fetched`, `not-modified` (a 304 re-confirmed the file), `unavailable`, `unreachable`,
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

        /// The record `fetch` and `recrawl` print.
        pub fn record(&self) -> schema::Fetch {
            let v = self.version.as_ref();
            schema::Fetch {
                origin: self.origin.to_string(),
                robots_txt: self.origin.robots_txt_url(),
                status: v.and_then(|v| v.status),
                outcome: self.outcome(),
                cause: self.cause(),
                final_url: v.map(|v| v.final_url.clone()),
                redirects: v.map_or(0, |v| v.redirects),
                file: file_facts(self.file()),
                codes: self.codes.clone(),
                verdict: self.judgement.verdict.as_str(),
                reason: self.judgement.reason.as_str(),
                reason_text: self.judgement.reason.to_string(),
                new_version: self.new_version,
                next_due: self.next_due.map(rfc3339),
            }
        }
    }

    /// A fetched file's facts as `fetch` and `history` print them; a result that is not a
    /// file has size 0 and nothing else.
    pub fn file_facts(file: Option<&RobotsFile>) -> FileFacts {
        let Some(f) = file else {
            return FileFacts {
                size: Some(0),
                ..FileFacts::default()
            };
        };
        FileFacts {
            size: if f.cut { f.declared_size } else { Some(f.size) },
            bytes_read: f.size,
            cut: f.cut,
            errors: f.errors,
            warnings: f.warnings,
            digest: Some(f.digest.to_string()),
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
        let started = floor_ms(cache.now());
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
            cache.local_failure(origin).await
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
            urls_file: args.urls_file.as_deref(),
            concurrency: args.concurrency.concurrency,
            json: args.json,
            command: "fetch",
        };
        fetch_each(&request, out, report_fetch)
    }

    /// What `fetch` and `recrawl` both take.
    pub struct FetchEach<'a> {
        pub http: &'a HttpArgs,
        pub mode: crate::args::ModeArg,
        pub state: &'a crate::args::StateArgs,
        pub urls: &'a [String],
        /// `--urls FILE`, read after `urls`.
        pub urls_file: Option<&'a std::path::Path>,
        /// The most origins fetched at once.
        pub concurrency: usize,
        pub json: bool,
        /// The command's name in the JSON summary.
        pub command: &'static str,
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
        let (urls, bad_lines) =
            crate::check::read_urls(request.urls, request.urls_file, "fetch", out)?;
        let (origins, bad) = origins(&urls, out);
        let mut failed = bad + bad_lines;
        let mut unreachable = 0;
        // How many of each outcome, for the summary line.
        let mut outcomes: Vec<(&'static str, usize)> = Vec::new();
        // Every URL bad (and reported): no state to open.
        if !origins.is_empty() {
            runtime()?.block_on(async {
                let state = state::open(request.state, true).await?;
                let cache = engine(options, &state)?;
                let local = fetch_all(
                    &cache,
                    &state,
                    &origins,
                    request.concurrency,
                    "origins",
                    out,
                    |out, fetched| {
                        if fetched.unreachable() {
                            unreachable += 1;
                        }
                        match outcomes.iter_mut().find(|(o, _)| *o == fetched.outcome()) {
                            Some((_, n)) => *n += 1,
                            None => outcomes.push((fetched.outcome(), 1)),
                        }
                        report(out, request.json, fetched)
                    },
                )
                .await?;
                failed += local;
                anyhow::Ok(())
            })?;
        }
        let status = if failed > 0 {
            Status::Failed
        } else if unreachable > 0 {
            Status::Findings
        } else {
            Status::Clean
        };
        if request.json {
            out.json(&Record::Summary(schema::Summary {
                command: request.command,
                origins: Some(origins.len()),
                unreachable: Some(unreachable),
                failed,
                exit: status.code(),
                ..schema::Summary::default()
            }))?;
        } else {
            crate::progress::summary(
                out,
                fetch_summary(origins.len(), &outcomes, bad + bad_lines),
            );
        }
        Ok(status)
    }

    /// Fetches each origin now (a recrawl), up to `concurrency` at once, and hands each result
    /// to `each` in the order given, with a progress line counting `what`. A fetch that failed
    /// on this machine is reported on stderr (and still handed on). The state is written out at
    /// the end, also when `each` fails. Returns how many fetches failed on this machine.
    pub async fn fetch_all(
        cache: &RobotsCache,
        state: &State,
        origins: &[Origin],
        concurrency: usize,
        what: &str,
        out: &mut Out,
        mut each: impl FnMut(&mut Out, &Fetched) -> std::io::Result<()>,
    ) -> anyhow::Result<usize> {
        let progress = Progress::counted(origins.len(), "fetched", what);
        let results = stream::iter(origins).map(|origin| {
            let progress = &progress;
            async move {
                let fetched = fetch_now(cache, origin).await;
                progress.inc();
                fetched
            }
        });
        let mut results = Box::pin(results.buffered(concurrency));
        let mut local = 0;
        let result = async {
            while let Some(fetched) = next_flushing(&mut results, out, &progress).await? {
                if let Some(e) = &fetched.local {
                    progress.error(
                        out,
                        format_args!(
                            "{}: not fetched: {e}; nothing was recorded",
                            fetched.origin.robots_txt_url()
                        ),
                    );
                    local += 1;
                }
                each(out, &fetched)?;
                if progress.is_visible() {
                    progress.flush(out)?;
                }
            }
            anyhow::Ok(())
        }
        .await;
        drop(results);
        progress.finish();
        state::finish(cache, state, out).await;
        result.map(|()| local)
    }

    /// `2 origins: 1 fetched, 1 unreachable` (outcomes in the order first seen), then
    /// `; 1 bad URL` for URLs that named no origin.
    pub fn fetch_summary(origins: usize, outcomes: &[(&str, usize)], bad: usize) -> String {
        let mut line = plural(origins, "origin", "origins");
        let counts: Vec<String> = outcomes.iter().map(|(o, n)| format!("{n} {o}")).collect();
        if !counts.is_empty() {
            line.push_str(": ");
            line.push_str(&counts.join(", "));
        }
        if bad > 0 {
            line.push_str("; ");
            line.push_str(&plural(bad, "bad URL", "bad URLs"));
        }
        line
    }

    fn report_fetch(out: &mut Out, json: bool, f: &Fetched) -> std::io::Result<()> {
        if json {
            return out.json(&Record::Fetch(f.record()));
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
        // The cause is on the outcome line already: the verdict says only what follows from it.
        let reason = match &f.judgement.reason {
            VerdictReason::Unreachable { since, .. } => format!(
                "robots.txt unreachable since {}: crawling stopped until {}",
                rfc3339(*since),
                rfc3339(*since + PolicyOptions::default().stop_period)
            ),
            other => other.to_string(),
        };
        out.line(format_args!(
            "  verdict:   {} ({})",
            f.judgement.verdict.as_str(),
            escape(&reason)
        ))?;
        match f.next_due {
            Some(due) => out.line(format_args!("  next:      {}", rfc3339(due))),
            None => Ok(()),
        }
    }
}
