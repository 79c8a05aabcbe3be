package portal_test

import (
	"regexp"
	"strings"
	"testing"
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
