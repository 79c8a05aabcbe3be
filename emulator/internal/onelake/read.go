package onelake

import (
	"errors"
	"io/fs"
	"net/http"
	"strings"
)

// read serves GET of a path: the bytes, with Range (or x-ms-range) and the
// conditional headers http.ServeContent honours. A directory reads empty,
// as a hierarchical account's folder blob does.
func (o *op) read() error {
	root, err := o.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	rel := o.relPath()
	f, err := root.Open(rel)
	if err != nil {
		return o.statErr(rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return o.statErr(rel, err)
	}
	o.setProps(fi)
	if fi.IsDir() {
		o.w.WriteHeader(http.StatusOK)
		return nil
	}
	if xr := o.r.Header.Get("x-ms-range"); xr != "" {
		o.r.Header.Set("Range", xr)
	}
	http.ServeContent(o.w, o.r, "", fi.ModTime(), f)
	return nil
}

// head serves HEAD of a path: its properties.
func (o *op) head() error {
	root, err := o.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	rel := o.relPath()
	fi, err := root.Stat(rel)
	if err != nil {
		return o.statErr(rel, err)
	}
	if err := o.preconditions(fi, true); err != nil {
		return err
	}
	o.setProps(fi)
	if !fi.IsDir() {
		o.w.Header().Set("Content-Length", itoa(fi.Size()))
	}
	o.w.WriteHeader(http.StatusOK)
	return nil
}

// remove serves DELETE (both dialects): a folder must be empty unless
// the DFS request says recursive=true.
func (o *op) remove() error {
	root, err := o.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	rel := o.relPath()
	fi, err := root.Stat(rel) // a link leading out of the item is refused
	if err != nil {
		return o.statErr(rel, err)
	}
	if err := o.preconditions(fi, true); err != nil {
		return err
	}
	o.h.mu.Lock()
	defer o.h.mu.Unlock()
	if fi.IsDir() && strings.EqualFold(o.r.URL.Query().Get("recursive"), "true") {
		err = root.RemoveAll(rel)
	} else {
		err = root.Remove(rel)
	}
	if err != nil && fi.IsDir() && !errors.Is(err, fs.ErrNotExist) {
		return newErr(http.StatusConflict, "DirectoryNotEmpty", "DirectoryIsNotEmpty", "The directory %s is not empty: delete it with recursive=true", o.name(rel))
	} else if err != nil {
		return o.statErr(rel, err)
	}
	delete(o.h.pending, o.key())
	if o.dialect == dfsDialect {
		o.w.WriteHeader(http.StatusOK)
	} else {
		o.w.WriteHeader(http.StatusAccepted)
	}
	return nil
}

// preconditions applies If-Match and If-None-Match to an existing path
// (exists false: the path is absent). If-None-Match: * on an existing path
// is 409 PathAlreadyExists/BlobAlreadyExists, as Azure answers writes.
func (o *op) preconditions(fi fs.FileInfo, exists bool) error {
	inm, im := o.r.Header.Get("If-None-Match"), o.r.Header.Get("If-Match")
	cur := ""
	if exists {
		cur = etag(fi)
	}
	switch {
	case inm == "*" && exists:
		return alreadyExists(o.name(o.relPath()))
	case inm != "" && inm != "*" && exists && strings.Trim(inm, `"`) == cur:
		return conditionNotMet("If-None-Match")
	case im != "" && !exists:
		return conditionNotMet("If-Match")
	case im != "" && im != "*" && strings.Trim(im, `"`) != cur:
		return conditionNotMet("If-Match")
	}
	return nil
}

func conditionNotMet(header string) *storageError {
	return newErr(http.StatusPreconditionFailed, "ConditionNotMet", "ConditionNotMet", "The condition specified using HTTP conditional header(s) is not met (%s)", header)
}

// key names a path in the handler's staging maps.
func (o *op) key() string { return o.ws.ID + "/" + o.item.ID + "/" + o.relPath() }
