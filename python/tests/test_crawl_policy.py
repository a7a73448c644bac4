"""``RobotsCache.crawl_policy``: the whole crawl policy of a URL (robots.txt, the edge, TDMRep, the
page's directives and the warnings) against local HTTP sites, as the engine answers it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from crawlgate import CrawlPolicy, RobotsCache
from sites import Site, text

AGENT = "TestBot/1.0 (+https://bot.example)"
NOINDEX = b'<html><head><meta name="robots" content="noindex, noai"></head><body>x</body></html>'


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture
def site():
    s = Site(
        "127.0.0.1",
        {
            "/robots.txt": text(200, b"User-agent: *\nDisallow: /private\n"),
            "/.well-known/tdmrep.json": text(
                200,
                b'[{"location": "/private", "tdm-reservation": 1, "tdm-policy": "https://e.example/p.json"}]',
                "application/json",
            ),
        },
    )
    yield s
    s.close()


def test_a_disallowed_page_that_says_noindex_is_the_noindex_unseen_trap(site):
    async def main() -> tuple[CrawlPolicy, CrawlPolicy, CrawlPolicy]:
        cache = RobotsCache(agent=AGENT)
        headers = {"Content-Type": "text/html", "X-Robots-Tag": "noarchive"}
        trapped = await cache.crawl_policy(site.url("/private/a"), 200, headers, NOINDEX)
        fine = await cache.crawl_policy(site.url("/public"), 200, headers, NOINDEX)
        bare = await cache.crawl_policy(site.url("/private/a"))
        return trapped, fine, bare

    trapped, fine, bare = run(main())
    assert not trapped and trapped.allowed is False
    assert (trapped.url, trapped.agent, trapped.verdict) == (site.url("/private/a"), "testbot", "rules")
    assert (trapped.robots.rule, trapped.robots.line) == ("Disallow: /private", 2)
    assert trapped.edge is None
    assert [w.code for w in trapped.warnings] == ["noindex-unseen"]
    assert "never see" in trapped.warnings[0].message
    page = trapped.page
    assert page is not None and trapped.page_status == 200
    assert (page.index, page.archive, page.noai) == (False, False, True)
    assert [(s.kind, s.raw) for s in page.sources] == [("header", "noarchive"), ("meta", "noindex"), ("meta", "noai")]
    # The well-known file's rule for /private, fetched once for the origin.
    t = trapped.tdm
    assert (t.reservation, t.source, t.policy, t.rule, t.location) == (
        "reserved", "file", "https://e.example/p.json", 1, "/private")
    assert t.file == site.url("/.well-known/tdmrep.json") and t.file_error is None
    assert site.paths().count("/.well-known/tdmrep.json") == 1
    # Allowed: the page's noindex is seen, nothing to warn of.
    assert fine and fine.warnings == [] and fine.tdm.reservation == "unset"
    # No page given: no page part, no warning.
    assert bare.page is None and bare.page_status is None and bare.warnings == []


def test_the_pages_own_tdm_field_supersedes_the_file(site):
    async def main() -> CrawlPolicy:
        cache = RobotsCache(agent=AGENT)
        return await cache.crawl_policy(site.url("/private/b"), 200, [("tdm-reservation", b"0")], None)

    p = run(main())
    assert (p.tdm.reservation, p.tdm.source, p.tdm.policy) == ("not-reserved", "header", None)
    assert p.tdm.file_reservation == "reserved"
    assert p.page is not None and p.page.tdm_reservation is False


def policy_of_a_site_whose_robots_txt_is(route: Any) -> CrawlPolicy:
    s = Site("127.0.0.1", {"/robots.txt": route})
    try:
        async def main() -> CrawlPolicy:
            return await RobotsCache(agent=AGENT).crawl_policy(s.url("/a"))

        return run(main())
    finally:
        s.close()


def test_a_402_robots_txt_is_the_payment_required_edge_with_its_price():
    p = policy_of_a_site_whose_robots_txt_is((402, b"", {"crawler-price": "USD 0.01"}))
    assert not p and p.robots.reason == "payment-required"
    assert p.verdict == "disallow-all"
    edge = p.edge
    assert edge is not None
    assert (edge.kind, edge.status, edge.price, edge.marker) == (
        "payment-required", 402, [("crawler-price", "USD 0.01")], None)


def test_a_challenged_robots_txt_is_the_challenge_edge():
    p = policy_of_a_site_whose_robots_txt_is(
        (403, b"<html>Just a moment</html>", {"cf-mitigated": "challenge", "Content-Type": "text/html"}))
    assert not p and p.edge is not None
    assert (p.edge.kind, p.edge.status, p.edge.marker) == ("challenge", 403, "cf-mitigated: challenge")


def test_bad_arguments_raise():
    cache = RobotsCache(agent=AGENT)

    async def ask(*args: Any) -> CrawlPolicy:
        return await cache.crawl_policy(*args)

    with pytest.raises(ValueError):
        run(ask("https://e.example/a", None, {"X-Robots-Tag": "noindex"}))
    with pytest.raises(ValueError):
        run(ask("https://e.example/a", 99999))
    with pytest.raises(ValueError):
        run(ask("not a url"))
    with pytest.raises(TypeError):
        run(ask("https://e.example/a", 200, [("x-robots-tag", 1)]))
