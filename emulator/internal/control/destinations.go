package control

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// destinationTypes maps each bindable type to the item types it accepts.
var destinationTypes = map[string][]string{
	"Lakehouse":  {TypeLakehouse},
	"Reflex":     {TypeReflex},
	"Eventhouse": {TypeEventhouse, TypeKQLDatabase},
}

// tableless destination types take no table.
var tableless = map[string]bool{"Reflex": true}

// BindRequest is the emulator-native binding body; definitions build one
// per Lakehouse, Eventhouse and Activator destination node.
type BindRequest struct {
	Type        string `json:"type"`
	ItemID      string `json:"itemId"`
	Table       string `json:"table"`
	Database    string `json:"database"`
	WorkspaceID string `json:"workspaceId"`
	// IngestionMode is an Eventhouse destination's dataIngestionMode:
	// ProcessedIngestion (the default) or DirectIngestion.
	IngestionMode string `json:"ingestionMode"`
	// The emulator's delivery settings (destination_policy.go).
	ErrorPolicy     string `json:"errorPolicy"`
	DeadLetterTopic string `json:"deadLetterTopic"`
	SchemaMode      string `json:"schemaMode"`
	// MinimumRows and MaximumDurationInSeconds make a Lakehouse
	// destination batch (either set; batching.go).
	MinimumRows              *int64                    `json:"minimumRows,omitempty"`
	MaximumDurationInSeconds *int64                    `json:"maximumDurationInSeconds,omitempty"`
	batching                 *definition.BatchSettings // a definition's Lakehouse node: it always batches
}

// Binding is the answer to a bind: the destination, and whether this call
// created it (false: the same binding existed, possibly re-pointed).
type Binding struct {
	Destination store.Destination
	Created     bool
}

// Bind binds Eventstream ref to the destination req describes. The same
// request twice is idempotent: the second returns the first binding.
func (p *Plane) Bind(ctx context.Context, who Caller, ref ItemRef, req BindRequest) (Binding, error) {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return Binding{}, err
	}
	d, err := p.checkBinding(ctx, who, es, req, func(f string) string { return f })
	if err != nil {
		return Binding{}, err
	}
	d, created, err := p.applyBinding(ctx, d, true)
	return Binding{Destination: d, Created: created}, err
}

// checkBinding validates req for Eventstream es and returns the destination
// it describes (no id yet), changing nothing. field renames the request's
// fields in errors (a definition names its node's properties).
func (p *Plane) checkBinding(ctx context.Context, who Caller, es store.Item, req BindRequest, field func(string) string) (store.Destination, error) {
	typ, err := destinationType(req, field)
	if err != nil {
		return store.Destination{}, err
	}
	wsID := es.WorkspaceID
	if req.WorkspaceID != "" {
		if _, err := uuid.Parse(req.WorkspaceID); err != nil {
			return store.Destination{}, fabricerr.BadParameter(field("workspaceId"), "want a GUID, got %q", req.WorkspaceID)
		}
		wsID = req.WorkspaceID
	}
	target, err := p.bindTarget(ctx, who, wsID, req.ItemID)
	if err != nil {
		return store.Destination{}, err
	}
	accepts := destinationTypes[typ]
	if !slices.Contains(accepts, target.Type) {
		return store.Destination{}, fabricerr.BadParameter(field("itemId"), "item %s is a %s, but a %s destination needs a %s", target.ID, target.Type, typ, strings.Join(accepts, " or "))
	}
	spec, err := p.targetSpec(ctx, typ, target, req, field)
	if err != nil {
		return store.Destination{}, err
	}
	if spec, err = withPolicy(spec, es, typ, policySettings{req.ErrorPolicy, req.DeadLetterTopic, req.SchemaMode}, field); err != nil {
		return store.Destination{}, err
	}
	bt, err := batchingOf(typ, req, field)
	if err != nil {
		return store.Destination{}, err
	}
	if spec, err = withBatching(spec, bt); err != nil {
		return store.Destination{}, err
	}
	return store.Destination{EventstreamID: es.ID, Type: typ, WorkspaceID: wsID, ItemID: target.ID, Target: req.Table, Spec: spec}, nil
}

// destinationType is req's destination type in its canonical spelling,
// once its item id is a GUID.
func destinationType(req BindRequest, field func(string) string) (string, error) {
	var typ string
	for t := range destinationTypes {
		if strings.EqualFold(t, req.Type) {
			typ = t
		}
	}
	if typ == "" {
		return "", fabricerr.BadParameter(field("type"), "%q is not a destination type this emulator delivers to; want Lakehouse, Eventhouse or Reflex", req.Type)
	}
	if _, err := uuid.Parse(req.ItemID); err != nil {
		return "", fabricerr.BadParameter(field("itemId"), "want the GUID of the target item, got %q", req.ItemID)
	}
	return typ, nil
}

// bindTarget loads item itemID of workspace wsID, where who must be a
// Contributor.
func (p *Plane) bindTarget(ctx context.Context, who Caller, wsID, itemID string) (store.Item, error) {
	if _, err := p.cfg.Store.GetWorkspace(ctx, wsID); errors.Is(err, store.ErrNotFound) {
		return store.Item{}, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", wsID)
	} else if err != nil {
		return store.Item{}, err
	}
	if err := p.Require(ctx, who, wsID, store.RoleContributor); err != nil {
		return store.Item{}, err
	}
	target, err := p.cfg.Store.GetItem(ctx, itemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && target.WorkspaceID != wsID) {
		return store.Item{}, fabricerr.NotFound(fabricerr.ItemNotFound, "Item", itemID)
	}
	return target, err
}

// targetSpec checks req's table, database and ingestion mode for a
// destination of type typ on target and returns the spec they make.
func (p *Plane) targetSpec(ctx context.Context, typ string, target store.Item, req BindRequest, field func(string) string) (json.RawMessage, error) {
	switch {
	case req.IngestionMode != "" && typ != "Eventhouse":
		return nil, fabricerr.BadParameter(field("ingestionMode"), "only an Eventhouse destination has an ingestion mode, not a %s destination", typ)
	case tableless[typ]:
		if req.Table != "" {
			return nil, fabricerr.BadParameter(field("table"), "a %s destination takes no table", typ)
		}
	case typ == "Eventhouse":
		db, err := p.eventhouseDatabase(ctx, target, req.Database)
		if err != nil {
			return nil, err
		}
		if err := eventhouse.ValidateName(req.Table); err != nil {
			return nil, fabricerr.BadParameter(field("table"), "%v", err)
		}
		mode, err := ingestionMode(req.IngestionMode, field)
		if err != nil {
			return nil, err
		}
		return eventstream.Spec{Database: db, IngestionMode: mode}.Encode(), nil
	default:
		if err := ValidTableName(field("table"), req.Table); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// applyBinding stores d (storeBinding) and starts its drain. A new
// binding whose drain fails to start is removed again.
func (p *Plane) applyBinding(ctx context.Context, d store.Destination, native bool) (store.Destination, bool, error) {
	d, created, changed, err := p.storeBinding(ctx, d, native)
	if err != nil || !changed {
		return d, created, err
	}
	err = p.sync(ctx, d.EventstreamID) // a re-pointed binding restarts
	if created {
		if p.unstarted(ctx, d) {
			return d, false, err
		}
		return d, true, nil
	}
	return d, false, err
}

// storeBinding stores d (checked by checkBinding) without starting it. A
// binding of the same (type, item, table) is reused: when its spec differs
// it is re-pointed. native keeps what a definition stored in the existing
// spec (its name and operators) and compares the database only. It
// reports whether it created the binding and whether anything changed.
func (p *Plane) storeBinding(ctx context.Context, d store.Destination, native bool) (out store.Destination, created, changed bool, err error) {
	if old, err := p.cfg.Store.FindDestination(ctx, d.EventstreamID, d.Type, d.ItemID, d.Target); err == nil {
		spec, _, err := rebindSpec(old, d, native)
		if err != nil {
			return old, false, false, err
		}
		if same, err := sameSpec(spec, old.Spec); err != nil || same {
			return old, false, false, err
		}
		if err := p.cfg.Store.UpdateDestinationSpec(ctx, old.ID, spec); err != nil {
			return old, false, false, err
		}
		old.Spec = spec
		return old, false, true, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return d, false, false, err
	}
	if d.ID == "" { // a definition's destination comes with the id its node carries
		d.ID = uuid.NewString()
	}
	d.CreatedAt = p.cfg.Now()
	if err := p.cfg.Store.CreateDestination(ctx, d); err != nil {
		return d, false, false, err
	}
	return d, true, true, nil
}

// unstarted removes new binding d again when its drain failed to start,
// and reports whether it did.
func (p *Plane) unstarted(ctx context.Context, d store.Destination) bool {
	if !p.rt.StartFailed(d.ID) {
		return false
	}
	_ = p.rt.Stop(d.ID)
	_ = p.cfg.Store.DeleteDestination(ctx, d.ID)
	return true
}

// Destinations lists the destinations of Eventstream ref (not the
// internal bindings of its DerivedStreams).
func (p *Plane) Destinations(ctx context.Context, who Caller, ref ItemRef) ([]store.Destination, error) {
	es, err := p.eventstream(ctx, who, ref, store.RoleViewer)
	if err != nil {
		return nil, err
	}
	return p.UserDestinations(ctx, es.ID)
}

// Destination loads destination ref of its Eventstream, where who holds
// at least role min.
func (p *Plane) Destination(ctx context.Context, who Caller, ref NodeRef, min store.Role) (store.Destination, error) {
	es, err := p.eventstream(ctx, who, ref.Eventstream, min)
	if err != nil {
		return store.Destination{}, err
	}
	d, err := p.cfg.Store.GetDestination(ctx, ref.Node)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (d.EventstreamID != es.ID || Internal(d))) {
		return d, fabricerr.NotFound(DestinationNotFound, "Destination", ref.Node)
	}
	return d, err
}

// Unbind stops and removes destination ref.
func (p *Plane) Unbind(ctx context.Context, who Caller, ref NodeRef) error {
	d, err := p.Destination(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	if err := p.rt.Stop(d.ID); err != nil {
		return err
	}
	if err := p.cfg.Store.DeleteDestination(ctx, d.ID); err != nil {
		return err
	}
	p.changed(d.EventstreamID)
	return nil
}

// UnbindAll removes every destination of Eventstream ref (the internal
// bindings of its DerivedStreams stay).
func (p *Plane) UnbindAll(ctx context.Context, who Caller, ref ItemRef) error {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	ds, err := p.UserDestinations(ctx, es.ID)
	if err != nil {
		return err
	}
	defer p.changed(es.ID)
	return p.dropDestinations(ctx, ds, nil)
}

// dropDestinations stops and deletes ds, but those in keep.
func (p *Plane) dropDestinations(ctx context.Context, ds []store.Destination, keep map[string]bool) error {
	for _, d := range ds {
		if keep[d.ID] {
			continue
		}
		if err := p.rt.Stop(d.ID); err != nil {
			return err
		}
		if err := p.cfg.Store.DeleteDestination(ctx, d.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// eventhouseDatabase resolves the database of an Eventhouse binding: a KQL
// database item is its own database; an Eventhouse takes the named one of
// its databases, or its default database (the one of its own name).
func (p *Plane) eventhouseDatabase(ctx context.Context, target store.Item, name string) (string, error) {
	if target.Type == TypeKQLDatabase {
		if name != "" && name != target.DisplayName && !strings.EqualFold(name, target.ID) {
			return "", fabricerr.BadParameter("database", "KQL database %s is %q; leave database out or name it", target.ID, target.DisplayName)
		}
		return target.DisplayName, nil
	}
	if name == "" {
		name = target.DisplayName
	}
	dbs, err := p.DatabasesOf(ctx, target)
	if err != nil {
		return "", err
	}
	for _, db := range dbs {
		if db.DisplayName == name || strings.EqualFold(db.ID, name) { // a DirectIngestion definition's kqlDatabaseId
			return db.DisplayName, nil
		}
	}
	return "", fabricerr.NotFound(fabricerr.ItemNotFound, "KQLDatabase", name).
		WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "database: Eventhouse " + target.ID + " has no database " + name})
}

// rebindSpec is the spec binding d over old stores, and d's database.
// native keeps what a definition stored in old's spec (its name and
// operators) and takes d's database.
func rebindSpec(old, d store.Destination, native bool) (json.RawMessage, string, error) {
	want, err := eventstream.SpecOf(d)
	if err != nil {
		return nil, "", err
	}
	spec := d.Spec
	if native {
		s, err := eventstream.SpecOf(old)
		if err != nil {
			return nil, "", err
		}
		s.Database = want.Database
		s.IngestionMode = want.IngestionMode
		s.ErrorPolicy, s.DeadLetterTopic, s.SchemaMode = want.ErrorPolicy, want.DeadLetterTopic, want.SchemaMode
		if want.Batching != nil { // a native rebind changes batching only when it names it
			s.Batching = want.Batching
		}
		spec = s.Encode()
	}
	if len(spec) == 0 {
		spec = json.RawMessage("{}")
	}
	return spec, want.Database, nil
}

// ingestionMode checks an Eventhouse binding's ingestion mode and returns
// it as stored: "" for ProcessedIngestion, the default (so bindings made
// before it existed keep their spec), else DirectIngestion.
func ingestionMode(mode string, field func(string) string) (string, error) {
	canonical, ok := definition.IngestionMode(mode)
	switch {
	case !ok:
		return "", fabricerr.BadParameter(field("ingestionMode"), "%q is not ProcessedIngestion or DirectIngestion", mode)
	case canonical == definition.ProcessedIngestion:
		return "", nil
	}
	return canonical, nil
}

// sameSpec reports whether two stored specs say the same (an absent spec
// and an empty one do).
func sameSpec(a, b json.RawMessage) (bool, error) {
	var sa, sb eventstream.Spec
	for _, x := range []struct {
		raw json.RawMessage
		s   *eventstream.Spec
	}{{a, &sa}, {b, &sb}} {
		if len(x.raw) > 0 {
			if err := json.Unmarshal(x.raw, x.s); err != nil {
				return false, err
			}
		}
	}
	return string(sa.Encode()) == string(sb.Encode()), nil
}

// FlushDestination makes batching destination ref commit what it has
// buffered now and returns how many rows it committed (0 for one that
// does not batch or holds nothing); who must be a Contributor.
func (p *Plane) FlushDestination(ctx context.Context, who Caller, ref NodeRef) (int64, error) {
	d, err := p.Destination(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return 0, err
	}
	return p.rt.Flush(ctx, d.ID)
}
