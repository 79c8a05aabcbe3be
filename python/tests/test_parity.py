"""One behaviour on both engines: the same cells on JVM Spark and on Sail, one emulator.

Each case is a notebook cell written once (``CASES``) and run twice against
the emulator backed by Apache Kafka in a container: first on JVM Spark 3.5.5
with the real spark-sql-kafka source, then on Sail with the driver-side path.
Each run gets its own Eventstream with the same events produced the same way,
so partitions and offsets line up and the results must be equal.

Behaviours follow Spark's Structured Streaming + Kafka Integration Guide
(startingOffsets defaults to "latest" for streams, JSON offsets with -2/-1,
maxOffsetsPerTrigger, includeHeaders) and the Structured Streaming
Programming Guide (triggers, checkpoint recovery) — what Fabric's notebooks run.
Where a batch's composition depends on timing (records produced while the
query runs), the cells compare the rows, not the batches.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import Emulator, Eventstream, orders, sail_session

pytestmark = [pytest.mark.jvm, pytest.mark.sail, pytest.mark.apache_kafka]


@dataclass
class Cell:
    """What a cell gets: the session, the emulator, a scratch directory."""

    spark: Any
    emu: Emulator
    workspace: str
    engine: str
    tmp: Path

    def stream(self, name: str) -> Eventstream:
        return self.emu.create_eventstream(self.workspace, f"{name}-{self.engine}")


def _wait(what: str, cond: Callable[[], bool], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def _b(v: Any) -> bytes | None:
    return None if v is None else bytes(v)


def _row(r: Any) -> tuple:
    d = r.asDict()
    headers = d.get("headers")
    hs = None if headers is None else tuple((h["key"], _b(h["value"])) for h in headers)
    return (_b(d["key"]), _b(d["value"]), d["partition"], d["offset"], d["timestampType"], hs)


def _sorted(rows: list[tuple]) -> list[tuple]:
    return sorted(rows, key=lambda t: (t[2], t[3]))


class Run:
    """One streaming query of a cell: foreachBatch collects (batchId, rows)."""

    def __init__(self, c: Cell, es: Eventstream, opts: dict[str, str] | None = None, *,
                 trigger: str | None = None, checkpoint: str | None = None, available_now: bool = False) -> None:
        self.batches: list[tuple[int, list[tuple]]] = []
        self._lock = threading.Lock()
        df = c.spark.readStream.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id, **(opts or {})}).load()
        w = df.writeStream.foreachBatch(self._sink)
        if trigger:
            w = w.trigger(processingTime=trigger)
        if available_now:
            w = w.trigger(availableNow=True)
        if checkpoint:
            w = w.option("checkpointLocation", checkpoint)
        self.query = w.start()

    def _sink(self, d: Any, epoch: int) -> None:
        rows = [_row(r) for r in d.collect()]
        with self._lock:
            self.batches.append((epoch, rows))

    def rows(self) -> list[tuple]:
        with self._lock:
            return _sorted([r for _, rs in self.batches for r in rs])

    def until(self, n: int) -> list[tuple]:
        _wait(f"{n} rows", lambda: len(self.rows()) >= n)
        return self.rows()

    def stop(self) -> None:
        self.query.stop()
        assert self.query.exception() is None

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def _produce_raw(c: Cell, es: Eventstream, records: list[tuple[bytes | None, bytes | None, list | None]]) -> None:
    from kafka import KafkaProducer

    p = KafkaProducer(bootstrap_servers=c.emu.resolve(es)["bootstrapServers"])
    for k, v, h in records:
        p.send(es.topic, key=k, value=v, headers=h, partition=0)
    p.flush()
    p.close()


def _partitions(c: Cell, es: Eventstream) -> int:
    from kafka import KafkaConsumer

    k = KafkaConsumer(bootstrap_servers=c.emu.resolve(es)["bootstrapServers"])
    try:
        return len(k.partitions_for_topic(es.topic) or ())
    finally:
        k.close()


# -- the cells ------------------------------------------------------------------------

def cell_default_start(c: Cell) -> Any:
    es = c.stream("default")
    c.emu.produce(es, orders(3, "before"))
    with Run(c, es) as run:
        run.query.processAllAvailable()
        c.emu.produce(es, orders(3, "after"))
        return run.until(3)


def cell_earliest_processing_time(c: Cell) -> Any:
    es = c.stream("earliest")
    c.emu.produce(es, orders(3, "before"))
    with Run(c, es, {"startingOffsets": "earliest"}, trigger="500 milliseconds") as run:
        run.query.processAllAvailable()
        c.emu.produce(es, orders(3, "after"))
        return run.until(6)


def cell_json_offsets(c: Cell) -> Any:
    es = c.stream("json")
    produced = c.emu.produce(es, orders(8))
    first = produced["events"][0]
    nparts = _partitions(c, es)
    start = {es.topic: {str(p): -2 for p in range(nparts)}}
    start[es.topic][str(first["partition"])] = first["offset"] + 1
    with Run(c, es, {"startingOffsets": json.dumps(start)}) as run:
        run.query.processAllAvailable()
        return run.rows()


def cell_max_offsets_per_trigger(c: Cell) -> Any:
    es = c.stream("paced")
    c.emu.produce(es, orders(23))
    with Run(c, es, {"startingOffsets": "earliest", "maxOffsetsPerTrigger": "5"}) as run:
        run.query.processAllAvailable()
        return [(e, _sorted(rs)) for e, rs in run.batches if rs]


def cell_available_now_max_offsets(c: Cell) -> Any:
    es = c.stream("paced-once")
    c.emu.produce(es, orders(23))
    run = Run(c, es, {"startingOffsets": "earliest", "maxOffsetsPerTrigger": "5"}, available_now=True)
    assert run.query.awaitTermination(120), "availableNow query did not finish"
    assert run.query.exception() is None
    return [(e, _sorted(rs)) for e, rs in run.batches if rs]


def cell_checkpoint_resume(c: Cell) -> Any:
    es = c.stream("resume")
    ckpt = str(c.tmp / f"ckpt-{c.engine}")
    c.emu.produce(es, orders(3, "first"))
    opts = {"startingOffsets": "earliest"}
    with Run(c, es, opts, checkpoint=ckpt) as one:
        one.query.processAllAvailable()
    c.emu.produce(es, orders(2, "stopped"))
    with Run(c, es, opts, checkpoint=ckpt) as two:
        two.query.processAllAvailable()
        c.emu.produce(es, orders(2, "restarted"))
        rows = two.until(4)
    return [(e, _sorted(rs)) for e, rs in one.batches if rs], two.batches[0][0], rows


def cell_after_start(c: Cell) -> Any:
    es = c.stream("after")
    with Run(c, es, {"startingOffsets": "earliest"}) as run:
        run.query.processAllAvailable()
        time.sleep(1)
        c.emu.produce(es, orders(5, "late"))
        return run.until(5)


def cell_include_headers(c: Cell) -> Any:
    es = c.stream("headers")
    c.emu.produce(es, orders(6))
    with Run(c, es, {"startingOffsets": "earliest", "includeHeaders": "true"}) as run:
        run.query.processAllAvailable()
        return run.rows()


def cell_null_keys_and_values(c: Cell) -> Any:
    es = c.stream("nulls")
    # (kafka-python will not produce a record with neither key nor value)
    _produce_raw(c, es, [(None, b"v", None), (b"k", None, None), (b"", b"", None), (None, b"", None)])
    with Run(c, es, {"startingOffsets": "earliest"}) as run:
        run.query.processAllAvailable()
        return run.rows()


def cell_binary_values(c: Cell) -> Any:
    es = c.stream("binary")
    _produce_raw(c, es, [(b"\x00\xff", b"\xff\x00\xfe\x80binary", [("h", b"\x00\xff")]),
                         (b"b64", b"aGVsbG8=", None), (b"utf8", "näive €".encode(), [("a", b""), ("a", b"2")])])
    with Run(c, es, {"startingOffsets": "earliest", "includeHeaders": "true"}) as run:
        run.query.processAllAvailable()
        return run.rows()


def cell_ten_thousand(c: Cell) -> Any:
    es = c.stream("many")
    c.emu.produce(es, [{"key": f"k{i}", "value": {"i": i}} for i in range(10_000)])
    with Run(c, es, {"startingOffsets": "earliest"}) as run:
        run.query.processAllAvailable()
        return run.rows()


CASES: dict[str, Callable[[Cell], Any]] = {
    "default_start": cell_default_start,
    "earliest_processing_time": cell_earliest_processing_time,
    "json_offsets": cell_json_offsets,
    "max_offsets_per_trigger": cell_max_offsets_per_trigger,
    "available_now_max_offsets": cell_available_now_max_offsets,
    "checkpoint_resume": cell_checkpoint_resume,
    "after_start": cell_after_start,
    "include_headers": cell_include_headers,
    "null_keys_and_values": cell_null_keys_and_values,
    "binary_values": cell_binary_values,
    "ten_thousand": cell_ten_thousand,
}


def _run_all(c: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, cell in CASES.items():
        t0 = time.monotonic()
        try:
            out[name] = ("ok", cell(c))
        except Exception as e:  # reported by the case's test
            out[name] = ("error", f"{type(e).__name__}: {e}")
        print(f"parity {c.engine} {name}: {time.monotonic() - t0:.1f}s", flush=True)
    return out


# -- the engines ------------------------------------------------------------------------

def _on_jvm(emu: Emulator, ws: str, tmp: Path) -> dict[str, Any]:
    from spark_agent import install
    from spark_agent.jvm import session_builder

    session = (session_builder("local[2]").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    install(session, emu.url, emu.token)
    try:
        return _run_all(Cell(session, emu, ws, "jvm", tmp))
    finally:
        for q in session.streams.active:
            q.stop()
        session.stop()


def _on_sail(emu: Emulator, ws: str, tmp: Path) -> dict[str, Any]:
    with sail_session(emu) as session:
        return _run_all(Cell(session, emu, ws, "sail", tmp))


@pytest.fixture(scope="module")
def results(kafka_emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    ws = kafka_emulator.create_workspace("parity")
    tmp = tmp_path_factory.mktemp("parity")
    jvm = _on_jvm(kafka_emulator, ws, tmp)
    sail = _on_sail(kafka_emulator, ws, tmp)
    yield {"jvm": jvm, "sail": sail}


def _keys(rows: list[tuple]) -> list[str]:
    return sorted((r[0] or b"").decode() for r in rows)


# What each cell must return (checked on the JVM result, which Sail's must equal).
EXPECT: dict[str, Callable[[Any], bool]] = {
    "default_start": lambda r: _keys(r) == ["after-0", "after-1", "after-2"],
    "earliest_processing_time": lambda r: _keys(r) == sorted([f"{p}-{i}" for p in ("after", "before") for i in range(3)]),
    "json_offsets": lambda r: len(r) == 7 and "o-0" not in _keys(r),
    "max_offsets_per_trigger": lambda r: sum(len(rs) for _, rs in r) == 23 and all(len(rs) <= 5 for _, rs in r)
    and len(r) >= 5,
    "available_now_max_offsets": lambda r: sum(len(rs) for _, rs in r) == 23 and all(len(rs) <= 5 for _, rs in r)
    and len(r) >= 5,
    "checkpoint_resume": lambda r: [(e, _keys(rs)) for e, rs in r[0]] == [(0, ["first-0", "first-1", "first-2"])]
    and r[1] == 1 and _keys(r[2]) == ["restarted-0", "restarted-1", "stopped-0", "stopped-1"],
    "after_start": lambda r: _keys(r) == [f"late-{i}" for i in range(5)],
    "include_headers": lambda r: len(r) == 6 and sum(1 for x in r if x[5]) == 2
    and next(x for x in r if x[0] == b"o-3")[5] == (("source", b"pytest"), ("seq", b"3")),
    "null_keys_and_values": lambda r: [(x[0], x[1]) for x in r] == [(None, b"v"), (b"k", None), (b"", b""),
                                                                     (None, b"")],
    "binary_values": lambda r: [(x[1], x[5]) for x in r] == [
        (b"\xff\x00\xfe\x80binary", (("h", b"\x00\xff"),)), (b"aGVsbG8=", None),
        ("näive €".encode(), (("a", b""), ("a", b"2")))],
    "ten_thousand": lambda r: len(r) == 10_000 and len({x[0] for x in r}) == 10_000,
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_cell_same_result_on_jvm_and_sail(results: dict[str, Any], case: str) -> None:
    jvm, sail = results["jvm"][case], results["sail"][case]
    assert jvm[0] == "ok", f"JVM Spark: {jvm[1]}"
    assert sail[0] == "ok", f"Sail: {sail[1]}"
    assert EXPECT[case](jvm[1]), f"JVM Spark's result is not what the cell expects: {jvm[1]!r}"[:3000]
    assert sail[1] == jvm[1]
