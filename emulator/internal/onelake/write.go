package onelake

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// body reads the request body up to the handler's cap.
func (o *op) body() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(o.r.Body, o.h.cfg.MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if int64(len(b)) > o.h.cfg.MaxBody {
		return nil, newErr(http.StatusRequestEntityTooLarge, "RequestBodyTooLarge", "RequestBodyTooLarge", "The request body is larger than %d bytes", o.h.cfg.MaxBody)
	}
	return b, nil
}

// stat returns rel's info and whether it exists.
func (o *op) stat(root *os.Root, rel string) (fs.FileInfo, bool, error) {
	fi, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, o.statErr(rel, err)
	}
	return fi, true, nil
}

// commit writes data at the op's path under the conditional headers and
// answers status with the new properties. Callers hold h.mu.
func (o *op) commit(root *os.Root, data []byte, status int) error {
	rel := o.relPath()
	fi, exists, err := o.stat(root, rel)
	if err != nil {
		return err
	}
	if exists && fi.IsDir() {
		return newErr(http.StatusConflict, "PathConflict", "InvalidBlobOrBlock", "%s is a directory", o.name(rel))
	}
	if err := o.preconditions(fi, exists); err != nil {
		return err
	}
	mustBeNew := o.r.Header.Get("If-None-Match") == "*"
	if err := writeFile(root, rel, data, mustBeNew); errors.Is(err, errExists) {
		return alreadyExists(o.name(rel))
	} else if escapes(err) {
		return o.statErr(rel, err)
	} else if err != nil {
		return err
	}
	return o.answer(root, status)
}

// answer writes status with the path's ETag and Last-Modified.
func (o *op) answer(root *os.Root, status int) error {
	fi, err := root.Stat(o.relPath())
	if err != nil {
		return o.statErr(o.relPath(), err)
	}
	h := o.w.Header()
	h.Set("ETag", `"`+etag(fi)+`"`)
	h.Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
	h.Set("x-ms-request-server-encrypted", "false")
	h.Set("Content-Length", "0")
	o.w.WriteHeader(status)
	return nil
}

// withRoot runs fn with the item's root open and the handler's lock held.
func (o *op) withRoot(fn func(root *os.Root) error) error {
	root, err := o.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	o.h.mu.Lock()
	defer o.h.mu.Unlock()
	return fn(root)
}

// create serves DFS PUT ?resource=file|directory.
func (o *op) create(resource string) error {
	return o.withRoot(func(root *os.Root) error {
		rel := o.relPath()
		if resource == "directory" {
			fi, exists, err := o.stat(root, rel)
			if err != nil {
				return err
			}
			if err := o.preconditions(fi, exists); err != nil {
				return err
			}
			if err := root.MkdirAll(rel, 0o700); err != nil {
				return alreadyExists(o.name(rel))
			}
			return o.answer(root, http.StatusCreated)
		}
		delete(o.h.pending, o.key())
		return o.commit(root, nil, http.StatusCreated)
	})
}

// position parses the DFS position parameter.
func (o *op) position() (int64, error) {
	p, err := strconv.ParseInt(o.r.URL.Query().Get("position"), 10, 64)
	if err != nil || p < 0 {
		return 0, newErr(http.StatusBadRequest, "InvalidQueryParameterValue", "InvalidQueryParameterValue", "position must be a non-negative integer")
	}
	return p, nil
}

// appendData serves DFS PATCH ?action=append&position=: the data is
// staged until a flush (or flush=true) commits it.
func (o *op) appendData() error {
	pos, err := o.position()
	if err != nil {
		return err
	}
	data, err := o.body()
	if err != nil {
		return err
	}
	return o.withRoot(func(root *os.Root) error {
		fi, exists, err := o.stat(root, o.relPath())
		if err != nil {
			return err
		}
		if !exists || fi.IsDir() {
			return pathNotFound(o.name(o.relPath()))
		}
		k := o.key()
		if want := fi.Size() + int64(len(o.h.pending[k])); pos != want {
			return newErr(http.StatusBadRequest, "InvalidAppendPosition", "InvalidAppendPosition", "position %d is not the end of the data, %d", pos, want)
		}
		o.h.pending[k] = append(o.h.pending[k], data...)
		if o.r.URL.Query().Get("flush") == "true" {
			return o.flushLocked(root, pos+int64(len(data)))
		}
		o.w.WriteHeader(http.StatusAccepted)
		return nil
	})
}

// flush serves DFS PATCH ?action=flush&position=: position must be the
// length of the file with its staged appends.
func (o *op) flush() error {
	pos, err := o.position()
	if err != nil {
		return err
	}
	return o.withRoot(func(root *os.Root) error { return o.flushLocked(root, pos) })
}

func (o *op) flushLocked(root *os.Root, pos int64) error {
	rel, k := o.relPath(), o.key()
	old, err := root.ReadFile(rel)
	if err != nil {
		return o.statErr(rel, err)
	}
	if want := int64(len(old) + len(o.h.pending[k])); pos != want {
		return newErr(http.StatusBadRequest, "InvalidFlushPosition", "InvalidFlushPosition", "position %d is not the length of the data, %d", pos, want)
	}
	if err := o.commit(root, append(old, o.h.pending[k]...), http.StatusOK); err != nil {
		return err
	}
	delete(o.h.pending, k)
	return nil
}
