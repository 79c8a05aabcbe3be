"""Unit tests of the continuous-query arithmetic (no Spark, no emulator).

``rate_limit`` follows Spark 3.5's ``KafkaMicroBatchStream.rateLimit``
(spark-sql-kafka-0-10); ``parse_interval`` Spark's
``Trigger.ProcessingTime(String)`` interval strings, as documented in the
Structured Streaming Programming Guide, "Triggers".
"""

from __future__ import annotations

import pytest

from spark_agent.microbatch import rate_limit
from spark_agent.options import KafkaOptionError
from spark_agent.streaming import parse_interval


def test_rate_limit_prorates_floor_and_never_starves() -> None:
    start = {"t": {0: 0, 1: 0, 2: 0, 3: 5}}
    until = {"t": {0: 90, 1: 9, 2: 1, 3: 5}}
    # backlog 90/9/1/0 of 100; limit 10 → 9, floor(0.9)=0 → ceil → 1, ceil(0.1) = 1, untouched
    assert rate_limit(10, start, until) == {"t": {0: 9, 1: 1, 2: 1, 3: 5}}
    assert rate_limit(1000, start, until) == until
    assert rate_limit(4, {"t": {0: 8}}, {"t": {0: 10}}) == {"t": {0: 10}}
    assert rate_limit(4, {"t": {0: 10}}, {"t": {0: 10}}) == {"t": {0: 10}}


@pytest.mark.parametrize("text,secs", [
    ("", 0.0), ("500 milliseconds", 0.5), ("10 seconds", 10.0), ("interval 1 minute 30 seconds", 90.0),
    ("2 s", 2.0), ("0 seconds", 0.0), ("1 hour", 3600.0),
])
def test_parse_interval(text: str, secs: float) -> None:
    assert parse_interval(text) == pytest.approx(secs)


@pytest.mark.parametrize("text", ["10", "five seconds", "3 fortnights", "1 second and a bit"])
def test_parse_interval_refuses_naming_processing_time(text: str) -> None:
    with pytest.raises(KafkaOptionError) as ei:
        parse_interval(text)
    assert ei.value.option == "processingTime"


def test_split_by_rate_limit_cuts_a_read_like_consecutive_triggers() -> None:
    from spark_agent.kafka_schema import KafkaRecord
    from spark_agent.microbatch import ReadResult, split_by_rate_limit

    recs = [KafkaRecord(key=None, value=b"", topic="t", partition=p, offset=o, timestamp_ms=0, timestamp_type=0,
                        headers=None) for p, n in ((0, 7), (1, 2)) for o in range(n)]
    res = ReadResult(records=recs, start="earliest", end={"t": {0: 7, 1: 2, 2: 0}})
    parts = split_by_rate_limit(res, 3)
    # backlog 7/2 → floor(3*7/9)=2, floor(3*2/9)=0 → ceil → 1; then 5/1 → 2, 1; then 3/0 → 3; then 0
    assert [r.end["t"] for r in parts] == [{0: 2, 1: 1, 2: 0}, {0: 4, 1: 2, 2: 0}, {0: 7, 1: 2, 2: 0}]
    assert [len(r.records) for r in parts] == [3, 3, 3]
    assert [r.start for r in parts][1:] == [parts[0].end, parts[1].end]
    assert sorted((r.partition, r.offset) for p in parts for r in p.records) == sorted(
        (r.partition, r.offset) for r in recs)
