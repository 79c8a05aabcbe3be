"""The driver-side Kafka path for Spark Connect sessions on Sail.

Sail has no Kafka source and refuses ``writeStream.foreachBatch`` at
``start()``. Here a ``format("kafka")`` read becomes a :class:`KafkaSourcePlan`,
a leaf of the Connect plan whose records are read in the driver (through the
emulator's consume route for ``eventstream.*``, with kafka-python for
``kafka.bootstrap.servers``) and shipped as Arrow ``LocalRelation``s with
Spark's exact Kafka schema. The records are read when the plan is first sent
to the server and then kept, so every action on the DataFrame sees the same
rows.

``writeStream…start()`` on a DataFrame built on such a leaf starts a
continuous query (:mod:`spark_agent.streaming`): micro-batches in a driver
thread until ``stop()``. With ``trigger(availableNow=True)`` or
``trigger(once=True)`` it runs one micro-batch in the driver instead: the sink —
``foreachBatch``, ``foreach``, ``console``, ``noop``, ``memory`` or any batch
format such as ``delta`` / ``parquet`` — gets every record available at
``start()``; with a ``checkpointLocation`` the end offsets are kept there and
the next run reads only what arrived since. It is announced on stderr and
answers with a :class:`DriverStreamingQuery`.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark.sql.connect.plan import LocalRelation, LogicalPlan

from .kafka_schema import KafkaRecord, chunk_by_bytes, kafka_schema, to_arrow
from .options import offsets_json

Offsets = dict[str, dict[int, int]]

# Bytes of key+value+headers per LocalRelation; bigger reads become several
# relations registered as temporary views and unioned (Sail cannot take the
# client's CachedLocalRelation, and one gRPC message has its limits).
DEFAULT_CHUNK_BYTES = int(os.environ.get("FABRICTEST_LOCAL_RELATION_BYTES", 4 * 1024 * 1024))

CHECKPOINT_FILE = "fabrictest-kafka-offsets.json"


def announce(msg: str) -> None:
    print(f"spark_agent: {msg}", file=sys.stderr, flush=True)


@dataclass
class ReadResult:
    """Records of one read and the offset range it covered."""

    records: list[KafkaRecord]
    start: Any  # offsets dict, or the spec asked for ("earliest", …)
    end: Offsets = field(default_factory=dict)


Reader = Callable[[Offsets | None], ReadResult]

# Per-thread batch reads: a continuous query's thread binds each leaf to the
# records of its current batch, so several queries over one DataFrame never
# see each other's batches.
_BATCH = threading.local()


def bind_batch(reads: dict[int, ReadResult]) -> Any:
    """Make this thread's uses of the leaves (by ``id``) read ``reads``; returns a token."""
    prev = getattr(_BATCH, "reads", None)
    _BATCH.reads = reads
    return prev


def unbind_batch(token: Any) -> None:
    """Undo :func:`bind_batch`."""
    _BATCH.reads = token


class KafkaSourcePlan(LogicalPlan):
    """A Connect leaf plan: Kafka records read in the driver, sent as a LocalRelation.

    ``reader(starting_override)`` performs the read; ``starting_override`` is
    the per-partition start a checkpoint asks for (``None``: the options').
    """

    def __init__(self, session: Any, reader: Reader, *, include_headers: bool, streaming: bool,
                 description: str) -> None:
        super().__init__(None)
        self._session = session
        self._reader = reader
        self._include_headers = include_headers
        self._streaming = streaming
        self._description = description
        self._starting: Offsets | None = None
        self._result: ReadResult | None = None
        self._views: list[str] = []
        self.max_offsets_per_trigger: int | None = None

    # -- state ---------------------------------------------------------------
    @property
    def description(self) -> str:
        return self._description

    @property
    def streaming(self) -> bool:
        return self._streaming

    def bind(self, starting: Offsets | None) -> None:
        """Read from ``starting`` (a checkpoint's offsets) at the next use."""
        self._starting = starting
        self._result = None

    def result(self) -> ReadResult:
        """The records (this thread's batch, else read now if not read yet)."""
        bound = (getattr(_BATCH, "reads", None) or {}).get(id(self))
        if bound is not None:
            return bound
        if self._result is None:
            self._result = self._reader(self._starting)
        return self._result

    # -- Connect plumbing -------------------------------------------------------
    def plan(self, session: Any) -> Any:
        res = self.result()
        schema = kafka_schema(self._include_headers)
        chunks = chunk_by_bytes(res.records, DEFAULT_CHUNK_BYTES)
        if len(chunks) == 1:
            rel = LocalRelation(to_arrow(chunks[0], self._include_headers), schema.json()).plan(session)
        else:
            from pyspark.sql.connect.dataframe import DataFrame

            prefix = f"fabrictest_kafka_{self._plan_id}_{threading.get_ident()}_"
            for v in [v for v in self._views if v.startswith(prefix)]:
                self._session.catalog.dropTempView(v)
                self._views.remove(v)
            union = None
            for i, chunk in enumerate(chunks):
                name = f"{prefix}{i}"
                DataFrame.withPlan(LocalRelation(to_arrow(chunk, self._include_headers), schema.json()),
                                   self._session).createOrReplaceTempView(name)
                self._views.append(name)
                part = self._session.table(name)
                union = part if union is None else union.unionAll(part)
            rel = union._plan.plan(session)
        rel.common.plan_id = self._plan_id
        return rel

    def print(self, indent: int = 0) -> str:
        return f"{' ' * indent}<KafkaSource (driver-side, LocalRelation) {self._description}>\n"

    def _repr_html_(self) -> str:
        return f"<ul><li><b>KafkaSource</b> (driver-side LocalRelation) {self._description}</li></ul>"


def kafka_leaves(plan: Any) -> list[KafkaSourcePlan]:
    """Every :class:`KafkaSourcePlan` under a Connect plan."""
    out: list[KafkaSourcePlan] = []
    seen = set()
    stack = [plan]
    while stack:
        p = stack.pop()
        if p is None or id(p) in seen:
            continue
        seen.add(id(p))
        if isinstance(p, KafkaSourcePlan):
            out.append(p)
            continue
        for v in vars(p).values():
            if isinstance(v, LogicalPlan):
                stack.append(v)
            elif isinstance(v, (list, tuple)):
                stack.extend(x for x in v if isinstance(x, LogicalPlan))
    return out


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


class DriverStreamingQuery(QueryIdentity):
    """What ``start()`` answers for a driver-side micro-batch: the
    ``StreamingQuery`` surface, already terminated."""

    def __init__(self, name: str | None, progress: dict[str, Any], error: BaseException | None) -> None:
        self._id = str(uuid.uuid4())
        self._run_id = str(uuid.uuid4())
        self._name = name
        self._progress = progress
        self._error = error
        self._stopped = False

    @property
    def isActive(self) -> bool:
        return False

    def awaitTermination(self, timeout: int | None = None) -> bool | None:
        if self._error is not None:
            raise StreamingQueryFailed(f"driver-side micro-batch failed: {self._error}") from self._error
        return None if timeout is None else True

    def processAllAvailable(self) -> None:
        if self._error is not None:
            raise StreamingQueryFailed(f"driver-side micro-batch failed: {self._error}") from self._error

    def stop(self) -> None:
        self._stopped = True

    def exception(self) -> BaseException | None:
        return self._error

    @property
    def status(self) -> dict[str, Any]:
        return {"message": "Stopped" if self._error is None else "Terminated with exception",
                "isDataAvailable": False, "isTriggerActive": False}

    @property
    def lastProgress(self) -> dict[str, Any] | None:
        return self._progress

    @property
    def recentProgress(self) -> list[dict[str, Any]]:
        return [self._progress] if self._progress else []

    def explain(self, extended: bool = False) -> None:
        print(f"== Driver-side micro-batch ==\n{json.dumps(self._progress, indent=2)}")

    def __repr__(self) -> str:
        return f"<DriverStreamingQuery name={self._name!r} id={self._id} rows={self._progress.get('numInputRows')}>"


def _load_checkpoint(path: str | None) -> dict[str, Any] | None:
    if not path:
        return None
    f = Path(_local(path)) / CHECKPOINT_FILE
    if not f.is_file():
        return None
    return json.loads(f.read_text())


def _save_checkpoint(path: str, state: dict[str, Any]) -> None:
    d = Path(_local(path))
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / (CHECKPOINT_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True))
    os.replace(tmp, d / CHECKPOINT_FILE)


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path[len("file:"):] if path.startswith("file:") else path


def _parse_offsets(d: dict[str, dict[str, int]]) -> Offsets:
    return {t: {int(p): int(o) for p, o in ps.items()} for t, ps in d.items()}


def run_micro_batch(writer: Any, *, path: str | None = None, table: str | None = None) -> DriverStreamingQuery:
    """Run a Connect ``DataStreamWriter`` over a Kafka leaf: one driver-side
    micro-batch for ``availableNow`` / ``once``, else a continuous query."""
    from pyspark.sql.connect.dataframe import DataFrame

    wp = writer._write_proto
    if not (wp.available_now or wp.once or wp.continuous_checkpoint_interval):
        from .streaming import start_query

        return start_query(writer, path=path, table=table)
    session = writer._session
    child = writer._write_stream._child
    leaves = kafka_leaves(child)
    opts = dict(wp.options)
    lower = {k.lower(): v for k, v in opts.items()}
    checkpoint = lower.get("checkpointlocation")
    name = wp.query_name or None
    if wp.continuous_checkpoint_interval:
        raise ValueError("trigger(continuous=…) is not supported by the driver-side Kafka path on Sail; "
                         "use the default trigger, processingTime, availableNow or once")
    fmt = (wp.format or "").lower()
    foreach_batch = getattr(writer, "_fabrictest_foreach_batch", None)
    foreach = getattr(writer, "_fabrictest_foreach", None)

    state = _load_checkpoint(checkpoint)
    batch_id = int(state["batchId"]) + 1 if state else 0
    saved = {s["source"]: s for s in (state or {}).get("sources", [])}
    for i, leaf in enumerate(leaves):
        key = f"{i}:{leaf.description}"
        if key in saved:
            leaf.bind(_parse_offsets(saved[key]["endOffset"]))
        elif leaf._starting is not None or leaf._result is not None:
            leaf.bind(None)

    t0 = time.time()
    results = [leaf.result() for leaf in leaves]
    # Trigger.Once reads everything available and ignores read limits (Spark
    # logs "The read limit … is ignored when Trigger.Once is used").
    cap = leaves[0].max_offsets_per_trigger if len(leaves) == 1 and not wp.once else None
    if cap and len(results[0].records) > cap:
        batches = [[r] for r in split_result(results[0], cap)]
    else:
        batches = [results]
    sink = "foreachBatch" if foreach_batch else "foreach" if foreach else (fmt or "default")
    error: BaseException | None = None
    progress: dict[str, Any] = {}
    df = DataFrame.withPlan(child, session)
    last_batch = int(state["batchId"]) if state else -1
    for k, batch in enumerate(batches):
        n = sum(len(r.records) for r in batch)
        sources = [{"description": leaf.description,
                    "startOffset": r.start if isinstance(r.start, str) else json.loads(offsets_json(r.start)),
                    "endOffset": json.loads(offsets_json(r.end)), "numInputRows": len(r.records)}
                   for leaf, r in zip(leaves, batch)]
        progress = {
            "id": None, "runId": None, "name": name,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time())),
            "batchId": batch_id, "numInputRows": n, "sources": sources, "sink": {"description": sink},
        }
        desc = "; ".join(f"{s['description']}: {s['numInputRows']} records, offsets {json.dumps(s['startOffset'])}"
                         f" -> {json.dumps(s['endOffset'])}" for s in sources)
        if n == 0 and state is not None:
            announce(f"Sail has no Kafka source; no new records since the checkpoint ({checkpoint}); no micro-batch "
                     f"run [{desc}]")
            break
        of = f" {k + 1} of {len(batches)} (maxOffsetsPerTrigger)" if len(batches) > 1 else ""
        announce(f"Sail has no Kafka source and no foreachBatch; running {sink} in the driver on one micro-batch{of} "
                 f"(batchId {batch_id}{', checkpoint ' + checkpoint if checkpoint else ', no checkpoint'}) [{desc}]")
        for leaf, r in zip(leaves, batch):
            leaf._result = r
        try:
            _run_sink(df, batch_id, fmt, opts, foreach_batch, foreach, name, path, table,
                      list(wp.partitioning_column_names))
        except Exception as e:  # surfaces at awaitTermination, like Spark's StreamingQueryException
            error = e
            announce(f"driver-side micro-batch {batch_id} failed: {e!r}\n" + traceback.format_exc())
            break
        last_batch = batch_id
        if checkpoint:
            _save_checkpoint(checkpoint, {
                "batchId": batch_id,
                "sources": [{"source": f"{i}:{leaf.description}", "endOffset": json.loads(offsets_json(r.end))}
                            for i, (leaf, r) in enumerate(zip(leaves, batch))],
            })
        batch_id += 1
    if checkpoint and error is None and last_batch < 0:
        # Nothing read and no checkpoint yet: keep where the read ended, as
        # Spark keeps the initial offsets of a query that saw no data.
        _save_checkpoint(checkpoint, {
            "batchId": -1,
            "sources": [{"source": f"{i}:{leaf.description}", "endOffset": json.loads(offsets_json(r.end))}
                        for i, (leaf, r) in enumerate(zip(leaves, results))],
        })
    for leaf, r in zip(leaves, results):
        leaf._result = r
    progress["durationMs"] = {"triggerExecution": int((time.time() - t0) * 1000)}
    q = DriverStreamingQuery(name, progress, error)
    progress["id"], progress["runId"] = q.id, q.runId
    return q


def split_result(res: ReadResult, cap: int) -> list[ReadResult]:
    """Split one read into the batches ``maxOffsetsPerTrigger`` makes of it
    (Spark's pro-rated ``rateLimit``), each with the offsets a checkpoint
    should keep after it."""
    from .streaming import split_by_rate_limit

    return split_by_rate_limit(res, cap)


def _run_sink(df: Any, batch_id: int, fmt: str, opts: dict[str, str], foreach_batch: Callable | None,
              foreach: Any, name: str | None, path: str | None, table: str | None,
              partition_by: list[str]) -> None:
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
