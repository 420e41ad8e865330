package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"gocloud.dev/blob"
	"golang.org/x/term"

	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/visible"
)

// Env is everything a command may touch outside its arguments: the
// streams, whether stdout and stderr are terminals, the environment, the
// clock and where the install root is searched for. Tests build their own.
//
// Messages quote what users gave (file names, dialog ids, keys of a
// thresholds file, a judge's answers): systemEnv's Stderr, and Stdout on a
// terminal, show the control characters in them instead of sending them
// (package visible), so no input can move the cursor or retitle the
// window. Stdout into a pipe or a file is the data itself, unchanged.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StdoutTTY bool
	StderrTTY bool
	// StatusLine is where the progress line is redrawn on a terminal: the
	// stderr stream itself, since the redraw is a control sequence (the
	// line holds only figures aem formats). nil: Stderr.
	StatusLine io.Writer
	Getenv     func(string) string
	Now        func() time.Time

	// Executable and UserCacheDir are os.Executable and os.UserCacheDir;
	// nil leaves those places out of the search for the install root.
	Executable   func() (string, error)
	UserCacheDir func() (string, error)
}

func systemEnv() *Env {
	var stdout io.Writer = os.Stdout
	if term.IsTerminal(int(os.Stdout.Fd())) {
		stdout = visible.NewWriter(os.Stdout)
	}
	return &Env{
		Stdin:        os.Stdin,
		Stdout:       stdout,
		Stderr:       visible.NewWriter(os.Stderr),
		StdoutTTY:    term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY:    term.IsTerminal(int(os.Stderr.Fd())),
		StatusLine:   os.Stderr,
		Getenv:       os.Getenv,
		Now:          time.Now,
		Executable:   os.Executable,
		UserCacheDir: os.UserCacheDir,
	}
}

// homeRoots lists the places searched for the install root (the ONNX
// Runtime library and the models), in order.
func (e *Env) homeRoots() []home.Root {
	return home.Search(home.Env{Getenv: e.Getenv, Executable: e.Executable, UserCacheDir: e.UserCacheDir})
}

// blobs opens the object stores of a command's URLs (location.NewURLMux),
// with every retried request and resumed read logged to Stderr.
func (e *Env) blobs() *blob.URLMux {
	var mu sync.Mutex
	return location.NewURLMux(location.MuxOptions{Log: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(e.Stderr, "aem: "+msg)
	}})
}
