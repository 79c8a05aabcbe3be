"""Workspaces, Eventstreams, Lakehouses, destinations and Delta tables, as a
test creates and reads them through the emulator's REST API."""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .client import Client
from .waits import wait_rows

if TYPE_CHECKING:
    from .eventhouse import Eventhouse, KqlDatabase

q = urllib.parse.quote


def _b64(obj: Any) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.b64encode(raw).decode()


def definition(topology: Mapping[str, Any] | bytes) -> dict[str, Any]:
    """The Eventstream item definition around ``topology`` (eventstream.json:
    a dict, or the bytes of a file exported from Fabric)."""
    return {"parts": [
        {"path": "eventstream.json", "payload": _b64(topology), "payloadType": "InlineBase64"},
        {"path": "eventstreamProperties.json", "payloadType": "InlineBase64",
         "payload": _b64({"retentionTimeInDays": 1, "eventThroughputLevel": "Low"})},
    ]}


@dataclass
class Workspace:
    """A workspace; its methods create items in it."""

    client: Client
    id: str
    name: str
    ca: Path | None = None
    local_path: Callable[[str], Path] = field(default=Path, repr=False)  # a path the emulator names, on this host

    @property
    def path(self) -> str:
        return f"/v1/workspaces/{q(self.id, safe='')}"

    def eventstream(self, name: str) -> Eventstream:
        """A native Eventstream (its DefaultStream takes HTTP produces)."""
        return self._eventstream({"displayName": name})

    def deploy_eventstream(self, name: str, topology: Mapping[str, Any] | bytes) -> Eventstream:
        """An Eventstream from a definition (the content of eventstream.json)."""
        return self._eventstream({"displayName": name, "definition": definition(topology)})

    def _eventstream(self, body: dict[str, Any]) -> Eventstream:
        out = self.client.call("POST", self.path + "/eventstreams", body)
        stream = out["properties"]["streams"][0]
        return Eventstream(self, out["id"], out["displayName"], stream["id"], stream["topic"])

    def lakehouse(self, name: str) -> Lakehouse:
        """A Lakehouse (letters, digits and underscores); its tables are local Delta tables."""
        out = self.client.call("POST", self.path + "/lakehouses", {"displayName": name})
        props = out.get("properties") or {}
        return Lakehouse(self, out["id"], out["displayName"], self.local_path(props["x-fabrictest-localTablesPath"]))

    def eventhouse(self, name: str) -> Eventhouse:
        """An Eventhouse and its default KQL database (``.database``, same name)."""
        from .eventhouse import Eventhouse, KqlDatabase

        out = self.client.call("POST", self.path + "/eventhouses", {"displayName": name})
        props = out.get("properties") or {}
        db = KqlDatabase(self, props["databasesItemIds"][0], out["displayName"], out["id"],
                         props.get("queryServiceUri") or "")
        return Eventhouse(self, out["id"], out["displayName"], db)

    def add_role(self, principal_id: str, role: str = "Contributor", principal_type: str = "ServicePrincipal") -> None:
        """Give ``principal_id`` a role (Admin, Member, Contributor, Viewer) in the workspace."""
        self.client.call("POST", self.path + "/roleAssignments",
                         {"principal": {"id": principal_id, "type": principal_type}, "role": role})


@dataclass
class Eventstream:
    """An Eventstream: ``datasource_id`` is its DefaultStream's id (the
    notebook's ``eventstream.datasourceid``), ``topic`` its Kafka topic."""

    workspace: Workspace
    id: str
    name: str
    datasource_id: str
    topic: str

    @property
    def path(self) -> str:
        return f"{self.workspace.path}/eventstreams/{q(self.id, safe='')}"

    def produce(self, *values: Any, key: str | None = None) -> dict[str, Any]:
        """Produce each value as one event over the Custom HTTP source (dicts
        and lists as JSON); answers when every destination has delivered it."""
        events = [{"value": v, **({"key": key} if key is not None else {})} for v in values]
        return self.workspace.client.call("POST", f"{self.path}/sources/{q(self.datasource_id, safe='')}/events",
                                          {"events": events})

    def topology(self) -> dict[str, Any]:
        """GET …/topology: sources, streams, operators, destinations with status and error."""
        return self.workspace.client.call("GET", self.path + "/topology")

    def node(self, kind: str, name: str) -> dict[str, Any]:
        """The topology node of ``kind`` (sources, destinations, …) named ``name``."""
        nodes = self.topology()[kind]
        for n in nodes:
            if n["name"] == name:
                return n
        raise LookupError(f"eventstream {self.name} has no {kind[:-1]} named {name!r}: it has "
                          f"{', '.join(n['name'] for n in nodes) or 'none'}")

    def bind_lakehouse(self, lakehouse: Lakehouse, table: str, **settings: Any) -> Destination:
        """A Lakehouse destination writing ``table`` (settings such as
        ``minimumRows`` go into the body; without them every batch commits at once)."""
        body = {"type": "Lakehouse", "itemId": lakehouse.id, "table": table, **settings}
        if lakehouse.workspace.id != self.workspace.id:
            body["workspaceId"] = lakehouse.workspace.id
        out = self.workspace.client.call("POST", self.path + "/destinations", body)
        return Destination(self, out["id"], out.get("name") or out["id"])

    def bind_eventhouse(self, target: Eventhouse | KqlDatabase, table: str, **settings: Any) -> Destination:
        """An Eventhouse destination writing ``table`` of ``target`` (an
        Eventhouse: its default database; or a KQL database); settings such
        as ``ingestionMode="DirectIngestion"`` go into the body."""
        from .eventhouse import KqlDatabase

        if isinstance(target, KqlDatabase):
            body = {"type": "Eventhouse", "itemId": target.eventhouse_id, "database": target.name}
        else:
            body = {"type": "Eventhouse", "itemId": target.id}
        body.update(table=table, **settings)
        if target.workspace.id != self.workspace.id:
            body["workspaceId"] = target.workspace.id
        out = self.workspace.client.call("POST", self.path + "/destinations", body)
        return Destination(self, out["id"], out.get("name") or out["id"])

    def connection(self, node: str, kind: str = "sources") -> Connection:
        """The custom endpoint connection of the CustomEndpoint source (or
        destination, ``kind="destinations"``) named ``node``."""
        node_id = self.node(kind, node)["id"]
        out = self.workspace.client.call("GET", f"{self.path}/{kind}/{q(node_id, safe='')}/connection")
        return Connection(out["fullyQualifiedNamespace"], out["eventHubName"],
                          out["accessKeys"]["primaryConnectionString"], out.get("consumerGroupName"),
                          self.workspace.ca)


@dataclass
class Destination:
    """A bound destination."""

    eventstream: Eventstream
    id: str
    name: str

    def status(self) -> dict[str, Any]:
        """GET …/destinations/{id}: its topology node (``status``, ``error``) and delivery."""
        return self.eventstream.workspace.client.call("GET", f"{self.eventstream.path}/destinations/{q(self.id, safe='')}")


@dataclass
class Connection:
    """A custom endpoint's connection: what a Kafka client configured the
    Event Hubs way needs (SASL PLAIN, ``$ConnectionString``)."""

    namespace: str
    event_hub: str
    connection_string: str
    consumer_group: str | None = None
    ca: Path | None = None

    @property
    def bootstrap(self) -> str:
        """The namespace, with port 9093 when it names none."""
        return self.namespace if ":" in self.namespace else self.namespace + ":9093"

    def kafka_config(self) -> dict[str, Any]:
        """kafka-python settings: bootstrap, SASL PLAIN with the connection string, TLS with the CA under --tls."""
        cfg: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap, "sasl_mechanism": "PLAIN",
            "sasl_plain_username": "$ConnectionString", "sasl_plain_password": self.connection_string,
            "security_protocol": "SASL_SSL" if self.ca else "SASL_PLAINTEXT",
        }
        if self.ca:
            cfg["ssl_cafile"] = str(self.ca)
        return cfg

    def produce(self, values: Iterable[Any], timeout: float = 30.0) -> int:
        """Send each value (JSON-encoded unless bytes) with kafka-python and flush; the count sent."""
        try:
            from kafka import KafkaProducer
        except ImportError as e:
            raise RuntimeError(f"producing over Kafka needs kafka-python ({e}): pip install 'fabrictest[kafka]'") from None
        producer = KafkaProducer(**self.kafka_config())
        try:
            n = 0
            for v in values:
                producer.send(self.event_hub, v if isinstance(v, bytes) else json.dumps(v).encode())
                n += 1
            producer.flush(timeout)
        finally:
            producer.close(timeout)
        return n


    def send_events(self, values: Iterable[Any], *, partition_key: str | None = None,
                    partition_id: str | None = None, properties: Mapping[str, Any] | None = None) -> int:
        """Send each value (JSON-encoded unless bytes or str) as one event with
        Microsoft's Event Hubs SDK (azure-eventhub, AMQP 1.0), from this
        connection string unchanged, in batches; the count sent."""
        try:
            from azure.eventhub import EventData, EventHubProducerClient
        except ImportError as e:
            raise RuntimeError(f"sending with the Event Hubs SDK needs azure-eventhub ({e}): "
                               "pip install 'fabrictest[eventhubs]'") from None
        producer = EventHubProducerClient.from_connection_string(self.connection_string)
        n = 0
        with producer:
            batch = producer.create_batch(partition_key=partition_key, partition_id=partition_id)
            for v in values:
                body = v if isinstance(v, (bytes, str)) else json.dumps(v)
                ev = EventData(body)
                if properties:
                    ev.properties = dict(properties)
                try:
                    batch.add(ev)
                except ValueError:  # the batch is full: send it, start another
                    producer.send_batch(batch)
                    batch = producer.create_batch(partition_key=partition_key, partition_id=partition_id)
                    batch.add(ev)
                n += 1
            if len(batch):
                producer.send_batch(batch)
        return n

    def records(self, count: int, timeout: float = 20.0, group: str | None = None) -> list[Any]:
        """The first ``count`` records of the event hub over the Kafka protocol
        (kafka-python, SASL PLAIN with this connection string), from the
        earliest; fewer when nothing more comes for ``timeout`` seconds."""
        try:
            from kafka import KafkaConsumer
        except ImportError as e:
            raise RuntimeError(f"reading over Kafka needs kafka-python ({e}): pip install 'fabrictest[kafka]'") from None
        consumer = KafkaConsumer(self.event_hub, **self.kafka_config(), auto_offset_reset="earliest",
                                 group_id=group or self.consumer_group or "$Default",
                                 consumer_timeout_ms=int(timeout * 1000))
        out: list[Any] = []
        try:
            for rec in consumer:
                out.append(rec)
                if len(out) == count:
                    break
        finally:
            consumer.close()
        return out


@dataclass
class Lakehouse:
    """A Lakehouse; ``tables_path`` is the local directory of its Delta tables."""

    workspace: Workspace
    id: str
    name: str
    tables_path: Path
    _tables: dict[str, Table] = field(default_factory=dict, repr=False)

    def table(self, name: str) -> Table:
        """A handle on the Delta table ``name`` (read when used)."""
        return self._tables.setdefault(name, Table(self, name))


@dataclass
class Table:
    """A Lakehouse's Delta table, read with ``deltalake`` (delta-rs)."""

    lakehouse: Lakehouse
    name: str

    @property
    def path(self) -> Path:
        return self.lakehouse.tables_path / self.name

    def rows(self) -> list[dict[str, Any]]:
        """Every row (``[]`` while no destination has written the table)."""
        try:
            from deltalake import DeltaTable
        except ImportError as e:
            raise RuntimeError(f"reading Delta tables needs deltalake ({e}): pip install 'fabrictest[delta]'") from None
        if not (self.path / "_delta_log").is_dir():
            return []
        return DeltaTable(str(self.path)).to_pyarrow_table().to_pylist()

    def wait_rows(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The rows once there are at least ``count``; after ``timeout`` seconds an
        AssertionError naming the table, the count and its destinations' status."""
        return wait_rows(self, count, timeout)

    def destinations(self) -> list[tuple[str, dict[str, Any]]]:
        """(eventstream name, topology node) of every destination in the
        workspace that writes this table."""
        ws = self.lakehouse.workspace
        found = []
        for item in ws.client.call("GET", ws.path + "/eventstreams").get("value", []):
            es_path = f"{ws.path}/eventstreams/{q(item['id'], safe='')}"
            for node in ws.client.call("GET", es_path + "/topology").get("destinations", []):
                values = json.dumps(node.get("properties") or {})
                if node.get("type", "").lower() == "lakehouse" and self.lakehouse.id in values \
                        and f'"{self.name}"' in values:
                    found.append((item["displayName"], node))
        return found


def lakehouse_destination(name: str, lakehouse: Lakehouse, table: str, input_node: str,
                          **properties: Any) -> dict[str, Any]:
    """A Lakehouse destination node for eventstream.json writing ``table`` of
    ``lakehouse`` from ``input_node``. A definition's Lakehouse node batches
    (Fabric's defaults: 100,000 rows or 120 s); pass ``minimumRows=1`` for a
    commit per batch in tests."""
    props = {"workspaceId": lakehouse.workspace.id, "itemId": lakehouse.id, "deltaTable": table,
             "inputSerialization": {"type": "Json", "properties": {"encoding": "UTF8"}}, **properties}
    return {"name": name, "type": "Lakehouse", "properties": props, "inputNodes": [{"name": input_node}]}
