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
)

// Header names Fabric clients read.
const (
	HeaderErrorCode  = "x-ms-public-api-error-code"
	HeaderRequestID  = "requestid"
	HeaderMSRequest  = "x-ms-request-id"
	HeaderRetryAfter = "Retry-After"
)

// Stable error codes answered by the emulator. Those that Fabric documents
// keep Fabric's spelling; the emulator-native ones are named the same way.
const (
	InvalidToken                = "InvalidToken"
	TokenExpired                = "TokenExpired"
	InsufficientPrivileges      = "InsufficientPrivileges"
	WorkspaceNotFound           = "WorkspaceNotFound"
	ItemNotFound                = "ItemNotFound"
	EntityNotFound              = "EntityNotFound"
	PrincipalNotFound           = "PrincipalNotFound"
	DatasourceNotFound          = "DatasourceNotFound"
	InvalidInput                = "InvalidInput"
	InvalidParameter            = "InvalidParameter"
	InvalidRequest              = "InvalidRequest"
	InvalidItemType             = "InvalidItemType"
	InvalidContinuationToken    = "InvalidContinuationToken"
	InvalidPath                 = "InvalidPath"
	RequestHeadersTooLarge      = "RequestHeaderFieldsTooLarge"
	UnsupportedTransferEncoding = "UnsupportedTransferEncoding"
	ItemDisplayNameAlreadyInUse = "ItemDisplayNameAlreadyInUse"
	WorkspaceNameAlreadyExists  = "WorkspaceNameAlreadyExists"
	PrincipalAlreadyHasRole     = "PrincipalAlreadyHasWorkspaceRolePermissions"
	LastAdminCannotBeRemoved    = "WorkspaceMustHaveAdmin"
	RequestBodyTooLarge         = "RequestBodyTooLarge"
	RequestTimeout              = "RequestTimeout"
	UnsupportedMediaType        = "UnsupportedMediaType"
	EndpointNotFound            = "EndpointNotFound"
	MethodNotAllowed            = "MethodNotAllowed"
	KafkaNotConfigured          = "KafkaNotConfigured"
	KafkaUnavailable            = "KafkaUnavailable"
	ConsumeTimeout              = "ConsumeTimeout"
	Forbidden                   = "Forbidden"
	UnknownError                = "UnknownError"
)

// Detail is one entry of moreDetails.
type Detail struct {
	ErrorCode       string           `json:"errorCode"`
	Message         string           `json:"message"`
	RelatedResource *RelatedResource `json:"relatedResource,omitempty"`
}

// RelatedResource names the resource an error is about.
type RelatedResource struct {
	ResourceID   string `json:"resourceId"`
	ResourceType string `json:"resourceType"`
}

// Error is a Fabric error with the HTTP status it is answered with.
type Error struct {
	Status          int              `json:"-"`
	ErrorCode       string           `json:"errorCode"`
	Message         string           `json:"message"`
	RequestID       string           `json:"requestId"`
	MoreDetails     []Detail         `json:"moreDetails,omitempty"`
	RelatedResource *RelatedResource `json:"relatedResource,omitempty"`
	// RetryAfter, when positive, is sent as the Retry-After header in seconds.
	RetryAfter int `json:"-"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.ErrorCode, e.Status, e.Message) }

// New returns an *Error with the given status, code and formatted message.
func New(status int, code, format string, args ...any) *Error {
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
func NotFound(code, resourceType, id string) *Error {
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
	h.Set(HeaderErrorCode, fe.ErrorCode)
	h.Set(HeaderRequestID, requestID)
	h.Set(HeaderMSRequest, requestID)
	if fe.RetryAfter > 0 {
		h.Set(HeaderRetryAfter, fmt.Sprint(fe.RetryAfter))
	}
	w.WriteHeader(fe.Status)
	_ = json.NewEncoder(w).Encode(&fe)
}

// Status-free constructors: packages that are no HTTP door (the control
// plane) name the kind of failure, and the status it is answered with
// follows from the kind here, in one place.

// Invalid is a 400: the request is wrong in a way code names.
func Invalid(code, format string, args ...any) *Error {
	return New(http.StatusBadRequest, code, format, args...)
}

// Conflict is a 409: the request is well formed but the resource's state
// refuses it.
func Conflict(code, format string, args ...any) *Error {
	return New(http.StatusConflict, code, format, args...)
}

// Denied is a 403: the caller may not do this.
func Denied(code, format string, args ...any) *Error {
	return New(http.StatusForbidden, code, format, args...)
}
