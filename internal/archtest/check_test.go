package archtest

import (
	"reflect"
	"testing"
)

// graph builds packages from "path: code imports | test imports" lines.
func graph(edges map[string][2][]string) []*pkg {
	var out []*pkg
	for path, e := range edges {
		p := &pkg{path: path, code: map[string]bool{}, tests: map[string]bool{}}
		for _, i := range e[0] {
			p.code[i] = true
		}
		for _, i := range e[1] {
			p.tests[i] = true
		}
		out = append(out, p)
	}
	return out
}

func TestCheckNamesEveryForbiddenImport(t *testing.T) {
	rules := []rule{
		{name: "no doors", packages: []string{"./e/internal/runtime/..."},
			forbidden: []string{"./e/internal/api/...", "./e/internal/portal/..."}, tests: true, line: 3},
		{name: "no http", packages: []string{"./e/internal/control/..."}, forbidden: []string{"net/http/..."}, line: 4},
		{name: "door alone", packages: []string{"./e/internal/gateway/..."}, forbidden: []string{"./..."}, line: 5},
	}
	pkgs := graph(map[string][2][]string{
		"./e/internal/runtime":      {{"./e/internal/store", "./e/internal/api"}, {"./e/internal/portal"}},
		"./e/internal/runtime/sub":  {{"./e/internal/runtime"}, nil},
		"./e/internal/control":      {{"net/http/httptest"}, {"net/http"}},
		"./e/internal/gateway":      {{"./e/internal/gateway/sasl", "net"}, {"./e/internal/broker"}},
		"./e/internal/gateway/sasl": {{"./e/internal/broker"}, nil},
		"./e/internal/api":          {{"./e/internal/runtime", "net/http"}, nil},
	})
	got, stale := check(rules, nil, pkgs)
	var names []string
	for _, v := range got {
		names = append(names, v.String())
	}
	want := []string{
		`./e/internal/runtime imports ./e/internal/api: breaks "no doors" (docs/architecture.md:3)`,
		`./e/internal/runtime imports ./e/internal/portal (in its tests): breaks "no doors" (docs/architecture.md:3)`,
		`./e/internal/control imports net/http/httptest: breaks "no http" (docs/architecture.md:4)`,
		`./e/internal/gateway/sasl imports ./e/internal/broker: breaks "door alone" (docs/architecture.md:5)`,
	}
	if !reflect.DeepEqual(sortedCopy(names), sortedCopy(want)) {
		t.Errorf("violations:\n got %q\nwant %q", names, want)
	}
	if stale != nil {
		t.Errorf("stale exceptions %v with none given", stale)
	}
}

func TestCheckAllowsExceptionsAndReportsStaleOnes(t *testing.T) {
	rules := []rule{{name: "up", packages: []string{"./e/internal/..."}, forbidden: []string{"./e"}, tests: true, line: 7}}
	pkgs := graph(map[string][2][]string{
		"./e/internal/portal": {nil, {"./e"}},
		"./e/internal/api":    {nil, nil},
	})
	excs := []exception{
		{pkg: "./e/internal/portal", imp: "./e", line: 10},
		{pkg: "./e/internal/api", imp: "./e", line: 11},
	}
	got, stale := check(rules, excs, pkgs)
	if len(got) != 0 {
		t.Errorf("violations %v, want none: the portal's import is excepted", got)
	}
	if want := excs[1:]; !reflect.DeepEqual(stale, want) {
		t.Errorf("stale %+v, want %+v", stale, want)
	}
}

func TestCheckPassesRuleAboutAbsentPackage(t *testing.T) {
	rules := []rule{{name: "no http", packages: []string{"./e/internal/control/..."}, forbidden: []string{"net/http/..."}}}
	pkgs := graph(map[string][2][]string{"./e/internal/api": {{"net/http"}, nil}})
	if got, _ := check(rules, nil, pkgs); len(got) != 0 {
		t.Errorf("violations %v for a rule whose package does not exist", got)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
