"""Spark's Kafka source schema, exactly, and turning records into Arrow tables.

Column order, types and nullability follow ``KafkaRecordToRowConverter`` in
spark-sql-kafka-0-10 (3.5): every field nullable; ``headers`` only with
``includeHeaders=true`` and *null* (not empty) for a record without headers.
"""

from __future__ import annotations

import base64
import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

HEADERS_TYPE = ArrayType(
    StructType([StructField("key", StringType()), StructField("value", BinaryType())])
)

KAFKA_SCHEMA = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
)

KAFKA_SCHEMA_WITH_HEADERS = StructType(KAFKA_SCHEMA.fields + [StructField("headers", HEADERS_TYPE)])


def kafka_schema(include_headers: bool = False) -> StructType:
    """The source schema, with the ``headers`` column when ``include_headers``."""
    return KAFKA_SCHEMA_WITH_HEADERS if include_headers else KAFKA_SCHEMA


@dataclass
class KafkaRecord:
    """One Kafka record in Spark's terms (timestamp in epoch milliseconds)."""

    key: bytes | None
    value: bytes | None
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    timestamp_type: int
    headers: list[tuple[str, bytes | None]] | None


def _b64(v: str | None) -> bytes | None:
    return None if v is None else base64.b64decode(v)


def _parse_ts_ms(v: Any) -> int:
    if v is None:
        return -1
    if isinstance(v, (int, float)):
        return int(v)
    s = str(v)
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    d = _dt.datetime.fromisoformat(s)
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    return int(round(d.timestamp() * 1000))


def record_from_emulator(r: dict) -> KafkaRecord:
    """A record of the emulator's consume route (key/value/header values base64)."""
    hs = r.get("headers")
    headers = [(h.get("key"), _b64(h.get("value"))) for h in hs] if hs else None
    return KafkaRecord(
        key=_b64(r.get("key")),
        value=_b64(r.get("value")),
        topic=r["topic"],
        partition=int(r["partition"]),
        offset=int(r["offset"]),
        timestamp_ms=_parse_ts_ms(r.get("timestamp")),
        timestamp_type=int(r.get("timestampType", 0)),
        headers=headers,
    )


def arrow_schema(include_headers: bool = False):
    """The Arrow schema of a Kafka LocalRelation (timestamps as UTC microseconds)."""
    import pyarrow as pa

    fields = [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("timestampType", pa.int32()),
    ]
    if include_headers:
        fields.append(
            pa.field("headers", pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])))
        )
    return pa.schema(fields)


def to_arrow(records: Sequence[KafkaRecord], include_headers: bool = False):
    """Records → one Arrow table with :func:`arrow_schema`."""
    import pyarrow as pa

    cols: list[Iterable[Any]] = [
        [r.key for r in records],
        [r.value for r in records],
        [r.topic for r in records],
        [r.partition for r in records],
        [r.offset for r in records],
        [r.timestamp_ms * 1000 for r in records],
        [r.timestamp_type for r in records],
    ]
    if include_headers:
        cols.append([
            None if not r.headers else [{"key": k, "value": v} for k, v in r.headers] for r in records
        ])
    schema = arrow_schema(include_headers)
    arrays = [pa.array(list(c), type=f.type) for c, f in zip(cols, schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def chunk_by_bytes(records: Sequence[KafkaRecord], budget: int) -> list[Sequence[KafkaRecord]]:
    """Split records into runs whose key+value+header bytes stay under ``budget``
    (each run has at least one record), so each LocalRelation stays small."""
    chunks: list[Sequence[KafkaRecord]] = []
    start, size = 0, 0
    for i, r in enumerate(records):
        n = 64 + len(r.key or b"") + len(r.value or b"") + len(r.topic) + sum(
            len(k or "") + len(v or b"") for k, v in (r.headers or ())
        )
        if i > start and size + n > budget:
            chunks.append(records[start:i])
            start, size = i, 0
        size += n
    if start < len(records) or not chunks:
        chunks.append(records[start:])
    return chunks
