"""Unit tests of how the adapter applies a secured cluster's settings (no
Spark, no emulator): the resolve route's ``kafkaProperties`` become Spark's
``kafka.*`` options on JVM Spark, the notebook's own ``kafka.*`` options win,
and the driver-side read on Sail turns inline PEM into kafka-python's files.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import pytest

from spark_agent.driver_consume import client_config
from spark_agent.emulator import Source
from spark_agent.eventstream_kafka import Agent
from spark_agent.options import KafkaOptionError, SourceOptions

CA = "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n"
CERT = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n"
KEY = "-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n"
JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";'

RESOLVED = {
    "itemId": "i", "datasourceId": "d", "bootstrapServers": "kafka:9093", "topic": "i.d",
    "securityProtocol": "SASL_SSL", "saslMechanism": "SCRAM-SHA-512", "credentialsShared": True,
    "kafkaProperties": {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": JAAS,
        "ssl.truststore.type": "PEM", "ssl.truststore.certificates": CA,
        "ssl.endpoint.identification.algorithm": "",
    },
}


def test_kafka_properties_become_spark_options() -> None:
    opts = Source.from_json(RESOLVED).kafka_options()
    assert opts["kafka.bootstrap.servers"] == "kafka:9093"
    assert opts["subscribe"] == "i.d"
    assert opts["kafka.security.protocol"] == "SASL_SSL"
    assert opts["kafka.sasl.mechanism"] == "SCRAM-SHA-512"
    assert opts["kafka.sasl.jaas.config"] == JAAS
    assert opts["kafka.ssl.truststore.type"] == "PEM"
    assert opts["kafka.ssl.truststore.certificates"] == CA
    assert opts["kafka.ssl.endpoint.identification.algorithm"] == ""


def test_plaintext_adds_nothing() -> None:
    opts = Source.from_json({"bootstrapServers": "b:1", "topic": "t", "securityProtocol": "PLAINTEXT"}).kafka_options()
    assert opts == {"kafka.bootstrap.servers": "b:1", "subscribe": "t"}


class _Client:
    url = "http://emulator"

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def resolve(self, item_id: str, datasource_id: str) -> Source:
        return Source.from_json(self.body)


def test_notebook_options_win_over_the_resolve() -> None:
    body = dict(RESOLVED, credentialsShared=False,
                kafkaProperties={k: v for k, v in RESOLVED["kafkaProperties"].items() if k != "sasl.jaas.config"})
    agent = Agent(None, _Client(body), "jvm")  # type: ignore[arg-type]
    mine = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="me" password="mine";'
    out = agent.rewrite(SourceOptions({"eventstream.itemid": "i", "eventstream.datasourceid": "d",
                                       "kafka.SASL.jaas.config": mine}))
    assert out is not None
    assert out["kafka.SASL.jaas.config"] == mine and "kafka.sasl.jaas.config" not in out
    assert out["kafka.bootstrap.servers"] == "kafka:9093"
    assert out["kafka.ssl.truststore.certificates"] == CA


def test_sail_client_writes_inline_pem_to_private_files() -> None:
    cfg = client_config({
        "bootstrap.servers": "b:1", "security.protocol": "SSL",
        "ssl.truststore.type": "PEM", "ssl.truststore.certificates": CA,
        "ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": CERT, "ssl.keystore.key": KEY,
        "ssl.endpoint.identification.algorithm": "",
    }, {"security_protocol": "PLAINTEXT", "ssl_cafile": None}, "read")
    assert cfg["security_protocol"] == "SSL"
    assert cfg["ssl_check_hostname"] is False
    for key, text in (("ssl_cafile", CA), ("ssl_certfile", CERT), ("ssl_keyfile", KEY)):
        with open(cfg[key]) as f:
            assert f.read() == text
        assert stat.S_IMODE(os.stat(cfg[key]).st_mode) == 0o600


def test_sail_client_keystore_file_and_refusals() -> None:
    cfg = client_config({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/x/client.pem"}, {}, "read")
    assert cfg["ssl_certfile"] == cfg["ssl_keyfile"] == "/x/client.pem"
    with pytest.raises(KafkaOptionError, match="kafka.ssl.keystore.type"):
        client_config({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/x.p12"}, {}, "read")
    with pytest.raises(KafkaOptionError, match="kafka.ssl.keystore.key"):
        client_config({"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": CERT}, {}, "read")
    with pytest.raises(KafkaOptionError, match="kafka.ssl.truststore.type"):
        client_config({"ssl.truststore.type": "JKS", "ssl.truststore.certificates": CA}, {}, "read")
