package portal_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// benchEnv is the portal benchmark's emulator: the fixture's workspace
// with 500 more Eventstreams, and a 100,000-row table in its Lakehouse.
// It is built once per process (the benchmark function runs more than
// once) and lives until the process ends.
var (
	benchOnce  sync.Once
	benchFix   *fixture
	benchPages map[string]string
)

// benchEventstreams and benchRows are the sizes the portal's pages must
// stay fast at.
const (
	benchEventstreams = 500
	benchRows         = 100_000
)

func setupBench(b *testing.B) {
	benchOnce.Do(func() {
		f := deploy(&noCleanup{b}, emulator.WithAMQPEndpoint("127.0.0.1:0"))
		for i := range benchEventstreams {
			f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/eventstreams", map[string]any{"displayName": fmt.Sprintf("es-%03d", i)}, 201)
		}
		lh := f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/lakehouses/"+f.lh, nil, 200)
		dir := filepath.Join(lh["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "big")
		tbl, err := delta.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		const commits = 20
		for c := range commits {
			batch := make([]rows.Row, 0, benchRows/commits)
			for i := range benchRows / commits {
				n := c*benchRows/commits + i
				batch = append(batch, rows.FromValue(fmt.Appendf(nil, `{"n":%d,"amount":%d.5,"customer":"c-%d","at":"2026-01-02T03:04:05Z"}`, n, n%1000, n%97)))
			}
			if _, err := tbl.Append(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
		}
		f.produce(map[string]any{"key": "k", "value": map[string]any{"amount": 1.5}})
		eh := f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/eventhouses", map[string]any{"displayName": "telemetry"}, 201)["id"].(string)
		es := "workspaces/" + f.ws + "/eventstreams/" + f.es
		table := "workspaces/" + f.ws + "/lakehouses/" + f.lh + "/tables/big"
		benchFix = f
		benchPages = map[string]string{
			"workspaces":       "",
			"workspace":        "workspaces/" + f.ws,
			"eventstream":      es,
			"status":           es + "/status",
			"logs":             es + "/logs",
			"explorer":         es + "/explorer?stream=" + f.ds + "&from=end&limit=50",
			"connection":       es + "/sources/" + f.src + "/connection",
			"lakehouse":        "workspaces/" + f.ws + "/lakehouses/" + f.lh,
			"table-first-page": table,
			"table-last-page":  table + fmt.Sprintf("?page=%d", benchRows/50),
			"reflex":           "workspaces/" + f.ws + "/reflexes/" + f.rf,
			"eventhouse":       "workspaces/" + f.ws + "/eventhouses/" + eh,
		}
	})
	if benchFix == nil {
		b.Fatal("the benchmark's emulator did not start")
	}
	h := benchFix.srv.Handler()
	for page, want := range map[string]string{"workspace": "es-499", "table-last-page": fmt.Sprintf("Rows %d–%d of %d", benchRows-49, benchRows, benchRows)} {
		if body := renderPage(b, h, emulator.PortalPath+benchPages[page]); !strings.Contains(body, want) {
			b.Fatalf("the %s page lacks %q: the benchmark does not hold what it says", page, want)
		}
	}
}

// noCleanup runs no cleanup: the benchmark's emulator outlives the first
// run of the benchmark function.
type noCleanup struct{ *testing.B }

func (noCleanup) Cleanup(func()) {}

// BenchmarkPortalPages renders every page type of the portal in-process
// (no network) with 500 Eventstreams in the workspace and a 100,000-row
// table, and reports each page's mean time over 5 renders in ms, and the
// slowest page's.
func BenchmarkPortalPages(b *testing.B) {
	setupBench(b)
	h := benchFix.srv.Handler()
	names := make([]string, 0, len(benchPages))
	for n := range benchPages {
		names = append(names, n)
	}
	sort.Strings(names)
	b.ResetTimer()
	for range b.N {
		slowest := 0.0
		for _, name := range names {
			const reps = 5
			t0 := time.Now()
			for range reps {
				renderPage(b, h, emulator.PortalPath+benchPages[name])
			}
			ms := float64(time.Since(t0).Microseconds()) / 1000 / reps
			b.ReportMetric(ms, name+"-ms")
			slowest = max(slowest, ms)
		}
		b.ReportMetric(slowest, "slowest-page-ms")
	}
}

// renderPage asks h for path as a loopback browser would, fails unless it
// answers 200, and returns the body.
func renderPage(b *testing.B, h http.Handler, path string) string {
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr, req.Host = "127.0.0.1:40000", "127.0.0.1:5080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		body, _ := io.ReadAll(rec.Body)
		b.Fatalf("GET %s: %d: %s", path, rec.Code, strings.TrimSpace(string(body))[:min(300, len(body))])
	}
	return rec.Body.String()
}
