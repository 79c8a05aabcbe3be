// Package control is the emulator's control plane: every change to a
// workspace's Eventstreams, and to the workspaces and items around them, is
// a method of Plane that takes the caller (Caller: the principal whose
// workspace roles authorise it) and a typed request, and returns a typed
// result or an error. The doors (the HTTP api today) decode their
// protocol, call the Plane and render its answer.
//
// What it changes:
//
//   - access: Workspace, Item and Require check the caller's role;
//   - Eventstreams: UpdateDefinition, PlanCreation and ApplyPlan (a
//     definition compiled by internal/definition, with this package's
//     resolver checking sources and bindings), Bind, Unbind, UnbindAll,
//     SetOperators, Pause*/Resume* of the Eventstream, a source or a
//     destination, ProvisionEventstream (the DefaultStream's topic) and
//     the DerivedStreams' topics and internal bindings;
//   - items: DeleteItem and RemoveItem release what each kind holds (an
//     Eventstream's topics and endpoint keys, a Lakehouse's files, an
//     Eventhouse's databases);
//   - workspaces and role assignments: CreateWorkspace, UpdateWorkspace,
//     DeleteWorkspace (its items first), AddRole, UpdateRole, DeleteRole
//     (Members grant up to Member, the last Admin stays).
//
// Each change checks everything first, then stores, then reconciles what
// runs with one runtime Sync, then calls Config.OnChange with the
// Eventstream's id, so caches of what an Eventstream grants (the ingest
// seam's endpoint grants) forget it. A definition stores all its bindings
// and DerivedStreams before its one Sync; a new binding whose drain fails
// to start is removed again and the change answers the start's error.
//
// Errors. A refusal is a *fabricerr.Error built with the status-free
// constructors (fabricerr.BadParameter, NotFound, Invalid, Conflict,
// Denied): the Fabric error code and message are the contract every door
// shares, and the status an HTTP door answers follows from the constructor
// in one place, so no door keeps a table of kinds of its own and answers
// stay byte for byte what they were. A topology the definition compiler
// refuses stays a *definition.Refusal, which the door renders (its JSON
// detail is the door's wording). This package imports no net/http; a test
// checks it.
package control
