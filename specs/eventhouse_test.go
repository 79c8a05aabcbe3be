//go:build container

package specs_test

import (
	"strings"
	"time"

	"github.com/Azure/azure-kusto-go/azkustodata"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/kustofake"
)

var _ = Describe("Eventstream to Eventhouse on Apache Kafka", Label("kafka", "container", "eventhouse"), func() {
	It("ingests JSON into a table called kind, with a field called kind, every awkward value intact, read back through azure-kusto-go", func(ctx SpecContext) {
		env := fabrictest.Start(GinkgoTB(), fabrictest.WithKustoFake()).WithContext(ctx)
		ws := env.Workspace("rti")
		es := ws.Eventstream("telemetry")
		eh := ws.Eventhouse("telemetry")
		Expect(eh.QueryURI).To(Equal(env.KQLURL()), "the Eventhouse points at the attached engine")

		By("checking that the engine is as strict as Kusto: a bare kind is a syntax error")
		kc, err := azkustodata.New(azkustodata.NewConnectionStringBuilder(env.KQLURL()))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(kc.Close)
		_, err = kc.Mgmt(ctx, eh.Database, kql.New(".create table kind (kind:string)"))
		Expect(err).To(MatchError(ContainSubstring("SYN0002")))

		By("binding table kind of the Eventhouse's default database")
		d := es.BindEventhouse(eh, "kind")
		Expect(d.Type).To(Equal("Eventhouse"))
		Expect(d.Database).To(Equal(eh.Database))

		By("producing events whose values hold commas, quotes, line breaks and non-ASCII text")
		events := []map[string]any{
			{"kind": "a,b", "n": 1, "note": `say "hi"` + "\nbye", "u": "ünïcødé ✓"},
			{"kind": `quote " and comma, and CRLF` + "\r\n", "n": 2, "note": "'single' \\ back\\slash"},
			{"kind": "", "n": 3, "note": ",,,", "ok": true},
			{"kind": "late", "n": 4, "extra": 2.5},
		}
		values := make([]any, len(events))
		for i, e := range events {
			values[i] = e
		}
		es.ProduceJSON(values...)

		By("reading the table back through the SDK (read-your-writes: no wait)")
		rows := env.KustoRows(eh.Database, "kind")
		Expect(rows).To(fabrictest.HaveRowsMatching(
			// Kusto strings are never null: a missing string reads as "".
			map[string]any{"kind": "a,b", "n": 1, "note": "say \"hi\"\nbye", "u": "ünïcødé ✓", "ok": nil, "extra": nil},
			map[string]any{"kind": "quote \" and comma, and CRLF\r\n", "n": 2, "note": "'single' \\ back\\slash", "u": ""},
			map[string]any{"kind": "", "n": 3, "note": ",,,", "ok": true},
			map[string]any{"kind": "late", "n": 4, "note": "", "extra": 2.5},
		))
		Expect(rows).To(fabrictest.HaveColumns("kind", "n", "note", "u", "ok", "extra"))
		Expect(env.KustoCount(eh.Database, "kind")).To(BeEquivalentTo(len(events)))

		By("every name went to the engine quoted")
		var ingests int
		for _, r := range env.KustoFake().Requests() {
			if r.Endpoint == kustofake.PathMgmt && strings.HasPrefix(r.CSL, ".ingest") {
				ingests++
				Expect(r.CSL).To(HavePrefix(".ingest inline into table ['kind']"))
			}
			if strings.HasPrefix(r.CSL, ".create-merge") {
				Expect(r.CSL).To(ContainSubstring("['kind']:string"))
			}
		}
		Expect(ingests).To(BeNumerically(">=", 1))
	}, SpecTimeout(time.Minute))
})
