"""``crawlgate.batch``: captures judged into Arrow tables from Python, WARC files read into
record batches, and the study recipes (pandas, DuckDB) on its output."""

from __future__ import annotations

import collections
import concurrent.futures
import multiprocessing
import os
import pickle
import subprocess
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawlgate import Robots
from crawlgate.batch import SCHEMAS, evaluate, for_spark, read_warc
from warc import corpus, corpus_warc, hostile_warc


def rows(*captures: tuple[str | None, int | None, bytes]) -> pa.Table:
    urls, statuses, bodies = zip(*captures)
    return pa.table({"url": list(urls), "status": list(statuses), "body": list(bodies)})


def column(batch: pa.RecordBatch, name: str) -> list:
    return batch.column(name).to_pylist()


def test_rows_get_the_classes_of_rfc_9309() -> None:
    t = evaluate(
        rows(
            ("https://a.example/robots.txt", 200, b"User-agent: *\nDisallow: /x\n"),
            ("https://b.example/robots.txt", 404, b"gone"),
            ("https://c.example/robots.txt", 503, b""),
            ("https://d.example/robots.txt", None, b""),
            ("https://e.example/robots.txt", 429, b""),
            ("https://f.example/robots.txt", 200, b"<html><body>hello</body></html>"),
            (None, 200, b"User-agent: *\n"),
        )
    )
    assert column(t.captures, "status_class") == [
        "rules",
        "allow-all",
        "disallow-all",
        "disallow-all",
        "disallow-all",
        "not-robots",
        "unreadable",
    ]
    assert column(t.captures, "verdict")[:6] == [
        "rules",
        "allow-all",
        "disallow-all",
        "disallow-all",
        "disallow-all",
        "rules",
    ]
    assert column(t.captures, "reason")[6] == "row 7: no `url`"
    assert column(t.captures, "record") == [1, 2, 3, 4, 5, 6, 7]
    assert set(column(t.captures, "input")) == {"rows"}
    assert t.captures.schema.equals(SCHEMAS["captures"])
    assert t.agents.schema.equals(SCHEMAS["agents"])
    assert t.rules.num_rows == 0


def test_agents_paths_purposes_and_mode_are_asked_as_the_cli_asks_them() -> None:
    data = rows(("https://a.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /private/\n"))
    t = evaluate(data, agents=["gptbot", "CCBot"], paths=["/private/x", "/public"], mode="google", rules=True)
    got = sorted(zip(column(t.agents, "agent"), column(t.agents, "path"), column(t.agents, "access")))
    assert got == [
        ("CCBot", "/", "allowed"),
        ("CCBot", "/private/x", "allowed"),
        ("CCBot", "/public", "allowed"),
        ("GPTBot", "/", "partly"),
        ("GPTBot", "/private/x", "blocked"),
        ("GPTBot", "/public", "allowed"),
    ]
    assert set(column(t.agents, "mode")) == {"google"}
    assert column(t.rules, "pattern") == ["/private/"]
    training = evaluate(data, purposes=["training"])
    assert set(column(training.agents, "purpose")) == {"training"}
    with pytest.raises(ValueError, match="not in the catalogue"):
        evaluate(data, agents=["NoSuchBot"])
    with pytest.raises(ValueError, match="purposes"):
        evaluate(data, purposes=["mining"])
    with pytest.raises(ValueError):
        evaluate(data, mode="strict")


def test_a_stacked_ai_group_after_earlier_rules_blocks_every_bot_it_names() -> None:
    # Common Crawl's published statistics never reset "inside a group" and count this group
    # for CCBot alone: the shape of every AI block list.
    body = (
        b"User-agent: *\nDisallow: /cgi-bin/\nSitemap: https://a.example/sitemap.xml\n\n"
        b"User-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n"
    )
    t = evaluate(
        rows(("https://a.example/robots.txt", 200, body)),
        agents=["GPTBot", "ClaudeBot", "CCBot", "Bytespider"],
    )
    access = dict(zip(column(t.agents, "agent"), column(t.agents, "access")))
    lines = dict(zip(column(t.agents, "agent"), column(t.agents, "line")))
    assert access == {"GPTBot": "blocked", "ClaudeBot": "blocked", "CCBot": "blocked", "Bytespider": "partly"}
    assert {lines[a] for a in ("GPTBot", "ClaudeBot", "CCBot")} == {8}


def test_the_agents_table_agrees_with_robots_audit_on_every_corpus_file() -> None:
    files = corpus()
    data = rows(*((f"https://{host}/robots.txt", 200, body) for host, body in files))
    t = evaluate(data, paths=["/search", "/api/"])
    table = collections.defaultdict(dict)
    for url, agent, path, access, line in zip(
        column(t.agents, "url"),
        column(t.agents, "agent"),
        column(t.agents, "path"),
        column(t.agents, "access"),
        column(t.agents, "line"),
    ):
        table[url][(agent, path)] = (access, line)
    assert len(table) == len(files) == 24
    for host, body in files:
        got = table[f"https://{host}/robots.txt"]
        audited = Robots.parse(body).audit(paths=["/search", "/api/"])
        assert len(got) == len(audited) * 3
        for a in audited:
            for p in [a["root"], *a["paths"]]:
                assert got[(a["name"], p["path"])] == (p["access"], p["decision"].line), (host, a["name"])


def test_warc_records_read_into_rows_are_judged_as_the_command_judges_them(tmp_path: Path) -> None:
    path = tmp_path / "hostile.warc.gz"
    hostile_warc(path)
    batches = list(read_warc(path, name="hostile.warc.gz"))
    assert all(b.schema.equals(SCHEMAS["input"]) for b in batches)
    t = evaluate(pa.Table.from_batches(batches))
    by_url = {
        u: (c, v, target)
        for u, c, v, target in zip(
            column(t.captures, "url"),
            column(t.captures, "status_class"),
            column(t.captures, "verdict"),
            column(t.captures, "redirect_target"),
        )
    }
    assert by_url["https://ok.example/robots.txt"][:2] == ("rules", "rules")
    assert by_url["https://gone.example/robots.txt"][:2] == ("allow-all", "allow-all")
    assert by_url["https://down.example/robots.txt"][:2] == ("disallow-all", "disallow-all")
    assert by_url["https://html.example/robots.txt"][0] == "not-robots"
    assert by_url["https://moved.example/robots.txt"] == ("rules", "rules", "https://www.moved.example/robots.txt")
    assert by_url["https://lost.example/robots.txt"][:2] == ("redirect-unresolved", None)
    assert by_url["https://latin1.example/robots.txt"][:2] == ("rules", "rules")
    # The cut member is one unreadable row at its offset, and the reading went on after it.
    classes = column(t.captures, "status_class")
    unreadable = [i for i, c in enumerate(classes) if c == "unreadable"]
    assert len(unreadable) == 1
    assert column(t.captures, "offset")[unreadable[0]] is not None
    assert by_url["https://after.example/robots.txt"][:2] == ("rules", "rules")
    assert set(column(t.captures, "input")) == {"hostile.warc.gz"}
    assert t.captures.num_rows == 11


def test_warc_batches_are_bounded_and_keep_the_records_order(tmp_path: Path) -> None:
    path = tmp_path / "corpus.warc.gz"
    written = corpus_warc(path, repeat=2)
    batches = list(read_warc(path, rows=5))
    assert [b.num_rows for b in batches] == [5] * 9 + [3]
    records = [r for b in batches for r in column(b, "record")]
    assert records == list(range(1, len(written) + 1))
    assert [u for b in batches for u in column(b, "url")] == [u for u, _ in written]
    assert [bytes(x) for b in batches for x in column(b, "body")] == [b for _, b in written]
    offsets = [o for b in batches for o in column(b, "offset")]
    assert offsets == sorted(offsets) and offsets[0] == 0


def test_bad_arguments_and_columns_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_warc(tmp_path / "missing.warc.gz")
    with pytest.raises(ValueError):
        read_warc(tmp_path, rows=0)
    with pytest.raises(ValueError, match="__arrow_c_array__"):
        evaluate([1, 2, 3])
    # A column of the wrong type is a row's reason, not an exception: nothing is lost.
    t = evaluate(pa.table({"url": ["https://a.example/robots.txt"], "status": [200], "body": [3]}))
    assert column(t.captures, "status_class") == ["unreadable"]
    assert "`body` is Int64, not bytes" in column(t.captures, "reason")[0]
    t = evaluate(pa.table({"url": ["https://a.example/robots.txt"], "status": [70000], "body": [b""]}))
    assert "status 70000 is not an HTTP status" in column(t.captures, "reason")[0]


def test_tables_convert_for_spark_without_unsigned_integers() -> None:
    t = evaluate(rows(("https://a.example/robots.txt", 200, b"User-agent: *\nCrawl-delay: 5\n")))
    for batch in t:
        signed = for_spark(batch)
        assert signed.num_rows == batch.num_rows
        for field in signed.schema:
            assert not pa.types.is_unsigned_integer(field.type), field
            if pa.types.is_list(field.type):
                assert not pa.types.is_unsigned_integer(field.type.value_type), field
        assert signed.column("record").to_pylist() == batch.column("record").to_pylist()


def assert_consent_table(duckdb_source: str, parquet: Path) -> None:
    """The per-agent table of a consent study (training crawlers, access to ``/``), made in
    DuckDB from ``duckdb_source`` and in pandas from ``parquet`` (a file or a directory of
    parts), equals the one made from the corpus files themselves through ``Robots.audit``."""
    study = duckdb.sql(
        f"SELECT agent, access, count(*) AS sites FROM {duckdb_source} WHERE path = '/' "
        "GROUP BY agent, access ORDER BY agent, access"
    ).fetchall()
    expected: collections.Counter[tuple[str, str]] = collections.Counter()
    for _, body in corpus():
        for a in Robots.parse(body).audit():
            if a["purpose"] == "training":
                expected[(a["name"], a["root"]["access"])] += 1
    assert study == sorted((a, acc, n) for (a, acc), n in expected.items())
    frame = pq.read_table(parquet).to_pandas()
    pivot = frame[frame.path == "/"].groupby(["agent", "access"]).size()
    assert {k: int(v) for k, v in pivot.items()} == dict(expected)


def test_a_consent_study_table_from_the_parquet_output_in_duckdb_and_pandas(tmp_path: Path) -> None:
    warc = tmp_path / "corpus.warc.gz"
    corpus_warc(warc)
    out = tmp_path / "agents.parquet"
    with pq.ParquetWriter(out, SCHEMAS["agents"]) as w:
        for batch in read_warc(warc, rows=7):
            w.write_batch(evaluate(batch, purposes=["training"]).agents)
    assert_consent_table(f"'{out}'", out)


def test_the_commands_tables_in_parts_read_as_one_table_in_duckdb_and_pandas(tmp_path: Path) -> None:
    binary = os.environ.get("CRAWLGATE_BIN")
    assert binary, "CRAWLGATE_BIN names the crawlgate binary (scripts/python-test.sh sets it)"
    warc = tmp_path / "corpus.warc.gz"
    corpus_warc(warc)
    out = tmp_path / "tables"
    run = subprocess.run(
        [binary, "batch", "-o", str(out), "--purpose", "training", "--part-rows", "7",
         "--chunk-rows", "1", str(warc)],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    parts = sorted(p.name for p in (out / "agents").iterdir())
    assert len(parts) == -(-len(corpus()) // 7) and parts[0] == "part-00000.parquet", parts
    assert_consent_table(f"read_parquet('{out}/agents/*.parquet')", out / "agents")
    # Every capture once, across the parts.
    captures = duckdb.sql(f"SELECT count(*), count(DISTINCT url) FROM '{out}/captures/*.parquet'").fetchall()[0]
    assert captures == (len(corpus()), len(corpus()))


BODIES = [
    b"User-agent: *\nDisallow: /private\nCrawl-delay: 4\nSitemap: https://a.example/s.xml\n",
    b"\xef\xbb\xbfuser-agent: GPTBot\ndisalow: /x\nContent-Usage: train-ai=n\nLicense: https://a.example/l\n",
    b"garbage line\nUser-agent: a\nAllow: /$\nDisallow: /*.php$\n" * 3,
]


def same(a: Robots, b: Robots) -> None:
    assert a.mode == b.mode
    assert [str(d) for d in a.diagnostics] == [str(d) for d in b.diagnostics]
    assert a.records == b.records
    assert a.to_robots_txt() == b.to_robots_txt()
    assert a.content_usage_rules == b.content_usage_rules and a.licenses == b.licenses
    for agent in ("GPTBot", "a", "other"):
        for url in ("/", "/private/x", "/x", "/index.php", "/y.php?z"):
            assert repr(a.check(agent, url)) == repr(b.check(agent, url))


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_robots_pickles_to_the_same_rules_and_diagnostics(body: bytes, mode: str) -> None:
    r = Robots.parse(body, mode=mode)
    same(r, pickle.loads(pickle.dumps(r)))
    quiet = pickle.loads(pickle.dumps(Robots.parse(body, mode=mode, diagnostics=False)))
    assert quiet.diagnostics == []
    assert pickle.loads(pickle.dumps(Robots.allow_all(mode))).rule_count == 0


def test_a_body_over_the_limit_pickles_with_its_limit() -> None:
    body = b"User-agent: *\n" + b"Disallow: /a\n" * 50_000
    r = Robots.parse(body, max_bytes=1_000_000)
    back = pickle.loads(pickle.dumps(r))
    assert back.rule_count == r.rule_count == 50_000
    cut = Robots.parse(body)
    assert pickle.loads(pickle.dumps(cut)).rule_count == cut.rule_count < 50_000
    same(cut, pickle.loads(pickle.dumps(cut)))


def checks(robots: Robots) -> list[str]:
    return [repr(robots.check("GPTBot", u)) for u in ("/", "/private/x", "/x")]


def test_robots_crosses_into_worker_processes() -> None:
    parsed = [Robots.parse(b) for b in BODIES]
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        got = list(pool.map(checks, parsed))
    assert got == [checks(r) for r in parsed]


def test_usage_signals_and_licenses_are_reachable() -> None:
    r = Robots.parse(
        b"User-agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n"
        b"Content-Usage: /ai-ok/ train-ai=y\nContent-Signal: search=yes, ai-train=no\n"
        b"License: https://a.example/license.xml\nLLM-Policy: /llms.txt\n"
    )
    assert r.usage("ExampleBot", "https://a.example/ai-ok/x") == {
        "train_ai": "allowed",
        "search": "unknown",
        "lines": [5],
        "allowed": True,
    }
    assert r.usage("ExampleBot", "/page")["train_ai"] == "disallowed"
    assert r.usage("ExampleBot", "/never/x") == {"train_ai": "unknown", "search": "unknown", "lines": [], "allowed": False}
    assert r.content_signals("ExampleBot") == {"search": "allowed", "ai_input": "unknown", "ai_train": "disallowed", "lines": [6]}
    assert r.content_usage_rules == [(4, None, "train-ai=n"), (5, "/ai-ok/", "train-ai=y")]
    assert r.content_signal_lines == [(6, "Content-Signal: search=yes, ai-train=no")]
    assert r.licenses == [("https://a.example/license.xml", 7)]
    assert r.llm_policies == [("/llms.txt", 8)]
    audit = {a["name"]: a for a in r.audit(paths=["/never/"])}
    assert audit["GPTBot"]["root"]["access"] == "partly"
    assert audit["GPTBot"]["paths"][0]["access"] == "blocked"
    assert audit["GPTBot"]["usage"] == {"train_ai": "disallowed", "search": "unknown"}
    assert audit["GPTBot"]["signals"]["ai_train"] == "disallowed"
