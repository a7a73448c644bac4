//! The crawler's product token ([RFC 9309 §2.2.1]).
//!
//! [RFC 9309 §2.2.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.1

use std::fmt;

/// Why a string is not a product token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The string is empty.
    #[error("the product token is empty")]
    Empty,
    /// The string has a character other than a letter, `_` or `-`.
    #[error(
        "{token:?} is not a product token: only letters, '_' and '-' are allowed{}",
        hint.as_ref().map(|h| format!(" (did you mean {h:?}?)")).unwrap_or_default()
    )]
    Invalid {
        /// The string given.
        token: String,
        /// The leading product token, when there is a plausible one.
        hint: Option<String>,
    },
    /// A browser-style User-Agent header, whose leading product says nothing about the crawler.
    #[error("{header:?} is a browser-style User-Agent header; give the crawler's own product token (e.g. \"Googlebot\")")]
    BrowserHeader {
        /// The header given.
        header: String,
    },
}

/// A crawler's product token, such as `Googlebot`: letters, `_` and `-` only, compared
/// case-insensitively (stored lowercased once).
///
/// ```
/// use crawlgate::ProductToken;
/// let t = ProductToken::new("Googlebot-News")?;
/// assert_eq!(t.as_str(), "googlebot-news");
/// assert!(ProductToken::new("Googlebot/2.1").is_err());
/// // A crawler's own User-Agent header gives its leading product.
/// assert_eq!(ProductToken::from_user_agent("MyBot/1.0 (+https://mybot.example)")?.as_str(), "mybot");
/// # Ok::<(), crawlgate::TokenError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProductToken(Box<str>);

#[inline]
pub(crate) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}

/// The leading run of token bytes.
pub(crate) fn leading_token(s: &[u8]) -> &[u8] {
    let end = s.iter().position(|&b| !is_token_byte(b)).unwrap_or(s.len());
    &s[..end]
}

impl ProductToken {
    /// Validates a product token (`[A-Za-z_-]+`).
    pub fn new(token: &str) -> Result<Self, TokenError> {
        if token.is_empty() {
            return Err(TokenError::Empty);
        }
        if token.bytes().all(is_token_byte) {
            return Ok(ProductToken(token.to_ascii_lowercase().into()));
        }
        let lead = leading_token(token.as_bytes());
        let hint = (!lead.is_empty()).then(|| String::from_utf8_lossy(lead).into_owned());
        Err(TokenError::Invalid {
            token: token.to_owned(),
            hint,
        })
    }

    /// The leading product of a crawler's own User-Agent header (`MyBot/1.0 (+https://…)` →
    /// `mybot`); a plain token is accepted as it is. A browser-style header (`Mozilla/5.0
    /// (compatible; …)`) is refused rather than guessed from.
    pub fn from_user_agent(header: &str) -> Result<Self, TokenError> {
        let header = header.trim();
        let lead = leading_token(header.as_bytes());
        if lead.len() == header.len() {
            return Self::new(header);
        }
        if lead.eq_ignore_ascii_case(b"mozilla") {
            return Err(TokenError::BrowserHeader {
                header: header.to_owned(),
            });
        }
        match header.as_bytes().get(lead.len()) {
            Some(b'/') if !lead.is_empty() => Ok(ProductToken(
                String::from_utf8_lossy(lead).to_ascii_lowercase().into(),
            )),
            _ => Self::new(header),
        }
    }

    /// Takes any string as the agent, unvalidated, as google/robotstxt does: it is compared
    /// case-insensitively, as a whole, with each group's product token. A string that is not a
    /// product token (`"Foo Bar"`) therefore matches no named group and only the `*` group
    /// applies. Prefer [`ProductToken::new`]; this exists to reproduce Google's answers.
    pub fn verbatim(agent: &str) -> Self {
        ProductToken(agent.to_ascii_lowercase().into())
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
    fn validation() {
        assert!(ProductToken::new("Foo_bar-baz").is_ok());
        assert_eq!(ProductToken::new(""), Err(TokenError::Empty));
        for bad in ["Foobot*", " Foobot ", "Foobot/2.1", "Foobot Bar", "ツ"] {
            assert!(ProductToken::new(bad).is_err(), "{bad}");
        }
        let err = ProductToken::new("Foobot/2.1").unwrap_err().to_string();
        assert!(err.contains("did you mean \"Foobot\""), "{err}");
    }

    #[test]
    fn user_agent_headers() {
        assert_eq!(
            ProductToken::from_user_agent("MyBot/1.0 (+https://x)")
                .unwrap()
                .as_str(),
            "mybot"
        );
        assert_eq!(
            ProductToken::from_user_agent("Googlebot").unwrap().as_str(),
            "googlebot"
        );
        assert!(matches!(
            ProductToken::from_user_agent("Mozilla/5.0 (compatible; Googlebot/2.1)"),
            Err(TokenError::BrowserHeader { .. })
        ));
        assert!(ProductToken::from_user_agent("My Bot").is_err());
    }
}
