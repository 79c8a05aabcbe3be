"""The application code under test: publishes orders to a Fabric Eventstream's
custom endpoint with the connection string Fabric shows (the Kafka protocol,
SASL PLAIN with "$ConnectionString"), exactly as it would against Fabric."""

from __future__ import annotations

import json
from collections.abc import Iterable

from kafka import KafkaProducer


def publish(bootstrap: str, event_hub: str, connection_string: str, orders: Iterable[dict],
            ca_file: str | None = None) -> int:
    """Send each order as JSON; the number sent."""
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, security_protocol="SASL_SSL" if ca_file else "SASL_PLAINTEXT",
        sasl_mechanism="PLAIN", sasl_plain_username="$ConnectionString", sasl_plain_password=connection_string,
        ssl_cafile=ca_file, value_serializer=lambda v: json.dumps(v).encode())
    n = 0
    try:
        for order in orders:
            producer.send(event_hub, order)
            n += 1
        producer.flush(30)
    finally:
        producer.close(30)
    return n
