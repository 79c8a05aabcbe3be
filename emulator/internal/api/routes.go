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
	emulatorH := emulatorHandlers{a}
	clockH := clockHandlers{a}
	// Control plane, no token (the token route is loopback-only).
	a.handle("POST /_emulator/token", false, emulatorH.mintToken)
	a.handle("GET /_emulator/health", false, emulatorH.health)
	a.handle("POST /_emulator/kafka-endpoint", false, a.advertiseEndpoint)
	a.handle("POST /_emulator/amqp-endpoint", false, a.advertiseAMQPEndpoint)
	a.handle("GET /_emulator/clock", false, a.loopbackOnly("the emulator clock", clockH.getClock))
	a.handle("POST /_emulator/clock", false, a.loopbackOnly("the emulator clock", clockH.advanceClock))
	a.handle("GET /_emulator/ca.pem", false, emulatorH.caCertificate)
	a.faultRoutes()
}

// workspaceRoutes registers workspaces, their role assignments and folders.
func (a *API) workspaceRoutes() {
	workspaceH := workspaceHandlers{a}
	roleH := roleHandlers{a}
	a.handle("POST /v1/workspaces", true, workspaceH.createWorkspace)
	a.handle("GET /v1/workspaces", true, workspaceH.listWorkspaces)
	a.handle("GET /v1/workspaces/{ws}", true, workspaceH.getWorkspace)
	a.handle("PATCH /v1/workspaces/{ws}", true, workspaceH.updateWorkspace)
	a.handle("DELETE /v1/workspaces/{ws}", true, workspaceH.deleteWorkspace)

	a.handle("POST /v1/workspaces/{ws}/roleAssignments", true, roleH.addRole)
	a.handle("GET /v1/workspaces/{ws}/roleAssignments", true, roleH.listRoles)
	a.handle("GET /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleH.getRole)
	a.handle("PATCH /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleH.updateRole)
	a.handle("DELETE /v1/workspaces/{ws}/roleAssignments/{principal}", true, roleH.deleteRole)
	a.handle("GET /v1/workspaces/{ws}/folders", true, workspaceH.listFolders)
}

// itemRoutes registers the generic and the typed item collections.
func (a *API) itemRoutes() {
	itemH := itemHandlers{a}
	definitionH := definitionHandlers{a}
	a.handle("POST /v1/workspaces/{ws}/items", true, a.lro(store.RoleContributor, itemH.createItem("")))
	a.handle("GET /v1/workspaces/{ws}/items", true, itemH.listItems(""))
	a.handle("GET /v1/workspaces/{ws}/items/{id}", true, itemH.getItem(""))
	a.handle("PATCH /v1/workspaces/{ws}/items/{id}", true, itemH.updateItem(""))
	a.handle("DELETE /v1/workspaces/{ws}/items/{id}", true, itemH.deleteItem(""))

	for _, t := range itemTypeTable {
		base := "/v1/workspaces/{ws}/" + t.collection
		a.handle("POST "+base, true, a.lro(store.RoleContributor, itemH.createItem(t.typ)))
		a.handle("GET "+base, true, itemH.listItems(t.typ))
		a.handle("GET "+base+"/{id}", true, itemH.getItem(t.typ))
		a.handle("PATCH "+base+"/{id}", true, itemH.updateItem(t.typ))
		a.handle("DELETE "+base+"/{id}", true, itemH.deleteItem(t.typ))
		if t.definition && t.typ != TypeEventstream { // the Eventstream's are eventstreamRoutes'
			a.handle("POST "+base+"/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionH.getDefinition(t.typ)))
			a.handle("POST "+base+"/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionH.updateDefinition(t.typ)))
		}
	}
}

// eventstreamRoutes registers eventstream definitions, topology, sources,
// destinations and operators, and lakehouse tables.
func (a *API) eventstreamRoutes() {
	dataH := dataHandlers{a}
	destinationH := destinationHandlers{a}
	topologyH := topologyHandlers{a}
	definitionH := definitionHandlers{a}
	clockH := clockHandlers{a}
	operatorH := operatorHandlers{a}
	lakehouseH := lakehouseHandlers{a}
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/events", true, dataH.produce)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationH.bind)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationH.listDestinations)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/destinations", true, destinationH.unbindAll)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}", true, topologyH.getDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionH.getDefinition(TypeEventstream)))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionH.updateDefinition(TypeEventstream)))
	a.handle("POST /v1/workspaces/{ws}/items/{id}/getDefinition", true, a.lro(store.RoleContributor, definitionH.getDefinition("")))
	a.handle("POST /v1/workspaces/{ws}/items/{id}/updateDefinition", true, a.lro(store.RoleContributor, definitionH.updateDefinition("")))
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/topology", true, topologyH.getTopology)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/pause", true, topologyH.pauseEventstream)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/resume", true, topologyH.resumeEventstream)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}", true, topologyH.getSource)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/pause", true, topologyH.pauseSource)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/resume", true, topologyH.resumeSource)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/connection", true, a.getConnection("sources"))
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/connection", true, a.getConnection("destinations"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/connection/regenerateKeys", true, a.regenerateKeys("sources"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/connection/regenerateKeys", true, a.regenerateKeys("destinations"))
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/pause", true, topologyH.pauseDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/resume", true, topologyH.resumeDestination)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}", true, destinationH.unbind)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/destinations/{dest}/flush", true, clockH.flushDestination)
	a.handle("POST /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorH.setOperators)
	a.handle("GET /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorH.getOperators)
	a.handle("DELETE /v1/workspaces/{ws}/eventstreams/{id}/operators", true, operatorH.deleteOperators)
	a.handle("GET /v1/workspaces/{ws}/lakehouses/{id}/tables", true, lakehouseH.listTables)
}

// jobAndTriggerRoutes registers item job instances and reflex triggers.
func (a *API) jobAndTriggerRoutes() {
	jobH := jobHandlers{a}
	triggerH := triggerHandlers{a}
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/{jobType}/instances", true, jobH.runJob)
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/instances", true, jobH.runJob)
	a.handle("GET /v1/workspaces/{ws}/items/{id}/jobs/instances", true, jobH.listJobs)
	a.handle("GET /v1/workspaces/{ws}/items/{id}/jobs/instances/{job}", true, jobH.getJob)
	a.handle("POST /v1/workspaces/{ws}/items/{id}/jobs/instances/{job}/cancel", true, jobH.cancelJob)

	a.handle("POST /v1/workspaces/{ws}/reflexes/{id}/triggers", true, triggerH.createTrigger)
	a.handle("GET /v1/workspaces/{ws}/reflexes/{id}/triggers", true, triggerH.listTriggers)
	a.handle("GET /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerH.getTrigger)
	a.handle("PATCH /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerH.updateTrigger)
	a.handle("DELETE /v1/workspaces/{ws}/reflexes/{id}/triggers/{trigger}", true, triggerH.deleteTrigger)
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
	registryH := registryHandlers{a}
	r := registryH
	a.handle("PUT /v1/_emulator/connections/{connectionId}", true, r.put)
	a.handle("GET /v1/_emulator/connections/{connectionId}", true, r.get)
	a.handle("GET /v1/_emulator/connections", true, r.list)
	a.handle("DELETE /v1/_emulator/connections/{connectionId}", true, r.delete)
}

// dataPlaneRoutes registers the emulator-native data plane of custom
// endpoint sources.
func (a *API) dataPlaneRoutes() {
	dataH := dataHandlers{a}
	a.handle("GET /v1/eventstreams/{id}/sources/{ds}", true, dataH.resolve)
	a.handle("GET /v1/eventstreams/{id}/sources/{ds}/events", true, a.waiting(MaxTimeout, dataH.consume))
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
