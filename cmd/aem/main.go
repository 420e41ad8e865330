// Command aem scores multi-turn agent conversations with the Agent
// Evaluation Metric: per-turn correctness verdicts with named failure
// reasons, root causes separated from cascades, and one score per dialog.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(Main())
}

// Main runs aem with the process's arguments and environment and returns
// the exit status. It is the only place that knows about exit codes.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := systemEnv()
	err := dispatch(ctx, env, os.Args[1:])
	return exitStatus(env, err)
}
