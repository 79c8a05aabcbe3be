"""Waits that fail with a message a user can act on, not a bare timeout."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .eventhouse import KustoTable
    from .items import Table


def describe_destinations(table: Table | KustoTable) -> str:
    """What the destinations writing ``table`` say about themselves."""
    try:
        dests = table.destinations()
    except Exception as e:  # the emulator itself is the problem: say so
        return f"its destinations could not be read: {e}"
    if not dests:
        how = "bind_eventhouse(eventhouse, table)" if hasattr(table, "database") else "bind_lakehouse(lakehouse, table)"
        return f"no destination in the workspace writes it (bind one: eventstream.{how})"
    parts = []
    for es, node in dests:
        status = node.get("status") or "unknown"
        err = node.get("error")
        why = f": {err.get('errorCode')}: {err.get('errorMessage')}" if err else ""
        parts.append(f"its destination {node['name']} (eventstream {es}) is {status}{why}")
    return "; ".join(parts)


def wait_rows(table: Table | KustoTable, count: int, timeout: float = 10.0, interval: float = 0.2) -> list[dict[str, Any]]:
    """``table``'s rows once it has ``count`` or more; else, after ``timeout`` s,
    an AssertionError: "table orders has 3 of 5 rows after 10 s; its
    destination … is Failed: <errorCode>: <message>"."""
    deadline = time.monotonic() + timeout
    while True:
        rows = table.rows()
        if len(rows) >= count or time.monotonic() >= deadline:
            break
        time.sleep(interval)
    if len(rows) >= count:
        return rows
    raise AssertionError(f"table {table.name} has {len(rows)} of {count} rows after {timeout:g} s; "
                         f"{describe_destinations(table)}")
