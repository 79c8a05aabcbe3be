package control

import (
	"log/slog"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Item types with behaviour of their own.
const (
	TypeEventstream = "Eventstream"
	TypeLakehouse   = "Lakehouse"
	TypeEventhouse  = "Eventhouse"
	TypeKQLDatabase = "KQLDatabase"
	TypeReflex      = "Reflex"
)

// Config is what the control plane changes and runs.
type Config struct {
	Store   *store.Store
	Broker  *broker.Broker
	Runtime *runtime.Runtime
	Logger  *slog.Logger
	// Jobs runs job instances (nil: none run).
	Jobs *jobs.Runner
	// JobTypes, when set, lists the job types Fabric's Job Scheduler runs
	// for an item type (nil: the emulator knows none, and any well-formed
	// job type is accepted).
	JobTypes func(itemType string) []string
	// OneLakeDir is the root of Lakehouse files: <OneLakeDir>/<ws>/<item>/Tables|Files.
	OneLakeDir string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnChange, when set, is called with the Eventstream's id after every
	// change that stored and synced it (definition, pause, resume,
	// operators, destinations, delete): caches of what the Eventstream
	// grants (the ingest seam's endpoint grants) forget it.
	OnChange func(itemID string)
	// CloseSessions, when set, closes the Kafka sessions opened with the
	// keys of the CustomEndpoint nodes given (paused or gone).
	CloseSessions func(nodes ...string)
}

// Caller is who asks for a change or puts events in: the principal
// (Entra object id) whose workspace roles authorise it, or, for events
// only, a shared access key's grant.
type Caller struct {
	// ID is the principal's object id.
	ID string
	// Type is the principal's kind in Fabric's terms: User or
	// ServicePrincipal (an app-only token).
	Type string
	// Key is what a shared access key was granted (Ingest.Authenticate);
	// when set, ID is not looked at. Only the ingest seam takes it.
	Key *Grant
}

// Plane applies changes to Eventstreams. It is safe for concurrent use as
// far as the store and the runtime are.
type Plane struct {
	cfg Config
	rt  *runtime.Runtime
}

// New returns the control plane over cfg.
func New(cfg Config) *Plane {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Plane{cfg: cfg, rt: cfg.Runtime}
}

// Runtime is what runs behind the plane.
func (p *Plane) Runtime() *runtime.Runtime { return p.rt }

// changed tells OnChange that item id changed.
func (p *Plane) changed(id string) {
	if p.cfg.OnChange != nil {
		p.cfg.OnChange(id)
	}
}

// closeSessions closes the Kafka sessions of the CustomEndpoint nodes.
func (p *Plane) closeSessions(nodes ...string) {
	if p.cfg.CloseSessions != nil && len(nodes) > 0 {
		p.cfg.CloseSessions(nodes...)
	}
}
