"""The notebook cell on Sail as a service principal configured the Azure SDK
way, and nothing else: the workspace is created by that service principal
through the client-credentials grant (as in CI), the notebook process has
AZURE_CLIENT_ID / AZURE_TENANT_ID / AZURE_CLIENT_SECRET / AZURE_AUTHORITY_HOST
and the CA, no token is handed in. The same cell as the default principal is
refused with a 403 that names the principal and the workspace."""

from __future__ import annotations

import json
import ssl
import time
import urllib.parse
import urllib.request
from typing import Any

import pytest
from conftest import Emulator, orders, sail_session
from identity import CLIENT_ID, CLIENT_SECRET, FABRIC_SCOPE, TENANT, service_principal_id

pytestmark = pytest.mark.sail

IDENTITY_VARS = ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_AUTHORITY_HOST",
                 "FABRIC_EMULATOR_TOKEN")


def sp_call(emu: Emulator, method: str, path: str, body: Any = None) -> Any:
    """A call as the service principal, its token from the Entra token service."""
    ctx = ssl.create_default_context(cafile=str(emu.ca))
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": CLIENT_ID,
                                   "client_secret": CLIENT_SECRET, "scope": FABRIC_SCOPE}).encode()
    with urllib.request.urlopen(f"{emu.url}/{TENANT}/oauth2/v2.0/token", form, context=ctx, timeout=30) as r:
        token = json.load(r)["access_token"]
    req = urllib.request.Request(emu.url + path, data=json.dumps(body).encode() if body is not None else None,
                                 method=method, headers={"Authorization": "Bearer " + token,
                                                         "Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=ctx, timeout=60) as r:
        return json.load(r)


def sp_eventstream(emu: Emulator) -> tuple[str, str, str]:
    """(workspace, item, datasource) of an Eventstream in a workspace only the service principal is in."""
    ws = sp_call(emu, "POST", "/v1/workspaces", {"displayName": f"sp-notebook-{time.monotonic_ns()}"})["id"]
    es = sp_call(emu, "POST", f"/v1/workspaces/{ws}/eventstreams", {"displayName": "orders"})
    return ws, es["id"], es["properties"]["streams"][0]["id"]


def notebook_env(monkeypatch: pytest.MonkeyPatch, emu: Emulator, service_principal: bool) -> None:
    for k in IDENTITY_VARS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(emu.ca))
    monkeypatch.setenv("SSL_CERT_FILE", str(emu.ca))
    if service_principal:
        for k, v in {"AZURE_CLIENT_ID": CLIENT_ID, "AZURE_TENANT_ID": TENANT, "AZURE_CLIENT_SECRET": CLIENT_SECRET,
                     "AZURE_AUTHORITY_HOST": emu.url}.items():
            monkeypatch.setenv(k, v)


def test_the_cell_runs_as_the_azure_service_principal(tls_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_agent import install

    ws, item_id, datasource_id = sp_eventstream(tls_emulator)
    notebook_env(monkeypatch, tls_emulator, service_principal=True)
    with sail_session(tls_emulator) as spark:
        agent = install(spark, tls_emulator.url)  # no token: the identity comes from AZURE_*
        assert agent.client.identity.source.startswith(f"AZURE_CLIENT_ID={CLIENT_ID}")
        batches: list[Any] = []
        df_raw = spark.readStream.format("kafka").options(**{
            "eventstream.itemid": item_id, "eventstream.datasourceid": datasource_id,
            "startingOffsets": "earliest"}).load()
        sp_call(tls_emulator, "POST", f"/v1/workspaces/{ws}/eventstreams/{item_id}/sources/{datasource_id}/events",
                {"events": orders(4)})
        query = df_raw.writeStream.foreachBatch(lambda df, _: batches.append(df.collect())).start()
        try:
            deadline = time.monotonic() + 60
            while sum(len(b) for b in batches) < 4 and time.monotonic() < deadline:
                time.sleep(0.1)
            rows = [r for b in batches for r in b]
            assert sorted(json.loads(r["value"])["id"] for r in rows) == [0, 1, 2, 3]
        finally:
            query.stop()


def test_the_default_principal_is_refused_by_name(tls_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_agent import FabricApiError, install

    ws, item_id, datasource_id = sp_eventstream(tls_emulator)
    notebook_env(monkeypatch, tls_emulator, service_principal=False)
    with sail_session(tls_emulator) as spark:
        install(spark, tls_emulator.url)
        with pytest.raises(FabricApiError) as e:
            spark.readStream.format("kafka").options(**{
                "eventstream.itemid": item_id, "eventstream.datasourceid": datasource_id}).load()
    msg = str(e.value)
    assert e.value.status == 403 and e.value.error_code == "InsufficientPrivileges", msg
    assert "(the emulator's default principal)" in msg and f"in workspace {ws}" in msg, msg
    assert "AZURE_CLIENT_ID" in msg and service_principal_id(CLIENT_ID) not in msg, msg
