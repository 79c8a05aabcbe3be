package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Long-running operations (Fabric's LRO pattern): an eligible call answers
// 202 with an empty body and the Location, x-ms-operation-id and
// Retry-After headers; GET /v1/operations/{id} reports the state and, once
// Succeeded with a result, GET /v1/operations/{id}/result answers it.
// Operations live in memory, keyed by id, readable by the principal that
// started them only.

// Operation states (OperationState.status).
const (
	OpNotStarted = "NotStarted"
	OpRunning    = "Running"
	OpSucceeded  = "Succeeded"
	OpFailed     = "Failed"
)

// Error codes of the operations routes.
const (
	// OperationHasNoResult is Fabric's code for /result of an operation that
	// produces none (or has not produced one: it failed).
	OperationHasNoResult = "OperationHasNoResult"
	// OperationNotCompleted (emulator-native) answers /result before the
	// operation finished.
	OperationNotCompleted = "OperationNotCompleted"
)

// opRetryAfter is the Retry-After, in seconds, of running operations.
const opRetryAfter = 1

// maxOperations bounds the registry; the oldest finished operations go first.
const maxOperations = 10000

type operation struct {
	id, principal    string
	status           string
	created, updated time.Time
	result           []byte // JSON body of /result; nil: none
	err              *fabricerr.Error
}

type operations struct {
	mu    sync.Mutex
	byID  map[string]*operation
	order []string // ids, oldest first
	wg    sync.WaitGroup
}

// operationStateJSON is Fabric's OperationState.
type operationStateJSON = wire.OperationState

// opTime is the operations' timestamp form: UTC, milliseconds, Z.
func opTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (o *operation) state() operationStateJSON {
	s := operationStateJSON{Status: o.status, CreatedTimeUtc: opTime(o.created), LastUpdatedTimeUtc: opTime(o.updated)}
	if o.err != nil {
		s.Error = o.err.Wire()
	}
	switch o.status {
	case OpSucceeded, OpFailed:
		s.PercentComplete = 100
	case OpRunning:
		s.PercentComplete = 50
	}
	return s
}

// StartOperation registers an operation for principal and runs it in the
// background: run's non-nil result becomes the body of /result, its error
// (converted with fabricerr.As) fails the operation. It returns the
// operation id. Server.Close waits for running operations.
func (a *API) StartOperation(principal string, run func(ctx context.Context) (result []byte, err error)) string {
	now := a.cfg.Now()
	op := &operation{id: uuid.NewString(), principal: principal, status: OpNotStarted, created: now, updated: now}
	o := &a.ops
	o.mu.Lock()
	if o.byID == nil {
		o.byID = map[string]*operation{}
	}
	o.byID[op.id] = op
	o.order = append(o.order, op.id)
	o.evictLocked()
	o.wg.Add(1)
	o.mu.Unlock()
	go func() {
		defer o.wg.Done()
		o.set(op, func() { op.status, op.updated = OpRunning, a.cfg.Now() })
		result, err := run(context.Background())
		o.set(op, func() {
			op.updated = a.cfg.Now()
			if err != nil {
				op.status, op.err = OpFailed, fabricerr.As(err)
				return
			}
			op.status, op.result = OpSucceeded, result
		})
	}()
	return op.id
}

func (o *operations) set(op *operation, f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f()
}

// evictLocked drops the oldest finished operations beyond maxOperations.
func (o *operations) evictLocked() {
	for i := 0; len(o.byID) > maxOperations && i < len(o.order); {
		op := o.byID[o.order[i]]
		if op != nil && op.status != OpSucceeded && op.status != OpFailed {
			i++
			continue
		}
		delete(o.byID, o.order[i])
		o.order = append(o.order[:i], o.order[i+1:]...)
	}
}

// CloseOperations waits for the operations still running.
func (a *API) CloseOperations() { a.ops.wg.Wait() }

// operation returns a copy of the operation {op} if the caller started it;
// anyone else gets 404, as for an id that does not exist.
func (a *API) operation(c *call) (operation, error) {
	id := c.r.PathValue("op")
	a.ops.mu.Lock()
	defer a.ops.mu.Unlock()
	op, ok := a.ops.byID[id]
	if !ok || op.principal != c.principal {
		return operation{}, fabricerr.NotFound(fabricerr.EntityNotFound, "Operation", id)
	}
	return *op, nil
}

// getOperation serves GET /v1/operations/{op} (and /operations/{op}).
func (a *API) getOperation(c *call) error {
	op, err := a.operation(c)
	if err != nil {
		return err
	}
	h := c.w.Header()
	h.Set("x-ms-operation-id", op.id)
	switch op.status {
	case OpNotStarted, OpRunning:
		c.location("operations", op.id)
		h.Set("Retry-After", strconv.Itoa(opRetryAfter))
	case OpSucceeded:
		if op.result != nil {
			c.location("operations", op.id, "result")
		}
	}
	return c.JSON(http.StatusOK, op.state())
}

// getOperationResult serves GET /v1/operations/{op}/result.
func (a *API) getOperationResult(c *call) error {
	op, err := a.operation(c)
	if err != nil {
		return err
	}
	switch {
	case op.status == OpNotStarted || op.status == OpRunning:
		c.w.Header().Set("Retry-After", strconv.Itoa(opRetryAfter))
		return fabricerr.New(http.StatusBadRequest, OperationNotCompleted,
			"Operation %s is %s; poll GET /v1/operations/%s until it succeeds", op.id, op.status, op.id)
	case op.status == OpFailed:
		return fabricerr.New(http.StatusBadRequest, OperationHasNoResult,
			"Operation %s failed (%s); its error is in the operation state", op.id, op.err.ErrorCode)
	case op.result == nil:
		return fabricerr.New(http.StatusBadRequest, OperationHasNoResult, "Operation %s has no result", op.id)
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(http.StatusOK)
	_, err = c.w.Write(op.result)
	return err
}

// lro makes fn asynchronous when the API runs with AsyncOperations: the
// caller's access to the workspace ({ws}, at least min) is checked at once,
// the body read, and the call answered 202 with the LRO headers; fn then
// runs as an operation whose result is fn's 2xx body (none when empty) and
// whose failure is fn's Fabric error.
func (a *API) lro(min store.Role, fn endpoint) endpoint {
	return func(c *call) error {
		if !a.cfg.AsyncOperations {
			return fn(c)
		}
		if c.r.PathValue("ws") != "" {
			if _, err := a.workspace(c, min); err != nil {
				return err
			}
		}
		body, err := a.readBody(c)
		if err != nil {
			return err
		}
		r := c.r.Clone(context.WithoutCancel(c.r.Context()))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		requestID, principal := c.id, c.principal
		id := a.StartOperation(principal, func(context.Context) ([]byte, error) {
			rec := &bufferWriter{header: http.Header{}}
			if err := fn(&call{w: rec, r: r, id: requestID, principal: principal}); err != nil {
				fe := *a.public(r, requestID, err)
				fe.RequestID = requestID
				return nil, &fe
			}
			if rec.status >= 300 {
				return nil, fabricerr.New(rec.status, fabricerr.UnknownError, "the operation answered %d: %s", rec.status, rec.buf.Bytes())
			}
			if rec.buf.Len() == 0 {
				return nil, nil
			}
			return bytes.TrimSpace(rec.buf.Bytes()), nil
		})
		c.location("operations", id)
		c.w.Header().Set("x-ms-operation-id", id)
		c.w.Header().Set("Retry-After", strconv.Itoa(opRetryAfter))
		c.w.WriteHeader(http.StatusAccepted)
		return nil
	}
}

// bufferWriter records an answer written by an endpoint run as an operation.
type bufferWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.buf.Write(p)
}
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
