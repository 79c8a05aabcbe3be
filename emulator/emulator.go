package emulator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/fabrictest/fabrictest/emulator/internal/api"
	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/entra"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/internal/gateway"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/internal/tlsca"
)

// Server is one emulator: metadata store, token issuer, Kafka broker and the
// HTTP API over them.
type Server struct {
	cfg      config
	store    *store.Store
	issuer   *auth.Issuer
	entra    *entra.Service        // the Entra-compatible token service
	verifier *auth.Verifier        // checks bearer tokens (the API's, the Event Hubs door's)
	trusted  []*auth.TrustedIssuer // other issuers whose tokens are accepted
	broker   *broker.Broker
	api      *api.API
	handler  http.Handler           // the API, with the portal under portal.Prefix unless WithoutPortal
	portal   interface{ Close() }   // the portal, to end its live previews (nil without it)
	rt       *runtime.Runtime       // the drains and sources behind the API
	ingest   *control.Ingest        // the seam every door puts events in by
	gw       *gateway.Gateway       // the custom endpoint's Kafka surface (nil: off)
	eh       *eventhubs.Server      // the custom endpoint's Event Hubs surface (nil: off)
	ehLn     net.Listener           // its listener
	ehAdv    atomic.Pointer[string] // its address advertised at run time (advertiseAMQP), over WithAMQPEndpointAdvertised's
	jobs     *jobs.Runner
	faults   *faults.Set // the fault rules injected into the doors
	http     *http.Server
	tmpDir   string // OneLake files when there is no data dir

	tlsMaterial *tlsca.Material                // as started; nil: plain HTTP and SASL_PLAINTEXT
	tlsCurrent  atomic.Pointer[tlsca.Material] // what listeners serve (nameTLS may renew it)
	tlsMu       sync.Mutex                     // one nameTLS at a time

	closeMu sync.Mutex // one closeAll at a time
}

// New builds a Server. Nothing listens until Serve or ListenAndServe.
func New(opts ...Option) (*Server, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg}
	if err := s.newFaults(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	var err error
	var kafkaDir string
	if cfg.dataDir != "" {
		// The owner's only: the metadata database holds connection secrets.
		if err := os.MkdirAll(cfg.dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
		if err := os.Chmod(cfg.dataDir, 0o700); err != nil {
			// A directory of another owner (a bind mount): the secret files
			// themselves are still 0600.
			cfg.logger.Warn("cannot restrict the data dir to its owner", "dir", cfg.dataDir, "err", err)
		}
		kafkaDir = filepath.Join(cfg.dataDir, "kafka")
	}
	if err := s.loadTLS(); err != nil {
		return nil, err
	}
	switch {
	case cfg.signingKey != nil:
		s.issuer = auth.IssuerFromKey(cfg.signingKey)
	case cfg.dataDir != "":
		s.issuer, err = auth.LoadIssuer(cfg.dataDir)
	default:
		s.issuer, err = auth.NewIssuer()
	}
	if err != nil {
		return nil, err
	}
	verifier, svc, err := s.identity()
	if err != nil {
		return nil, err
	}
	s.entra, s.verifier = svc, verifier
	if s.store, err = store.Open(cfg.dataDir); err != nil {
		return nil, err
	}
	if s.broker, err = connectKafka(&cfg, kafkaDir); err != nil {
		return nil, err
	}
	s.jobs = jobs.NewRunner(s.store, cfg.jobWebhook, cfg.logger)
	oneLake := filepath.Join(cfg.dataDir, "onelake")
	if cfg.dataDir == "" {
		if s.tmpDir, err = os.MkdirTemp("", "fabric-emulator-onelake-"); err != nil {
			return nil, fmt.Errorf("create onelake dir: %w", err)
		}
		oneLake = s.tmpDir
	}
	t := cfg.httpTimeouts.withDefaults(cfg.produceTimeout)
	s.rt = runtime.New(runtime.Config{Store: s.store, Broker: s.broker, Logger: cfg.logger, OneLakeDir: oneLake,
		KQLURL: cfg.kqlURL, Jobs: s.jobs, ProduceTimeout: cfg.produceTimeout,
		SampleInterval: cfg.sampleInterval, SampleBatch: cfg.sampleBatch, Faults: s.faults})
	s.ingest = control.NewIngest(control.IngestConfig{Store: s.store, Broker: s.broker, Runtime: s.rt, ProduceTimeout: cfg.produceTimeout, Faults: s.faults})
	s.api = api.New(api.Config{Runtime: s.rt, Ingest: s.ingest,
		Store: s.store, Broker: s.broker, Issuer: s.issuer, Verifier: verifier, Entra: svc, Logger: cfg.logger,
		PageSize: cfg.pageSize, MaxRequestBytes: cfg.maxRequestBytes, OneLakeDir: oneLake, KQLURL: cfg.kqlURL, Jobs: s.jobs,
		Advertised: cfg.advertised, RemoteTokens: cfg.remoteTokens, ProduceTimeout: cfg.produceTimeout,
		AsyncOperations: cfg.asyncOperations, WriteTimeout: t.Write,
		TLS: s.TLS(), CACertificate: s.CACertificate(), Faults: s.faults,
	})
	if err := s.jobs.Recover(context.Background()); err != nil {
		return nil, err
	}
	if err := s.rt.SyncAll(context.Background()); err != nil {
		return nil, err
	}
	if err := s.startAMQP(); err != nil {
		return nil, err
	}
	if err := s.startEndpoint(); err != nil {
		return nil, err
	}
	if s.handler, err = s.mountPortal(); err != nil {
		return nil, err
	}
	s.http = &http.Server{Handler: s.handler, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write, IdleTimeout: t.Idle,
		// What net/http logs by itself (a panic in a handler, an accept
		// error) goes to the emulator's logger, not to stderr.
		ErrorLog: slog.NewLogLogger(cfg.logger.Handler(), slog.LevelWarn)}
	if s.portal != nil {
		s.http.RegisterOnShutdown(s.portal.Close)
	}
	ok = true
	return s, nil
}

// Handler returns the HTTP API (and the portal under /_emulator/portal/),
// for use with httptest or a server of your own.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers HTTP on ln until Shutdown or Close, HTTPS with WithTLS.
// Even requests net/http refuses before routing (a malformed request line
// or header, plain HTTP on the HTTPS port) are answered in Fabric's error
// envelope.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(apiListener{Listener: ln, tls: s.serverTLS("http/1.1"), log: s.cfg.logger, timeout: s.http.ReadHeaderTimeout})
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// closeTimeout bounds Close: a drain's write or a Kafka client that hangs
// is left behind rather than waited for.
const closeTimeout = 10 * time.Second

// Shutdown stops accepting requests, waits for those in flight, then
// releases the destinations, the broker and the store, all within ctx: what
// has not finished by its deadline (a write or a Kafka client that hangs)
// is left to the process's exit.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	return errors.Join(err, s.release(ctx))
}

// Close releases everything at once, waiting at most 10 s.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return s.release(ctx)
}

// release runs closeAll, giving up on it when ctx ends.
func (s *Server) release(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.closeAll(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("shut down: %w", ctx.Err())
	}
}

func (s *Server) closeAll(ctx context.Context) error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	var errs []error
	if s.http != nil {
		errs = append(errs, s.http.Close())
	}
	errs = append(errs, s.closeAMQP())
	if s.gw != nil {
		errs = append(errs, s.gw.Close())
		s.gw = nil
	}
	if s.api != nil {
		s.api.CloseOperations()
	}
	if s.portal != nil {
		s.portal.Close()
	}
	for _, t := range s.trusted {
		t.Close()
	}
	if s.rt != nil {
		errs = append(errs, s.rt.Close(ctx))
	}
	if s.jobs != nil {
		s.jobs.Close()
	}
	if s.broker != nil {
		s.broker.Close()
		s.broker = nil
	}
	if s.store != nil {
		errs = append(errs, s.store.Close())
		s.store = nil
	}
	if s.tmpDir != "" {
		errs = append(errs, os.RemoveAll(s.tmpDir))
		s.tmpDir = ""
	}
	return errors.Join(errs...)
}

// KafkaBootstrap returns the bootstrap servers of the attached broker (none
// when started with WithKafka("none")).
func (s *Server) KafkaBootstrap() []string { return s.broker.Bootstrap() }

// KafkaKind is "embedded", "external" or "none".
func (s *Server) KafkaKind() string { return s.broker.Kind() }

// JobHandler runs a job instance; its error fails the instance with the
// error as the failure reason.
type JobHandler = jobs.Handler

// Job is what a JobHandler receives.
type Job = jobs.Job

// HandleJobs registers h to run jobs of jobType on item itemID (an empty
// itemID or jobType matches every item or job type; the most specific
// registration wins). Without a handler or a job webhook, jobs fail with
// NoJobRunner.
func (s *Server) HandleJobs(itemID, jobType string, h JobHandler) { s.jobs.Handle(itemID, jobType, h) }

// Token mints a bearer token for principal (auth.DefaultPrincipal when
// empty) that this server accepts.
func (s *Server) Token(principal string) (string, error) {
	tok, _, err := s.issuer.Mint(auth.MintOptions{Principal: principal})
	return tok, err
}

// startEndpoint starts the custom endpoint's Kafka surface in front of the
// broker (none without a broker, or with WithKafkaEndpoint("off")).
func (s *Server) startEndpoint() error {
	if !s.broker.Enabled() || s.cfg.endpointAddr == "off" {
		return nil
	}
	opts := []gateway.Option{gateway.WithListenAddr(s.cfg.endpointAddr), gateway.WithLogger(s.cfg.logger), gateway.WithProduceObserver(s.countForwarded),
		gateway.WithFaults(s.kafkaFault)}
	if s.cfg.endpointAdv != "" {
		opts = append(opts, gateway.WithAdvertisedAddr(s.cfg.endpointAdv))
	}
	if c := s.serverTLS(); c != nil {
		opts = append(opts, gateway.WithTLS(c))
	}
	if sec := s.broker.Security(); sec.Secured() {
		opts = append(opts, gateway.WithUpstreamSecurity(sec.TLS, sec.Mechanism()))
	}
	if s.eh != nil { // one port for both protocols: the Kafka endpoint takes AMQP too
		opts = append(opts, gateway.WithAMQP(s.eh.ServeConn))
	}
	gw, err := gateway.New(s.broker.Bootstrap(), s.authenticateEndpoint, opts...)
	if err != nil {
		return fmt.Errorf("start kafka endpoint: %w", err)
	}
	if err := gw.Start(); err != nil {
		return fmt.Errorf("start kafka endpoint: %w", err)
	}
	s.gw = gw
	s.api.AttachGateway(tlsAdvertiser{gw, s})
	return nil
}

// KafkaEndpoint is the host:port connection strings of CustomEndpoint
// nodes point at ("" when it is off or there is no broker).
func (s *Server) KafkaEndpoint() string {
	if s.gw == nil {
		return ""
	}
	return s.gw.Addr()
}

// authenticateEndpoint is the Kafka endpoint's SASL PLAIN check, through
// the ingest seam: a source's key may send, a destination's listen.
func (s *Server) authenticateEndpoint(ctx context.Context, user, pass string) (gateway.Grant, error) {
	g, err := s.ingest.Authenticate(ctx, user, pass)
	if err != nil {
		return gateway.Grant{}, err
	}
	rights := gateway.Send
	if g.Listen {
		rights = gateway.Listen
	}
	return gateway.Grant{KeyID: g.KeyID, Topic: g.Topic, GroupPrefix: g.GroupPrefix, Rights: rights, Node: g.Node, Owner: g.Eventstream}, nil
}

// countForwarded counts a produce the Kafka endpoint forwarded, by the
// ingest seam's one rule of data insights.
func (s *Server) countForwarded(g gateway.Grant, records, valueBytes int64) {
	s.ingest.Forwarded(control.Grant{KeyID: g.KeyID, Eventstream: g.Owner, Node: g.Node, Topic: g.Topic,
		GroupPrefix: g.GroupPrefix, Listen: g.Rights == gateway.Listen}, records, valueBytes)
}
