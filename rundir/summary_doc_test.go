package rundir_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/rundir"
)

// summaryFieldsHeading starts the README's table of summary.json's fields.
const summaryFieldsHeading = "### `summary.json`, field by field"

// TestREADMEDocumentsSummary catches stale docs: the README's table of
// summary.json lists every field the file can hold (each field of Summary
// and of the objects inside it, every timing), and nothing else. A map
// with keys of the data's own (a failure reason, a setting) is one row,
// its key written <like-this>; the fields of a list's elements are
// written list[].field.
func TestREADMEDocumentsSummary(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(readme), summaryFieldsHeading)
	if !found {
		t.Fatalf("README.md has no section %q", summaryFieldsHeading)
	}
	if next := strings.Index(section, "\n#"); next >= 0 {
		section = section[:next]
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented[regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], "*")] = true
	}
	leaves, objects := map[string]bool{}, map[string]bool{}
	summaryPaths(reflect.TypeOf(rundir.Summary{}), "", leaves, objects)
	delete(leaves, "timings_seconds.*")
	objects["timings_seconds"] = true
	for _, name := range rundir.TimingNames() {
		leaves["timings_seconds."+name] = true
	}
	for _, p := range sorted(leaves) {
		if !documented[p] {
			t.Errorf("summary.json's %s is not in the README's table (%s)", p, summaryFieldsHeading)
		}
	}
	for _, p := range sorted(documented) {
		if !leaves[p] && !objects[p] {
			t.Errorf("the README's table documents %s, which summary.json does not have", p)
		}
	}
}

// summaryPaths adds the JSON paths of t's fields under prefix: values to
// leaves, objects to objects; a map's key is "*", a list's elements
// "list[]".
func summaryPaths(t reflect.Type, prefix string, leaves, objects map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct:
		if prefix != "" {
			objects[strings.TrimSuffix(prefix, ".")] = true
		}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			summaryPaths(f.Type, prefix+name+".", leaves, objects)
		}
	case t.Kind() == reflect.Map && elem(t).Kind() == reflect.Struct:
		objects[strings.TrimSuffix(prefix, ".")] = true
		summaryPaths(t.Elem(), prefix+"*.", leaves, objects)
	case t.Kind() == reflect.Map:
		objects[strings.TrimSuffix(prefix, ".")] = true
		leaves[prefix+"*"] = true
	case t.Kind() == reflect.Slice && elem(t).Kind() == reflect.Struct:
		objects[strings.TrimSuffix(prefix, ".")] = true
		summaryPaths(t.Elem(), strings.TrimSuffix(prefix, ".")+"[].", leaves, objects)
	default:
		leaves[strings.TrimSuffix(prefix, ".")] = true
	}
}

func elem(t reflect.Type) reflect.Type {
	e := t.Elem()
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
