"""Where urllib.robotparser and Protego disagree with crawlgate (RFC 9309 mode) on the
robots-bench corpus, by cause.

    python bench/disagree.py [CORPUS_DIR] [--markdown]

For every file of ``robotfiles/`` and every URL of its ``links/NAME`` (and ``https://NAME/``),
as each agent of AGENTS (a product token with groups of its own in many files, and
``SomeBot``, which only ``*`` groups name), the verdict of crawlgate's ``Robots`` (mode
``rfc``) is set against ``RobotFileParser.can_fetch`` and ``Protego.can_fetch`` (both given the
body decoded as UTF-8 with errors ignored, as Scrapy does).

Each disagreement is put down to a cause by a test, not by reading: every cause has a rewrite
of the file that takes that cause away and nothing else an RFC 9309 reader would notice (for
example, sorting each group's rules longest first, for first-match order). A disagreement is
the cause's when, on the rewritten file, crawlgate's verdict is unchanged and the peer's now
agrees with it. The causes are tried one at a time, in the order of CAUSES; the first that
resolves the disagreement takes it. One that none resolves alone but all together do is
"several together"; the rest is "other", shown with examples. Each cause also has a minimal
file, checked here to disagree with the peer it names (and to agree once rewritten).

Prints a summary, or with ``--markdown`` the table for docs/batch.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import urllib.robotparser
from collections import Counter, defaultdict
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

from protego import Protego

from crawlgate import Robots

AGENTS = ["googlebot", "GPTBot", "CCBot", "ClaudeBot", "SomeBot"]
ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"[A-Za-z0-9_-]*")
LINE_END = re.compile(r"\r\n|\r|\n")


# --- the file as lines, read as RFC 9309 groups them ------------------------------------------


def split(text: str) -> list[str]:
    """Lines as RFC 9309 ends them (CR, LF, CRLF): not str.splitlines, which also breaks at
    form feeds and U+2028."""
    return LINE_END.split(text)


def field(line: str) -> tuple[str, str] | None:
    """(key lowercased, value) of a `key: value` line, comment removed."""
    line = line.split("#", 1)[0]
    if ":" not in line:
        return None
    key, value = line.split(":", 1)
    return key.strip().lower(), value.strip()


def kind(line: str) -> str:
    """`agent`, `rule`, `blank` (nothing but whitespace or a comment), or `other`."""
    f = field(line)
    if f is None:
        return "blank" if not line.split("#", 1)[0].strip() else "other"
    if f[0] == "user-agent":
        return "agent"
    if f[0] in ("allow", "disallow"):
        return "rule"
    return "other"


def token(value: str) -> str:
    """The product token a `user-agent` value is read as (its leading token characters)."""
    return TOKEN.match(value).group(0).lower()


def groups(lines: list[str]) -> list[tuple[list[int], list[int]]]:
    """(agent line indices, rule line indices) of each group: a `user-agent` line after a rule
    starts one; other records and blank lines end none (RFC 9309 §2.1)."""
    out: list[tuple[list[int], list[int]]] = []
    in_rules = True
    for i, line in enumerate(lines):
        k = kind(line)
        if k == "agent":
            if in_rules:
                out.append(([], []))
                in_rules = False
            out[-1][0].append(i)
        elif k == "rule" and out:
            out[-1][1].append(i)
            in_rules = True
    return out


def applies(lines: list[str], agent_lines: list[int], agent: str) -> bool:
    return any(token(field(lines[i])[1]) == agent.lower() for i in agent_lines)


def own_groups(lines: list[str], agent: str) -> list[int]:
    """The groups RFC 9309 gives the agent: those naming its token, else those of `*`."""
    gs = groups(lines)
    mine = [n for n, (a, _) in enumerate(gs) if applies(lines, a, agent)]
    if mine:
        return mine
    return [n for n, (a, _) in enumerate(gs) if any(field(lines[i])[1] == "*" for i in a)]


# --- the causes: each a rewrite that takes one cause away ------------------------------------


def drop(lines: list[str], pred) -> list[str]:
    return [line for line in lines if not pred(line)]


def blank_lines(lines, agent, url):
    return drop(lines, lambda line: line.strip() == "")


def sitemap_lines(lines, agent, url):
    return drop(lines, lambda line: (field(line) or ("",))[0] == "sitemap")


def other_records(lines, agent, url):
    return drop(lines, lambda line: kind(line) == "other")


def agent_value(lines, agent, url):
    """`User-agent: Googlebot/2.1` → `User-agent: googlebot` when its token is the agent's."""
    out = []
    for line in lines:
        f = field(line)
        if kind(line) == "agent" and token(f[1]) == agent.lower() and f[1].lower() != agent.lower():
            line = f"User-agent: {agent}"
        out.append(line)
    return out


def substring_agents(lines, agent, url):
    """Agent names other than `*` and the agent's token renamed to names no reader matches."""
    names: dict[str, str] = {}
    out = []
    for line in lines:
        f = field(line)
        if kind(line) == "agent" and f[1] != "*" and token(f[1]) != agent.lower():
            line = f"User-agent: zzunmatched{names.setdefault(f[1].lower(), str(len(names)))}"
        out.append(line)
    return out


def merge_groups(lines, agent, url):
    """The agent's groups (RFC 9309 §2.2.1 merges them) written as one, at the first."""
    gs = groups(lines)
    mine = own_groups(lines, agent)
    if len(mine) < 2:
        return lines
    moved = [i for n in mine[1:] for i in gs[n][1]]
    first_rules = gs[mine[0]][1]
    at = first_rules[-1] if first_rules else gs[mine[0]][0][-1]
    out = []
    for i, line in enumerate(lines):
        if i in moved:
            continue
        out.append(line)
        if i == at:
            out.extend(lines[j] for j in moved)
    return out


def first_match(lines, agent, url):
    """Each group's rules in RFC 9309's order of precedence: longest pattern first, `allow`
    first on a tie; a first-match reader then picks what the longest match picks."""
    out = list(lines)
    for _, rules in groups(lines):
        def key(i):
            k, v = field(lines[i])
            return (-len(v), k != "allow")

        for slot, i in zip(rules, sorted(rules, key=key)):
            out[slot] = lines[i]
    return out


def rfc_match(pattern: str, path: str) -> bool:
    """RFC 9309 §2.2.3 matching of a pattern against a path (and query), as written."""
    end = pattern.endswith("$")
    body = pattern[:-1] if end else pattern
    rx = ".*".join(re.escape(part) for part in body.split("*"))
    return re.match(rx + ("$" if end else ""), path, re.S) is not None


def literal(lines, url, pred):
    """Rules for which `pred(pattern)` holds: those that match the URL's path (and query)
    written as that path, a plain prefix that any reader applies alike; the others dropped."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    out = []
    for line in lines:
        if kind(line) == "rule" and pred(field(line)[1]):
            k, v = field(line)
            if not rfc_match(v, path):
                continue
            line = f"{'Allow' if k == 'allow' else 'Disallow'}: {path}"
        out.append(line)
    return out


def query_mark(lines, agent, url):
    """Rules whose pattern ends in `?` (`Disallow: /?`), which urllib reads without it."""
    return literal(lines, url, lambda v: v.endswith("?"))


def wildcards(lines, agent, url):
    return literal(lines, url, lambda v: re.search(r"[*$]", v) is not None)


def index_html(lines, agent, url):
    return drop(lines, lambda line: kind(line) == "rule" and field(line)[0] == "allow"
                and field(line)[1].endswith("/index.html"))


def encoding(lines, agent, url):
    return literal(lines, url, lambda v: "%" in v or not v.isascii())


# (name, rewrite, a minimal file, its agent and URL, the peers it shows)
CAUSES = [
    ("a blank line ends a group", blank_lines,
     "User-agent: *\n\nDisallow: /\n", "SomeBot", "https://x/", {"urllib"}),
    ("groups split by `Sitemap:`", sitemap_lines,
     "User-agent: a\nSitemap: https://x/s.xml\nUser-agent: SomeBot\nDisallow: /\n", "a",
     "https://x/", set()),
    ("groups split by another non-group line (`Crawl-delay`, `Host`, …)", other_records,
     "User-agent: a\nCrawl-delay: 5\nUser-agent: SomeBot\nDisallow: /\n", "a", "https://x/",
     {"urllib", "protego"}),
    ("agent named with more than its token (`Googlebot/2.1`, `GPTBot 1.0`)", agent_value,
     "User-agent: googlebot/2.1\nDisallow: /\n", "googlebot", "https://x/", {"urllib", "protego"}),
    ("substring agent matching (`google` taken for `googlebot`)", substring_agents,
     "User-agent: google\nDisallow: /\n", "googlebot", "https://x/", {"urllib", "protego"}),
    ("groups of one agent not merged", merge_groups,
     "User-agent: *\nDisallow: /a\n\nUser-agent: zz\nDisallow: /\n\nUser-agent: *\nDisallow: /c\n",
     "SomeBot", "https://x/c", {"urllib"}),
    ("first-match order (not the longest match)", first_match,
     "User-agent: *\nDisallow: /\nAllow: /public\n", "SomeBot", "https://x/public",
     {"urllib"}),
    ("`/?` handling (`Disallow: /?` read as `Disallow: /`)", query_mark,
     "User-agent: *\nDisallow: /?\n", "SomeBot", "https://x/page", {"urllib"}),
    ("`*` and `$` read literally", wildcards,
     "User-agent: *\nDisallow: /*.pdf$\n", "SomeBot", "https://x/a.pdf", {"urllib"}),
    ("`Allow: /dir/index.html` taken to allow `/dir/`", index_html,
     "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", "SomeBot", "https://x/d/",
     {"protego"}),
    ("percent-encoding or non-ASCII in a rule", encoding,
     "User-agent: *\nDisallow: /%7Euser\n", "SomeBot", "https://x/~user", set()),
]


SHORT = {
    CAUSES[0][0]: "blank line",
    CAUSES[1][0]: "Sitemap",
    CAUSES[2][0]: "non-group line",
    CAUSES[3][0]: "agent value",
    CAUSES[4][0]: "substring agent",
    CAUSES[5][0]: "groups not merged",
    CAUSES[6][0]: "first match",
    CAUSES[7][0]: "`/?`",
    CAUSES[8][0]: "wildcards",
    CAUSES[9][0]: "index.html",
    CAUSES[10][0]: "encoding",
}


# --- the readers -------------------------------------------------------------------------------


def decode(body: bytes) -> str:
    return body.decode("utf-8", errors="ignore")


class Readers:
    """crawlgate, urllib and Protego on one text, each parsed once."""

    def __init__(self, text: str, body: bytes | None = None):
        self.crawlgate = Robots.parse(body if body is not None else text.encode(), mode="rfc")
        self.protego = Protego.parse(text)
        self.urllib = urllib.robotparser.RobotFileParser()
        self.urllib.parse(text.splitlines())

    def verdict(self, who: str, agent: str, url: str) -> bool:
        if who == "crawlgate":
            return bool(self.crawlgate.allowed(agent, url))
        if who == "protego":
            return self.protego.can_fetch(url, agent)
        return self.urllib.can_fetch(agent, url)


def check_examples() -> list[str]:
    """Each cause's minimal file disagrees with the peers it names and agrees once
    rewritten; returns the failures."""
    failures = []
    for name, rewrite, text, agent, url, peers in CAUSES:
        r = Readers(text)
        fixed = Readers("\n".join(rewrite(split(text), agent, url)))
        for peer in peers:
            cg = r.verdict("crawlgate", agent, url)
            if r.verdict(peer, agent, url) == cg:
                failures.append(f"{name}: {peer} agrees on the minimal file")
            elif fixed.verdict(peer, agent, url) != fixed.verdict("crawlgate", agent, url):
                failures.append(f"{name}: {peer} still disagrees once rewritten")
    return failures


def load(corpus: Path):
    robot_dir, link_dir = corpus / "robotfiles", corpus / "links"
    if not robot_dir.is_dir():
        sys.exit(f"robots-bench corpus not found at {corpus}")
    for p in sorted(robot_dir.iterdir()):
        urls = [f"https://{p.name}/"]
        links = link_dir / p.name
        if links.is_file():
            urls += [u.strip() for u in links.read_text("utf-8", errors="replace").splitlines()
                     if u.strip()]
        yield p.name, p.read_bytes(), urls


def attribute(name, body, text, agent, url, peer, cg, cache, several) -> str:
    """The cause of one disagreement (see the module's doc)."""
    lines = split(text)
    for cause, rewrite, *_ in CAUSES:
        # Only the rewrites by `literal` depend on the URL.
        key = (cause, agent, url if rewrite in (query_mark, wildcards, encoding) else None)
        if key not in cache:
            new = rewrite(lines, agent, url)
            cache[key] = Readers("\n".join(new)) if new != lines else None
        r = cache[key]
        if r is None:
            continue
        if r.verdict("crawlgate", agent, url) == cg and r.verdict(peer, agent, url) == cg:
            return cause

    def resolved_without(left_out: str | None) -> bool:
        new = lines
        for cause, rewrite, *_ in CAUSES:
            if cause != left_out:
                new = rewrite(new, agent, url)
        r = Readers("\n".join(new))
        return r.verdict("crawlgate", agent, url) == cg and r.verdict(peer, agent, url) == cg

    if resolved_without(None):
        # The causes it needs: those without whose rewrite it is no longer resolved.
        needed = [c[0] for c in CAUSES if not resolved_without(c[0])]
        label = " + ".join(SHORT[c] for c in needed)
        several[peer][label + (" + another" if len(needed) == 1 else "") if needed else "any two"] += 1
        return "several together"
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=os.environ.get(
        "CRAWLGATE_BENCH_CORPUS", str(ROOT.parent / "shared" / "corpus" / "robots-bench")))
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()

    failures = check_examples()
    if failures:
        sys.exit("minimal examples that do not show their cause:\n  " + "\n  ".join(failures))

    peers = ("urllib", "protego")
    counts = {p: Counter() for p in peers}
    files = {p: defaultdict(set) for p in peers}
    example: dict[tuple[str, str], tuple] = {}
    # (file, crawlgate's deciding rule) of the disagreements no cause resolves.
    others = {p: Counter() for p in peers}
    several = {p: Counter() for p in peers}
    direction = {p: Counter() for p in peers}
    n_files = n_checks = 0
    any_file = {p: set() for p in peers}
    for name, body, urls in load(Path(args.corpus)):
        n_files += 1
        text = decode(body)
        r = Readers(text, body)
        cache: dict = {}
        for agent in AGENTS:
            for url in urls:
                if not urlsplit(url).scheme:
                    continue
                n_checks += 1
                cg = r.verdict("crawlgate", agent, url)
                for peer in peers:
                    if r.verdict(peer, agent, url) == cg:
                        continue
                    cause = attribute(name, body, text, agent, url, peer, cg, cache, several)
                    counts[peer][cause] += 1
                    files[peer][cause].add(name)
                    any_file[peer].add(name)
                    direction[peer]["crawlgate allows" if cg else "crawlgate blocks"] += 1
                    example.setdefault((peer, cause), (name, agent, url, cg))
                    if cause == "other":
                        d = r.crawlgate.check(agent, url)
                        others[peer][(name, d.rule.text if d.rule else d.reason)] += 1

    names = [c[0] for c in CAUSES] + ["several together", "other"]
    minimal = {c[0]: (c[2], c[3], c[4]) for c in CAUSES}
    pyver = sys.version.split()[0]
    head = (f"{n_files} files, {n_checks:,} checks (URL × agent; agents {', '.join(AGENTS)}); "
            f"Python {pyver} (urllib.robotparser), Protego {version('protego')}, "
            f"crawlgate {version('crawlgate')}")
    total = {p: sum(counts[p].values()) for p in peers}
    if args.markdown:
        print(head + "\n")
        print("| cause | urllib.robotparser: checks | files | Protego: checks | files | minimal file (agent, URL) |")
        print("|---|---|---|---|---|---|")
        for c in names:
            cells = []
            for p in peers:
                k = counts[p][c]
                f = len(files[p][c])
                cells += [f"{k:,}" if k else "0", f"{f} ({100 * f / n_files:.1f} %)" if f else "0"]
            m = minimal.get(c)
            ex = (f"`{m[0].strip()}` ({m[1]}, `{urlsplit(m[2]).path}`)".replace("\n", "⏎")
                  if m else "")
            print(f"| {c} | {' | '.join(cells)} | {ex} |")
        cells = []
        for p in peers:
            cells += [f"**{total[p]:,}** ({100 * total[p] / n_checks:.2f} %)",
                      f"**{len(any_file[p])}** ({100 * len(any_file[p]) / n_files:.1f} %)"]
        print(f"| all | {' | '.join(cells)} | |")
        print()
        for p in peers:
            print(f"{p}: {dict(direction[p])}; several together: {dict(several[p])}")
            for c in names:
                if (p, c) in example:
                    e = example[(p, c)]
                    print(f"  {c}: {e[0]} {e[1]} {e[2]} (crawlgate {'allows' if e[3] else 'blocks'})")
            for (f, rule), k in others[p].most_common():
                print(f"  other: {f}, crawlgate's deciding line `{rule}`: {k}")
        return
    print(head)
    for p in peers:
        print(f"\n{p}: {total[p]:,} disagreements ({100 * total[p] / n_checks:.2f} %) on "
              f"{len(any_file[p])} files; {dict(direction[p])}")
        for c in names:
            if counts[p][c]:
                e = example[(p, c)]
                print(f"  {counts[p][c]:>7,} on {len(files[p][c]):>4} files  {c}"
                      f"   e.g. {e[0]} {e[1]} {e[2]}")
        if several[p]:
            print(f"    several together: {dict(several[p])}")
        for (f, rule), k in others[p].most_common():
            print(f"    other: {f}, crawlgate's deciding line `{rule}`: {k}")


if __name__ == "__main__":
    main()
