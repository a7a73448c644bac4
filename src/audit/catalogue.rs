//! The crawler catalogue: ai.robots.txt's `robots.json`, embedded, or a user's file of the same
//! shape read at run time ([`Catalogue::from_json`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::purpose::{classify, Purpose, PurposeSource};
use crate::robots::ProductToken;

/// The embedded catalogue: `data/ai-robots-txt/robots.json` (MIT; provenance beside it).
const BUILTIN_JSON: &str = include_str!("../../data/ai-robots-txt/robots.json");

/// The commit of ai.robots.txt the embedded catalogue was copied from.
pub const BUILTIN_VERSION: &str = "738c80df2169027ce0e07c9976fd3f2f57dd8f7b";

/// The date of that commit.
pub const BUILTIN_DATE: &str = "2026-08-22";

/// Why a catalogue could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogueError {
    /// Not JSON, or not an object of crawler objects with string fields.
    #[error("not a crawler catalogue (an object of {{operator, respect, function, frequency, description}} objects): {0}")]
    Json(#[from] serde_json::Error),
    /// The object holds no crawler.
    #[error("the catalogue lists no crawler")]
    Empty,
}

/// Does the operator say the crawler obeys robots.txt (the catalogue's `respect`)?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Respect {
    /// `Yes` (perhaps as a link to where the operator says so).
    Yes,
    /// `No`.
    No,
    /// Anything else (`Unclear at this time.`).
    Unclear,
}

impl Respect {
    /// `"yes"`, `"no"` or `"unclear"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Respect::Yes => "yes",
            Respect::No => "no",
            Respect::Unclear => "unclear",
        }
    }

    fn read(text: &str) -> Respect {
        let t = text.trim().trim_start_matches('[').to_ascii_lowercase();
        if t.starts_with("yes") {
            Respect::Yes
        } else if t.starts_with("no") && !t.starts_with("no information") {
            Respect::No
        } else {
            Respect::Unclear
        }
    }
}

/// One catalogued crawler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crawler {
    /// The catalogue's key, as sites write it in `User-agent:` (`GPTBot`, `Brightbot 1.0`).
    pub name: String,
    /// The product token a group for it is matched on: the key itself when it is a valid
    /// token, else its leading token (what a `User-agent:` line with the key is read as:
    /// `Brightbot 1.0` → `brightbot`); `None` when the key starts with no token character.
    pub token: Option<ProductToken>,
    /// Is the key itself a valid product token (`[A-Za-z0-9_-]+`)?
    pub valid_token: bool,
    /// Who runs it, as the catalogue says (may be Markdown).
    pub operator: String,
    /// Does it obey robots.txt, read from [`Crawler::respect_text`].
    pub respect: Respect,
    /// The catalogue's `respect` text as written.
    pub respect_text: String,
    /// What it is for, as written.
    pub function: String,
    /// How often it comes, as written.
    pub frequency: String,
    /// The catalogue's description.
    pub description: String,
    /// What it crawls for, classified from [`Crawler::function`].
    pub purpose: Purpose,
    /// Whether [`Crawler::purpose`] comes from the text or from the hand-reviewed table.
    pub purpose_source: PurposeSource,
}

#[derive(Deserialize)]
struct RawEntry {
    #[serde(default)]
    operator: String,
    #[serde(default)]
    respect: String,
    #[serde(default)]
    function: String,
    #[serde(default)]
    frequency: String,
    #[serde(default)]
    description: String,
}

/// A catalogue of crawlers, ordered by name (case-insensitively).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    crawlers: Vec<Crawler>,
    version: String,
    date: Option<String>,
}

impl Catalogue {
    /// The embedded catalogue (ai.robots.txt at [`BUILTIN_VERSION`], [`BUILTIN_DATE`]).
    pub fn builtin() -> Catalogue {
        let mut c = Catalogue::from_json(BUILTIN_JSON).unwrap_or_else(|_| Catalogue {
            crawlers: Vec::new(),
            version: String::new(),
            date: None,
        });
        c.version = BUILTIN_VERSION.to_owned();
        c.date = Some(BUILTIN_DATE.to_owned());
        c
    }

    /// Reads a catalogue of the shape of ai.robots.txt's `robots.json`: an object keyed by
    /// crawler name whose values have string fields `operator`, `respect`, `function`,
    /// `frequency` and `description` (missing ones read as empty; others are ignored). Its
    /// version reads `"custom"` and it has no date.
    ///
    /// ```
    /// use crawlgate::audit::{Catalogue, Purpose};
    /// let c = Catalogue::from_json(r#"{"ExampleBot": {"respect": "Yes", "function": "LLM training."}}"#)?;
    /// assert_eq!(c.crawlers()[0].purpose, Purpose::Training);
    /// # Ok::<(), crawlgate::audit::CatalogueError>(())
    /// ```
    pub fn from_json(json: &str) -> Result<Catalogue, CatalogueError> {
        let raw: BTreeMap<String, RawEntry> = serde_json::from_str(json)?;
        if raw.is_empty() {
            return Err(CatalogueError::Empty);
        }
        let mut crawlers: Vec<Crawler> = raw
            .into_iter()
            .map(|(name, e)| {
                let valid = ProductToken::new(&name).ok();
                let valid_token = valid.is_some();
                let token = valid.or_else(|| {
                    let lead: String = name
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    ProductToken::new(&lead).ok()
                });
                let (purpose, purpose_source) = classify(&name, &e.function);
                Crawler {
                    token,
                    valid_token,
                    operator: e.operator,
                    respect: Respect::read(&e.respect),
                    respect_text: e.respect,
                    function: e.function,
                    frequency: e.frequency,
                    description: e.description,
                    purpose,
                    purpose_source,
                    name,
                }
            })
            .collect();
        crawlers.sort_by(|a, b| {
            a.name
                .to_ascii_lowercase()
                .cmp(&b.name.to_ascii_lowercase())
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(Catalogue {
            crawlers,
            version: "custom".to_owned(),
            date: None,
        })
    }

    /// The crawlers, by name.
    pub fn crawlers(&self) -> &[Crawler] {
        &self.crawlers
    }

    /// The catalogue's version: the upstream commit for the embedded one, `"custom"` for one
    /// read with [`Catalogue::from_json`].
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The date of the version, when known.
    pub fn date(&self) -> Option<&str> {
        self.date.as_deref()
    }

    /// The crawlers whose key is not a valid product token (`Brightbot 1.0`, `bigsur.ai`).
    pub fn invalid_tokens(&self) -> impl Iterator<Item = &Crawler> + '_ {
        self.crawlers.iter().filter(|c| !c.valid_token)
    }

    /// The crawler called `name`: its catalogue key or its product token, without case
    /// (`gptbot`, `Brightbot 1.0`, `brightbot`), surrounding spaces ignored.
    pub fn find(&self, name: &str) -> Option<&Crawler> {
        let name = name.trim();
        self.crawlers.iter().find(|c| {
            c.name.eq_ignore_ascii_case(name)
                || c.token
                    .as_ref()
                    .is_some_and(|t| t.as_str().eq_ignore_ascii_case(name))
        })
    }

    /// Is `token` (lowercase) the token of a catalogued crawler?
    pub fn knows(&self, token: &str) -> bool {
        self.crawlers
            .iter()
            .any(|c| c.token.as_ref().is_some_and(|t| t.as_str() == token))
    }
}
