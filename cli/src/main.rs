//! `crawlgate`: lint robots.txt files, check URLs against them, find a URL's robots.txt, fetch
//! robots.txt into a lasting crawl state (and show its history), and read, validate and
//! discover sitemaps.
//!
//! This file holds dispatch, exit codes and error printing; the command line itself is in
//! `args`. Each subcommand lives in its own module and uses only the library's public API.

// THE RULE: commands are sibling modules that never import each other. What two commands share
// moves down to a floor, and a module imports only from the floors below its own (`main`, at the
// top, from all). Shared code returns its results, in order; printing is the commands' own.
//
// Floors, lowest first:
//  0  leaves:  args (the clap types), status, input, clock (fetch), schema
//  1  output:  output (stdout, JSON Lines, errors), progress
//  2  shared:  urls (URL inputs), crawler (agents as tokens), tally, records (check records and
//              their columns), explained (what applies to an agent: explain records), state
//              (fetch), verdicts (a verdict and its deciding line; the crawler catalogue)
//  3  engine:  engine, engine::fetch_now (fetch): the engine on the crawl state
//  4  live:    live (a robots.txt fetched now, for lint, audit, test and diff)
// Commands, on top: lint, audit, batch, test, diff, check, explain, url, fetch, history, recrawl, report, sitemap, page, policy, mcp, serve.
mod args;
#[cfg(feature = "fetch")]
mod clock;
mod input;
mod schema;
mod status;

mod output;
mod progress;

mod crawler;
mod explained;
mod live;
mod records;
#[cfg(feature = "fetch")]
mod state;
mod tally;
mod urls;
mod verdicts;

#[cfg(feature = "fetch")]
mod engine;

mod audit;
#[cfg(feature = "batch")]
mod batch;
mod check;
mod diff;
mod explain;
mod fetch;
mod history;
mod lint;
#[cfg(feature = "mcp")]
mod mcp;
mod page;
#[cfg(feature = "fetch")]
mod policy;
mod recrawl;
mod report;
mod serve;
mod sitemap;
mod test;
mod url;

use std::process::ExitCode;

use crate::args::{Cli, Command, SitemapCommand};
use crate::output::Out;
use crate::status::Status;

/// `crawlgate completions SHELL`, `crawlgate man`: generated from the definitions above, so
/// that they always match the commands.
fn generated(command: &Command, out: &mut Out) -> anyhow::Result<Status> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut bytes = Vec::new();
    match command {
        Command::Completions(args) => {
            clap_complete::generate(args.shell, &mut cmd, "crawlgate", &mut bytes)
        }
        _ => clap_mangen::Man::new(cmd).render(&mut bytes)?,
    }
    out.raw(&bytes)?;
    Ok(Status::Clean)
}

/// `--agent` and `--agents` of `check` and `explain` exclude each other, but a
/// `CRAWLGATE_AGENT` in the environment gives way to `--agents` rather than clash with it
/// (clap's `conflicts_with` would count the variable as a `--agent`).
fn agents_apart(cli: &mut Cli, matches: &clap::ArgMatches) {
    use clap::parser::ValueSource;
    let (crawlers, name, sub) = match (&mut cli.command, matches.subcommand()) {
        (Command::Check(a), Some((name, sub))) => (&mut a.crawlers, name, sub),
        (Command::Explain(a), Some((name, sub))) => (&mut a.crawlers, name, sub),
        _ => return,
    };
    if crawlers.agents.is_empty() || crawlers.agent.is_empty() {
        return;
    }
    if sub.value_source("agent") == Some(ValueSource::EnvVariable) {
        crawlers.agent.clear();
        return;
    }
    use clap::CommandFactory;
    let mut cli = Cli::command();
    // The subcommand's usage line in the message, as clap's own errors have.
    let mut cmd = match cli.find_subcommand_mut(name) {
        Some(sub) => sub.clone().bin_name(format!("crawlgate {name}")),
        None => cli,
    };
    cmd.error(
        clap::error::ErrorKind::ArgumentConflict,
        "--agent and --agents cannot be used together: repeat --agent for several \
             crawlers (one answer each), or give one crawler's tokens to --agents",
    )
    .exit()
}

fn main() -> ExitCode {
    // Usage errors exit 2, --help and --version 0 (clap's own codes).
    let matches = {
        use clap::CommandFactory;
        Cli::command().get_matches()
    };
    let mut cli = {
        use clap::FromArgMatches;
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    };
    agents_apart(&mut cli, &matches);
    // The protocol owns standard output: no `Out`, which would hold its lock.
    #[cfg(feature = "mcp")]
    if let Command::Mcp(args) = &cli.command {
        return mcp::run(args).map_or_else(
            |e| {
                output::error(format_args!("{e:#}"));
                Status::Failed.into()
            },
            Status::into,
        );
    }
    let mut out = Out::stdout(cli.quiet);
    let result = match &cli.command {
        Command::Lint(args) => lint::run(args, &mut out),
        Command::Audit(args) => audit::run(args, &mut out),
        Command::Test(args) => test::run(args, &mut out),
        Command::Diff(args) => diff::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Explain(args) => explain::run(args, &mut out),
        Command::Url(args) => url::run(args, &mut out),
        Command::Fetch(args) => fetch::fetch(args, &mut out),
        Command::History(args) => history::history(args, &mut out),
        Command::Recrawl(args) => recrawl::recrawl(args, &mut out),
        Command::Report(args) => report::report(args, &mut out),
        Command::Serve(args) => serve::serve(args, &mut out),
        Command::Sitemap(SitemapCommand::Lint(args)) => sitemap::lint(args, &mut out),
        Command::Sitemap(SitemapCommand::Urls(args)) => sitemap::urls(args, &mut out),
        Command::Sitemap(SitemapCommand::Discover(args)) => sitemap::discover(args, &mut out),
        Command::Page(args) => page::run(args, &mut out),
        #[cfg(feature = "batch")]
        Command::Batch(args) => batch::run(args, &mut out),
        #[cfg(feature = "fetch")]
        Command::Policy(args) => policy::run(args, &mut out),
        command @ (Command::Completions(_) | Command::Man) => generated(command, &mut out),
        #[cfg(feature = "mcp")]
        // Served above, before `out` was made.
        Command::Mcp(_) => Ok(Status::Clean),
    }
    .and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    match result {
        Ok(status) => status.into(),
        // The reader went away (`crawlgate … | head -1`): nothing more to say to anyone.
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            out.error(format_args!("{e:#}"));
            Status::Failed.into()
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::args::Cli;

    /// clap's own checks of the definitions (ids, conflicts, defaults, flattened groups), which
    /// otherwise run only on the path a command line takes.
    #[test]
    fn command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
