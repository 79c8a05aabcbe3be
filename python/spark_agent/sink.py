"""The Kafka sink in the driver (Sail): ``write.format("kafka")`` / ``writeStream.format("kafka")``.

Spark's sink columns: ``value`` (required; string or binary), ``key``
(optional), ``topic`` (unless the ``topic`` option is set, which wins),
``headers`` (``array<struct<key:string,value:binary>>``) and ``partition``
(optional int). Rows are collected and produced byte for byte with
kafka-python, then flushed; at-least-once, like Spark's sink.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import kerberos
from .driver_consume import client_config
from .options import KafkaOptionError, SourceOptions


def _bytes(v: Any) -> Any:
    if v is None or isinstance(v, (bytes, bytearray)):
        return None if v is None else bytes(v)
    return str(v).encode()


def producer_config(kafka_params: Mapping[str, str]) -> dict[str, Any]:
    """Spark ``kafka.*`` producer params → kafka-python ``KafkaProducer`` kwargs."""
    from kafka import KafkaProducer

    for k in kafka_params:
        if k.lower() in ("key.serializer", "value.serializer"):
            raise KafkaOptionError("kafka." + k, f"Kafka option '{k}' is not supported, as keys and values are "
                                                 f"always serialized as byte arrays with ByteArraySerializer.")
    return client_config(kafka_params, KafkaProducer.DEFAULT_CONFIG, "sink")


def write_kafka(df: Any, options: Mapping[str, str]) -> int:
    """Produce every row of ``df`` (Spark's Kafka sink columns); returns the count.
    A GSSAPI sink logs in as :mod:`spark_agent.kerberos` describes, with
    ``-Djava.security.krb5.conf`` from ``df``'s session."""
    opts = SourceOptions(options)
    bootstrap = opts.get("kafka.bootstrap.servers")
    if not bootstrap:
        raise KafkaOptionError("kafka.bootstrap.servers", "Option 'kafka.bootstrap.servers' must be specified for "
                                                          "configuring Kafka producer")
    topic_opt = opts.get("topic")
    cols = set(df.columns)
    if "value" not in cols:
        raise KafkaOptionError("value", "Required attribute 'value' not found")
    if topic_opt is None and "topic" not in cols:
        raise KafkaOptionError("topic", "topic option required when no 'topic' attribute is present. Use the "
                                        "topic option for setting a topic.")
    params = opts.kafka_params()
    cfg = producer_config(params)
    java_options = kerberos.driver_java_options(getattr(df, "sparkSession", None)) if kerberos.uses_gssapi(params) else None
    with kerberos.login(params, cfg.get("bootstrap_servers") or [], java_options=java_options, role="sink"):
        return _produce(df, cfg, topic_opt)


def _produce(df: Any, cfg: dict[str, Any], topic_opt: str | None) -> int:
    from kafka import KafkaProducer

    producer = KafkaProducer(**cfg)
    n = 0
    try:
        futures = []
        for row in df.toLocalIterator():
            d = row.asDict()
            topic = topic_opt or d.get("topic")
            if topic is None:
                raise KafkaOptionError("topic", "Null topic present in the data. Use the topic option for setting "
                                                "a topic.")
            headers = [(h["key"], _bytes(h["value"])) for h in d["headers"]] if d.get("headers") else None
            futures.append(producer.send(topic, value=_bytes(d.get("value")), key=_bytes(d.get("key")),
                                         headers=headers, partition=d.get("partition")))
            n += 1
        producer.flush()
        for f in futures:
            f.get(timeout=60)
    finally:
        producer.close()
    return n
