package fabricerr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The catalogue test reads the emulator's source: every error code that
// reaches an envelope (the code argument of fabricerr.New and NotFound, the
// ErrorCode of a Detail or Error literal) must be a constant expression
// whose value is in wire.Codes, and every code of the catalogue must be
// used somewhere, so the catalogue is exactly what the emulator answers.

// module is the module path; emulatorDir is the emulator tree, from here.
const (
	module      = "github.com/fabrictest/fabrictest"
	emulatorDir = "../.."
)

// srcFile is a parsed non-test file with the directory of its package.
type srcFile struct {
	dir  string // slash path relative to the module root, e.g. emulator/internal/api
	file *ast.File
	fset *token.FileSet
}

// source parses every non-test Go file under the emulator tree.
func source(t *testing.T) []srcFile {
	t.Helper()
	fset := token.NewFileSet()
	var out []srcFile
	err := filepath.WalkDir(emulatorDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != emulatorDir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(emulatorDir, filepath.Dir(p))
		out = append(out, srcFile{dir: path.Join("emulator", filepath.ToSlash(rel)), file: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatalf("read the emulator's source: %v", err)
	}
	if len(out) < 50 {
		t.Fatalf("read only %d files under %s: wrong directory?", len(out), emulatorDir)
	}
	return out
}

// resolver evaluates the constant string expressions of the source.
type resolver struct {
	consts map[string]map[string]ast.Expr // package dir → const name → value
}

func newResolver(files []srcFile) *resolver {
	r := &resolver{consts: map[string]map[string]ast.Expr{}}
	for _, f := range files {
		for _, decl := range f.file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if r.consts[f.dir] == nil {
							r.consts[f.dir] = map[string]ast.Expr{}
						}
						r.consts[f.dir][n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return r
}

// imports maps f's import names to package dirs of this module.
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !strings.HasPrefix(p, module+"/") {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = strings.TrimPrefix(p, module+"/")
	}
	return out
}

// eval returns the string value of e in package dir (with imports), or
// false when e is not a constant string expression.
func (r *resolver) eval(dir string, imps map[string]string, e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return r.eval(dir, imps, e.X)
	case *ast.Ident:
		v, ok := r.consts[dir][e.Name]
		if !ok {
			return "", false
		}
		return r.eval(dir, imps, v)
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		if !ok || imps[pkg.Name] == "" {
			return "", false
		}
		v, ok := r.consts[imps[pkg.Name]][e.Sel.Name]
		if !ok {
			return "", false
		}
		return r.eval(imps[pkg.Name], importsOfDir(r, imps[pkg.Name]), v)
	case *ast.CallExpr: // a conversion such as string(wire.X) or wire.ErrorCode("X")
		if len(e.Args) == 1 {
			return r.eval(dir, imps, e.Args[0])
		}
	}
	return "", false
}

// dirImports holds each package dir's imports, merged over its files.
var dirImports = map[string]map[string]string{}

func importsOfDir(_ *resolver, dir string) map[string]string { return dirImports[dir] }

// codeSite is where a code reaches an envelope. forwarded marks a
// forwarder's own parameter (its callers are the sites to check).
type codeSite struct {
	at        string
	expr      ast.Expr
	forwarded bool
}

// forwarders are the functions that take an error code and write it, by
// package dir, with the code's argument index.
var forwarders = map[string]map[string]int{
	"emulator/internal/fabricerr": {"New": 1, "NotFound": 0, "Invalid": 0, "Conflict": 0, "Denied": 0},
	"emulator/internal/portal":    {"newAPIError": 1},
	"emulator/internal/cdc":       {"fail": 0},
}

// sites finds, in f, the code arguments of the forwarders, the ErrorCode
// fields of fabricerr and wire literals, and what each ErrorCode method
// returns (the codes a node's error takes from the error it reports).
func sites(f srcFile, imps map[string]string) []codeSite {
	var out []codeSite
	for _, decl := range f.file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			out = append(out, sitesIn(f, imps, decl, nil)...)
			continue
		}
		var params map[string]bool
		if _, fwd := forwarders[f.dir][fd.Name.Name]; fwd && fd.Recv == nil {
			params = map[string]bool{}
			for _, fl := range fd.Type.Params.List {
				for _, n := range fl.Names {
					params[n.Name] = true
				}
			}
		}
		if fd.Recv != nil && fd.Name.Name == "ErrorCode" && fd.Body != nil {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					out = append(out, codeSite{at: f.fset.Position(r.Pos()).String(), expr: r.Results[0]})
				}
				return true
			})
		}
		out = append(out, sitesIn(f, imps, fd, params)...)
	}
	return out
}

// sitesIn finds the sites under n; params are the parameters of the
// forwarder n is (nil when it is none).
func sitesIn(f srcFile, imps map[string]string, n ast.Node, params map[string]bool) []codeSite {
	isPkg := func(x ast.Expr, dir string) bool {
		id, ok := x.(*ast.Ident)
		return ok && imps[id.Name] == dir
	}
	var out []codeSite
	add := func(n ast.Node, e ast.Expr) {
		id, isIdent := e.(*ast.Ident)
		out = append(out, codeSite{at: f.fset.Position(n.Pos()).String(), expr: e, forwarded: isIdent && params[id.Name]})
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			dir, name := "", ""
			switch fn := n.Fun.(type) {
			case *ast.SelectorExpr:
				if id, ok := fn.X.(*ast.Ident); ok && imps[id.Name] != "" {
					dir, name = imps[id.Name], fn.Sel.Name
				}
			case *ast.Ident:
				dir, name = f.dir, fn.Name
			}
			if i, ok := forwarders[dir][name]; ok && len(n.Args) > i {
				add(n, n.Args[i])
			}
		case *ast.CompositeLit:
			sel, ok := n.Type.(*ast.SelectorExpr)
			if !ok || !(isPkg(sel.X, "emulator/internal/fabricerr") || isPkg(sel.X, "emulator/wire")) {
				return true
			}
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ErrorCode" {
						add(kv, kv.Value)
					}
				}
			}
		}
		return true
	})
	return out
}

// methodCode reports whether e is x.ErrorCode() or x.ErrorCode, possibly
// converted: the code an error reports (its ErrorCode methods are sites
// themselves) or one envelope's code copied into another (checked where
// that one was made).
func methodCode(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "ErrorCode"
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "ErrorCode" && len(e.Args) == 0 {
			return true
		}
		return len(e.Args) == 1 && methodCode(e.Args[0])
	}
	return false
}

// TestEveryCodeIsCatalogued: each code the emulator can write into an
// envelope is a constant whose value is in wire.Codes.
func TestEveryCodeIsCatalogued(t *testing.T) {
	files := source(t)
	r := newResolver(files)
	for _, f := range files {
		if dirImports[f.dir] == nil {
			dirImports[f.dir] = map[string]string{}
		}
		for k, v := range imports(f.file) {
			dirImports[f.dir][k] = v
		}
	}
	n := 0
	for _, f := range files {
		for _, s := range sites(f, imports(f.file)) {
			n++
			if s.forwarded || methodCode(s.expr) {
				continue // checked where the code comes from
			}
			code, ok := r.eval(f.dir, imports(f.file), s.expr)
			if !ok {
				t.Errorf("%s: the error code is not a constant string expression; name a wire catalogue code", s.at)
				continue
			}
			if !wire.ErrorCode(code).Known() {
				t.Errorf("%s: error code %q is not in the wire catalogue (emulator/wire/codes.go)", s.at, code)
			}
		}
	}
	if n < 100 {
		t.Fatalf("found only %d places that write an error code: the scan is broken", n)
	}
	t.Logf("%d places write an error code; each is catalogued", n)
}

// TestEveryCatalogueCodeIsUsed: each catalogue code is written somewhere
// outside the wire package (a literal, or a constant naming it; fabricerr's
// own declarations of its names do not count), so the catalogue lists no
// code the emulator never answers.
func TestEveryCatalogueCodeIsUsed(t *testing.T) {
	files := source(t)
	r := newResolver(files)
	used := map[string]bool{}
	for _, f := range files {
		if f.dir == "emulator/wire" {
			continue
		}
		imps := imports(f.file)
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				return !(f.dir == "emulator/internal/fabricerr" && n.Tok == token.CONST)
			case *ast.BasicLit, *ast.SelectorExpr, *ast.Ident:
				if s, ok := r.eval(f.dir, imps, n.(ast.Expr)); ok {
					used[s] = true
				}
			}
			return true
		})
	}
	for _, c := range wire.Codes() {
		if !used[string(c)] {
			t.Errorf("catalogue code %s is answered nowhere: remove it from emulator/wire/codes.go", c)
		}
	}
}
