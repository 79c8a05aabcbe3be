"""Where JVM Spark and its Kafka source jars live, and a session builder using them.

``scripts/install-spark-deps.sh`` lays out, under the repository's ``.cache/``:

* ``spark-3.5.5-scala2.13/`` — a ``SPARK_HOME`` with the Scala 2.13 build of
  Spark 3.5.5 (``jars/`` resolved with Maven, ``bin/`` from the pyspark wheel).
  The PyPI pyspark 3.5.5 wheel bundles the Scala 2.12 build, but the Maven
  registry this project uses does not serve ``spark-sql-kafka-0-10_2.12``; it
  serves the ``_2.13`` build of the same release, which needs a Scala 2.13
  Spark. pyspark's Python code is the same for both builds.
* ``spark-jars/`` — the Kafka source: ``spark-sql-kafka-0-10_2.13-3.5.5``,
  ``spark-token-provider-kafka-0-10_2.13-3.5.4`` (3.5.5 of that jar is not
  served; the module did not change between the two patch releases),
  ``kafka-clients-3.4.1`` and ``commons-pool2-2.11.1``.

``FABRICTEST_SPARK_HOME`` / ``FABRICTEST_SPARK_JARS`` override the places.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

INSTALL_HINT = "run scripts/install-spark-deps.sh"

KAFKA_JARS = (
    "spark-sql-kafka-0-10_2.13-3.5.5.jar",
    "spark-token-provider-kafka-0-10_2.13-3.5.4.jar",
    "kafka-clients-3.4.1.jar",
    "commons-pool2-2.11.1.jar",
)


def repo_root() -> Path:
    """The fabrictest checkout this package lives in (python/spark_agent/..)."""
    return Path(__file__).resolve().parents[2]


def spark_home() -> Path:
    """The Scala 2.13 Spark 3.5.5 ``SPARK_HOME``."""
    env = os.environ.get("FABRICTEST_SPARK_HOME")
    return Path(env) if env else repo_root() / ".cache" / "spark-3.5.5-scala2.13"


def jar_dir() -> Path:
    env = os.environ.get("FABRICTEST_SPARK_JARS")
    return Path(env) if env else repo_root() / ".cache" / "spark-jars"


# Delta Lake for Spark 3.5 (delta-spark 3.3.x), for writeStream.format("delta").
DELTA_JARS = (
    "delta-spark_2.13-3.3.2.jar",
    "delta-storage-3.3.2.jar",
)


def _jars(names: tuple[str, ...], what: str) -> list[str]:
    d = jar_dir()
    missing = [j for j in names if not (d / j).is_file()]
    if missing:
        raise FileNotFoundError(f"{what} jars missing from {d}: {', '.join(missing)}; {INSTALL_HINT}")
    return [str(d / j) for j in names]


def delta_jars() -> list[str]:
    """Absolute paths of the delta-spark jars; fails naming the installer when one is missing."""
    return _jars(DELTA_JARS, "Delta Lake")


def kafka_jars() -> list[str]:
    """Absolute paths of the Kafka source jars; fails naming the installer when one is missing."""
    d = jar_dir()
    missing = [j for j in KAFKA_JARS if not (d / j).is_file()]
    if missing:
        raise FileNotFoundError(f"Kafka source jars missing from {d}: {', '.join(missing)}; {INSTALL_HINT}")
    return [str(d / j) for j in KAFKA_JARS]


def check_spark_home(home: Path | None = None) -> Path:
    home = home or spark_home()
    if not (home / "bin" / "spark-submit").is_file() or not glob.glob(str(home / "jars" / "spark-sql_2.13-3.5.5.jar")):
        raise FileNotFoundError(f"no Scala 2.13 Spark 3.5.5 at {home} (bin/spark-submit, jars/spark-sql_2.13-3.5.5.jar); "
                                f"{INSTALL_HINT}")
    return home


def session_builder(master: str = "local[1]", app_name: str = "fabrictest-spark-agent", *, delta: bool = False):
    """A classic ``SparkSession.builder`` on the Scala 2.13 ``SPARK_HOME`` with the
    Kafka and delta-spark jars in ``spark.jars``; ``delta`` adds Delta's session
    extension and catalog. The delta-spark jars are always there: pyspark
    launches one JVM per Python process, with the ``spark.jars`` of the first
    session, and a later session cannot add to the driver's class path. Sets
    ``SPARK_HOME`` in this process (pyspark reads it when it launches the JVM,
    i.e. at the first ``getOrCreate``)."""
    home = check_spark_home()
    os.environ["SPARK_HOME"] = str(home)
    from pyspark.sql import SparkSession

    jars = kafka_jars() + delta_jars()
    b = SparkSession.builder
    if delta:
        b = (b.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
    return (
        b.master(master)
        .appName(app_name)
        .config("spark.jars", ",".join(jars))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
    )
