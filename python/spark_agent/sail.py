"""The driver-side Kafka path for Spark Connect sessions on Sail.

Sail has no Kafka source and refuses ``writeStream.foreachBatch`` at
``start()``. Here a ``format("kafka")`` read becomes a
:class:`spark_agent.plan.KafkaSourcePlan`, a leaf of the Connect plan whose
records are read in the driver (through the emulator's consume route for
``eventstream.*``, with kafka-python for ``kafka.bootstrap.servers``) and
shipped as Arrow ``LocalRelation``s with Spark's exact Kafka schema.

``writeStream…start()`` on a DataFrame built on such a leaf starts a
continuous query (:mod:`spark_agent.streaming`): micro-batches in a driver
thread until ``stop()``. With ``trigger(availableNow=True)`` or
``trigger(once=True)`` it runs one micro-batch in the driver instead: the sink —
``foreachBatch``, ``foreach``, ``console``, ``noop``, ``memory`` or any batch
format such as ``delta`` / ``parquet`` — gets every record available at
``start()``; with a ``checkpointLocation`` the end offsets are kept there
(:mod:`spark_agent.checkpoint`) and the next run reads only what arrived
since. It is announced on stderr and answers with a
:class:`DriverStreamingQuery`.

The modules depend one way: this one on :mod:`spark_agent.streaming`, both
on :mod:`spark_agent.plan`, :mod:`spark_agent.microbatch` and
:mod:`spark_agent.checkpoint`, none of which imports a module above it.
"""

from __future__ import annotations

import json
import time
import traceback
import uuid
from typing import Any

from .checkpoint import load_checkpoint, parse_offsets, save_checkpoint
from .microbatch import QueryIdentity, ReadResult, StreamingQueryFailed, announce, run_sink, split_by_rate_limit
from .options import offsets_json
from .plan import kafka_leaves
from .streaming import start_query


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


def run_micro_batch(writer: Any, *, path: str | None = None, table: str | None = None) -> DriverStreamingQuery:
    """Run a Connect ``DataStreamWriter`` over a Kafka leaf: one driver-side
    micro-batch for ``availableNow`` / ``once``, else a continuous query."""
    from pyspark.sql.connect.dataframe import DataFrame

    wp = writer._write_proto
    if not (wp.available_now or wp.once or wp.continuous_checkpoint_interval):
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

    state = load_checkpoint(checkpoint)
    batch_id = int(state["batchId"]) + 1 if state else 0
    saved = {s["source"]: s for s in (state or {}).get("sources", [])}
    for i, leaf in enumerate(leaves):
        key = f"{i}:{leaf.description}"
        if key in saved:
            leaf.bind(parse_offsets(saved[key]["endOffset"]))
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
            run_sink(df, batch_id, fmt, opts, foreach_batch, foreach, name, path, table,
                      list(wp.partitioning_column_names))
        except Exception as e:  # surfaces at awaitTermination, like Spark's StreamingQueryException
            error = e
            announce(f"driver-side micro-batch {batch_id} failed: {e!r}\n" + traceback.format_exc())
            break
        last_batch = batch_id
        if checkpoint:
            save_checkpoint(checkpoint, {
                "batchId": batch_id,
                "sources": [{"source": f"{i}:{leaf.description}", "endOffset": json.loads(offsets_json(r.end))}
                            for i, (leaf, r) in enumerate(zip(leaves, batch))],
            })
        batch_id += 1
    if checkpoint and error is None and last_batch < 0:
        # Nothing read and no checkpoint yet: keep where the read ended, as
        # Spark keeps the initial offsets of a query that saw no data.
        save_checkpoint(checkpoint, {
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
    return split_by_rate_limit(res, cap)
