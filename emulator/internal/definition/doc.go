// Package definition compiles Fabric's Eventstream definition (the
// eventstream.json topology with eventstreamProperties.json and .platform)
// into the emulator's native plan: the DefaultStream the CustomEndpoint
// sources feed, the operators as pipeline specs, the destinations as
// checked bindings and each DerivedStream with the operator chain before
// it. It sees no HTTP request: item lookups and authorisation come in
// through a Resolver, and every refusal is a *Refusal the caller renders.
// Compile changes nothing; the caller persists the Plan.
//
// One property is the emulator's own: a Lakehouse or Eventhouse
// destination node's ExtensionKey ("x-fabrictest") object carries its
// error policy, dead-letter topic and schema mode (see Policy); Fabric's
// schema has no such property.
package definition
