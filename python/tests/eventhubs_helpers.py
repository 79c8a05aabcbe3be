"""An Eventstream with a CustomEndpoint source and destination, and the
destination's Event Hubs connection (the route Fabric's portal shows as the
custom endpoint's Event Hub / Kafka keys)."""

from __future__ import annotations

import base64
import json
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
