"""Java stores made as a Java-minded team makes them: keytool for JKS and
PKCS12 trust stores, openssl then keytool for key stores."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

PASSWORD, KEY_PASSWORD = "store-secret", "key-secret"


@dataclass
class Stores:
    trust_jks: Path
    trust_p12: Path
    key_p12: Path  # written by keytool from openssl's export
    key_jks: Path  # its key entry has KEY_PASSWORD


def _run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=120)


def make_trust_stores(ca: Path, d: Path) -> tuple[Path, Path]:
    """A JKS and a PKCS12 trust store holding the CA at ``ca`` (PEM)."""
    out = []
    for stype, name in (("JKS", "trust.jks"), ("PKCS12", "trust.p12")):
        _run("keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", str(ca),
             "-keystore", str(d / name), "-storetype", stype, "-storepass", PASSWORD)
        out.append(d / name)
    return out[0], out[1]


def make_stores(ca: Path, cert: Path, key: Path, d: Path) -> Stores:
    """Trust stores for ``ca`` and key stores for the client ``cert`` and ``key`` (PEM files)."""
    trust_jks, trust_p12 = make_trust_stores(ca, d)
    exported = d / "client-openssl.p12"
    _run("openssl", "pkcs12", "-export", "-in", str(cert), "-inkey", str(key), "-certfile", str(ca),
         "-name", "client", "-out", str(exported), "-passout", "pass:" + PASSWORD)
    for stype, name, extra in (("PKCS12", "client.p12", ()), ("JKS", "client.jks", ("-destkeypass", KEY_PASSWORD))):
        _run("keytool", "-importkeystore", "-noprompt", "-srckeystore", str(exported), "-srcstoretype", "PKCS12",
             "-srcstorepass", PASSWORD, "-srcalias", "client", "-destkeystore", str(d / name),
             "-deststoretype", stype, "-deststorepass", PASSWORD, *extra)
    return Stores(trust_jks, trust_p12, d / "client.p12", d / "client.jks")
