package home

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeEnv is an Env with AEM_HOME = aemHome (when not ""), the binary at exe
// (when not "") and the user cache directory at cache (when not "").
func fakeEnv(aemHome, exe, cache string) Env {
	e := Env{Getenv: func(k string) string {
		if k == EnvVar {
			return aemHome
		}
		return ""
	}}
	if exe != "" {
		e.Executable = func() (string, error) { return exe, nil }
	}
	if cache != "" {
		e.UserCacheDir = func() (string, error) { return cache, nil }
	}
	return e
}

func dirs(roots []Root) []string {
	var out []string
	for _, r := range roots {
		out = append(out, r.Dir)
	}
	return out
}

func TestSearchOrder(t *testing.T) {
	tmp := t.TempDir()
	// A binary reached through a symbolic link is searched beside its target.
	bin := filepath.Join(tmp, "prefix", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "aem")
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "aem-link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(tmp, "prefix")
	tests := []struct {
		name string
		env  Env
		want []string
	}{
		{"AEM_HOME overrides everything", fakeEnv("/opt/aem", exe, "/c"), []string{"/opt/aem"}},
		{"binary, work dir, user cache", fakeEnv("", exe, "/c"),
			[]string{filepath.Join(prefix, "share", "aem"), filepath.Join(prefix, ".aem"), ".aem", "/c/aem"}},
		{"symlinked binary", fakeEnv("", link, ""),
			[]string{filepath.Join(prefix, "share", "aem"), filepath.Join(prefix, ".aem"), ".aem"}},
		{"no binary, no user cache", fakeEnv("", "", ""), []string{".aem"}},
		{"zero Env", Env{}, []string{".aem"}},
		{"failing lookups are left out", Env{
			Executable:   func() (string, error) { return "", errors.New("no") },
			UserCacheDir: func() (string, error) { return "", errors.New("$HOME is not defined") },
		}, []string{".aem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dirs(Search(tt.env))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Search = %q, want %q", got, tt.want)
			}
		})
	}
}

// layout makes each of rels (relative to root) as an empty file.
func layout(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	tmp := t.TempDir()
	a, b, c := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "c")
	layout(t, a, "lib/x.so")            // library only
	layout(t, b, "lib/x.so", "model/m") // both
	roots := []Root{{Dir: a, From: "first"}, {Dir: b, From: "second"}, {Dir: c, From: "third"}}
	needBoth := func(dir string) []string {
		return []string{filepath.Join(dir, "lib/x.so"), filepath.Join(dir, "model/m")}
	}
	needLib := func(dir string) []string { return []string{filepath.Join(dir, "lib/x.so")} }
	needNothing := func(string) []string { return nil }

	tests := []struct {
		name  string
		roots []Root
		need  func(string) []string
		want  string // "" for not found
	}{
		{"first holding everything", roots, needBoth, b},
		{"first holding the part needed", roots, needLib, a},
		{"nothing needed: the first place", roots, needNothing, a},
		{"none holds it", []Root{roots[0], roots[2]}, needBoth, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.roots, tt.need)
			if tt.want != "" {
				if err != nil || got.Dir != tt.want {
					t.Fatalf("Find = %v, %v; want %s", got, err, tt.want)
				}
				return
			}
			var nf *NotFoundError
			if !errors.Is(err, ErrNotFound) || !errors.As(err, &nf) {
				t.Fatalf("err = %v, want a *NotFoundError", err)
			}
			// Every place is named with why it was searched and what it lacked.
			msg := err.Error()
			for _, want := range []string{
				a + " (first): no " + filepath.Join(a, "model/m") + "\n",
				c + " (third): does not exist",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("error lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, filepath.Join(a, "lib/x.so")) {
				t.Errorf("error lists a file that exists:\n%s", msg)
			}
			if strings.Index(msg, a) > strings.Index(msg, c) {
				t.Errorf("error does not keep the search order:\n%s", msg)
			}
		})
	}
}

func TestWritable(t *testing.T) {
	tmp := t.TempDir()
	exists, missing := filepath.Join(tmp, "exists"), filepath.Join(tmp, "missing")
	layout(t, exists, "x")
	bin := Root{Dir: exists, Kind: BesideBinary}
	tests := []struct {
		name  string
		roots []Root
		want  string
	}{
		{"$AEM_HOME, existing or not", []Root{{Dir: missing, Kind: FromEnv}}, missing},
		{"never beside the binary", []Root{bin, {Dir: missing, Kind: WorkDir}, {Dir: filepath.Join(tmp, "cache"), Kind: UserCache}}, filepath.Join(tmp, "cache")},
		{"an existing ./.aem", []Root{bin, {Dir: exists, Kind: WorkDir}, {Dir: missing, Kind: UserCache}}, exists},
		{"no user cache: ./.aem", []Root{bin, {Dir: missing, Kind: WorkDir}}, missing},
		{"only beside the binary", []Root{bin}, ".aem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Writable(tt.roots).Dir; got != tt.want {
				t.Errorf("Writable = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestOrderMatchesSearch(t *testing.T) {
	// The help text lists the places in the order Search returns them.
	order := Order("")
	keys := []string{"$AEM_HOME", "share/aem", "./.aem", "user cache"}
	last := -1
	for _, k := range keys {
		i := strings.Index(order, k)
		if i < 0 || i < last {
			t.Fatalf("Order() lacks %q or lists it out of order:\n%s", k, order)
		}
		last = i
	}
}
