//! Where a URL's robots.txt lives: one per origin, scheme + host + port ([RFC 9309 §2.3]).
//!
//! Hosts are lowercased and IDNs converted to punycode (the WHATWG URL parse does both), default
//! ports dropped, and userinfo, query and fragment never reach the robots.txt URL. A trailing dot
//! is kept: `example.com.` is its own origin, as it is for browsers.
//!
//! [RFC 9309 §2.3]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.3

use std::fmt;

use url::Url;

pub use crate::plain_url::Scheme;

/// Why a URL has no robots.txt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OriginError {
    /// The string is not a URL.
    #[error("{input:?} is not a valid URL: {}", parse_reason(input, source))]
    Parse {
        /// The string given.
        input: String,
        /// What the URL parser said.
        source: url::ParseError,
    },
    /// Only `http` and `https` URLs have a robots.txt.
    #[error("{input:?} has scheme {scheme:?}; only http and https URLs have a robots.txt")]
    UnsupportedScheme {
        /// The string given.
        input: String,
        /// Its scheme.
        scheme: String,
    },
    /// The URL has no host.
    #[error("{input:?} has no host")]
    NoHost {
        /// The string given.
        input: String,
    },
    /// The host name is longer than DNS allows ([`MAX_HOST_LEN`] bytes, [`MAX_LABEL_LEN`] a
    /// label): no name server can answer for it, so no robots.txt can be fetched. The input is
    /// not kept: it may be megabytes long.
    #[error("the host name is {len} bytes long with a label of {longest_label}: DNS names have at most {MAX_HOST_LEN} bytes, {MAX_LABEL_LEN} a label")]
    HostTooLong {
        /// The host's length in bytes (punycode, without a trailing dot).
        len: usize,
        /// Its longest label's.
        longest_label: usize,
    },
}

/// The longest host name DNS can carry, in bytes, without its trailing dot (RFC 1035 §2.3.4,
/// as written in text).
pub const MAX_HOST_LEN: usize = 253;
/// The longest label of a host name, in bytes (RFC 1035 §2.3.4).
pub const MAX_LABEL_LEN: usize = 63;

/// `Err` when `host` (lowercase, punycode) is too long for DNS. An IP literal passes: its
/// length is bounded by its syntax.
fn check_host_len(host: &str) -> Result<(), OriginError> {
    let name = host.strip_suffix('.').unwrap_or(host);
    let longest_label = name.split('.').map(str::len).max().unwrap_or(0);
    if name.len() > MAX_HOST_LEN || longest_label > MAX_LABEL_LEN {
        return Err(OriginError::HostTooLong {
            len: name.len(),
            longest_label,
        });
    }
    Ok(())
}

/// Why a string is not a URL, in words; a string that only lacks its scheme
/// (`example.com/a`) gets the URL it probably meant.
fn parse_reason(input: &str, e: &url::ParseError) -> String {
    let input = input.trim();
    let host_like = input
        .split('/')
        .next()
        .is_some_and(|h| h.contains('.') && !h.contains(char::is_whitespace));
    match e {
        url::ParseError::RelativeUrlWithoutBase if host_like => {
            format!("it has no scheme (did you mean \"https://{input}\"?)")
        }
        url::ParseError::RelativeUrlWithoutBase => "it has no scheme (http:// or https://)".into(),
        other => other.to_string(),
    }
}

/// A robots.txt origin: scheme, normalised host, and port when it is not the default.
///
/// ```
/// use crawlgate::Origin;
/// let o = Origin::from_url("HTTPS://User:pw@Example.COM:443/a/b?c#d")?;
/// assert_eq!(o.robots_txt_url(), "https://example.com/robots.txt");
/// assert_eq!(Origin::from_url("http://exämple.com:8080/")?.to_string(), "http://xn--exmple-cua.com:8080");
/// # Ok::<(), crawlgate::OriginError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    scheme: Scheme,
    host: String,
    port: Option<u16>,
}

impl Origin {
    /// The origin of an absolute `http`/`https` URL.
    pub fn from_url(input: &str) -> Result<Origin, OriginError> {
        if let Some(origin) = fast_origin(input) {
            check_host_len(&origin.host)?;
            return Ok(origin);
        }
        let url = Url::parse(input.trim()).map_err(|source| OriginError::Parse {
            input: input.to_owned(),
            source,
        })?;
        Self::from_parsed(&url).map_err(|e| match e {
            OriginError::UnsupportedScheme { scheme, .. } => OriginError::UnsupportedScheme {
                input: input.to_owned(),
                scheme,
            },
            long @ OriginError::HostTooLong { .. } => long,
            _ => OriginError::NoHost {
                input: input.to_owned(),
            },
        })
    }

    /// The origin of an already parsed URL.
    pub fn from_parsed(url: &Url) -> Result<Origin, OriginError> {
        let scheme = match url.scheme() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            other => {
                return Err(OriginError::UnsupportedScheme {
                    input: url.to_string(),
                    scheme: other.to_owned(),
                })
            }
        };
        let host = match url.host_str() {
            Some(h) if !h.is_empty() => h.to_owned(),
            _ => {
                return Err(OriginError::NoHost {
                    input: url.to_string(),
                })
            }
        };
        check_host_len(&host)?;
        // `Url::port` is already `None` for the scheme's default port.
        Ok(Origin {
            scheme,
            host,
            port: url.port(),
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The host: lowercase, punycode for IDNs, `[…]` around IPv6 addresses.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port, or `None` for the scheme's default.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// `scheme://host[:port]/robots.txt`.
    pub fn robots_txt_url(&self) -> String {
        format!("{self}/robots.txt")
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme.as_str(), self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        Ok(())
    }
}

/// The origin of the common URL without the full WHATWG parse ([`crate::plain_url`]); `None`
/// for anything else, which then goes through [`Url::parse`].
fn fast_origin(input: &str) -> Option<Origin> {
    let plain = crate::plain_url::plain_http(input.as_bytes())?;
    let default = match plain.scheme {
        Scheme::Http => 80,
        Scheme::Https => 443,
    };
    Some(Origin {
        scheme: plain.scheme,
        host: String::from_utf8_lossy(plain.host).to_ascii_lowercase(),
        port: plain.port.filter(|&p| p != default),
    })
}

/// The robots.txt URL for `url`'s origin.
pub fn robots_txt_url(url: &str) -> Result<String, OriginError> {
    Origin::from_url(url).map(|o| o.robots_txt_url())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let cases = [
            (
                "HTTPS://User:pw@Example.COM:443/a/b?c#d",
                "https://example.com/robots.txt",
            ),
            (
                "https://example.com:443/x",
                "https://example.com/robots.txt",
            ),
            ("http://example.com:80/x", "http://example.com/robots.txt"),
            (
                "https://example.com:8443/x",
                "https://example.com:8443/robots.txt",
            ),
            (
                "http://example.com:443/",
                "http://example.com:443/robots.txt",
            ),
            (
                "https://m.de.example.com/a",
                "https://m.de.example.com/robots.txt",
            ),
            (
                "http://exämple.com/",
                "http://xn--exmple-cua.com/robots.txt",
            ),
            ("http://[::1]:8080/x", "http://[::1]:8080/robots.txt"),
            (
                "http://192.0.2.1/dir/robots.txt",
                "http://192.0.2.1/robots.txt",
            ),
            ("http://example.com./", "http://example.com./robots.txt"),
        ];
        for (url, want) in cases {
            assert_eq!(robots_txt_url(url).as_deref(), Ok(want), "{url}");
        }
    }

    /// The fast path answers exactly as the WHATWG parse does, whenever it answers.
    #[test]
    fn fast_path_agrees_with_the_url_parser() {
        use proptest::prelude::*;
        let schemes =
            prop::sample::select(vec!["http://", "https://", "HTTP://", "hTtPs://", "http:/"]);
        // Anything, and then mostly the shapes the fast path takes.
        let strategy = (
            schemes,
            prop_oneof![
                "[a-zA-Z0-9.:@%/?#\\ -]{0,24}",
                "[a-zX0-9.-]{1,12}(:[0-9]{0,6})?[/?#]?[a-z]{0,3}",
            ],
        );
        proptest!(ProptestConfig::with_cases(20_000), |((scheme, rest) in strategy)| {
            let input = format!("{scheme}{rest}");
            if let Some(fast) = fast_origin(&input) {
                let slow = Url::parse(input.trim())
                    .ok()
                    .and_then(|u| Origin::from_parsed(&u).ok());
                prop_assert_eq!(Some(fast), slow, "{}", input);
            }
        });
        // And it does answer for the common shapes.
        for url in [
            "https://Example.COM/a",
            "http://www.example.com:8080?x",
            "https://a-b.c.d.:443#f",
        ] {
            assert!(fast_origin(url).is_some(), "{url}");
        }
    }

    #[test]
    fn a_missing_scheme_suggests_one() {
        let e = Origin::from_url("example.com/a").expect_err("no scheme");
        assert_eq!(
            e.to_string(),
            "\"example.com/a\" is not a valid URL: it has no scheme (did you mean \"https://example.com/a\"?)"
        );
        let e = Origin::from_url("robots").expect_err("no scheme");
        assert_eq!(
            e.to_string(),
            "\"robots\" is not a valid URL: it has no scheme (http:// or https://)"
        );
        let e = Origin::from_url("http://[::1").expect_err("bad host");
        assert_eq!(
            e.to_string(),
            "\"http://[::1\" is not a valid URL: invalid IPv6 address"
        );
    }

    #[test]
    fn hosts_longer_than_dns_allows_are_refused() {
        let label = "a".repeat(63);
        let longest = format!("{label}.{label}.{label}.{}", "b".repeat(61));
        assert_eq!(longest.len(), 253);
        for host in [longest.clone(), format!("{longest}."), label.clone()] {
            let url = format!("http://{host}/x");
            assert!(Origin::from_url(&url).is_ok(), "{url}");
        }
        let too_long = [
            (format!("{longest}b"), 254, 63),
            (format!("{label}a.example"), 72, 64),
            ("a".repeat(100_000), 100_000, 100_000),
            // 30 characters, 69 bytes once converted to punycode (`xn--abcdefghij-xx2…`).
            (
                "伓劍哇呫吜亁倊仱凶吖冘凇匶儉呏侭什凧为唥abcdefghij.example".to_owned(),
                77,
                69,
            ),
        ];
        for (host, len, longest_label) in too_long {
            for url in [
                format!("http://{host}/x"),
                format!("https://{}:8443/x", host.to_uppercase()),
            ] {
                let e = Origin::from_url(&url).expect_err("too long");
                assert_eq!(e, OriginError::HostTooLong { len, longest_label }, "{host}");
                assert!(
                    e.to_string().len() < 200,
                    "the message does not echo the URL"
                );
            }
        }
    }

    #[test]
    fn errors() {
        assert!(matches!(
            robots_txt_url("ftp://example.com/"),
            Err(OriginError::UnsupportedScheme { .. })
        ));
        assert!(matches!(
            robots_txt_url("not a url"),
            Err(OriginError::Parse { .. })
        ));
        assert!(matches!(
            robots_txt_url("mailto:a@example.com"),
            Err(OriginError::UnsupportedScheme { .. })
        ));
    }
}
