"""A service principal of the emulator's Entra token service, and a record of
what leaves the test process over HTTP.

The clients under test (azure-identity, microsoft-fabric-api on azure-core,
fabric-cicd, plain ``requests``) all send through ``requests``'
``HTTPAdapter``; :class:`Wire` wraps its ``send`` to record every request and
refuses any host that is not loopback, so a client that asks Microsoft
(``login.microsoftonline.com``) fails here the way it fails offline, and a
passing test shows that nothing but the emulator was asked.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

# Any GUID is a tenant the emulator accepts (README, "Identity"); this one
# becomes the tokens' tid.
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
# Any GUID client id with any secret gets tokens in the emulator's default
# (open) application mode.
CLIENT_ID = "0d5f3c2a-6b4e-4f1a-9c8d-7e6f5a4b3c2d"
CLIENT_SECRET = "emulator-secret-python"
FABRIC_SCOPE = "https://api.fabric.microsoft.com/.default"
STORAGE_SCOPE = "https://storage.azure.com/.default"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def service_principal_id(client_id: str) -> str:
    """The object id (``oid``) the emulator gives a client id: the SHA-1
    name-based UUID of ``urn:fabrictest:service-principal:<client id, lower
    case>`` in the URL namespace (README, "Identity"; Go:
    ``emulator.ServicePrincipalID``)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "urn:fabrictest:service-principal:" + client_id.lower()))


def claims(jwt: str) -> dict[str, Any]:
    """A JWT's payload, unverified (the emulator verifies; this reads)."""
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@dataclass
class Sent:
    method: str
    url: str
    status: int | None  # None: refused here (not loopback) or no answer
    form: dict[str, list[str]]  # a form-encoded body, parsed (token requests)

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def path(self) -> str:
        return urlsplit(self.url).path


class Wire:
    """Records every request sent through ``requests`` and refuses
    non-loopback hosts with ``requests.ConnectionError`` (no request leaves
    the machine)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import requests
        self.sent: list[Sent] = []
        real = requests.adapters.HTTPAdapter.send
        wire = self

        def send(adapter: Any, request: Any, **kw: Any) -> Any:
            body = request.body.decode() if isinstance(request.body, bytes) else (request.body or "")
            form = parse_qs(body) if "x-www-form-urlencoded" in request.headers.get("Content-Type", "") else {}
            s = Sent(request.method, request.url, None, form)
            wire.sent.append(s)
            if s.host not in LOOPBACK:
                raise requests.ConnectionError(f"test refuses a request outside loopback: {request.method} {request.url}")
            resp = real(adapter, request, **kw)
            s.status = resp.status_code
            return resp

        monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)

    def outside_loopback(self) -> list[str]:
        return [f"{s.method} {s.url}" for s in self.sent if s.host not in LOOPBACK]

    def token_requests(self) -> list[Sent]:
        return [s for s in self.sent if s.method == "POST" and s.path.endswith("/oauth2/v2.0/token")]

    def routes(self, base: str) -> list[str]:
        """``METHOD /v1/… STATUS`` of the Fabric API calls to ``base``."""
        return [f"{s.method} {s.url[len(base):]} {s.status}" for s in self.sent
                if s.url.startswith(base + "/v1/")]
