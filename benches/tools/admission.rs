//! Fetch admission under tarpits: 500 origins whose robots.txt answers after 15 s and 1,000
//! that answer at once, all asked at the same moment (interleaved, one slow to two fast),
//! through one [`Fetcher`] with the default cap on requests in flight (256 at most). Prints the
//! fast origins' time to their answer (p50, p99, max), first with slow requests allowed to hold
//! every turn (`slow_after` = the fetch timeout: one queue for all, as before), then with the
//! default `slow_after` (1 s) or each value given in milliseconds (slow requests hold at most three
//! quarters of the turns).
//!
//! ```sh
//! cargo run --release --example admission --features fetch -- 3000 1000 500
//! ```
//!
//! Every server is on 127.0.0.1 (one port per origin), started by this program; it stops by
//! itself. Each run takes about 15 s plus the fast origins' wait.

use std::time::{Duration, Instant};

use crawlgate::http::{FetchOptions, Fetcher};
use crawlgate::Origin;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const SLOW: usize = 500;
const FAST: usize = 1_000;
const TARPIT: Duration = Duration::from_secs(15);

/// A robots.txt server on a free port of 127.0.0.1 that answers after `delay`.
async fn server(delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                tokio::time::sleep(delay).await;
                let body = "User-agent: *\nDisallow: /private\n";
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn run(label: &str, options: FetchOptions, ports: &[(u16, bool)]) {
    let fetcher = Fetcher::new(options).expect("fetcher");
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for &(port, slow) in ports {
        let fetcher = fetcher.clone();
        let origin = Origin::from_url(&format!("http://127.0.0.1:{port}/")).expect("origin");
        tasks.spawn(async move {
            let _ = fetcher.fetch(&origin).await;
            (slow, started.elapsed())
        });
    }
    let mut fast = Vec::with_capacity(FAST);
    while let Some(done) = tasks.join_next().await {
        let (slow, took) = done.expect("task");
        if !slow {
            fast.push(took);
            if fast.len() == FAST {
                break;
            }
        }
    }
    tasks.abort_all();
    fast.sort();
    println!(
        "{label}: fast origins' first answer p50 {:.2} s, p99 {:.2} s, max {:.2} s",
        percentile(&fast, 0.5).as_secs_f64(),
        percentile(&fast, 0.99).as_secs_f64(),
        fast.last().copied().unwrap_or_default().as_secs_f64()
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut ports = Vec::with_capacity(SLOW + FAST);
    for i in 0..SLOW + FAST {
        let slow = i % 3 == 0;
        let port = server(if slow { TARPIT } else { Duration::ZERO }).await;
        ports.push((port, slow));
    }
    let options = FetchOptions::default();
    println!(
        "{SLOW} origins answering after {} s, {FAST} at once; max_in_flight {}",
        TARPIT.as_secs(),
        options.max_in_flight
    );
    let mut one_queue = options.clone();
    one_queue.slow_after = one_queue.timeout;
    run("one queue (slow_after = timeout)", one_queue, &ports).await;
    let mut values: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if values.is_empty() {
        values.push(u64::try_from(options.slow_after.as_millis()).unwrap_or(u64::MAX));
    }
    for ms in values {
        // The previous run's tarpit connections are gone before the next starts.
        tokio::time::sleep(TARPIT).await;
        let mut o = options.clone();
        o.slow_after = Duration::from_millis(ms);
        run(&format!("slow_after {ms} ms"), o, &ports).await;
    }
}
