"""Run a Jupyter notebook headless (nbclient) against an emulator, the way
a notebook user runs it beside ``make run``: the kernel gets the emulator's
environment, the engine to use (``FABRICTEST_ENGINE``) and imports the same
adapter (``spark_agent``) as the test's interpreter."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENGINE_ENV = "FABRICTEST_ENGINE"
WORKSPACE_ENV = "FABRIC_WORKSPACE_ID"


def notebook_missing() -> str | None:
    """Why notebooks cannot run headless here, or ``None``."""
    missing = []
    for name in ("nbformat", "nbclient", "ipykernel"):
        try:
            __import__(name)
        except ImportError as e:
            missing.append(f"{name} ({e})")
    if missing:
        return f"notebooks cannot run headless: {', '.join(missing)}; pip install 'fabrictest[notebook]'"
    return None


@dataclass
class NotebookRun:
    """An executed notebook: ``nb`` (nbformat's node, outputs filled in) and
    ``text`` (every stream and text/plain output, in cell order)."""

    path: Path
    nb: Any
    text: str

    def cell_outputs(self, index: int) -> str:
        """The text outputs of the code or markdown cell at ``index``."""
        return _text(self.nb.cells[index])


def _text(cell: Any) -> str:
    out = []
    for o in cell.get("outputs", ()):
        out.append(o.get("text") or "".join(o.get("data", {}).get("text/plain", "")))
    return "".join(out)


def kernel_pythonpath() -> str:
    """PYTHONPATH for the kernel: the directory this interpreter imports
    ``spark_agent`` from first (so a checkout's adapter is not shadowed by
    another install), then the current PYTHONPATH."""
    parts = []
    try:
        import spark_agent

        parts.append(str(Path(spark_agent.__file__).resolve().parents[1]))
    except ImportError:
        pass
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)


def run_notebook(path: str | os.PathLike[str], env: Mapping[str, str], *, cwd: str | os.PathLike[str] | None = None,
                 timeout: float = 300, kernel_name: str = "python3") -> NotebookRun:
    """Execute every cell of the notebook at ``path`` in a fresh kernel whose
    environment is this process's plus ``env`` (only for the run: this
    process's own environment is restored after). A cell that raises fails
    the run with nbclient's ``CellExecutionError`` (the cell and its
    traceback); a cell slower than ``timeout`` seconds with a timeout error."""
    import nbformat
    from nbclient import NotebookClient

    p = Path(path)
    nb = nbformat.read(p, as_version=4)
    saved = {k: os.environ.get(k) for k in (*env, "PYTHONPATH")}
    os.environ.update({**env, "PYTHONPATH": kernel_pythonpath()})
    try:
        NotebookClient(nb, timeout=int(timeout), kernel_name=kernel_name,
                       resources={"metadata": {"path": str(cwd or p.parent)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return NotebookRun(p, nb, "".join(_text(c) for c in nb.cells))
