package archtest

import "strings"

// matches reports whether path matches pattern. Module paths are written
// "./dir/pkg" (the module root is "."), standard library paths as they are;
// a trailing "/..." matches the path before it and everything below it, so
// "./..." matches every package of the module.
func matches(pattern, path string) bool {
	base, tree := strings.CutSuffix(pattern, "/...")
	if !tree {
		return path == pattern
	}
	if base == "." {
		return path == "." || strings.HasPrefix(path, "./")
	}
	return path == base || strings.HasPrefix(path, base+"/")
}

// matchAny returns the first of patterns that path matches, and whether one
// did.
func matchAny(patterns []string, path string) (string, bool) {
	for _, p := range patterns {
		if matches(p, path) {
			return p, true
		}
	}
	return "", false
}

// relative writes importPath the way the rule table does: a package of
// module as "./dir/pkg" (the root as "."), anything else unchanged.
func relative(module, importPath string) string {
	if importPath == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, module+"/"); ok {
		return "./" + rest
	}
	return importPath
}
