"""The seed's witness flow in plain ``requests``, with only host names changed
(issue 16, "Done when"): a client-credentials token for the Fabric scope from
``POST {authority}/{tenant}/oauth2/v2.0/token``, then workspace → Eventstream
→ Lakehouse (bound as the Eventstream's destination, events produced through
its Custom HTTP source), then a token for the storage scope, with which the
table's first Delta commit is read over OneLake.

Against Fabric the two bases are ``https://login.microsoftonline.com`` and
``https://api.fabric.microsoft.com``; here both are the emulator's
``https://127.0.0.1:PORT`` (started with ``--tls``), and the process trusts the
emulator's CA by ``REQUESTS_CA_BUNDLE``. Nothing else differs.

Microsoft's documents followed: "Microsoft identity platform and the OAuth 2.0
client credentials flow" (the token request and answer), "Fabric REST API
quickstart" (``/v1/workspaces``, bearer token), "Access token claims
reference" (``aud``, ``oid``, ``tid``, ``appid``, ``idtyp``).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from conftest import Emulator, trust_ca
from identity import CLIENT_ID, CLIENT_SECRET, FABRIC_SCOPE, STORAGE_SCOPE, TENANT, Wire, claims, service_principal_id


@pytest.fixture(scope="session", autouse=True)
def _python_deps() -> None:
    """Overrides conftest's check (which wants the Spark tier): this module
    needs requests alone."""
    import requests  # noqa: F401


def get_token(authority: str, scope: str) -> dict[str, Any]:
    """The client-credentials grant, form-encoded, secret in the body."""
    import requests
    r = requests.post(f"{authority}/{TENANT}/oauth2/v2.0/token", data={
        "grant_type": "client_credentials", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "scope": scope},
        timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def call(api: str, token: str, method: str, path: str, body: Any = None, want: int = 200) -> Any:
    import requests
    r = requests.request(method, api + path, json=body, headers={"Authorization": "Bearer " + token}, timeout=60)
    assert r.status_code == want, f"{method} {path}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def read_onelake(url: str, token: str, timeout: float = 20) -> bytes:
    """GET a OneLake file with a storage token, waiting for it to exist."""
    import requests
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = requests.get(url, headers={"Authorization": "Bearer " + token, "x-ms-version": "2023-11-03"}, timeout=30)
        if r.status_code == 200:
            return r.content
        assert r.status_code == 404, f"GET {url}: {r.status_code} {r.text}"
        time.sleep(0.1)
    pytest.fail(f"{url} not there after {timeout}s")


def test_witness_flow_with_host_names_changed(tls_emulator: Emulator, wire: Wire,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    emu = tls_emulator
    trust_ca(monkeypatch, emu)
    authority = emu.url  # Fabric: https://login.microsoftonline.com
    api = emu.url + "/v1"  # Fabric: https://api.fabric.microsoft.com/v1

    # 1. A token for the Fabric API, answered as Entra answers it.
    answer = get_token(authority, FABRIC_SCOPE)
    assert answer["token_type"] == "Bearer" and set(answer) >= {"expires_in", "ext_expires_in", "access_token"}, answer
    assert 0 < int(answer["expires_in"]) <= 3600, answer
    fabric = answer["access_token"]
    c = claims(fabric)
    assert (c["aud"], c["tid"], c["appid"], c["idtyp"], c["oid"]) == \
        ("https://api.fabric.microsoft.com", TENANT, CLIENT_ID, "app", service_principal_id(CLIENT_ID)), c

    # 2. Workspace → Eventstream → Lakehouse, as the service principal.
    ws = call(api, fabric, "POST", "/workspaces", {"displayName": f"witness-{time.time_ns()}"}, want=201)["id"]
    es = call(api, fabric, "POST", f"/workspaces/{ws}/eventstreams", {"displayName": "orders"}, want=201)
    lh = call(api, fabric, "POST", f"/workspaces/{ws}/lakehouses", {"displayName": "orders_lh"}, want=201)
    items = call(api, fabric, "GET", f"/workspaces/{ws}/items")["value"]
    assert sorted((i["type"], i["id"]) for i in items) == sorted([("Eventstream", es["id"]), ("Lakehouse", lh["id"])])

    # The Lakehouse as the Eventstream's destination; events through the
    # Custom HTTP source land in its Delta table.
    call(api, fabric, "POST", f"/workspaces/{ws}/eventstreams/{es['id']}/destinations",
         {"type": "Lakehouse", "itemId": lh["id"], "table": "orders"}, want=201)
    datasource = es["properties"]["streams"][0]["id"]
    events = [{"key": f"o-{i}", "value": {"id": i, "amount": 10 + i}} for i in range(3)]
    produced = call(api, fabric, "POST", f"/workspaces/{ws}/eventstreams/{es['id']}/sources/{datasource}/events",
                    {"events": events})
    assert len(produced["events"]) == 3, produced

    # 3. A token for storage (OneLake): same principal, storage audience;
    # the Fabric API refuses it and says which scope to ask for.
    storage = get_token(authority, STORAGE_SCOPE)["access_token"]
    s = claims(storage)
    assert (s["aud"], s["oid"], s["tid"]) == ("https://storage.azure.com", c["oid"], TENANT), s
    refused = call(api, storage, "GET", "/workspaces", want=401)
    assert refused["errorCode"] == "InvalidToken" and "api.fabric.microsoft.com" in refused["message"], refused

    # 4. The table's first commit over OneLake with the storage token, the
    # witness's GET {fabric}/onelake/{ws}/{lakehouse}/Tables/…/_delta_log/….json
    # (the Lakehouse's oneLakeTablesPath is that URL's root).
    tables = call(api, fabric, "GET", f"/workspaces/{ws}/lakehouses/{lh['id']}")["properties"]["oneLakeTablesPath"]
    assert tables == f"{emu.url}/onelake/{ws}/{lh['id']}/Tables", tables
    commit = read_onelake(f"{tables}/orders/_delta_log/00000000000000000000.json", storage)
    adds = [json.loads(line)["add"] for line in commit.decode().splitlines() if '"add"' in line]
    assert sum(json.loads(a["stats"])["numRecords"] for a in adds) == 3, adds

    # Only the emulator was asked, over HTTPS.
    assert not wire.outside_loopback(), wire.outside_loopback()
    assert {s.url.split("://")[0] for s in wire.sent} == {"https"}
    assert [t.form["scope"] for t in wire.token_requests()] == [[FABRIC_SCOPE], [STORAGE_SCOPE]]
