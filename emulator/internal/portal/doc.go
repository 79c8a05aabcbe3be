// Package portal serves the emulator's local portal: server-rendered pages
// under /_emulator/portal/ that show what the emulator holds and does, as
// Fabric's portal shows it: workspaces and their items with roles, an
// Eventstream's topology with each node's status, pause and resume buttons
// and data insights, a live preview of a stream (server-sent events), a
// custom endpoint's connection strings, a Lakehouse table (schema, commits,
// first rows, rejected records), a Reflex's triggers and job instances, and
// runtime logs.
//
// The portal is a client of the API in-process: every page asks the API
// handler, with a token minted for the principal the viewer chose, the same
// routes a REST caller asks, so what it shows and what it may do (pause,
// resume) are exactly what that principal's roles allow. Three things the
// API does not answer are read directly, each after the API has checked
// the principal's role on the item: a stream's records for the preview
// (from the broker, so that previewing counts in no data insight), a Delta
// table's log and rows (delta.ReadTable on the location the tables route
// answers) and the rejected-rows files under the Lakehouse's
// Files/_rejected/.
//
// Stack: Go html/template pages with one small script and one stylesheet,
// all embedded with go:embed. Nothing is fetched at run time and nothing is
// built with a JavaScript toolchain: the pages work without the script
// (forms post, links navigate); the script adds the live preview, the copy
// buttons and the refresh of statuses and metrics.
//
// Like /_emulator/token, the portal answers loopback callers only (any
// caller with --remote-tokens), and only requests whose Host is the one the
// caller reached (no DNS rebinding); a POST must come from a portal page
// (its Origin, or Sec-Fetch-Site same-origin), so that no other site can
// pause an Eventstream through a browser.
package portal
