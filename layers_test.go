package aem

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/aem-dev/aem"

// layers gives each folder of the module its layer (see doc.go): a
// package is in the layer of the longest prefix of its path listed here,
// and may import packages of its own layer or lower ones.
var layers = map[string]int{
	"internal":     0,
	"metrics":      1,
	"tooldef":      1,
	"thresholds":   1,
	"chart":        1,
	"embed":        2,
	"judge":        2,
	"diskcache":    2,
	"models":       2,
	"home":         2,
	"input":        3,
	"datasets":     3,
	"rundir":       4,
	"batch":        5,
	"results":      6,
	"cmd":          7,
	"" /* root */ : 7,
}

// testExceptions are the upward imports test files may make, each with its
// reason: "package -> import".
var testExceptions = map[string]string{
	// scripts/bench-embed ceiling: the raw-model ceiling embeds the strings
	// of a golden dataset with embed's internals.
	"embed -> input/golden": "TestCeilingTool reads the benchmark's dataset",
}

// pure lists the folders whose non-test files may do no I/O: the standard
// library packages they must not import.
var pure = map[string][]string{
	"metrics": {"os", "os/exec", "net", "net/http", "io/fs", "io/ioutil", "path/filepath", "syscall", "unsafe"},
}

// layerOf returns the layer of a package path relative to the module, and
// the table entry that decided it.
func layerOf(pkg string) (int, string, bool) {
	best, found := "", false
	for prefix := range layers {
		if (pkg == prefix || prefix != "" && strings.HasPrefix(pkg, prefix+"/")) && (!found || len(prefix) > len(best)) {
			best, found = prefix, true
		}
	}
	return layers[best], best, found
}

// imports maps each package folder (relative to the module) to the
// imports of its files: module imports relative to the module, standard
// library ones as written; test files are kept apart.
type imports struct {
	files, tests map[string][]string
}

// violations returns one line per import that breaks the layers (a
// package importing a higher layer, a pure package importing I/O, or a
// folder the table does not place).
func violations(im imports) []string {
	var out []string
	check := func(pkg string, deps []string, test bool) {
		layer, _, ok := layerOf(pkg)
		if !ok {
			out = append(out, pkg+": not placed in a layer (add it to layers in layers_test.go and doc.go)")
			return
		}
		for _, d := range deps {
			rel, inModule := strings.CutPrefix(d, module+"/")
			if !inModule {
				for prefix, banned := range pure {
					if !test && (pkg == prefix || strings.HasPrefix(pkg, prefix+"/")) && slices.Contains(banned, d) {
						out = append(out, pkg+" imports "+d+": "+prefix+" is pure (no I/O)")
					}
				}
				continue
			}
			if _, ok := testExceptions[pkg+" -> "+rel]; ok && test {
				continue
			}
			if dl, _, _ := layerOf(rel); dl > layer {
				out = append(out, pkg+" (layer "+strconv.Itoa(layer)+") imports "+rel+" (layer "+strconv.Itoa(dl)+")")
			}
		}
	}
	for _, pkg := range sortedKeys(im.files) {
		check(pkg, im.files[pkg], false)
	}
	for _, pkg := range sortedKeys(im.tests) {
		check(pkg, im.tests[pkg], true)
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readImports parses the imports of every Go file under root.
func readImports(t *testing.T, root string) imports {
	t.Helper()
	im := imports{files: map[string][]string{}, tests: map[string][]string{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "out" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := path.Clean(filepath.ToSlash(rel))
		if pkg == "." {
			pkg = ""
		}
		into := im.files
		if strings.HasSuffix(name, "_test.go") {
			into = im.tests
		}
		for _, s := range f.Imports {
			v, _ := strconv.Unquote(s.Path.Value)
			into[pkg] = append(into[pkg], v)
		}
		if _, ok := into[pkg]; !ok {
			into[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// TestLayers holds every package of the module to the layers of doc.go.
func TestLayers(t *testing.T) {
	im := readImports(t, ".")
	if len(im.files) < 30 {
		t.Fatalf("found %d packages; expected the whole module", len(im.files))
	}
	for _, v := range violations(im) {
		t.Error(v)
	}
}

// TestLayersCatchPlantedImports is the test of the test: a tree with an
// upward import, an I/O import in metrics and an unplaced folder is
// refused, each with its own line, while test files may use os.
func TestLayersCatchPlantedImports(t *testing.T) {
	root := t.TempDir()
	plant := func(file, src string) {
		p := filepath.Join(root, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("metrics/a.go", "package metrics\nimport (\n\"os\"\n_ \""+module+"/batch\"\n)\nvar _ = os.Getenv\n")
	plant("metrics/a_test.go", "package metrics\nimport \"os\"\nvar _ = os.Getenv\n")
	plant("rundir/b.go", "package rundir\nimport (\n_ \""+module+"/input/golden\"\n_ \""+module+"/results/report\"\n)\n")
	plant("input/golden/c_test.go", "package golden\nimport _ \""+module+"/rundir\"\n")
	plant("gadgets/d.go", "package gadgets\n")
	got := violations(readImports(t, root))
	want := []string{
		"gadgets: not placed in a layer (add it to layers in layers_test.go and doc.go)",
		"metrics imports os: metrics is pure (no I/O)",
		"metrics (layer 1) imports batch (layer 5)",
		"rundir (layer 4) imports results/report (layer 6)",
		"input/golden (layer 3) imports rundir (layer 4)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestREADMEMapMatchesTree holds the README's map of the packages
// (Development) to the tree: every entry is a package folder, in the layer
// the table gives it, and every package is an entry or named on the line of
// the entry above it (models/usetok on models' line).
func TestREADMEMapMatchesTree(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```\nlayer 0 ")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("README.md: no map of the packages (a block starting \"layer 0\")")
	}
	lines := map[string]string{} // entry -> its line
	layer := 0
	for _, line := range strings.Split("layer 0 "+block, "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "layer" {
			layer, _ = strconv.Atoi(fields[1])
			fields = fields[2:]
		}
		if len(fields) == 0 || fields[0] == "scripts" {
			continue
		}
		entry := fields[0]
		lines[entry] = line
		if st, err := os.Stat(entry); err != nil || !st.IsDir() {
			t.Errorf("README map lists %s, which is not a folder", entry)
		}
		if l, _, _ := layerOf(entry); l != layer {
			t.Errorf("README map puts %s in layer %d; layers_test.go says %d", entry, layer, l)
		}
	}
	for pkg := range readImports(t, ".").files {
		if pkg == "" || lines[pkg] != "" {
			continue
		}
		named := false
		for parent := path.Dir(pkg); parent != "." && !named; parent = path.Dir(parent) {
			named = strings.Contains(lines[parent], path.Base(pkg))
		}
		if !named {
			t.Errorf("README map does not name package %s", pkg)
		}
	}
}
