package api

import (
	"net/http"
	"os"
	"path/filepath"
	"sort"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// lakehouseDir is where a Lakehouse's OneLake files live.
func (a *API) lakehouseDir(it store.Item) string { return a.plane.LakehouseDir(it) }

var lakehouseKind = kind{
	callProperties: lakehouseProperties,
}

// LocalTablesPath and LocalFilesPath are the extension properties that
// keep a Lakehouse's local directories: oneLakeTablesPath and
// oneLakeFilesPath are OneLake URLs, as in Fabric.
const (
	LocalTablesPath = "x-fabrictest-localTablesPath"
	LocalFilesPath  = "x-fabrictest-localFilesPath"
)

// lakehouseProperties renders a Lakehouse's properties: Fabric's
// https://onelake.dfs.fabric.microsoft.com/<ws>/<item>/Tables becomes
// <emulator>/onelake/<ws>/<item>/Tables, served by the OneLake surface.
func lakehouseProperties(a *API, c *call, it store.Item) any {
	dir := a.lakehouseDir(it)
	base := c.baseURL()
	return map[string]any{
		"oneLakeTablesPath":     oneLakeURL(base, it.WorkspaceID, it.ID, "Tables"),
		"oneLakeFilesPath":      oneLakeURL(base, it.WorkspaceID, it.ID, "Files"),
		LocalTablesPath:         filepath.Join(dir, "Tables"),
		LocalFilesPath:          filepath.Join(dir, "Files"),
		"sqlEndpointProperties": map[string]any{"provisioningStatus": "Success"},
	}
}

// listTables serves GET …/lakehouses/{id}/tables: every directory under
// Tables/ that holds a Delta log, in Fabric's shape (the array is "data").
func (a lakehouseHandlers) listTables(c *call) error {
	it, err := a.item(c, TypeLakehouse, store.RoleViewer)
	if err != nil {
		return err
	}
	root := filepath.Join(a.lakehouseDir(it), "Tables")
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	out := wire.TableList{Data: []wire.Table{}}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), "_delta_log")); !e.IsDir() || err != nil {
			continue
		}
		out.Data = append(out.Data, wire.Table{Name: e.Name(), Type: "Managed", Format: "Delta", Location: filepath.Join(root, e.Name())})
	}
	sort.Slice(out.Data, func(i, j int) bool { return out.Data[i].Name < out.Data[j].Name })
	return c.JSON(http.StatusOK, out)
}
