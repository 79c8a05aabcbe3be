"""Reads Delta tables with delta-rs (the `deltalake` package) for the Go tests
of emulator/delta.

A long-running helper: each line on stdin is a JSON request
{"path": table root, "apps": [app ids]}; each answer is one JSON line with
what delta-rs sees: version, schema, protocol, rows (through pyarrow and
through delta-rs' own DataFusion engine), row counts at every version,
history, txn versions and the parsed add actions (stats flattened). An
exception becomes {"error": "..."}.
"""

import datetime
import json
import sys

import pyarrow as pa
from deltalake import DeltaTable, QueryBuilder


def to_json(o):
    if isinstance(o, datetime.datetime):
        if o.tzinfo is None:
            raise TypeError("timestamp without a time zone: %r" % (o,))
        return o.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(o, (bytes, bytearray)):
        return o.hex()
    raise TypeError("cannot encode %s" % type(o).__name__)


def read(req):
    path = req["path"]
    dt = DeltaTable(path)
    version = dt.version()
    protocol = dt.protocol()
    out = {
        "version": version,
        "schema": json.loads(dt.schema().to_json()),
        "protocol": [protocol.min_reader_version, protocol.min_writer_version],
        "rows": dt.to_pyarrow_table().to_pylist(),
        "rows_sql": pa.table(QueryBuilder().register("t", dt).execute("SELECT * FROM t")).to_pylist(),
        "count_sql": pa.table(QueryBuilder().register("t", dt).execute("SELECT COUNT(*) AS n FROM t")).to_pylist()[0]["n"],
        "history": [] if req.get("latest_only") else [
            {"version": h.get("version"), "operation": h.get("operation"), "engineInfo": h.get("engineInfo")}
            for h in dt.history()
        ],
        "txns": {app: dt.transaction_version(app) for app in req.get("apps", [])},
        "adds": pa.table(dt.get_add_actions(flatten=True)).to_pylist(),
    }
    if req.get("latest_only"):  # the log before the checkpoint is gone
        out["history"], out["counts"] = [], []
        return out
    counts = []
    for v in range(version + 1):
        counts.append(DeltaTable(path, version=v).to_pyarrow_dataset().count_rows())
    out["counts"] = counts
    return out


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            res = read(json.loads(line))
        except Exception as e:  # reported to the Go test, which fails
            res = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(res, default=to_json) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
