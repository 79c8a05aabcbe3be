"""The notebook cell on JVM Spark against a Kerberized Apache Kafka (SASL
GSSAPI, a real MIT KDC, over ``SASL_PLAINTEXT`` and ``SASL_SSL``;
python/tests/kerberos_kafka.py): the same ``kafka.*``
options as on Sail (test_kerberos_sail.py), the realm's krb5.conf through
``spark.driver.extraJavaOptions=-Djava.security.krb5.conf=…``; spark-sql-kafka's
Java client logs in itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kerberos_kafka import CLIENT, KerberizedKafka, authenticated, eventstream_cell, java_options, read_cell

pytestmark = pytest.mark.jvm


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
               .config("spark.driver.extraJavaOptions", java_options(kerberized_kafka)).getOrCreate())
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


def test_jvm_cell_reads_kerberized_kafka(jvm: Any, kerberized_kafka: KerberizedKafka) -> None:
    before = len(authenticated(kerberized_kafka))
    read_cell(jvm, kerberized_kafka, "jvm")
    assert set(authenticated(kerberized_kafka)[before:]) == {CLIENT}


def test_jvm_cell_reads_kerberized_kafka_over_tls(jvm: Any, kerberized_kafka: KerberizedKafka) -> None:
    """``SASL_SSL``: the CA as ``kafka.ssl.truststore.type=PEM`` +
    ``kafka.ssl.truststore.location``, as on Sail."""
    before = len(authenticated(kerberized_kafka))
    read_cell(jvm, kerberized_kafka, "jvm-tls", tls=True)
    assert set(authenticated(kerberized_kafka)[before:]) == {CLIENT}


def test_jvm_eventstream_on_the_kerberized_cluster(jvm: Any, kerberos_emulator: Any,
                                                   kerberized_kafka: KerberizedKafka) -> None:
    """On JVM Spark the resolve's kafkaProperties (GSSAPI, the service name and
    the shared JAAS line) reach spark-sql-kafka, which logs in itself."""
    before = len(authenticated(kerberized_kafka))
    assert len(eventstream_cell(jvm, kerberos_emulator)) == 5
    assert CLIENT in authenticated(kerberized_kafka)[before:]
