package docs

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docEmulator is a fresh fabric-emulator the runnable blocks talk to.
type docEmulator struct {
	bin  string // the binary, built once from this checkout
	addr string // host:port of the HTTP API
	env  []string
}

var readyRE = regexp.MustCompile(`ready at https?://(\S+)`)

// buildEmulator builds the binary once into a temporary directory.
func buildEmulator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fabric-emulator")
	build := exec.Command("go", "build", "-o", bin, "./emulator/cmd/fabric-emulator")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fabric-emulator: %v\n%s", err, out)
	}
	return bin
}

// startEmulator starts bin on free loopback ports with a temporary data
// directory and the embedded broker, for one block.
func startEmulator(t *testing.T, bin string) *docEmulator {
	t.Helper()
	dir := t.TempDir()
	endpoint := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--kafka", "embedded",
		"--kafka-endpoint", endpoint, "--amqp-endpoint", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("pipe emulator output: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	addr, err := waitReady(stdout, 30*time.Second)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	e := &docEmulator{bin: bin, addr: addr}
	e.env = append(os.Environ(),
		"FABRIC_EMULATOR_ADDR="+addr,
		"FABRIC_EMULATOR_URL=http://"+addr,
		"FABRICTEST_KAFKA=embedded",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return e
}

// freePort returns a loopback address no one listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitReady reads the emulator's output up to its ready line and returns
// the API's address; the rest of the output is drained in the background.
func waitReady(r interface{ Read([]byte) (int, error) }, timeout time.Duration) (string, error) {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			if m := readyRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			return "", fmt.Errorf("it exited before its ready line")
		}
		return addr, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("no ready line within %s", timeout)
	}
}

// rewrite points a block at this emulator: the API's default address
// becomes its own, and `go run` of the emulator the binary built once.
// The pages assume the custom endpoint on its default port, 9093, where a
// connection string's namespace is the bare host and clients append
// ":9093"; on any other port the namespace is host:port already, so an
// appended "):9093" (after a command substitution) is dropped.
func (e *docEmulator) rewrite(code string) string {
	return strings.NewReplacer(
		"127.0.0.1:5080", e.addr,
		"):9093", ")",
		"go run ./emulator/cmd/fabric-emulator", e.bin,
	).Replace(code)
}

// setupScript defines the variables the pages take from the curl
// walkthrough (docs/api.md) without repeating it: TOKEN, H and API, a
// workspace WS, an Eventstream ID with a CustomEndpoint source SRC and
// its default stream DS, and CONN, a data connection id to register.
const setupScript = `
TOKEN=$(fabric-emulator token); H="Authorization: Bearer $TOKEN"
API=http://127.0.0.1:5080/v1
WS=$(curl -sf -XPOST $API/workspaces -H "$H" -H 'Content-Type: application/json' -d '{"displayName":"docs"}' | jq -r .id)
TOPOLOGY='{"sources":[{"name":"app","type":"CustomEndpoint","properties":{}}],"streams":[{"name":"s","type":"DefaultStream","properties":{},"inputNodes":[{"name":"app"}]}]}'
ES=$(curl -sf -XPOST $API/workspaces/$WS/eventstreams -H "$H" -H 'Content-Type: application/json' -d '{"displayName":"orders",
  "definition":{"parts":[{"path":"eventstream.json","payload":"'$(printf '%s' "$TOPOLOGY" | base64 -w0)'","payloadType":"InlineBase64"}]}}')
ID=$(echo "$ES" | jq -r .id); DS=$(echo "$ES" | jq -r '.properties.streams[0].id')
SRC=$(curl -sf $API/workspaces/$WS/eventstreams/$ID/topology -H "$H" | jq -r '.sources[0].id')
CONN=$(cat /proc/sys/kernel/random/uuid)
for v in TOKEN H API WS ID DS SRC CONN; do printf '%s=%s\n' "$v" "${!v}"; done
`

// setup runs setupScript and adds the variables it printed to the
// environment of every block.
func (e *docEmulator) setup(t *testing.T) {
	t.Helper()
	out, err := e.shell(context.Background(), setupScript)
	if err != nil {
		t.Fatalf("define the pages' variables: %v\n%s", err, out)
	}
	for _, l := range nonBlank(out) {
		k, v, ok := strings.Cut(l, "=")
		if !ok || v == "" || v == "null" {
			t.Fatalf("define the pages' variables: %q has no value\n%s", k, out)
		}
		e.env = append(e.env, k+"="+v)
	}
}

// shell runs code, rewritten for this emulator, with bash -euo pipefail in
// the module root and returns its stdout; the error holds its stderr.
func (e *docEmulator) shell(ctx context.Context, code string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", e.rewrite(code))
	return e.output(cmd)
}

// output runs cmd in the module root with the blocks' environment.
func (e *docEmulator) output(cmd *exec.Cmd) (string, error) {
	cmd.Dir = ".."
	cmd.Env = e.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second // a killed bash may leave children holding its output
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%w; stderr:\n%s", err, stderr.String())
	}
	return string(out), nil
}
