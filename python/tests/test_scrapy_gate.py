"""Real Scrapy crawls (Scrapy from PyPI, each in its own process) through
``crawlgate.scrapy.GateMiddleware``: requests to one local site spaced by its ``Crawl-delay``
across two processes sharing a real ``redis-server``, and a 429's ``Retry-After`` holding the
next request. What is asserted is what the server received, and when."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("scrapy", reason="Scrapy is installed by scripts/python-test.sh")

from redis_server import RedisServer  # noqa: E402
from sites import Site, text  # noqa: E402

HERE = Path(__file__).resolve().parent
GATE = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "crawlgate.scrapy.GateMiddleware": 950,
}
# The spacing asked for, and how much earlier than it a request may reach the server: the
# slot is kept by the engine, then the request goes through Scrapy's downloader, whose time
# from permit to socket varies (by tens of milliseconds on a busy machine). A third of the
# spacing still tells a shared schedule from two of their own: two processes each spacing
# their own requests DELAY apart always put two requests at most DELAY / 2 apart somewhere.
DELAY = 0.3
TOLERANCE = DELAY / 3


def start(tmp: Path, name: str, groups: list[list[str]], settings: dict[str, Any],
          order: str = "all", barrier: dict[str, Any] | None = None) -> tuple[subprocess.Popen[str], Path]:
    config = tmp / f"{name}.json"
    stats_out = tmp / f"{name}-stats.json"
    config.write_text(json.dumps({
        "groups": groups, "order": order, "settings": {"DOWNLOADER_MIDDLEWARES": GATE, **settings},
        "stats_out": str(stats_out), "barrier": barrier,
    }))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    env.pop("CRAWLGATE_STATE", None)
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "crawl_spider.py"), str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp,
    )
    return proc, stats_out


def finish(proc: subprocess.Popen[str], stats_out: Path) -> dict[str, Any]:
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr[-4000:]
    stats: dict[str, Any] = json.loads(stats_out.read_text())
    assert stats.get("finish_reason") == "finished", (stats, stderr[-4000:])
    assert "Traceback" not in stderr, stderr[-4000:]
    return stats


@pytest.fixture
def redis():
    server = RedisServer()
    yield server
    server.close()


def test_two_scrapy_processes_on_one_redis_keep_the_crawl_delay(tmp_path, redis):
    site = Site("127.0.0.1", {"/robots.txt": text(200, f"User-agent: *\nCrawl-delay: {DELAY}\nDisallow: /private\n".encode())})
    try:
        barrier = {"dir": str(tmp_path), "parties": 2}
        # The floor is set below the crawl-delay, so that the site's 0.3 s is what spaces.
        settings = {"CRAWLGATE_STATE": redis.url, "CRAWLGATE_DEFAULT_DELAY": 0.05}
        runs = [
            start(tmp_path, name, [[site.url(f"/{name}{i}") for i in range(5)] + [site.url(f"/private/{name}")]],
                  settings, barrier=barrier)
            for name in ("a", "b")
        ]
        stats = [finish(*r) for r in runs]
    finally:
        site.close()
    log = site.page_log()
    paths = [p for p, _ in log]
    assert sorted(paths) == sorted([f"/{n}{i}" for n in "ab" for i in range(5)]), paths
    # The two processes ran at once: their requests interleave at the server.
    owners = [p[1] for p in paths]
    switches = sum(1 for x, y in zip(owners, owners[1:]) if x != y)
    assert switches >= 2, paths
    # Never two requests closer than the crawl-delay, whichever process sent them.
    times = [t for _, t in log]
    gaps = [y - x for x, y in zip(times, times[1:])]
    assert min(gaps) >= DELAY - TOLERANCE, [round(g, 3) for g in gaps]
    # One robots.txt fetch for the fleet (the other process waited for its result in Redis).
    assert site.paths().count("/robots.txt") == 1, site.paths()
    for s in stats:
        assert s["crawlgate/gate/permits"] == 5 and s["crawlgate/gate/disallowed"] == 1, s


def test_429_retry_after_holds_the_next_request(tmp_path):
    busy = (429, b"slow down", {"Content-Type": "text/plain", "Retry-After": "1"})
    site = Site("127.0.0.1", {
        "/robots.txt": text(200, b"User-agent: *\nCrawl-delay: 0.1\n"),
        "/busy": [busy, text(200, b"ok")],
    })
    try:
        stats = finish(*start(
            tmp_path, "busy", [[site.url(p) for p in ("/busy", "/p1", "/p2")]],
            {"CRAWLGATE_DEFAULT_DELAY": 0.05}, order="chain",
        ))
    finally:
        site.close()
    log = site.page_log()
    assert [p for p, _ in log] == ["/busy", "/busy", "/p1", "/p2"], log
    # Scrapy's RetryMiddleware sends /busy again at once; the gate holds it for Retry-After.
    (_, t429), (_, t_retry) = log[0], log[1]
    assert t_retry - t429 >= 1.0 - TOLERANCE, t_retry - t429  # without the gate: milliseconds
    # Then the crawl-delay again.
    assert log[2][1] - log[1][1] >= 0.1 - TOLERANCE
    assert stats["crawlgate/gate/backoffs"] == 1 and stats["crawlgate/gate/permits"] == 4
