package portal_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// TestShutdownEndsPreviews: a browser's open live preview does not hold
// the server's graceful shutdown: Shutdown ends the stream and returns at
// once, not at its deadline.
func TestShutdownEndsPreviews(t *testing.T) {
	srv, err := emulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	tok, _ := srv.Token("")
	g := &fixture{env: &env{t: t, srv: srv, url: "http://" + ln.Addr().String(), token: tok}}
	ws := g.api(tok, "POST", "/v1/workspaces", map[string]any{"displayName": "w"}, 201)["id"].(string)
	es := g.api(tok, "POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "e"}, 201)
	ds := es["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	r, err := http.Get(g.url + emulator.PortalPath + "workspaces/" + ws + "/eventstreams/" + es["id"].(string) + "/preview/" + ds)
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != 200 {
		t.Fatalf("preview: %d", r.StatusCode)
	}
	ended := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, r.Body); r.Body.Close(); close(ended) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a preview open: %v after %v", err, time.Since(start))
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("shutdown took %v with a preview open", d)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the preview stream did not end")
	}
}
