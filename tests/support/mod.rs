//! A scripted HTTP/1.1 server on 127.0.0.x for the engine's tests: real sockets, no mocks.
//!
//! Each test starts its own server with a function from the request to a [`Reply`]; the
//! server counts requests and keeps their heads, so tests can assert "exactly one fetch" or
//! "no Cookie header". Replies can misbehave on purpose: hang, reset half way, trickle, send
//! broken chunking.
#![allow(dead_code)] // Each test binary uses a different part.

pub mod chromium;
pub mod gzip;
pub mod naive;
pub mod process;
pub mod redis_cluster;
pub mod redis_server;
pub mod rules;
pub mod sitemap;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target (`/robots.txt`).
    pub path: String,
    /// Header lines, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The first header of that (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response with `Content-Length`.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Read the request, then never answer (until the client gives up).
    Hang,
    /// Announce `length` body bytes, send `body` (fewer), then reset the connection.
    ResetAfter { length: usize, body: Vec<u8> },
    /// Send the head and then the body one byte every `every`.
    Trickle { body: Vec<u8>, every: Duration },
    /// Send these bytes as they are, then close.
    Raw(Vec<u8>),
    /// Wait, then reply.
    Delayed(Duration, Box<Reply>),
}

impl Reply {
    /// `status` with a text body.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply::Full {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    /// `status` with no body.
    pub fn status(status: u16) -> Reply {
        Reply::Full {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Full {
            status,
            headers: vec![("location".into(), location.into())],
            body: Vec::new(),
        }
    }

    /// Adds a header to a `Full` reply.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server; it stops when dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    hits: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts a server on `127.0.0.1`.
    pub async fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> TestServer {
        Self::start_on("127.0.0.1", handler).await
    }

    /// Starts a server on a loopback address such as `127.0.0.2` (another "host").
    pub async fn start_on(
        ip: &str,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind((ip, 0)).await.expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let hits = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (h, r) = (hits.clone(), requests.clone());
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (handler, h, r) = (handler.clone(), h.clone(), r.clone());
                tokio::spawn(async move {
                    let _ = serve(stream, &*handler, &h, &r).await;
                });
            }
        });
        TestServer {
            addr,
            hits,
            requests,
            task,
        }
    }

    /// `http://ADDR` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Requests served so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// The requests so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests lock").clone()
    }

    /// The requests so far for `path`.
    pub fn hits_on(&self, path: &str) -> usize {
        self.requests().iter().filter(|r| r.path == path).count()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An address where nothing listens (connection refused).
pub async fn refused_addr() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    addr
}

async fn serve(
    mut stream: TcpStream,
    handler: &Handler,
    hits: &AtomicUsize,
    requests: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    loop {
        let Some(request) = read_head(&mut stream).await? else {
            return Ok(());
        };
        hits.fetch_add(1, Ordering::SeqCst);
        requests
            .lock()
            .expect("requests lock")
            .push(request.clone());
        let reply = handler(&request);
        if !respond(&mut stream, reply).await? {
            return Ok(());
        }
    }
}

/// Reads one request head; `None` at end of stream.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await? == 0 {
            return Ok(None);
        }
        buf.push(byte[0]);
        if buf.len() > 64 * 1024 {
            return Ok(None);
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_owned();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Ok(Some(Request { path, headers }))
}

fn head(status: u16, headers: &[(String, String)], length: usize) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} X\r\ncontent-length: {length}\r\n");
    for (n, v) in headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// Sends the reply; `false` when the connection must close.
async fn respond(stream: &mut TcpStream, reply: Reply) -> std::io::Result<bool> {
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            stream
                .write_all(&head(status, &headers, body.len()))
                .await?;
            stream.write_all(&body).await?;
            Ok(true)
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(false)
        }
        Reply::ResetAfter { length, body } => {
            stream.write_all(&head(200, &[], length)).await?;
            stream.write_all(&body).await?;
            stream.flush().await?;
            // SO_LINGER 0: close with RST instead of FIN. (Deprecated because a non-zero linger
            // blocks the thread on drop; a zero linger does not block.)
            #[allow(deprecated)]
            stream.set_linger(Some(Duration::ZERO))?;
            Ok(false)
        }
        Reply::Trickle { body, every } => {
            stream.write_all(&head(200, &[], body.len())).await?;
            for b in body {
                stream.write_all(&[b]).await?;
                stream.flush().await?;
                tokio::time::sleep(every).await;
            }
            Ok(true)
        }
        Reply::Raw(bytes) => {
            stream.write_all(&bytes).await?;
            stream.flush().await?;
            Ok(false)
        }
        Reply::Delayed(wait, reply) => {
            tokio::time::sleep(wait).await;
            Box::pin(respond(stream, *reply)).await
        }
    }
}

/// The CPU time this thread has run, for bounds on work that a loaded machine must not trip
/// (it lengthens wall time, not the time a thread ran): Linux's
/// `/proc/thread-self/schedstat` (nanoseconds), else its `stat` (utime + stime, in ticks of
/// 10 ms); `None` elsewhere.
pub fn thread_cpu_time() -> Option<Duration> {
    if let Ok(text) = std::fs::read_to_string("/proc/thread-self/schedstat") {
        if let Some(ns) = text.split_whitespace().next().and_then(|n| n.parse().ok()) {
            return Some(Duration::from_nanos(ns));
        }
    }
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name in parentheses (which may hold spaces): utime and
    // stime are the 14th and 15th of the line, the 12th and 13th after it.
    let mut after = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let utime: u64 = after.next()?.parse().ok()?;
    let stime: u64 = after.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A Tokio runtime for a test's servers, with `workers` threads (the test's own thread drives
/// the code under test, or a child process does).
pub fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A one-worker runtime and a server on it answering with `handler`, for a test that is not
/// async (a child process fetches while the runtime serves). Keep the runtime while the server
/// is needed.
pub fn serve_blocking(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
) -> (tokio::runtime::Runtime, TestServer) {
    let rt = runtime(1);
    let server = rt.block_on(TestServer::start(handler));
    (rt, server)
}

/// The repository's `testdata/` directory (the library's package root holds it; the CLI's
/// tests find it one level up).
pub fn testdata_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("testdata"))
        .find(|dir| dir.is_dir())
        .expect("a testdata directory")
}

/// The bytes of `testdata/<path>`.
pub fn testdata(path: &str) -> Vec<u8> {
    let path = testdata_dir().join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A server that answers `body` while the status it returns holds 200, and that status with
/// no body otherwise (set it to make the site fail).
pub async fn status_switch(body: &'static str) -> (TestServer, Arc<std::sync::atomic::AtomicU16>) {
    let status = Arc::new(std::sync::atomic::AtomicU16::new(200));
    let st = status.clone();
    let server = TestServer::start(move |_| match st.load(Ordering::SeqCst) {
        200 => Reply::text(200, body),
        s => Reply::status(s),
    })
    .await;
    (server, status)
}

/// Asserts that `text` contains `part`, showing `text` when it does not.
#[track_caller]
pub fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}
