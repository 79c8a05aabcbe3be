"""The plugin's Eventhouse helpers (an Eventhouse and its KQL databases, an
Eventhouse destination natively and from a definition, rows read back with
Kusto's query protocol) and the Event Hubs SDK producer helper, run by
pytester against an emulator whose Kusto engine is kustofake
(python/tests/kustoserve, handed in with --fabric-emulator-kql-url)."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_run import PYTHON_DIR, run

pytest_plugins = ["pytester"]

INNER = '''
import pytest
import fabrictest

CUSTOM = {
    "sources": [{"name": "app", "type": "CustomEndpoint", "properties": {}}],
    "streams": [{"name": "s", "type": "DefaultStream", "properties": {}, "inputNodes": [{"name": "app"}]}],
}


def test_native_destination_rows_and_a_query(fabric_workspace):
    eh = fabric_workspace.eventhouse("telemetry")
    assert eh.database.name == "telemetry" and eh.database.query_uri.startswith("http://127.0.0.1:")
    es = fabric_workspace.eventstream("readings")
    dest = es.bind_eventhouse(eh, "readings")
    assert dest.status()["status"] == "Running", dest.status()
    es.produce({"device": "a", "n": 1}, {"device": "b", "n": 2})
    rows = eh.database.table("readings").wait_rows(2)
    assert sorted((r["device"], r["n"]) for r in rows) == [("a", 1), ("b", 2)]
    assert eh.database.query("['readings'] | where device == 'b' | project n") == [{"n": 2}]


def test_a_kql_database_from_a_definition_fed_by_the_event_hubs_sdk(fabric_workspace):
    db = fabric_workspace.eventhouse("house").kql_database("archive")
    es = fabric_workspace.deploy_eventstream("arch", {**CUSTOM, "destinations": [
        fabrictest.eventhouse_destination("to-kql", db, "events", "s")]})
    conn = es.connection("app")
    assert "UseDevelopmentEmulator=true" in conn.connection_string, conn.connection_string
    assert conn.send_events([{"k": i} for i in range(3)], partition_key="dev-1") == 3
    rows = db.table("events").wait_rows(3, timeout=30)
    assert sorted(r["k"] for r in rows) == [0, 1, 2]
    assert fabrictest.KqlDatabase is type(db)


def test_event_hubs_sdk_events_read_over_kafka(fabric_workspace):
    es = fabric_workspace.deploy_eventstream("hub", {**CUSTOM, "destinations": [
        {"name": "out", "type": "CustomEndpoint", "properties": {}, "inputNodes": [{"name": "s"}]}]})
    sent = es.connection("app").send_events([{"n": 1}, b"raw bytes", "text"], properties={"source": "sdk"})
    assert sent == 3
    recs = es.connection("out", kind="destinations").records(3)
    assert [r.value for r in recs] == [b'{"n": 1}', b"raw bytes", b"text"]
    # An application property reaches Kafka AMQP-encoded (str8-utf8: 0xa1, length), as Event Hubs passes it.
    assert all((("source", b"\\xa1\\x03sdk") in r.headers) for r in recs), [r.headers for r in recs]


def test_a_wait_names_the_missing_destination(fabric_workspace):
    fabric_workspace.eventhouse("empty").database.table("nothing").wait_rows(1, timeout=0.5)
'''

NO_ENGINE = '''
import fabrictest

def test_without_a_kusto_engine(fabric_workspace):
    eh = fabric_workspace.eventhouse("telemetry")
    es = fabric_workspace.eventstream("readings")
    es.bind_eventhouse(eh, "readings")
    try:
        es.produce({"n": 1})
    except fabrictest.ApiError as e:
        assert e.status == 502 and "--kql-url" in e.message, e
    else:
        raise AssertionError("a produce to an Eventhouse without a Kusto engine must fail")
    eh.database.query("['readings']")
'''


@pytest.fixture(scope="module")
def kusto_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """kustofake on a free loopback port (python/tests/kustoserve, built with go build)."""
    go = shutil.which("go")
    if go is None:
        pytest.fail("go not found on PATH: the test builds python/tests/kustoserve", pytrace=False)
    binary = tmp_path_factory.mktemp("kustoserve") / "kustoserve"
    subprocess.run([go, "build", "-o", str(binary), "./python/tests/kustoserve"], cwd=PYTHON_DIR.parent,
                   check=True, timeout=600)
    proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(30)
        assert line and line[0].startswith("kustofake ready at http://127.0.0.1:"), line
        yield line[0].split()[-1]
    finally:
        proc.terminate()
        proc.wait(10)


def test_eventhouse_and_event_hubs_helpers(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                           emulator_binary: Path, kusto_url: str) -> None:
    pytester.makepyfile(test_eventhouse=INNER)
    result = run(pytester, monkeypatch, "--fabric-emulator-kql-url", kusto_url, "-v", binary=emulator_binary)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: table nothing has 0 of 1 rows after 0.5 s; no destination in the "
                                 "workspace writes it (bind one: eventstream.bind_eventhouse(eventhouse, table))*"])


def test_without_a_kusto_engine_the_helpers_say_so(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  emulator_binary: Path) -> None:
    monkeypatch.delenv("FABRIC_KQL_URL", raising=False)
    pytester.makepyfile(test_no_engine=NO_ENGINE)
    result = run(pytester, monkeypatch, binary=emulator_binary)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: KQL database telemetry has no query URI: the emulator runs without "
                                 "a Kusto engine; start it with --kql-url (the plugin's --fabric-emulator-kql-url)*"])
