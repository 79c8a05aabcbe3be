// Package fabricerr models the Microsoft Fabric REST error envelope.
//
// Every failure the emulator answers is an *Error rendered by Write:
//
//	{"requestId": "…", "errorCode": "ItemNotFound", "message": "…",
//	 "moreDetails": [{"errorCode": "…", "message": "…"}],
//	 "relatedResource": {"resourceId": "…", "resourceType": "Item"}}
//
// with the code mirrored in the x-ms-public-api-error-code header and the
// request id in the requestid and x-ms-request-id headers, as Fabric does.
// errorCode is the stable contract clients key off; messages may change.
package fabricerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Header names Fabric clients read.
const (
	HeaderErrorCode  = "x-ms-public-api-error-code"
	HeaderRequestID  = "requestid"
	HeaderMSRequest  = "x-ms-request-id"
	HeaderRetryAfter = "Retry-After"
)

// Stable error codes answered by the emulator: the names of the wire
// catalogue (wire.Codes), which is the one list of them. A code written as
// a literal elsewhere must be in it too (a test checks every call).
const (
	InvalidToken                = wire.InvalidToken
	TokenExpired                = wire.TokenExpired
	InsufficientPrivileges      = wire.InsufficientPrivileges
	WorkspaceNotFound           = wire.WorkspaceNotFound
	ItemNotFound                = wire.ItemNotFound
	EntityNotFound              = wire.EntityNotFound
	PrincipalNotFound           = wire.PrincipalNotFound
	DatasourceNotFound          = wire.DatasourceNotFound
	InvalidInput                = wire.InvalidInput
	InvalidParameter            = wire.InvalidParameter
	InvalidRequest              = wire.InvalidRequest
	InvalidItemType             = wire.InvalidItemType
	InvalidContinuationToken    = wire.InvalidContinuationToken
	InvalidPath                 = wire.InvalidPath
	RequestHeadersTooLarge      = wire.RequestHeadersTooLarge
	UnsupportedTransferEncoding = wire.UnsupportedTransferEncoding
	ItemDisplayNameAlreadyInUse = wire.ItemDisplayNameAlreadyInUse
	WorkspaceNameAlreadyExists  = wire.WorkspaceNameAlreadyExists
	PrincipalAlreadyHasRole     = wire.PrincipalAlreadyHasRole
	LastAdminCannotBeRemoved    = wire.LastAdminCannotBeRemoved
	RequestBodyTooLarge         = wire.RequestBodyTooLarge
	RequestTimeout              = wire.RequestTimeout
	EndpointNotFound            = wire.EndpointNotFound
	MethodNotAllowed            = wire.MethodNotAllowed
	KafkaNotConfigured          = wire.KafkaNotConfigured
	KafkaUnavailable            = wire.KafkaUnavailable
	Forbidden                   = wire.Forbidden
	UnknownError                = wire.UnknownError
)

// Detail is one entry of moreDetails.
type Detail = wire.ErrorDetail

// RelatedResource names the resource an error is about.
type RelatedResource = wire.RelatedResource

// Error is a Fabric error with the HTTP status it is answered with.
type Error struct {
	Status          int
	ErrorCode       wire.ErrorCode
	Message         string
	RequestID       string
	MoreDetails     []Detail
	RelatedResource *RelatedResource
	// RetryAfter, when positive, is sent as the Retry-After header in seconds.
	RetryAfter int
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.ErrorCode, e.Status, e.Message) }

// New returns an *Error with the given status, code and formatted message.
func New(status int, code wire.ErrorCode, format string, args ...any) *Error {
	return &Error{Status: status, ErrorCode: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails appends moreDetails entries and returns e.
func (e *Error) WithDetails(d ...Detail) *Error {
	e.MoreDetails = append(e.MoreDetails, d...)
	return e
}

// WithResource sets relatedResource and returns e.
func (e *Error) WithResource(id, typ string) *Error {
	e.RelatedResource = &RelatedResource{ResourceID: id, ResourceType: typ}
	return e
}

// BadParameter is the common 400 InvalidInput with one InvalidParameter
// detail that names the field at fault.
func BadParameter(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return New(http.StatusBadRequest, InvalidInput, "The request has an invalid input: %s: %s", field, msg).
		WithDetails(Detail{ErrorCode: InvalidParameter, Message: field + ": " + msg})
}

// NotFound is a 404 with a relatedResource naming what was looked for.
func NotFound(code wire.ErrorCode, resourceType, id string) *Error {
	return New(http.StatusNotFound, code, "The requested %s %q could not be found", resourceType, id).WithResource(id, resourceType)
}

// As returns err as an *Error. Anything else is a failure nobody
// anticipated: a 500 UnknownError whose message tells nothing of the cause
// (it may name server paths or internals); the caller logs the cause.
func As(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	return New(http.StatusInternalServerError, UnknownError, InternalMessage)
}

// InternalMessage is the message of every unanticipated failure.
const InternalMessage = "The emulator failed to serve this request; its log holds the cause under this requestId"

// Write renders err (converted with As) as the Fabric envelope.
func Write(w http.ResponseWriter, requestID string, err error) {
	fe := *As(err) // copy: the request id is per response
	fe.RequestID = requestID
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set(HeaderErrorCode, string(fe.ErrorCode))
	h.Set(HeaderRequestID, requestID)
	h.Set(HeaderMSRequest, requestID)
	if fe.RetryAfter > 0 {
		h.Set(HeaderRetryAfter, fmt.Sprint(fe.RetryAfter))
	}
	w.WriteHeader(fe.Status)
	_ = json.NewEncoder(w).Encode(fe.Wire())
}

// Wire is e as the envelope it is answered with.
func (e *Error) Wire() *wire.Error {
	return &wire.Error{ErrorCode: e.ErrorCode, Message: e.Message, RequestID: e.RequestID,
		MoreDetails: e.MoreDetails, RelatedResource: e.RelatedResource}
}

// MarshalJSON encodes e as its envelope (wire.Error), wherever it is
// embedded (a failed operation's error, an answer written by hand).
func (e Error) MarshalJSON() ([]byte, error) { return json.Marshal(e.Wire()) }

// Status-free constructors: packages that are no HTTP door (the control
// plane) name the kind of failure, and the status it is answered with
// follows from the kind here, in one place.

// Invalid is a 400: the request is wrong in a way code names.
func Invalid(code wire.ErrorCode, format string, args ...any) *Error {
	return New(http.StatusBadRequest, code, format, args...)
}

// Conflict is a 409: the request is well formed but the resource's state
// refuses it.
func Conflict(code wire.ErrorCode, format string, args ...any) *Error {
	return New(http.StatusConflict, code, format, args...)
}

// Denied is a 403: the caller may not do this.
func Denied(code wire.ErrorCode, format string, args ...any) *Error {
	return New(http.StatusForbidden, code, format, args...)
}
