"""The failure ladder through OriginState, with explicit times."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from crawlgate import OriginState

T0 = 1_700_000_000.0
HOUR = 3600.0
DAY = 86400.0
RULES = b"User-agent: *\nDisallow: /private\n"


def test_not_fetched_is_disallow_all():
    j = OriginState().verdict_at(T0)
    assert (j.verdict, j.reason) == ("disallow-all", "not-fetched")
    assert not j.allowed("bot", "/")


def test_2xx_gives_the_rules():
    s = OriginState()
    assert s.record(T0, 200, RULES, url="https://e.com/robots.txt") is True
    j = s.verdict_at(T0 + 1)
    assert (j.verdict, j.reason) == ("rules", "fetched")
    assert j.robots is not None and j.robots.rule_count == 1
    assert not j.allowed("bot", "https://e.com/private/x")
    assert j.allowed("bot", "https://e.com/public")
    d = j.check("bot", "/private")
    assert d.line == 2
    assert s.allowed("bot", "/public", T0 + 1) and not s.allowed("bot", "/private", T0 + 1)
    assert s.last_status == 200 and s.last_outcome == "fetched"


@pytest.mark.parametrize("status", [404, 403, 410, 401, 301])
def test_4xx_allows_all(status):
    s = OriginState()
    s.record(T0, status, b"<html>Not found</html>")
    j = s.verdict_at(T0)
    assert (j.verdict, j.reason) == ("allow-all", "no-robots-txt")
    assert j.allowed("bot", "/anything")


@pytest.mark.parametrize("failure", [{"status": 503}, {"status": 429}, {"status": 500},
                                     {"error": "connection refused", "error_kind": "connect"},
                                     {"error": "timed out", "error_kind": "timeout"},
                                     {"error": "no such host", "error_kind": "dns"}])
def test_the_ladder(failure):
    s = OriginState()
    s.record(T0, 200, RULES)
    s.record(T0 + DAY, **failure)
    assert s.failing_since == T0 + DAY
    # First 12 hours: stop.
    j = s.verdict_at(T0 + DAY + 11 * HOUR)
    assert (j.verdict, j.reason) == ("disallow-all", "unreachable")
    assert j.since == T0 + DAY and not j.allowed("bot", "/public")
    # Then the last good version, up to 30 days.
    j = s.verdict_at(T0 + DAY + 13 * HOUR)
    assert (j.verdict, j.reason) == ("rules", "last-good-version")
    assert j.allowed("bot", "/public") and not j.allowed("bot", "/private")
    # After 30 days: stop unless the site is known to be up.
    j = s.verdict_at(T0 + 32 * DAY)
    assert (j.verdict, j.reason) == ("disallow-all", "long-unreachable-site-down")
    s.record_site_availability(T0 + 31 * DAY, True)
    j = s.verdict_at(T0 + 32 * DAY)
    assert (j.verdict, j.reason) == ("allow-all", "long-unreachable-site-up")
    # A success ends the run.
    s.record(T0 + 33 * DAY, 200, b"User-agent: *\nDisallow: /new\n")
    j = s.verdict_at(T0 + 33 * DAY)
    assert j.verdict == "rules" and s.failing_since is None
    assert not j.allowed("bot", "/new") and j.allowed("bot", "/private")


def test_unreachable_without_good_version():
    s = OriginState()
    s.record(T0, 503)
    assert s.verdict_at(T0 + HOUR).verdict == "disallow-all"
    assert s.verdict_at(T0 + 13 * HOUR).reason == "no-good-version"
    assert s.verdict_at(T0 + 13 * HOUR).verdict == "allow-all"
    strict = OriginState(strict=True)
    strict.record(T0, 503)
    assert strict.verdict_at(T0 + 13 * HOUR).verdict == "disallow-all"


def test_404_then_failure_uses_allow_all_as_last_good():
    s = OriginState()
    s.record(T0, 404)
    s.record(T0 + HOUR, 503)
    assert s.verdict_at(T0 + 2 * HOUR).verdict == "disallow-all"
    assert s.verdict_at(T0 + 14 * HOUR).verdict == "allow-all"


def test_custom_periods_and_datetimes():
    s = OriginState(stop_period=60, last_good_period=120)
    s.record(datetime.fromtimestamp(T0, timezone.utc), 200, RULES)
    s.record(T0 + 10, 503)
    assert s.verdict_at(T0 + 30).verdict == "disallow-all"
    assert s.verdict_at(T0 + 80).reason == "last-good-version"
    assert s.verdict_at(T0 + 200).reason == "long-unreachable-site-down"


def test_bad_input():
    s = OriginState()
    with pytest.raises(ValueError):
        s.record(T0)  # neither status nor error
    with pytest.raises(ValueError):
        s.record(T0, 200, error="x")  # both
    for status in (0, 99, 1000, -1, 2**40):
        with pytest.raises(ValueError):
            s.record(T0, status)
    with pytest.raises(ValueError):
        s.record(T0, error="x", error_kind="cosmic-ray")
    with pytest.raises(ValueError):
        s.record(float("nan"), 200)
    with pytest.raises(ValueError):
        s.record(float("inf"), 200)
    with pytest.raises(TypeError):
        s.record("yesterday", 200)
    with pytest.raises(TypeError):
        s.record(T0, 200, 12345)
    with pytest.raises(ValueError):
        OriginState(stop_period=-1)
    with pytest.raises(ValueError):
        s.record(T0, 200, b"", mode="bing")
    assert s.history_len == 0  # nothing bad was recorded


def test_large_and_non_utf8_bodies_are_recorded():
    s = OriginState()
    body = b"User-agent: *\nDisallow: /x\xff\nDisallow: /y\n" + b"#" * (10 * 1024 * 1024)
    s.record(T0, 200, body)
    j = s.verdict_at(T0)
    assert j.verdict == "rules" and not j.allowed("bot", "/y") and j.allowed("bot", "/z")
    assert any(d.code == "content-after-limit" for d in j.robots.diagnostics)


def test_a_judgement_reads_str_agents_in_the_mode_recorded():
    body = b"User-agent: *\nDisallow: /private\n"
    google = OriginState()
    google.record(T0, 200, body, mode="google")
    j = google.verdict_at(T0 + 1)
    assert j.robots is not None and j.robots.mode == "google"
    assert not j.allowed("", "/private") and j.allowed("Foo Bar", "/public")
    assert not google.allowed("Foo Bar", "/private", T0 + 1)
    # Without rules (a 5xx: disallow all), the mode of the latest record.
    google.record(T0 + 2, 503, mode="google")
    assert google.verdict_at(T0 + 3).verdict == "disallow-all"
    assert not google.allowed("", "/public", T0 + 3)
    rfc = OriginState()
    rfc.record(T0, 200, body)
    with pytest.raises(ValueError):
        rfc.allowed("", "/public", T0 + 1)
    rfc.record(T0 + 2, 503)
    with pytest.raises(ValueError):
        rfc.verdict_at(T0 + 3).allowed("Foo Bar", "/public")
