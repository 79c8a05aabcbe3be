package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Item types with behaviour of their own.
const (
	TypeEventstream = control.TypeEventstream
	TypeLakehouse   = control.TypeLakehouse
	TypeEventhouse  = control.TypeEventhouse
	TypeKQLDatabase = control.TypeKQLDatabase
	TypeReflex      = control.TypeReflex
)

// itemTypes is Fabric's ItemType enum (common/definitions.json): the generic
// items route stores any of these; the ones with a kind get behaviour.
var itemTypes = []string{
	"Dashboard", "Report", "SemanticModel", "PaginatedReport", "Datamart", "Lakehouse", "Eventhouse", "Environment",
	"KQLDatabase", "KQLQueryset", "KQLDashboard", "DataPipeline", "Notebook", "SparkJobDefinition", "MLExperiment",
	"MLModel", "Warehouse", "Eventstream", "SQLEndpoint", "MirroredWarehouse", "MirroredDatabase", "Reflex",
	"GraphQLApi", "MountedDataFactory", "SQLDatabase", "CopyJob", "VariableLibrary", "Dataflow", "ApacheAirflowJob",
	"WarehouseSnapshot", "DigitalTwinBuilder", "DigitalTwinBuilderFlow", "MirroredAzureDatabricksCatalog", "Map",
	"AnomalyDetector", "UserDataFunction", "GraphModel", "GraphQuerySet", "SnowflakeDatabase", "OperationsAgent",
	"CosmosDBDatabase", "Ontology", "EventSchemaSet", "DataAgent", "MirroredCatalog", "AppBackend", "OrgApp",
	"OrgAppAudience", "DataBuildToolJob", "AzureDatabricksStorage", "Plan",
}

// kind is the behaviour of an item type beyond metadata.
type kind struct {
	// properties renders the item's properties, nil for none.
	properties func(a *API, it store.Item) any
	// callProperties, when set, renders the properties with the caller's
	// view of the emulator (its base URL), in place of properties.
	callProperties func(a *API, c *call, it store.Item) any
	// creation, when set, validates the create request's creationPayload
	// (nil when absent) and sets the item's properties before it is stored.
	creation func(a *API, c *call, it *store.Item, payload json.RawMessage) error
}

var kinds map[string]kind

func init() { // a map literal would be an initialization cycle through the kinds' funcs
	kinds = map[string]kind{
		TypeEventstream:      eventstreamKind,
		TypeLakehouse:        lakehouseKind,
		TypeEventhouse:       eventhouseKind,
		TypeKQLDatabase:      kqlDatabaseKind,
		"SparkJobDefinition": sparkJobDefinitionKind,
		"Warehouse":          warehouseKind,
	}
}

// itemJSON is Fabric's Item.
// itemJSON is an item as the routes answer it.
type itemJSON = wire.Item

// renderItem renders it for a typed route (typed != ""), with the type's
// properties, or for the generic items routes, whose Item has none.
func (a itemHandlers) renderItem(c *call, typed string, it store.Item) itemJSON {
	j := itemJSON{ID: it.ID, Type: it.Type, DisplayName: it.DisplayName, Description: it.Description, WorkspaceID: it.WorkspaceID}
	if k, ok := kinds[it.Type]; ok && k.callProperties != nil && typed != "" {
		j.Properties = k.callProperties(a.API, c, it)
	} else if ok && k.properties != nil && typed != "" {
		j.Properties = k.properties(a.API, it)
	}
	return j
}

// canonicalType returns Fabric's spelling of an item type, matched case-insensitively.
func canonicalType(s string) (string, bool) {
	i := slices.IndexFunc(itemTypes, func(t string) bool { return strings.EqualFold(t, s) })
	if i < 0 {
		return "", false
	}
	return itemTypes[i], true
}

func validItemName(typ, name string) error { return control.ValidName(typ, name) }

func validItemDescription(d string) error { return control.ValidDescription(d) }

// createItem serves POST …/items (typed == "") and the typed collections.
func (a itemHandlers) createItem(typed string) endpoint {
	return func(c *call) error {
		ws, err := a.workspace(c, store.RoleContributor)
		if err != nil {
			return err
		}
		var req struct {
			DisplayName     string          `json:"displayName"`
			Type            string          `json:"type"`
			Description     string          `json:"description"`
			FolderID        string          `json:"folderId"`
			Definition      json.RawMessage `json:"definition"`
			CreationPayload json.RawMessage `json:"creationPayload"`
		}
		if err := a.decode(c, &req); err != nil {
			return err
		}
		typ := typed
		if typed == "" {
			var ok bool
			if typ, ok = canonicalType(req.Type); !ok {
				if req.Type == "" {
					return fabricerr.BadParameter("type", "is required")
				}
				return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidItemType, "Item type %q is not a Fabric item type", req.Type)
			}
		} else if req.Type != "" && !strings.EqualFold(req.Type, typed) {
			return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidItemType, "type %q does not match this route's %s", req.Type, typed)
		}
		if err := firstErr(errors.Join(validItemName(typ, req.DisplayName), validItemDescription(req.Description))); err != nil {
			return err
		}
		k := kinds[typ]
		hasDef := len(req.Definition) > 0 && string(req.Definition) != "null"
		var itemDef *store.Definition
		if hasDef && typ != TypeEventstream {
			d, err := decodeItemDefinition(typ, req.Definition)
			if err != nil {
				return err
			}
			itemDef = &d
		}
		if len(req.CreationPayload) > 0 && string(req.CreationPayload) != "null" && k.creation == nil {
			return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest,
				"creating a %s with a creationPayload is not supported by this emulator yet", typ)
		}
		if req.FolderID != "" {
			return fabricerr.NotFound("FolderNotFound", "Folder", req.FolderID)
		}
		it := store.Item{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: typ, DisplayName: req.DisplayName, Description: req.Description, CreatedAt: a.cfg.Now()}
		if k.creation != nil {
			if err := k.creation(a.API, c, &it, req.CreationPayload); err != nil {
				return err
			}
		}
		var plan *definition.Plan
		if hasDef && typ == TypeEventstream { // checked in full before the item exists
			if plan, err = a.planCreation(c, &it, req.Definition); err != nil {
				return err
			}
		}
		it, err = a.plane.CreateItem(c.r.Context(), control.Creation{Item: it, Plan: plan, Definition: itemDef})
		if err != nil {
			return err
		}
		c.location("workspaces", ws.ID, "items", it.ID)
		return c.JSON(http.StatusCreated, a.renderItem(c, typed, it))
	}
}

// item loads the {id} item of the call's workspace, checking the caller's
// role and, on typed routes, the item's type.
func (a *API) item(c *call, typed string, min store.Role) (store.Item, error) {
	return a.plane.Item(c.r.Context(), c.caller(), control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id"), Type: typed}, min)
}

func (a itemHandlers) listItems(typed string) endpoint {
	return func(c *call) error {
		if _, err := a.workspace(c, store.RoleViewer); err != nil {
			return err
		}
		typ := typed
		if q := c.r.URL.Query().Get("type"); typed == "" && q != "" {
			var ok bool
			if typ, ok = canonicalType(q); !ok {
				return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidItemType, "Item type %q is not a Fabric item type", q)
			}
		}
		p, err := a.page(c)
		if err != nil {
			return err
		}
		items, next, err := a.plane.Items(c.r.Context(), c.caller(), c.r.PathValue("ws"), typ, p)
		if err != nil {
			return err
		}
		out := make([]itemJSON, len(items))
		for i, it := range items {
			out[i] = a.renderItem(c, typed, it)
		}
		return list(c, out, next)
	}
}

func (a itemHandlers) getItem(typed string) endpoint {
	return func(c *call) error {
		it, err := a.item(c, typed, store.RoleViewer)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, a.renderItem(c, typed, it))
	}
}

func (a itemHandlers) updateItem(typed string) endpoint {
	return func(c *call) error {
		if _, err := a.item(c, typed, store.RoleContributor); err != nil {
			return err // the caller's reach first, as every route answers
		}
		var req control.ItemUpdate
		if err := a.decode(c, &req); err != nil {
			return err
		}
		ref := control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id"), Type: typed}
		it, err := a.plane.UpdateItem(c.r.Context(), c.caller(), ref, req)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, a.renderItem(c, typed, it))
	}
}

func (a itemHandlers) deleteItem(typed string) endpoint {
	return func(c *call) error {
		ref := control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id"), Type: typed}
		return answerOK(c, a.plane.DeleteItem(c.r.Context(), c.caller(), ref))
	}
}

// planCreation checks the definition raw of Eventstream it (not yet
// stored) and gives it the plan's DefaultStream.
func (a itemHandlers) planCreation(c *call, it *store.Item, raw json.RawMessage) (*definition.Plan, error) {
	def, err := decodeDefinition(raw)
	if err != nil {
		return nil, err
	}
	plan, err := a.plane.PlanCreation(c.r.Context(), c.caller(), it, def)
	return plan, refusalError(err)
}
