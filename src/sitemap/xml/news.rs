//! `<news:news>`: Google's news extension, one row of [`NewsBuilder::FIELDS`] per child
//! ([news sitemap reference](https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap)).

use super::rules::{self, Check, Child, Field, Fields, Repeat, Seen};
use super::{Position, Sink};
use crate::sitemap::{Code, News};

/// The rows before this one sit in `<news:publication>`, the others in `<news:news>` itself.
const IN_PUBLICATION: u8 = 2;

/// News being read.
#[derive(Debug, Default)]
pub(super) struct NewsBuilder {
    at: Position,
    news: News,
    seen: Seen,
}

/// A row of the table below.
type Row = Field<NewsBuilder>;

impl Fields for NewsBuilder {
    // A second one is checked, and the first kept.
    const FIELDS: &'static [Field<Self>] = &[
        Row::new("news:name", Check::Text(|b, t| b.news.publication_name = t))
            .required()
            .repeat(Repeat::FirstChecked),
        Row::new(
            "news:language",
            Check::Language(|b, t| b.news.publication_language = t),
        )
        .required()
        .repeat(Repeat::FirstChecked),
        Row::new(
            "news:publication_date",
            Check::Date(|b, t| b.news.publication_date = t),
        )
        .required()
        .repeat(Repeat::FirstChecked),
        Row::new("news:title", Check::Text(|b, t| b.news.title = t))
            .required()
            .repeat(Repeat::FirstChecked),
    ];

    fn seen(&mut self) -> &mut Seen {
        &mut self.seen
    }
}

impl NewsBuilder {
    /// News starting at `at`.
    pub(super) fn new(at: Position) -> NewsBuilder {
        NewsBuilder {
            at,
            ..NewsBuilder::default()
        }
    }

    /// What `<news:{local}>` is, in `<news:publication>` or in `<news:news>` (reported when
    /// retired). `<news:publication>` itself is the caller's.
    pub(super) fn child(
        sink: &mut Sink,
        at: Position,
        in_publication: bool,
        local: &[u8],
    ) -> Child {
        match rules::find(Self::FIELDS, b"news", local) {
            Some(row) if (row < IN_PUBLICATION) == in_publication => Child::Row(row),
            _ if !in_publication
                && matches!(
                    local,
                    b"keywords" | b"stock_tickers" | b"genres" | b"access"
                ) =>
            {
                sink.report(
                    Code::RetiredTag,
                    at,
                    format!(
                        "<news:{}> is no longer used by Google: it is ignored",
                        String::from_utf8_lossy(local)
                    ),
                );
                Child::Retired
            }
            _ => Child::Unknown,
        }
    }

    /// The news when `</news:news>` ends; `None` when it is not usable (reported).
    pub(super) fn finish(self, sink: &mut Sink) -> Option<News> {
        if self.seen.required_bad {
            return None;
        }
        if let Some(missing) = rules::missing::<Self>(&self.seen) {
            sink.report(
                Code::MissingTag,
                self.at,
                format!("<news:news> without {missing}: it is not used"),
            );
            return None;
        }
        Some(self.news)
    }
}
