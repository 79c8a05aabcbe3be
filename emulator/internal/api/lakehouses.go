package api

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// lakehouseName is Fabric's Lakehouse naming rule: letters, digits and
// underscores, starting with a letter, at most 123 characters.
var lakehouseName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,122}$`)

// tableName is Fabric's Lakehouse table rule (lakehouse/swagger.json):
// letters, digits and underscores, not all digits, at most 256 characters,
// less one here: a table is a directory, and filesystems (ext4, APFS,
// NTFS) hold names of at most 255 bytes. The rule is also what keeps a
// table name from reaching outside Tables/.
var (
	tableName  = regexp.MustCompile(`^[A-Za-z0-9_]{1,` + strconv.Itoa(maxTableName) + `}$`)
	onlyDigits = regexp.MustCompile(`^[0-9]+$`)
)

// maxTableName is the longest table name, the filesystem's limit on a
// directory name.
const maxTableName = 255

func validTableName(field, name string) error {
	if len(name) > maxTableName {
		return fabricerr.BadParameter(field, "a table name is at most %d characters (the emulator keeps each table in a directory of that name); got %d", maxTableName, len(name))
	}
	if !tableName.MatchString(name) || onlyDigits.MatchString(name) {
		return fabricerr.BadParameter(field, "%q is not a valid table name: use 1 to %d letters, digits and underscores, not only digits", name, maxTableName)
	}
	return nil
}

// lakehouseDir is where a Lakehouse's OneLake files live:
// <onelake>/<workspaceId>/<lakehouseId>.
func (a *API) lakehouseDir(it store.Item) string {
	return filepath.Join(a.cfg.OneLakeDir, it.WorkspaceID, it.ID)
}

var lakehouseKind = kind{
	validName: func(name string) error {
		if !lakehouseName.MatchString(name) {
			return fabricerr.BadParameter("displayName", "%q is not a valid Lakehouse name: start with a letter, then letters, digits or underscores, at most 123 characters", name)
		}
		return nil
	},
	provision: func(a *API, c *call, it *store.Item) error {
		for _, sub := range []string{"Tables", "Files"} {
			if err := os.MkdirAll(filepath.Join(a.lakehouseDir(*it), sub), 0o755); err != nil {
				return err
			}
		}
		return nil
	},
	release: func(a *API, c *call, it store.Item) error {
		return os.RemoveAll(a.lakehouseDir(it))
	},
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
func (a *API) listTables(c *call) error {
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
