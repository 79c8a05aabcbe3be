"""The plugin's emulator image path: fabric_emulator runs
fabrictest/emulator:local through testcontainers-python when asked
(--fabric-emulator-image) and when no binary can be found or built but
Docker holds the image. Every port on 127.0.0.1; the connection strings name
the published ports; Lakehouse tables are read from the mounted data dir.

Needs Docker: the fixture makes sure the engine runs and the image is
up to date with the project's scripts, and fails (never skips) when they fail."""

from __future__ import annotations

import os
import subprocess

import pytest
from plugin_run import PYTHON_DIR, run
from test_plugin_fixtures import path_without_emulator

pytestmark = pytest.mark.container

pytest_plugins = ["pytester"]

REPO = PYTHON_DIR.parent
IMAGE = os.environ.get("FABRICTEST_EMULATOR_IMAGE", "fabrictest/emulator:local")

INNER = '''
import fabrictest

def test_the_image_serves_the_plugin(fabric_emulator, fabric_workspace):
    assert fabric_emulator.binary == IMAGE and fabric_emulator.url.startswith("http://127.0.0.1:")
    assert fabric_emulator.version().startswith("fabric-emulator "), fabric_emulator.version()
    lh = fabric_workspace.lakehouse("sales")
    assert lh.tables_path.is_relative_to(fabric_emulator.data_dir), lh.tables_path
    es = fabric_workspace.deploy_eventstream("orders", {
        "sources": [{"name": "shop", "type": "CustomEndpoint", "properties": {}}],
        "streams": [{"name": "s", "type": "DefaultStream", "properties": {}, "inputNodes": [{"name": "shop"}]}],
        "destinations": [fabrictest.lakehouse_destination("lake", lh, "orders", "s", minimumRows=1)],
    })
    conn = es.connection("shop")
    assert conn.bootstrap == fabric_emulator.kafka_endpoint, (conn.bootstrap, fabric_emulator.kafka_endpoint)
    assert conn.produce([{"id": 1}, {"id": 2}]) == 2
    es.produce({"id": 3})
    assert sorted(r["id"] for r in lh.table("orders").wait_rows(3, timeout=30)) == [1, 2, 3]
    other = "5b0c6c37-8b7e-4f0e-9d5e-2f1f6f3f0c11"
    fabric_workspace.add_role(other, "Viewer", "User")
    assert fabric_emulator.client(other).call("GET", fabric_workspace.path)["id"] == fabric_workspace.id
'''


@pytest.fixture(scope="module")
def emulator_image() -> str:
    """The emulator image, up to date with this checkout (the project's idempotent scripts)."""
    try:
        import testcontainers  # noqa: F401
    except ImportError as e:
        pytest.fail(f"testcontainers-python missing ({e}): run scripts/install-python-deps.sh", pytrace=False)
    for script, budget in (("scripts/ensure-docker.sh", 180), ("scripts/build-emulator-image.sh", 900)):
        p = subprocess.run(["bash", str(REPO / script)], capture_output=True, text=True, timeout=budget,
                           env={**os.environ, "FABRICTEST_EMULATOR_IMAGE": IMAGE})
        if p.returncode != 0:
            pytest.fail(f"bash {script} failed (needed for the emulator image):\n{p.stderr[-3000:]}", pytrace=False)
    return IMAGE


def containers_of(image: str) -> set[str]:
    out = subprocess.run(["docker", "ps", "-aq", "--filter", f"ancestor={image}"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return set(out.split())


def test_the_image_option(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, emulator_image: str) -> None:
    before = containers_of(emulator_image)
    pytester.makepyfile(test_image=f"IMAGE = {emulator_image!r}\n" + INNER)
    result = run(pytester, monkeypatch, "--fabric-emulator-image", emulator_image, timeout=300)
    result.assert_outcomes(passed=1)
    assert containers_of(emulator_image) <= before  # the session's end removed the container it started


def test_without_a_binary_the_image_is_used(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                            emulator_image: str) -> None:
    if emulator_image != "fabrictest/emulator:local":
        pytest.fail("the fallback runs fabrictest/emulator:local; unset FABRICTEST_EMULATOR_IMAGE", pytrace=False)
    for var in ("FABRIC_EMULATOR_BIN", "FABRIC_EMULATOR_IMAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", path_without_emulator())
    pytester.makepyfile(test_x=(
        "def test_x(fabric_emulator):\n"
        "    assert fabric_emulator.binary == 'fabrictest/emulator:local'\n"
        "    assert fabric_emulator.client().call('GET', '/v1/workspaces')['value'] == []\n"))
    run(pytester, monkeypatch, binary=None, timeout=300).assert_outcomes(passed=1)


def test_a_missing_image_says_how_to_build_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                              emulator_image: str) -> None:
    pytester.makepyfile(test_x="def test_x(fabric_emulator):\n    pass\n")
    result = run(pytester, monkeypatch, "--fabric-emulator-image", "fabrictest/no-such-emulator:local", timeout=120)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the emulator image fabrictest/no-such-emulator:local is not in the local Docker "
                                 "engine: build or load it into the local engine*"])


