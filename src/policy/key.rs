//! Politeness keys, pure: which requests share one schedule and one in-flight limit
//! ([`PoliteKey`]), chosen by [`KeyKind`] (`GateOptions::key`). robots.txt state stays per
//! [`Origin`]; the key only groups origins for spacing, backoff and concurrency.
//!
//! The registrable domain comes from the Public Suffix List compiled into the [`psl`] crate:
//! the list as of the `psl` release in `Cargo.lock` (2.1.247 when this was written; the crate
//! is re-released as the list changes, so a newer list arrives with `cargo update -p psl`).

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;

use crate::origin::Origin;

/// How requests are grouped for politeness (`GateOptions::key`): what two URLs must share to
/// be spaced as one, backed off as one and counted against one in-flight limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyKind {
    /// Scheme, host and port, as robots.txt is (the default): `http://a.example.com` and
    /// `https://a.example.com` are two keys.
    #[default]
    Origin,
    /// The host name, whatever the scheme and port: `http://a.example.com` and
    /// `https://a.example.com:8443` are one key.
    Host,
    /// The registrable domain (one label below a public suffix of the Public Suffix List):
    /// `a.example.com` and `b.example.com` are one key, `a.github.io` and `b.github.io` two. A
    /// host with none (an IP address, `localhost`, a public suffix itself) is keyed by the host.
    Domain,
    /// The server's address, as the engine resolves the host (addresses the fetcher's address
    /// policy, `FetchOptions::addresses`, refuses are not keys): several host names on one
    /// server are one key. IPv4 by the address, IPv6 by its /64 network. A host that does not
    /// resolve is keyed by the host.
    Ip,
}

impl KeyKind {
    /// Every kind, in the order of [`KeyKind::name`]s documented.
    pub const ALL: [KeyKind; 4] = [KeyKind::Origin, KeyKind::Host, KeyKind::Domain, KeyKind::Ip];

    /// The kind's name: `origin`, `host`, `domain`, `ip`.
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::Origin => "origin",
            KeyKind::Host => "host",
            KeyKind::Domain => "domain",
            KeyKind::Ip => "ip",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`KeyKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown politeness key {0:?} (origin, host, domain or ip)")]
pub struct UnknownKeyKind(pub String);

impl FromStr for KeyKind {
    type Err = UnknownKeyKind;

    fn from_str(s: &str) -> Result<KeyKind, UnknownKeyKind> {
        KeyKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownKeyKind(s.to_owned()))
    }
}

/// What one politeness schedule is kept under: requests with one key are spaced as one,
/// backed off as one and limited in flight as one.
///
/// Written (`Display`, and the store keys) as the origin itself for [`KeyKind::Origin`]
/// (`https://example.com:8443`, so schedules stored before keys existed still apply), else as
/// `host:NAME`, `domain:NAME`, `ip:ADDRESS` or `ip:PREFIX/64`; [`PoliteKey::parse`] reads it
/// back.
///
/// ```
/// use crawlgate::policy::{KeyKind, PoliteKey};
/// use crawlgate::Origin;
/// let a = Origin::from_url("https://a.example.co.uk/x")?;
/// let b = Origin::from_url("http://b.example.co.uk:8080/")?;
/// assert_eq!(PoliteKey::of(KeyKind::Domain, &a).to_string(), "domain:example.co.uk");
/// assert_eq!(PoliteKey::of(KeyKind::Domain, &a), PoliteKey::of(KeyKind::Domain, &b));
/// assert_ne!(PoliteKey::of(KeyKind::Host, &a), PoliteKey::of(KeyKind::Host, &b));
/// assert_eq!(PoliteKey::of(KeyKind::Origin, &a).to_string(), "https://a.example.co.uk");
/// # Ok::<(), crawlgate::OriginError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PoliteKey {
    /// [`KeyKind::Origin`].
    Origin(Origin),
    /// [`KeyKind::Host`] (and the fallback of the others): the origin's host as written there
    /// (lowercase, punycode, `[…]` around IPv6).
    Host(Box<str>),
    /// [`KeyKind::Domain`]: a registrable domain.
    Domain(Box<str>),
    /// [`KeyKind::Ip`]: an IPv4 address, or an IPv6 /64 network (the address with its last 64
    /// bits zero).
    Ip(IpAddr),
}

impl PoliteKey {
    /// The key of `origin` under `kind`, for every kind that needs no name resolution. For
    /// [`KeyKind::Ip`] this is the address when the host is one, else the host: the engine
    /// resolves the name and calls [`PoliteKey::from_addresses`].
    pub fn of(kind: KeyKind, origin: &Origin) -> PoliteKey {
        match kind {
            KeyKind::Origin => PoliteKey::Origin(origin.clone()),
            KeyKind::Host => PoliteKey::Host(origin.host().into()),
            KeyKind::Domain => match registrable_domain(origin.host()) {
                Some(domain) => PoliteKey::Domain(domain.into()),
                None => PoliteKey::Host(origin.host().into()),
            },
            KeyKind::Ip => match host_ip(origin.host()) {
                Some(ip) => PoliteKey::ip(ip),
                None => PoliteKey::Host(origin.host().into()),
            },
        }
    }

    /// The [`KeyKind::Ip`] key of `ip`: IPv4 as it is (also written inside IPv6 as
    /// `::ffff:a.b.c.d`), IPv6 by its /64.
    ///
    /// Why the /64: it is the smallest network IPv6 hands to one link or one customer (RFC
    /// 6177's end sites get /48 to /64, SLAAC needs /64), a server's addresses (and a host
    /// with temporary addresses) change within it, and one server answering on many addresses
    /// of its /64 would otherwise be many keys. Sites of one hosting customer share it.
    pub fn ip(ip: IpAddr) -> PoliteKey {
        match ip.to_canonical() {
            IpAddr::V4(v4) => PoliteKey::Ip(IpAddr::V4(v4)),
            IpAddr::V6(v6) => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                PoliteKey::Ip(IpAddr::V6(Ipv6Addr::from(bits)))
            }
        }
    }

    /// The [`KeyKind::Ip`] key of a host that resolved to `addresses` (those a fetch may
    /// use): the lowest IPv4 address if there is one, else the lowest IPv6 /64, so that the
    /// order a resolver answers in (round-robin DNS) does not change the key. `None` for no
    /// address.
    pub fn from_addresses(addresses: impl IntoIterator<Item = IpAddr>) -> Option<PoliteKey> {
        let mut best: Option<IpAddr> = None;
        for ip in addresses {
            let ip = match PoliteKey::ip(ip) {
                PoliteKey::Ip(ip) => ip,
                _ => continue,
            };
            best = Some(match best {
                None => ip,
                // IPv4 before IPv6, then the lower address.
                Some(b) => match (b, ip) {
                    (IpAddr::V4(_), IpAddr::V6(_)) => b,
                    (IpAddr::V6(_), IpAddr::V4(_)) => ip,
                    _ => b.min(ip),
                },
            });
        }
        best.map(PoliteKey::Ip)
    }

    /// The kind of key this is.
    pub fn kind(&self) -> KeyKind {
        match self {
            PoliteKey::Origin(_) => KeyKind::Origin,
            PoliteKey::Host(_) => KeyKind::Host,
            PoliteKey::Domain(_) => KeyKind::Domain,
            PoliteKey::Ip(_) => KeyKind::Ip,
        }
    }

    /// Reads a key as [`Display`](fmt::Display) writes it; `None` if it is not one.
    pub fn parse(s: &str) -> Option<PoliteKey> {
        if let Some(host) = s.strip_prefix("host:") {
            return (!host.is_empty()).then(|| PoliteKey::Host(host.into()));
        }
        if let Some(domain) = s.strip_prefix("domain:") {
            return (!domain.is_empty()).then(|| PoliteKey::Domain(domain.into()));
        }
        if let Some(ip) = s.strip_prefix("ip:") {
            let ip = ip.strip_suffix("/64").unwrap_or(ip);
            return ip.parse::<IpAddr>().ok().map(PoliteKey::ip);
        }
        Origin::from_url(s).ok().map(PoliteKey::Origin)
    }
}

impl From<Origin> for PoliteKey {
    fn from(origin: Origin) -> PoliteKey {
        PoliteKey::Origin(origin)
    }
}

impl fmt::Display for PoliteKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoliteKey::Origin(o) => write!(f, "{o}"),
            PoliteKey::Host(h) => write!(f, "host:{h}"),
            PoliteKey::Domain(d) => write!(f, "domain:{d}"),
            PoliteKey::Ip(IpAddr::V4(v4)) => write!(f, "ip:{v4}"),
            PoliteKey::Ip(IpAddr::V6(v6)) => write!(f, "ip:{v6}/64"),
        }
    }
}

/// The address a host is, if it is one (`[…]` around IPv6, as [`Origin::host`] writes it).
pub(crate) fn host_ip(host: &str) -> Option<IpAddr> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse().ok()
}

/// The registrable domain of a host name (the Public Suffix List's public suffix and one label
/// more), `None` for an address or a name without one.
fn registrable_domain(host: &str) -> Option<&str> {
    if host_ip(host).is_some() {
        return None;
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    // The list's implicit `*` rule makes any unknown last label a suffix, so a single-label
    // name (`localhost`) has no registrable domain.
    psl::domain_str(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(s: &str) -> Origin {
        Origin::from_url(s).expect("origin")
    }

    fn key(kind: KeyKind, s: &str) -> String {
        PoliteKey::of(kind, &origin(s)).to_string()
    }

    #[test]
    fn each_kind_groups_what_it_says() {
        use KeyKind::*;
        assert_eq!(
            key(Origin, "https://a.example.com/x"),
            "https://a.example.com"
        );
        assert_eq!(
            key(Host, "https://a.example.com:8443/x"),
            "host:a.example.com"
        );
        assert_eq!(
            key(Domain, "https://a.b.example.com/"),
            "domain:example.com"
        );
        assert_eq!(key(Domain, "https://example.com/"), "domain:example.com");
        // Public suffixes of the list: private (github.io) and ICANN (co.uk) sections.
        assert_eq!(key(Domain, "https://a.github.io/"), "domain:a.github.io");
        assert_eq!(
            key(Domain, "https://x.y.example.co.uk/"),
            "domain:example.co.uk"
        );
        assert_eq!(
            key(Domain, "http://xn--exmple-cua.com/"),
            "domain:xn--exmple-cua.com"
        );
        // No registrable domain: the host.
        assert_eq!(key(Domain, "http://localhost:8080/"), "host:localhost");
        assert_eq!(key(Domain, "http://co.uk/"), "host:co.uk");
        assert_eq!(key(Domain, "http://127.0.0.1:8080/"), "host:127.0.0.1");
        assert_eq!(key(Domain, "http://[::1]/"), "host:[::1]");
        // IP literals need no resolution.
        assert_eq!(key(Ip, "http://127.0.0.1:8080/"), "ip:127.0.0.1");
        assert_eq!(
            key(Ip, "http://[2001:db8:1:2:3:4:5:6]/"),
            "ip:2001:db8:1:2::/64"
        );
        assert_eq!(key(Ip, "http://[::ffff:10.0.0.1]/"), "ip:10.0.0.1");
        assert_eq!(key(Ip, "http://example.com/"), "host:example.com");
    }

    #[test]
    fn addresses_give_one_key_whatever_their_order() {
        let ips = |s: &[&str]| -> Vec<IpAddr> { s.iter().map(|a| a.parse().unwrap()).collect() };
        let k = |s: &[&str]| PoliteKey::from_addresses(ips(s)).map(|k| k.to_string());
        assert_eq!(k(&["::1", "127.0.0.1"]), Some("ip:127.0.0.1".into()));
        assert_eq!(k(&["10.0.0.2", "10.0.0.1"]), k(&["10.0.0.1", "10.0.0.2"]));
        assert_eq!(
            k(&["2001:db8::9", "2001:db8::1:0:0:0:1"]),
            Some("ip:2001:db8::/64".into())
        );
        assert_eq!(k(&[]), None);
    }

    #[test]
    fn keys_read_back_as_written() {
        for s in [
            "https://a.example.com:8443",
            "host:a.example.com",
            "host:[::1]",
            "domain:example.co.uk",
            "ip:192.0.2.1",
            "ip:2001:db8::/64",
        ] {
            let k = PoliteKey::parse(s).expect(s);
            assert_eq!(k.to_string(), s);
        }
        assert_eq!(PoliteKey::parse("host:"), None);
        assert_eq!(PoliteKey::parse("ip:nonsense"), None);
        assert_eq!(PoliteKey::parse("nonsense"), None);
        assert_eq!("IP".parse::<KeyKind>(), Ok(KeyKind::Ip));
        assert!("server".parse::<KeyKind>().is_err());
    }
}
