"""The plugin's Spark fixtures (fabric_spark, fabric_spark_sail,
fabric_spark_jvm) and fabric_notebook when an engine cannot run: skipped, with
the reason, and counted as skipped. (They run on Sail in the sample project,
examples/python/test_notebook.py, test_plugin_sample_project.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_run import PYTHON_DIR, run

pytest_plugins = ["pytester"]

NO_SAIL = '''
import sys
sys.modules["pysail"] = None  # import pysail raises ImportError: Sail is not installed

def test_cell(fabric_spark):
    raise AssertionError("a fixture whose engine is missing must skip")

def test_notebook(fabric_notebook):
    fabric_notebook("never-read.ipynb", engine="sail")
    raise AssertionError("fabric_notebook must skip when the engine is missing")
'''

JVM_ONLY = '''
def test_jvm(fabric_spark_jvm):
    raise AssertionError("JVM Spark over the embedded broker must skip")
'''


def fake_spark(root: Path) -> dict[str, str]:
    """A SPARK_HOME and a jar directory with the files the engine check looks
    for (empty), and a JAVA_HOME: the JVM engine counts as installed."""
    from spark_agent.jvm import KAFKA_JARS

    home, jars = root / "spark", root / "jars"
    for f in (home / "bin" / "spark-submit", home / "jars" / "spark-sql_2.13-3.5.5.jar",
              *(jars / j for j in KAFKA_JARS)):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.touch()
    return {"FABRICTEST_SPARK_HOME": str(home), "FABRICTEST_SPARK_JARS": str(jars), "JAVA_HOME": str(root)}


def test_missing_engines_are_skipped_with_the_reason(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                    emulator_binary: Path) -> None:
    monkeypatch.setenv("FABRICTEST_SPARK_HOME", str(pytester.path / "no-spark"))
    monkeypatch.delenv("FABRIC_EMULATOR_KAFKA", raising=False)
    pytester.makepyfile(test_engines=NO_SAIL)
    result = run(pytester, monkeypatch, "-rs", binary=emulator_binary)
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines_random([
        "SKIPPED [[]1[]] *: Sail is not installed: pysail (*); pip install 'fabrictest[[]sail[]]'",
        "SKIPPED [[]1[]] *: JVM Spark is not installed: no Scala 2.13 Spark 3.5.5 at */no-spark *",
    ])
    assert result.stdout.str().count(": Sail is not installed: pysail") == 2, result.stdout.str()


def test_jvm_spark_over_the_embedded_broker_is_skipped_saying_what_to_do(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, emulator_binary: Path) -> None:
    for k, v in fake_spark(pytester.path).items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("FABRIC_EMULATOR_KAFKA", raising=False)
    pytester.makepyfile(test_jvm=JVM_ONLY)
    result = run(pytester, monkeypatch, "-rs", binary=emulator_binary)
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] *: JVM Spark's Kafka source (kafka-clients 3.4.1) cannot read the "
                                 "emulator's embedded broker *--fabric-emulator-kafka HOST:PORT"])


@pytest.mark.jvm
@pytest.mark.apache_kafka
def test_the_example_notebook_on_jvm_spark_through_the_plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                              emulator_binary: Path, apache_kafka: str) -> None:
    """examples/python/test_notebook.py's JVM half: the notebook headless and
    its cell on local JVM Spark, the emulator on the Apache Kafka container
    (FABRIC_EMULATOR_KAFKA), through the plugin's fixtures."""
    from spark_agent.jvm import check_spark_home, jar_dir

    try:
        home = check_spark_home()
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    monkeypatch.setenv("FABRICTEST_SPARK_HOME", str(home))
    monkeypatch.setenv("FABRICTEST_SPARK_JARS", str(jar_dir()))
    monkeypatch.setenv("FABRIC_EMULATOR_KAFKA", apache_kafka)
    sample = PYTHON_DIR.parent / "examples" / "python" / "test_notebook.py"
    pytester.makepyfile(test_notebook=sample.read_text().replace(
        'Path(__file__).resolve().parents[1] / "eventstream_notebook.ipynb"', repr(str(sample.parents[1] /
                                                                                   "eventstream_notebook.ipynb"))))
    result = run(pytester, monkeypatch, "-rs", "-k", "not sail", binary=emulator_binary, timeout=900)
    result.assert_outcomes(passed=2, deselected=2)
