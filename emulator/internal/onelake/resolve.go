package onelake

import (
	"errors"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// authenticate checks the storage-audience bearer token.
func (o *op) authenticate() error {
	p, err := o.h.cfg.Verify(o.r.Context(), o.r.Header.Get("Authorization"))
	if err != nil {
		o.h.cfg.Logger.Warn("onelake token refused", "method", o.r.Method, "path", o.r.URL.Path, "requestId", o.id, "reason", err)
		if o.r.Header.Get("Authorization") == "" {
			return newErr(http.StatusUnauthorized, "NoAuthenticationInformation", "NoAuthenticationInformation",
				"Server failed to authenticate the request: send 'Authorization: Bearer <token>' with a token for https://storage.azure.com")
		}
		return newErr(http.StatusUnauthorized, "InvalidAuthenticationInfo", "InvalidAuthenticationInfo",
			"Server failed to authenticate the request: %v", err)
	}
	o.principal = p
	return nil
}

// resolveWorkspace finds the workspace by GUID or display name and the
// caller's role in it; no role at all is 403, as OneLake answers.
func (o *op) resolveWorkspace(seg string) error {
	ctx := o.r.Context()
	var ws store.Workspace
	var err error
	if _, perr := uuid.Parse(seg); perr == nil {
		ws, err = o.h.cfg.Store.GetWorkspace(ctx, seg)
	} else {
		ws, err = o.workspaceByName(seg)
	}
	if errors.Is(err, store.ErrNotFound) {
		return newErr(http.StatusNotFound, "FilesystemNotFound", "ContainerNotFound", "The specified workspace does not exist: %s", seg)
	} else if err != nil {
		return err
	}
	role, err := o.h.cfg.Store.RoleOf(ctx, ws.ID, o.principal)
	if err != nil {
		return err
	}
	if role < store.RoleViewer {
		return forbidden("The caller %s has no role in workspace %s", o.principal, ws.ID)
	}
	o.ws, o.role = ws, role
	return nil
}

// workspaceByName finds a workspace the caller belongs to by its name.
func (o *op) workspaceByName(name string) (store.Workspace, error) {
	wss, _, err := o.h.cfg.Store.ListWorkspaces(o.r.Context(), o.principal, nil, store.Page{})
	if err != nil {
		return store.Workspace{}, err
	}
	for _, ws := range wss {
		if ws.DisplayName == name {
			return ws, nil
		}
	}
	return store.Workspace{}, store.ErrNotFound
}

// resolveItem finds the item by GUID or "name.Type" in o.ws.
func (o *op) resolveItem(seg string) error {
	it, err := o.itemOf(seg)
	if errors.Is(err, store.ErrNotFound) {
		return newErr(http.StatusNotFound, "PathNotFound", "BlobNotFound", "The specified item does not exist in workspace %s: %s", o.ws.ID, seg)
	} else if err != nil {
		return err
	}
	o.item, o.itemSeg = it, seg
	return nil
}

func (o *op) itemOf(seg string) (store.Item, error) {
	ctx := o.r.Context()
	if _, err := uuid.Parse(seg); err == nil {
		it, err := o.h.cfg.Store.GetItem(ctx, seg)
		if err == nil && it.WorkspaceID != o.ws.ID {
			return it, store.ErrNotFound
		}
		return it, err
	}
	i := strings.LastIndex(seg, ".")
	if i <= 0 {
		return store.Item{}, store.ErrNotFound
	}
	items, _, err := o.h.cfg.Store.ListItems(ctx, o.ws.ID, seg[i+1:], store.Page{})
	if err != nil {
		return store.Item{}, err
	}
	for _, it := range items {
		if it.DisplayName == seg[:i] {
			return it, nil
		}
	}
	return store.Item{}, store.ErrNotFound
}

// needWrite requires the Contributor role for a write.
func (o *op) needWrite() error {
	if o.role < store.RoleContributor {
		return forbidden("This request is not authorized to perform this operation using this permission: the caller's role %s in workspace %s cannot write (Contributor or higher can)", o.role, o.ws.ID)
	}
	return nil
}
