package home

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvVar names the variable that overrides the search.
const EnvVar = "AEM_HOME"

// Kind says why a place is searched.
type Kind int

// The kinds of place, in search order.
const (
	FromEnv      Kind = iota // $AEM_HOME (or a flag that overrides it)
	BesideBinary             // <prefix>/share/aem or <checkout>/.aem next to the running binary
	WorkDir                  // ./.aem
	UserCache                // os.UserCacheDir()/aem
)

// Root is one place searched.
type Root struct {
	Dir  string // the folder
	Kind Kind
	From string // why it is searched, for messages: "$AEM_HOME", "beside the binary /usr/local/bin/aem", ...
}

func (r Root) String() string { return r.Dir + " (" + r.From + ")" }

// Env is what Search reads. The zero value searches ./.aem only.
type Env struct {
	Getenv       func(string) string    // nil: no variables
	Executable   func() (string, error) // os.Executable; nil: no binary to search beside
	UserCacheDir func() (string, error) // os.UserCacheDir; nil: no user cache directory
}

// Search returns the places to look for an install root, in order (see the
// package documentation). A place is listed whether or not it exists.
func Search(e Env) []Root {
	if e.Getenv != nil {
		if h := e.Getenv(EnvVar); h != "" {
			return []Root{{Dir: h, Kind: FromEnv, From: "$" + EnvVar}}
		}
	}
	var roots []Root
	if exe := executable(e); exe != "" {
		from := "beside the binary " + exe
		prefix := filepath.Dir(filepath.Dir(exe))
		roots = append(roots,
			Root{Dir: filepath.Join(prefix, "share", "aem"), Kind: BesideBinary, From: from},
			Root{Dir: filepath.Join(prefix, ".aem"), Kind: BesideBinary, From: from})
	}
	roots = append(roots, Root{Dir: ".aem", Kind: WorkDir, From: "working directory"})
	if e.UserCacheDir != nil {
		if dir, err := e.UserCacheDir(); err == nil && dir != "" {
			roots = append(roots, Root{Dir: filepath.Join(dir, "aem"), Kind: UserCache, From: "user cache directory"})
		}
	}
	return roots
}

// executable is the running binary's path with symbolic links resolved, or
// "" when unknown.
func executable(e Env) string {
	if e.Executable == nil {
		return ""
	}
	exe, err := e.Executable()
	if err != nil || exe == "" {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return exe
}

// Order describes the search for help texts, one place per line, each
// starting with prefix.
func Order(prefix string) string {
	lines := []string{
		"$" + EnvVar + ", when set (then the only place searched)",
		"beside the binary: <prefix>/share/aem for <prefix>/bin/aem (make install),",
		"  or the checkout's .aem for <checkout>/bin/aem (make build)",
		"./.aem in the working directory (scripts/setup)",
		"the user cache directory, e.g. ~/.cache/aem (scripts/setup --user)",
	}
	return prefix + strings.Join(lines, "\n"+prefix)
}

// ErrNotFound is wrapped by Find's error when no place holds what was needed.
var ErrNotFound = errors.New("no aem install root holds the files needed")

// NotFoundError lists each place searched and what it lacked.
type NotFoundError struct {
	Roots   []Root
	Missing [][]string // per root, the paths that do not exist
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	b.WriteString("no install root holds them; searched, in order:")
	for i, r := range e.Roots {
		fmt.Fprintf(&b, "\n\t%s: ", r)
		if _, err := os.Stat(r.Dir); errors.Is(err, fs.ErrNotExist) {
			b.WriteString("does not exist")
			continue
		}
		b.WriteString("no " + strings.Join(e.Missing[i], ", no "))
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Find returns the first of roots under which every path that need names
// exists. need gets a root's folder and returns the paths it requires there
// (it may return none: the first root is then taken whether it exists or
// not). With no root fit, the error is a *NotFoundError.
func Find(roots []Root, need func(dir string) []string) (Root, error) {
	nf := &NotFoundError{Roots: roots}
	for _, r := range roots {
		var missing []string
		for _, p := range need(r.Dir) {
			if _, err := os.Stat(p); err != nil {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			return r, nil
		}
		nf.Missing = append(nf.Missing, missing)
	}
	return Root{}, nf
}

// Writable returns where to install or cache files: the first root that
// exists and does not belong to an installed binary, else the last root
// searched that is not beside the binary (the user cache directory, or
// $AEM_HOME, or ./.aem when there is no user cache directory).
func Writable(roots []Root) Root {
	for _, r := range roots {
		if r.Kind == BesideBinary {
			continue
		}
		if info, err := os.Stat(r.Dir); err == nil && info.IsDir() {
			return r
		}
	}
	for i := len(roots) - 1; i >= 0; i-- {
		if roots[i].Kind != BesideBinary {
			return roots[i]
		}
	}
	return Root{Dir: ".aem", Kind: WorkDir, From: "working directory"}
}
