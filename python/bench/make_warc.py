"""WARC.gz files of robots.txt captures for `crawlgate batch` at scale: the robots-bench corpus
repeated under distinct hosts, one gzip member per record (as Common Crawl writes them).

    python bench/make_warc.py CORPUS_DIR OUT_DIR --captures N [--per-file M]

Writes ceil(N / M) files ``OUT_DIR/part-00000.warc.gz``, … of M captures each (the last may
hold fewer): capture i is ``https://r{i // F}.{NAME}/robots.txt`` with the body of the corpus
file NAME (F files in the corpus, in name order), a ``200 text/plain`` response. A prefix of
the files is a prefix of the captures, so one set of files serves several scales. Standard
library only.
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path


def member(uri: str, body: bytes) -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body
    record = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n"
        f"WARC-Date: 2025-01-01T00:00:00Z\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode() + block + b"\r\n\r\n"
    c = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip member
    return c.compress(record) + c.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--captures", type=int, required=True)
    ap.add_argument("--per-file", type=int, default=5000)
    args = ap.parse_args()
    files = sorted(p for p in (args.corpus / "robotfiles").iterdir() if p.is_file())
    bodies = [(p.name, p.read_bytes()) for p in files]
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    part = 0
    while written < args.captures:
        n = min(args.per_file, args.captures - written)
        with open(args.out / f"part-{part:05}.warc.gz", "wb") as f:
            for i in range(written, written + n):
                name, body = bodies[i % len(bodies)]
                f.write(member(f"https://r{i // len(bodies)}.{name}/robots.txt", body))
        written += n
        part += 1
    print(f"{written} captures in {part} files under {args.out}")


if __name__ == "__main__":
    main()
