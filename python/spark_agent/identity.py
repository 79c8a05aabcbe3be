"""The notebook's identity, taken the way the Azure SDKs take one.

In Fabric a notebook runs as its signed-in identity. Locally the adapter
picks the principal in this order:

1. ``AZURE_CLIENT_ID``, ``AZURE_TENANT_ID``, ``AZURE_CLIENT_SECRET`` (and
   ``AZURE_AUTHORITY_HOST``, default the emulator's URL): a service principal
   through azure-identity's ``ClientSecretCredential`` (the client-credentials
   grant against the emulator's Entra-compatible token service, as
   ``EnvironmentCredential`` reads the same variables);
2. ``FABRIC_EMULATOR_TOKEN``: a bearer token handed in;
3. the emulator's default principal (``POST /_emulator/token``).

azure-identity is optional: with the ``AZURE_*`` variables set and the
package missing, :func:`from_environment` fails saying so.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

AZURE_VARS = ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET")
AUTHORITY_ENV = "AZURE_AUTHORITY_HOST"
TOKEN_ENV = "FABRIC_EMULATOR_TOKEN"
FABRIC_SCOPE = "https://api.fabric.microsoft.com/.default"
HOW_TO_CHOOSE = (
    "choose the notebook's identity with AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET "
    "(a service principal, through azure-identity; AZURE_AUTHORITY_HOST is the emulator's URL), or hand a "
    "token in with FABRIC_EMULATOR_TOKEN, or give this principal a role "
    "(POST /v1/workspaces/{workspace}/roleAssignments)"
)


class IdentityError(RuntimeError):
    """The identity the environment names cannot be used (a variable missing,
    azure-identity not installed, or the token service refused it)."""


@dataclass
class Identity:
    """Where the notebook's token comes from.

    ``source`` names it for messages (``AZURE_CLIENT_ID=…``,
    ``FABRIC_EMULATOR_TOKEN``, ``the emulator's default principal``);
    ``token`` is a string, a callable returning one, or ``None`` (mint the
    default principal's token).
    """

    source: str
    token: str | Callable[[], str] | None


def from_environment(emulator_url: str, environ: Mapping[str, str] | None = None) -> Identity:
    """The notebook's identity from ``environ`` (default ``os.environ``), in the
    order of the module's docstring."""
    env = os.environ if environ is None else environ
    present = [k for k in AZURE_VARS if env.get(k)]
    if present:
        return _service_principal(emulator_url, env, present)
    tok = env.get(TOKEN_ENV)
    if tok:
        return Identity(TOKEN_ENV, tok)
    return Identity("the emulator's default principal", None)


def _service_principal(emulator_url: str, env: Mapping[str, str], present: list[str]) -> Identity:
    missing = [k for k in AZURE_VARS if not env.get(k)]
    if missing:
        raise IdentityError(
            f"{', '.join(present)} set but {', '.join(missing)} not: the notebook's identity is a service principal "
            "and needs all of AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET (or unset them all)")
    try:
        from azure.identity import ClientSecretCredential
    except ImportError as e:
        raise IdentityError(
            f"AZURE_CLIENT_ID is set but azure-identity is not installed ({e}): install it "
            "(pip install 'fabrictest[identity]' or pip install azure-identity), or unset the AZURE_* "
            "variables to run as FABRIC_EMULATOR_TOKEN or the emulator's default principal") from None
    client_id = env["AZURE_CLIENT_ID"]
    authority = env.get(AUTHORITY_ENV) or emulator_url
    credential = ClientSecretCredential(env["AZURE_TENANT_ID"], client_id, env["AZURE_CLIENT_SECRET"],
                                        authority=authority, disable_instance_discovery=True)

    def token() -> str:
        try:
            return credential.get_token(FABRIC_SCOPE).token
        except Exception as e:  # azure-identity's ClientAuthenticationError and its transport errors
            raise IdentityError(f"get a token for AZURE_CLIENT_ID={client_id} from {authority}: {e}") from e

    return Identity(f"AZURE_CLIENT_ID={client_id} (service principal, through azure-identity)", token)


def token_principal(token: str) -> str | None:
    """The ``oid`` claim of a JWT (read, not verified), or ``None``."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        pad = "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + pad))
    except (ValueError, TypeError):
        return None
    oid = claims.get("oid") if isinstance(claims, dict) else None
    return str(oid) if oid else None
