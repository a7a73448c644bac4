//! `crawlgate mcp`: the engine as a Model Context Protocol server on standard input and
//! output (the official SDK, `rmcp`), for AI agents that fetch pages. Four tools:
//!
//! - `check_url`: may an agent fetch a URL (allowed, disallowed, or unreachable: the robots.txt
//!   could not be read), with the deciding rule, the reason and the crawl-delay;
//! - `explain_robots`: what a site's robots.txt says to the agent (as `explain`) and its
//!   problems (as `lint`);
//! - `robots_report`: the origin's report record (as `report --json`), with the pace the
//!   engine keeps for the agent;
//! - `crawl_policy`: a URL's whole policy for the agent (robots.txt, the edge, TDMRep, the
//!   page's directives), as `policy --json`.
//!
//! The answers come from the engine on the crawl state exactly as `check URL` gets them, and
//! their structured content uses the `--json` records' field names (`schema`), each tool's
//! shape declared as its output schema (`schemas`); the text is a summary for people. A bad argument, a
//! URL that is not http(s), a refused address and an unreachable robots.txt are tool errors
//! (`isError`), never protocol failures. Standard output carries the protocol only: warnings go
//! to standard error.

mod schemas;
mod tools;

use std::sync::Arc;

use crawlgate::engine::RobotsCache;
use crawlgate::http::{AddressPolicy, FetchOptions, Fetcher};
use crawlgate::Mode;
use rmcp::ServiceExt as _;

use crate::args::{McpArgs, ModeArg};
use crate::engine::{engine, fetch_options, runtime};
use crate::output::Out;
use crate::state::{self, State};
use crate::status::Status;

/// What every tool call reads: one engine per mode on one crawl state, and the defaults.
pub struct Server {
    /// The engine that reads robots.txt as RFC 9309 says, and the one that reads it as Google
    /// does; both on `state`, so that an origin fetched by one is known to the other.
    rfc: RobotsCache,
    google: RobotsCache,
    state: State,
    /// Reads pages for `crawl_policy`, under the same address policy as robots.txt.
    pages: Fetcher,
    /// `--agent`: the agent a call without one is answered for.
    agent: Option<String>,
    /// `--mode`: the mode of a call without one.
    mode: Mode,
    /// `--allow-private`: targets on loopback, private and link-local addresses are fetched.
    allow_private: bool,
}

impl Server {
    fn engine(&self, mode: Mode) -> &RobotsCache {
        match mode {
            Mode::Rfc => &self.rfc,
            Mode::Google => &self.google,
        }
    }
}

/// `crawlgate mcp`: serves the tools on standard input and output until the client closes
/// them, then writes what the engines still hold to the state. Called before `main` makes its
/// `Out`, which would hold standard output's lock from the thread the protocol's writes wait on.
pub fn run(args: &McpArgs) -> anyhow::Result<Status> {
    let user_agent = args
        .http
        .user_agent
        .clone()
        .or_else(|| args.agent.clone())
        .unwrap_or_else(|| FetchOptions::default().user_agent);
    let options = |mode: Mode| -> anyhow::Result<FetchOptions> {
        let mut fetch = fetch_options(&args.http, user_agent.clone(), mode)?;
        // The URLs come from a model, which may be steered by any page it read: no fetch to
        // this machine or its network unless asked for.
        if !args.allow_private {
            fetch.addresses = AddressPolicy::PublicOnly;
        }
        Ok(fetch)
    };
    let (rfc, google) = (options(Mode::Rfc)?, options(Mode::Google)?);
    if let Some(agent) = &args.agent {
        // A default agent that cannot be read is a usage error now, not one per call.
        crate::crawler::tokens(std::slice::from_ref(agent), args.mode.into())?;
    }
    runtime()?.block_on(async {
        let state = state::open(&args.state, true).await?;
        let pages = Fetcher::new(rfc.clone())?;
        let server = Arc::new(Server {
            pages,
            rfc: engine(rfc, &state)?,
            google: engine(google, &state)?,
            state,
            agent: args.agent.clone(),
            mode: match args.mode {
                ModeArg::Rfc => Mode::Rfc,
                ModeArg::Google => Mode::Google,
            },
            allow_private: args.allow_private,
        });
        let result = async {
            let service = tools::Tools::new(server.clone())
                .serve(rmcp::transport::stdio())
                .await?;
            service.waiting().await?;
            anyhow::Ok(())
        }
        .await;
        // Standard output is free again (an `Out` holds its lock): only warnings, on standard
        // error, are written.
        let mut out = Out::stdout(true);
        let rfc = state::finish(&server.rfc, &server.state, &mut out).await;
        let google = state::finish(&server.google, &server.state, &mut out).await;
        // The session's error first; else changes that could not be written (exit 2).
        result.and(rfc).and(google)
    })?;
    Ok(Status::Clean)
}
