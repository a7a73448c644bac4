"""crawlgate beside Protego on the robots-bench corpus.

    python bench/bench_vs_protego.py [CORPUS_DIR] [--rounds N]

The corpus (``../shared/corpus/robots-bench`` relative to the repository root, or
``$CRAWLGATE_BENCH_CORPUS``) has ``robotfiles/NAME`` (robots.txt bodies) and ``links/NAME``
(URLs, one per line), as ``benches/common/mod.rs`` reads them. Standard workload:

- parse: every file of ``robotfiles/``, as bytes (Protego takes str: the bytes are decoded as
  Scrapy's ProtegoRobotParser does, UTF-8 with errors ignored, outside the timing); crawlgate
  also with ``diagnostics=False``;
- check: every URL of ``links/NAME`` against ``robotfiles/NAME`` for every NAME that has both,
  as ``googlebot``, each file parsed once.

Prints files/s, MB/s, checks/s (best of N rounds) for both, and the verdicts on which they
disagree, with examples. Only for measuring: the tests never need the corpus.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

from protego import Protego

from crawlgate import ProductToken, Robots

AGENT = "googlebot"
ROOT = Path(__file__).resolve().parents[2]


def load(corpus: Path):
    robot_dir, link_dir = corpus / "robotfiles", corpus / "links"
    if not robot_dir.is_dir() or not link_dir.is_dir():
        sys.exit(f"robots-bench corpus not found at {corpus} (robotfiles/ and links/ expected)")
    files = [(p.name, p.read_bytes()) for p in sorted(robot_dir.iterdir()) if p.is_file()]
    sites = []
    for name, body in files:
        links = link_dir / name
        if links.is_file():
            urls = [line.strip() for line in links.read_text(encoding="utf-8", errors="replace").splitlines()]
            sites.append((name, body, [u for u in urls if u]))
    return files, sites


def best(rounds: int, fn) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=os.environ.get(
        "CRAWLGATE_BENCH_CORPUS", str(ROOT.parent / "shared" / "corpus" / "robots-bench")))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mode", default="rfc", choices=["rfc", "google"])
    args = ap.parse_args()
    files, sites = load(Path(args.corpus))
    total_bytes = sum(len(b) for _, b in files)
    n_urls = sum(len(u) for _, _, u in sites)
    texts = [b.decode("utf-8", errors="ignore") for _, b in files]
    print(f"corpus: {len(files)} files, {total_bytes / 1e6:.2f} MB; {len(sites)} sites, {n_urls} URLs; "
          f"mode={args.mode}; best of {args.rounds} rounds")

    mode = args.mode
    t_cg = best(args.rounds, lambda: [Robots.parse(b, mode=mode) for _, b in files])
    t_cgq = best(args.rounds, lambda: [Robots.parse(b, mode=mode, diagnostics=False) for _, b in files])
    t_pr = best(args.rounds, lambda: [Protego.parse(t) for t in texts])

    cg_parsed = [(Robots.parse(b, mode=mode), urls) for _, b, urls in sites]
    pr_parsed = [(Protego.parse(b.decode("utf-8", errors="ignore")), urls) for _, b, urls in sites]
    token = ProductToken(AGENT)

    def check_cg():
        for r, urls in cg_parsed:
            allowed = r.allowed
            for u in urls:
                allowed(token, u)

    def check_cg_rules_for():
        for r, urls in cg_parsed:
            allowed = r.rules_for(token).allowed
            for u in urls:
                allowed(u)

    def check_pr():
        for p, urls in pr_parsed:
            can = p.can_fetch
            for u in urls:
                can(u, AGENT)

    c_cg = best(args.rounds, check_cg)
    c_cg2 = best(args.rounds, check_cg_rules_for)
    c_pr = best(args.rounds, check_pr)

    row = "{:<34} {:>12} {:>10} {:>14}"
    print(row.format("", "files/s", "MB/s", "checks/s"))
    print(row.format("crawlgate Robots.parse/allowed", f"{len(files) / t_cg:,.0f}",
                     f"{total_bytes / t_cg / 1e6:.1f}", f"{n_urls / c_cg:,.0f}"))
    print(row.format("crawlgate rules_for(agent).allowed", "", "", f"{n_urls / c_cg2:,.0f}"))
    print(row.format("crawlgate parse, diagnostics=False", f"{len(files) / t_cgq:,.0f}",
                     f"{total_bytes / t_cgq / 1e6:.1f}", ""))
    print(row.format("Protego parse/can_fetch", f"{len(files) / t_pr:,.0f}",
                     f"{total_bytes / t_pr / 1e6:.1f}", f"{n_urls / c_pr:,.0f}"))
    print(f"parse: crawlgate {t_pr / t_cg:.1f}x Protego ({t_pr / t_cgq:.1f}x without diagnostics); check: {c_pr / c_cg:.1f}x "
          f"({c_pr / c_cg2:.1f}x with rules_for)")

    # Disagreements.
    disagree = []
    per_site: Counter[str] = Counter()
    for (name, _, urls), (r, _), (p, _) in zip(sites, cg_parsed, pr_parsed):
        for u in urls:
            a, b = r.allowed(token, u), p.can_fetch(u, AGENT)
            if a != b:
                per_site[name] += 1
                disagree.append((name, u, a, b))
    print(f"\nverdict disagreements: {len(disagree)} of {n_urls} URLs "
          f"({100 * len(disagree) / max(n_urls, 1):.2f}%) on {len(per_site)} sites")
    print("crawlgate allows, Protego blocks:", sum(1 for d in disagree if d[2]),
          "| crawlgate blocks, Protego allows:", sum(1 for d in disagree if not d[2]))
    print("sites with most:", ", ".join(f"{n} ({c})" for n, c in per_site.most_common(8)))
    shown: set[str] = set()
    for name, u, a, b in disagree:
        if name in shown or len(shown) >= 8:
            continue
        shown.add(name)
        r = next(r for (n, _, _), (r, _) in zip(sites, cg_parsed) if n == name)
        d = r.check(token, u)
        why = f"line {d.line}: {d.rule.text!r}" if d.rule else d.reason
        print(f"  {name}: {u[:100]}\n    crawlgate {'allow' if a else 'block'} ({why}); "
              f"Protego {'allow' if b else 'block'}")


if __name__ == "__main__":
    main()
