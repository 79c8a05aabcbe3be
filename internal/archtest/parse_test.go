package archtest

import (
	"reflect"
	"strings"
	"testing"
)

const sampleDoc = `# page

| rule | packages | must not import | files |
|---|---|---|---|
| no doors | ` + "`./a/run/...`, `./a/ctl`" + ` | ` + "`./a/api/...`, `net/http/...`" + ` | code and tests |
| doors alone | ` + "`./a/door/...`" + ` | ` + "`./...`" + ` | code |

### Known exceptions

| package | import | why |
|:--|:--|--|
| ` + "`./a/ctl`" + ` | ` + "`net/http`" + ` | until it moves |
`

func TestParseDocReadsRulesAndExceptions(t *testing.T) {
	rules, excs, err := parseDoc(sampleDoc)
	if err != nil {
		t.Fatal(err)
	}
	want := []rule{
		{name: "no doors", packages: []string{"./a/run/...", "./a/ctl"},
			forbidden: []string{"./a/api/...", "net/http/..."}, tests: true, line: 5},
		{name: "doors alone", packages: []string{"./a/door/..."}, forbidden: []string{"./..."}, line: 6},
	}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("rules:\n got %+v\nwant %+v", rules, want)
	}
	wantExc := []exception{{pkg: "./a/ctl", imp: "net/http", why: "until it moves", line: 12}}
	if !reflect.DeepEqual(excs, wantExc) {
		t.Errorf("exceptions:\n got %+v\nwant %+v", excs, wantExc)
	}
}

func TestParseDocRefusesWhatItCannotRead(t *testing.T) {
	head := "| rule | packages | must not import | files |\n|---|---|---|---|\n"
	for name, tc := range map[string]struct{ doc, msg string }{
		"no table":        {"# nothing here\n", "no rule table"},
		"empty table":     {head, "no rule table"},
		"missing cell":    {head + "| r | `./a` | `./b` |\n", "want 4 cells"},
		"bare pattern":    {head + "| r | ./a | `./b` | code |\n", "is not a `pattern`"},
		"std as package":  {head + "| r | `net/http` | `./b` | code |\n", "want a module path"},
		"dots inside":     {head + "| r | `./a/.../b` | `./b` | code |\n", "only as the last element"},
		"relative import": {head + "| r | `./a` | `../b` | code |\n", "starts with ./"},
		"unknown files":   {head + "| r | `./a` | `./b` | tests |\n", "want \"code\""},
		"nameless rule":   {head + "|  | `./a` | `./b` | code |\n", "no name"},
		"two tables":      {head + "| r | `./a` | `./b` | code |\n\n" + head + "| r | `./a` | `./b` | code |\n", "a second rule table"},
		"exception tree": {head + "| r | `./a` | `./b` | code |\n\n| package | import | why |\n|---|---|---|\n" +
			"| `./a/...` | `./b` | x |\n", "want one package"},
		"exception no why": {head + "| r | `./a` | `./b` | code |\n\n| package | import | why |\n|---|---|---|\n" +
			"| `./a` | `./b` |  |\n", "needs a reason"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseDoc(tc.doc)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got error %v, want one containing %q", err, tc.msg)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"./emulator", "./emulator", true},
		{"./emulator", "./emulator/rows", false},
		{"./emulator/internal/...", "./emulator/internal", true},
		{"./emulator/internal/...", "./emulator/internal/api", true},
		{"./emulator/internal/...", "./emulator/internals", false},
		{"./emulator/internal/...", "./emulator", false},
		{"./...", "./emulator/internal/api", true},
		{"./...", ".", true},
		{"./...", "net/http", false},
		{"net/http/...", "net/http", true},
		{"net/http/...", "net/http/httptest", true},
		{"net/http/...", "net/https", false},
		{"net/http", "net/http/httptest", false},
	} {
		if got := matches(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matches(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestRelative(t *testing.T) {
	const mod = "example.com/m"
	for in, want := range map[string]string{
		"example.com/m":         ".",
		"example.com/m/a/b":     "./a/b",
		"example.com/mm/a":      "example.com/mm/a",
		"net/http":              "net/http",
		"example.com/m_test/x":  "example.com/m_test/x",
		"example.com/m/a/b_bis": "./a/b_bis",
	} {
		if got := relative(mod, in); got != want {
			t.Errorf("relative(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseDoc(f *testing.F) {
	f.Add(sampleDoc)
	f.Add("| rule | packages | must not import | files |\n|---|---|---|---|\n| r | `./...` | `x` | code |\n")
	f.Add("|a|\n|-|\n|")
	f.Fuzz(func(t *testing.T, doc string) {
		rules, excs, err := parseDoc(doc)
		if err != nil {
			if rules != nil || excs != nil {
				t.Fatalf("error %v with results", err)
			}
			return
		}
		if len(rules) == 0 {
			t.Fatal("no error and no rules")
		}
		for _, r := range rules {
			if r.name == "" || len(r.packages) == 0 || len(r.forbidden) == 0 {
				t.Fatalf("incomplete rule %+v", r)
			}
			for _, p := range append(append([]string{}, r.packages...), r.forbidden...) {
				if err := checkPattern(p, false); err != nil {
					t.Fatalf("rule %+v holds a pattern the parser should have refused: %v", r, err)
				}
			}
		}
	})
}
