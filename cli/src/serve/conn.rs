//! The accept loop: HTTP/1.1 and HTTP/2 (prior knowledge) on hyper, with every connection
//! bounded. At most `max_connections` are open at once (beyond it, new ones wait in the
//! kernel's accept queue, using no descriptor of ours), and never more than the open-file
//! limit leaves. A connection with no request in flight is closed after `idle` (and an
//! HTTP/1 one whose next request's headers are not all in within `header` of its first
//! byte, or whose first request's are not within `header` of the accept). HTTP/1.1 answers
//! say so (`Keep-Alive: timeout=N`), so that a client that reads it (Node's undici does)
//! stops reusing a connection before the service closes it, instead of racing the close. On
//! shutdown, no connection is accepted and those open finish their requests.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::header::{HeaderName, HeaderValue};
use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

/// hyper's own limits, set above the service's (`super::guard`) so that the service's answer
/// (JSON) comes first: header fields per HTTP/1 request, and HTTP/2's header list in bytes.
const HYPER_MAX_HEADERS: usize = 256;
const HYPER_MAX_HEADER_LIST: u32 = 64 * 1024;
/// Streams at once on one HTTP/2 connection.
const MAX_STREAMS: u32 = 64;
/// HTTP/2 pings: a peer that does not answer one within the timeout is gone.
const PING_INTERVAL: Duration = Duration::from_secs(20);
const PING_TIMEOUT: Duration = Duration::from_secs(10);
/// Descriptors kept for the rest of the process (the store, Redis, robots.txt fetches) when
/// the open-file limit bounds the connections.
const RESERVED_FILES: u64 = 256;

/// How connections are bounded.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub header: Duration,
    pub idle: Duration,
}

/// `max_connections` as the open-file limit allows: the soft limit is raised towards the
/// hard one if it is short, and what it leaves after [`RESERVED_FILES`] (at least half of it)
/// is the bound. The second value is the open-file limit when it lowered the bound.
pub fn connections_allowed(wanted: usize) -> (usize, Option<u64>) {
    let wanted = wanted.max(1);
    let Some(limit) = open_file_limit(wanted as u64 + RESERVED_FILES) else {
        return (wanted, None);
    };
    let room = limit.saturating_sub(RESERVED_FILES).max(limit / 2).max(1);
    match usize::try_from(room) {
        Ok(room) if room < wanted => (room, Some(limit)),
        _ => (wanted, None),
    }
}

/// The soft open-file limit after raising it to `wanted` (within the hard one) if lower.
#[cfg(unix)]
fn open_file_limit(wanted: u64) -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let limit = getrlimit(Resource::Nofile);
    let current = limit.current?;
    if current >= wanted {
        return Some(current);
    }
    let raised = limit.maximum.map_or(wanted, |max| wanted.min(max));
    if raised > current {
        let new = rustix::process::Rlimit {
            current: Some(raised),
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, new).is_ok() {
            return Some(raised);
        }
    }
    Some(current)
}

#[cfg(not(unix))]
fn open_file_limit(_: u64) -> Option<u64> {
    None
}

fn builder() -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        // The header deadline is ours (it starts at a request's first byte; hyper's would
        // also close a keep-alive connection waiting for its next request).
        .header_read_timeout(None)
        .max_headers(HYPER_MAX_HEADERS);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_STREAMS)
        .max_header_list_size(HYPER_MAX_HEADER_LIST)
        .keep_alive_interval(PING_INTERVAL)
        .keep_alive_timeout(PING_TIMEOUT);
    builder
}

/// Serves `router` on `listener` until `shutdown` resolves, then waits for the open
/// connections to finish their requests.
pub async fn run(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let builder = Arc::new(builder());
    let places = Arc::new(Semaphore::new(limits.max_connections));
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        // A place first: beyond the limit, a connection waits in the accept queue.
        let place = tokio::select! {
            () = &mut shutdown => break,
            place = places.clone().acquire_owned() => match place {
                Ok(place) => place,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors (or a connection reset before it was accepted): the
                // listener is fine; a pause keeps the loop from spinning on EMFILE.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Nagle left on, as hyper and axum leave it: a response goes out in one write, and
        // NODELAY measured 10 % fewer single-URL requests a second (the serve_load bench).
        tokio::spawn(connection(
            stream,
            router.clone(),
            builder.clone(),
            limits,
            stopping.clone(),
            place,
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection gives its place back when it ends.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = places.acquire_many(all).await;
    Ok(())
}

/// One connection, until it ends, goes idle past its deadline, or finishes its requests
/// after a shutdown.
async fn connection(
    stream: TcpStream,
    router: Router,
    builder: Arc<Builder<TokioExecutor>>,
    limits: Limits,
    mut stopping: watch::Receiver<bool>,
    _place: OwnedSemaphorePermit,
) {
    let clock = Arc::new(Clock::default());
    let io = TokioIo::new(Tracked {
        inner: stream,
        clock: clock.clone(),
    });
    let requests = clock.clone();
    let keep_alive = keep_alive(limits.idle);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let busy = Busy::start(&requests, request.version() == hyper::Version::HTTP_2);
        let http11 = request.version() == hyper::Version::HTTP_11;
        let router = router.clone();
        let keep_alive = keep_alive.clone();
        async move {
            let mut response = router.oneshot(request).await;
            drop(busy);
            if let (Ok(response), Some(value), true) = (&mut response, keep_alive, http11) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static("keep-alive"), value);
            }
            response
        }
    });
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    let mut stopped = *stopping.borrow();
    if stopped {
        conn.as_mut().graceful_shutdown();
    }
    // Made once: a future made anew on every wake-up of the connection would register with
    // the channel (shared by every connection) each time.
    let stop = async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    tokio::pin!(stop);
    // The deadlines are looked at on a tick, not re-armed on every request: a timer per
    // request and a wake-up per change cost the busiest connections most, for deadlines that
    // only matter to the idle ones. A connection is closed at most a tick after its deadline.
    let mut tick = tokio::time::interval(tick(limits));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            () = &mut stop, if !stopped => {
                stopped = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = tick.tick() => {
                if clock.state().deadline(limits).is_some_and(|d| d <= Instant::now()) {
                    // Nothing in flight: closing loses no request.
                    return;
                }
            }
        }
    }
}

/// `Keep-Alive`'s value for an idle timeout: whole seconds, rounded down so that a client
/// never waits past it; none below a second.
fn keep_alive(idle: Duration) -> Option<HeaderValue> {
    match idle.as_secs() {
        0 => None,
        n => HeaderValue::from_str(&format!("timeout={n}")).ok(),
    }
}

/// How often a connection's deadlines are looked at: a tenth of the shorter one, between
/// 50 ms and 1 s.
fn tick(limits: Limits) -> Duration {
    (limits.header.min(limits.idle) / 10).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

/// What a connection is doing, for its deadlines.
#[derive(Default)]
struct Clock {
    state: Mutex<ClockState>,
}

struct ClockState {
    in_flight: usize,
    /// Since when no request is in flight.
    idle_since: Instant,
    /// The first byte read since then (an HTTP/1 request on its way).
    pending_since: Option<Instant>,
    /// HTTP/2: bytes between requests are pings and window updates, not a request's start.
    http2: bool,
}

impl Default for ClockState {
    /// A connection just accepted: its first request is on its way, so the header deadline
    /// runs from now (a connection that sends nothing holds its place for `header`, not
    /// `idle`).
    fn default() -> Self {
        let now = Instant::now();
        ClockState {
            in_flight: 0,
            idle_since: now,
            pending_since: Some(now),
            http2: false,
        }
    }
}

impl ClockState {
    /// When the connection is to be closed; none while a request is in flight.
    fn deadline(&self, limits: Limits) -> Option<Instant> {
        if self.in_flight > 0 {
            return None;
        }
        let idle = self.idle_since + limits.idle;
        match self.pending_since {
            Some(first) if !self.http2 => Some(idle.min(first + limits.header)),
            _ => Some(idle),
        }
    }
}

impl Clock {
    fn state(&self) -> MutexGuard<'_, ClockState> {
        // The state is a few numbers, consistent after any panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn bytes_read(&self) {
        let mut state = self.state();
        if state.in_flight == 0 && state.pending_since.is_none() {
            state.pending_since = Some(Instant::now());
        }
    }
}

/// A request in flight on its connection, from its headers to its response.
struct Busy(Arc<Clock>);

impl Busy {
    fn start(clock: &Arc<Clock>, http2: bool) -> Busy {
        let mut state = clock.state();
        state.in_flight += 1;
        state.pending_since = None;
        state.http2 |= http2;
        drop(state);
        Busy(clock.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.in_flight = state.in_flight.saturating_sub(1);
        if state.in_flight == 0 {
            state.idle_since = Instant::now();
            state.pending_since = None;
        }
    }
}

/// The connection's socket, noting when bytes come in.
struct Tracked {
    inner: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.clock.bytes_read();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
