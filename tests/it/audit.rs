//! The AI-crawler audit (`crawlgate::audit`): the embedded catalogue, purposes, and what the
//! audit says of real robots.txt files that block AI crawlers (`testdata/audit/real/`, from the
//! bench corpus), line by line.

use crawlgate::audit::{audit, Access, Catalogue, CrawlerAudit, Purpose, PurposeSource, Respect};
use crawlgate::{Code, GroupMatch, Preference, Robots};

fn real(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/audit/real/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn find<'a, 'r, 'c>(audits: &'a [CrawlerAudit<'r, 'c>], name: &str) -> &'a CrawlerAudit<'r, 'c> {
    audits
        .iter()
        .find(|a| a.crawler.name == name)
        .unwrap_or_else(|| panic!("{name} not in the catalogue"))
}

/// (access, group, group lines, deciding line) for `/` and each path.
fn said(a: &CrawlerAudit<'_, '_>) -> Vec<(Access, GroupMatch, Vec<u32>, Option<u32>)> {
    std::iter::once(&a.root)
        .chain(&a.paths)
        .map(|p| {
            (
                p.access,
                a.group,
                a.group_lines.clone(),
                p.decision.rule().map(|r| r.line),
            )
        })
        .collect()
}

#[test]
fn the_builtin_catalogue() {
    let c = Catalogue::builtin();
    assert_eq!(c.crawlers().len(), 166);
    assert_eq!(c.version(), crawlgate::audit::BUILTIN_VERSION);
    assert_eq!(c.date(), Some("2026-08-22"));
    // Every key run through the product-token rules: 15 are not tokens.
    let invalid: Vec<&str> = c.invalid_tokens().map(|c| c.name.as_str()).collect();
    assert_eq!(
        invalid,
        [
            "bigsur.ai",
            "Brightbot 1.0",
            "ChatGPT Agent",
            "Datenbank Crawler",
            "Echobot Bot",
            "iaskspider/2.0",
            "Kangaroo Bot",
            "Linguee Bot",
            "MistralAI-User/1.0",
            "netEstate Imprint Crawler",
            "panscient.com",
            "Poseidon Research Crawler",
            "quillbot.com",
            "Sidetrade indexer bot",
            "Terra Cotta",
        ]
    );
    let brightbot = c
        .crawlers()
        .iter()
        .find(|c| c.name == "Brightbot 1.0")
        .unwrap();
    assert_eq!(
        brightbot.token.as_ref().map(|t| t.as_str()),
        Some("brightbot")
    );
    // Purposes: from the text, and from the hand-reviewed table.
    let purpose = |name: &str| {
        let c = c.crawlers().iter().find(|c| c.name == name).unwrap();
        (c.purpose, c.purpose_source)
    };
    assert_eq!(
        purpose("GPTBot"),
        (Purpose::Training, PurposeSource::Function)
    );
    assert_eq!(
        purpose("OAI-SearchBot"),
        (Purpose::Search, PurposeSource::Function)
    );
    assert_eq!(
        purpose("ChatGPT-User"),
        (Purpose::Agent, PurposeSource::Function)
    );
    assert_eq!(
        purpose("Linguee Bot"),
        (Purpose::Other, PurposeSource::Function)
    );
    assert!(matches!(
        purpose("Applebot-Extended"),
        (Purpose::Training, PurposeSource::Override(_))
    ));
    // Every override names a crawler of the catalogue.
    for (name, _, why) in crawlgate::audit::OVERRIDES {
        assert!(c.crawlers().iter().any(|c| c.name == *name), "{name}");
        assert!(!why.is_empty());
    }
    let count = |p: Purpose| c.crawlers().iter().filter(|c| c.purpose == p).count();
    assert_eq!(
        [
            Purpose::Training,
            Purpose::Search,
            Purpose::Agent,
            Purpose::Other
        ]
        .map(count),
        [69, 21, 57, 19]
    );
    let gptbot = c.crawlers().iter().find(|c| c.name == "GPTBot").unwrap();
    assert_eq!(gptbot.respect, Respect::Yes);
}

#[test]
fn a_catalogue_of_ones_own() {
    let json = r#"{"Example-Bot": {"operator": "<b>Example</b>", "respect": "No",
        "function": "Scrapes data to train models.", "frequency": "", "description": ""},
        "Other Bot": {"function": "Takes action based on user prompts."}}"#;
    let c = Catalogue::from_json(json).unwrap();
    assert_eq!(c.version(), "custom");
    assert_eq!(c.date(), None);
    let names: Vec<_> = c
        .crawlers()
        .iter()
        .map(|c| (c.name.as_str(), c.purpose, c.valid_token))
        .collect();
    assert_eq!(
        names,
        [
            ("Example-Bot", Purpose::Training, true),
            ("Other Bot", Purpose::Agent, false)
        ]
    );
    assert_eq!(c.crawlers()[0].respect, Respect::No);
    assert!(Catalogue::from_json("{}").is_err());
    assert!(Catalogue::from_json("[1, 2]").is_err());
    assert!(Catalogue::from_json(r#"{"A": {"function": 3}}"#).is_err());
}

/// nytimes.com blocks omgili and omgilibot by their own groups; every other crawler follows
/// `*`, which blocks parts of the site.
#[test]
fn nytimes() {
    let bytes = real("www.nytimes.com.txt");
    let robots = Robots::parse(&bytes).robots;
    let c = Catalogue::builtin();
    let paths = [
        "/2019/01/01/world/story.html",
        "/svc/",
        "/register",
        "/search/a",
    ];
    let a = audit(&robots, &c, &paths);
    use Access::*;
    use GroupMatch::{Star, Token};
    let blocked_by = |line: u32, group: u32| vec![(Blocked, Token, vec![group], Some(line)); 5];
    assert_eq!(said(find(&a, "omgili")), blocked_by(22, 21));
    assert_eq!(said(find(&a, "omgilibot")), blocked_by(19, 18));
    // GPTBot follows `*`: the root and a story are partly open (`Disallow: /*.pdf$` and the
    // query rules reach under them), `/svc` is blocked but for the feed `Allow`ed on line 3,
    // `/register` and `/search/` are closed.
    let star = vec![1];
    assert_eq!(
        said(find(&a, "GPTBot")),
        [
            (Partly, Star, star.clone(), None),
            (Partly, Star, star.clone(), None),
            (Partly, Star, star.clone(), Some(8)),
            (Blocked, Star, star.clone(), Some(7)),
            (Blocked, Star, star.clone(), Some(11)),
        ]
    );
    assert_eq!(find(&a, "GPTBot").paths[1].other.map(|r| r.line), Some(3));
    // Blocked everywhere: the two omgili crawlers only.
    let blocked: Vec<&str> = a
        .iter()
        .filter(|a| a.root.access == Blocked)
        .map(|a| a.crawler.name.as_str())
        .collect();
    assert_eq!(blocked, ["omgili", "omgilibot"]);
}

/// reuters.com: omgili has two groups (the second written as a whole User-Agent header),
/// merged; omgilibot its own.
#[test]
fn reuters() {
    let bytes = real("www.reuters.com.txt");
    let parsed = Robots::parse(&bytes);
    let warned: Vec<_> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.line == 32)
        .map(|d| d.code)
        .collect();
    assert_eq!(warned, [Code::UserAgentHeader, Code::DuplicateGroup]);
    let c = Catalogue::builtin();
    let a = audit(&parsed.robots, &c, &["/business/"]);
    use Access::*;
    use GroupMatch::{Star, Token};
    assert_eq!(
        said(find(&a, "omgili")),
        vec![(Blocked, Token, vec![30, 32], Some(31)); 2]
    );
    assert_eq!(
        said(find(&a, "omgilibot")),
        vec![(Blocked, Token, vec![28], Some(29)); 2]
    );
    assert_eq!(
        said(find(&a, "ClaudeBot")),
        [
            (Partly, Star, vec![4], None),
            (Allowed, Star, vec![4], None)
        ]
    );
}

/// blu-ray.com: CCBot, Omgili and panscient.com blocked by their own groups; Applebot blocked
/// by accident: `Crawl-delay` does not end a group, so `bingbot`, `msnbot`, `Applebot` and
/// `AhrefsBot` share one group and its `disallow: /` (line 25).
#[test]
fn blu_ray() {
    let bytes = real("www.blu-ray.com.txt");
    let parsed = Robots::parse(&bytes);
    let c = Catalogue::builtin();
    let a = audit(&parsed.robots, &c, &[]);
    use Access::*;
    use GroupMatch::{Star, Token};
    assert_eq!(
        said(find(&a, "CCBot")),
        [(Blocked, Token, vec![27], Some(28))]
    );
    assert_eq!(
        said(find(&a, "omgili")),
        [(Blocked, Token, vec![33], Some(34))]
    );
    assert_eq!(
        said(find(&a, "Applebot")),
        [(Blocked, Token, vec![15], Some(25))]
    );
    // `panscient.com` is not a token; the group is read as `panscient`, which blocks both
    // catalogue entries.
    assert_eq!(
        said(find(&a, "Panscient")),
        [(Blocked, Token, vec![54], Some(55))]
    );
    assert_eq!(
        said(find(&a, "panscient.com")),
        [(Blocked, Token, vec![54], Some(55))]
    );
    assert_eq!(said(find(&a, "GPTBot")), [(Partly, Star, vec![1], None)]);
    let header: Vec<u32> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::UserAgentHeader)
        .map(|d| d.line)
        .collect();
    assert_eq!(header, [51]); // `User-agent: The Knowledge AI`, read as `the`
    assert!(crawlgate::audit::lint(&parsed.robots, &bytes, &c).is_empty());
}

/// foursquare.com: CCBot (and Exabot, which the catalogue's ExaBot shares a token with: the
/// 2019 file meant Exalead's crawler) has its own group, which blocks only `/v/*` and so frees
/// it from `*`'s rules: `/search` is open to CCBot and closed to GPTBot.
#[test]
fn foursquare() {
    let bytes = real("foursquare.com.txt");
    let robots = Robots::parse(&bytes).robots;
    let c = Catalogue::builtin();
    let a = audit(&robots, &c, &["/v/some-venue/123", "/search"]);
    use Access::*;
    use GroupMatch::{Star, Token};
    let own = vec![36];
    assert_eq!(
        said(find(&a, "CCBot")),
        [
            (Partly, Token, own.clone(), None),
            (Blocked, Token, own.clone(), Some(53)),
            (Allowed, Token, own.clone(), None),
        ]
    );
    assert_eq!(said(find(&a, "ExaBot")), said(find(&a, "CCBot")));
    assert_eq!(
        said(find(&a, "GPTBot")),
        [
            (Partly, Star, vec![1], None),
            // `*`'s wildcard rules (`Disallow: /*/checkin/`) reach under a venue.
            (Partly, Star, vec![1], None),
            (Blocked, Star, vec![1], Some(2)),
        ]
    );
}

/// Partly versus allowed and blocked, on crafted files: `Allow: /$` opens only the root.
#[test]
fn partly() {
    let robots = Robots::parse(
        b"User-agent: GPTBot\nAllow: /$\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /\nAllow: /blog/\n\nUser-agent: ClaudeBot\nDisallow: /*.pdf\n",
    )
    .robots;
    let c = Catalogue::builtin();
    let a = audit(&robots, &c, &["/blog/", "/blog/a.pdf"]);
    let access = |name: &str| {
        let a = find(&a, name);
        std::iter::once(&a.root)
            .chain(&a.paths)
            .map(|p| p.access)
            .collect::<Vec<_>>()
    };
    use Access::*;
    assert_eq!(access("GPTBot"), [Partly, Blocked, Blocked]);
    assert_eq!(access("CCBot"), [Partly, Allowed, Allowed]);
    assert_eq!(access("ClaudeBot"), [Partly, Partly, Blocked]);
}

/// Usage preferences and signals per crawler, with their lines.
#[test]
fn usage_and_signals() {
    let robots = Robots::parse(
        b"User-agent: *\nContent-Usage: train-ai=n\nContent-Signal: search=yes, ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n",
    )
    .robots;
    let c = Catalogue::builtin();
    let a = audit(&robots, &c, &[]);
    let claude = find(&a, "ClaudeBot");
    assert_eq!(claude.usage.train_ai, Preference::Disallowed);
    assert_eq!(claude.usage_lines, [2]);
    assert_eq!(claude.signals.ai_train, Preference::Disallowed);
    assert_eq!(claude.signals.search, Preference::Allowed);
    assert_eq!(claude.signal_lines, [3]);
    // GPTBot's own group has no signal, and `/` is not crawlable: nothing is in force.
    let gptbot = find(&a, "GPTBot");
    assert!(gptbot.usage.is_unknown());
    assert!(gptbot.signal_lines.is_empty());
}

/// Hostile files (the fuzz regressions' inputs) and the real ones, in both modes: the audit and
/// the catalogue's lint never panic, and the lint's diagnostics hold the parser's invariants
/// (span on its line, in the input, in line order).
#[cfg(feature = "sitemap")]
#[test]
fn any_file_audits() {
    let c = Catalogue::builtin();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files = Vec::new();
    for dir in ["fuzz", "audit/real"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 15, "{}", files.len());
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        for mode in [crawlgate::Mode::Rfc, crawlgate::Mode::Google] {
            let parsed = Robots::parse_with(&bytes, &crawlgate::Options::mode(mode));
            let a = audit(&parsed.robots, &c, &["/", "/a/../b", "//x", "", "*"]);
            assert_eq!(a.len(), 166);
            let found = crawlgate::audit::lint(&parsed.robots, &bytes, &c);
            let starts = crate::invariants::line_starts(&bytes);
            crate::invariants::assert_diagnostics(&bytes, &starts, mode, &found);
        }
    }
}
