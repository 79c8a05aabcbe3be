"""Bounded Kafka reads in the driver with kafka-python (the Sail path).

Sail has no Kafka source, so ``format("kafka")`` with ``kafka.bootstrap.servers``
is read here, in the Python driver, with Spark's batch semantics: resolve the
partitions of ``subscribe`` / ``subscribePattern`` / ``assign``, turn
``startingOffsets`` / ``endingOffsets`` into one offset range per partition,
read each range exactly, and hand back the records and the ranges.

Spark's ``kafka.*`` consumer options become kafka-python keyword arguments: a
key whose dotted name is a kafka-python setting (``request.timeout.ms`` →
``request_timeout_ms``) passes through; SASL's ``sasl.jaas.config`` is parsed
into user name and password (a ``Krb5LoginModule`` line, SASL GSSAPI, is
checked by :mod:`spark_agent.kerberos`, which also logs the client in); a PEM
``ssl.truststore.location`` becomes
``ssl_cafile``, JKS and PKCS12 stores (``java_stores``) are turned into PEM
files, and inline PEM (``ssl.truststore.certificates``,
``ssl.keystore.certificate.chain`` + ``ssl.keystore.key``, what the resolve
route hands out for a secured cluster) is written to private files for
``ssl_cafile`` / ``ssl_certfile`` / ``ssl_keyfile``; anything else fails
naming the option.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import kerberos
from .java_stores import key_pair, trusted_pem
from .kafka_schema import KafkaRecord
from .options import EndSpec, KafkaOptionError, assign_partitions

Offsets = dict[str, dict[int, int]]

# Spark/Java consumer keys with no kafka-python meaning that are safe to drop.
_IGNORED_KEYS = {
    "group.id",  # the driver reads with assign() and commits nothing
    "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "auto.commit.interval.ms",
    "ssl.endpoint.identification.algorithm",  # handled below
    *kerberos.IGNORED_KEYS,
}


@dataclass
class ConsumeResult:
    """Records read plus the range each partition was read over."""

    records: list[KafkaRecord]
    start: Offsets = field(default_factory=dict)
    end: Offsets = field(default_factory=dict)


def client_config(kafka_params: Mapping[str, str], defaults: Mapping[str, Any], role: str) -> dict[str, Any]:
    """Spark ``kafka.*`` params (prefix stripped) → kafka-python kwargs.

    ``defaults`` is the kafka-python client's ``DEFAULT_CONFIG`` (consumer or
    producer); ``role`` names the path in error messages.
    """
    cfg: dict[str, Any] = {}
    params = {k.lower(): (k, v) for k, v in kafka_params.items()}
    gssapi = kerberos.uses_gssapi(kafka_params)
    if gssapi:
        cfg["sasl_kerberos_service_name"] = kerberos.check_login(params, role).service
    for lkey, (key, value) in params.items():
        opt = "kafka." + key
        if lkey == "bootstrap.servers":
            cfg["bootstrap_servers"] = [s.strip() for s in value.split(",") if s.strip()]
            if gssapi and "sasl.kerberos.domain.name" not in params:
                # the service principal's host as the Java client names it
                cfg["bootstrap_servers"] = kerberos.java_host_names(cfg["bootstrap_servers"])
        elif lkey == "sasl.jaas.config":
            if "sasl_kerberos_service_name" in cfg:
                continue  # GSSAPI: checked above, the login is kerberos.login's
            user = re.search(r'username\s*=\s*"([^"]*)"', value)
            pwd = re.search(r'password\s*=\s*"([^"]*)"', value)
            if not user or pwd is None:
                raise KafkaOptionError(opt, f"option '{opt}': want a PlainLoginModule or ScramLoginModule line with "
                                            f'username="…" password="…"')
            cfg["sasl_plain_username"], cfg["sasl_plain_password"] = user.group(1), pwd.group(1)
        elif lkey == "ssl.truststore.location":
            stype, given = _store_type(params, "ssl.truststore.type")
            if stype == "PEM":
                cfg["ssl_cafile"] = value
            else:
                pw = _password(params, "ssl.truststore.password", stype)
                cfg["ssl_cafile"] = _pem_file(trusted_pem(value, stype, pw, given), "ca.pem")
        elif lkey == "ssl.truststore.certificates":
            _pem_type(params, "ssl.truststore.type", role)
            cfg["ssl_cafile"] = _pem_file(value, "ca.pem")
        elif lkey == "ssl.keystore.location":
            stype, given = _store_type(params, "ssl.keystore.type")
            if stype == "PEM":
                cfg["ssl_certfile"] = cfg["ssl_keyfile"] = value  # one PEM file with the chain and the key
                if "ssl.key.password" in params:
                    cfg["ssl_password"] = params["ssl.key.password"][1]  # an encrypted PEM key
            else:
                pw = _password(params, "ssl.keystore.password", stype)
                pair = key_pair(value, stype, pw, params.get("ssl.key.password", ("", pw))[1], given)
                cfg["ssl_certfile"] = _pem_file(pair.chain_pem, "client.pem")
                cfg["ssl_keyfile"] = _pem_file(pair.key_pem, "client-key.pem")
        elif lkey == "ssl.keystore.certificate.chain":
            _pem_type(params, "ssl.keystore.type", role)
            if "ssl.keystore.key" not in params:
                raise KafkaOptionError(opt, f"option '{opt}' needs 'kafka.ssl.keystore.key'")
            cfg["ssl_certfile"] = _pem_file(value, "client.pem")
            cfg["ssl_keyfile"] = _pem_file(params["ssl.keystore.key"][1], "client-key.pem")
        elif lkey == "ssl.keystore.key":
            if "ssl.keystore.certificate.chain" not in params:
                raise KafkaOptionError(opt, f"option '{opt}' needs 'kafka.ssl.keystore.certificate.chain'")
        elif lkey in ("ssl.truststore.type", "ssl.keystore.type"):
            continue
        elif lkey in _PASSWORDS:
            if _PASSWORDS[lkey] not in params:
                raise KafkaOptionError(opt, f"option '{opt}' is set without 'kafka.{_PASSWORDS[lkey]}'")
        elif lkey == "ssl.endpoint.identification.algorithm":
            cfg["ssl_check_hostname"] = value.strip().lower() == "https"
        elif lkey in _IGNORED_KEYS or (lkey == "sasl.kerberos.service.name" and "sasl_kerberos_service_name" in cfg):
            continue
        else:
            name = lkey.replace(".", "_")
            if name not in defaults or name in ("key_deserializer", "value_deserializer", "key_serializer",
                                                "value_serializer", "enable_auto_commit", "auto_offset_reset",
                                                "group_id"):
                raise KafkaOptionError(opt, f"option '{opt}' has no equivalent in the driver-side Kafka {role} "
                                            f"on Sail (kafka-python)")
            default = defaults[name]
            if isinstance(default, bool):
                cfg[name] = value.strip().lower() == "true"
            elif isinstance(default, int) and value.strip().lstrip("-").isdigit():
                cfg[name] = int(value)
            else:
                cfg[name] = value
    return cfg


# A store password and the store it opens.
_PASSWORDS = {"ssl.truststore.password": "ssl.truststore.location", "ssl.keystore.password": "ssl.keystore.location",
              "ssl.key.password": "ssl.keystore.location"}


def _store_type(params: Mapping[str, tuple[str, str]], key: str) -> tuple[str, bool]:
    """A store file's type: PEM, JKS or PKCS12; unset, JKS (Kafka's default)."""
    if key not in params:
        return "JKS", False
    stype = (params[key][1] or "").strip().upper()
    if stype not in ("PEM", "JKS", "PKCS12"):
        raise KafkaOptionError("kafka." + key, f"option 'kafka.{key}'={stype!r} is not PEM, JKS or PKCS12")
    return stype, True


def _password(params: Mapping[str, tuple[str, str]], key: str, stype: str) -> str:
    """A JKS or PKCS12 store's password, which opening it needs."""
    if key not in params:
        raise KafkaOptionError("kafka." + key, f"option 'kafka.{key}' is required to open a {stype} store")
    return params[key][1]


def _pem_type(params: Mapping[str, tuple[str, str]], key: str, role: str) -> None:
    """Refuses a store type other than PEM for inline certificates and keys."""
    stype = (params.get(key, ("", "PEM"))[1] or "PEM").upper()
    if stype != "PEM":
        raise KafkaOptionError("kafka." + key, f"option 'kafka.{key}'={stype}: the driver-side Kafka {role} on Sail "
                                               f"takes PEM stores (kafka.{key}=PEM)")


def _pem_file(text: str, name: str) -> str:
    """Writes an inline PEM value to a file only this user reads (kafka-python
    takes files), once per distinct value."""
    import hashlib
    import os
    import tempfile

    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(_pem_dir(tempfile), f"{digest}-{name}")
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
    return path


_PEM_DIR: list[str] = []


def _pem_dir(tempfile: Any) -> str:
    if not _PEM_DIR:
        _PEM_DIR.append(tempfile.mkdtemp(prefix="spark-agent-pem-"))  # 0700
    return _PEM_DIR[0]


def consumer_config(kafka_params: Mapping[str, str]) -> dict[str, Any]:
    """Spark ``kafka.*`` consumer params → ``KafkaConsumer`` kwargs."""
    from kafka import KafkaConsumer

    return client_config(kafka_params, KafkaConsumer.DEFAULT_CONFIG, "read")


def _topic_partitions(consumer: Any, kind: str, value: str) -> list[tuple[str, int]]:
    if kind == "assign":
        return sorted((t, p) for t, ps in assign_partitions(value).items() for p in ps)
    if kind == "subscribe":
        topics = [t.strip() for t in value.split(",") if t.strip()]
    else:
        pattern = re.compile(value)
        topics = sorted(t for t in consumer.topics() if pattern.fullmatch(t))
    out: list[tuple[str, int]] = []
    for t in topics:
        parts = consumer.partitions_for_topic(t)
        if parts is None:  # metadata not loaded yet, or no such topic
            consumer.topics()
            parts = consumer.partitions_for_topic(t)
        out.extend((t, p) for p in sorted(parts or ()))
    return out


def _resolve(spec: EndSpec, name: str, tps: list[tuple[str, int]], low: dict, high: dict,
             default_missing: str | None) -> dict[tuple[str, int], int]:
    out: dict[tuple[str, int], int] = {}
    if isinstance(spec, str):
        for tp in tps:
            out[tp] = low[tp] if spec == "earliest" else high[tp]
        return out
    named = {(t, p): o for t, ps in spec.items() for p, o in ps.items()}
    missing = [tp for tp in tps if tp not in named]
    if missing and default_missing is None:
        raise KafkaOptionError(
            name, f"If {name} contains specific offsets, you must specify all TopicPartitions.\n"
                  f"Use -1 for latest, -2 for earliest.\nSpecified: {sorted(named)} Assigned: {sorted(tps)}")
    unknown = [tp for tp in named if tp not in low]
    if unknown:
        raise KafkaOptionError(name, f"{name} names partitions the topics do not have: {sorted(unknown)}")
    for tp in tps:
        o = named.get(tp, -2 if default_missing == "earliest" else -1)
        out[tp] = low[tp] if o == -2 else high[tp] if o == -1 else o
    return out


def consume(
    kafka_params: Mapping[str, str],
    kind: str,
    value: str,
    starting: EndSpec,
    ending: EndSpec,
    *,
    fail_on_data_loss: bool = True,
    poll_timeout_ms: int = 120_000,
    partitions_default_missing: str | None = None,
    java_options: str | None = None,
) -> ConsumeResult:
    """Read the records of every subscribed partition in ``[starting, ending)``.

    ``starting``/``ending`` are ``"earliest"``, ``"latest"`` or
    ``{topic: {partition: offset}}`` (-2 earliest, -1 latest). A starting offset
    below the log start fails with ``failOnDataLoss`` (Spark's default) and is
    moved to the log start without it. ``poll_timeout_ms`` bounds the wait for
    a partition that stops yielding records before its end offset.
    ``java_options`` is the session's ``spark.driver.extraJavaOptions``, where
    a GSSAPI read finds ``-Djava.security.krb5.conf`` (:mod:`spark_agent.kerberos`).
    """
    cfg = consumer_config(kafka_params)
    cfg.update(enable_auto_commit=False, group_id=None)
    with kerberos.login(kafka_params, cfg.get("bootstrap_servers") or [], java_options=java_options, role="read"):
        return _consume(cfg, kind, value, starting, ending, fail_on_data_loss=fail_on_data_loss,
                        poll_timeout_ms=poll_timeout_ms, partitions_default_missing=partitions_default_missing)


def _consume(cfg: dict[str, Any], kind: str, value: str, starting: EndSpec, ending: EndSpec, *,
             fail_on_data_loss: bool, poll_timeout_ms: int, partitions_default_missing: str | None) -> ConsumeResult:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(**cfg)
    try:
        tps = _topic_partitions(consumer, kind, value)
        ktps = [TopicPartition(t, p) for t, p in tps]
        low = {(tp.topic, tp.partition): o for tp, o in consumer.beginning_offsets(ktps).items()} if ktps else {}
        high = {(tp.topic, tp.partition): o for tp, o in consumer.end_offsets(ktps).items()} if ktps else {}
        start = _resolve(starting, "startingOffsets", tps, low, high, partitions_default_missing)
        end = _resolve(ending, "endingOffsets", tps, low, high, partitions_default_missing)
        for tp in tps:
            if start[tp] < low[tp]:
                if fail_on_data_loss:
                    raise KafkaOptionError(
                        "failOnDataLoss",
                        f"Partition {tp[0]}-{tp[1]}'s offset was changed from {start[tp]} to {low[tp]}, some data "
                        f"may have been missed. Some data may have been lost because they are not available in "
                        f"Kafka any more. If you don't want your query to fail in such cases, set the source "
                        f"option 'failOnDataLoss' to 'false'.")
                start[tp] = low[tp]
            if end[tp] > high[tp]:
                end[tp] = high[tp]
            if start[tp] > end[tp]:
                raise KafkaOptionError(
                    "endingOffsets", f"The start offset {start[tp]} of {tp[0]}-{tp[1]} is after its end offset "
                                     f"{end[tp]}")
        pending = {tp: TopicPartition(*tp) for tp in tps if start[tp] < end[tp]}
        records: list[KafkaRecord] = []
        if pending:
            consumer.assign(list(pending.values()))
            for tp, ktp in pending.items():
                consumer.seek(ktp, start[tp])
            last_progress = time.monotonic()
            while pending:
                batch = consumer.poll(timeout_ms=500, max_records=10_000)
                got = False
                for ktp, recs in batch.items():
                    key = (ktp.topic, ktp.partition)
                    for r in recs:
                        if r.offset >= end[key]:
                            break
                        got = True
                        records.append(KafkaRecord(
                            key=r.key, value=r.value, topic=r.topic, partition=r.partition, offset=r.offset,
                            timestamp_ms=r.timestamp if r.timestamp is not None else -1,
                            timestamp_type=r.timestamp_type if r.timestamp_type is not None else -1,
                            headers=[(k, v) for k, v in r.headers] if r.headers else None,
                        ))
                for key in list(pending):
                    if consumer.position(pending[key]) >= end[key]:
                        consumer.pause(pending.pop(key))
                if got:
                    last_progress = time.monotonic()
                elif pending and (time.monotonic() - last_progress) * 1000 > poll_timeout_ms:
                    raise TimeoutError(
                        f"Kafka read stalled: no records for {poll_timeout_ms} ms (kafkaConsumer.pollTimeoutMs) "
                        f"before the end offsets of {sorted(pending)}")
        records.sort(key=lambda r: (r.topic, r.partition, r.offset))

        def nest(m: dict[tuple[str, int], int]) -> Offsets:
            out: Offsets = {}
            for (t, p), o in m.items():
                out.setdefault(t, {})[p] = o
            return out

        return ConsumeResult(records=records, start=nest(start), end=nest(end))
    finally:
        consumer.close()
