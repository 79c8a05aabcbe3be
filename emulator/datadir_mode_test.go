package emulator_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// TestDataDirIsOwnerOnly: after a Lakehouse destination wrote a Delta
// table, every file and directory under the data dir is its owner's
// only (no group or other bits): Delta data and log files, the metadata
// database, keys and certificates alike. The embedded broker (kfake)
// creates its own files 0644: the kafka directory holding them is 0700.
func TestDataDirIsOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	f := deployEndpoint(t, emulator.WithDataDir(dir))
	f.e.must(200, f.e.call("POST", f.base+"/sources/"+f.src+"/events", `{"events":[{"value":{"n":1}},{"value":{"n":2}}]}`))
	f.exactlyOnce(t, []int{1, 2})
	files, dirs := 0, 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); strings.HasPrefix(rel, "kafka"+string(filepath.Separator)) {
			return nil // kfake's own files, behind the 0700 kafka directory checked below
		}
		if info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is %v: readable beyond its owner", p, info.Mode().Perm())
		}
		if d.IsDir() {
			dirs++
		} else {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 || dirs < 5 {
		t.Fatalf("walked %d files and %d dirs; the data dir should hold a table and the metadata", files, dirs)
	}
}
