"""Under pytest-xdist each worker starts its own emulator and each test has
its own workspace, so tests that create items of the same names run side by
side without seeing each other."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_run import run

pytest_plugins = ["pytester"]

SAME_NAMES = '''
import os
import pytest

@pytest.mark.parametrize("n", range(6))
def test_same_names_apart(fabric_emulator, fabric_workspace, n):
    es = fabric_workspace.eventstream("orders")
    lh = fabric_workspace.lakehouse("sales")
    es.bind_lakehouse(lh, "orders")
    es.produce(*[{"n": n, "i": i} for i in range(n + 1)])
    rows = lh.table("orders").wait_rows(n + 1)
    assert sorted((r["n"], r["i"]) for r in rows) == [(n, i) for i in range(n + 1)]
    with open(os.environ["URLS_FILE"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + " " + fabric_emulator.url + "\\n")
'''


def test_xdist_workers_each_run_an_emulator(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                            emulator_binary: Path) -> None:
    urls = Path(pytester.path) / "urls.txt"
    monkeypatch.setenv("URLS_FILE", str(urls))
    pytester.makepyfile(test_same=SAME_NAMES)
    result = run(pytester, monkeypatch, "-n", "2", binary=emulator_binary)
    result.assert_outcomes(passed=6)
    seen = dict(line.split() for line in urls.read_text().splitlines())
    assert set(seen) == {"gw0", "gw1"}, seen
    assert seen["gw0"] != seen["gw1"], seen
