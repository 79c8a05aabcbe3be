"""The checkpoint of a driver-side streaming query on Sail.

One JSON file, :data:`CHECKPOINT_FILE`, in the query's ``checkpointLocation``:
the last batch's ``batchId`` and, per Kafka leaf of the query (keyed
``"{index}:{description}"``), the ``endOffset`` that batch ended at. The
one-shot micro-batch (:mod:`spark_agent.sail`) and the continuous query
(:mod:`spark_agent.streaming`) read and write the same format, so either
resumes where the other stopped. This module imports nothing of the package.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

Offsets = dict[str, dict[int, int]]

CHECKPOINT_FILE = "fabrictest-kafka-offsets.json"


def load_checkpoint(path: str | None) -> dict[str, Any] | None:
    """The checkpoint kept under ``path``; ``None`` without a path or a file."""
    if not path:
        return None
    f = Path(local_path(path)) / CHECKPOINT_FILE
    if not f.is_file():
        return None
    return json.loads(f.read_text())


def save_checkpoint(path: str, state: dict[str, Any]) -> None:
    """Replace the checkpoint under ``path`` with ``state`` (written aside, then renamed)."""
    d = Path(local_path(path))
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / (CHECKPOINT_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True))
    os.replace(tmp, d / CHECKPOINT_FILE)


def local_path(path: str) -> str:
    """``path`` without a ``file://`` or ``file:`` scheme."""
    return path[len("file://"):] if path.startswith("file://") else path[len("file:"):] if path.startswith("file:") else path


def parse_offsets(d: dict[str, dict[str, int]]) -> Offsets:
    """Offsets as a checkpoint's JSON keeps them (partition keys as strings) → ints."""
    return {t: {int(p): int(o) for p, o in ps.items()} for t, ps in d.items()}
