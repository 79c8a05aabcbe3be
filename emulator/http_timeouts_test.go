package emulator_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// short are timeouts a test can wait out.
var short = emulator.HTTPTimeouts{ReadHeader: 300 * time.Millisecond, Read: time.Second, Idle: 500 * time.Millisecond}

// closedWithin reads from conn until the server closes it and fails unless
// that happens within limit. trickle, when set, is written one byte every
// 50 ms meanwhile, as a slow client would.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration, trickle string) {
	t.Helper()
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; trickle != ""; i = (i + 1) % len(trickle) {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{trickle[i]}); err != nil {
				return
			}
		}
	}()
	_ = conn.SetReadDeadline(start.Add(limit + 5*time.Second))
	_, err := io.Copy(io.Discard, conn) // returns when the server hangs up
	if took := time.Since(start); took > limit || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server held the connection %s (limit %s): %v", took.Round(time.Millisecond), limit, err)
	}
}

func dial(t *testing.T, addr, text string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, text); err != nil {
		t.Fatal(err)
	}
	return conn
}

func TestSlowClientsAreDisconnected(t *testing.T) {
	e, addr := serveEnv(t, emulator.WithHTTPTimeouts(short))
	s := newStream(e)
	head := "POST " + s.produce + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + e.token + "\r\n"

	t.Run("headers never finished", func(t *testing.T) {
		conn := dial(t, addr, head)
		closedWithin(t, conn, 2*time.Second, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	})
	t.Run("body never finished", func(t *testing.T) {
		conn := dial(t, addr, head+"Content-Length: 100000\r\nContent-Type: application/json\r\n\r\n{\"events\": [")
		closedWithin(t, conn, 3*time.Second, `{"value": 1},`)
	})
	t.Run("body too slow is answered", func(t *testing.T) {
		conn := dial(t, addr, head+"Content-Length: 100\r\nContent-Type: application/json\r\n\r\n{\"events\": [")
		start := time.Now()
		_ = conn.SetReadDeadline(start.Add(5 * time.Second))
		hr, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a body that stopped: %v", err)
		}
		defer hr.Body.Close()
		body, _ := io.ReadAll(hr.Body)
		wantEnvelope(t, "slow body", hr, body, http.StatusRequestTimeout, "RequestTimeout")
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("answered after %s", took)
		}
		if strings.Contains(string(body), "127.0.0.1") {
			t.Fatalf("the answer names the connection's addresses: %s", body)
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		conn := dial(t, addr, "GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n")
		hr, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		hr.Body.Close()
		closedWithin(t, conn, 2*time.Second, "")
	})
}

// A produce body at the 16 MiB cap, sent at a modest rate, is served under
// the default timeouts.
func TestLargeProduceWithinDefaultTimeouts(t *testing.T) {
	e, _ := serveEnv(t)
	s := newStream(e)
	value := strings.Repeat("v", 990_000)
	var body bytes.Buffer
	body.WriteString(`{"events": [`)
	const n = 16
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"key": "k%d", "value": %q}`, i, value)
	}
	body.WriteString(`]}`)
	if body.Len() > 16<<20 {
		t.Fatalf("the body is %d bytes, over the 16 MiB cap", body.Len())
	}
	// 1 MiB every 100 ms: about 10 MiB/s, slower than any loopback.
	req, err := http.NewRequest("POST", e.url+s.produce, &throttled{r: &body, chunk: 1 << 20, every: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	hr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("produce 16 MiB: %v", err)
	}
	defer hr.Body.Close()
	var out struct{ Produced int }
	raw, _ := io.ReadAll(hr.Body)
	if hr.StatusCode != 200 || json.Unmarshal(raw, &out) != nil || out.Produced != n {
		t.Fatalf("produce 16 MiB answered %d: %.300s", hr.StatusCode, raw)
	}
}

// The write timeout grows with the produce timeout, so that a produce
// waiting on a slow broker is answered, not cut.
func TestWriteTimeoutCoversTheProduceWait(t *testing.T) {
	for _, produce := range []time.Duration{30 * time.Second, 5 * time.Minute} {
		srv, err := emulator.New(emulator.WithKafka("none"), emulator.WithProduceTimeout(produce))
		if err != nil {
			t.Fatal(err)
		}
		got := emulator.ServerTimeouts(srv)
		srv.Close()
		if got.ReadHeader <= 0 || got.Read <= 0 || got.Idle <= 0 {
			t.Fatalf("produce timeout %s: timeouts %+v, want all set", produce, got)
		}
		if min := got.Read + produce + 30*time.Second; got.Write <= min {
			t.Fatalf("produce timeout %s: write timeout %s, want more than %s", produce, got.Write, min)
		}
	}
	srv, err := emulator.New(emulator.WithKafka("none"), emulator.WithHTTPTimeouts(emulator.HTTPTimeouts{Write: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if got := emulator.ServerTimeouts(srv); got.Write != time.Hour || got.Read != 60*time.Second {
		t.Fatalf("an explicit write timeout gives %+v", got)
	}
}

// throttled hands out chunk bytes of r every interval.
type throttled struct {
	r     io.Reader
	chunk int
	every time.Duration
}

func (t *throttled) Read(p []byte) (int, error) {
	time.Sleep(t.every)
	return t.r.Read(p[:min(len(p), t.chunk)])
}

// A consume may wait its timeoutMs (up to 5 min) for offsets not yet
// written: it is answered even when that is longer than the write timeout.
func TestConsumeWaitOutlastsWriteTimeout(t *testing.T) {
	e, _ := serveEnv(t, emulator.WithPartitions(1), emulator.WithHTTPTimeouts(emulator.HTTPTimeouts{Write: 500 * time.Millisecond}))
	s := newStream(e)
	start := time.Now()
	r := e.call("GET", s.reads+`?endingOffsets={"0":5}&timeoutMs=1500`, nil)
	if r.Status >= 500 || time.Since(start) < 1400*time.Millisecond {
		t.Fatalf("consume answered %d after %s: %s", r.Status, time.Since(start), r.Raw)
	}
}
