"""crawlgate.scrapy.RobotParser held to what Scrapy asks of every ``ROBOTSTXT_PARSER`` backend.

Scrapy's own suite runs one set of cases on each backend (its stdlib and Protego backends pass
them in Scrapy's CI). These are those cases, written here, built as Scrapy's middleware builds a
backend (``build_from_crawler`` with the body), with no crawler: RFC mode. Scrapy has one more,
order-based precedence, which asks the opposite of the length case (the first matching rule
wins); crawlgate follows RFC 9309's longest match, so, as for Protego, it is not asked here.
"""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.settings import Settings
from scrapy.utils.misc import build_from_crawler

from crawlgate.scrapy import RobotParser


def backend(body: bytes, crawler: Any = None) -> RobotParser:
    parser = build_from_crawler(RobotParser, crawler, body)
    assert isinstance(parser, RobotParser)
    return parser


SITE = "https://shop.example"


def test_star_group_allows_and_disallows() -> None:
    p = backend(b"User-agent: * \nDisallow: /private \nAllow: /public \nCrawl-delay: 5")
    assert p.allowed(f"{SITE}/public", "*")
    assert not p.allowed(f"{SITE}/private", "*")


def test_wildcards_and_end_anchors() -> None:
    p = backend(
        b"""User-agent: alpha
            Disallow: /cart/*/checkout$

            User-agent: beta
            Allow: /*open
            Disallow: /
            """
    )
    assert p.allowed(f"{SITE}/cart", "alpha")
    assert not p.allowed(f"{SITE}/cart/42/checkout", "alpha")
    assert not p.allowed(f"{SITE}/cart/x/checkout", "alpha")
    assert p.allowed(f"{SITE}/cart/42/checkout-later", "alpha")  # `$`: the path must end there
    assert p.allowed(f"{SITE}/open", "beta")
    assert p.allowed(f"{SITE}/still_open", "beta")
    assert p.allowed(f"{SITE}/is_open_too", "beta")
    assert not p.allowed(f"{SITE}/closed", "beta")


def test_the_longer_rule_wins_whatever_the_order() -> None:
    p = backend(b"User-agent: * \nDisallow: / \nAllow: /catalogue")
    assert p.allowed(f"{SITE}/catalogue", "*")
    assert not p.allowed(f"{SITE}/basket", "*")


@pytest.mark.parametrize("body", [b"", b"GIF89a\xd3\x00\xfe\x00\xa2"], ids=["empty", "garbage"])
def test_empty_or_garbage_body_allows_everything(body: bytes) -> None:
    p = backend(body)
    for agent in ("*", "firefox"):
        for path in ("/", "/index.html", "/private"):
            assert p.allowed(f"{SITE}{path}", agent), (agent, path)


def test_crawl_delay() -> None:
    p = backend(b"User-agent: *\nDisallow: /private\nCrawl-delay: 7\n")
    assert p.crawl_delay("*") == 7.0


def test_no_crawl_delay_is_none() -> None:
    p = backend(b"User-agent: *\nDisallow: /private\n")
    assert p.crawl_delay("*") is None


UNICODE_BODY = """
    User-Agent: *
    Disallow: /admin/
    Disallow: /assets/
    # the same path twice: percent-encoded and raw
    Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
    Disallow: /wiki/Käyttäjä:

    User-Agent: UnicödeBöt
    Disallow: /only/for/bots.html""".encode()


def test_unicode_paths_and_a_crawler_named_beyond_the_token_alphabet() -> None:
    p = backend(UNICODE_BODY)
    assert p.allowed(f"{SITE}/", "*")
    assert not p.allowed(f"{SITE}/admin/", "*")
    assert not p.allowed(f"{SITE}/assets/", "*")
    assert not p.allowed(f"{SITE}/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*")
    assert not p.allowed(f"{SITE}/wiki/Käyttäjä:", "*")
    assert p.allowed(f"{SITE}/only/for/bots.html", "*")
    # The crawler named exactly, outside RFC 9309's token alphabet, gets its own group,
    # whatever the case, as str or as bytes.
    for name in ("UnicödeBöt", "UNICÖDEBÖT", "UnicödeBöt".encode()):
        assert p.allowed(f"{SITE}/admin/", name), name
        assert not p.allowed(f"{SITE}/only/for/bots.html", name), name
    # The group line still gets its warning.
    codes = [(d.line, d.code) for d in p.robots.diagnostics]
    assert (9, "agent-not-token") in codes, codes


def test_google_mode_keeps_googles_reading_of_the_crawler_name() -> None:
    class Crawler:
        settings = Settings({"CRAWLGATE_MODE": "google"})
        spider = None

    p = backend(UNICODE_BODY, Crawler())
    assert p.robots.mode == "google"
    # google/robotstxt reads the group as `Unic` and compares the whole name: the `*` group.
    assert not p.allowed(f"{SITE}/admin/", "UnicödeBöt")
    assert p.allowed(f"{SITE}/only/for/bots.html", "UnicödeBöt")
