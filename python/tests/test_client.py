"""``crawlgate.Client`` against a real ``crawlgate serve`` process (the binary from
``CRAWLGATE_BIN``, which scripts/python-test.sh sets) and a real local robots.txt site."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

from crawlgate import Client, ServiceError

from sites import Site, text

TOKEN = "python-client-token"


@pytest.fixture()
def site() -> Iterator[Site]:
    s = Site("127.0.0.1", {"/robots.txt": text(200, b"User-agent: *\nDisallow: /private\n")})
    yield s
    s.close()


@pytest.fixture()
def service() -> Iterator[str]:
    binary = os.environ.get("CRAWLGATE_BIN")
    assert binary, "CRAWLGATE_BIN names the crawlgate binary (scripts/python-test.sh sets it)"
    with tempfile.TemporaryDirectory() as home:
        tokens = os.path.join(home, "tokens")
        with open(tokens, "w", encoding="utf-8") as f:
            f.write(TOKEN + "\n")
        proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--no-state", "--allow-private",
             "--token-file", tokens],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "HOME": home})
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert "http://" in line, line
            yield line.split("http://", 1)[1].split()[0]
        finally:
            proc.terminate()
            assert proc.wait(timeout=30) == 0


def test_every_method(site: Site, service: str) -> None:
    with Client(f"http://{service}", token=TOKEN) as client:
        assert client.healthy() and client.ready()
        results = client.check("bot", [site.url("/a"), site.url("/private/b")])
        assert [r["allowed"] for r in results] == [True, False]
        assert results[1]["rule"] == "Disallow: /private"
        assert results[1]["line"] == 2
        assert client.allowed("bot", site.url("/x"))
        first = client.acquire("bot", site.url("/a"))
        assert first["permit"] is True
        second = client.acquire("bot", site.url("/b"))
        assert second["permit"] is False and second["wait_ms"] > 0
        recorded = client.record(site.url("/a"), 503, retry_after=60)
        assert recorded["recorded"] == "backed-off" and recorded["backoff_ms"] == 60000
        report = client.robots(site.url("/"))
        assert report["type"] == "report" and report["status"] == "fetched"
        fetched = client.recrawl(site.url("/"))
        assert fetched["type"] == "fetch" and fetched["status"] == 200
    assert site.paths().count("/robots.txt") == 2


def test_errors_are_raised_with_their_field(site: Site, service: str) -> None:
    with Client(f"http://{service}", token=TOKEN) as client:
        # A URL that cannot be checked is answered in its place; the others are answered.
        results = client.check("bot", [site.url("/a"), "ftp://example.com/"])
        assert [r["type"] for r in results] == ["check", "error"]
        assert results[1]["url"] == "ftp://example.com/" and results[0]["allowed"] is True
        with pytest.raises(ValueError):
            client.allowed("bot", "ftp://example.com/")
        # What is wrong with the request as a whole is an error with its field.
        with pytest.raises(ServiceError) as bad:
            client.check("", [site.url("/a")])
        assert (bad.value.status, bad.value.code, bad.value.field) == (400, "bad-field", "agent")
        with pytest.raises(ServiceError) as missing:
            client.robots("http://example.com/")
        assert missing.value.status == 404
    with Client(f"http://{service}", token="wrong") as stranger:
        with pytest.raises(ServiceError) as denied:
            stranger.check("bot", [site.url("/a")])
        assert denied.value.status == 401 and denied.value.code == "unauthorized"
    with pytest.raises(ValueError):
        Client("ftp://example.com")


def test_asking_again_keeps_the_slot_and_the_permit_waits_for_a_backoff(site: Site, service: str) -> None:
    import time
    import urllib.error
    import urllib.request
    from email.utils import formatdate

    site.routes["/limited"] = (429, b"slow down", {"Retry-After": "2"})
    with Client(f"http://{service}", token=TOKEN) as client:
        first = client.wait_for_permit("bot", site.url("/a"), deadline=10)
        assert first is not None and first["permit"] is True
        # Asking again (with the id or without it) repeats the slot: nothing new is booked.
        b = client.acquire("bot", site.url("/b"))
        assert b["permit"] is False and b["slot"]
        for slot in (None, b["slot"]):
            again = client.acquire("bot", site.url("/b"), slot=slot)
            assert (again["slot"], again["not_before"]) == (b["slot"], b["not_before"])
        # The page answers 429 with Retry-After: 2, recorded as the header says it.
        try:
            urllib.request.urlopen(site.url("/limited"), timeout=10)
            raise AssertionError("no 429")
        except urllib.error.HTTPError as e:
            status, retry_after = e.code, e.headers.get("Retry-After")
        recorded = client.record(site.url("/limited"), status, retry_after=retry_after)
        assert recorded["recorded"] == "backed-off" and recorded["backoff_ms"] == 2000
        backed_off_at = time.monotonic()
        # The slot held for /b came before the backoff's end: the permit comes after it.
        permit = client.wait_for_permit("bot", site.url("/b"), deadline=10)
        assert permit is not None and permit["permit"] is True
        assert time.monotonic() - backed_off_at >= 1.9
        assert permit["slot"] != b["slot"]
        # An HTTP-date is read as servers send it; a deadline shorter than the wait raises.
        recorded = client.record(site.url("/b"), 503, retry_after=formatdate(time.time() + 30, usegmt=True))
        assert 28000 <= recorded["backoff_ms"] <= 30000
        with pytest.raises(TimeoutError):
            client.wait_for_permit("bot", site.url("/c"), deadline=0.5)
        assert client.wait_for_permit("bot", site.url("/private/x"), deadline=1) is None
        # A Retry-After the service cannot read still backs the origin off (by the default,
        # 60 s ±10 %), and the answer says why the header was not taken.
        ignored = client.record(site.url("/b"), 429, retry_after="soon")
        assert ignored["recorded"] == "backed-off" and ignored["warning"]
        assert ignored["backoff_ms"] >= 54000  # the default doubles with each backoff in a row
        # A served page of an origin never checked stands for no robots.txt fetch: refused,
        # nothing written. A 429 or 503 is owed to the site all the same: recorded.
        other = Site("127.0.0.1", {"/robots.txt": text(200, b"User-agent: *\n")})
        try:
            with pytest.raises(ServiceError) as unchecked:
                client.record(other.url("/a"), 200)
            assert (unchecked.value.status, unchecked.value.code) == (409, "not-checked")
            assert client.check("bot", [other.url("/a")])[0]["allowed"] is True
            owed = client.record(other.url("/b"), 503, retry_after=60)
            assert owed["recorded"] == "backed-off" and owed["backoff_ms"] == 60000
        finally:
            other.close()
