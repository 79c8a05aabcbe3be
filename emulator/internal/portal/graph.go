package portal

import (
	"fmt"
	"strings"
)

// Graph geometry: each column of the topology (sources, streams,
// operators, destinations) is one column of boxes.
const (
	graphBoxW   = 190
	graphBoxH   = 58
	graphColGap = 70
	graphRowGap = 22
	graphPad    = 12
)

// graphView is the topology drawn as nodes and edges, server-rendered as
// SVG: no script, nothing fetched.
type graphView struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
}

// graphNode is one box: where it is, what it says, its status colour and
// the card it links to.
type graphNode struct {
	X, Y, W, H   int
	ID, Name     string
	Type         string
	Status       string
	Class        string // ok, warn, bad or none (statusClass)
	Anchor       string // the id of the node's card on the page
	ShortName    string
	TextX, TextY int
}

// graphEdge is one input relation, as an SVG path from the input's right
// side to the node's left side.
type graphEdge struct{ Path string }

// buildGraph lays out cols (the page's columns, in order) and draws an
// edge for each node's inputNodes.
func buildGraph(cols []column) graphView {
	var g graphView
	at := map[string]graphNode{} // by name, unique in an Eventstream
	rows := 0
	for ci, col := range cols {
		x := graphPad + ci*(graphBoxW+graphColGap)
		for ri, n := range col.Nodes {
			y := graphPad + ri*(graphBoxH+graphRowGap)
			gn := graphNode{X: x, Y: y, W: graphBoxW, H: graphBoxH, ID: n.ID, Name: n.Name, Type: n.Type, Status: n.Status,
				Class: statusClass(n.Status), Anchor: n.Anchor, ShortName: shorten(n.Name, 24), TextX: x + 10, TextY: y + 22}
			g.Nodes = append(g.Nodes, gn)
			at[n.Name] = gn
		}
		rows = max(rows, len(col.Nodes))
	}
	for _, col := range cols {
		for _, n := range col.Nodes {
			to := at[n.Name]
			for _, in := range n.InputNodes {
				from, ok := at[in.Name]
				if !ok {
					continue
				}
				x1, y1 := from.X+from.W, from.Y+from.H/2
				x2, y2 := to.X, to.Y+to.H/2
				mid := (x1 + x2) / 2
				g.Edges = append(g.Edges, graphEdge{Path: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, mid, y1, mid, y2, x2-6, y2)})
			}
		}
	}
	g.Width = 2*graphPad + len(cols)*graphBoxW + max(0, len(cols)-1)*graphColGap
	g.Height = 2*graphPad + max(1, rows)*(graphBoxH+graphRowGap) - graphRowGap
	return g
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
