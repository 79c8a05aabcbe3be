"""Runs a pytest session with the fabrictest plugin in a subprocess
(pytester), the way a project that installed the package runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib.metadata import entry_points
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]


def plugin_installed() -> bool:
    """Whether the fabrictest distribution's pytest11 entry point is installed here."""
    return any(ep.name == "fabrictest" for ep in entry_points(group="pytest11"))


def go_env() -> dict[str, str]:
    """GOCACHE, GOMODCACHE, GOPATH and GOENV (its settings file) as this process's go sees them ({} without go)."""
    go = shutil.which("go")
    if go is None:
        return {}
    out = subprocess.run([go, "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"], capture_output=True, text=True, timeout=60)
    values = out.stdout.split("\n")
    return {k: v for k, v in zip(("GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"), values) if v}


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str,
        binary: Path | None = None, timeout: float = 240) -> pytest.RunResult:
    """``pytest -p no:cacheprovider [args]`` in a subprocess, with python/ on
    PYTHONPATH and the plugin loaded (by its entry point when installed, else
    with -p); ``binary`` goes to --fabric-emulator-bin."""
    for name, value in go_env().items():  # pytester moves HOME: keep Go's caches where they are
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")])))
    extra = [] if plugin_installed() else ["-p", "fabrictest.plugin"]
    if binary is not None:
        extra += ["--fabric-emulator-bin", str(binary)]
    extra += ["-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"]
    return pytester.runpytest_subprocess(*extra, *args, timeout=timeout)
