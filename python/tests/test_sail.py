"""The notebook snippet on Sail (pysail's Spark Connect server, in-process).

Sail has no Kafka source and refuses ``foreachBatch`` at ``start()``; the
adapter reads in the driver and runs the batch function there. The emulator
runs on its embedded broker (franz-go kfake): the driver-side reads use the
emulator's consume route and kafka-python, both of which work with it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Emulator, Eventstream, assert_kafka_rows, orders, sail_session

pytestmark = pytest.mark.sail

NOTEBOOK_SCHEMA_FIELDS = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]


@pytest.fixture(scope="module")
def spark(embedded_emulator: Emulator) -> Iterator[Any]:
    with sail_session(embedded_emulator) as session:
        yield session


@pytest.fixture(scope="module")
def workspace(embedded_emulator: Emulator) -> str:
    return embedded_emulator.create_workspace("sail-witness")


def _es(emu: Emulator, ws: str, name: str) -> Eventstream:
    return emu.create_eventstream(ws, name)


def _wait(what: str, cond: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def test_notebook_snippet_runs_unmodified(spark: Any, embedded_emulator: Emulator, workspace: str,
                                          capfd: pytest.CaptureFixture) -> None:
    """Fabric's snippet is a continuous query: it stays active and, with Spark's
    default startingOffsets=latest, its batches hold what is produced after start()."""
    from spark_agent import KAFKA_SCHEMA

    es = _es(embedded_emulator, workspace, "orders")
    embedded_emulator.produce(es, orders(3, "before"))
    item_id, datasource_id = es.item_id, es.datasource_id

    batches: list[Any] = []

    def showDf(df: Any, epoch_id: int) -> None:
        df.show(truncate=False)
        batches.append((epoch_id, df.schema, df.collect()))

    # --- the Fabric notebook cell, unmodified ---
    df_raw = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": item_id,
        "eventstream.datasourceid": datasource_id,
    }).load()
    query = df_raw.writeStream.foreachBatch(showDf).outputMode("append").start()
    # ---
    try:
        assert query.isActive is True
        _wait("batch 0 (offsets pinned at latest)", lambda: bool(query.recentProgress))
        events = orders(7)
        produced = embedded_emulator.produce(es, events)
        _wait("7 rows in foreachBatch", lambda: sum(len(r) for _, _, r in batches) >= len(events))
        assert query.isActive is True
        assert query.awaitTermination(0.2) is False
    finally:
        query.stop()
    assert query.isActive is False
    assert query.awaitTermination(1) is True
    assert query.exception() is None
    assert query.status["message"] == "Stopped"
    err = capfd.readouterr().err
    assert "running foreachBatch in a driver thread on micro-batches" in err, err

    assert batches[0][0] == 0 and batches[0][2] == []  # batch 0 pins the offsets, like Spark's
    assert [e for e, _, _ in batches] == list(range(len(batches)))
    schema = batches[0][1]
    assert schema == KAFKA_SCHEMA
    assert [f.name for f in schema.fields] == NOTEBOOK_SCHEMA_FIELDS
    assert [f.dataType.simpleString() for f in schema.fields] == [
        "binary", "binary", "string", "int", "bigint", "timestamp", "int"]
    assert all(f.nullable for f in schema.fields)
    rows = [r for _, _, rs in batches for r in rs]
    assert_kafka_rows(rows, es, produced, events)
    progress = query.recentProgress
    assert [p["batchId"] for p in progress] == [e for e, _, _ in batches]
    assert sum(p["numInputRows"] for p in progress) == 7
    assert query.lastProgress == progress[-1]
    src = progress[-1]["sources"][0]
    assert set(src) >= {"description", "startOffset", "endOffset", "numInputRows"}
    assert progress[0]["sources"][0]["startOffset"] is None
    ends = src["endOffset"][es.topic]
    for w in produced["events"]:
        assert ends[str(w["partition"])] > w["offset"]


def test_wrong_item_id_fails_at_load_with_item_not_found(spark: Any, embedded_emulator: Emulator,
                                                         workspace: str) -> None:
    from spark_agent import EventstreamError

    es = _es(embedded_emulator, workspace, "wrong-id")
    with pytest.raises(EventstreamError) as ei:
        spark.readStream.format("kafka").options(**{
            "eventstream.itemid": "00000000-0000-0000-0000-000000000000",
            "eventstream.datasourceid": es.datasource_id}).load()
    assert ei.value.error_code == "ItemNotFound"
    assert ei.value.status == 404
    assert "ItemNotFound" in str(ei.value) and "00000000-0000-0000-0000-000000000000" in str(ei.value)

    with pytest.raises(EventstreamError) as ei:
        spark.read.format("kafka").options(**{
            "eventstream.itemid": es.item_id,
            "eventstream.datasourceid": "11111111-1111-1111-1111-111111111111"}).load()
    assert ei.value.error_code == "DatasourceNotFound"


def test_one_id_alone_fails_naming_the_other(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    from spark_agent import KafkaOptionError

    es = _es(embedded_emulator, workspace, "one-id")
    with pytest.raises(KafkaOptionError, match="eventstream.datasourceid") as ei:
        spark.readStream.format("kafka").option("eventstream.itemid", es.item_id).load()
    assert ei.value.option == "eventstream.datasourceid"
    with pytest.raises(KafkaOptionError, match="eventstream.itemid"):
        spark.readStream.format("kafka").option("eventstream.datasourceid", es.datasource_id).load()


def test_bootstrap_servers_and_subscribe_without_eventstream(spark: Any, embedded_emulator: Emulator,
                                                             workspace: str) -> None:
    """Native format("kafka") on Sail: driver-side consume with kafka-python."""
    from spark_agent import KAFKA_SCHEMA, KAFKA_SCHEMA_WITH_HEADERS

    es = _es(embedded_emulator, workspace, "native")
    events = orders(6)
    produced = embedded_emulator.produce(es, events)
    bootstrap = embedded_emulator.resolve(es)["bootstrapServers"]

    df = spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("subscribe", es.topic).load()
    assert df.schema == KAFKA_SCHEMA
    assert_kafka_rows(df.collect(), es, produced, events)

    # subscribePattern, includeHeaders: the header map arrives in order; no headers → null
    dfh = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
           .option("subscribePattern", re.escape(es.item_id) + r"\..*").option("includeHeaders", "true").load())
    assert dfh.schema == KAFKA_SCHEMA_WITH_HEADERS
    rows = {bytes(r["key"]).decode(): r for r in dfh.collect()}
    assert len(rows) == 6
    assert [(h["key"], bytes(h["value"])) for h in rows["o-3"]["headers"]] == [("source", b"pytest"), ("seq", b"3")]
    assert rows["o-1"]["headers"] is None

    # assign + JSON startingOffsets/endingOffsets: exactly the asked range
    part = produced["events"][0]["partition"]
    in_part = sorted(e["offset"] for e in produced["events"] if e["partition"] == part)
    dfa = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
           .option("assign", json.dumps({es.topic: [part]}))
           .option("startingOffsets", json.dumps({es.topic: {str(part): in_part[0] + 1 if len(in_part) > 1 else -2}}))
           .option("endingOffsets", json.dumps({es.topic: {str(part): -1}})).load())
    want = in_part[1:] if len(in_part) > 1 else in_part
    assert sorted(r["offset"] for r in dfa.collect()) == want
    assert {r["partition"] for r in dfa.collect()} == {part}


def test_bytes_survive_non_utf8_and_base64_lookalikes(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    """Values that are not UTF-8, and text that happens to look like base64, come back byte for byte
    through the emulator's consume route (base64 on the wire) and through kafka-python."""
    from kafka import KafkaProducer

    es = _es(embedded_emulator, workspace, "bytes")
    bootstrap = embedded_emulator.resolve(es)["bootstrapServers"]
    values = [b"\xff\x00\xfe\x80binary", b"aGVsbG8=", b"", "näive €".encode()]
    p = KafkaProducer(bootstrap_servers=bootstrap)
    for i, v in enumerate(values):
        p.send(es.topic, key=f"k{i}".encode(), value=v, partition=0, headers=[("h", b"\x00\xff")])
    p.flush()
    p.close()
    embedded_emulator.produce(es, [{"key": "b64", "value": "aGVsbG8="}])

    for df in (
        spark.read.format("kafka").options(**{"eventstream.itemid": es.item_id,
                                               "eventstream.datasourceid": es.datasource_id,
                                               "includeHeaders": "true"}).load(),
        spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("subscribe", es.topic)
        .option("includeHeaders", "true").load(),
    ):
        got = {bytes(r["key"]): r for r in df.collect()}
        for i, v in enumerate(values):
            assert bytes(got[f"k{i}".encode()]["value"]) == v
            assert [(h["key"], bytes(h["value"])) for h in got[f"k{i}".encode()]["headers"]] == [("h", b"\x00\xff")]
        assert bytes(got[b"b64"]["value"]) == b"aGVsbG8="


def test_checkpoint_resumes_with_only_new_records(spark: Any, embedded_emulator: Emulator, workspace: str,
                                                  tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    es = _es(embedded_emulator, workspace, "resume")
    embedded_emulator.produce(es, orders(4, "first"))
    ckpt = str(tmp_path / "ckpt")

    def run() -> list[Any]:
        got: list[Any] = []
        df = spark.readStream.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
            "startingOffsets": "earliest"}).load()
        q = (df.writeStream.foreachBatch(lambda d, epoch: got.append((epoch, d.collect())))
             .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
        q.awaitTermination()
        return got

    first = run()
    assert [e for e, _ in first] == [0] and len(first[0][1]) == 4
    embedded_emulator.produce(es, orders(3, "second"))
    second = run()
    assert [e for e, _ in second] == [1]
    assert sorted(bytes(r["key"]).decode() for r in second[0][1]) == ["second-0", "second-1", "second-2"]
    assert run() == []
    assert "no new records since the checkpoint" in capfd.readouterr().err


def test_ten_thousand_records_in_several_local_relations(spark: Any, embedded_emulator: Emulator, workspace: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Any number of records: reads bigger than one LocalRelation's budget become
    several relations (temporary views, unioned) instead of being capped."""
    from spark_agent import plan

    es = _es(embedded_emulator, workspace, "many")
    n = 10_000
    embedded_emulator.produce(es, [{"key": f"k{i}", "value": {"i": i}} for i in range(n)])
    monkeypatch.setattr(plan, "DEFAULT_CHUNK_BYTES", 128 * 1024)
    df = spark.read.format("kafka").options(**{"eventstream.itemid": es.item_id,
                                               "eventstream.datasourceid": es.datasource_id}).load()
    assert df.count() == n
    assert df.selectExpr("count(distinct key)").first()[0] == n
    assert len(df._plan._views) > 1  # the budget really split the read


def _produce_to_partition0(emu: Emulator, es: Eventstream, n: int, prefix: str) -> None:
    from kafka import KafkaProducer

    p = KafkaProducer(bootstrap_servers=emu.resolve(es)["bootstrapServers"])
    for i in range(n):
        p.send(es.topic, key=f"{prefix}-{i}".encode(), value=str(i).encode(), partition=0)
    p.flush()
    p.close()


def test_max_offsets_per_trigger_splits_the_batches(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    """maxOffsetsPerTrigger caps every micro-batch of a continuous query (Spark's
    KafkaMicroBatchStream.rateLimit; one partition, so the cap is exact); a
    one-shot availableNow run splits the same way; once ignores it, as Spark's
    Trigger.Once does."""
    es = _es(embedded_emulator, workspace, "paced")
    _produce_to_partition0(embedded_emulator, es, 10, "p")
    opts = {"eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
            "maxOffsetsPerTrigger": "4", "startingOffsets": "earliest"}
    sizes: list[Any] = []
    q = spark.readStream.format("kafka").options(**opts).load().writeStream.foreachBatch(
        lambda d, epoch: sizes.append((epoch, d.count()))).start()
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    assert sizes == [(0, 4), (1, 4), (2, 2)]
    assert [p["numInputRows"] for p in q.recentProgress] == [4, 4, 2]
    assert [p["sources"][0]["endOffset"][es.topic]["0"] for p in q.recentProgress] == [4, 8, 10]

    available: list[Any] = []
    spark.readStream.format("kafka").options(**opts).load().writeStream.foreachBatch(
        lambda d, epoch: available.append((epoch, d.count()))).trigger(availableNow=True).start().awaitTermination()
    assert available == [(0, 4), (1, 4), (2, 2)]
    # Trigger.Once ignores read limits in Spark: one batch.
    single: list[Any] = []
    spark.readStream.format("kafka").options(**opts).load().writeStream.foreachBatch(
        lambda d, epoch: single.append((epoch, d.count()))).trigger(once=True).start().awaitTermination()
    assert single == [(0, 10)]


def test_query_started_before_any_record_then_resumed_from_its_checkpoint(
        spark: Any, embedded_emulator: Emulator, workspace: str, tmp_path: Path) -> None:
    """Issue 18's done-when: records produced 5 s after start() arrive; after stop()
    and a restart from the checkpoint only the new ones do, batch ids continuing."""
    es = _es(embedded_emulator, workspace, "late")
    ckpt = str(tmp_path / "ckpt")
    got: list[Any] = []

    def start() -> Any:
        df = spark.readStream.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id}).load()
        return (df.writeStream.foreachBatch(lambda d, epoch: got.append((epoch, sorted(
            bytes(r["key"]).decode() for r in d.collect())))).option("checkpointLocation", ckpt).start())

    q = start()
    try:
        time.sleep(5)
        embedded_emulator.produce(es, orders(3, "late"))
        _wait("the 3 late records", lambda: sum(len(k) for _, k in got) >= 3)
    finally:
        q.stop()
    assert [k for _, k in got if k] == [["late-0", "late-1", "late-2"]]
    last = got[-1][0]
    embedded_emulator.produce(es, orders(2, "while-stopped"))
    got.clear()
    q = start()
    try:
        q.processAllAvailable()
        embedded_emulator.produce(es, orders(2, "after-restart"))
        q.processAllAvailable()
    finally:
        q.stop()
    assert sorted(k for _, ks in got for k in ks) == [
        "after-restart-0", "after-restart-1", "while-stopped-0", "while-stopped-1"]
    assert got[0][0] == last + 1 and all(ks for _, ks in got)  # no new batch 0, no empty batch


def test_processing_time_trigger_three_before_three_after(spark: Any, embedded_emulator: Emulator,
                                                          workspace: str) -> None:
    """The issue's cell: processingTime 500 ms, three events before start() and three after."""
    es = _es(embedded_emulator, workspace, "interval")
    embedded_emulator.produce(es, orders(3, "before"))
    results = {}
    for start_at in ("earliest", None):
        keys: list[str] = []
        times: list[float] = []
        opts = {"eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id}
        if start_at:
            opts["startingOffsets"] = start_at

        def batch(d: Any, epoch: int, keys: list[str] = keys, times: list[float] = times) -> None:
            times.append(time.monotonic())
            keys.extend(bytes(r["key"]).decode() for r in d.collect())

        q = (spark.readStream.format("kafka").options(**opts).load().writeStream.foreachBatch(batch)
             .trigger(processingTime="500 milliseconds").start())
        try:
            _wait("batch 0", lambda q=q: bool(q.recentProgress))
            embedded_emulator.produce(es, orders(3, f"after-{start_at}"))
            _wait("the later events", lambda keys=keys, s=start_at: sum(k.startswith(f"after-{s}") for k in keys) == 3)
            assert q.isActive
        finally:
            q.stop()
        results[start_at] = sorted(keys)
        assert all(b - a >= 0.45 for a, b in zip(times, times[1:])), times  # batches start on the interval
    assert results["earliest"] == sorted(["before-0", "before-1", "before-2",
                                          "after-earliest-0", "after-earliest-1", "after-earliest-2"])
    assert results[None] == ["after-None-0", "after-None-1", "after-None-2"]


def test_sink_exception_stops_the_query(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    from spark_agent.microbatch import StreamingQueryFailed

    es = _es(embedded_emulator, workspace, "boom")
    embedded_emulator.produce(es, orders(2))

    def boom(d: Any, epoch: int) -> None:
        if d.count():
            raise ValueError("sink exploded")

    q = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
        "startingOffsets": "earliest"}).load().writeStream.foreachBatch(boom).start()
    with pytest.raises(StreamingQueryFailed, match="sink exploded"):
        q.awaitTermination(30)
    assert q.isActive is False
    assert isinstance(q.exception(), ValueError)
    assert q.lastProgress is None  # the failed batch is not a completed one
    with pytest.raises(StreamingQueryFailed):
        q.processAllAvailable()
    q.stop()


def test_several_queries_at_once(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    """Two queries over one DataFrame and a third over another stream run side by side."""
    a, b = _es(embedded_emulator, workspace, "multi-a"), _es(embedded_emulator, workspace, "multi-b")
    df_a = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": a.item_id, "eventstream.datasourceid": a.datasource_id,
        "startingOffsets": "earliest"}).load()
    df_b = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": b.item_id, "eventstream.datasourceid": b.datasource_id,
        "startingOffsets": "earliest"}).load()
    got: dict[str, list[str]] = {"a1": [], "a2": [], "b": []}
    lock = threading.Lock()

    def sink(name: str) -> Any:
        def f(d: Any, epoch: int) -> None:
            keys = [bytes(r["key"]).decode() for r in d.collect()]
            with lock:
                got[name].extend(keys)
        return f

    qs = [df_a.writeStream.foreachBatch(sink("a1")).queryName("a1").start(),
          df_a.writeStream.foreachBatch(sink("a2")).queryName("a2").start(),
          df_b.writeStream.foreachBatch(sink("b")).queryName("b").start()]
    try:
        embedded_emulator.produce(a, orders(4, "a"))
        embedded_emulator.produce(b, orders(3, "b"))
        for q in qs:
            q.processAllAvailable()
        assert all(q.isActive for q in qs)
    finally:
        for q in qs:
            q.stop()
    assert sorted(got["a1"]) == sorted(got["a2"]) == ["a-0", "a-1", "a-2", "a-3"]
    assert sorted(got["b"]) == ["b-0", "b-1", "b-2"]
    assert [q.name for q in qs] == ["a1", "a2", "b"]


def test_kafka_sink_round_trip(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    """write.format("kafka") produces from the driver, byte for byte; read it back."""
    src = _es(embedded_emulator, workspace, "sink-src")
    dst = _es(embedded_emulator, workspace, "sink-dst")
    events = orders(5)
    embedded_emulator.produce(src, events)
    bootstrap = embedded_emulator.resolve(src)["bootstrapServers"]
    df = spark.read.format("kafka").options(**{"eventstream.itemid": src.item_id,
                                               "eventstream.datasourceid": src.datasource_id,
                                               "includeHeaders": "true"}).load()
    (df.select("key", "value", "headers").write.format("kafka").option("kafka.bootstrap.servers", bootstrap)
     .option("topic", dst.topic).save())
    back = spark.read.format("kafka").options(**{"eventstream.itemid": dst.item_id,
                                                 "eventstream.datasourceid": dst.datasource_id,
                                                 "includeHeaders": "true"}).load().collect()
    assert sorted((bytes(r["key"]), bytes(r["value"])) for r in back) == sorted(
        (bytes(r["key"]), bytes(r["value"])) for r in df.collect())
    assert sum(1 for r in back if r["headers"]) == sum(1 for e in events if "headers" in e)


def test_refusals_name_the_option(spark: Any, embedded_emulator: Emulator, workspace: str) -> None:
    from spark_agent import KafkaOptionError

    es = _es(embedded_emulator, workspace, "refusals")
    ids = {"eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id}
    bootstrap = embedded_emulator.resolve(es)["bootstrapServers"]
    cases = [
        ({**ids, "startingTimestamp": "1000"}, "startingTimestamp"),
        ({**ids, "subscribe": es.topic}, "subscribe"),
        ({"kafka.bootstrap.servers": bootstrap}, "subscribe"),
        ({"kafka.bootstrap.servers": bootstrap, "subscribe": es.topic, "kafka.auto.offset.reset": "earliest"},
         "kafka.auto.offset.reset"),
        ({"kafka.bootstrap.servers": bootstrap, "subscribe": es.topic, "kafka.no.such.setting": "1"},
         "kafka.no.such.setting"),
    ]
    for opts, name in cases:
        with pytest.raises(KafkaOptionError) as ei:
            spark.read.format("kafka").options(**opts).load()
        assert ei.value.option == name, (opts, ei.value)
    with pytest.raises(KafkaOptionError, match="ending offset not valid in streaming queries"):
        spark.readStream.format("kafka").options(**ids, endingOffsets="latest").load()
    with pytest.raises(KafkaOptionError, match="can't be latest for batch"):
        spark.read.format("kafka").options(**ids, startingOffsets="latest").load()


def test_lakehouse_destination_writes_delta_read_by_delta_rs(embedded_emulator: Emulator, workspace: str) -> None:
    """The witness's first half: bind a Lakehouse, produce, read Tables/<name>/_delta_log with delta-rs."""
    from deltalake import DeltaTable

    emu = embedded_emulator
    es = _es(emu, workspace, "to-lakehouse")
    lh = emu.call("POST", f"/v1/workspaces/{workspace}/lakehouses", {"displayName": "sail_lh"})
    dest = emu.bind_lakehouse(es, lh["id"], "orders")
    assert dest["type"] == "Lakehouse"
    events = orders(5)
    emu.produce(es, [{"key": e["key"], "value": e["value"]} for e in events])
    table = Path(lh["properties"]["x-fabrictest-localTablesPath"]) / "orders"
    assert (table / "_delta_log").is_dir()
    dt = DeltaTable(str(table))
    t = dt.to_pyarrow_table()
    assert t.num_rows == 5
    assert {"id", "amount", "note"} <= set(t.column_names)


def test_rate_is_never_used() -> None:
    """The adapter never maps an Eventstream onto the rate source."""
    src = Path(__file__).resolve().parents[1] / "spark_agent"
    for f in src.glob("*.py"):
        assert not re.search(r"""["']rate["']""", f.read_text()), f
