package delta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// logDirName is the directory of the transaction log under a table root.
const logDirName = "_delta_log"

// Delta log actions: one JSON object per line of a commit file, whose only
// key names the action.
type action struct {
	CommitInfo *commitInfoAction `json:"commitInfo,omitempty"`
	Protocol   *protocolAction   `json:"protocol,omitempty"`
	MetaData   *metaDataAction   `json:"metaData,omitempty"`
	Txn        *txnAction        `json:"txn,omitempty"`
	Add        *addAction        `json:"add,omitempty"`
	Remove     *removeAction     `json:"remove,omitempty"`
}

type protocolAction struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures,omitempty"`
	WriterFeatures   []string `json:"writerFeatures,omitempty"`
}

type formatSpec struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options"`
}

type metaDataAction struct {
	ID               string            `json:"id"`
	Format           formatSpec        `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	Configuration    map[string]string `json:"configuration"`
	CreatedTime      *int64            `json:"createdTime,omitempty"`
}

type txnAction struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated,omitempty"`
}

type addAction struct {
	Path             string            `json:"path"`
	PartitionValues  map[string]string `json:"partitionValues"`
	Size             int64             `json:"size"`
	ModificationTime int64             `json:"modificationTime"`
	DataChange       bool              `json:"dataChange"`
	Stats            string            `json:"stats,omitempty"`
}

type removeAction struct {
	Path string `json:"path"`
}

type commitInfoAction struct {
	Timestamp           int64          `json:"timestamp"`
	Operation           string         `json:"operation"`
	OperationParameters map[string]any `json:"operationParameters"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsolationLevel      string         `json:"isolationLevel,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	// OperationMetrics are strings in Spark's commits (and this package's),
	// numbers in delta-rs'.
	OperationMetrics map[string]any `json:"operationMetrics,omitempty"`
	EngineInfo       string         `json:"engineInfo,omitempty"`
	TxnID            string         `json:"txnId,omitempty"`
}

// commitPath is the commit file of a version: 20 zero-padded digits.
func commitPath(dir string, version int64) string {
	return filepath.Join(dir, logDirName, fmt.Sprintf("%020d.json", version))
}

// readCommit reads and parses the commit file of a version. A missing file
// yields an error matching fs.ErrNotExist.
func readCommit(dir string, version int64) ([]action, error) {
	data, err := os.ReadFile(commitPath(dir, version))
	if err != nil {
		return nil, err
	}
	return parseCommit(data)
}

// parseCommit parses newline-delimited JSON actions.
func parseCommit(data []byte) ([]action, error) {
	var acts []action
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var a action
		if err := json.Unmarshal(line, &a); err != nil {
			return nil, fmt.Errorf("parse action on line %d: %w", i+1, err)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// encodeCommit renders actions as newline-delimited JSON.
func encodeCommit(acts []action) ([]byte, error) {
	var b bytes.Buffer
	for _, a := range acts {
		line, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("encode action: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

var logFileName = regexp.MustCompile(`^(\d{20})\.(json|checkpoint\.parquet|checkpoint\.\d+\.\d+\.parquet|checkpoint\.[^.]+\.(json|parquet))$`)

// listLog returns the versions of the commit files of a table in order, and
// whether the log holds checkpoints. A missing log yields no versions.
func listLog(dir string) (versions []int64, checkpoints bool, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, logDirName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("list log: %w", err)
	}
	for _, e := range entries {
		m := logFileName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if m[2] != "json" {
			checkpoints = true
			continue
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("parse log file name %q: %w", e.Name(), err)
		}
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	return versions, checkpoints, nil
}

// tableState is what a writer needs from the log: the latest version,
// protocol, metadata and schema, and the latest txn version of every app.
type tableState struct {
	version  int64 // -1 while the table has no commit
	protocol *protocolAction
	meta     *metaDataAction
	schema   Schema
	txns     map[string]int64
	// files are the live add actions by path, in the order they were
	// added (order may name removed paths, skipped by liveAdds).
	files map[string]*addAction
	order []string
	// baseCP is the checkpoint whose add actions files lacks (the writer
	// reads only the head of a checkpoint when it opens a table), -1 when
	// files is complete; baseRemoved names the files removed since.
	baseCP      int64
	baseRemoved map[string]bool
	// baseCopyable says the add row groups of checkpoint baseCP can be
	// copied verbatim into the next checkpoint (its head is a row group
	// of its own).
	baseCopyable bool
}

func newTableState() tableState {
	return tableState{version: -1, txns: map[string]int64{}, files: map[string]*addAction{}, baseCP: -1}
}

// liveAdds returns the live add actions in the order they were added.
func (s *tableState) liveAdds() []*addAction {
	out := make([]*addAction, 0, len(s.files))
	seen := make(map[string]bool, len(s.files))
	for _, p := range s.order {
		if a, ok := s.files[p]; ok && !seen[p] {
			seen[p] = true
			out = append(out, a)
		}
	}
	return out
}

// addFile records a live file.
func (s *tableState) addFile(a *addAction) {
	if _, ok := s.files[a.Path]; !ok {
		s.order = append(s.order, a.Path)
	}
	s.files[a.Path] = a
}

// removeFile forgets a file; order is compacted when mostly dead.
func (s *tableState) removeFile(path string) {
	delete(s.files, path)
	if s.baseCP >= 0 {
		if s.baseRemoved == nil {
			s.baseRemoved = map[string]bool{}
		}
		s.baseRemoved[path] = true
	}
	if len(s.order) > 64 && len(s.order) > 2*len(s.files) {
		live := s.order[:0]
		for _, p := range s.order {
			if _, ok := s.files[p]; ok {
				live = append(live, p)
			}
		}
		s.order = live
	}
}

// apply moves the state to version by the actions of its commit.
func (s *tableState) apply(version int64, acts []action) error {
	for _, a := range acts {
		switch {
		case a.Protocol != nil:
			p := *a.Protocol
			s.protocol = &p
		case a.MetaData != nil:
			var schema Schema
			if err := json.Unmarshal([]byte(a.MetaData.SchemaString), &schema); err != nil {
				return fmt.Errorf("version %d: parse schemaString: %w", version, err)
			}
			m := *a.MetaData
			s.meta, s.schema = &m, schema
		case a.Txn != nil:
			s.txns[a.Txn.AppID] = a.Txn.Version
		case a.Add != nil:
			s.addFile(a.Add)
		case a.Remove != nil:
			s.removeFile(a.Remove.Path)
		}
	}
	s.version = version
	return nil
}

// writable reports why this package cannot append to the table, if it
// cannot: a protocol that needs features beyond (1,2), or partitioning.
func (s *tableState) writable() error {
	if s.version < 0 {
		return nil
	}
	if s.protocol == nil || s.meta == nil {
		return fmt.Errorf("table log has no protocol or metaData action")
	}
	if s.protocol.MinReaderVersion > 1 || s.protocol.MinWriterVersion > 2 {
		return fmt.Errorf("table protocol (%d,%d) needs features this writer lacks (it writes (1,2))",
			s.protocol.MinReaderVersion, s.protocol.MinWriterVersion)
	}
	if len(s.meta.PartitionColumns) > 0 {
		return fmt.Errorf("table is partitioned by %v; this writer writes unpartitioned tables", s.meta.PartitionColumns)
	}
	return nil
}
