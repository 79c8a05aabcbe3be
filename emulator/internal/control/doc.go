// Package control is the emulator's control plane: every change to a
// workspace's Eventstreams (creating one from a definition, applying or
// updating a definition, binding and unbinding destinations, operators,
// pause and resume, DerivedStream topics) is a method of Plane that takes
// the caller and a typed request and returns a typed result or an error.
// Each change checks everything first, then stores, then reconciles what
// runs with one runtime Sync, then tells Config.OnChange.
//
// The doors (the HTTP api, later others) decode their protocol, call the
// Plane and render its answer; this package imports no net/http. Its
// errors are *fabricerr.Error values built with status-free constructors
// (fabricerr.BadParameter, NotFound, Invalid, Conflict, Denied): the
// Fabric error code and message are the contract every door shares, and
// the status an HTTP door answers follows from the constructor in one
// place, so no door maps kinds of its own.
package control
