"""Java key and trust stores (JKS, PKCS12) as the PEM files kafka-python takes.

A notebook written for JVM Spark names its stores the Java way:
``kafka.ssl.truststore.location`` with ``kafka.ssl.truststore.type`` (``JKS``
when unset, Kafka's default, or ``PKCS12``) and ``kafka.ssl.truststore.password``;
``kafka.ssl.keystore.*`` and ``kafka.ssl.key.password`` for the client's key.
On Sail the driver-side client is kafka-python, which reads PEM files: the
stores are opened here (PKCS12 with ``cryptography``, JKS with ``pyjks``) and
their certificates and key written to files only this user reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from .options import KafkaOptionError


@dataclass
class KeyPair:
    """A client certificate chain and its unencrypted PKCS#8 key, as PEM."""

    chain_pem: str
    key_pem: str


def _read(path: str, opt: str, type_opt: str, stype: str, type_given: bool) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise KafkaOptionError(opt, f"option '{opt}': read {path}: {e.strerror}") from e
    if data.lstrip().startswith(b"-----BEGIN"):
        how = stype if type_given else "unset, so JKS (Kafka's default)"
        raise KafkaOptionError(type_opt, f"option '{type_opt}' is {how}, but '{opt}' is a PEM file; "
                                         f"set {type_opt}=PEM")
    return data


def _wrong(opt: str, stype: str, err: Exception) -> KafkaOptionError:
    text = str(err)
    if "password" in text.lower() or "digest" in text.lower() or "signature" in text.lower():
        return KafkaOptionError(opt, f"option '{opt}' does not open the {stype} store (wrong password)")
    return KafkaOptionError(opt, f"option '{opt}': open the {stype} store: {text} (is the file a {stype} store?)")


def _pem(der: bytes, kind: str) -> str:
    import base64
    import textwrap

    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"


def trusted_pem(path: str, stype: str, password: str, type_given: bool) -> str:
    """The trust store's trusted certificates as PEM."""
    opt, pw_opt = "kafka.ssl.truststore.location", "kafka.ssl.truststore.password"
    data = _read(path, opt, "kafka.ssl.truststore.type", stype, type_given)
    ders: list[bytes] = []
    if stype == "PKCS12":
        from cryptography.hazmat.primitives.serialization import Encoding, pkcs12

        try:
            p12 = pkcs12.load_pkcs12(data, password.encode())
        except ValueError as e:
            raise _wrong(pw_opt, stype, e) from e
        ders = [c.certificate.public_bytes(Encoding.DER) for c in p12.additional_certs]
    else:
        ks = _jks(data, password, pw_opt)
        ders = [c.cert for c in ks.certs.values()]
    if not ders:
        raise KafkaOptionError(opt, f"option '{opt}': the {stype} store holds no trusted certificate")
    return "".join(_pem(d, "CERTIFICATE") for d in ders)


def key_pair(path: str, stype: str, password: str, key_password: str, type_given: bool) -> KeyPair:
    """The key store's one private key and its chain as PEM."""
    opt, pw_opt = "kafka.ssl.keystore.location", "kafka.ssl.keystore.password"
    data = _read(path, opt, "kafka.ssl.keystore.type", stype, type_given)
    if stype == "PKCS12":
        from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, pkcs12

        if key_password != password:
            raise KafkaOptionError("kafka.ssl.key.password", "option 'kafka.ssl.key.password' differs from "
                                   "'kafka.ssl.keystore.password'; a PKCS12 store's key is opened with the store's password")
        try:
            key, cert, extra = pkcs12.load_key_and_certificates(data, password.encode())
        except ValueError as e:
            raise _wrong(pw_opt, stype, e) from e
        if key is None or cert is None:
            raise KafkaOptionError(opt, f"option '{opt}': the PKCS12 store holds no private key")
        chain = "".join(c.public_bytes(Encoding.PEM).decode() for c in [cert, *extra])
        return KeyPair(chain, key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode())
    ks = _jks(data, password, pw_opt)
    if len(ks.private_keys) != 1:
        raise KafkaOptionError(opt, f"option '{opt}' holds {len(ks.private_keys)} private keys "
                                    f"({', '.join(sorted(ks.private_keys))}); give a store with exactly one")
    alias, pk = next(iter(ks.private_keys.items()))
    if not pk.is_decrypted():
        try:
            pk.decrypt(key_password)
        except Exception as e:  # pyjks raises DecryptionFailureException
            raise KafkaOptionError("kafka.ssl.key.password",
                                   f"option 'kafka.ssl.key.password' does not open the key {alias!r}") from e
    return KeyPair("".join(_pem(der, "CERTIFICATE") for _, der in pk.cert_chain), _pem(pk.pkey_pkcs8, "PRIVATE KEY"))


def _jks(data: bytes, password: str, pw_opt: str):  # type: ignore[no-untyped-def]
    try:
        import jks
    except ImportError as e:
        raise KafkaOptionError(pw_opt, "JKS stores on Sail need pyjks (pip install pyjks; "
                                       "python/requirements-spark.txt pins it)") from e
    try:
        # try_decrypt_keys: keys whose password is the store's open here;
        # others wait for kafka.ssl.key.password.
        return jks.KeyStore.loads(data, password, try_decrypt_keys=True)
    except jks.util.KeystoreSignatureException as e:
        raise KafkaOptionError(pw_opt, f"option '{pw_opt}' does not open the JKS store (wrong password)") from e
    except Exception as e:  # a file that is not JKS: pyjks' BadKeystoreFormatException and friends
        raise _wrong(pw_opt, "JKS", e) from e
