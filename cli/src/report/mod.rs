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
    use crawlgate::policy::Digest;
    use crawlgate::sitemap::{Format, Item, Reader};
    use crawlgate::{Mode, Origin, ProductToken};
    use crawlgate::{Options, Robots};

    use super::*;
    use crate::engine::fetch_now::fetch_all;
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
            robots_txts: Vec::new(),
            dormant: Vec::new(),
        };
        let user_agent = args
            .http
            .user_agent
            .clone()
            .or_else(|| args.agent.first().cloned())
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        let options = fetch_options(&args.http, user_agent, mode)?;
        if args.offline && args.sitemap_urls > 0 {
            anyhow::bail!("--sitemap-urls fetches sitemaps: it cannot be used with --offline");
        }
        let sitemap_fetcher = if args.sitemap_urls > 0 {
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
            if !args.offline {
                let cache = engine(options, &state)?;
                failed += fetch_all(
                    &cache,
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
            Ok(model::build(&inputs).map_or(One::NothingRecorded, |r| One::Report(Box::new(r))))
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
