package eventbody

import (
	"errors"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// ingestStatus is the HTTP status of each kind of the ingest seam's
// refusals.
var ingestStatus = map[control.Kind]int{
	control.NotFound:        http.StatusNotFound,
	control.Forbidden:       http.StatusForbidden,
	control.Unauthenticated: http.StatusUnauthorized,
	control.ReadOnly:        http.StatusBadRequest,
	control.Paused:          http.StatusConflict,
	control.TooLarge:        http.StatusRequestEntityTooLarge,
	control.Unsupported:     http.StatusBadRequest,
	control.NoBroker:        http.StatusNotImplemented,
	control.Unavailable:     http.StatusBadGateway,
}

// IngestError renders a refusal of the ingest seam in Fabric's envelope;
// any other error is returned as it is.
func IngestError(err error) error {
	var e *control.Error
	if !errors.As(err, &e) {
		return err
	}
	status, ok := ingestStatus[e.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	fe := fabricerr.New(status, e.ErrorCode, "%s", e.Message)
	if e.ResourceID != "" || e.ResourceType != "" {
		fe = fe.WithResource(e.ResourceID, e.ResourceType)
	}
	if e.Hint != "" {
		fe = fe.WithDetails(fabricerr.Detail{ErrorCode: e.ErrorCode, Message: e.Hint})
	}
	return fe
}

// eventError renders the refusal of one event by control.CheckEvent,
// naming the event's field in the body (field(".value") for instance).
func eventError(err error, field func(sub string) string) error {
	var e *control.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	where := field("")
	if e.Kind == control.Unsupported {
		where = field(".value")
		if e.ResourceID != "" {
			where += "." + e.ResourceID
		}
	}
	return fabricerr.New(ingestStatus[e.Kind], e.ErrorCode, "%s %s", where, e.Message).
		WithDetails(fabricerr.Detail{ErrorCode: e.ErrorCode, Message: where})
}
