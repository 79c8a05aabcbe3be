package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The metadata database holds secrets (Kafka connection passwords, custom
// endpoint keys), so it and the files SQLite keeps beside it are readable
// by their owner only. SQLite's unix VFS gives a new -wal, -shm or -journal
// file the mode of the database file, so the database is created 0600
// before SQLite opens it; files left by an older version are tightened.

// privateMode is the mode of every file of the database.
const privateMode fs.FileMode = 0o600

// sidecars are the suffixes of the files SQLite keeps next to the database.
var sidecars = []string{"-wal", "-shm", "-journal"}

// makePrivate creates the database file at path 0600 when it does not
// exist, and sets 0600 on it and on its sidecar files when they do.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, privateMode)
	if err != nil {
		return fmt.Errorf("create metadata db: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create metadata db: %w", err)
	}
	for _, p := range append([]string{path}, sidecarPaths(path)...) {
		if err := os.Chmod(p, privateMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restrict metadata db: %w", err)
		}
	}
	return nil
}

func sidecarPaths(path string) []string {
	out := make([]string, len(sidecars))
	for i, s := range sidecars {
		out[i] = path + s
	}
	return out
}
