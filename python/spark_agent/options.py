"""Spark Kafka source options: case-insensitive lookup and Spark's own checks.

Spark lower-cases option names (``CaseInsensitiveMap``), so ``startingOffsets``
and ``startingoffsets`` are the same option; the original spelling is kept
for pass-through. The checks here mirror ``KafkaSourceProvider`` so that both
engines refuse the same things with the same words, plus the Fabric pair
``eventstream.itemid`` / ``eventstream.datasourceid``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

EVENTSTREAM_ITEM_ID = "eventstream.itemid"
EVENTSTREAM_DATASOURCE_ID = "eventstream.datasourceid"

SUBSCRIPTION_OPTIONS = ("subscribe", "subscribePattern", "assign")

# Kafka consumer keys Spark refuses (validateGeneralOptions), with its advice.
FORBIDDEN_KAFKA_KEYS = {
    "auto.offset.reset": "Kafka option 'auto.offset.reset' is not supported. Instead set the source option "
                          "'startingoffsets' to 'earliest' or 'latest' to specify where to start.",
    "key.deserializer": "Kafka option 'key.deserializer' is not supported, as keys are always deserialized as "
                         "byte arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly "
                         "deserialize the keys.",
    "value.deserializer": "Kafka option 'value.deserializer' is not supported, as values are always deserialized "
                           "as byte arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly "
                           "deserialize the values.",
    "enable.auto.commit": "Kafka option 'enable.auto.commit' is not supported: the source commits no offsets "
                           "to Kafka; offsets are tracked by the query itself.",
    "interceptor.classes": "Kafka option 'interceptor.classes' is not supported, as the source reads keys and "
                            "values as byte arrays and interceptors could change them.",
}

EndSpec = str | dict[str, dict[int, int]]


class KafkaOptionError(ValueError):
    """An option Spark itself would refuse (``IllegalArgumentException`` on JVM
    Spark), or one the driver-side path cannot honour. ``option`` names it."""

    def __init__(self, option: str | None, message: str) -> None:
        self.option = option
        super().__init__(message)


class SourceOptions:
    """The options of one ``format("kafka")`` read, case-insensitively."""

    def __init__(self, options: Mapping[str, object]) -> None:
        self.original: dict[str, str] = {}
        for k, v in options.items():
            # A later spelling of the same option replaces the earlier one.
            for old in [o for o in self.original if o.lower() == k.lower()]:
                del self.original[old]
            self.original[k] = _to_str(v)

    def get(self, name: str, default: str | None = None) -> str | None:
        lname = name.lower()
        for k, v in self.original.items():
            if k.lower() == lname:
                return v
        return default

    def has(self, name: str) -> bool:
        return self.get(name) is not None

    def spelled(self, name: str) -> str:
        """The user's spelling of an option (or ``name``)."""
        lname = name.lower()
        return next((k for k in self.original if k.lower() == lname), name)

    def items(self) -> Iterator[tuple[str, str]]:
        return iter(self.original.items())

    def without(self, *names: str) -> dict[str, str]:
        drop = {n.lower() for n in names}
        return {k: v for k, v in self.original.items() if k.lower() not in drop}

    def bool(self, name: str, default: bool) -> bool:
        v = self.get(name)
        if v is None:
            return default
        if v.strip().lower() in ("true", "false"):
            return v.strip().lower() == "true"
        raise KafkaOptionError(name, f"option '{name}' must be true or false, got {v!r}")

    # -- Fabric -----------------------------------------------------------------
    def eventstream_ids(self) -> tuple[str, str] | None:
        """``(itemId, datasourceId)`` when the Fabric pair is set, ``None`` when
        neither is; only one of them is an error naming the other."""
        item, ds = self.get(EVENTSTREAM_ITEM_ID), self.get(EVENTSTREAM_DATASOURCE_ID)
        if item is None and ds is None:
            return None
        if not (item or "").strip():
            raise KafkaOptionError(
                EVENTSTREAM_ITEM_ID,
                f"option '{EVENTSTREAM_ITEM_ID}' is missing: an Eventstream source needs both "
                f"{EVENTSTREAM_ITEM_ID} and {EVENTSTREAM_DATASOURCE_ID} (the Eventstream item id and "
                f"its stream's datasource id, properties.streams[0].id)")
        if not (ds or "").strip():
            raise KafkaOptionError(
                EVENTSTREAM_DATASOURCE_ID,
                f"option '{EVENTSTREAM_DATASOURCE_ID}' is missing: an Eventstream source needs both "
                f"{EVENTSTREAM_ITEM_ID} and {EVENTSTREAM_DATASOURCE_ID} (GET the Eventstream item and read "
                f"properties.streams[0].id)")
        for name in ("kafka.bootstrap.servers",) + SUBSCRIPTION_OPTIONS:
            if self.has(name):
                raise KafkaOptionError(
                    name,
                    f"option '{self.spelled(name)}' cannot be combined with '{EVENTSTREAM_ITEM_ID}'/"
                    f"'{EVENTSTREAM_DATASOURCE_ID}': the Eventstream names the broker and the topic")
        return item.strip(), ds.strip()

    # -- Spark's checks ---------------------------------------------------------
    def subscription(self) -> tuple[str, str]:
        """``(kind, value)`` for exactly one of subscribe / subscribePattern / assign."""
        set_ = [n for n in SUBSCRIPTION_OPTIONS if self.has(n)]
        if not set_:
            raise KafkaOptionError(
                "subscribe", "One of the following options must be specified for Kafka source: subscribe, "
                "subscribePattern, assign. See the docs for more details.")
        if len(set_) > 1:
            raise KafkaOptionError(
                set_[1], "Only one of the following options can be specified for Kafka source: subscribe, "
                "subscribePattern, assign. See the docs for more details.")
        kind = set_[0]
        value = self.get(kind) or ""
        if kind == "assign":
            if not value.strip().startswith("{"):
                raise KafkaOptionError("assign", f"No topicpartitions to assign as specified value for option "
                                                 f"'assign' is '{value}'")
            assign_partitions(value)
        elif kind == "subscribe":
            if not [t for t in value.split(",") if t.strip()]:
                raise KafkaOptionError("subscribe", f"No topics to subscribe to as specified value for option "
                                                    f"'subscribe' is '{value}'")
        elif not value.strip():
            raise KafkaOptionError("subscribePattern", "Pattern to subscribe is empty as specified value for "
                                                       "option 'subscribePattern' is ''")
        return kind, value

    def bootstrap_servers(self) -> str:
        v = self.get("kafka.bootstrap.servers")
        if not v:
            raise KafkaOptionError("kafka.bootstrap.servers", "Option 'kafka.bootstrap.servers' must be specified "
                                                              "for configuring Kafka consumer")
        return v

    def kafka_params(self) -> dict[str, str]:
        """``kafka.*`` options with the prefix stripped, after Spark's refusals."""
        out: dict[str, str] = {}
        for k, v in self.original.items():
            if k.lower().startswith("kafka."):
                key = k[len("kafka."):]
                if key.lower() in FORBIDDEN_KAFKA_KEYS:
                    raise KafkaOptionError(k, FORBIDDEN_KAFKA_KEYS[key.lower()])
                out[key] = v
        return out

    def check_stream_has_no_end(self) -> None:
        """Spark refuses ending offsets on a stream."""
        for name in ("endingOffsets", "endingOffsetsByTimestamp", "endingTimestamp"):
            if self.has(name):
                raise KafkaOptionError(name, f"ending offset not valid in streaming queries ('{name}')")

    def offsets(self, streaming: bool) -> tuple[EndSpec, EndSpec]:
        """``(starting, ending)`` offset specs with Spark's defaults and checks:
        ``earliest``/``latest`` or ``{topic: {partition: offset}}`` (-2 earliest,
        -1 latest). Streaming has no ending (always ``latest`` at start)."""
        start_raw = self.get("startingOffsets")
        end_raw = self.get("endingOffsets")
        if streaming:
            self.check_stream_has_no_end()
        start = parse_offsets(start_raw, "startingOffsets") if start_raw is not None else (
            "latest" if streaming else "earliest")
        end = parse_offsets(end_raw, "endingOffsets") if end_raw is not None else "latest"
        if not streaming:
            if start == "latest":
                raise KafkaOptionError("startingOffsets", "starting offset can't be latest for batch queries on Kafka")
            if isinstance(start, dict):
                for t, ps in start.items():
                    for p, o in ps.items():
                        if o == -1:
                            raise KafkaOptionError(
                                "startingOffsets", f"startingOffsets for {t}-{p} can't be latest for batch queries on Kafka")
            if end == "earliest":
                raise KafkaOptionError("endingOffsets", "ending offset can't be earliest for batch queries on Kafka")
            if isinstance(end, dict):
                for t, ps in end.items():
                    for p, o in ps.items():
                        if o == -2:
                            raise KafkaOptionError(
                                "endingOffsets", f"ending offset for {t}-{p} can't be earliest for batch queries on Kafka")
        return start, end


def _to_str(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def parse_offsets(value: str, name: str) -> EndSpec:
    """``earliest`` / ``latest`` / Spark's JSON ``{"topic": {"0": 23}}``."""
    s = value.strip()
    if s.lower() in ("earliest", "latest"):
        return s.lower()
    try:
        raw = json.loads(s)
    except ValueError:
        raise KafkaOptionError(name, f"Expected e.g. {{\"topicA\":{{\"0\":23,\"1\":-1}},\"topicB\":{{\"0\":-2}}}}, "
                                     f"got {value} (option '{name}')") from None
    if not isinstance(raw, dict):
        raise KafkaOptionError(name, f"option '{name}': want earliest, latest or a JSON object, got {value}")
    out: dict[str, dict[int, int]] = {}
    for topic, parts in raw.items():
        if not isinstance(parts, dict):
            raise KafkaOptionError(name, f"option '{name}': want {{\"{topic}\": {{\"<partition>\": offset}}}}, "
                                         f"got {json.dumps(parts)} for {topic}")
        try:
            out[topic] = {int(p): int(o) for p, o in parts.items()}
        except (TypeError, ValueError):
            raise KafkaOptionError(name, f"option '{name}': partitions and offsets must be integers, "
                                         f"got {json.dumps(parts)}") from None
    return out


def assign_partitions(value: str) -> dict[str, list[int]]:
    """The ``assign`` option: ``{"topicA":[0,1],"topicB":[2,4]}``."""
    try:
        raw = json.loads(value)
        return {str(t): [int(p) for p in ps] for t, ps in raw.items()}
    except (ValueError, TypeError, AttributeError):
        raise KafkaOptionError("assign", f"Expected e.g. {{\"topicA\":[0,1],\"topicB\":[0,1]}}, got {value}") from None


def offsets_json(offsets: Mapping[str, Mapping[int, int]]) -> str:
    """Spark's offset JSON (partition keys as strings, sorted)."""
    return json.dumps({t: {str(p): o for p, o in sorted(ps.items())} for t, ps in sorted(offsets.items())})
