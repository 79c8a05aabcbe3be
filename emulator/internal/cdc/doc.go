// Package cdc reads change data capture feeds from real databases for the
// Eventstream sources PostgreSQLCDC (logical replication with the pgoutput
// plugin, through jackc/pglogrepl) and MySQLCDC (the row-based binary log,
// through go-mysql-org/go-mysql), and turns each row change into the event
// Fabric's CDC sources emit: Debezium's change-event envelope as JSON,
//
//	{"before": {...} | null, "after": {...} | null,
//	 "source": {"version", "connector", "name", "ts_ms", "snapshot", "db", ...},
//	 "op": "r" | "c" | "u" | "d", "ts_ms": ..., "transaction": null}
//
// (fabric-docs, "DeltaFlow output transformation": the raw Debezium CDC
// event structure; the source fields are those Debezium's PostgreSQL and
// MySQL connectors write). A run first snapshots the named tables (op "r"),
// then streams inserts, updates and deletes in commit order. Delivery is at
// least once: a position (an LSN, or a binlog file and position with the
// GTID set) is saved only after the events before it were handed to the
// sink, and a restart resumes from the saved position. A position the
// server no longer has (a dropped slot, a purged binlog) is a failure with
// a code of its own, never a silent gap.
//
// Failures a user can fix carry a stable code (Error): a wrong password, a
// missing table, a server without logical replication or binary log, a
// missing slot or binlog position.
package cdc
