//! `crawlgate url`: the robots.txt URL of each URL's origin.

use crate::args::UrlArgs;
use crate::output::Out;
use crate::schema::{Record, RobotsTxtUrl, Summary};
use crate::status::Status;

pub fn run(args: &UrlArgs, out: &mut Out) -> anyhow::Result<Status> {
    let mut failed = 0;
    for url in &args.urls {
        match crawlgate::robots_txt_url(url) {
            Ok(robots) if args.json => out.json(&Record::RobotsTxtUrl(RobotsTxtUrl {
                url,
                robots_txt: &robots,
            }))?,
            Ok(robots) => out.line(format_args!("{robots}"))?,
            Err(e) => {
                out.error(e);
                failed += 1;
            }
        }
    }
    let status = if failed > 0 {
        Status::Failed
    } else {
        Status::Clean
    };
    if args.json {
        out.json(&Record::Summary(Summary {
            command: "url",
            urls: Some(args.urls.len() - failed),
            failed,
            exit: status.code(),
            ..Summary::default()
        }))?;
    }
    Ok(status)
}
