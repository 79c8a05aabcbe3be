"""HTTP calls to the emulator (standard library only), with Fabric's error
envelope kept on :class:`ApiError`."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any


class ApiError(AssertionError):
    """The emulator refused a call: ``status``, ``error_code`` (Fabric's
    ``errorCode``) and the answer's ``body``. An ``AssertionError``, so a
    test that hits one fails rather than errors."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        self.method, self.path, self.status, self.body = method, path, status, body
        env = body if isinstance(body, dict) else {}
        self.error_code = str(env.get("errorCode") or f"HTTP{status}")
        self.message = str(env.get("message") or body)
        super().__init__(f"{method} {path}: {status} {self.error_code}: {self.message}")


class Client:
    """Calls ``base_url`` with a bearer token from ``token`` (called on each
    call, so a new principal or a refreshed token is picked up)."""

    def __init__(self, base_url: str, token: Callable[[], str] | None,
                 ssl_context: ssl.SSLContext | None = None, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._ssl = ssl_context
        self.timeout = timeout

    def call(self, method: str, path: str, body: Any = None, *, auth: bool = True,
             timeout: float | None = None) -> Any:
        """One call; the decoded JSON answer (``None`` when empty). A non-2xx
        answer raises :class:`ApiError`."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if auth and self._token is not None:
            headers["Authorization"] = "Bearer " + self._token()
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout, context=self._ssl) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                decoded: Any = json.loads(raw) if raw else {}
            except ValueError:
                decoded = raw.decode(errors="replace")
            raise ApiError(method, path, e.code, decoded) from None
        return json.loads(raw) if raw else None
