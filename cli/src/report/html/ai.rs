//! The report page's "AI crawlers" section, one per robots.txt: the crawlers of the built-in
//! catalogue grouped by purpose, each blocked, partly or allowed at `/`, with its group, the
//! line that decides (a link to it in the file view, where those lines are marked) and whether
//! its operator says it obeys robots.txt. Everything from a site or a catalogue is escaped.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{attr, text};
use crate::schema::report::{AiCrawlerView, AiView};

/// The purposes, in the order shown, with their headings.
const PURPOSES: [(&str, &str); 4] = [
    ("training", "Training"),
    ("search", "AI search"),
    ("agent", "Agents and user-triggered fetches"),
    ("other", "Other"),
];

/// The lines that decide for some crawler: marked in the file view.
pub fn deciding_lines(ai: &AiView) -> BTreeSet<u32> {
    ai.crawlers
        .iter()
        .flat_map(|c| c.line.into_iter().chain(c.other_line))
        .collect()
}

/// A link to line `line` of robots.txt number `n` (as the problem list links them).
fn line_link(n: usize, line: u32) -> String {
    format!("<a href=\"#r{n}-L{line}\" data-goto=\"r{n}-L{line}\">line {line}</a>")
}

fn row(h: &mut String, c: &AiCrawlerView, n: usize) {
    let group = match c.group {
        "token" => "its own",
        "star" => "<code>*</code>",
        _ => "none",
    };
    let groups: Vec<String> = c.group_lines.iter().map(|&l| line_link(n, l)).collect();
    let decided = match (c.line, &c.rule) {
        (Some(line), Some(rule)) => format!(
            "{} <code class=\"rule\">{}</code>",
            line_link(n, line),
            text(rule)
        ),
        _ => "no rule".to_owned(),
    };
    let under = c
        .other_line
        .map(|l| {
            format!(
                " <span class=\"hint\">(under it: {})</span>",
                line_link(n, l)
            )
        })
        .unwrap_or_default();
    let token = if c.valid_token {
        ""
    } else {
        " <span class=\"hint\" title=\"not a product token\">(not a token)</span>"
    };
    let _ = writeln!(
        h,
        "<tr class=\"ai-row\" data-crawler=\"{}\" data-access=\"{}\"><td class=\"crawler\" \
         title=\"{}\">{}{token}</td><td><span class=\"access access-{}\">{}</span></td><td>{group} \
         {}</td><td>{decided}{under}</td><td class=\"respects respects-{}\">{}</td></tr>",
        attr(&c.crawler),
        c.access,
        attr(&c.operator),
        text(&c.crawler),
        c.access,
        c.access,
        groups.join(", "),
        c.respects,
        c.respects
    );
}

/// The section for robots.txt number `n`.
pub fn section(h: &mut String, ai: &AiView, n: usize) {
    if ai.crawlers.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<section class=\"ai\" id=\"r{n}-ai\"><h3>AI crawlers <span class=\"hint\">({} \
         crawlers of {}, at <code>/</code>)</span></h3>",
        ai.crawlers.len(),
        text(&ai.catalogue)
    );
    for (purpose, heading) in PURPOSES {
        let mut rows: Vec<&AiCrawlerView> = ai
            .crawlers
            .iter()
            .filter(|c| c.purpose == purpose)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let rank = |a: &str| match a {
            "blocked" => 0,
            "partly" => 1,
            _ => 2,
        };
        rows.sort_by_key(|c| rank(c.access));
        let count = |a: &str| rows.iter().filter(|c| c.access == a).count();
        let _ = writeln!(
            h,
            "<div class=\"scroll\"><table class=\"ai-crawlers\" data-purpose=\"{purpose}\">\
             <caption>{heading}: {} blocked, {} partly, {} allowed</caption>\n<thead><tr>\
             <th>Crawler</th><th>At /</th><th>Group</th><th>Decided by</th><th>Obeys \
             robots.txt</th></tr></thead><tbody>",
            count("blocked"),
            count("partly"),
            count("allowed")
        );
        for c in rows {
            row(h, c, n);
        }
        h.push_str("</tbody></table></div>\n");
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markup in a catalogue's strings and in a robots.txt rule is text on the page.
    #[test]
    fn catalogue_and_rule_markup_is_escaped() {
        let catalogue = crawlgate::audit::Catalogue::from_json(
            r#"{"<img src=x onerror=alert(1)>": {"operator": "\"><script>alert(2)</script>",
                "function": "LLM training.", "respect": "Yes"},
                "GPTBot": {"operator": "O'Reilly & <b>Sons</b>", "function": "LLM training."}}"#,
        )
        .expect("catalogue");
        let robots = crawlgate::Robots::parse(
            b"User-agent: GPTBot\nDisallow: /<script>alert(3)</script>\nDisallow: /\n",
        )
        .robots;
        let ai = crate::engine::report::ai_view(&robots, &catalogue);
        let mut h = String::new();
        section(&mut h, &ai, 1);
        for raw in ["<script", "<img", "<b>"] {
            assert!(!h.contains(raw), "{raw} unescaped in:\n{h}");
        }
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"), "{h}");
        assert!(
            h.contains("title=\"&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;\""),
            "{h}"
        );
        assert!(
            h.contains("O&#39;Reilly &amp; &lt;b&gt;Sons&lt;/b&gt;"),
            "{h}"
        );
        assert!(
            h.contains("data-crawler=\"GPTBot\" data-access=\"blocked\""),
            "{h}"
        );
        assert!(
            h.contains("<a href=\"#r1-L3\" data-goto=\"r1-L3\">line 3</a>"),
            "{h}"
        );
        assert_eq!(deciding_lines(&ai), BTreeSet::from([3]));
    }
}
