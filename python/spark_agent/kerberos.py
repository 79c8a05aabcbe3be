"""Kerberos (SASL GSSAPI) for the driver-side Kafka clients on Sail.

A notebook written for JVM Spark logs in to a Kerberized cluster with::

    kafka.security.protocol   = SASL_PLAINTEXT | SASL_SSL
    kafka.sasl.mechanism      = GSSAPI
    kafka.sasl.kerberos.service.name = kafka        (or serviceName="kafka" in the JAAS line)
    kafka.sasl.jaas.config    = com.sun.security.auth.module.Krb5LoginModule required
                                useKeyTab=true storeKey=true keyTab="/path/client.keytab"
                                principal="client@REALM";

and the JVM finds the realm's KDC through ``-Djava.security.krb5.conf=<path>``
(``spark.driver.extraJavaOptions``). On Sail the client is kafka-python, whose
GSSAPI mechanism asks MIT Kerberos (the ``gssapi`` package) for the default
initiator credential. So that this credential is the JAAS line's principal
and nothing else, a client is built inside :func:`login`, which points MIT at

* ``KRB5_CLIENT_KTNAME`` — the ``keyTab`` (MIT gets and renews tickets from it),
* ``KRB5CCNAME`` — a credential cache of this process, one per principal,
  keytab and krb5.conf (the user's own cache is never read or written),
* ``KRB5_CONFIG`` — when unset in the environment and the session's
  ``spark.driver.extraJavaOptions`` carries ``-Djava.security.krb5.conf``,
  that file, so one session configuration serves both engines; otherwise MIT's
  own choice (``KRB5_CONFIG``, else ``/etc/krb5.conf``),

gets the principal's tickets for the first broker's service principal
(``<service>/<host>``, what kafka-python asks for when it connects) and leaves
the variables set while the client lives. The variables are process-wide: while
one Kerberos identity's clients are open, a client of another identity waits.
Errors name the option at fault.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import struct
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .options import KafkaOptionError

JAAS_OPT = "kafka.sasl.jaas.config"
SERVICE_OPT = "kafka.sasl.kerberos.service.name"
MECHANISM_OPT = "kafka.sasl.mechanism"
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
KRB5_MODULE = "com.sun.security.auth.module.Krb5LoginModule"

# The Java client's Kerberos login-thread settings: MIT renews from the keytab
# by itself, so they have nothing to govern here.
IGNORED_KEYS = {"sasl.kerberos.kinit.cmd", "sasl.kerberos.ticket.renew.jitter",
                "sasl.kerberos.ticket.renew.window.factor", "sasl.kerberos.min.time.before.relogin"}

INSTALL_GSSAPI = ("pip install gssapi==1.12.0, which builds against MIT Kerberos: apt-get install libkrb5-dev gcc; "
                  "bash scripts/install-spark-deps.sh does both")


def is_krb5_jaas(value: str) -> bool:
    return "Krb5LoginModule" in value


def uses_gssapi(kafka_params: Mapping[str, str]) -> bool:
    """Whether ``kafka.*`` params (prefix stripped) ask for SASL GSSAPI."""
    for k, v in kafka_params.items():
        if k.lower() == "sasl.mechanism" and (v or "").strip().upper() == "GSSAPI":
            return True
        if k.lower() == "sasl.jaas.config" and is_krb5_jaas(v or ""):
            return True
    return False


def parse_jaas(value: str) -> tuple[str, dict[str, str]]:
    """A JAAS ``sasl.jaas.config`` line: (login module, options); option names
    as written, values unquoted."""
    m = re.match(r'\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b(.*)$', value, re.S)
    if not m:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}' is not a JAAS line "
                                         f"('<LoginModule> required key=value ... ;')")
    body = m.group(3).strip()
    if not body.endswith(";"):
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}' must end with ';'")
    body = body[:-1]
    opts: dict[str, str] = {}
    pos = 0
    for om in re.finditer(r'\s*([\w.]+)\s*=\s*(?:"([^"]*)"|([^\s";]+))\s*', body):
        if om.start() != pos:
            break
        opts[om.group(1)] = om.group(2) if om.group(2) is not None else om.group(3)
        pos = om.end()
    if body[pos:].strip():
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': cannot read {body[pos:].strip()!r} "
                                         f"(want key=value or key=\"value\")")
    return m.group(1), opts


def keytab_principals(path: str) -> list[str] | None:
    """The principals a MIT keytab (format 0x0502) holds, as ``a/b@REALM``;
    ``None`` for another format (left to the KDC exchange to judge)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\x05\x02":
        return None
    out: list[str] = []
    pos = 2
    try:
        while pos + 4 <= len(data):
            (size,) = struct.unpack_from(">i", data, pos)
            pos += 4
            if size <= 0:  # a hole left by a removed entry
                pos += -size
                continue
            entry = data[pos:pos + size]
            pos += size
            (n,) = struct.unpack_from(">H", entry, 0)
            parts, p = [], 2
            for _ in range(n + 1):  # the realm, then the name's components
                (ln,) = struct.unpack_from(">H", entry, p)
                parts.append(entry[p + 2:p + 2 + ln].decode("utf-8", "replace"))
                p += 2 + ln
            realm, name = parts[0], "/".join(parts[1:])
            principal = f"{name}@{realm}"
            if principal not in out:
                out.append(principal)
    except struct.error:
        return out or None
    return out


@dataclass(frozen=True)
class KerberosLogin:
    """A keytab login from a ``Krb5LoginModule`` JAAS line."""

    principal: str
    keytab: str
    service: str

    def key(self, krb5_conf: str | None) -> tuple[str, str, str]:
        return self.principal, os.path.abspath(self.keytab), krb5_conf or ""


def _bool(opts: Mapping[str, str], name: str) -> bool | None:
    for k, v in opts.items():
        if k.lower() == name.lower():
            return v.strip().lower() == "true"
    return None


def _get(opts: Mapping[str, str], name: str) -> str | None:
    for k, v in opts.items():
        if k.lower() == name.lower():
            return v
    return None


def check_login(params: Mapping[str, tuple[str, str]], role: str) -> KerberosLogin:
    """The GSSAPI settings of one client, checked without a KDC: ``params``
    maps lower-cased ``kafka.*`` keys (prefix stripped) to (key, value)."""
    mech = (params.get("sasl.mechanism", ("", ""))[1] or "").strip().upper()
    jaas = params.get("sasl.jaas.config", ("", None))[1]
    if mech != "GSSAPI":
        raise KafkaOptionError(MECHANISM_OPT, f"option '{JAAS_OPT}' is a Krb5LoginModule line, which needs "
                                              f"'{MECHANISM_OPT}'=GSSAPI (it is {mech or 'unset'})")
    proto = (params.get("security.protocol", ("", ""))[1] or "PLAINTEXT").strip().upper()
    if proto not in ("SASL_PLAINTEXT", "SASL_SSL"):
        raise KafkaOptionError("kafka.security.protocol", f"option '{MECHANISM_OPT}'=GSSAPI needs "
                                                         f"'kafka.security.protocol' SASL_PLAINTEXT or SASL_SSL "
                                                         f"(got {proto})")
    if jaas is None:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}' is required for GSSAPI on Sail: the driver-side "
                                         f"Kafka {role} reads the Krb5LoginModule line from it (a JAAS file named "
                                         f"by java.security.auth.login.config is not read)")
    module, opts = parse_jaas(jaas)
    if module.rsplit(".", 1)[-1] != "Krb5LoginModule":
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': GSSAPI wants a {KRB5_MODULE} line, got {module}")
    if not _bool(opts, "useKeyTab"):
        cache = " (useTicketCache=true)" if _bool(opts, "useTicketCache") else ""
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': the driver-side Kafka {role} on Sail logs in "
                                         f"from a keytab only; a ticket cache{cache} or a password prompt is not "
                                         f"supported: set useKeyTab=true keyTab=\"...\" principal=\"...\"")
    keytab, principal = _get(opts, "keyTab"), _get(opts, "principal")
    if not keytab:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': useKeyTab=true needs keyTab=\"<file>\" on Sail "
                                         f"(krb5.conf's default keytab is not read)")
    if not principal:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': principal=\"<name>@<REALM>\" is required "
                                         f"(the principal whose key keyTab holds)")
    if _bool(opts, "isInitiator") is False:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': isInitiator=false is an acceptor's login; a Kafka "
                                         f"client initiates")
    try:
        held = keytab_principals(keytab)
    except OSError as e:
        raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': keyTab {keytab}: {e.strerror}") from e
    if held is not None:
        want = principal if "@" in principal else None
        if not any(h == want if want else h.rsplit("@", 1)[0] == principal for h in held):
            raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': keyTab {keytab} holds no key for principal "
                                             f"{principal} (it holds {', '.join(held) or 'nothing'})")
    service = params.get("sasl.kerberos.service.name", ("", None))[1]
    jaas_service = _get(opts, "serviceName")
    if service and jaas_service and service != jaas_service:
        # the Java client's words (JaasContext / SaslClientAuthenticator)
        raise KafkaOptionError(SERVICE_OPT, f"option '{SERVICE_OPT}': Conflicting serviceName values found in "
                                            f"JAAS and Kafka configs value in JAAS file {jaas_service}, value in "
                                            f"Kafka config {service}")
    service = service or jaas_service
    if not service:
        raise KafkaOptionError(SERVICE_OPT, f"option '{SERVICE_OPT}': No serviceName defined in either JAAS or "
                                            f"Kafka config (set it to the broker principal's first part, such as "
                                            f"kafka, or serviceName=\"...\" in '{JAAS_OPT}')")
    try:
        import gssapi  # noqa: F401
    except (ImportError, OSError) as e:
        raise KafkaOptionError(MECHANISM_OPT, f"option '{MECHANISM_OPT}'=GSSAPI on Sail needs the gssapi Python "
                                              f"package ({e}); {INSTALL_GSSAPI}") from e
    return KerberosLogin(principal=principal, keytab=keytab, service=service)


def java_krb5_conf(java_options: str | None) -> str | None:
    """``-Djava.security.krb5.conf=<path>`` of a JVM option string."""
    if not java_options:
        return None
    try:
        words = shlex.split(java_options)
    except ValueError:
        words = java_options.split()
    found = None
    for w in words:
        if w.startswith("-Djava.security.krb5.conf="):
            found = w.split("=", 1)[1]
    return found or None


def driver_java_options(session: Any) -> str | None:
    """The session's ``spark.driver.extraJavaOptions`` (None when unset or unreadable)."""
    if session is None:
        return None
    try:
        return session.conf.get(JAVA_OPTIONS, None)
    except Exception:  # a stopped session, a server that refuses the key
        return None


def krb5_conf(java_options: str | None) -> tuple[str | None, str]:
    """The krb5.conf MIT should read (None: the environment's own choice) and
    where that choice comes from. Call with ``_cond`` held."""
    env = _saved.get("KRB5_CONFIG") if _users else os.environ.get("KRB5_CONFIG")
    if env:
        return env, f"KRB5_CONFIG={env}"
    path = java_krb5_conf(java_options)
    if path:
        if not os.path.isfile(path):
            raise KafkaOptionError(JAVA_OPTIONS, f"option '{JAVA_OPTIONS}': -Djava.security.krb5.conf={path}: no "
                                                 f"such file")
        return path, f"-Djava.security.krb5.conf={path} in {JAVA_OPTIONS}"
    return None, (f"/etc/krb5.conf, MIT's default: neither KRB5_CONFIG nor -Djava.security.krb5.conf in "
                  f"{JAVA_OPTIONS} is set")


# -- the process-wide environment, one identity at a time ---------------------------

_cond = threading.Condition()
_active: tuple[str, str, str] | None = None
_users = 0
_saved: dict[str, str | None] = {}
_holders: dict[int, tuple[str, str, str]] = {}
_VARS = ("KRB5CCNAME", "KRB5_CLIENT_KTNAME", "KRB5_CONFIG")
_CC_DIR: list[str] = []


def _ccache(key: tuple[str, str, str]) -> str:
    if not _CC_DIR:
        _CC_DIR.append(tempfile.mkdtemp(prefix="spark-agent-krb5-"))  # 0700
    h = hashlib.sha256("\0".join(key).encode())
    for path in key[1:]:  # a new keytab or krb5.conf (a new realm) starts a new cache
        with contextlib.suppress(OSError):
            with open(path, "rb") as f:
                h.update(f.read())
    return "FILE:" + os.path.join(_CC_DIR[0], f"cc-{h.hexdigest()[:16]}")


@contextlib.contextmanager
def _environment(key: tuple[str, str, str], values: dict[str, str]) -> Iterator[None]:
    global _active, _users
    me = threading.get_ident()
    with _cond:
        if me in _holders and _holders[me] != key:
            raise KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': a Kerberos client of principal "
                                             f"{_holders[me][0]} is still open in this thread; kafka-python's "
                                             f"GSSAPI takes one identity per process at a time")
        while _users and _active != key:
            _cond.wait()
        if not _users:
            _saved.clear()
            for v in _VARS:
                _saved[v] = os.environ.get(v)
            for k, v in values.items():
                os.environ[k] = v
            _active = key
        _users += 1
        nested = me in _holders
        _holders[me] = key
    try:
        yield
    finally:
        with _cond:
            _users -= 1
            if not nested:
                _holders.pop(me, None)
            if not _users:
                for k, v in _saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
                _active = None
                _cond.notify_all()


def java_host_names(servers: list[str]) -> list[str]:
    """Bootstrap servers with an IP address written as the host name the
    address resolves back to. The Java client names a broker's service
    principal after ``InetAddress.getHostName()`` of the connected address,
    which for an address literal is that reverse lookup; kafka-python names it
    after the host as given, so ``127.0.0.1:9092`` would ask for
    ``kafka/127.0.0.1``. An address that does not resolve back stays."""
    import ipaddress
    import socket

    out = []
    for server in servers:
        host = _host(server)
        try:
            ipaddress.ip_address(host)
        except ValueError:
            out.append(server)
            continue
        try:
            name = socket.gethostbyaddr(host)[0]
        except OSError:
            out.append(server)
            continue
        out.append(name + server.strip()[len(host) + (2 if server.strip().startswith("[") else 0):])
    return out


def _host(server: str) -> str:
    server = server.strip()
    if server.startswith("["):
        return server[1:].split("]", 1)[0]
    return server.rsplit(":", 1)[0] if ":" in server else server


@contextlib.contextmanager
def login(kafka_params: Mapping[str, str], bootstrap_servers: list[str], *, java_options: str | None = None,
          domain_name: str | None = None, role: str = "read") -> Iterator[KerberosLogin | None]:
    """Around a kafka-python client's life: for GSSAPI params, the keytab login
    described in the module text (and its errors, naming the option); nothing
    for other params."""
    if not uses_gssapi(kafka_params):
        yield None
        return
    params = {k.lower(): (k, v) for k, v in kafka_params.items()}
    lg = check_login(params, role)
    domain_name = domain_name or params.get("sasl.kerberos.domain.name", ("", None))[1]
    with _cond:
        conf, conf_from = krb5_conf(java_options)
    key = lg.key(conf)
    values = {"KRB5CCNAME": _ccache(key), "KRB5_CLIENT_KTNAME": os.path.abspath(lg.keytab)}
    if conf:
        values["KRB5_CONFIG"] = conf  # the environment's own value, or the JVM option's file
    with _environment(key, values):
        hosts = [domain_name] if domain_name else list(dict.fromkeys(_host(s) for s in bootstrap_servers))
        _tickets(lg, values["KRB5CCNAME"], hosts[:1], conf_from)
        yield lg


def _tickets(lg: KerberosLogin, ccache: str, hosts: list[str], conf_from: str) -> None:
    """Gets (or finds in the cache) the principal's ticket for each broker
    host's service principal, so a wrong setting fails here naming the option
    instead of as a connection kafka-python retries."""
    import gssapi

    where = f"krb5.conf: {conf_from}"
    try:
        name = gssapi.Name(lg.principal, gssapi.NameType.kerberos_principal)
        creds = gssapi.Credentials(name=name, usage="initiate",
                                   store={"ccache": ccache, "client_keytab": os.path.abspath(lg.keytab)})
    except gssapi.exceptions.GSSError as e:
        raise _error(e, lg, "", where) from e
    for host in hosts:
        target = f"{lg.service}@{host}"
        try:
            tname = gssapi.Name(target, gssapi.NameType.hostbased_service).canonicalize(gssapi.MechType.kerberos)
            gssapi.SecurityContext(name=tname, creds=creds, usage="initiate").step()
        except gssapi.exceptions.GSSError as e:
            raise _error(e, lg, f"{lg.service}/{host}", where) from e


def _error(e: Any, lg: KerberosLogin, service: str, where: str) -> KafkaOptionError:
    text = str(e)
    low = text.lower()
    who = f"principal {lg.principal} (keyTab {lg.keytab})"
    if "client" in low and "not found in kerberos database" in low:
        return KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': the KDC does not know principal {lg.principal} "
                                          f"({where}): {text}")
    if "server" in low and "not found in kerberos database" in low:
        return KafkaOptionError(SERVICE_OPT, f"option '{SERVICE_OPT}'={lg.service}: the KDC has no service principal "
                                             f"{service} for the broker host in kafka.bootstrap.servers ({where}): "
                                             f"{text}")
    if any(s in low for s in ("preauthentication failed", "password incorrect", "integrity check",
                              "key table entry not found", "no key table entry", "key version")):
        return KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': the KDC refused the key keyTab holds for "
                                          f"{who} (a stale keytab?): {text}")
    if any(s in low for s in ("cannot contact any kdc", "cannot find kdc", "default realm", "unable to reach",
                              "configuration file", "cannot resolve")):
        opt = JAVA_OPTIONS if JAVA_OPTIONS in where else JAAS_OPT
        return KafkaOptionError(opt, f"Kerberos login of {who}: no KDC reached for the realm ({where}): {text}")
    return KafkaOptionError(JAAS_OPT, f"option '{JAAS_OPT}': Kerberos login of {who} failed ({where}): {text}")
