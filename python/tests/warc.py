"""WARC files written by the tests: each capture a `response` record in a gzip member of its
own, as Common Crawl writes its robots.txt subset, plus hostile records."""

from __future__ import annotations

import gzip
from pathlib import Path

from conftest import REPO

CORPUS = REPO / "testdata" / "batch" / "corpus"


def record(uri: str, status: int, body: bytes, headers: str = "Content-Type: text/plain\r\n") -> bytes:
    reason = {200: "OK", 301: "Moved Permanently", 404: "Not Found", 503: "Service Unavailable"}
    block = f"HTTP/1.1 {status} {reason.get(status, 'X')}\r\n{headers}\r\n".encode() + body
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {uri}\r\nWARC-Date: 2025-01-01T00:00:00Z\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


def member(data: bytes) -> bytes:
    return gzip.compress(data)


def corpus() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(CORPUS.iterdir())]


def corpus_warc(path: Path, repeat: int = 1) -> list[tuple[str, bytes]]:
    """The corpus as a WARC.gz (each file at `https://HOST/robots.txt`, `repeat` times under
    distinct hosts); returns the (url, body) pairs written."""
    written = []
    with open(path, "wb") as f:
        for n in range(repeat):
            for host, body in corpus():
                url = f"https://{host if n == 0 else f'r{n}.{host}'}/robots.txt"
                f.write(member(record(url, 200, body)))
                written.append((url, body))
    return written


def hostile_warc(path: Path) -> None:
    """Captures of every class, then damage: a gzip member cut short, then a capture."""
    parts = [
        record("https://ok.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n"),
        record("https://gone.example/robots.txt", 404, b"not found"),
        record("https://down.example/robots.txt", 503, b""),
        record(
            "https://html.example/robots.txt",
            200,
            b"<!DOCTYPE html><html><body>hi</body></html>",
            "Content-Type: text/html\r\n",
        ),
        record(
            "https://moved.example/robots.txt",
            301,
            b"",
            "Location: https://www.moved.example/robots.txt\r\n",
        ),
        record("https://www.moved.example/robots.txt", 200, b"User-agent: *\nDisallow: /private/\n"),
        record(
            "https://lost.example/robots.txt",
            301,
            b"",
            "Location: https://elsewhere.example/robots.txt\r\n",
        ),
        record("https://latin1.example/robots.txt", 200, b"User-agent: *\nDisallow: /caf\xe9/\n"),
    ]
    parts.append(record("https://sacrificed.example/robots.txt", 200, b"User-agent: *\nAllow: /\n"))
    after = record("https://after.example/robots.txt", 200, b"User-agent: *\nDisallow: /after/\n")
    cut = member(record("https://cut.example/robots.txt", 200, b"User-agent: *\nDisallow: /\n"))
    with open(path, "wb") as f:
        for p in parts:
            f.write(member(p))
        # Cut short: its inflater reads on into what follows, which may go with it.
        f.write(cut[: len(cut) // 2])
        f.write(member(b"WARC/1.0\r\nWARC-Type: request\r\nContent-Length: 0\r\n\r\n\r\n\r\n") * 3)
        f.write(member(after))
