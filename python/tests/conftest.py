"""Fixtures: the emulator binary (built from this checkout), Apache Kafka in a
container, and REST helpers shaped like what a notebook user does by hand.

Nothing here skips: a missing dependency fails with the command that installs
it (``bash scripts/install-spark-deps.sh`` for the Python/Spark side).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = "bash scripts/install-spark-deps.sh"
KAFKA_IMAGE = os.environ.get("FABRICTEST_KAFKA_LOCAL_IMAGE", "fabrictest/kafka:3.9.1-local")


def _missing_deps() -> str | None:
    missing = []
    for mod in ("pyspark", "pysail", "kafka", "gssapi", "pandas", "pyarrow", "grpc", "deltalake", "spark_agent"):
        try:
            __import__(mod)
        except Exception as e:  # ImportError, or a broken install
            missing.append(f"{mod} ({e.__class__.__name__}: {e})")
    if missing:
        return (f"Python dependencies missing from {sys.executable}: {', '.join(missing)}. "
                f"Run `{INSTALL}` (creates .cache/venv) and run pytest with .cache/venv/bin/python.")
    return None


@pytest.fixture(scope="session", autouse=True)
def _python_deps() -> None:
    msg = _missing_deps()
    if msg:
        pytest.fail(msg, pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the emulator ---------------------------------------------------------------

@pytest.fixture(scope="session")
def emulator_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``go build`` of ./emulator/cmd/fabric-emulator into a temporary directory."""
    go = shutil.which("go")
    if go is None:
        pytest.fail("go not found on PATH: the tests build the emulator from this checkout", pytrace=False)
    out = tmp_path_factory.mktemp("bin") / "fabric-emulator"
    t0 = time.monotonic()
    proc = subprocess.run([go, "build", "-o", str(out), "./emulator/cmd/fabric-emulator"], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"go build ./emulator/cmd/fabric-emulator failed:\n{proc.stderr}", pytrace=False)
    print(f"built {out} in {time.monotonic() - t0:.1f}s", file=sys.stderr)
    return out


class ApiError(AssertionError):
    def __init__(self, status: int, body: Any) -> None:
        self.status, self.body = status, body
        super().__init__(f"{status} {body}")


@dataclass
class Eventstream:
    workspace_id: str
    item_id: str
    datasource_id: str
    topic: str


class Emulator:
    """A running ``fabric-emulator serve`` and REST helpers.

    With ``--tls``, ``url`` is ``https://…`` and ``ca`` the emulator's CA
    (``<data-dir>/tls/ca.pem``, named by its ready line); the helpers here
    trust it through their own SSL context, so the environment a test hands
    to the clients under test stays theirs."""

    def __init__(self, url: str, proc: subprocess.Popen, kafka: str, data_dir: Path,
                 ca: Path | None = None) -> None:
        self.url, self.proc, self.kafka, self.data_dir, self.ca = url, proc, kafka, data_dir, ca
        self._token: str | None = None

    def ssl_context(self) -> ssl.SSLContext | None:
        """An SSL context trusting the emulator's CA (None for plain HTTP)."""
        return ssl.create_default_context(cafile=str(self.ca)) if self.ca else None

    @property
    def token(self) -> str:
        if self._token is None:
            self._token = self.call("POST", "/_emulator/token", {}, auth=False)["access_token"]
        return self._token

    def call(self, method: str, path: str, body: Any = None, *, auth: bool = True,
             expect: tuple[int, ...] = (200, 201, 202)) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if auth:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120, context=self.ssl_context()) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        payload = json.loads(raw) if raw else None
        if status not in expect:
            raise ApiError(status, payload)
        return payload

    def create_workspace(self, name: str) -> str:
        return self.call("POST", "/v1/workspaces", {"displayName": name})["id"]

    def create_eventstream(self, workspace_id: str, name: str) -> Eventstream:
        es = self.call("POST", f"/v1/workspaces/{workspace_id}/eventstreams", {"displayName": name})
        stream = es["properties"]["streams"][0]
        return Eventstream(workspace_id, es["id"], stream["id"], stream["topic"])

    def produce(self, es: Eventstream, events: list[dict[str, Any]]) -> dict[str, Any]:
        """Custom HTTP source: one batched produce; the answer says where each event landed."""
        return self.call("POST", f"/v1/workspaces/{es.workspace_id}/eventstreams/{es.item_id}/sources/"
                                 f"{es.datasource_id}/events", {"events": events})

    def bind_lakehouse(self, es: Eventstream, lakehouse_id: str, table: str) -> dict[str, Any]:
        """``POST …/destinations {type: Lakehouse}``; must answer 201 (on a fresh
        Apache Kafka broker too: the emulator waits out COORDINATOR_NOT_AVAILABLE
        itself while the broker creates ``__consumer_offsets``)."""
        return self.call("POST", f"/v1/workspaces/{es.workspace_id}/eventstreams/{es.item_id}/destinations",
                         {"type": "Lakehouse", "itemId": lakehouse_id, "table": table}, expect=(201,))

    def resolve(self, es: Eventstream) -> dict[str, Any]:
        return self.call("GET", f"/v1/eventstreams/{es.item_id}/sources/{es.datasource_id}")


@contextmanager
def sail_session(emu: Emulator) -> Iterator[Any]:
    """A Spark Connect session on an in-process Sail server, with the notebook
    adapter installed against ``emu``; stopped (server too) on exit."""
    from pysail.spark import SparkConnectServer
    from pyspark.sql import SparkSession

    from spark_agent import install

    server = SparkConnectServer("127.0.0.1", 0)
    server.start(background=True)
    _, port = server.listening_address
    session = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
    install(session, emu.url, emu.token)
    try:
        yield session
    finally:
        session.stop()
        server.stop()
        # pyspark 3.5 marks the whole process as Spark Connect; let a classic
        # (JVM) session start later in the same run.
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        os.environ.pop("SPARK_REMOTE", None)


def _start_emulator(binary: Path, data_dir: Path, kafka: str, log_path: Path, *, tls: bool = False,
                    extra: list[str] | None = None, env: dict[str, str] | None = None) -> Emulator:
    """``fabric-emulator serve`` on a free loopback port; with ``tls`` it runs
    ``--tls`` (HTTPS API, SASL_SSL custom endpoint, a CA in the data dir).
    Its Event Hubs (AMQP) endpoint listens on a free port too, and the Kafka
    endpoint takes AMQP as well, so a connection string's Endpoint names the
    Kafka endpoint for both protocols (docs/custom-endpoint.md); ``extra``
    are more flags (``--kafka-config``), ``env`` more environment variables
    (``KRB5_CONFIG``)."""
    port = free_port()
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--kafka", kafka, "--data-dir", str(data_dir),
         "--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", "127.0.0.1:0"]
        + (["--tls"] if tls else []) + (extra or []),
        stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, **env} if env else None)
    ready: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "ready at" in line:
                ready.append(line.strip())
            log.write(line)
            log.flush()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while not ready:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"fabric-emulator did not print its ready line within 60s (exit {proc.poll()}); log:\n"
                        f"{log_path.read_text()[-4000:]}", pytrace=False)
        time.sleep(0.05)
    m = re.search(r"ready at (https?://\S+)", ready[0])
    assert m, ready[0]
    print(f"emulator: {ready[0]}", file=sys.stderr)
    ca = None
    if tls:
        found = re.search(r"tls CA: (\S+)\)", ready[0])
        assert found and m.group(1).startswith("https://"), f"--tls and no https URL or CA path: {ready[0]}"
        ca = Path(found.group(1))
        assert ca.is_file(), f"the ready line names a CA that is not there: {ready[0]}"
    return Emulator(m.group(1), proc, kafka, data_dir, ca)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def embedded_emulator(emulator_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator on its embedded broker (franz-go kfake)."""
    d = tmp_path_factory.mktemp("emulator-embedded")
    emu = _start_emulator(emulator_binary, d / "data", "embedded", d / "emulator.log")
    yield emu
    _stop(emu.proc)


@pytest.fixture(scope="module")
def amqp_emulator(emulator_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator on its embedded broker for the Event Hubs SDK tests, a
    module of its own: connection strings carry ``UseDevelopmentEmulator=true``
    and name the Kafka endpoint, which takes the SDKs' AMQP."""
    d = tmp_path_factory.mktemp("emulator-amqp")
    emu = _start_emulator(emulator_binary, d / "data", "embedded", d / "emulator.log")
    yield emu
    _stop(emu.proc)


@pytest.fixture(scope="module")
def tls_emulator(emulator_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator on its embedded broker with ``--tls``: HTTPS (its Entra
    token service included) and a SASL_SSL custom endpoint, as Fabric serves
    them; ``Emulator.ca`` is the CA a client trusts."""
    d = tmp_path_factory.mktemp("emulator-tls")
    emu = _start_emulator(emulator_binary, d / "data", "embedded", d / "emulator.log", tls=True)
    yield emu
    _stop(emu.proc)


def trust_ca(monkeypatch: pytest.MonkeyPatch, emu: Emulator) -> None:
    """What a Python user sets to trust the emulator's CA, and nothing else:
    ``REQUESTS_CA_BUNDLE``, read by ``requests`` and so by azure-core's
    transport (azure-identity, microsoft-fabric-api) and fabric-cicd."""
    assert emu.ca is not None, "trust_ca wants an emulator started with --tls"
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(emu.ca))


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every request sent through ``requests``; hosts other than loopback are
    refused (python/tests/identity.py)."""
    from identity import Wire
    return Wire(monkeypatch)


# -- Apache Kafka in a container -------------------------------------------------

def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def apache_kafka() -> Iterator[str]:
    """Apache Kafka 3.9.1 (the local image) on a free loopback port; yields
    ``host:port``. Makes sure the Docker engine runs and the image exists with
    the project's idempotent scripts, then ``docker run``s it and waits (bounded)."""
    for script, budget in (("scripts/ensure-docker.sh", 180), ("scripts/build-kafka-image.sh", 1500)):
        try:
            p = subprocess.run(["bash", str(REPO / script)], capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            pytest.fail(f"bash {script} took longer than {budget}s", pytrace=False)
        if p.returncode != 0:
            pytest.fail(f"bash {script} failed (needed for the Apache Kafka container):\n{p.stderr[-3000:]}",
                        pytrace=False)
    port = free_port()
    name = f"fabrictest-spark-kafka-{os.getpid()}-{port}"
    env = {
        "CLUSTER_ID": "MkU3OEVBNTcwNTJENDM2Qk",
        "KAFKA_NODE_ID": "1",
        "KAFKA_PROCESS_ROLES": "broker,controller",
        "KAFKA_CONTROLLER_QUORUM_VOTERS": "1@localhost:9093",
        "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
        "KAFKA_LISTENERS": f"PLAINTEXT://0.0.0.0:{port},CONTROLLER://0.0.0.0:9093",
        "KAFKA_ADVERTISED_LISTENERS": f"PLAINTEXT://127.0.0.1:{port}",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "KAFKA_INTER_BROKER_LISTENER_NAME": "PLAINTEXT",
        "KAFKA_LOG_DIRS": "/var/lib/kafka/data",
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
        "KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS": "1",
        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
        "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
        "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
    }
    cmd = ["docker", "run", "-d", "--rm", "--name", name, "--stop-timeout", "3", "-p", f"127.0.0.1:{port}:{port}"]
    for k, v in env.items():
        cmd += ["-e", f"{k}={v}"]
    p = _run(cmd + [KAFKA_IMAGE], 120)
    if p.returncode != 0:
        pytest.fail(f"docker run {KAFKA_IMAGE} failed: {p.stderr}", pytrace=False)
    try:
        deadline = time.monotonic() + 90
        while True:
            logs = _run(["docker", "logs", name], 30)
            if "Kafka Server started" in logs.stdout + logs.stderr:
                break
            state = _run(["docker", "inspect", "-f", "{{.State.Running}}", name], 30).stdout.strip()
            if state != "true" or time.monotonic() > deadline:
                pytest.fail(f"Apache Kafka container {name} not ready within 90s (running={state}):\n"
                            f"{(logs.stdout + logs.stderr)[-3000:]}", pytrace=False)
            time.sleep(0.5)
        print(f"apache kafka: {KAFKA_IMAGE} as {name} at 127.0.0.1:{port}", file=sys.stderr)
        yield f"127.0.0.1:{port}"
    finally:
        _run(["docker", "rm", "-f", name], 60)


@pytest.fixture(scope="session")
def kerberized_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An MIT KDC and Apache Kafka with a SASL_PLAINTEXT and a SASL_SSL GSSAPI
    listener (python/tests/kerberos_kafka.py); yields a ``KerberizedKafka``
    (bootstrap ``localhost:<port>``, ``tls_bootstrap``, ``ca_pem``,
    ``krb5_conf``, ``client_keytab``, ``options(tls=…)``).
    Builds the KDC and Kafka images first with the project's scripts."""
    from kerberos_kafka import FixtureError
    from kerberos_kafka import kerberized_kafka as start

    try:
        with start(tmp_path_factory.mktemp("krb")) as k:
            yield k
    except FixtureError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="module")
def kerberos_emulator(emulator_binary: Path, kerberized_kafka: Any,
                      tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """``fabric-emulator serve --kafka-config`` with a GSSAPI client.properties
    (the same keytab login), sharing its credentials with notebooks; the
    emulator reads krb5.conf through ``KRB5_CONFIG``."""
    from kerberos_kafka import SERVICE

    k = kerberized_kafka
    d = tmp_path_factory.mktemp("emulator-kerberos")
    props = d / "client.properties"
    props.write_text("\n".join([
        "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=GSSAPI", f"sasl.kerberos.service.name={SERVICE}",
        f"sasl.jaas.config={k.jaas()}", "fabrictest.share.credentials=true", ""]))
    emu = _start_emulator(emulator_binary, d / "data", k.bootstrap, d / "emulator.log",
                          extra=["--kafka-config", str(props)], env={"KRB5_CONFIG": str(k.krb5_conf)})
    yield emu
    _stop(emu.proc)


@pytest.fixture(scope="module")
def kafka_emulator(emulator_binary: Path, apache_kafka: str,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator with the Apache Kafka container behind it (``--kafka host:port``)."""
    d = tmp_path_factory.mktemp("emulator-apache")
    emu = _start_emulator(emulator_binary, d / "data", apache_kafka, d / "emulator.log")
    yield emu
    _stop(emu.proc)


# -- a standalone Spark cluster --------------------------------------------------------

@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Spark master and two workers from the driver's ``SPARK_HOME`` on
    127.0.0.1 (python/tests/spark_cluster.py); yields the running
    :class:`spark_cluster.SparkCluster` (``master_url`` is ``spark://…``).
    Stopped at the end of the session, also when a test or the start
    failed (a start that fails raises with the daemons' logs); the logs are
    in the temporary directory it prints."""
    from spark_cluster import SparkCluster

    from spark_agent.jvm import INSTALL_HINT, check_spark_home

    try:
        home = check_spark_home()
    except FileNotFoundError as e:
        pytest.fail(f"{e} ({INSTALL_HINT})" if INSTALL_HINT not in str(e) else str(e), pytrace=False)
    cluster = SparkCluster(home, tmp_path_factory.mktemp("spark-cluster"))
    try:
        cluster.start()
        print(f"spark cluster: {cluster.master_url} with {len(cluster.procs) - 1} workers up in "
              f"{cluster.started_in:.1f}s (logs: {cluster.log_dir})", file=sys.stderr)
        yield cluster
    finally:
        cluster.stop()


# -- shared assertions -------------------------------------------------------------------

def orders(n: int, prefix: str = "o") -> list[dict[str, Any]]:
    """``n`` JSON order events; every third one carries a header."""
    out = []
    for i in range(n):
        ev: dict[str, Any] = {"key": f"{prefix}-{i}", "value": {"id": i, "amount": round(10 + i * 1.5, 2),
                                                                  "note": f"order {i}"}}
        if i % 3 == 0:
            ev["headers"] = {"source": "pytest", "seq": str(i)}
        out.append(ev)
    return out


def wait_for(what: str, cond: Any, timeout: float = 120) -> None:
    """Polls cond until it holds; fails naming what after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def eventstream_rows(spark: Any, emu: Emulator, name: str, extra: dict[str, str] | None = None) -> list[Any]:
    """Fabric's notebook cell (plus ``extra`` options) on a fresh Eventstream
    of a new workspace named after ``name``: the rows of 5 events produced
    through the Custom HTTP source once the query runs."""
    from spark_agent import install

    install(spark, emu.url, emu.token)
    ws = emu.create_workspace(f"{name}-{time.monotonic_ns()}")
    es = emu.create_eventstream(ws, "orders")
    batches: list[Any] = []
    df_raw = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": es.item_id,
        "eventstream.datasourceid": es.datasource_id,
        **(extra or {}),
    }).load()
    query = df_raw.writeStream.foreachBatch(lambda df, _: batches.extend(df.collect())).outputMode("append").start()
    try:
        wait_for("the first trigger", lambda: bool(query.recentProgress) or query.exception() is not None)
        assert query.exception() is None, query.exception()
        emu.produce(es, orders(5))
        wait_for("5 rows", lambda: len(batches) >= 5 or query.exception() is not None)
        assert query.exception() is None, query.exception()
    finally:
        query.stop()
    assert {r["topic"] for r in batches} == {es.topic}
    return batches


def assert_kafka_rows(rows: list[Any], es: Eventstream, produced: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Rows of the Kafka schema match what the Custom HTTP source produced:
    count, key/value bytes, topic, and the (partition, offset) the produce answered."""
    assert len(rows) == len(events), f"want {len(events)} rows, got {len(rows)}"
    by_key = {bytes(r["key"]).decode(): r for r in rows}
    assert len(by_key) == len(events)
    now = time.time()
    for ev, where in zip(events, produced["events"]):
        r = by_key[ev["key"]]
        assert json.loads(bytes(r["value"])) == ev["value"]
        assert bytes(r["value"]) == json.dumps(ev["value"], separators=(",", ":")).encode()
        assert r["topic"] == es.topic
        assert (r["partition"], r["offset"]) == (where["partition"], where["offset"])
        assert r["timestampType"] == 0
        assert abs(r["timestamp"].timestamp() - now) < 600
