//! Fetching one robots.txt: redirects followed by hand, a byte cap, timeouts, an optional
//! address policy, and every failure turned into a [`FetchOutcome`] ([RFC 9309 §2.3], [Google's handling of HTTP results]).
//!
//! [Google's handling of HTTP results]: https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#handling-http-result-codes
//!
//! [`Fetcher::fetch`] sends `GET /robots.txt` with the configured `User-Agent` and
//! `Accept-Encoding: gzip, deflate`, and turns every answer of the site into an outcome, as
//! follows. Its only error is a [`LocalError`]: a failure on this side (out of file
//! descriptors, memory or local ports; the runtime shutting down), which says nothing about
//! the site and must never be recorded as its failure.
//!
//! | what happened | outcome |
//! |---|---|
//! | any response with a challenge marker ([`CHALLENGE_MARKERS`]: `cf-mitigated: challenge`, …), whatever its status | [`Unreachable::Challenge`]: the site refuses the crawler; never "no robots.txt" |
//! | any 2xx (204 and an empty body included) | [`FetchOutcome::Rules`]: the body parsed (an HTML page too, with [`Fetch::html`] set, unless [`FetchOptions::html`] says [`HtmlRobotsTxt::Unreachable`]) |
//! | 402 Payment Required | [`FetchOutcome::PaymentRequired`], with the `crawler-*` price headers |
//! | 301, 302, 303, 307, 308 with a usable `Location` | followed (see below) |
//! | more than [`FetchOptions::max_redirects`] consecutive redirects | [`Unavailable::TooManyRedirects`] |
//! | a redirect to a URL already requested in this fetch | [`Unavailable::RedirectLoop`] |
//! | 304 to a conditional request (validators of the last good file sent) | [`FetchOutcome::NotModified`]: that file is current |
//! | 304 to a request without validators | [`Unreachable::Status`]: it confirms nothing |
//! | any other 3xx, or one whose `Location` cannot be followed: missing, empty, not UTF-8, not a URL, not http(s), no or bad host, a malformed header line (dropped), over [`MAX_REDIRECT_URL`] bytes | [`Unavailable::Status`]: as Google, a redirect that cannot be followed is "not found" |
//! | 4xx except 402 and 429 | [`Unavailable::Status`] |
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
//! wait, their timeouts not yet running). A request that has run longer than
//! [`FetchOptions::slow_after`] (1 s) is slow, and slow requests hold at most three quarters
//! of those turns: one that becomes slow when they already do is given up as
//! [`LocalError::Busy`], this side's failure, never recorded as the site's (the engine answers
//! "not fetched yet" or from what it knew, and asks again at the next check rather than
//! re-requesting a slow site in a loop). A quarter of the turns thus always turns over in seconds, and hundreds of
//! tarpit origins cannot hold every other origin's first answer for the fetch timeout: with
//! 500 origins answering after 15 s among 1,000 fast ones, asked at once through 256 turns,
//! the fast ones' first answers came after p99 4.7 s, where one queue for all made them wait
//! 15.5 s (p99; 2.8 s with `slow_after` at 500 ms, 8.4 s at 2 s: `cargo run --example
//! admission --features fetch -- 500 2000`). A slow request is given up only while slow
//! requests hold their whole share, so in normal running nothing is cut. No idle connection is kept by default
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
//! [`Fetch::html`]: crate::policy::Fetch::html
//! [`FetchOutcome::PaymentRequired`]: crate::policy::FetchOutcome::PaymentRequired
//! [`Unreachable::Challenge`]: crate::policy::Unreachable::Challenge
//! [`CHALLENGE_MARKERS`]: crate::policy::CHALLENGE_MARKERS

use std::collections::HashSet;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{
    HeaderMap, ACCEPT_ENCODING, CONTENT_LENGTH, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH,
    LAST_MODIFIED, LOCATION,
};
use tokio::sync::Semaphore;
use url::{Host, Url};

use super::address::{AddressPolicy, PolicyResolver, REFUSED};
pub use super::classify::LocalError;
use super::classify::{classify, Phase};
use super::decode::{self, Decoder, Fed};
use super::headers::{challenge, max_age, price_headers, retry_after};
use crate::policy::is_html_type;
use crate::policy::{Fetch, FetchOutcome, Unavailable, Unreachable, Validators};
use crate::robots::{looks_like_html, Mode, Options, Robots, DEFAULT_MAX_BYTES};
use crate::Origin;

/// The `tracing` target of every event of this module.
const TARGET: &str = "crawlgate::fetch";

/// The most header lines a response may have (hyper's default is 100, which real servers
/// exceed with long `Set-Cookie`, `Link` and security-header lists). A response with more is
/// [`Unreachable::Other`], every time.
pub const MAX_RESPONSE_HEADERS: usize = 1_000;

/// The longest redirect target followed, in bytes: RFC 9110 §4.1 asks that URIs of at least
/// 8,000 octets be supported. A longer `Location` is a redirect that cannot be followed.
pub const MAX_REDIRECT_URL: usize = 8_000;

/// How robots.txt is fetched.
///
/// Start from `FetchOptions::default()` and set the fields you need (`let mut options = FetchOptions::default();`
/// then `options.timeout = …`): the type is `#[non_exhaustive]`, so a new option is not a
/// breaking change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// How long a request may run before it counts as slow (default 1 s). Slow requests may
    /// hold at most three quarters of [`FetchOptions::max_in_flight`] (all of it below 4); a
    /// request that becomes slow when they already do is given up as
    /// [`LocalError::Busy`] (this side's failure, not recorded), so that a quarter of the turns always go to new requests and
    /// tarpits cannot hold every other origin's first answer behind them.
    pub slow_after: Duration,
    /// Idle connections kept per host for reuse. Default 0: a crawler comes back to an
    /// origin's robots.txt once a day, and each idle connection holds a file descriptor
    /// (20,000 origins in 90 seconds kept 11,704 open with reqwest's defaults).
    pub max_idle_per_host: usize,
    /// How long a kept idle connection lives (with `max_idle_per_host` above 0). Default 5 s.
    pub idle_timeout: Duration,
    /// What a 2xx HTML page served as robots.txt is. Default [`HtmlRobotsTxt::Parse`]:
    /// RFC 9309 §2.3.1.1 and Google read any 2xx as the file, and a soft 404 page (the common
    /// case) means "no robots.txt" anyway. Either way [`Fetch::html`] is set, `html-body` is
    /// among the diagnostics, and `crawlgate fetch` and `report` say so.
    ///
    /// [`Fetch::html`]: crate::policy::Fetch::html
    pub html: HtmlRobotsTxt,
}

/// What a fetcher makes of an HTML page served with a 2xx status as robots.txt (its
/// `Content-Type` is `text/html` or `application/xhtml+xml`, or its body starts as HTML:
/// [`looks_like_html`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HtmlRobotsTxt {
    /// Parse it, as RFC 9309 and Google do: its valid lines are rules (usually none, so
    /// everything is allowed).
    #[default]
    Parse,
    /// Read it as [`Unreachable::HtmlPage`]: the 12-hour stop, then the last good version.
    /// For a crawler that takes a bot wall served with 200 for what it is.
    Unreachable,
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
            slow_after: Duration::from_secs(1),
            max_idle_per_host: 0,
            idle_timeout: Duration::from_secs(5),
            html: HtmlRobotsTxt::Parse,
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
#[non_exhaustive]
pub enum FetchError {
    /// The HTTP client could not be built (an invalid `User-Agent`, no TLS backend…); the
    /// source says why.
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
}

/// Fetches robots.txt files. Cheap to clone; clones share one connection pool and one cap on
/// requests in flight.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    options: Arc<FetchOptions>,
    in_flight: Arc<Semaphore>,
    /// Turns for requests that have run longer than [`FetchOptions::slow_after`].
    slow: Arc<Semaphore>,
}

/// How many of `max_in_flight` turns slow requests may hold: all but a quarter (all of them
/// below 4, where a quarter is not one turn).
fn slow_turns(max_in_flight: usize) -> usize {
    let all = max_in_flight.max(1);
    all - all / 4
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
        let client = builder.build().map_err(FetchError::Client)?;
        Ok(Fetcher {
            client,
            in_flight: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
            slow: Arc::new(Semaphore::new(slow_turns(options.max_in_flight))),
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
        let mut seen = self
            .retrieve_with(&url, self.options.body_cap(), validators)
            .await;
        let mut max_age = None;
        let mut declared_size = None;
        let (mut etag, mut last_modified) = (None, None);
        let (outcome, html) = match end_outcome(
            seen.end,
            &seen.content_type,
            seen.payment.take(),
            validators,
            &self.options,
        ) {
            Ok(o) => o,
            Err(e) => {
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
        // The caching fields of a file read (or, for `max-age`, re-confirmed).
        match &outcome {
            FetchOutcome::Rules { .. } => {
                max_age = seen.max_age;
                etag = seen.etag;
                last_modified = seen.last_modified;
                declared_size = seen.declared_size;
            }
            FetchOutcome::NotModified { .. } => max_age = seen.max_age,
            _ => {}
        }
        let retry_after = match seen.status {
            Some(429 | 503) => seen.retry_after,
            _ => None,
        };
        let fetch = Fetch {
            url,
            final_url: seen.final_url,
            redirects: seen.redirects,
            status: seen.status,
            max_age,
            retry_after,
            etag,
            last_modified,
            declared_size,
            content_type: seen.content_type,
            html,
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
    /// by [`FetchOptions::timeout`]. Never fails: failures are in [`Retrieval::result`].
    #[cfg(feature = "sitemap")]
    pub(crate) async fn retrieve(&self, url: &str, cap: usize) -> Retrieval {
        self.retrieve_with(url, cap, None).await
    }

    /// [`Fetcher::retrieve`], sending `validators` with every hop. Waits for a turn under
    /// [`FetchOptions::max_in_flight`] first; the timeout starts with the turn.
    pub(crate) async fn retrieve_with(
        &self,
        url: &str,
        cap: usize,
        validators: Option<&Validators>,
    ) -> Retrieval {
        let permit = self.in_flight.acquire().await;
        let mut seen = Retrieval {
            final_url: url.to_owned(),
            redirects: 0,
            status: None,
            retry_after: None,
            max_age: None,
            content_type: None,
            etag: None,
            last_modified: None,
            declared_size: None,
            payment: None,
            page_headers: Vec::new(),
            end: RetrievalEnd::Status(0),
        };
        if permit.is_err() {
            // Only a closed semaphore fails, and the fetcher never closes it.
            seen.end = RetrievalEnd::Local(LocalError::ShuttingDown("no turn to fetch".into()));
            return seen;
        }
        let run = self.admitted(self.follow_redirects(url, cap, validators, &mut seen));
        let result = match tokio::time::timeout(self.options.timeout, run).await {
            Ok(result) => result,
            Err(_elapsed) => {
                tracing::debug!(target: TARGET, url = %seen.final_url, "total timeout passed");
                RetrievalEnd::Failed(Unreachable::Timeout)
            }
        };
        seen.end = result;
        seen
    }

    /// Runs `request` (which holds one of the `max_in_flight` turns): after
    /// [`FetchOptions::slow_after`] it needs a slow request's turn to go on, and is given up as
    /// [`LocalError::Busy`] when slow requests hold them all.
    async fn admitted(
        &self,
        request: impl std::future::Future<Output = RetrievalEnd>,
    ) -> RetrievalEnd {
        tokio::pin!(request);
        let all = self.options.max_in_flight.max(1);
        if slow_turns(all) == all {
            // Slow requests may hold every turn (fewer than 4): nothing to reserve.
            return request.await;
        }
        if let Ok(end) = tokio::time::timeout(self.options.slow_after, &mut request).await {
            return end;
        }
        match self.slow.try_acquire() {
            Ok(_turn) => request.await,
            Err(_) => {
                tracing::info!(target: TARGET, slow_after_ms = self.options.slow_after.as_millis() as u64, "slow requests hold their share of the turns: this one is given up (this side's limit, not the site's failure)");
                RetrievalEnd::Local(LocalError::Busy(format!(
                    "no answer after {} ms and every slow turn taken",
                    self.options.slow_after.as_millis()
                )))
            }
        }
    }

    /// The hops of [`Fetcher::retrieve`], recording what it sees in `seen` as it goes (so
    /// that a timeout still knows the last URL and status).
    async fn follow_redirects(
        &self,
        url: &str,
        cap: usize,
        validators: Option<&Validators>,
        seen: &mut Retrieval,
    ) -> RetrievalEnd {
        let mut url = match Url::parse(url) {
            Ok(u) => clean(u),
            Err(e) => {
                return RetrievalEnd::Failed(Unreachable::Other(format!("bad URL {url:?}: {e}")))
            }
        };
        let mut visited = HashSet::new();
        visited.insert(url.as_str().to_owned());
        loop {
            seen.final_url = url.as_str().to_owned();
            seen.status = None;
            seen.retry_after = None;
            seen.max_age = None;
            seen.content_type = None;
            seen.etag = None;
            seen.last_modified = None;
            seen.declared_size = None;
            seen.payment = None;
            seen.page_headers.clear();
            let hop_started = Instant::now();
            if let Err(why) = self.check_literal(&url) {
                tracing::debug!(target: TARGET, url = %url, hop = seen.redirects, refused = %why, "request refused");
                return RetrievalEnd::Failed(Unreachable::Connect(why));
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
                        Err(local) => return RetrievalEnd::Local(local),
                    };
                    tracing::debug!(
                        target: TARGET,
                        url = %url,
                        hop = seen.redirects,
                        error = %why,
                        elapsed_ms = elapsed_ms(hop_started),
                        "request failed"
                    );
                    return RetrievalEnd::Failed(why);
                }
            };
            let status = response.status().as_u16();
            let headers = response.headers();
            seen.status = Some(status);
            seen.retry_after = retry_after(headers, SystemTime::now());
            seen.max_age = max_age(headers);
            let text = |name| {
                headers
                    .get(name)
                    .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                    .map(str::to_owned)
            };
            seen.content_type = text(reqwest::header::CONTENT_TYPE);
            seen.page_headers = headers
                .iter()
                .filter(|(name, _)| is_page_header(name.as_str()))
                .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                .collect();
            seen.etag = text(ETAG);
            seen.last_modified = text(LAST_MODIFIED);
            tracing::debug!(
                target: TARGET,
                url = %url,
                hop = seen.redirects,
                status,
                elapsed_ms = elapsed_ms(hop_started),
                "response"
            );
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let Some(next) = location(&url, headers) else {
                    return RetrievalEnd::Status(status);
                };
                if !visited.insert(next.as_str().to_owned()) {
                    return RetrievalEnd::RedirectLoop;
                }
                if seen.redirects >= self.options.max_redirects {
                    return RetrievalEnd::TooManyRedirects;
                }
                seen.redirects += 1;
                url = next;
                // The unread redirect body goes with `response`; its connection is closed.
                continue;
            }
            seen.payment = payment(status, headers);
            if let Some(end) = head_end(status, headers) {
                return end;
            }
            let codings = match decode::codings(headers) {
                Ok(c) => c,
                Err(why) => return RetrievalEnd::Failed(Unreachable::Encoding(why)),
            };
            if codings.is_empty() {
                // Unencoded, `Content-Length` is the file's size, even when only part is read.
                seen.declared_size = headers
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
                        Ok(Fed::Full) => return RetrievalEnd::Body(decoder.into_body()),
                        Err(why) => return RetrievalEnd::Failed(Unreachable::Body(why)),
                    },
                    Ok(None) => {
                        return match decoder.finish() {
                            Ok(body) => RetrievalEnd::Body(body),
                            Err(why) => RetrievalEnd::Failed(Unreachable::Body(why)),
                        }
                    }
                    Err(e) => {
                        return match classify(&e, Phase::Body) {
                            Ok(why) => RetrievalEnd::Failed(why),
                            Err(local) => RetrievalEnd::Local(local),
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

/// A field `crate::page` reads (names as reqwest gives them: lowercase).
fn is_page_header(name: &str) -> bool {
    matches!(
        name,
        "x-robots-tag" | "robots-tag" | "tdm-reservation" | "tdm-policy" | "content-usage"
    )
}

/// What [`Fetcher::retrieve`] saw.
#[derive(Debug)]
pub(crate) struct Retrieval {
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
    /// The price headers of a 402.
    pub payment: Option<crate::policy::Payment>,
    /// The page-directive fields of that response (`x-robots-tag`, `robots-tag`,
    /// `tdm-reservation`, `tdm-policy`, `content-usage`), names lowercase, in order.
    pub page_headers: Vec<(String, Vec<u8>)>,
    /// What came of it.
    pub end: RetrievalEnd,
}

/// The end of a [`Fetcher::retrieve`].
#[derive(Debug)]
pub(crate) enum RetrievalEnd {
    /// A 2xx response and its body, at most the cap.
    Body(Vec<u8>),
    /// A final status that is not 2xx (including a 3xx not followed).
    Status(u16),
    /// A response with a challenge marker, whatever its status; the body is not read.
    Challenge {
        /// Its status.
        status: u16,
        /// The marker, `name: value`.
        marker: String,
    },
    /// One redirect more than allowed.
    TooManyRedirects,
    /// A redirect to a URL already requested.
    RedirectLoop,
    /// No complete response.
    Failed(Unreachable),
    /// Nothing learned: the request failed on this side.
    Local(LocalError),
}

/// What one final response to a robots.txt request means, read as [`Fetcher::fetch`] reads
/// the last response of a fetch (the table at the top of this module): a challenge marker
/// (whatever the status), a 402 with its price headers, RFC 9309's status rules, and a 2xx
/// body parsed (at most [`FetchOptions::max_bytes`]; an HTML page is unreachable or rules as
/// [`FetchOptions::html`] says). For a response fetched by another HTTP client: redirects are
/// that client's to follow (a 3xx given here is one not followed: "not found"), and a 304 is
/// unreachable (no validators were sent). `Retry-After` of a 429 or 503 is read against `now`.
pub fn response_fetch(
    url: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    options: &FetchOptions,
    now: SystemTime,
) -> Fetch {
    let end = head_end(status, headers)
        .unwrap_or_else(|| RetrievalEnd::Body(body[..body.len().min(options.body_cap())].to_vec()));
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let (outcome, html) = end_outcome(end, &content_type, payment(status, headers), None, options)
        // Only a local failure is an error, and a response given whole has none.
        .unwrap_or_else(|e| {
            (
                FetchOutcome::Unreachable(Unreachable::Other(e.to_string())),
                false,
            )
        });
    let rules = matches!(outcome, FetchOutcome::Rules { .. });
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    Fetch {
        url: url.to_owned(),
        final_url: url.to_owned(),
        redirects: 0,
        status: Some(status),
        max_age: if rules { max_age(headers) } else { None },
        retry_after: if matches!(status, 429 | 503) {
            retry_after(headers, now)
        } else {
            None
        },
        etag: if rules { text(ETAG) } else { None },
        last_modified: if rules { text(LAST_MODIFIED) } else { None },
        declared_size: None,
        content_type,
        html,
        outcome,
    }
}

/// The price headers of a 402 response.
fn payment(status: u16, headers: &HeaderMap) -> Option<crate::policy::Payment> {
    (status == 402).then(|| price_headers(headers))
}

/// How a final response's head ends a retrieval before its body is read: a challenge marker
/// (whatever the status), or any status but 2xx. `None` for a 2xx, whose body is read.
fn head_end(status: u16, headers: &HeaderMap) -> Option<RetrievalEnd> {
    if let Some(marker) = challenge(headers) {
        return Some(RetrievalEnd::Challenge { status, marker });
    }
    (!(200..300).contains(&status)).then_some(RetrievalEnd::Status(status))
}

/// The outcome of a retrieval's end, and whether its body is an HTML page; a failure on this
/// side is an error (nothing to record).
fn end_outcome(
    end: RetrievalEnd,
    content_type: &Option<String>,
    payment: Option<crate::policy::Payment>,
    validators: Option<&Validators>,
    options: &FetchOptions,
) -> Result<(FetchOutcome, bool), LocalError> {
    let mut html = false;
    let outcome = match end {
        RetrievalEnd::Challenge { status, marker } => {
            FetchOutcome::Unreachable(Unreachable::Challenge { status, marker })
        }
        RetrievalEnd::Body(body)
            if options.html == HtmlRobotsTxt::Unreachable
                && html_page(content_type, &body).is_some() =>
        {
            html = true;
            let why = html_page(content_type, &body).unwrap_or_default();
            FetchOutcome::Unreachable(Unreachable::HtmlPage(why))
        }
        RetrievalEnd::Body(body) => {
            html = html_page(content_type, &body).is_some();
            let parsed = Robots::parse_with(
                &body,
                &Options {
                    mode: options.mode,
                    max_bytes: options.max_bytes,
                    // The fetch's record counts the file's errors and warnings.
                    diagnostics: true,
                },
            );
            FetchOutcome::Rules {
                body: Arc::from(body),
                parsed: Arc::new(parsed),
            }
        }
        RetrievalEnd::Status(304) => match validators {
            Some(v) => FetchOutcome::NotModified { digest: v.digest },
            None => FetchOutcome::Unreachable(Unreachable::Status(304)),
        },
        RetrievalEnd::Status(402) => FetchOutcome::PaymentRequired(payment.unwrap_or_default()),
        RetrievalEnd::Status(code) => status_outcome(code),
        RetrievalEnd::TooManyRedirects => FetchOutcome::Unavailable(Unavailable::TooManyRedirects),
        RetrievalEnd::RedirectLoop => FetchOutcome::Unavailable(Unavailable::RedirectLoop),
        RetrievalEnd::Failed(why) => FetchOutcome::Unreachable(why),
        RetrievalEnd::Local(e) => return Err(e),
    };
    Ok((outcome, html))
}

/// The outcome of a final status other than 2xx: the library's one rule
/// ([`FetchOutcome::of_status`]); a 2xx, which never ends a retrieval as a status, would be
/// unreachable (no body).
pub(crate) fn status_outcome(code: u16) -> FetchOutcome {
    FetchOutcome::of_status(code).unwrap_or(FetchOutcome::Unreachable(Unreachable::Status(code)))
}

/// Why a 2xx body is an HTML page, if it is one: its content type, or how it starts.
fn html_page(content_type: &Option<String>, body: &[u8]) -> Option<String> {
    match content_type {
        Some(t) if is_html_type(t.as_bytes()) => Some(format!("Content-Type {t}")),
        _ if looks_like_html(body) => Some("the body starts as HTML".to_owned()),
        _ => None,
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
            FetchOutcome::PaymentRequired(p) => write!(f, "{p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::headers::header_map as headers;
    use super::*;

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
            O::PaymentRequired(_) if code == 402 => "payment-required",
            other => panic!("{code}: {other:?}"),
        };
        for code in [300, 301, 400, 401, 403, 404, 410, 451, 499] {
            assert_eq!(kind(code), "unavailable", "{code}");
        }
        for code in [100, 101, 304, 429, 500, 502, 503, 599, 600, 999] {
            assert_eq!(kind(code), "unreachable", "{code}");
        }
        assert_eq!(kind(402), "payment-required");
        for code in [200, 204, 299] {
            assert!(FetchOutcome::of_status(code).is_none(), "{code}");
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
