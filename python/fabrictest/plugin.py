"""The pytest plugin (entry point ``pytest11: fabrictest``).

Fixtures:

* ``fabric_emulator`` (session): a standalone emulator on free loopback ports,
  stopped at the end of the session (per pytest-xdist worker);
* ``fabric_workspace`` (function): a workspace of the test's own, so tests
  share no items and run in parallel safely.

Options: ``--fabric-emulator-bin PATH`` (else ``$FABRIC_EMULATOR_BIN``, else
``fabric-emulator`` on PATH, else ``go build`` in the checkout pytest runs in),
``--fabric-emulator-tls`` (HTTPS and SASL_SSL, as Fabric), and
``--fabric-emulator-arg ARG`` (repeatable: more ``serve`` flags).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .emulator import FabricEmulator
from .items import Workspace
from .process import EmulatorStartError, Process, find_binary


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fabrictest", "fabrictest: the Fabric Eventstream emulator")
    group.addoption("--fabric-emulator-bin", default=None, metavar="PATH",
                    help="fabric-emulator binary (default $FABRIC_EMULATOR_BIN, PATH, or go build in a checkout)")
    group.addoption("--fabric-emulator-tls", action="store_true", default=False,
                    help="serve HTTPS and SASL_SSL with the emulator's CA (fabric_emulator.ca)")
    group.addoption("--fabric-emulator-arg", action="append", default=[], metavar="ARG",
                    help="one more argument to fabric-emulator serve (repeatable)")


@pytest.fixture(scope="session")
def fabric_emulator(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FabricEmulator]:
    """A running emulator, stopped (it and nothing else) at the end of the session."""
    cfg = request.config
    try:
        binary = find_binary(cfg.getoption("fabric_emulator_bin"), [Path.cwd(), cfg.rootpath],
                             tmp_path_factory.mktemp("fabric-emulator-bin"))
        proc = Process(binary, tls=cfg.getoption("fabric_emulator_tls"),
                       data_dir=tmp_path_factory.mktemp("fabric-emulator-data"),
                       extra_args=cfg.getoption("fabric_emulator_arg"))
    except EmulatorStartError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield FabricEmulator(proc)
    finally:
        proc.stop()


@pytest.fixture
def fabric_workspace(fabric_emulator: FabricEmulator, request: pytest.FixtureRequest) -> Iterator[Workspace]:
    """A workspace of this test's own, deleted after it."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name)[:60]
    ws = fabric_emulator.workspace(f"{slug}-{uuid.uuid4().hex[:8]}")
    yield ws
    try:
        ws.client.call("DELETE", ws.path)
    except AssertionError as e:  # the test's own items may hold it; the session's end removes all
        request.node.warn(pytest.PytestWarning(f"fabrictest: delete workspace {ws.id}: {e}"))
