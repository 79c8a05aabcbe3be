package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
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

// destinationJSON is a binding as the destinations routes answer it.
type destinationJSON = wire.Destination

func (a *API) renderDestination(d store.Destination) destinationJSON {
	spec, _ := eventstream.SpecOf(d) // a spec that does not decode renders no database
	j := destinationJSON{ID: d.ID, Type: d.Type, WorkspaceID: d.WorkspaceID, ItemID: d.ItemID, Table: d.Target, Database: spec.Database, Status: "Running"}
	if d.Type == "Eventhouse" {
		j.IngestionMode = cmp.Or(spec.IngestionMode, definition.ProcessedIngestion)
	}
	renderPolicy(&j, d, spec)
	if b := spec.Batching; b != nil {
		j.Batching = &wire.Batching{MinimumRows: b.MinimumRows, MaximumDurationInSeconds: b.MaximumDurationInSeconds}
	}
	if st, ok := a.rt.DrainStatus(d.ID); ok {
		j.Delivery = &wire.Delivery{Delivered: st.Written, FailedAttempts: st.Failures}
		if st.Panics > 0 || st.Skipped > 0 {
			j.Delivery.RecoveredPanics, j.Delivery.SkippedRecords = &st.Panics, &st.Skipped
		}
		if err := a.rt.KafkaHealth(context.Background(), d.ID); err != nil {
			j.Status = statusWarning // delivery resumes once Kafka answers again
			j.Delivery.LastKafkaError = a.scrub(err.Error())
		}
		if st.Err != nil {
			j.Status = "Failed"
			j.Delivery.LastError = a.scrub(st.Err.Error())
		}
		j.Delivery.Stopped = st.Stopped // by the fail policy: resume starts it again
		a.renderBuffer(d, j.Delivery)
		if n, last := a.rt.Rejections(d.ID); n > 0 {
			j.Delivery.RejectedRows, j.Delivery.LastRejection = n, last
		}
	} else if !a.cfg.Broker.Enabled() {
		j.Status = "Inactive"
	}
	return j
}

// bindRequest is the emulator-native binding body; definitions build one
// per Lakehouse, Eventhouse and Activator destination node.
type bindRequest struct {
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

// bind serves POST …/eventstreams/{id}/destinations with
// {type, itemId, table?, database?, workspaceId?, ingestionMode?}. The
// same body twice is idempotent: the second answers 200 with the first
// binding.
func (a *API) bind(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	var req bindRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	d, err := a.checkBinding(c, es, req, func(f string) string { return f })
	if err != nil {
		return err
	}
	d, created, err := a.applyBinding(c.r.Context(), d, true)
	if err != nil {
		return err
	}
	if !created {
		return c.JSON(http.StatusOK, a.renderDestination(d))
	}
	c.location("workspaces", es.WorkspaceID, "eventstreams", es.ID, "destinations", d.ID)
	return c.JSON(http.StatusCreated, a.renderDestination(d))
}

// checkBinding validates req for Eventstream es and returns the destination
// it describes (no id yet), changing nothing. field renames the request's
// fields in errors (a definition names its node's properties).
func (a *API) checkBinding(c *call, es store.Item, req bindRequest, field func(string) string) (store.Destination, error) {
	var typ string
	for t := range destinationTypes {
		if strings.EqualFold(t, req.Type) {
			typ = t
		}
	}
	if typ == "" {
		return store.Destination{}, fabricerr.BadParameter(field("type"), "%q is not a destination type this emulator delivers to; want Lakehouse, Eventhouse or Reflex", req.Type)
	}
	if _, err := uuid.Parse(req.ItemID); err != nil {
		return store.Destination{}, fabricerr.BadParameter(field("itemId"), "want the GUID of the target item, got %q", req.ItemID)
	}
	wsID := es.WorkspaceID
	if req.WorkspaceID != "" {
		if _, err := uuid.Parse(req.WorkspaceID); err != nil {
			return store.Destination{}, fabricerr.BadParameter(field("workspaceId"), "want a GUID, got %q", req.WorkspaceID)
		}
		wsID = req.WorkspaceID
	}
	if _, err := a.cfg.Store.GetWorkspace(c.r.Context(), wsID); errors.Is(err, store.ErrNotFound) {
		return store.Destination{}, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", wsID)
	} else if err != nil {
		return store.Destination{}, err
	}
	if err := a.require(c, wsID, store.RoleContributor); err != nil {
		return store.Destination{}, err
	}
	target, err := a.cfg.Store.GetItem(c.r.Context(), req.ItemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && target.WorkspaceID != wsID) {
		return store.Destination{}, fabricerr.NotFound(fabricerr.ItemNotFound, "Item", req.ItemID)
	} else if err != nil {
		return store.Destination{}, err
	}
	accepts := destinationTypes[typ]
	if !slices.Contains(accepts, target.Type) {
		return store.Destination{}, fabricerr.BadParameter(field("itemId"), "item %s is a %s, but a %s destination needs a %s", target.ID, target.Type, typ, strings.Join(accepts, " or "))
	}
	var spec json.RawMessage
	switch {
	case req.IngestionMode != "" && typ != "Eventhouse":
		return store.Destination{}, fabricerr.BadParameter(field("ingestionMode"), "only an Eventhouse destination has an ingestion mode, not a %s destination", typ)
	case tableless[typ]:
		if req.Table != "" {
			return store.Destination{}, fabricerr.BadParameter(field("table"), "a %s destination takes no table", typ)
		}
	case typ == "Eventhouse":
		db, err := a.eventhouseDatabase(c, target, req.Database)
		if err != nil {
			return store.Destination{}, err
		}
		if err := eventhouse.ValidateName(req.Table); err != nil {
			return store.Destination{}, fabricerr.BadParameter(field("table"), "%v", err)
		}
		mode, err := ingestionMode(req.IngestionMode, field)
		if err != nil {
			return store.Destination{}, err
		}
		spec = eventstream.Spec{Database: db, IngestionMode: mode}.Encode()
	default:
		if err := validTableName(field("table"), req.Table); err != nil {
			return store.Destination{}, err
		}
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

// applyBinding stores d (checked by checkBinding) and starts its drain. A
// binding of the same (type, item, table) is reused: when its spec differs
// it is re-pointed and restarted. native keeps what a definition stored in
// the existing spec (its name and operators) and compares the database only.
func (a *API) applyBinding(ctx context.Context, d store.Destination, native bool) (store.Destination, bool, error) {
	if old, err := a.cfg.Store.FindDestination(ctx, d.EventstreamID, d.Type, d.ItemID, d.Target); err == nil {
		spec, _, err := rebindSpec(old, d, native)
		if err != nil {
			return old, false, err
		}
		if same, err := sameSpec(spec, old.Spec); err != nil || same {
			return old, false, err
		}
		if err := a.cfg.Store.UpdateDestinationSpec(ctx, old.ID, spec); err != nil {
			return old, false, err
		}
		old.Spec = spec
		if err := a.rt.Sync(ctx, old.EventstreamID); err != nil { // it restarts
			return old, false, err
		}
		return old, false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return d, false, err
	}
	if d.ID == "" { // a definition's destination comes with the id its node carries
		d.ID = uuid.NewString()
	}
	d.CreatedAt = a.cfg.Now()
	if err := a.cfg.Store.CreateDestination(ctx, d); err != nil {
		return d, false, err
	}
	if err := a.rt.Sync(ctx, d.EventstreamID); err != nil && a.rt.StartFailed(d.ID) {
		_ = a.rt.Stop(d.ID)
		_ = a.cfg.Store.DeleteDestination(ctx, d.ID)
		return d, false, err
	}
	return d, true, nil
}

func (a *API) listDestinations(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	ds, err := a.userDestinations(c.r.Context(), es.ID)
	if err != nil {
		return err
	}
	out := make([]destinationJSON, len(ds))
	for i, d := range ds {
		out[i] = a.renderDestination(d)
	}
	return list(c, out, 0)
}

// destination loads {dest} of the call's Eventstream.
func (a *API) destination(c *call, min store.Role) (store.Destination, error) {
	es, err := a.item(c, TypeEventstream, min)
	if err != nil {
		return store.Destination{}, err
	}
	id := c.r.PathValue("dest")
	d, err := a.cfg.Store.GetDestination(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (d.EventstreamID != es.ID || internal(d))) {
		return d, fabricerr.NotFound("DestinationNotFound", "Destination", id)
	}
	return d, err
}

func (a *API) unbind(c *call) error {
	d, err := a.destination(c, store.RoleContributor)
	if err != nil {
		return err
	}
	if err := a.rt.Stop(d.ID); err != nil {
		return err
	}
	if err := a.cfg.Store.DeleteDestination(c.r.Context(), d.ID); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// unbindAll removes every destination of the Eventstream (the internal
// bindings of its DerivedStreams stay).
func (a *API) unbindAll(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	ds, err := a.userDestinations(c.r.Context(), es.ID)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := a.rt.Stop(d.ID); err != nil {
			return err
		}
		if err := a.cfg.Store.DeleteDestination(c.r.Context(), d.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// eventhouseDatabase resolves the database of an Eventhouse binding: a KQL
// database item is its own database; an Eventhouse takes the named one of
// its databases, or its default database (the one of its own name).
func (a *API) eventhouseDatabase(c *call, target store.Item, name string) (string, error) {
	if target.Type == TypeKQLDatabase {
		if name != "" && name != target.DisplayName && !strings.EqualFold(name, target.ID) {
			return "", fabricerr.BadParameter("database", "KQL database %s is %q; leave database out or name it", target.ID, target.DisplayName)
		}
		return target.DisplayName, nil
	}
	if name == "" {
		name = target.DisplayName
	}
	dbs, err := a.databasesOf(c.r.Context(), target)
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
