package api

// Handlers by area: each embeds the API for what every handler shares
// (decoding, the caller's reach, the control plane) and holds the area's
// routes, so the API itself keeps only the machinery.

type (
	// clockHandlers serves the emulator clock.
	clockHandlers struct{ *API }
	// dataHandlers serves the Custom HTTP produce and consume.
	dataHandlers struct{ *API }
	// definitionHandlers serves item definitions.
	definitionHandlers struct{ *API }
	// destinationHandlers serves native destination bindings.
	destinationHandlers struct{ *API }
	// emulatorHandlers serves the token, health and CA routes.
	emulatorHandlers struct{ *API }
	// entraHandlers serves Entra app registrations.
	entraHandlers struct{ *API }
	// insightHandlers serves data insights.
	insightHandlers struct{ *API }
	// itemHandlers serves items.
	itemHandlers struct{ *API }
	// jobHandlers serves job instances.
	jobHandlers struct{ *API }
	// lakehouseHandlers serves Lakehouse tables.
	lakehouseHandlers struct{ *API }
	// operatorHandlers serves native operators.
	operatorHandlers struct{ *API }
	// roleHandlers serves workspace role assignments.
	roleHandlers struct{ *API }
	// topologyHandlers serves the topology, sources, destinations and pause / resume.
	topologyHandlers struct{ *API }
	// triggerHandlers serves Reflex triggers.
	triggerHandlers struct{ *API }
	// workspaceHandlers serves workspaces and folders.
	workspaceHandlers struct{ *API }
)
