//! `crawlgate serve`: the engine as an HTTP/1.1 and HTTP/2 JSON service, so that crawlers in
//! any language share one crawl policy (and, as replicas on one Redis, one robots.txt fetch
//! per origin). An accept loop of our own ([`conn`]) bounds the connections in number and
//! time; axum routes to plain handlers ([`api`]); middleware ([`guard`]) refuses what is too
//! large, slow, cross-site or for another host, and tower layers bound each request (time,
//! requests in flight) and trace it; a bearer token guards the routes when `--token-file` is
//! given. SIGTERM drains the requests in flight and flushes the store.

use crate::args::ServeArgs;
use crate::output::Out;
use crate::status::Status;

#[cfg(not(feature = "serve"))]
pub fn serve(_: &ServeArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build has no server (feature `serve`)")
}

#[cfg(feature = "serve")]
mod api;
#[cfg(feature = "serve")]
mod check;
#[cfg(feature = "serve")]
mod conn;
#[cfg(feature = "serve")]
mod guard;
#[cfg(feature = "serve")]
mod metrics;
#[cfg(feature = "serve")]
mod pace;
#[cfg(feature = "serve")]
mod robots;
#[cfg(feature = "serve")]
#[cfg(feature = "serve")]
pub use enabled::serve;

#[cfg(feature = "serve")]
mod enabled {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use anyhow::Context;
    use axum::error_handling::HandleErrorLayer;
    use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
    use axum::middleware::{self, Next};
    use axum::response::{IntoResponse, Response};
    use axum::routing::{get, post};
    use axum::Router;
    use crawlgate::engine::{CacheOptions, RobotsCache};
    use crawlgate::http::{AddressPolicy, FetchOptions};
    use crawlgate::policy::KeyKind;
    use crawlgate::Mode;
    use sha2::{Digest, Sha256};
    use subtle::ConstantTimeEq;
    use tokio::sync::Semaphore;
    use tower::ServiceBuilder;
    use tower_http::trace::TraceLayer;

    use super::api::{self, ApiError, App, ErrorCode};
    use super::metrics::Metrics;
    use super::*;
    use super::{check, pace, robots};
    use crate::args::PolitenessKeyArg;
    use crate::engine::{engine_with, fetch_options};
    use crate::state;

    /// The limits and settings the router is built with.
    pub struct Settings {
        pub tokens: Vec<[u8; 32]>,
        pub allow_private: bool,
        pub max_urls: usize,
        pub max_body: usize,
        pub max_in_flight: usize,
        pub request_timeout: Duration,
        pub body_timeout: Duration,
        /// The host names answered besides loopback ones; `None`: any.
        pub hosts: Option<Vec<String>>,
        pub max_wait: Duration,
        /// Long-polls (`"wait": true` acquires) waiting at once, apart from `max_in_flight`.
        pub max_waiting: usize,
        pub mode: Mode,
    }

    fn seconds(value: f64, name: &str) -> anyhow::Result<Duration> {
        if !(value.is_finite() && value > 0.0) {
            anyhow::bail!("{name} must be a positive number of seconds");
        }
        Ok(Duration::from_secs_f64(value.min(86_400.0)))
    }

    /// The tokens of `--token-file`, one per line (blank and `#` lines skipped), as SHA-256
    /// digests: compared in constant time, and never kept or logged as given.
    fn tokens(args: &ServeArgs) -> anyhow::Result<Vec<[u8; 32]>> {
        let Some(path) = &args.token_file else {
            return Ok(Vec::new());
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read --token-file {}", path.display()))?;
        let tokens: Vec<[u8; 32]> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|t| Sha256::digest(t.as_bytes()).into())
            .collect();
        if tokens.is_empty() {
            anyhow::bail!("--token-file {} holds no token", path.display());
        }
        Ok(tokens)
    }

    /// `crawlgate serve`: listens until SIGTERM or Ctrl-C, then finishes the requests in
    /// flight and flushes the state.
    pub fn serve(args: &ServeArgs, out: &mut Out) -> anyhow::Result<Status> {
        let settings = Settings {
            tokens: tokens(args)?,
            allow_private: args.allow_private,
            max_urls: args.max_urls.max(1),
            max_body: args.max_body.max(1),
            max_in_flight: args.max_in_flight.max(1),
            request_timeout: seconds(args.request_timeout, "--request-timeout")?,
            body_timeout: seconds(args.body_timeout, "--body-timeout")?,
            hosts: guard::Guard::hosts(
                guard::listens_on_loopback(args.listen.ip()),
                &args.allow_host,
            ),
            max_wait: seconds(args.max_wait, "--max-wait")?,
            max_waiting: args.max_waiting,
            mode: args.mode.into(),
        };
        let grace = seconds(args.shutdown_grace, "--shutdown-grace")?;
        let (max_connections, lowered) = conn::connections_allowed(args.max_connections);
        let limits = conn::Limits {
            max_connections,
            header: seconds(args.header_timeout, "--header-timeout")?,
            idle: seconds(args.idle_timeout, "--idle-timeout")?,
        };
        let user_agent = args
            .http
            .user_agent
            .clone()
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        let mut fetch = fetch_options(&args.http, user_agent, settings.mode)?;
        fetch.addresses = if args.allow_private {
            AddressPolicy::Any
        } else {
            AddressPolicy::PublicOnly
        };
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if let Some(n) = args.threads {
            builder.worker_threads(n.max(1));
        }
        let runtime = builder
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        init_tracing();
        runtime.block_on(async {
            let state =
                state::open_long_running(&args.state, true, args.max_origins.max(1)).await?;
            let mut options = CacheOptions::default();
            options.fetch = fetch;
            options.gate.key = key_kind(args.politeness_key);
            options.gate.book_ahead = seconds(args.book_ahead, "--book-ahead")?;
            options.gate.max_pending_per_agent = args.max_pending_per_agent.max(1);
            options.max_origins = args.max_origins.max(1);
            let cache = engine_with(options, &state)?;
            let router = router(cache.clone(), settings);
            let listener = tokio::net::TcpListener::bind(args.listen)
                .await
                .with_context(|| format!("cannot listen on {}", args.listen))?;
            let addr = listener.local_addr()?;
            out.line(format_args!(
                "crawlgate serve: listening on http://{addr} (state: {})",
                state.name
            ))?;
            out.flush()?;
            if wait_outlasts_timeout(args) {
                tracing::warn!(
                    "--max-wait ({} s) exceeds --request-timeout ({} s): a long-poll is cut off by the timeout (503) before its slot comes",
                    args.max_wait,
                    args.request_timeout
                );
            }
            if let Some(files) = lowered {
                tracing::warn!(
                    "--max-connections lowered to {max_connections}: the open-file limit is {files}"
                );
            }
            conn::run(listener, router, limits, shutdown())
                .await
                .context("the server failed")?;
            finish(&cache, &state, grace, out).await?;
            out.line(format_args!("crawlgate serve: stopped"))?;
            anyhow::Ok(())
        })?;
        Ok(Status::Clean)
    }

    /// How often shutdown tries the store again within `--shutdown-grace`.
    const FLUSH_RETRY: Duration = Duration::from_millis(250);

    /// Writes what the store has not taken, trying again until `grace` is up (a store down
    /// or full for a moment loses nothing); then says what is lost, as a one-shot command does.
    async fn finish(
        cache: &RobotsCache,
        state: &state::State,
        grace: Duration,
        out: &mut Out,
    ) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let flushed = tokio::time::timeout_at(deadline, cache.flush()).await;
            let pending = cache.store_status().pending;
            if matches!(flushed, Ok(Ok(()))) && pending == 0 {
                break;
            }
            if tokio::time::Instant::now() + FLUSH_RETRY >= deadline {
                break;
            }
            tracing::warn!(
                pending,
                "the state store has not taken every change: trying again"
            );
            tokio::time::sleep(FLUSH_RETRY).await;
        }
        state::finish(cache, state, out).await
    }

    /// Whether a long-poll can outlast the request's own deadline.
    fn wait_outlasts_timeout(args: &ServeArgs) -> bool {
        args.max_wait >= args.request_timeout
    }

    fn key_kind(key: PolitenessKeyArg) -> KeyKind {
        match key {
            PolitenessKeyArg::Origin => KeyKind::Origin,
            PolitenessKeyArg::Host => KeyKind::Host,
            PolitenessKeyArg::Domain => KeyKind::Domain,
            PolitenessKeyArg::Ip => KeyKind::Ip,
        }
    }

    /// The request log on standard error, at `RUST_LOG`'s level (default: warnings).
    fn init_tracing() {
        use tracing_subscriber::EnvFilter;
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .try_init();
    }

    /// Resolves on SIGTERM or Ctrl-C.
    async fn shutdown() {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {},
            () = term => {},
        }
    }

    /// How long `/readyz` waits for the store before it says not ready.
    const READY_TIMEOUT: Duration = Duration::from_secs(5);

    /// The routes and their layers. The engine's routes pass, in order: the `Host` and
    /// `Origin` checks, the token, the media type, the body read whole (before a place in
    /// flight is taken, so a slow body holds none), then the time and in-flight limits. The
    /// health routes pass none of these (a probe needs no token, and a full service still
    /// says it is alive); the head-size limits apply to every request.
    pub fn router(cache: RobotsCache, settings: Settings) -> Router {
        let app = Arc::new(App {
            cache,
            metrics: Metrics::default(),
            tokens: settings.tokens,
            allow_private: settings.allow_private,
            max_urls: settings.max_urls,
            max_wait: settings.max_wait,
            mode: settings.mode,
            probed: Default::default(),
            places: Arc::new(Semaphore::new(settings.max_in_flight)),
            waiting: Arc::new(Semaphore::new(settings.max_waiting)),
        });
        let guard = guard::Guard {
            hosts: settings.hosts,
            max_body: settings.max_body,
            body_timeout: settings.body_timeout,
        };
        let guarded = Router::new()
            .route("/v1/check", post(check::check))
            .route("/v1/acquire", post(pace::acquire))
            .route("/v1/record", post(pace::record))
            .route("/v1/robots", get(robots::robots))
            .route("/v1/recrawl", post(robots::recrawl))
            .route("/metrics", get(api::metrics))
            .route("/openapi.json", get(api::openapi))
            .route_layer(
                ServiceBuilder::new()
                    .layer(middleware::from_fn_with_state(
                        Arc::new(Admission {
                            app: app.clone(),
                            guard,
                        }),
                        admit,
                    ))
                    .layer(HandleErrorLayer::new(overloaded))
                    .timeout(settings.request_timeout)
                    .layer(middleware::from_fn_with_state(app.clone(), in_flight))
                    .layer(DefaultBodyLimit::max(settings.max_body)),
            );
        let open = Router::new()
            .route("/healthz", get(api::healthz))
            .route("/readyz", get(readyz));
        guarded
            .merge(open)
            .fallback(api::not_found)
            .method_not_allowed_fallback(api::method_not_allowed)
            .layer(
                ServiceBuilder::new()
                    .layer(TraceLayer::new_for_http())
                    .layer(middleware::from_fn_with_state(app.clone(), observe)),
            )
            .with_state(app)
    }

    /// `GET /readyz` with a deadline of its own: a store that does not answer in
    /// [`READY_TIMEOUT`] is not ready.
    async fn readyz(State(app): State<Arc<App>>) -> Response {
        match tokio::time::timeout(READY_TIMEOUT, api::readyz(State(app))).await {
            Ok(response) => response,
            Err(_) => ApiError::new(
                ErrorCode::StoreUnavailable,
                format!(
                    "the state store did not answer within {} s",
                    READY_TIMEOUT.as_secs()
                ),
            )
            .into_response(),
        }
    }

    /// A request that ran out of time (`--request-timeout`).
    async fn overloaded(error: tower::BoxError) -> Response {
        if error.is::<tower::timeout::error::Elapsed>() {
            ApiError::new(ErrorCode::Timeout,
                "the request took longer than the service allows (crawlgate serve --request-timeout)",
            )
            .into_response()
        } else {
            ApiError::new(ErrorCode::Internal, "internal error").into_response()
        }
    }

    /// Takes one of the `--max-in-flight` places for the request (waiting for one, within
    /// `--request-timeout`), and hands it to the handler as an [`api::Place`]: a long-poll
    /// gives it back while it waits.
    async fn in_flight(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
        let Ok(permit) = app.places.clone().acquire_owned().await else {
            return ApiError::new(ErrorCode::Timeout, "the service is shutting down")
                .into_response();
        };
        let place = api::Place::new(permit);
        request.extensions_mut().insert(place.clone());
        let response = next.run(request).await;
        drop(place);
        response
    }

    /// Counts the request by route and status, with its latency.
    async fn observe(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
        let route = route_name(request.extensions().get::<MatchedPath>());
        // A head too large is answered before anything else reads it (every route).
        if let Some(refused) = guard::head(&request) {
            app.metrics
                .observe(route, refused.status().as_u16(), Duration::ZERO);
            return refused;
        }
        let started = Instant::now();
        app.metrics.in_flight.fetch_add(1, Ordering::Relaxed);
        // Counted down however the request ends (a client that goes away drops it).
        let _in_flight = InFlight(&app.metrics.in_flight);
        let response = next.run(request).await;
        app.metrics
            .observe(route, response.status().as_u16(), started.elapsed());
        response
    }

    struct InFlight<'a>(&'a std::sync::atomic::AtomicU64);

    impl Drop for InFlight<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// The route's name for the metrics (a fixed set, whatever path was asked for).
    fn route_name(path: Option<&MatchedPath>) -> &'static str {
        const ROUTES: [&str; 9] = [
            "/v1/check",
            "/v1/acquire",
            "/v1/record",
            "/v1/robots",
            "/v1/recrawl",
            "/healthz",
            "/readyz",
            "/metrics",
            "/openapi.json",
        ];
        path.and_then(|p| ROUTES.iter().find(|r| **r == p.as_str()).copied())
            .unwrap_or("other")
    }

    /// What the engine's routes are admitted with: the service's state (its tokens) and the
    /// checks' settings.
    struct Admission {
        app: Arc<App>,
        guard: guard::Guard,
    }

    /// The engine's routes' checks, in one layer (each layer is a clone of the stack below it
    /// per request): the site (`Host`, `Origin`), the token, then the body read whole within
    /// its deadline, before the request takes a place in flight.
    async fn admit(State(gate): State<Arc<Admission>>, request: Request, next: Next) -> Response {
        if let Some(refused) = guard::site(&gate.guard, &request) {
            return refused;
        }
        if let Some(refused) = unauthorized(&gate.app, &request) {
            return refused;
        }
        match guard::body(&gate.guard, request).await {
            Ok(request) => next.run(request).await,
            Err(refused) => refused,
        }
    }

    /// The bearer token, when the service has tokens: compared as SHA-256 digests in constant
    /// time against every token; the 401 (a JSON error) without a known one.
    fn unauthorized(app: &App, request: &Request) -> Option<Response> {
        if app.tokens.is_empty() {
            return None;
        }
        let given = request
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            });
        let known = given.is_some_and(|t| {
            let digest: [u8; 32] = Sha256::digest(t.as_bytes()).into();
            // Every token compared, so that the time does not tell which one matched.
            app.tokens
                .iter()
                .fold(subtle::Choice::from(0), |found, k| found | k.ct_eq(&digest))
                .into()
        });
        if known {
            return None;
        }
        app.metrics.unauthorized.fetch_add(1, Ordering::Relaxed);
        let mut response = ApiError::new(
            ErrorCode::Unauthorized,
            "a known bearer token is needed: Authorization: Bearer TOKEN",
        )
        .into_response();
        response.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer"),
        );
        Some(response)
    }
}

/// Request decoding on any bytes, through the router in process: a 4xx, never a 5xx or a
/// panic.
#[cfg(all(test, feature = "serve"))]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use axum::body::Body;
    use axum::http::Request;
    use crawlgate::engine::{CacheOptions, RobotsCache, SystemClock};
    use crawlgate::http::AddressPolicy;
    use crawlgate::store::MemoryStore;
    use proptest::prelude::*;
    use tower::ServiceExt;

    use super::enabled::{router, Settings};

    fn app() -> axum::Router {
        let mut options = CacheOptions::default();
        // Nothing leaves the machine, whatever the bytes say.
        options.fetch.addresses = AddressPolicy::PublicOnly;
        options.fetch.timeout = Duration::from_millis(100);
        let cache =
            RobotsCache::with_store(options, Arc::new(MemoryStore::new()), Arc::new(SystemClock))
                .expect("engine");
        router(
            cache,
            Settings {
                tokens: Vec::new(),
                allow_private: false,
                max_urls: 100,
                max_body: 4096,
                max_in_flight: 8,
                request_timeout: Duration::from_secs(10),
                body_timeout: Duration::from_secs(10),
                hosts: None,
                max_wait: Duration::from_secs(1),
                max_waiting: 8,
                mode: crawlgate::Mode::Rfc,
            },
        )
    }

    fn status(path: &str, body: Vec<u8>) -> u16 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let request = Request::post(path)
                .header("content-type", "application/json")
                .body(Body::from(body))
                .expect("request");
            app()
                .oneshot(request)
                .await
                .expect("the router never fails")
                .status()
                .as_u16()
        })
    }

    /// Bytes that look like a request more often than random ones do.
    fn bodies() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..6000),
            "\\{(\"(agent|urls|url|status|wait|retry_after|mode)\": ?(-?[0-9]{1,30}|\"[^\"]{0,20}\"|\\[[^\\]]{0,40}\\]|null|true|\\{\\})(, )?){0,4}\\}?"
                .prop_map(String::into_bytes),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_body_is_a_4xx(
            path in prop::sample::select(vec!["/v1/check", "/v1/acquire", "/v1/record", "/v1/recrawl"]),
            body in bodies(),
        ) {
            let code = status(path, body);
            prop_assert!((400..500).contains(&code), "{path}: {code}");
        }

        #[test]
        fn any_query_is_answered_without_a_5xx(query in "[ -~]{0,80}") {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let encoded: String = query
                .bytes()
                .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
                .collect();
            let code = runtime.block_on(async {
                let request = Request::get(format!("/v1/robots?url={encoded}"))
                    .body(Body::empty())
                    .expect("request");
                app().oneshot(request).await.expect("router").status().as_u16()
            });
            // 404: an http(s) URL of which nothing is recorded; else a 4xx naming `url`.
            prop_assert!((400..500).contains(&code), "{query}: {code}");
        }
    }
}
