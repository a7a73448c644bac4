//! Which addresses a fetch may connect to: [`AddressPolicy`], checked on IP literals before a
//! request and, through [`PolicyResolver`], on every address a host name resolves to.

use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Which addresses fetches (and every redirect hop) may go to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum AddressPolicy {
    /// Any address (the default): for crawlers that choose their own URLs.
    #[default]
    Any,
    /// Only globally routable unicast addresses, checked before connecting on every hop, for
    /// crawlers that take URLs from strangers (server-side request forgery). IP literals are
    /// checked directly; host names are resolved and the refused addresses dropped, and a hop
    /// whose addresses are all refused fails with [`Unreachable::Connect`] without any packet
    /// sent to it.
    ///
    /// Refused (see [`AddressPolicy::allows`]):
    ///
    /// - IPv4: `0.0.0.0/8` (this network, unspecified), `10/8`, `172.16/12`, `192.168/16`
    ///   (private), `100.64/10` (shared CGNAT), `127/8` (loopback), `169.254/16` (link-local),
    ///   `192.0.0/24` (IETF protocol assignments), `192.0.2/24`, `198.51.100/24`,
    ///   `203.0.113/24` (documentation), `198.18/15` (benchmarking), `224/4` (multicast),
    ///   `240/4` (reserved, with the broadcast address `255.255.255.255`).
    /// - IPv6: `::/128`, `::1/128`, the rest of `::/96` (IPv4-compatible, deprecated),
    ///   `64:ff9b:1::/48` (local NAT64), `100::/64` (discard), `2001::/32` (Teredo),
    ///   `2001:2::/48` (benchmarking), `2001:db8::/32` and `3fff::/20` (documentation),
    ///   `fc00::/7` (unique local), `fe80::/10` (link-local), `fec0::/10` (site-local,
    ///   deprecated), `ff00::/8` (multicast).
    /// - IPv6 addresses that embed an IPv4 address are judged by that IPv4 address: mapped
    ///   (`::ffff:0:0/96`), translated (`::ffff:0:0:0/96`, RFC 2765), NAT64 (`64:ff9b::/96`,
    ///   RFC 6052), 6to4 (`2002::/16`, RFC 3056), and ISATAP interface identifiers
    ///   (`…:0:5efe:a.b.c.d` and `…:200:5efe:a.b.c.d` under any prefix, RFC 5214), whose
    ///   traffic the prefix's router tunnels to that IPv4 address.
    ///
    /// Not recognisable from the address alone, and so not refused: NAT64 through a
    /// network-specific prefix (RFC 6052 §2.2), which only the local network knows.
    ///
    /// Proxies are never used (see the module docs), so the check cannot be bypassed
    /// through one.
    ///
    /// [`Unreachable::Connect`]: crate::policy::Unreachable::Connect
    PublicOnly,
}

impl AddressPolicy {
    /// Whether a connection to `ip` is allowed.
    ///
    /// ```
    /// use crawlgate::http::AddressPolicy;
    /// use std::net::IpAddr;
    /// let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    /// assert!(AddressPolicy::Any.allows(ip("127.0.0.1")));
    /// assert!(!AddressPolicy::PublicOnly.allows(ip("127.0.0.1")));
    /// assert!(!AddressPolicy::PublicOnly.allows(ip("::ffff:10.0.0.1")));
    /// assert!(AddressPolicy::PublicOnly.allows(ip("8.8.8.8")));
    /// ```
    pub fn allows(self, ip: IpAddr) -> bool {
        match self {
            AddressPolicy::Any => true,
            AddressPolicy::PublicOnly => is_public(ip),
        }
    }
}

/// Whether `ip` is a globally routable unicast address (see [`AddressPolicy::PublicOnly`]).
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0 // this network, 0.0.0.0 included
        || a == 10 // private
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || a == 127 // loopback
        || (a == 169 && b == 254) // link-local
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 168) // private
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // Addresses carrying an IPv4 address are judged by it.
    if let Some(v4) = embedded_v4(s) {
        return is_public_v4(v4);
    }
    // An ISATAP address needs both a public prefix and a public IPv4 address.
    if isatap_v4(s).is_some_and(|v4| !is_public_v4(v4)) {
        return false;
    }
    !(s[..6] == [0, 0, 0, 0, 0, 0] // ::, ::1, IPv4-compatible
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) // local-use NAT64
        || (s[0] == 0x100 && s[1..4] == [0, 0, 0]) // discard-only
        || (s[0] == 0x2001 && s[1] == 0) // Teredo
        || (s[0] == 0x2001 && s[1] == 2 && s[2] == 0) // benchmarking
        || (s[0] == 0x2001 && s[1] == 0xdb8) // documentation
        || (s[0] & 0xfff0) == 0x3ff0 // documentation (RFC 9637)
        || (s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00) // multicast
}

/// The IPv4 address an IPv6 address carries, for the forms that route to it.
fn embedded_v4(s: [u16; 8]) -> Option<Ipv4Addr> {
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        // Mapped ::ffff:a.b.c.d and translated ::ffff:0:a.b.c.d.
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0xffff, 0, hi, lo] => Some(v4(hi, lo)),
        // NAT64, well-known prefix 64:ff9b::/96.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(v4(hi, lo)),
        // 6to4: the IPv4 address is in bits 16..48.
        [0x2002, hi, lo, ..] => Some(v4(hi, lo)),
        _ => None,
    }
}

/// The IPv4 address of an ISATAP interface identifier (`0:5efe`, or `200:5efe` when
/// universal, then the IPv4 address), whatever the prefix.
fn isatap_v4(s: [u16; 8]) -> Option<Ipv4Addr> {
    match s {
        [_, _, _, _, 0 | 0x200, 0x5efe, hi, lo] => {
            Some(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)))
        }
        _ => None,
    }
}

/// The phrase every address-policy refusal contains.
pub(crate) const REFUSED: &str = "refused by the address policy (PublicOnly)";

/// The error a [`PolicyResolver`] gives when every address of a name is refused. It does not
/// name the addresses: it reaches whoever asked (a service's caller, a stored state), who must
/// not learn what an internal name resolves to; the resolver logs them.
#[derive(Debug)]
pub(crate) struct AddressRefused {
    host: String,
}

impl fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} resolved only to addresses {REFUSED}", self.host)
    }
}

impl StdError for AddressRefused {}

/// The system resolver, with the addresses the policy refuses dropped.
pub(crate) struct PolicyResolver {
    pub(crate) policy: AddressPolicy,
}

impl reqwest::dns::Resolve for PolicyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let all: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if all.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{host} has no address"),
                )
                .into());
            }
            let (kept, refused): (Vec<SocketAddr>, Vec<SocketAddr>) =
                all.into_iter().partition(|a| policy.allows(a.ip()));
            if kept.is_empty() {
                let addrs: Vec<String> = refused.iter().map(|a| a.ip().to_string()).collect();
                tracing::info!(target: "crawlgate::fetch", host = %host, addresses = %addrs.join(" "), "{REFUSED}: not connected");
                return Err(Box::new(AddressRefused { host }) as _);
            }
            let addrs: reqwest::dns::Addrs = Box::new(kept.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(s: &str) -> bool {
        AddressPolicy::PublicOnly.allows(s.parse().expect("IP literal"))
    }

    #[test]
    fn refused_addresses() {
        let refused = [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            // IPv4-translated (RFC 2765): ::ffff:0:a.b.c.d.
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "::ffff:0:c0a8:101",
            "::ffff:0:0:0",
            // ISATAP interface identifiers under a public prefix.
            "2001:4860:1:2:0:5efe:a00:1",
            "2001:4860:1:2:200:5efe:7f00:1",
            "2a00:1450:4001:1:0:5efe:c0a8:101",
            "64:ff9b::a00:1",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:2::1",
            "2001:db8::1",
            "3fff::1",
            "2002:a00:1::1",
            "2002:7f00:1::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
        ];
        for ip in refused {
            assert!(!public(ip), "{ip} must be refused");
            assert!(AddressPolicy::Any.allows(ip.parse().expect("literal")));
        }
    }

    #[test]
    fn public_addresses() {
        let allowed = [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "126.255.255.255",
            "128.0.0.1",
            "169.253.1.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.1.1",
            "192.0.3.1",
            "192.167.1.1",
            "192.169.1.1",
            "198.17.1.1",
            "198.20.0.1",
            "198.51.101.1",
            "203.0.114.1",
            "223.255.255.255",
            "2606:4700::1111",
            "2a00:1450:4001::1",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "::ffff:0:808:808",
            "2001:4860:1:2:0:5efe:808:808",
            "2001:4860:1:2:200:5efe:101:101",
        ];
        for ip in allowed {
            assert!(public(ip), "{ip} must be allowed");
        }
    }
}
