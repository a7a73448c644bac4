"""The engine's gate on asyncio: ``RobotsCache.check`` / ``acquire`` and ``Permit.record``
against local HTTP sites (robots.txt fetched by the engine), and ``Robots.spacing``: one spacing
rule with the Rust engine's defaults."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import crawlgate
from crawlgate import Disallowed, Permit, Robots, RobotsCache
from redis_server import RedisServer
from sites import Site, text

AGENT = "TestBot/1.0 (+https://bot.example)"
ROBOTS = b"User-agent: *\nDisallow: /private\nCrawl-delay: 0.2\nSitemap: https://e.example/s.xml\n"


@pytest.fixture
def site():
    s = Site("127.0.0.1", {"/robots.txt": text(200, ROBOTS)})
    yield s
    s.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def fetch(url: str) -> None:
    urllib.request.urlopen(url, timeout=5).read()


def test_defaults_are_the_engines():
    assert crawlgate.DEFAULT_DELAY == 1.0 and crawlgate.MAX_DELAY == 60.0
    cache = RobotsCache(agent=AGENT)
    assert (cache.agent, cache.default_delay, cache.max_delay, cache.max_concurrency) == ("testbot", 1.0, 60.0, 1)


def test_one_spacing_rule_with_the_engines_defaults():
    r = Robots.parse(b"User-agent: *\nCrawl-delay: 0.5\n")
    # A crawl-delay below the floor does not speed things up: the engine's 1 s default wins.
    s = r.spacing("bot")
    assert (s.delay, s.source, s.capped) == (1.0, "default", False)
    s = r.spacing("bot", default_delay=0.1)
    assert (s.delay, s.source) == (0.5, "crawl-delay")
    s = r.spacing("bot", default_delay=0)
    assert (s.delay, s.source) == (0.5, "crawl-delay")
    assert Robots.allow_all().spacing("bot").delay == crawlgate.DEFAULT_DELAY
    assert Robots.allow_all().spacing("bot", default_delay=0).delay == 0.0
    big = Robots.parse(b"User-agent: *\nCrawl-delay: 86400\n").spacing("bot")
    assert (big.delay, big.source, big.capped) == (60.0, "crawl-delay", True)
    assert Robots.parse(b"User-agent: *\nCrawl-delay: 86400\n").spacing("bot", max_delay=5).delay == 5.0
    rate = Robots.parse(b"User-agent: *\nCrawl-delay: 2\nRequest-rate: 3/10s\n").spacing("bot")
    assert (rate.delay, rate.source) == (3.334, "request-rate")
    # A rate applies inside its UTC window only (2026-11-23 07:00 UTC is inside, 12:00 not).
    windowed = Robots.parse(b"User-agent: *\nRequest-rate: 1/30s 0600-0800\n")
    assert windowed.spacing("bot", now=1_795_132_800 + 7 * 3600).delay == 30.0
    assert windowed.spacing("bot", now=1_795_132_800 + 12 * 3600).delay == 1.0
    with pytest.raises(ValueError):
        r.spacing("bot", default_delay=-1)
    with pytest.raises(ValueError):
        r.spacing("bot", max_delay=float("nan"))


def test_check_and_acquire(site):
    async def main() -> None:
        cache = RobotsCache(agent=AGENT, default_delay=0.05)
        a = await cache.check(site.url("/private/x"))
        assert not a and a.allowed is False
        assert (a.line, a.rule, a.kind, a.reason) == (2, "Disallow: /private", "disallow", "fetched")
        assert a.origin == site.url("") and a.crawl_delay == 0.2
        assert a.sitemaps == ["https://e.example/s.xml"]
        assert (await cache.check(site.url("/a"))).allowed

        first = await cache.acquire(site.url("/a"))
        assert isinstance(first, Permit) and first.active
        assert (first.spacing.delay, first.spacing.source) == (0.2, "crawl-delay")
        assert first.answer.allowed and first.origin == site.url("")
        fetch(site.url("/a"))
        served = await first.record(200)
        assert (served.kind, served.backoff, first.active) == ("served", None, False)
        with pytest.raises(RuntimeError):
            await first.record(200)
        second = await cache.acquire(site.url("/b"))
        assert second.waited > 0.1  # the crawl-delay after the first slot
        fetch(site.url("/b"))
        await second.record(200)

        with pytest.raises(Disallowed) as refused:
            await cache.acquire(site.url("/private/x"))
        assert refused.value.answer.line == 2 and refused.value.url == site.url("/private/x")
        assert "robots.txt disallows" in str(refused.value)
        with pytest.raises(ValueError):
            await cache.acquire("ftp://e.example/x")

    run(main())
    # robots.txt once; the pages spaced by the crawl-delay at the server.
    assert site.paths().count("/robots.txt") == 1
    (_, t1), (_, t2) = site.page_log()
    assert t2 - t1 >= 0.18, t2 - t1


def test_retry_after_holds_the_next_permit(site):
    async def main() -> tuple[float, float]:
        cache = RobotsCache(agent=AGENT, default_delay=0.05)
        p = await cache.acquire(site.url("/busy"))
        backed = await p.record(429, retry_after=b"1")  # the header's value, as Scrapy has it
        assert (backed.kind, backed.backoff) == ("backed-off", 1.0)
        nxt = await cache.acquire(site.url("/next"))
        waited = nxt.waited
        await nxt.record(200, retry_after="ignored")
        # Without Retry-After: the exponential backoff's first step (backoff_base).
        q = await cache.acquire(site.url("/again"))
        no_header = await q.record(503)
        assert no_header.kind == "backed-off"
        return waited, no_header.backoff or 0.0

    waited, base = run(main())
    assert waited >= 0.9, waited
    # GateOptions::default(): backoff_base 60 s, with ±10 % jitter.
    assert 54.0 <= base <= 66.0, base


def test_release_cancel_and_unreachable(site):
    async def main() -> None:
        cache = RobotsCache(agent=AGENT, default_delay=0.3)
        p = await cache.acquire(site.url("/a"))
        # Concurrency 1: a second permit waits for the first; cancelled, it gives up its place.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(cache.acquire(site.url("/b")), timeout=0.05)
        p.release()
        assert not p.active
        p.release()  # twice: nothing
        q = await asyncio.wait_for(cache.acquire(site.url("/c")), timeout=5)
        failed = await q.record_unreachable()
        assert failed.kind == "failed"

    run(main())


def test_bad_arguments():
    with pytest.raises(ValueError):
        RobotsCache(agent="My Bot")  # no product token
    with pytest.raises(ValueError):
        RobotsCache(agent=AGENT, default_delay=-1)
    with pytest.raises(ValueError):
        RobotsCache(agent=AGENT, max_concurrency=0)
    with pytest.raises(ValueError):
        RobotsCache("", agent=AGENT)
    with pytest.raises(TypeError):
        RobotsCache(42, agent=AGENT)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RobotsCache(agent=AGENT, user_agent="bad\nheader")

    async def main() -> None:
        cache = RobotsCache(agent=AGENT)
        with pytest.raises(ValueError):
            await cache.check("not a url")
        with pytest.raises(TypeError):
            await cache.check(3)  # type: ignore[arg-type]

    run(main())


def test_state_file_and_unreachable_redis(tmp_path: Path, site):
    async def main(path: Path) -> None:
        cache = RobotsCache(path, agent=AGENT)
        assert (await cache.check(site.url("/a"))).allowed
        await cache.flush()
        assert cache.store_status()["available"] is True

    run(main(tmp_path / "state.redb"))
    assert (tmp_path / "state.redb").stat().st_size > 0
    dead = RedisServer()
    url = dead.url
    dead.close()
    with pytest.raises(ConnectionError):
        RobotsCache(url, agent=AGENT)


def test_two_engines_on_one_redis_share_the_schedule(site):
    """Two engines (as two processes would) on one real redis-server: one spacing per origin."""
    redis = RedisServer()
    try:
        async def main() -> list[float]:
            a = RobotsCache(redis.url, agent=AGENT, default_delay=0.05)
            b = RobotsCache(redis.url, agent=AGENT, default_delay=0.05)

            async def one(cache: RobotsCache, path: str) -> None:
                p = await cache.acquire(site.url(path))
                await asyncio.to_thread(fetch, site.url(path))
                await p.record(200)

            await asyncio.gather(*(one(c, f"/{n}{i}") for i in range(3) for n, c in (("a", a), ("b", b))))
            return site.page_times()

        times = sorted(run(main()))
    finally:
        redis.close()
    gaps = [y - x for x, y in zip(times, times[1:])]
    # Two schedules of their own, each 0.2 s apart, would put two requests at most 0.1 s apart
    # somewhere; the margin below 0.2 s is for the way from permit to server (a thread's start,
    # a connect) on a busy machine.
    assert len(times) == 6 and min(gaps) >= 0.2 * 2 / 3, gaps


def test_two_host_names_of_one_server_are_spaced_as_one_under_the_ip_key(site):
    """``key="ip"``: ``localhost`` and ``127.0.0.1`` of one server share one schedule, measured
    at the server; under the default key (the origin) they would be two."""

    async def main() -> set[str]:
        cache = RobotsCache(agent=AGENT, default_delay=0, key="ip")
        assert cache.key == "ip"
        names = (f"http://localhost:{site.port}", f"http://127.0.0.1:{site.port}")
        keys: set[str] = set()

        async def crawl(base: str) -> None:
            for i in range(3):
                p = await cache.acquire(f"{base}/p{i}")
                keys.add(p.key)
                await asyncio.to_thread(fetch, f"{base}/p{i}")
                await p.record(200)

        await asyncio.gather(*(crawl(base) for base in names))
        return keys

    keys = run(main())
    assert keys == {"ip:127.0.0.1"}
    times = sorted(site.page_times())
    gaps = [y - x for x, y in zip(times, times[1:])]
    # The slots are 0.2 s apart (the site's Crawl-delay); the margin is the way from permit to
    # server, as above. Two schedules would put requests of the two names together.
    assert len(times) == 6 and min(gaps) >= 0.2 * 2 / 3, gaps
    assert RobotsCache(agent=AGENT).key == "origin"
    with pytest.raises(ValueError):
        RobotsCache(agent=AGENT, key="server")
