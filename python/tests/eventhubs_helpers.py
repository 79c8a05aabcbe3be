"""An Eventstream with a CustomEndpoint source and destination, and the
destination's Event Hubs connection (the route Fabric's portal shows as the
custom endpoint's Event Hub / Kafka keys)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from conftest import Emulator, Eventstream

TOPOLOGY = {
    "sources": [{"name": "app", "type": "CustomEndpoint", "properties": {}}],
    "streams": [{"name": "eh-stream", "type": "DefaultStream", "properties": {}, "inputNodes": [{"name": "app"}]}],
    "destinations": [{"name": "out", "type": "CustomEndpoint", "properties": {},
                      "inputNodes": [{"name": "eh-stream"}]}],
}


@dataclass
class EventHub:
    """What a Databricks user copies from the portal: the connection string,
    the namespace and the event hub (topic) name; ``es`` produces over HTTP."""

    es: Eventstream
    connection_string: str
    namespace: str
    name: str

    @property
    def bootstrap(self) -> str:
        """``<namespace>:9093`` as Databricks writes it (the namespace carries the
        port when the endpoint does not listen on 9093)."""
        return self.namespace if ":" in self.namespace else self.namespace + ":9093"

    def kafka_options(self, protocol: str = "SASL_PLAINTEXT") -> dict[str, str]:
        """Databricks' Kafka-protocol form of the same event hub."""
        return {
            "kafka.bootstrap.servers": self.bootstrap,
            "kafka.security.protocol": protocol,
            "kafka.sasl.mechanism": "PLAIN",
            "kafka.sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                      f'username="$ConnectionString" password="{self.connection_string}";',
            "subscribe": self.name,
        }


def deploy_event_hub(emu: Emulator, ws: str, name: str) -> EventHub:
    payload = base64.b64encode(json.dumps(TOPOLOGY).encode()).decode()
    body: dict[str, Any] = {"displayName": name, "definition": {"parts": [
        {"path": "eventstream.json", "payload": payload, "payloadType": "InlineBase64"}]}}
    es = emu.call("POST", f"/v1/workspaces/{ws}/eventstreams", body)
    stream = es["properties"]["streams"][0]
    base = f"/v1/workspaces/{ws}/eventstreams/{es['id']}"
    topo = emu.call("GET", base + "/topology")
    out = next(d["id"] for d in topo["destinations"] if d["name"] == "out")
    conn = emu.call("GET", f"{base}/destinations/{out}/connection")
    return EventHub(Eventstream(ws, es["id"], stream["id"], stream["topic"]),
                    conn["accessKeys"]["primaryConnectionString"], conn["fullyQualifiedNamespace"],
                    conn["eventHubName"])


def connection_of(emu: Emulator, hub: EventHub, kind: str, name: str) -> dict[str, Any]:
    """The connection route's answer for the node ``name`` of ``kind``
    (``sources`` or ``destinations``) of the event hub's Eventstream."""
    base = f"/v1/workspaces/{hub.es.workspace_id}/eventstreams/{hub.es.item_id}"
    node = next(n["id"] for n in emu.call("GET", base + "/topology")[kind] if n["name"] == name)
    return emu.call("GET", f"{base}/{kind}/{node}/connection")


def kafka_records(hub: EventHub, n: int) -> Iterator[Any]:
    """The first ``n`` records of the event hub over the Kafka protocol, as
    Microsoft's Kafka page sets the client up (SASL PLAIN,
    ``$ConnectionString`` and the destination's string); stops early when
    nothing comes for 20 s."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(hub.name, bootstrap_servers=hub.bootstrap, security_protocol="SASL_PLAINTEXT",
                             sasl_mechanism="PLAIN", sasl_plain_username="$ConnectionString",
                             sasl_plain_password=hub.connection_string, auto_offset_reset="earliest",
                             group_id="eventhubs-sdk-check", consumer_timeout_ms=20000)
    try:
        seen = 0
        for rec in consumer:
            seen += 1
            yield rec
            if seen == n:
                return
    finally:
        consumer.close()
