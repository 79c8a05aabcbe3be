package portal_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestNodesShowTheirLastRuntimeErrors: the Failed Eventhouse destination's
// card on the Eventstream page lists its last runtime errors from its logs,
// other nodes list none, and the status JSON the page polls carries them.
func TestNodesShowTheirLastRuntimeErrors(t *testing.T) {
	f := deploy(t)
	eh := failedEventhouse(t, f)
	logs := f.api(f.token, "GET", f.esPath+"/logs?level=Error", nil, 200)["value"].([]any)
	var want string
	for _, l := range logs {
		if m := l.(map[string]any); m["nodeId"] == eh {
			want = m["message"].(string)
			break
		}
	}
	if want == "" {
		t.Fatalf("the Eventhouse destination logged no error: %v", logs)
	}
	_, body := getPage(t, f.esPage(), "")
	card := regexp.MustCompile(`(?s)<article class="node"[^>]*data-node="` + eh + `".*?</article>`).FindString(body)
	if !strings.Contains(card, "Last runtime errors") || !strings.Contains(card, htmlText(want)) {
		t.Fatalf("the Failed node's card lacks its last error %q: %s", want, card)
	}
	lake := regexp.MustCompile(`(?s)<article class="node"[^>]*data-node="` + f.lake + `".*?</article>`).FindString(body)
	if lake == "" || strings.Contains(lake, "<li") {
		t.Fatalf("the healthy node's card lists errors: %s", lake)
	}

	r, err := http.Get(f.esPage() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	var st struct {
		Nodes []struct {
			ID           string `json:"id"`
			RecentErrors []struct {
				Time    string `json:"time"`
				Message string `json:"message"`
			} `json:"recentErrors"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	for _, n := range st.Nodes {
		if n.ID == eh && (len(n.RecentErrors) == 0 || n.RecentErrors[0].Message != want || n.RecentErrors[0].Time == "") {
			t.Fatalf("status JSON of the Failed node: %s", raw)
		}
	}
}

// htmlText is s as html/template escapes text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
