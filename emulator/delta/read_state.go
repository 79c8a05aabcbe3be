package delta

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ReadState reads the state of the Delta table whose root is dir at its
// latest version without its rows, the way a reader opening a large table
// does: from the checkpoint that _last_checkpoint names (when the log has
// one), then only the JSON commits after it. Version, TableID, Schema,
// Files and Txns are those of the latest version; Commits describes only
// the commits read after the checkpoint, and the files the checkpoint
// lists carry its version; Rows is nil. The second result is the version
// of the checkpoint the read started from, -1 without one.
func ReadState(dir string) (*Snapshot, int64, error) {
	ref, err := readLastCheckpoint(dir)
	cp := ref.Version
	if err != nil {
		return nil, -1, fmt.Errorf("read delta table state %s: %w", dir, err)
	}
	rp := newReplay()
	next := int64(0)
	if cp >= 0 {
		st, err := readCheckpoint(dir, cp)
		if err != nil {
			return nil, -1, fmt.Errorf("read delta table state %s: %w", dir, err)
		}
		if err := rp.seed(&st); err != nil {
			return nil, -1, fmt.Errorf("read delta table state %s: %w", dir, err)
		}
		next = cp + 1
	}
	for v := next; ; v++ {
		acts, err := readCommit(dir, v)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, -1, fmt.Errorf("read delta table state %s: read version %d: %w", dir, v, err)
		}
		if err := rp.commit(v, acts); err != nil {
			return nil, -1, fmt.Errorf("read delta table state %s: %w", dir, err)
		}
	}
	if cp < 0 && len(rp.snap.Commits) == 0 {
		return nil, -1, fmt.Errorf("read delta table state %s: no commits in %s: %w", dir, logDirName, os.ErrNotExist)
	}
	return rp.finish(), cp, nil
}

// seed starts a replay from a checkpoint's state.
func (rp *replay) seed(st *tableState) error {
	c := Commit{Version: st.version}
	if err := rp.action(st.version, action{Protocol: st.protocol}, &c); err != nil {
		return err
	}
	if err := rp.action(st.version, action{MetaData: st.meta}, &c); err != nil {
		return err
	}
	for app, v := range st.txns {
		rp.snap.Txns[app] = v
	}
	for _, a := range st.liveAdds() {
		if err := rp.action(st.version, action{Add: a}, &c); err != nil {
			return err
		}
	}
	rp.snap.Version = st.version
	return nil
}
