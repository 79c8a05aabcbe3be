package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// buildTags are the build configurations whose imports are checked: the
// default build, and the one that turns on the files behind the container
// and race tags (none of the module's files needs the absence of both).
var buildTags = []string{"", "container,race"}

// pkg is one package of the module with its direct imports, written as the
// rule table writes them.
type pkg struct {
	path  string          // "./emulator/internal/api"
	code  map[string]bool // imports of its non-test files
	tests map[string]bool // imports of its test files (in-package and external)
}

// module is the module's root folder, its path and its packages by path.
type module struct {
	root, path string
	pkgs       map[string]*pkg
}

// listed is the part of `go list -json` output the check reads.
type listed struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Module                             *struct{ Path, Dir string }
}

// loadModule lists the packages of the module that holds dir, under every
// build configuration of buildTags.
func loadModule(dir string) (*module, error) {
	gomod, err := goCmd(dir, "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	gomod = strings.TrimSpace(gomod)
	if gomod == "" || gomod == "/dev/null" {
		return nil, fmt.Errorf("find module: %s is not inside a module", dir)
	}
	m := &module{root: filepath.Dir(gomod), pkgs: map[string]*pkg{}}
	for _, tags := range buildTags {
		out, err := goCmd(m.root, "list", "-tags="+tags,
			"-json=ImportPath,Imports,TestImports,XTestImports,Module", "./...")
		if err != nil {
			return nil, err
		}
		if err := m.add(out); err != nil {
			return nil, fmt.Errorf("read go list (tags %q): %w", tags, err)
		}
	}
	if len(m.pkgs) == 0 {
		return nil, errors.New("go list found no packages")
	}
	return m, nil
}

// add merges one `go list -json` stream into m.
func (m *module) add(out string) error {
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		if l.Module == nil {
			return fmt.Errorf("package %s has no module", l.ImportPath)
		}
		if m.path == "" {
			m.path = l.Module.Path
		}
		rel := relative(m.path, l.ImportPath)
		p := m.pkgs[rel]
		if p == nil {
			p = &pkg{path: rel, code: map[string]bool{}, tests: map[string]bool{}}
			m.pkgs[rel] = p
		}
		for _, i := range l.Imports {
			p.code[relative(m.path, i)] = true
		}
		for _, i := range append(l.TestImports, l.XTestImports...) {
			p.tests[relative(m.path, i)] = true
		}
	}
}

// sorted returns the packages in path order.
func (m *module) sorted() []*pkg {
	out := make([]*pkg, 0, len(m.pkgs))
	for _, p := range m.pkgs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("run go %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}
