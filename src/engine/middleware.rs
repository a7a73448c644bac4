//! The gate as a reqwest-middleware layer ([`GateMiddleware`]).

use http::Extensions;
use reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};

use super::{Refused, RobotsCache};
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
/// [reqwest-middleware]: https://docs.rs/reqwest-middleware
/// [`Permit::record_response`]: super::Permit::record_response
#[derive(Debug, Clone)]
pub struct GateMiddleware {
    cache: RobotsCache,
    token: ProductToken,
}

impl GateMiddleware {
    /// Gates requests as `token` with `cache`'s rules and schedules (share the cache with the
    /// rest of the crawler: one schedule per origin).
    pub fn new(cache: RobotsCache, token: ProductToken) -> GateMiddleware {
        GateMiddleware { cache, token }
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
        result
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
