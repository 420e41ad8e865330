package main

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/aem-dev/aem/home"
)

// Env is everything a command may touch outside its arguments: the
// streams, whether stderr is a terminal, the environment, the clock and
// where the install root is searched for. Tests build their own.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StderrTTY bool
	Getenv    func(string) string
	Now       func() time.Time

	// Executable and UserCacheDir are os.Executable and os.UserCacheDir;
	// nil leaves those places out of the search for the install root.
	Executable   func() (string, error)
	UserCacheDir func() (string, error)
}

func systemEnv() *Env {
	return &Env{
		Stdin:        os.Stdin,
		Stdout:       os.Stdout,
		Stderr:       os.Stderr,
		StderrTTY:    term.IsTerminal(int(os.Stderr.Fd())),
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
