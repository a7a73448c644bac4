"""The core API: parse, check, rules_for, records, diagnostics, robots_txt_url, bad input."""

from __future__ import annotations

import sys
import threading
import time

import pytest

import crawlgate
from crawlgate import Decision, Diagnostic, ProductToken, Robots, robots_txt_url

BODY = b"""User-agent: *
Disallow: /private
Allow: /private/ok
Crawl-delay: 2.5
Request-rate: 1/10s

User-agent: BadBot
Disallow: /

User-agent: Slowbot
Crawl-delay: 7
Request-rate: 3/1m

Sitemap: https://example.com/sitemap.xml
Sitemap: https://example.com/news.xml
"""


@pytest.fixture
def robots() -> Robots:
    return Robots.parse(BODY)


def test_check_returns_the_deciding_line_and_rule(robots):
    d = robots.check("ExampleBot", "https://example.com/private/report.pdf")
    assert isinstance(d, Decision)
    assert d.allowed is False and not d
    assert d.line == 2
    assert d.rule is not None
    assert (d.rule.kind, d.rule.text, d.rule.pattern, d.rule.allow) == (
        "disallow",
        "Disallow: /private",
        "/private",
        False,
    )
    assert d.group == "star" and d.reason == "rule"

    ok = robots.check("ExampleBot", "/private/ok/x?y=1")
    assert ok.allowed and ok and ok.line == 3 and ok.rule.kind == "allow"

    none = robots.check("ExampleBot", "/public")
    assert none.allowed and none.reason == "no-matching-rule" and none.rule is None

    bad = robots.check("BadBot", "https://example.com/anything")
    assert not bad.allowed and bad.group == "token" and bad.line == 8


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/x/../private/a",
        "https://example.com/./private/a",
        "https://example.com/%2e/private/a",
        "https://example.com\\private\\a",
        "https://example.com/priv\tate/a",
        "/x/../private/a",
    ],
)
def test_urls_are_judged_as_a_client_requests_them(robots, url):
    # Scrapy and every HTTP client resolve the dot segments, read `\` as `/` and drop TAB:
    # these all request /private/a, so the rule for /private decides.
    d = robots.check("ExampleBot", url)
    assert d.allowed is False
    assert d.line == 2
    assert robots.rules_for("ExampleBot").allowed(url) is False


def test_robots_txt_is_always_allowed_in_rfc_mode():
    r = Robots.parse(b"User-agent: *\nDisallow: /\n")
    assert r.check("x", "/robots.txt").reason == "robots-txt"
    assert not Robots.parse(b"User-agent: *\nDisallow: /\n", mode="google").allowed("x", "/robots.txt")


def test_agents_str_bytes_header_and_token(robots):
    url = "https://example.com/"
    for agent in (
        "BadBot",
        b"BadBot",
        "badbot",
        "BadBot/1.0 (+https://bad.example)",
        b"Mozilla/5.0 (compatible; BadBot/2.1; +http://bad.example/bot)",
        ProductToken("BADBOT"),
        ProductToken.from_user_agent("BadBot/3"),
    ):
        assert robots.allowed(agent, url) is False, agent
    assert ProductToken("Googlebot-News").value == "googlebot-news"
    assert str(ProductToken.from_user_agent("MyBot/1.0 (+https://x)")) == "mybot"
    assert ProductToken.verbatim("Foo Bar").value == "foo bar"
    assert ProductToken("a") == ProductToken("A") and hash(ProductToken("a")) == hash(ProductToken("A"))


@pytest.mark.parametrize(
    "agent",
    ["", "My Bot", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120 Safari/537.36"],
)
def test_bad_agents_raise_value_error(robots, agent):
    with pytest.raises(ValueError):
        robots.check(agent, "/")
    with pytest.raises(ValueError):
        ProductToken(agent)


def test_wrong_types_raise_type_error(robots):
    for bad in (None, 3, 1.5, ["x"], object()):
        with pytest.raises(TypeError):
            robots.check(bad, "/")
        with pytest.raises(TypeError):
            robots.check("bot", bad)
        with pytest.raises(TypeError):
            Robots.parse(bad)


def test_non_utf8_agent_and_url_bytes_raise_value_error(robots):
    with pytest.raises(ValueError):
        robots.check(b"Bad\xffBot", "/")
    with pytest.raises(ValueError):
        robots.check("bot", b"/\xff")


def test_bad_mode_raises_value_error():
    with pytest.raises(ValueError, match="unknown mode"):
        Robots.parse(b"", mode="bing")
    assert Robots.parse(b"", mode="GOOGLE").mode == "google"


def test_rules_for(robots):
    rules = robots.rules_for("ExampleBot")
    assert rules.group == "star"
    assert [r.text for r in rules.rules] == ["Allow: /private/ok", "Disallow: /private"]
    assert len(rules) == 2
    assert rules.check("/private/x").line == 2
    assert rules.allowed("/private/ok")
    assert robots.rules_for("BadBot").group == "token"
    assert Robots.parse(b"User-agent: a\nDisallow: /\n").rules_for("b").group == "none"


def test_crawl_delay_request_rate_sitemaps_records(robots):
    assert robots.crawl_delay("ExampleBot") == 2.5
    assert robots.crawl_delay("Slowbot") == 7.0
    assert robots.crawl_delay("BadBot") is None
    rate = robots.request_rate("ExampleBot")
    assert (rate.requests, rate.seconds, rate.delay) == (1, 10.0, 10.0)
    rate = robots.request_rate("slowbot")
    assert (rate.requests, rate.seconds, rate.delay) == (3, 60.0, 20.0)
    assert robots.request_rate("BadBot") is None
    assert robots.sitemaps == ["https://example.com/sitemap.xml", "https://example.com/news.xml"]
    assert ("crawl-delay", "2.5", 4) in robots.records
    assert robots.rule_count == 3
    assert robots.bytes_used == len(BODY)
    assert "Disallow: /private" in robots.to_robots_txt()
    assert robots.heap_size > 0
    assert "Robots(" in repr(robots)


def test_diagnostics_have_code_severity_line_span():
    body = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: BadBot\nDisalow: /\n"
    diags = Robots.parse(body).diagnostics
    assert [(d.code, d.severity, d.line) for d in diags] == [
        ("ignored-directive", "warning", 2),
        ("agents-joined", "warning", 4),
        ("misspelled-key", "warning", 5),
    ]
    for d in diags:
        assert isinstance(d, Diagnostic)
        start, end = d.span
        assert 0 <= start <= end <= len(body)
        assert d.message and str(d).startswith(f"line {d.line}: {d.severity}[{d.code}]")


def test_parse_without_diagnostics_keeps_the_rules():
    body = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: BadBot\nDisalow: /\nAllow: /ok$\n"
    loud = Robots.parse(body)
    quiet = Robots.parse(body, diagnostics=False)
    assert loud.diagnostics and quiet.diagnostics == []
    assert quiet.to_robots_txt() == loud.to_robots_txt()
    assert quiet.heap_size == loud.heap_size
    for url in ("/", "/ok", "/ok/", "/x"):
        for agent in ("BadBot", "other"):
            assert quiet.allowed(agent, url) == loud.allowed(agent, url)
    assert not quiet.allowed("BadBot", "/x") and quiet.allowed("BadBot", "/ok")


def test_non_utf8_body():
    body = b"User-agent: *\nDisallow: /caf\xe9\nDisallow: /private\n"
    rfc = Robots.parse(body)
    assert any(d.code == "invalid-utf8" and d.severity == "error" and d.line == 2 for d in rfc.diagnostics)
    assert not rfc.allowed("bot", "/private/x")
    assert rfc.allowed("bot", "/caf%E9")  # the rule was dropped
    google = Robots.parse(body, mode="google")
    assert not google.allowed("bot", "/caf%E9")  # used, escaped
    # A body of pure garbage parses to nothing, without an exception.
    junk = Robots.parse(bytes(range(256)) * 100)
    assert junk.allowed("bot", "/") and junk.diagnostics


def test_str_body_and_bytearray_body():
    for body in (BODY.decode(), bytearray(BODY)):
        assert not Robots.parse(body).allowed("BadBot", "/")


def test_ten_megabyte_body_is_cut_at_the_limit():
    head = b"User-agent: *\nDisallow: /early\n"
    filler = b"# " + b"x" * 97 + b"\n"
    body = head + filler * (10 * 1024 * 1024 // len(filler)) + b"Disallow: /late\n"
    assert len(body) > 10_000_000
    r = Robots.parse(body)
    assert r.bytes_used == crawlgate.DEFAULT_MAX_BYTES
    assert not r.allowed("bot", "/early")
    assert r.allowed("bot", "/late")  # after the limit: ignored
    assert any(d.code == "content-after-limit" for d in r.diagnostics)
    bigger = Robots.parse(body, max_bytes=len(body) + 1)
    assert not bigger.allowed("bot", "/late")


def test_ten_megabytes_of_rules():
    body = b"User-agent: *\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(700_000))
    assert len(body) > 10_000_000
    r = Robots.parse(body, max_bytes=len(body))
    assert r.rule_count == 700_000
    assert not r.allowed("bot", "/p699999/x") and r.allowed("bot", "/q")


def test_parsing_large_bodies_releases_the_gil():
    """Another thread runs Python while a large body is parsed.

    The interpreter is told not to switch threads on its own (a switch interval of 100 s) and
    the other thread yields the GIL after every tick (`sleep(0)`), so it can tick during the
    parse only if the parse releases the GIL: held, the count stays as it was. No timing.
    """
    body = b"User-agent: *\n" + b"".join(b"Disallow: /a*b*c*d%d$\n" % i for i in range(300_000))
    ticks = 0
    started = threading.Event()
    stop = threading.Event()

    def spin():
        nonlocal ticks
        started.set()
        while not stop.is_set():
            ticks += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    t = threading.Thread(target=spin)
    t.start()
    started.wait()
    sys.setswitchinterval(100)
    try:
        before = ticks
        Robots.parse(body, max_bytes=len(body))
        during = ticks - before
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        t.join()
    assert during > 0


def test_allow_all():
    r = Robots.allow_all()
    assert r.allowed("x", "/anything") and r.diagnostics == [] and r.mode == "rfc"


def test_robots_txt_url():
    assert robots_txt_url("https://user:pw@Example.COM:443/a/b?q#f") == "https://example.com/robots.txt"
    assert robots_txt_url("http://example.com:8080/x") == "http://example.com:8080/robots.txt"
    for bad in ("ftp://example.com/", "example.com/a", "not a url", ""):
        with pytest.raises(ValueError):
            robots_txt_url(bad)
    with pytest.raises(TypeError):
        robots_txt_url(None)  # type: ignore[arg-type]


def test_package_has_types_and_docstrings():
    from pathlib import Path

    pkg = Path(crawlgate.__file__).parent
    assert (pkg / "py.typed").exists() and (pkg / "__init__.pyi").exists()
    for name in ("Robots", "OriginState", "ProductToken", "robots_txt_url"):
        assert getattr(crawlgate, name).__doc__
    assert Robots.check.__doc__ and Robots.parse.__doc__


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1/10", (1, 10.0)), ("1/10s", (1, 10.0)), ("3/1m 0600-0845", (3, 60.0)), ("2/1h", (2, 3600.0)),
     ("x", None), ("0/5", None), ("1/0", None), ("1/5y", None), ("", None)],
)
def test_request_rate_values(value, expected):
    rate = Robots.parse(f"User-agent: *\nRequest-rate: {value}\n").request_rate("bot")
    assert (None if rate is None else (rate.requests, rate.seconds)) == expected


def test_random_input_raises_only_python_exceptions():
    """Seeded garbage through every entry point: answers or ValueError/TypeError, no crash."""
    import random

    rng = random.Random(9309)
    alphabet = "aZ09_-/ *$%?#:;.\t\r\n\x00\xe9\u30c4\ud7ff"
    for _ in range(300):
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        body += rng.choice([b"", b"\nUser-agent: *\nDisallow: /a*$\n", b"\nuser-agent:\nallow:/%zz\n"])
        r = Robots.parse(body, mode=rng.choice(["rfc", "google"]))
        agent = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        url = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        for call in (
            lambda: r.check(agent, url),
            lambda: r.check(agent.encode("utf-8", "surrogatepass"), url.encode("utf-8", "surrogatepass")),
            lambda: r.rules_for(agent).check(url),
            lambda: r.crawl_delay(agent),
            lambda: r.request_rate(agent),
            lambda: ProductToken.verbatim(agent) and r.check(ProductToken.verbatim(agent), url),
            lambda: robots_txt_url(url),
        ):
            try:
                call()
            except (ValueError, TypeError, UnicodeEncodeError):
                pass


def test_google_mode_takes_any_str_agent_as_google_does():
    body = b"User-agent: Foo\nDisallow: /foo\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /star\n"
    google = Robots.parse(body, mode="google")
    # Any string is an agent, compared whole and case-insensitively (google/robotstxt's API).
    for agent in ["", "Foo Bar", "XYZ123bot", "Foo/1.0", b"", b"Foo Bar"]:
        assert not google.allowed(agent, "/star"), agent
        assert google.allowed(agent, "/foo"), agent
        assert google.check(agent, "/star").group == "star"
        assert google.rules_for(agent).group == "star"
        assert google.crawl_delay(agent) is None
        assert google.request_rate(agent) is None
    assert not google.allowed("FOO", "/foo") and google.crawl_delay("foo") == 3.0
    assert google.rules_for("").check("/foo").allowed
    # A ProductToken stays as it is.
    assert not google.allowed(ProductToken.from_user_agent("Foo/1.0"), "/foo")
    # mode="rfc" still wants a product token or a User-Agent header.
    rfc = Robots.parse(body)
    assert not rfc.allowed("Foo/1.0", "/foo")
    for agent in ["", "Foo Bar", b""]:
        for call in (
            lambda: rfc.allowed(agent, "/"),
            lambda: rfc.check(agent, "/"),
            lambda: rfc.rules_for(agent),
            lambda: rfc.crawl_delay(agent),
            lambda: rfc.request_rate(agent),
        ):
            with pytest.raises(ValueError):
                call()


def test_page_directives_from_headers_and_meta():
    d = crawlgate.page_directives(
        {"X-Robots-Tag": "examplebot: noindex", "Robots-Tag": [b"*;nosnippet"]},
        b'<head><meta name="robots" content="noai, max-snippet:20"></head>',
        "ExampleBot/1.0",
    )
    assert not d.index and not d.snippet and d.noai and d.follow
    assert d.max_snippet == 20
    assert [s.raw for s in d.sources] == ["noindex", "nosnippet", "noai", "max-snippet:20"]
    assert d.sources[0].kind == "header" and d.sources[0].agent == "examplebot"
    assert d.sources[2].kind == "meta" and d.sources[2].line == 1
    other = crawlgate.page_directives([("x-robots-tag", "examplebot: noindex")], None, "otherbot")
    assert other.index and other.sources == []
    odd = crawlgate.page_directives([("X-Robots-Tag", "noodp")], None, "bot")
    assert [s.raw for s in odd.unknown] == ["noodp"]
    assert odd.problems[0][0] == "unknown-directive"
    with pytest.raises(TypeError):
        crawlgate.page_directives([("a", 1)], None, "bot")
