"""Spark sessions for the Fabric notebook cell, with the adapter
(``spark_agent``) installed against an emulator: Sail (a Spark Connect server
in this process) and local JVM Spark (the Scala 2.13 Spark 3.5.5 with the
Kafka source jars of ``scripts/install-spark-deps.sh``).

:func:`engine_missing` says why an engine cannot run here (``None`` when it
can); the plugin's fixtures skip with that reason."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ENGINES = ("sail", "jvm")
SAIL_MODULES = ("pyspark", "pysail", "grpc", "pandas", "pyarrow", "kafka", "spark_agent")
JVM_MODULES = ("pyspark", "spark_agent")
CONNECT_VARS = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")


def _missing_modules(names: tuple[str, ...]) -> list[str]:
    missing = []
    for name in names:
        try:
            __import__(name)
        except ImportError as e:
            missing.append(f"{name} ({e})")
    return missing


def engine_missing(engine: str) -> str | None:
    """Why ``engine`` (``sail`` or ``jvm``) cannot run in this interpreter, or
    ``None`` when it can."""
    if engine == "sail":
        missing = _missing_modules(SAIL_MODULES)
        if missing:
            return f"Sail is not installed: {', '.join(missing)}; pip install 'fabrictest[sail]'"
        return None
    if engine != "jvm":
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    missing = _missing_modules(JVM_MODULES)
    if missing:
        return f"JVM Spark is not installed: {', '.join(missing)}; pip install 'fabrictest[jvm]'"
    from spark_agent.jvm import check_spark_home, kafka_jars

    try:
        check_spark_home()
        kafka_jars()
    except FileNotFoundError as e:
        return f"JVM Spark is not installed: {e} (or name them with FABRICTEST_SPARK_HOME and FABRICTEST_SPARK_JARS)"
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return "JVM Spark is not installed: no java on PATH and no JAVA_HOME"
    return None


def embedded_broker_reason(kafka: str) -> str | None:
    """Why JVM Spark's Kafka source cannot read an emulator on ``kafka``, or ``None``."""
    if kafka != "embedded":
        return None
    return ("JVM Spark's Kafka source (kafka-clients 3.4.1) cannot read the emulator's embedded broker "
            "(it refuses the broker's ApiVersions answer); run the emulator on Apache Kafka: "
            "--fabric-emulator-kafka HOST:PORT")


def _forget_connect() -> None:
    # pyspark 3.5 marks the whole process as Spark Connect once a remote
    # session starts; a classic (JVM) session later in the run needs it gone.
    for var in CONNECT_VARS:
        os.environ.pop(var, None)


@contextmanager
def sail_session(emulator_url: str, token: Any = None) -> Iterator[Any]:
    """A Spark Connect session on a Sail server started in this process, with
    the adapter installed against ``emulator_url`` (``token``: a string or a
    callable; ``None`` takes the notebook's identity from the environment);
    the session and the server are stopped on exit."""
    from pysail.spark import SparkConnectServer
    from pyspark.sql import SparkSession

    from spark_agent import install

    server = SparkConnectServer("127.0.0.1", 0)
    server.start(background=True)
    try:
        _, port = server.listening_address
        session = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        try:
            install(session, emulator_url, token, engine="sail")
            yield session
        finally:
            session.stop()
    finally:
        server.stop()
        _forget_connect()


@contextmanager
def jvm_session(emulator_url: str, token: Any = None, master: str = "local[1]") -> Iterator[Any]:
    """A classic session on local JVM Spark (``master``, default ``local[1]``)
    with the Kafka source and delta-spark jars, the adapter installed against
    ``emulator_url``; stopped on exit (pyspark keeps its JVM for the next one)."""
    from spark_agent import install
    from spark_agent.jvm import session_builder

    _forget_connect()
    session = session_builder(master).getOrCreate()
    try:
        install(session, emulator_url, token, engine="jvm")
        yield session
    finally:
        session.stop()
