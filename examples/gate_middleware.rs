//! A polite crawler in a few lines: a reqwest client wrapped with `GateMiddleware`, so that
//! every request is checked against robots.txt, spaced by the origin's `Crawl-delay` /
//! `Request-rate` (1 s by default, 60 s at most), backed off after a 429 or 503, and recorded.
//!
//! ```text
//! cargo run --example gate_middleware --features middleware -- https://example.com/ https://example.com/a https://example.org/
//! ```
//!
//! All URLs are requested at once; requests to one origin go one at a time, in order, spaced;
//! origins proceed independently. Each line says when the response came (seconds since the
//! start), or why the gate refused.

use std::time::{Duration, Instant};

use crawlgate::engine::{refusal, GateMiddleware};
use crawlgate::engine::{CacheOptions, RobotsCache};
use crawlgate::ProductToken;
use reqwest_middleware::ClientBuilder;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let urls: Vec<String> = std::env::args().skip(1).collect();
    if urls.is_empty() {
        eprintln!("usage: gate_middleware URL…");
        std::process::exit(2);
    }
    // One engine for the whole crawler: one robots.txt fetch and one schedule per origin.
    let cache = RobotsCache::new({
        let mut options = CacheOptions::default();
        options.gate.default_delay = Duration::from_secs(1);
        options.gate.max_delay = Duration::from_secs(30);
        options
    })?;
    let bot = ProductToken::new("ExampleBot")?;
    let client = ClientBuilder::new(
        reqwest::Client::builder()
            .user_agent("ExampleBot/1.0 (+https://example.com/bot)")
            .build()?,
    )
    .with(GateMiddleware::new(cache, bot))
    .build();

    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for url in urls {
        let client = client.clone();
        tasks.spawn(async move {
            let line = match client.get(&url).send().await {
                Ok(response) => format!("{} {url}", response.status()),
                Err(e) => match refusal(&e) {
                    Some(refused) => format!("refused: {refused}"),
                    None => format!("failed {url}: {e}"),
                },
            };
            println!("{:6.2}s {line}", start.elapsed().as_secs_f64());
        });
    }
    while let Some(done) = tasks.join_next().await {
        done?;
    }
    Ok(())
}
