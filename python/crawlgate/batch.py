"""robots.txt at research scale: captures judged into Arrow tables, as ``crawlgate batch``
judges them, from Python, Spark, Ray, pandas or DuckDB.

>>> import pyarrow as pa
>>> from crawlgate.batch import evaluate
>>> rows = pa.table({
...     "url": ["https://a.example/robots.txt", "https://b.example/robots.txt"],
...     "status": [200, 503],
...     "body": [b"User-agent: GPTBot\\nDisallow: /\\n", b""],
... })
>>> tables = evaluate(rows, agents=["GPTBot"])
>>> tables.agents.column("access").to_pylist()
['blocked', 'blocked']
>>> tables.captures.column("status_class").to_pylist()
['rules', 'disallow-all']

The input is anything that exports Arrow record batches over the Arrow C data interface (a
``pyarrow`` ``RecordBatch``, ``Table`` or ``RecordBatchReader``; polars, DuckDB and Spark's
``mapInArrow`` batches) with the columns ``url`` (text), ``status`` (an integer; null: no
response) and ``body`` (binary or text), and optionally those that :func:`read_warc` adds
(``fetch_time``, ``content_type``, ``location``, ``challenge``, ``truncated``, ``input``,
``record``, ``offset``, ``crawl``, ``error``). It is read in place, and the GIL is released
while the batch is judged. The three tables, their columns and their classes are those of
``crawlgate batch`` (docs/batch.md), with the parser's version and mode in every row.

Needs ``pyarrow`` (``pip install crawlgate[batch]``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import pyarrow as pa  # type: ignore[import-untyped]

from . import _crawlgate

__all__ = [
    "SCHEMAS",
    "Tables",
    "evaluate",
    "read_warc",
    "for_spark",
    "spark_schema",
]


class Tables(NamedTuple):
    """The three tables of one call (``rules`` is empty unless asked for)."""

    captures: pa.RecordBatch
    agents: pa.RecordBatch
    rules: pa.RecordBatch


#: The schemas by name: ``input`` (what :func:`read_warc` yields and :func:`evaluate` reads),
#: ``captures``, ``agents``, ``rules``.
SCHEMAS: dict[str, pa.Schema] = _crawlgate.batch_schemas()


def evaluate(
    data: Any,
    *,
    agents: Iterable[str] = (),
    purposes: Iterable[str] = (),
    paths: Iterable[str] = (),
    mode: str = "rfc",
    rules: bool = False,
    catalogue: str | os.PathLike[str] | None = None,
    max_bytes: int | None = None,
    input: str = "rows",
) -> Tables:
    """Judges every capture of ``data`` and audits it for the catalogue's crawlers.

    ``agents``: only these crawlers (catalogue names or product tokens, without case; an
    unknown name is a ``ValueError``); ``purposes``: only crawlers of these purposes
    (``training``, ``search``, ``agent``, ``other``); ``paths``: paths asked about besides
    ``/`` (an ``agents`` row more per crawler); ``mode``: ``"rfc"`` or ``"google"``;
    ``rules``: also fill the ``rules`` table; ``catalogue``: a catalogue file of the shape of
    ai.robots.txt's ``robots.json``; ``max_bytes``: raise the parsing limit; ``input``: the
    ``input`` column of rows that do not say where they were read.

    Rows are numbered from 1 in the call (``record``) unless they carry ``input`` and
    ``record`` (as :func:`read_warc`'s do). A row that is not a capture (no ``url``, a wrong
    type, ``error`` set) is a ``captures`` row of class ``unreadable`` with the reason. A
    redirect is judged by its target when the same call holds the target's capture.
    """
    captures, agent_rows, rule_rows = _crawlgate.batch_evaluate(
        data,
        agents=list(agents),
        purposes=list(purposes),
        paths=list(paths),
        mode=mode,
        rules=rules,
        catalogue=None if catalogue is None else os.fspath(catalogue),
        max_bytes=max_bytes,
        input=input,
    )
    return Tables(captures, agent_rows, rule_rows)


def read_warc(
    path: str | os.PathLike[str],
    *,
    rows: int = 4096,
    max_bytes: int | None = None,
    name: str | None = None,
) -> Iterator[pa.RecordBatch]:
    """The ``response`` records of a WARC or WARC.gz file (Common Crawl's robots.txt subset
    and the like) as record batches of the input schema, ``rows`` captures at most each, read
    as they are asked for (memory stays flat). What cannot be read (a broken gzip member, a
    malformed header) is a row with ``error`` set, and the reading goes on. ``name`` is the
    ``input`` column (default: the path as given)."""
    batches: Iterator[pa.RecordBatch] = _crawlgate.WarcBatches(
        os.fspath(path), rows=rows, max_bytes=max_bytes, name=name
    )
    return batches


# Spark has no unsigned integers: each becomes the signed type that holds all its values.
_SIGNED = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(), pa.uint64(): pa.int64()}


def _signed_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_list(t):
        return pa.list_(_signed_type(t.value_type))
    return _SIGNED.get(t, t)


def _signed_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, _signed_type(f.type), f.nullable) for f in schema])


def for_spark(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` with its unsigned integer columns as signed ones, which Spark can hold
    (``uint16`` → ``int32``, ``uint32`` and ``uint64`` → ``int64``; a row count or offset
    past 2⁶³ does not occur)."""
    return batch.cast(_signed_schema(batch.schema))


def spark_schema(table: str) -> Any:
    """The Spark schema (a ``pyspark.sql.types.StructType``) of ``table`` (``captures``,
    ``agents``, ``rules`` or ``input``) after :func:`for_spark`: the ``schema`` argument of
    ``DataFrame.mapInArrow``. Imports pyspark."""
    # Imported by name: pyspark is optional, and only this function needs it.
    types = importlib.import_module("pyspark.sql.pandas.types")
    return types.from_arrow_schema(_signed_schema(SCHEMAS[table]))
