"""A standalone Spark cluster on this machine: one master and two workers,
started from the same ``SPARK_HOME`` as the driver (the Scala 2.13 Spark
3.5.5 of ``scripts/install-spark-deps.sh``) with ``bin/spark-class``, every
listener on 127.0.0.1, and small settings (one core and 1 GiB per worker)
for a 2-core machine.

The processes are ``org.apache.spark.deploy.master.Master`` and
``org.apache.spark.deploy.worker.Worker`` in the foreground, each in a
process group of its own (``start_new_session``), so that :meth:`stop`
ends a worker and the executors it launched together. They also get
SIGTERM if the test process dies (``PR_SET_PDEATHSIG``), so a killed pytest
leaves no cluster behind. ``SPARK_LOCAL_IP=127.0.0.1`` keeps the web UIs,
which would otherwise listen on every interface, on loopback.

:func:`task_executors` reads a driver's event log (``spark.eventLog.*``)
for the executors that ran the tasks of the jobs a local property marked.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORKERS = 2
WORKER_CORES = 1
WORKER_MEMORY = "1g"
EXECUTOR_MEMORY = "512m"
DAEMON_MEMORY = "256m"  # heap of the master and worker daemons (SPARK_DAEMON_MEMORY)
START_TIMEOUT = 120.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Looked up here, in the parent: the child between fork and exec only calls it.
_prctl = ctypes.CDLL(None, use_errno=True).prctl
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent (pytest) dies."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class SparkCluster:
    """A running standalone cluster; ``master_url`` is ``spark://127.0.0.1:PORT``."""

    home: Path
    log_dir: Path
    master_url: str = ""
    web_url: str = ""
    started_in: float = 0.0
    procs: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def _spawn(self, name: str, cls: str, *args: str) -> None:
        env = dict(os.environ, SPARK_HOME=str(self.home), SPARK_LOCAL_IP="127.0.0.1",
                   SPARK_DAEMON_MEMORY=DAEMON_MEMORY)
        log = open(self.log_dir / f"{name}.log", "w")
        proc = subprocess.Popen([str(self.home / "bin" / "spark-class"), cls, *args], env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_die_with_parent)
        self.procs.append((name, proc))

    def state(self) -> dict[str, Any]:
        """The master's JSON status (``/json/`` of its web UI)."""
        with urllib.request.urlopen(self.web_url + "/json/", timeout=5) as r:
            return json.loads(r.read())

    def start(self) -> SparkCluster:
        t0 = time.monotonic()
        port, web = _free_port(), _free_port()
        self.master_url, self.web_url = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web}"
        self._spawn("master", "org.apache.spark.deploy.master.Master",
                    "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(web))
        self._wait("the master to be ALIVE", lambda: self.state().get("status") == "ALIVE")
        for i in range(WORKERS):
            work = self.log_dir / f"worker-{i}"
            work.mkdir(exist_ok=True)
            self._spawn(f"worker-{i}", "org.apache.spark.deploy.worker.Worker",
                        "--host", "127.0.0.1", "--webui-port", str(_free_port()), "--cores", str(WORKER_CORES),
                        "--memory", WORKER_MEMORY, "--work-dir", str(work), self.master_url)
        self._wait(f"{WORKERS} ALIVE workers", lambda: self.state().get("aliveworkers") == WORKERS)
        self.started_in = time.monotonic() - t0
        return self

    def _wait(self, what: str, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"spark {name} exited ({p.returncode}) waiting for {what}:\n{self.logs()}")
            try:
                if ready():
                    return
            except OSError:
                pass  # the web UI is not up yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out after {START_TIMEOUT:.0f}s waiting for {what}:\n{self.logs()}")
            time.sleep(0.25)

    def logs(self, tail: int = 3000) -> str:
        return "\n".join(f"--- {f.name}\n{f.read_text(errors='replace')[-tail:]}"
                         for f in sorted(self.log_dir.glob("*.log")))

    def stop(self) -> None:
        """SIGTERM to each process group (workers first, then the master),
        SIGKILL to any still there after 20 s."""
        for _, p in reversed(self.procs):
            _signal_group(p, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"spark {name} ignored SIGTERM; killing its process group", file=sys.stderr)
            _signal_group(p, signal.SIGKILL)  # the executors of a worker, if any is left
            p.wait(timeout=10)
        self.procs.clear()


def _signal_group(p: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def task_executors(event_log_dir: Path, app_id: str, key: str, value: str,
                   timeout: float = 30.0) -> list[tuple[str, str]]:
    """(executor id, host) of every task of the stages whose jobs carried the
    local property ``key=value``, from the driver's event log, once each of
    those stages has completed there (the log is written by an asynchronous
    listener, flushed at each stage's end)."""
    deadline = time.monotonic() + timeout
    while True:
        found = _read_tasks(event_log_dir, app_id, key, value)
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no completed stage with {key}={value} in the event log of {app_id} "
                                 f"under {event_log_dir} after {timeout}s")
        time.sleep(0.2)


def _read_tasks(event_log_dir: Path, app_id: str, key: str, value: str) -> list[tuple[str, str]] | None:
    logs = [p for p in event_log_dir.iterdir() if p.name.startswith(app_id)]
    if not logs:
        return None
    stages: set[int] = set()
    done: set[int] = set()
    tasks: list[tuple[int, str, str]] = []
    for line in logs[0].read_text().splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line still being written
        kind = ev.get("Event")
        if kind == "SparkListenerStageSubmitted" and (ev.get("Properties") or {}).get(key) == value:
            stages.add(ev["Stage Info"]["Stage ID"])
        elif kind == "SparkListenerStageCompleted":
            done.add(ev["Stage Info"]["Stage ID"])
        elif kind == "SparkListenerTaskEnd":
            info = ev["Task Info"]
            tasks.append((ev["Stage ID"], info["Executor ID"], info["Host"]))
    if not stages or not stages <= done:
        return None
    return [(ex, host) for stage, ex, host in tasks if stage in stages]
