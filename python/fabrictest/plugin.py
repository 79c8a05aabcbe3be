"""The pytest plugin (entry point ``pytest11: fabrictest``).

Fixtures:

* ``fabric_emulator`` (session): a standalone emulator on free loopback ports,
  stopped at the end of the session (per pytest-xdist worker);
* ``fabric_workspace`` (function): a workspace of the test's own, so tests
  share no items and run in parallel safely;
* ``fabric_spark_sail``, ``fabric_spark_jvm`` (function): a Spark session on
  Sail / on local JVM Spark with the notebook adapter installed against the
  emulator, skipped with the reason when the engine is not installed;
  ``fabric_spark`` is both, one test each (ids ``sail`` and ``jvm``);
* ``fabric_notebook`` (function): runs a notebook headless (nbclient) with
  the emulator's environment, on an engine, skipped like the sessions.

Options: ``--fabric-emulator-bin PATH`` (else ``$FABRIC_EMULATOR_BIN``, else
``fabric-emulator`` on PATH, else ``go build`` in the checkout pytest runs in,
else the image ``fabrictest/emulator:local`` through testcontainers-python when
Docker runs and holds it), ``--fabric-emulator-image IMAGE`` (else
``$FABRIC_EMULATOR_IMAGE``: that image rather than a binary; ``none``: never an image),
``--fabric-emulator-tls`` (HTTPS and SASL_SSL, as Fabric),
``--fabric-emulator-kafka HOST:PORT`` (else ``$FABRIC_EMULATOR_KAFKA``, else the
embedded broker: Apache Kafka behind the emulator, which JVM Spark's Kafka
source needs), ``--fabric-emulator-kql-url URL`` (else ``$FABRIC_KQL_URL``: the
Kusto engine Eventhouse destinations write to), and ``--fabric-emulator-arg ARG`` (repeatable: more ``serve`` flags).
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from . import spark
from .container import DEFAULT_IMAGE, IMAGE_ENV, ContainerProcess, docker_missing, image_present
from .emulator import FabricEmulator
from .items import Workspace
from .notebook import ENGINE_ENV, WORKSPACE_ENV, NotebookRun, notebook_missing, run_notebook
from .process import EmulatorStartError, NoBinaryError, Process, find_binary

KAFKA_ENV = "FABRIC_EMULATOR_KAFKA"
KQL_ENV = "FABRIC_KQL_URL"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fabrictest", "fabrictest: the Fabric Eventstream emulator")
    group.addoption("--fabric-emulator-bin", default=None, metavar="PATH",
                    help="fabric-emulator binary (default $FABRIC_EMULATOR_BIN, PATH, or go build in a checkout)")
    group.addoption("--fabric-emulator-image", default=None, metavar="IMAGE",
                    help=f"run this emulator image with testcontainers instead of a binary (default ${IMAGE_ENV}; "
                         f"without a binary {DEFAULT_IMAGE} when Docker runs and has it; 'none': never)")
    group.addoption("--fabric-emulator-tls", action="store_true", default=False,
                    help="serve HTTPS and SASL_SSL with the emulator's CA (fabric_emulator.ca)")
    group.addoption("--fabric-emulator-kafka", default=None, metavar="HOST:PORT",
                    help=f"Apache Kafka behind the emulator (default ${KAFKA_ENV}, else the embedded broker)")
    group.addoption("--fabric-emulator-kql-url", default=None, metavar="URL",
                    help=f"Kusto engine for Eventhouse destinations (default ${KQL_ENV}; none: their produces fail)")
    group.addoption("--fabric-emulator-arg", action="append", default=[], metavar="ARG",
                    help="one more argument to fabric-emulator serve (repeatable)")


@pytest.fixture(scope="session")
def fabric_emulator(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FabricEmulator]:
    """A running emulator, stopped (it and nothing else) at the end of the session."""
    cfg = request.config
    common: dict[str, Any] = dict(
        tls=cfg.getoption("fabric_emulator_tls"), data_dir=tmp_path_factory.mktemp("fabric-emulator-data"),
        extra_args=cfg.getoption("fabric_emulator_arg"),
        kafka=cfg.getoption("fabric_emulator_kafka") or os.environ.get(KAFKA_ENV) or "embedded",
        kql_url=cfg.getoption("fabric_emulator_kql_url") or os.environ.get(KQL_ENV))
    image = cfg.getoption("fabric_emulator_image") or os.environ.get(IMAGE_ENV) or ""
    proc: Process | ContainerProcess
    try:
        if image and image != "none":
            proc = ContainerProcess(image, **common)
        else:
            try:
                binary = find_binary(cfg.getoption("fabric_emulator_bin"), [Path.cwd(), cfg.rootpath],
                                     tmp_path_factory.mktemp("fabric-emulator-bin"))
            except NoBinaryError as e:
                if image == "none" or docker_missing() or not image_present(DEFAULT_IMAGE):
                    raise EmulatorStartError(f"{e}; or, with Docker and testcontainers-python, build the image "
                                             f"{DEFAULT_IMAGE} (scripts/build-emulator-image.sh)") from None
                proc = ContainerProcess(DEFAULT_IMAGE, **common)
            else:
                proc = Process(binary, **common)
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


def _engine_or_skip(engine: str, emulator: FabricEmulator) -> None:
    reason = spark.engine_missing(engine)
    if reason is None and engine == "jvm":
        reason = spark.embedded_broker_reason(emulator.kafka)
    if reason:
        pytest.skip(reason)


@pytest.fixture
def fabric_spark_sail(fabric_emulator: FabricEmulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A Spark Connect session on Sail (a server in this process) with the
    notebook adapter installed against the emulator; the notebook's identity
    comes from the environment (AZURE_*, FABRIC_EMULATOR_TOKEN, else the
    default principal). Skipped, with the reason, when Sail is not installed."""
    _engine_or_skip("sail", fabric_emulator)
    for k, v in fabric_emulator.env().items():
        monkeypatch.setenv(k, v)
    with spark.sail_session(fabric_emulator.url) as session:
        yield session


@pytest.fixture
def fabric_spark_jvm(fabric_emulator: FabricEmulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A classic session on local JVM Spark (``local[1]``, the Kafka source's
    jars) with the notebook adapter installed against the emulator. Skipped,
    with the reason, when JVM Spark is not installed or the emulator runs on
    its embedded broker (see ``--fabric-emulator-kafka``)."""
    _engine_or_skip("jvm", fabric_emulator)
    for k, v in fabric_emulator.env().items():
        monkeypatch.setenv(k, v)
    with spark.jvm_session(fabric_emulator.url) as session:
        yield session


@pytest.fixture(params=spark.ENGINES)
def fabric_spark(request: pytest.FixtureRequest) -> Any:
    """The notebook's Spark session on each engine in turn: one test on Sail,
    one on JVM Spark (ids ``sail``, ``jvm``); each skipped as its fixture is."""
    return request.getfixturevalue(f"fabric_spark_{request.param}")


@pytest.fixture
def fabric_notebook(fabric_emulator: FabricEmulator) -> Callable[..., NotebookRun]:
    """Runs a notebook headless: ``fabric_notebook(path, engine="sail",
    workspace=None, env=None, timeout=300)``. The kernel gets the emulator's
    environment (``FABRIC_EMULATOR_URL``, …), ``FABRICTEST_ENGINE=engine``,
    ``FABRIC_WORKSPACE_ID`` of ``workspace`` when given, and ``env``. Skips,
    with the reason, when nbclient or the engine is not installed."""

    def run(path: str | os.PathLike[str], engine: str = "sail", workspace: Workspace | None = None,
            env: Mapping[str, str] | None = None, timeout: float = 300) -> NotebookRun:
        reason = notebook_missing()
        if reason:
            pytest.skip(reason)
        _engine_or_skip(engine, fabric_emulator)
        kernel_env = {**fabric_emulator.env(), ENGINE_ENV: engine, **(env or {})}
        if workspace is not None:
            kernel_env[WORKSPACE_ENV] = workspace.id
        return run_notebook(path, kernel_env, timeout=timeout)

    return run
