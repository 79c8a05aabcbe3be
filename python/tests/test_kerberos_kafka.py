"""The notebook cell against a Kerberized Apache Kafka (SASL GSSAPI, a real MIT
KDC), on Sail and on JVM Spark with the same ``kafka.*`` options.

The session carries ``spark.driver.extraJavaOptions=-Djava.security.krb5.conf=…``:
JVM Spark's Kafka client reads the realm's KDC from it, and the Sail adapter
points MIT Kerberos at the same file (``KRB5_CONFIG`` unset). The cell's JAAS
line is a ``Krb5LoginModule`` keytab login; on Sail kafka-python logs in with
``gssapi`` (python/spark_agent/kerberos.py). Records are produced and checked
through the broker's PLAINTEXT listener, so each test sees only what the engine
under test did over GSSAPI.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kerberos_kafka import CLIENT, REALM, KerberizedKafka, merge_keytabs, write_keytab

from spark_agent.options import KafkaOptionError


def _java_options(k: KerberizedKafka) -> str:
    return f"-Djava.security.krb5.conf={k.krb5_conf}"


def _topic(name: str) -> str:
    return f"krb-{name}-{uuid.uuid4().hex[:8]}"


def _produce_plain(k: KerberizedKafka, topic: str, n: int) -> list[tuple[bytes, bytes]]:
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


def _consume_plain(k: KerberizedKafka, topic: str, want: int, timeout: float = 60) -> list[tuple[bytes, bytes]]:
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


def _wait(what: str, cond: Callable[[], bool], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def _cell(spark: Any, options: dict[str, str], want: int) -> list[Any]:
    """The notebook cell: ``readStream.format("kafka")`` with the Kerberos
    options, ``foreachBatch`` collecting rows, until ``want`` rows arrived."""
    batches: list[Any] = []
    df_raw = spark.readStream.format("kafka").options(**options).load()
    query = df_raw.writeStream.foreachBatch(lambda df, _: batches.extend(df.collect())).outputMode("append").start()
    try:
        _wait(f"{want} rows", lambda: len(batches) >= want or query.exception() is not None)
        assert query.exception() is None, query.exception()
    finally:
        query.stop()
    return batches


def _authenticated(k: KerberizedKafka) -> list[str]:
    return re.findall(r"authenticationID=([^;\s]+);", k.broker_log())


# -- sessions -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sail(kerberized_kafka: KerberizedKafka) -> Iterator[Any]:
    """A Sail session whose conf names the realm's krb5.conf the JVM way."""
    from pysail.spark import SparkConnectServer
    from pyspark.sql import SparkSession

    from spark_agent import install

    # The tests check that the JVM option alone points MIT at krb5.conf.
    own_krb5_config = os.environ.pop("KRB5_CONFIG", None)
    server = SparkConnectServer("127.0.0.1", 0)
    server.start(background=True)
    _, port = server.listening_address
    session = (SparkSession.builder.remote(f"sc://127.0.0.1:{port}")
               .config("spark.driver.extraJavaOptions", _java_options(kerberized_kafka)).getOrCreate())
    install(session, "http://127.0.0.1:9", "unused: these reads name kafka.bootstrap.servers")
    try:
        yield session
    finally:
        session.stop()
        server.stop()
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        os.environ.pop("SPARK_REMOTE", None)
        if own_krb5_config is not None:
            os.environ["KRB5_CONFIG"] = own_krb5_config


@pytest.fixture(scope="module")
def jvm(kerberized_kafka: KerberizedKafka) -> Iterator[Any]:
    from pyspark import SparkContext

    from spark_agent import install
    from spark_agent.jvm import INSTALL_HINT, session_builder

    try:
        builder = session_builder("local[1]")
    except FileNotFoundError as e:
        pytest.fail(f"{e} ({INSTALL_HINT})", pytrace=False)
    launched = SparkContext._gateway is not None
    session = (builder.config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", _java_options(kerberized_kafka)).getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    if launched:
        # An earlier test of this process launched the JVM, whose options are
        # fixed; set the property the option would have set (no Kerberos has
        # run in it, so the JDK reads krb5.conf at its first login).
        session._jvm.java.lang.System.setProperty("java.security.krb5.conf", str(kerberized_kafka.krb5_conf))
    install(session, "http://127.0.0.1:9", "unused")
    try:
        yield session
    finally:
        for q in session.streams.active:
            q.stop()
        session.stop()


# -- the cell on both engines -------------------------------------------------------------

def _read_cell(spark: Any, k: KerberizedKafka, name: str) -> None:
    topic = _topic(name)
    sent = _produce_plain(k, topic, 6)
    rows = _cell(spark, {**k.options(), "subscribe": topic, "startingOffsets": "earliest"}, len(sent))
    assert sorted((bytes(r["key"]), bytes(r["value"])) for r in rows) == sorted(sent)
    assert {r["topic"] for r in rows} == {topic}


@pytest.mark.sail
def test_sail_cell_reads_kerberized_kafka(sail: Any, kerberized_kafka: KerberizedKafka) -> None:
    before = len(_authenticated(kerberized_kafka))
    _read_cell(sail, kerberized_kafka, "sail")
    assert set(_authenticated(kerberized_kafka)[before:]) == {CLIENT}
    assert "KRB5CCNAME" not in os.environ and "KRB5_CLIENT_KTNAME" not in os.environ, "the login leaked"


@pytest.mark.jvm
def test_jvm_cell_reads_kerberized_kafka(jvm: Any, kerberized_kafka: KerberizedKafka) -> None:
    before = len(_authenticated(kerberized_kafka))
    _read_cell(jvm, kerberized_kafka, "jvm")
    assert set(_authenticated(kerberized_kafka)[before:]) == {CLIENT}


@pytest.mark.sail
def test_sail_batch_write_then_read(sail: Any, kerberized_kafka: KerberizedKafka) -> None:
    """``write.format("kafka")`` over GSSAPI, then a batch read over GSSAPI; the
    PLAINTEXT listener sees the same records."""
    k = kerberized_kafka
    topic = _topic("write")
    rows = [(f"w{i}", f"value {i}") for i in range(5)]
    sail.createDataFrame(rows, "key string, value string").write.format("kafka").options(
        **k.options()).option("topic", topic).save()
    want = sorted((a.encode(), b.encode()) for a, b in rows)
    assert sorted(_consume_plain(k, topic, len(rows))) == want
    back = sail.read.format("kafka").options(**k.options()).option("subscribe", topic).load().collect()
    assert sorted((bytes(r["key"]), bytes(r["value"])) for r in back) == want


@pytest.mark.sail
def test_sail_logs_in_as_the_jaas_principal(sail: Any, kerberized_kafka: KerberizedKafka, tmp_path: Path) -> None:
    """A keytab holding two principals: the one the JAAS line names is the one
    the broker authenticates, whichever comes first in the keytab."""
    k = kerberized_kafka
    both = merge_keytabs(tmp_path / "both.keytab", k.dir / "kafka_localhost.keytab", k.client_keytab)
    topic = _topic("who")
    _produce_plain(k, topic, 2)
    for principal in (CLIENT, f"kafka/localhost@{REALM}"):
        before = len(_authenticated(k))
        got = (sail.read.format("kafka").options(**k.options(principal=principal, keytab=both))
               .option("subscribe", topic).load().collect())
        assert len(got) == 2
        assert set(_authenticated(k)[before:]) == {principal}


# -- refusals, naming the option --------------------------------------------------------------

def _sail_read(sail: Any, k: KerberizedKafka, **kw: Any) -> Any:
    opts = k.options(**{a: b for a, b in kw.items() if a in ("principal", "keytab", "extra")})
    opts.update(kw.get("override", {}))
    return sail.read.format("kafka").options(**opts).option("subscribe", "krb-refusals").load().collect()


@pytest.mark.sail
def test_sail_refusals_name_the_option(sail: Any, kerberized_kafka: KerberizedKafka, tmp_path: Path) -> None:
    k = kerberized_kafka
    ghost = write_keytab(tmp_path / "ghost.keytab", f"ghost@{REALM}")
    stale = write_keytab(tmp_path / "stale.keytab", CLIENT, kvno=9)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"keytab": tmp_path / "missing.keytab"}, "kafka.sasl.jaas.config",
         f"keyTab {tmp_path / 'missing.keytab'}: No such file or directory"),
        ({"principal": f"other@{REALM}"}, "kafka.sasl.jaas.config",
         f"holds no key for principal other@{REALM} (it holds {CLIENT})"),
        ({"principal": f"ghost@{REALM}", "keytab": ghost}, "kafka.sasl.jaas.config",
         f"the KDC does not know principal ghost@{REALM}"),
        ({"keytab": stale}, "kafka.sasl.jaas.config", "the KDC refused the key keyTab holds"),
        ({"override": {"kafka.sasl.kerberos.service.name": "nosuch"}}, "kafka.sasl.kerberos.service.name",
         "the KDC has no service principal nosuch/localhost"),
        ({"override": {"kafka.sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required "
                                                 "useTicketCache=true;"}},
         "kafka.sasl.jaas.config", "logs in from a keytab only; a ticket cache (useTicketCache=true)"),
        ({"extra": ' serviceName="other"'}, "kafka.sasl.kerberos.service.name",
         "Conflicting serviceName values found in JAAS and Kafka configs"),
    ]
    for kw, option, says in cases:
        with pytest.raises(Exception) as info:
            _sail_read(sail, k, **kw)
        err = info.value
        while not isinstance(err, KafkaOptionError) and err.__cause__ is not None:
            err = err.__cause__
        assert isinstance(err, KafkaOptionError), f"{kw}: {info.value!r}"
        assert err.option == option and option in str(err), f"{kw}: {err}"
        assert says in str(err), f"{kw}: {err}"
    assert "KRB5CCNAME" not in os.environ, "a failed login leaked its environment"
