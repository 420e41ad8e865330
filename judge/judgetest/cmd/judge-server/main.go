// Command judge-server serves judgetest's chat-completions endpoint on a
// loopback port for benchmarks of `aem run --scorer embed+judge` as a
// separate process (scripts/bench-judge). It answers by judgetest.Facts,
// writes its base URL to -url-file once listening, and on SIGINT or
// SIGTERM writes what it served to -stats as JSON: requests in all and by
// comparison kind, distinct requests, and the time spent in its handler
// (its own latency, which the client's overhead leaves out).
//
//	judge-server -url-file url.txt -stats stats.json &
//	aem run ... --scorer embed+judge --judge-url "$(cat url.txt)" --judge-model bench
//	kill %1
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/aem-dev/aem/judge/judgetest"
)

// stats is what -stats receives.
type stats struct {
	Requests      int            `json:"requests"`
	ByKind        map[string]int `json:"by_kind"`
	Distinct      int            `json:"distinct_requests"`
	ServedSeconds float64        `json:"served_seconds"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "judge-server:", err)
		os.Exit(1)
	}
}

func run() error {
	urlFile := flag.String("url-file", "", "write the base URL (http://127.0.0.1:PORT/v1) to this file once listening")
	statsFile := flag.String("stats", "", "write what was served to this JSON file on SIGINT or SIGTERM")
	requestsFile := flag.String("requests", "", "also write every request's kind, field, gold and agent strings to this JSON Lines file")
	flag.Parse()
	if *urlFile == "" || *statsFile == "" {
		return fmt.Errorf("-url-file and -stats are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := judgetest.NewServer()
	defer srv.Close()
	srv.SetContent(judgetest.Facts)
	if err := os.WriteFile(*urlFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
		return err
	}
	<-ctx.Done()
	st := stats{ByKind: map[string]int{}, ServedSeconds: srv.ServeTime().Seconds()}
	distinct := map[string]bool{}
	for _, r := range srv.Requests() {
		st.Requests++
		st.ByKind[string(r.Kind())]++
		distinct[string(r.Raw)] = true
	}
	st.Distinct = len(distinct)
	if *requestsFile != "" {
		if err := writeRequests(*requestsFile, srv.Requests()); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*statsFile, append(b, '\n'), 0o644)
}

// writeRequests writes one JSON object per request: kind, field, gold, agent.
func writeRequests(path string, rs []judgetest.Request) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range rs {
		gold, agent, _ := r.Pair()
		if err := enc.Encode(map[string]string{"kind": string(r.Kind()), "field": r.Field(), "gold": gold, "agent": agent}); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
