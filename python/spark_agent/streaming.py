"""Continuous streaming queries on Sail: micro-batches in a driver thread until ``stop()``.

``writeStream…start()`` over a driver-side Kafka read (:mod:`spark_agent.plan`)
without ``trigger(availableNow=True)`` / ``trigger(once=True)`` starts a
:class:`ContinuousQuery`: a daemon thread that runs Spark's micro-batch loop
(``MicroBatchExecution``) in the driver.

* Each trigger reads what arrived since the last one; a batch ends at the
  latest offsets, or at Spark's pro-rated ``maxOffsetsPerTrigger`` limit
  (:func:`spark_agent.microbatch.rate_limit`, ``KafkaMicroBatchStream.rateLimit``).
* Batch 0 of a new query always runs, empty or not (Spark's first batch pins
  the starting offsets); later batches run only when there is new data.
* Default trigger: the next batch starts as soon as the previous one ends;
  with no new data the loop polls every :data:`IDLE_POLL_SECONDS`.
  ``processingTime``: batches start on the interval; a late batch is followed
  at once by the next.
* After each batch the end offsets go to the checkpoint (the format of
  :mod:`spark_agent.checkpoint`, shared with the one-shot run of
  :mod:`spark_agent.sail`), so a restarted query resumes exactly there.
* An exception in the sink (or the read) stops the query; it is kept for
  :meth:`ContinuousQuery.exception` and raised by ``awaitTermination`` and
  ``processAllAvailable``.
"""

from __future__ import annotations

import json
import re
import threading
import time
import traceback
import uuid
from typing import Any

from .checkpoint import Offsets, load_checkpoint, parse_offsets, save_checkpoint
from .kafka_schema import KafkaRecord
from .microbatch import (
    QueryIdentity,
    ReadResult,
    StreamingQueryFailed,
    announce,
    has_new,
    initial_offsets,
    rate_limit,
    run_sink,
)
from .options import KafkaOptionError, offsets_json
from .plan import KafkaSourcePlan, bind_batch, kafka_leaves, unbind_batch

# How often the default trigger looks for new records when it found none
# (Spark polls every spark.streaming.pollingDelay, 10 ms; a driver-side read is
# an HTTP call or a Kafka client, so a little less often).
IDLE_POLL_SECONDS = 0.1
# Progress entries kept (spark.sql.streaming.numRecentProgressUpdates).
RECENT_PROGRESS = 100

_UNITS = {
    "microsecond": 1e-6, "microseconds": 1e-6, "us": 1e-6,
    "millisecond": 1e-3, "milliseconds": 1e-3, "ms": 1e-3,
    "second": 1.0, "seconds": 1.0, "sec": 1.0, "secs": 1.0, "s": 1.0,
    "minute": 60.0, "minutes": 60.0, "min": 60.0, "mins": 60.0, "m": 60.0,
    "hour": 3600.0, "hours": 3600.0, "h": 3600.0,
    "day": 86400.0, "days": 86400.0, "d": 86400.0,
    "week": 604800.0, "weeks": 604800.0,
}


def parse_interval(value: str) -> float:
    """Seconds of a ``trigger(processingTime=…)`` interval: ``"500 milliseconds"``,
    ``"interval 1 minute 30 seconds"``, ``"2 s"``; ``""`` is the default trigger (0)."""
    s = value.strip().lower()
    if not s:
        return 0.0
    s = s[len("interval"):].strip() if s.startswith("interval") else s
    parts = re.findall(r"(-?\d+(?:\.\d+)?)\s*([a-z]+)", s)
    if not parts or re.sub(r"(-?\d+(?:\.\d+)?)\s*([a-z]+)", "", s).strip():
        raise KafkaOptionError("processingTime", f"trigger(processingTime={value!r}): want an interval such as "
                                                 f"'500 milliseconds' or '10 seconds'")
    total = 0.0
    for num, unit in parts:
        if unit not in _UNITS:
            raise KafkaOptionError("processingTime", f"trigger(processingTime={value!r}): unknown unit {unit!r}")
        total += float(num) * _UNITS[unit]
    if total < 0:
        raise KafkaOptionError("processingTime", f"trigger(processingTime={value!r}): the interval is negative")
    return total


class StreamSource:
    """One Kafka leaf of a continuous query: what it has read and what is committed."""

    def __init__(self, index: int, leaf: KafkaSourcePlan, committed: Offsets | None) -> None:
        self.key = f"{index}:{leaf.description}"
        self.leaf = leaf
        self.committed = committed  # end of the last batch (None: no batch yet)
        self.fetched: Offsets | None = None  # where the next read starts
        self.buffer: list[KafkaRecord] = []

    def poll(self) -> Offsets:
        """Read what arrived since the last poll; returns the latest offsets."""
        res = self.leaf._reader(self.fetched or self.committed)
        if self.committed is None:
            self.committed = initial_offsets(res)
        self.buffer.extend(res.records)
        latest = {t: dict(ps) for t, ps in (self.fetched or {}).items()}
        for t, ps in res.end.items():
            latest.setdefault(t, {}).update(ps)
        self.fetched = latest
        return latest

    def take(self, end: Offsets) -> ReadResult:
        """The records in ``[committed, end)`` as one batch's read."""
        start = self.committed or {}
        recs = [r for r in self.buffer
                if start.get(r.topic, {}).get(r.partition, 0) <= r.offset < end.get(r.topic, {}).get(r.partition, 0)]
        return ReadResult(records=recs, start=start, end=end)

    def commit(self, end: Offsets) -> None:
        self.committed = {t: dict(ps) for t, ps in end.items()}
        self.buffer = [r for r in self.buffer if r.offset >= end.get(r.topic, {}).get(r.partition, 0)]


class ContinuousQuery(QueryIdentity):
    """Spark's ``StreamingQuery`` for a driver-side continuous query on Sail."""

    def __init__(self, writer: Any, *, path: str | None, table: str | None) -> None:
        from pyspark.sql.connect.dataframe import DataFrame

        wp = writer._write_proto
        self._id, self._run_id = str(uuid.uuid4()), str(uuid.uuid4())
        self._name = wp.query_name or None
        self._interval = parse_interval(wp.processing_time_interval or "")
        self._opts = dict(wp.options)
        self._checkpoint = {k.lower(): v for k, v in self._opts.items()}.get("checkpointlocation")
        self._fmt = (wp.format or "").lower()
        self._foreach_batch = getattr(writer, "_fabrictest_foreach_batch", None)
        self._foreach = getattr(writer, "_fabrictest_foreach", None)
        self._path, self._table = path, table
        self._partition_by = list(wp.partitioning_column_names)
        self._sink = "foreachBatch" if self._foreach_batch else "foreach" if self._foreach else (self._fmt or "default")
        leaves = kafka_leaves(writer._write_stream._child)
        state = load_checkpoint(self._checkpoint)
        saved = {s["source"]: s for s in (state or {}).get("sources", [])}
        self._sources = []
        for i, leaf in enumerate(leaves):
            key = f"{i}:{leaf.description}"
            committed = parse_offsets(saved[key]["endOffset"]) if key in saved else None
            self._sources.append(StreamSource(i, leaf, committed))
        self._resumed = state is not None
        self._next_batch = int(state["batchId"]) + 1 if state else 0
        self._df = DataFrame.withPlan(writer._write_stream._child, writer._session)
        self._progress: list[dict[str, Any]] = []
        self._status = {"message": "Initializing sources", "isDataAvailable": False, "isTriggerActive": False}
        self._error: BaseException | None = None
        self._caught_up_at = -1.0
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"fabrictest-stream-{self._name or self._id}",
                                        daemon=True)

    def start(self) -> ContinuousQuery:
        trig = f"processingTime {self._interval:g} s" if self._interval else "default trigger"
        announce(f"Sail has no Kafka source; running {self._sink} in a driver thread on micro-batches "
                      f"({trig}, batchId from {self._next_batch}"
                      f"{', checkpoint ' + self._checkpoint if self._checkpoint else ', no checkpoint'}) until stop()")
        self._thread.start()
        return self

    # -- the loop ---------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                t0 = time.monotonic()
                more = self._trigger(t0)
                if self._stopping.is_set():
                    break
                if self._interval:
                    wait = self._interval - (time.monotonic() - t0)
                else:
                    wait = 0.0 if more else IDLE_POLL_SECONDS
                self._set_status("Waiting for next trigger" if self._interval else "Waiting for data to arrive",
                                 active=False)
                if wait > 0:
                    self._stopping.wait(wait)
        except Exception as e:  # surfaces at awaitTermination, like StreamingQueryException
            self._error = e
            announce(f"driver-side streaming query {self._name or self._id} failed: {e!r}\n"
                          + traceback.format_exc())
        finally:
            with self._cond:
                self._status = {"message": "Stopped", "isDataAvailable": False, "isTriggerActive": False}
                self._cond.notify_all()

    def _trigger(self, t0: float) -> bool:
        """One trigger: read, maybe run a batch; True when data is left for the next."""
        self._set_status("Getting offsets from the Kafka source", active=True)
        latest = [s.poll() for s in self._sources]
        ends = [rate_limit(s.leaf.max_offsets_per_trigger, s.committed or {}, lt) if s.leaf.max_offsets_per_trigger
                else lt for s, lt in zip(self._sources, latest)]
        first = self._next_batch == 0 and not self._resumed
        if not first and not any(has_new(s.committed or {}, e) for s, e in zip(self._sources, ends)):
            self._caught_up(t0)
            return False
        self._set_status("Processing new data", active=True, data=True)
        self._run_batch(ends, t0)
        more = any(has_new(s.committed or {}, lt) for s, lt in zip(self._sources, latest))
        if not more:
            self._caught_up(t0)
        return more

    def _run_batch(self, ends: list[Offsets], t0: float) -> None:
        batch_id = self._next_batch
        reads = [s.take(e) for s, e in zip(self._sources, ends)]
        starts = [None if batch_id == 0 and not self._resumed else json.loads(offsets_json(r.start)) for r in reads]
        token = bind_batch({id(s.leaf): r for s, r in zip(self._sources, reads)})
        try:
            run_sink(self._df, batch_id, self._fmt, self._opts, self._foreach_batch, self._foreach,
                           self._name, self._path, self._table, self._partition_by)
        finally:
            unbind_batch(token)
        for s, e in zip(self._sources, ends):
            s.commit(e)
        if self._checkpoint:
            save_checkpoint(self._checkpoint, {
                "batchId": batch_id,
                "sources": [{"source": s.key, "endOffset": json.loads(offsets_json(e))}
                            for s, e in zip(self._sources, ends)]})
        self._next_batch += 1
        self._record(batch_id, reads, starts, t0)

    def _record(self, batch_id: int, reads: list[ReadResult], starts: list[Any], t0: float) -> None:
        n = sum(len(r.records) for r in reads)
        secs = max(time.monotonic() - t0, 1e-3)
        progress = {
            "id": self._id, "runId": self._run_id, "name": self._name,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "batchId": batch_id, "numInputRows": n, "processedRowsPerSecond": n / secs,
            "durationMs": {"triggerExecution": int(secs * 1000)},
            "sources": [{"description": s.leaf.description, "startOffset": st,
                         "endOffset": json.loads(offsets_json(r.end)),
                         "latestOffset": json.loads(offsets_json(s.fetched or {})),
                         "numInputRows": len(r.records)} for s, r, st in zip(self._sources, reads, starts)],
            "sink": {"description": self._sink},
        }
        with self._cond:
            self._progress = (self._progress + [progress])[-RECENT_PROGRESS:]
            self._cond.notify_all()

    def _caught_up(self, t0: float) -> None:
        with self._cond:
            self._caught_up_at = t0
            self._cond.notify_all()

    def _set_status(self, message: str, *, active: bool, data: bool = False) -> None:
        with self._cond:
            self._status = {"message": message, "isDataAvailable": data, "isTriggerActive": active}

    # -- StreamingQuery ---------------------------------------------------------
    @property
    def isActive(self) -> bool:
        return self._thread.is_alive()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise StreamingQueryFailed(f"driver-side streaming query failed: {self._error}") from self._error

    def awaitTermination(self, timeout: float | None = None) -> bool | None:
        """Block until the query ends (``stop()`` or an exception); with a
        timeout in seconds, whether it ended. A failed query raises."""
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be a positive integer or float")
        self._thread.join(timeout)
        self._raise_if_failed()
        return None if timeout is None else not self._thread.is_alive()

    def processAllAvailable(self) -> None:
        """Block until every record available now has been processed."""
        t = time.monotonic()
        with self._cond:
            while self._caught_up_at < t and self._thread.is_alive():
                self._cond.wait(0.1)
        self._raise_if_failed()

    def stop(self) -> None:
        """Stop the loop after the batch in progress (its offsets committed)."""
        self._stopping.set()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def exception(self) -> BaseException | None:
        return self._error

    @property
    def status(self) -> dict[str, Any]:
        with self._cond:
            return dict(self._status)

    @property
    def lastProgress(self) -> dict[str, Any] | None:
        with self._cond:
            return self._progress[-1] if self._progress else None

    @property
    def recentProgress(self) -> list[dict[str, Any]]:
        with self._cond:
            return list(self._progress)

    def explain(self, extended: bool = False) -> None:
        print(f"== Driver-side continuous query ({self._sink}) ==\n" + "\n".join(
            s.leaf.print() for s in self._sources))

    def __repr__(self) -> str:
        return f"<ContinuousQuery name={self._name!r} id={self._id} active={self.isActive}>"


def start_query(writer: Any, *, path: str | None = None, table: str | None = None) -> ContinuousQuery:
    """Start a continuous driver-side query for a Connect ``DataStreamWriter``."""
    return ContinuousQuery(writer, path=path, table=table).start()
