"""The notebook cell on Sail against a Kerberized Apache Kafka (SASL GSSAPI, a
real MIT KDC, over ``SASL_PLAINTEXT`` and ``SASL_SSL``; python/tests/kerberos_kafka.py), with the ``kafka.*`` options a
JVM Spark notebook sets (test_kerberos_jvm.py runs the same cell there).

The session carries ``spark.driver.extraJavaOptions=-Djava.security.krb5.conf=…``
and ``KRB5_CONFIG`` is unset: the adapter points MIT Kerberos at that file.
kafka-python logs in with ``gssapi`` as the JAAS line's principal
(python/spark_agent/kerberos.py). Records are produced and checked through the
broker's PLAINTEXT listener, so each test sees only what Sail did over GSSAPI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kerberos_kafka import (
    CLIENT,
    REALM,
    SERVICE,
    KerberizedKafka,
    authenticated,
    consume_plain,
    eventstream_cell,
    java_options,
    merge_keytabs,
    new_topic,
    produce_plain,
    read_cell,
    write_keytab,
)

from spark_agent.options import KafkaOptionError

pytestmark = pytest.mark.sail


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
               .config("spark.driver.extraJavaOptions", java_options(kerberized_kafka)).getOrCreate())
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


def test_sail_cell_reads_kerberized_kafka(sail: Any, kerberized_kafka: KerberizedKafka) -> None:
    before = len(authenticated(kerberized_kafka))
    read_cell(sail, kerberized_kafka, "sail")
    assert set(authenticated(kerberized_kafka)[before:]) == {CLIENT}
    assert "KRB5CCNAME" not in os.environ and "KRB5_CLIENT_KTNAME" not in os.environ, "the login leaked"


def test_sail_cell_reads_kerberized_kafka_over_tls(sail: Any, kerberized_kafka: KerberizedKafka) -> None:
    """The same cell over ``SASL_SSL``: GSSAPI on the broker's TLS listener, the
    CA as ``kafka.ssl.truststore.type=PEM`` + ``kafka.ssl.truststore.location``."""
    before = len(authenticated(kerberized_kafka))
    read_cell(sail, kerberized_kafka, "sail-tls", tls=True)
    assert set(authenticated(kerberized_kafka)[before:]) == {CLIENT}


@pytest.mark.parametrize("tls", [False, True], ids=["sasl_plaintext", "sasl_ssl"])
def test_sail_batch_write_then_read(sail: Any, kerberized_kafka: KerberizedKafka, tls: bool) -> None:
    """``write.format("kafka")`` over GSSAPI, then a batch read over GSSAPI; the
    PLAINTEXT listener sees the same records."""
    k = kerberized_kafka
    topic = new_topic("write")
    rows = [(f"w{i}", f"value {i}") for i in range(5)]
    sail.createDataFrame(rows, "key string, value string").write.format("kafka").options(
        **k.options(tls=tls)).option("topic", topic).save()
    want = sorted((a.encode(), b.encode()) for a, b in rows)
    assert sorted(consume_plain(k, topic, len(rows))) == want
    back = sail.read.format("kafka").options(**k.options(tls=tls)).option("subscribe", topic).load().collect()
    assert sorted((bytes(r["key"]), bytes(r["value"])) for r in back) == want


def test_sail_logs_in_as_the_jaas_principal(sail: Any, kerberized_kafka: KerberizedKafka, tmp_path: Path) -> None:
    """A keytab holding two principals: the one the JAAS line names is the one
    the broker authenticates, whichever comes first in the keytab."""
    k = kerberized_kafka
    both = merge_keytabs(tmp_path / "both.keytab", k.dir / "kafka_localhost.keytab", k.client_keytab)
    topic = new_topic("who")
    produce_plain(k, topic, 2)
    for principal in (CLIENT, f"kafka/localhost@{REALM}"):
        before = len(authenticated(k))
        got = (sail.read.format("kafka").options(**k.options(principal=principal, keytab=both))
               .option("subscribe", topic).load().collect())
        assert len(got) == 2
        assert set(authenticated(k)[before:]) == {principal}


@pytest.mark.parametrize("tls", [False, True], ids=["sasl_plaintext", "sasl_ssl"])
def test_sail_names_an_address_literal_broker_like_the_java_client(sail: Any, kerberized_kafka: KerberizedKafka,
                                                                   tls: bool) -> None:
    """``kafka.bootstrap.servers=127.0.0.1:<port>``: the Java client asks for the
    service principal of the host the address resolves back to
    (``kafka/localhost``), and so does the adapter (over TLS too, whose
    certificate names both)."""
    k = kerberized_kafka
    topic = new_topic("literal")
    produce_plain(k, topic, 3)
    opts = k.options(tls=tls)
    opts["kafka.bootstrap.servers"] = opts["kafka.bootstrap.servers"].replace("localhost", "127.0.0.1")
    assert len(sail.read.format("kafka").options(**opts).option("subscribe", topic).load().collect()) == 3


# -- refusals, naming the option --------------------------------------------------------------

def _sail_read(sail: Any, k: KerberizedKafka, **kw: Any) -> Any:
    opts = k.options(**{a: b for a, b in kw.items() if a in ("principal", "keytab", "extra")})
    opts.update(kw.get("override", {}))
    return sail.read.format("kafka").options(**opts).option("subscribe", "krb-refusals").load().collect()


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


# -- the Eventstream path: the emulator bound to the Kerberized broker ------------------------------

def test_sail_eventstream_on_the_kerberized_cluster(sail: Any, kerberos_emulator: Any,
                                                    kerberized_kafka: KerberizedKafka) -> None:
    """On Sail the pair is read through the emulator's consume route, over the
    emulator's own Kerberos login."""
    r = kerberos_emulator.resolve(kerberos_emulator.create_eventstream(
        kerberos_emulator.create_workspace("resolve"), "r"))
    assert r["kafkaProperties"]["sasl.mechanism"] == "GSSAPI"
    assert r["kafkaProperties"]["sasl.kerberos.service.name"] == SERVICE
    assert len(eventstream_cell(sail, kerberos_emulator)) == 5
