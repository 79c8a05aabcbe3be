package portal_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTopologyGraph: the Eventstream page draws every node as a box
// coloured by its status (the Failed Eventhouse destination red, the
// running Lakehouse one green), an edge for each input, and each box
// links to its node's card on the page.
func TestTopologyGraph(t *testing.T) {
	f := deploy(t)
	failedEventhouse(t, f)
	_, body := getPage(t, f.esPage(), "")
	svg := regexp.MustCompile(`(?s)<svg class="graph".*?</svg>`).FindString(body)
	if svg == "" {
		t.Fatalf("no graph: %s", body)
	}
	boxes := regexp.MustCompile(`<a href="#([^"]+)"() data-graph-node="([^"]+)"[^>]*><rect class="box (\w+)"`).FindAllStringSubmatch(svg, -1)
	class := map[string]string{}
	for _, b := range boxes {
		class[b[3]] = b[4]
		if !strings.Contains(body, `<article class="node" id="`+b[1]+`"`) {
			t.Errorf("the box of %s links to #%s, which no card has", b[3], b[1])
		}
	}
	if len(boxes) != 5 {
		t.Fatalf("%d boxes, want app, orders-stream, out, lake and the Eventhouse destination: %v", len(boxes), class)
	}
	if class["lake"] != "ok" || class["orders-stream"] != "none" {
		t.Fatalf("box colours: %v", class)
	}
	bad := 0
	for _, c := range class {
		if c == "bad" {
			bad++
		}
	}
	if bad != 1 {
		t.Fatalf("%d red boxes, want the Failed destination's: %v", bad, class)
	}
	if n := strings.Count(svg, `<path class="edge"`); n != 4 {
		t.Fatalf("%d edges, want 4 (app to the stream, the stream to each destination)", n)
	}
}

// TestCardsChartInsights: after two readings of the figures (the page,
// then its refresh 1.6 s later, with events in between) the stream's card
// has a chart of IncomingMessages per second, in the page and in the
// status JSON.
func TestCardsChartInsights(t *testing.T) {
	f := deploy(t)
	f.produce(map[string]any{"value": map[string]any{"amount": 1.5}})
	if _, body := getPage(t, f.esPage(), ""); strings.Contains(body, `class="spark-wrap" data-spark>`) {
		t.Fatal("a chart from one reading")
	}
	time.Sleep(1600 * time.Millisecond)
	f.produce(map[string]any{"value": map[string]any{"amount": 2.5}}, map[string]any{"value": map[string]any{"amount": 3.5}})
	r, err := http.Get(f.esPage() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Nodes []struct {
			ID    string `json:"id"`
			Spark *struct {
				Metric, Points, Label string
			} `json:"spark"`
		} `json:"nodes"`
	}
	err = json.NewDecoder(r.Body).Decode(&st)
	r.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range st.Nodes {
		if n.ID == f.ds {
			found = n.Spark != nil && n.Spark.Metric == "IncomingMessages" && strings.Count(n.Spark.Points, ",") == 1 && strings.Contains(n.Spark.Label, "IncomingMessages per second")
		}
	}
	if !found {
		t.Fatalf("no chart of the stream in the status JSON: %+v", st.Nodes)
	}
	_, body := getPage(t, f.esPage(), "")
	if !strings.Contains(body, `class="spark-wrap" data-spark>`) || !strings.Contains(body, `aria-label="IncomingMessages per second`) {
		t.Fatalf("the page draws no chart: %s", body)
	}
}
