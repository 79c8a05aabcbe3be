package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/running.md's flag table from serve -h")

const (
	runningPage = "../../../docs/running.md"
	tableBegin  = "<!-- serve flags: generated from `fabric-emulator serve -h` by TestServeFlagTable; `go test ./emulator/cmd/fabric-emulator -run TestServeFlagTable -update-docs` rewrites it -->"
	tableEnd    = "<!-- end of serve flags -->"
)

// usageFlag is one flag as `serve -h` prints it.
type usageFlag struct {
	name, kind, usage, env, def string
}

var (
	flagLineRE = regexp.MustCompile(`^  -(\S+)(?: (\S+))?(?:\t(.*))?$`)
	defaultRE  = regexp.MustCompile(` \(default (.*)\)$`)
	envRE      = regexp.MustCompile(` \((FABRIC_[^()]*)\)$`)
)

// parseUsage reads flag.PrintDefaults' output: a line per flag (name and
// value kind), its usage on the next line or after a tab on the same one.
func parseUsage(text string) []usageFlag {
	var flags []usageFlag
	for _, line := range strings.Split(text, "\n") {
		if m := flagLineRE.FindStringSubmatch(line); m != nil {
			flags = append(flags, usageFlag{name: m[1], kind: m[2], usage: m[3]})
			continue
		}
		if u, ok := strings.CutPrefix(line, "    \t"); ok && len(flags) > 0 {
			flags[len(flags)-1].usage = u
		}
	}
	for i := range flags {
		f := &flags[i]
		if m := defaultRE.FindStringSubmatch(f.usage); m != nil {
			f.def, f.usage = strings.Trim(m[1], `"`), strings.TrimSuffix(f.usage, m[0])
		}
		if m := envRE.FindStringSubmatch(f.usage); m != nil {
			f.env, f.usage = m[1], strings.TrimSuffix(f.usage, m[0])
		}
	}
	return flags
}

// mdEscape keeps a usage text literal in a Markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// flagTable renders the flags as the page's Markdown table.
func flagTable(flags []usageFlag) string {
	var b strings.Builder
	b.WriteString("| flag | takes | environment | default | meaning |\n|---|---|---|---|---|\n")
	for _, f := range flags {
		kind := map[string]string{"": "bool", "value": "list"}[f.kind]
		if kind == "" {
			kind = f.kind
		}
		def := f.def
		switch {
		case def != "":
			def = "`" + def + "`"
		case kind == "bool":
			def = "`false`"
		case kind == "int":
			def = "`0`"
		default:
			def = "none"
		}
		env := "—"
		if f.env != "" {
			// The variable (with its value when the usage names one) in code,
			// what follows it ("comma-separated", "turns it off") as text.
			end := strings.IndexAny(f.env, " ,")
			if end < 0 {
				end = len(f.env)
			}
			env = "`" + f.env[:end] + "`"
			if rest := strings.TrimLeft(f.env[end:], ", "); rest != "" {
				env += " (" + rest + ")"
			}
		}
		dash := "--"
		if len(f.name) == 1 {
			dash = "-"
		}
		fmt.Fprintf(&b, "| `%s%s` | %s | %s | %s | %s |\n", dash, f.name, kind, env, def, mdEscape(f.usage))
	}
	return b.String()
}

// serveHelp is what `fabric-emulator serve -h` prints with no FABRIC_
// variable set (they change the defaults shown).
func serveHelp(t *testing.T) string {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "FABRIC_") {
			t.Setenv(name, "")
		}
	}
	var help bytes.Buffer
	if err := serve([]string{"-h"}, io.Discard, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve -h: err = %v, want flag.ErrHelp", err)
	}
	return help.String()
}

// TestServeFlagTable fails when docs/running.md's flag table is not the one
// `fabric-emulator serve -h` makes; -update-docs rewrites it.
func TestServeFlagTable(t *testing.T) {
	flags := parseUsage(serveHelp(t))
	if len(flags) < 20 || flags[0].name != "addr" || flags[0].def != "127.0.0.1:5080" || flags[0].env != "FABRIC_EMULATOR_ADDR" {
		t.Fatalf("parsed %d flags from serve -h, the first %+v: is the parser broken?", len(flags), flags[0])
	}
	want := flagTable(flags)
	raw, err := os.ReadFile(runningPage)
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	page := string(raw)
	before, rest, ok1 := strings.Cut(page, tableBegin+"\n")
	got, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/running.md lacks the markers %q … %q around its flag table", tableBegin, tableEnd)
	}
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(runningPage, []byte(before+tableBegin+"\n"+want+tableEnd+after), 0o644); err != nil {
			t.Fatalf("write the page: %v", err)
		}
		return
	}
	t.Errorf("docs/running.md's flag table differs from serve -h; rewrite it with\n"+
		"  go test ./emulator/cmd/fabric-emulator -run TestServeFlagTable -update-docs\n--- page\n%s--- serve -h\n%s", got, want)
}

// TestParseUsage pins the parser on each shape PrintDefaults prints.
func TestParseUsage(t *testing.T) {
	text := "Usage of serve:\n" +
		"  -addr string\n    \tlisten address (FABRIC_EMULATOR_ADDR) (default \"127.0.0.1:5080\")\n" +
		"  -tls-san value\n    \textra names; repeatable (FABRIC_EMULATOR_TLS_SAN, comma-separated)\n" +
		"  -v\tlog more\n"
	got := parseUsage(text)
	want := []usageFlag{
		{name: "addr", kind: "string", usage: "listen address", env: "FABRIC_EMULATOR_ADDR", def: "127.0.0.1:5080"},
		{name: "tls-san", kind: "value", usage: "extra names; repeatable", env: "FABRIC_EMULATOR_TLS_SAN, comma-separated"},
		{name: "v", usage: "log more"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseUsage:\n got %+v\nwant %+v", got, want)
	}
}
