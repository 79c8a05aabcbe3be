package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestColumns: the output column order of a pipeline, which a Lakehouse
// table the rows create takes. Fabric's ManageFields is a projection onto
// the columns it lists, in their order (fabric-docs "Process event data
// with the event processor editor", Manage fields); Microsoft does not
// document the column order of Group by's output, and the emulator's is
// the order GroupBy documents its fields in. Every field of the rows the
// pipeline outputs must be listed.
func TestColumns(t *testing.T) {
	const rec = `{"ts":"2026-01-01T00:00:10Z","z":1,"device":{"id":"d1","fw":2},"temp":"21.5","debug":true,"a":3}`
	for _, c := range []struct {
		name, ops string
		want      string // "" for nil
	}{
		{"no projection", `[{"type":"Filter","condition":{"field":"z","op":"exists"}}]`, ""},
		{"stamp or aggregate only", `[{"type":"Window","kind":"tumbling","duration":"1m","on":"ts"},
			{"type":"Aggregate","on":"ts","aggregates":[{"fn":"count","duration":"1m"}]}]`, ""},
		{"keep in its order", `[{"type":"ManageFields","keep":["z","temp","device.id","ghost","a"],
			"rename":{"temp":"t"},"cast":{"temp":"double"}}]`, "z,t,device.id,device,ghost,a"},
		{"computed where kept, else after", `[{"type":"ManageFields","keep":["up","z"],
			"compute":[{"fn":"UPPER","args":[{"field":"temp"}],"as":"up"},{"fn":"ABS","args":[{"field":"z"}],"as":"abs_z"}]}]`,
			"up,z,abs_z"},
		{"projection then drop and rename in place", `[{"type":"ManageFields","keep":["z","temp","a"]},
			{"type":"ManageFields","drop":["temp"],"rename":{"z":"zz"}},
			{"type":"Filter","condition":{"field":"a","op":"exists"}},
			{"type":"Window","kind":"tumbling","duration":"1m","on":"ts"}]`,
			"zz,a,window_start,window_end,_window_start"},
		{"drop without projection", `[{"type":"ManageFields","drop":["debug"]}]`, ""},
		{"group by", `[{"type":"GroupBy","keys":["device.id"],"aggregates":[{"fn":"max","field":"z"},{"fn":"count","as":"n"}],
			"window":{"kind":"tumbling","duration":"1m"}},
			{"type":"Aggregate","aggregates":[{"fn":"sum","field":"n","duration":"5m"}]}]`,
			"window_start,window_end,_window_start,device.id,max_z,n,SUM_n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustPipeline(t, c.ops)
			cols := p.Columns()
			if got := strings.Join(cols, ","); got != c.want {
				t.Fatalf("Columns() = %q, want %q", got, c.want)
			}
			evs := events(rec)
			evs[0].Timestamp = t0.Add(10 * time.Second)
			out := append(p.Process(evs), p.Advance(t0.Add(time.Hour))...)
			if len(out) == 0 {
				t.Fatal("no output row to check the columns against")
			}
			for _, r := range out {
				for k := range r {
					if cols != nil && !slices.Contains(cols, k) {
						t.Errorf("output field %q is not in Columns() %v (row %v)", k, cols, fmt.Sprint(r))
					}
				}
			}
		})
	}
}
