"""Third-party Fabric clients, written by Microsoft and not by this project,
run against the emulator (issue 8, item 5; issue 16, items 4 and 5: over TLS
with azure-identity credentials).

* ``fabric-cicd`` (Microsoft's deployment library) publishes an Eventstream
  item from a repository folder (``Bikes.Eventstream/.platform``,
  ``eventstream.json``, ``eventstreamProperties.json``): it lists the items,
  creates the item with its definition (``POST …/items``), and on the second
  run updates it (``POST …/items/{id}/updateDefinition?updateMetadata=True``),
  following long-running operations when the emulator answers 202.
* ``microsoft-fabric-api`` (Microsoft's generated Fabric REST SDK on azure-core)
  reads the workspace, creates a Lakehouse and an Eventstream with its
  definition, reads the topology and the definition, updates the definition
  and lists the items, through azure-core's LRO pollers.

Both run against the emulator as it answers by default (synchronous 201/200)
and with ``--async-operations`` (202 + ``Location`` + ``x-ms-operation-id`` +
``Retry-After`` on every eligible call), so their polling code runs.

The Eventstream is built at test time from Microsoft's template
(``../shared/fabric-event-streams-template/eventstream-definition.json``
relative to the repository root; it is never copied here): its CustomEndpoint
source, its DefaultStream, its Filter operator and its Lakehouse destination,
pointed at a Lakehouse the test creates, with real workspace and item ids.
What the client deployed is then checked through the emulator's own REST API
(``GET …/topology``, ``getDefinition``) and by producing events through the
source and reading the Lakehouse's Delta table with deltalake.

How the clients are pointed at the emulator: only its endpoints and its CA
(README, "What a Python user sets"). The emulator runs with ``--tls``
(HTTPS, a SASL_SSL custom endpoint, a CA in its data dir); each client
trusts that CA through ``REQUESTS_CA_BUNDLE``, and authenticates as a service
principal against the emulator's Entra token service with azure-identity:

* ``ClientSecretCredential(tenant_id, client_id, client_secret,
  authority="https://127.0.0.1:PORT", disable_instance_discovery=True)``,
  or ``DefaultAzureCredential(disable_instance_discovery=True)`` reading
  ``AZURE_TENANT_ID``, ``AZURE_CLIENT_ID``, ``AZURE_CLIENT_SECRET`` and
  ``AZURE_AUTHORITY_HOST``. ``disable_instance_discovery`` is the one setting
  in code: MSAL for Python sends instance discovery for any authority host
  it does not know to ``login.microsoftonline.com``, and azure-identity has
  no environment variable for turning that off (pinned by
  ``test_msal_asks_microsoft_about_an_unknown_authority_host``).
* microsoft-fabric-api: ``FabricClient(credential, base_url=...)``, its own
  bearer policy (azure-core's, HTTPS only, unchanged).
* fabric-cicd: ``FabricWorkspace(token_credential=ClientSecretCredential(...))``.
  It validates its ``DEFAULT_API_ROOT_URL`` / ``FABRIC_API_ROOT_URL``
  environment variables against Microsoft host names, so its base URL is
  set through the module constants ``fabric_cicd.constants.DEFAULT_API_ROOT_URL``
  and ``FABRIC_API_ROOT_URL``, its documented override (``FabricWorkspace``
  answers the retired ``base_api_url`` argument with
  ``constants.DEFAULT_API_ROOT_URL = '<your_base_api_url>'``).

The workspaces are created by the test's own (emulator-native) identity and
grant the service principal Contributor by its object id, as a Fabric admin
grants a deployment principal; in the DefaultAzureCredential test the
service principal creates its workspace and is its Admin.

Emulator mismatches the clients found are marked ``EMULATOR MISMATCH`` below.
Nothing here skips: a missing package fails with the command that installs it.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Emulator, _start_emulator, _stop, trust_ca
from identity import CLIENT_ID, CLIENT_SECRET, FABRIC_SCOPE, TENANT, Wire, service_principal_id

INSTALL = "bash scripts/install-python-deps.sh"
TEMPLATE = REPO.parent / "shared" / "fabric-event-streams-template" / "eventstream-definition.json"
CAPACITY = "5f3e2a1b-7c4d-4e8f-9a0b-1c2d3e4f5a6b"


@pytest.fixture(scope="session", autouse=True)
def _python_deps() -> None:
    """Overrides conftest's check (which wants the Spark tier): this module
    needs only requirements-test.txt."""
    missing = []
    for mod in ("fabric_cicd", "microsoft_fabric_api", "azure.core", "azure.identity", "requests", "deltalake", "pyarrow",
                "kafka"):
        try:
            __import__(mod)
        except Exception as e:  # ImportError, or a broken install
            missing.append(f"{mod} ({e.__class__.__name__}: {e})")
    if missing:
        pytest.fail(f"Python packages missing from {sys.executable}: {', '.join(missing)}. Run `{INSTALL}` "
                    f"(installs python/requirements-test.txt into .cache/venv) and run pytest with "
                    f".cache/venv/bin/python.", pytrace=False)


# -- the emulator, in both answer modes -----------------------------------------------

@pytest.fixture(scope="module")
def tls_async_emulator(emulator_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator on its embedded broker with ``--tls`` and ``--async-operations``
    (through its environment variable, FABRIC_ASYNC_OPERATIONS=true)."""
    d = tmp_path_factory.mktemp("emulator-async")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FABRIC_ASYNC_OPERATIONS", "true")
        emu = _start_emulator(emulator_binary, d / "data", "embedded", d / "emulator.log", tls=True)
    yield emu
    _stop(emu.proc)


@pytest.fixture(params=["sync", "async"])
def emu(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    """The emulator in one answer mode, its CA trusted (``REQUESTS_CA_BUNDLE``)."""
    monkeypatch.delenv("FABRIC_ASYNC_OPERATIONS", raising=False)
    e = request.getfixturevalue("tls_emulator" if request.param == "sync" else "tls_async_emulator")
    e.mode = request.param  # type: ignore[attr-defined]
    trust_ca(monkeypatch, e)
    return e


def rest(emu: Emulator, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
    """One raw call to the emulator (status, headers, JSON body)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + emu.token}
    if data is not None:
        headers["Content-Type"] = "application/json"
    url = path if path.startswith("http") else emu.url + path
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60, context=emu.ssl_context()) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, dict(e.headers), e.read()
    return status, hdrs, json.loads(raw) if raw else None


def rest_lro(emu: Emulator, method: str, path: str, body: Any = None) -> Any:
    """A call that may be a long-running operation; answers the final body.
    In async mode it must be one (202), in sync mode it must not."""
    status, hdrs, payload = rest(emu, method, path, body)
    want = 202 if emu.mode == "async" else (200, 201)  # type: ignore[attr-defined]
    assert status == want or (isinstance(want, tuple) and status in want), \
        f"{method} {path} in {emu.mode} mode answered {status} {payload}"  # type: ignore[attr-defined]
    if status != 202:
        return payload
    deadline = time.monotonic() + 30
    while True:
        st, _, op = rest(emu, "GET", hdrs["Location"])
        assert st == 200, op
        if op["status"] in ("Succeeded", "Failed"):
            break
        assert time.monotonic() < deadline, op
        time.sleep(0.1)
    assert op["status"] == "Succeeded", op
    st, _, res = rest(emu, "GET", hdrs["Location"] + "/result")
    if st == 400 and res.get("errorCode") == "OperationHasNoResult":
        return None
    assert st == 200, res
    return res


def new_workspace(emu: Emulator, name: str) -> str:
    """A workspace on a (fake) capacity (fabric-cicd refuses to publish into a
    workspace whose GET has no capacityId), created by the test's identity,
    where the service principal is a Contributor by its object id."""
    status, _, ws = rest(emu, "POST", "/v1/workspaces", {"displayName": f"{name}-{time.time_ns()}", "capacityId": CAPACITY})
    assert status == 201, ws
    status, _, ra = rest(emu, "POST", f"/v1/workspaces/{ws['id']}/roleAssignments", {
        "principal": {"id": service_principal_id(CLIENT_ID), "type": "ServicePrincipal"}, "role": "Contributor"})
    assert status in (200, 201), ra
    return ws["id"]


def topology(emu: Emulator, ws: str, es: str) -> dict[str, Any]:
    status, _, body = rest(emu, "GET", f"/v1/workspaces/{ws}/eventstreams/{es}/topology")
    assert status == 200, body
    return body


def definition_parts(emu: Emulator, ws: str, es: str) -> dict[str, Any]:
    res = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/eventstreams/{es}/getDefinition")
    out = {}
    for p in res["definition"]["parts"]:
        assert p["payloadType"] == "InlineBase64", p
        out[p["path"]] = json.loads(base64.b64decode(p["payload"]))
    return out


def client_secret_credential(emu: Emulator) -> Any:
    """azure-identity's ClientSecretCredential for the service principal,
    with the emulator as its authority host."""
    from azure.identity import ClientSecretCredential
    return ClientSecretCredential(TENANT, CLIENT_ID, CLIENT_SECRET, authority=emu.url,
                                  disable_instance_discovery=True)


def assert_fabric_tokens_from_emulator(wire: Wire, emu: Emulator) -> None:
    """The credential asked the emulator's token endpoint for the Fabric
    scope with the client-credentials grant, and asked no one else."""
    assert not wire.outside_loopback(), wire.outside_loopback()
    tokens = wire.token_requests()
    assert tokens, [f"{s.method} {s.url}" for s in wire.sent]
    for t in tokens:
        assert t.url == f"{emu.url}/{TENANT}/oauth2/v2.0/token" and t.status == 200, t
        assert t.form["grant_type"] == ["client_credentials"] and t.form["client_id"] == [CLIENT_ID], t.form
        assert t.form["scope"] == [FABRIC_SCOPE] and t.form["client_secret"] == [CLIENT_SECRET], t.form


# -- the Eventstream, from Microsoft's template --------------------------------------------

def template() -> dict[str, Any]:
    if not TEMPLATE.is_file():
        pytest.fail(f"Microsoft's Eventstream template is not at {TEMPLATE} (the tests read it from ../shared "
                    f"relative to the repository root; it is not copied into the repository)", pytrace=False)
    return json.loads(TEMPLATE.read_text())


def template_topology(ws: str, lakehouse: str, table: str, not_equal_to: str = "0") -> dict[str, Any]:
    """The template's CustomEndpoint source → DefaultStream → Filter →
    Lakehouse destination, with real ids. The Filter keeps events whose
    BikepointID is not ``not_equal_to`` (the template's condition, "0")."""
    full = template()

    def pick(kind: str, name: str) -> dict[str, Any]:
        for n in full[kind]:
            if n["name"] == name:
                return copy.deepcopy(n)
        pytest.fail(f"Microsoft's template has no {kind} node {name}", pytrace=False)

    src = pick("sources", "CustomEndpointSource")
    stream = pick("streams", "myEventstream-stream")
    stream["inputNodes"] = [{"name": src["name"]}]  # the template says "sourceName"
    flt = pick("operators", "FilterName")
    assert flt["properties"]["conditions"][0]["value"]["value"] == "0"
    flt["properties"]["conditions"][0]["value"]["value"] = not_equal_to
    dest = pick("destinations", "LakehouseDestination")
    dest["properties"].update(workspaceId=ws, itemId=lakehouse, deltaTable=table)
    dest["inputNodes"] = [{"name": flt["name"]}]
    return {"sources": [src], "streams": [stream], "operators": [flt], "destinations": [dest],
            "compatibilityLevel": full["compatibilityLevel"]}


ES_PROPERTIES = {"retentionTimeInDays": 1, "eventThroughputLevel": "Low"}


def strip_runtime(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in ("id", "status", "error")}


def by_name(topo: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in topo[kind]}


def assert_holds(held: dict[str, Any], deployed: dict[str, Any], es_item: dict[str, Any]) -> None:
    """``held`` (a topology, or getDefinition's eventstream.json) is what was
    deployed: sources, streams and operators node for node, the DefaultStream
    keeps the Eventstream's datasource id, and the Lakehouse destination has
    its name, type, target and an id."""
    assert held["compatibilityLevel"] == deployed["compatibilityLevel"]
    for kind in ("sources", "streams", "operators"):
        assert [strip_runtime(n) for n in held[kind]] == deployed[kind], kind
    assert held["sources"][0]["id"], held["sources"]
    assert held["streams"][0]["id"] == es_item["properties"]["streams"][0]["id"]
    (dest,) = held["destinations"]
    (want,) = deployed["destinations"]
    assert (dest["name"], dest["type"]) == (want["name"], want["type"])
    assert dest["id"]
    for k in ("workspaceId", "itemId", "deltaTable"):
        assert dest["properties"][k] == want["properties"][k], k


def read_rows(table: Path, want: int, emu: Emulator, timeout: float = 20) -> list[dict[str, Any]]:
    """The Delta table's rows once it has ``want`` of them (bounded wait).

    The template's Lakehouse destination batches as Fabric does (a file per
    100,000 rows or 120 s): each try first advances the emulator's clock by
    120 s, so rows buffered by then are committed without waiting."""
    from deltalake import DeltaTable
    deadline = time.monotonic() + timeout
    rows: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        status, _, body = rest(emu, "POST", "/_emulator/clock", {"advanceSeconds": 120})
        assert status == 200, body
        # A table exists from its first commit: the log directory can be
        # there a moment before the commit file is.
        if any((table / "_delta_log").glob("*.json")):
            rows = DeltaTable(str(table)).to_pyarrow_table().to_pylist()
            if len(rows) >= want:
                return rows
        time.sleep(0.2)
    pytest.fail(f"{table}: {len(rows)} rows after {timeout}s, want {want}: {rows}")


def produce(emu: Emulator, ws: str, es: str, datasource: str, ids: list[str]) -> None:
    status, _, body = rest(emu, "POST", f"/v1/workspaces/{ws}/eventstreams/{es}/sources/{datasource}/events",
                           {"events": [{"value": {"BikepointID": i, "No_Bikes": n}} for n, i in enumerate(ids)]})
    assert status == 200, body


# -- fabric-cicd -------------------------------------------------------------------------------

def write_item(repo: Path, topo: dict[str, Any], description: str) -> None:
    d = repo / "Bikes.Eventstream"
    d.mkdir(parents=True, exist_ok=True)
    (d / ".platform").write_text(json.dumps({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json",
        "metadata": {"type": "Eventstream", "displayName": "Bikes", "description": description},
        "config": {"version": "2.0", "logicalId": "3b0c7f52-9d61-4e0a-8f47-2a5e1c6d9b83"}}, indent=2))
    (d / "eventstream.json").write_text(json.dumps(topo, indent=2))
    (d / "eventstreamProperties.json").write_text(json.dumps(ES_PROPERTIES, indent=2))


def cicd_publish(emu: Emulator, ws: str, repo: Path) -> None:
    """One fabric-cicd run, as a pipeline would: a new ClientSecretCredential
    and FabricWorkspace, and publish_all_items, Eventstream items only."""
    from fabric_cicd import FabricWorkspace, publish_all_items
    workspace = FabricWorkspace(workspace_id=ws, repository_directory=str(repo), item_type_in_scope=["Eventstream"],
                                token_credential=client_secret_credential(emu))
    publish_all_items(workspace)


@pytest.fixture
def cicd(emu: Emulator, wire: Wire, monkeypatch: pytest.MonkeyPatch) -> Wire:
    from fabric_cicd import constants

    # fabric-cicd's documented root-URL override (module constants; its
    # environment variables accept only HTTPS Microsoft hosts).
    monkeypatch.setattr(constants, "DEFAULT_API_ROOT_URL", emu.url)
    monkeypatch.setattr(constants, "FABRIC_API_ROOT_URL", emu.url)
    return wire


def test_fabric_cicd_deploys_and_redeploys_template_eventstream(emu: Emulator, cicd: Wire, tmp_path: Path) -> None:
    """fabric-cicd publishes Bikes.Eventstream (create with definition),
    then a changed definition (updateDefinition); the emulator holds each
    version, and the deployed Filter runs on produced events."""
    ws = new_workspace(emu, "cicd")
    lh = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/lakehouses", {"displayName": "bikes_lh"})
    table = Path(lh["properties"]["x-fabrictest-localTablesPath"]) / "bikes"
    repo = tmp_path / "repo"

    # 1. First deployment: the item does not exist, fabric-cicd creates it with its definition.
    v1 = template_topology(ws, lh["id"], "bikes")
    write_item(repo, v1, "deployed by fabric-cicd")
    cicd_publish(emu, ws, repo)

    status, _, items = rest(emu, "GET", f"/v1/workspaces/{ws}/items")
    streams = [i for i in items["value"] if i["type"] == "Eventstream"]
    assert [(i["displayName"], i["description"]) for i in streams] == [("Bikes", "deployed by fabric-cicd")], items
    es_id = streams[0]["id"]
    status, _, es = rest(emu, "GET", f"/v1/workspaces/{ws}/eventstreams/{es_id}")
    assert status == 200, es
    tp = topology(emu, ws, es_id)
    assert_holds(tp, v1, es)
    assert [n["status"] for n in tp["sources"] + tp["destinations"]] == ["Running", "Running"], tp
    parts = definition_parts(emu, ws, es_id)
    assert_holds(parts["eventstream.json"], v1, es)
    assert parts["eventstreamProperties.json"] == ES_PROPERTIES
    assert parts[".platform"]["metadata"] == {"type": "Eventstream", "displayName": "Bikes",
                                              "description": "deployed by fabric-cicd"}

    # The Filter fabric-cicd deployed runs: BikepointID "0" is dropped.
    datasource = es["properties"]["streams"][0]["id"]
    produce(emu, ws, es_id, datasource, ["BP1", "0"])
    assert sorted(r["BikepointID"] for r in read_rows(table, 1, emu)) == ["BP1"]

    # 2. Second run with a changed definition: the Filter now drops "BP9"
    # instead of "0", and the description changes (updateMetadata=True).
    v2 = template_topology(ws, lh["id"], "bikes", not_equal_to="BP9")
    write_item(repo, v2, "redeployed by fabric-cicd")
    cicd_publish(emu, ws, repo)

    status, _, items = rest(emu, "GET", f"/v1/workspaces/{ws}/items")
    assert [(i["id"], i["description"]) for i in items["value"] if i["type"] == "Eventstream"] == \
        [(es_id, "redeployed by fabric-cicd")], items
    tp2 = topology(emu, ws, es_id)
    assert_holds(tp2, v2, es)
    assert by_name(tp2, "operators")["FilterName"]["properties"]["conditions"][0]["value"]["value"] == "BP9"
    # Same nodes, same ids: the source, the stream and the Lakehouse binding survive the update.
    for kind in ("sources", "streams", "destinations"):
        assert [n["id"] for n in tp2[kind]] == [n["id"] for n in tp[kind]], kind
    parts2 = definition_parts(emu, ws, es_id)
    assert_holds(parts2["eventstream.json"], v2, es)
    assert parts2[".platform"]["metadata"]["description"] == "redeployed by fabric-cicd"

    produce(emu, ws, es_id, datasource, ["BP9", "0"])
    assert sorted(r["BikepointID"] for r in read_rows(table, 2, emu)) == ["0", "BP1"]

    # The routes fabric-cicd took; with --async-operations it followed each
    # 202 to /v1/operations/{id} and its /result.
    # Each run's credential got its token from the emulator's token endpoint.
    assert_fabric_tokens_from_emulator(cicd, emu)
    assert len(cicd.token_requests()) == 2, cicd.token_requests()
    calls = cicd.routes(emu.url)
    base = f"/v1/workspaces/{ws}"
    create = [c for c in calls if c.startswith(f"POST {base}/items ")]
    update = [c for c in calls if c.startswith(f"POST {base}/items/{es_id}/updateDefinition?updateMetadata=True ")]
    assert len(create) == 1 and len(update) == 1, calls
    assert f"GET {base}/items 200" in calls and f"GET {base} 200" in calls, calls
    ops = [c for c in calls if c.startswith("GET /v1/operations/")]
    if emu.mode == "async":  # type: ignore[attr-defined]
        # create: 202, the operation's state, then its /result (the item);
        # updateDefinition: 202, the operation's state (no Location when it
        # has no result, so no /result call).
        assert create[0].endswith(" 202") and update[0].endswith(" 202"), calls
        i, j = calls.index(create[0]), calls.index(update[0])
        assert calls[i + 1].startswith("GET /v1/operations/") and calls[i + 1].endswith(" 200"), calls[i:]
        assert calls[i + 1 + [c.endswith("/result 200") for c in calls[i + 1:]].index(True)].endswith("/result 200")
        assert calls[j + 1].startswith("GET /v1/operations/") and calls[j + 1].endswith(" 200"), calls[j:]
        assert sum(c.endswith("/result 200") for c in ops) == 1, calls
    else:
        assert create[0].endswith(" 201") and update[0].endswith(" 200") and not ops, calls
    # fabric-cicd lists the workspace's folders first (the emulator has none).
    assert any(c.startswith("GET /v1/workspaces/") and "/folders" in c and c.endswith(" 200") for c in calls), calls


# -- microsoft-fabric-api ----------------------------------------------------------------------

def fabric_client(emu: Emulator, credential: Any, hook: Callable[[Any], None] | None = None) -> Any:
    """microsoft-fabric-api's FabricClient on the emulator's base URL, with
    its own (azure-core) bearer token policy."""
    from microsoft_fabric_api import FabricClient
    kw: dict[str, Any] = {"raw_response_hook": hook} if hook else {}
    return FabricClient(credential, base_url=emu.url + "/", polling_interval=0.2, **kw)


def lro_result(extractor: Any, timeout: float = 30) -> Any:
    """microsoft-fabric-api's begin_* methods answer an _LROResultExtractor
    filled by the poller's done-callback (its non-begin wrappers wait in
    5 s sleeps; this waits in 20 ms ones)."""
    deadline = time.monotonic() + timeout
    while extractor.result is None:
        assert time.monotonic() < deadline, "the LRO did not finish (its poller thread logged why)"
        time.sleep(0.02)
    return extractor.result


def test_microsoft_fabric_api_creates_reads_and_updates_template_eventstream(emu: Emulator, wire: Wire) -> None:
    """microsoft-fabric-api with azure-identity's ClientSecretCredential:
    get_workspace, create a Lakehouse (core items), create the Eventstream
    with its definition, read its topology and definition, update the
    definition, list items; each compared with what the emulator's REST
    answers. A Kafka client produces into its custom endpoint over SASL_SSL
    with the connection string the SDK read."""
    from microsoft_fabric_api.generated.core import models as core
    from microsoft_fabric_api.generated.eventstream import models as esm

    seen: list[tuple[str, str, int]] = []
    client = fabric_client(emu, client_secret_credential(emu),
                           lambda r: seen.append((r.http_request.method, r.http_request.url, r.http_response.status_code)))
    ws = new_workspace(emu, "sdk")

    w = client.core.workspaces.get_workspace(ws)
    assert (w.id, w.type, w.capacity_id) == (ws, "Workspace", CAPACITY)

    lh = lro_result(client.core.items.begin_create_item(ws, core.CreateItemRequest(display_name="bikes_lh", type="Lakehouse")))
    assert (lh.type, lh.display_name, lh.workspace_id) == ("Lakehouse", "bikes_lh", ws)

    b64 = lambda v: base64.b64encode(json.dumps(v).encode()).decode()  # noqa: E731
    part = lambda path, v: esm.EventstreamDefinitionPart(path=path, payload=b64(v), payload_type="InlineBase64")  # noqa: E731
    v1 = template_topology(ws, lh.id, "bikes")
    created = lro_result(client.eventstream.items.begin_create_eventstream(ws, esm.CreateEventstreamRequest(
        display_name="bikes", description="created by microsoft-fabric-api",
        definition=esm.EventstreamDefinition(
            parts=[part("eventstream.json", v1), part("eventstreamProperties.json", ES_PROPERTIES)]))))
    assert (created.type, created.display_name, created.workspace_id) == ("Eventstream", "bikes", ws)
    status, _, es = rest(emu, "GET", f"/v1/workspaces/{ws}/eventstreams/{created.id}")
    assert status == 200 and es["description"] == "created by microsoft-fabric-api", es

    # The topology, as the SDK deserializes it (polymorphic node models) and as REST answers it.
    tp = client.eventstream.topology.get_eventstream_topology(ws, created.id)
    raw = topology(emu, ws, created.id)
    assert_holds(raw, v1, es)
    assert [type(n).__name__ for n in tp.sources + tp.streams + tp.operators + tp.destinations] == \
        ["CustomEndpointSourceResponse", "DefaultStreamResponse", "FilterOperator", "LakehouseDestinationResponse"]
    assert [n.id for n in tp.sources + tp.streams + tp.destinations] == \
        [n["id"] for n in raw["sources"] + raw["streams"] + raw["destinations"]]
    assert tp.operators[0].properties.conditions[0].value.value == "0"
    assert tp.destinations[0].properties.item_id == lh.id and tp.destinations[0].status == "Running"

    # The custom endpoint's connection through the SDK, then a Kafka client
    # configured the Event Hubs way (SASL_SSL, SASL PLAIN, "$ConnectionString",
    # the string as password) and trusting the emulator's CA feeds the source.
    conn = client.eventstream.topology.get_eventstream_source_connection(ws, created.id, tp.sources[0].id)
    assert conn.event_hub_name == es["properties"]["streams"][0]["topic"]
    assert conn.access_keys.primary_connection_string.startswith(f"Endpoint=sb://{conn.fully_qualified_namespace}/;SharedAccessKeyName=key_")
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=conn.fully_qualified_namespace, security_protocol="SASL_SSL",
                             ssl_cafile=str(emu.ca), sasl_mechanism="PLAIN", sasl_plain_username="$ConnectionString",
                             sasl_plain_password=conn.access_keys.primary_connection_string)
    try:
        for i in ("0", "BP1", "BP2"):
            producer.send(conn.event_hub_name, json.dumps({"BikepointID": i, "No_Bikes": 1}).encode()).get(timeout=20)
    finally:
        producer.close()
    status, _, lh_json = rest(emu, "GET", f"/v1/workspaces/{ws}/lakehouses/{lh.id}")
    assert status == 200, lh_json
    table = Path(lh_json["properties"]["x-fabrictest-localTablesPath"]) / "bikes"
    assert sorted(r["BikepointID"] for r in read_rows(table, 2, emu)) == ["BP1", "BP2"]

    # getDefinition through the SDK is what the emulator's REST answers.
    got = lro_result(client.eventstream.items.begin_get_eventstream_definition(ws, created.id))
    sdk_parts = {p.path: json.loads(base64.b64decode(p.payload)) for p in got.definition.parts}
    assert sdk_parts == definition_parts(emu, ws, created.id)
    assert_holds(sdk_parts["eventstream.json"], v1, es)
    assert sdk_parts["eventstreamProperties.json"] == ES_PROPERTIES

    # updateDefinition through the SDK (an LROPoller of None).
    v2 = template_topology(ws, lh.id, "bikes", not_equal_to="BP9")
    client.eventstream.items.begin_update_eventstream_definition(
        ws, created.id, esm.UpdateEventstreamDefinitionRequest(definition=esm.EventstreamDefinition(
            parts=[part("eventstream.json", v2), part("eventstreamProperties.json", ES_PROPERTIES)]))).result(timeout=30)
    raw2 = topology(emu, ws, created.id)
    assert_holds(raw2, v2, es)
    assert [n["id"] for n in raw2["destinations"]] == [n["id"] for n in raw["destinations"]]

    names = sorted((i.type, i.display_name) for i in client.core.items.list_items(ws))
    assert names == [("Eventstream", "bikes"), ("Lakehouse", "bikes_lh")]
    assert client.eventstream.items.get_eventstream(ws, created.id).description == "created by microsoft-fabric-api"

    # With --async-operations the SDK's pollers followed the operations.
    ops = [(m, u[len(emu.url):], s) for m, u, s in seen if "/operations/" in u]
    if emu.mode == "async":  # type: ignore[attr-defined]
        assert sum(u.endswith("/result") and s == 200 for _, u, s in ops) >= 3, seen
        assert sum(s == 202 for _, _, s in seen) == 4, seen  # lakehouse, eventstream, getDefinition, updateDefinition
    else:
        assert not ops and not any(s == 202 for _, _, s in seen), seen
    # One token, from the emulator, for the Fabric scope; every call over HTTPS.
    assert_fabric_tokens_from_emulator(wire, emu)
    assert len(wire.token_requests()) == 1, wire.token_requests()
    assert seen and all(u.startswith(emu.url + "/") and u.startswith("https://") for _, u, _ in seen), seen


def set_identity_environment(monkeypatch: pytest.MonkeyPatch, emu: Emulator) -> None:
    """The four variables of azure-identity's EnvironmentCredential, the
    authority host being the emulator's URL."""
    for k, v in {"AZURE_TENANT_ID": TENANT, "AZURE_CLIENT_ID": CLIENT_ID, "AZURE_CLIENT_SECRET": CLIENT_SECRET,
                 "AZURE_AUTHORITY_HOST": emu.url}.items():
        monkeypatch.setenv(k, v)


def test_default_azure_credential_from_environment_creates_and_lists_items(
        tls_emulator: Emulator, wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """DefaultAzureCredential configured by environment variables alone
    (learn.microsoft.com/python/api/azure-identity, EnvironmentCredential;
    README "What a Python user sets"), plus disable_instance_discovery in
    code: the service principal creates its workspace (and so is its Admin,
    Fabric's rule for a creator), a Lakehouse and an Eventstream through
    microsoft-fabric-api, and lists them."""
    from azure.identity import DefaultAzureCredential
    from microsoft_fabric_api.generated.core import models as core

    emu = tls_emulator
    trust_ca(monkeypatch, emu)
    set_identity_environment(monkeypatch, emu)
    client = fabric_client(emu, DefaultAzureCredential(disable_instance_discovery=True))

    ws = client.core.workspaces.create_workspace(core.CreateWorkspaceRequest(display_name=f"dac-{time.time_ns()}"))
    lh = client.core.items.create_item(ws.id, core.CreateItemRequest(display_name="orders_lh", type="Lakehouse"))
    es = client.core.items.create_item(ws.id, core.CreateItemRequest(display_name="orders", type="Eventstream"))
    assert (lh.type, es.type, lh.workspace_id, es.workspace_id) == ("Lakehouse", "Eventstream", ws.id, ws.id)

    items = sorted((i.type, i.display_name, i.id) for i in client.core.items.list_items(ws.id))
    assert items == sorted([("Eventstream", "orders", es.id), ("Lakehouse", "orders_lh", lh.id)])
    assert ws.id in [w.id for w in client.core.workspaces.list_workspaces()]
    # This assertion found the emulator recording a service principal
    # creator as a "User" (fixed: the type follows the token's idtyp).
    roles = [(r.principal.id, r.principal.type, r.role) for r in client.core.workspaces.list_workspace_role_assignments(ws.id)]
    assert roles == [(service_principal_id(CLIENT_ID), "ServicePrincipal", "Admin")], roles
    assert_fabric_tokens_from_emulator(wire, emu)


def test_msal_asks_microsoft_about_an_unknown_authority_host(
        tls_emulator: Emulator, wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """Why disable_instance_discovery=True is needed: without it MSAL for
    Python (under azure-identity) validates an authority host outside its
    list of Microsoft hosts by GET https://login.microsoftonline.com/common/
    discovery/instance, whatever the authority host is (MSAL's
    ``authority.py``); offline that fails, and Microsoft does not know the
    emulator's host either. azure-identity reads no environment variable
    that turns it off, so DefaultAzureCredential from the environment alone
    fails the same way. (The Go helper found the same of MSAL for Go.)"""
    from azure.core.exceptions import ClientAuthenticationError
    from azure.identity import ClientSecretCredential, DefaultAzureCredential
    from azure.identity._constants import EnvironmentVariables

    emu = tls_emulator
    trust_ca(monkeypatch, emu)
    set_identity_environment(monkeypatch, emu)
    for cred in (ClientSecretCredential(TENANT, CLIENT_ID, CLIENT_SECRET, authority=emu.url), DefaultAzureCredential()):
        wire.sent.clear()
        with pytest.raises(ClientAuthenticationError, match="login.microsoftonline.com/common/discovery/instance"):
            cred.get_token(FABRIC_SCOPE)
        asked = {f"{s.method} https://{s.host}{s.path}" for s in wire.sent}
        assert asked == {"GET https://login.microsoftonline.com/common/discovery/instance"}, wire.sent
        assert not wire.token_requests()
    # No environment variable of azure-identity names instance discovery:
    # when one appears, the README's Python paragraph can drop the keyword.
    names = [v for k, v in vars(EnvironmentVariables).items() if k.isupper() and isinstance(v, str)]
    assert names and not [n for n in names if "DISCOVERY" in n or "INSTANCE" in n], names


def test_lakehouse_destination_node_round_trips(tls_emulator: Emulator) -> None:
    """The Lakehouse destination node a client deploys comes back as deployed (ids and status aside)."""
    emu = tls_emulator
    emu.mode = "sync"  # type: ignore[attr-defined]
    ws = new_workspace(emu, "roundtrip")
    lh = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/lakehouses", {"displayName": "lh"})
    v1 = template_topology(ws, lh["id"], "bikes")
    b64 = lambda v: base64.b64encode(json.dumps(v).encode()).decode()  # noqa: E731
    es = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/eventstreams", {"displayName": "rt", "definition": {"parts": [
        {"path": "eventstream.json", "payload": b64(v1), "payloadType": "InlineBase64"}]}})
    held = definition_parts(emu, ws, es["id"])["eventstream.json"]
    assert [strip_runtime(n) for n in held["destinations"]] == v1["destinations"]


def test_empty_success_answers_carry_a_content_type(tls_emulator: Emulator) -> None:
    """updateDefinition's 200 (no body) names a Content-Type, as fabric-cicd requires."""
    emu = tls_emulator
    emu.mode = "sync"  # type: ignore[attr-defined]
    ws = new_workspace(emu, "ctype")
    es = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/eventstreams", {"displayName": "e"})
    current = rest_lro(emu, "POST", f"/v1/workspaces/{ws}/items/{es['id']}/getDefinition")
    status, headers, body = rest(emu, "POST", f"/v1/workspaces/{ws}/items/{es['id']}/updateDefinition?updateMetadata=True",
                                 current)
    assert status == 200, body
    assert headers.get("Content-Type"), headers
