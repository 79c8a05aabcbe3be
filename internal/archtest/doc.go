// Package archtest checks the module's import graph against the dependency
// rules of docs/architecture.md.
//
// The rule table lives only in that page: the test parses it, lists the
// module's packages with `go list` (the default build and the container,race
// build) and fails naming every import that breaks a rule, and every known
// exception the code no longer needs. Nothing here is imported by other
// packages; the check runs as part of `go test ./...`.
package archtest
