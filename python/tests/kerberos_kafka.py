"""An MIT Kerberos KDC and a Kerberized Apache Kafka broker in containers, for
the GSSAPI tests on both engines.

* The KDC is ``fabrictest/kdc:bookworm-local`` (``scripts/build-kdc-image.sh``,
  fixtures/kdc-image/README.md): realm ``FABRICTEST.LOCAL`` on a free loopback
  port, principals ``kafka/localhost`` and ``fabrictest``; it writes
  ``krb5.conf``, one keytab per principal and last ``ready`` to a host folder.
* The broker is the local Kafka image (``scripts/build-kafka-image.sh``) on the
  host network: a ``SASL_PLAINTEXT`` GSSAPI listener advertised as
  ``localhost:<port>`` (service principal ``kafka/localhost``), a ``SASL_SSL``
  GSSAPI listener the same way (its certificate, for ``localhost`` and
  ``127.0.0.1``, signed by a CA made here and handed to the broker inline as
  PEM), a PLAINTEXT listener between brokers and the controller's, each on a
  free loopback port.

Clients use ``bootstrap`` (``localhost:<port>``), service name ``kafka`` and
``fabrictest@FABRICTEST.LOCAL`` with ``client_keytab``; over TLS ``options(tls=True)``
adds the CA (``ca_pem``, a PEM file) as ``kafka.ssl.truststore.type=PEM`` +
``kafka.ssl.truststore.location``, the same options on both engines. Waits are bounded, a
failure carries the containers' logs, and both containers are removed.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import re
import socket
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import eventstream_rows, wait_for

REPO = Path(__file__).resolve().parents[2]
KDC_IMAGE = os.environ.get("FABRICTEST_KDC_IMAGE", "fabrictest/kdc:bookworm-local")
KAFKA_IMAGE = os.environ.get("FABRICTEST_KAFKA_LOCAL_IMAGE", "fabrictest/kafka:3.9.1-local")
REALM = "FABRICTEST.LOCAL"
CLIENT = f"fabrictest@{REALM}"
SERVICE = "kafka"


class FixtureError(RuntimeError):
    """The containers could not be started; the message carries their logs."""


@dataclass
class KerberizedKafka:
    dir: Path            # krb5.conf and the keytabs, as the KDC wrote them
    kdc_port: int
    bootstrap: str       # localhost:<SASL_PLAINTEXT port>
    plaintext: str       # 127.0.0.1:<PLAINTEXT port>, the inter-broker listener (for test set-up)
    broker_name: str
    tls_bootstrap: str   # localhost:<SASL_SSL port>
    ca_pem: Path         # the CA that signed the SASL_SSL listener's certificate

    @property
    def krb5_conf(self) -> Path:
        return self.dir / "krb5.conf"

    @property
    def client_keytab(self) -> Path:
        return self.dir / "fabrictest.keytab"

    def jaas(self, principal: str = CLIENT, keytab: Path | str | None = None, extra: str = "") -> str:
        kt = keytab if keytab is not None else self.client_keytab
        return (f'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
                f'keyTab="{kt}" principal="{principal}"{extra};')

    def options(self, tls: bool = False, **jaas: Any) -> dict[str, str]:
        """The ``kafka.*`` options of a GSSAPI client, the same on both engines:
        ``SASL_PLAINTEXT``, or ``SASL_SSL`` with the CA as a PEM trust store."""
        opts = {"kafka.bootstrap.servers": self.tls_bootstrap if tls else self.bootstrap,
                "kafka.security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
                "kafka.sasl.mechanism": "GSSAPI", "kafka.sasl.kerberos.service.name": SERVICE,
                "kafka.sasl.jaas.config": self.jaas(**jaas)}
        if tls:
            opts.update({"kafka.ssl.truststore.type": "PEM", "kafka.ssl.truststore.location": str(self.ca_pem)})
        return opts

    def broker_log(self) -> str:
        p = _run(["docker", "logs", self.broker_name], 30)
        return p.stdout + p.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def pki() -> tuple[str, str, str]:
    """A CA and a broker certificate for localhost and 127.0.0.1: (CA, cert, key) as PEM."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def builder(subject: str, public: Any, ca: bool) -> x509.CertificateBuilder:
        return (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name("kerberos-tls CA"))
                .public_key(public).serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))

    ca = builder("kerberos-tls CA", ca_key.public_key(), True).sign(ca_key, hashes.SHA256())
    leaf = (builder("kafka", key.public_key(), False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return ca.public_bytes(pem).decode(), leaf.public_bytes(pem).decode(), key_pem.decode()


def _prop(pem: str) -> str:
    """A PEM as one server.properties value (the image's start script copies it verbatim)."""
    return pem.strip().replace("\n", "\\n") + "\\n"


def build_images() -> None:
    for script, budget in (("scripts/ensure-docker.sh", 180), ("scripts/build-kafka-image.sh", 1500),
                           ("scripts/build-kdc-image.sh", 900)):
        try:
            p = subprocess.run(["bash", str(REPO / script)], capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired as e:
            raise FixtureError(f"bash {script} took longer than {budget}s") from e
        if p.returncode != 0:
            raise FixtureError(f"bash {script} failed (needed for the Kerberized Kafka):\n{p.stderr[-3000:]}")


def _logs(name: str) -> str:
    p = _run(["docker", "logs", name], 30)
    return (p.stdout + p.stderr)[-4000:]


def _running(name: str) -> bool:
    return _run(["docker", "inspect", "-f", "{{.State.Running}}", name], 30).stdout.strip() == "true"


@contextmanager
def kerberized_kafka(d: Path, *, timeout: float = 150) -> Iterator[KerberizedKafka]:
    """Starts the KDC then the broker, yields them, removes both."""
    build_images()
    d.mkdir(parents=True, exist_ok=True)
    kdc_port, sasl, plain, controller, ssl = free_port(), free_port(), free_port(), free_port(), free_port()
    ca, cert, key = pki()
    tag = f"{os.getpid()}-{kdc_port}"
    kdc, broker = f"fabrictest-kdc-{tag}", f"fabrictest-krb-kafka-{tag}"
    names: list[str] = []
    try:
        p = _run(["docker", "run", "-d", "--rm", "--name", kdc, "--network", "host", "-e", f"KDC_PORT={kdc_port}",
                  "-e", f"KRB5_PRINCIPALS={SERVICE}/localhost fabrictest", "-v", f"{d}:/krb", KDC_IMAGE], 120)
        if p.returncode != 0:
            raise FixtureError(f"docker run {KDC_IMAGE} failed: {p.stderr}")
        names.append(kdc)
        deadline = time.monotonic() + 60
        while not (d / "ready").exists() or not _accepts(kdc_port):
            if not _running(kdc) or time.monotonic() > deadline:
                raise FixtureError(f"KDC {kdc} not ready within 60s (ready file: {(d / 'ready').exists()}):\n"
                                   f"{_logs(kdc)}")
            time.sleep(0.2)
        broker_jaas = ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
                       f'keyTab="/krb/{SERVICE}_localhost.keytab" principal="{SERVICE}/localhost@{REALM}";')
        env = {
            "CLUSTER_ID": "MkU3OEVBNTcwNTJENDM2Qk",
            "KAFKA_NODE_ID": "1",
            "KAFKA_PROCESS_ROLES": "broker,controller",
            "KAFKA_CONTROLLER_QUORUM_VOTERS": f"1@127.0.0.1:{controller}",
            "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
            "KAFKA_LISTENERS": f"SASL_PLAINTEXT://127.0.0.1:{sasl},SASL_SSL://127.0.0.1:{ssl},"
                               f"BROKER://127.0.0.1:{plain},CONTROLLER://127.0.0.1:{controller}",
            "KAFKA_ADVERTISED_LISTENERS": f"SASL_PLAINTEXT://localhost:{sasl},SASL_SSL://localhost:{ssl},"
                                          f"BROKER://127.0.0.1:{plain}",
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,"
                                                    "BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "KAFKA_INTER_BROKER_LISTENER_NAME": "BROKER",
            "KAFKA_SASL_ENABLED_MECHANISMS": "GSSAPI",
            "KAFKA_SASL_KERBEROS_SERVICE_NAME": SERVICE,
            "KAFKA_LISTENER_NAME_SASL__PLAINTEXT_GSSAPI_SASL_JAAS_CONFIG": broker_jaas,
            "KAFKA_LISTENER_NAME_SASL__SSL_GSSAPI_SASL_JAAS_CONFIG": broker_jaas,
            "KAFKA_SSL_KEYSTORE_TYPE": "PEM",
            "KAFKA_SSL_KEYSTORE_CERTIFICATE_CHAIN": _prop(cert),
            "KAFKA_SSL_KEYSTORE_KEY": _prop(key),
            "KAFKA_OPTS": "-Djava.security.krb5.conf=/krb/krb5.conf",
            "KAFKA_LOG_DIRS": "/var/lib/kafka/data",
            "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
            "KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS": "1",
            "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
            "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
            "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
        }
        cmd = ["docker", "run", "-d", "--rm", "--name", broker, "--stop-timeout", "3", "--network", "host",
               "-v", f"{d}:/krb:ro"]
        for k, v in env.items():
            cmd += ["-e", f"{k}={v}"]
        p = _run(cmd + [KAFKA_IMAGE], 120)
        if p.returncode != 0:
            raise FixtureError(f"docker run {KAFKA_IMAGE} failed: {p.stderr}")
        names.append(broker)
        deadline = time.monotonic() + timeout
        while "Kafka Server started" not in _logs(broker):
            if not _running(broker) or time.monotonic() > deadline:
                raise FixtureError(f"Kerberized Kafka {broker} not ready within {timeout:.0f}s "
                                   f"(running={_running(broker)}):\n{_logs(broker)}\n--- KDC {kdc}:\n{_logs(kdc)}")
            time.sleep(0.5)
        print(f"kerberized kafka: {broker} at localhost:{sasl} (GSSAPI) and localhost:{ssl} (GSSAPI over TLS), "
              f"KDC {kdc} on 127.0.0.1:{kdc_port}, krb5.conf {d / 'krb5.conf'}", file=sys.stderr)
        (d / "ca.pem").write_text(ca)
        yield KerberizedKafka(d, kdc_port, f"localhost:{sasl}", f"127.0.0.1:{plain}", broker,
                              f"localhost:{ssl}", d / "ca.pem")
    finally:
        for n in reversed(names):
            _run(["docker", "rm", "-f", n], 60)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def write_keytab(path: Path, principal: str, key: bytes | None = None, kvno: int = 1) -> Path:
    """A MIT keytab (format 0x0502) holding one aes256-cts-hmac-sha1-96 key for
    ``principal`` (random unless given): a principal the KDC does not know, or
    a key the KDC does not hold."""
    name, realm = principal.rsplit("@", 1)
    comps = name.split("/")

    def counted(s: str) -> bytes:
        b = s.encode()
        return struct.pack(">H", len(b)) + b

    key = key if key is not None else os.urandom(32)
    entry = (struct.pack(">H", len(comps)) + counted(realm) + b"".join(counted(c) for c in comps)
             + struct.pack(">IIB", 1, int(time.time()), kvno & 0xFF) + struct.pack(">HH", 18, len(key)) + key
             + struct.pack(">I", kvno))
    path.write_bytes(b"\x05\x02" + struct.pack(">i", len(entry)) + entry)
    return path


def merge_keytabs(path: Path, *sources: Path) -> Path:
    """One keytab holding every entry of ``sources``, in order."""
    out = b"\x05\x02"
    for s in sources:
        data = s.read_bytes()
        assert data[:2] == b"\x05\x02", f"{s} is not a 0x0502 keytab"
        out += data[2:]
    path.write_bytes(out)
    return path


# -- what the engine tests share -------------------------------------------------------------

def java_options(k: KerberizedKafka) -> str:
    return f"-Djava.security.krb5.conf={k.krb5_conf}"


def new_topic(name: str) -> str:
    return f"krb-{name}-{uuid.uuid4().hex[:8]}"


def produce_plain(k: KerberizedKafka, topic: str, n: int) -> list[tuple[bytes, bytes]]:
    """``n`` records through the PLAINTEXT listener (test set-up, no Kerberos)."""
    from kafka import KafkaProducer

    sent = [(f"k{i}".encode(), f'{{"id":{i},"note":"kerberized {i}"}}'.encode()) for i in range(n)]
    p = KafkaProducer(bootstrap_servers=[k.plaintext])
    try:
        for key, value in sent:
            p.send(topic, key=key, value=value)
        p.flush(timeout=60)
    finally:
        p.close()
    return sent


def consume_plain(k: KerberizedKafka, topic: str, want: int, timeout: float = 60) -> list[tuple[bytes, bytes]]:
    from kafka import KafkaConsumer

    c = KafkaConsumer(topic, bootstrap_servers=[k.plaintext], auto_offset_reset="earliest",
                      enable_auto_commit=False, group_id=None)
    out: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < want and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=500).values():
                out.extend((r.key, r.value) for r in recs)
    finally:
        c.close()
    return out


def cell(spark: Any, options: dict[str, str], want: int) -> list[Any]:
    """The notebook cell: ``readStream.format("kafka")`` with the Kerberos
    options, ``foreachBatch`` collecting rows, until ``want`` rows arrived."""
    batches: list[Any] = []
    df_raw = spark.readStream.format("kafka").options(**options).load()
    query = df_raw.writeStream.foreachBatch(lambda df, _: batches.extend(df.collect())).outputMode("append").start()
    try:
        wait_for(f"{want} rows", lambda: len(batches) >= want or query.exception() is not None)
        assert query.exception() is None, query.exception()
    finally:
        query.stop()
    return batches


def authenticated(k: KerberizedKafka) -> list[str]:
    return re.findall(r"authenticationID=([^;\s]+);", k.broker_log())


def read_cell(spark: Any, k: KerberizedKafka, name: str, tls: bool = False) -> None:
    topic = new_topic(name)
    sent = produce_plain(k, topic, 6)
    rows = cell(spark, {**k.options(tls=tls), "subscribe": topic, "startingOffsets": "earliest"}, len(sent))
    assert sorted((bytes(r["key"]), bytes(r["value"])) for r in rows) == sorted(sent)
    assert {r["topic"] for r in rows} == {topic}


def eventstream_cell(spark: Any, emu: Any) -> list[Any]:
    """Fabric's cell, unmodified, on a fresh Eventstream; 5 events produced
    through the Custom HTTP source once the query runs."""
    return eventstream_rows(spark, emu, "kerberos")
