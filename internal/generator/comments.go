package generator

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// commentWidth is the width, in bytes and not counting the "// " prefix, at
// which generated doc comments are wrapped. Comments carried over from the
// .proto file keep their own lines.
const commentWidth = 77

// comment writes text as a // comment, wrapped at commentWidth.
func comment(g *protogen.GeneratedFile, text string) {
	for _, line := range wrap(text, commentWidth) {
		g.P("// ", line)
	}
}

// wrap splits text at spaces into lines of at most width bytes; a word longer
// than width stands on a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// article returns the article that goes before word, a Go name, in a
// generated comment: "an" before one that starts with A, E, I or O, or with
// a U that is read as a vowel (Undo, Update: an n or a p, then a consonant);
// "a" before the others (User, Unary, UUID).
func article(word string) string {
	w := strings.ToLower(word)
	switch {
	case w == "":
		return "a"
	case strings.ContainsRune("aeio", rune(w[0])):
		return "an"
	case w[0] == 'u' && len(w) > 2 && (w[1] == 'n' || w[1] == 'p') && !strings.ContainsRune("aeiouy", rune(w[2])):
		return "an"
	}
	return "a"
}

// sentenceArticle is article(word) at the start of a sentence.
func sentenceArticle(word string) string {
	if article(word) == "an" {
		return "An"
	}
	return "A"
}
