"""`crawlgate.batch.evaluate` beside `Robots.audit` on every file of the robots-bench corpus:
the `agents` table's access and deciding line for each catalogued crawler, at `/` and two
paths, must be the audit's. Prints the count of rows and of disagreements.

    python bench/batch_vs_audit.py [CORPUS_DIR]

The corpus: ``../shared/corpus/robots-bench`` from the repository root, or
``$CRAWLGATE_BENCH_CORPUS``. Only for measuring: the tests hold the same agreement on
``testdata/batch/corpus``.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from pathlib import Path

import pyarrow as pa

from crawlgate import Robots
from crawlgate.batch import evaluate

PATHS = ["/search", "/api/"]


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    default = os.environ.get("CRAWLGATE_BENCH_CORPUS", str(root.parent / "shared/corpus/robots-bench"))
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else default) / "robotfiles"
    files = [(p.name, p.read_bytes()) for p in sorted(corpus.iterdir()) if p.is_file()]
    start = time.time()
    rows = pa.table(
        {
            "url": [f"https://{n}/robots.txt" for n, _ in files],
            "status": [200] * len(files),
            "body": [b for _, b in files],
        }
    )
    t = evaluate(rows, paths=PATHS)
    got: dict[str, dict[tuple[str, str], tuple[str, int | None]]] = collections.defaultdict(dict)
    columns = (t.agents.column(c).to_pylist() for c in ("url", "agent", "path", "access", "line"))
    for url, agent, path, access, line in zip(*columns):
        got[url][(agent, path)] = (access, line)
    disagree = 0
    for name, body in files:
        url = f"https://{name}/robots.txt"
        for a in Robots.parse(body).audit(paths=PATHS):
            for p in [a["root"], *a["paths"]]:
                if got[url].get((a["name"], p["path"])) != (p["access"], p["decision"].line):
                    disagree += 1
                    print(f"{name}: {a['name']} {p['path']}: {got[url].get((a['name'], p['path']))} "
                          f"vs audit {(p['access'], p['decision'].line)}")
    rows_n = sum(len(v) for v in got.values())
    print(f"{len(files)} files, {rows_n} agents rows, {disagree} disagreements with Robots.audit "
          f"({time.time() - start:.0f} s)")
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
