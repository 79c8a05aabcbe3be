"""The ``format("eventhubs")`` hooks of the readers :mod:`spark_agent.eventstream_kafka` patches.

Both turn the reader into a Kafka read with the options
:func:`spark_agent.eventhubs.kafka_options` maps, load it (JVM Spark's real
Kafka source; on Sail the driver-side read) and project the rows onto the
Event Hubs connector's columns.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .eventhubs import EVENTHUBS_COLUMNS, kafka_options
from .options import KafkaOptionError


def _note(opts: dict[str, str]) -> None:
    print(f"spark_agent: format(\"eventhubs\") -> kafka subscribe={opts['subscribe']} at "
          f"{opts['kafka.bootstrap.servers']} ({opts['kafka.security.protocol']}, group {opts['kafka.group.id']}, "
          f"startingOffsets {opts['startingOffsets']})", file=sys.stderr, flush=True)


def eventhubs_load(reader: Any, orig_load: Callable[..., Any], agent: Any, state: dict[str, Any],
                   orig_format: Callable[..., Any], orig_option: Callable[..., Any], path: Any) -> Any:
    """Classic (JVM) pyspark: the held options become the Kafka source's."""
    from pyspark.sql.streaming.readwriter import DataStreamReader

    if path is not None:
        raise KafkaOptionError("path", "the Event Hubs source takes no path")
    streaming = isinstance(reader, DataStreamReader)
    opts = kafka_options(state["options"], streaming=streaming, emulator_url=agent.client.url)
    _note(opts)
    state["held"].clear()
    orig_format(reader, "kafka")
    for k, v in opts.items():
        orig_option(reader, k, v)
    return orig_load(reader).selectExpr(*EVENTHUBS_COLUMNS)


def connect_eventhubs_load(reader: Any, agent: Any, streaming: bool, path: Any, options: dict[str, Any]) -> Any:
    """Spark Connect (Sail): the reader becomes a Kafka reader and loads again."""
    if path is not None:
        raise KafkaOptionError("path", "the Event Hubs source takes no path")
    if reader._schema:
        raise KafkaOptionError("schema", "the Event Hubs source has a fixed schema and cannot be set with a custom one")
    reader.options(**options)
    opts = kafka_options(dict(reader._options), streaming=streaming, emulator_url=agent.client.url)
    _note(opts)
    reader._format = "kafka"
    reader._options = dict(opts)
    return reader.load().selectExpr(*EVENTHUBS_COLUMNS)
