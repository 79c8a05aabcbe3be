package gateway

import (
	"bufio"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const mib = 1 << 20

// liveHeap collects garbage and returns the bytes still allocated.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapAlloc returns the bytes allocated now, garbage included.
func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// vmRSS returns the test process's resident set size from /proc.
func vmRSS(t testing.TB) uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatalf("read resident set size: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("parse VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS line in /proc/self/status")
	return 0
}

// peaks samples heapAlloc and vmRSS every few milliseconds until stop.
type peaks struct {
	mu        sync.Mutex
	heap, rss uint64
	done      chan struct{}
}

func samplePeaks(t testing.TB, stop <-chan struct{}) *peaks {
	p := &peaks{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			h, r := heapAlloc(), vmRSS(t)
			p.mu.Lock()
			p.heap, p.rss = max(p.heap, h), max(p.rss, r)
			p.mu.Unlock()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// sendHugeFrame opens a connection, declares a frame of size bytes and sends
// its body as fast as the gateway takes it, for at most d. It returns how
// many body bytes went out and whether the gateway cut the connection (a
// write failing other than by the deadline).
func sendHugeFrame(addr string, size int, d time.Duration) (sent int, cut bool, err error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(d))
	chunk := make([]byte, 256<<10)
	_, err = c.Write(binary.BigEndian.AppendUint32(nil, uint32(size)))
	for err == nil && sent < size {
		var n int
		n, err = c.Write(chunk[:min(len(chunk), size-sent)])
		sent += n
	}
	var ne net.Error
	return sent, err != nil && !(errors.As(err, &ne) && ne.Timeout()), nil
}
