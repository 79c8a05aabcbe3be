"""A small client for the fabrictest emulator's REST surface (standard library only).

The adapter needs three calls:

* ``POST /_emulator/token`` — a bearer token (loopback callers only);
* ``GET /v1/eventstreams/{item}/sources/{ds}`` — the Spark resolve:
  ``{itemId, datasourceId, bootstrapServers, topic, securityProtocol, …}``;
* ``GET /v1/eventstreams/{item}/sources/{ds}/events`` — consume with Kafka's
  columns (key/value/header values base64), paged with ``nextOffsets``.

Every failure the emulator answers carries Fabric's error envelope
``{errorCode, message, requestId, …}``; :class:`FabricApiError` keeps it.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .identity import HOW_TO_CHOOSE, Identity, token_principal
from .identity import from_environment as identity_from_environment

DEFAULT_URL = "http://127.0.0.1:5080"
URL_ENV = "FABRIC_EMULATOR_URL"
TOKEN_ENV = "FABRIC_EMULATOR_TOKEN"

TokenSource = str | Callable[[], str] | None


class FabricApiError(RuntimeError):
    """A call to the emulator failed; carries Fabric's error envelope.

    ``error_code`` is the envelope's ``errorCode`` (``ItemNotFound``,
    ``DatasourceNotFound``, ``InvalidToken``, ``KafkaNotConfigured``, …), or
    ``EmulatorUnreachable`` when nothing answered.
    """

    def __init__(
        self,
        status: int,
        error_code: str,
        message: str,
        *,
        method: str = "",
        url: str = "",
        request_id: str | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> None:
        self.status = status
        self.error_code = error_code
        self.message = message
        self.method = method
        self.url = url
        self.request_id = request_id
        self.body = dict(body or {})
        where = f" ({method} {url})" if method else ""
        rid = f" [requestId {request_id}]" if request_id else ""
        super().__init__(f"{status} {error_code}: {message}{where}{rid}")


@dataclass
class Source:
    """What the resolve route answers for one (itemId, datasourceId) pair."""

    item_id: str
    datasource_id: str
    bootstrap_servers: str
    topic: str
    security_protocol: str = "PLAINTEXT"
    workspace_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Source:
        return cls(
            item_id=str(body.get("itemId", "")),
            datasource_id=str(body.get("datasourceId", "")),
            bootstrap_servers=str(body.get("bootstrapServers", "")),
            topic=str(body.get("topic", "")),
            security_protocol=str(body.get("securityProtocol") or "PLAINTEXT"),
            workspace_id=body.get("workspaceId"),
            raw=dict(body),
        )

    def kafka_options(self) -> dict[str, str]:
        """The Spark Kafka options this source becomes (JVM rewrite).

        ``kafka.bootstrap.servers`` and ``subscribe``, plus the security options
        when the cluster is not plaintext: ``kafkaProperties`` (each key
        prefixed with ``kafka.``), ``securityProtocol``,
        ``saslMechanism`` and ``saslJaasConfig`` (or ``username``/``password``,
        turned into a JAAS line for PLAIN or SCRAM) when the resolve names them.
        """
        opts = {"kafka.bootstrap.servers": self.bootstrap_servers, "subscribe": self.topic}
        proto = self.security_protocol.upper()
        if proto and proto != "PLAINTEXT":
            opts["kafka.security.protocol"] = proto
        mech = self.raw.get("saslMechanism")
        if mech:
            opts["kafka.sasl.mechanism"] = str(mech)
        jaas = self.raw.get("saslJaasConfig")
        if not jaas and self.raw.get("username") is not None:
            module = (
                "org.apache.kafka.common.security.scram.ScramLoginModule"
                if str(mech or "").upper().startswith("SCRAM")
                else "org.apache.kafka.common.security.plain.PlainLoginModule"
            )
            jaas = (
                f'{module} required username="{self.raw["username"]}" '
                f'password="{self.raw.get("password", "")}";'
            )
        if jaas:
            opts["kafka.sasl.jaas.config"] = str(jaas)
        for key, opt in (("sslTruststoreLocation", "kafka.ssl.truststore.location"),
                         ("sslTruststoreType", "kafka.ssl.truststore.type")):
            if self.raw.get(key):
                opts[opt] = str(self.raw[key])
        # A secured cluster behind the emulator (--kafka-config): its Kafka
        # client properties, inline PEM trust store (and, when the user shared
        # them, sasl.jaas.config and the PEM key store) included.
        for key, value in (self.raw.get("kafkaProperties") or {}).items():
            opts["kafka." + str(key)] = "" if value is None else str(value)
        return opts


class EmulatorClient:
    """Calls the emulator with a bearer token.

    ``token`` is a string, a callable returning one, or ``None``: then the
    notebook's identity from the environment (:mod:`spark_agent.identity`:
    the ``AZURE_*`` service principal through azure-identity, else
    ``$FABRIC_EMULATOR_TOKEN``), else a token minted by ``POST /_emulator/token``
    for the default principal on first use (and minted again once when the
    emulator answers ``TokenExpired``). A ``403`` names the principal, the
    workspace and how to choose another identity.
    """

    def __init__(self, url: str | None = None, token: TokenSource = None, *, timeout: float = 60.0) -> None:
        self.url = (url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
        if token is not None:
            self.identity = Identity("the token passed to install()", token)
        else:
            self.identity = identity_from_environment(self.url)
        self._token_source = self.identity.token
        self._token: str | None = None
        self._lock = threading.Lock()
        self.timeout = timeout

    # -- token -----------------------------------------------------------------
    def token(self, *, refresh: bool = False) -> str:
        """The bearer token to send (fetched or minted lazily)."""
        with self._lock:
            src = self._token_source
            if isinstance(src, str):
                return src
            if callable(src):
                return src()
            if self._token is None or refresh:
                body = self._request("POST", "/_emulator/token", token=None, body={})
                tok = body.get("access_token") if isinstance(body, dict) else None
                if not tok:
                    raise FabricApiError(0, "InvalidToken", f"POST {self.url}/_emulator/token answered no access_token")
                self._token = str(tok)
            return self._token

    # -- raw HTTP --------------------------------------------------------------
    def _request(self, method: str, path: str, *, token: str | None, body: Any = None,
                 query: Mapping[str, Any] | None = None) -> Any:
        url = self.url + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                env = json.loads(raw or b"{}")
            except ValueError:
                env = {}
            if not isinstance(env, dict):
                env = {}
            raise FabricApiError(
                e.code,
                str(env.get("errorCode") or e.headers.get("x-ms-public-api-error-code") or f"HTTP{e.code}"),
                str(env.get("message") or raw[:500].decode(errors="replace") or e.reason),
                method=method, url=url,
                request_id=env.get("requestId") or e.headers.get("requestid"),
                body=env,
            ) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise FabricApiError(
                0, "EmulatorUnreachable",
                f"no answer from the Fabric emulator at {self.url}: {reason}; start it "
                f"(fabric-emulator serve) or point {URL_ENV} at it",
                method=method, url=url,
            ) from None
        return json.loads(raw) if raw else None

    def call(self, method: str, path: str, *, body: Any = None, query: Mapping[str, Any] | None = None) -> Any:
        """One authenticated call; a ``TokenExpired`` answer re-mints once."""
        token = self.token()
        try:
            return self._request(method, path, token=token, body=body, query=query)
        except FabricApiError as e:
            if e.error_code == "TokenExpired" and self._token_source is None:
                return self._request(method, path, token=self.token(refresh=True), body=body, query=query)
            if e.status == 403:
                raise self._forbidden(e, token) from None
            raise

    def _forbidden(self, e: FabricApiError, token: str) -> FabricApiError:
        """``e`` with the principal, the workspace and how to choose another identity."""
        related = e.body.get("relatedResource") if isinstance(e.body.get("relatedResource"), dict) else {}
        workspace = related.get("resourceId") or "its workspace"
        principal = token_principal(token) or "unknown"
        msg = (f"{e.message} — the notebook runs as principal {principal} ({self.identity.source}), "
               f"which may not do this in workspace {workspace}; "
               + HOW_TO_CHOOSE.replace("{workspace}", str(related.get("resourceId") or "{workspace}")))
        return FabricApiError(e.status, e.error_code, msg, method=e.method, url=e.url,
                              request_id=e.request_id, body=e.body)

    # -- the routes the adapter uses -------------------------------------------
    @staticmethod
    def _source_path(item_id: str, datasource_id: str) -> str:
        q = urllib.parse.quote
        return f"/v1/eventstreams/{q(item_id, safe='')}/sources/{q(datasource_id, safe='')}"

    def resolve(self, item_id: str, datasource_id: str) -> Source:
        """The Spark resolve: bootstrap servers and topic of an Eventstream source."""
        return Source.from_json(self.call("GET", self._source_path(item_id, datasource_id)))

    def consume_pages(
        self,
        item_id: str,
        datasource_id: str,
        *,
        starting_offsets: str | None = None,
        ending_offsets: str | None = None,
        page_records: int = 100_000,
        timeout_ms: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Pages of the consume route, following ``nextOffsets`` until ``complete``.

        The first page reads from ``starting_offsets``; each following page
        starts at the previous page's ``nextOffsets``. ``ending_offsets`` is sent
        with every page.
        """
        path = self._source_path(item_id, datasource_id) + "/events"
        start = starting_offsets
        while True:
            page = self.call("GET", path, query={
                "startingOffsets": start, "endingOffsets": ending_offsets,
                "maxRecords": page_records, "timeoutMs": timeout_ms,
            })
            yield page
            if page.get("complete", True):
                return
            if not page.get("count"):
                raise FabricApiError(
                    0, "ConsumeIncomplete",
                    f"the emulator answered an incomplete page with no records (startingOffsets={start}, "
                    f"endingOffsets={ending_offsets}); offsets not written yet within timeoutMs?",
                    method="GET", url=self.url + path)
            start = json.dumps(page["nextOffsets"])
