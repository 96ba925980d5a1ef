package grpcfast_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocLinks checks that every relative link in README.md and docs/*.md
// points to a file or directory that exists and, for a #anchor into one of
// our Markdown files, to a heading of that file, so that moving a section
// cannot break a link silently.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md: run the test from the repository's root")
	}
	pages = append([]string{"README.md"}, pages...)
	links := 0
	for _, page := range pages {
		n, problems := checkDocLinks(page)
		links += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	if links == 0 {
		t.Error("found no relative links at all: the link parser is broken")
	}
}

// TestDocLinksCatchesBrokenLinks makes sure that checkDocLinks reports a
// missing file, a missing heading, and a heading inside a code block.
func TestDocLinksCatchesBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("other.md", "# Other page\n\n## The `Release` rules: what holds\n\n```sh\n# not a heading\n```\n")
	write("page.md", strings.Join([]string{
		"# Page",
		"[ok](other.md) [ok](other.md#other-page) [ok](other.md#the-release-rules-what-holds)",
		"[ok](#page) [ok](https://example.com/nowhere.md) `[in code](missing-in-code.md)`",
		"[missing file](missing.md) [missing heading](other.md#nowhere)",
		"[not a heading](other.md#not-a-heading) [missing here](#nowhere)",
		"```",
		"[in a block](missing-in-block.md)",
		"```",
	}, "\n"))
	n, problems := checkDocLinks(filepath.Join(dir, "page.md"))
	if n != 8 {
		t.Errorf("checked %d links, want 8", n)
	}
	want := []string{"missing.md", "other.md#nowhere", "other.md#not-a-heading", "#nowhere"}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d (%q):\n%s", len(problems), len(want), want, strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(problems[i], "("+w+")") {
			t.Errorf("problem %d = %q, want one about %s", i, problems[i], w)
		}
	}
}

var (
	mdLink       = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdCodeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdScheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	anchorDelete = regexp.MustCompile(`[^\p{L}\p{M}\p{N}\p{Pc} -]`)
)

// checkDocLinks returns how many relative links page has (outside code) and
// what is wrong with them.
func checkDocLinks(page string) (n int, problems []string) {
	text, err := os.ReadFile(page)
	if err != nil {
		return 0, []string{err.Error()}
	}
	for i, line := range proseLines(string(text)) {
		if line == "" {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(mdCodeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if mdScheme.MatchString(target) {
				continue // http:, https:, mailto: ...
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(dest); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %v", page, i+1, target, err))
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			anchors, err := mdAnchors(dest)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %v", page, i+1, target, err))
			} else if !anchors[anchor] {
				problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %s has no heading with that anchor", page, i+1, target, dest))
			}
		}
	}
	return n, problems
}

// proseLines returns the lines of a Markdown text, with those of fenced
// code blocks (and the fences) blanked, so that line numbers still match.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// mdAnchors returns the anchors GitHub gives the headings of a Markdown
// file: the heading's text without its Markdown, lower-cased, without
// punctuation other than '-' and '_', spaces turned into '-', and "-1",
// "-2"... after repeats.
func mdAnchors(path string) (map[string]bool, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(string(text)) {
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		title := mdLink.ReplaceAllStringFunc(m[1], func(link string) string {
			return link[1:strings.Index(link, "](")]
		})
		title = strings.NewReplacer("`", "", "*", "").Replace(title)
		a := strings.ReplaceAll(anchorDelete.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		if k := seen[a]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, nil
}
