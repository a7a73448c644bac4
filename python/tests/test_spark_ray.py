"""The recipes of docs/batch.md, run for real: a local PySpark job (``mapInArrow``) and a Ray
Data pipeline (``map_batches``) over WARC files the test writes, each giving the per-agent
table that ``crawlgate.batch.evaluate`` gives in process."""

from __future__ import annotations

import collections
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from crawlgate.batch import evaluate, for_spark, read_warc, spark_schema
from warc import corpus_warc, hostile_warc


@pytest.fixture(autouse=True)
def outside_the_source_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark's and Ray's workers start in the driver's directory and put it first on their
    path: from `python/`, the source package (which has no compiled module) would shadow the
    installed wheel."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def warcs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("warcs")
    paths = []
    for n in range(3):
        p = d / f"part-{n}.warc.gz"
        corpus_warc(p, repeat=n + 1)
        paths.append(p)
    hostile = d / "hostile.warc.gz"
    hostile_warc(hostile)
    paths.append(hostile)
    return paths


def in_process(warcs: list[Path]) -> collections.Counter[tuple[str, str]]:
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    for p in warcs:
        for batch in read_warc(p, name=p.name):
            t = evaluate(batch, purposes=["training"])
            for agent, path, access in zip(
                t.agents.column("agent").to_pylist(),
                t.agents.column("path").to_pylist(),
                t.agents.column("access").to_pylist(),
            ):
                if path == "/":
                    counts[(agent, access)] += 1
    return counts


def test_a_local_spark_job_gives_the_per_agent_table(warcs: list[Path]) -> None:
    from pyspark.sql import SparkSession

    def judge_warcs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """The recipe's function: a batch of WARC paths in, `agents` rows out (nested, so
        that Spark ships it by value: the workers cannot import this test module)."""
        for paths in batches:
            for path in paths.column("path").to_pylist():
                for rows in read_warc(path, name=os.path.basename(path)):
                    yield for_spark(evaluate(rows, purposes=["training"]).agents)

    # The workers run this interpreter, where crawlgate is installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("crawlgate-batch-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    try:
        paths = spark.createDataFrame([(str(p),) for p in warcs], "path string").repartition(2)
        agents = paths.mapInArrow(judge_warcs, spark_schema("agents"))
        rows = agents.where("path = '/'").groupBy("agent", "access").count().collect()
        got = collections.Counter({(r["agent"], r["access"]): r["count"] for r in rows})
        captures = agents.select("input", "record").distinct().count()
    finally:
        spark.stop()
    assert got == in_process(warcs)
    # Every capture of every file (24, 48 and 72 corpus captures; the hostile file's judged
    # ones) reached the table.
    assert captures == 24 * 6 + 9


def test_a_ray_data_pipeline_gives_the_per_agent_table(warcs: list[Path]) -> None:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        # Batches of 16 rows: a redirect and its target may fall apart, so the files without
        # redirects only.
        rows = pa.concat_tables(
            pa.Table.from_batches(list(read_warc(p, name=p.name))) for p in warcs[:3]
        )
        ds = ray.data.from_arrow(rows).repartition(4)

        def agents(batch: pa.Table) -> pa.Table:
            return pa.Table.from_batches([evaluate(batch, purposes=["training"]).agents])

        out = ds.map_batches(agents, batch_format="pyarrow", batch_size=16).to_arrow_refs()
        table = pa.concat_tables(ray.get(out))
    finally:
        ray.shutdown()
    got: collections.Counter[tuple[str, str]] = collections.Counter()
    for agent, path, access in zip(
        table.column("agent").to_pylist(),
        table.column("path").to_pylist(),
        table.column("access").to_pylist(),
    ):
        if path == "/":
            got[(agent, access)] += 1
    assert got == in_process(warcs[:3])
