//! `pageDirectives(headers, body, agent)`: a fetched page's directives (`X-Robots-Tag`,
//! `<meta name="robots">`, TDMRep and `Content-Usage` fields) for one agent.

use crawlgate::page::{evaluate, Options, PageDirectives as Page, Source};
use crawlgate::Mode;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::input::{self, Body, Headers};

/// Where a page directive was found.
#[napi(object)]
pub struct PageSource {
    /// `"header"` or `"meta"`.
    pub kind: String,
    /// The header's or the `<meta>`'s name, lowercase.
    pub name: String,
    /// The product token it is scoped to; absent for every agent.
    pub agent: Option<String>,
    /// The directive as written.
    pub raw: String,
    /// `<meta>`: its 1-based line; header: 0.
    pub line: u32,
    /// The rules it sets (`["noindex", "nofollow"]` for `none`); empty for an unknown one.
    pub rules: Vec<String>,
}

/// One problem in a page's directives.
#[napi(object)]
pub struct PageProblem {
    /// Stable kebab-case code.
    pub code: String,
    /// `"error"` or `"warning"`.
    pub severity: String,
    /// A sentence for people.
    pub message: String,
}

/// What a page says one agent may do with it (the most restrictive directive wins).
#[napi(object)]
pub struct PageDirectives {
    pub index: bool,
    pub follow: bool,
    pub archive: bool,
    pub snippet: bool,
    /// `max-snippet` (characters; -1: no limit).
    pub max_snippet: Option<i64>,
    pub image_index: bool,
    /// `"none"`, `"standard"` or `"large"`.
    pub max_image_preview: Option<String>,
    /// `max-video-preview` (seconds; -1: no limit).
    pub max_video_preview: Option<i64>,
    /// `unavailable_after` as Unix seconds.
    pub unavailable_after: Option<i64>,
    pub translate: bool,
    pub index_if_embedded: bool,
    pub noai: bool,
    pub noimageai: bool,
    pub noml: bool,
    /// TDMRep `tdm-reservation`.
    pub tdm_reservation: Option<bool>,
    /// TDMRep `tdm-policy`.
    pub tdm_policy: Option<String>,
    /// `Content-Usage` `train-ai`: `"allowed"`, `"disallowed"` or `"unknown"`.
    pub train_ai: String,
    /// `Content-Usage` `search`.
    pub search: String,
    /// Every directive that applies, headers first.
    pub sources: Vec<PageSource>,
    /// Directives not understood that apply: kept, otherwise ignored.
    pub unknown: Vec<PageSource>,
    /// Problems found.
    pub problems: Vec<PageProblem>,
}

fn source(s: &Source, rules: &[&'static str]) -> PageSource {
    PageSource {
        kind: s.kind.as_str().to_owned(),
        name: s.name.clone(),
        agent: s.agent.clone(),
        raw: s.raw.clone(),
        line: u32::try_from(s.line).unwrap_or(u32::MAX),
        rules: rules.iter().map(|r| (*r).to_owned()).collect(),
    }
}

impl From<Page> for PageDirectives {
    fn from(p: Page) -> Self {
        let r = &p.rules;
        PageDirectives {
            index: r.index,
            follow: r.follow,
            archive: r.archive,
            snippet: r.snippet,
            max_snippet: r.max_snippet,
            image_index: r.image_index,
            max_image_preview: r.max_image_preview.map(|i| i.as_str().to_owned()),
            max_video_preview: r.max_video_preview,
            unavailable_after: r.unavailable_after,
            translate: r.translate,
            index_if_embedded: r.index_if_embedded,
            noai: r.noai,
            noimageai: r.noimageai,
            noml: r.noml,
            tdm_reservation: r.tdm_reservation,
            tdm_policy: r.tdm_policy.clone(),
            train_ai: r.content_usage.train_ai.as_str().to_owned(),
            search: r.content_usage.search.as_str().to_owned(),
            sources: p
                .found
                .iter()
                .map(|f| source(&f.source, f.directive.rules()))
                .collect(),
            unknown: p.unknown.iter().map(|s| source(s, &[])).collect(),
            problems: p
                .diagnostics
                .iter()
                .map(|d| PageProblem {
                    code: d.code.as_str().to_owned(),
                    severity: d.severity.as_str().to_owned(),
                    message: d.message.to_string(),
                })
                .collect(),
        }
    }
}

/// A page's directives for `agent` (a product token or User-Agent header): `headers` as
/// `[name, value]` pairs or an object, `body` the first bytes of its HTML (omit or `null`
/// when it is not HTML). Never throws on what a site sends.
#[napi]
pub fn page_directives(
    #[napi(ts_arg_type = "Array<[string, string]> | Record<string, string | string[]>")]
    headers: Headers,
    body: Option<Body>,
    agent: String,
) -> Result<PageDirectives> {
    let agent = input::agent(&agent, Mode::Rfc)?;
    let fields = input::header_pairs(Some(headers))?;
    let page = evaluate(
        fields.iter().map(|(k, v)| (k.as_str(), v.as_bytes())),
        body.as_ref().map(input::bytes),
        &agent,
        &Options::default(),
    );
    Ok(page.into())
}
