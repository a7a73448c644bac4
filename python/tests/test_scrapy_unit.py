"""crawlgate.scrapy without a crawl: the RobotParser interface and the ladder/refresh schedule
of the middleware (OriginCache) with an injected clock."""

from __future__ import annotations

import pytest

from crawlgate.scrapy import OriginCache, RobotParser, agent_token

BODY = b"User-agent: scrapy\nDisallow: /private\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /\n"
UA = "Scrapy/2.13.0 (+https://scrapy.org)"


def test_robot_parser_interface_str_and_bytes():
    p = RobotParser.from_crawler(None, BODY)
    for url in ("https://e.com/private/x", b"https://e.com/private/x"):
        for ua in (UA, UA.encode(), "scrapy", b"Scrapy"):
            assert p.allowed(url, ua) is False
    assert p.allowed("https://e.com/public", UA) is True
    assert p.allowed(b"https://e.com/public", UA.encode()) is True
    assert p.allowed("https://e.com/public", "OtherBot/1.0") is False  # the * group
    assert p.crawl_delay(UA) == 3.0 and p.crawl_delay(b"scrapy") == 3.0
    assert p.crawl_delay("OtherBot") is None


def test_robot_parser_is_a_scrapy_robot_parser_and_reads_settings():
    from scrapy.robotstxt import RobotParser as Base
    from scrapy.settings import Settings

    class Crawler:
        settings = Settings({"CRAWLGATE_MODE": "google"})
        spider = None

    p = RobotParser.from_crawler(Crawler(), b"User-agent: *\nAllow: /dir/index.html\nDisallow: /dir/\n")
    assert p.robots.mode == "google" and p.allowed("https://e.com/dir/", UA)
    # Scrapy's middleware only calls from_crawler/allowed/crawl_delay; the ABC is satisfied.
    assert all(hasattr(p, m) for m in ("allowed", "crawl_delay")) and issubclass(Base, object)


def test_robot_parser_bad_bodies():
    assert RobotParser(b"").allowed("https://e.com/", UA)
    assert RobotParser(b"\xff\xfe\x00garbage\x80" * 1000).allowed("https://e.com/", UA)
    assert RobotParser(None).allowed("https://e.com/", UA)  # type: ignore[arg-type]
    big = b"User-agent: *\nDisallow: /x\n" + b"#" * (10 * 1024 * 1024)
    assert not RobotParser(big).allowed("https://e.com/x", UA)


def test_agent_token_falls_back_to_verbatim_for_browser_headers():
    assert agent_token(UA).value == "scrapy"
    browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120 Safari/537.36"
    assert agent_token(browser).value == browser.lower()
    assert agent_token(b"\xff\xfe").value  # undecodable bytes: replaced, no exception


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


HOUR = 3600.0


def test_origin_cache_ladder_with_injected_clock():
    clock = Clock(1_700_000_000.0)
    cache = OriginCache(clock=clock)
    key = "e.com"
    assert cache.due(key)
    cache.record_response(key, "https://e.com/robots.txt", 200, b"User-agent: *\nDisallow: /p\n")
    j = cache.judgement(key)
    assert j.verdict == "rules" and not j.allowed(UA, "/p") and j.allowed(UA, "/q")
    assert not cache.due(key)
    clock.t += 24 * HOUR
    assert cache.due(key)  # refreshed after 24 hours
    cache.record_response(key, "https://e.com/robots.txt", 503, b"<html>down</html>")
    assert cache.judgement(key).verdict == "disallow-all"
    clock.t += 11 * HOUR
    assert cache.judgement(key).verdict == "disallow-all"
    clock.t += 2 * HOUR
    j = cache.judgement(key)
    assert (j.verdict, j.reason) == ("rules", "last-good-version")
    assert not j.allowed(UA, "/p") and j.allowed(UA, "/q")
    clock.t += 30 * 24 * HOUR
    assert cache.judgement(key).verdict == "disallow-all"


def test_origin_cache_refresh_schedule():
    clock = Clock(1_000_000.0)
    cache = OriginCache(clock=clock, min_refresh=60, retry_after=600)
    cache.record_response("a", "u", 200, b"", cache_control=b"public, max-age=120")
    clock.t += 119
    assert not cache.due("a")
    clock.t += 1
    assert cache.due("a")
    cache.record_response("b", "u", 200, b"", cache_control=b"max-age=0")
    clock.t += 59
    assert not cache.due("b")  # never below min_refresh
    cache.record_failure("c", "u", "connection refused", "connect")
    assert cache.judgement("c").verdict == "disallow-all"
    clock.t += 599
    assert not cache.due("c")
    clock.t += 1
    assert cache.due("c")
    cache.record_response("d", "u", 404, b"<html>")
    assert cache.judgement("d").verdict == "allow-all"
    with pytest.raises(ValueError):
        OriginCache(mode="bing")


def test_gate_middleware_reads_the_politeness_key(monkeypatch):
    import scrapy.utils.reactor
    from scrapy.settings import Settings

    from crawlgate.scrapy import GateMiddleware

    # The reactor a crawl would run (the check only guards against another one).
    monkeypatch.setattr(scrapy.utils.reactor, "is_asyncio_reactor_installed", lambda: True)

    class Signals:
        def connect(self, *args: object, **kwargs: object) -> None:
            pass

    class Crawler:
        def __init__(self, settings: dict[str, object]) -> None:
            self.settings = Settings(settings)
            self.stats = None
            self.signals = Signals()
            self.spider = None

    assert GateMiddleware(Crawler({})).cache.key == "origin"  # type: ignore[arg-type]
    gate = GateMiddleware(Crawler({"CRAWLGATE_POLITENESS_KEY": "ip"}))  # type: ignore[arg-type]
    assert gate.cache.key == "ip"
    with pytest.raises(ValueError):
        GateMiddleware(Crawler({"CRAWLGATE_POLITENESS_KEY": "server"}))  # type: ignore[arg-type]
