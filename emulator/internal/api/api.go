// Package api serves the emulator's HTTP surface: the Fabric public REST API
// for workspaces, role assignments, items and Eventstreams, the
// emulator-native Eventstream data routes (Custom HTTP produce, consume,
// Spark resolve) and the /_emulator control routes.
//
// Every change (workspaces, roles, items, definitions, destinations,
// operators, pause and resume, jobs, triggers) is a call to the control
// plane (internal/control): a handler checks the caller's reach, decodes
// the request, calls the plane and renders its answer.
//
// Handlers return values or *fabricerr.Error; one adapter writes the wire
// format, so every failure, including unknown routes and wrong methods, is
// answered in Fabric's error envelope.
package api

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/entra"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	gojson "github.com/goccy/go-json"
	"github.com/google/uuid"
)

// Config is what the API needs from the server that hosts it.
type Config struct {
	Store  *store.Store
	Broker *broker.Broker
	// Runtime runs what the API stores (default: one made from this Config).
	Runtime *runtime.Runtime
	// Ingest is the seam events go in by (default: one made from this Config).
	Ingest *control.Ingest
	Issuer *auth.Issuer
	// Verifier checks bearer tokens (default: the Issuer's own tokens only).
	Verifier *auth.Verifier
	// Entra is the Entra-compatible token service (default: an open one
	// over Issuer).
	Entra  *entra.Service
	Logger *slog.Logger
	// PageSize is the largest page a list route answers (default 100).
	PageSize int
	// MaxRequestBytes caps request bodies (default DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OneLakeDir is the root of Lakehouse files: <OneLakeDir>/<ws>/<item>/Tables|Files.
	OneLakeDir string
	// Jobs runs job instances.
	Jobs *jobs.Runner
	// ProduceTimeout bounds a produce against a broker that does not
	// acknowledge (default DefaultProduceTimeout).
	ProduceTimeout time.Duration
	// WriteTimeout is the hosting server's write timeout (0: none). A route
	// that may wait longer than a produce (consume's timeoutMs) pushes its
	// own write deadline out by its longest wait.
	WriteTimeout time.Duration
	// Advertised, when set, replaces the broker's bootstrap list in resolve answers.
	Advertised []string
	// RemoteTokens lets non-loopback callers mint tokens.
	RemoteTokens bool
	// KQLURL is the Kusto engine behind Eventhouses ("" when none is attached).
	KQLURL string
	// AsyncOperations makes every eligible call (item creation) a
	// long-running operation: 202 + Location / x-ms-operation-id / Retry-After.
	AsyncOperations bool
	// TLS reports that the server serves HTTPS and SASL_SSL.
	TLS bool
	// CACertificate is the PEM of the CA behind TLS (nil: off, or the
	// user's own certificate).
	CACertificate []byte
	// OneLakeLog, when set, sees every OneLake request's method and URL.
	OneLakeLog func(method, url string)
	// Faults are the fault rules injected into the doors (nil: none, and
	// the /_emulator/faults routes answer an empty set).
	Faults *faults.Set
	// OnChange, when set, is called with an Eventstream's id after every
	// change the control plane stored and synced (control.Config.OnChange).
	OnChange func(itemID string)
}

// DefaultMaxRequestBytes is the default cap on a request body: 16 MiB.
const DefaultMaxRequestBytes = 16 << 20

// DefaultProduceTimeout is how long a produce waits for the broker's
// acknowledgements by default.
const DefaultProduceTimeout = runtime.DefaultProduceTimeout

// DeliveryWait is how long a produce then waits for its Eventstream's
// destinations to deliver before answering 504.
const DeliveryWait = runtime.DeliveryTimeout

// API is the emulator's http.Handler.
type API struct {
	cfg Config
	mux *http.ServeMux

	rt *runtime.Runtime // the drains and sources that run what is stored

	plane *control.Plane // every change to Eventstreams

	ops operations

	gateway Gateway // the Kafka endpoint of connection strings (nil: off)

	onelake http.Handler // the OneLake storage surface under /onelake/

	registered []route // what handle registered, in order
}

// route is a registered pattern and whether it needs a bearer token.
type route struct {
	pattern       string
	authenticated bool
}

// Runtime is what runs behind the API: the server starts it (SyncAll) and
// stops it (Close).
func (a *API) Runtime() *runtime.Runtime { return a.rt }

// New returns the API handler for cfg.
func New(cfg Config) *API {
	if cfg.PageSize <= 0 {
		cfg.PageSize = 100
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.ProduceTimeout <= 0 {
		cfg.ProduceTimeout = DefaultProduceTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Faults == nil {
		cfg.Faults = faults.NewSet(nil)
	}
	if cfg.Verifier == nil {
		cfg.Verifier = auth.NewVerifier(cfg.Issuer)
	}
	if cfg.Entra == nil {
		cfg.Entra = entra.New(entra.Config{Issuer: cfg.Issuer, Logger: cfg.Logger, Now: cfg.Now, Resources: nonEmpty(cfg.KQLURL)})
	}
	rt := cfg.Runtime
	if rt == nil {
		rt = runtime.New(runtime.Config{Store: cfg.Store, Broker: cfg.Broker, Logger: cfg.Logger, Now: cfg.Now,
			OneLakeDir: cfg.OneLakeDir, KQLURL: cfg.KQLURL, Jobs: cfg.Jobs, ProduceTimeout: cfg.ProduceTimeout})
	}
	if cfg.Ingest == nil {
		cfg.Ingest = control.NewIngest(control.IngestConfig{Store: cfg.Store, Broker: cfg.Broker, Runtime: rt, ProduceTimeout: cfg.ProduceTimeout})
	}
	a := &API{cfg: cfg, mux: http.NewServeMux(), rt: rt}
	// A change the plane made invalidates what the ingest seam keeps of
	// the Eventstream (its endpoint grants, paused nodes, topics).
	onChange := func(itemID string) {
		cfg.Ingest.Forget(itemID)
		if cfg.OnChange != nil {
			cfg.OnChange(itemID)
		}
	}
	a.plane = control.New(control.Config{Store: cfg.Store, Broker: cfg.Broker, Runtime: rt, Logger: cfg.Logger, Now: cfg.Now,
		OneLakeDir: cfg.OneLakeDir, OnChange: onChange, CloseSessions: a.revokeSessions, Jobs: cfg.Jobs, JobTypes: jobTypes})
	a.routes()
	a.onelake = a.oneLake()
	return a
}

// call is one request in flight.
type call struct {
	w         http.ResponseWriter
	r         *http.Request
	id        string
	principal string // the token's oid; empty on unauthenticated routes
	// principalType is the caller's kind in Fabric's terms: "ServicePrincipal"
	// for an app-only token (idtyp "app"), else "User".
	principalType string
}

// endpoint handles a call and returns an error to be rendered as the envelope.
type endpoint func(c *call) error

// handle registers pattern; authenticated routes require a valid token.
func (a *API) handle(pattern string, authenticated bool, fn endpoint) {
	a.registered = append(a.registered, route{pattern, authenticated})
	a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, id: w.Header().Get(fabricerr.HeaderRequestID)}
		if a.cfg.Faults != nil && a.injectREST(c, pattern) {
			return
		}
		if authenticated {
			claims, err := a.cfg.Verifier.Verify(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				a.cfg.Logger.Warn("bearer token refused", "method", r.Method, "path", r.URL.Path, "requestId", c.id, "reason", err)
				fabricerr.Write(w, c.id, authError(err))
				return
			}
			c.principal, c.principalType = claims.ObjectID, "User"
			if claims.IDType == "app" {
				c.principalType = "ServicePrincipal"
			}
		}
		if err := fn(c); err != nil {
			a.fail(w, r, c.id, err)
		}
	})
}

// ServeHTTP stamps a request id and answers unknown routes, wrong methods
// and paths that are not canonical in the Fabric envelope.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := uuid.NewString()
	w.Header().Set(fabricerr.HeaderRequestID, id)
	w.Header().Set(fabricerr.HeaderMSRequest, id)
	// Answers without a body (200 on updateDefinition, pause, resume, …)
	// still name a type: clients such as fabric-cicd test it before
	// reading the body. Handlers with a body set their own.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if isOneLake(r) {
		a.onelake.ServeHTTP(w, r)
		return
	}
	if fe := pathError(r); fe != nil {
		fabricerr.Write(w, id, fe)
		return
	}
	h, pattern := a.mux.Handler(r)
	if pattern != "" {
		a.mux.ServeHTTP(w, r) // the mux sets the path values
		return
	}
	// The mux's own 404/405: keep its status and Allow header, replace the body.
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if allow := rec.header.Get("Allow"); allow != "" {
		w.Header().Set("Allow", allow)
	}
	if rec.status == http.StatusMethodNotAllowed {
		fabricerr.Write(w, id, fabricerr.New(http.StatusMethodNotAllowed, fabricerr.MethodNotAllowed,
			"%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, rec.header.Get("Allow")))
		return
	}
	fabricerr.Write(w, id, fabricerr.New(http.StatusNotFound, fabricerr.EndpointNotFound,
		"no route for %s %s", r.Method, r.URL.Path))
}

type statusRecorder struct {
	header http.Header
	status int
}

func (s *statusRecorder) Header() http.Header         { return s.header }
func (s *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusRecorder) WriteHeader(code int)        { s.status = code }

// JSON writes v with status.
func (c *call) JSON(status int, v any) error {
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(status)
	return gojson.NewEncoder(c.w).Encode(v)
}

// baseURL is the scheme and host the caller reached us at.
func (c *call) baseURL() string {
	scheme := "http"
	if c.r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.r.Host
}

func authError(err error) *fabricerr.Error {
	switch {
	case errors.Is(err, auth.ErrExpired):
		return fabricerr.New(http.StatusUnauthorized, fabricerr.TokenExpired, "Access token has expired: %v", err)
	case errors.Is(err, auth.ErrMissing):
		return fabricerr.New(http.StatusUnauthorized, fabricerr.InvalidToken,
			"Access token is missing: send 'Authorization: Bearer <token>' (POST /_emulator/token or 'fabric-emulator token' mints one)")
	default:
		return fabricerr.New(http.StatusUnauthorized, fabricerr.InvalidToken, "Access token is invalid: %v", err)
	}
}
