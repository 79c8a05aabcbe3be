"""The notebook snippet on JVM Spark against a secured Apache Kafka.

The emulator runs with ``--kafka-config`` on the local image started with a
SASL_SSL listener (SCRAM-SHA-512, a CA made here); the resolve route hands
the adapter ``kafkaProperties`` and the real spark-sql-kafka source reads
with them (``kafka.security.protocol``, ``kafka.sasl.mechanism``, the CA as
``kafka.ssl.truststore.type=PEM`` + ``kafka.ssl.truststore.certificates``).
Without ``fabrictest.share.credentials`` the notebook brings its own
``kafka.sasl.jaas.config``; with it, the cell runs unmodified.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import KAFKA_IMAGE, REPO, Emulator, _run, _start_emulator, _stop, eventstream_rows, free_port

pytestmark = pytest.mark.jvm

USER, PASSWORD = "notebook", "notebook-secret"
JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
        f'username="{USER}" password="{PASSWORD}";')


def _pki() -> tuple[str, str, str]:
    """A CA and a broker certificate for 127.0.0.1 and localhost: (CA, cert, key) as PEM."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.timezone.utc)

    def cert(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        b = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
             .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
             .public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            b = (b.add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                              x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                 critical=False)
                 .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False))
        return b.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = cert("notebook-witness CA", ca_key, "notebook-witness CA", ca_key, True)
    leaf = cert("kafka", key, "notebook-witness CA", ca_key, False)
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return ca.public_bytes(pem).decode(), leaf.public_bytes(pem).decode(), key_pem.decode()


def _prop(pem: str) -> str:
    """A PEM as one server.properties value (the image's start script copies it verbatim)."""
    return pem.strip().replace("\n", "\\n") + "\\n"


@pytest.fixture(scope="module")
def secured_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Apache Kafka with a SASL_SSL (SCRAM-SHA-512) listener on a free loopback
    port; yields (host:port, CA PEM). The SCRAM user is made when the storage is
    formatted (``kafka-storage.sh format --add-scram``), before the broker starts."""
    for script, budget in (("scripts/ensure-docker.sh", 180), ("scripts/build-kafka-image.sh", 1500)):
        p = subprocess.run(["bash", str(REPO / script)], capture_output=True, text=True, timeout=budget)
        if p.returncode != 0:
            pytest.fail(f"bash {script} failed:\n{p.stderr[-3000:]}", pytrace=False)
    ca, cert, key = _pki()
    port = free_port()
    name = f"fabrictest-secured-kafka-{os.getpid()}-{port}"
    env = {
        "CLUSTER_ID": "MkU3OEVBNTcwNTJENDM2Qk",
        "KAFKA_NODE_ID": "1",
        "KAFKA_PROCESS_ROLES": "broker,controller",
        "KAFKA_CONTROLLER_QUORUM_VOTERS": "1@localhost:9094",
        "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
        "KAFKA_LISTENERS": f"SECURED://0.0.0.0:{port},BROKER://0.0.0.0:9092,CONTROLLER://0.0.0.0:9094",
        "KAFKA_ADVERTISED_LISTENERS": f"SECURED://127.0.0.1:{port},BROKER://localhost:9092",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "SECURED:SASL_SSL,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "KAFKA_INTER_BROKER_LISTENER_NAME": "BROKER",
        "KAFKA_SASL_ENABLED_MECHANISMS": "SCRAM-SHA-512",
        "KAFKA_LISTENER_NAME_SECURED_SCRAM___SHA___512_SASL_JAAS_CONFIG":
            "org.apache.kafka.common.security.scram.ScramLoginModule required;",
        "KAFKA_SSL_KEYSTORE_TYPE": "PEM",
        "KAFKA_SSL_KEYSTORE_CERTIFICATE_CHAIN": _prop(cert),
        "KAFKA_SSL_KEYSTORE_KEY": _prop(key),
        "KAFKA_LOG_DIRS": "/var/lib/kafka/data",
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
        "KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS": "1",
        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
        "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
        "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
    }
    fmt = "\\n".join(["process.roles=broker,controller", "node.id=1", "controller.quorum.voters=1@localhost:9094",
                      "controller.listener.names=CONTROLLER", "listeners=PLAINTEXT://:9092,CONTROLLER://:9094",
                      "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                      "log.dirs=/var/lib/kafka/data"])
    start = (f"printf '{fmt}\\n' >/tmp/format.properties && /opt/kafka/bin/kafka-storage.sh format "
             f"--cluster-id \"$CLUSTER_ID\" -c /tmp/format.properties "
             f"--add-scram 'SCRAM-SHA-512=[name={USER},password={PASSWORD}]' && exec /etc/kafka/docker/run")
    cmd = ["docker", "run", "-d", "--rm", "--name", name, "--stop-timeout", "3", "-p", f"127.0.0.1:{port}:{port}",
           "--entrypoint", "bash"]
    for k, v in env.items():
        cmd += ["-e", f"{k}={v}"]
    p = _run(cmd + [KAFKA_IMAGE, "-c", start], 120)
    if p.returncode != 0:
        pytest.fail(f"docker run {KAFKA_IMAGE} failed: {p.stderr}", pytrace=False)
    try:
        deadline = time.monotonic() + 150
        while True:
            logs = _run(["docker", "logs", name], 30)
            if "Kafka Server started" in logs.stdout + logs.stderr:
                break
            state = _run(["docker", "inspect", "-f", "{{.State.Running}}", name], 30).stdout.strip()
            if state != "true" or time.monotonic() > deadline:
                pytest.fail(f"secured Kafka {name} not ready within 150s (running={state}):\n"
                            f"{(logs.stdout + logs.stderr)[-3000:]}", pytrace=False)
            time.sleep(0.5)
        print(f"secured kafka: SASL_SSL at 127.0.0.1:{port}", file=sys.stderr)
        yield f"127.0.0.1:{port}", ca
    finally:
        _run(["docker", "rm", "-f", name], 60)


def _emulator(binary: Path, kafka: tuple[str, str], d: Path, share: bool) -> Emulator:
    addr, ca = kafka
    (d / "ca.pem").write_text(ca)
    props = d / "client.properties"
    props.write_text("\n".join([
        "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", f"sasl.jaas.config={JAAS}",
        "ssl.truststore.type=PEM", f"ssl.truststore.location={d / 'ca.pem'}",
        f"fabrictest.share.credentials={'true' if share else 'false'}", ""]))
    return _start_emulator(binary, d / "data", addr, d / "emulator.log", extra=["--kafka-config", str(props)])


@pytest.fixture(scope="module")
def emulators(emulator_binary: Path, secured_kafka: tuple[str, str],
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Emulator]]:
    """Two emulators on the secured cluster: one shares its credentials with notebooks, one does not."""
    emus = {share: _emulator(emulator_binary, secured_kafka, tmp_path_factory.mktemp(share), share == "shared")
            for share in ("shared", "private")}
    yield emus
    for e in emus.values():
        _stop(e.proc)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from spark_agent.jvm import INSTALL_HINT, session_builder

    try:
        builder = session_builder("local[1]")
    except FileNotFoundError as e:
        pytest.fail(f"{e} (bash scripts/install-spark-deps.sh)" if INSTALL_HINT not in str(e) else str(e),
                    pytrace=False)
    session = builder.config("spark.ui.showConsoleProgress", "false").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        for q in session.streams.active:
            q.stop()
        session.stop()


def test_shared_credentials_cell_runs_unmodified(spark: Any, emulators: dict[str, Emulator],
                                                 secured_kafka: tuple[str, str]) -> None:
    emu = emulators["shared"]
    ws = emu.create_workspace("resolve")
    r = emu.resolve(emu.create_eventstream(ws, "r"))
    assert r["securityProtocol"] == "SASL_SSL" and r["credentialsShared"] is True
    assert r["kafkaProperties"]["sasl.jaas.config"] == JAAS
    assert r["kafkaProperties"]["ssl.truststore.certificates"] == secured_kafka[1]
    rows = eventstream_rows(spark, emu, "secured")
    assert len(rows) == 5 and all(row["topic"] for row in rows)


def test_private_credentials_come_from_the_notebook(spark: Any, emulators: dict[str, Emulator]) -> None:
    emu = emulators["private"]
    ws = emu.create_workspace("resolve")
    r = emu.resolve(emu.create_eventstream(ws, "r"))
    assert r["credentialsShared"] is False and "sasl.jaas.config" not in r["kafkaProperties"]
    rows = eventstream_rows(spark, emu, "secured", {"kafka.sasl.jaas.config": JAAS})
    assert len(rows) == 5
