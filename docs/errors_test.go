package docs

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

var updateErrors = flag.Bool("update-errors", false, "rewrite error-codes.md's table from emulator/wire/codes.go")

const (
	errorsPage  = "error-codes.md"
	errorsBegin = "<!-- error codes: generated from emulator/wire/codes.go by TestErrorCodeTable; `go test ./docs -run TestErrorCodeTable -update-errors` rewrites it -->"
	errorsEnd   = "<!-- end of error codes -->"
)

// TestErrorCodeTable fails when error-codes.md's table is not the one the
// wire catalogue makes: every code, in the catalogue's order, with its
// group and the note its declaration carries.
func TestErrorCodeTable(t *testing.T) {
	want := errorCodeTable(t)
	page, err := os.ReadFile(errorsPage)
	if err != nil {
		t.Fatalf("read %s: %v", errorsPage, err)
	}
	before, rest, ok1 := strings.Cut(string(page), errorsBegin+"\n")
	got, after, ok2 := strings.Cut(rest, errorsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q … %q", errorsPage, errorsBegin, errorsEnd)
	}
	if got == want {
		return
	}
	if *updateErrors {
		if err := os.WriteFile(errorsPage, []byte(before+errorsBegin+"\n"+want+errorsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table differs from emulator/wire/codes.go; rewrite it with\n  go test ./docs -run TestErrorCodeTable -update-errors\n--- page\n%s--- code\n%s", errorsPage, got, want)
}

// errorCodeTable renders the constants of type ErrorCode in codes.go as a
// Markdown table: the group is the comment that opens a run of codes.
func errorCodeTable(t *testing.T) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../emulator/wire/codes.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatalf("parse codes.go: %v", err)
	}
	var b strings.Builder
	b.WriteString("| code | group | note |\n|---|---|---|\n")
	n := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		group := firstSentence(gd.Doc)
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ErrorCode" || len(vs.Values) != 1 {
				continue
			}
			note := ""
			if vs.Doc != nil {
				// A doc that starts with the name describes the code; any
				// other opens a group of codes.
				if text := oneLine(vs.Doc); strings.HasPrefix(text, vs.Names[0].Name+" ") {
					note = text
				} else {
					group = firstSentence(vs.Doc)
				}
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s: the code is not a string literal", fset.Position(vs.Pos()))
			}
			code, _ := strconv.Unquote(lit.Value)
			if vs.Comment != nil {
				note = oneLine(vs.Comment)
			}
			b.WriteString("| `" + code + "` | " + group + " | " + strings.ReplaceAll(note, "|", `\|`) + " |\n")
			n++
		}
	}
	if n == 0 {
		t.Fatal("no ErrorCode constants found in codes.go")
	}
	return b.String()
}

// firstSentence is a doc comment's first line, without its full stop.
func firstSentence(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(g.Text()), "\n")
	return strings.TrimSuffix(line, ".")
}

// oneLine is a comment's text on one line.
func oneLine(g *ast.CommentGroup) string {
	return strings.Join(strings.Fields(g.Text()), " ")
}
