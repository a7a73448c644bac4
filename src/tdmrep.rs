//! TDMRep's site-wide file, `/.well-known/tdmrep.json` (feature `tdmrep`): parsed into rules,
//! with diagnostics, and evaluated for a URL's path. Pure: no I/O, no clock.
//!
//! The [W3C TDM Reservation Protocol] (a community group report) lets a rightsholder reserve
//! text and data mining rights (the "opt-out" of Article 4 of the EU CDSM Directive, which the
//! EU AI Act points to) and name a TDM policy. Its [§4.1 "TDM File on the Origin Server"] is a
//! JSON array of rules, each an object with:
//!
//! - `location` (mandatory): a path pattern, matched as robots.txt paths are ([§4.1.1]: `*` is
//!   any run of characters, `$` at the end anchors; otherwise a prefix match, case sensitive);
//! - `tdm-reservation` (mandatory): `1` (rights reserved) or `0` (not reserved). Any other
//!   value is a protocol error, and the reservation is then unset ([§3.1]);
//! - `tdm-policy` (optional): the URL of a TDM policy; not to be used when the reservation is
//!   `0` ([§3.2]).
//!
//! **Evaluation** ([§4.1]): "the most specific match is the first in sequence": the first rule
//! whose pattern matches the URL's path (and query) decides; no match leaves the reservation
//! unset. Before comparing, percent-encoded unreserved characters (`A–Z a–z 0–9 - . _ ~`) are
//! decoded in both the pattern and the path, and other escapes have their hex digits
//! upper-cased, so `/%7Euser` and `/~user` are one path while `/a%2Fb` stays apart from `/a/b`;
//! a `$` or `*` in the path is compared as `%24`, `%2A`, the way a pattern writes them literally
//! (§4.1.1: the pattern `/path/foo-%24` matches `/path/foo-$`).
//!
//! **What is not used** (each with a [`Diagnostic`], [`Code`] says which): a file that is not
//! JSON or not an array (nothing), a rule that is not an object, has no string `location`, a
//! `location` that starts with neither `/` nor `*`, or a reservation that is not `0` or `1`
//! (the rule; a string `"0"`/`"1"` is read with a warning); a `tdm-policy` that is not an
//! absolute `http(s)` URL (the policy; the rule stays). Unknown properties are reported and
//! ignored. At most [`MAX_BYTES`] bytes and [`MAX_RULES`] rules are read.
//!
//! ```
//! use crawlgate::tdmrep::TdmRep;
//!
//! // §4.1.2's second example.
//! let parsed = TdmRep::parse(br#"[
//!   {"location": "/directory-a/", "tdm-reservation": 1},
//!   {"location": "/directory-b/html/", "tdm-reservation": 1,
//!    "tdm-policy": "https://provider.com/policies/policy.json"},
//!   {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
//! ]"#);
//! assert!(parsed.diagnostics.is_empty());
//! let file = parsed.tdmrep;
//! let m = file.evaluate("/directory-b/html/index.html").expect("a rule matches");
//! assert_eq!(m.reserved, true);
//! assert_eq!(m.policy, Some("https://provider.com/policies/policy.json"));
//! assert_eq!(m.rule.number, 2);
//! assert_eq!(file.evaluate("/directory-b/images/cat.jpg").map(|m| m.reserved), Some(false));
//! assert!(file.evaluate("/elsewhere").is_none()); // unset
//! ```
//!
//! [W3C TDM Reservation Protocol]: https://www.w3.org/community/reports/tdmrep/CG-FINAL-tdmrep-20240510/
//! [§3.1]: https://w3c.github.io/tdm-reservation-protocol/spec/#sec-tdm-reservation
//! [§3.2]: https://w3c.github.io/tdm-reservation-protocol/spec/#sec-tdm-policy
//! [§4.1 "TDM File on the Origin Server"]: https://w3c.github.io/tdm-reservation-protocol/spec/#sec-tdm-file
//! [§4.1]: https://w3c.github.io/tdm-reservation-protocol/spec/#sec-tdm-file
//! [§4.1.1]: https://w3c.github.io/tdm-reservation-protocol/spec/#sec-tdm-file-regexp

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::diagnostic::{codes, Severity};

/// The path of the file on an origin.
pub const WELL_KNOWN_PATH: &str = "/.well-known/tdmrep.json";
/// The most bytes read; a longer file is not used at all (`too-large`): half a JSON array
/// is not JSON.
pub const MAX_BYTES: usize = 512_000;
/// The most rules used; those after are reported (`too-many-rules`) and ignored.
pub const MAX_RULES: usize = 10_000;
/// The longest `location` or `tdm-policy` kept, in bytes; a longer one is not used.
pub const MAX_VALUE_BYTES: usize = 8_000;

codes! {
    /// The stable identifier of a kind of `tdmrep.json` problem.
    Code {
    /// Not JSON (the message gives the line and column), or more than [`MAX_BYTES`]: no rule
    /// is used.
    InvalidJson = "invalid-json", Error;
    /// The file is larger than [`MAX_BYTES`]: not read.
    TooLarge = "too-large", Error;
    /// The JSON is not an array (§4.1.2: the brackets are mandatory, even for one rule): no
    /// rule is used.
    NotAnArray = "not-an-array", Error;
    /// An array element that is not an object: not used.
    NotARule = "not-a-rule", Error;
    /// A rule without a string `location`, or one that starts with neither `/` nor `*` (it
    /// can match no path), or one over [`MAX_VALUE_BYTES`]: the rule is not used.
    InvalidLocation = "invalid-location", Error;
    /// A rule without `tdm-reservation`, or one that is neither `0` nor `1`: a protocol error
    /// (§3.1); the rule is not used.
    InvalidReservation = "invalid-reservation", Error;
    /// A `tdm-policy` that is not an absolute `http`/`https` URL (or over
    /// [`MAX_VALUE_BYTES`]): the policy is not used; the rule is.
    InvalidPolicy = "invalid-policy", Error;
    /// More than [`MAX_RULES`] rules: the rest are not used.
    TooManyRules = "too-many-rules", Error;
    /// `tdm-reservation` written as a string (`"1"`): read as the number.
    ReservationAsString = "reservation-as-string", Warning;
    /// A `tdm-policy` with `tdm-reservation: 0`: agents should not process it (§3.2); it is
    /// not reported in the answer.
    PolicyWithoutReservation = "policy-without-reservation", Warning;
    /// A property other than `location`, `tdm-reservation`, `tdm-policy`: ignored.
    UnknownProperty = "unknown-property", Warning;
    /// A rule that can never decide: an earlier rule's pattern matches every path it matches
    /// (the first match wins). Detected for identical patterns and for an earlier `/` or `*`.
    UnreachableRule = "unreachable-rule", Warning;
}}

/// One problem in a `tdmrep.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// Error (not used) or warning (used).
    pub severity: Severity,
    /// The 1-based number of the rule (array element) it is about; `None` for the whole file.
    pub rule: Option<usize>,
    /// A sentence for people; may change between versions. Values from the file are quoted
    /// with Rust's debug escaping, so they never carry control characters.
    pub message: Cow<'static, str>,
}

impl Diagnostic {
    fn new(code: Code, rule: Option<usize>, message: impl Into<Cow<'static, str>>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.default_severity(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.rule {
            write!(f, "rule {n}: ")?;
        }
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

/// One rule of the file, as used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Its 1-based place in the array (rules not used keep their numbers).
    pub number: usize,
    /// The `location` pattern as written.
    pub location: String,
    /// `tdm-reservation`: `true` for `1` (reserved), `false` for `0`.
    pub reserved: bool,
    /// `tdm-policy`, if given, valid, and the reservation is `1`.
    pub policy: Option<String>,
    /// The pattern in its compared form (escapes normalised), `$` removed.
    pattern: Vec<u8>,
    /// The pattern ended with `$`.
    anchored: bool,
}

impl Rule {
    /// Whether the rule's pattern matches `path` (a URL's path and query, as requested).
    pub fn matches(&self, path: &str) -> bool {
        wildcard_match(&self.pattern, self.anchored, &path_form(path.as_bytes()))
    }
}

/// A parsed `tdmrep.json`: the rules used, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TdmRep {
    rules: Vec<Rule>,
}

/// [`TdmRep::parse`]'s result: the rules, and every problem found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The rules used.
    pub tdmrep: TdmRep,
    /// The problems, in the order of the file.
    pub diagnostics: Vec<Diagnostic>,
}

/// The answer for one URL: the rule that decided and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match<'a> {
    /// The first rule whose pattern matches.
    pub rule: &'a Rule,
    /// TDM rights are reserved (`tdm-reservation: 1`).
    pub reserved: bool,
    /// The TDM policy's URL, when reserved and one is given.
    pub policy: Option<&'a str>,
}

impl TdmRep {
    /// Parses a `tdmrep.json` body. Never fails: what cannot be used is reported.
    pub fn parse(bytes: &[u8]) -> Parsed {
        let mut diagnostics = Vec::new();
        if bytes.len() > MAX_BYTES {
            diagnostics.push(Diagnostic::new(
                Code::TooLarge,
                None,
                format!("{} bytes, over the limit of {MAX_BYTES}", bytes.len()),
            ));
            return Parsed {
                tdmrep: TdmRep::default(),
                diagnostics,
            };
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                diagnostics.push(Diagnostic::new(
                    Code::InvalidJson,
                    None,
                    format!(
                        "not JSON: {} at line {} column {}",
                        category(&e),
                        e.line(),
                        e.column()
                    ),
                ));
                return Parsed {
                    tdmrep: TdmRep::default(),
                    diagnostics,
                };
            }
        };
        let Value::Array(items) = value else {
            diagnostics.push(Diagnostic::new(
                Code::NotAnArray,
                None,
                format!(
                    "the file is {}, not an array of rules; brackets are needed even for one rule",
                    kind(&value)
                ),
            ));
            return Parsed {
                tdmrep: TdmRep::default(),
                diagnostics,
            };
        };
        let mut rules: Vec<Rule> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let number = i + 1;
            if i == MAX_RULES {
                diagnostics.push(Diagnostic::new(
                    Code::TooManyRules,
                    Some(number),
                    format!(
                        "{} rules; those after the first {MAX_RULES} are not used",
                        items.len()
                    ),
                ));
                break;
            }
            if let Some(rule) = read_rule(number, item, &mut diagnostics) {
                if let Some(earlier) = rules.iter().find(|r| covers(r, &rule)) {
                    diagnostics.push(Diagnostic::new(
                        Code::UnreachableRule,
                        Some(number),
                        format!(
                            "rule {} ({:?}) matches every path this one does, and the first match wins",
                            earlier.number, earlier.location
                        ),
                    ));
                }
                rules.push(rule);
            }
        }
        Parsed {
            tdmrep: TdmRep { rules },
            diagnostics,
        }
    }

    /// The rules used, in order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The first rule matching `path` (a URL's path and query, starting with `/`), or `None`:
    /// the reservation is unset.
    pub fn evaluate(&self, path: &str) -> Option<Match<'_>> {
        let path = path_form(path.as_bytes());
        self.rules
            .iter()
            .find(|r| wildcard_match(&r.pattern, r.anchored, &path))
            .map(|rule| Match {
                rule,
                reserved: rule.reserved,
                policy: rule.policy.as_deref(),
            })
    }

    /// [`evaluate`](Self::evaluate) for an absolute URL: its path and query (no fragment).
    /// `None` also for a URL that does not parse.
    pub fn evaluate_url(&self, url: &str) -> Option<Match<'_>> {
        let url = url::Url::parse(url).ok()?;
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        };
        self.evaluate(&path)
    }
}

/// One array element as a rule, or `None` (reported).
fn read_rule(number: usize, item: &Value, diagnostics: &mut Vec<Diagnostic>) -> Option<Rule> {
    let Value::Object(fields) = item else {
        diagnostics.push(Diagnostic::new(
            Code::NotARule,
            Some(number),
            format!("{}, not an object", kind(item)),
        ));
        return None;
    };
    // In key order whatever the map keeps (serde_json's `preserve_order`, which a program
    // may turn on, keeps the file's order).
    let mut keys: Vec<&String> = fields.keys().collect();
    keys.sort_unstable();
    for key in keys {
        if !matches!(key.as_str(), "location" | "tdm-reservation" | "tdm-policy") {
            diagnostics.push(Diagnostic::new(
                Code::UnknownProperty,
                Some(number),
                format!("unknown property {:?}: ignored", clip(key)),
            ));
        }
    }
    let location = match fields.get("location") {
        Some(Value::String(s)) if s.len() > MAX_VALUE_BYTES => Err(format!(
            "`location` is {} bytes, over {MAX_VALUE_BYTES}",
            s.len()
        )),
        Some(Value::String(s)) if s.starts_with('/') || s.starts_with('*') => Ok(s.clone()),
        Some(Value::String(s)) => Err(format!(
            "`location` {:?} starts with neither `/` nor `*`: it matches no path",
            clip(s)
        )),
        Some(other) => Err(format!("`location` is {}, not a string", kind(other))),
        None => Err("no `location`".to_owned()),
    };
    let reservation = match fields.get("tdm-reservation") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => Ok(true),
        Some(Value::Number(n)) if n.as_u64() == Some(0) => Ok(false),
        Some(Value::String(s)) if s == "1" || s == "0" => {
            diagnostics.push(Diagnostic::new(
                Code::ReservationAsString,
                Some(number),
                format!("`tdm-reservation` is the string {s:?}: read as the number {s}"),
            ));
            Ok(s == "1")
        }
        Some(other) => Err(format!(
            "`tdm-reservation` is {}, neither 0 nor 1: unset",
            describe(other)
        )),
        None => Err("no `tdm-reservation`".to_owned()),
    };
    let location = location
        .map_err(|m| diagnostics.push(Diagnostic::new(Code::InvalidLocation, Some(number), m)));
    let reserved = reservation
        .map_err(|m| diagnostics.push(Diagnostic::new(Code::InvalidReservation, Some(number), m)));
    let (Ok(location), Ok(reserved)) = (location, reserved) else {
        return None;
    };
    let policy = match fields.get("tdm-policy") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.len() <= MAX_VALUE_BYTES && is_http_url(s) => {
            if reserved {
                Some(s.clone())
            } else {
                diagnostics.push(Diagnostic::new(
                    Code::PolicyWithoutReservation,
                    Some(number),
                    "`tdm-policy` with `tdm-reservation: 0`: not used (§3.2)",
                ));
                None
            }
        }
        Some(Value::String(s)) => {
            diagnostics.push(Diagnostic::new(
                Code::InvalidPolicy,
                Some(number),
                format!(
                    "`tdm-policy` {:?} is not an absolute http(s) URL: not used",
                    clip(s)
                ),
            ));
            None
        }
        Some(other) => {
            diagnostics.push(Diagnostic::new(
                Code::InvalidPolicy,
                Some(number),
                format!("`tdm-policy` is {}, not a URL: not used", kind(other)),
            ));
            None
        }
    };
    let (pattern, anchored) = match location.strip_suffix('$') {
        Some(p) => (normalise(p.as_bytes()).into_owned(), true),
        None => (normalise(location.as_bytes()).into_owned(), false),
    };
    Some(Rule {
        number,
        location,
        reserved,
        policy,
        pattern,
        anchored,
    })
}

/// Whether `earlier` matches every path `later` matches: the same pattern, or a bare `/`,
/// `*` or `/*` (which match everything).
fn covers(earlier: &Rule, later: &Rule) -> bool {
    let everything = !earlier.anchored && matches!(earlier.pattern.as_slice(), b"/" | b"*" | b"/*");
    let later_rooted = later.pattern.starts_with(b"/") || earlier.pattern.as_slice() != b"/";
    (everything && later_rooted)
        || (earlier.pattern == later.pattern && (!earlier.anchored || later.anchored))
}

/// Whether `s` is an absolute `http`/`https` URL with a host.
fn is_http_url(s: &str) -> bool {
    url::Url::parse(s)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

/// A JSON value's kind, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short value for messages: numbers and booleans as written, strings quoted, others by
/// kind.
fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => format!("the string {:?}", clip(s)),
        other => kind(other).to_owned(),
    }
}

/// At most 100 characters of `s`, for messages.
fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(100) {
        Some((at, _)) => Cow::Owned(format!("{}…", &s[..at])),
        None => Cow::Borrowed(s),
    }
}

/// What kind of JSON error, in words.
fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Eof => "the file ends early",
        serde_json::error::Category::Syntax => "a syntax error",
        serde_json::error::Category::Data | serde_json::error::Category::Io => "unreadable data",
    }
}

/// The compared form of a path or pattern (§4.1): `%XX` of an unreserved character decoded,
/// other escapes' hex digits upper-cased.
fn normalise(s: &[u8]) -> Cow<'_, [u8]> {
    if !s.contains(&b'%') {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex(s[i + 1]), hex(s[i + 2])) {
                let b = h * 16 + l;
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                    out.push(b);
                } else {
                    out.extend_from_slice(&[
                        b'%',
                        s[i + 1].to_ascii_uppercase(),
                        s[i + 2].to_ascii_uppercase(),
                    ]);
                }
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    Cow::Owned(out)
}

/// The compared form of a path: [`normalise`]d, and a literal `$` or `*` written `%24`, `%2A`,
/// as a pattern must write them to match them (§4.1.1: `/path/foo-%24` matches `/path/foo-$`).
fn path_form(s: &[u8]) -> Cow<'_, [u8]> {
    let normal = normalise(s);
    if !normal.iter().any(|&b| b == b'$' || b == b'*') {
        return normal;
    }
    let mut out = Vec::with_capacity(normal.len() + 4);
    for &b in normal.iter() {
        match b {
            b'$' => out.extend_from_slice(b"%24"),
            b'*' => out.extend_from_slice(b"%2A"),
            _ => out.push(b),
        }
    }
    Cow::Owned(out)
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// `pattern` (with `*` for any run of bytes) against the start of `path`; with `anchored`, it
/// must reach the end of `path`. Greedy with one backtrack point: O(pattern × path) at worst,
/// no recursion.
fn wildcard_match(pattern: &[u8], anchored: bool, path: &[u8]) -> bool {
    let (mut p, mut s) = (0, 0);
    // The last `*` seen and the path position it was tried at.
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p == pattern.len() {
            if !anchored || s == path.len() {
                return true;
            }
        } else if pattern[p] == b'*' {
            star = Some((p, s));
            p += 1;
            continue;
        } else if s < path.len() && pattern[p] == path[s] {
            p += 1;
            s += 1;
            continue;
        }
        // A mismatch (or an anchored end not reached): let the last `*` take one more byte.
        match star {
            Some((sp, ss)) if ss < path.len() => {
                star = Some((sp, ss + 1));
                p = sp + 1;
                s = ss + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        let m = |p: &str, path: &str| {
            let (p, a) = match p.strip_suffix('$') {
                Some(p) => (p, true),
                None => (p, false),
            };
            wildcard_match(p.as_bytes(), a, path.as_bytes())
        };
        assert!(m("/", "/anything"));
        assert!(m("/a/*.jpg", "/a/b/c.jpg"));
        assert!(m("/a/*.jpg", "/a/c.jpgx"));
        assert!(!m("/a/*.jpg$", "/a/c.jpgx"));
        assert!(m("/a/*.jpg$", "/a/c.jpg.jpg"));
        assert!(m("/this/path/exactly$", "/this/path/exactly"));
        assert!(!m("/this/path/exactly$", "/this/path/exactly/"));
        assert!(m("*", ""));
        assert!(m("/*/then", "/x/y/then/more"));
        assert!(!m("/a", "/A"), "case sensitive");
        assert!(m("/**a*b$", "/xxaxxb"));
        assert!(!m("/a*b$", "/ab/c"));
    }

    #[test]
    fn escapes() {
        assert_eq!(&*normalise(b"/%7euser/%2fx%2"), b"/~user/%2Fx%2");
        assert_eq!(&*normalise(b"/path/foo-%24"), b"/path/foo-%24");
        assert_eq!(&*normalise(b"%41%"), b"A%");
        assert_eq!(&*path_form(b"/path/foo-$*"), b"/path/foo-%24%2A");
    }
}
