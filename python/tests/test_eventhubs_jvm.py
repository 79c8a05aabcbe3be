"""``format("eventhubs")`` and Databricks' Kafka-protocol form on JVM Spark
(spark-sql-kafka through the custom endpoint, Apache Kafka behind the
emulator), then the same reads on Sail against the same emulator: both
engines read the same records.

Follows the azure-event-hubs-spark connector guide (options and columns) and
Microsoft Learn "Use Azure Event Hubs from Apache Kafka applications" (the
Kafka-protocol settings Databricks notebooks use).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from conftest import Emulator, orders, sail_session
from eventhubs_helpers import EventHub, deploy_event_hub

pytestmark = pytest.mark.jvm

SEEN: dict[str, Any] = {}


@pytest.fixture(scope="module")
def hub(kafka_emulator: Emulator) -> EventHub:
    ws = kafka_emulator.create_workspace("eventhubs-engines")
    h = deploy_event_hub(kafka_emulator, ws, "eh")
    SEEN["before"] = datetime.now(timezone.utc) - timedelta(seconds=30)
    SEEN["produced"] = kafka_emulator.produce(h.es, orders(6, "eh"))
    return h


def read_all(spark: Any, fmt: str, opts: dict[str, str]) -> list[list[Any]]:
    """The rows of each micro-batch of one availableNow query."""
    batches: list[list[Any]] = []
    q = (spark.readStream.format(fmt).options(**opts).load().writeStream
         .foreachBatch(lambda d, e: batches.append(d.collect())).trigger(availableNow=True).start())
    assert q.awaitTermination(180), "availableNow query did not finish"
    assert q.exception() is None
    return batches


def eh_rows(batches: list[list[Any]]) -> list[tuple]:
    return sorted((r["partition"], r["offset"], r["sequenceNumber"], bytes(r["body"]), r["partitionKey"],
                   tuple(sorted(r["properties"].items()))) for b in batches for r in b)


def kafka_rows(batches: list[list[Any]]) -> list[tuple]:
    return sorted((r["topic"], r["partition"], r["offset"], bytes(r["key"]), bytes(r["value"]))
                  for b in batches for r in b)


def run_cells(spark: Any, hub: EventHub, engine: str) -> None:
    """The same cells on either engine; results kept per engine in SEEN."""
    conf = {"eventhubs.connectionString": hub.connection_string, "eventhubs.consumerGroup": "$Default"}
    df = spark.readStream.format("eventhubs").options(**conf).load()
    SEEN[engine, "schema"] = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
    SEEN[engine, "eventhubs"] = eh_rows(read_all(spark, "eventhubs", conf))
    when = {"offset": None, "seqNo": -1, "enqueuedTime": SEEN["before"].strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "isInclusive": True}
    SEEN[engine, "by_time"] = eh_rows(read_all(spark, "eventhubs", {
        **conf, "eventhubs.startingPosition": json.dumps(when)}))
    paced = read_all(spark, "eventhubs", {**conf, "maxEventsPerTrigger": "4"})
    SEEN[engine, "paced"] = [len(b) for b in paced]
    SEEN[engine, "kafka"] = kafka_rows(read_all(spark, "kafka", {**hub.kafka_options(),
                                                                 "startingOffsets": "earliest"}))


class TestJvm:
    @pytest.fixture(scope="class")
    @classmethod
    def spark(cls, kafka_emulator: Emulator) -> Iterator[Any]:
        from spark_agent import install
        from spark_agent.jvm import session_builder

        session = session_builder("local[1]").config("spark.ui.showConsoleProgress", "false").getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
        install(session, kafka_emulator.url, kafka_emulator.token)
        try:
            yield session
        finally:
            for q in session.streams.active:
                q.stop()
            session.stop()

    def test_jvm_reads_the_event_hub(self, spark: Any, hub: EventHub) -> None:
        run_cells(spark, hub, "jvm")
        produced = SEEN["produced"]["events"]
        events = orders(6, "eh")
        assert SEEN["jvm", "eventhubs"] == sorted(
            (str(w["partition"]), str(w["offset"]), w["offset"], json.dumps(e["value"], separators=(",", ":")).encode(),
             e["key"], tuple(sorted(e.get("headers", {}).items()))) for e, w in zip(events, produced))
        assert sorted(r[3] for r in SEEN["jvm", "kafka"]) == sorted(e["key"].encode() for e in events)
        assert sum(SEEN["jvm", "paced"]) == 6 and max(SEEN["jvm", "paced"]) <= 4
        assert SEEN["jvm", "by_time"] == SEEN["jvm", "eventhubs"]  # enqueuedTime before every event


class TestSail:
    @pytest.fixture(scope="class")
    @classmethod
    def spark(cls, kafka_emulator: Emulator) -> Iterator[Any]:
        with sail_session(kafka_emulator) as session:
            yield session

    def test_sail_reads_what_jvm_read(self, spark: Any, hub: EventHub) -> None:
        assert ("jvm", "eventhubs") in SEEN, "TestJvm runs first in this module"
        run_cells(spark, hub, "sail")
        for what in ("schema", "eventhubs", "by_time", "kafka"):
            assert SEEN["sail", what] == SEEN["jvm", what], what
        assert sum(SEEN["sail", "paced"]) == 6 and max(SEEN["sail", "paced"]) <= 4
