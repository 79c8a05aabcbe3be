package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// version prints the module version and the commit the binary was built
// from, as the go command recorded them in it (runtime/debug.ReadBuildInfo).
func version(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version takes no arguments, got %q", fs.Arg(0))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("read build info: the binary carries none (built without module support?)")
	}
	_, err := fmt.Fprintln(stdout, versionLine(info))
	return err
}

// versionLine renders build information as one line:
//
//	fabric-emulator v1.2.3 (commit 0123abc…, go1.26.8)
//	fabric-emulator (devel) (commit 0123abc…, modified, go1.26.8)
//	fabric-emulator (devel) (go1.26.8)
//
// The version is the main module's: a tag or pseudo-version for a binary
// built by `go install …@version` (or by `go build` in a checkout, which
// stamps one from the commit), "(devel)" when the go command had none to
// give. The commit is vcs.revision, "modified" when vcs.modified says the
// checkout had uncommitted changes; both are absent from a binary built
// outside a checkout or with -buildvcs=false.
func versionLine(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	detail := info.GoVersion
	if revision != "" {
		commit := "commit " + revision
		if modified == "true" {
			commit += ", modified"
		}
		detail = commit + ", " + detail
	}
	return fmt.Sprintf("fabric-emulator %s (%s)", v, detail)
}
