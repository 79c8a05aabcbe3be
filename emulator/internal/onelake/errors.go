package onelake

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// storageError is an answer in Azure Storage's error shape: DFS requests
// get {"error":{"code","message"}}, Blob requests <Error><Code>…; both
// carry the code in x-ms-error-code.
type storageError struct {
	status int
	dfs    string // the DFS code
	blob   string // the Blob code
	msg    string
}

func (e *storageError) Error() string { return e.dfs + ": " + e.msg }

func newErr(status int, dfs, blob, format string, args ...any) *storageError {
	return &storageError{status: status, dfs: dfs, blob: blob, msg: fmt.Sprintf(format, args...)}
}

func invalidURI(format string, args ...any) *storageError {
	return newErr(http.StatusBadRequest, "InvalidUri", "InvalidUri", format, args...)
}

func invalidInput(format string, args ...any) *storageError {
	return newErr(http.StatusBadRequest, "InvalidInput", "InvalidInput", format, args...)
}

func pathNotFound(name string) *storageError {
	return newErr(http.StatusNotFound, "PathNotFound", "BlobNotFound", "The specified path does not exist: %s", name)
}

func alreadyExists(name string) *storageError {
	return newErr(http.StatusConflict, "PathAlreadyExists", "BlobAlreadyExists", "The specified path already exists: %s", name)
}

func forbidden(format string, args ...any) *storageError {
	return newErr(http.StatusForbidden, "AuthorizationPermissionMismatch", "AuthorizationPermissionMismatch", format, args...)
}

// fail writes err in the request's dialect; anything that is not a
// storageError is a 500 InternalError, logged with its cause.
func (o *op) fail(err error) {
	var se *storageError
	if !errors.As(err, &se) {
		o.h.cfg.Logger.Error("onelake request failed", "method", o.r.Method, "path", o.r.URL.Path, "requestId", o.id, "err", err)
		se = newErr(http.StatusInternalServerError, "InternalError", "InternalError", "The server encountered an internal error; see the emulator's log")
	}
	msg := fmt.Sprintf("%s\nRequestId:%s\nTime:%s", se.msg, o.id, time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z"))
	h := o.w.Header()
	code := se.blob
	if o.dialect == dfsDialect {
		code = se.dfs
	}
	h.Set("x-ms-error-code", code)
	if o.r.Method == http.MethodHead {
		o.w.WriteHeader(se.status)
		return
	}
	if o.dialect == dfsDialect {
		h.Set("Content-Type", "application/json;charset=utf-8")
		o.w.WriteHeader(se.status)
		_ = json.NewEncoder(o.w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
		return
	}
	h.Set("Content-Type", "application/xml")
	o.w.WriteHeader(se.status)
	_, _ = o.w.Write([]byte(xml.Header))
	_ = xml.NewEncoder(o.w).Encode(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
	}{Code: code, Message: msg})
}
