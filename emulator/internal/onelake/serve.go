package onelake

import (
	"net/http"
)

// serve authenticates, resolves and dispatches one request.
func (h *Handler) serve(o *op) error {
	if err := o.authenticate(); err != nil {
		return err
	}
	segs, err := segments(o.r.URL.EscapedPath())
	if err != nil {
		return err
	}
	if err := o.resolveWorkspace(segs[0]); err != nil {
		return err
	}
	if len(segs) == 1 {
		return o.container()
	}
	if err := o.resolveItem(segs[1]); err != nil {
		return err
	}
	o.rel = segs[2:]
	if o.r.Method != http.MethodGet && o.r.Method != http.MethodHead {
		if err := o.writable(); err != nil {
			return err
		}
	}
	return o.path()
}

// writable checks a write: the Contributor role, and a path inside
// Tables/ or Files/ (the item's two top folders are not writable).
func (o *op) writable() error {
	if err := o.needWrite(); err != nil {
		return err
	}
	if len(o.rel) < 2 || (o.rel[0] != "Tables" && o.rel[0] != "Files") {
		return forbidden("OneLake writes only under an item's Tables/ or Files/ folder, not %q", o.name(o.relPath()))
	}
	return nil
}

// container serves requests on the workspace (the filesystem/container).
func (o *op) container() error {
	q := o.r.URL.Query()
	switch {
	case o.r.Method == http.MethodGet && q.Get("resource") == "filesystem":
		return o.listPaths()
	case o.r.Method == http.MethodGet && q.Get("comp") == "list":
		return o.listBlobs()
	case o.r.Method == http.MethodHead || o.r.Method == http.MethodGet:
		o.w.Header().Set("ETag", `"0x1"`)
		o.w.Header().Set("Last-Modified", o.ws.CreatedAt.UTC().Format(http.TimeFormat))
		o.w.WriteHeader(http.StatusOK)
		return nil
	}
	return forbidden("OneLake workspaces are created and deleted through the Fabric API, not the storage API")
}

// path serves requests on a path under an item.
func (o *op) path() error {
	q := o.r.URL.Query()
	switch o.r.Method {
	case http.MethodGet:
		return o.read()
	case http.MethodHead:
		return o.head()
	case http.MethodDelete:
		return o.remove()
	case http.MethodPatch:
		return o.patch(q.Get("action"))
	case http.MethodPut:
		return o.put()
	}
	return newErr(http.StatusMethodNotAllowed, "UnsupportedHttpVerb", "UnsupportedHttpVerb", "The resource doesn't support the verb %s", o.r.Method)
}

// put dispatches the PUT operations of both dialects.
func (o *op) put() error {
	q := o.r.URL.Query()
	switch {
	case o.r.Header.Get("x-ms-rename-source") != "":
		return o.rename()
	case q.Get("resource") == "file" || q.Get("resource") == "directory":
		return o.create(q.Get("resource"))
	case q.Get("comp") == "block":
		return o.putBlock(q.Get("blockid"))
	case q.Get("comp") == "blocklist":
		return o.putBlockList()
	case q.Has("comp"):
		o.w.WriteHeader(http.StatusOK) // properties, metadata, tier: accepted, not kept
		return nil
	case o.r.Header.Get("x-ms-copy-source") != "":
		return o.copyBlob()
	case o.r.Header.Get("x-ms-blob-type") != "":
		return o.putBlob()
	}
	return invalidInput("a PUT needs resource=file|directory, x-ms-rename-source, comp=block|blocklist, x-ms-copy-source or x-ms-blob-type")
}

// patch dispatches the DFS update actions.
func (o *op) patch(action string) error {
	switch action {
	case "append":
		return o.appendData()
	case "flush":
		return o.flush()
	case "setProperties", "setAccessControl", "setAccessControlRecursive":
		o.w.WriteHeader(http.StatusOK) // accepted, not kept
		return nil
	}
	return newErr(http.StatusBadRequest, "InvalidQueryParameterValue", "InvalidQueryParameterValue", "action=%q is not append, flush, setProperties or setAccessControl", action)
}
