"""The example notebook (examples/eventstream_notebook.ipynb) and the Fabric
notebook cell it holds, on Sail and on JVM Spark, through the installed
plugin's fixtures only: fabric_notebook runs the notebook headless, fabric_spark
gives the cell a session on each engine. An engine that is not installed here
(or JVM Spark over the emulator's embedded broker) is skipped with the reason."""

import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "eventstream_notebook.ipynb"


@pytest.mark.parametrize("engine", ["sail", "jvm"])
def test_the_notebook_runs_headless(fabric_notebook, fabric_workspace, engine):
    out = fabric_notebook(NOTEBOOK, engine=engine, workspace=fabric_workspace).text
    assert f"engine {engine}" in out, out
    assert re.search(r"resolves to kafka.bootstrap.servers=\S+ subscribe=\S+", out), out
    assert "produced 5 events" in out, out
    rows = re.findall(r"^row (order-\d) (\{.*\})$", out, re.MULTILINE)
    assert rows == [(f"order-{i}", f'{{"id":{i},"amount":{10 + i}}}') for i in range(5)], out
    assert "both eventstream.itemid and eventstream.datasourceid" in out, out
    # The notebook worked in the test's own workspace, not one of its own.
    items = fabric_workspace.client.call("GET", fabric_workspace.path + "/eventstreams")["value"]
    assert [i["displayName"] for i in items] == ["orders"]


def test_the_fabric_cell(fabric_spark, fabric_workspace):
    eventstream = fabric_workspace.eventstream("orders")
    eventstream.produce(*({"id": i, "amount": 10 + i} for i in range(3)))
    batches = []
    df = fabric_spark.readStream.format("kafka").options(**{
        "eventstream.itemid": eventstream.id,
        "eventstream.datasourceid": eventstream.datasource_id,
        "startingOffsets": "earliest",
    }).load()
    query = (df.selectExpr("CAST(value AS STRING) AS value", "topic").writeStream
             .foreachBatch(lambda batch, _: batches.append(batch.collect()))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    rows = [r for b in batches for r in b]
    assert sorted(r["value"] for r in rows) == [f'{{"id":{i},"amount":{10 + i}}}' for i in range(3)]
    assert {r["topic"] for r in rows} == {eventstream.topic}
