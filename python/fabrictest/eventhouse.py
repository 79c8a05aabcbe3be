"""Eventhouses and KQL databases, as a test creates them through the
emulator's REST API and reads what an Eventhouse destination ingested, with
Kusto's query protocol (v2, ``POST /v2/rest/query``) against the engine the
emulator runs with (``--kql-url``: kustainer, or any Kusto engine)."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .waits import wait_rows

if TYPE_CHECKING:
    from .items import Workspace

q = urllib.parse.quote


class KustoError(AssertionError):
    """The Kusto engine refused a query: ``status`` and its OneApiError ``body``."""

    def __init__(self, url: str, status: int, body: Any) -> None:
        self.status, self.body = status, body
        err = body.get("error") if isinstance(body, dict) else None
        msg = (err or {}).get("@message") or (err or {}).get("message") or body
        super().__init__(f"POST {url}: {status}: {msg}")


def kusto_query(engine_url: str, database: str, csl: str, *, token: str | None = None,
                ssl_context: ssl.SSLContext | None = None, timeout: float = 60.0) -> list[dict[str, Any]]:
    """The primary result of ``csl`` in ``database`` as rows (column name →
    value), through Kusto's v2 query endpoint."""
    url = engine_url.rstrip("/") + "/v2/rest/query"
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    body = json.dumps({"db": database, "csl": csl}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ssl_context) as r:
            frames = json.loads(r.read())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            decoded: Any = json.loads(raw)
        except ValueError:
            decoded = raw.decode(errors="replace")
        raise KustoError(url, e.code, decoded) from None
    return primary_result(url, frames)


def primary_result(url: str, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the primary result of a v2 answer: one DataTable frame, or
    (fragmented) a TableHeader, TableFragments and a TableCompletion."""
    names: list[str] | None = None
    rows: list[list[Any]] = []
    for f in frames:
        kind = f.get("FrameType")
        if kind == "DataTable" and f.get("TableKind") == "PrimaryResult":
            names, rows = [c["ColumnName"] for c in f["Columns"]], f["Rows"]
            break
        if kind == "TableHeader" and f.get("TableKind") == "PrimaryResult":
            names = [c["ColumnName"] for c in f["Columns"]]
        elif kind == "TableFragment" and names is not None:
            rows.extend(f["Rows"])
        elif kind == "TableCompletion" and names is not None:
            break
    if names is None:
        raise KustoError(url, 200, f"no PrimaryResult table in the answer: {frames!r:.500}")
    for f in frames:
        if f.get("FrameType") == "DataSetCompletion" and f.get("HasErrors"):
            raise KustoError(url, 200, f.get("OneApiErrors"))
    return [dict(zip(names, row)) for row in rows]


def quote_name(name: str) -> str:
    """A Kusto identifier quoted (``['orders']``), as the emulator quotes every one."""
    return "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']"


@dataclass
class KqlDatabase:
    """A KQL database; ``name`` is its name in the Kusto engine."""

    workspace: Workspace
    id: str
    name: str
    eventhouse_id: str
    query_uri: str

    def query(self, csl: str) -> list[dict[str, Any]]:
        """The rows ``csl`` answers in this database. Fails saying so when the
        emulator runs without a Kusto engine (no ``--kql-url``)."""
        if not self.query_uri:
            raise AssertionError(f"KQL database {self.name} has no query URI: the emulator runs without a Kusto "
                                 "engine; start it with --kql-url (the plugin's --fabric-emulator-kql-url)")
        return kusto_query(self.query_uri, self.name, csl)

    def table(self, name: str) -> KustoTable:
        """A handle on the table ``name`` (read when used)."""
        return KustoTable(self, name)


@dataclass
class KustoTable:
    """A table of a KQL database, written by Eventhouse destinations."""

    database: KqlDatabase
    name: str

    def rows(self) -> list[dict[str, Any]]:
        """Every row (``[]`` while no destination has created the table)."""
        try:
            return self.database.query(quote_name(self.name))
        except KustoError as e:
            if "Failed to resolve table or column expression named" in str(e):
                return []
            raise

    def wait_rows(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The rows once there are at least ``count``; after ``timeout`` seconds an
        AssertionError naming the table, the count and its destinations' status."""
        return wait_rows(self, count, timeout)

    def destinations(self) -> list[tuple[str, dict[str, Any]]]:
        """(eventstream name, topology node) of every Eventhouse destination in
        the workspace that writes this table."""
        ws = self.database.workspace
        ids = {self.database.id, self.database.eventhouse_id}
        found = []
        for item in ws.client.call("GET", ws.path + "/eventstreams").get("value", []):
            es_path = f"{ws.path}/eventstreams/{q(item['id'], safe='')}"
            for node in ws.client.call("GET", es_path + "/topology").get("destinations", []):
                values = json.dumps(node.get("properties") or {})
                if node.get("type", "").lower() == "eventhouse" and any(i in values for i in ids) \
                        and f'"{self.name}"' in values:
                    found.append((item["displayName"], node))
        return found


@dataclass
class Eventhouse:
    """An Eventhouse; ``database`` is its default KQL database (same name)."""

    workspace: Workspace
    id: str
    name: str
    database: KqlDatabase

    def kql_database(self, name: str) -> KqlDatabase:
        """A new KQL database in this Eventhouse."""
        ws = self.workspace
        out = ws.client.call("POST", ws.path + "/kqlDatabases", {"displayName": name, "creationPayload": {
            "databaseType": "ReadWrite", "parentEventhouseItemId": self.id}})
        return KqlDatabase(ws, out["id"], out["displayName"], self.id,
                           (out.get("properties") or {}).get("queryServiceUri") or "")


def eventhouse_destination(name: str, database: KqlDatabase, table: str, input_node: str,
                           **properties: Any) -> dict[str, Any]:
    """An Eventhouse destination node for eventstream.json writing ``table``
    of ``database`` from ``input_node`` (processed ingestion, JSON)."""
    props = {"dataIngestionMode": "ProcessedIngestion", "workspaceId": database.workspace.id,
             "itemId": database.eventhouse_id, "databaseName": database.name, "tableName": table,
             "inputSerialization": {"type": "Json", "properties": {"encoding": "UTF8"}}, **properties}
    return {"name": name, "type": "Eventhouse", "properties": props, "inputNodes": [{"name": input_node}]}
