//! `crawlgate url`: the robots.txt URL of each URL's origin.

use serde_json::json;

use crate::output::Out;
use crate::{Status, UrlArgs};

pub fn run(args: &UrlArgs, out: &mut Out) -> anyhow::Result<Status> {
    let mut status = Status::Clean;
    for url in &args.urls {
        match crawlgate::robots_txt_url(url) {
            Ok(robots) if args.json => {
                out.json(&[("url", json!(url)), ("robots_txt", json!(robots))])?
            }
            Ok(robots) => out.line(format_args!("{robots}"))?,
            Err(e) => {
                out.error(e);
                status = Status::Failed;
            }
        }
    }
    Ok(status)
}
