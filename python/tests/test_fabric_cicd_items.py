"""fabric-cicd (Microsoft's deployment library) publishes a repository folder
holding a Data Pipeline, a Notebook, a Lakehouse and an Eventstream, then
republishes a change (issue 17, item 5).

fabric-cicd is pointed at the emulator as in ``test_fabric_client.py`` (its
module constants, azure-identity's ``ClientSecretCredential`` over TLS), in both
answer modes (synchronous, and ``--async-operations``). The item folders
follow Microsoft's source-control layout (``<name>.<Type>/.platform`` plus
the type's definition files: ``pipeline-content.json`` for a Data Pipeline,
``notebook-content.py`` for a Notebook, ``lakehouse.metadata.json`` for a
Lakehouse, ``eventstream.json`` for an Eventstream; "Git integration source
code format", learn.microsoft.com/fabric/cicd/git-integration/source-code-format).
What was deployed is read back through the emulator's REST API.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import test_fabric_client as fc
from conftest import Emulator
from identity import Wire
from test_fabric_client import client_secret_credential, new_workspace, rest, rest_lro

# test_fabric_client's fixtures, registered here: the emulator in both answer
# modes and its check of the packages this module needs.
emu = fc.emu
tls_async_emulator = fc.tls_async_emulator
cicd = fc.cicd
_python_deps = fc._python_deps

TYPES = ["DataPipeline", "Notebook", "Lakehouse", "Eventstream"]
LOGICAL = {"DataPipeline": "8d2f7e1a-3b4c-4d5e-9f60-718293a4b5c6", "Notebook": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
           "Lakehouse": "6f5e4d3c-2b1a-4c0d-9e8f-7a6b5c4d3e2f", "Eventstream": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"}
TOPOLOGY = {
    "sources": [{"name": "app", "type": "CustomEndpoint", "properties": {}}],
    "streams": [{"name": "clicks-stream", "type": "DefaultStream", "properties": {}, "inputNodes": [{"name": "app"}]}],
    "operators": [],
    "destinations": [{"name": "out", "type": "CustomEndpoint", "properties": {}, "inputNodes": [{"name": "clicks-stream"}]}],
    "compatibilityLevel": "1.0",
}


def write_folder(repo: Path, typ: str, name: str, description: str, files: dict[str, str]) -> None:
    d = repo / f"{name}.{typ}"
    d.mkdir(parents=True, exist_ok=True)
    (d / ".platform").write_text(json.dumps({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json",
        "metadata": {"type": typ, "displayName": name, "description": description},
        "config": {"version": "2.0", "logicalId": LOGICAL[typ]}}, indent=2))
    for path, content in files.items():
        (d / path).write_text(content)


def write_repo(repo: Path, version: int) -> None:
    wait = {"name": "Wait", "type": "Wait", "typeProperties": {"waitTimeInSeconds": version}}
    write_folder(repo, "DataPipeline", "ingest", f"pipeline v{version}",
                 {"pipeline-content.json": json.dumps({"properties": {"activities": [wait]}}, indent=2)})
    write_folder(repo, "Notebook", "enrich", f"notebook v{version}", {"notebook-content.py": (
        "# Fabric notebook source\n\n# METADATA ********************\n\n"
        "# META {\n# META   \"kernel_info\": {\"name\": \"synapse_pyspark\"}\n# META }\n\n"
        f"# CELL ********************\n\nprint(\"version {version}\")\n")})
    write_folder(repo, "Lakehouse", "clicks_lh", f"lakehouse v{version}", {"lakehouse.metadata.json": "{}"})
    write_folder(repo, "Eventstream", "clicks", f"eventstream v{version}", {
        "eventstream.json": json.dumps(TOPOLOGY, indent=2),
        "eventstreamProperties.json": json.dumps({"retentionTimeInDays": 1, "eventThroughputLevel": "Low"})})


def publish(emu: Emulator, ws: str, repo: Path) -> None:
    from fabric_cicd import FabricWorkspace, publish_all_items
    workspace = FabricWorkspace(workspace_id=ws, repository_directory=str(repo), item_type_in_scope=TYPES,
                                token_credential=client_secret_credential(emu))
    publish_all_items(workspace)


def definition(emu: Emulator, ws: str, item: str) -> dict[str, str]:
    res = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/items/{item}/getDefinition")
    return {p["path"]: base64.b64decode(p["payload"]).decode() for p in res["definition"]["parts"]}


def items_by_type(emu: Emulator, ws: str) -> dict[str, dict[str, Any]]:
    status, _, body = rest(emu, "GET", f"/v1/workspaces/{ws}/items")
    assert status == 200, body
    out: dict[str, dict[str, Any]] = {}
    for it in body["value"]:
        assert it["type"] not in out, body
        out[it["type"]] = it
    return out


def test_fabric_cicd_publishes_pipeline_notebook_lakehouse_eventstream(emu: Emulator, cicd: Wire,
                                                                        tmp_path: Path) -> None:
    ws = new_workspace(emu, "cicd-items")
    repo = tmp_path / "repo"

    # 1. First publish: every item is created (with its definition where it has one).
    write_repo(repo, 1)
    publish(emu, ws, repo)
    items = items_by_type(emu, ws)
    assert sorted(items) == sorted(TYPES), items
    assert {t: (i["displayName"], i["description"]) for t, i in items.items()} == {
        "DataPipeline": ("ingest", "pipeline v1"), "Notebook": ("enrich", "notebook v1"),
        "Lakehouse": ("clicks_lh", "lakehouse v1"), "Eventstream": ("clicks", "eventstream v1")}, items
    pipeline = definition(emu, ws, items["DataPipeline"]["id"])
    wait = json.loads(pipeline["pipeline-content.json"])["properties"]["activities"][0]
    assert wait["typeProperties"] == {"waitTimeInSeconds": 1}, pipeline
    assert 'print("version 1")' in definition(emu, ws, items["Notebook"]["id"])["notebook-content.py"]
    status, _, lh = rest(emu, "GET", f"/v1/workspaces/{ws}/lakehouses/{items['Lakehouse']['id']}")
    assert status == 200 and "oneLakeTablesPath" in lh["properties"], lh

    # 2. Republish a change: the same items (same ids), their new definitions and descriptions.
    write_repo(repo, 2)
    publish(emu, ws, repo)
    again = items_by_type(emu, ws)
    assert {t: i["id"] for t, i in again.items()} == {t: i["id"] for t, i in items.items()}, again
    assert {t: i["description"] for t, i in again.items()} == {t: f"{t.lower().replace('datapipeline', 'pipeline')} v2"
                                                               for t in TYPES}, again
    pipeline = definition(emu, ws, items["DataPipeline"]["id"])
    wait = json.loads(pipeline["pipeline-content.json"])["properties"]["activities"][0]
    assert wait["typeProperties"] == {"waitTimeInSeconds": 2}, pipeline
    nb = definition(emu, ws, items["Notebook"]["id"])
    assert 'print("version 2")' in nb["notebook-content.py"], nb
    assert json.loads(nb[".platform"])["metadata"]["description"] == "notebook v2", nb

    # The routes fabric-cicd took: creates through POST …/items, updates
    # through updateDefinition (the Lakehouse, which it publishes without a
    # definition here, through PATCH …/items/{id}).
    calls = cicd.routes(emu.url)
    base = f"/v1/workspaces/{ws}"
    creates = [c for c in calls if c.startswith(f"POST {base}/items ")]
    updates = [c for c in calls if "/updateDefinition" in c]
    assert len(creates) == 4, calls
    assert any(c.startswith(f"PATCH {base}/items/{items['Lakehouse']['id']} ") for c in calls), calls
    assert all(c.split()[-1] in ("200", "201", "202") for c in creates + updates), calls
    assert {u.split("/items/")[1].split("/")[0] for u in updates} >= {items["DataPipeline"]["id"], items["Notebook"]["id"]}, calls
