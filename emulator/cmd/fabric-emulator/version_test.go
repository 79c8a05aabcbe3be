package main

import (
	"bytes"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine renders each kind of build information.
func TestVersionLine(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}},
			"fabric-emulator v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, go1.26.8)"},
		{"checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}},
			"fabric-emulator (devel) (commit 0123456789abcdef0123456789abcdef01234567, modified, go1.26.8)"},
		{"no vcs, no version", debug.BuildInfo{GoVersion: "go1.26.8"},
			"fabric-emulator (devel) (go1.26.8)"},
	} {
		if got := versionLine(&c.info); got != c.want {
			t.Errorf("%s: versionLine = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestVersionRefusesArguments: a stray argument is an error, not ignored.
func TestVersionRefusesArguments(t *testing.T) {
	err := version([]string{"extra"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("version extra: err = %v, want one naming the argument", err)
	}
}

// TestVersionCommandReportsItsBuild builds the binary and runs
// `fabric-emulator version`: it prints the module version and commit that
// `go version -m` reads from the same binary (a commit only when the go
// command stamped one: a build in a git clone, not in a worktree or with
// -buildvcs=false).
func TestVersionCommandReportsItsBuild(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("fabric-emulator version: %v\n%s", err, out)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	var modVersion, revision, goVersion string
	for i, line := range strings.Split(string(meta), "\n") {
		f := strings.Fields(line)
		switch {
		case i == 0 && len(f) == 2:
			goVersion = f[1]
		case len(f) >= 3 && f[0] == "mod":
			modVersion = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if modVersion == "" || goVersion == "" {
		t.Fatalf("go version -m gave no module or Go version:\n%s", meta)
	}
	line := strings.TrimSpace(string(out))
	want := "fabric-emulator " + modVersion + " ("
	if revision != "" {
		want += "commit " + revision
	}
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, goVersion+")") {
		t.Errorf("fabric-emulator version printed %q; go version -m says module %s, commit %q, %s",
			line, modVersion, revision, goVersion)
	}
}
