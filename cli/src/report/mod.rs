//! `crawlgate report`: the robots.txt report, as Search Console shows it per robots.txt
//! (status, last fetch, size, problems by line, 30 days of versions) and beyond it (the ladder
//! state in force, verdict changes between versions, RFC vs Google, an agent × URL matrix), on
//! the terminal, as JSON Lines and as one self-contained HTML page.
//!
//! Every fetch is recorded in the crawl state and the report is rendered from the state, so
//! that running it daily builds the 30-day history; `--offline` renders without fetching.
//! The pieces: `engine::report` works the report out (pure; shared with `serve`), [`terminal`]
//! and [`html`] render it.

#[cfg(feature = "fetch")]
pub mod html;
#[cfg(feature = "fetch")]
mod terminal;

use crate::args::ReportArgs;
use crate::output::Out;
use crate::status::Status;

/// A robots.txt's status as its badge says it, with one status code: `Fetched (200)`,
/// `Fetched (304: not modified)`, `Not fetched – Not found (404)`.
#[cfg(feature = "fetch")]
fn badge(r: &crate::schema::report::RobotsReport) -> String {
    match r.http_status {
        // The 304's text names its code already.
        Some(s) if r.status == "fetched" && s != 304 => format!("{} ({s})", r.status_text),
        _ => r.status_text.clone(),
    }
}

/// Where the report's robots.txt files come from, as its first line says it.
#[cfg(feature = "fetch")]
fn source(report: &enabled::Report) -> &'static str {
    if report.fetched_now {
        "every robots.txt fetched now (--offline: from the state only)"
    } else {
        "from the state, nothing fetched (--offline)"
    }
}

#[cfg(not(feature = "fetch"))]
pub fn report(_: &ReportArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build has no crawl state (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::report;

#[cfg(feature = "fetch")]
mod enabled {
    use std::collections::{HashMap, VecDeque};
    use std::sync::Arc;

    use anyhow::Context;
    use crawlgate::http::{FetchOptions, Fetcher};
    use crawlgate::policy::{Digest, KeyKind, PoliteKey};
    use crawlgate::sitemap::{Format, Item, Reader};
    use crawlgate::store::StoreError;
    use crawlgate::{Mode, Origin, ProductToken};
    use crawlgate::{Options, Robots};

    use super::*;
    use crate::engine::fetch_now::fetch_all;
    use crate::engine::pages::{trap_warnings, Disallowed};
    use crate::engine::report::{self as model, AgentSpec, Inputs, RobotsReport};
    use crate::engine::{engine, fetch_options, runtime};
    use crate::schema::{self, Record};
    use crate::state;

    /// The most sitemaps read per origin for `--sitemap-urls`.
    const MAX_SITEMAPS: usize = 20;

    /// The whole report: what every renderer gets.
    #[derive(Debug, serde::Serialize)]
    pub struct Report {
        /// When it was made (RFC 3339, UTC).
        pub generated_at: String,
        /// The mode verdicts were worked out in.
        pub mode: &'static str,
        /// The agents, as given.
        pub agents: Vec<String>,
        /// Whether every robots.txt was fetched for this report (false: `--offline`, from
        /// the state only).
        pub fetched_now: bool,
        /// One per robots.txt, in the order of the targets.
        pub robots_txts: Vec<RobotsReport>,
        /// robots.txt files left out because they have answered "not found" for 30 days.
        pub dormant: Vec<String>,
    }

    /// `crawlgate report`: fetches the targets (unless `--offline`), builds each one's report
    /// from the state, and prints them.
    pub fn report(args: &ReportArgs, out: &mut Out) -> anyhow::Result<Status> {
        let mode = Mode::from(args.mode);
        let agents = agents(&args.agent)?;
        if args.pages > 0 && args.urls.is_none() && args.sitemap_urls == 0 {
            anyhow::bail!(
                "--pages reads the pages of the URLs the report follows: give --urls or \
                 --sitemap-urls (and --agent)"
            );
        }
        if (args.urls.is_some() || args.sitemap_urls > 0) && agents.is_empty() {
            anyhow::bail!(
                "--urls and --sitemap-urls need --agent: whose verdicts should the report show?"
            );
        }
        let (urls, bad_lines) = match &args.urls {
            Some(file) => crate::urls::read_urls(&[], Some(file), "check", out)?,
            None => (Vec::new(), 0),
        };
        let (mut targets, bad_targets) = targets(&args.targets, out)?;
        let mut failed = bad_lines + bad_targets;
        let mut report = Report {
            generated_at: String::new(),
            mode: mode.as_str(),
            agents: agents.iter().map(|a| a.name.clone()).collect(),
            fetched_now: !args.offline,
            robots_txts: Vec::new(),
            dormant: Vec::new(),
        };
        let user_agent = args
            .http
            .user_agent
            .clone()
            .or_else(|| args.agent.first().cloned())
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        // Politeness is shown for the agents given, else for the User-Agent the report
        // fetches with.
        let pace_agents = if agents.is_empty() {
            let token = crate::engine::politeness::default_agent(&user_agent);
            vec![AgentSpec {
                name: token.as_str().to_owned(),
                rfc: token,
                google: ProductToken::verbatim(&user_agent),
            }]
        } else {
            agents.clone()
        };
        let options = fetch_options(&args.http, user_agent, mode)?;
        if args.offline && args.sitemap_urls > 0 {
            anyhow::bail!("--sitemap-urls fetches sitemaps: it cannot be used with --offline");
        }
        let sitemap_fetcher = if args.sitemap_urls > 0 {
            Some(Fetcher::new(options.clone()).context("cannot set up the HTTP client")?)
        } else {
            None
        };
        if args.pages > 0 && args.offline {
            out.error("warning: --pages: no page fetched (--offline fetches nothing)");
        }
        let page_fetcher = if args.pages > 0 && !args.offline {
            Some(Fetcher::new(options.clone()).context("cannot set up the HTTP client")?)
        } else {
            None
        };
        runtime()?.block_on(async {
            let state = state::open(&args.state, !args.offline).await?;
            let now = crate::clock::now()?;
            report.generated_at = crate::clock::rfc3339(now);
            if targets.is_empty() {
                targets = state.store.listed(now).await?;
                if targets.is_empty() {
                    anyhow::bail!(
                        "no origins recorded in {}: name the hosts or URLs to report on",
                        state.name
                    );
                }
            }
            failed += check_urls(&urls, &targets, out);
            let mut cache = None;
            if !args.offline {
                let engine = cache.insert(engine(options, &state)?);
                failed += fetch_all(
                    engine,
                    &state,
                    &targets,
                    args.concurrency.concurrency,
                    "robots.txt",
                    out,
                    |_, _| Ok(()),
                )
                .await?;
            }
            let build = Build {
                state: &state,
                now,
                agents: &agents,
                urls: &urls,
                sitemaps: sitemap_fetcher.as_ref().map(|f| (f, args.sitemap_urls)),
                mode,
                pace_agents: &pace_agents,
                pages: match (&page_fetcher, &cache) {
                    (Some(f), Some(c)) => Some((f, c)),
                    _ => None,
                },
                pages_left: std::cell::Cell::new(args.pages),
            };
            for origin in &targets {
                match build.one(origin, out).await? {
                    One::Report(r) => report.robots_txts.push(*r),
                    One::Dormant => report.dormant.push(origin.robots_txt_url()),
                    One::NothingRecorded => {
                        out.error(format_args!(
                            "nothing recorded for {origin} in {} (run without --offline to fetch it)",
                            state.name
                        ));
                        failed += 1;
                    }
                }
            }
            anyhow::Ok(())
        })?;

        print(args, out, &report, failed)
    }

    /// Writes the report out: the HTML page (`--html`), then the JSON records or the terminal
    /// rendering; the exit status follows from what it holds and the inputs that `failed`.
    fn print(
        args: &ReportArgs,
        out: &mut Out,
        report: &Report,
        failed: usize,
    ) -> anyhow::Result<Status> {
        if let Some(path) = &args.html {
            std::fs::write(path, html::render(report))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let unreachable = report
            .robots_txts
            .iter()
            .filter(|r| r.status == "not-fetched")
            .count();
        let errors: usize = report.robots_txts.iter().map(|r| r.errors).sum();
        let warnings: usize = report.robots_txts.iter().map(|r| r.warnings).sum();
        let status = if failed > 0 {
            Status::Failed
        } else if unreachable > 0 || errors > 0 {
            Status::Findings
        } else {
            Status::Clean
        };
        if args.json {
            for r in &report.robots_txts {
                out.json(&Record::Report(r))?;
            }
            out.json(&Record::Summary(schema::Summary {
                command: "report",
                origins: Some(report.robots_txts.len()),
                unreachable: Some(unreachable),
                errors: Some(errors),
                warnings: Some(warnings),
                dormant: Some(report.dormant.len()),
                failed,
                exit: status.code(),
                ..schema::Summary::default()
            }))?;
        } else {
            terminal::render(out, report)?;
        }
        Ok(status)
    }

    /// The origins of the targets given, each once, in order, and how many targets named none
    /// (each reported). Targets given but no origin among them is an error.
    fn targets(given: &[String], out: &mut Out) -> anyhow::Result<(Vec<Origin>, usize)> {
        let mut failed = 0;
        let mut targets = Vec::new();
        for t in given {
            match target_origins(t) {
                Ok(origins) => {
                    for o in origins {
                        if !targets.contains(&o) {
                            targets.push(o);
                        }
                    }
                }
                Err(e) => {
                    out.error(e);
                    failed += 1;
                }
            }
        }
        if targets.is_empty() && !given.is_empty() {
            anyhow::bail!("no origin to report on");
        }
        Ok((targets, failed))
    }

    /// Reports the `--urls` lines that are neither a path nor an http(s) URL (input errors,
    /// counted in the result), and warns of those on none of the `targets` (only followed when
    /// their site is reported).
    fn check_urls(urls: &[String], targets: &[Origin], out: &mut Out) -> usize {
        let mut failed = 0;
        for u in urls.iter().filter(|u| !u.starts_with('/')) {
            if let Err(e) = Origin::from_url(u) {
                out.error(format_args!("--urls: {e}"));
                failed += 1;
            }
        }
        let mut elsewhere = urls.iter().filter(|u| {
            !u.starts_with('/') && Origin::from_url(u).is_ok_and(|o| !targets.contains(&o))
        });
        if let Some(first) = elsewhere.next() {
            out.error(format_args!(
                "warning: {} of --urls on none of the origins reported (the first: {})",
                crate::output::plural(elsewhere.count() + 1, "URL is", "URLs are"),
                crate::output::escape(first)
            ));
        }
        failed
    }

    /// What every origin's report is built with.
    struct Build<'a> {
        state: &'a state::State,
        now: std::time::SystemTime,
        agents: &'a [AgentSpec],
        /// The `--urls` lines (each origin follows its own, and the paths).
        urls: &'a [String],
        /// `--sitemap-urls N`: the client that reads sitemaps, and N.
        sitemaps: Option<(&'a Fetcher, usize)>,
        mode: Mode,
        /// The agents whose politeness is shown: `agents`, else the default User-Agent's.
        pace_agents: &'a [AgentSpec],
        /// `--pages N`: the client that reads pages and the engine that answers for them…
        pages: Option<(&'a Fetcher, &'a crawlgate::engine::RobotsCache)>,
        /// …and how many pages may still be read.
        pages_left: std::cell::Cell<usize>,
    }

    /// What became of one origin.
    enum One {
        // Boxed: the other cases are empty.
        Report(Box<RobotsReport>),
        /// Not found for over 30 days: left out (and still checked).
        Dormant,
        NothingRecorded,
    }

    impl Build<'_> {
        /// The report of `origin`, from what the state holds for it (and its own sitemaps'
        /// URLs, when asked for).
        async fn one(&self, origin: &Origin, out: &mut Out) -> anyhow::Result<One> {
            let state = self.state;
            let Some(s) = state.store.load(origin).await? else {
                return Ok(One::NothingRecorded);
            };
            if s.is_dormant(self.now) {
                return Ok(One::Dormant);
            }
            let mut bodies: HashMap<Digest, Arc<[u8]>> = HashMap::new();
            for digest in s.digests() {
                if let Some(body) = state.store.body(origin, &digest).await? {
                    bodies.insert(digest, body);
                }
            }
            let mut on_origin = urls_on(self.urls, origin);
            if let (Some((fetcher, max)), Some(file)) = (self.sitemaps, s.good_file()) {
                if let Some(body) = bodies.get(&file.digest) {
                    let robots = Robots::parse_with(body, &Options::mode(self.mode)).robots;
                    for url in sitemap_urls(fetcher, &robots, origin, max, out).await {
                        if !on_origin.contains(&url) {
                            on_origin.push(url);
                        }
                    }
                }
            }
            let inputs = Inputs {
                origin,
                state: &s,
                bodies: &bodies,
                now: self.now,
                agents: self.agents,
                urls: &on_origin,
                mode: self.mode,
            };
            let Some(mut report) = model::build(&inputs) else {
                return Ok(One::NothingRecorded);
            };
            let key = PoliteKey::of(KeyKind::default(), origin);
            let schedule = match state.store.schedule(&key).await {
                Ok(s) => s,
                Err(StoreError::Unsupported(_)) => None,
                Err(e) => return Err(e.into()),
            };
            report.politeness = model::politeness(
                &inputs,
                self.pace_agents,
                &key.to_string(),
                schedule.as_ref(),
            );
            if let Some((fetcher, cache)) = self.pages {
                self.traps(fetcher, cache, origin, &mut report, out).await;
            }
            Ok(One::Report(Box::new(report)))
        }
    }

    impl Build<'_> {
        /// `--pages`: the URLs of `report`'s matrix that robots.txt disallows for an agent,
        /// while pages may still be read, each page fetched once (a few at a time); the
        /// noindex-unseen warnings go on the URL's row. A page that cannot be read is
        /// reported (a warning: the verdicts stand).
        async fn traps(
            &self,
            fetcher: &Fetcher,
            cache: &crawlgate::engine::RobotsCache,
            origin: &Origin,
            report: &mut RobotsReport,
            out: &mut Out,
        ) {
            let mut disallowed = Vec::new();
            for row in &report.matrix {
                if self.pages_left.get() == 0 {
                    break;
                }
                let url = if row.url.starts_with('/') {
                    format!("{origin}{}", row.url)
                } else {
                    row.url.clone()
                };
                let mut agents = Vec::new();
                for agent in self.agents {
                    let token = agent.token(self.mode);
                    if let Ok((answer, verdict, _)) = cache.check_in_force(token, &url).await {
                        if !answer.allowed {
                            agents.push((agent.name.clone(), token.clone(), answer, verdict));
                        }
                    }
                }
                if !agents.is_empty() {
                    self.pages_left.set(self.pages_left.get() - 1);
                    disallowed.push((row.url.clone(), Disallowed { url, agents }));
                }
            }
            let (rows, disallowed): (Vec<String>, Vec<Disallowed>) = disallowed.into_iter().unzip();
            let results = trap_warnings(cache, fetcher, disallowed).await;
            for (row_url, (url, result)) in rows.iter().zip(results) {
                match result {
                    Ok(warnings) => {
                        if let Some(row) = report.matrix.iter_mut().find(|r| &r.url == row_url) {
                            row.warnings = warnings;
                        }
                    }
                    Err(e) => out.error(format_args!(
                        "warning: the page {} was not read: {}",
                        crate::output::escape(&url),
                        crate::output::escape(&e)
                    )),
                }
            }
        }
    }

    /// Up to `max` URLs on `origin` from the sitemaps `robots` announces and, one level down,
    /// those their indexes list: one sitemap at a time, at most [`MAX_SITEMAPS`]. A sitemap
    /// that cannot be fetched is reported and skipped.
    async fn sitemap_urls(
        fetcher: &Fetcher,
        robots: &Robots,
        origin: &Origin,
        max: usize,
        out: &mut Out,
    ) -> Vec<String> {
        let mut queue: VecDeque<(String, u8)> =
            robots.sitemaps().map(|s| (s.url.to_owned(), 0)).collect();
        let mut urls = Vec::new();
        let mut fetched = 0;
        while let Some((url, depth)) = queue.pop_front() {
            if urls.len() >= max || fetched >= MAX_SITEMAPS {
                break;
            }
            fetched += 1;
            let body = match fetcher.fetch_sitemap(&url).await {
                Ok(body) => body,
                Err(e) => {
                    out.error(format_args!(
                        "warning: sitemap {} not read: {e}",
                        crate::output::escape(&url)
                    ));
                    continue;
                }
            };
            let mut reader = Reader::new(body.as_slice());
            let mut locs = Vec::new();
            for item in reader.by_ref() {
                if let Item::Entry(e) = item {
                    locs.push(e.loc);
                }
            }
            if reader.format() == Some(Format::Index) {
                if depth == 0 {
                    queue.extend(locs.into_iter().map(|l| (l, 1)));
                }
                continue;
            }
            for loc in locs {
                if urls.len() >= max {
                    break;
                }
                if Origin::from_url(&loc).is_ok_and(|o| &o == origin) && !urls.contains(&loc) {
                    urls.push(loc);
                }
            }
        }
        urls
    }

    /// The agents: product tokens (or a crawler's User-Agent header) for RFC 9309, the string
    /// whole for Google's parser.
    fn agents(given: &[String]) -> anyhow::Result<Vec<AgentSpec>> {
        let mut agents: Vec<AgentSpec> = Vec::new();
        for name in given {
            if agents.iter().any(|a| &a.name == name) {
                continue;
            }
            agents.push(AgentSpec {
                name: name.clone(),
                rfc: ProductToken::from_user_agent(name)?,
                google: ProductToken::verbatim(name),
            });
        }
        Ok(agents)
    }

    /// A host (`example.com`: its `http://` and `https://` origins, as Search Console checks a
    /// domain property), an origin or a URL (its origin).
    fn target_origins(target: &str) -> anyhow::Result<Vec<Origin>> {
        if target.contains("://") {
            return Ok(vec![Origin::from_url(target)?]);
        }
        let host = target.trim_end_matches('/');
        if host.is_empty() || host.contains(['/', '?', '#', '@']) {
            anyhow::bail!("{target:?} is neither a host (example.com) nor an absolute http(s) URL");
        }
        let http = Origin::from_url(&format!("http://{host}/"))
            .with_context(|| format!("{target:?} is not a host name"))?;
        let https = Origin::from_url(&format!("https://{host}/"))
            .with_context(|| format!("{target:?} is not a host name"))?;
        Ok(vec![http, https])
    }

    /// The URLs checked on `origin`: those on it, and the paths (`/a?b`), which are on every
    /// origin.
    fn urls_on(urls: &[String], origin: &Origin) -> Vec<String> {
        urls.iter()
            .filter(|u| u.starts_with('/') || Origin::from_url(u).is_ok_and(|o| &o == origin))
            .cloned()
            .collect()
    }
}
