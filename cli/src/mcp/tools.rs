//! The tools: their arguments (with the JSON Schemas a client shows the model) and their
//! answers' shapes (output schemas), and each call answered from the engine as a JSON object
//! with the `--json` records' field names and a short text for people.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use crawlgate::policy::{Digest, Verdict, VerdictReason};
use crawlgate::{request_path, Mode, Origin};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Server;
use crate::crawler::{self, Crawlers};
use crate::engine::pages;
use crate::engine::politeness::{self, default_agent};
use crate::engine::report::{build, Inputs};
use crate::engine::{answer_crawlers, body_in_force, reparse};
use crate::explained::{explain_agent, View};
use crate::output::escape;
use crate::records::state_record;
use crate::schema::{self, Record};

/// How robots.txt is read and matched.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModeParam {
    /// RFC 9309.
    Rfc,
    /// Exactly as Google's robots.txt parser reads it.
    Google,
}

/// `check_url`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckUrlParams {
    /// The absolute http(s) URL the agent wants to fetch.
    pub url: String,
    /// The crawler's product token (`ExampleBot`) or its User-Agent header. Default: the
    /// server's `--agent`; required when it has none.
    #[serde(default)]
    pub agent: Option<String>,
    /// `rfc` (RFC 9309) or `google` (Google's parser). Default: the server's `--mode`.
    #[serde(default)]
    pub mode: Option<ModeParam>,
}

/// `explain_robots`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExplainParams {
    /// The site: an origin (`https://example.com`) or any URL of it; a URL with a path is
    /// also checked.
    pub url: String,
    /// The crawler whose group to explain: a product token or its User-Agent header.
    /// Default: the server's `--agent`; required when it has none.
    #[serde(default)]
    pub agent: Option<String>,
    /// `rfc` (RFC 9309) or `google` (Google's parser). Default: the server's `--mode`.
    #[serde(default)]
    pub mode: Option<ModeParam>,
}

/// `robots_report`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReportParams {
    /// The site: an origin (`https://example.com`) or any URL of it.
    pub url: String,
    /// The crawler whose pace `politeness` shows (its delay, backoff and next slot): a product
    /// token or its User-Agent header. Default: the server's `--agent`, else the product
    /// token of its User-Agent header.
    #[serde(default)]
    pub agent: Option<String>,
}

/// `crawl_policy`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PolicyParams {
    /// The absolute http(s) URL of the page.
    pub url: String,
    /// The crawler's product token (`ExampleBot`) or its User-Agent header. Default: the
    /// server's `--agent`; required when it has none.
    #[serde(default)]
    pub agent: Option<String>,
    /// `rfc` (RFC 9309) or `google` (Google's parser). Default: the server's `--mode`.
    #[serde(default)]
    pub mode: Option<ModeParam>,
    /// Read the page itself for its directives (X-Robots-Tag, meta robots, noai), even when
    /// robots.txt disallows it, as `crawlgate policy` does. Default: true; false leaves
    /// `page` null.
    #[serde(default = "yes")]
    pub page: bool,
}

fn yes() -> bool {
    true
}

/// The MCP server's tools on one [`Server`].
#[derive(Clone)]
pub struct Tools {
    server: Arc<Server>,
    // Read by the `tool_handler` macro.
    #[allow(dead_code)]
    tool_router: ToolRouter<Tools>,
}

/// A tool error: the call reached the tool, and the tool says why it has no answer.
fn failed(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// An answer: the structured content (the tool's output schema), and `summary` (site text
/// escaped) as its text for people. The same JSON again as text only for a `legacy` client,
/// one whose protocol predates structured content: a client that reads `structuredContent`
/// would otherwise hand the model every site string twice (docs/mcp.md says why).
fn answered(summary: String, structured: Value, error: bool, legacy: bool) -> CallToolResult {
    let json = legacy.then(|| structured.to_string());
    let mut result = if error {
        CallToolResult::structured_error(structured)
    } else {
        CallToolResult::structured(structured)
    };
    result.content = vec![ContentBlock::text(summary)];
    result.content.extend(json.map(ContentBlock::text));
    result
}

/// The first protocol version with structured tool results (and output schemas).
const STRUCTURED_SINCE: ProtocolVersion = ProtocolVersion::V_2025_06_18;

/// Whether the client asked for a protocol older than structured content: it reads the text
/// only. A client that gave no version at its handshake (none is asked for since the
/// handshake went) is a current one.
fn legacy(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.peer
        .peer_info()
        .is_some_and(|info| info.protocol_version < STRUCTURED_SINCE)
}

/// A record as JSON (its `"type"` first).
fn json(record: &Record<'_>) -> Value {
    serde_json::to_value(record).unwrap_or(Value::Null)
}

impl Tools {
    pub fn new(server: Arc<Server>) -> Tools {
        Tools {
            server,
            tool_router: Tools::tool_router(),
        }
    }

    /// The call's crawler (one, from its `agent` or the server's) and mode.
    fn crawler(
        &self,
        agent: Option<String>,
        mode: Option<ModeParam>,
    ) -> Result<(Crawlers, Mode), Box<CallToolResult>> {
        let mode = match mode {
            Some(ModeParam::Rfc) => Mode::Rfc,
            Some(ModeParam::Google) => Mode::Google,
            None => self.server.mode,
        };
        let Some(agent) = agent.or_else(|| self.server.agent.clone()) else {
            return Err(Box::new(failed(
                "no agent: give `agent` (the crawler's product token), or start the server \
                 with --agent TOKEN",
            )));
        };
        match Crawlers::new(&[agent], &[], mode) {
            Ok(c) => Ok((c, mode)),
            Err(e) => Err(Box::new(failed(format!("agent: {e:#}")))),
        }
    }

    /// The origin of `url`, unless it is not an http(s) URL or its host is an address the
    /// server does not fetch from (host names are checked as they resolve, by the engine).
    fn origin(&self, url: &str) -> Result<Origin, Box<CallToolResult>> {
        let origin = Origin::from_url(url).map_err(|e| Box::new(failed(format!("url: {e}"))))?;
        if self.server.allow_private {
            return Ok(origin);
        }
        let host = origin.host();
        let ip = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .parse::<IpAddr>();
        let local_name = host == "localhost" || host.ends_with(".localhost");
        if local_name || ip.is_ok_and(|ip| !crawlgate::http::AddressPolicy::PublicOnly.allows(ip)) {
            return Err(Box::new(failed(format!(
                "url: {} is not a public address: robots.txt is not fetched from loopback, \
                 private or link-local addresses (the server's --allow-private allows it)",
                escape(host)
            ))));
        }
        Ok(origin)
    }
}

#[tool_router]
impl Tools {
    /// May the agent fetch this URL? `allowed`, `disallowed` (by the site's robots.txt) or
    /// `unreachable` (its robots.txt could not be read: do not fetch), with the deciding rule.
    #[tool(
        description = "May this agent fetch this URL under the site's robots.txt? Answers \
                       allowed, disallowed (a rule of the site's robots.txt forbids it) or \
                       unreachable (the robots.txt could not be read: do not fetch; a tool \
                       error), with the deciding rule (line and text), the reason, the URL as \
                       judged, the crawl-delay and the request-rate. robots.txt is fetched once per \
                       site and kept.",
        annotations(read_only_hint = true, open_world_hint = true),
        output_schema = super::schemas::check_url()
    )]
    async fn check_url(
        &self,
        Parameters(p): Parameters<CheckUrlParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let (crawlers, mode) = match self.crawler(p.agent, p.mode) {
            Ok(c) => c,
            Err(e) => return *e,
        };
        let origin = match self.origin(&p.url) {
            Ok(o) => o,
            Err(e) => return *e,
        };
        let cache = self.server.engine(mode);
        cache.current(&origin).await;
        let answers = match answer_crawlers(cache, &crawlers, &origin, &p.url).await {
            Ok(a) => a,
            Err(e) => return failed(format!("url: {e}")),
        };
        let (Some((token, answer)), Some(crawler)) = (answers.first(), crawlers.each().next())
        else {
            return failed("no agent to answer for");
        };
        let robots_txt = origin.robots_txt_url();
        if answer.reason == VerdictReason::NotFetched {
            if let Some(e) = cache.local_failure(&origin).await {
                return failed(format!(
                    "{robots_txt}: not fetched: {e}; nothing was recorded (try again)"
                ));
            }
        }
        let verdict = cache.judgement(&origin).await.verdict;
        let rules = cache.rules(&origin).await;
        let r = state_record(
            &p.url,
            token,
            crawler,
            answer,
            Some(verdict),
            rules.as_ref(),
            &robots_txt,
        );
        let word = r.word();
        let mut summary = format!("{word}: {} for {}", escape(&p.url), escape(token.as_str()));
        match (&answer.rule, word) {
            (Some(rule), _) => {
                summary += &format!(" (line {}: {})", rule.line, escape(&rule.text));
            }
            (None, "unreachable") => {
                summary += &format!(
                    " ({}): do not fetch until it can be read",
                    escape(&r.reason_text)
                );
            }
            (None, _) => summary += &format!(" ({})", escape(&r.reason_text)),
        }
        if let Some(d) = &r.crawl_delay {
            summary += &format!("; crawl-delay {} s", d.seconds);
        }
        if let Some(rate) = &r.request_rate {
            summary += &format!("; request-rate {}/{} s", rate.requests, rate.seconds);
            if let Some(window) = &rate.window {
                summary += &format!(" ({window} UTC)");
            }
        }
        // The record's fields in its order (as `check --json` writes them), then the answer.
        let mut structured = json(&Record::Check(r));
        if let Value::Object(map) = &mut structured {
            map.insert("answer".into(), Value::from(word));
        }
        answered(summary, structured, word == "unreachable", legacy(&ctx))
    }

    /// What a site's robots.txt says to the agent, and its problems.
    #[tool(
        description = "Explain a site's robots.txt for an agent: the group that applies and \
                       the user-agent lines that chose it, its rules in the order they are \
                       tried, the crawl-delay, the sitemaps, usage preferences, and the \
                       file's problems (line, code, message); with a URL that has a path, \
                       also its check. An unreachable robots.txt is a tool error.",
        annotations(read_only_hint = true, open_world_hint = true),
        output_schema = super::schemas::explain_robots()
    )]
    async fn explain_robots(
        &self,
        Parameters(p): Parameters<ExplainParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let (crawlers, mode) = match self.crawler(p.agent, p.mode) {
            Ok(c) => c,
            Err(e) => return *e,
        };
        let origin = match self.origin(&p.url) {
            Ok(o) => o,
            Err(e) => return *e,
        };
        let cache = self.server.engine(mode);
        let judgement = cache.current(&origin).await;
        let robots_txt = origin.robots_txt_url();
        if let Some(e) = cache.local_failure(&origin).await {
            return failed(format!(
                "{robots_txt}: not fetched: {e}; nothing was recorded (try again)"
            ));
        }
        let rules = cache.rules(&origin).await;
        let body = body_in_force(cache, &self.server.state, &origin, judgement.verdict).await;
        let Some(crawler) = crawlers.each().next() else {
            return failed("no agent to answer for");
        };
        let token = match rules.as_deref() {
            Some(parsed) => crawler::chosen(&parsed.robots, crawler),
            None => crawler.first(),
        };
        let Some(token) = token else {
            return failed("no agent to answer for");
        };
        let view = View {
            robots_txt: &robots_txt,
            verdict: judgement.verdict,
            reason: judgement.reason.as_str(),
            reason_text: judgement.reason.to_string(),
            parsed: rules.as_deref(),
            body: body.as_deref(),
        };
        let explain = explain_agent(&view, token, crawler);
        let mut check = None;
        if request_path(&p.url) != "/" {
            if let Ok(each) = answer_crawlers(cache, &crawlers, &origin, &p.url).await {
                if let Some((t, a)) = each.first() {
                    let r = state_record(
                        &p.url,
                        t,
                        crawler,
                        a,
                        Some(judgement.verdict),
                        rules.as_ref(),
                        &robots_txt,
                    );
                    check = Some(json(&Record::Check(r)));
                }
            }
        }
        // The problems of the file in force, as `lint` gives them: the engine keeps no
        // diagnostics, so its body is parsed again for them.
        let reparsed = match &body {
            Some(body) if rules.is_some() && judgement.verdict == Verdict::Rules => {
                Some(reparse(cache, body))
            }
            _ => None,
        };
        let problems: Vec<Value> = match (&reparsed, &body) {
            (Some(parsed), Some(body)) => parsed
                .diagnostics
                .iter()
                .map(|d| {
                    json(&Record::Problem(schema::Problem {
                        path: &robots_txt,
                        line: d.line,
                        column: d.column(body) as u64,
                        severity: d.severity.as_str(),
                        code: d.code.as_str(),
                        message: &d.message,
                    }))
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut summary = format!(
            "{}: verdict {} ({})",
            escape(&robots_txt),
            explain.verdict,
            escape(&explain.reason_text)
        );
        if judgement.verdict == Verdict::Rules {
            summary += &format!(
                "; {} group for {}, {} rule(s)",
                explain.group.unwrap_or("no"),
                escape(explain.agent),
                explain.rules.len()
            );
            if let Some(d) = &explain.crawl_delay {
                summary += &format!(", crawl-delay {} s", d.seconds);
            }
            summary += &format!(
                "; {} sitemap(s); {} problem(s)",
                explain.sitemaps.len(),
                problems.len()
            );
        }
        let unreachable = judgement.verdict == Verdict::DisallowAll
            && !matches!(judgement.reason, VerdictReason::NotFetched);
        let mut map = Map::new();
        map.insert("explain".into(), json(&Record::Explain(explain)));
        map.insert("check".into(), check.unwrap_or(Value::Null));
        map.insert("problems".into(), Value::Array(problems));
        answered(summary, Value::Object(map), unreachable, legacy(&ctx))
    }

    /// The origin's robots.txt report, as `crawlgate report --json` gives it.
    #[tool(
        description = "The robots.txt report of a site, as Search Console shows it: status, \
                       last fetch, size, problems by line, the rule in force (the failure \
                       rules' ladder), the versions of the last 30 days with their diffs, the \
                       failure run, the next fetch (next_attempt and not_before while it \
                       cannot be read), and how the agent's requests are paced now \
                       (politeness: the delay, a backoff after 429/503, the next slot). \
                       Fetches the robots.txt when due.",
        annotations(read_only_hint = true, open_world_hint = true),
        output_schema = super::schemas::robots_report()
    )]
    async fn robots_report(
        &self,
        Parameters(p): Parameters<ReportParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let origin = match self.origin(&p.url) {
            Ok(o) => o,
            Err(e) => return *e,
        };
        let server = &self.server;
        let cache = server.engine(server.mode);
        // The agent whose pace is shown: as named, else the server's, else its User-Agent's.
        let (agent, token) = match p.agent.or_else(|| server.agent.clone()) {
            Some(agent) => match crate::crawler::tokens(std::slice::from_ref(&agent), server.mode)
                .map(|t| t.into_iter().next())
            {
                Ok(Some(token)) => (agent, token),
                Ok(None) => return failed("agent: no product token in the agent"),
                Err(e) => return failed(format!("agent: {e:#}")),
            },
            None => {
                let token = default_agent(&cache.options().fetch.user_agent);
                (token.as_str().to_owned(), token)
            }
        };
        cache.current(&origin).await;
        let robots_txt = origin.robots_txt_url();
        if let Some(e) = cache.local_failure(&origin).await {
            return failed(format!(
                "{robots_txt}: not fetched: {e}; nothing was recorded (try again)"
            ));
        }
        // The report reads the store: what the engine holds is written first.
        if let Err(e) = cache.flush().await {
            return failed(format!("the crawl state could not be written: {e}"));
        }
        let store = &server.state.store;
        let state = match store.load(&origin).await {
            Ok(Some(s)) => s,
            Ok(None) => return failed(format!("{robots_txt}: nothing recorded")),
            Err(e) => return failed(format!("the crawl state could not be read: {e}")),
        };
        let mut bodies: HashMap<Digest, Arc<[u8]>> = HashMap::new();
        for digest in state.digests() {
            if let Ok(Some(body)) = store.body(&origin, &digest).await {
                bodies.insert(digest, body);
            }
        }
        let now = match crate::clock::now() {
            Ok(now) => now,
            Err(e) => return failed(format!("{e:#}")),
        };
        let inputs = Inputs {
            origin: &origin,
            state: &state,
            bodies: &bodies,
            now,
            agents: &[],
            urls: &[],
            mode: server.mode,
        };
        let Some(mut report) = build(&inputs) else {
            return failed(format!("{robots_txt}: nothing recorded"));
        };
        report.politeness = politeness::now(cache, &origin, &agent, &token)
            .await
            .into_iter()
            .collect();
        let mut summary = format!(
            "{}: {}; {} version(s) in 30 days",
            escape(&robots_txt),
            escape(&report.status_text),
            report.versions.len()
        );
        if report.errors + report.warnings > 0 {
            summary += &format!(
                "; {}",
                crate::output::problems(report.errors, report.warnings)
            );
        }
        if let Some(next) = &report.next_fetch {
            summary += &format!("; next fetch {next}");
        }
        for pace in &report.politeness {
            summary += &format!("; {}: {}", escape(&pace.agent), pace.text);
        }
        answered(summary, json(&Record::Report(&report)), false, legacy(&ctx))
    }

    /// A URL's whole crawl policy for the agent, as `crawlgate policy --json` gives it.
    #[tool(
        description = "The whole crawl policy of one URL for an agent, each part with its \
                       source: robots.txt (allowed or not, the deciding rule, the verdict), a \
                       refusal at the site's edge seen when robots.txt was fetched (a bot \
                       challenge, 402 Payment Required with its price headers), TDMRep \
                       (text-and-data-mining reservation from the page or \
                       /.well-known/tdmrep.json), and the page's own directives \
                       (X-Robots-Tag, meta robots, noai/noimageai, index, follow, snippet), \
                       with warnings where they combine badly (a disallowed page that says \
                       noindex). The page is read once unless page is false.",
        annotations(read_only_hint = true, open_world_hint = true),
        output_schema = super::schemas::crawl_policy()
    )]
    async fn crawl_policy(
        &self,
        Parameters(p): Parameters<PolicyParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let (crawlers, mode) = match self.crawler(p.agent, p.mode) {
            Ok(c) => c,
            Err(e) => return *e,
        };
        let origin = match self.origin(&p.url) {
            Ok(o) => o,
            Err(e) => return *e,
        };
        let Some(token) = crawlers.each().next().and_then(|c| c.first()) else {
            return failed("no agent to answer for");
        };
        let cache = self.server.engine(mode);
        cache.current(&origin).await;
        if let Some(e) = cache.local_failure(&origin).await {
            return failed(format!(
                "{}: not fetched: {e}; nothing was recorded (try again)",
                origin.robots_txt_url()
            ));
        }
        let (page, page_error) = if p.page {
            match pages::fetch(cache, &self.server.pages, &p.url).await {
                Ok(r) => (Some(pages::part(cache, token, &p.url, &r)), None),
                Err(e) => (None, Some(e)),
            }
        } else {
            (None, None)
        };
        let policy = match cache.crawl_policy(token, &p.url, page).await {
            Ok(policy) => policy,
            Err(e) => return failed(format!("url: {e}")),
        };
        let r = &policy.robots;
        let mut summary = format!(
            "{}: {} for {}",
            escape(&policy.url),
            if r.allowed { "allowed" } else { "disallowed" },
            escape(&policy.agent)
        );
        if let Some(rule) = &r.rule {
            summary += &format!(" (line {}: {})", rule.line, escape(&rule.text));
        } else {
            summary += &format!(" ({})", escape(&r.reason.to_string()));
        }
        if let Some(edge) = &policy.edge {
            summary += &format!("; edge: {}", edge.as_str());
        }
        summary += &format!("; tdm: {}", policy.tdm.reservation.as_str());
        match (&policy.page, &page_error) {
            (Some(page), _) => {
                let rules = &page.directives.rules;
                let no = |b: bool, word: &str| {
                    if b {
                        String::new()
                    } else {
                        format!(" no{word}")
                    }
                };
                summary += &format!(
                    "; page: HTTP {}{}{}{}{}",
                    page.status,
                    no(rules.index, "index"),
                    no(rules.follow, "follow"),
                    if rules.noai { " noai" } else { "" },
                    if rules.noimageai { " noimageai" } else { "" }
                );
            }
            (None, Some(e)) => summary += &format!("; page not read: {}", escape(e)),
            (None, None) => {}
        }
        for w in &policy.warnings {
            summary += &format!("; warning[{}]: {}", w.code(), w.message());
        }
        answered(summary, json(&Record::Policy(&policy)), false, legacy(&ctx))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("crawlgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Before fetching a URL, call check_url: fetch only when it answers allowed, and \
                 wait crawl_delay.seconds between requests to one site. unreachable means the \
                 site's robots.txt could not be read: do not fetch. explain_robots shows why; \
                 robots_report shows the robots.txt's history and the pace of your requests; \
                 crawl_policy gives a page's whole policy (robots.txt, the edge, TDMRep, its \
                 own directives).",
            )
    }
}
