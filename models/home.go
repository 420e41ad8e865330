package models

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Home is the project-local install root: $AEM_HOME when set, else ./.aem in the
// working directory (where scripts/setup installs). getenv is os.Getenv in
// production and a fake in tests.
func Home(getenv func(string) string) string {
	if h := getenv("AEM_HOME"); h != "" {
		return h
	}
	return ".aem"
}

// Dir is where a model named name is installed under home: home/models/NAME,
// with "/" in Hugging Face names replaced by "_" (ORG/NAME -> ORG_NAME).
func Dir(home, name string) string {
	return filepath.Join(home, "models", safeName(name))
}

func safeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '/' || c == '\\' || c == ':' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Installed is one entry of List.
type Installed struct {
	Dir      string
	Manifest Manifest
	Err      error // set when the directory has no readable manifest
}

// List returns the model directories under home/models, sorted by directory
// name. It reads manifests only; use Verify to check file contents.
func List(home string) ([]Installed, error) {
	root := filepath.Join(home, "models")
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing models in %s: %w", root, err)
	}
	var out []Installed
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		dir := filepath.Join(root, e.Name())
		m, err := ReadManifest(dir)
		out = append(out, Installed{Dir: dir, Manifest: m, Err: err})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}
