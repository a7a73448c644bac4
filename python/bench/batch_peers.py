"""Protego and urllib.robotparser on the captures of a WARC.gz: each body parsed once, then `/`
answered for every agent of a list, on one core. The peers' side of `crawlgate batch`'s bench.

    python bench/batch_peers.py WARC_GZ AGENTS_FILE [--rounds N]

``cli/benches/batch.rs`` runs it, in the same run as ``crawlgate batch`` and on the WARC.gz it
wrote, when ``$CRAWLGATE_BENCH_PYTHON`` names an interpreter that has Protego; AGENTS_FILE holds
the product tokens of the built-in catalogue, one a line, as the bench wrote them. It can also
be run alone on any WARC.gz.

The WARC is read and its bodies taken out before any timing (the Rust side times that part as
"read-only"). Timed, per peer: for every capture, the body decoded (UTF-8, errors ignored, as
Scrapy's Protego backend does: neither peer takes bytes), parsed, and asked ``can_fetch`` for
``https://HOST/`` once per agent. Also timed: the WARC.gz only inflated, member by member, by
the C zlib Python links (``zlib``), a reference beside flate2's inflate on the Rust side. One JSON object is printed: captures, agents, and for each
peer its best wall and CPU seconds over the rounds and the captures per CPU second (one
thread, so per core).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
import urllib.robotparser
import zlib
from urllib.parse import urlsplit

import protego
from protego import Protego


def captures(path: str) -> list[tuple[str, bytes]]:
    """(root URL, body) of every `response` record with an HTTP status line."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    out = []
    at = 0
    while True:
        start = data.find(b"WARC/", at)
        if start < 0:
            break
        head_end = data.find(b"\r\n\r\n", start)
        if head_end < 0:
            break
        fields = {}
        for line in data[start:head_end].split(b"\r\n")[1:]:
            key, _, value = line.partition(b":")
            fields[key.strip().lower()] = value.strip()
        length = int(fields.get(b"content-length", b"0"))
        block = data[head_end + 4 : head_end + 4 + length]
        at = head_end + 4 + length
        if fields.get(b"warc-type") != b"response" or not block.startswith(b"HTTP/"):
            continue
        http_end = block.find(b"\r\n\r\n")
        body = block[http_end + 4 :] if http_end >= 0 else b""
        uri = fields.get(b"warc-target-uri", b"").decode("utf-8", "replace")
        parts = urlsplit(uri)
        out.append((f"{parts.scheme}://{parts.netloc}/", body))
    return out


def run_protego(items, agents) -> None:
    for root, body in items:
        p = Protego.parse(body.decode("utf-8", errors="ignore"))
        for agent in agents:
            p.can_fetch(root, agent)


def run_urllib(items, agents) -> None:
    for root, body in items:
        rp = urllib.robotparser.RobotFileParser()
        rp.parse(body.decode("utf-8", errors="ignore").splitlines())
        for agent in agents:
            rp.can_fetch(agent, root)


def run_zlib(data: bytes) -> int:
    """Every gzip member inflated by the C zlib Python links (its inflate alone: a reference
    for flate2's); returns the bytes out."""
    out = 0
    while data:
        d = zlib.decompressobj(31)
        out += len(d.decompress(data))
        data = d.unused_data
    return out


def timed(rounds: int, fn, *args) -> tuple[float, float]:
    """Best (wall, CPU) seconds of `rounds` calls."""
    best = (float("inf"), float("inf"))
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        fn(*args)
        best = min(best, (time.perf_counter() - w, time.process_time() - c))
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("warc")
    ap.add_argument("agents")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    items = captures(args.warc)
    with open(args.agents, encoding="utf-8") as f:
        agents = [line.strip() for line in f if line.strip()]
    if not items or not agents:
        sys.exit("batch_peers.py: no captures or no agents")
    result = {
        "captures": len(items),
        "agents": len(agents),
        "python": sys.version.split()[0],
        "protego_version": getattr(protego, "__version__", None) or _dist_version("protego"),
    }
    with open(args.warc, "rb") as f:
        raw = f.read()
    wall, cpu = timed(args.rounds, run_zlib, raw)
    result["zlib"] = {"wall": wall, "cpu": cpu, "per_core": len(items) / cpu,
                      "version": zlib.ZLIB_RUNTIME_VERSION}
    for name, fn in (("protego", run_protego), ("urllib", run_urllib)):
        wall, cpu = timed(args.rounds, fn, items, agents)
        result[name] = {"wall": wall, "cpu": cpu, "per_core": len(items) / cpu}
    print(json.dumps(result))


def _dist_version(name: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # noqa: BLE001 - a version is only shown
        return None


if __name__ == "__main__":
    main()
