"""OneLake over HTTP: delta-rs and Microsoft's Azure storage SDKs against the
emulator's /onelake surface, over TLS with the emulator's CA (issue 17).

Microsoft: "OneLake access and APIs" and "Azure Data Lake Storage and Blob APIs
in OneLake" (learn.microsoft.com/fabric/onelake/onelake-access-api): the
workspace is the container, paths start with the item (GUID or name.Type),
tokens carry the storage audience https://storage.azure.com; "Workspace
roles" (learn.microsoft.com/fabric/fundamentals/roles-workspaces): a Viewer
reads, a Contributor writes. The Azure SDKs refuse bearer tokens over plain
HTTP, hence TLS.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest
from azure.core.credentials import AccessToken
from azure.core.exceptions import HttpResponseError
from azure.storage.blob import BlobServiceClient
from azure.storage.filedatalake import DataLakeServiceClient
from conftest import Emulator, _start_emulator, _stop

STORAGE = "https://storage.azure.com"


class StaticToken:
    """An azure-core TokenCredential over a token minted by the emulator."""

    def __init__(self, token: str) -> None:
        self.token = token

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken(self.token, int(time.time()) + 3600)


@pytest.fixture(scope="module")
def tls_emulator(emulator_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    """The emulator with --tls; SSL_CERT_FILE names its CA for urllib and delta-rs."""
    d = tmp_path_factory.mktemp("emulator-onelake")
    emu = _start_emulator(emulator_binary, d / "data", "embedded", d / "emulator.log", tls=True, extra=["-v"])
    emu.log_path = d / "emulator.log"  # type: ignore[attr-defined]
    old = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = str(d / "data" / "tls" / "ca.pem")
    yield emu
    _stop(emu.proc)
    if old is None:
        os.environ.pop("SSL_CERT_FILE", None)
    else:
        os.environ["SSL_CERT_FILE"] = old


def ca(emu: Emulator) -> str:
    return str(emu.data_dir / "tls" / "ca.pem")


def storage_token(emu: Emulator, principal: str | None = None) -> str:
    body: dict[str, Any] = {"audience": STORAGE}
    if principal:
        body["principal"] = principal
    return emu.call("POST", "/_emulator/token", body, auth=False)["access_token"]


def storage_options(emu: Emulator, token: str) -> dict[str, str]:
    """The delta-rs (object_store Azure) settings the README documents."""
    return {"bearer_token": token, "azure_storage_account_name": "onelake",
            "azure_endpoint": emu.url + "/onelake"}


@pytest.fixture(scope="module")
def lakehouse(tls_emulator: Emulator) -> dict[str, Any]:
    """A workspace 'sales' with a Lakehouse 'orders' whose table 'clicks' an Eventstream wrote."""
    emu = tls_emulator
    ws = emu.create_workspace("sales")
    lh = emu.call("POST", f"/v1/workspaces/{ws}/lakehouses", {"displayName": "orders"})
    es = emu.create_eventstream(ws, "clickstream")
    emu.bind_lakehouse(es, lh["id"], "clicks")
    emu.produce(es, [{"value": {"id": i, "page": f"p{i}"}} for i in range(5)])
    tables = Path(lh["properties"]["x-fabrictest-localTablesPath"])
    deadline = time.monotonic() + 60
    while not (tables / "clicks" / "_delta_log" / "00000000000000000000.json").exists():
        assert time.monotonic() < deadline, "the Lakehouse destination wrote no table in 60 s"
        time.sleep(0.1)
    return {"ws": ws, "lh": lh, "tables": tables}


def test_lakehouse_properties_are_onelake_urls(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    props = lakehouse["lh"]["properties"]
    base = f"{tls_emulator.url}/onelake/{lakehouse['ws']}/{lakehouse['lh']['id']}"
    assert props["oneLakeTablesPath"] == base + "/Tables"
    assert props["oneLakeFilesPath"] == base + "/Files"
    assert Path(props["x-fabrictest-localFilesPath"]).is_dir()


def test_deltalake_reads_a_lakehouse_table_through_onelake(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    opts = storage_options(tls_emulator, storage_token(tls_emulator))
    by_id = f"abfss://{lakehouse['ws']}@onelake.dfs.fabric.microsoft.com/{lakehouse['lh']['id']}/Tables/clicks"
    by_name = "abfss://sales@onelake.dfs.fabric.microsoft.com/orders.Lakehouse/Tables/clicks"
    for uri in (by_id, by_name):
        rows = deltalake.DeltaTable(uri, storage_options=opts).to_pyarrow_table().to_pylist()
        assert sorted((r["id"], r["page"]) for r in rows) == [(i, f"p{i}") for i in range(5)], uri


def test_deltalake_writes_a_table_through_onelake(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    opts = storage_options(tls_emulator, storage_token(tls_emulator))
    uri = "abfss://sales@onelake.dfs.fabric.microsoft.com/orders.Lakehouse/Tables/written"
    deltalake.write_deltalake(uri, pa.table({"n": [1, 2]}), storage_options=opts)
    deltalake.write_deltalake(uri, pa.table({"n": [3]}), storage_options=opts, mode="append")
    dt = deltalake.DeltaTable(uri, storage_options=opts)
    assert dt.version() == 1
    assert sorted(dt.to_pyarrow_table().column("n").to_pylist()) == [1, 2, 3]
    # The bytes are the Lakehouse's own: a local reader sees the same table.
    local = deltalake.DeltaTable(str(lakehouse["tables"] / "written"))
    assert sorted(local.to_pyarrow_table().column("n").to_pylist()) == [1, 2, 3]
    # Listed by the Fabric API as a table of the Lakehouse.
    names = [t["name"] for t in tls_emulator.call(
        "GET", f"/v1/workspaces/{lakehouse['ws']}/lakehouses/{lakehouse['lh']['id']}/tables")["data"]]
    assert "written" in names and "clicks" in names


def test_commit_put_if_absent_is_refused_when_taken(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    """Delta's commit is a PUT with If-None-Match: * (what delta-rs sends):
    a version another writer committed is never replaced."""
    commit = lakehouse["tables"] / "clicks" / "_delta_log" / "00000000000000000000.json"
    before = commit.read_bytes()
    status, body = raw(tls_emulator, "PUT", "/onelake/sales/orders.Lakehouse/Tables/clicks/_delta_log/"
                       "00000000000000000000.json", storage_token(tls_emulator),
                       {"x-ms-blob-type": "BlockBlob", "If-None-Match": "*"}, b'{"commitInfo":{}}')
    assert status == 409 and b"<Code>BlobAlreadyExists</Code>" in body, body
    assert commit.read_bytes() == before


def test_datalake_sdk_lists_tables_and_downloads_a_commit(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    svc = DataLakeServiceClient(tls_emulator.url + "/onelake", credential=StaticToken(storage_token(tls_emulator)),
                                connection_verify=ca(tls_emulator))
    fs = svc.get_file_system_client("sales")
    paths = {p.name: p for p in fs.get_paths(path="orders.Lakehouse/Tables", recursive=True)}
    commit = "orders.Lakehouse/Tables/clicks/_delta_log/00000000000000000000.json"
    assert paths["orders.Lakehouse/Tables/clicks"].is_directory
    assert not paths[commit].is_directory
    local = (lakehouse["tables"] / "clicks" / "_delta_log" / "00000000000000000000.json").read_bytes()
    assert paths[commit].content_length == len(local)
    assert fs.get_file_client(commit).download_file().readall() == local
    # Files/: create, append, flush, rename, delete.
    f = fs.get_file_client("orders.Lakehouse/Files/in/a.txt")
    f.upload_data(b"hello onelake", overwrite=True)
    f.rename_file("sales/orders.Lakehouse/Files/in/b.txt")
    assert fs.get_file_client("orders.Lakehouse/Files/in/b.txt").download_file().readall() == b"hello onelake"
    fs.get_directory_client("orders.Lakehouse/Files/in").delete_directory()
    assert not (Path(lakehouse["lh"]["properties"]["x-fabrictest-localFilesPath"]) / "in").exists()


def test_blob_sdk_lists_puts_blocks_and_reads_ranges(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    svc = BlobServiceClient(tls_emulator.url + "/onelake", credential=StaticToken(storage_token(tls_emulator)),
                            connection_verify=ca(tls_emulator), max_single_put_size=1 << 20, max_block_size=1 << 20)
    c = svc.get_container_client("sales")
    names = [b.name for b in c.list_blobs(name_starts_with="orders.Lakehouse/Tables/clicks/_delta_log/")]
    assert "orders.Lakehouse/Tables/clicks/_delta_log/00000000000000000000.json" in names
    data = bytes(range(256)) * 12288  # 3 MiB: three blocks and a block list
    b = c.get_blob_client("orders.Lakehouse/Files/blocks.bin")
    b.upload_blob(data, overwrite=True)
    assert b.get_blob_properties().size == len(data)
    assert b.download_blob(offset=1000, length=300).readall() == data[1000:1300]


def test_viewer_reads_but_is_refused_a_write(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    viewer = str(uuid.uuid4())
    tls_emulator.call("POST", f"/v1/workspaces/{lakehouse['ws']}/roleAssignments",
                      {"principal": {"id": viewer, "type": "User"}, "role": "Viewer"})
    svc = DataLakeServiceClient(tls_emulator.url + "/onelake", credential=StaticToken(storage_token(tls_emulator, viewer)),
                                connection_verify=ca(tls_emulator))
    fs = svc.get_file_system_client("sales")
    assert fs.get_file_client("orders.Lakehouse/Tables/clicks/_delta_log/00000000000000000000.json") \
        .download_file().readall().startswith(b"{")
    with pytest.raises(HttpResponseError) as refused:
        fs.get_file_client("orders.Lakehouse/Files/viewer.txt").upload_data(b"no", overwrite=True)
    assert refused.value.status_code == 403
    assert refused.value.error_code == "AuthorizationPermissionMismatch"
    assert not (Path(lakehouse["lh"]["properties"]["x-fabrictest-localFilesPath"]) / "viewer.txt").exists()


def test_fabric_audience_token_is_refused(tls_emulator: Emulator, lakehouse: dict[str, Any]) -> None:
    status, body = raw(tls_emulator, "GET", "/onelake/sales?resource=filesystem&directory=orders.Lakehouse",
                       tls_emulator.token)
    assert status == 401, body
    assert json.loads(body)["error"]["code"] == "InvalidAuthenticationInfo"


def raw(emu: Emulator, method: str, path: str, token: str, headers: dict[str, str] | None = None,
        body: bytes | None = None) -> tuple[int, bytes]:
    """One request as sent, path unaltered (hostile paths stay hostile)."""
    req = urllib.request.Request(emu.url + path, data=body, method=method,
                                 headers={"Authorization": "Bearer " + token, **(headers or {})})
    ctx = ssl.create_default_context(cafile=ca(emu))
    try:
        with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


HOSTILE = [
    "orders.Lakehouse/Files/../../../secret.txt",
    "orders.Lakehouse/Files/%2e%2e/%2e%2e/%2e%2e/secret.txt",
    "orders.Lakehouse/Files/..%2f..%2f..%2fsecret.txt",
    "orders.Lakehouse/Files/..%5c..%5csecret.txt",
    "orders.Lakehouse/Files/%2fetc%2fpasswd",
    "orders.Lakehouse/Files/a%00b",
    "..%2f..%2fsecret.txt",
    "orders.Lakehouse/..%2F..%2F..%2Fsecret.txt",
    "orders.Lakehouse/Files/link/secret.txt",
]


def test_paths_outside_the_item_are_neither_read_nor_written(tls_emulator: Emulator,
                                                              lakehouse: dict[str, Any]) -> None:
    secret = tls_emulator.data_dir / "onelake" / "secret.txt"
    secret.write_bytes(b"top secret")
    outside = tls_emulator.data_dir / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_bytes(b"top secret")
    files = Path(lakehouse["lh"]["properties"]["x-fabrictest-localFilesPath"])
    (files / "link").symlink_to(outside)
    def tree() -> list[tuple[str, bytes]]:
        roots = (tls_emulator.data_dir / "onelake", outside)
        return sorted((str(p), p.read_bytes()) for r in roots for p in r.rglob("*") if p.is_file())

    before = tree()
    tok = storage_token(tls_emulator)
    for p in HOSTILE:
        path = "/onelake/sales/" + p
        status, body = raw(tls_emulator, "GET", path, tok)
        assert status in (400, 403, 404) and b"top secret" not in body, (p, status, body)
        status, body = raw(tls_emulator, "PUT", path, tok, {"x-ms-blob-type": "BlockBlob"}, b"pwned")
        assert status in (400, 403, 404), (p, status, body)
        print(p, status, body[:90], file=sys.stderr)
    assert secret.read_bytes() == b"top secret" and (outside / "secret.txt").read_bytes() == b"top secret"
    assert tree() == before
    print(f"hostile paths refused: {len(HOSTILE)}", file=sys.stderr)


def test_lakehouse_destination_and_another_writer_share_a_table(tls_emulator: Emulator,
                                                               lakehouse: dict[str, Any]) -> None:
    """Another writer (delta-rs through OneLake) appends to the table a
    Lakehouse destination is appending to: both go through Delta's
    put-if-absent commit, so every commit of both lands, none replaced."""
    emu = tls_emulator
    es = emu.create_eventstream(lakehouse["ws"], "shared_stream")
    emu.bind_lakehouse(es, lakehouse["lh"]["id"], "shared")
    emu.produce(es, [{"value": {"id": 0, "page": "first"}}])
    table = lakehouse["tables"] / "shared"
    deadline = time.monotonic() + 60
    while not (table / "_delta_log" / "00000000000000000000.json").exists():
        assert time.monotonic() < deadline, "the Lakehouse destination wrote no table in 60 s"
        time.sleep(0.1)
    opts = storage_options(emu, storage_token(emu))
    uri = "abfss://sales@onelake.dfs.fabric.microsoft.com/orders.Lakehouse/Tables/shared"
    schema = deltalake.DeltaTable(uri, storage_options=opts).schema().to_arrow()
    errors: list[BaseException] = []

    def produce() -> None:
        try:
            for i in range(1, 11):
                emu.produce(es, [{"value": {"id": i, "page": "dest"}}])
        except BaseException as e:  # reported below
            errors.append(e)

    t = threading.Thread(target=produce)
    t.start()
    for i in range(100, 106):
        row = {f.name: None for f in schema}
        row.update({"id": i, "page": "other"})
        deltalake.write_deltalake(uri, pa.Table.from_pylist([row], schema=pa.schema(schema)),
                                  storage_options=opts, mode="append")
    t.join(timeout=120)
    assert not errors, errors
    deadline = time.monotonic() + 60
    while True:
        ids = sorted(deltalake.DeltaTable(str(table)).to_pyarrow_table().column("id").to_pylist())
        if len(ids) >= 17 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert ids == list(range(0, 11)) + list(range(100, 106))
    versions = sorted(int(p.stem) for p in (table / "_delta_log").glob("*.json"))
    assert versions == list(range(len(versions))), versions
    conflicts = emu.log_path.read_text().count("status=409")  # type: ignore[attr-defined]
    print(f"shared table: {len(versions)} commits, {conflicts} commit conflicts answered 409", file=sys.stderr)
