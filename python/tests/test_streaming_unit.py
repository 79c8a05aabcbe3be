"""Unit tests of the continuous-query arithmetic (no Spark, no emulator).

``rate_limit`` follows Spark 3.5's ``KafkaMicroBatchStream.rateLimit``
(spark-sql-kafka-0-10); ``parse_interval`` Spark's
``Trigger.ProcessingTime(String)`` interval strings, as documented in the
Structured Streaming Programming Guide, "Triggers".
"""

from __future__ import annotations

import pytest

from spark_agent.options import KafkaOptionError
from spark_agent.streaming import parse_interval, rate_limit


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
