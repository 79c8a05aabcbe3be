package cdc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/client"
	"github.com/go-mysql-org/go-mysql/mysql"
)

// myConnect opens a client connection, mapping the failures a user can
// fix to their codes.
func myConnect(ctx context.Context, c Conn) (*client.Conn, error) {
	conn, err := client.ConnectWithContext(ctx, c.addr(), c.User, c.Password, c.Database, 10*time.Second)
	if err != nil {
		return nil, myError(err, c)
	}
	return conn, nil
}

// myError gives a MySQL failure its code when it has one.
func myError(err error, c Conn) error {
	var me *mysql.MyError
	if errors.As(err, &me) {
		switch me.Code {
		case mysql.ER_ACCESS_DENIED_ERROR, mysql.ER_DBACCESS_DENIED_ERROR:
			return fail(CodeAuthenticationFailed, "MySQL at %s refused user %q: %s", c.addr(), c.User, me.Message)
		case mysql.ER_BAD_DB_ERROR:
			return fail(CodeDatabaseNotFound, "MySQL at %s has no database %q", c.addr(), c.Database)
		case mysql.ER_SPECIFIC_ACCESS_DENIED_ERROR, mysql.ER_TABLEACCESS_DENIED_ERROR:
			return fail(CodePermissionDenied, "user %q lacks a privilege on MySQL at %s: %s", c.User, c.addr(), me.Message)
		case mysql.ER_MASTER_FATAL_ERROR_READING_BINLOG:
			return fail(CodePositionNotFound, "MySQL at %s cannot send the binlog from the saved position: %s", c.addr(), me.Message)
		}
		return fmt.Errorf("mysql at %s: %w", c.addr(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") {
		return fail(CodeServerUnreachable, "nothing answers at %s: %v", c.addr(), err)
	}
	return fmt.Errorf("mysql at %s: %w", c.addr(), err)
}

// myServer is what the source needs to know of the server.
type myServer struct {
	flavor string // mysql or mariadb
}

// myCheckServer fails with CodeBinlogDisabled unless the server writes a
// row-based binary log.
func myCheckServer(conn *client.Conn, c Conn) (myServer, error) {
	res, err := conn.Execute("SELECT @@log_bin, @@binlog_format, @@version")
	if err != nil {
		return myServer{}, myError(err, c)
	}
	logBin, _ := res.GetString(0, 0)
	format, _ := res.GetString(0, 1)
	version, _ := res.GetString(0, 2)
	if logBin != "1" && !strings.EqualFold(logBin, "ON") {
		return myServer{}, fail(CodeBinlogDisabled, "MySQL at %s writes no binary log (log_bin is off); CDC needs log_bin with binlog_format=ROW", c.addr())
	}
	if !strings.EqualFold(format, "ROW") {
		return myServer{}, fail(CodeBinlogDisabled, "MySQL at %s has binlog_format=%s; CDC needs binlog_format=ROW", c.addr(), format)
	}
	s := myServer{flavor: mysql.MySQLFlavor}
	if strings.Contains(strings.ToLower(version), "mariadb") {
		s.flavor = mysql.MariaDBFlavor
	}
	return s, nil
}

// myTable is a captured table: its columns and primary key.
type myTable struct {
	tableRef
	cols []myColumn
	key  []string
}

// myLoadTable reads t's columns and key; ok is false when it does not exist.
func myLoadTable(conn *client.Conn, c Conn, t tableRef) (myTable, bool, error) {
	res, err := conn.Execute(`SELECT COLUMN_NAME, LOWER(DATA_TYPE), LOWER(COLUMN_TYPE), COALESCE(NUMERIC_SCALE, -1), COALESCE(DATETIME_PRECISION, 0), COLUMN_KEY
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, t.Schema, t.Name)
	if err != nil {
		return myTable{}, false, myError(err, c)
	}
	mt := myTable{tableRef: t}
	for i := 0; i < res.RowNumber(); i++ {
		var col myColumn
		col.Name, _ = res.GetString(i, 0)
		col.DataType, _ = res.GetString(i, 1)
		col.ColumnType, _ = res.GetString(i, 2)
		scale, _ := res.GetString(i, 3)
		prec, _ := res.GetString(i, 4)
		key, _ := res.GetString(i, 5)
		col.Scale, _ = strconv.Atoi(scale)
		col.Precision, _ = strconv.Atoi(prec)
		if key == "PRI" {
			mt.key = append(mt.key, col.Name)
		}
		mt.cols = append(mt.cols, col)
	}
	return mt, len(mt.cols) > 0, nil
}

// myPosition is where a MySQL source is: the binlog file and the position
// after the last delivered transaction, the GTID of that transaction
// (informative: resuming uses the file and position), and whether the
// initial snapshot was delivered.
type myPosition struct {
	File         string `json:"file"`
	Pos          uint32 `json:"pos"`
	GTID         string `json:"gtid,omitempty"`
	SnapshotDone bool   `json:"snapshotDone"`
}

func (p myPosition) encode() string { b, _ := json.Marshal(p); return string(b) }

// decodeMyPosition reads a saved position ("" is none).
func decodeMyPosition(s string) (*myPosition, error) {
	if s == "" {
		return nil, nil
	}
	var p myPosition
	if err := json.Unmarshal([]byte(s), &p); err != nil || p.File == "" {
		return nil, fmt.Errorf("read saved position %q: not a binlog file and position", s)
	}
	return &p, nil
}

// myMasterStatus is the server's current binlog file and position.
func myMasterStatus(conn *client.Conn, c Conn) (myPosition, error) {
	res, err := conn.Execute("SHOW MASTER STATUS")
	if err != nil {
		return myPosition{}, myError(err, c)
	}
	if res.RowNumber() == 0 {
		return myPosition{}, fail(CodeBinlogDisabled, "MySQL at %s shows no binary log position (SHOW MASTER STATUS is empty)", c.addr())
	}
	file, _ := res.GetString(0, 0)
	pos, _ := res.GetUint(0, 1)
	return myPosition{File: file, Pos: uint32(pos)}, nil
}

// myHasBinlog reports whether the server still has binlog file name.
func myHasBinlog(conn *client.Conn, c Conn, name string) (bool, error) {
	res, err := conn.Execute("SHOW BINARY LOGS")
	if err != nil {
		return false, myError(err, c)
	}
	for i := 0; i < res.RowNumber(); i++ {
		if f, _ := res.GetString(i, 0); f == name {
			return true, nil
		}
	}
	return false, nil
}

// quoteMy quotes a MySQL identifier.
func quoteMy(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
