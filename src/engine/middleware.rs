//! The gate as a reqwest-middleware layer ([`GateMiddleware`]), and, on request, a page's
//! directives and crawl policy attached to its response.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::Extensions;
use http_body::{Body as _, Frame, SizeHint};
use reqwest::{Request, Response, ResponseBuilderExt};
use reqwest_middleware::{Middleware, Next};

use super::{PagePart, Refused, RobotsCache};
use crate::policy::is_html_type;
use crate::robots::ProductToken;

/// [`GateMiddleware`] (feature `middleware`): a [reqwest-middleware] layer that checks, gates
/// and records every request of a crawler's client, with no code at each call site.
///
/// # Why reqwest-middleware
///
/// It is how the reqwest ecosystem wraps a client (reqwest-retry, reqwest-tracing and
/// http-cache-reqwest are built on it), its 0.5 line is built for reqwest 0.13, and a wrapped
/// client keeps reqwest's request builder (`client.get(url).header(..).send()`), so a crawler
/// changes one line where it builds its client. A `tower` layer would make the crawler give up
/// that builder for `Service::call`, and a wrapper type of our own would be one more client
/// API to learn.
///
/// # Example
///
/// ```no_run
/// use crawlgate::engine::{refusal, CacheOptions, GateMiddleware, RobotsCache};
/// use crawlgate::ProductToken;
/// use reqwest_middleware::ClientBuilder;
///
/// # async fn crawl() -> Result<(), Box<dyn std::error::Error>> {
/// let cache = RobotsCache::new(CacheOptions::default())?;
/// let bot = ProductToken::new("ExampleBot")?;
/// let client = ClientBuilder::new(reqwest::Client::new())
///     .with(GateMiddleware::new(cache, bot))
///     .build();
/// match client.get("https://example.com/page").send().await {
///     Ok(response) => println!("{}", response.status()),
///     Err(e) => match refusal(&e) {
///         Some(refused) => println!("not fetched: {refused}"),
///         None => println!("fetch failed: {e}"),
///     },
/// }
/// # Ok(())
/// # }
/// ```
///
/// Each request waits for its origin's slot ([`RobotsCache::acquire`]); a URL that robots.txt
/// disallows fails with [`reqwest_middleware::Error::Middleware`] holding a [`Refused`]
/// ([`refusal`] finds it) and never reaches the site. The response's status and `Retry-After`
/// are recorded ([`Permit::record_response`]); a connection failure or timeout is recorded as
/// the site unreachable. Put the layer last (innermost) if a retry layer is used too, so that
/// every retry is gated.
///
/// # A page's directives on its response
///
/// With [`GateMiddleware::with_page_policy`], each response also carries, in its
/// [`extensions`](Response::extensions), the page's [`PageDirectives`](crate::page::PageDirectives)
/// for the agent and the URL's [`CrawlPolicy`](super::CrawlPolicy) (robots.txt, edge, TDMRep,
/// the page):
///
/// ```no_run
/// # use crawlgate::engine::{CacheOptions, CrawlPolicy, GateMiddleware, RobotsCache};
/// # use crawlgate::page::PageDirectives;
/// # use crawlgate::ProductToken;
/// # async fn crawl() -> Result<(), Box<dyn std::error::Error>> {
/// # let cache = RobotsCache::new(CacheOptions::default())?;
/// # let bot = ProductToken::new("ExampleBot")?;
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(GateMiddleware::new(cache, bot).with_page_policy())
///     .build();
/// let response = client.get("https://example.com/page").send().await?;
/// let follow = response
///     .extensions()
///     .get::<PageDirectives>()
///     .is_none_or(|d| d.rules.follow);
/// let policy = response.extensions().get::<CrawlPolicy>();
/// let body = response.text().await?; // the whole body, the head included
/// # Ok(())
/// # }
/// ```
///
/// The `<meta>` elements are in the body, and a response body is a stream read once. The
/// middleware reads the head of an HTML body (a 2xx with an HTML `Content-Type`): frames are
/// read until `<body` appears or [`CacheOptions::page`](super::CacheOptions::page)'s
/// `html_budget` is reached, evaluated, and handed back in front of the rest of the stream,
/// so the caller reads the whole body, unchanged (a failure met while reading the head is
/// handed back after the bytes before it). The cost is that the caller sees the response
/// once its head has arrived, not at its first byte, and that the head (at most the budget)
/// is held meanwhile. Other responses get the directives of their headers alone, without
/// reading the body. The crawl policy asks [`RobotsCache::tdm`] (the origin's `tdmrep.json`,
/// fetched once and cached).
///
/// [reqwest-middleware]: https://docs.rs/reqwest-middleware
/// [`Permit::record_response`]: super::Permit::record_response
#[derive(Debug, Clone)]
pub struct GateMiddleware {
    cache: RobotsCache,
    token: ProductToken,
    page_policy: bool,
}

impl GateMiddleware {
    /// Gates requests as `token` with `cache`'s rules and schedules (share the cache with the
    /// rest of the crawler: one schedule per origin).
    pub fn new(cache: RobotsCache, token: ProductToken) -> GateMiddleware {
        GateMiddleware {
            cache,
            token,
            page_policy: false,
        }
    }

    /// Also attach each response's [`PageDirectives`](crate::page::PageDirectives) and the
    /// URL's [`CrawlPolicy`](super::CrawlPolicy) to it (see the type's docs).
    pub fn with_page_policy(mut self) -> GateMiddleware {
        self.page_policy = true;
        self
    }

    /// `response` with its directives and crawl policy in its extensions.
    async fn attach(&self, response: Response) -> Response {
        let status = response.status().as_u16();
        let url = response.url().clone();
        let html = (200..300).contains(&status)
            && response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .is_some_and(|v| is_html_type(v.as_bytes()));
        let headers: Vec<(String, Vec<u8>)> = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.as_bytes().to_vec()))
            .collect();
        let (mut response, head) = if html {
            peek(response, self.cache.options().page.html_budget).await
        } else {
            (response, Vec::new())
        };
        let directives = self.cache.page_directives(
            &self.token,
            status,
            headers,
            html.then_some(head.as_slice()),
        );
        let page = PagePart::new(status, Some(url.to_string()), directives.clone());
        if let Ok(policy) = self
            .cache
            .crawl_policy(&self.token, url.as_str(), Some(page))
            .await
        {
            response.extensions_mut().insert(policy);
        }
        response.extensions_mut().insert(directives);
        response
    }
}

/// Reads `response`'s body until `<body` or `budget` bytes, and gives back a response whose
/// body is those frames followed by the rest, with the bytes read (at most `budget`).
async fn peek(response: Response, budget: usize) -> (Response, Vec<u8>) {
    let url = response.url().clone();
    let (mut parts, mut body) = http::Response::<reqwest::Body>::from(response).into_parts();
    let mut frames = VecDeque::new();
    let mut head = Vec::new();
    let mut failed = None;
    let mut rest = true;
    while head.len() < budget {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            None => {
                rest = false;
                break;
            }
            Some(Err(e)) => {
                failed = Some(Box::new(e) as BoxError);
                break;
            }
            Some(Ok(frame)) => {
                let from = head.len().saturating_sub(4);
                if let Some(data) = frame.data_ref() {
                    head.extend_from_slice(data);
                }
                frames.push_back(frame);
                if contains_body_tag(&head[from..]) {
                    break;
                }
            }
        }
    }
    head.truncate(budget);
    let peeked = Peeked {
        frames,
        failed,
        rest: rest.then_some(body),
    };
    // The URL travels in the extensions of a rebuilt response (reqwest's own marker).
    if let Ok(marker) = http::Response::builder().url(url).body(()) {
        parts.extensions.extend(marker.into_parts().0.extensions);
    }
    let rebuilt = http::Response::from_parts(parts, reqwest::Body::wrap(peeked));
    (Response::from(rebuilt), head)
}

/// `<body` in any case.
fn contains_body_tag(bytes: &[u8]) -> bool {
    bytes
        .windows(5)
        .any(|w| w[0] == b'<' && w[1..].eq_ignore_ascii_case(b"body"))
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The frames read ahead, a failure met reading them, then the rest of the body.
struct Peeked {
    frames: VecDeque<Frame<Bytes>>,
    failed: Option<BoxError>,
    rest: Option<reqwest::Body>,
}

impl http_body::Body for Peeked {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if let Some(frame) = self.frames.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if let Some(e) = self.failed.take() {
            return Poll::Ready(Some(Err(e)));
        }
        match self.rest.as_mut() {
            Some(rest) => Pin::new(rest).poll_frame(cx).map_err(Into::into),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.frames.is_empty()
            && self.failed.is_none()
            && self.rest.as_ref().is_none_or(|r| r.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        let read: u64 = self
            .frames
            .iter()
            .filter_map(|f| f.data_ref())
            .map(|d| d.len() as u64)
            .sum();
        let mut hint = self
            .rest
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), |r| r.size_hint());
        // The upper bound first: a lower bound above the upper one panics.
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper.saturating_add(read));
        }
        hint.set_lower(hint.lower().saturating_add(read));
        hint
    }
}

#[async_trait::async_trait]
impl Middleware for GateMiddleware {
    async fn handle(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        let permit = self
            .cache
            .acquire(&self.token, req.url().as_str())
            .await
            .map_err(reqwest_middleware::Error::middleware)?;
        let result = next.run(req, extensions).await;
        match &result {
            Ok(response) => {
                permit
                    .record_response(response.status().as_u16(), response.headers())
                    .await;
            }
            Err(reqwest_middleware::Error::Reqwest(e)) if e.is_connect() || e.is_timeout() => {
                permit.record_unreachable().await;
            }
            // Something else failed (a layer inside this one, a request that could not be
            // built): it says nothing about the site.
            Err(_) => drop(permit),
        }
        match result {
            Ok(response) if self.page_policy => Ok(self.attach(response).await),
            other => other,
        }
    }
}

/// The [`Refused`] inside an error of a client gated by [`GateMiddleware`], if the request was
/// refused by the gate (rather than failing on the way).
pub fn refusal(error: &reqwest_middleware::Error) -> Option<&Refused> {
    match error {
        reqwest_middleware::Error::Middleware(e) => e.downcast_ref::<Refused>(),
        reqwest_middleware::Error::Reqwest(_) => None,
    }
}
