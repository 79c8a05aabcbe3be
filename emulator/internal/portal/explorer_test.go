package portal_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// peeked is one record of the explorer's JSON download.
type peeked struct {
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Timestamp string `json:"timestamp"`
	Key       struct {
		Kind, Text string
	} `json:"key"`
	Headers []struct {
		Key   string `json:"key"`
		Value struct{ Text string }
	} `json:"headers"`
	Value struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"value"`
}

// download fetches the explorer's JSON for q as the default principal.
func download(t *testing.T, f *fixture, q url.Values) (int, []peeked, http.Header) {
	t.Helper()
	r, err := http.Get(f.esPage() + "/explorer.json?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	var out []peeked
	if r.StatusCode == 200 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("download: %v: %s", err, raw)
		}
	}
	return r.StatusCode, out, r.Header
}

// TestDataExplorerSendsAndPeeks: the send form produces count copies of a
// JSON event with key and headers, and a text event, through the produce
// route (the table gets the JSON rows; a Viewer is refused, shown on the
// page); the peek shows them from the end, an offset or a time, one
// partition or all; the download gives what is shown.
func TestDataExplorerSendsAndPeeks(t *testing.T) {
	f := deploy(t)
	c := browserLike(t, f, "")
	explorer := emulator.PortalPath + "workspaces/" + f.ws + "/eventstreams/" + f.es + "/explorer"
	before := time.Now().UTC().Add(-time.Second)
	path, status, body := post(t, c, f.esPage()+"/send", url.Values{"stream": {f.ds}, "kind": {"json"},
		"value": {`{"amount": 12.5, "customer": "ada"}`}, "key": {"k-1"}, "headers": {"origin: portal\r\ntrace: 7"}, "count": {"3"}})
	if path != explorer || status != 200 || !strings.Contains(body, "Sent 3 events.") || !strings.Contains(body, "k-1") {
		t.Fatalf("send: %s %d: %s", path, status, body)
	}
	f.waitRows(3)
	if _, _, body := post(t, c, f.esPage()+"/send", url.Values{"stream": {f.ds}, "kind": {"text"}, "value": {"plain <words>"}}); !strings.Contains(body, "Sent 1 event.") {
		t.Fatalf("send text: %s", body)
	}
	if _, _, body := post(t, c, f.esPage()+"/send", url.Values{"stream": {f.ds}, "kind": {"json"}, "value": {"{not json"}}); !strings.Contains(body, "InvalidInput") || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("send bad JSON: %s", body)
	}
	if _, _, body := post(t, browserLike(t, f, viewer), f.esPage()+"/send", url.Values{"stream": {f.ds}, "value": {"{}"}}); !strings.Contains(body, "InsufficientPrivileges") {
		t.Fatalf("a Viewer's send: %s", body)
	}

	status, all, h := download(t, f, url.Values{"stream": {f.ds}, "from": {"offset"}, "offset": {"0"}})
	if status != 200 || len(all) != 4 || !strings.Contains(h.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download from offset 0: %d, %d records, %v", status, len(all), h)
	}
	if all[0].Key.Text != "k-1" || len(all[0].Headers) != 2 || all[0].Value.Kind != "json" || !strings.Contains(all[0].Value.Text, `"customer": "ada"`) {
		t.Fatalf("first record: %+v", all[0])
	}
	if last := all[3]; last.Value.Kind != "text" || last.Value.Text != "plain <words>" {
		t.Fatalf("the text event: %+v", last)
	}
	if _, recs, _ := download(t, f, url.Values{"stream": {f.ds}, "from": {"end"}, "limit": {"2"}}); len(recs) != 2 || recs[1].Value.Text != "plain <words>" {
		t.Fatalf("the 2 newest: %+v", recs)
	}
	if _, recs, _ := download(t, f, url.Values{"stream": {f.ds}, "from": {"time"}, "time": {time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05")}}); len(recs) != 0 {
		t.Fatalf("records after a future time: %+v", recs)
	}
	if _, recs, _ := download(t, f, url.Values{"stream": {f.ds}, "from": {"time"}, "time": {before.Format("2006-01-02T15:04:05")}}); len(recs) != 4 {
		t.Fatalf("records since before the sends: %d", len(recs))
	}
	part := all[3].Partition
	_, one, _ := download(t, f, url.Values{"stream": {f.ds}, "from": {"offset"}, "offset": {"0"}, "partition": {strconv.Itoa(int(part))}})
	for _, r := range one {
		if r.Partition != part {
			t.Fatalf("partition %d's peek has a record of %d", part, r.Partition)
		}
	}
	if len(one) == 0 {
		t.Fatal("partition peek is empty")
	}
	if status, _, _ := download(t, f, url.Values{"stream": {f.ds}, "partition": {"99"}}); status != 400 {
		t.Fatalf("an unknown partition: %d", status)
	}

	_, page := getPage(t, f.esPage()+"/explorer?"+url.Values{"stream": {f.ds}, "from": {"offset"}, "offset": {"0"}}.Encode(), "")
	for _, w := range []string{"4 records, oldest first", "Download as JSON", "plain &lt;words&gt;", "origin: ", "k-1"} {
		if !strings.Contains(page, w) {
			t.Errorf("the explorer page lacks %q", w)
		}
	}
	if _, page := getPage(t, f.esPage()+"/explorer?"+url.Values{"stream": {f.ds}, "from": {"time"}, "time": {"soon"}}.Encode(), ""); !strings.Contains(page, "InvalidInput") {
		t.Fatalf("a bad time: %s", page)
	}
	if status, page := getPage(t, f.esPage()+"/explorer?stream="+f.ds, stranger); status != 403 || strings.Contains(page, "ada") {
		t.Fatalf("a stranger's peek: %d", status)
	}
}
