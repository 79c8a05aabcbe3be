package kustofake

import (
	"fmt"
	"net/http"
)

// NotSupported is the phrase every refusal of an unsupported command, operator
// or expression carries in its message.
const NotSupported = "not supported by this engine"

// engineError is a failure answered as a OneApiError body.
type engineError struct {
	status    int
	code      string // error.code
	message   string // error.message
	typ       string // error.@type
	detail    string // error.@message
	permanent bool
	inner     *innerError
}

// innerError is the innererror member real engines attach to syntax errors.
type innerError struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Type         string `json:"@type"`
	Detail       string `json:"@message"`
	Permanent    bool   `json:"@permanent"`
	ErrorCode    string `json:"@errorCode"`
	ErrorMessage string `json:"@errorMessage"`
	Line         int    `json:"@line"`
	Pos          int    `json:"@pos"`
	Token        string `json:"@token"`
}

func (e *engineError) Error() string { return e.detail }

const (
	badRequestMessage = "Request is invalid and cannot be executed."
	badRequestPrefix  = "Request is invalid and cannot be processed: "
	badRequestType    = "Kusto.Data.Exceptions.KustoBadRequestException"
)

// badRequest is a 400 General_BadRequest with the given @type and detail.
func badRequest(typ, format string, args ...any) *engineError {
	if typ == "" {
		typ = badRequestType
	}
	return &engineError{
		status:    http.StatusBadRequest,
		code:      "General_BadRequest",
		message:   badRequestMessage,
		typ:       typ,
		detail:    badRequestPrefix + fmt.Sprintf(format, args...),
		permanent: true,
	}
}

// notSupported refuses something the real engine may well accept.
func notSupported(format string, args ...any) *engineError {
	e := badRequest("KustoFake.NotSupportedException", "%s (kustofake): %s", NotSupported, fmt.Sprintf(format, args...))
	return e
}

// syntaxError is the real engine's SYN0002 recognition error at a position of src.
func syntaxError(src string, pos int, tok string) *engineError {
	line, col := lineCol(src, pos)
	const msg = "A recognition error occurred."
	detail := fmt.Sprintf("Syntax error: SYN0002: %s [line:position=%d:%d]", msg, line, col)
	return &engineError{
		status:    http.StatusBadRequest,
		code:      "General_BadRequest",
		message:   badRequestMessage,
		typ:       badRequestType,
		detail:    badRequestPrefix + detail,
		permanent: true,
		inner: &innerError{
			Code:         "SYN0002",
			Message:      msg,
			Type:         "Kusto.Data.Exceptions.SyntaxException",
			Detail:       detail,
			Permanent:    true,
			ErrorCode:    "SYN0002",
			ErrorMessage: msg,
			Line:         line,
			Pos:          col,
			Token:        tok,
		},
	}
}

// semanticError is a query that parses but does not resolve or type-check.
func semanticError(code, format string, args ...any) *engineError {
	msg := fmt.Sprintf(format, args...)
	if code != "" {
		msg = code + ": " + msg
	}
	return badRequest("Kusto.Data.Exceptions.SemanticException", "Semantic error: %s", msg)
}

// entityNotFound names a missing table or database.
func entityNotFound(kind, name string) *engineError {
	e := badRequest("Kusto.Data.Exceptions.EntityNotFoundException", "Entity ID '%s' of kind '%s' was not found.", name, kind)
	e.code = "BadRequest_EntityNotFound"
	return e
}

// invalidName refuses a name outside Kusto's entity-name rules.
func invalidName(name string) *engineError {
	e := badRequest("Kusto.Data.Exceptions.EntityNameIsNotValidException", "The entity name '%s' is not valid: names are 1 to 1024 letters, digits, '_', ' ', '.' or '-', and may not start or end with '__'.", name)
	e.code = "BadRequest_EntityNameIsNotValid"
	return e
}

// unavailable is the answer of an engine that is up but refusing work.
func unavailable(status int, why string) *engineError {
	if status == 0 {
		status = http.StatusServiceUnavailable
	}
	return &engineError{
		status:  status,
		code:    "ServiceUnavailable",
		message: "The service is temporarily unavailable.",
		typ:     "Kusto.Common.Svc.Exceptions.ServiceUnavailableException",
		detail:  "Service is unavailable: " + why,
	}
}

// lineCol turns a byte offset into a 1-based line and a 0-based position in
// that line, the convention of the engine's [line:position=…] suffix.
func lineCol(src string, pos int) (line, col int) {
	if pos > len(src) {
		pos = len(src)
	}
	line = 1
	start := 0
	for i := 0; i < pos; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, len([]rune(src[start:pos]))
}
