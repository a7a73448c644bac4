"""Shared fixtures: the repository root and the conformance data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "testdata" / "conformance" / "google-robotstxt-unit.json"


@pytest.fixture(scope="session")
def conformance_cases() -> list[dict]:
    doc = json.loads(CONFORMANCE.read_text(encoding="utf-8"))
    cases = doc["cases"]
    assert len(cases) == 145, "the data set has 145 cases"
    return cases
