//! Who asks: the crawlers of `--agent`/`--agents` as product tokens, and which token of a
//! crawler's picks its groups in a robots.txt.

use anyhow::bail;
use crawlgate::{GroupMatch, Mode, ProductToken, Robots};

/// Who asks: one crawler per `--agent` (each answered on its own), or the one crawler of
/// `--agents`, which obeys several tokens and is answered once, by the group
/// [`Robots::rules_for_any`] picks.
pub struct Crawlers {
    /// The tokens, each once, in the order given.
    pub tokens: Vec<ProductToken>,
    /// `--agents`: the tokens are one crawler's, most specific first.
    pub together: bool,
}

impl Crawlers {
    /// Reads `--agent` (or, when it is empty, `--agents`; clap keeps them apart) as [`tokens`]
    /// does.
    pub fn new(agent: &[String], agents: &[String], mode: Mode) -> anyhow::Result<Crawlers> {
        let together = agent.is_empty();
        let tokens = tokens(if together { agents } else { agent }, mode)?;
        if tokens.is_empty() {
            bail!("no agent: give --agent TOKEN or --agents TOKEN,TOKEN");
        }
        Ok(Crawlers { tokens, together })
    }

    /// Each crawler's tokens: one slice per `--agent`, or one with every `--agents` token.
    pub fn each(&self) -> std::slice::Chunks<'_, ProductToken> {
        let size = if self.together {
            self.tokens.len().max(1)
        } else {
            1
        };
        self.tokens.chunks(size)
    }

    /// How many crawlers answer each URL.
    pub fn count(&self) -> usize {
        self.each().len()
    }

    /// The default User-Agent header: the first `--agent` (or `--agents` token), as given.
    // Without the `fetch` feature nothing is fetched.
    #[cfg_attr(not(feature = "fetch"), allow(dead_code))]
    pub fn user_agent(agent: &[String], agents: &[String]) -> Option<String> {
        agent.first().or(agents.first()).cloned()
    }
}

/// The token of `crawler` whose groups [`Robots::rules_for_any`] picks in `robots`: the first
/// with a group of its own; else the first, which gets the `*` group (or none) as every one of
/// them would. `robots.rules_for(chosen)` is therefore `robots.rules_for_any(crawler)`, which
/// lets the single-token APIs (the engine's [`check`], `crawl_delay`) answer for the crawler.
/// `None` only for an empty crawler.
///
/// [`check`]: crawlgate::engine::RobotsCache::check
pub fn chosen<'t>(robots: &Robots, crawler: &'t [ProductToken]) -> Option<&'t ProductToken> {
    let rules = robots.rules_for_any(crawler);
    crawler
        .iter()
        .find(|t| rules.group() == GroupMatch::Token && rules.matched_token() == Some(t.as_str()))
        .or(crawler.first())
}

/// The `--agent` values as product tokens, each once, in order. Google mode takes the agent
/// exactly as google/robotstxt's API does (any string, compared whole); RFC mode wants a
/// product token or a crawler's own User-Agent header.
pub fn tokens(agents: &[String], mode: Mode) -> anyhow::Result<Vec<ProductToken>> {
    let mut tokens = Vec::with_capacity(agents.len());
    for agent in agents {
        let token = match mode {
            Mode::Google => ProductToken::verbatim(agent),
            Mode::Rfc => ProductToken::from_user_agent(agent)?,
        };
        if !tokens.contains(&token) {
            tokens.push(token);
        }
    }
    Ok(tokens)
}
