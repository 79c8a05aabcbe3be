package delta

import "io/fs"

// The modes the writer creates a table's files and directories with: its
// owner's only, as every file of the emulator's data dir (a table's rows
// may be anything the producers sent).
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)
