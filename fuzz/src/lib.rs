//! Invariants and reference matchers shared by the fuzz targets (`fuzz_targets/*.rs`) and the
//! regression tests (`tests/it/fuzz_regressions.rs` includes this file with `#[path]`), so a crash
//! found by a target replays under `cargo test` with the very same assertions.
//!
//! Depends on crawlgate and memchr alone (no libFuzzer, no `arbitrary`): everything here is
//! plain code that panics, with a message, when an invariant does not hold.

#![forbid(unsafe_code)]

use crawlgate::{
    request_path, request_target, respelled, robots_txt_url, Agent, Code, Decision, Diagnostic,
    GroupMatch, Mode, Options, Origin, ProductToken, Reason, Robots, RuleKind, RuleRef, Severity,
    DEFAULT_MAX_BYTES, GOOGLE_MAX_LINE_BYTES,
};

/// Both parsing modes, in the order every target runs them.
pub const MODES: [Mode; 2] = [Mode::Rfc, Mode::Google];

/// Byte offsets where each line starts: LF, a lone CR and CRLF each end one line (as
/// `Diagnostic::line` counts them). `starts[0] == 0`; line `n` (1-based) starts at
/// `starts[n - 1]`.
pub fn line_starts(input: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        memchr::memchr2_iter(b'\n', b'\r', input)
            .filter(|&i| input[i] == b'\n' || input.get(i + 1) != Some(&b'\n'))
            .map(|i| i + 1),
    );
    starts
}

/// The 1-based line that byte `at` is on, given [`line_starts`].
pub fn line_at(starts: &[usize], at: usize) -> u32 {
    starts.partition_point(|&s| s <= at) as u32
}

/// The filler of [`behind_filler`]: this many comment lines of this many bytes, then one
/// shorter comment line.
const FILLER_LINES: usize = 31;
const FILLER_LINE: usize = 16_000;

/// `rest` behind comment lines that end so that the 512,000-byte limit falls after `keep`
/// bytes of it (`keep` is clamped to its length), so that inputs of a few bytes reach the
/// `content-after-limit` paths: a line the limit cuts, a CRLF it splits. The filler lines are
/// under Google's line limit, so they are cheap and raise no diagnostic. Reuses `buf`.
pub fn behind_filler(buf: &mut Vec<u8>, rest: &[u8], keep: usize) {
    let keep = keep.min(rest.len());
    if buf.len() < FILLER_LINES * FILLER_LINE
        || buf[..FILLER_LINES * FILLER_LINE].last() != Some(&b'\n')
    {
        buf.clear();
        for _ in 0..FILLER_LINES {
            buf.push(b'#');
            buf.resize(buf.len() + FILLER_LINE - 2, b'x');
            buf.push(b'\n');
        }
    }
    buf.truncate(FILLER_LINES * FILLER_LINE);
    let last = DEFAULT_MAX_BYTES - keep - buf.len();
    buf.push(b'#');
    buf.resize(buf.len() + last - 2, b'x');
    buf.push(b'\n');
    buf.extend_from_slice(rest);
}

/// Parses `input` in `mode` and asserts every invariant of the result (see
/// [`assert_diagnostics`] and [`assert_structure`]). Returns the parse.
pub fn parse_checked(input: &[u8], mode: Mode) -> crawlgate::Parsed {
    let parsed = Robots::parse_with(input, &Options::mode(mode));
    // First: a check builds lookups that the quiet parse would not have.
    assert_quiet_same(input, mode, &parsed);
    let starts = line_starts(input);
    assert_diagnostics(input, &starts, mode, &parsed.diagnostics);
    assert_structure(input, &starts, &parsed.robots);
    parsed
}

/// Parsing without diagnostics (`Options::diagnostics` off) gives none, and the same compiled
/// file, field for field (compared before either is checked).
pub fn assert_quiet_same(input: &[u8], mode: Mode, parsed: &crawlgate::Parsed) {
    let mut options = Options::mode(mode);
    options.diagnostics = false;
    let quiet = Robots::parse_with(input, &options);
    assert!(quiet.diagnostics.is_empty(), "{:?}", quiet.diagnostics);
    assert_eq!(
        format!("{:?}", quiet.robots),
        format!("{:?}", parsed.robots),
        "without diagnostics, the compiled file differs"
    );
}

/// Every diagnostic: span inside the input, `line` is the line its span starts on (LF, lone
/// CR, CRLF), column ≥ 1, the mode's severity, in line order; printing never panics.
pub fn assert_diagnostics(input: &[u8], starts: &[usize], mode: Mode, diagnostics: &[Diagnostic]) {
    let mut last_line = 0;
    for d in diagnostics {
        assert!(
            d.span.start <= d.span.end && d.span.end <= input.len(),
            "span outside the input ({} bytes): {d:?}",
            input.len()
        );
        assert!(d.line >= 1, "line 0: {d:?}");
        assert_eq!(
            line_at(starts, d.span.start),
            d.line,
            "the span does not start on the diagnostic's line: {d:?}"
        );
        assert!(d.column(input) >= 1, "column < 1: {d:?}");
        let want = match (d.code, mode) {
            (Code::InvalidUtf8, Mode::Google) => Severity::Warning,
            (Code::MisplacedBom, Mode::Google) => Severity::Error,
            (code, _) => code.default_severity(),
        };
        assert_eq!(d.severity, want, "severity: {d:?}");
        assert!(d.line >= last_line, "diagnostics out of line order: {d:?}");
        last_line = d.line;
        assert!(!d.to_string().is_empty());
        assert!(!d.message.is_empty(), "empty message: {d:?}");
    }
}

/// The parsed structure is consistent: bytes used, rules on real lines, groups' rule ranges
/// in order and inside the rule list, every group named by at least one agent, rule texts
/// ending with their patterns, patterns starting with `/` or `*`.
pub fn assert_structure(input: &[u8], starts: &[usize], robots: &Robots) {
    let lines = starts.len() as u32;
    assert_eq!(
        robots.bytes_used(),
        input.len().min(DEFAULT_MAX_BYTES),
        "bytes_used"
    );
    for i in 0..robots.rule_count() {
        let r = robots.rule(i).expect("rule index below rule_count");
        assert!(r.line >= 1 && r.line <= lines, "rule line {}", r.line);
        assert!(
            r.pattern.starts_with('/') || r.pattern.starts_with('*'),
            "pattern {:?}",
            r.pattern
        );
        if !r.index_html {
            assert!(
                r.text.to_string().ends_with(r.pattern),
                "text {:?} / {:?}",
                r.text,
                r.pattern
            );
        } else {
            assert_eq!(r.kind, RuleKind::Allow);
            assert!(r.pattern.ends_with("/$"), "index.html rule {:?}", r.pattern);
        }
    }
    assert!(robots.rule(robots.rule_count()).is_none());
    let mut next = 0;
    for g in robots.groups() {
        assert_eq!(g.agents().next().map(|a| a.1), Some(g.line()), "{g:?}");
        let rules = g.rules();
        assert!(rules.start >= next && rules.start <= rules.end, "{g:?}");
        assert!(rules.end as usize <= robots.rule_count(), "{g:?}");
        next = rules.end;
        for (agent, line) in g.agents() {
            assert!(line >= g.line() && line <= lines);
            if let Agent::Token(t) = agent {
                // Digits are token characters in `Mode::Rfc` only (google/robotstxt stops at one).
                let digits = robots.mode() == Mode::Rfc;
                let ok = !t.is_empty()
                    && t.bytes().all(|b| {
                        b.is_ascii_lowercase()
                            || b == b'_'
                            || b == b'-'
                            || digits && b.is_ascii_digit()
                    });
                assert!(ok, "agent token {t:?}");
            }
        }
    }
    for s in robots.sitemaps() {
        assert!(s.line >= 1 && s.line <= lines);
    }
    for r in robots.records() {
        assert!(r.line >= 1 && r.line <= lines);
        assert!(r.group.is_none_or(|g| g < robots.groups().len()));
    }
}

/// What `to_robots_txt` promises to keep: the groups' agents, the rules (kind and pattern as
/// written) in order, sitemaps, and records with the group they belong to.
pub type View<'a> = (
    Vec<Vec<Agent<'a>>>,
    Vec<(RuleKind, String, bool)>,
    Vec<String>,
    Vec<(String, String, Option<usize>)>,
);

/// See [`View`].
pub fn view(r: &Robots) -> View<'_> {
    let groups = r
        .groups()
        .map(|g| g.agents().map(|(a, _)| a).collect())
        .collect();
    let rules = (0..r.rule_count())
        .filter_map(|i| r.rule(i))
        .map(|x| (x.kind, x.pattern.to_owned(), x.index_html))
        .collect();
    let sitemaps = r.sitemaps().map(|s| s.url.to_owned()).collect();
    let records = r
        .records()
        .map(|x| (x.key.as_str().to_owned(), x.value.to_owned(), x.group))
        .collect();
    (groups, rules, sitemaps, records)
}

/// `Robots::to_robots_txt` printed and parsed again (same mode) gives the same [`View`], and
/// printing that gives the same text.
///
/// Not checked in `Mode::Google` when a printed line is longer than Google's 16,663-byte line
/// limit: it is cut again when parsed. (A line cut at the limit prints as `Disallow: ` + the
/// cut value, which can be longer than the line it came from; bytes that are not UTF-8 print
/// as U+FFFD, three bytes for one.)
pub fn assert_round_trip(parsed: &crawlgate::Parsed, mode: Mode) {
    let first = &parsed.robots;
    let printed = first.to_robots_txt();
    if mode == Mode::Google && printed.lines().any(|l| l.len() > GOOGLE_MAX_LINE_BYTES) {
        return;
    }
    let second = Robots::parse_with(printed.as_bytes(), &Options::mode(mode)).robots;
    let (a, b) = (view(first), view(&second));
    if a != b {
        panic!(
            "to_robots_txt does not parse back to the same rules (mode {mode:?})\nbefore: {}\nafter:  {}\nprinted:\n{}",
            short(&format!("{a:?}")),
            short(&format!("{b:?}")),
            short(&printed)
        );
    }
    assert!(
        printed == second.to_robots_txt(),
        "printing is not stable: {}",
        short(&printed)
    );
}

/// At most 800 characters of `s`, for assertion messages about inputs of any size.
pub fn short(s: &str) -> String {
    match s.char_indices().nth(800) {
        Some((at, _)) => format!("{}… ({} bytes in all)", &s[..at], s.len()),
        None => s.to_owned(),
    }
}

/// A product token for any string, the ways a caller may build one: validated when it is a
/// token, else the crawler's own User-Agent header, else verbatim (as google/robotstxt takes
/// it).
pub fn any_token(agent: &str, verbatim: bool) -> ProductToken {
    if verbatim {
        return ProductToken::verbatim(agent);
    }
    ProductToken::new(agent)
        .or_else(|_| ProductToken::from_user_agent(agent))
        .unwrap_or_else(|_| ProductToken::verbatim(agent))
}

/// `check`, `check_path`, `rules_for(..).check`, `is_allowed` and `crawl_delay` for one agent
/// and URL: no panic, the three ways agree, the decision is consistent with its reason, and
/// when the work is small enough it equals the naive reference matcher's answer over the
/// agent's rules ([`naive_allowed`]).
pub fn assert_check(robots: &Robots, token: &ProductToken, url: &str) {
    let d = robots.check(token, url);
    // The path a mode judges: what a client requests (RFC), the URL as written (Google).
    let path = match robots.mode() {
        Mode::Rfc => request_target(url),
        Mode::Google => request_path(url),
    };
    assert!(path.starts_with('/') && !path.contains('#'), "{path:?}");
    if let Some(r) = respelled(url) {
        assert_eq!(r.path, request_target(url));
        assert!(!r.path.contains(['\t', '\n', '\r']), "{r:?}");
    }
    assert_eq!(d, robots.check_path(token, &path), "check vs check_path");
    let rules = robots.rules_for(token);
    assert_eq!(d, rules.check(url), "check vs rules_for().check");
    assert_eq!(rules.group(), d.group);
    assert_eq!(robots.is_allowed(token, url), d.allowed);
    assert_decision(robots, &d, &path);
    // Any string is a path too.
    let raw = robots.check_path(token, url);
    assert_decision(robots, &raw, url);
    if let Some(delay) = robots.crawl_delay(token) {
        assert!(delay.is_finite() && delay >= 0.0, "crawl-delay {delay}");
    }

    // The reference: the agent's rules, matched naively.
    let list: Vec<RuleRef<'_>> = rules.rules().collect();
    for pair in list.windows(2) {
        let (a, b) = (
            reference_rule(robots.mode(), &pair[0]),
            reference_rule(robots.mode(), &pair[1]),
        );
        if let (Some(a), Some(b)) = (a, b) {
            let key = |r: &(bool, RefPattern)| (r.1.priority, r.0);
            assert!(
                key(&a) >= key(&b),
                "rules not in precedence order: {pair:?}"
            );
        }
    }
    for p in [&*path, url] {
        if !p.starts_with('/') || robots_txt_special(robots.mode(), p) {
            continue;
        }
        let work: usize = list.iter().map(|r| r.pattern.len() + 1).sum::<usize>() * (p.len() + 1);
        if work > 2_000_000 {
            continue;
        }
        let Some(reference) = list
            .iter()
            .map(|r| reference_rule(robots.mode(), r))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let want = naive_allowed(&reference, &reference_path(robots.mode(), p.as_bytes()));
        let got = robots.check_path(token, p);
        assert!(
            got.allowed == want,
            "compiled matcher vs naive reference: allowed {} (reference: {want}), mode {:?}, path {}, rules {}, decision {}",
            got.allowed,
            robots.mode(),
            short(&format!("{p:?}")),
            short(&format!("{list:?}")),
            short(&format!("{got:?}")),
        );
    }
}

/// A decision agrees with its own reason.
fn assert_decision(robots: &Robots, d: &Decision<'_>, path: &str) {
    match d.reason {
        Reason::Rule(r) => {
            assert_eq!(d.allowed, r.kind == RuleKind::Allow, "{d:?}");
            assert!(r.line >= 1);
            assert_ne!(d.group, GroupMatch::None, "{d:?}");
        }
        Reason::NoMatchingRule => assert!(d.allowed && d.group != GroupMatch::None, "{d:?}"),
        Reason::NoGroup => assert!(d.allowed && d.group == GroupMatch::None, "{d:?}"),
        Reason::RobotsTxt => {
            assert!(d.allowed && robots.mode() == Mode::Rfc, "{d:?}");
            assert!(robots_txt_special(Mode::Rfc, path), "{d:?} for {path:?}");
        }
    }
}

/// `Mode::Rfc` always allows `/robots.txt` (with any query).
fn robots_txt_special(mode: Mode, path: &str) -> bool {
    mode == Mode::Rfc && path.split('?').next() == Some("/robots.txt")
}

/// One element of a pattern in the reference model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tok {
    /// A byte of the path's form that must be equal.
    Byte(u8),
    /// `*`: any run of bytes.
    Star,
    /// A final `$`: the path ends here.
    End,
}

/// A pattern in the reference model: what to match, and how specific it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPattern {
    /// The pattern in the same form as [`reference_path`] gives paths.
    pub tokens: Vec<Tok>,
    /// Longest match wins: the larger, the more specific.
    pub priority: usize,
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|v| v as u8)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// The `%XX` escape at `at`, if `bytes` has one there.
fn escape_at(bytes: &[u8], at: usize) -> Option<u8> {
    match (
        bytes.get(at + 1).and_then(|&h| hex(h)),
        bytes.get(at + 2).and_then(|&l| hex(l)),
    ) {
        (Some(h), Some(l)) if bytes[at] == b'%' => Some(h << 4 | l),
        _ => None,
    }
}

/// RFC 9309 §2.2.2 as crawlgate documents it (`Mode` and `robots::pattern`): every octet,
/// written raw or as `%XX`, is written one way: printable ASCII raw, except `%`, `*`, `$` and
/// the characters RFC 3986 never allows raw (`"`, `<`, `>`, `\`, `^`, backtick, `{`, `|`,
/// `}`), which are `%XX` with upper-case hex like every other octet (controls, space,
/// non-ASCII).
fn rfc_push(out: &mut Vec<u8>, octet: u8) {
    if (0x21..0x7F).contains(&octet) && !b"%*$\"<>\\^`{|}".contains(&octet) {
        out.push(octet);
    } else {
        out.extend_from_slice(&[
            b'%',
            HEX[usize::from(octet >> 4)],
            HEX[usize::from(octet & 15)],
        ]);
    }
}

/// A pattern (an `allow`/`disallow` value) in the reference model.
///
/// `Mode::Google` (google/robotstxt's `MaybeEscapePattern`): non-ASCII bytes become `%XX`,
/// the hex of existing escapes is upper-cased, and the result is compared byte for byte with
/// the URL as given. Priority: the length of the escaped pattern.
///
/// `Mode::Rfc`: the pattern's octets (raw or `%XX`) in the one form of `rfc_push`, compared
/// with the path in the same form; a raw `*` is the wildcard and a raw final `$` the end,
/// while `%2A`, `%24` and a `$` elsewhere are literal. Priority: one per ASCII octet however it
/// is written, three per non-ASCII octet (its `%XX`), one per `*` and per final `$`.
pub fn reference_pattern(mode: Mode, pattern: &[u8]) -> RefPattern {
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (pattern, false),
    };
    let mut tokens = Vec::with_capacity(body.len() + 1);
    let mut priority = 0;
    let mut bytes = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        bytes.clear();
        if b == b'*' {
            tokens.push(Tok::Star);
            priority += 1;
            i += 1;
            continue;
        }
        match mode {
            Mode::Rfc => {
                let octet = match escape_at(body, i) {
                    Some(v) => {
                        i += 2;
                        v
                    }
                    None => b,
                };
                rfc_push(&mut bytes, octet);
                priority += if octet < 0x80 { 1 } else { 3 };
            }
            Mode::Google => {
                if escape_at(body, i).is_some() {
                    bytes.extend_from_slice(&body[i..i + 3]);
                    bytes.make_ascii_uppercase();
                    i += 2;
                } else if b >= 0x80 {
                    bytes.extend_from_slice(&[
                        b'%',
                        HEX[usize::from(b >> 4)],
                        HEX[usize::from(b & 15)],
                    ]);
                } else {
                    bytes.push(b);
                }
                priority += bytes.len();
            }
        }
        tokens.extend(bytes.iter().map(|&b| Tok::Byte(b)));
        i += 1;
    }
    if anchored {
        tokens.push(Tok::End);
        priority += 1;
    }
    RefPattern { tokens, priority }
}

/// A path in the reference model (see [`reference_pattern`]): `Mode::Google` takes it byte for
/// byte; `Mode::Rfc` writes each octet (raw or `%XX`) the one way `rfc_push` does.
pub fn reference_path(mode: Mode, path: &[u8]) -> Vec<u8> {
    if mode == Mode::Google {
        return path.to_vec();
    }
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        match escape_at(path, i) {
            Some(v) => {
                rfc_push(&mut out, v);
                i += 3;
            }
            None => {
                rfc_push(&mut out, path[i]);
                i += 1;
            }
        }
    }
    out
}

/// The reference form of one of crawlgate's rules: `None` when the pattern as written is not
/// the pattern crawlgate compiled (a `Mode::Google` rule whose bytes were not UTF-8 is shown
/// lossily, with U+FFFD).
fn reference_rule(mode: Mode, r: &RuleRef<'_>) -> Option<(bool, RefPattern)> {
    if r.pattern.contains('\u{FFFD}') {
        return None;
    }
    Some((
        r.kind == RuleKind::Allow,
        reference_pattern(mode, r.pattern.as_bytes()),
    ))
}

/// google/robotstxt's position-set algorithm, straight from its description: the set of path
/// positions the pattern so far can end at.
pub fn naive_matches(pattern: &[Tok], path: &[u8]) -> bool {
    let mut pos = vec![false; path.len() + 1];
    pos[0] = true;
    for t in pattern {
        match *t {
            Tok::End => return pos[path.len()],
            Tok::Star => {
                if let Some(first) = pos.iter().position(|&p| p) {
                    pos[first..].iter_mut().for_each(|p| *p = true);
                }
            }
            Tok::Byte(c) => {
                let mut any = false;
                for i in (0..path.len()).rev() {
                    let hit = pos[i] && path[i] == c;
                    pos[i + 1] = hit;
                    any |= hit;
                }
                pos[0] = false;
                if !any {
                    return false;
                }
            }
        }
    }
    true
}

/// Longest match wins, `allow` wins ties, no match: allowed. `rules` are (allow, pattern).
pub fn naive_allowed(rules: &[(bool, RefPattern)], path: &[u8]) -> bool {
    let mut best: Option<(usize, bool)> = None;
    for (allow, pattern) in rules {
        if !pattern.tokens.is_empty() && naive_matches(&pattern.tokens, path) {
            let cand = (pattern.priority, *allow);
            best = Some(match best {
                Some(b) if b.0 > cand.0 || (b.0 == cand.0 && b.1) => b,
                _ => cand,
            });
        }
    }
    best.is_none_or(|b| b.1)
}

/// `Origin::from_url`, `robots_txt_url` and `request_path` on any string: no panic, the two
/// origin functions agree, and an origin's robots.txt URL parses back to the same origin.
pub fn assert_origin(input: &str) {
    let path = request_path(input);
    assert!(
        path.starts_with('/') && !path.contains('#'),
        "{input:?} → {path:?}"
    );
    let origin = Origin::from_url(input);
    assert_eq!(
        robots_txt_url(input),
        origin
            .as_ref()
            .map(|o| o.robots_txt_url())
            .map_err(Clone::clone),
        "robots_txt_url vs Origin::from_url for {input:?}"
    );
    match origin {
        Ok(o) => {
            let url = o.robots_txt_url();
            assert_eq!(url, format!("{o}/robots.txt"));
            assert_eq!(
                Origin::from_url(&url).as_ref(),
                Ok(&o),
                "{input:?} → {url:?}"
            );
            assert_eq!(
                Origin::from_url(&o.to_string()).as_ref(),
                Ok(&o),
                "{input:?}"
            );
            // request_path is google/robotstxt's GetPathParamsQuery, which takes the first
            // `/`, `?` or `;` after `://` as the start of the path; WHATWG hosts may hold `;`.
            if !o.host().contains(';') {
                assert_eq!(request_path(&url), "/robots.txt", "{url:?}");
            }
            assert!(!o.host().is_empty());
            assert!(!o.host().bytes().any(|b| b.is_ascii_uppercase()), "{o:?}");
            let default = match o.scheme() {
                crawlgate::Scheme::Http => 80,
                crawlgate::Scheme::Https => 443,
            };
            assert_ne!(o.port(), Some(default), "{o:?}");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// A reader that hands out one byte per call: the sitemap reader must give the same items
/// however its source splits the bytes.
pub struct OneByte<'a>(pub &'a [u8]);

impl std::io::Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// The sitemap reader on any bytes: no panic; the same items whether the source gives all the
/// bytes at once or one at a time, and from `sitemap::parse`; every diagnostic with its code's
/// severity, a position inside what was read, and (for uncompressed input) the line and column
/// of that byte offset; entries with a non-empty URL trimmed of XML whitespace, at most `max_entries` of them.
/// Inputs whose first byte is odd run with small limits (300 bytes, 3 entries, 64-byte texts).
pub fn assert_sitemap(input: &[u8]) {
    use crawlgate::sitemap::{self, Item, Reader};

    let mut options = sitemap::Options::default();
    if input.first().is_some_and(|b| b % 2 == 1) {
        options.max_bytes = 300;
        options.max_entries = 3;
        options.max_text_bytes = 64;
    }
    let mut reader = Reader::with_options(input, options.clone());
    let items: Vec<Item> = reader.by_ref().collect();
    let read = reader.bytes_read();
    let gzip = reader.is_gzip();

    let chunked: Vec<Item> = Reader::with_options(OneByte(input), options.clone()).collect();
    assert_eq!(
        items, chunked,
        "items differ when the source gives one byte at a time"
    );
    if options == sitemap::Options::default() {
        let parsed = sitemap::parse(input);
        let entries: Vec<_> = items
            .iter()
            .filter_map(|i| i.clone().into_entry())
            .collect();
        assert_eq!(
            parsed.entries, entries,
            "sitemap::parse differs from the reader"
        );
    }

    let starts = if gzip {
        Vec::new()
    } else {
        line_starts_lf(input)
    };
    let mut entries = 0;
    for item in &items {
        match item {
            Item::Diagnostic(d) => {
                assert_eq!(d.severity, d.code.default_severity(), "{d:?}");
                let p = d.position;
                assert!(p.line >= 1 && p.column >= 1, "{d:?}");
                assert!(p.offset <= read, "{d:?} past the {read} bytes read");
                if !gzip {
                    assert_position(input, &starts, p, &format!("{d:?}"));
                }
            }
            Item::Entry(e) => {
                entries += 1;
                assert!(!e.loc.is_empty(), "{e:?}");
                // XML trims its own whitespace only: a form feed, say, stays (and is reported).
                let xml_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
                assert_eq!(e.loc.trim_matches(xml_space), e.loc, "{e:?}");
                assert!(e.position.offset <= read, "{e:?}");
                if !gzip {
                    assert_position(input, &starts, e.position, &format!("{e:?}"));
                }
            }
        }
    }
    assert!(entries <= options.max_entries, "{entries} entries");
    assert!(read <= options.max_bytes, "{read} bytes read");
}

/// Line starts counting LF only (the sitemap reader's lines: XML turns CR LF and CR into LF).
fn line_starts_lf(input: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', input).map(|i| i + 1));
    starts
}

/// A sitemap position's line and column are those of its byte offset.
fn assert_position(input: &[u8], starts: &[usize], p: crawlgate::sitemap::Position, what: &str) {
    let at = usize::try_from(p.offset)
        .unwrap_or(usize::MAX)
        .min(input.len());
    let line = starts.partition_point(|&s| s <= at);
    assert_eq!(p.line as usize, line, "line of {what}");
    let line_start = starts[line - 1];
    let column = input[line_start..at]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count()
        + 1;
    assert_eq!(p.column as usize, column, "column of {what}");
}

/// The `warc` target's invariants: `data` read as a WARC or WARC.gz file (the reader tells them
/// apart) with bodies cut at `max_body`. No panic and no endless loop; records numbered in order
/// from 1; offsets inside the input and growing; a body of at most `max_body + 1` bytes and no
/// more than its recorded length; every capture judged; every unreadable stretch said why.
#[cfg(feature = "batch")]
pub fn assert_warc(data: &[u8], max_body: usize) {
    use crawlgate::batch::{judge, WarcReader};
    let mut record = 0;
    let mut offset = None;
    // Each item consumes input or ends the stream: more items than bytes would be a loop.
    let mut items = 0;
    for item in WarcReader::new(data, "fuzz.warc", max_body) {
        items += 1;
        assert!(items <= data.len() + 1, "more items than bytes: a loop");
        let place = match &item {
            Ok(capture) => {
                assert!(capture.body.len() <= max_body + 1, "body past the limit");
                assert!(capture.body.len() as u64 <= capture.body_length);
                let judged = judge(capture, max_body);
                assert!(judged.reason.as_ref().is_none_or(|r| !r.is_empty()));
                &capture.place
            }
            Err(unreadable) => {
                assert!(
                    !unreadable.reason.is_empty(),
                    "an unreadable stretch says why"
                );
                &unreadable.place
            }
        };
        assert!(place.record > record, "records numbered in order");
        record = place.record;
        if let Some(at) = place.offset {
            assert!(at <= data.len() as u64, "offset {at} past the input");
            assert!(offset.is_none_or(|o| at >= o), "offsets grow");
            offset = Some(at);
        }
    }
}

/// `batch_rows`'s invariants: every line of `data` read as a JSON Lines row (the input of
/// `crawlgate batch` and of `evaluate`) gives a capture whose body is at most `max_body + 1`
/// bytes, or an unreadable row that names its line; and every capture written as an Arrow row
/// and read back is the same capture (the rows lose nothing).
#[cfg(feature = "batch")]
pub fn assert_batch_rows(data: &[u8], max_body: usize) {
    use crawlgate::batch::{rows, Place};
    let input: std::sync::Arc<str> = std::sync::Arc::from("fuzz.jsonl");
    let mut read = Vec::new();
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        let place = Place {
            input: input.clone(),
            record: i as u64 + 1,
            offset: None,
            crawl: None,
        };
        match rows::capture_of_json(line, max_body, &place) {
            Ok(None) => assert!(line.trim_ascii().is_empty(), "only a blank line is no row"),
            Ok(Some(capture)) => {
                assert!(capture.body.len() <= max_body + 1, "body past the limit");
                assert_eq!(capture.place, place);
                read.push(Ok(capture));
            }
            Err(u) => {
                assert!(
                    u.reason.starts_with(&format!("line {}: ", place.record)),
                    "the reason names its line: {}",
                    u.reason
                );
                read.push(Err(u));
            }
        }
    }
    let batch = rows::to_batch(&read).expect("captures make a batch");
    assert_eq!(batch.num_rows(), read.len());
    for (i, item) in read.iter().enumerate() {
        let fallback = Place::default();
        let back = rows::capture_of_row(&batch, i, usize::MAX - 1, &fallback);
        match (item, back) {
            (Ok(c), Ok(back)) => assert_eq!(c, &back, "a capture survives its row"),
            (Err(u), Err(back)) => assert_eq!(u, &back, "an unreadable row survives its row"),
            (item, back) => panic!("{item:?} came back as {back:?}"),
        }
    }
}
