"""The Connect leaf a driver-side ``format("kafka")`` read becomes on Sail.

A :class:`KafkaSourcePlan` is a leaf of the Spark Connect plan whose records
are read in the driver and shipped as Arrow ``LocalRelation``s with Spark's
exact Kafka schema. The records are read when the plan is first sent to the
server and then kept, so every action on the DataFrame sees the same rows; a
streaming query's thread binds the leaf to its current batch instead
(:func:`bind_batch`). This module depends on :mod:`spark_agent.microbatch`
(what a read is) and :mod:`spark_agent.kafka_schema`, never on the modules
that run queries.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from pyspark.sql.connect.plan import LocalRelation, LogicalPlan

from .checkpoint import Offsets
from .kafka_schema import chunk_by_bytes, kafka_schema, to_arrow
from .microbatch import ReadResult

# Bytes of key+value+headers per LocalRelation; bigger reads become several
# relations registered as temporary views and unioned (Sail cannot take the
# client's CachedLocalRelation, and one gRPC message has its limits).
DEFAULT_CHUNK_BYTES = int(os.environ.get("FABRICTEST_LOCAL_RELATION_BYTES", 4 * 1024 * 1024))

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
