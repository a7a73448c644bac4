//! Page-directive problems: a stable [`Code`], a [`Severity`], and the [`Source`] they are about.

use std::borrow::Cow;
use std::fmt;

use super::Source;
use crate::diagnostic::{codes, Severity};

codes! {
    /// The stable identifier of a kind of page-directive problem.
    ///
    /// [`Code::as_str`] gives the kebab-case name used by `crawlgate page` and its JSON.
    Code {
    /// A directive whose value is not one its directive allows (`max-snippet:ten`, a date that
    /// does not parse, `tdm-reservation: 2`): not used.
    InvalidValue = "invalid-value", Error;
    /// A structured field (`Robots-Tag`, `Content-Usage`) that does not parse: not used.
    MalformedField = "malformed-field", Error;
    /// A directive crawlgate does not know (`noodp`, a typo, a word list without commas): kept
    /// in [`PageDirectives::unknown`](super::PageDirectives::unknown) and otherwise ignored.
    UnknownDirective = "unknown-directive", Warning;
    /// A `Robots-Tag` field written in the legacy `X-Robots-Tag` syntax (`googlebot: noindex`):
    /// read as the legacy syntax.
    LegacySyntax = "legacy-syntax", Warning;
    /// A field or `content` attribute longer than the per-field limit: the part past the limit,
    /// and a directive it cuts, is ignored (draft-illyes-repext §3.1.1).
    FieldTooLong = "field-too-long", Warning;
    /// The HTML byte budget ran out before the end of `<head>`: directives after it are not seen.
    HtmlBudget = "html-budget", Warning;
    /// One directive given different values (`max-snippet:50` and `max-snippet:20`): the most
    /// restrictive is used; or TDMRep values where a later source supersedes an earlier one.
    ConflictingValues = "conflicting-values", Warning;
}}

/// One problem found in a page's headers or HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// Error (not used) or warning (used).
    pub severity: Severity,
    /// Where: the header field or `<meta>` element, and the directive as written.
    pub source: Source,
    /// A sentence for people.
    pub message: Cow<'static, str>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}[{}]: {}",
            self.source.place(),
            self.severity,
            self.code,
            self.message
        )
    }
}
