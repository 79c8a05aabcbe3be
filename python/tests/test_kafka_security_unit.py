"""Unit tests of how the adapter applies a secured cluster's settings (no
Spark, no emulator): the resolve route's ``kafkaProperties`` become Spark's
``kafka.*`` options on JVM Spark, the notebook's own ``kafka.*`` options win,
and the driver-side read on Sail turns inline PEM into kafka-python's files.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from java_store_files import KEY_PASSWORD, PASSWORD, Stores, make_stores

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
    with pytest.raises(KafkaOptionError, match="kafka.ssl.keystore.password' is required to open a PKCS12 store"):
        client_config({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/x.p12"}, {}, "read")
    with pytest.raises(KafkaOptionError, match="'BKS' is not PEM, JKS or PKCS12"):
        client_config({"ssl.keystore.type": "BKS", "ssl.keystore.location": "/x.bks"}, {}, "read")
    with pytest.raises(KafkaOptionError, match="kafka.ssl.keystore.key"):
        client_config({"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": CERT}, {}, "read")
    with pytest.raises(KafkaOptionError, match="kafka.ssl.truststore.type"):
        client_config({"ssl.truststore.type": "JKS", "ssl.truststore.certificates": CA}, {}, "read")


# -- Java stores (JKS, PKCS12) on Sail: opened and handed to kafka-python as PEM files --------

def _pki(d: Path) -> tuple[Path, Path, Path, Any, Any]:
    """A CA and a client certificate it signs, as PEM files: (ca, cert, key, ca_cert, client_cert)."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.timezone.utc)

    def cert(subject: str, key: Any, signer: Any, ca: bool) -> x509.Certificate:
        return (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "stores CA")]))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .sign(signer, hashes.SHA256()))

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca, leaf = cert("stores CA", ca_key, ca_key, True), cert("client", key, ca_key, False)
    pem = serialization.Encoding.PEM
    (d / "ca.pem").write_bytes(ca.public_bytes(pem))
    (d / "client.pem").write_bytes(leaf.public_bytes(pem))
    (d / "client-key.pem").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    return d / "ca.pem", d / "client.pem", d / "client-key.pem", ca, leaf


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Stores, Path, Any, Any]:
    d = tmp_path_factory.mktemp("stores")
    ca, cert, key, ca_cert, leaf = _pki(d)
    return make_stores(ca, cert, key, d), ca, ca_cert, leaf


@pytest.mark.parametrize("kind", ["JKS by default", "JKS", "PKCS12"])
def test_sail_client_reads_java_trust_stores(stores: tuple[Stores, Path, Any, Any], kind: str) -> None:
    st, ca, _, _ = stores
    params = {"ssl.truststore.location": str(st.trust_p12 if kind == "PKCS12" else st.trust_jks),
              "ssl.truststore.password": PASSWORD}
    if kind != "JKS by default":
        params["ssl.truststore.type"] = kind
    cfg = client_config(params, {}, "read")
    with open(cfg["ssl_cafile"]) as f:
        assert f.read() == ca.read_text()
    assert stat.S_IMODE(os.stat(cfg["ssl_cafile"]).st_mode) == 0o600


@pytest.mark.parametrize("kind", ["PKCS12", "JKS with a key password"])
def test_sail_client_reads_java_key_stores(stores: tuple[Stores, Path, Any, Any], kind: str) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key

    st, _, ca_cert, leaf = stores
    params = {"ssl.keystore.password": PASSWORD}
    if kind == "PKCS12":
        params.update({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(st.key_p12)})
    else:
        params.update({"ssl.keystore.location": str(st.key_jks), "ssl.key.password": KEY_PASSWORD})
    cfg = client_config(params, {}, "read")
    with open(cfg["ssl_certfile"], "rb") as f:
        chain = x509.load_pem_x509_certificates(f.read())
    assert chain == [leaf, ca_cert]
    with open(cfg["ssl_keyfile"], "rb") as f:
        key = load_pem_private_key(f.read(), None)
    spki = (Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    assert key.public_key().public_bytes(*spki) == leaf.public_key().public_bytes(*spki)
    assert "ssl_password" not in cfg


def test_sail_client_java_store_refusals(stores: tuple[Stores, Path, Any, Any]) -> None:
    st, ca, _, _ = stores
    cases = [
        ({"ssl.truststore.location": str(st.trust_jks), "ssl.truststore.password": "nope"},
         "kafka.ssl.truststore.password' does not open the JKS store (wrong password)"),
        ({"ssl.truststore.type": "PKCS12", "ssl.truststore.location": str(st.trust_p12), "ssl.truststore.password": "nope"},
         "kafka.ssl.truststore.password' does not open the PKCS12 store (wrong password)"),
        ({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(st.key_p12), "ssl.keystore.password": "nope"},
         "kafka.ssl.keystore.password' does not open the PKCS12 store (wrong password)"),
        ({"ssl.keystore.location": str(st.key_jks), "ssl.keystore.password": PASSWORD},
         "kafka.ssl.key.password' does not open the key 'client'"),
        ({"ssl.truststore.location": str(ca), "ssl.truststore.password": PASSWORD},
         "is unset, so JKS (Kafka's default), but 'kafka.ssl.truststore.location' is a PEM file"),
        ({"ssl.truststore.location": str(st.trust_jks)}, "kafka.ssl.truststore.password' is required to open a JKS store"),
        ({"ssl.truststore.location": "/nonexistent/trust.jks", "ssl.truststore.password": PASSWORD},
         "kafka.ssl.truststore.location': read /nonexistent/trust.jks"),
        ({"ssl.keystore.password": PASSWORD}, "kafka.ssl.keystore.password' is set without 'kafka.ssl.keystore.location'"),
        ({"ssl.keystore.location": str(st.trust_jks), "ssl.keystore.password": PASSWORD},
         "holds 0 private keys"),
    ]
    for params, says in cases:
        with pytest.raises(KafkaOptionError, match=re.escape(says)):
            client_config(params, {}, "read")


# -- Kerberos (GSSAPI) on Sail: what is checked before any KDC is asked -------------------------

def _krb_params(tmp_path: Path, jaas: str | None = None, **over: str) -> dict[str, str]:
    from kerberos_kafka import write_keytab

    kt = write_keytab(tmp_path / "client.keytab", "client@EXAMPLE.TEST")
    p = {"bootstrap.servers": "broker.example.test:9092", "security.protocol": "SASL_PLAINTEXT",
         "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
         "sasl.jaas.config": jaas if jaas is not None else
         ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
          f'keyTab="{kt}" principal="client@EXAMPLE.TEST";')}
    p.update(over)
    return {k: v for k, v in p.items() if v != "-"}


def test_sail_gssapi_options_become_kafka_python_settings(tmp_path: Path) -> None:
    from kafka import KafkaConsumer

    params = _krb_params(tmp_path, **{"sasl.kerberos.min.time.before.relogin": "60000",
                                      "sasl.kerberos.ticket.renew.window.factor": "0.8"})
    cfg = client_config(params, KafkaConsumer.DEFAULT_CONFIG, "read")
    assert cfg["sasl_mechanism"] == "GSSAPI" and cfg["security_protocol"] == "SASL_PLAINTEXT"
    assert cfg["sasl_kerberos_service_name"] == "kafka"
    assert not any(k.startswith("sasl_plain") for k in cfg)
    # serviceName in the JAAS line stands in for the option, as in the Java client
    jaas = params["sasl.jaas.config"].replace("storeKey=true", 'storeKey=true serviceName="kafka-svc"')
    cfg = client_config(_krb_params(tmp_path, jaas, **{"sasl.kerberos.service.name": "-"}),
                        KafkaConsumer.DEFAULT_CONFIG, "read")
    assert cfg["sasl_kerberos_service_name"] == "kafka-svc"
    # a principal without its realm matches the keytab's entry of that name
    cfg = client_config(_krb_params(tmp_path, jaas.replace("client@EXAMPLE.TEST", "client"),
                                    **{"sasl.kerberos.service.name": "-"}), KafkaConsumer.DEFAULT_CONFIG, "read")
    assert cfg["sasl_kerberos_service_name"] == "kafka-svc"


def test_sail_gssapi_refusals_before_the_kdc(tmp_path: Path) -> None:
    good = _krb_params(tmp_path)["sasl.jaas.config"]
    cases = [
        ({"sasl.mechanism": "PLAIN"}, "kafka.sasl.mechanism", "is a Krb5LoginModule line, which needs"),
        ({"security.protocol": "SSL"}, "kafka.security.protocol", "SASL_PLAINTEXT or SASL_SSL (got SSL)"),
        ({"sasl.jaas.config": "-"}, "kafka.sasl.jaas.config", "is required for GSSAPI on Sail"),
        ({"sasl.jaas.config": good.replace("useKeyTab=true", "useKeyTab=false")}, "kafka.sasl.jaas.config",
         "logs in from a keytab only"),
        ({"sasl.jaas.config": re.sub(r'keyTab="[^"]*" ', "", good)}, "kafka.sasl.jaas.config",
         'useKeyTab=true needs keyTab="<file>"'),
        ({"sasl.jaas.config": good.replace(' principal="client@EXAMPLE.TEST"', "")}, "kafka.sasl.jaas.config",
         "principal=\"<name>@<REALM>\" is required"),
        ({"sasl.jaas.config": good.replace("client@EXAMPLE.TEST", "client@OTHER.TEST")}, "kafka.sasl.jaas.config",
         "holds no key for principal client@OTHER.TEST (it holds client@EXAMPLE.TEST)"),
        ({"sasl.jaas.config": good.rstrip(";")}, "kafka.sasl.jaas.config", "must end with ';'"),
        ({"sasl.jaas.config": good.replace("org.apache", "x").replace("com.sun.security.auth.module.Krb5LoginModule",
                                                                      "Krb5LoginModule")},
         None, None),  # the short module name is the same module
        ({"sasl.kerberos.service.name": "-"}, "kafka.sasl.kerberos.service.name",
         "No serviceName defined in either JAAS or Kafka config"),
    ]
    for over, option, says in cases:
        params = _krb_params(tmp_path, **over)
        if option is None:
            client_config(params, {"sasl_mechanism": None, "security_protocol": "PLAINTEXT",
                                   "sasl_kerberos_service_name": "kafka"}, "read")
            continue
        with pytest.raises(KafkaOptionError) as info:
            client_config(params, {"sasl_mechanism": None, "security_protocol": "PLAINTEXT"}, "read")
        assert info.value.option == option and says in str(info.value), (over, str(info.value))


def test_sail_gssapi_without_the_gssapi_package_says_how_to_install(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "gssapi", None)  # import gssapi raises ImportError
    with pytest.raises(KafkaOptionError) as info:
        client_config(_krb_params(tmp_path), {"sasl_mechanism": None, "security_protocol": "PLAINTEXT"}, "read")
    assert info.value.option == "kafka.sasl.mechanism"
    assert "needs the gssapi Python package" in str(info.value)
    assert "pip install gssapi==1.12.0" in str(info.value) and "libkrb5-dev" in str(info.value)


def test_sail_krb5_conf_comes_from_krb5_config_or_the_jvm_option(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_agent import kerberos

    conf = tmp_path / "krb5.conf"
    conf.write_text("[libdefaults]\n")
    java = f"-Xmx1g -Dfoo='a b' -Djava.security.krb5.conf={conf} -Dbar=1"
    assert kerberos.java_krb5_conf(java) == str(conf)
    assert kerberos.java_krb5_conf("-Dx=1") is None and kerberos.java_krb5_conf(None) is None
    monkeypatch.delenv("KRB5_CONFIG", raising=False)
    assert kerberos.krb5_conf(java) == (str(conf), f"-Djava.security.krb5.conf={conf} in "
                                                    f"spark.driver.extraJavaOptions")
    assert kerberos.krb5_conf(None)[0] is None and "/etc/krb5.conf" in kerberos.krb5_conf(None)[1]
    with pytest.raises(KafkaOptionError) as info:
        kerberos.krb5_conf("-Djava.security.krb5.conf=/nonexistent/krb5.conf")
    assert info.value.option == "spark.driver.extraJavaOptions"
    monkeypatch.setenv("KRB5_CONFIG", "/etc/mine.conf")  # the environment wins, as MIT reads it
    assert kerberos.krb5_conf(java) == ("/etc/mine.conf", "KRB5_CONFIG=/etc/mine.conf")


def test_keytab_principals_and_jaas_lines(tmp_path: Path) -> None:
    from kerberos_kafka import merge_keytabs, write_keytab

    from spark_agent.kerberos import keytab_principals, parse_jaas

    a = write_keytab(tmp_path / "a.keytab", "kafka/broker.example.test@EXAMPLE.TEST")
    b = write_keytab(tmp_path / "b.keytab", "client@EXAMPLE.TEST")
    assert keytab_principals(str(merge_keytabs(tmp_path / "ab.keytab", a, b))) == [
        "kafka/broker.example.test@EXAMPLE.TEST", "client@EXAMPLE.TEST"]
    (tmp_path / "other").write_bytes(b"\x05\x01rest")
    assert keytab_principals(str(tmp_path / "other")) is None
    module, opts = parse_jaas('com.sun.security.auth.module.Krb5LoginModule required\n  useKeyTab=true '
                              'keyTab="/a b/c.keytab" principal = "x/y@R" debug=false;')
    assert module == "com.sun.security.auth.module.Krb5LoginModule"
    assert opts == {"useKeyTab": "true", "keyTab": "/a b/c.keytab", "principal": "x/y@R", "debug": "false"}
    with pytest.raises(KafkaOptionError, match="cannot read"):
        parse_jaas('Krb5LoginModule required keyTab="/x" !!;')


def test_kerberos_login_is_a_no_op_for_other_mechanisms() -> None:
    from spark_agent import kerberos

    before = dict(os.environ)
    with kerberos.login({"bootstrap.servers": "b:1", "sasl.mechanism": "PLAIN"}, ["b:1"]) as lg:
        assert lg is None
    assert dict(os.environ) == before


def test_kerberos_environment_holds_one_identity_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables MIT reads are process-wide: clients of one identity share
    them, a client of another waits until the last of those closes, and the
    user's own values come back."""
    import threading

    from spark_agent import kerberos

    monkeypatch.setenv("KRB5CCNAME", "FILE:/users/own/cache")
    monkeypatch.delenv("KRB5_CLIENT_KTNAME", raising=False)
    a, b = ("a@R", "/a.keytab", ""), ("b@R", "/b.keytab", "")
    order: list[str] = []
    with kerberos._environment(a, {"KRB5CCNAME": "FILE:/x/a", "KRB5_CLIENT_KTNAME": "/a.keytab"}):
        with kerberos._environment(a, {"KRB5CCNAME": "FILE:/x/a", "KRB5_CLIENT_KTNAME": "/a.keytab"}):
            assert os.environ["KRB5CCNAME"] == "FILE:/x/a"
        with pytest.raises(KafkaOptionError, match="still open in this thread"):
            with kerberos._environment(b, {"KRB5CCNAME": "FILE:/x/b"}):
                pass

        def other() -> None:
            with kerberos._environment(b, {"KRB5CCNAME": "FILE:/x/b", "KRB5_CLIENT_KTNAME": "/b.keytab"}):
                order.append("b:" + os.environ["KRB5CCNAME"])

        t = threading.Thread(target=other)
        t.start()
        t.join(0.3)
        assert t.is_alive() and order == []  # b waits while a's client is open
        order.append("a:" + os.environ["KRB5CCNAME"])
    t.join(5)
    assert order == ["a:FILE:/x/a", "b:FILE:/x/b"]
    assert os.environ["KRB5CCNAME"] == "FILE:/users/own/cache" and "KRB5_CLIENT_KTNAME" not in os.environ
