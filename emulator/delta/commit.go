package delta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// errVersionTaken reports that another writer committed the version first.
var errVersionTaken = errors.New("commit version already exists")

// putIfAbsent creates the commit file of version with content, only if no
// writer has created it: the content goes to a temporary file in the log
// directory (its name does not parse as a log file), which is then
// hard-linked to the commit file name; link fails when the name exists, so
// of two concurrent writers exactly one wins, and readers never see a
// half-written commit. On a file system without hard links it falls back
// to an exclusive create followed by the write. ready runs between the
// temporary file's write and the link (the data files' fsync, which the
// temporary file's write overlaps); its error aborts the commit.
//
// It returns errVersionTaken when another writer has the version. created
// reports whether the commit file exists, even when err is not nil (the
// directory could not be synced): the version is then committed.
func (t *Table) putIfAbsent(version int64, content []byte, ready func() error) (created bool, err error) {
	logDir := filepath.Join(t.dir, logDirName)
	if err := os.MkdirAll(logDir, DirMode); err != nil {
		return false, fmt.Errorf("create log directory: %w", err)
	}
	final := commitPath(t.dir, version)
	tmp := filepath.Join(logDir, fmt.Sprintf(".%020d.json.%s.tmp", version, newUUID()))
	if err := t.writeFile(tmp, content); err != nil {
		_ = os.Remove(tmp)
		return false, err
	}
	if err := ready(); err != nil {
		_ = os.Remove(tmp)
		return false, err
	}
	err = os.Link(tmp, final)
	_ = os.Remove(tmp)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return false, errVersionTaken
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP),
		errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
		if err := t.createExclusive(final, content); err != nil {
			return false, err
		}
	default:
		return false, fmt.Errorf("link commit file: %w", err)
	}
	if t.o.fsync {
		if err := syncDir(logDir); err != nil {
			return true, err
		}
	}
	return true, nil
}

// writeFile writes a new file, synced when fsync is on; a file it created
// but could not finish is removed.
func (t *Table) writeFile(name string, content []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return fmt.Errorf("create commit file: %w", err)
	}
	fail := func(err error) error {
		_ = f.Close()
		_ = os.Remove(name)
		return err
	}
	if _, err := f.Write(content); err != nil {
		return fail(fmt.Errorf("write commit file: %w", err))
	}
	if t.o.fsync {
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("sync commit file: %w", err))
		}
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("close commit file: %w", err)
	}
	return nil
}

// createExclusive is the fallback put-if-absent: O_EXCL creation. Readers
// may see the file before its content is complete.
func (t *Table) createExclusive(final string, content []byte) error {
	err := t.writeFile(final, content)
	if errors.Is(err, fs.ErrExist) {
		return errVersionTaken
	}
	return err
}

// syncDir makes a directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open log directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync log directory: %w", err)
	}
	return nil
}

// commitActions builds the actions of one commit: commitInfo; protocol and
// metaData when the commit creates the table; metaData when the batch
// changes the schema; the txns; and the adds of the data files.
func (t *Table) commitActions(st *tableState, version int64, schema *Schema, files []*dataFile, txns []Txn) ([]action, error) {
	now := t.o.now().UnixMilli()
	var acts []action

	info := &commitInfoAction{
		Timestamp:        now,
		IsolationLevel:   "Serializable",
		IsBlindAppend:    ptr(true),
		EngineInfo:       t.o.engineInfo,
		TxnID:            newUUID(),
		OperationMetrics: map[string]any{"numFiles": "0", "numOutputRows": "0", "numOutputBytes": "0"},
	}
	if st.version >= 0 {
		info.ReadVersion = ptr(st.version)
	}
	if t.o.queryID != "" {
		epoch := version
		if len(txns) > 0 {
			epoch = txns[0].Version
		}
		info.Operation = "STREAMING UPDATE"
		info.OperationParameters = map[string]any{
			"outputMode": "Append",
			"queryId":    t.o.queryID,
			"epochId":    strconv.FormatInt(epoch, 10),
		}
	} else {
		info.Operation = "WRITE"
		info.OperationParameters = map[string]any{"mode": "Append", "partitionBy": "[]"}
	}
	if len(files) > 0 {
		var rows, size int64
		for _, df := range files {
			rows, size = rows+df.rows, size+df.size
		}
		info.OperationMetrics = map[string]any{
			"numFiles":       strconv.Itoa(len(files)),
			"numOutputRows":  strconv.FormatInt(rows, 10),
			"numOutputBytes": strconv.FormatInt(size, 10),
		}
	}
	acts = append(acts, action{CommitInfo: info})

	if st.version < 0 {
		acts = append(acts, action{Protocol: &protocolAction{MinReaderVersion: 1, MinWriterVersion: 2}})
	}
	if schema != nil && (st.version < 0 || schema.String() != st.schema.String()) {
		schemaJSON, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("encode schema: %w", err)
		}
		meta := &metaDataAction{
			ID:               newUUID(),
			Format:           formatSpec{Provider: "parquet", Options: map[string]string{}},
			SchemaString:     string(schemaJSON),
			PartitionColumns: []string{},
			Configuration:    map[string]string{},
			CreatedTime:      ptr(now),
		}
		if st.meta != nil { // keep everything but the schema
			meta.ID = st.meta.ID
			meta.Format = st.meta.Format
			meta.PartitionColumns = st.meta.PartitionColumns
			meta.Configuration = st.meta.Configuration
			meta.CreatedTime = st.meta.CreatedTime
		}
		acts = append(acts, action{MetaData: meta})
	}
	for _, x := range txns {
		acts = append(acts, action{Txn: &txnAction{AppID: x.AppID, Version: x.Version, LastUpdated: ptr(now)}})
	}
	for _, df := range files {
		acts = append(acts, action{Add: &addAction{
			Path:             df.path,
			PartitionValues:  map[string]string{},
			Size:             df.size,
			ModificationTime: df.modTime,
			DataChange:       true,
			Stats:            df.stats,
		}})
	}
	return acts, nil
}

func ptr[T any](v T) *T { return &v }
