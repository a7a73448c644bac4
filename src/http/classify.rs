//! What a failed request means: the site's failure ([`Unreachable`], by kind), or a failure on
//! this side ([`LocalError`]), which must never be recorded as the site's.
//!
//! reqwest and hyper expose few error kinds, so part of this reads their messages ("timed out",
//! "dns error", "dispatch task is gone"…) and the `io::Error`s in the source chain. The tests
//! below pin each message and errno relied on, so that a dependency update that changes one
//! fails here rather than misfiling failures.

use std::error::Error as StdError;
use std::io;

use super::address::AddressRefused;
use crate::policy::Unreachable;

/// A fetch that failed on this side of the connection: it says nothing about the site, so it
/// is never recorded as the site's failure. Try again later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// This machine ran short of something a request needs: file descriptors (`EMFILE`,
    /// `ENFILE`), memory (`ENOMEM`, `ENOBUFS`) or local ports (`EADDRNOTAVAIL`).
    #[error("out of local resources: {0}")]
    Resources(String),
    /// The HTTP client or its runtime is shutting down.
    #[error("the HTTP client is shutting down: {0}")]
    ShuttingDown(String),
    /// This side was too busy to wait any longer: the request had run past
    /// `FetchOptions::slow_after` while slow requests held their whole share of the turns
    /// (see the client's "Limits of this side"). A slow site is not a failed one: nothing is
    /// recorded, and the next check asks again.
    #[error("too many slow requests in flight on this side: {0}")]
    Busy(String),
}

/// Where in the exchange an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Connecting, sending, or reading the response head.
    Head,
    /// Reading the body.
    Body,
}

/// Turns a client error into an [`Unreachable`], by walking its source chain; or into a
/// [`LocalError`] when the failure is on this side.
pub(crate) fn classify(err: &reqwest::Error, phase: Phase) -> Result<Unreachable, LocalError> {
    if let Some(local) = local_cause(err) {
        return Err(local);
    }
    Ok(classify_remote(err, phase))
}

/// A failure on this side, if the error chain shows one: an OS error that means this machine
/// ran short of something, or the client's runtime going away.
fn local_cause(err: &(dyn StdError + 'static)) -> Option<LocalError> {
    let chain = || std::iter::successors(Some(err), |&e| e.source());
    for e in chain() {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            if is_local_os_error(io) {
                return Some(LocalError::Resources(error_text(err)));
            }
        }
        let text = e.to_string();
        if text.contains("dispatch task is gone")
            || text.contains("runtime dropped the dispatch task")
        {
            return Some(LocalError::ShuttingDown(error_text(err)));
        }
    }
    None
}

/// `EMFILE`, `ENFILE`, `ENOMEM`, `ENOBUFS`, `EADDRNOTAVAIL` (no local port left to connect
/// from): errors of this machine, not of the peer.
fn is_local_os_error(e: &io::Error) -> bool {
    if matches!(
        e.kind(),
        io::ErrorKind::OutOfMemory | io::ErrorKind::AddrNotAvailable
    ) {
        return true;
    }
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        if let Some(errno) = Errno::from_io_error(e) {
            return [Errno::MFILE, Errno::NFILE, Errno::NOMEM, Errno::NOBUFS].contains(&errno);
        }
    }
    false
}

/// The site's side of [`classify`].
fn classify_remote(err: &reqwest::Error, phase: Phase) -> Unreachable {
    // Matched on the whole chain; the outcome keeps only the root cause, said briefly.
    let text = error_text(err);
    let cause = short_cause(err);
    let chain = || std::iter::successors(Some(err as &(dyn StdError + 'static)), |&e| e.source());
    if let Some(refused) = chain().find_map(|e| e.downcast_ref::<AddressRefused>()) {
        return Unreachable::Connect(refused.to_string());
    }
    let lower = text.to_ascii_lowercase();
    if err.is_timeout() || lower.contains("timed out") {
        return Unreachable::Timeout;
    }
    let io_kind = chain()
        .filter_map(|e| e.downcast_ref::<io::Error>())
        .map(io::Error::kind)
        .next();
    if phase == Phase::Body {
        return Unreachable::Body(cause);
    }
    if err.is_dns() || lower.contains("dns error") || lower.contains("failed to lookup address") {
        return Unreachable::Dns(cause);
    }
    let https = err.url().is_some_and(|u| u.scheme() == "https");
    let tls_words = [
        "tls",
        "certificate",
        "handshake",
        "corrupt message",
        "peer is incompatible",
    ];
    if (https && io_kind == Some(io::ErrorKind::InvalidData))
        || tls_words.iter().any(|w| lower.contains(w))
    {
        return Unreachable::Tls(cause);
    }
    if err.is_connect()
        || matches!(
            io_kind,
            Some(
                io::ErrorKind::ConnectionRefused
                    | io::ErrorKind::HostUnreachable
                    | io::ErrorKind::NetworkUnreachable
            )
        )
    {
        return Unreachable::Connect(cause);
    }
    // The connection broke while the head was read: the response is broken.
    if matches!(
        io_kind,
        Some(
            io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof
        )
    ) || lower.contains("connection closed before message completed")
        || err.is_body()
        || err.is_decode()
    {
        return Unreachable::Body(cause);
    }
    Unreachable::Other(cause)
}

/// The root cause of an error, briefly: `connection refused` rather than "error sending
/// request: client error (Connect): tcp connect error: Connection refused (os error 111)". The
/// outer layers only say which library saw it; [`error_text`] keeps them for logs.
fn short_cause(err: &(dyn StdError + 'static)) -> String {
    let root = std::iter::successors(Some(err), |&e| e.source())
        .last()
        .unwrap_or(err);
    if let Some(io) = root.downcast_ref::<io::Error>() {
        let phrase = match io.kind() {
            io::ErrorKind::ConnectionRefused => Some("connection refused"),
            io::ErrorKind::ConnectionReset => Some("connection reset"),
            io::ErrorKind::ConnectionAborted => Some("connection aborted"),
            io::ErrorKind::HostUnreachable => Some("host unreachable"),
            io::ErrorKind::NetworkUnreachable => Some("network unreachable"),
            io::ErrorKind::BrokenPipe => Some("connection closed while sending"),
            io::ErrorKind::UnexpectedEof => Some("connection closed early"),
            _ => None,
        };
        if let Some(p) = phrase {
            return p.to_owned();
        }
    }
    let mut text = root.to_string();
    if let Some(i) = text.find(" for url (") {
        text.truncate(i);
    }
    // "… (os error 111)": the number adds nothing to the words.
    if let Some(i) = text.rfind(" (os error ") {
        text.truncate(i);
    }
    let text = match text.strip_prefix("failed to lookup address information: ") {
        Some(rest) => match rest {
            "Name or service not known" | "nodename nor servname provided, or not known" => {
                "name not found".to_owned()
            }
            "No address associated with hostname" => "no address for the name".to_owned(),
            other => other.to_owned(),
        },
        None => text,
    };
    // Sentence case, as the rest of the messages: "Connection reset" → "connection reset"
    // (but "TLS alert" stays).
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), Some(d)) if c.is_uppercase() && d.is_lowercase() => {
            let mut out: String = c.to_lowercase().collect();
            out.push_str(&text[c.len_utf8()..]);
            out
        }
        _ => text,
    }
}

/// The messages of an error's source chain, without the URL, each new one once.
pub(crate) fn error_text(err: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        let mut msg = e.to_string();
        if let Some(i) = msg.find(" for url (") {
            msg.truncate(i);
        }
        if !msg.is_empty() && !parts.iter().any(|p| p.contains(&msg)) {
            parts.push(msg);
        }
        next = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    /// An error with a source, as the HTTP client's are.
    #[derive(Debug)]
    struct Wrapped(io::Error);

    impl fmt::Display for Wrapped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("client error (Connect)")
        }
    }

    impl StdError for Wrapped {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    /// An error chain of two layers over `root`, as reqwest's are.
    #[derive(Debug)]
    struct Layer(&'static str, Box<dyn StdError + 'static>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl StdError for Layer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(self.1.as_ref())
        }
    }

    #[test]
    fn causes_are_said_briefly() {
        let chain = |root: Box<dyn StdError>| {
            Layer(
                "error sending request",
                Box::new(Layer("client error (Connect)", root)),
            )
        };
        let cases: Vec<(Box<dyn StdError>, &str)> = vec![
            (
                Box::new(io::Error::from(io::ErrorKind::ConnectionRefused)),
                "connection refused",
            ),
            (
                Box::new(io::Error::from(io::ErrorKind::ConnectionReset)),
                "connection reset",
            ),
            (
                Box::new(io::Error::other(
                    "failed to lookup address information: Name or service not known",
                )),
                "name not found",
            ),
            (
                Box::new(io::Error::other(
                    "failed to lookup address information: Temporary failure in name resolution",
                )),
                "temporary failure in name resolution",
            ),
            (
                Box::new(io::Error::other("Weird failure (os error 71)")),
                "weird failure",
            ),
            (
                Box::new(io::Error::other("invalid peer certificate: UnknownIssuer")),
                "invalid peer certificate: UnknownIssuer",
            ),
            (Box::new(io::Error::other("TLS alert")), "TLS alert"),
        ];
        for (root, want) in cases {
            assert_eq!(short_cause(&chain(root)), want);
        }
    }

    #[test]
    fn local_failures_are_told_apart_from_the_sites() {
        let local = |e: io::Error| local_cause(&Wrapped(e));
        #[cfg(unix)]
        for errno in [
            rustix::io::Errno::MFILE,
            rustix::io::Errno::NFILE,
            rustix::io::Errno::NOMEM,
            rustix::io::Errno::NOBUFS,
            rustix::io::Errno::ADDRNOTAVAIL,
        ] {
            let e = io::Error::from_raw_os_error(errno.raw_os_error());
            assert!(
                matches!(local(e), Some(LocalError::Resources(_))),
                "{errno:?}"
            );
        }
        assert!(local(io::Error::from(io::ErrorKind::OutOfMemory)).is_some());
        for kind in [
            io::ErrorKind::ConnectionRefused,
            io::ErrorKind::ConnectionReset,
            io::ErrorKind::TimedOut,
            io::ErrorKind::HostUnreachable,
            io::ErrorKind::InvalidData,
        ] {
            assert_eq!(local(io::Error::from(kind)), None, "{kind:?}");
        }
        let gone = io::Error::other("dispatch task is gone: runtime dropped the dispatch task");
        assert!(matches!(local(gone), Some(LocalError::ShuttingDown(_))));
    }
}
