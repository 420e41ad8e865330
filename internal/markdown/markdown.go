package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aem-dev/aem/internal/visible"
)

// Code returns s as an inline code span for prose and lists: the span's
// fence is longer than any run of backticks in s (CommonMark), and s is
// padded with a space where it starts or ends with a backtick or a space.
func Code(s string) string { return code(visible.Line(s)) }

// CodeCell returns s as an inline code span inside a table cell: Code,
// with pipes escaped.
func CodeCell(s string) string {
	return code(strings.ReplaceAll(visible.Line(s), "|", `\|`))
}

func code(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}

// special are the characters with a meaning in Markdown inline text, and
// HTML's < and &: each is escaped with a backslash, which CommonMark
// allows before any ASCII punctuation.
const special = "\\`*_[]<>&|~!#"

// Text returns s as plain inline text, safe in prose and in a table cell:
// Markdown's punctuation escaped (an underscore inside a word, which
// cannot start emphasis, is left as it is: root_cause), control characters
// and line breaks shown.
func Text(s string) string {
	s = visible.Line(s)
	var b strings.Builder
	for i, r := range s {
		if strings.ContainsRune(special, r) && !(r == '_' && intraword(s, i)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// intraword reports whether the byte at i has a letter or digit on both
// sides.
func intraword(s string, i int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+1:])
	return wordRune(before) && wordRune(after)
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
