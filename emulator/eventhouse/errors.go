package eventhouse

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	azerrors "github.com/Azure/azure-kusto-go/azkustodata/errors"
)

// EngineError is a step of Ingest (or Rows) that the engine refused or that
// did not reach it. Its message is short enough to hand to a caller as is,
// e.g. in a 502: it names the step, table and database and quotes the
// engine's own message, never the command text.
type EngineError struct {
	// Step is what was being done: "create-merge table", "show table schema",
	// "ingest inline" or "query".
	Step     string
	Database string
	Table    string
	// StatusCode is the engine's HTTP status, 0 when there was no answer.
	StatusCode int
	// Code is the engine's error code (e.g. General_BadRequest), if any.
	Code string
	// Message is the engine's message (OneApiError @message, else message),
	// or the transport error.
	Message string
	// Permanent is the engine's @permanent flag.
	Permanent bool
	// Err is the SDK's error.
	Err error
}

// Error reads "eventhouse: <step> ['T'] in database "db": engine answered
// <status> <code>: <engine message>", or "…: engine unreachable: <cause>".
func (e *EngineError) Error() string {
	where := fmt.Sprintf("%s %s in database %q", e.Step, QuoteName(e.Table), e.Database)
	if e.StatusCode == 0 {
		return fmt.Sprintf("eventhouse: %s: engine unreachable: %s", where, e.Message)
	}
	code := ""
	if e.Code != "" {
		code = " " + e.Code
	}
	return fmt.Sprintf("eventhouse: %s: engine answered %d%s: %s", where, e.StatusCode, code, e.Message)
}

// Unwrap returns the SDK's error.
func (e *EngineError) Unwrap() error { return e.Err }

// Retryable reports whether trying again may succeed: no answer at all, or
// an answer the engine did not mark permanent (and not a 4xx other than
// 408/429).
func (e *EngineError) Retryable() bool {
	switch {
	case e.StatusCode == 0:
		return true
	case e.Permanent:
		return false
	case e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests:
		return true
	case e.StatusCode >= 400 && e.StatusCode < 500:
		return false
	}
	return true
}

// engineError wraps an SDK error from running csl.
func engineError(step, db, table, csl string, err error) *EngineError {
	e := &EngineError{Step: step, Database: db, Table: table, Err: err}
	var he *azerrors.HttpError
	if errors.As(err, &he) {
		e.StatusCode = he.StatusCode
		if m, ok := he.UnmarshalREST()["error"].(map[string]any); ok {
			e.Code, _ = m["code"].(string)
			e.Permanent, _ = m["@permanent"].(bool)
			e.Message, _ = m["@message"].(string)
			if e.Message == "" {
				e.Message, _ = m["message"].(string)
			}
		}
		if e.Message == "" {
			e.Message = responseBody(he.Err, csl)
		}
		return e
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		e.Message = ue.Error()
		return e
	}
	e.Message = strings.ReplaceAll(err.Error(), csl, "<command>")
	return e
}

// responseBody recovers the body the SDK appended to its HTTP error, which
// reads "error from Kusto endpoint, With query: <csl>(<status>):\n<body>".
func responseBody(err error, csl string) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	prefix := "error from Kusto endpoint, With query: " + csl
	if rest, ok := strings.CutPrefix(text, prefix); ok {
		if _, body, ok := strings.Cut(rest, "):\n"); ok {
			text = body
		}
	} else {
		text = strings.ReplaceAll(text, csl, "<command>")
	}
	text = strings.TrimSpace(text)
	if len(text) > 2048 {
		text = text[:2048] + "…"
	}
	return text
}
