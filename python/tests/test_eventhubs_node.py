"""Microsoft's JavaScript Event Hubs SDK (@azure/event-hubs) against the
custom endpoint's Event Hubs door: the custom-app tutorial's producer
(python/tests/eventhubs_node/send.js: 5 batches of 10 events through an
``EventHubProducerClient`` made from the connection string and the event
hub name) with the connection route's ``primaryConnectionString``; then a
Kafka client reads the 50 events from the Eventstream.

The SDK is installed by ``bash scripts/install-node-clients.sh``
(``make test-deps``) into .cache/node-clients.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import REPO, Emulator
from eventhubs_helpers import connection_of, deploy_event_hub, kafka_records

SEND = REPO / "python" / "tests" / "eventhubs_node" / "send.js"
MODULES = REPO / ".cache" / "node-clients" / "node_modules"
INSTALL = "bash scripts/install-node-clients.sh"


def test_tutorial_producer_sends_50_events(amqp_emulator: Emulator) -> None:
    node = shutil.which("node")
    if node is None or not (MODULES / "@azure" / "event-hubs").is_dir():
        pytest.fail(f"node or @azure/event-hubs missing (node: {node}, {MODULES}); run `{INSTALL}`", pytrace=False)
    emu = amqp_emulator
    hub = deploy_event_hub(emu, emu.create_workspace("eventhubs-node"), "eh-node")
    conn = connection_of(emu, hub, "sources", "app")
    env = dict(os.environ, NODE_PATH=str(MODULES),
               EVENTHUB_CONNECTION_STRING=conn["accessKeys"]["primaryConnectionString"],
               EVENTHUB_NAME=conn["eventHubName"])
    p = subprocess.run([node, str(SEND)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"send.js exited {p.returncode}:\n{p.stdout}\n{p.stderr}"
    assert p.stdout.splitlines() == [f"sent batch {b} of 10 events" for b in range(5)], p.stdout

    recs = list(kafka_records(hub, 50))
    rows = [json.loads(r.value) for r in recs]
    for rec, row in zip(recs, rows):  # the SDK's JSON of the object body, as JSON.stringify writes it
        assert rec.value == json.dumps(row, separators=(",", ":")).encode(), rec.value
        assert list(row) == ["id", "timestamp", "device", "temperature"], row
    assert sorted(r["id"] for r in rows) == list(range(50))
    for r in rows:
        assert r["device"] == f"sensor-{r['id'] % 10 % 3}" and r["temperature"] == 20 + r["id"] % 7, r
