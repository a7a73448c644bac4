"""Real Scrapy crawls (Scrapy from PyPI, in a subprocess) of local HTTP sites, with
``crawlgate.scrapy.RobotParser`` under Scrapy's own middleware and with
``crawlgate.scrapy.RobotsTxtMiddleware``. What is asserted is what the servers received."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("scrapy", reason="Scrapy is installed by scripts/python-test.sh")

from sites import Site, text  # noqa: E402

HERE = Path(__file__).resolve().parent
PAGES = ["/", "/page1", "/page2", "/private/a", "/private/b"]
# A non-UTF-8 byte (Latin-1 é) in a comment must not cost the file its rules. The default
# Scrapy User-Agent is "Scrapy/x.y (+https://scrapy.org)": its token is `scrapy`.
RULES = (
    b"# caf\xe9\nUser-agent: scrapy\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n"
)


def run_crawl(tmp_path: Path, groups: list[list[str]], settings: dict, order: str = "all") -> dict:
    config = tmp_path / "config.json"
    stats_out = tmp_path / "stats.json"
    config.write_text(json.dumps({"groups": groups, "order": order, "settings": settings, "stats_out": str(stats_out)}))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(HERE / "crawl_spider.py"), str(config)],
        capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    stats = json.loads(stats_out.read_text())
    assert stats.get("finish_reason") == "finished", (stats, proc.stderr[-4000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
    return stats


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.9", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def sites():
    made: list[Site] = []

    def make(host: str, robots) -> Site:
        routes = {"/robots.txt": robots} if robots else {}
        site = Site(host, routes)
        made.append(site)
        return site

    yield make
    for s in made:
        s.close()


def urls(site: Site, paths=PAGES) -> list[str]:
    return [site.url(p) for p in paths]


MIDDLEWARES = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "crawlgate.scrapy.RobotsTxtMiddleware": 100,
}


def test_middleware_crawl(tmp_path, sites):
    rules = sites("127.0.0.1", text(200, RULES))
    down = sites("127.0.0.2", text(503, b"<html><body>Service unavailable</body></html>", "text/html"))
    missing = sites("127.0.0.3", text(404, b"<html><body>Not found</body></html>", "text/html"))
    slow = sites("127.0.0.4", text(200, b"User-agent: *\nCrawl-delay: 1\n"))
    unreachable = f"http://127.0.0.9:{closed_port()}"
    slow_pages = ["/s1", "/s2", "/s3", "/s4"]
    stats = run_crawl(
        tmp_path,
        [urls(rules), urls(down), urls(missing), urls(slow, slow_pages),
         [unreachable + "/", unreachable + "/x"]],
        # The engine's spacing floor (1 s by default), lowered to keep the test short.
        {"DOWNLOADER_MIDDLEWARES": MIDDLEWARES, "CRAWLGATE_DEFAULT_DELAY": 0.3},
    )
    # Disallowed pages are not requested; the others are.
    assert set(rules.paths()) == {"/robots.txt", "/", "/page1", "/page2"}
    # 503: robots.txt only (the ladder stops the site for 12 hours).
    assert set(down.paths()) == {"/robots.txt"}
    # 404: everything, /private included, spaced by the floor (no crawl-delay there).
    assert set(missing.paths()) == {"/robots.txt", *PAGES}
    times = sorted(missing.page_times())
    assert min(b - a for a, b in zip(times, times[1:])) >= 0.25
    # crawl-delay: 1 s between requests, measured at the server.
    times = sorted(slow.page_times())
    assert len(times) == len(slow_pages)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 0.8, gaps
    # Each robots.txt fetched once (no refresh in so short a crawl); the unreachable origin is
    # stopped by the ladder.
    assert rules.paths().count("/robots.txt") == 1
    assert stats["crawlgate/forbidden_by_ladder"] == 7  # 5 pages of the 503 site, 2 unreachable
    assert stats["robotstxt/forbidden"] == 9  # and 2 by rules


def test_middleware_refreshes_robots_txt_in_long_crawls(tmp_path, sites):
    site = sites("127.0.0.1", (200, b"User-agent: *\nCrawl-delay: 0.5\n", {"Cache-Control": "max-age=1"}))
    pages = [f"/p{i}" for i in range(8)]
    # Chained: each page is requested after the one before, as a crawl that follows links
    # (requests already queued in the download slot passed the middleware earlier).
    run_crawl(
        tmp_path,
        [urls(site, pages)],
        # The floor below the crawl-delay: the site's 0.5 s spaces (1 s by default).
        {"DOWNLOADER_MIDDLEWARES": MIDDLEWARES, "CRAWLGATE_MIN_REFRESH": 0, "CRAWLGATE_DEFAULT_DELAY": 0.1},
        order="chain",
    )
    paths = site.paths()
    assert sorted(p for p in paths if p != "/robots.txt") == sorted(pages)
    # ~3.5 s of crawling with max-age=1: fetched again at least twice.
    assert paths.count("/robots.txt") >= 3, paths


def test_robot_parser_under_scrapys_middleware(tmp_path, sites):
    rules = sites("127.0.0.1", text(200, RULES))
    down = sites("127.0.0.2", text(503, b"<html><body>Service unavailable</body></html>", "text/html"))
    missing = sites("127.0.0.3", text(404, b"<html><body>Not found</body></html>", "text/html"))
    stats = run_crawl(
        tmp_path,
        [urls(rules), urls(down), urls(missing)],
        {"ROBOTSTXT_PARSER": "crawlgate.scrapy.RobotParser"},
        # The home page first, the rest from its callback. (Requested all at once, Scrapy
        # 2.19's own middleware lets the requests that waited for robots.txt through unchecked
        # under the asyncio reactor: every waiter after the first gets None from the shared
        # Deferred. See README.md; crawlgate's middleware does not share that problem.)
        order="home-first",
    )
    assert set(rules.paths()) == {"/robots.txt", "/", "/page1", "/page2"}
    assert set(missing.paths()) == {"/robots.txt", *PAGES}
    # Scrapy's own middleware parses the 503 page as robots.txt: no rules, so the site is
    # crawled. This is what crawlgate.scrapy.RobotsTxtMiddleware exists to change.
    assert set(down.paths()) == {"/robots.txt", *PAGES}
    assert stats["robotstxt/forbidden"] == 2


def page(body: str, headers: dict[str, str] | None = None) -> tuple[int, bytes, dict[str, str]]:
    return (200, body.encode(), {"Content-Type": "text/html; charset=utf-8", **(headers or {})})


def test_page_directives_middleware(tmp_path, sites):
    """A crawl that follows links: a `nofollow` page's links are not followed, items of
    `noindex` and AI-reserved pages are marked (or dropped), through headers and `<meta>`."""
    site = sites("127.0.0.1", text(200, b"User-agent: *\nAllow: /\n"))
    site.routes.update({
        "/": page('<a href="/nofollow">x</a> <a href="/noindex">y</a> <a href="/noai">z</a>'),
        "/nofollow": page('<head><meta name="robots" content="nofollow"></head><a href="/hidden">h</a>'),
        "/noindex": page('<a href="/leaf">l</a>', {"X-Robots-Tag": "scrapy: noindex"}),
        "/noai": page('<head><meta name="tdm-reservation" content="1"></head>'),
        "/leaf": page("<p>leaf</p>"),
        "/hidden": page("<p>never requested</p>"),
    })
    items_file = tmp_path / "items.jsonl"
    settings = {
        "DOWNLOADER_MIDDLEWARES": MIDDLEWARES,
        "SPIDER_MIDDLEWARES": {"crawlgate.scrapy.PageDirectivesMiddleware": 100},
        "FEEDS": {str(items_file): {"format": "jsonlines"}},
    }
    stats = run_crawl(tmp_path, [[site.url("/")]], settings, order="links")
    assert "/hidden" not in site.paths(), site.paths()
    assert set(site.paths()) == {"/robots.txt", "/", "/nofollow", "/noindex", "/noai", "/leaf"}
    assert stats["crawlgate/page/nofollow_dropped"] == 1
    items = {i["url"].rsplit("/", 1)[1]: i for i in map(json.loads, items_file.read_text().splitlines())}
    assert items["noindex"]["crawlgate_page"] == {"index": False, "follow": True, "ai_reserved": False}
    assert items["noai"]["crawlgate_page"] == {"index": True, "follow": True, "ai_reserved": True}
    assert "crawlgate_page" not in items["leaf"] and "crawlgate_page" not in items[""]
    # Dropping instead of marking.
    items_file.unlink()
    settings["CRAWLGATE_PAGE_NOINDEX"] = "drop"
    settings["CRAWLGATE_PAGE_NOAI"] = "drop"
    stats = run_crawl(tmp_path, [[site.url("/")]], settings, order="links")
    urls = {json.loads(line)["url"].rsplit("/", 1)[1] for line in items_file.read_text().splitlines()}
    assert urls == {"", "nofollow", "leaf"}
    assert stats["crawlgate/page/items_dropped"] == 2
