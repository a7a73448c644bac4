//! A crawl loop on the engine: each URL is checked against its origin's robots.txt, waits for
//! the origin's next slot (`Crawl-delay`, `Request-rate`, backoff after 429/503), is fetched,
//! and its response is recorded. The crawl state (robots.txt versions, failures, backoffs) is
//! kept in a redb file, so a restart goes on where the last run stopped.
//!
//! ```text
//! cargo run --example crawl_loop -- /tmp/crawl-state.redb https://example.com/ https://example.com/a
//! ```
//!
//! Arguments: the state file (created if missing), then the URLs to fetch, in order.

use std::time::Duration;

use crawlgate::engine::{CacheOptions, Refused, RobotsCache};
use crawlgate::ProductToken;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(state) = args.next() else {
        eprintln!("usage: crawl_loop STATE.redb URL…");
        std::process::exit(2);
    };
    let urls: Vec<String> = args.collect();

    let mut options = CacheOptions::default();
    options.fetch.user_agent = "ExampleBot/1.0 (+https://example.com/bot)".into();
    options.gate.max_delay = Duration::from_secs(30);
    // One process at a time holds the file; another waits a few seconds, then gets an error.
    let engine = RobotsCache::durable(&state, options)?;
    let bot = ProductToken::new("ExampleBot")?;
    let client = reqwest::Client::new();

    for url in &urls {
        match engine.acquire(&bot, url).await {
            Ok(permit) => match client.get(url).send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    // 429 and 503 back the origin off; other statuses report the site up.
                    permit.record_response(status, response.headers()).await;
                    println!("{status}\t{url}");
                }
                Err(e) => {
                    permit.record_unreachable().await;
                    println!("failed\t{url}\t{e}");
                }
            },
            Err(Refused::Disallowed { answer, .. }) => {
                let rule = answer.rule.map(|r| r.text).unwrap_or_default();
                println!("skipped\t{url}\t{} {rule}", answer.reason);
            }
            Err(e) => println!("skipped\t{url}\t{e}"),
        }
    }
    // Write what the store has not taken yet before the process ends.
    engine.flush().await?;
    Ok(())
}
