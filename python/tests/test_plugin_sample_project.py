"""examples/python, the way a downstream project runs it: a fresh venv
(python -m venv), pip install of python/ (the fabrictest distribution with its
pytest11 entry point), and the sample's own pytest against a freshly built
fabric-emulator named by FABRIC_EMULATOR_BIN.

The fresh venv resolves nothing from the network: this interpreter builds the
wheel of a copy of python/ (so no build files land in the checkout), the venv
installs it with ``pip install --no-deps --no-index``, and a .pth file puts this interpreter's site-packages
(pytest, deltalake, kafka-python, setuptools' wheel builder) after the venv's own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from plugin_run import PYTHON_DIR

REPO = PYTHON_DIR.parent
SAMPLE = REPO / "examples" / "python"


def outside_paths() -> list[str]:
    """This interpreter's sys.path directories but the checkout's sources (the
    fresh venv must import fabrictest from its install, not from python/); a
    venv inside the checkout (.cache/venv, as make test makes it) is kept."""
    out = []
    for p in sys.path:
        if not p or not os.path.isdir(p):
            continue
        r = Path(p).resolve()
        if r == REPO or r.is_relative_to(PYTHON_DIR) or r.is_relative_to(SAMPLE):
            continue
        out.append(p)
    return out


def test_sample_project_in_a_fresh_venv(tmp_path: Path, emulator_binary: Path) -> None:
    t0 = time.monotonic()
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "fabrictest", "spark_agent"):
        copy = shutil.copytree if (PYTHON_DIR / name).is_dir() else shutil.copy2
        copy(PYTHON_DIR / name, src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "zz-outer-site.pth").write_text("\n".join(outside_paths()) + "\n")
    # The wheel is built by this interpreter (its setuptools is the one the
    # requirements pin; the venv's bundled one may predate bdist_wheel), then
    # installed into the fresh venv as a downstream project installs it.
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--disable-pip-version-check", "-q", "-w", str(dist), str(src)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next(dist.glob("fabrictest-*.whl"))
    pip = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index",
                          "--disable-pip-version-check", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    probe = subprocess.run([str(py), "-c", (
        "import fabrictest, importlib.metadata as m; print(fabrictest.__file__); print(m.version('fabrictest')); "
        "print([e.value for e in m.entry_points(group='pytest11') if e.name == 'fabrictest'])")],
        capture_output=True, text=True, check=True, cwd=tmp_path).stdout.splitlines()
    assert probe[0].startswith(site), probe
    assert probe[1] == fabrictest_version(), probe
    assert probe[2] == "['fabrictest.plugin']", probe
    env = {**os.environ, "FABRIC_EMULATOR_BIN": str(emulator_binary), "PYTHONDONTWRITEBYTECODE": "1"}
    for var in ("PYTHONPATH", "FABRIC_EMULATOR_KAFKA"):  # the emulator on its embedded broker
        env.pop(var, None)
    run = subprocess.run([str(py), "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", str(SAMPLE)],
                         capture_output=True, text=True, timeout=600, env=env, cwd=SAMPLE)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    # The orders tests and the notebook's (run headless, and its cell) on
    # Sail; both on JVM Spark are skipped: the embedded broker is not
    # Apache Kafka (and the venv's installed adapter finds no SPARK_HOME).
    assert "4 passed, 2 skipped" in run.stdout, run.stdout[-2000:]
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED [1]")]
    assert len(skips) == 2 and all("JVM Spark" in line for line in skips), skips
    print(f"fresh venv, install and the sample's 6 tests in {time.monotonic() - t0:.1f}s")


def fabrictest_version() -> str:
    """The version python/pyproject.toml declares."""
    for line in (PYTHON_DIR / "pyproject.toml").read_text().splitlines():
        if line.startswith("version = "):
            return line.split('"')[1]
    raise AssertionError("python/pyproject.toml declares no version")
