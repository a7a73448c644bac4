//! A page's directives as JSON (feature `serde`): the one view of a [`PageDirectives`] that
//! the command line's `page` record and the `page` of the crawl policy's record both flatten
//! into theirs, so that a rule added to [`Rules`](super::Rules) reaches both with no second
//! list to keep in step.

use serde::ser::{Serialize, Serializer};
use serde::Serialize as Derive;

use super::{PageDirectives, Source, SourceKind};

/// [`PageDirectives`] as JSON, from [`PageDirectives::json`]: the merged answer's fields
/// (`index`, `follow`, `archive`, `snippet`, `max_snippet`, `image_index`,
/// `max_image_preview`, `max_video_preview`, `unavailable_after` (Unix seconds), `translate`,
/// `index_if_embedded`, `noai`, `noimageai`, `noml`, `tdm_reservation`, `tdm_policy`, and
/// `Content-Usage`'s `train_ai` and `search`), then `directives` and `unknown` (each a
/// [`Source`] as JSON), `problems` when asked for ([`Json::with_problems`]) and
/// `html_scanned`.
#[derive(Debug, Clone, Copy)]
pub struct Json<'a> {
    page: &'a PageDirectives,
    problems: bool,
}

impl PageDirectives {
    /// The directives as JSON (without the problems; see [`Json::with_problems`]).
    pub fn json(&self) -> Json<'_> {
        Json {
            page: self,
            problems: false,
        }
    }
}

impl Json<'_> {
    /// With `problems`, between `unknown` and `html_scanned`: every diagnostic's `severity`,
    /// `code`, `message` and the source it is `at`.
    pub fn with_problems(self) -> Self {
        Json {
            problems: true,
            ..self
        }
    }
}

#[derive(Derive)]
struct View<'a> {
    index: bool,
    follow: bool,
    archive: bool,
    snippet: bool,
    max_snippet: Option<i64>,
    image_index: bool,
    max_image_preview: Option<&'static str>,
    max_video_preview: Option<i64>,
    unavailable_after: Option<i64>,
    translate: bool,
    index_if_embedded: bool,
    noai: bool,
    noimageai: bool,
    noml: bool,
    tdm_reservation: Option<bool>,
    tdm_policy: Option<&'a str>,
    train_ai: &'static str,
    search: &'static str,
    directives: Vec<&'a Source>,
    unknown: &'a [Source],
    #[serde(skip_serializing_if = "Option::is_none")]
    problems: Option<Vec<Problem<'a>>>,
    html_scanned: usize,
}

#[derive(Derive)]
struct Problem<'a> {
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    at: &'a Source,
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let page = self.page;
        let r = &page.rules;
        View {
            index: r.index,
            follow: r.follow,
            archive: r.archive,
            snippet: r.snippet,
            max_snippet: r.max_snippet,
            image_index: r.image_index,
            max_image_preview: r.max_image_preview.map(|p| p.as_str()),
            max_video_preview: r.max_video_preview,
            unavailable_after: r.unavailable_after,
            translate: r.translate,
            index_if_embedded: r.index_if_embedded,
            noai: r.noai,
            noimageai: r.noimageai,
            noml: r.noml,
            tdm_reservation: r.tdm_reservation,
            tdm_policy: r.tdm_policy.as_deref(),
            train_ai: r.content_usage.train_ai.as_str(),
            search: r.content_usage.search.as_str(),
            directives: page.found.iter().map(|f| &f.source).collect(),
            unknown: &page.unknown,
            problems: self.problems.then(|| {
                page.diagnostics
                    .iter()
                    .map(|d| Problem {
                        severity: d.severity.as_str(),
                        code: d.code.as_str(),
                        message: &d.message,
                        at: &d.source,
                    })
                    .collect()
            }),
            html_scanned: page.html_scanned,
        }
        .serialize(serializer)
    }
}

#[derive(Derive)]
struct SourceView<'a> {
    source: &'static str,
    name: &'a str,
    agent: Option<&'a str>,
    raw: &'a str,
    line: Option<usize>,
    offset: usize,
}

/// As JSON (feature `serde`): `source` (`header` or `meta`), `name`, `agent` (`null` for every
/// agent), `raw`, `line` (`<meta>`'s; `null` for a header) and `offset`.
impl Serialize for Source {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SourceView {
            source: self.kind.as_str(),
            name: &self.name,
            agent: self.agent.as_deref(),
            raw: &self.raw,
            line: (self.kind == SourceKind::Meta).then_some(self.line),
            offset: self.offset,
        }
        .serialize(serializer)
    }
}
