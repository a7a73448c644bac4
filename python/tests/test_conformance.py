"""Google's 145 robots_test.cc cases through the Python API, in both modes (as
tests/conformance.rs runs them through the Rust API)."""

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
}


def agent(s: str) -> ProductToken:
    """Google's OneAgentAllowedByRobots: a product token if it is one, else verbatim."""
    try:
        return ProductToken(s)
    except ValueError:
        return ProductToken.verbatim(s)


def answer(case: dict, mode: str) -> bool:
    robots = Robots.parse(case["robots"].encode("utf-8"), mode=mode)
    allowed = robots.allowed(agent(case["agent"]), case["url"])
    # check() and allowed() agree, and so do the str and bytes forms.
    assert robots.check(agent(case["agent"]), case["url"]).allowed == allowed
    assert Robots.parse(case["robots"], mode=mode).allowed(
        agent(case["agent"]), case["url"].encode("utf-8")
    ) == allowed
    return allowed


def test_google_mode_passes_all_145(conformance_cases):
    failures = [c["name"] for c in conformance_cases if answer(c, "google") != c["allowed"]]
    assert failures == []


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
        d = Robots.parse(c["robots"].encode(), mode=mode).check(agent(c["agent"]), c["url"])
        assert isinstance(d.allowed, bool)
        if d.reason == "rule":
            assert d.rule is not None and d.line == d.rule.line
        else:
            assert d.rule is None and d.line is None
