"""The notebook snippet on JVM Spark 3.5.5 with the real spark-sql-kafka source,
twice: on ``local[1]`` (the driver reads Kafka) and on a standalone cluster
(``spark://``, one master and two workers from the same ``SPARK_HOME``, the
``spark_cluster`` fixture), where the Kafka source's executors, not the
driver, must reach the broker the emulator advertised.

Broker: Apache Kafka 3.9.1 in a container (fabrictest/kafka:3.9.1-local), not
the emulator's embedded broker. With the embedded broker (franz-go kfake)
Spark's Java client fails before reading anything: kfake answers
ApiVersions (v3, what kafka-clients 3.4.1 sends) with SupportedFeatures whose
minVersion is 0, and kafka-clients 3.4.1 refuses such a range
(``IllegalArgumentException: Expected minValue >= 1, maxValue >= 1 and maxValue
>= minValue, but received minValue: 0, maxValue: 1`` in
``SupportedVersionRange.<init>`` ← ``NodeApiVersions.<init>`` ←
``NetworkClient.handleApiVersionsResponse``), which kills the AdminClient
thread (``TimeoutException: The AdminClient thread has exited. Call:
describeTopics``). Apache Kafka 3.9 leaves such features out of ApiVersions
answers below v4, so the same jar works against it.

JVM Spark here is the Scala 2.13 build of Spark 3.5.5 that
scripts/install-spark-deps.sh lays out from Maven (see spark_agent.jvm for why
not the wheel's Scala 2.12 jars).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from conftest import Emulator, assert_kafka_rows, orders
from spark_cluster import EXECUTOR_MEMORY, WORKER_CORES, WORKERS, task_executors

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module", params=["local", "standalone"])
def spark(request: pytest.FixtureRequest, kafka_emulator: Emulator,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A session on ``local[1]``, then one on the standalone cluster: one
    executor per worker (``spark.cores.max`` = the workers' cores), the first
    job held until both have registered. Either way the driver's event log
    (``spark.eventLog.dir``) records where each task ran."""
    from spark_agent import install
    from spark_agent.jvm import INSTALL_HINT, session_builder

    master = "local[1]"
    if request.param == "standalone":
        master = request.getfixturevalue("spark_cluster").master_url
    try:
        builder = session_builder(master)
    except FileNotFoundError as e:
        pytest.fail(f"{e} (bash scripts/install-spark-deps.sh)" if INSTALL_HINT not in str(e) else str(e),
                    pytrace=False)
    builder = (builder.config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.streaming.noDataProgressEventInterval", "200")
               .config("spark.eventLog.enabled", "true")
               .config("spark.eventLog.dir", tmp_path_factory.mktemp("spark-events").as_uri()))
    if request.param == "standalone":
        builder = (builder.config("spark.executor.memory", EXECUTOR_MEMORY)
                   .config("spark.executor.cores", str(WORKER_CORES))
                   .config("spark.cores.max", str(WORKERS * WORKER_CORES))
                   .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
                   .config("spark.scheduler.maxRegisteredResourcesWaitingTime", "60s"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    assert session.sparkContext.master == master
    install(session, kafka_emulator.url, kafka_emulator.token)
    try:
        yield session
    finally:
        for q in session.streams.active:
            q.stop()
        session.stop()


@pytest.fixture
def workspace(kafka_emulator: Emulator) -> str:
    """A workspace per test: each test runs once per master, with the same
    Eventstream names."""
    return kafka_emulator.create_workspace(f"jvm-witness-{uuid.uuid4().hex[:8]}")


def _wait(what: str, cond: Callable[[], bool], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


def test_notebook_snippet_runs_unmodified(spark: Any, kafka_emulator: Emulator, workspace: str) -> None:
    """Spark's default for a stream is startingOffsets=latest: the query starts,
    its first trigger pins the offsets, then the events are produced."""
    from spark_agent import KAFKA_SCHEMA

    es = kafka_emulator.create_eventstream(workspace, "orders")
    item_id, datasource_id = es.item_id, es.datasource_id
    batches: list[Any] = []

    def showDf(df: Any, epoch_id: int) -> None:
        rows = df.collect()
        if rows:
            batches.append((epoch_id, df.schema, rows))

    # --- the Fabric notebook cell, unmodified ---
    df_raw = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": item_id,
        "eventstream.datasourceid": datasource_id,
    }).load()
    query = df_raw.writeStream.foreachBatch(showDf).outputMode("append").start()
    # ---
    try:
        assert query.isActive
        _wait("the first trigger (offsets pinned at latest)", lambda: bool(query.recentProgress))
        events = orders(7)
        produced = kafka_emulator.produce(es, events)
        _wait("7 rows in foreachBatch", lambda: sum(len(r) for _, _, r in batches) >= len(events))
    finally:
        query.stop()
    assert not query.isActive
    assert query.exception() is None

    rows = [r for _, _, r in batches for r in r]
    schema = batches[0][1]
    assert schema == KAFKA_SCHEMA
    assert [f.name for f in schema.fields] == ["key", "value", "topic", "partition", "offset", "timestamp",
                                               "timestampType"]
    assert_kafka_rows(rows, es, produced, events)
    # The real source, not a stand-in: its plan names the Kafka micro-batch stream.
    assert "KafkaV2" in query.lastProgress["sources"][0]["description"] or \
        "Kafka" in query.lastProgress["sources"][0]["description"]


def test_wrong_item_id_fails_at_load_with_item_not_found(spark: Any, kafka_emulator: Emulator,
                                                         workspace: str) -> None:
    from spark_agent import EventstreamError, KafkaOptionError

    es = kafka_emulator.create_eventstream(workspace, "wrong-id")
    with pytest.raises(EventstreamError) as ei:
        spark.readStream.format("kafka").options(**{
            "eventstream.itemid": "00000000-0000-0000-0000-000000000000",
            "eventstream.datasourceid": es.datasource_id}).load()
    assert ei.value.error_code == "ItemNotFound" and ei.value.status == 404
    with pytest.raises(KafkaOptionError, match="eventstream.itemid"):
        spark.readStream.format("kafka").option("eventstream.datasourceid", es.datasource_id).load()


def test_options_reach_the_kafka_source_and_plain_kafka_is_untouched(spark: Any, kafka_emulator: Emulator,
                                                                     workspace: str) -> None:
    """includeHeaders and JSON starting/ending offsets go through with the
    eventstream pair; without it, format("kafka") is Spark's own."""
    from spark_agent import KAFKA_SCHEMA_WITH_HEADERS

    es = kafka_emulator.create_eventstream(workspace, "batch")
    events = orders(6)
    produced = kafka_emulator.produce(es, events)
    df = spark.read.format("kafka").options(**{
        "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
        "includeHeaders": "true"}).load()
    assert df.schema == KAFKA_SCHEMA_WITH_HEADERS
    rows = {bytes(r["key"]).decode(): r for r in df.collect()}
    assert_kafka_rows(list(rows.values()), es, produced, events)
    assert [(h["key"], bytes(h["value"])) for h in rows["o-3"]["headers"]] == [("source", b"pytest"), ("seq", b"3")]
    assert rows["o-1"]["headers"] is None

    part = produced["events"][0]["partition"]
    ending = {es.topic: {str(p): -1 for p in range(4)}}
    ending[es.topic][str(part)] = produced["events"][0]["offset"]  # exclusive: stop before the first event
    starting = {es.topic: {str(p): -2 for p in range(4)}}
    ranged = spark.read.format("kafka").options(**{
        "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
        "startingOffsets": json.dumps(starting), "endingOffsets": json.dumps(ending)}).load()
    keys = {bytes(r["key"]).decode() for r in ranged.collect()}
    cut = produced["events"][0]["offset"]
    assert keys == {e["key"] for e, w in zip(events, produced["events"])
                    if w["partition"] != part or w["offset"] < cut}
    assert "o-0" not in keys

    bootstrap = kafka_emulator.resolve(es)["bootstrapServers"]
    plain = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
             .option("subscribe", es.topic).load())
    assert plain.count() == 6


def test_checkpointed_stream_resumes_from_its_checkpoint(spark: Any, kafka_emulator: Emulator, workspace: str,
                                                         tmp_path: Path) -> None:
    es = kafka_emulator.create_eventstream(workspace, "resume")
    kafka_emulator.produce(es, orders(4, "first"))
    ckpt = str(tmp_path / "ckpt")

    def run() -> list[str]:
        keys: list[str] = []
        df = spark.readStream.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
            "startingOffsets": "earliest"}).load()
        q = (df.writeStream.foreachBatch(lambda d, epoch: keys.extend(bytes(r["key"]).decode() for r in d.collect()))
             .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
        assert q.awaitTermination(180), "availableNow query did not finish"
        assert q.exception() is None
        return sorted(keys)

    assert run() == ["first-0", "first-1", "first-2", "first-3"]
    kafka_emulator.produce(es, orders(3, "second"))
    assert run() == ["second-0", "second-1", "second-2"]


def test_kafka_partitions_are_read_where_the_master_runs_tasks(spark: Any, kafka_emulator: Emulator,
                                                             workspace: str) -> None:
    """The tasks that read the Eventstream's partitions ran in the driver on
    ``local[1]``; on the standalone cluster none ran in the driver, and both
    executors (one per worker, on 127.0.0.1) read partitions from the broker
    the resolve route named. Where each task ran comes from the driver's
    event log (each SparkListenerTaskEnd's executor id and host)."""
    es = kafka_emulator.create_eventstream(workspace, "executors")
    events = orders(12)
    produced = kafka_emulator.produce(es, events)
    sc = spark.sparkContext
    marker = f"executors-{uuid.uuid4()}"
    sc.setLocalProperty("fabrictest.witness", marker)
    try:
        rows = spark.read.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id}).load().collect()
    finally:
        sc.setLocalProperty("fabrictest.witness", None)
    assert_kafka_rows(rows, es, produced, events)

    event_dir = Path(urlparse(spark.conf.get("spark.eventLog.dir")).path)
    tasks = task_executors(event_dir, sc.applicationId, "fabrictest.witness", marker)
    print(f"{sc.master}: Kafka tasks ran on {sorted(tasks)}")
    executors = {ex for ex, _ in tasks}
    assert len(tasks) >= len({w["partition"] for w in produced["events"]})
    if sc.master.startswith("local"):
        assert executors == {"driver"}
    else:
        assert "driver" not in executors
        assert len(executors) == WORKERS, f"want every executor to read a partition, got {sorted(tasks)}"
        assert {host for _, host in tasks} == {"127.0.0.1"}


def test_lakehouse_destination_on_apache_kafka(kafka_emulator: Emulator, workspace: str) -> None:
    """Bind a Lakehouse, produce through the Custom HTTP source, read the Delta commit with delta-rs."""
    from deltalake import DeltaTable

    emu = kafka_emulator
    es = emu.create_eventstream(workspace, "to-lakehouse")
    lh = emu.call("POST", f"/v1/workspaces/{workspace}/lakehouses", {"displayName": "jvm_lh"})
    emu.bind_lakehouse(es, lh["id"], "orders")
    emu.produce(es, [{"key": e["key"], "value": e["value"]} for e in orders(5)])
    table = Path(lh["properties"]["x-fabrictest-localTablesPath"]) / "orders"
    t = DeltaTable(str(table)).to_pyarrow_table()
    assert t.num_rows == 5
    assert {"id", "amount", "note"} <= set(t.column_names)
