"""The notebook's identity (spark_agent.identity) as the Azure SDKs take it,
against an emulator the plugin starts with --fabric-emulator-tls: AZURE_*
through azure-identity, then FABRIC_EMULATOR_TOKEN, then the default
principal; a 403 names the principal and the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_run import run

pytest_plugins = ["pytester"]

INNER = '''
import sys
import uuid
import pytest
import fabrictest
from spark_agent.emulator import EmulatorClient, FabricApiError
from spark_agent.identity import IdentityError

CLIENT_ID = str(uuid.uuid4())
SP = fabrictest.service_principal_id(CLIENT_ID)


@pytest.fixture
def sp_stream(fabric_emulator, monkeypatch):
    """An Eventstream in a workspace the service principal created (it is
    the only member), and the emulator's environment for the notebook."""
    assert fabric_emulator.url.startswith("https://127.0.0.1:") and fabric_emulator.ca.is_file()
    ws = fabric_emulator.workspace("sp-" + uuid.uuid4().hex[:8], principal=SP)
    es = ws.eventstream("orders")
    for k in ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_AUTHORITY_HOST",
              "FABRIC_EMULATOR_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    for k, v in fabric_emulator.env().items():
        monkeypatch.setenv(k, v)
    return ws, es


def test_azure_variables_choose_the_service_principal(fabric_emulator, sp_stream, monkeypatch):
    ws, es = sp_stream
    for k, v in fabric_emulator.env(client_id=CLIENT_ID).items():
        monkeypatch.setenv(k, v)
    client = EmulatorClient()
    assert client.identity.source.startswith("AZURE_CLIENT_ID=" + CLIENT_ID)
    src = client.resolve(es.id, es.datasource_id)
    assert src.topic == es.topic


def test_the_default_principal_gets_a_403_that_says_what_to_do(sp_stream):
    ws, es = sp_stream
    client = EmulatorClient()
    assert client.identity.source == "the emulator's default principal"
    with pytest.raises(FabricApiError) as e:
        client.resolve(es.id, es.datasource_id)
    msg = str(e.value)
    assert e.value.status == 403 and e.value.error_code == "InsufficientPrivileges", msg
    assert "the notebook runs as principal " in msg and "(the emulator's default principal)" in msg, msg
    assert f"in workspace {ws.id}" in msg, msg
    assert "AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET" in msg and "FABRIC_EMULATOR_TOKEN" in msg, msg
    assert f"POST /v1/workspaces/{ws.id}/roleAssignments" in msg, msg


def test_a_handed_in_token_comes_after_the_azure_variables(fabric_emulator, sp_stream, monkeypatch):
    ws, es = sp_stream
    monkeypatch.setenv("FABRIC_EMULATOR_TOKEN", fabric_emulator.token(SP))
    client = EmulatorClient()
    assert client.identity.source == "FABRIC_EMULATOR_TOKEN"
    assert client.resolve(es.id, es.datasource_id).topic == es.topic
    # AZURE_* win over the token: a stranger's service principal is refused, named.
    stranger = str(uuid.uuid4())
    for k, v in fabric_emulator.env(client_id=stranger).items():
        monkeypatch.setenv(k, v)
    with pytest.raises(FabricApiError) as e:
        EmulatorClient().resolve(es.id, es.datasource_id)
    assert fabrictest.service_principal_id(stranger) in str(e.value), str(e.value)
    assert f"AZURE_CLIENT_ID={stranger}" in str(e.value), str(e.value)


def test_without_azure_identity_the_azure_variables_fail_saying_so(fabric_emulator, sp_stream, monkeypatch):
    for k, v in fabric_emulator.env(client_id=CLIENT_ID).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setitem(sys.modules, "azure.identity", None)  # import azure.identity raises ImportError
    with pytest.raises(IdentityError, match="AZURE_CLIENT_ID is set but azure-identity is not installed"):
        EmulatorClient()


def test_a_partial_service_principal_names_what_is_missing(sp_stream, monkeypatch):
    monkeypatch.setenv("AZURE_CLIENT_ID", CLIENT_ID)
    with pytest.raises(IdentityError, match="AZURE_CLIENT_ID set but AZURE_TENANT_ID, AZURE_CLIENT_SECRET not"):
        EmulatorClient()
'''


def test_notebook_identity(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, emulator_binary: Path) -> None:
    pytester.makepyfile(test_identity=INNER)
    result = run(pytester, monkeypatch, "--fabric-emulator-tls", "-v", binary=emulator_binary)
    result.assert_outcomes(passed=5)
