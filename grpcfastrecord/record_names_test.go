package grpcfastrecord

import "testing"

// TestSplitMethod: a full method name whose service or method would not
// name a directory of its own under the corpus ("." or "..", which openat
// resolves to the corpus or its parent, a separator, a NUL, nothing) is
// not recorded.
func TestSplitMethod(t *testing.T) {
	for full, want := range map[string]bool{
		"/pkg.Service/Method": true,
		"/a..b/Method":        true,
		"/./..":               false,
		"/pkg.Service/..":     false,
		"/pkg.Service/.":      false,
		"/../Method":          false,
		"/./Method":           false,
		"/pkg.Service/a/b":    false,
		"/pkg\\x/Method":      false,
		"/pkg.Service/a\x00":  false,
		"/pkg.Service/":       false,
		"//Method":            false,
		"pkg.Service/Method":  false,
	} {
		if _, _, ok := splitMethod(full); ok != want {
			t.Errorf("splitMethod(%q): ok %v, want %v", full, ok, want)
		}
	}
}
