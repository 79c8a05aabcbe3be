"""Checkpointed ``writeStream.format("delta")`` into a Lakehouse's Tables/
directory, on JVM Spark (delta-spark 3.3.2) and on Sail (its own Delta
writer), read back by delta-rs and by emulator/delta's reader (deltaread/,
run with ``go run``); a restart from the checkpoint writes each record, and
each closed window, exactly once.

Follows Microsoft Learn "Get streaming data into a lakehouse with Spark
structured streaming" (lakehouse-streaming-data: writeStream to Tables/ with
a checkpointLocation) and Spark's Structured Streaming guide (windowed
aggregation with a watermark in append mode; checkpoint recovery).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Emulator, Eventstream, orders, sail_session

# partition as BIGINT: emulator/delta's reader takes the Delta types the
# emulator writes (string, long, double, boolean, timestamp), not integer.
DECODED = ["CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "CAST(partition AS BIGINT) AS partition",
           "offset"]


def lakehouse_tables(emu: Emulator, ws: str, name: str) -> Path:
    lh = emu.call("POST", f"/v1/workspaces/{ws}/lakehouses", {"displayName": name})
    return Path(lh["properties"]["x-fabrictest-localTablesPath"])


def go_read(table: Path) -> dict[str, Any]:
    """emulator/delta's reader on ``table`` (python/tests/deltaread)."""
    go = shutil.which("go")
    assert go, "go not found on PATH"
    p = subprocess.run([go, "run", "./python/tests/deltaread", str(table)], cwd=REPO, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def delta_rs_rows(table: Path) -> list[dict[str, Any]]:
    from deltalake import DeltaTable

    return DeltaTable(str(table)).to_pyarrow_table().to_pylist()


def stream_to_delta(spark: Any, es: Eventstream, table: Path, ckpt: Path) -> None:
    """One checkpointed availableNow query: decoded records appended to ``table``."""
    df = spark.readStream.format("kafka").options(**{
        "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
        "startingOffsets": "earliest"}).load()
    q = (df.selectExpr(*DECODED).writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", str(ckpt)).trigger(availableNow=True).start(str(table)))
    assert q.awaitTermination(180), "availableNow query did not finish"
    assert q.exception() is None


def check_plain_sink(spark: Any, emu: Emulator, ws: str, tmp_path: Path, engine: str) -> None:
    es = emu.create_eventstream(ws, f"{engine}-delta")
    table = lakehouse_tables(emu, ws, f"{engine}_lh") / "orders"
    ckpt = tmp_path / "ckpt"
    first = emu.produce(es, orders(4, "first"))
    stream_to_delta(spark, es, table, ckpt)
    assert sorted(r["key"] for r in delta_rs_rows(table)) == [f"first-{i}" for i in range(4)]
    emu.produce(es, orders(3, "second"))
    stream_to_delta(spark, es, table, ckpt)  # the restart: only what arrived since
    stream_to_delta(spark, es, table, ckpt)  # nothing new: nothing written
    rows = delta_rs_rows(table)
    keys = sorted(r["key"] for r in rows)
    assert keys == sorted([f"first-{i}" for i in range(4)] + [f"second-{i}" for i in range(3)])
    assert len({(r["partition"], r["offset"]) for r in rows}) == 7
    where = {(w["partition"], w["offset"]) for w in first["events"]}
    assert where <= {(r["partition"], r["offset"]) for r in rows}
    go = go_read(table)
    assert sorted(r["key"] for r in go["rows"]) == keys
    assert sorted((r["key"], json.loads(r["value"])["id"]) for r in go["rows"]) == \
        sorted((r["key"], json.loads(r["value"])["id"]) for r in rows)


class TestSail:
    pytestmark = pytest.mark.sail

    @pytest.fixture(scope="class")
    @classmethod
    def spark(cls, embedded_emulator: Emulator) -> Iterator[Any]:
        with sail_session(embedded_emulator) as session:
            yield session

    def test_sail_delta_sink_exactly_once(self, spark: Any, embedded_emulator: Emulator, tmp_path: Path) -> None:
        ws = embedded_emulator.create_workspace("delta-sail")
        check_plain_sink(spark, embedded_emulator, ws, tmp_path, "sail")

    def test_sail_refuses_a_watermark(self, spark: Any, embedded_emulator: Emulator) -> None:
        """Sail 0.7 has no watermark (UnsupportedOperationException "with watermark"):
        the windowed aggregation of TestJvm does not run there, and says so."""
        ws = embedded_emulator.create_workspace("delta-sail-wm")
        es = embedded_emulator.create_eventstream(ws, "wm")
        embedded_emulator.produce(es, orders(2))
        df = spark.readStream.format("kafka").options(**{
            "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
            "startingOffsets": "earliest"}).load()
        agg = df.withWatermark("timestamp", "10 seconds").groupBy("partition").count()
        with pytest.raises(Exception, match="watermark"):
            agg.collect()


# -- JVM Spark with delta-spark ---------------------------------------------------------

def ts_events(prefix: str, times: list[str]) -> list[dict[str, Any]]:
    return [{"key": f"{prefix}-{i}", "value": {"id": i, "amount": 1.5 + i, "ts": t}} for i, t in enumerate(times)]


class TestJvm:
    pytestmark = pytest.mark.jvm

    @pytest.fixture(scope="class")
    @classmethod
    def spark(cls, kafka_emulator: Emulator) -> Iterator[Any]:
        from spark_agent import install
        from spark_agent.jvm import session_builder

        session = (session_builder("local[1]", delta=True).config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.session.timeZone", "UTC")
                   # INT64 microseconds, as Fabric's runtime writes them (Spark's default is INT96,
                   # which emulator/delta's reader does not take)
                   .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS").getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        install(session, kafka_emulator.url, kafka_emulator.token)
        try:
            yield session
        finally:
            for q in session.streams.active:
                q.stop()
            session.stop()

    def test_jvm_delta_sink_exactly_once(self, spark: Any, kafka_emulator: Emulator, tmp_path: Path) -> None:
        ws = kafka_emulator.create_workspace("delta-jvm")
        check_plain_sink(spark, kafka_emulator, ws, tmp_path, "jvm")

    def test_jvm_windowed_aggregation_with_watermark(self, spark: Any, kafka_emulator: Emulator,
                                                     tmp_path: Path) -> None:
        """Append mode emits a window once the watermark (max event time less
        10 s) passes its end; a restart from the checkpoint keeps the state, so
        each window lands in the table once, complete."""
        from pyspark.sql.functions import col, get_json_object, window
        from pyspark.sql.functions import sum as sum_

        emu = kafka_emulator
        ws = emu.create_workspace("delta-jvm-window")
        es = emu.create_eventstream(ws, "windows")
        table = lakehouse_tables(emu, ws, "jvm_window_lh") / "per_minute"
        ckpt = tmp_path / "ckpt"

        def run() -> None:
            raw = spark.readStream.format("kafka").options(**{
                "eventstream.itemid": es.item_id, "eventstream.datasourceid": es.datasource_id,
                "startingOffsets": "earliest"}).load()
            v = col("value").cast("string")
            agg = (raw.select(get_json_object(v, "$.ts").cast("timestamp").alias("ts"),
                              get_json_object(v, "$.amount").cast("double").alias("amount"))
                   .withWatermark("ts", "10 seconds").groupBy(window("ts", "1 minute"))
                   .agg(sum_("amount").alias("amount"))
                   .selectExpr("window.start AS window_start", "window.end AS window_end", "amount"))
            q = (agg.writeStream.format("delta").outputMode("append").option("checkpointLocation", str(ckpt))
                 .trigger(availableNow=True).start(str(table)))
            assert q.awaitTermination(240), "availableNow query did not finish"
            assert q.exception() is None

        emu.produce(es, ts_events("a", ["2026-01-01T00:00:05Z", "2026-01-01T00:00:20Z", "2026-01-01T00:00:40Z",
                                        "2026-01-01T00:01:10Z", "2026-01-01T00:01:30Z"]))
        run()
        emu.produce(es, ts_events("b", ["2026-01-01T00:02:10Z", "2026-01-01T00:02:30Z"]))
        run()
        got = sorted((r["window_start"].replace(tzinfo=timezone.utc), r["amount"]) for r in delta_rs_rows(table))
        m = [datetime(2026, 1, 1, 0, i, tzinfo=timezone.utc) for i in range(3)]
        # minute 0: 1.5+2.5+3.5; minute 1: 4.5+5.5; minute 2 still open (watermark 00:02:20)
        assert got == [(m[0], 7.5), (m[1], 10.0)], got
        go = go_read(table)
        assert sorted(r["amount"] for r in go["rows"]) == [7.5, 10.0]


# -- Delta checkpoints written by the emulator, read by Spark and delta-rs ----------------

def checkpointed_table(emu: Emulator, commits: int) -> tuple[Path, list[int]]:
    """A Lakehouse destination's table after ``commits`` produces of one event each
    (the produce waits until its event is delivered, so each is one commit)."""
    ws = emu.create_workspace("delta-checkpoints")
    es = emu.create_eventstream(ws, "checkpoints")
    lh = emu.call("POST", f"/v1/workspaces/{ws}/lakehouses", {"displayName": "ckpt_lh"})
    emu.bind_lakehouse(es, lh["id"], "events")
    ids = list(range(commits))
    for i in ids:
        emu.produce(es, [{"value": {"id": i, "name": f"n{i}", "amount": i + 0.5}}])
    return Path(lh["properties"]["x-fabrictest-localTablesPath"]) / "events", ids


def without_commits_before_checkpoint(table: Path, dest: Path) -> int:
    """Copy ``table`` to ``dest`` keeping, of the log, only the latest checkpoint and the
    commits after it (what log clean-up leaves): a reader must start from the checkpoint.
    Returns the checkpoint's version."""
    shutil.copytree(table, dest)
    log = dest / "_delta_log"
    version = json.loads((log / "_last_checkpoint").read_text())["version"]
    assert (log / f"{version:020d}.checkpoint.parquet").exists()
    for f in log.glob("*.json"):
        if int(f.name.split(".")[0]) <= version:
            f.unlink()
    return version


class TestCheckpointedTables:
    """Delta protocol "Checkpoints": a Parquet checkpoint and ``_last_checkpoint`` every
    10 commits; readers start from it (issue 19). Spark 3.5 with delta-spark and delta-rs
    read the table whole and read it from the checkpoint alone."""

    pytestmark = pytest.mark.jvm

    def test_spark_and_delta_rs_read_a_checkpointed_table(self, kafka_emulator: Emulator, tmp_path: Path) -> None:
        from deltalake import DeltaTable

        from spark_agent.jvm import session_builder

        table, ids = checkpointed_table(kafka_emulator, 23)
        trimmed = tmp_path / "trimmed"
        assert without_commits_before_checkpoint(table, trimmed) == 20
        spark = (session_builder("local[1]", delta=True).config("spark.ui.showConsoleProgress", "false")
                 .getOrCreate())
        try:
            for t in (table, trimmed):
                rows = spark.read.format("delta").load(str(t)).collect()
                assert sorted((r["id"], r["name"], r["amount"]) for r in rows) == \
                    [(i, f"n{i}", i + 0.5) for i in ids], t
                history = spark.sql(f"DESCRIBE HISTORY delta.`{t}`").select("version").collect()
                assert max(r["version"] for r in history) == 22
        finally:
            spark.stop()
        for t in (table, trimmed):
            dt = DeltaTable(str(t))
            assert dt.version() == 22
            assert sorted(r["id"] for r in dt.to_pyarrow_table().to_pylist()) == ids
