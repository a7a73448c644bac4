//! `crawlgate report` over 200 origins: the run takes about the time of the slowest rounds of
//! fetches, not their sum.
//!
//! One local server answers on every loopback address (`127.0.b.c`: 200 "hosts"); each
//! robots.txt is served after a delay of 100 to 300 ms, by host. The binary runs as a user
//! runs it (`--no-state`, `--concurrency N`), so the time includes process start, fetching,
//! parsing and rendering. Printed next to it: the sum of the delays (what a run one origin after
//! another takes at least) and the slowest one (what unbounded concurrency takes at least).
//!
//! Run: `cargo bench -p crawlgate-cli --bench report`.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ORIGINS: u32 = 200;

/// The delay of host `i`: 100 to 300 ms.
fn delay(i: u32) -> Duration {
    Duration::from_millis(100 + u64::from(i * 37 % 201))
}

fn host(i: u32) -> String {
    format!("127.0.{}.{}", 1 + i / 250, 1 + i % 250)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt.block_on(support::TestServer::start_on("0.0.0.0", |req| {
        let host = req.header("host").unwrap_or_default();
        let i = (0..ORIGINS)
            .find(|i| host.starts_with(&format!("{}:", self::host(*i))))
            .unwrap_or(0);
        support::Reply::Delayed(
            delay(i),
            Box::new(support::Reply::text(
                200,
                "User-agent: *\nDisallow: /private\nAllow: /private/ok\n",
            )),
        )
    }));
    let port = server.addr.port();
    let targets: Vec<String> = (0..ORIGINS)
        .map(|i| format!("http://{}:{port}/", host(i)))
        .collect();
    let sum: Duration = (0..ORIGINS).map(delay).sum();
    let slowest = (0..ORIGINS).map(delay).max().unwrap_or_default();
    eprintln!(
        "report bench: {ORIGINS} origins, delays 100–300 ms: sum {:.1} s, slowest {:.2} s",
        sum.as_secs_f64(),
        slowest.as_secs_f64()
    );
    for concurrency in [32, 200] {
        let mut times = Vec::new();
        for _ in 0..3 {
            let started = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_crawlgate"))
                .args(["report", "--json", "--no-state", "--concurrency"])
                .arg(concurrency.to_string())
                .args(&targets)
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .expect("run crawlgate");
            times.push(started.elapsed());
            let text = String::from_utf8_lossy(&out.stdout);
            let fetched = text.matches("\"status\":\"fetched\"").count();
            assert_eq!(fetched, ORIGINS as usize, "every robots.txt fetched");
        }
        times.sort();
        let median = times[1];
        // The lower bound at this concurrency: ORIGINS / concurrency rounds of the delays.
        let rounds = ORIGINS.div_ceil(concurrency);
        eprintln!(
            "report/--concurrency {concurrency}: median of 3 runs {:.2} s (min {:.2} s); {rounds} round(s) of fetches; sum/concurrency {:.2} s",
            median.as_secs_f64(),
            times[0].as_secs_f64(),
            sum.as_secs_f64() / f64::from(concurrency)
        );
    }
}
