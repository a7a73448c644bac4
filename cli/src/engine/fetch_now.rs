//! Fetching origins now (a recrawl: whatever the state says), up to N at once, each result
//! handed on in the order given: what `fetch`, `recrawl` and `report` do before they print.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crawlgate::engine::RobotsCache;

use crawlgate::http::{FetchOptions, LocalError};
use crawlgate::policy::{Content, Judgement, OriginState, RobotsFile, Version};
use crawlgate::Origin;
use futures_util::stream::{self, StreamExt};

use super::{cause, engine, fetch_options, next_flushing, origins, problems_of, runtime};
use crate::args::{HttpArgs, ModeArg, StateArgs};
use crate::clock::rfc3339;
use crate::output::{plural, Out};
use crate::progress::Progress;
use crate::schema::{self, FileFacts, Record};
use crate::state::{self, State};
use crate::status::Status;
use crate::urls::read_urls;

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
    /// The fetch ended unreachable (429, 5xx, network failure): exit status 1.
    pub fn unreachable(&self) -> bool {
        self.version
            .as_ref()
            .is_some_and(|v| matches!(v.content, Content::Unreachable(_)))
    }

    /// `fetched`, `not-modified` (a 304 re-confirmed the file), `unavailable`, `unreachable`,
    /// `payment-required`, `local-failure` (nothing recorded).
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

    /// Why the result is not a file: the failure on this machine, or the recorded cause.
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
        html: f.html,
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
    if let Some(Content::Rules(file)) = version.as_ref().map(|v| &v.content) {
        // The engine keeps no diagnostics: the stored body is parsed again for them.
        if let Some(parsed) = problems_of(cache, origin, &file.digest).await {
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

/// `t` to the whole millisecond below, as the state stores times.
fn floor_ms(t: SystemTime) -> SystemTime {
    let ms = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// What `fetch` and `recrawl` both take.
pub struct FetchEach<'a> {
    pub http: &'a HttpArgs,
    pub mode: ModeArg,
    pub state: &'a StateArgs,
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
    let (urls, bad_lines) = read_urls(request.urls, request.urls_file, "fetch", out)?;
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
            status,
            "a robots.txt is unreachable",
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
    let finished = state::finish(cache, state, out).await;
    result.and(finished).map(|()| local)
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
