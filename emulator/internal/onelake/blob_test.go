package onelake

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
)

// TestBlobDialect follows the Blob operations OneLake supports
// (learn.microsoft.com/fabric/onelake/onelake-api-parity; "Put Blob",
// "Put Block", "Put Block List", "Get Blob" with x-ms-range, "List Blobs"
// with prefix, delimiter and marker), the errors in Blob's XML shape.
func TestBlobDialect(t *testing.T) {
	e := newEnv(t)
	blob := map[string]string{"x-ms-blob-type": "BlockBlob"}
	u := "/onelake/sales/orders.Lakehouse/Files/data.bin"
	e.do("PUT", u, "admin", blob, "0123456789").want(201, "")
	r := e.do("PUT", u, "admin", map[string]string{"x-ms-blob-type": "BlockBlob", "If-None-Match": "*"}, "other").want(409, "BlobAlreadyExists")
	if !strings.Contains(r.body, "<Error><Code>BlobAlreadyExists</Code><Message>") {
		t.Fatalf("blob error shape: %s", r.body)
	}
	etag := e.do("HEAD", u, "admin", nil, "").want(200, "").resp.Header.Get("ETag")
	e.do("PUT", u, "admin", map[string]string{"x-ms-blob-type": "BlockBlob", "If-Match": `"0x1"`}, "x").want(412, "ConditionNotMet")
	e.do("PUT", u, "admin", map[string]string{"x-ms-blob-type": "BlockBlob", "If-Match": etag}, "abcdefghij").want(201, "")
	if r := e.do("GET", u, "admin", map[string]string{"x-ms-range": "bytes=2-4"}, "").want(206, ""); r.body != "cde" {
		t.Fatalf("x-ms-range read %q", r.body)
	}
	ids := []string{base64.StdEncoding.EncodeToString([]byte("b1")), base64.StdEncoding.EncodeToString([]byte("b2"))}
	b := "/onelake/sales/orders.Lakehouse/Files/dir/blocks.bin"
	e.do("PUT", b+"?comp=block&blockid="+ids[1], "admin", nil, "world").want(201, "")
	e.do("PUT", b+"?comp=block&blockid="+ids[0], "admin", nil, "hello ").want(201, "")
	e.do("PUT", b+"?comp=blocklist", "admin", nil, "<BlockList><Latest>"+ids[0]+"</Latest><Latest>"+ids[1]+"</Latest></BlockList>").want(201, "")
	if got := e.file("Files/dir/blocks.bin"); got != "hello world" {
		t.Fatalf("block list: %q", got)
	}
	e.do("PUT", b+"?comp=blocklist", "admin", nil, "<BlockList><Latest>bm9uZQ==</Latest></BlockList>").want(400, "InvalidBlockList")

	r = e.do("GET", "/onelake/sales?restype=container&comp=list&prefix=orders.Lakehouse/Files/&delimiter=/", "admin", nil, "").want(200, "")
	for _, want := range []string{"<Name>orders.Lakehouse/Files/data.bin</Name>", "<BlobPrefix><Name>orders.Lakehouse/Files/dir/</Name></BlobPrefix>", "<Content-Length>10</Content-Length>"} {
		if !strings.Contains(r.body, want) {
			t.Fatalf("listing lacks %s: %s", want, r.body)
		}
	}
	if strings.Contains(r.body, "blocks.bin") {
		t.Fatalf("delimiter did not fold dir/: %s", r.body)
	}
	r = e.do("GET", "/onelake/sales?restype=container&comp=list&prefix="+lhID+"/Files/&maxresults=1", "admin", nil, "").want(200, "")
	next := between(r.body, "<NextMarker>", "</NextMarker>")
	if next == "" || !strings.Contains(r.body, "<Name>"+lhID+"/Files/data.bin</Name>") {
		t.Fatalf("first page: %s", r.body)
	}
	r = e.do("GET", "/onelake/sales?restype=container&comp=list&prefix="+lhID+"/Files/&maxresults=1&marker="+next, "admin", nil, "").want(200, "")
	if !strings.Contains(r.body, "<Name>"+lhID+"/Files/dir</Name>") || !strings.Contains(r.body, "<ResourceType>directory</ResourceType>") {
		t.Fatalf("second page: %s", r.body)
	}
	e.do("GET", "/onelake/sales/orders.Lakehouse/Files/none", "admin", nil, "").want(404, "BlobNotFound")
	e.do("DELETE", u, "admin", nil, "").want(202, "")
	e.do("GET", "/onelake/nosuch?restype=container&comp=list&prefix=x/", "admin", nil, "").want(404, "ContainerNotFound")
}

func between(s, a, b string) string {
	_, rest, ok := strings.Cut(s, a)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, b)
	return v
}

// TestCommitPutIfAbsentRace: Delta's commit protocol needs put-if-absent
// (delta.io PROTOCOL.md, "Commit Provenance"/mutual exclusion); delta-rs
// sends a Put Blob with If-None-Match: *. Of writers racing for one
// version, exactly one wins and its bytes stay.
func TestCommitPutIfAbsentRace(t *testing.T) {
	e := newEnv(t)
	u := "/onelake/sales/orders.Lakehouse/Tables/t/_delta_log/00000000000000000001.json"
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := e.do("PUT", u, "admin", map[string]string{"x-ms-blob-type": "BlockBlob", "If-None-Match": "*"}, strings.Repeat(string(rune('a'+i)), 100))
			codes[i] = r.resp.StatusCode
		})
	}
	wg.Wait()
	won := -1
	for i, c := range codes {
		switch {
		case c == 201 && won < 0:
			won = i
		case c != 409:
			t.Fatalf("writer %d: status %d (codes %v)", i, c, codes)
		}
	}
	if won < 0 {
		t.Fatalf("no writer won: %v", codes)
	}
	if got := e.file("Tables/t/_delta_log/00000000000000000001.json"); got != strings.Repeat(string(rune('a'+won)), 100) {
		t.Fatalf("commit holds %q, not the winner's bytes", got[:10])
	}
}
