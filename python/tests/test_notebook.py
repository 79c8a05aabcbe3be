"""examples/eventstream_notebook.ipynb, executed headless with nbclient against
the standalone emulator binary (``fabric-emulator serve``, embedded broker), on
Sail (the notebook's default engine).

Follows Microsoft Learn "Process Eventstream data with a notebook"
(notebook-with-event-stream): the cell reads ``format("kafka")`` with
``eventstream.itemid`` / ``eventstream.datasourceid`` and shows each batch.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import REPO, Emulator

pytestmark = pytest.mark.sail

NOTEBOOK = REPO / "examples" / "eventstream_notebook.ipynb"


def _outputs(nb: object) -> str:
    text = []
    for cell in nb.cells:  # type: ignore[attr-defined]
        for out in cell.get("outputs", ()):
            text.append(out.get("text") or "".join(out.get("data", {}).get("text/plain", "")))
    return "".join(text)


def test_notebook_runs_on_sail(embedded_emulator: Emulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("FABRIC_EMULATOR_URL", embedded_emulator.url)
    monkeypatch.setenv("FABRICTEST_ENGINE", "sail")
    # The kernel imports this checkout's adapter, whatever the venv's editable install names.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH"))
                                                     if p))
    for var in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE"):
        monkeypatch.delenv(var, raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    out = _outputs(nb)
    assert "engine sail" in out, out
    assert re.search(r"resolves to kafka.bootstrap.servers=127\.0\.0\.1:\d+ subscribe=\S+", out), out
    assert "produced 5 events" in out, out
    rows = re.findall(r"^row (order-\d) (\{.*\})$", out, re.M)
    assert rows == [(f"order-{i}", f'{{"id":{i},"amount":{10 + i}}}') for i in range(5)], out
    assert "|order-0" in out  # showDf's df.show() table
    assert "both eventstream.itemid and eventstream.datasourceid" in out, out
