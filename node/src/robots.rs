//! `Robots`: a parsed robots.txt (`Robots.parse`), or a fetched one read under RFC 9309's
//! status rules and the edge refusals (`Robots.fromResponse`), and its answers.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use crawlgate::http::{response_fetch, FetchOptions, HtmlRobotsTxt};
use crawlgate::policy::{FetchOutcome, OriginState, PolicyOptions, Verdict};
use crawlgate::{OtherKey, ProductToken, Reason, RuleRef};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::input::{self, Body, Headers};

/// How to parse a body.
#[napi(object, object_to_js = false)]
pub struct ParseOptions {
    /// `"rfc"` (RFC 9309, the default) or `"google"` (google/robotstxt's behaviour).
    pub mode: Option<String>,
    /// The size limit in bytes (default 512,000; never less).
    pub max_bytes: Option<i64>,
    /// `false` skips looking for problems (`diagnostics` is then empty; same rules, faster).
    pub diagnostics: Option<bool>,
    /// `Robots.fromResponse` only: a 2xx HTML page (a bot wall, a soft 404) is `"parse"`d
    /// as RFC 9309 says (the default, as the engine's), or read as `"unreachable"`.
    pub html: Option<String>,
}

/// A fetched robots.txt response.
#[napi(object, object_to_js = false)]
pub struct RobotsResponse {
    /// The HTTP status of the final response (after redirects).
    pub status: i64,
    /// Its header fields: `[name, value]` pairs or an object of strings (or string arrays).
    #[napi(ts_type = "Array<[string, string]> | Record<string, string | string[]>")]
    pub headers: Option<Headers>,
    /// Its body (string or bytes); only a 2xx body is read.
    pub body: Option<Body>,
}

/// An `allow` or `disallow` rule as the file wrote it.
#[napi(object)]
#[derive(Clone)]
pub struct Rule {
    /// `"allow"` or `"disallow"`.
    pub kind: String,
    /// 1-based line.
    pub line: u32,
    /// The line as written, without comment and surrounding whitespace.
    pub text: String,
    /// The path pattern (for an `indexHtml` rule, the derived `/dir/$`).
    pub pattern: String,
    /// Google mode only: the `/dir/$` rule derived from `Allow: /dir/index.html`.
    pub index_html: bool,
}

impl From<RuleRef<'_>> for Rule {
    fn from(r: RuleRef<'_>) -> Self {
        Rule {
            kind: r.kind.as_str().to_owned(),
            line: r.line,
            text: r.text.to_string(),
            pattern: r.pattern.to_owned(),
            index_html: r.index_html,
        }
    }
}

/// The answer to "may this agent fetch this URL?", with what decided it (the fields of
/// `crawlgate check --json`).
#[napi(object)]
pub struct Decision {
    /// May the agent fetch it?
    pub allowed: bool,
    /// Which groups applied: `"token"`, `"star"` or `"none"`.
    pub group: String,
    /// What decided: `"rule"`, `"no-matching-rule"`, `"no-group"`, `"robots-txt"`, or (no
    /// rules in force, `Robots.fromResponse`) `"allow-all"` / `"disallow-all"`.
    pub reason: String,
    /// The deciding rule's 1-based line, when a rule decided.
    pub line: Option<u32>,
    /// The deciding rule, when a rule decided.
    pub rule: Option<Rule>,
}

impl From<crawlgate::Decision<'_>> for Decision {
    fn from(d: crawlgate::Decision<'_>) -> Self {
        let rule = match d.reason {
            Reason::Rule(r) => Some(Rule::from(r)),
            _ => None,
        };
        Decision {
            allowed: d.allowed,
            group: d.group.as_str().to_owned(),
            reason: d.reason.as_str().to_owned(),
            line: rule.as_ref().map(|r| r.line),
            rule,
        }
    }
}

/// One problem found while parsing.
#[napi(object)]
pub struct Diagnostic {
    /// Stable kebab-case code (`"misspelled-key"`, `"invalid-utf8"`, …; docs/diagnostics.md).
    pub code: String,
    /// `"error"` (the line is not used) or `"warning"` (it is used).
    pub severity: String,
    /// 1-based line.
    pub line: u32,
    /// Byte offset of the start in the body.
    pub start: u32,
    /// Byte offset of the end in the body.
    pub end: u32,
    /// A sentence for people.
    pub message: String,
}

/// A record outside the protocol (`crawl-delay`, `host`, `request-rate`, …).
#[napi(object)]
pub struct OtherRecord {
    /// The canonical lowercase key.
    pub key: String,
    /// The value as written.
    pub value: String,
    /// 1-based line.
    pub line: u32,
}

/// A `request-rate` record: `requests` per `seconds`.
#[napi(object)]
#[derive(Clone)]
pub struct RequestRate {
    /// Requests allowed per window.
    pub requests: u32,
    /// The window in seconds.
    pub seconds: f64,
    /// Seconds between requests (`seconds / requests`).
    pub delay: f64,
}

impl From<&crawlgate::RequestRate> for RequestRate {
    fn from(r: &crawlgate::RequestRate) -> Self {
        let seconds = r.per.as_secs_f64();
        RequestRate {
            requests: r.requests,
            seconds,
            delay: seconds / f64::from(r.requests.max(1)),
        }
    }
}

/// A `Content-Usage` rule (IETF AI preferences), as written.
#[napi(object)]
pub struct ContentUsageRule {
    /// 1-based line.
    pub line: u32,
    /// The line as written.
    pub text: String,
    /// The path as written; absent when the rule covers every path.
    pub path: Option<String>,
    /// The statement of preference as written.
    pub statement: String,
    /// `train-ai`: `"allowed"`, `"disallowed"` or `"unknown"`.
    pub train_ai: String,
    /// `search`: `"allowed"`, `"disallowed"` or `"unknown"`.
    pub search: String,
}

/// A `Content-Signal` line (Cloudflare's), as written.
#[napi(object)]
pub struct ContentSignalLine {
    /// 1-based line.
    pub line: u32,
    /// The line as written.
    pub text: String,
    /// `search`: `"allowed"`, `"disallowed"` or `"unknown"`.
    pub search: String,
    /// `ai-input`.
    pub ai_input: String,
    /// `ai-train`.
    pub ai_train: String,
}

/// A global `License` (RSL) or `LLM-Policy` record.
#[napi(object)]
pub struct PolicyLink {
    /// The URL as written.
    pub url: String,
    /// 1-based line.
    pub line: u32,
}

/// The usage preferences in force for one agent at one URL.
#[napi(object)]
pub struct Usage {
    /// May the agent crawl the URL at all (preferences apply only if so)?
    pub allowed: bool,
    /// `train-ai`: `"allowed"`, `"disallowed"` or `"unknown"`.
    pub train_ai: String,
    /// `search`.
    pub search: String,
    /// The lines of the `Content-Usage` rules they come from.
    pub lines: Vec<u32>,
}

/// A parsed, compiled robots.txt, with the verdict it was read under.
#[napi]
pub struct Robots {
    pub(crate) robots: Arc<crawlgate::Robots>,
    diagnostics: Arc<[crawlgate::Diagnostic]>,
    verdict: Verdict,
    reason: &'static str,
    message: String,
    html: bool,
    /// The last agent string read and its token: a crawler asks with one agent, and reading
    /// it again for every check was a third of a check's time.
    last_agent: Mutex<Option<(String, ProductToken)>>,
    /// The handle the JavaScript side's `isAllowed` and `isAllowedMany` go through, made on
    /// first use.
    fast: OnceLock<Arc<Fast>>,
}

/// What a check reads, behind a plain handle (`External`) rather than the class: a call
/// through a free function and a handle costs a fraction of a class method's dispatch
/// (napi-rs checks the receiver's class on every method call; `node/bench/calls.js`).
pub struct Fast {
    robots: Arc<crawlgate::Robots>,
    verdict: Verdict,
    last_agent: Mutex<Option<(String, ProductToken)>>,
}

impl Fast {
    /// The rules' answer under the verdict in force (allow-all and disallow-all answer alike
    /// for every URL).
    fn allowed(&self, token: &ProductToken, url: &str) -> bool {
        match self.verdict {
            Verdict::Rules => self.robots.is_allowed(token, url),
            v => v == Verdict::AllowAll,
        }
    }

    fn is_allowed(&self, url: &str, agent: &str) -> Result<bool> {
        let token = read_token(&self.last_agent, agent, self.robots.mode())?;
        Ok(self.allowed(&token, url))
    }

    /// `is_allowed` for the agent of the last call.
    fn is_allowed_again(&self, url: &str) -> Result<bool> {
        let token = {
            let last = self.last_agent.lock().unwrap_or_else(|e| e.into_inner());
            match last.as_ref() {
                Some((_, token)) => token.clone(),
                None => return Err(input::invalid("no agent was given to this object yet")),
            }
        };
        Ok(self.allowed(&token, url))
    }

    fn is_allowed_many(&self, urls: &[String], agent: &str) -> Result<Vec<bool>> {
        let token = read_token(&self.last_agent, agent, self.robots.mode())?;
        Ok(urls.iter().map(|url| self.allowed(&token, url)).collect())
    }
}

/// `robots.isAllowed(url, agent)` through the handle (`index.js` puts it behind the method).
#[napi(skip_typescript)]
pub fn robots_is_allowed(handle: &External<Arc<Fast>>, url: String, agent: String) -> Result<bool> {
    handle.is_allowed(&url, &agent)
}

/// `robots.isAllowed(url, agent)` through the handle, for the agent of the handle's last call
/// (`index.js` keeps which it was): the agent is not read again.
#[napi(skip_typescript)]
pub fn robots_is_allowed_again(handle: &External<Arc<Fast>>, url: String) -> Result<bool> {
    handle.is_allowed_again(&url)
}

/// `robots.isAllowedMany(urls, agent)` through the handle.
#[napi(skip_typescript)]
pub fn robots_is_allowed_many(
    handle: &External<Arc<Fast>>,
    urls: Vec<String>,
    agent: String,
) -> Result<Vec<bool>> {
    handle.is_allowed_many(&urls, &agent)
}

fn options(o: &Option<ParseOptions>) -> Result<crawlgate::Options> {
    let mode = input::mode(o.as_ref().and_then(|o| o.mode.as_deref()))?;
    let mut options = crawlgate::Options::mode(mode);
    if let Some(o) = o {
        if let Some(m) = o.max_bytes {
            options.max_bytes = usize::try_from(m)
                .map_err(|_| input::invalid(format!("maxBytes must be a byte count, not {m}")))?;
        }
        if let Some(d) = o.diagnostics {
            options.diagnostics = d;
        }
    }
    Ok(options)
}

#[napi]
impl Robots {
    /// Parses a robots.txt body (a string or bytes). Never fails on content: problems are in
    /// `diagnostics`. Throws on a bad `mode`.
    #[napi(factory)]
    pub fn parse(body: Body, options: Option<ParseOptions>) -> Result<Robots> {
        let options = self::options(&options)?;
        let parsed = crawlgate::Robots::parse_with(input::bytes(&body), &options);
        Ok(Robots {
            robots: Arc::new(parsed.robots),
            diagnostics: parsed.diagnostics.into(),
            verdict: Verdict::Rules,
            reason: "fetched",
            message: "robots.txt was fetched and parsed".to_owned(),
            html: false,
            last_agent: Mutex::new(None),
            fast: OnceLock::new(),
        })
    }

    /// Reads a fetched robots.txt response as the engine reads one: a challenge marker
    /// (`cf-mitigated: challenge`, …) whatever the status, 429 and 5xx are unreachable
    /// (disallow all); 402 is payment required (disallow all); other 3xx and 4xx are "no
    /// robots.txt" (allow all); a 2xx body is parsed (an HTML page too, unless `html:
    /// "unreachable"`). `verdict`, `reason` and `message` say which applied.
    #[napi(factory)]
    pub fn from_response(
        response: RobotsResponse,
        options: Option<ParseOptions>,
    ) -> Result<Robots> {
        let parse = self::options(&options)?;
        let status = input::status(response.status)?;
        let pairs = input::header_pairs(response.headers)?;
        let headers = input::header_map(&pairs);
        let mut fetch_options = FetchOptions::default();
        fetch_options.mode = parse.mode;
        fetch_options.max_bytes = parse.max_bytes;
        fetch_options.html = match options.as_ref().and_then(|o| o.html.as_deref()) {
            None | Some("parse") => HtmlRobotsTxt::Parse,
            Some("unreachable") => HtmlRobotsTxt::Unreachable,
            Some(other) => {
                return Err(input::invalid(format!(
                    "html must be \"parse\" or \"unreachable\", not {other:?}"
                )))
            }
        };
        let body = response.body.as_ref().map(input::bytes).unwrap_or_default();
        let now = SystemTime::now();
        let fetch = response_fetch("", status, &headers, body, &fetch_options, now);
        // The failure ladder's first step: one fetch recorded, judged at once.
        let mut state = OriginState::new();
        state.record(now, &fetch);
        let judgement = state.verdict_at(now, &PolicyOptions::default());
        let (robots, diagnostics) = match &fetch.outcome {
            FetchOutcome::Rules { parsed, .. } if judgement.verdict == Verdict::Rules => (
                parsed.robots.clone(),
                Arc::<[crawlgate::Diagnostic]>::from(parsed.diagnostics.clone()),
            ),
            _ => (
                crawlgate::Robots::allow_all(parse.mode),
                Arc::<[crawlgate::Diagnostic]>::from(Vec::new()),
            ),
        };
        Ok(Robots {
            robots: Arc::new(robots),
            diagnostics,
            verdict: judgement.verdict,
            reason: judgement.reason.as_str(),
            message: judgement.reason.to_string(),
            html: fetch.html,
            last_agent: Mutex::new(None),
            fast: OnceLock::new(),
        })
    }

    /// An empty rule set: everything allowed.
    #[napi(factory)]
    pub fn allow_all(mode: Option<String>) -> Result<Robots> {
        let mode = input::mode(mode.as_deref())?;
        Ok(Robots {
            robots: Arc::new(crawlgate::Robots::allow_all(mode)),
            diagnostics: Arc::from(Vec::new()),
            verdict: Verdict::Rules,
            reason: "fetched",
            message: "robots.txt was fetched and parsed".to_owned(),
            html: false,
            last_agent: Mutex::new(None),
            fast: OnceLock::new(),
        })
    }

    /// `"rfc"` or `"google"`.
    #[napi(getter)]
    pub fn mode(&self) -> &'static str {
        self.robots.mode().as_str()
    }

    /// `"rules"` (obey the rules), `"allow-all"` or `"disallow-all"`.
    #[napi(getter)]
    pub fn verdict(&self) -> &'static str {
        self.verdict.as_str()
    }

    /// Why: `"fetched"`, `"no-robots-txt"`, `"unreachable"`, `"payment-required"`, …
    #[napi(getter)]
    pub fn reason(&self) -> &'static str {
        self.reason
    }

    /// The reason in words.
    #[napi(getter)]
    pub fn message(&self) -> String {
        self.message.clone()
    }

    /// `Robots.fromResponse`: the 2xx body was an HTML page (a bot wall or soft 404).
    #[napi(getter)]
    pub fn html(&self) -> bool {
        self.html
    }

    /// Problems found while parsing, in line order.
    #[napi(getter)]
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .iter()
            .map(|d| Diagnostic {
                code: d.code.as_str().to_owned(),
                severity: d.severity.as_str().to_owned(),
                line: d.line,
                start: u32::try_from(d.span.start).unwrap_or(u32::MAX),
                end: u32::try_from(d.span.end).unwrap_or(u32::MAX),
                message: d.message.to_string(),
            })
            .collect()
    }

    /// Bytes of input read (at most the size limit).
    #[napi(getter)]
    pub fn bytes_used(&self) -> u32 {
        u32::try_from(self.robots.bytes_used()).unwrap_or(u32::MAX)
    }

    /// Number of allow/disallow rules in use.
    #[napi(getter)]
    pub fn rule_count(&self) -> u32 {
        u32::try_from(self.robots.rule_count()).unwrap_or(u32::MAX)
    }

    /// The `sitemap` URLs, in file order.
    #[napi(getter)]
    pub fn sitemaps(&self) -> Vec<String> {
        self.robots.sitemaps().map(|s| s.url.to_owned()).collect()
    }

    /// Records outside the protocol, in file order (`{key: "crawl-delay", value: "10",
    /// line: 3}`).
    #[napi(getter)]
    pub fn records(&self) -> Vec<OtherRecord> {
        self.robots
            .records()
            .map(|r| OtherRecord {
                key: r.key.as_str().to_owned(),
                value: r.value.to_owned(),
                line: r.line,
            })
            .collect()
    }

    /// The `Host` record's value (Yandex's preferred mirror), if any: the first.
    #[napi(getter)]
    pub fn host(&self) -> Option<String> {
        self.robots
            .records()
            .find(|r| r.key == OtherKey::Host)
            .map(|r| r.value.to_owned())
    }

    /// Every `Content-Usage` rule, in file order.
    #[napi(getter)]
    pub fn content_usage(&self) -> Vec<ContentUsageRule> {
        self.robots
            .content_usage_rules()
            .map(|r| ContentUsageRule {
                line: r.line,
                text: r.text.to_owned(),
                path: r.path.map(str::to_owned),
                statement: r.statement.to_owned(),
                train_ai: r.preferences.train_ai.as_str().to_owned(),
                search: r.preferences.search.as_str().to_owned(),
            })
            .collect()
    }

    /// Every `Content-Signal` line, in file order.
    #[napi(getter)]
    pub fn content_signals(&self) -> Vec<ContentSignalLine> {
        self.robots
            .content_signal_lines()
            .map(|s| ContentSignalLine {
                line: s.line,
                text: s.text.to_owned(),
                search: s.signals.search.as_str().to_owned(),
                ai_input: s.signals.ai_input.as_str().to_owned(),
                ai_train: s.signals.ai_train.as_str().to_owned(),
            })
            .collect()
    }

    /// The `License` records (RSL), in file order.
    #[napi(getter)]
    pub fn licenses(&self) -> Vec<PolicyLink> {
        links(self.robots.licenses())
    }

    /// The `LLM-Policy` records, in file order.
    #[napi(getter)]
    pub fn llm_policies(&self) -> Vec<PolicyLink> {
        links(self.robots.llm_policies())
    }

    /// Decides whether `agent` may fetch `url` (an absolute URL or a path). In `"rfc"` mode
    /// `agent` is a product token or User-Agent header (throws when it has none); in
    /// `"google"` mode any string, compared whole.
    #[napi]
    pub fn check(&self, url: String, agent: String) -> Result<Decision> {
        let token = self.token(&agent)?;
        Ok(match self.verdict {
            Verdict::Rules => self.robots.check(&token, &url).into(),
            v => fixed(v == Verdict::AllowAll),
        })
    }

    /// `check(url, agent).allowed`, without building the decision.
    #[napi]
    pub fn is_allowed(&self, url: String, agent: String) -> Result<bool> {
        self.fast().is_allowed(&url, &agent)
    }

    /// `isAllowed` for each of `urls`, in order, in one call: a crawler deciding a page's links
    /// crosses from JavaScript once, not once per link.
    #[napi]
    pub fn is_allowed_many(&self, urls: Vec<String>, agent: String) -> Result<Vec<bool>> {
        self.fast().is_allowed_many(&urls, &agent)
    }

    /// The handle of `isAllowed`'s fast path (`index.js`).
    #[napi(getter, js_name = "_fast", skip_typescript)]
    pub fn fast_handle(&self) -> External<Arc<Fast>> {
        External::new(Arc::clone(self.fast()))
    }

    /// The `crawl-delay` (seconds) of the groups that apply to `agent`, if any.
    #[napi]
    pub fn crawl_delay(&self, agent: String) -> Result<Option<f64>> {
        let token = self.token(&agent)?;
        Ok(self.robots.crawl_delay(&token))
    }

    /// The first usable `request-rate` of the groups that apply to `agent`, if any.
    #[napi]
    pub fn request_rate(&self, agent: String) -> Result<Option<RequestRate>> {
        let token = self.token(&agent)?;
        Ok(self
            .robots
            .request_rate(&token)
            .as_ref()
            .map(RequestRate::from))
    }

    /// The `Content-Usage` preferences in force for `agent` at `url`.
    #[napi]
    pub fn usage(&self, url: String, agent: String) -> Result<Usage> {
        let token = self.token(&agent)?;
        let u = self.robots.usage(&token, &url);
        Ok(Usage {
            allowed: u.decision.allowed,
            train_ai: u.preferences.train_ai.as_str().to_owned(),
            search: u.preferences.search.as_str().to_owned(),
            lines: u.rules.iter().map(|r| r.line).collect(),
        })
    }

    /// The rules written back as a clean robots.txt.
    #[napi]
    pub fn to_robots_txt(&self) -> String {
        self.robots.to_robots_txt()
    }
}

impl Robots {
    /// `agent` read as the mode reads it, from the last one when it is the same string.
    fn token(&self, agent: &str) -> Result<ProductToken> {
        read_token(&self.last_agent, agent, self.robots.mode())
    }

    fn fast(&self) -> &Arc<Fast> {
        self.fast.get_or_init(|| {
            Arc::new(Fast {
                robots: Arc::clone(&self.robots),
                verdict: self.verdict,
                last_agent: Mutex::new(None),
            })
        })
    }
}

/// `agent` read as `mode` reads it, from `last` when it is the same string.
fn read_token(
    last: &Mutex<Option<(String, ProductToken)>>,
    agent: &str,
    mode: crawlgate::Mode,
) -> Result<ProductToken> {
    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((text, token)) = last.as_ref() {
        if text == agent {
            return Ok(token.clone());
        }
    }
    let token = input::agent(agent, mode)?;
    *last = Some((agent.to_owned(), token.clone()));
    Ok(token)
}

fn links(links: &[crawlgate::PolicyLink]) -> Vec<PolicyLink> {
    links
        .iter()
        .map(|l| PolicyLink {
            url: l.url.clone(),
            line: l.line,
        })
        .collect()
}

/// The decision when no rules are in force.
fn fixed(allowed: bool) -> Decision {
    Decision {
        allowed,
        group: "none".to_owned(),
        reason: if allowed { "allow-all" } else { "disallow-all" }.to_owned(),
        line: None,
        rule: None,
    }
}
