//! `crawlgate sitemap lint|urls|discover`: read sitemaps from files, standard input or URLs,
//! report their problems in the `lint` format, print their entries, or walk an origin's sitemaps.

use std::io::Read;

use anyhow::Context;
use crawlgate::sitemap::{CrossCheck, Diagnostic, Entry, Item, Reader, Scope};
use crawlgate::{ProductToken, Robots, Severity};

use crate::args::{SitemapDiscoverArgs, SitemapLintArgs, SitemapUrlsArgs};
use crate::output::{escape, plural, problems, Out, ProblemCap};
use crate::schema::{self, Problem, Record, Summary};
use crate::status::Status;

/// Counts over all sitemaps read.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    entries: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
}

impl Tally {
    fn add(&mut self, d: &Diagnostic) {
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }

    /// The JSON summary of `sitemap lint` and `sitemap urls`.
    fn record(&self, command: &'static str, status: Status) -> Summary {
        Summary {
            command,
            sitemaps: Some(self.files),
            entries: Some(self.entries),
            errors: Some(self.errors),
            warnings: Some(self.warnings),
            failed: self.unreadable,
            exit: status.code(),
            ..Summary::default()
        }
    }

    /// `2 sitemaps, 120 entries: 3 errors, 1 warning`.
    fn summary(&self) -> String {
        format!(
            "{}, {}: {}",
            plural(self.files, "sitemap", "sitemaps"),
            plural(self.entries, "entry", "entries"),
            problems(self.errors, self.warnings)
        )
    }
}

/// A sitemap named on the command line.
enum Input {
    Stdin,
    File(String),
    Url(String),
}

impl Input {
    fn new(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else if arg.starts_with("http://") || arg.starts_with("https://") {
            Input::Url(arg.to_owned())
        } else {
            Input::File(arg.to_owned())
        }
    }

    fn name(&self) -> &str {
        match self {
            Input::Stdin => "<stdin>",
            Input::File(p) | Input::Url(p) => p,
        }
    }

    /// A stream of the sitemap's bytes: files and standard input are streamed (the reader's own
    /// 50 MiB limit bounds the work), URLs fetched whole (capped the same way).
    fn open(&self, net: &mut remote_sitemaps::Net) -> anyhow::Result<Box<dyn Read>> {
        match self {
            Input::Stdin => Ok(Box::new(std::io::stdin())),
            Input::File(p) => {
                if std::path::Path::new(p).is_dir() {
                    anyhow::bail!("cannot read {p}: it is a directory");
                }
                if p.contains("://") && !std::path::Path::new(p).exists() {
                    anyhow::bail!(
                        "cannot read {p}: only http and https URLs are fetched, and no such file"
                    );
                }
                let f = std::fs::File::open(p).with_context(|| format!("cannot read {p}"))?;
                Ok(Box::new(std::io::BufReader::with_capacity(64 * 1024, f)))
            }
            Input::Url(u) => Ok(Box::new(std::io::Cursor::new(net.get(u)?))),
        }
    }
}

fn robots_file(path: &std::path::Path) -> anyhow::Result<Robots> {
    let bytes = crate::input::Source::new(path).read()?;
    Ok(Robots::parse(&bytes).robots)
}

/// The inputs named on the command line; `-` at most once.
fn inputs(args: &[String]) -> anyhow::Result<Vec<Input>> {
    let inputs: Vec<Input> = args.iter().map(|a| Input::new(a)).collect();
    if inputs.iter().filter(|i| matches!(i, Input::Stdin)).count() > 1 {
        anyhow::bail!("standard input (`-`) can be read only once");
    }
    Ok(inputs)
}

/// The input's stream, or `None` after saying on stderr why it cannot be read (it counts as
/// unreadable: exit 2, the other inputs still read).
fn open_or_report(
    input: &Input,
    net: &mut remote_sitemaps::Net,
    out: &mut Out,
    tally: &mut Tally,
) -> Option<Box<dyn Read>> {
    match input.open(net) {
        Ok(s) => Some(s),
        Err(e) => {
            out.error(format_args!("{e:#}"));
            tally.unreadable += 1;
            None
        }
    }
}

pub fn lint(args: &SitemapLintArgs, out: &mut Out) -> anyhow::Result<Status> {
    let agent = ProductToken::from_user_agent(&args.agent)
        .with_context(|| format!("--agent {:?} has no product token", args.agent))?;
    let inputs = inputs(&args.inputs)?;
    if args.robots.as_deref().is_some_and(|p| p.as_os_str() == "-")
        && inputs.iter().any(|i| matches!(i, Input::Stdin))
    {
        anyhow::bail!("--robots and a sitemap cannot both read standard input (`-`)");
    }
    let robots = args.robots.as_deref().map(robots_file).transpose()?;
    let mut net = remote_sitemaps::Net::new(&args.http)?;
    let mut tally = Tally::default();
    let mut cap = ProblemCap::new(args.max_problems);
    for input in &inputs {
        let Some(stream) = open_or_report(input, &mut net, out, &mut tally) else {
            continue;
        };
        // A URL without --robots is checked against its own origin's robots.txt.
        let fetched = match (&robots, input) {
            (None, Input::Url(u)) => match net.robots_for(u) {
                Ok(found) => found,
                Err(why) => {
                    out.error(format_args!(
                        "{u}: its robots.txt is unreachable ({why}): entries not cross-checked"
                    ));
                    None
                }
            },
            _ => None,
        };
        let check = match (&robots, &fetched) {
            (Some(r), _) => Some(CrossCheck::new(r, &agent)),
            (None, Some((r, origin))) => Some(CrossCheck::scoped(r, &agent, origin.clone())),
            _ => None,
        };
        // A URL input may list its own directory, or its whole site if robots.txt announces it.
        let scope = match input {
            Input::Url(u) => {
                let announced = fetched
                    .as_ref()
                    .is_some_and(|(r, _)| r.sitemaps().any(|s| s.url == *u));
                match (announced, &fetched) {
                    (true, Some((_, origin))) => Some(Scope::site(origin.clone())),
                    _ => Scope::location(u).ok(),
                }
            }
            _ => None,
        };
        tally.files += 1;
        let name = input.name();
        for item in Reader::new(stream) {
            let found = match item {
                Item::Diagnostic(d) => vec![d],
                Item::Entry(e) => {
                    tally.entries += 1;
                    let mut found = check.as_ref().map_or_else(Vec::new, |c| c.check(&e));
                    found.extend(scope.as_ref().and_then(|s| s.check(&e)));
                    found
                }
            };
            for d in &found {
                tally.add(d);
                if cap.admit(d.code.as_str()) {
                    report(out, args.json, name, d)?;
                }
            }
        }
        for (code, n) in cap.end_file() {
            if !args.json {
                out.line(format_args!(
                    "{}: {n} more {code} {} not shown (--max-problems)",
                    escape(name),
                    if n == 1 { "problem" } else { "problems" }
                ))?;
            }
        }
    }
    let status = if tally.unreadable > 0 {
        Status::Failed
    } else if tally.errors > 0 || (args.deny_warnings && tally.warnings > 0) {
        Status::Findings
    } else {
        Status::Clean
    };
    if args.json {
        let mut summary = tally.record("sitemap lint", status);
        summary.omitted = cap.is_set().then_some(cap.omitted);
        out.json(&Record::Summary(summary))?;
    } else if tally.files > 0 {
        out.line(format_args!("{}", tally.summary()))?;
    }
    Ok(status)
}

fn report(out: &mut Out, json: bool, name: &str, d: &Diagnostic) -> std::io::Result<()> {
    report_indented(out, json, "", name, d)
}

fn report_indented(
    out: &mut Out,
    json: bool,
    indent: &str,
    name: &str,
    d: &Diagnostic,
) -> std::io::Result<()> {
    out.problem(json, indent, &problem(name, d))
}

/// A sitemap diagnostic in the shape every problem has.
fn problem<'a>(name: &'a str, d: &'a Diagnostic) -> Problem<'a> {
    Problem {
        path: name,
        line: d.line(),
        column: u64::from(d.column()),
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: &d.message,
    }
}

pub fn urls(args: &SitemapUrlsArgs, out: &mut Out) -> anyhow::Result<Status> {
    let inputs = inputs(&args.inputs)?;
    let mut net = remote_sitemaps::Net::new(&args.http)?;
    let mut tally = Tally::default();
    for input in &inputs {
        let Some(stream) = open_or_report(input, &mut net, out, &mut tally) else {
            continue;
        };
        tally.files += 1;
        let (mut errors, mut warnings) = (0, 0);
        let mut reader = Reader::new(stream);
        for item in reader.by_ref() {
            match item {
                Item::Entry(e) => {
                    tally.entries += 1;
                    if args.json {
                        out.json(&Record::Entry(entry_record(input.name(), &e)))?;
                    } else {
                        out.line(format_args!(
                            "{}\t{}",
                            escape(&e.loc),
                            escape(e.lastmod.as_deref().unwrap_or(""))
                        ))?;
                    }
                }
                Item::Diagnostic(d) => {
                    tally.add(&d);
                    match d.severity {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
            }
        }
        if errors + warnings > 0 {
            out.error(format_args!(
                "{}: {} (run `crawlgate sitemap lint` for the details)",
                input.name(),
                problems(errors, warnings)
            ));
        }
    }
    let status = if tally.unreadable > 0 {
        Status::Failed
    } else if tally.errors > 0 {
        Status::Findings
    } else {
        Status::Clean
    };
    if args.json {
        out.json(&Record::Summary(tally.record("sitemap urls", status)))?;
    }
    Ok(status)
}

/// Everything about an entry, for `urls --json`.
fn entry_record<'a>(name: &'a str, e: &'a Entry) -> schema::Entry<'a> {
    schema::Entry {
        path: name,
        line: e.position.line,
        column: e.position.column,
        loc: &e.loc,
        lastmod: e.lastmod.as_deref(),
        changefreq: e.changefreq.as_deref(),
        priority: e.priority.as_deref(),
        images: &e.images,
        videos: &e.videos,
        news: e.news.as_ref(),
        alternates: &e.alternates,
    }
}

pub fn discover(args: &SitemapDiscoverArgs, out: &mut Out) -> anyhow::Result<Status> {
    remote_sitemaps::discover(args, out)
}

/// The network side, present with the `fetch` feature.
#[cfg(feature = "fetch")]
mod remote_sitemaps {
    use std::time::Duration;

    use crate::output::escape;

    use anyhow::Context;
    use crawlgate::http::{FetchOptions, Fetcher};
    use crawlgate::policy::FetchOutcome;
    use crawlgate::sitemap::discover::{SitemapReport, WalkOptions};
    use crawlgate::sitemap::{Code, Diagnostic};
    use crawlgate::{Origin, ProductToken, Robots};

    use crawlgate::http::Discovery;
    use futures_util::StreamExt;

    use super::{problem, report_indented};
    use crate::args::{HttpArgs, SitemapDiscoverArgs};
    use crate::engine::next_flushing;
    use crate::output::{plural, problems, Out};
    use crate::progress::Progress;
    use crate::schema::{self, Record, Summary};
    use crate::status::Status;

    /// A fetcher and a runtime, made on first use (file-only runs never start either).
    pub struct Net {
        options: Option<FetchOptions>,
        live: Option<(tokio::runtime::Runtime, Fetcher)>,
    }

    pub fn options(http: &HttpArgs) -> anyhow::Result<FetchOptions> {
        if !(http.timeout.is_finite() && http.timeout > 0.0) {
            anyhow::bail!("--timeout must be a positive number of seconds");
        }
        let timeout = Duration::from_secs_f64(http.timeout.min(3600.0));
        let mut fetch = FetchOptions::default();
        fetch.user_agent = http
            .user_agent
            .clone()
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        fetch.timeout = timeout;
        fetch.connect_timeout = timeout.min(FetchOptions::default().connect_timeout);
        Ok(fetch)
    }

    impl Net {
        pub fn new(http: &HttpArgs) -> anyhow::Result<Net> {
            Ok(Net {
                options: Some(options(http)?),
                live: None,
            })
        }

        fn live(&mut self) -> anyhow::Result<&(tokio::runtime::Runtime, Fetcher)> {
            if self.live.is_none() {
                let options = self.options.take().unwrap_or_default();
                let fetcher = Fetcher::new(options).context("cannot set up the HTTP client")?;
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("cannot start the async runtime")?;
                self.live = Some((rt, fetcher));
            }
            self.live
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("cannot set up the HTTP client"))
        }

        /// The body of a sitemap URL.
        pub fn get(&mut self, url: &str) -> anyhow::Result<Vec<u8>> {
            let (rt, fetcher) = self.live()?;
            rt.block_on(fetcher.fetch_sitemap(url))
                .with_context(|| format!("cannot fetch {url}"))
        }

        /// The robots.txt of `url`'s origin: its rules, `None` when it has none (4xx), or why
        /// it could not be fetched.
        pub fn robots_for(&mut self, url: &str) -> Result<Option<(Robots, Origin)>, String> {
            let origin = Origin::from_url(url).map_err(|e| e.to_string())?;
            let (rt, fetcher) = self.live().map_err(|e| format!("{e:#}"))?;
            let fetched = rt
                .block_on(fetcher.fetch(&origin))
                .map_err(|e| e.to_string())?;
            match fetched.outcome {
                FetchOutcome::Rules { parsed, .. } => Ok(Some((parsed.robots.clone(), origin))),
                FetchOutcome::Unavailable(_) => Ok(None),
                FetchOutcome::Unreachable(why) => Err(why.to_string()),
                // Unconditional: a 304 cannot happen.
                FetchOutcome::NotModified { .. } => {
                    Err("HTTP 304 to an unconditional request".into())
                }
                // An outcome added to the library later: no rules to cross-check with.
                other => Err(format!("robots.txt: {}", other.as_str())),
            }
        }
    }

    /// The file a walk diagnostic is about, and the diagnostic placed in it. Problems of a
    /// sitemap as a whole (`fetch-failed`, `nested-index`, a repeated announcement) sit where it
    /// is listed: in its parent index, or on its `Sitemap:` line in robots.txt; the others are in
    /// the sitemap itself.
    fn home<'a>(
        s: &'a SitemapReport,
        d: &Diagnostic,
        robots_url: &'a str,
        announced_at: &[(String, u32)],
    ) -> (&'a str, Diagnostic) {
        let whole = matches!(d.code, Code::FetchFailed | Code::NestedIndex)
            || (d.code == Code::DuplicateSitemap && s.listed_at.is_none());
        if !whole {
            return (s.url.as_str(), d.clone());
        }
        match &s.parent {
            Some(parent) => (parent.as_str(), d.clone()),
            None => {
                let mut d = d.clone();
                // A repeat is about the last announcement, anything else about the first.
                let mut lines = announced_at.iter().filter(|(u, _)| *u == s.url);
                let line = if d.code == Code::DuplicateSitemap {
                    lines.next_back()
                } else {
                    lines.next()
                };
                if let Some((_, line)) = line {
                    d.position.line = *line;
                    d.position.column = 1;
                }
                (robots_url, d)
            }
        }
    }

    /// Counts over all origins walked.
    #[derive(Debug, Default)]
    struct Totals {
        sitemaps: usize,
        entries: usize,
        errors: usize,
        warnings: usize,
        skipped: usize,
        /// Inputs that could not be used: bad URLs, robots.txt unreachable, sitemaps not
        /// fetched.
        failed: usize,
        /// Bad URLs and unreachable robots.txt: the exit status is 2.
        unusable: usize,
    }

    impl Totals {
        /// `2 origins, 5 sitemaps, 120 entries: 3 errors, 1 warning`.
        fn summary(&self, origins: usize) -> String {
            format!(
                "{}, {}, {}: {}",
                plural(origins, "origin", "origins"),
                plural(self.sitemaps, "sitemap", "sitemaps"),
                plural(self.entries, "entry", "entries"),
                problems(self.errors, self.warnings)
            )
        }
    }

    pub fn discover(args: &SitemapDiscoverArgs, out: &mut Out) -> anyhow::Result<Status> {
        let agent = ProductToken::from_user_agent(&args.agent)
            .with_context(|| format!("--agent {:?} has no product token", args.agent))?;
        let (urls, bad_lines) =
            crate::urls::read_urls(&args.urls, args.urls_file.as_deref(), "discover", out)?;
        let mut totals = Totals {
            failed: bad_lines,
            unusable: bad_lines,
            ..Totals::default()
        };
        // Each origin once, in the order given.
        let mut origins: Vec<Origin> = Vec::new();
        for url in &urls {
            match Origin::from_url(url) {
                Ok(o) if !origins.contains(&o) => origins.push(o),
                Ok(_) => {}
                Err(e) => {
                    out.error(format_args!("{:?}: {e}", crate::output::escape(url)));
                    totals.failed += 1;
                    totals.unusable += 1;
                }
            }
        }
        if !origins.is_empty() {
            let mut net = Net::new(&args.http)?;
            let (rt, fetcher) = net.live()?;
            let mut options = WalkOptions::default();
            options.max_sitemaps = args.max_sitemaps;
            rt.block_on(async {
                let progress = Progress::counted(origins.len(), "walked", "origins");
                let results = futures_util::stream::iter(&origins).map(|origin| {
                    let (agent, options, progress) = (&agent, options.clone(), &progress);
                    async move {
                        let found = fetcher
                            .discover_sitemaps(origin, Some(agent), options)
                            .await;
                        progress.inc();
                        (origin, found)
                    }
                });
                let mut results = Box::pin(results.buffered(args.concurrency.concurrency));
                while let Some((origin, found)) =
                    next_flushing(&mut results, out, &progress).await?
                {
                    match found {
                        Ok(found) => show(args, &found, &mut totals, out)?,
                        Err(e) => {
                            progress.error(
                                out,
                                format_args!("cannot discover the sitemaps of {origin}: {e}"),
                            );
                            totals.failed += 1;
                            totals.unusable += 1;
                        }
                    }
                    if progress.is_visible() {
                        progress.flush(out)?;
                    }
                }
                anyhow::Ok(())
            })?;
        }
        let status = if totals.unusable > 0 {
            Status::Failed
        } else if totals.errors > 0 {
            Status::Findings
        } else {
            Status::Clean
        };
        if args.json {
            out.json(&Record::Summary(Summary {
                command: "sitemap discover",
                origins: Some(origins.len()),
                sitemaps: Some(totals.sitemaps),
                entries: Some(totals.entries),
                errors: Some(totals.errors),
                warnings: Some(totals.warnings),
                skipped: Some(totals.skipped),
                failed: totals.failed,
                exit: status.code(),
                ..Summary::default()
            }))?;
        } else {
            crate::progress::summary(
                out,
                totals.summary(origins.len()),
                status,
                "a sitemap has errors",
            );
        }
        Ok(status)
    }

    /// One origin's walk: its robots.txt, then its sitemaps.
    fn show(
        args: &SitemapDiscoverArgs,
        found: &Discovery,
        totals: &mut Totals,
        out: &mut Out,
    ) -> std::io::Result<()> {
        let robots = &found.robots;
        // Where robots.txt announces each sitemap: problems of an announced sitemap as a whole
        // (a failed fetch, a repeat) are shown at that line.
        let announced_at: Vec<(String, u32)> = match &robots.outcome {
            FetchOutcome::Rules { parsed, .. } => parsed
                .robots
                .sitemaps()
                .map(|s| (s.url.to_owned(), s.line))
                .collect(),
            _ => Vec::new(),
        };
        show_robots(args, found, announced_at.len(), out)?;
        totals.sitemaps += found.sitemaps.len();
        totals.skipped += found.skipped;
        // Each index's children right after it (they were fetched after every announced one).
        for s in found.in_tree_order() {
            totals.errors += s.errors;
            totals.warnings += s.warnings;
            totals.entries += s.entries;
            totals.failed += usize::from(s.fetch_error.is_some());
            show_sitemap(args.json, s, &robots.url, &announced_at, out)?;
        }
        if found.truncated() && !args.json {
            out.line(format_args!(
                "{} not fetched (--max-sitemaps {})",
                plural(found.skipped, "sitemap", "sitemaps"),
                args.max_sitemaps
            ))?;
        }
        // robots.txt itself counts among the inputs that could not be used.
        if matches!(robots.outcome, FetchOutcome::Unreachable(_)) {
            totals.failed += 1;
            totals.unusable += 1;
        }
        Ok(())
    }

    /// The robots.txt line of an origin's walk (or its record).
    fn show_robots(
        args: &SitemapDiscoverArgs,
        found: &Discovery,
        announced: usize,
        out: &mut Out,
    ) -> std::io::Result<()> {
        let robots = &found.robots;
        let status = robots
            .status
            .map_or_else(|| "no response".to_owned(), |s| s.to_string());
        if args.json {
            out.json(&Record::RobotsTxt(schema::RobotsTxt {
                robots_txt: &robots.url,
                final_url: &robots.final_url,
                redirects: robots.redirects,
                status: robots.status,
                outcome: robots.outcome.as_str(),
                announced,
                skipped: found.skipped,
            }))?;
        } else {
            out.line(format_args!(
                "{}\t{status}\t{}\t{} announced",
                robots.url,
                robots.outcome.as_str(),
                plural(announced, "sitemap", "sitemaps")
            ))?;
            if robots.final_url != robots.url {
                out.line(format_args!(
                    "  served by {} after {}: its sitemaps may list URLs of both hosts",
                    escape(&robots.final_url),
                    plural(usize::from(robots.redirects), "redirect", "redirects")
                ))?;
            }
        }
        Ok(())
    }

    /// One sitemap's line and its problems (or its record); `announced_at`: where robots.txt
    /// announces each sitemap, for the problems of a sitemap as a whole.
    fn show_sitemap(
        json: bool,
        s: &SitemapReport,
        robots_url: &str,
        announced_at: &[(String, u32)],
        out: &mut Out,
    ) -> std::io::Result<()> {
        let format = s.format.map_or("-", |f| f.as_str());
        if json {
            let homes: Vec<(&str, Diagnostic)> = s
                .diagnostics
                .iter()
                .map(|d| home(s, d, robots_url, announced_at))
                .collect();
            out.json(&Record::Sitemap(schema::Sitemap {
                url: &s.url,
                parent: s.parent.as_deref(),
                depth: s.depth,
                format: s.format.map(|f| f.as_str()),
                size: s.size,
                entries: s.entries,
                errors: s.errors,
                warnings: s.warnings,
                fetch_error: s.fetch_error.as_deref(),
                problems: homes.iter().map(|(path, d)| problem(path, d)).collect(),
                omitted: s.omitted(),
            }))?;
        } else {
            let indent = if s.depth > 0 { "  " } else { "" };
            out.line(format_args!(
                "{indent}{}\t{format}\t{}\t{}\t{}",
                escape(&s.url),
                plural(s.entries, "entry", "entries"),
                plural(s.errors, "error", "errors"),
                plural(s.warnings, "warning", "warnings"),
            ))?;
            for d in &s.diagnostics {
                let (name, d) = home(s, d, robots_url, announced_at);
                report_indented(out, false, &format!("{indent}  "), name, &d)?;
            }
            if s.omitted() > 0 {
                out.line(format_args!("{indent}  … {} more", s.omitted()))?;
            }
        }
        Ok(())
    }
}

/// Without the `fetch` feature, URLs are refused.
#[cfg(not(feature = "fetch"))]
mod remote_sitemaps {
    use crawlgate::{Origin, Robots};

    use crate::args::{HttpArgs, SitemapDiscoverArgs};
    use crate::output::Out;
    use crate::status::Status;

    pub struct Net;

    impl Net {
        pub fn new(_: &HttpArgs) -> anyhow::Result<Net> {
            Ok(Net)
        }
        pub fn get(&mut self, url: &str) -> anyhow::Result<Vec<u8>> {
            anyhow::bail!("cannot fetch {url}: this build cannot fetch (feature `fetch`)")
        }
        pub fn robots_for(&mut self, _: &str) -> Result<Option<(Robots, Origin)>, String> {
            Ok(None)
        }
    }

    pub fn discover(_: &SitemapDiscoverArgs, _: &mut Out) -> anyhow::Result<Status> {
        anyhow::bail!("this build cannot fetch (feature `fetch`)")
    }
}
