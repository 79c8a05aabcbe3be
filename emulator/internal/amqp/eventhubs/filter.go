package eventhubs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// The selector filter Event Hubs reads a receiver's start position from.
const (
	selectorFilterName amqp.Symbol = "apache.org:selector-filter:string"
	selectorFilterCode uint64      = 0x0000468C00000004
)

// positionOf reads the start position of a receiver's source filter; with
// no selector filter a receiver starts after the latest event.
func positionOf(filter amqp.Map) (Position, error) {
	for _, e := range filter {
		d, ok := e.Value.(amqp.Described)
		if !ok || !isSelector(d.Descriptor) {
			continue
		}
		expr, ok := d.Value.(string)
		if !ok {
			return Position{}, fmt.Errorf("the selector filter is not a string")
		}
		return parseSelector(expr)
	}
	return Position{Kind: FromLatest}, nil
}

// isSelector reports whether a descriptor names the selector filter.
func isSelector(d any) bool {
	switch d := d.(type) {
	case amqp.Symbol:
		return d == selectorFilterName
	case uint64:
		return d == selectorFilterCode
	}
	return false
}

// parseSelector parses "amqp.annotation.<field> <op> '<value>'" where
// field is x-opt-offset, x-opt-sequence-number or x-opt-enqueued-time
// (milliseconds since the epoch) and op is > or >=.
func parseSelector(expr string) (Position, error) {
	f := strings.Fields(expr)
	if len(f) != 3 || (f[1] != ">" && f[1] != ">=") || len(f[2]) < 2 || f[2][0] != '\'' || f[2][len(f[2])-1] != '\'' {
		return Position{}, fmt.Errorf("the selector %q is not \"amqp.annotation.<field> > '<value>'\"", expr)
	}
	field, value := strings.TrimPrefix(f[0], "amqp.annotation."), f[2][1:len(f[2])-1]
	p := Position{Inclusive: f[1] == ">="}
	if field == string(annOffset) && value == "@latest" {
		p.Kind = FromLatest
		return p, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("the selector value %q is not a number", value)
	}
	switch field {
	case string(annOffset):
		p.Kind, p.Value = FromOffset, n
		if n < 0 {
			p = Position{Kind: FromEarliest}
		}
	case string(annSequenceNumber):
		p.Kind, p.Value = FromSequence, n
	case string(annEnqueuedTime):
		p.Kind, p.Time = FromTime, time.UnixMilli(n).UTC()
	default:
		return Position{}, fmt.Errorf("the selector field %q is not x-opt-offset, x-opt-sequence-number or x-opt-enqueued-time", f[0])
	}
	return p, nil
}
