package main

import (
	"io"
	"os"
	"path/filepath"
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
		Getenv:    withDefaultHome(os.Getenv, installedHome()),
		Now:       time.Now,
	}
}

// installedHome finds the install root scripts/setup made when aem runs
// outside the repository: with ./.aem absent, the .aem beside the
// repository the binary was built into (bin/aem -> .aem). It returns ""
// when there is none, and the packages fall back to ./.aem.
func installedHome() string {
	if _, err := os.Stat(".aem"); err == nil {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	exe, _ = filepath.EvalSymlinks(exe)
	home := filepath.Join(filepath.Dir(exe), "..", ".aem")
	if info, err := os.Stat(home); err == nil && info.IsDir() {
		return filepath.Clean(home)
	}
	return ""
}

// withDefaultHome makes AEM_HOME default to home when it is unset.
func withDefaultHome(getenv func(string) string, home string) func(string) string {
	if home == "" {
		return getenv
	}
	return func(k string) string {
		if v := getenv(k); v != "" || k != "AEM_HOME" {
			return v
		}
		return home
	}
}
