//! Record keys: which directive a key names, and how exactly it was spelled.

use super::Mode;

/// The directive a `key:` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Directive {
    /// `user-agent`: starts or extends a group.
    UserAgent,
    /// `allow`.
    Allow,
    /// `disallow`.
    Disallow,
    /// `sitemap`: global, never part of a group.
    Sitemap,
    /// A record outside the protocol that crawlers commonly meet (`crawl-delay`, `host`, …):
    /// kept and exposed, never affecting what is allowed.
    Other(OtherKey),
    /// `content-usage` (draft-ietf-aipref-attach): usage preferences, a group record. Never
    /// affects what is allowed; not a group boundary.
    ContentUsage,
    /// `content-signal` (Cloudflare's Content Signals): usage signals, a group record. Never
    /// affects what is allowed; not a group boundary.
    ContentSignal,
    /// `license` (RSL 1.0): the URL of the site's license document; global.
    License,
    /// `llm-policy`: the URL of a policy for language models; global.
    LlmPolicy,
}

impl Directive {
    /// The canonical lowercase key.
    pub fn as_str(self) -> &'static str {
        match self {
            Directive::UserAgent => "user-agent",
            Directive::Allow => "allow",
            Directive::Disallow => "disallow",
            Directive::Sitemap => "sitemap",
            Directive::Other(o) => o.as_str(),
            Directive::ContentUsage => "content-usage",
            Directive::ContentSignal => "content-signal",
            Directive::License => "license",
            Directive::LlmPolicy => "llm-policy",
        }
    }
}

/// Records outside RFC 9309 that are common enough to be kept by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OtherKey {
    /// `crawl-delay` (per group; Bing, Yandex).
    CrawlDelay,
    /// `host` (Yandex's preferred mirror; global).
    Host,
    /// `clean-param` (Yandex).
    CleanParam,
    /// `request-rate`.
    RequestRate,
    /// `visit-time`.
    VisitTime,
    /// `noindex`, which Google stopped reading in 2019.
    Noindex,
    /// `nofollow`.
    Nofollow,
    /// `noarchive`.
    Noarchive,
}

impl OtherKey {
    /// The canonical lowercase key.
    pub fn as_str(self) -> &'static str {
        match self {
            OtherKey::CrawlDelay => "crawl-delay",
            OtherKey::Host => "host",
            OtherKey::CleanParam => "clean-param",
            OtherKey::RequestRate => "request-rate",
            OtherKey::VisitTime => "visit-time",
            OtherKey::Noindex => "noindex",
            OtherKey::Nofollow => "nofollow",
            OtherKey::Noarchive => "noarchive",
        }
    }
}

/// How a key was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// The canonical spelling (case-insensitive).
    Exact,
    /// One of Google's accepted misspellings.
    Typo,
    /// `Mode::Google` only: the key merely starts with a known key (`disallowed`), which
    /// google/robotstxt accepts.
    Prefix,
}

/// Canonical keys and the misspellings Google accepts, in Google's order of precedence.
const KEYS: &[(&[u8], Directive, Spelling)] = &[
    (b"user-agent", Directive::UserAgent, Spelling::Exact),
    (b"useragent", Directive::UserAgent, Spelling::Typo),
    (b"user agent", Directive::UserAgent, Spelling::Typo),
    (b"allow", Directive::Allow, Spelling::Exact),
    (b"disallow", Directive::Disallow, Spelling::Exact),
    (b"dissallow", Directive::Disallow, Spelling::Typo),
    (b"dissalow", Directive::Disallow, Spelling::Typo),
    (b"disalow", Directive::Disallow, Spelling::Typo),
    (b"diasllow", Directive::Disallow, Spelling::Typo),
    (b"disallaw", Directive::Disallow, Spelling::Typo),
    (b"sitemap", Directive::Sitemap, Spelling::Exact),
    (b"site-map", Directive::Sitemap, Spelling::Typo),
];

const OTHERS: &[(&[u8], OtherKey)] = &[
    (b"crawl-delay", OtherKey::CrawlDelay),
    (b"host", OtherKey::Host),
    (b"clean-param", OtherKey::CleanParam),
    (b"request-rate", OtherKey::RequestRate),
    (b"visit-time", OtherKey::VisitTime),
    (b"noindex", OtherKey::Noindex),
    (b"nofollow", OtherKey::Nofollow),
    (b"noarchive", OtherKey::Noarchive),
];

/// Records of robots.txt as written for AI crawlers (`usage.rs`). None of them starts with a
/// key of [`KEYS`], so Google's prefix rule never reads one as `allow` or `disallow`.
const USAGE: &[(&[u8], Directive)] = &[
    (b"content-usage", Directive::ContentUsage),
    (b"content-signal", Directive::ContentSignal),
    (b"license", Directive::License),
    (b"llm-policy", Directive::LlmPolicy),
];

/// Up to 8 bytes as one word with 0x20 OR-ed into every byte (missing bytes count as 0).
#[inline]
fn fold8(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = bytes.len().min(8);
    w[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(w) | 0x2020_2020_2020_2020
}

/// Classifies a key. `None`: unknown.
///
/// The common case is inlined into the parser's line code (a call per line cost about 25
/// instructions); the rest is [`directive_of_other`].
#[inline(always)]
pub(crate) fn directive_of(key: &[u8], mode: Mode) -> Option<(Directive, Spelling)> {
    // The common case first: one of the four keys, spelled right, compared as one or two
    // words. The canonical keys are lowercase letters and `-`, so OR-ing 0x20 folds case; the
    // only other byte that folds to `-` is CR, which never occurs inside a line. Bytes past
    // the key fold to a space, which no key holds.
    let exact = match key.len() {
        10 if fold8(&key[..8]) == fold8(b"user-age") && fold8(&key[8..]) == fold8(b"nt") => {
            Some(Directive::UserAgent)
        }
        8 if fold8(key) == fold8(b"disallow") => Some(Directive::Disallow),
        5 if fold8(key) == fold8(b"allow") => Some(Directive::Allow),
        7 if fold8(key) == fold8(b"sitemap") => Some(Directive::Sitemap),
        _ => None,
    };
    match exact {
        Some(dir) => Some((dir, Spelling::Exact)),
        None => directive_of_other(key, mode),
    }
}

/// The key a trimmed record line starts with when it is `user-agent`, `allow` or `disallow`
/// spelled right (any case) and followed at once by its colon, and the colon's index; `None`
/// for anything else, which then takes the general lexer and [`directive_of`]. Nine lines in
/// ten of the bench corpus are such rules or agents: one word compare each (the general
/// lexer's colon search, trims and key dispatch cost about 60 instructions a line).
#[inline(always)]
pub(crate) fn common_key(line: &[u8]) -> Option<(Directive, usize)> {
    // Bytes 0-7 of the line, letters folded to lowercase. Only letters are folded (the mask
    // leaves `-` and `:` alone), so the compares are exact.
    let w = super::swar::load(line, 0)?;
    const fn word(s: &[u8; 8]) -> u64 {
        u64::from_le_bytes(*s)
    }
    if w | 0x2020_2020_2020_2020 == word(b"disallow") {
        return (line.get(8) == Some(&b':')).then_some((Directive::Disallow, 8));
    }
    if (w & 0xFFFF_FFFF_FFFF) | 0x20_2020_2020 == word(b"allow:\0\0") {
        return Some((Directive::Allow, 5));
    }
    if w | 0x2020_2000_2020_2020 == word(b"user-age")
        && matches!(line.get(8..11), Some([n, t, b':']) if n | 0x20 == b'n' && t | 0x20 == b't')
    {
        return Some((Directive::UserAgent, 10));
    }
    None
}

/// [`directive_of`] for a key that is not one of the four common ones spelled right.
#[inline(never)]
fn directive_of_other(key: &[u8], mode: Mode) -> Option<(Directive, Spelling)> {
    let first = key.first()?.to_ascii_lowercase();
    for &(name, dir, spelling) in KEYS {
        if name[0] == first && key.eq_ignore_ascii_case(name) {
            return Some((dir, spelling));
        }
    }
    for &(name, other) in OTHERS {
        if name[0] == first && key.eq_ignore_ascii_case(name) {
            return Some((Directive::Other(other), Spelling::Exact));
        }
    }
    for &(name, dir) in USAGE {
        if name[0] == first && key.eq_ignore_ascii_case(name) {
            return Some((dir, Spelling::Exact));
        }
    }
    if mode == Mode::Google {
        // google/robotstxt matches keys with StartsWithIgnoreCase, in this order.
        for &(name, dir, _) in KEYS {
            if name[0] == first
                && key.len() > name.len()
                && key[..name.len()].eq_ignore_ascii_case(name)
            {
                return Some((dir, Spelling::Prefix));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_typos_and_prefixes() {
        assert_eq!(
            directive_of(b"User-Agent", Mode::Rfc),
            Some((Directive::UserAgent, Spelling::Exact))
        );
        assert_eq!(
            directive_of(b"DISSALOW", Mode::Rfc),
            Some((Directive::Disallow, Spelling::Typo))
        );
        assert_eq!(
            directive_of(b"Crawl-Delay", Mode::Rfc),
            Some((Directive::Other(OtherKey::CrawlDelay), Spelling::Exact))
        );
        assert_eq!(directive_of(b"disallowed", Mode::Rfc), None);
        assert_eq!(
            directive_of(b"disallowed", Mode::Google),
            Some((Directive::Disallow, Spelling::Prefix))
        );
        assert_eq!(directive_of(b"foo", Mode::Google), None);
        assert_eq!(
            directive_of(b"Content-Usage", Mode::Google),
            Some((Directive::ContentUsage, Spelling::Exact))
        );
        assert_eq!(
            directive_of(b"LLM-Policy", Mode::Rfc),
            Some((Directive::LlmPolicy, Spelling::Exact))
        );
    }

    #[test]
    fn usage_keys_are_never_read_as_protocol_keys() {
        for &(name, _) in USAGE {
            for &(known, _, _) in KEYS {
                assert!(!name.starts_with(known));
            }
        }
    }
}
