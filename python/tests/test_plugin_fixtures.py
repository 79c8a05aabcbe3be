"""The pytest plugin's fixtures (fabric_emulator, fabric_workspace) and helpers,
run by pytester in a pytest session of their own, as a downstream project runs them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from plugin_run import PYTHON_DIR, run

REPO = PYTHON_DIR.parent

pytest_plugins = ["pytester"]

FLOW = '''
import json, os, urllib.request
import pytest
import fabrictest

def test_http_to_delta(fabric_emulator, fabric_workspace):
    assert fabric_emulator.url.startswith("http://127.0.0.1:")
    assert fabric_emulator.ca is None
    with urllib.request.urlopen(fabric_emulator.url + "/_emulator/health") as r:
        assert json.load(r)["status"] == "ok"
    assert fabric_emulator.kafka_bootstrap.startswith("127.0.0.1:")
    assert fabric_emulator.kafka_endpoint.startswith("127.0.0.1:")
    env = fabric_emulator.env()
    assert env["FABRIC_EMULATOR_URL"] == fabric_emulator.url
    assert "REQUESTS_CA_BUNDLE" not in env
    es = fabric_workspace.eventstream("orders")
    lh = fabric_workspace.lakehouse("sales")
    es.bind_lakehouse(lh, "orders")
    es.produce({"id": 1, "amount": 2.5}, {"id": 2, "amount": 4.0})
    rows = lh.table("orders").wait_rows(2)
    assert sorted((r["id"], r["amount"]) for r in rows) == [(1, 2.5), (2, 4.0)]
    with open(os.environ["EMULATOR_PID_FILE"], "w") as f:
        f.write(str(fabric_emulator._process.proc.pid))

def test_kafka_connection_string(fabric_workspace):
    lh = fabric_workspace.lakehouse("sales")
    es = fabric_workspace.deploy_eventstream("clicks", {
        "sources": [{"name": "app", "type": "CustomEndpoint", "properties": {}}],
        "streams": [{"name": "clicks-stream", "type": "DefaultStream", "properties": {}, "inputNodes": [{"name": "app"}]}],
        "destinations": [fabrictest.lakehouse_destination("lake", lh, "clicks", "clicks-stream", minimumRows=1)],
    })
    conn = es.connection("app")
    assert conn.connection_string.startswith("Endpoint=sb://")
    assert conn.produce([{"n": i} for i in range(5)]) == 5
    assert sorted(r["n"] for r in lh.table("clicks").wait_rows(5, timeout=30)) == [0, 1, 2, 3, 4]

def test_workspaces_are_per_test_and_principals_apart(fabric_emulator, fabric_workspace):
    other = "5b0c6c37-8b7e-4f0e-9d5e-2f1f6f3f0c11"
    names = [w["displayName"] for w in fabric_emulator.client().call("GET", "/v1/workspaces")["value"]]
    assert fabric_workspace.name in names
    assert not any(n.startswith("test_http_to_delta-") for n in names), names
    with pytest.raises(fabrictest.ApiError) as e:
        fabric_emulator.client(other).call("GET", fabric_workspace.path)
    assert e.value.status == 403 and other in e.value.message
    fabric_workspace.add_role(other, "Viewer", "User")
    assert fabric_emulator.client(other).call("GET", fabric_workspace.path)["id"] == fabric_workspace.id
'''

FAILED_DESTINATION = '''
import fabrictest

def test_waits_name_the_failed_destination(fabric_workspace):
    es = fabric_workspace.eventstream("orders")
    lh = fabric_workspace.lakehouse("sales")
    es.bind_lakehouse(lh, "orders", errorPolicy="fail")
    es.produce({"id": 1})
    try:
        es.produce({"id": "not a number"})
    except fabrictest.ApiError as e:
        assert e.status == 502, e
    lh.table("orders").wait_rows(2, timeout=1)

def test_waits_name_a_missing_destination(fabric_workspace):
    fabric_workspace.lakehouse("sales").table("orders").wait_rows(1, timeout=0.5)
'''


def path_without_emulator() -> str:
    """PATH without the directories holding a fabric-emulator (go, git and the
    C compiler stay, so a build reuses the build cache)."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if d and not (Path(d) / "fabric-emulator").exists())


@pytest.fixture
def run_plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, emulator_binary: Path):
    def go(*args: str, binary: Path | None = emulator_binary) -> pytest.RunResult:
        return run(pytester, monkeypatch, *args, binary=binary)
    return go


def test_fixtures_produce_read_and_stop_the_emulator(pytester: pytest.Pytester, run_plugin,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pid_file = Path(pytester.path) / "emulator.pid"
    monkeypatch.setenv("EMULATOR_PID_FILE", str(pid_file))
    pytester.makepyfile(test_flow=FLOW)
    result = run_plugin("-v")
    result.assert_outcomes(passed=3)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the session's end stopped the emulator it started


def test_waits_fail_with_the_destination_error(pytester: pytest.Pytester, run_plugin) -> None:
    pytester.makepyfile(test_failed=FAILED_DESTINATION)
    result = run_plugin()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*AssertionError: table orders has 1 of 2 rows after 1 s; its destination Lakehouse-orders "
        "(eventstream orders) is Failed: DestinationFailed: stopped by its error policy fail*",
        "*AssertionError: table orders has 0 of 1 rows after 0.5 s; no destination in the workspace writes it*",
    ])


def test_a_bad_binary_option_fails_the_fixture_saying_so(pytester: pytest.Pytester, run_plugin) -> None:
    pytester.makepyfile(test_x="def test_x(fabric_emulator):\n    pass\n")
    result = run_plugin(binary=Path(pytester.path) / "no-such-emulator")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--fabric-emulator-bin names */no-such-emulator, which is not an executable file*"])


def test_no_binary_outside_a_checkout_says_how_to_get_one(pytester: pytest.Pytester, run_plugin,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABRIC_EMULATOR_BIN", raising=False)
    monkeypatch.setenv("FABRIC_EMULATOR_IMAGE", "none")  # nor the image, where Docker has it
    monkeypatch.setenv("PATH", path_without_emulator())
    pytester.makepyfile(test_x="def test_x(fabric_emulator):\n    pass\n")
    result = run_plugin(binary=None)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no fabric-emulator binary: install it (go install github.com/fabrictest/*; or, "
                                 "with Docker and testcontainers-python, build the image fabrictest/emulator:local*"])


def test_the_env_variable_names_the_binary(pytester: pytest.Pytester, run_plugin, emulator_binary: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRIC_EMULATOR_BIN", str(emulator_binary))
    pytester.makepyfile(test_x=(
        "import os\n"
        "def test_x(fabric_emulator):\n"
        "    assert str(fabric_emulator.binary) == os.environ['FABRIC_EMULATOR_BIN']\n"
        "    assert fabric_emulator.version().startswith('fabric-emulator ')\n"))
    run_plugin(binary=None).assert_outcomes(passed=1)


def test_inside_a_checkout_the_binary_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fabrictest.process import find_binary, module_root

    monkeypatch.delenv("FABRIC_EMULATOR_BIN", raising=False)
    monkeypatch.setenv("PATH", path_without_emulator())
    assert module_root(REPO / "python" / "tests") == REPO
    assert module_root(tmp_path) is None
    built = find_binary(None, [tmp_path, REPO / "python"], tmp_path)
    assert built == tmp_path / "fabric-emulator"
    out = subprocess.run([str(built), "version"], capture_output=True, text=True, timeout=30, check=True).stdout
    assert out.startswith("fabric-emulator "), out
