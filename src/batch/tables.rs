//! The three tables, `captures`, `agents` and `rules`, built as Arrow arrays, one row at a
//! time, and finished as record batches. Their schema is [`SCHEMA_VERSION`]; `docs/batch.md`
//! documents every column, and a test holds the two together.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use sha2::{Digest, Sha256};

use super::{judge, Capture, Judgement, Resolution, StatusClass, Unreadable};
use crate::audit::{audit, lint, Catalogue, CrawlerAudit, PathAudit, Purpose};
use crate::diagnostic::Severity;
use crate::origin::Origin;
use crate::policy::Verdict;
use crate::robots::{Agent, Options, OtherKey, Robots};

/// The version of the tables' schema, in every row. It goes up when a column is added,
/// removed or changes meaning.
pub const SCHEMA_VERSION: u16 = 1;

/// The parser that judged, in every row: `crawlgate` and its version.
pub const PARSER: &str = concat!("crawlgate ", env!("CARGO_PKG_VERSION"));

/// What a run asks.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The parser's mode and size limit.
    pub options: Options,
    /// The crawlers of the `agents` table.
    pub catalogue: Catalogue,
    /// Only these crawlers (catalogue names, compared without case); empty: all.
    pub agents: Vec<String>,
    /// Only crawlers of these purposes; empty: all.
    pub purposes: Vec<Purpose>,
    /// Paths asked about besides `/` (a row each in `agents`).
    pub paths: Vec<String>,
    /// Whether to fill the `rules` table.
    pub rules: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            options: Options::default(),
            catalogue: Catalogue::builtin(),
            agents: Vec::new(),
            purposes: Vec::new(),
            paths: Vec::new(),
            rules: false,
        }
    }
}

impl Settings {
    fn selects(&self, a: &CrawlerAudit<'_, '_>) -> bool {
        (self.agents.is_empty()
            || self
                .agents
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&a.crawler.name)))
            && (self.purposes.is_empty() || self.purposes.contains(&a.crawler.purpose))
    }
}

/// The three tables of a chunk of captures.
#[derive(Debug, Clone)]
pub struct Batches {
    /// One row per capture (and per unreadable stretch of input).
    pub captures: RecordBatch,
    /// One row per capture × crawler × path (`/` first, then each path asked about).
    pub agents: RecordBatch,
    /// One row per rule of each capture judged `rules` or `not-robots` (empty unless asked).
    pub rules: RecordBatch,
}

type Strings = ListBuilder<StringBuilder>;
type Lines = ListBuilder<UInt32Builder>;

/// The columns every table starts with.
#[derive(Default)]
struct Common {
    schema_version: UInt16Builder,
    parser: StringBuilder,
    mode: StringBuilder,
    input: StringBuilder,
    record: UInt64Builder,
    url: StringBuilder,
}

impl Common {
    fn push(&mut self, mode: &str, input: &str, record: u64, url: Option<&str>) {
        self.schema_version.append_value(SCHEMA_VERSION);
        self.parser.append_value(PARSER);
        self.mode.append_value(mode);
        self.input.append_value(input);
        self.record.append_value(record);
        self.url.append_option(url);
    }

    fn fields() -> Vec<Field> {
        vec![
            Field::new("schema_version", DataType::UInt16, false),
            Field::new("parser", DataType::Utf8, false),
            Field::new("mode", DataType::Utf8, false),
            Field::new("input", DataType::Utf8, false),
            Field::new("record", DataType::UInt64, false),
            Field::new("url", DataType::Utf8, true),
        ]
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.schema_version.finish()),
            Arc::new(self.parser.finish()),
            Arc::new(self.mode.finish()),
            Arc::new(self.input.finish()),
            Arc::new(self.record.finish()),
            Arc::new(self.url.finish()),
        ]
    }
}

fn strings(name: &str) -> Field {
    Field::new_list(name, Field::new_list_field(DataType::Utf8, true), false)
}

fn lines(name: &str) -> Field {
    Field::new_list(name, Field::new_list_field(DataType::UInt32, true), false)
}

fn append_strings<S: AsRef<str>>(b: &mut Strings, items: impl IntoIterator<Item = S>) {
    for s in items {
        b.values().append_value(s);
    }
    b.append(true);
}

fn append_lines(b: &mut Lines, items: impl IntoIterator<Item = u32>) {
    for n in items {
        b.values().append_value(n);
    }
    b.append(true);
}

#[derive(Default)]
struct CaptureColumns {
    common: Common,
    offset: UInt64Builder,
    crawl: StringBuilder,
    host: StringBuilder,
    origin: StringBuilder,
    fetch_time: StringBuilder,
    status: UInt16Builder,
    status_class: StringBuilder,
    verdict: StringBuilder,
    reason: StringBuilder,
    redirect_target: StringBuilder,
    content_type: StringBuilder,
    body_bytes: UInt64Builder,
    body_sha256: StringBuilder,
    warc_truncated: StringBuilder,
    over_limit: BooleanBuilder,
    empty: BooleanBuilder,
    errors: UInt32Builder,
    warnings: UInt32Builder,
    codes: Strings,
    groups: UInt32Builder,
    agents_joined: BooleanBuilder,
    sitemaps: Strings,
    invalid_sitemaps: UInt32Builder,
    crawl_delays: Strings,
    content_usage: Strings,
    content_signal: Strings,
    licenses: Strings,
}

fn capture_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let mut f = Common::fields();
            f.extend([
                Field::new("offset", DataType::UInt64, true),
                Field::new("crawl", DataType::Utf8, true),
                Field::new("host", DataType::Utf8, true),
                Field::new("origin", DataType::Utf8, true),
                Field::new("fetch_time", DataType::Utf8, true),
                Field::new("status", DataType::UInt16, true),
                Field::new("status_class", DataType::Utf8, false),
                Field::new("verdict", DataType::Utf8, true),
                Field::new("reason", DataType::Utf8, true),
                Field::new("redirect_target", DataType::Utf8, true),
                Field::new("content_type", DataType::Utf8, true),
                Field::new("body_bytes", DataType::UInt64, true),
                Field::new("body_sha256", DataType::Utf8, true),
                Field::new("warc_truncated", DataType::Utf8, true),
                Field::new("over_limit", DataType::Boolean, false),
                Field::new("empty", DataType::Boolean, false),
                Field::new("errors", DataType::UInt32, false),
                Field::new("warnings", DataType::UInt32, false),
                strings("codes"),
                Field::new("groups", DataType::UInt32, false),
                Field::new("agents_joined", DataType::Boolean, false),
                strings("sitemaps"),
                Field::new("invalid_sitemaps", DataType::UInt32, false),
                strings("crawl_delays"),
                strings("content_usage"),
                strings("content_signal"),
                strings("licenses"),
            ]);
            Arc::new(Schema::new(f))
        })
        .clone()
}

#[derive(Default)]
struct AgentColumns {
    common: Common,
    host: StringBuilder,
    agent: StringBuilder,
    token: StringBuilder,
    purpose: StringBuilder,
    respects: StringBuilder,
    status_class: StringBuilder,
    verdict: StringBuilder,
    group: StringBuilder,
    group_lines: Lines,
    path: StringBuilder,
    access: StringBuilder,
    allowed: BooleanBuilder,
    line: UInt32Builder,
    rule: StringBuilder,
    other_line: UInt32Builder,
    crawl_delay: Float64Builder,
    usage_search: StringBuilder,
    usage_train_ai: StringBuilder,
    usage_lines: Lines,
    signal_search: StringBuilder,
    signal_ai_input: StringBuilder,
    signal_ai_train: StringBuilder,
    signal_lines: Lines,
}

fn agent_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let mut f = Common::fields();
            f.extend([
                Field::new("host", DataType::Utf8, true),
                Field::new("agent", DataType::Utf8, false),
                Field::new("token", DataType::Utf8, true),
                Field::new("purpose", DataType::Utf8, false),
                Field::new("respects", DataType::Utf8, false),
                Field::new("status_class", DataType::Utf8, false),
                Field::new("verdict", DataType::Utf8, false),
                Field::new("group", DataType::Utf8, false),
                lines("group_lines"),
                Field::new("path", DataType::Utf8, false),
                Field::new("access", DataType::Utf8, false),
                Field::new("allowed", DataType::Boolean, false),
                Field::new("line", DataType::UInt32, true),
                Field::new("rule", DataType::Utf8, true),
                Field::new("other_line", DataType::UInt32, true),
                Field::new("crawl_delay", DataType::Float64, true),
                Field::new("usage_search", DataType::Utf8, false),
                Field::new("usage_train_ai", DataType::Utf8, false),
                lines("usage_lines"),
                Field::new("signal_search", DataType::Utf8, false),
                Field::new("signal_ai_input", DataType::Utf8, false),
                Field::new("signal_ai_train", DataType::Utf8, false),
                lines("signal_lines"),
            ]);
            Arc::new(Schema::new(f))
        })
        .clone()
}

#[derive(Default)]
struct RuleColumns {
    common: Common,
    group: UInt32Builder,
    group_line: UInt32Builder,
    agents: Strings,
    line: UInt32Builder,
    kind: StringBuilder,
    pattern: StringBuilder,
}

fn rule_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let mut f = Common::fields();
            f.extend([
                Field::new("group", DataType::UInt32, false),
                Field::new("group_line", DataType::UInt32, false),
                strings("agents"),
                Field::new("line", DataType::UInt32, false),
                Field::new("kind", DataType::Utf8, false),
                Field::new("pattern", DataType::Utf8, false),
            ]);
            Arc::new(Schema::new(f))
        })
        .clone()
}

/// The tables of a chunk of captures, row by row ([`Tables::push`]), then finished
/// ([`Tables::finish`]) and started anew.
pub struct Tables<'s> {
    settings: &'s Settings,
    mode: &'static str,
    paths: Vec<&'s str>,
    captures: CaptureColumns,
    agents: AgentColumns,
    rules: RuleColumns,
    rows: usize,
}

/// What a capture's body said, for its `captures` row.
struct BodyFacts {
    errors: u32,
    warnings: u32,
    codes: BTreeSet<&'static str>,
    invalid_sitemaps: u32,
}

impl<'s> Tables<'s> {
    /// Empty tables for a run with `settings`.
    pub fn new(settings: &'s Settings) -> Tables<'s> {
        Tables {
            settings,
            mode: settings.options.mode.as_str(),
            paths: settings.paths.iter().map(String::as_str).collect(),
            captures: CaptureColumns::default(),
            agents: AgentColumns::default(),
            rules: RuleColumns::default(),
            rows: 0,
        }
    }

    /// Rows pushed since the last [`Tables::finish`], over the three tables.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows of `capture`. A redirect held back ([`super::Redirects`]) comes with what it
    /// resolved to: the target's class and body then stand for it; a redirect pushed with
    /// `None` is `redirect-unresolved`.
    pub fn push(&mut self, capture: &Capture, resolution: Option<&Resolution<'_>>) {
        let max = self.settings.options.max_bytes;
        let (judged, target, redirect_target) = match resolution {
            Some(Resolution::Target(t)) => (judge(t, max), Some(*t), Some(t.url.as_str())),
            Some(Resolution::Unavailable(why)) => (
                Judgement {
                    class: StatusClass::AllowAll,
                    verdict: Some(Verdict::AllowAll),
                    reason: Some(why.to_string()),
                },
                None,
                None,
            ),
            Some(Resolution::Missing) | None => (judge(capture, max), None, None),
        };
        let body_of = target.unwrap_or(capture);
        let parsed_body = matches!(judged.verdict, Some(Verdict::Rules))
            .then(|| Robots::parse_with(&body_of.body, &self.settings.options));
        let url = capture.url.as_str();
        let origin = Origin::from_url(url).ok();
        let host = origin.as_ref().map(|o| o.host().to_owned());
        let place = &capture.place;
        let c = &mut self.captures;
        c.common
            .push(self.mode, &place.input, place.record, Some(url));
        c.offset.append_option(place.offset);
        c.crawl.append_option(place.crawl.as_deref());
        c.host.append_option(host.as_deref());
        c.origin
            .append_option(origin.as_ref().map(|o| o.to_string()));
        c.fetch_time.append_option(capture.fetch_time.as_deref());
        c.status.append_option(capture.status);
        c.status_class.append_value(judged.class.as_str());
        c.verdict.append_option(judged.verdict.map(|v| v.as_str()));
        c.reason.append_option(judged.reason.as_deref());
        c.redirect_target.append_option(redirect_target);
        c.content_type
            .append_option(body_of.content_type.as_deref());
        c.body_bytes.append_value(body_of.body_length);
        c.body_sha256
            .append_value(hex(&Sha256::digest(&body_of.body)));
        c.warc_truncated.append_option(body_of.truncated.as_deref());
        c.over_limit.append_value(body_of.body_length > max as u64);
        c.empty.append_value(body_of.body_length == 0);
        self.rows += 1;
        let Some(parsed) = parsed_body else {
            self.captures_without_body();
            if let Some(verdict) = judged.verdict {
                self.blanket_agents(url, host.as_deref(), capture, judged.class, verdict);
            }
            return;
        };
        let robots = &parsed.robots;
        let mut facts = BodyFacts {
            errors: 0,
            warnings: 0,
            codes: BTreeSet::new(),
            invalid_sitemaps: 0,
        };
        for d in
            parsed
                .diagnostics
                .iter()
                .chain(&lint(robots, &body_of.body, &self.settings.catalogue))
        {
            match d.severity {
                Severity::Error => facts.errors += 1,
                Severity::Warning => facts.warnings += 1,
            }
            facts.codes.insert(d.code.as_str());
            if d.code == crate::diagnostic::Code::InvalidSitemapUrl {
                facts.invalid_sitemaps += 1;
            }
        }
        self.captures_body(robots, &facts);
        let audits = audit(robots, &self.settings.catalogue, &self.paths);
        for a in audits.iter().filter(|a| self.settings.selects(a)) {
            let crawl_delay = a.crawler.token.as_ref().and_then(|t| robots.crawl_delay(t));
            for p in std::iter::once(&a.root).chain(&a.paths) {
                self.agent_row(
                    url,
                    host.as_deref(),
                    capture,
                    judged.class,
                    a,
                    p,
                    crawl_delay,
                );
            }
        }
        if self.settings.rules {
            self.rule_rows(url, capture, robots);
        }
    }

    /// The row of a stretch of input that could not be read.
    pub fn push_unreadable(&mut self, u: &Unreadable) {
        let c = &mut self.captures;
        c.common
            .push(self.mode, &u.place.input, u.place.record, None);
        c.offset.append_option(u.place.offset);
        c.crawl.append_option(u.place.crawl.as_deref());
        c.host.append_null();
        c.origin.append_null();
        c.fetch_time.append_null();
        c.status.append_null();
        c.status_class
            .append_value(StatusClass::Unreadable.as_str());
        c.verdict.append_null();
        c.reason.append_value(&u.reason);
        c.redirect_target.append_null();
        c.content_type.append_null();
        c.body_bytes.append_null();
        c.body_sha256.append_null();
        c.warc_truncated.append_null();
        c.over_limit.append_value(false);
        c.empty.append_value(false);
        self.rows += 1;
        self.captures_without_body();
    }

    fn captures_without_body(&mut self) {
        let c = &mut self.captures;
        c.errors.append_value(0);
        c.warnings.append_value(0);
        append_strings::<&str>(&mut c.codes, []);
        c.groups.append_value(0);
        c.agents_joined.append_value(false);
        append_strings::<&str>(&mut c.sitemaps, []);
        c.invalid_sitemaps.append_value(0);
        append_strings::<&str>(&mut c.crawl_delays, []);
        append_strings::<&str>(&mut c.content_usage, []);
        append_strings::<&str>(&mut c.content_signal, []);
        append_strings::<&str>(&mut c.licenses, []);
    }

    fn captures_body(&mut self, robots: &Robots, facts: &BodyFacts) {
        let c = &mut self.captures;
        c.errors.append_value(facts.errors);
        c.warnings.append_value(facts.warnings);
        append_strings(&mut c.codes, &facts.codes);
        c.groups.append_value(robots.groups().len() as u32);
        c.agents_joined
            .append_value(facts.codes.contains("agents-joined"));
        append_strings(&mut c.sitemaps, robots.sitemaps().map(|s| s.url));
        c.invalid_sitemaps.append_value(facts.invalid_sitemaps);
        append_strings(
            &mut c.crawl_delays,
            robots
                .records()
                .filter(|r| r.key == OtherKey::CrawlDelay)
                .map(|r| format!("{}: {}", r.line, r.value)),
        );
        append_strings(
            &mut c.content_usage,
            robots
                .content_usage_rules()
                .map(|r| format!("{}: {}", r.line, r.text)),
        );
        append_strings(
            &mut c.content_signal,
            robots
                .content_signal_lines()
                .map(|r| format!("{}: {}", r.line, r.text)),
        );
        append_strings(
            &mut c.licenses,
            robots
                .licenses()
                .iter()
                .map(|l| format!("{}: {}", l.line, l.url)),
        );
    }

    /// The `agents` rows of a capture whose verdict is not its rules: every crawler allowed
    /// everything, or nothing.
    fn blanket_agents(
        &mut self,
        url: &str,
        host: Option<&str>,
        capture: &Capture,
        class: StatusClass,
        verdict: Verdict,
    ) {
        let allowed = verdict == Verdict::AllowAll;
        let crawlers = self.settings.catalogue.crawlers();
        let a = &mut self.agents;
        for crawler in crawlers.iter().filter(|c| {
            (self.settings.agents.is_empty()
                || self
                    .settings
                    .agents
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(&c.name)))
                && (self.settings.purposes.is_empty()
                    || self.settings.purposes.contains(&c.purpose))
        }) {
            for path in std::iter::once("/").chain(self.paths.iter().copied()) {
                a.common.push(
                    self.mode,
                    &capture.place.input,
                    capture.place.record,
                    Some(url),
                );
                a.host.append_option(host);
                a.agent.append_value(&crawler.name);
                a.token
                    .append_option(crawler.token.as_ref().map(|t| t.as_str()));
                a.purpose.append_value(crawler.purpose.as_str());
                a.respects.append_value(crawler.respect.as_str());
                a.status_class.append_value(class.as_str());
                a.verdict.append_value(verdict.as_str());
                a.group.append_value("none");
                append_lines(&mut a.group_lines, []);
                a.path.append_value(path);
                a.access
                    .append_value(if allowed { "allowed" } else { "blocked" });
                a.allowed.append_value(allowed);
                a.line.append_null();
                a.rule.append_null();
                a.other_line.append_null();
                a.crawl_delay.append_null();
                a.usage_search.append_value("unknown");
                a.usage_train_ai.append_value("unknown");
                append_lines(&mut a.usage_lines, []);
                a.signal_search.append_value("unknown");
                a.signal_ai_input.append_value("unknown");
                a.signal_ai_train.append_value("unknown");
                append_lines(&mut a.signal_lines, []);
                self.rows += 1;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn agent_row(
        &mut self,
        url: &str,
        host: Option<&str>,
        capture: &Capture,
        class: StatusClass,
        audit: &CrawlerAudit<'_, '_>,
        path: &PathAudit<'_>,
        crawl_delay: Option<f64>,
    ) {
        let a = &mut self.agents;
        let crawler = audit.crawler;
        a.common.push(
            self.mode,
            &capture.place.input,
            capture.place.record,
            Some(url),
        );
        a.host.append_option(host);
        a.agent.append_value(&crawler.name);
        a.token
            .append_option(crawler.token.as_ref().map(|t| t.as_str()));
        a.purpose.append_value(crawler.purpose.as_str());
        a.respects.append_value(crawler.respect.as_str());
        a.status_class.append_value(class.as_str());
        a.verdict.append_value(Verdict::Rules.as_str());
        a.group.append_value(audit.group.as_str());
        append_lines(&mut a.group_lines, audit.group_lines.iter().copied());
        a.path.append_value(&path.path);
        a.access.append_value(path.access.as_str());
        a.allowed.append_value(path.decision.allowed);
        let rule = path.decision.rule();
        a.line.append_option(rule.map(|r| r.line));
        a.rule.append_option(rule.map(|r| r.text.to_string()));
        a.other_line.append_option(path.other.map(|r| r.line));
        a.crawl_delay.append_option(crawl_delay);
        a.usage_search.append_value(audit.usage.search.as_str());
        a.usage_train_ai.append_value(audit.usage.train_ai.as_str());
        append_lines(&mut a.usage_lines, audit.usage_lines.iter().copied());
        a.signal_search.append_value(audit.signals.search.as_str());
        a.signal_ai_input
            .append_value(audit.signals.ai_input.as_str());
        a.signal_ai_train
            .append_value(audit.signals.ai_train.as_str());
        append_lines(&mut a.signal_lines, audit.signal_lines.iter().copied());
        self.rows += 1;
    }

    fn rule_rows(&mut self, url: &str, capture: &Capture, robots: &Robots) {
        let r = &mut self.rules;
        for group in robots.groups() {
            let agents: Vec<String> = group
                .agents()
                .map(|(a, _)| match a {
                    Agent::Star => "*".to_owned(),
                    Agent::Token(t) => t.to_owned(),
                    Agent::Nobody => String::new(),
                })
                .collect();
            for i in group.rules() {
                let Some(rule) = robots.rule(i as usize) else {
                    continue;
                };
                r.common.push(
                    self.mode,
                    &capture.place.input,
                    capture.place.record,
                    Some(url),
                );
                r.group.append_value(group.index() as u32);
                r.group_line.append_value(group.line());
                append_strings(&mut r.agents, &agents);
                r.line.append_value(rule.line);
                r.kind.append_value(rule.kind.as_str());
                r.pattern.append_value(rule.pattern);
                self.rows += 1;
            }
        }
    }

    /// The rows pushed so far, as three record batches; the tables start empty again.
    pub fn finish(&mut self) -> Result<Batches, ArrowError> {
        self.rows = 0;
        let c = &mut self.captures;
        let mut cols = c.common.finish();
        cols.extend::<[ArrayRef; 27]>([
            Arc::new(c.offset.finish()),
            Arc::new(c.crawl.finish()),
            Arc::new(c.host.finish()),
            Arc::new(c.origin.finish()),
            Arc::new(c.fetch_time.finish()),
            Arc::new(c.status.finish()),
            Arc::new(c.status_class.finish()),
            Arc::new(c.verdict.finish()),
            Arc::new(c.reason.finish()),
            Arc::new(c.redirect_target.finish()),
            Arc::new(c.content_type.finish()),
            Arc::new(c.body_bytes.finish()),
            Arc::new(c.body_sha256.finish()),
            Arc::new(c.warc_truncated.finish()),
            Arc::new(c.over_limit.finish()),
            Arc::new(c.empty.finish()),
            Arc::new(c.errors.finish()),
            Arc::new(c.warnings.finish()),
            Arc::new(c.codes.finish()),
            Arc::new(c.groups.finish()),
            Arc::new(c.agents_joined.finish()),
            Arc::new(c.sitemaps.finish()),
            Arc::new(c.invalid_sitemaps.finish()),
            Arc::new(c.crawl_delays.finish()),
            Arc::new(c.content_usage.finish()),
            Arc::new(c.content_signal.finish()),
            Arc::new(c.licenses.finish()),
        ]);
        let captures = RecordBatch::try_new(capture_schema(), cols)?;
        let a = &mut self.agents;
        let mut cols = a.common.finish();
        cols.extend::<[ArrayRef; 23]>([
            Arc::new(a.host.finish()),
            Arc::new(a.agent.finish()),
            Arc::new(a.token.finish()),
            Arc::new(a.purpose.finish()),
            Arc::new(a.respects.finish()),
            Arc::new(a.status_class.finish()),
            Arc::new(a.verdict.finish()),
            Arc::new(a.group.finish()),
            Arc::new(a.group_lines.finish()),
            Arc::new(a.path.finish()),
            Arc::new(a.access.finish()),
            Arc::new(a.allowed.finish()),
            Arc::new(a.line.finish()),
            Arc::new(a.rule.finish()),
            Arc::new(a.other_line.finish()),
            Arc::new(a.crawl_delay.finish()),
            Arc::new(a.usage_search.finish()),
            Arc::new(a.usage_train_ai.finish()),
            Arc::new(a.usage_lines.finish()),
            Arc::new(a.signal_search.finish()),
            Arc::new(a.signal_ai_input.finish()),
            Arc::new(a.signal_ai_train.finish()),
            Arc::new(a.signal_lines.finish()),
        ]);
        let agents = RecordBatch::try_new(agent_schema(), cols)?;
        let r = &mut self.rules;
        let mut cols = r.common.finish();
        cols.extend::<[ArrayRef; 6]>([
            Arc::new(r.group.finish()),
            Arc::new(r.group_line.finish()),
            Arc::new(r.agents.finish()),
            Arc::new(r.line.finish()),
            Arc::new(r.kind.finish()),
            Arc::new(r.pattern.finish()),
        ]);
        let rules = RecordBatch::try_new(rule_schema(), cols)?;
        Ok(Batches {
            captures,
            agents,
            rules,
        })
    }

    /// The schemas of the three tables: `captures`, `agents`, `rules`.
    pub fn schemas() -> [(&'static str, SchemaRef); 3] {
        [
            ("captures", capture_schema()),
            ("agents", agent_schema()),
            ("rules", rule_schema()),
        ]
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}
