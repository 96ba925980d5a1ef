package generator

import (
	"strings"
	"testing"
)

func TestArticle(t *testing.T) {
	for word, want := range map[string]string{
		"Alpha":       "an",
		"Execution":   "an",
		"Images":      "an",
		"Operations":  "an",
		"Update":      "an",
		"Undo":        "an",
		"actionCache": "an",
		"User":        "a",
		"Unary":       "a",
		"Unit":        "a",
		"UUID":        "a",
		"Chunk":       "a",
		"Receiver":    "a",
		"":            "a",
	} {
		if got := article(word); got != want {
			t.Errorf("article(%q) = %q, want %q", word, got, want)
		}
		if got, want := sentenceArticle(word), strings.ToUpper(want[:1])+want[1:]; got != want {
			t.Errorf("sentenceArticle(%q) = %q, want %q", word, got, want)
		}
	}
}
