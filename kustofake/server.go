package kustofake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultDatabase always exists; it is kustainer's default database and the
// one a request without "db" runs in.
const DefaultDatabase = "NetDefaultDB"

// Endpoint paths served.
const (
	PathMgmt     = "/v1/rest/mgmt"
	PathQueryV2  = "/v2/rest/query"
	PathQueryV1  = "/v1/rest/query"
	PathMetadata = "/v1/rest/auth/metadata"
)

// Server is the stand-in engine. It is safe for concurrent use.
type Server struct {
	mu          sync.Mutex
	dbs         map[string]*database // by lower-cased name
	autoCreate  bool
	maxBody     int64
	addr        string
	hs          *http.Server
	down        bool
	closed      bool
	unavailable bool
	faults      []*Fault
	requests    []Request
}

// Option configures a Server.
type Option func(*config)

type config struct {
	databases  []string
	autoCreate bool
	addr       string
	maxBody    int64
}

// WithDatabases creates the named databases at start.
func WithDatabases(names ...string) Option {
	return func(c *config) { c.databases = append(c.databases, names...) }
}

// WithoutAutoCreate makes a request naming an unknown database fail with
// EntityNotFound instead of creating the database.
func WithoutAutoCreate() Option { return func(c *config) { c.autoCreate = false } }

// WithAddr listens on a fixed loopback address such as "127.0.0.1:8080"
// instead of a free port. Non-loopback addresses are refused.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithMaxRequestBytes refuses request bodies larger than n bytes with 413, as
// an engine with a request size limit would. The default is no limit.
func WithMaxRequestBytes(n int64) Option { return func(c *config) { c.maxBody = n } }

// Request is one request to a Kusto endpoint, as recorded by the server.
type Request struct {
	Endpoint        string // PathMgmt, PathQueryV2 or PathQueryV1
	Database        string
	CSL             string
	ClientRequestID string
	Status          int
	// Fault is true when the answer was an injected failure.
	Fault bool
}

// TB is the part of testing.TB that Start needs.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// New starts a server on a free loopback port; it panics if it cannot
// listen, like httptest.NewServer. Close it when done.
func New(opts ...Option) *Server {
	s, err := newServer(opts...)
	if err != nil {
		panic("kustofake: " + err.Error())
	}
	return s
}

// Start starts a server for a test and closes it when the test ends.
func Start(tb TB, opts ...Option) *Server {
	tb.Helper()
	s, err := newServer(opts...)
	if err != nil {
		tb.Fatalf("kustofake: %v", err)
		return nil
	}
	tb.Cleanup(s.Close)
	return s
}

func newServer(opts ...Option) (*Server, error) {
	cfg := config{autoCreate: true, addr: "127.0.0.1:0"}
	for _, o := range opts {
		o(&cfg)
	}
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("parse address %q: %w", cfg.addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("refuse to listen on %q: only loopback addresses are served", cfg.addr)
	}
	s := &Server{dbs: map[string]*database{}, autoCreate: cfg.autoCreate, maxBody: cfg.maxBody}
	s.dbs[strings.ToLower(DefaultDatabase)] = newDatabase(DefaultDatabase)
	for _, name := range cfg.databases {
		if s.dbs[strings.ToLower(name)] == nil {
			s.dbs[strings.ToLower(name)] = newDatabase(name)
		}
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	return s, nil
}

// serve starts an HTTP server on ln; s.mu is held or s is not shared yet.
func (s *Server) serve(ln net.Listener) {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	s.hs = hs
	go func() { _ = hs.Serve(ln) }()
}

// URL is the engine's base URL, e.g. http://127.0.0.1:40123; it stays the
// same across Down and Up.
func (s *Server) URL() string { return "http://" + s.addr }

// Addr is the host:port the engine listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server and closes its connections.
func (s *Server) Close() {
	s.mu.Lock()
	hs := s.hs
	s.hs, s.closed = nil, true
	s.mu.Unlock()
	if hs != nil {
		_ = hs.Close()
	}
}

// Requests returns the requests received so far, oldest first: the last
// 2000, each command text cut at 1 MiB.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

// ServeHTTP serves the Kusto REST endpoints, so a Server can also be mounted
// in another http.Server or httptest.Server (Down and Up then do nothing
// useful).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := requestInfo{clientRequestID: r.Header.Get("x-ms-client-request-id"), activityID: uuid.NewString()}
	if info.clientRequestID == "" {
		info.clientRequestID = "KFK.execute;" + uuid.NewString()
	}
	switch r.URL.Path {
	case PathMetadata:
		s.mu.Lock()
		down := s.unavailable
		s.mu.Unlock()
		if down {
			e := unavailable(0, "the engine is unavailable (kustofake SetUnavailable)")
			writeJSON(w, e.status, errorBody(e, info), info)
			return
		}
		writeJSON(w, http.StatusOK, []byte(`{"AzureAD":null,"dSTS":null}`), info)
	case PathMgmt, PathQueryV2, PathQueryV1:
		s.serveKusto(w, r, info)
	default:
		e := badRequest("", "The path %s is not a Kusto endpoint served by kustofake.", r.URL.Path)
		e.status, e.code = http.StatusNotFound, "NotFound"
		writeJSON(w, e.status, errorBody(e, info), info)
	}
}

// requestBody is the JSON body of a query or command.
type requestBody struct {
	DB  string `json:"db"`
	CSL string `json:"csl"`
}

func (s *Server) serveKusto(w http.ResponseWriter, r *http.Request, info requestInfo) {
	endpoint := r.URL.Path
	fail := func(e *engineError, fault bool) {
		s.record(Request{Endpoint: endpoint, Database: info.db, CSL: info.csl, ClientRequestID: info.clientRequestID, Status: e.status, Fault: fault})
		writeJSON(w, e.status, errorBody(e, info), info)
	}

	switch {
	case r.Method == http.MethodPost:
		reader := io.Reader(r.Body)
		if s.maxBody > 0 {
			reader = io.LimitReader(r.Body, s.maxBody+1)
		}
		raw, err := io.ReadAll(reader)
		if err != nil {
			fail(badRequest("", "The request body could not be read: %v", err), false)
			return
		}
		if s.maxBody > 0 && int64(len(raw)) > s.maxBody {
			e := badRequest("Kusto.Data.Exceptions.KustoRequestPayloadTooLargeException", "The request body is %d bytes or more; this engine accepts at most %d.", len(raw), s.maxBody)
			e.status, e.code = http.StatusRequestEntityTooLarge, "PayloadTooLarge"
			fail(e, false)
			return
		}
		var body requestBody
		if err := json.Unmarshal(raw, &body); err != nil {
			fail(badRequest("", "The request body is not valid JSON: %v", err), false)
			return
		}
		info.db, info.csl = body.DB, body.CSL
	case r.Method == http.MethodGet && endpoint != PathMgmt:
		info.db, info.csl = r.URL.Query().Get("db"), r.URL.Query().Get("csl")
	default:
		e := badRequest("", "The method %s is not allowed on %s.", r.Method, endpoint)
		e.status, e.code = http.StatusMethodNotAllowed, "MethodNotAllowed"
		fail(e, false)
		return
	}
	if strings.TrimSpace(info.csl) == "" {
		fail(badRequest("", "The request has no query or command text (csl)."), false)
		return
	}
	if info.db == "" {
		info.db = DefaultDatabase
	}

	if f := s.takeFault(endpoint, info.csl, false); f != nil {
		fail(f, true)
		return
	}

	var res *result
	var err *engineError
	if endpoint == PathMgmt {
		var c *command
		if c, err = parseCommand(info.csl); err == nil {
			s.mu.Lock()
			res, err = s.execCommand(info.db, c)
			s.mu.Unlock()
		}
	} else {
		var q *query
		if q, err = parseQuery(info.csl); err == nil {
			res, err = s.runQuery(info.db, q)
		}
	}
	if err != nil {
		fail(err, false)
		return
	}
	if f := s.takeFault(endpoint, info.csl, true); f != nil {
		fail(f, true)
		return
	}

	var body []byte
	switch endpoint {
	case PathMgmt:
		body = mgmtBody(res)
	case PathQueryV2:
		body = v2QueryBody(res, info)
	default:
		body = v1QueryBody(res, info)
	}
	s.record(Request{Endpoint: endpoint, Database: info.db, CSL: info.csl, ClientRequestID: info.clientRequestID, Status: http.StatusOK})
	writeJSON(w, http.StatusOK, body, info)
}

// Bounds of the request log.
const (
	maxLoggedRequests = 2000
	maxLoggedCSL      = 1 << 20
)

func (s *Server) record(r Request) {
	if len(r.CSL) > maxLoggedCSL {
		r.CSL = r.CSL[:maxLoggedCSL] + "…"
	}
	s.mu.Lock()
	if len(s.requests) >= maxLoggedRequests {
		s.requests = append(s.requests[:0], s.requests[len(s.requests)-maxLoggedRequests+1:]...)
	}
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

// errClosed is returned by Up after Close.
var errClosed = errors.New("kustofake: server closed")
