package grpcfastbench

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
)

// skipLines returns what Run says about the paths it does not run: one line
// per reason and set of paths, in the order first met, naming the methods
// (up to maxSkipNames), only for the methods and paths that selected
// reports the -bench filter selects. why(p, m) says why paths[p] does not
// run methods[m], or "" if it does or stays quiet about it.
func skipLines(service string, methods, paths []string, why func(p, m int) string, selected func(m, p int) bool) []string {
	type group struct {
		why, paths string
		methods    []string
	}
	var groups []*group
	for m, name := range methods {
		// This method's skipped paths, by reason.
		var reasons []string
		byReason := map[string][]string{}
		for p := range paths {
			w := why(p, m)
			if w == "" || !selected(m, p) {
				continue
			}
			if byReason[w] == nil {
				reasons = append(reasons, w)
			}
			byReason[w] = append(byReason[w], "codec="+paths[p])
		}
		for _, w := range reasons {
			ps := strings.Join(byReason[w], " or ")
			i := 0
			for i < len(groups) && (groups[i].why != w || groups[i].paths != ps) {
				i++
			}
			if i == len(groups) {
				groups = append(groups, &group{why: w, paths: ps})
			}
			groups[i].methods = append(groups[i].methods, name)
		}
	}
	var lines []string
	for _, g := range groups {
		if len(g.methods) == 1 {
			lines = append(lines, fmt.Sprintf("no %s for %s/%s: %s", g.paths, service, g.methods[0], g.why))
			continue
		}
		list := strings.Join(g.methods, ", ")
		if len(g.methods) > maxSkipNames {
			list = fmt.Sprintf("%s and %d more", strings.Join(g.methods[:maxSkipNames], ", "), len(g.methods)-maxSkipNames)
		}
		lines = append(lines, fmt.Sprintf("no %s for %d methods of %s (%s): %s", g.paths, len(g.methods), service, list, g.why))
	}
	return lines
}

// maxSkipNames bounds the methods one line of skipLines names.
const maxSkipNames = 8

// benchFilter returns the -test.bench pattern of this run ("" inside
// testing.Benchmark's callers that set none).
func benchFilter() string {
	if f := flag.Lookup("test.bench"); f != nil {
		return f.Value.String()
	}
	return ""
}

// benchSelects reports whether go test runs the benchmark whose name, level
// by level, is names (the top-level benchmark first) under -bench pattern:
// the pattern splits into one unanchored regexp per level at slashes outside
// brackets and parentheses, as the testing package splits it, and levels
// past the pattern's are selected. An empty pattern selects everything (a
// run through testing.Benchmark); a pattern that does not compile, nothing.
func benchSelects(pattern string, names ...string) bool {
	if pattern == "" {
		return true
	}
	for i, elem := range splitPattern(pattern) {
		if i >= len(names) {
			break
		}
		re, err := regexp.Compile(elem)
		if err != nil || !re.MatchString(names[i]) {
			return false
		}
	}
	return true
}

// splitPattern splits a -bench pattern into its levels, as the testing
// package's splitRegexp does.
func splitPattern(s string) []string {
	var out []string
	cs, cp := 0, 0 // depth of brackets and parentheses
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
