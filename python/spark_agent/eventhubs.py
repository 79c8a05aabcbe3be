"""``format("eventhubs")``: the Azure Event Hubs connector's options on the Kafka source.

Databricks notebooks read Event Hubs with the azure-event-hubs-spark connector
(``format("eventhubs")``, ``eventhubs.connectionString``,
``eventhubs.consumerGroup``, ``eventhubs.startingPosition``,
``maxEventsPerTrigger``). An Eventstream's custom endpoint hands out the same
kind of connection string, and the emulator serves its Kafka surface, so here
such a read becomes a Kafka read of the connection string's ``EntityPath``
through the custom endpoint (SASL PLAIN, ``$ConnectionString``), on JVM Spark
(spark-sql-kafka) and on Sail (the driver-side read) alike, projected onto the
connector's columns (:data:`EVENTHUBS_COLUMNS`).

Mapping (connector guide:
https://github.com/Azure/azure-event-hubs-spark/blob/master/docs/structured-streaming-eventhubs-integration.md):

* ``Endpoint=sb://HOST[:PORT]/`` → ``kafka.bootstrap.servers`` ``HOST:PORT``
  (``HOST:9093`` without a port, as Event Hubs' Kafka surface listens);
  ``SASL_PLAINTEXT`` against an emulator served over HTTP, ``SASL_SSL`` over
  HTTPS.
* ``eventhubs.consumerGroup`` → ``kafka.group.id`` (default ``$Default``).
* ``eventhubs.startingPosition(s)`` / ``eventhubs.endingPosition(s)`` →
  ``startingOffsets`` / ``endingOffsets`` JSON for every partition: offset
  ``"-1"`` is the start of the stream, ``"@latest"`` its end; an offset or a
  sequence number is the Kafka offset (the emulator's offsets and sequence
  numbers are both the Kafka offset), ``isInclusive: false`` starts one
  later; an ``enqueuedTime`` becomes the first offset at or after it
  (Kafka's ListOffsets by timestamp). No position: the start of the stream,
  the connector's default (Kafka's is ``latest`` for a stream).
* ``maxEventsPerTrigger`` → ``maxOffsetsPerTrigger``.
* ``eventhubs.receiverTimeout`` / ``eventhubs.operationTimeout`` are
  accepted and have no effect. Any other option fails naming it.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from .options import KafkaOptionError, SourceOptions

CONNECTION_STRING = "eventhubs.connectionString"
CONSUMER_GROUP = "eventhubs.consumerGroup"
STARTING_POSITION = "eventhubs.startingPosition"
STARTING_POSITIONS = "eventhubs.startingPositions"
ENDING_POSITION = "eventhubs.endingPosition"
ENDING_POSITIONS = "eventhubs.endingPositions"
MAX_EVENTS = "maxEventsPerTrigger"

_ACCEPTED = {n.lower() for n in (CONNECTION_STRING, CONSUMER_GROUP, STARTING_POSITION, STARTING_POSITIONS,
                                 ENDING_POSITION, ENDING_POSITIONS, MAX_EVENTS,
                                 "eventhubs.receiverTimeout", "eventhubs.operationTimeout")}

# The connector's columns, from the Kafka source's. properties: the record's
# headers as strings; systemProperties: what Event Hubs' Kafka surface keeps.
EVENTHUBS_COLUMNS = (
    "value AS body",
    "CAST(partition AS STRING) AS partition",
    "CAST(offset AS STRING) AS offset",
    "offset AS sequenceNumber",
    "timestamp AS enqueuedTime",
    "CAST(NULL AS STRING) AS publisher",
    "CAST(key AS STRING) AS partitionKey",
    "COALESCE(map_from_entries(transform(headers, h -> struct(h.key AS key, CAST(h.value AS STRING) AS value))), "
    "CAST(map() AS MAP<STRING, STRING>)) AS properties",
    "map('x-opt-sequence-number', CAST(offset AS STRING), 'x-opt-offset', CAST(offset AS STRING), "
    "'x-opt-enqueued-time', CAST(unix_millis(timestamp) AS STRING)) AS systemProperties",
)

TimeLookup = Callable[[int], dict[int, int | None]]


def is_eventhubs(fmt: str | None) -> bool:
    """Whether a reader's format is the Event Hubs connector's."""
    return (fmt or "").strip().lower() == "eventhubs"


def parse_connection_string(value: str) -> dict[str, str]:
    """``Endpoint=…;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=…`` → its parts."""
    parts: dict[str, str] = {}
    for piece in value.strip().strip(";").split(";"):
        if "=" not in piece:
            raise KafkaOptionError(CONNECTION_STRING, f"option '{CONNECTION_STRING}': want Endpoint=sb://…;"
                                                      f"SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=…, "
                                                      f"got a part without '=': {piece[:40]!r}")
        k, v = piece.split("=", 1)
        parts[k.strip()] = v.strip()
    for need in ("Endpoint", "EntityPath"):
        if not parts.get(need):
            raise KafkaOptionError(CONNECTION_STRING, f"option '{CONNECTION_STRING}' has no {need}: the Event Hubs "
                                                      f"source needs the event hub's connection string (the custom "
                                                      f"endpoint's, with EntityPath)")
    return parts


def bootstrap_of(endpoint: str) -> str:
    """``sb://HOST[:PORT]/`` → ``HOST:PORT`` (9093, Event Hubs' Kafka port, when none)."""
    u = urllib.parse.urlsplit(endpoint)
    if u.scheme.lower() != "sb" or not u.hostname:
        raise KafkaOptionError(CONNECTION_STRING, f"option '{CONNECTION_STRING}': Endpoint must be sb://<namespace>/, "
                                                  f"got {endpoint!r}")
    return f"{u.hostname}:{u.port or 9093}"


def kafka_connection(conn: str, consumer_group: str, emulator_url: str) -> dict[str, str]:
    """The ``kafka.*`` options that reach the event hub through the custom endpoint."""
    parts = parse_connection_string(conn)
    tls = emulator_url.lower().startswith("https:")
    return {
        "kafka.bootstrap.servers": bootstrap_of(parts["Endpoint"]),
        "kafka.security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
        "kafka.sasl.mechanism": "PLAIN",
        "kafka.sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                  f'username="$ConnectionString" password="{conn.strip()}";',
        "kafka.group.id": consumer_group,
        "subscribe": parts["EntityPath"],
        "includeHeaders": "true",  # the properties column
    }


def _enqueued_ms(value: str, option: str) -> int:
    s = value.strip()
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        d = _dt.datetime.fromisoformat(s)
    except ValueError:
        raise KafkaOptionError(option, f"option '{option}': enqueuedTime must be YYYY-MM-DDTHH:MM:SS.ssssZ, "
                                       f"got {value!r}") from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    return int(d.timestamp() * 1000)


def position_offset(pos: Mapping[str, Any], option: str) -> tuple[str, int]:
    """One EventPosition JSON → ``("offset", n)`` (-2 start, -1 end) or ``("time", ms)``."""
    if not isinstance(pos, Mapping):
        raise KafkaOptionError(option, f"option '{option}': want an EventPosition object, got {json.dumps(pos)}")
    offset, seq, when = pos.get("offset"), pos.get("seqNo", -1), pos.get("enqueuedTime")
    in_use = [n for n, v in (("offset", offset), ("seqNo", seq if seq not in (None, -1) else None),
                             ("enqueuedTime", when)) if v is not None]
    if len(in_use) > 1:
        raise KafkaOptionError(option, f"option '{option}': only one of offset, seqNo and enqueuedTime may be in "
                                       f"use, got {', '.join(in_use)}")
    inclusive = pos.get("isInclusive", True) is not False
    if when is not None:
        return "time", _enqueued_ms(str(when), option)
    if offset is not None:
        if str(offset) == "-1":
            return "offset", -2
        if str(offset) == "@latest":
            return "offset", -1
        n = str(offset)
    elif seq not in (None, -1):
        n = str(seq)
    else:
        return "offset", -2  # nothing in use: the start of the stream
    if not re.fullmatch(r"\d+", n):
        raise KafkaOptionError(option, f"option '{option}': offset/seqNo must be a non-negative integer, "
                                       f"\"-1\" or \"@latest\", got {n!r}")
    return "offset", int(n) + (0 if inclusive else 1)


def _load_json(opts: SourceOptions, name: str) -> Any:
    raw = opts.get(name)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise KafkaOptionError(name, f"option '{name}' is not JSON: {raw[:80]!r}") from None


def positions(opts: SourceOptions, single: str, per_partition: str,
              partitions: Callable[[], list[int]]) -> dict[int, tuple[str, int]] | str | None:
    """Each partition's position from ``single`` and ``per_partition`` (which
    wins); ``"earliest"``/``"latest"`` when one stream-wide end applies to all."""
    one, many = _load_json(opts, single), _load_json(opts, per_partition)
    if one is None and many is None:
        return None
    base = position_offset(one, single) if one is not None else ("offset", -2)
    named: dict[int, tuple[str, int]] = {}
    if many is not None:
        if not isinstance(many, dict):
            raise KafkaOptionError(per_partition, f"option '{per_partition}': want a JSON object")
        for key, pos in many.items():
            try:
                pid = int(json.loads(key)["partitionId"])
            except (ValueError, KeyError, TypeError):
                raise KafkaOptionError(per_partition, f"option '{per_partition}': keys are "
                                                      f"{{\"ehName\": …, \"partitionId\": n}} JSON, got {key!r}") from None
            named[pid] = position_offset(pos, per_partition)
    if not named and base[0] == "offset" and base[1] < 0:
        return "earliest" if base[1] == -2 else "latest"
    parts = partitions()
    unknown = sorted(set(named) - set(parts))
    if unknown:
        raise KafkaOptionError(per_partition, f"option '{per_partition}': the event hub has no partition "
                                              f"{unknown[0]} (partitions {parts})")
    return {p: named.get(p, base) for p in parts}


def offsets_json(topic: str, pos: dict[int, tuple[str, int]], by_time: TimeLookup) -> str:
    """Spark's offsets JSON for ``pos``; time positions are looked up with ``by_time``."""
    out: dict[int, int] = {}
    times = {p: v for p, (k, v) in pos.items() if k == "time"}
    found: dict[int, int | None] = {}
    for ms in sorted(set(times.values())):
        found.update({p: o for p, o in by_time(ms).items() if times.get(p) == ms})
    for p, (kind, v) in sorted(pos.items()):
        out[p] = v if kind == "offset" else (found.get(p) if found.get(p) is not None else -1)
    return json.dumps({topic: {str(p): o for p, o in out.items()}})


def check_options(opts: SourceOptions, streaming: bool) -> None:
    """Refuse what neither engine can honour, naming the option."""
    for k, _ in opts.items():
        if k.lower() not in _ACCEPTED:
            raise KafkaOptionError(k, f"option '{k}' is not an Event Hubs source option the emulator maps onto "
                                      f"its custom endpoint (supported: {', '.join(sorted(_ACCEPTED))})")
    if not opts.get(CONNECTION_STRING):
        raise KafkaOptionError(CONNECTION_STRING, f"option '{CONNECTION_STRING}' must be specified for the Event "
                                                  f"Hubs source (the custom endpoint's connection string, in plain "
                                                  f"text: EventHubsUtils.encrypt needs the connector's jar)")
    if streaming:
        for name in (ENDING_POSITION, ENDING_POSITIONS):
            if opts.has(name):
                raise KafkaOptionError(name, f"option '{name}' applies to batch queries only")
    mx = opts.get(MAX_EVENTS)
    if mx is not None and (not mx.strip().isdigit() or int(mx) < 1):
        raise KafkaOptionError(MAX_EVENTS, f"option '{MAX_EVENTS}' must be a positive integer, got {mx!r}")


def kafka_options(options: Mapping[str, Any], *, streaming: bool, emulator_url: str) -> dict[str, str]:
    """The Kafka source options one ``format("eventhubs")`` read becomes."""
    opts = SourceOptions(options)
    check_options(opts, streaming)
    conn = opts.get(CONNECTION_STRING) or ""
    out = kafka_connection(conn, opts.get(CONSUMER_GROUP) or "$Default", emulator_url)
    topic = out["subscribe"]
    lookup = _Lookup(out)
    start = positions(opts, STARTING_POSITION, STARTING_POSITIONS, lookup.partitions) or "earliest"
    out["startingOffsets"] = start if isinstance(start, str) else offsets_json(topic, start, lookup.by_time)
    end = positions(opts, ENDING_POSITION, ENDING_POSITIONS, lookup.partitions)
    if end is not None:
        out["endingOffsets"] = end if isinstance(end, str) else offsets_json(topic, end, lookup.by_time)
    if opts.has(MAX_EVENTS):
        out["maxOffsetsPerTrigger"] = str(int(opts.get(MAX_EVENTS) or 0))
    return out


class _Lookup:
    """Partitions and offsets-by-time of the event hub, asked through the custom
    endpoint with kafka-python (only when a position needs them)."""

    def __init__(self, kafka_opts: Mapping[str, str]) -> None:
        self._opts = kafka_opts
        self._parts: list[int] | None = None

    def _consumer(self) -> Any:
        from kafka import KafkaConsumer

        from .driver_consume import consumer_config

        params = {k[len("kafka."):]: v for k, v in self._opts.items() if k.startswith("kafka.")}
        params.pop("group.id", None)
        return KafkaConsumer(**consumer_config(params), enable_auto_commit=False, group_id=None)

    def partitions(self) -> list[int]:
        if self._parts is None:
            c = self._consumer()
            try:
                ps = c.partitions_for_topic(self._opts["subscribe"])
                if ps is None:
                    c.topics()
                    ps = c.partitions_for_topic(self._opts["subscribe"])
            finally:
                c.close()
            if not ps:
                raise KafkaOptionError(CONNECTION_STRING, f"the event hub {self._opts['subscribe']} named by "
                                                          f"'{CONNECTION_STRING}' has no partitions on "
                                                          f"{self._opts['kafka.bootstrap.servers']}")
            self._parts = sorted(ps)
        return self._parts

    def by_time(self, ms: int) -> dict[int, int | None]:
        from kafka import TopicPartition

        topic = self._opts["subscribe"]
        c = self._consumer()
        try:
            got = c.offsets_for_times({TopicPartition(topic, p): ms for p in self.partitions()})
        finally:
            c.close()
        return {tp.partition: (o.offset if o is not None else None) for tp, o in got.items()}
