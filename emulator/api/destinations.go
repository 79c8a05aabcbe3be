package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/store"
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

type destinationJSON struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	WorkspaceID string         `json:"workspaceId"`
	ItemID      string         `json:"itemId"`
	Table       string         `json:"table,omitempty"`
	Database    string         `json:"database,omitempty"`
	Status      string         `json:"status"`
	Delivery    map[string]any `json:"delivery,omitempty"`
}

func (a *API) renderDestination(d store.Destination) destinationJSON {
	var spec struct {
		Database string `json:"database"`
	}
	_ = json.Unmarshal(d.Spec, &spec)
	j := destinationJSON{ID: d.ID, Type: d.Type, WorkspaceID: d.WorkspaceID, ItemID: d.ItemID, Table: d.Target, Database: spec.Database, Status: "Running"}
	if st, ok := a.drainStatus(d.ID); ok {
		j.Delivery = map[string]any{"delivered": st.Written, "failedAttempts": st.Failures}
		if st.Err != nil {
			j.Status = "Failed"
			j.Delivery["lastError"] = st.Err.Error()
		}
		if n, last := a.rejectionsOf(d.ID).get(); n > 0 {
			j.Delivery["rejectedRows"] = n
			j.Delivery["lastRejection"] = last
		}
	} else if !a.cfg.Broker.Enabled() {
		j.Status = "Inactive"
	}
	return j
}

// bind serves POST …/eventstreams/{id}/destinations with
// {type, itemId, table?, database?, workspaceId?}. The same body twice is
// idempotent: the second answers 200 with the first binding.
func (a *API) bind(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	var req struct {
		Type        string `json:"type"`
		ItemID      string `json:"itemId"`
		Table       string `json:"table"`
		Database    string `json:"database"`
		WorkspaceID string `json:"workspaceId"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	var typ string
	for t := range destinationTypes {
		if strings.EqualFold(t, req.Type) {
			typ = t
		}
	}
	if typ == "" {
		return fabricerr.BadParameter("type", "%q is not a destination type this emulator delivers to; want Lakehouse, Eventhouse or Reflex", req.Type)
	}
	if _, err := uuid.Parse(req.ItemID); err != nil {
		return fabricerr.BadParameter("itemId", "want the GUID of the target item, got %q", req.ItemID)
	}
	wsID := es.WorkspaceID
	if req.WorkspaceID != "" {
		if _, err := uuid.Parse(req.WorkspaceID); err != nil {
			return fabricerr.BadParameter("workspaceId", "want a GUID, got %q", req.WorkspaceID)
		}
		wsID = req.WorkspaceID
	}
	if _, err := a.cfg.Store.GetWorkspace(c.r.Context(), wsID); errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", wsID)
	} else if err != nil {
		return err
	}
	if err := a.require(c, wsID, store.RoleContributor); err != nil {
		return err
	}
	target, err := a.cfg.Store.GetItem(c.r.Context(), req.ItemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && target.WorkspaceID != wsID) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Item", req.ItemID)
	} else if err != nil {
		return err
	}
	accepts := destinationTypes[typ]
	if !slices.Contains(accepts, target.Type) {
		return fabricerr.BadParameter("itemId", "item %s is a %s, but a %s destination needs a %s", target.ID, target.Type, typ, strings.Join(accepts, " or "))
	}
	var spec json.RawMessage
	switch {
	case tableless[typ]:
		if req.Table != "" {
			return fabricerr.BadParameter("table", "a %s destination takes no table", typ)
		}
	case typ == "Eventhouse":
		db, err := a.eventhouseDatabase(c, target, req.Database)
		if err != nil {
			return err
		}
		if err := eventhouse.ValidateName(req.Table); err != nil {
			return fabricerr.BadParameter("table", "%v", err)
		}
		spec, _ = json.Marshal(eventhouseSpec{Database: db})
	default:
		if err := validTableName("table", req.Table); err != nil {
			return err
		}
	}
	if d, err := a.cfg.Store.FindDestination(c.r.Context(), es.ID, typ, target.ID, req.Table); err == nil {
		if spec == nil || string(spec) == string(d.Spec) {
			return c.JSON(http.StatusOK, a.renderDestination(d))
		}
		// The same table in another database: re-point the binding.
		if err := a.cfg.Store.UpdateDestinationSpec(c.r.Context(), d.ID, spec); err != nil {
			return err
		}
		d.Spec = spec
		if err := a.startDrain(c.r.Context(), d); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, a.renderDestination(d))
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	d := store.Destination{ID: uuid.NewString(), EventstreamID: es.ID, Type: typ, WorkspaceID: wsID, ItemID: target.ID, Target: req.Table, Spec: spec, CreatedAt: a.cfg.Now()}
	if err := a.cfg.Store.CreateDestination(c.r.Context(), d); err != nil {
		return err
	}
	if err := a.startDrain(c.r.Context(), d); err != nil {
		_ = a.cfg.Store.DeleteDestination(c.r.Context(), d.ID)
		return err
	}
	c.location("workspaces", es.WorkspaceID, "eventstreams", es.ID, "destinations", d.ID)
	return c.JSON(http.StatusCreated, a.renderDestination(d))
}

func (a *API) listDestinations(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	ds, err := a.cfg.Store.ListDestinations(c.r.Context(), es.ID)
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
	if errors.Is(err, store.ErrNotFound) || (err == nil && d.EventstreamID != es.ID) {
		return d, fabricerr.NotFound("DestinationNotFound", "Destination", id)
	}
	return d, err
}

func (a *API) getDestination(c *call) error {
	d, err := a.destination(c, store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a.renderDestination(d))
}

func (a *API) unbind(c *call) error {
	d, err := a.destination(c, store.RoleContributor)
	if err != nil {
		return err
	}
	if err := a.stopDrain(d.ID); err != nil {
		return err
	}
	if err := a.cfg.Store.DeleteDestination(c.r.Context(), d.ID); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// unbindAll removes every destination of the Eventstream.
func (a *API) unbindAll(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	ds, err := a.cfg.Store.ListDestinations(c.r.Context(), es.ID)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := a.stopDrain(d.ID); err != nil {
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
		if name != "" && name != target.DisplayName {
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
		if db.DisplayName == name {
			return name, nil
		}
	}
	return "", fabricerr.NotFound(fabricerr.ItemNotFound, "KQLDatabase", name).
		WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "database: Eventhouse " + target.ID + " has no database " + name})
}
