"""The emulator image (``fabrictest/emulator:local``, built on this machine
by ``scripts/build-emulator-image.sh``) run with testcontainers-python when
Docker is there: the same surface as :class:`fabrictest.process.Process`.

Every port is published on 127.0.0.1 only, on free host ports the
connection strings advertise (``FABRIC_KAFKA_ENDPOINT_ADVERTISED``,
``FABRIC_AMQP_ENDPOINT_ADVERTISED``); tokens are minted through the
published port (``FABRIC_REMOTE_TOKENS``: a request through it comes from
the bridge gateway, not loopback); the data dir is a host directory mounted
on ``/data``, so Lakehouse tables are read where the container writes them.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from .process import EmulatorStartError

DEFAULT_IMAGE = "fabrictest/emulator:local"
IMAGE_ENV = "FABRIC_EMULATOR_IMAGE"
BUILD_HINT = "build it on this machine with scripts/build-emulator-image.sh (make emulator-image)"
PORTS = {"http": 5080, "kafka": 9093, "amqp": 5672}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def docker_missing() -> str | None:
    """Why the image cannot run here (testcontainers or the Docker engine
    missing), or ``None``."""
    try:
        import docker
        import testcontainers.core.container  # noqa: F401
    except Exception as e:  # ImportError, or an install without its metadata
        return f"testcontainers-python is not installed ({e}): pip install 'fabrictest[container]'"
    try:
        docker.from_env().ping()
    except Exception as e:  # no socket, no permission, engine down: all say the same to the user
        return f"no Docker engine answers ({e})"
    return None


def image_present(image: str) -> bool:
    """Whether ``image`` is in the local engine (nothing is ever pulled)."""
    import docker
    from docker.errors import ImageNotFound

    try:
        docker.from_env().images.get(image)
        return True
    except ImageNotFound:
        return False


class ContainerProcess:
    """A running emulator container: ``url``, ``kafka_endpoint``,
    ``kafka_bootstrap`` (empty: the embedded broker listens on the
    container's loopback), ``data_dir`` (the host side of ``/data``), ``ca``
    (``None``: ``--tls`` is not offered here), ``image``, ``kafka``."""

    def __init__(self, image: str, *, data_dir: Path, tls: bool = False, extra_args: Sequence[str] = (),
                 kafka: str = "embedded", kql_url: str | None = None, ready_timeout: float = 60.0) -> None:
        if tls:
            raise EmulatorStartError("--fabric-emulator-tls is not offered with the emulator image: "
                                     "run the binary (--fabric-emulator-bin) for TLS")
        reason = docker_missing()
        if reason:
            raise EmulatorStartError(f"the emulator image {image} needs Docker: {reason}")
        if not image_present(image):
            hint = BUILD_HINT if image == DEFAULT_IMAGE else "build or load it into the local engine"
            raise EmulatorStartError(f"the emulator image {image} is not in the local Docker engine: {hint}")
        from testcontainers.core.container import DockerContainer

        os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")  # the container is stopped by stop()
        self.image = self.binary = image
        self.kafka, self.ca, self.kafka_bootstrap = kafka, None, ""
        self.data_dir = data_dir
        data_dir.chmod(0o777)  # the image runs as an unprivileged user
        host = {name: _free_port() for name in PORTS}
        env = {
            "FABRIC_EMULATOR_ADDR": f"0.0.0.0:{PORTS['http']}",
            "FABRIC_KAFKA_ENDPOINT": f"0.0.0.0:{PORTS['kafka']}",
            "FABRIC_KAFKA_ENDPOINT_ADVERTISED": f"127.0.0.1:{host['kafka']}",
            "FABRIC_AMQP_ENDPOINT": f"0.0.0.0:{PORTS['amqp']}",
            "FABRIC_AMQP_ENDPOINT_ADVERTISED": f"127.0.0.1:{host['amqp']}",
            "FABRIC_REMOTE_TOKENS": "true", "FABRIC_EMULATOR_DATA": "/data", "FABRIC_KAFKA_BOOTSTRAP": kafka,
        }
        if kql_url:
            env["FABRIC_KQL_URL"] = kql_url
        c = DockerContainer(image, env=env, command=["serve", *extra_args])
        for name, port in PORTS.items():  # docker-py's (ip, port): published on loopback only
            c.ports[f"{port}/tcp"] = ("127.0.0.1", host[name])  # type: ignore[assignment]
        c.with_volume_mapping(str(data_dir.resolve()), "/data", "rw")
        self._container = c.start()
        self.url = f"http://127.0.0.1:{host['http']}"
        self.kafka_endpoint = f"127.0.0.1:{host['kafka']}"
        self._await_health(ready_timeout)

    def _await_health(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            wrapped = self._container.get_wrapped_container()
            wrapped.reload()
            if wrapped.status in ("exited", "dead"):
                break
            try:
                with urllib.request.urlopen(self.url + "/_emulator/health", timeout=5) as r:
                    json.loads(r.read())
                    return
            except Exception as e:  # not listening yet
                last = e
                time.sleep(0.2)
        logs = self.log_tail()
        self.stop()
        raise EmulatorStartError(f"the emulator container ({self.image}) did not answer GET /_emulator/health "
                                 f"within {timeout:.0f}s ({last}); its log:\n{logs}")

    def host_path(self, path: str) -> Path:
        """A path the emulator names (under ``/data`` in the container) on this host."""
        p = Path(path)
        return self.data_dir / p.relative_to("/data") if p.is_relative_to("/data") else p

    def version(self) -> str:
        """What ``fabric-emulator version`` prints inside the container."""
        code, out = self._container.exec(["/fabric-emulator", "version"])
        if code != 0:
            raise RuntimeError(f"/fabric-emulator version exited {code}: {out!r}")
        return out.decode().strip()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the container's log."""
        try:
            out, err = self._container.get_logs()
        except Exception as e:  # the container is gone
            return f"(no log: {e})"
        return "\n".join((out + err).decode(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 15.0) -> int | None:
        """Stop and remove the container (this one only); its exit code."""
        wrapped = self._container.get_wrapped_container()
        if wrapped is None:
            return None
        try:
            wrapped.stop(timeout=int(timeout))
            wrapped.reload()
            code = wrapped.attrs.get("State", {}).get("ExitCode")
        finally:
            wrapped.remove(force=True)
        return code
