package main

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// Env is everything a command may touch outside its arguments: the
// streams, whether stderr is a terminal, the environment and the clock.
// Tests build their own.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StderrTTY bool
	Getenv    func(string) string
	Now       func() time.Time
}

func systemEnv() *Env {
	return &Env{
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Getenv:    os.Getenv,
		Now:       time.Now,
	}
}
