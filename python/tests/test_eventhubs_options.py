"""``format("eventhubs")`` and Databricks' Kafka-protocol form against the
custom endpoint, on Sail (the driver-side read) — the JVM side is in
test_eventhubs_jvm.py — plus the option mapping itself.

Follows the azure-event-hubs-spark connector guide (options, EventPosition
JSON, columns: docs/structured-streaming-eventhubs-integration.md) and
Microsoft Learn "Use Azure Event Hubs from Apache Kafka applications"
(bootstrap <namespace>:9093, SASL PLAIN, username $ConnectionString).
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Emulator, orders, sail_session
from eventhubs_helpers import EventHub, deploy_event_hub
from java_store_files import PASSWORD, make_trust_stores

EVENTHUBS_FIELDS = ["body", "partition", "offset", "sequenceNumber", "enqueuedTime", "publisher", "partitionKey",
                    "properties", "systemProperties"]


# -- the mapping, without an engine ---------------------------------------------------

def test_connection_string_becomes_the_custom_endpoint() -> None:
    from spark_agent.eventhubs import kafka_options

    conn = "Endpoint=sb://127.0.0.1:40123/;SharedAccessKeyName=key_1;SharedAccessKey=abc=;EntityPath=hub.1"
    out = kafka_options({"eventhubs.connectionString": conn, "eventhubs.consumerGroup": "cg",
                         "maxEventsPerTrigger": 5}, streaming=True, emulator_url="http://127.0.0.1:5080")
    assert out["kafka.bootstrap.servers"] == "127.0.0.1:40123"
    assert out["subscribe"] == "hub.1"
    assert out["kafka.security.protocol"] == "SASL_PLAINTEXT"
    assert out["kafka.sasl.jaas.config"].endswith(f'username="$ConnectionString" password="{conn}";')
    assert out["kafka.group.id"] == "cg" and out["maxOffsetsPerTrigger"] == "5"
    assert out["startingOffsets"] == "earliest"  # the connector's default: the start of the stream
    tls = kafka_options({"eventhubs.connectionString": conn.replace(":40123", "")}, streaming=True,
                        emulator_url="https://127.0.0.1:5080")
    assert tls["kafka.bootstrap.servers"] == "127.0.0.1:9093" and tls["kafka.security.protocol"] == "SASL_SSL"
    assert tls["kafka.group.id"] == "$Default"


def test_event_positions() -> None:
    from spark_agent.eventhubs import offsets_json, position_offset

    assert position_offset({"offset": "-1", "seqNo": -1, "enqueuedTime": None, "isInclusive": True}, "o") == \
        ("offset", -2)
    assert position_offset({"offset": "@latest"}, "o") == ("offset", -1)
    assert position_offset({"offset": "7", "isInclusive": True}, "o") == ("offset", 7)
    assert position_offset({"offset": None, "seqNo": 7, "isInclusive": False}, "o") == ("offset", 8)
    kind, ms = position_offset({"offset": None, "seqNo": -1, "enqueuedTime": "2026-01-02T03:04:05.000Z"}, "o")
    assert (kind, ms) == ("time", int(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc).timestamp() * 1000))
    got = offsets_json("t", {0: ("offset", 3), 1: ("time", 99), 2: ("time", 99)}, lambda ms: {1: 5, 2: None})
    assert json.loads(got) == {"t": {"0": 3, "1": 5, "2": -1}}  # no event after the time: the end


def test_refusals_name_the_option() -> None:
    from spark_agent import KafkaOptionError
    from spark_agent.eventhubs import kafka_options

    conn = "Endpoint=sb://127.0.0.1/;SharedAccessKeyName=k;SharedAccessKey=s;EntityPath=h"
    cases = [
        ({}, "eventhubs.connectionString"),
        ({"eventhubs.connectionString": "Endpoint=sb://127.0.0.1/;SharedAccessKey=s"}, "eventhubs.connectionString"),
        ({"eventhubs.connectionString": conn, "eventhubs.prefetchCount": "10"}, "eventhubs.prefetchCount"),
        ({"eventhubs.connectionString": conn, "startingOffsets": "earliest"}, "startingOffsets"),
        ({"eventhubs.connectionString": conn, "eventhubs.endingPosition": "{}"}, "eventhubs.endingPosition"),
        ({"eventhubs.connectionString": conn, "maxEventsPerTrigger": "0"}, "maxEventsPerTrigger"),
        ({"eventhubs.connectionString": conn, "eventhubs.startingPosition": json.dumps(
            {"offset": "1", "seqNo": 2})}, "eventhubs.startingPosition"),
    ]
    for opts, name in cases:
        with pytest.raises(KafkaOptionError) as ei:
            kafka_options(opts, streaming=True, emulator_url="http://127.0.0.1:5080")
        assert ei.value.option == name, (opts, ei.value)
        assert name in str(ei.value)


# -- on Sail ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def spark(embedded_emulator: Emulator) -> Iterator[Any]:
    with sail_session(embedded_emulator) as session:
        yield session


@pytest.fixture(scope="module")
def hub(embedded_emulator: Emulator) -> EventHub:
    ws = embedded_emulator.create_workspace("eventhubs-sail")
    return deploy_event_hub(embedded_emulator, ws, "eh")


def read_all(spark: Any, fmt: str, opts: dict[str, str]) -> list[tuple[int, list[Any]]]:
    """One availableNow query: the (batchId, rows) of each micro-batch."""
    batches: list[tuple[int, list[Any]]] = []
    q = (spark.readStream.format(fmt).options(**opts).load().writeStream
         .foreachBatch(lambda d, e: batches.append((e, d.collect()))).trigger(availableNow=True).start())
    assert q.awaitTermination(120)
    assert q.exception() is None
    return batches


def test_eventhubs_format_reads_the_connector_columns(spark: Any, embedded_emulator: Emulator, hub: EventHub) -> None:
    events = orders(6, "eh")
    produced = embedded_emulator.produce(hub.es, events)
    df = spark.readStream.format("eventhubs").options(**{
        "eventhubs.connectionString": hub.connection_string, "eventhubs.consumerGroup": "$Default"}).load()
    assert [f.name for f in df.schema.fields] == EVENTHUBS_FIELDS
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "binary", "string", "string", "bigint", "timestamp", "string", "string", "map<string,string>",
        "map<string,string>"]
    rows = [r for _, rs in read_all(spark, "eventhubs", {"eventhubs.connectionString": hub.connection_string})
            for r in rs]
    assert len(rows) == 6
    by_key = {r["partitionKey"]: r for r in rows}
    for ev, where in zip(events, produced["events"]):
        r = by_key[ev["key"]]
        assert json.loads(bytes(r["body"])) == ev["value"]
        assert (r["partition"], r["offset"], r["sequenceNumber"]) == (
            str(where["partition"]), str(where["offset"]), where["offset"])
        assert r["properties"] == ev.get("headers", {})
        assert r["systemProperties"]["x-opt-sequence-number"] == str(where["offset"])
        assert abs(r["enqueuedTime"].timestamp() - time.time()) < 600


def test_starting_position_and_max_events(spark: Any, embedded_emulator: Emulator, hub: EventHub) -> None:
    """seqNo (inclusive or not), enqueuedTime and maxEventsPerTrigger; the
    event hub already holds test_eventhubs_format's six events."""
    mark = dt.datetime.now(dt.timezone.utc)
    time.sleep(0.05)
    later = embedded_emulator.produce(hub.es, orders(4, "later"))
    base = {"eventhubs.connectionString": hub.connection_string}
    by_time = {"offset": None, "seqNo": -1, "enqueuedTime": mark.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
               "isInclusive": True}
    rows = [r for _, rs in read_all(spark, "eventhubs", {**base, "eventhubs.startingPosition": json.dumps(by_time)})
            for r in rs]
    assert sorted(r["partitionKey"] for r in rows) == [f"later-{i}" for i in range(4)]

    firsts: dict[int, int] = {}
    for w in later["events"]:
        firsts[w["partition"]] = min(firsts.get(w["partition"], w["offset"]), w["offset"])
    for inclusive in (True, False):
        per = {json.dumps({"ehName": hub.name, "partitionId": p}): {
            "offset": None, "seqNo": o, "enqueuedTime": None, "isInclusive": inclusive} for p, o in firsts.items()}
        rows = [r for _, rs in read_all(spark, "eventhubs", {
            **base, "eventhubs.startingPosition": json.dumps({"offset": "@latest", "seqNo": -1}),
            "eventhubs.startingPositions": json.dumps(per)}) for r in rs]
        want = {(w["partition"], w["offset"]) for w in later["events"]
                if inclusive or w["offset"] > firsts[w["partition"]]}
        assert {(int(r["partition"]), r["sequenceNumber"]) for r in rows} == want
        assert len(want) == (4 if inclusive else 4 - len(firsts))

    sizes = [len(rs) for _, rs in read_all(spark, "eventhubs", {**base, "maxEventsPerTrigger": "4"})]
    assert sizes == [4, 4, 2]


def test_query_meets_kafka_faults_and_reads_each_event_once(spark: Any, embedded_emulator: Emulator) -> None:
    """format("eventhubs") queries on the custom endpoint meet the Kafka door's
    faults on their reads (throttling, a retriable error, a dropped connection);
    kafka-python retries each, and every query reads every event exactly once.
    The queries run until every rule has been met (its count used up)."""
    ws = embedded_emulator.create_workspace("eventhubs-faults")
    hub = deploy_event_hub(embedded_emulator, ws, "eh-faults")
    produced = embedded_emulator.produce(hub.es, orders(8, "fault"))
    want = sorted((w["partition"], w["offset"]) for w in produced["events"])
    target = {"door": "kafka", "operation": "consume", "eventstream": hub.es.item_id}
    for effect, count in (({"kind": "throttle", "throttleMs": 300}, 2),
                          ({"kind": "error", "kafkaError": "NOT_LEADER_FOR_PARTITION"}, 2),
                          ({"kind": "drop"}, 1)):
        embedded_emulator.call("POST", "/_emulator/faults", {"target": target, "effect": effect, "count": count},
                               expect=(201,))
    queries = 0
    while embedded_emulator.call("GET", "/_emulator/faults")["value"]:
        assert queries < 10, embedded_emulator.call("GET", "/_emulator/faults")["value"]
        rows = [r for _, rs in read_all(spark, "eventhubs", {"eventhubs.connectionString": hub.connection_string})
                for r in rs]
        queries += 1
        assert sorted((int(r["partition"]), r["sequenceNumber"]) for r in rows) == want, f"query {queries}"
        assert sorted(r["partitionKey"] for r in rows) == [f"fault-{i}" for i in range(8)]
    assert queries >= 2


def test_databricks_kafka_form_reads_the_same_records(spark: Any, hub: EventHub) -> None:
    """kafka.bootstrap.servers=<namespace>:9093, SASL PLAIN with $ConnectionString,
    subscribe=<event hub>: the records format("eventhubs") reads."""
    kafka = [r for _, rs in read_all(spark, "kafka", {**hub.kafka_options(), "startingOffsets": "earliest"})
             for r in rs]
    eh = [r for _, rs in read_all(spark, "eventhubs", {"eventhubs.connectionString": hub.connection_string})
          for r in rs]
    assert len(kafka) == 10
    assert sorted((r["partition"], r["offset"], bytes(r["value"])) for r in kafka) == \
        sorted((int(r["partition"]), r["sequenceNumber"], bytes(r["body"])) for r in eh)



@pytest.mark.parametrize("store", ["PEM", "JKS", "PKCS12"])
def test_databricks_kafka_form_over_tls(spark: Any, tls_emulator: Emulator, store: str,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """With --tls the custom endpoint is SASL_SSL, as Event Hubs' is: Databricks'
    settings with SASL_SSL and the emulator's CA in a trust store as a JVM
    notebook names it (PEM, or a JKS or PKCS12 store made by keytool)."""
    ws = tls_emulator.create_workspace(f"eventhubs-tls-{store.lower()}")
    hub = deploy_event_hub(tls_emulator, ws, "eh-tls")
    produced = tls_emulator.produce(hub.es, orders(3, "tls"))
    trust = {"kafka.ssl.truststore.type": "PEM", "kafka.ssl.truststore.location": str(tls_emulator.ca)}
    if store != "PEM":
        jks, p12 = make_trust_stores(tls_emulator.ca, tmp_path_factory.mktemp("trust"))
        trust = {"kafka.ssl.truststore.type": store, "kafka.ssl.truststore.location": str(jks if store == "JKS" else p12),
                 "kafka.ssl.truststore.password": PASSWORD}
    opts = {**hub.kafka_options("SASL_SSL"), **trust, "startingOffsets": "earliest"}
    rows = [r for _, rs in read_all(spark, "kafka", opts) for r in rs]
    assert sorted((r["partition"], r["offset"]) for r in rows) == sorted(
        (w["partition"], w["offset"]) for w in produced["events"])
    assert sorted(bytes(r["key"]).decode() for r in rows) == ["tls-0", "tls-1", "tls-2"]
