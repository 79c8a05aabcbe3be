package onelake

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// tmpPrefix names the staging files of atomic writes; listings skip them.
const tmpPrefix = ".onelake-tmp-"

// openRoot opens the item's directory as an os.Root: no path, symlink or
// '..' resolved through it reaches outside the item.
func (o *op) openRoot() (*os.Root, error) {
	dir := filepath.Join(o.h.cfg.Root, o.ws.ID, o.item.ID)
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, pathNotFound(o.itemSeg)
	}
	if err != nil {
		return nil, fmt.Errorf("open item directory: %w", err)
	}
	return root, nil
}

// statErr maps a filesystem error on rel to the storage answer.
func (o *op) statErr(rel string, err error) error {
	if escapes(err) {
		return forbidden("%s leads outside the item (a symbolic link): OneLake serves only what is inside it", o.name(rel))
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		return pathNotFound(o.name(rel))
	}
	return fmt.Errorf("stat %s: %w", rel, err)
}

// escapes reports os.Root's refusal of a path that leads outside the
// root (a symbolic link pointing out of the item).
func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// etag is a file's entity tag: its modification time and size.
func etag(fi fs.FileInfo) string {
	return fmt.Sprintf("0x%X%X", fi.ModTime().UnixNano(), fi.Size())
}

// setProps writes a path's properties as Azure Storage answers them.
func (o *op) setProps(fi fs.FileInfo) {
	h := o.w.Header()
	h.Set("ETag", `"`+etag(fi)+`"`)
	h.Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
	h.Set("x-ms-creation-time", fi.ModTime().UTC().Format(http.TimeFormat))
	if fi.IsDir() {
		h.Set("x-ms-resource-type", "directory")
		h.Set("x-ms-meta-hdi_isfolder", "true")
		h.Set("Content-Length", "0")
		return
	}
	h.Set("x-ms-resource-type", "file")
	h.Set("x-ms-blob-type", "BlockBlob")
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Type", "application/octet-stream")
}

// writeFile replaces rel with data atomically (a staged file renamed over
// it). With mustBeNew it links instead, so that a path another writer
// created in the meantime is never replaced: Delta's put-if-absent.
func writeFile(root *os.Root, rel string, data []byte, mustBeNew bool) error {
	dir := path.Dir(rel)
	if err := root.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create parent folders: %w", err)
	}
	tmp := path.Join(dir, tmpPrefix+uuid.NewString())
	f, err := root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("stage file: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	if cerr := f.Close(); werr == nil && serr == nil {
		werr = cerr
	} else if werr == nil {
		werr = serr
	}
	if werr != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("write staged file: %w", werr)
	}
	if mustBeNew {
		err = root.Link(tmp, rel)
		_ = root.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			return errExists
		}
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("replace file: %w", err)
	}
	return nil
}

// errExists is writeFile's answer when mustBeNew finds the path taken.
var errExists = errors.New("path exists")
