package markdown

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// render turns Markdown into HTML the way GitHub does (tables, strikethrough,
// autolinks) with raw HTML allowed, as the laxest viewers allow it.
func render(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var hostile = []string{
	"t<svg onload=alert(10)>",
	"<img src=x onerror=alert(1)>",
	"a|b",
	"``tick`",
	"`",
	" `x` ",
	"*bold* _em_ [link](javascript:alert(1)) ~~s~~ ![i](x)",
	"&lt;svg&gt;",
	"root_cause_free _em_ x__y__",
	"line\nbreak\r\x1b[31m",
	"back\\slash\\",
	"",
}

// TestQuoted renders each hostile string through a real Markdown renderer,
// in prose and in a table: the visible text is the input (control
// characters shown), and no HTML element comes from it.
func TestQuoted(t *testing.T) {
	for _, s := range hostile {
		want := strings.NewReplacer("\n", `\n`, "\r", `\r`, "\x1b", `\x1b`).Replace(s)
		for name, md := range map[string]string{
			"code":      "x " + Code(s) + " y\n",
			"text":      "x " + Text(s) + " y\n",
			"code cell": "| a | b |\n|---|---|\n| " + CodeCell(s) + " | z |\n",
			"text cell": "| a | b |\n|---|---|\n| " + Text(s) + " | z |\n",
		} {
			html := render(t, md)
			if strings.Contains(html, "<svg") || strings.Contains(html, "<img") || strings.Contains(html, "<a ") ||
				strings.Contains(html, "<em") || strings.Contains(html, "<strong") || strings.Contains(html, "<del") {
				t.Errorf("%s of %q renders markup: %s", name, s, html)
			}
			got := textOf(html)
			if strings.HasSuffix(name, "cell") {
				want := strings.TrimSpace(want) // a cell's padding is trimmed
				if n := strings.Count(html, "<td"); n != 2 {
					t.Errorf("%s of %q: %d cells, want 2: %s", name, s, n, html)
				}
				if !strings.Contains(got, want) {
					t.Errorf("%s of %q shows %q, want it to contain %q\n%s", name, s, got, want, md)
				}
				continue
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s of %q shows %q, want it to contain %q\n%s", name, s, got, want, md)
			}
		}
	}
}

var tag = regexp.MustCompile(`<[^>]*>`)

// textOf is the text a browser shows of rendered HTML.
func textOf(rendered string) string { return html.UnescapeString(tag.ReplaceAllString(rendered, "")) }

// TestForms pins the forms a reader of the raw file sees.
func TestForms(t *testing.T) {
	for _, c := range []struct{ fn, in, want string }{
		{"Code", "get_weather", "`get_weather`"},
		{"Code", "a`b", "``a`b``"},
		{"Code", "`x", "`` `x ``"},
		{"Code", "a|b", "`a|b`"},
		{"CodeCell", "a|b", "`a\\|b`"},
		{"Code", "two\nlines", "`two\\nlines`"},
		{"Text", "root_cause_free", "root_cause_free"},
		{"Text", "_em_", "\\_em\\_"},
		{"Text", "t<svg onload=alert(10)>", "t\\<svg onload=alert(10)\\>"},
		{"Text", "a|b", "a\\|b"},
	} {
		got := map[string]func(string) string{"Code": Code, "CodeCell": CodeCell, "Text": Text}[c.fn](c.in)
		if got != c.want {
			t.Errorf("%s(%q) = %q, want %q", c.fn, c.in, got, c.want)
		}
	}
}
