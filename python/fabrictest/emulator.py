"""What the ``fabric_emulator`` fixture yields: a running emulator, its
addresses, tokens for any principal, and the environment a notebook or SDK needs."""

from __future__ import annotations

import ssl
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from .client import Client
from .items import Workspace
from .process import Process

if TYPE_CHECKING:
    from .container import ContainerProcess

FABRIC_AUDIENCE = "https://api.fabric.microsoft.com"
DEFAULT_TENANT = "00000000-0000-0000-0000-0000000000f1"


def service_principal_id(client_id: str) -> str:
    """The object id the emulator gives the service principal of ``client_id``."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "urn:fabrictest:service-principal:" + client_id.lower()))


class FabricEmulator:
    """A running standalone emulator (one per pytest session, or per xdist worker).

    ``url`` (``http://127.0.0.1:<port>``, ``https://…`` under ``--tls``),
    ``kafka_bootstrap`` (the embedded broker), ``kafka_endpoint`` (the custom
    endpoint's Kafka surface), ``ca`` (the CA file under ``--tls``, else
    ``None``), ``data_dir``, ``binary`` (the image's name when the emulator
    runs as a container), ``kafka`` (``embedded``, or the
    Apache Kafka ``host:port`` the emulator runs on).
    """

    def __init__(self, process: Process | ContainerProcess) -> None:
        self._process = process
        self.url = process.url
        self.kafka_bootstrap = process.kafka_bootstrap
        self.kafka_endpoint = process.kafka_endpoint
        self.ca: Path | None = process.ca
        self.data_dir = process.data_dir
        self.binary = process.binary
        self.kafka = process.kafka
        self._tokens: dict[tuple[str | None, str | None], str] = {}

    def ssl_context(self) -> ssl.SSLContext | None:
        """An SSL context trusting the emulator's CA (``None`` over plain HTTP)."""
        return ssl.create_default_context(cafile=str(self.ca)) if self.ca else None

    def token(self, principal: str | None = None, audience: str | None = None) -> str:
        """A bearer token (POST /_emulator/token) for ``principal`` (an object
        id; default the emulator's default user) and ``audience`` (default
        the Fabric API; ``https://storage.azure.com`` for OneLake)."""
        key = (principal, audience)
        if key not in self._tokens:
            body = {k: v for k, v in (("principal", principal), ("audience", audience)) if v}
            out = Client(self.url, None, self.ssl_context()).call("POST", "/_emulator/token", body, auth=False)
            self._tokens[key] = out["access_token"]
        return self._tokens[key]

    def client(self, principal: str | None = None) -> Client:
        """A REST client calling as ``principal`` (default the default user)."""
        return Client(self.url, lambda: self.token(principal), self.ssl_context())

    def workspace(self, name: str, principal: str | None = None) -> Workspace:
        """A new workspace named ``name``, created by ``principal`` (its Admin)."""
        c = self.client(principal)
        out = c.call("POST", "/v1/workspaces", {"displayName": name})
        return Workspace(c, out["id"], out["displayName"], self.ca, self._process.host_path)

    def env(self, client_id: str | None = None, client_secret: str = "secret",
            tenant_id: str = DEFAULT_TENANT) -> dict[str, str]:
        """The environment a notebook (spark_agent) or an Azure SDK needs:
        ``FABRIC_EMULATOR_URL``, ``FABRIC_KAFKA_BOOTSTRAP``, and under
        ``--tls`` ``REQUESTS_CA_BUNDLE`` and ``SSL_CERT_FILE``; with
        ``client_id``, the service principal's ``AZURE_CLIENT_ID``,
        ``AZURE_TENANT_ID``, ``AZURE_CLIENT_SECRET`` and ``AZURE_AUTHORITY_HOST``
        (azure-identity needs the emulator under --tls: its authority host must
        be https)."""
        out = {"FABRIC_EMULATOR_URL": self.url, "FABRIC_KAFKA_BOOTSTRAP": self.kafka_bootstrap}
        if self.ca:
            out.update(REQUESTS_CA_BUNDLE=str(self.ca), SSL_CERT_FILE=str(self.ca))
        if client_id:
            out.update(AZURE_CLIENT_ID=client_id, AZURE_TENANT_ID=tenant_id,
                       AZURE_CLIENT_SECRET=client_secret, AZURE_AUTHORITY_HOST=self.url)
        return out

    def version(self) -> str:
        """What ``fabric-emulator version`` prints (the binary, or inside the container)."""
        return self._process.version()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the emulator's log (its stderr)."""
        return self._process.log_tail(lines)

    def __repr__(self) -> str:
        return f"FabricEmulator(url={self.url!r}, kafka_endpoint={self.kafka_endpoint!r})"


