package api

import (
	"net/http"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// routes registers every route. Paths follow Fabric's /v1 surface; the
// emulator-native routes are those of DESIGN.md.
func (a *API) routes() {
	a.controlRoutes()
	a.workspaceRoutes()
	a.itemRoutes()
	a.eventstreamRoutes()
	a.jobAndTriggerRoutes()
	a.operationRoutes()
	a.connectionRoutes()
	a.dataPlaneRoutes()
	a.insightsRoutes()
	a.entraRoutes()
}

// controlRoutes registers the emulator's control plane.
func (a *API) controlRoutes() {
	// Control plane, no token (the token route is loopback-only).
	a.handle("POST /_emulator/token", false, emulatorHandlers{a}.mintToken)
	a.handle("GET /_emulator/health", false, emulatorHandlers{a}.health)
	a.handle("POST /_emulator/kafka-endpoint", false, a.advertiseEndpoint)
	a.handle("GET /_emulator/clock", false, clockHandlers{a}.getClock)
	a.handle("POST /_emulator/clock", false, clockHandlers{a}.advanceClock)
	a.handle("GET /_emulator/ca.pem", false, emulatorHandlers{a}.caCertificate)
}

// workspaceRoutes registers workspaces, their role assignments and folders.
func (a *API) workspaceRoutes() {
	a.handle("POST /v1/workspaces", true, workspaceHandlers{a}.createWorkspace)
	a.handle("GET /v1/workspaces", true, workspaceHandlers{a}.listWorkspaces)
	a.handle("GET /v1/workspaces/{ws}", true, workspaceHandlers{a}.getWorkspace)
	a.handle("PATCH /v1/workspaces/{ws}", true, workspaceHandlers{a}.updateWorkspace)
	a.handle("DELETE /v1/workspaces/{ws}", true, workspaceHandlers{a}.deleteWorkspace)

	a.handle("POST /v1/workspaces/{ws}/roleAssignments", true, roleHandlers{a}.addRole)
	a.handle("GET /v1/workspaces/{ws}/roleAssignments", true, roleHandlers{a}.listRoles)
	a.handle("GET /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleHandlers{a}.getRole)
	a.handle("PATCH /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleHandlers{a}.updateRole)
	a.handle("DELETE /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleHandlers{a}.deleteRole)
	a.handle("GET /v1/workspaces/{ws}/folders", true, workspaceHandlers{a}.listFolders)
}

// itemRoutes registers the generic and the typed item collections.
func (a *API) itemRoutes() {
	a.handle("POST /v1/workspaces/{ws}/items", true, a.lro(store.RoleContributor, itemHandlers{a}.createItem("")))
	a.handle("GET /v1/workspaces/{ws}/items", true, itemHandlers{a}.listItems(""))
	a.handle("GET /v1/workspaces/{ws}/items/{id}", true, itemHandlers{a}.getItem(""))
	a.handle("PATCH /v1/workspaces/{ws}/items/{id}", true, itemHandlers{a}.updateItem(""))
	a.handle("DELETE /v1/workspaces/{ws}/items/{id}", true, itemHandlers{a}.deleteItem(""))

	for _, t := range itemTypeTable {
		base := "/v1/workspaces/{ws}/" + t.collection
		a.handle("POST "+base, true, a.lro(store.RoleContributor, itemHandlers{a}.createItem(t.typ)))
		a.handle("GET "+base, true, itemHandlers{a}.listItems(t.typ))
		a.handle("GET "+base+"/{id}", true, itemHandlers{a}.getItem(t.typ))
		a.handle("PATCH "+base+"/{id}", true, itemHandlers{a}.updateItem(t.typ))
		a.handle("DELETE "+base+"/{id}", true, itemHandlers{a}.deleteItem(t.typ))
		if t.definition && t.typ != TypeEventstream { // the Eventstream's are eventstreamRoutes'
			a.handle("POST "+base+"/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.getDefinition(t.typ)))
			a.handle("POST "+base+"/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.updateDefinition(t.typ)))
		}
	}
}

// eventstreamRoutes registers eventstream definitions, topology, sources,
// destinations and operators, and lakehouse tables.
func (a *API) eventstreamRoutes() {
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/events", true, dataHandlers{a}.produce)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationHandlers{a}.bind)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationHandlers{a}.listDestinations)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationHandlers{a}.unbindAll)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}", true, topologyHandlers{a}.getDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.getDefinition(TypeEventstream)))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.updateDefinition(TypeEventstream)))
	a.handle("POST /v1/workspaces/{ws}/items/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.getDefinition("")))
	a.handle("POST /v1/workspaces/{ws}/items/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionHandlers{a}.updateDefinition("")))
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/topology", true, topologyHandlers{a}.getTopology)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/pause", true, topologyHandlers{a}.pauseEventstream)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/resume", true, topologyHandlers{a}.resumeEventstream)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}", true, topologyHandlers{a}.getSource)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/pause", true, topologyHandlers{a}.pauseSource)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/resume", true, topologyHandlers{a}.resumeSource)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/connection", true, a.getConnection("sources"))
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/connection", true, a.getConnection("destinations"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/connection/regenerateKeys", true, a.regenerateKeys("sources"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/connection/regenerateKeys", true, a.regenerateKeys("destinations"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/pause", true, topologyHandlers{a}.pauseDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/resume", true, topologyHandlers{a}.resumeDestination)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}", true, destinationHandlers{a}.unbind)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/flush", true, clockHandlers{a}.flushDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorHandlers{a}.setOperators)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorHandlers{a}.getOperators)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorHandlers{a}.deleteOperators)
	a.handle("GET /v1/workspaces/{ws}/lakehouses/{id}/tables", true, lakehouseHandlers{a}.listTables)
}

// jobAndTriggerRoutes registers item job instances and reflex triggers.
func (a *API) jobAndTriggerRoutes() {
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/{jobType}/instances", true, jobHandlers{a}.runJob)
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/instances", true, jobHandlers{a}.runJob)
	a.handle("GET /v1/workspaces/{ws}/items/{id}/jobs/instances", true, jobHandlers{a}.listJobs)
	a.handle("GET /v1/workspaces/{ws}/items/{id}/jobs/instances/{job}", true, jobHandlers{a}.getJob)
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/instances/{job}/cancel", true, jobHandlers{a}.cancelJob)

	a.handle("POST /v1/workspaces/{ws}/reflexes/{id}/triggers", true, triggerHandlers{a}.createTrigger)
	a.handle("GET /v1/workspaces/{ws}/reflexes/{id}/triggers", true, triggerHandlers{a}.listTriggers)
	a.handle("GET /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerHandlers{a}.getTrigger)
	a.handle("PATCH /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerHandlers{a}.updateTrigger)
	a.handle("DELETE /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerHandlers{a}.deleteTrigger)
}

// operationRoutes registers the long-running operations.
func (a *API) operationRoutes() {
	// Long-running operations; the spec's examples write the un-versioned form.
	for _, base := range []string{"/v1/operations/{op}", "/operations/{op}"} {
		a.handle("GET "+base, true, a.getOperation)
		a.handle("GET "+base+"/result", true, a.getOperationResult)
	}
}

// connectionRoutes registers the emulator's registry of the Kafka
// clusters Kafka-protocol sources name.
func (a *API) connectionRoutes() {
	r := registryHandlers{a}
	a.handle("PUT /v1/_emulator/connections/{connectionId}", true, r.put)
	a.handle("GET /v1/_emulator/connections/{connectionId}", true, r.get)
	a.handle("GET /v1/_emulator/connections", true, r.list)
	a.handle("DELETE /v1/_emulator/connections/{connectionId}", true, r.delete)
}

// dataPlaneRoutes registers the emulator-native data plane of custom
// endpoint sources.
func (a *API) dataPlaneRoutes() {
	a.handle("GET /v1/eventstreams/{id}/sources/{ds}", true, dataHandlers{a}.resolve)
	a.handle("GET /v1/eventstreams/{id}/sources/{ds}/events", true, a.waiting(MaxTimeout, dataHandlers{a}.consume))
}

// waiting serves fn, which may wait up to wait before it answers, with its
// write deadline pushed out by wait beyond the server's write timeout.
func (a *API) waiting(wait time.Duration, fn endpoint) endpoint {
	return func(c *call) error {
		if a.cfg.WriteTimeout > 0 {
			// Not every ResponseWriter has deadlines (httptest's has none).
			_ = http.NewResponseController(c.w).SetWriteDeadline(time.Now().Add(a.cfg.WriteTimeout + wait))
		}
		return fn(c)
	}
}
