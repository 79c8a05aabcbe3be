"""Microsoft's Fabric OpenAPI documents, cut down to the operations the
emulator serves and bundled into one swagger 2.0 document schemathesis loads.

The documents are read from ``../shared/fabric-rest-api-specs`` relative to
the repository root (``FABRIC_REST_API_SPECS`` overrides), the same place
``emulator/conformance_test.go`` reads them from; they are never copied into
the repository (``SOURCE.md`` there names the upstream commit).

Why bundle: the documents are swagger 2.0 split over files with relative
``$ref``s (``./definitions/platform.json#/…``, ``../common/definitions.json#/…``,
one spelled ``../../Common/``, which a case-sensitive filesystem does not
find). :func:`bundle` copies every definition an operation reaches into one
``definitions`` table under a name made of its file and definition, and
rewrites the references to it.
"""

from __future__ import annotations

import copy
import json
import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# The service documents whose paths the emulator serves (as conformance_test.go).
# Of the 47 typed collections routes.go serves (issue 17), two documents
# are bundled here, to keep the run's time: dataPipeline and notebook.
SERVICES = ("platform", "eventstream", "lakehouse", "eventhouse", "kqlDatabase", "reflex", "dataPipeline", "notebook")

_TYPED = ("eventstreams", "lakehouses", "eventhouses", "kqlDatabases", "reflexes", "dataPipelines", "notebooks")

# The typed collections whose stored definitions (getDefinition,
# updateDefinition) are bundled; routes.go builds them in its loop.
TYPED_DEFINITIONS = ("dataPipelines", "notebooks")

# SERVED mirrors the Fabric routes of emulator/internal/api/routes.go (its emulator-
# native routes have no Microsoft document), in routes.go's spelling with
# the /v1 prefix dropped; placeholders match any placeholder of the spec.
SERVED: tuple[str, ...] = (
    "POST /workspaces", "GET /workspaces", "GET /workspaces/{ws}", "PATCH /workspaces/{ws}",
    "DELETE /workspaces/{ws}",
    "POST /workspaces/{ws}/roleAssignments", "GET /workspaces/{ws}/roleAssignments",
    "GET /workspaces/{ws}/roleAssignments/{principal}", "PATCH /workspaces/{ws}/roleAssignments/{principal}",
    "DELETE /workspaces/{ws}/roleAssignments/{principal}",
    "GET /workspaces/{ws}/folders",
    "POST /workspaces/{ws}/items", "GET /workspaces/{ws}/items", "GET /workspaces/{ws}/items/{id}",
    "PATCH /workspaces/{ws}/items/{id}", "DELETE /workspaces/{ws}/items/{id}",
    "POST /workspaces/{ws}/items/{id}/getDefinition", "POST /workspaces/{ws}/items/{id}/updateDefinition",
    "POST /workspaces/{ws}/eventstreams/{id}/getDefinition",
    "POST /workspaces/{ws}/eventstreams/{id}/updateDefinition",
    "GET /workspaces/{ws}/eventstreams/{id}/topology",
    "POST /workspaces/{ws}/eventstreams/{id}/pause", "POST /workspaces/{ws}/eventstreams/{id}/resume",
    "GET /workspaces/{ws}/eventstreams/{id}/sources/{ds}",
    "POST /workspaces/{ws}/eventstreams/{id}/sources/{ds}/pause",
    "POST /workspaces/{ws}/eventstreams/{id}/sources/{ds}/resume",
    "GET /workspaces/{ws}/eventstreams/{id}/sources/{ds}/connection",
    "GET /workspaces/{ws}/eventstreams/{id}/destinations/{dest}",
    "GET /workspaces/{ws}/eventstreams/{id}/destinations/{dest}/connection",
    "POST /workspaces/{ws}/eventstreams/{id}/destinations/{dest}/pause",
    "POST /workspaces/{ws}/eventstreams/{id}/destinations/{dest}/resume",
    "GET /workspaces/{ws}/lakehouses/{id}/tables",
    "POST /workspaces/{ws}/items/{id}/jobs/{jobType}/instances",
    "GET /workspaces/{ws}/items/{id}/jobs/instances",
    "GET /workspaces/{ws}/items/{id}/jobs/instances/{job}",
    "POST /workspaces/{ws}/items/{id}/jobs/instances/{job}/cancel",
    "GET /operations/{op}", "GET /operations/{op}/result",
) + tuple(
    route for c in _TYPED for route in (
        f"POST /workspaces/{{ws}}/{c}", f"GET /workspaces/{{ws}}/{c}", f"GET /workspaces/{{ws}}/{c}/{{id}}",
        f"PATCH /workspaces/{{ws}}/{c}/{{id}}", f"DELETE /workspaces/{{ws}}/{c}/{{id}}",
    )
) + tuple(
    route for c in TYPED_DEFINITIONS for route in (
        f"POST /workspaces/{{ws}}/{c}/{{id}}/getDefinition", f"POST /workspaces/{{ws}}/{c}/{{id}}/updateDefinition",
    )
)

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def _shape(method: str, path: str) -> str:
    return f"{method.upper()} {_PLACEHOLDER.sub('{}', path)}"


def spec_root(repo: Path) -> Path:
    """The directory of Microsoft's documents."""
    env = os.environ.get("FABRIC_REST_API_SPECS")
    return Path(env) if env else repo.parent / "shared" / "fabric-rest-api-specs"


class _Bundler:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, dict[str, Any]] = {}
        self.definitions: dict[str, Any] = {}

    def load(self, name: str) -> dict[str, Any]:
        """A document by its slash path under the root; path elements match
        case-insensitively when the exact spelling does not exist."""
        name = posixpath.normpath(name)
        if name not in self.files:
            p = self.root
            for el in name.split("/"):
                nxt = p / el
                if not nxt.exists() and p.is_dir():
                    nxt = next((c for c in p.iterdir() if c.name.lower() == el.lower()), nxt)
                p = nxt
            self.files[name] = json.loads(p.read_text(encoding="utf-8"))
        return self.files[name]

    def rewrite(self, node: Any, file: str) -> Any:
        """A copy of node with every $ref pointing into the bundle."""
        if isinstance(node, list):
            return [self.rewrite(v, file) for v in node]
        if not isinstance(node, dict):
            return node
        out = {k: self.rewrite(v, file) for k, v in node.items() if k not in ("$ref", "x-ms-examples")}
        if isinstance(node.get("$ref"), str):
            out["$ref"] = "#/definitions/" + self.definition(file, node["$ref"])
        return out

    def definition(self, file: str, ref: str) -> str:
        target, _, pointer = ref.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(file), target)) if target else file
        def_name = pointer.removeprefix("/definitions/")
        if def_name == pointer:
            raise ValueError(f"{file}: unsupported $ref {ref!r}")
        canonical = posixpath.join(posixpath.dirname(target).lower(), posixpath.basename(target))
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", canonical.replace("/", ".") + "." + def_name)
        if name not in self.definitions:
            self.definitions[name] = {}  # placeholder: recursive schemas
            self.definitions[name] = self.rewrite(self.load(target)["definitions"][def_name], target)
        return name


def bundle(root: Path, served: Iterable[str] = SERVED) -> tuple[dict[str, Any], list[str]]:
    """One swagger 2.0 document with the served operations of SERVICES, and
    the served routes no document describes (the caller decides)."""
    want: set[str] = {_shape(*r.split(" ", 1)) for r in served}
    seen: set[str] = set()
    b = _Bundler(root)
    paths: dict[str, dict[str, Any]] = {}
    for service in SERVICES:
        file = f"{service}/swagger.json"
        doc = b.load(file)
        for path, item in doc["paths"].items():
            for method, op in item.items():
                shape = _shape(method, path)
                if method == "parameters" or "?" in path or shape not in want:
                    continue
                seen.add(shape)
                paths.setdefault(path, {})[method] = b.rewrite(copy.deepcopy(op), file)
    out = {
        "swagger": "2.0",
        "info": {"title": "Fabric REST API (served by fabrictest)", "version": "v1"},
        "basePath": "/v1",
        "consumes": ["application/json"],
        "produces": ["application/json"],
        "paths": paths,
        "definitions": b.definitions,
    }
    return out, sorted(want - seen)


def spec_shapes(root: Path) -> set[str]:
    """Every operation of SERVICES as "METHOD /path/{}/…" (placeholders blanked)."""
    b = _Bundler(root)
    return {_shape(m, p) for service in SERVICES
            for p, item in b.load(f"{service}/swagger.json")["paths"].items() for m in item if m != "parameters"}


def routes_go_shapes(routes_go: Path) -> set[str]:
    """The literal Fabric routes of emulator/internal/api/routes.go ("METHOD /v1/…"),
    as shapes without /v1; the typed collections' routes, built in a loop,
    are not literal and not listed."""
    pat = re.compile(r'a\.handle\("([A-Z]+) /v1(/[^"]*)"')
    return {_shape(m, p) for m, p in pat.findall(routes_go.read_text(encoding="utf-8"))}


def served_shapes() -> set[str]:
    """SERVED as shapes."""
    return {_shape(*r.split(" ", 1)) for r in SERVED}
