//! Fetching one robots.txt: redirects followed by hand, a byte cap, timeouts, an optional
//! address policy, and every failure turned into a [`FetchOutcome`] ([RFC 9309 §2.3], SPEC §4).
//!
//! [`Fetcher::fetch`] sends `GET /robots.txt` with the configured `User-Agent` and
//! `Accept-Encoding: gzip, deflate`, and turns every answer of the site into an outcome, as
//! follows. Its only error is a [`LocalError`]: a failure on this side (out of file
//! descriptors, memory or local ports; the runtime shutting down), which says nothing about
//! the site and must never be recorded as its failure.
//!
//! | what happened | outcome |
//! |---|---|
//! | any 2xx (204 and an empty body included) | [`FetchOutcome::Rules`]: the body parsed |
//! | 301, 302, 303, 307, 308 with a usable `Location` | followed (see below) |
//! | more than [`FetchOptions::max_redirects`] consecutive redirects | [`Unavailable::TooManyRedirects`] |
//! | a redirect to a URL already requested in this fetch | [`Unavailable::RedirectLoop`] |
//! | 304 to a conditional request (validators of the last good file sent) | [`FetchOutcome::NotModified`]: that file is current |
//! | 304 to a request without validators | [`Unreachable::Status`]: it confirms nothing |
//! | any other 3xx, or one whose `Location` cannot be followed: missing, empty, not UTF-8, not a URL, not http(s), no or bad host, a malformed header line (dropped), over [`MAX_REDIRECT_URL`] bytes | [`Unavailable::Status`]: as Google, a redirect that cannot be followed is "not found" |
//! | 4xx except 429 | [`Unavailable::Status`] |
//! | 429 and 5xx | [`Unreachable::Status`] |
//! | any other status (a final 1xx, 600–999) | [`Unreachable::Status`]: the server answered nothing usable |
//! | the name did not resolve | [`Unreachable::Dns`] |
//! | the connection was refused or the address is unreachable | [`Unreachable::Connect`] |
//! | [`AddressPolicy::PublicOnly`] refused every address of a hop | [`Unreachable::Connect`] (the message says "refused by the address policy") |
//! | the TLS handshake failed | [`Unreachable::Tls`] |
//! | the connect timeout or the total timeout passed | [`Unreachable::Timeout`] |
//! | the response broke before it was complete (reset, broken chunking, `Content-Length` not reached, bad compression) | [`Unreachable::Body`] |
//! | a 2xx body in a content coding other than `gzip`, `x-gzip`, `deflate`, `identity` (`br`, `compress`…), or more than three stacked | [`Unreachable::Encoding`]: its bytes are not the file |
//! | a response head that is not HTTP (a NUL byte in it, more than [`MAX_RESPONSE_HEADERS`] header lines, over hyper's 400 KiB) | [`Unreachable::Other`], with no status |
//! | anything else the HTTP client reports | [`Unreachable::Other`] |
//!
//! **Redirects** are followed by hand (the HTTP client's own policy is off), across hosts and
//! schemes, with `Location` resolved against the URL that answered. Userinfo and fragments are
//! removed from every URL before it is requested, so no credentials ever leave, and no
//! `Cookie`, `Authorization` or `Referer` header is ever sent. The rules found apply to the
//! *original* origin: [`Fetch::url`] is the robots.txt URL asked for, [`Fetch::final_url`] the
//! one that answered. Google follows at least five hops and treats a longer chain as "not
//! found"; so does [`FetchOptions::max_redirects`]'s default of 5: 301 × 5 then 200 is read,
//! a sixth redirect is [`Unavailable::TooManyRedirects`].
//!
//! **Bodies** are decoded chunk by chunk (see `decode.rs`: `gzip` with every member, `deflate`
//! as zlib or raw, up to three stacked; not `br`, whose 16 MiB window cost 17 MB per fetch),
//! and reading stops at the parsing limit plus one byte, counted decoded. That byte tells the parser
//! the file went on, so it drops the line the limit cuts and reports `content-after-limit`; the
//! response is then dropped and the rest never read, so a compression bomb costs at most the
//! limit in memory. A body that breaks before the cap is [`Unreachable::Body`]: half a file is
//! not a file.
//!
//! **Headers**: up to [`MAX_RESPONSE_HEADERS`] lines are read (hyper's default of 100 made
//! valid responses unreachable); a malformed line is dropped, not the response. `Retry-After` of a 429 or 503 becomes [`Fetch::retry_after`] (delta-seconds or
//! an HTTP-date: IMF-fixdate, RFC 850 and asctime forms); `Cache-Control: max-age=N` of a 2xx
//! becomes [`Fetch::max_age`]. Every other cache directive (`no-cache`, `no-store`, `s-maxage`,
//! `private`, …) and `Expires` are ignored: how long to keep a copy is the cache's decision, and
//! RFC 9309 §2.4 caps it at 24 hours anyway. Values above 2³¹ seconds are cut to 2³¹ (RFC 9111
//! §1.2.2).
//!
//! **Timeouts**: [`FetchOptions::connect_timeout`] bounds each TCP (and TLS) connect;
//! [`FetchOptions::timeout`] bounds the whole fetch, every hop and the body included, so a
//! server trickling one byte a second cannot hold a fetch open.
//!
//! **Limits of this side**: at most [`FetchOptions::max_in_flight`] requests at once (others
//! wait, their timeouts not yet running), and no idle connection kept by default
//! ([`FetchOptions::max_idle_per_host`]), so that a crawler of many origins never runs out of
//! file descriptors because of the fetcher.
//!
//! **Proxies**: none. The `HTTP_PROXY`/`HTTPS_PROXY` variables are ignored, because a proxy
//! would resolve names itself and so escape the address policy.
//!
//! **Logging**: with a `tracing` subscriber installed, each request hop emits one `debug`
//! event and each completed fetch one `info` event, target `crawlgate::fetch`.
//!
//! The fetcher needs a Tokio runtime with I/O and time enabled.
//!
//! [RFC 9309 §2.3]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.3
//! [`FetchOutcome`]: crate::policy::FetchOutcome
//! [`FetchOutcome::Rules`]: crate::policy::FetchOutcome::Rules
//! [`FetchOutcome::NotModified`]: crate::policy::FetchOutcome::NotModified
//! [`Unavailable::Status`]: crate::policy::Unavailable::Status
//! [`Unavailable::TooManyRedirects`]: crate::policy::Unavailable::TooManyRedirects
//! [`Unavailable::RedirectLoop`]: crate::policy::Unavailable::RedirectLoop
//! [`Unreachable::Status`]: crate::policy::Unreachable::Status
//! [`Unreachable::Dns`]: crate::policy::Unreachable::Dns
//! [`Unreachable::Connect`]: crate::policy::Unreachable::Connect
//! [`Unreachable::Tls`]: crate::policy::Unreachable::Tls
//! [`Unreachable::Timeout`]: crate::policy::Unreachable::Timeout
//! [`Unreachable::Body`]: crate::policy::Unreachable::Body
//! [`Unreachable::Other`]: crate::policy::Unreachable::Other
//! [`Unreachable::Encoding`]: crate::policy::Unreachable::Encoding
//! [`Fetch::url`]: crate::policy::Fetch::url
//! [`Fetch::final_url`]: crate::policy::Fetch::final_url
//! [`Fetch::retry_after`]: crate::policy::Fetch::retry_after
//! [`Fetch::max_age`]: crate::policy::Fetch::max_age

use std::collections::HashSet;
use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::{
    HeaderMap, ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_LENGTH, ETAG, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, LAST_MODIFIED, LOCATION, RETRY_AFTER,
};
use tokio::sync::Semaphore;
use url::{Host, Url};

use super::address::{AddressPolicy, AddressRefused, PolicyResolver, REFUSED};
use super::decode::{self, Decoder, Fed};
use crate::policy::{Fetch, FetchOutcome, Unavailable, Unreachable, Validators};
use crate::robots::{Mode, Options, Robots, DEFAULT_MAX_BYTES};
use crate::Origin;

/// The `tracing` target of every event of this module.
const TARGET: &str = "crawlgate::fetch";

/// The largest `max-age` or `Retry-After` kept, in seconds (RFC 9111 §1.2.2).
const MAX_DELTA_SECONDS: u64 = 1 << 31;

/// The most header lines a response may have (hyper's default is 100, which real servers
/// exceed with long `Set-Cookie`, `Link` and security-header lists). A response with more is
/// [`Unreachable::Other`], every time.
pub const MAX_RESPONSE_HEADERS: usize = 1_000;

/// The longest redirect target followed, in bytes: RFC 9110 §4.1 asks that URIs of at least
/// 8,000 octets be supported. A longer `Location` is a redirect that cannot be followed.
pub const MAX_REDIRECT_URL: usize = 8_000;

/// How robots.txt is fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// Sent as `User-Agent`. Default `crawlgate/<version>`. It must be a valid header value, or
    /// [`Fetcher::new`] fails.
    pub user_agent: String,
    /// The longest a TCP connect (with its TLS handshake) may take, per hop. Default 10 s.
    pub connect_timeout: Duration,
    /// The longest a whole fetch may take: every redirect hop and the body included.
    /// Default 30 s.
    pub timeout: Duration,
    /// The parsing limit in bytes, as [`Options::max_bytes`]: values below
    /// [`DEFAULT_MAX_BYTES`] (512,000, Google's 500 KiB) are raised to it, as RFC 9309 §2.5
    /// asks for at least 500 KiB. One byte past it is read, then the response is dropped.
    pub max_bytes: usize,
    /// The most consecutive redirects followed; one more is
    /// [`Unavailable::TooManyRedirects`]. Default 5, as Google.
    pub max_redirects: u8,
    /// The parsing mode. Default [`Mode::Rfc`].
    pub mode: Mode,
    /// Which addresses may be connected to. Default [`AddressPolicy::Any`].
    pub addresses: AddressPolicy,
    /// The most requests (robots.txt and sitemap fetches) in flight at once; more wait for
    /// their turn, and their timeouts start when it comes. Default
    /// [`default_max_in_flight`]: a quarter of the open-file limit, so that sockets never
    /// run the process out of file descriptors.
    pub max_in_flight: usize,
    /// Idle connections kept per host for reuse. Default 0: a crawler comes back to an
    /// origin's robots.txt once a day, and each idle connection holds a file descriptor
    /// (20,000 origins in 90 seconds kept 11,704 open with reqwest's defaults).
    pub max_idle_per_host: usize,
    /// How long a kept idle connection lives (with `max_idle_per_host` above 0). Default 5 s.
    pub idle_timeout: Duration,
}

/// The default [`FetchOptions::max_in_flight`]: a quarter of the process's soft open-file
/// limit, between 4 and 256 (256 under the common limit of 1,024, 64 under 256). 256 where the
/// limit cannot be read.
pub fn default_max_in_flight() -> usize {
    #[cfg(unix)]
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    #[cfg(not(unix))]
    let limit: Option<u64> = None;
    limit.map_or(256, |l| {
        usize::try_from(l / 4).unwrap_or(usize::MAX).clamp(4, 256)
    })
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            user_agent: concat!("crawlgate/", env!("CARGO_PKG_VERSION")).to_owned(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_bytes: DEFAULT_MAX_BYTES,
            max_redirects: 5,
            mode: Mode::Rfc,
            addresses: AddressPolicy::Any,
            max_in_flight: default_max_in_flight(),
            max_idle_per_host: 0,
            idle_timeout: Duration::from_secs(5),
        }
    }
}

impl FetchOptions {
    /// The number of body bytes read: the effective parsing limit plus one.
    fn body_cap(&self) -> usize {
        self.max_bytes.max(DEFAULT_MAX_BYTES).saturating_add(1)
    }
}

/// Why a [`Fetcher`] could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The HTTP client could not be built (an invalid `User-Agent`, no TLS backend…).
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// A fetch that failed on this side of the connection: it says nothing about the site, so it
/// is never recorded as the site's failure. Try again later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalError {
    /// This machine ran short of something a request needs: file descriptors (`EMFILE`,
    /// `ENFILE`), memory (`ENOMEM`, `ENOBUFS`) or local ports (`EADDRNOTAVAIL`).
    #[error("out of local resources: {0}")]
    Resources(String),
    /// The HTTP client or its runtime is shutting down.
    #[error("the HTTP client is shutting down: {0}")]
    ShuttingDown(String),
}

/// Fetches robots.txt files. Cheap to clone; clones share one connection pool and one cap on
/// requests in flight.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    options: Arc<FetchOptions>,
    in_flight: Arc<Semaphore>,
}

impl Fetcher {
    /// A fetcher with these options.
    pub fn new(options: FetchOptions) -> Result<Fetcher, FetchError> {
        let mut builder = reqwest::Client::builder()
            .user_agent(options.user_agent.as_str())
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .connect_timeout(options.connect_timeout)
            .no_proxy()
            .retry(reqwest::retry::never())
            .pool_max_idle_per_host(options.max_idle_per_host)
            .pool_idle_timeout(options.idle_timeout)
            .http1_max_headers(MAX_RESPONSE_HEADERS)
            // A malformed header line is dropped, not the whole response: a `Location` with a
            // control byte is then no `Location`, like every other one that cannot be followed.
            .http1_ignore_invalid_headers_in_responses(true);
        if options.addresses == AddressPolicy::PublicOnly {
            builder = builder.dns_resolver(PolicyResolver {
                policy: options.addresses,
            });
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Client(error_text(&e)))?;
        Ok(Fetcher {
            client,
            in_flight: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
            options: Arc::new(options),
        })
    }

    /// The options this fetcher was made with.
    pub fn options(&self) -> &FetchOptions {
        &self.options
    }

    /// Fetches `origin`'s robots.txt. Every failure of the site is an outcome (see the module
    /// docs for the table); the error is a failure on this side ([`LocalError`]), which says
    /// nothing about the site.
    pub async fn fetch(&self, origin: &Origin) -> Result<Fetch, LocalError> {
        self.fetch_with(origin, None).await
    }

    /// Fetches `origin`'s robots.txt, as a conditional request when `validators` are given
    /// (`If-None-Match`, `If-Modified-Since`): a 304 then re-confirms the file they belong to
    /// ([`FetchOutcome::NotModified`]). A 304 to a request without validators is unreachable:
    /// it confirms nothing.
    pub async fn fetch_with(
        &self,
        origin: &Origin,
        validators: Option<&Validators>,
    ) -> Result<Fetch, LocalError> {
        let started = Instant::now();
        let url = origin.robots_txt_url();
        let got = self
            .get_capped_with(&url, self.options.body_cap(), validators)
            .await;
        let mut max_age = None;
        let mut declared_size = None;
        let (mut etag, mut last_modified) = (None, None);
        let outcome = match got.result {
            GetResult::Body(body) => {
                max_age = got.max_age;
                etag = got.etag;
                last_modified = got.last_modified;
                declared_size = got.declared_size;
                let parsed = Robots::parse_with(
                    &body,
                    &Options {
                        mode: self.options.mode,
                        max_bytes: self.options.max_bytes,
                    },
                );
                FetchOutcome::Rules {
                    body: Arc::from(body),
                    parsed: Arc::new(parsed),
                }
            }
            GetResult::Status(304) => match validators {
                Some(v) => {
                    max_age = got.max_age;
                    FetchOutcome::NotModified { digest: v.digest }
                }
                None => FetchOutcome::Unreachable(Unreachable::Status(304)),
            },
            GetResult::Status(code) => status_outcome(code),
            GetResult::TooManyRedirects => FetchOutcome::Unavailable(Unavailable::TooManyRedirects),
            GetResult::RedirectLoop => FetchOutcome::Unavailable(Unavailable::RedirectLoop),
            GetResult::Failed(why) => FetchOutcome::Unreachable(why),
            GetResult::Local(e) => {
                tracing::warn!(
                    target: TARGET,
                    url = %url,
                    error = %e,
                    elapsed_ms = elapsed_ms(started),
                    "robots.txt fetch failed on this side: nothing recorded"
                );
                return Err(e);
            }
        };
        let retry_after = match got.status {
            Some(429 | 503) => got.retry_after,
            _ => None,
        };
        let fetch = Fetch {
            url,
            final_url: got.final_url,
            redirects: got.redirects,
            status: got.status,
            max_age,
            retry_after,
            etag,
            last_modified,
            declared_size,
            outcome,
        };
        tracing::info!(
            target: TARGET,
            url = %fetch.url,
            final_url = %fetch.final_url,
            status = fetch.status,
            outcome = %OutcomeLabel(&fetch.outcome),
            size = fetch.size(),
            redirects = fetch.redirects,
            elapsed_ms = elapsed_ms(started),
            "robots.txt fetched"
        );
        Ok(fetch)
    }

    /// A `GET` of `url` that follows redirects by hand (at most
    /// [`FetchOptions::max_redirects`], no loops, every hop under the address policy), stops
    /// reading a 2xx body at `cap` bytes (counted decompressed), and bounds the whole exchange
    /// by [`FetchOptions::timeout`]. Never fails: failures are in [`Got::result`].
    #[cfg(feature = "sitemap")]
    pub(crate) async fn get_capped(&self, url: &str, cap: usize) -> Got {
        self.get_capped_with(url, cap, None).await
    }

    /// [`Fetcher::get_capped`], sending `validators` with every hop. Waits for a turn under
    /// [`FetchOptions::max_in_flight`] first; the timeout starts with the turn.
    async fn get_capped_with(&self, url: &str, cap: usize, validators: Option<&Validators>) -> Got {
        let permit = self.in_flight.acquire().await;
        let mut got = Got {
            final_url: url.to_owned(),
            redirects: 0,
            status: None,
            retry_after: None,
            max_age: None,
            content_type: None,
            etag: None,
            last_modified: None,
            declared_size: None,
            result: GetResult::Status(0),
        };
        if permit.is_err() {
            // Only a closed semaphore fails, and the fetcher never closes it.
            got.result = GetResult::Local(LocalError::ShuttingDown("no turn to fetch".into()));
            return got;
        }
        let run = self.run(url, cap, validators, &mut got);
        let result = match tokio::time::timeout(self.options.timeout, run).await {
            Ok(result) => result,
            Err(_elapsed) => {
                tracing::debug!(target: TARGET, url = %got.final_url, "total timeout passed");
                GetResult::Failed(Unreachable::Timeout)
            }
        };
        got.result = result;
        got
    }

    /// The hops of [`Fetcher::get_capped`], recording what it sees in `got` as it goes (so
    /// that a timeout still knows the last URL and status).
    async fn run(
        &self,
        url: &str,
        cap: usize,
        validators: Option<&Validators>,
        got: &mut Got,
    ) -> GetResult {
        let mut url = match Url::parse(url) {
            Ok(u) => clean(u),
            Err(e) => {
                return GetResult::Failed(Unreachable::Other(format!("bad URL {url:?}: {e}")))
            }
        };
        let mut visited = HashSet::new();
        visited.insert(url.as_str().to_owned());
        loop {
            got.final_url = url.as_str().to_owned();
            got.status = None;
            got.retry_after = None;
            got.max_age = None;
            got.content_type = None;
            got.etag = None;
            got.last_modified = None;
            got.declared_size = None;
            let hop_started = Instant::now();
            if let Err(why) = self.check_literal(&url) {
                tracing::debug!(target: TARGET, url = %url, hop = got.redirects, refused = %why, "request refused");
                return GetResult::Failed(Unreachable::Connect(why));
            }
            let mut request = self
                .client
                .get(url.clone())
                .header(ACCEPT_ENCODING, decode::ACCEPT_ENCODING);
            if let Some(v) = validators {
                if let Some(etag) = &v.etag {
                    request = request.header(IF_NONE_MATCH, etag.as_str());
                }
                if let Some(date) = &v.last_modified {
                    request = request.header(IF_MODIFIED_SINCE, date.as_str());
                }
            }
            let sent = request.send().await;
            let mut response = match sent {
                Ok(r) => r,
                Err(e) => {
                    let why = match classify(&e, Phase::Head) {
                        Ok(why) => why,
                        Err(local) => return GetResult::Local(local),
                    };
                    tracing::debug!(
                        target: TARGET,
                        url = %url,
                        hop = got.redirects,
                        error = %why,
                        elapsed_ms = elapsed_ms(hop_started),
                        "request failed"
                    );
                    return GetResult::Failed(why);
                }
            };
            let status = response.status().as_u16();
            let headers = response.headers();
            got.status = Some(status);
            got.retry_after = retry_after(headers, SystemTime::now());
            got.max_age = max_age(headers);
            let text = |name| {
                headers
                    .get(name)
                    .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                    .map(str::to_owned)
            };
            got.content_type = text(reqwest::header::CONTENT_TYPE);
            got.etag = text(ETAG);
            got.last_modified = text(LAST_MODIFIED);
            tracing::debug!(
                target: TARGET,
                url = %url,
                hop = got.redirects,
                status,
                elapsed_ms = elapsed_ms(hop_started),
                "response"
            );
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let Some(next) = location(&url, headers) else {
                    return GetResult::Status(status);
                };
                if !visited.insert(next.as_str().to_owned()) {
                    return GetResult::RedirectLoop;
                }
                if got.redirects >= self.options.max_redirects {
                    return GetResult::TooManyRedirects;
                }
                got.redirects += 1;
                url = next;
                // The unread redirect body goes with `response`; its connection is closed.
                continue;
            }
            if !(200..300).contains(&status) {
                return GetResult::Status(status);
            }
            let codings = match decode::codings(headers) {
                Ok(c) => c,
                Err(why) => return GetResult::Failed(Unreachable::Encoding(why)),
            };
            if codings.is_empty() {
                // Unencoded, `Content-Length` is the file's size, even when only part is read.
                got.declared_size = headers
                    .get(CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok());
            }
            let mut decoder = Decoder::new(&codings, cap);
            loop {
                match response.chunk().await {
                    Ok(Some(chunk)) => match decoder.feed(&chunk) {
                        Ok(Fed::More) => {}
                        // Dropping `response` closes the connection: the rest is never read.
                        Ok(Fed::Full) => return GetResult::Body(decoder.into_body()),
                        Err(why) => return GetResult::Failed(Unreachable::Body(why)),
                    },
                    Ok(None) => {
                        return match decoder.finish() {
                            Ok(body) => GetResult::Body(body),
                            Err(why) => GetResult::Failed(Unreachable::Body(why)),
                        }
                    }
                    Err(e) => {
                        return match classify(&e, Phase::Body) {
                            Ok(why) => GetResult::Failed(why),
                            Err(local) => GetResult::Local(local),
                        }
                    }
                }
            }
        }
    }

    /// Refuses an IP-literal host the address policy forbids. Host names are checked by the
    /// resolver after resolution.
    fn check_literal(&self, url: &Url) -> Result<(), String> {
        let ip = match url.host() {
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(Host::Domain(_)) => return Ok(()),
            None => return Err(format!("{url} has no host")),
        };
        if self.options.addresses.allows(ip) {
            Ok(())
        } else {
            Err(format!("{ip} {REFUSED}"))
        }
    }
}

/// What [`Fetcher::get_capped`] saw.
#[derive(Debug)]
pub(crate) struct Got {
    /// The last URL requested (userinfo and fragment removed).
    pub final_url: String,
    /// Redirects followed.
    pub redirects: u8,
    /// The status of the response to `final_url`, if one arrived.
    pub status: Option<u16>,
    /// `Retry-After` of that response, whatever its status.
    pub retry_after: Option<Duration>,
    /// `Cache-Control: max-age` of that response, whatever its status.
    pub max_age: Option<Duration>,
    /// `Content-Type` of that response.
    pub content_type: Option<String>,
    /// `ETag` of that response (a visible-ASCII value).
    pub etag: Option<String>,
    /// `Last-Modified` of that response (a visible-ASCII value).
    pub last_modified: Option<String>,
    /// `Content-Length` of that response when its body is not encoded: the file's size.
    pub declared_size: Option<u64>,
    /// What came of it.
    pub result: GetResult,
}

/// The end of a [`Fetcher::get_capped`].
#[derive(Debug)]
pub(crate) enum GetResult {
    /// A 2xx response and its body, at most the cap.
    Body(Vec<u8>),
    /// A final status that is not 2xx (including a 3xx not followed).
    Status(u16),
    /// One redirect more than allowed.
    TooManyRedirects,
    /// A redirect to a URL already requested.
    RedirectLoop,
    /// No complete response.
    Failed(Unreachable),
    /// Nothing learned: the request failed on this side.
    Local(LocalError),
}

/// The outcome of a final status other than 2xx.
fn status_outcome(code: u16) -> FetchOutcome {
    match code {
        429 | 500..=599 => FetchOutcome::Unreachable(Unreachable::Status(code)),
        // A redirect not followed is "not found" (Google), like 4xx.
        300..=499 => FetchOutcome::Unavailable(Unavailable::Status(code)),
        // 1xx as a final answer, or outside the standard range: nothing usable came back.
        _ => FetchOutcome::Unreachable(Unreachable::Status(code)),
    }
}

/// A URL as requested: no userinfo, no fragment.
fn clean(mut url: Url) -> Url {
    // These fail only for URLs that cannot have userinfo, which then have none.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    url
}

/// The redirect target: `Location` resolved against `base`, if it is a usable http(s) URL of
/// at most [`MAX_REDIRECT_URL`] bytes. Every other redirect is one that cannot be followed.
fn location(base: &Url, headers: &HeaderMap) -> Option<Url> {
    let value = headers.get(LOCATION)?;
    if value.len() > MAX_REDIRECT_URL {
        return None;
    }
    let text = std::str::from_utf8(value.as_bytes()).ok()?.trim();
    if text.is_empty() {
        return None;
    }
    let next = base.join(text).ok()?;
    if !matches!(next.scheme(), "http" | "https") || next.host_str().is_none_or(str::is_empty) {
        return None;
    }
    let next = clean(next);
    (next.as_str().len() <= MAX_REDIRECT_URL).then_some(next)
}

/// `Cache-Control: max-age=N` (the first one, over all `Cache-Control` headers).
fn max_age(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|directive| {
            let (name, value) = directive.split_once('=')?;
            if !name.trim().eq_ignore_ascii_case("max-age") {
                return None;
            }
            delta_seconds(value.trim().trim_matches('"'))
        })
}

/// `Retry-After`: delta-seconds, or an HTTP-date turned into the time left from `now` (zero
/// if it has passed).
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Some(d) = delta_seconds(value) {
        return Some(d);
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `1*DIGIT` as seconds, capped at 2³¹.
fn delta_seconds(s: &str) -> Option<Duration> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs = s.parse::<u64>().unwrap_or(u64::MAX).min(MAX_DELTA_SECONDS);
    Some(Duration::from_secs(secs))
}

/// An HTTP-date (RFC 9110 §5.6.7) in any of its three forms:
/// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
fn parse_http_date(s: &str) -> Option<SystemTime> {
    let tokens: Vec<&str> = s.split_whitespace().collect();
    let (day, month, year, time) = match tokens.as_slice() {
        [_, day, mon, year, time, gmt] if gmt.eq_ignore_ascii_case("GMT") => {
            (num(day)?, month(mon)?, num(year)?, *time)
        }
        [_, dmy, time, gmt] if gmt.eq_ignore_ascii_case("GMT") => {
            let mut parts = dmy.split('-');
            let day = num(parts.next()?)?;
            let mon = month(parts.next()?)?;
            let yy = parts.next()?;
            if parts.next().is_some() {
                return None;
            }
            let year = match (yy.len(), num(yy)?) {
                (2, y) if y < 70 => 2000 + y,
                (2, y) => 1900 + y,
                (_, y) => y,
            };
            (day, mon, year, *time)
        }
        [_, mon, day, time, year] => (num(day)?, month(mon)?, num(year)?, *time),
        _ => return None,
    };
    let mut hms = time.split(':');
    let (h, m, sec) = (num(hms.next()?)?, num(hms.next()?)?, num(hms.next()?)?);
    if hms.next().is_some()
        || !(1..=31).contains(&day)
        || !(1970..=9999).contains(&year)
        || h > 23
        || m > 59
        || sec > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + h * 3600 + m * 60 + sec;
    Some(UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).ok()?))
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn month(s: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let i = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(s))?;
    i64::try_from(i + 1).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A short label of an outcome for logs.
struct OutcomeLabel<'a>(&'a FetchOutcome);

impl fmt::Display for OutcomeLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            FetchOutcome::Rules { .. } => f.write_str("rules"),
            FetchOutcome::NotModified { .. } => f.write_str("not modified"),
            FetchOutcome::Unavailable(why) => write!(f, "unavailable: {why}"),
            FetchOutcome::Unreachable(why) => write!(f, "unreachable: {why}"),
        }
    }
}

/// Where in the exchange an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Connecting, sending, or reading the response head.
    Head,
    /// Reading the body.
    Body,
}

/// Turns a client error into an [`Unreachable`], by walking its source chain; or into a
/// [`LocalError`] when the failure is on this side.
fn classify(err: &reqwest::Error, phase: Phase) -> Result<Unreachable, LocalError> {
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
    let text = error_text(err);
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
        return Unreachable::Body(text);
    }
    if err.is_dns() || lower.contains("dns error") || lower.contains("failed to lookup address") {
        return Unreachable::Dns(text);
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
        return Unreachable::Tls(text);
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
        return Unreachable::Connect(text);
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
        return Unreachable::Body(text);
    }
    Unreachable::Other(text)
}

/// The messages of an error's source chain, without the URL, each new one once.
fn error_text(err: &(dyn StdError + 'static)) -> String {
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
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn cache_control_max_age() {
        type Case = (&'static [(&'static str, &'static str)], Option<u64>);
        let cases: [Case; 8] = [
            (&[("cache-control", "max-age=3600")], Some(3600)),
            (
                &[("cache-control", "public, Max-Age = 60 , no-cache")],
                Some(60),
            ),
            (
                &[
                    ("cache-control", "no-store"),
                    ("cache-control", "max-age=5"),
                ],
                Some(5),
            ),
            (&[("cache-control", "max-age=\"7\"")], Some(7)),
            (&[("cache-control", "s-maxage=9")], None),
            (&[("cache-control", "max-age=-1")], None),
            (
                &[("cache-control", "max-age=99999999999999999999999")],
                Some(1 << 31),
            ),
            (&[], None),
        ];
        for (pairs, want) in cases {
            assert_eq!(
                max_age(&headers(pairs)),
                want.map(Duration::from_secs),
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn retry_after_forms() {
        // 1994-11-06T08:49:37Z
        let date = UNIX_EPOCH + Duration::from_secs(784_111_777);
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(form), Some(date), "{form}");
        }
        let now = date - Duration::from_secs(90);
        let h = |v: &'static str| headers(&[("retry-after", v)]);
        assert_eq!(retry_after(&h("120"), now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after(&h("Sun, 06 Nov 1994 08:49:37 GMT"), now),
            Some(Duration::from_secs(90))
        );
        // A date in the past: retry now.
        assert_eq!(
            retry_after(
                &h("Sun, 06 Nov 1994 08:49:37 GMT"),
                date + Duration::from_secs(5)
            ),
            Some(Duration::ZERO)
        );
        for bad in [
            "soon",
            "-5",
            "1.5",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "",
        ] {
            assert_eq!(retry_after(&h(bad), now), None, "{bad:?}");
        }
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(UNIX_EPOCH)
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(951_825_600))
        );
    }

    #[test]
    fn locations() {
        let base = Url::parse("http://example.com/robots.txt").expect("url");
        let loc = |v: &'static str| location(&base, &headers(&[("location", v)])).map(String::from);
        assert_eq!(loc("/a").as_deref(), Some("http://example.com/a"));
        assert_eq!(loc("b#frag").as_deref(), Some("http://example.com/b"));
        assert_eq!(
            loc("https://user:pw@other.example:8443/r.txt").as_deref(),
            Some("https://other.example:8443/r.txt")
        );
        assert_eq!(
            loc("//cdn.example/robots.txt").as_deref(),
            Some("http://cdn.example/robots.txt")
        );
        assert_eq!(loc("ftp://example.com/robots.txt"), None);
        assert_eq!(loc("javascript:alert(1)"), None);
        assert_eq!(loc("http://"), None);
        assert_eq!(loc("   "), None);
        assert_eq!(location(&base, &HeaderMap::new()), None);
    }

    #[test]
    fn statuses() {
        use FetchOutcome as O;
        let kind = |code| match status_outcome(code) {
            O::Unavailable(Unavailable::Status(c)) if c == code => "unavailable",
            O::Unreachable(Unreachable::Status(c)) if c == code => "unreachable",
            other => panic!("{code}: {other:?}"),
        };
        for code in [300, 301, 304, 400, 401, 403, 404, 410, 451, 499] {
            assert_eq!(kind(code), "unavailable", "{code}");
        }
        for code in [100, 101, 429, 500, 502, 503, 599, 600, 999] {
            assert_eq!(kind(code), "unreachable", "{code}");
        }
    }

    #[test]
    fn options_defaults() {
        let o = FetchOptions::default();
        assert_eq!(
            o.user_agent,
            format!("crawlgate/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(o.connect_timeout, Duration::from_secs(10));
        assert_eq!(o.timeout, Duration::from_secs(30));
        assert_eq!(o.max_bytes, DEFAULT_MAX_BYTES);
        assert_eq!(o.max_redirects, 5);
        assert_eq!(o.mode, Mode::Rfc);
        assert_eq!(o.addresses, AddressPolicy::Any);
        assert_eq!(o.body_cap(), DEFAULT_MAX_BYTES + 1);
        let small = FetchOptions {
            max_bytes: 10,
            ..FetchOptions::default()
        };
        assert_eq!(small.body_cap(), DEFAULT_MAX_BYTES + 1);
    }

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

    #[test]
    fn default_in_flight_follows_the_open_file_limit() {
        let n = default_max_in_flight();
        assert!((4..=256).contains(&n), "{n}");
        #[cfg(unix)]
        if let Some(limit) = rustix::process::getrlimit(rustix::process::Resource::Nofile).current {
            assert!(
                n as u64 <= limit.max(16) / 4,
                "{n} under a limit of {limit}"
            );
        }
    }

    #[test]
    fn fetcher_is_clone_send_sync() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<Fetcher>();
    }
}
