"""What one driver-side micro-batch on Sail is, shared by both ways to run one.

The one-shot run of ``trigger(availableNow=True)`` / ``trigger(once=True)``
(:mod:`spark_agent.sail`) and the continuous query (:mod:`spark_agent.streaming`)
both cut reads into batches with Spark's ``maxOffsetsPerTrigger`` arithmetic
(:func:`rate_limit`, :func:`split_by_rate_limit`), hand each batch to the
sink with :func:`run_sink`, and answer with the ``StreamingQuery`` identity of
:class:`QueryIdentity`. Importing it loads no Spark and nothing of the
package beyond :mod:`spark_agent.checkpoint`; the Kafka sink
(:mod:`spark_agent.sink`) is loaded when a batch writes to Kafka.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .checkpoint import Offsets

if TYPE_CHECKING:
    from .kafka_schema import KafkaRecord


def announce(msg: str) -> None:
    """Say on stderr what the driver does in Sail's place."""
    print(f"spark_agent: {msg}", file=sys.stderr, flush=True)


@dataclass
class ReadResult:
    """Records of one read and the offset range it covered."""

    records: list[KafkaRecord]
    start: Any  # offsets dict, or the spec asked for ("earliest", …)
    end: Offsets = field(default_factory=dict)


class StreamingQueryFailed(RuntimeError):
    """The driver-side micro-batch failed (Spark's StreamingQueryException)."""


class QueryIdentity:
    """The identity properties of a StreamingQuery (``id``, ``runId``, ``name``),
    read from ``_id``, ``_run_id`` and ``_name``."""

    _id: str
    _run_id: str
    _name: str | None

    @property
    def id(self) -> str:
        return self._id

    @property
    def runId(self) -> str:
        return self._run_id

    @property
    def name(self) -> str | None:
        return self._name


def rate_limit(limit: int, start: Offsets, until: Offsets) -> Offsets:
    """Spark's ``KafkaMicroBatchStream.rateLimit``: split ``limit`` records over
    the partitions in proportion to their backlog (floor, but at least one
    record for a partition with any), never past ``until``."""
    sizes = {(t, p): end - start.get(t, {}).get(p, end)
             for t, ps in until.items() for p, end in ps.items()}
    sizes = {tp: n for tp, n in sizes.items() if n > 0}
    total = float(sum(sizes.values()))
    if total < 1:
        return {t: dict(ps) for t, ps in until.items()}
    out: Offsets = {}
    for t, ps in until.items():
        for p, end in ps.items():
            n = sizes.get((t, p))
            if n is None:
                out.setdefault(t, {})[p] = end
                continue
            prorate = limit * (n / total)
            step = int(-(-prorate // 1)) if prorate < 1 else int(prorate // 1)
            out.setdefault(t, {})[p] = min(end, start[t][p] + step)
    return out


def has_new(start: Offsets, end: Offsets) -> bool:
    """Whether ``end`` is past ``start`` on any partition."""
    return any(o > start.get(t, {}).get(p, o) for t, ps in end.items() for p, o in ps.items())


def initial_offsets(res: ReadResult) -> Offsets:
    """The per-partition start of a read made from a spec (``earliest``,
    ``latest``, JSON with -1/-2): its first record per partition, else its end."""
    if isinstance(res.start, dict):
        return {t: dict(ps) for t, ps in res.start.items()}
    out = {t: dict(ps) for t, ps in res.end.items()}
    for r in res.records:
        cur = out.setdefault(r.topic, {}).get(r.partition)
        if cur is None or r.offset < cur:
            out[r.topic][r.partition] = r.offset
    return out


def split_by_rate_limit(res: ReadResult, cap: int) -> list[ReadResult]:
    """One read cut into the batches ``maxOffsetsPerTrigger`` makes of it
    (:func:`rate_limit` from the read's start until its end): the
    ``availableNow`` split, the same as a continuous query's."""
    out: list[ReadResult] = []
    cur = initial_offsets(res)
    start: Any = res.start
    while has_new(cur, res.end):
        end = rate_limit(cap, cur, res.end)
        recs = [r for r in res.records
                if cur.get(r.topic, {}).get(r.partition, 0) <= r.offset < end.get(r.topic, {}).get(r.partition, 0)]
        out.append(ReadResult(records=recs, start=start, end=end))
        cur = start = end
    return out or [res]


def run_sink(df: Any, batch_id: int, fmt: str, opts: dict[str, str], foreach_batch: Callable | None,
             foreach: Any, name: str | None, path: str | None, table: str | None,
             partition_by: list[str]) -> None:
    """Hand one micro-batch's DataFrame to the query's sink."""
    write_opts = {k: v for k, v in opts.items() if k.lower() not in ("checkpointlocation", "path")}
    if foreach_batch is not None:
        foreach_batch(df, batch_id)
    elif foreach is not None:
        rows = df.collect()
        if callable(foreach) and not hasattr(foreach, "process"):
            for r in rows:
                foreach(r)
        else:
            if getattr(foreach, "open", None) is None or foreach.open(0, batch_id) is not False:
                err = None
                try:
                    for r in rows:
                        foreach.process(r)
                except Exception as e:
                    err = e
                    raise
                finally:
                    if getattr(foreach, "close", None):
                        foreach.close(err)
    elif fmt == "console":
        df.show(int(opts.get("numRows", 20)), truncate=opts.get("truncate", "true").lower() == "true")
    elif fmt == "noop":
        pass
    elif fmt == "memory":
        if not name:
            raise ValueError("queryName must be specified for memory sink")
        df.createOrReplaceTempView(name)
    elif fmt == "kafka":
        from .sink import write_kafka

        write_kafka(df, write_opts)
    else:
        w = df.write.mode("append").options(**write_opts)
        if fmt:
            w = w.format(fmt)
        if partition_by:
            w = w.partitionBy(*partition_by)
        if table:
            w.saveAsTable(table)
        else:
            w.save(path or opts.get("path"))
