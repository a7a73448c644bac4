//! The crawler's product token ([RFC 9309 §2.2.1]).
//!
//! [RFC 9309 §2.2.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.1

use std::fmt;

use super::Mode;

/// Why a string is not a product token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The string is empty.
    #[error("the product token is empty")]
    Empty,
    /// The string has a character other than a letter, a digit, `_` or `-`.
    #[error(
        "{token:?} is not a product token: only letters, digits, '_' and '-' are allowed{}",
        hint.as_ref().map(|h| format!(" (did you mean {h:?}?)")).unwrap_or_default()
    )]
    Invalid {
        /// The string given.
        token: String,
        /// The leading product token, when there is a plausible one.
        hint: Option<String>,
    },
    /// A browser-style User-Agent header (`Mozilla/5.0 (…)`) in which no crawler names itself.
    #[error("{header:?} is a browser User-Agent header with no crawler in it (such as `compatible; Googlebot/2.1`): give the crawler's product token (e.g. \"Googlebot\")")]
    BrowserHeader {
        /// The header given.
        header: String,
    },
}

/// A crawler's product token, such as `Googlebot` or `MJ12bot`: letters, digits, `_` and `-`,
/// compared case-insensitively (stored lowercased once).
///
/// # Which characters
///
/// [RFC 9309 §2.2.1] lets the product token of a `user-agent` line hold letters, `_` and `-`
/// only, but real crawlers have digits in their names (`MJ12bot`, `360Spider`), and sites write
/// `User-agent: MJ12bot` and mean that crawler. So a token here is `[A-Za-z0-9_-]+` (letters,
/// `_` and `-` cover the rest: `AhrefsBot`, `Baiduspider-render`, `facebookexternalhit`), and
/// [`Mode::Rfc`] reads a group's `user-agent` value up to the first character outside that set
/// (`MJ12bot/1.4` → `mj12bot`). [`Mode::Google`]
/// reads it as google/robotstxt does, up to the first character that is not a letter, `_` or
/// `-` (`MJ12bot` → `mj`), so there a crawler whose name has a digit gets only the `*` group —
/// which is what Google's library answers.
///
/// # Which group a crawler gets
///
/// The crawler's token is compared, whole and case-insensitively, with each group's token; every
/// group whose token is equal applies (their rules merged). If none is equal, the `*` groups
/// apply; if there is none, nothing is disallowed. There is no prefix matching: `Googlebot`
/// does not get a `User-agent: Googlebot-News` group, nor `Googlebot-News` a `Googlebot` one
/// (a crawler that obeys both asks for each, as Google's crawlers do).
///
/// A crawler that knows only its User-Agent header can have its token read from it with
/// [`ProductToken::from_user_agent`]. crawler-commons (Java) is the model: its
/// `SimpleRobotRulesParser` compares a lowercased product token with each `user-agent` value
/// exactly, falling back to the value's leading product token (`User-agent: Butterfly/1.0` is
/// `butterfly`; letters only there, so `User-agent: MJ12bot/1.4` is `mj`), and only its
/// deprecated string API takes a whole header and matches its words by prefix. Here the header
/// is reduced to one token first, and matching stays exact.
///
/// ```
/// use crawlgate::{Mode, Options, ProductToken, Robots};
/// let t = ProductToken::new("Googlebot-News")?;
/// assert_eq!(t.as_str(), "googlebot-news");
/// assert_eq!(ProductToken::new("MJ12bot")?.as_str(), "mj12bot");
/// assert!(ProductToken::new("Googlebot/2.1").is_err());
/// // A crawler's own User-Agent header gives its leading product…
/// assert_eq!(ProductToken::from_user_agent("MyBot/1.0 (+https://mybot.example)")?.as_str(), "mybot");
/// // …and a browser-style one the product after `compatible;`.
/// let ua = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
/// assert_eq!(ProductToken::from_user_agent(ua)?.as_str(), "ahrefsbot");
///
/// let body = b"User-agent: *\nDisallow: /\n\nUser-agent: MJ12bot\nDisallow: /private\n";
/// let mj12 = ProductToken::new("MJ12bot")?;
/// let rfc = Robots::parse(body).robots;
/// assert!(rfc.is_allowed(&mj12, "/page")); // its own group
/// let google = Robots::parse_with(body, &Options::mode(Mode::Google)).robots;
/// assert!(!google.is_allowed(&mj12, "/page")); // Google reads the group as `MJ`: `*` applies
/// # Ok::<(), crawlgate::TokenError>(())
/// ```
///
/// [RFC 9309 §2.2.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.1
/// [`Mode::Rfc`]: crate::Mode::Rfc
/// [`Mode::Google`]: crate::Mode::Google
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProductToken(Box<str>);

/// A byte of a product token: a letter, a digit, `_` or `-` (see [`ProductToken`]).
#[inline]
pub(crate) const fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A byte of a group's token as google/robotstxt's `ExtractUserAgent` reads it: `[a-zA-Z_-]`.
#[inline]
const fn is_google_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}

/// [`TOKEN_BYTES`] bits: a byte of a product token, and of a token as google/robotstxt reads
/// one.
const RFC_TOKEN: u8 = 1;
const GOOGLE_TOKEN: u8 = 2;

/// Token bytes by mode, looked up once per byte (the tests above cost several compares; every
/// group's `user-agent` value is scanned).
static TOKEN_BYTES: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        if is_token_byte(b as u8) {
            t[b] |= RFC_TOKEN;
        }
        if is_google_token_byte(b as u8) {
            t[b] |= GOOGLE_TOKEN;
        }
        b += 1;
    }
    t
};

/// The leading run of token bytes.
fn leading(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .position(|&b| TOKEN_BYTES[usize::from(b)] & RFC_TOKEN == 0)
        .unwrap_or(s.len());
    &s[..end]
}

/// Appends `name` folded as a crawler's verbatim name is compared ([`ProductToken::verbatim`],
/// and a group's whole `user-agent` value in [`Mode::Rfc`]): ASCII lowercased, any other
/// character by Unicode's lowercase mapping (`Ö` → `ö`), one character at a time so that
/// both sides fold alike. A character whose lowercase holds ASCII (KELVIN SIGN → `k`, `İ` →
/// `i̇`) is kept as it is: a name with a non-ASCII character never folds to an ASCII one, so
/// that [`Mode::Google`], which compares ASCII case-insensitively, answers as Google's library.
pub(crate) fn fold_name(name: &str, out: &mut String) {
    for c in name.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        let lower = c.to_lowercase();
        if lower.clone().any(|l| l.is_ascii()) {
            out.push(c);
        } else {
            out.extend(lower);
        }
    }
}

/// The product token a group's `user-agent` value starts with, as `mode` reads it: letters,
/// digits, `_` and `-` in `Mode::Rfc`; letters, `_` and `-` in `Mode::Google`.
pub(crate) fn leading_token(s: &[u8], mode: Mode) -> &[u8] {
    let end = match mode {
        Mode::Rfc => leading(s).len(),
        Mode::Google => s
            .iter()
            .position(|&b| TOKEN_BYTES[usize::from(b)] & GOOGLE_TOKEN == 0)
            .unwrap_or(s.len()),
    };
    &s[..end]
}

/// `item` as a product, `token` or `token/version` (no whitespace): its token.
fn product(item: &str) -> Option<&str> {
    let lead = leading(item.as_bytes());
    let rest = &item[lead.len()..];
    let ok = !lead.is_empty()
        && (rest.is_empty()
            || rest.starts_with('/') && !rest.bytes().any(|b| b.is_ascii_whitespace()));
    ok.then(|| &item[..lead.len()])
}

/// The `;`-separated items of each parenthesised comment of a header, trimmed.
fn comments(header: &str) -> impl Iterator<Item = Vec<&str>> {
    header.split('(').skip(1).map(|c| {
        let c = c.split(')').next().unwrap_or(c);
        c.split(';').map(str::trim).collect()
    })
}

/// The crawler named inside a browser-style header: the product after `compatible;`, else a
/// comment that starts with a product with a version.
fn crawler_in_comments(header: &str) -> Option<&str> {
    let after_compatible = comments(header).find_map(|items| {
        let at = items
            .iter()
            .position(|i| i.eq_ignore_ascii_case("compatible"))?;
        items.get(at + 1).and_then(|i| product(i))
    });
    after_compatible.or_else(|| {
        comments(header).find_map(|items| {
            let first = items.first()?;
            product(first).filter(|t| first.len() > t.len())
        })
    })
}

impl ProductToken {
    /// Validates a product token (`[A-Za-z0-9_-]+`; see [`ProductToken`] for why digits are
    /// allowed).
    pub fn new(token: &str) -> Result<Self, TokenError> {
        if token.is_empty() {
            return Err(TokenError::Empty);
        }
        if token.bytes().all(is_token_byte) {
            return Ok(ProductToken(token.to_ascii_lowercase().into()));
        }
        let lead = leading(token.as_bytes());
        let hint = (!lead.is_empty()).then(|| String::from_utf8_lossy(lead).into_owned());
        Err(TokenError::Invalid {
            token: token.to_owned(),
            hint,
        })
    }

    /// The crawler's product token, read from its User-Agent header:
    ///
    /// 1. a product token on its own is taken as it is (`MJ12bot`);
    /// 2. a header that starts with a product, `token/version` or `token (comment)`, gives that
    ///    token (`MyBot/1.0 (+https://…)` → `mybot`, `CCBot/2.0 (https://commoncrawl.org/faq/)`
    ///    → `ccbot`, `AdsBot-Google (+http://www.google.com/adsbot.html)` → `adsbot-google`),
    ///    unless it is `Mozilla`;
    /// 3. a browser-style header (`Mozilla/5.0 …`) gives the crawler that names itself in a
    ///    comment: the product right after `compatible;`
    ///    (`Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)` →
    ///    `googlebot`; also `(KHTML, like Gecko; compatible; GPTBot/1.0; …)`), else a comment
    ///    that starts with a product and its version
    ///    (`… Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)` → `applebot`);
    /// 4. anything else is refused: a browser's own header ([`TokenError::BrowserHeader`]:
    ///    `Mozilla/5.0 (Windows NT 10.0; Win64; x64) … Chrome/… Safari/…`, or
    ///    `(compatible; MSIE 9.0; …)`, where what follows `compatible` is not a product), or a
    ///    string that is neither a token nor a header (`My Bot`, [`TokenError::Invalid`]).
    ///
    /// The token is then matched exactly (see [`ProductToken`]): `Googlebot-Image/1.0` is
    /// `googlebot-image`, which does not get a `Googlebot` group.
    pub fn from_user_agent(header: &str) -> Result<Self, TokenError> {
        let header = header.trim();
        let lead = leading(header.as_bytes());
        if lead.len() == header.len() {
            return Self::new(header);
        }
        let token = |t: &str| ProductToken(t.to_ascii_lowercase().into());
        if lead.eq_ignore_ascii_case(b"mozilla") {
            return crawler_in_comments(header).map(token).ok_or_else(|| {
                TokenError::BrowserHeader {
                    header: header.to_owned(),
                }
            });
        }
        let rest = &header[lead.len()..];
        let leading_product =
            !lead.is_empty() && (rest.starts_with('/') || rest.trim_start().starts_with('('));
        if leading_product {
            return Ok(token(&header[..lead.len()]));
        }
        Self::new(header)
    }

    /// Takes any string as the agent, unvalidated, as google/robotstxt's API does: it is
    /// compared case-insensitively (Unicode-aware: `Ö` is `ö`), as a whole, with each group's
    /// product token, and in [`Mode::Rfc`] also with each group's whole `user-agent` value
    /// when that value is not a product token.
    ///
    /// - [`Mode::Rfc`]: a crawler named `UnicödeBöt`, or `Foo Bar`, outside the token
    ///   alphabet, gets the group of `User-agent: UnicödeBöt` (or `User-agent: Foo Bar`): the
    ///   site named that crawler exactly. The line still gets its `agent-not-token` warning,
    ///   and its group is still the group of the token in front (`unic`, `foo`).
    /// - [`Mode::Google`], as google/robotstxt: `"Foo Bar"`, `"UnicödeBöt"` and `"XYZ123bot"`
    ///   match no named group (Google reads `User-agent: XYZ123bot` as `xyz`) and only the `*`
    ///   group applies, and `""` matches the groups whose `user-agent` value has no product
    ///   token in front (`User-agent:` with no value, `User-agent: 123`). In [`Mode::Rfc`] the
    ///   empty agent matches no group.
    ///
    /// Prefer [`ProductToken::new`]; this exists for crawlers whose names are not tokens and
    /// to reproduce Google's answers.
    ///
    /// ```
    /// use crawlgate::{Mode, Options, ProductToken, Robots};
    /// let body = "User-agent: *\nDisallow: /admin/\n\nUser-agent: UnicödeBöt\nDisallow: /x\n";
    /// let bot = ProductToken::verbatim("UNICÖDEBÖT");
    /// assert_eq!(bot.as_str(), "unicödeböt");
    /// let rfc = Robots::parse(body.as_bytes()).robots;
    /// assert!(rfc.is_allowed(&bot, "/admin/")); // its own group
    /// let google = Robots::parse_with(body.as_bytes(), &Options::mode(Mode::Google)).robots;
    /// assert!(!google.is_allowed(&bot, "/admin/")); // Google: the `*` group
    /// ```
    ///
    /// [`Mode::Google`]: crate::Mode::Google
    /// [`Mode::Rfc`]: crate::Mode::Rfc
    pub fn verbatim(agent: &str) -> Self {
        if agent.is_ascii() {
            return ProductToken(agent.to_ascii_lowercase().into());
        }
        let mut folded = String::with_capacity(agent.len());
        fold_name(agent, &mut folded);
        ProductToken(folded.into())
    }

    /// The token, lowercased.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ProductToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProductToken({:?})", self.0)
    }
}

impl fmt::Display for ProductToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for ProductToken {
    type Err = TokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_token_agrees_with_the_byte_tests() {
        for b in 0..=255u8 {
            for at in 0..4 {
                let mut v = b"ab9_-cd".to_vec();
                v[at] = b;
                let rfc = v.iter().position(|&c| !is_token_byte(c)).unwrap_or(v.len());
                let google = v
                    .iter()
                    .position(|&c| !is_google_token_byte(c))
                    .unwrap_or(v.len());
                assert_eq!(leading_token(&v, Mode::Rfc), &v[..rfc], "{b:#x} at {at}");
                assert_eq!(
                    leading_token(&v, Mode::Google),
                    &v[..google],
                    "{b:#x} at {at}"
                );
            }
        }
    }

    /// Every character: ASCII folds to its ASCII lowercase, anything else to something with
    /// no ASCII in it (so Google mode's ASCII comparison is untouched), and a character and
    /// its lowercase fold alike.
    #[test]
    fn fold_name_keeps_ascii_and_non_ascii_apart() {
        let fold = |s: &str| {
            let mut out = String::new();
            fold_name(s, &mut out);
            out
        };
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let s = c.to_string();
            let f = fold(&s);
            if c.is_ascii() {
                assert_eq!(f, s.to_ascii_lowercase());
            } else {
                assert!(!f.bytes().any(|b| b.is_ascii()), "{c:?} → {f:?}");
                let lower: String = c.to_lowercase().collect();
                if !lower.is_ascii() && lower.chars().count() == 1 {
                    assert_eq!(fold(&lower), f, "{c:?}");
                }
            }
        }
        assert_eq!(fold("UnicödeBÖT"), "unicödeböt");
        assert_eq!(ProductToken::verbatim("UNICÖDEBÖT").as_str(), "unicödeböt");
        assert_eq!(ProductToken::verbatim("Foo Bar").as_str(), "foo bar");
    }

    #[test]
    fn validation() {
        assert!(ProductToken::new("Foo_bar-baz").is_ok());
        assert_eq!(ProductToken::new(""), Err(TokenError::Empty));
        for bad in ["Foobot*", " Foobot ", "Foobot/2.1", "Foobot Bar", "ツ"] {
            assert!(ProductToken::new(bad).is_err(), "{bad}");
        }
        let err = ProductToken::new("Foobot/2.1").unwrap_err().to_string();
        assert!(err.contains("did you mean \"Foobot\""), "{err}");
        assert!(err.contains("letters, digits, '_' and '-'"), "{err}");
    }

    #[test]
    fn digits_are_token_characters() {
        for (name, want) in [
            ("MJ12bot", "mj12bot"),
            ("360Spider", "360spider"),
            ("XYZ123bot", "xyz123bot"),
            ("Baiduspider-render", "baiduspider-render"),
        ] {
            assert_eq!(
                ProductToken::new(name).map(|t| t.to_string()),
                Ok(want.into())
            );
        }
        let err = ProductToken::new("AhrefsBot/7.0").unwrap_err();
        assert!(
            err.to_string().contains("did you mean \"AhrefsBot\""),
            "{err}"
        );
    }

    #[test]
    fn group_tokens_per_mode() {
        let t = |s: &'static str, m| std::str::from_utf8(leading_token(s.as_bytes(), m)).unwrap();
        assert_eq!(t("MJ12bot/1.4", Mode::Rfc), "MJ12bot");
        assert_eq!(t("MJ12bot/1.4", Mode::Google), "MJ");
        assert_eq!(t("360Spider", Mode::Rfc), "360Spider");
        assert_eq!(t("360Spider", Mode::Google), "");
        assert_eq!(t("Googlebot/2.1", Mode::Rfc), "Googlebot");
        assert_eq!(t("Googlebot-News x", Mode::Google), "Googlebot-News");
    }

    /// Real crawlers' User-Agent headers, as their operators publish them, and the token each
    /// gives.
    #[test]
    fn real_crawler_headers() {
        let cases = [
            // Googlebot desktop, classic and evergreen.
            ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "googlebot"),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36", "googlebot"),
            // Googlebot smartphone: the crawler's comment comes last.
            ("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "googlebot"),
            ("Googlebot-Image/1.0", "googlebot-image"),
            ("AdsBot-Google (+http://www.google.com/adsbot.html)", "adsbot-google"),
            ("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot"),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", "bingbot"),
            // Applebot: no `compatible;`, its comment starts with its product.
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", "applebot"),
            ("DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", "duckduckbot"),
            ("Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "yandexbot"),
            ("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "ahrefsbot"),
            ("Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", "semrushbot"),
            ("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", "mj12bot"),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "gptbot"),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "claudebot"),
            ("CCBot/2.0 (https://commoncrawl.org/faq/)", "ccbot"),
            ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "facebookexternalhit"),
            ("Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", "baiduspider"),
            ("Mozilla/5.0 (compatible; Baiduspider-render/2.0; +http://www.baidu.com/search/spider.html)", "baiduspider-render"),
            // PetalBot: no version, no space after the `;`.
            ("Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)", "petalbot"),
            // Plain tokens and a crawler's own header.
            ("MJ12bot", "mj12bot"),
            ("  Googlebot ", "googlebot"),
            ("MyBot/1.0 (+https://mybot.example)", "mybot"),
        ];
        for (header, want) in cases {
            assert_eq!(
                ProductToken::from_user_agent(header).map(|t| t.to_string()),
                Ok(want.to_owned()),
                "{header}"
            );
        }
    }

    #[test]
    fn browser_headers_are_refused() {
        for header in [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
            "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            // `compatible;` followed by a browser, not a product.
            "Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.2; Trident/6.0)",
            "Mozilla/5.0",
        ] {
            let err = ProductToken::from_user_agent(header).unwrap_err();
            assert!(matches!(err, TokenError::BrowserHeader { .. }), "{header}: {err:?}");
            let msg = err.to_string();
            assert!(msg.contains("no crawler in it"), "{msg}");
        }
    }

    #[test]
    fn other_strings() {
        assert!(matches!(
            ProductToken::from_user_agent("My Bot"),
            Err(TokenError::Invalid { hint: Some(h), .. }) if h == "My"
        ));
        assert_eq!(ProductToken::from_user_agent(""), Err(TokenError::Empty));
        assert!(ProductToken::from_user_agent("/1.0").is_err());
    }
}
