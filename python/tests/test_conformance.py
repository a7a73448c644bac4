"""Google's 145 robots_test.cc cases through the Python API, in both modes (as
tests/conformance.rs runs them through the Rust API). In mode="google" each case's agent is
passed as the plain str the case gives, as google/robotstxt's API takes it."""

from __future__ import annotations

import pytest

from crawlgate import ProductToken, Robots

# `beyond_rfc` cases where mode="rfc" legitimately answers differently (tests/conformance.rs).
RFC_DIVERGENCES = {
    "ID_Encoding/03",
    "ID_Encoding/05",
    "ID_Encoding/06",
    "GoogleOnly_IndexHTMLisDirectory/01",
    "GoogleOnly_LineTooLong/02",
    "GoogleOnly_LineTooLong/05",
    # The crawler given verbatim as "Foo Bar" gets the group `User-Agent: Foo Bar` names.
    "GoogleOnly_AcceptUserAgentUpToFirstSpace/02",
}


def rfc_agent(s: str) -> str | ProductToken:
    """mode="rfc" wants a product token (or a User-Agent header): a str agent without one is
    refused, so a case whose agent is none ("", "Foo Bar") passes it as
    `ProductToken.verbatim`, as Google's OneAgentAllowedByRobots takes it."""
    try:
        ProductToken.from_user_agent(s)
        return s
    except ValueError:
        return ProductToken.verbatim(s)


def answer(case: dict, mode: str) -> bool:
    # mode="google" takes the case's agent as a plain str, whatever it is (as google/robotstxt's
    # API and the CLI's --mode google take it); mode="rfc" as rfc_agent says.
    agent = case["agent"] if mode == "google" else rfc_agent(case["agent"])
    robots = Robots.parse(case["robots"].encode("utf-8"), mode=mode)
    allowed = robots.allowed(agent, case["url"])
    # check() and allowed() agree, and so do the str and bytes forms.
    assert robots.check(agent, case["url"]).allowed == allowed
    assert robots.rules_for(agent).allowed(case["url"]) == allowed
    assert Robots.parse(case["robots"], mode=mode).allowed(
        agent, case["url"].encode("utf-8")
    ) == allowed
    if isinstance(agent, str):
        assert robots.allowed(agent.encode("utf-8"), case["url"]) == allowed
    return allowed


def test_google_mode_passes_all_145(conformance_cases):
    failures = [c["name"] for c in conformance_cases if answer(c, "google") != c["allowed"]]
    assert failures == []


def test_google_mode_takes_every_agent_as_a_plain_str(conformance_cases):
    # The cases whose agent is no product token ("", "Foo Bar"): answered, not refused, and as
    # Google answers; a str agent is the same as ProductToken.verbatim of it.
    odd = [c for c in conformance_cases if c["agent"] in ("", "Foo Bar")]
    assert len(odd) == 3
    for c in conformance_cases:
        robots = Robots.parse(c["robots"], mode="google")
        assert robots.allowed(c["agent"], c["url"]) == c["allowed"], c["name"]
        assert robots.allowed(c["agent"], c["url"]) == robots.allowed(
            ProductToken.verbatim(c["agent"]), c["url"]
        )
        robots.crawl_delay(c["agent"])
        robots.request_rate(c["agent"])


def test_rfc_mode_refuses_an_agent_with_no_product_token(conformance_cases):
    for c in conformance_cases:
        if c["agent"] in ("", "Foo Bar"):
            robots = Robots.parse(c["robots"], mode="rfc")
            with pytest.raises(ValueError):
                robots.allowed(c["agent"], c["url"])


def test_rfc_mode_passes_rfc_cases_and_lists_each_divergence(conformance_cases):
    unexpected, diverged = [], set()
    for c in conformance_cases:
        ok = answer(c, "rfc") == c["allowed"]
        if not ok:
            diverged.add(c["name"])
            if not (c.get("beyond_rfc") and c["name"] in RFC_DIVERGENCES):
                unexpected.append(c["name"])
    assert unexpected == []
    assert diverged == RFC_DIVERGENCES, "stale or missing RFC_DIVERGENCES entries"


@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_every_case_individually_gives_a_decision(conformance_cases, mode):
    for c in conformance_cases:
        agent = c["agent"] if mode == "google" else rfc_agent(c["agent"])
        d = Robots.parse(c["robots"].encode(), mode=mode).check(agent, c["url"])
        assert isinstance(d.allowed, bool)
        if d.reason == "rule":
            assert d.rule is not None and d.line == d.rule.line
        else:
            assert d.rule is None and d.line is None
