package api

import (
	"errors"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The definition compiler (internal/definition) turns a topology into a
// plan; this file renders its refusals in Fabric's envelope.

type storedDefinition = definition.Parts

// refusalError renders a definition's refusal in Fabric's envelope; other
// errors pass unchanged.
func refusalError(err error) error {
	var r *definition.Refusal
	if !errors.As(err, &r) {
		return err
	}
	switch r.Kind {
	case definition.NotSupported:
		return fabricerr.New(http.StatusBadRequest, EventstreamNodeNotSupported, "%s", r.Message).
			WithDetails(fabricerr.Detail{ErrorCode: EventstreamNodeNotSupported, Message: r.Field})
	case definition.FormatNotSupported:
		return fabricerr.New(http.StatusBadRequest, wire.EventstreamDataFormatNotSupported, "%s", r.Message).
			WithDetails(fabricerr.Detail{ErrorCode: wire.EventstreamDataFormatNotSupported, Message: r.Field})
	case definition.SchemaModeNotSupported:
		return fabricerr.New(http.StatusBadRequest, wire.EventstreamSchemaModeNotSupported, "%s", r.Message).
			WithDetails(fabricerr.Detail{ErrorCode: wire.EventstreamSchemaModeNotSupported, Message: r.Field})
	case definition.Corrupted:
		return fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s%s", r.Message, fabricerr.DescribeJSON(r.JSON))
	}
	return fabricerr.BadParameter(r.Field, "%s", r.Message)
}
