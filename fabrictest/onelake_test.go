package fabrictest_test

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestTableThroughOneLake: a table whose directory this process cannot see
// (an emulator in a container) is read through the emulator's OneLake
// surface, oneLakeTablesPath as Fabric names it
// (learn.microsoft.com/fabric/onelake/onelake-access-api), with the same
// reader and the same rows as the local directory gives.
func TestTableThroughOneLake(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	ws := env.Workspace("remote")
	es := ws.Eventstream("clicks")
	lh := ws.Lakehouse("remote_lh")
	g.Expect(lh.TablesURL).To(Equal(env.URL + "/onelake/" + ws.ID + "/" + lh.ID + "/Tables"))
	g.Expect(lh.FilesURL).To(Equal(env.URL + "/onelake/" + ws.ID + "/" + lh.ID + "/Files"))
	es.BindLakehouse(lh, "clicks")
	es.ProduceJSON(map[string]any{"n": 1}, map[string]any{"n": 2})
	es.ProduceJSON(map[string]any{"n": 3})

	remote := lh
	remote.TablesPath = filepath.Join(t.TempDir(), "elsewhere", "Tables") // not there: as from outside a container
	table := remote.Table("clicks")
	g.Expect(table.URL).To(Equal(lh.TablesURL + "/clicks"))
	g.Expect(table).To(fabrictest.HaveDeltaRows(3))
	g.Expect(table).To(fabrictest.HaveCommits(2))
	g.Expect(table.Rows()).To(Equal(lh.Table("clicks").Rows()))
	_, err := remote.Table("missing").TrySnapshot()
	g.Expect(err).To(MatchError(ContainSubstring("through OneLake")))
}
