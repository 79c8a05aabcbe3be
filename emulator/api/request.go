package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/store"
)

func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "" || strings.HasSuffix(mt, "json")
}

// RequestTimeout is the code of a body that arrives too slowly.
const RequestTimeout = "RequestTimeout"

// readBody reads the request body up to the configured cap.
func (a *API) readBody(c *call) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, a.cfg.MaxRequestBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, fabricerr.New(http.StatusRequestEntityTooLarge, fabricerr.RequestBodyTooLarge,
			"the request body exceeds the limit of %d bytes", a.cfg.MaxRequestBytes)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fabricerr.New(http.StatusRequestTimeout, RequestTimeout,
			"the request body did not arrive within the server's read timeout")
	} else if err != nil {
		// The connection's own words name the server's address: not shown.
		return nil, fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest,
			"the request body could not be read: its chunked encoding is malformed or the connection closed before it was complete")
	}
	return body, nil
}

// decode reads a JSON object body into v, refusing unknown fields and
// trailing data with errors that name the problem.
func (a *API) decode(c *call, v any) error {
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest, "the request body is empty; a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError("", err)
	}
	if dec.More() {
		return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest, "the request body has data after its JSON value")
	}
	return nil
}

// jsonError turns a decoding error into a 400 naming the field (under
// prefix, when the JSON decoded is part of a larger body) or the offset.
func jsonError(prefix string, err error) *fabricerr.Error {
	at := func(field string) string {
		if prefix == "" {
			return field
		}
		return prefix + "." + field
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest, "the request body is not valid JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		field := at(typ.Field)
		if typ.Field == "" {
			field = firstNonEmpty(prefix, "body")
		}
		return fabricerr.BadParameter(field, "want %s, got %s", jsonKind(typ.Type), jsonValue(typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest, "the request body is truncated JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fabricerr.BadParameter(at(name), "unknown field")
	}
	return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest, "the request body is not valid JSON for this route")
}

// describeJSON says in JSON's terms why a document did not decode, for
// messages that keep an error code of their own.
func describeJSON(err error) string {
	if err == nil {
		return "got null" // decoded, but to nothing
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		what := fmt.Sprintf("want %s, got %s", jsonKind(typ.Type), jsonValue(typ.Value))
		if typ.Field != "" {
			return typ.Field + ": " + what
		}
		return what
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "not valid JSON"
}

// jsonKind names, in JSON's terms, what a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another JSON value"
}

// jsonValue names what an UnmarshalTypeError says was sent: "object",
// "bool", "number", or "number 1e999" for a number out of range.
func jsonValue(v string) string {
	switch kind, literal, _ := strings.Cut(v, " "); kind {
	case "object", "array":
		return "an " + kind
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "number":
		if literal != "" {
			if len(literal) > 40 {
				literal = literal[:40] + "…"
			}
			return "the number " + literal + ", which is out of range or not whole"
		}
		return "a number"
	case "null":
		return "null"
	}
	return "a JSON " + v
}

// page reads ?continuationToken into a store page of the configured size.
func (a *API) page(c *call) (store.Page, error) {
	p := store.Page{Limit: a.cfg.PageSize}
	tok := c.r.URL.Query().Get("continuationToken")
	if tok == "" {
		return p, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		p.After, err = strconv.ParseInt(strings.TrimPrefix(string(raw), "seq:"), 10, 64)
	}
	if err != nil || !strings.HasPrefix(string(raw), "seq:") || p.After <= 0 {
		return p, fabricerr.New(http.StatusBadRequest, fabricerr.InvalidContinuationToken, "continuationToken %q is not one this API issued", tok)
	}
	return p, nil
}

// list renders a Fabric page: value, plus continuationToken and
// continuationUri unless this is the last page.
func list[T any](c *call, values []T, next int64) error {
	if values == nil {
		values = []T{}
	}
	body := map[string]any{"value": values}
	if next > 0 {
		tok := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "seq:%d", next))
		q := c.r.URL.Query()
		q.Set("continuationToken", tok)
		body["continuationToken"] = tok
		body["continuationUri"] = c.baseURL() + c.r.URL.Path + "?" + q.Encode()
	}
	return c.JSON(http.StatusOK, body)
}

// location sets the Location header to an absolute URL of path.
func (c *call) location(path ...string) {
	c.w.Header().Set("Location", c.baseURL()+"/v1/"+strings.Join(escapeAll(path), "/"))
}

func escapeAll(p []string) []string {
	out := make([]string, len(p))
	for i, s := range p {
		out[i] = url.PathEscape(s)
	}
	return out
}
