"""Microsoft's Python Event Hubs SDK (azure-eventhub) against the custom
endpoint's Event Hubs door (AMQP 1.0), with the connection route's
``primaryConnectionString`` and no other change: ``EventHubProducerClient``
sends batches (with a partition key, with a partition id),
``EventHubConsumerClient`` reads them back from the earliest event, from an
offset, a sequence number and an enqueued time, and a Kafka client
(kafka-python, the destination's string as the SASL PLAIN password) reads
the same events byte-exact.

Follows the azure-eventhub README's send and receive samples.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import Emulator
from eventhubs_helpers import EventHub, connection_of, deploy_event_hub, kafka_records

KEY = "device-7"
PROPS = {"source": "sdk", "n": 7}
KEYED = [b'{"n":1}', b'{"n":2}', bytes(range(256)), b'{"n":4}', b'{"n":5}']  # one body not UTF-8
EARLY = [b'{"p":1}', b'{"p":2}', b'{"p":3}']
LATE = [b'{"p":4}', b'{"p":5}', b'{"p":6}']


@dataclass
class Sent:
    """The event hub, the source's connection string the producer used, the
    partition the partition-id batches went to and the instant between them."""

    hub: EventHub
    send_conn: str
    consumer_group: str
    partition_id: str
    partition_ids: list[str]
    between: dt.datetime


def event_data(body: bytes, i: int) -> Any:
    from azure.eventhub import EventData

    ev = EventData(body)
    ev.properties = dict(PROPS)
    ev.message_id = f"m-{i}"
    ev.content_type = "application/json"
    ev.correlation_id = "corr-1"
    return ev


@pytest.fixture(scope="module")
def sent(amqp_emulator: Emulator) -> Sent:
    """Deploys a CustomEndpoint source and destination and sends, as the
    README's producer sample does: one batch with a partition key, one to a
    partition id, a pause, then a second one to the same partition."""
    from azure.eventhub import EventHubProducerClient

    emu = amqp_emulator
    hub = deploy_event_hub(emu, emu.create_workspace("eventhubs-sdk"), "eh-sdk")
    send_conn = connection_of(emu, hub, "sources", "app")["accessKeys"]["primaryConnectionString"]
    group = connection_of(emu, hub, "destinations", "out")["consumerGroupName"]
    assert "UseDevelopmentEmulator=true" in send_conn, send_conn

    producer = EventHubProducerClient.from_connection_string(send_conn)
    with producer:
        props = producer.get_eventhub_properties()
        assert props["eventhub_name"] == hub.name, props
        pids = list(props["partition_ids"])
        assert len(pids) >= 2, props
        pid = pids[-1]
        batch = producer.create_batch(partition_key=KEY)
        for i, body in enumerate(KEYED):
            batch.add(event_data(body, i))
        producer.send_batch(batch)
        batch = producer.create_batch(partition_id=pid)
        for i, body in enumerate(EARLY):
            batch.add(event_data(body, 10 + i))
        producer.send_batch(batch)
        time.sleep(1.0)
        between = dt.datetime.now(dt.timezone.utc)
        time.sleep(0.2)
        producer.send_batch([event_data(b, 20 + i) for i, b in enumerate(LATE)], partition_id=pid)
    return Sent(hub, send_conn, group, pid, pids, between)


def receive(s: Sent, partition_id: str, start: Any, inclusive: bool = False, want: int = 0,
            timeout: float = 30) -> list[Any]:
    """The README's consumer: ``EventHubConsumerClient.receive`` on one
    partition from ``start`` until ``want`` events came and the partition
    then stayed idle for a second (or ``timeout``)."""
    from azure.eventhub import EventHubConsumerClient

    client = EventHubConsumerClient.from_connection_string(s.hub.connection_string, s.consumer_group)
    got: list[Any] = []
    idle = threading.Event()

    def on_event(_ctx: Any, ev: Any) -> None:
        if ev is None:
            if len(got) >= want:
                idle.set()
        else:
            got.append(ev)

    errors: list[Exception] = []
    t = threading.Thread(target=lambda: client.receive(
        on_event, partition_id=partition_id, starting_position=start, starting_position_inclusive=inclusive,
        max_wait_time=1, on_error=lambda _c, e: errors.append(e)), daemon=True)
    t.start()
    idle.wait(timeout)
    client.close()
    t.join(15)
    assert not errors, errors
    assert idle.is_set(), f"partition {partition_id} from {start!r}: {len(got)} events in {timeout}s, want {want}"
    return got


def body(ev: Any) -> bytes:
    return b"".join(ev.body)


@pytest.fixture(scope="module")
def earliest(sent: Sent) -> dict[str, list[Any]]:
    """Every partition read from ``"-1"`` (the SDK's earliest)."""
    return {p: receive(sent, p, "-1") for p in sent.partition_ids}


def test_earliest_reads_every_event_with_its_properties(sent: Sent, earliest: dict[str, list[Any]]) -> None:
    events = [ev for evs in earliest.values() for ev in evs]
    assert sorted(body(ev) for ev in events) == sorted(KEYED + EARLY + LATE)
    keyed_parts = {p for p, evs in earliest.items() for ev in evs if body(ev) in KEYED}
    assert len(keyed_parts) == 1, f"one partition key, several partitions: {keyed_parts}"
    assert [body(ev) for ev in earliest[sent.partition_id] if body(ev) not in KEYED] == EARLY + LATE
    for ev in events:
        i = (KEYED + EARLY + LATE).index(body(ev))
        assert ev.partition_key == (KEY.encode() if body(ev) in KEYED else None), (i, ev.partition_key)
        assert {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
                for k, v in ev.properties.items()} == PROPS, ev.properties
        assert ev.message_id == f"m-{[0, 1, 2, 3, 4, 10, 11, 12, 20, 21, 22][i]}"
        assert ev.content_type == "application/json" and ev.correlation_id == "corr-1"
        assert ev.sequence_number == int(ev.offset), (ev.sequence_number, ev.offset)
        assert abs(ev.enqueued_time - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=5)
    for evs in earliest.values():
        assert [ev.sequence_number for ev in evs] == list(range(len(evs)))


def test_reads_from_an_offset(sent: Sent, earliest: dict[str, list[Any]]) -> None:
    evs = earliest[sent.partition_id]
    mid = evs[1]
    after = receive(sent, sent.partition_id, mid.offset, want=len(evs) - 2)
    assert [body(e) for e in after] == [body(e) for e in evs[2:]]
    at = receive(sent, sent.partition_id, mid.offset, inclusive=True, want=len(evs) - 1)
    assert [body(e) for e in at] == [body(e) for e in evs[1:]]


def test_reads_from_a_sequence_number(sent: Sent, earliest: dict[str, list[Any]]) -> None:
    evs = earliest[sent.partition_id]
    last = evs[-2].sequence_number
    assert [body(e) for e in receive(sent, sent.partition_id, last, want=1)] == [body(evs[-1])]
    assert [body(e) for e in receive(sent, sent.partition_id, last, inclusive=True, want=2)] == \
        [body(e) for e in evs[-2:]]


def test_reads_from_an_enqueued_time(sent: Sent, earliest: dict[str, list[Any]]) -> None:
    assert [body(e) for e in receive(sent, sent.partition_id, sent.between, want=len(LATE))] == LATE
    first_late = next(e for e in earliest[sent.partition_id] if body(e) == LATE[0])
    assert first_late.enqueued_time > sent.between
    got = receive(sent, sent.partition_id, first_late.enqueued_time, inclusive=True, want=len(LATE))
    assert [body(e) for e in got] == LATE


def test_kafka_reads_the_same_events_byte_exact(sent: Sent, earliest: dict[str, list[Any]]) -> None:
    amqp = {(int(p), ev.sequence_number): ev for p, evs in earliest.items() for ev in evs}
    recs = list(kafka_records(sent.hub, len(amqp)))
    assert len(recs) == len(amqp)
    sdk = b"\xa1\x03sdk"  # the AMQP string "sdk", as Microsoft maps properties to Kafka headers
    for rec in recs:
        ev = amqp[(rec.partition, rec.offset)]
        assert rec.topic == sent.hub.name
        assert rec.value == body(ev)
        assert rec.key == (KEY.encode() if body(ev) in KEYED else None)
        headers = dict(rec.headers)
        assert headers["source"] == sdk, rec.headers
        assert abs(rec.timestamp - ev.enqueued_time.timestamp() * 1000) < 1, (rec.timestamp, ev.enqueued_time)
