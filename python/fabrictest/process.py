"""Find (or build) the fabric-emulator binary and run ``fabric-emulator serve``
on free loopback ports with a data dir of its own."""

from __future__ import annotations

import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

BIN_ENV = "FABRIC_EMULATOR_BIN"
MODULE_LINE = "module github.com/fabrictest/fabrictest"
READY = re.compile(r"fabric-emulator ready at (\S+) \((.*)\)$")
ENDPOINT = re.compile(r"custom endpoint (\S+?)(?:,|$)")


class EmulatorStartError(RuntimeError):
    """The emulator could not be found, built or started; the message says what to do."""


class NoBinaryError(EmulatorStartError):
    """No binary was named, none is on PATH and pytest runs outside a checkout."""


def module_root(start: Path) -> Path | None:
    """The checkout of github.com/fabrictest/fabrictest holding ``start``, if any."""
    for d in (start.resolve(), *start.resolve().parents):
        gomod = d / "go.mod"
        if gomod.is_file() and MODULE_LINE in gomod.read_text(errors="replace").splitlines()[0:5]:
            return d
    return None


def find_binary(option: str | None, search_from: Sequence[Path], build_dir: Path) -> Path:
    """The binary: ``option`` (--fabric-emulator-bin), else ``$FABRIC_EMULATOR_BIN``,
    else ``fabric-emulator`` on PATH, else ``go build`` in the checkout holding one
    of ``search_from``."""
    for name, value in (("--fabric-emulator-bin", option), (BIN_ENV, os.environ.get(BIN_ENV))):
        if value:
            p = Path(value).expanduser()
            if not (p.is_file() and os.access(p, os.X_OK)):
                raise EmulatorStartError(f"{name} names {value}, which is not an executable file")
            return p
    on_path = shutil.which("fabric-emulator")
    if on_path:
        return Path(on_path)
    for start in search_from:
        root = module_root(start)
        if root is not None:
            return build(root, build_dir)
    raise NoBinaryError(
        "no fabric-emulator binary: install it (go install github.com/fabrictest/fabrictest/emulator/cmd/"
        f"fabric-emulator@latest), put it on PATH, name it with --fabric-emulator-bin or {BIN_ENV}, or run "
        "pytest inside a fabrictest checkout (the plugin builds it there with go build)")


def build(root: Path, build_dir: Path) -> Path:
    """``go build ./emulator/cmd/fabric-emulator`` of the checkout at ``root``."""
    go = shutil.which("go")
    if go is None:
        raise EmulatorStartError(f"go not found on PATH: it builds the emulator from the checkout at {root}; "
                                 f"install Go, or name a built binary with --fabric-emulator-bin or {BIN_ENV}")
    out = build_dir / "fabric-emulator"
    proc = subprocess.run([go, "build", "-o", str(out), "./emulator/cmd/fabric-emulator"], cwd=root,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise EmulatorStartError(f"go build ./emulator/cmd/fabric-emulator in {root} failed:\n{proc.stderr}")
    return out


class Process:
    """A running ``fabric-emulator serve``: ``url``, ``kafka_bootstrap`` (the
    embedded broker), ``kafka_endpoint`` (the custom endpoint's Kafka
    surface), ``data_dir``, ``ca`` (``<data-dir>/tls/ca.pem`` under TLS),
    ``kafka`` (``embedded``, or the Apache Kafka ``host:port`` behind it)."""

    def __init__(self, binary: Path, *, tls: bool = False, data_dir: Path | None = None,
                 extra_args: Sequence[str] = (), ready_timeout: float = 60.0, kafka: str = "embedded",
                 kql_url: str | None = None) -> None:
        self.binary = binary
        self.tls = tls
        self.kafka = kafka
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="fabric-emulator-"))
        self.log_path = self.data_dir.parent / (self.data_dir.name + ".log")
        args = [str(binary), "serve", "--addr", "127.0.0.1:0", "--kafka", kafka,
                "--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", "127.0.0.1:0",
                "--data-dir", str(self.data_dir), *extra_args]
        if kql_url:
            args += ["--kql-url", kql_url]
        if tls:
            args.append("--tls")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        env = {k: v for k, v in os.environ.items() if not k.startswith("FABRIC_")}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._log, env=env)
        self.url, self.kafka_endpoint = self._read_ready(ready_timeout)
        self.ca = self.data_dir / "tls" / "ca.pem" if tls else None
        health = self._await_health(ready_timeout)
        self.kafka_bootstrap = ",".join(health.get("bootstrapServers") or [])

    def _read_ready(self, timeout: float) -> tuple[str, str]:
        found: list[str] = []
        done = threading.Event()

        def pump() -> None:
            assert self.proc.stdout is not None
            for raw in self.proc.stdout:
                line = raw.decode(errors="replace").rstrip()
                if not found and READY.search(line):
                    found.append(line)
                    done.set()
            done.set()

        threading.Thread(target=pump, daemon=True).start()
        done.wait(timeout)
        if not found:
            self.stop()
            raise EmulatorStartError(f"{self.binary} serve printed no ready line within {timeout:.0f}s "
                                     f"(exit code {self.proc.returncode}); its log:\n{self.log_tail()}")
        m = READY.search(found[0])
        assert m is not None
        ep = ENDPOINT.search(m.group(2))
        return m.group(1), ep.group(1) if ep else ""

    def _await_health(self, timeout: float) -> dict:
        import json

        ctx = ssl.create_default_context(cafile=str(self.ca)) if self.ca else None
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_emulator/health", timeout=5, context=ctx) as r:
                    return json.loads(r.read())
            except Exception as e:  # not listening yet, or a TLS or HTTP error worth reporting
                last = e
                time.sleep(0.1)
        self.stop()
        raise EmulatorStartError(f"GET {self.url}/_emulator/health did not answer 200 within {timeout:.0f}s "
                                 f"({last}); the emulator's log:\n{self.log_tail()}")

    def host_path(self, path: str) -> Path:
        """A path the emulator names, on this host (the same path)."""
        return Path(path)

    def version(self) -> str:
        """What ``fabric-emulator version`` prints for this binary."""
        return subprocess.run([str(self.binary), "version"], capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the emulator's stderr log."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM this process (and only it), SIGKILL after ``timeout``; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        return self.proc.returncode
