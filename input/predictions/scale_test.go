//go:build unix

package predictions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIngestScale measures ingesting OTLP JSON files of 100k and 1M spans,
// each in its own process (so peak RSS is that size's own), and prints
// spans/s and peak RSS. It is a measurement, not a check of speed: it runs
// only with AEM_INGEST_SCALE=1 (see BENCHMARKS.md), e.g.
//
//	AEM_INGEST_SCALE=1 go test -run TestIngestScale -v -timeout 60m ./input/predictions/
//
// AEM_INGEST_SIZES=20000,50000 picks other sizes; AEM_INGEST_CPUPROFILE=FILE
// writes the (last) child's CPU profile.
func TestIngestScale(t *testing.T) {
	if os.Getenv(scaleChild) != "" {
		ingestChild(t)
		return
	}
	if os.Getenv("AEM_INGEST_SCALE") != "1" {
		t.Skip("a measurement: set AEM_INGEST_SCALE=1 to run it")
	}
	dir := t.TempDir()
	sizes := []int{100_000, 1_000_000}
	if s := os.Getenv("AEM_INGEST_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		path := filepath.Join(dir, fmt.Sprintf("spans-%d.otlp.jsonl", n))
		convs := writeSpans(t, path, n)
		info, _ := os.Stat(path)
		cmd := exec.Command(os.Args[0], "-test.run", "^TestIngestScale$", "-test.v")
		cmd.Env = append(os.Environ(), scaleChild+"="+path, "AEM_INGEST_CONVS="+strconv.Itoa(convs), "TMPDIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%d spans: %v\n%s", n, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "ingest:") {
				t.Logf("%d spans (%d MiB file): %s", n, info.Size()>>20, strings.TrimSpace(line[strings.Index(line, "ingest:")+7:]))
			}
		}
		os.Remove(path)
	}
}

const scaleChild = "AEM_INGEST_CHILD"

// ingestChild opens the file, reads every conversation back and reports.
func ingestChild(t *testing.T) {
	path := os.Getenv(scaleChild)
	if prof := os.Getenv("AEM_INGEST_CPUPROFILE"); prof != "" { // where the time goes
		f, err := os.Create(prof)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	steps := 0
	if err := st.Each(func(c Conversation, _ bool) error {
		steps += len(c.Steps)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	s := st.Stats()
	want, _ := strconv.Atoi(os.Getenv("AEM_INGEST_CONVS"))
	if s.Conversations != want || int64(steps) != s.Steps {
		t.Fatalf("read %d conversations (want %d), %d steps (stats %d)", s.Conversations, want, steps, s.Steps)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("ingest: %d spans, %d conversations, %d steps; wall %.1f s (%.0f spans/s), CPU %.1f s (%.0f spans per CPU-second), peak RSS %d MiB\n",
		s.Records, s.Conversations, s.Steps, wall.Seconds(), float64(s.Records)/wall.Seconds(), cpu.Seconds(), float64(s.Records)/cpu.Seconds(), peakRSS()>>10)
}

// peakRSS reads VmHWM (KiB) from /proc/self/status; 0 elsewhere.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// writeSpans writes n spans as the Collector's file exporter would: JSON
// Lines of export requests of 512 spans, 8 agents' traces interleaved.
// Each conversation (one trace) has 10 spans: invoke_agent (with the
// conversation id), two chat spans (a tool call, then a reply), two
// execute_tool spans and five spans of other instrumentation (HTTP, DB).
// It returns the number of conversations.
func writeSpans(t *testing.T, path string, n int) int {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	const perTrace, agents, batch = 10, 8, 512
	traces := n / perTrace
	inBatch := 0
	open := func() {
		w.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"agent"}}]},"scopeSpans":[{"scope":{"name":"agent"},"spans":[`)
	}
	open()
	for i := 0; i < n; i++ {
		// span i belongs to trace (i/agents/perTrace)*agents + i%agents: 8 traces in flight at once.
		k := i / agents
		tr := (k/perTrace)*agents + i%agents
		if tr >= traces {
			tr = traces - 1
		}
		pos := k % perTrace
		if inBatch > 0 {
			w.WriteByte(',')
		}
		w.WriteString(genSpan(tr, pos))
		if inBatch++; inBatch == batch {
			w.WriteString("]}]}]}\n")
			open()
			inBatch = 0
		}
	}
	w.WriteString("]}]}]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return traces
}

func genSpan(tr, pos int) string {
	trace := fmt.Sprintf("%032x", tr+1)
	span := fmt.Sprintf("%016x", tr*16+pos+1)
	t0 := 1_700_000_000_000_000_000 + int64(tr)*1_000_000_000 + int64(pos)*1_000_000
	head := fmt.Sprintf(`{"traceId":"%s","spanId":"%s","startTimeUnixNano":"%d","endTimeUnixNano":"%d","kind":1,`, trace, span, t0, t0+500_000)
	attr := func(k, v string) string {
		return `{"key":"` + k + `","value":{"stringValue":` + strconv.Quote(v) + `}}`
	}
	switch pos {
	case 0:
		return head + `"name":"invoke_agent","attributes":[` + attr("gen_ai.operation.name", "invoke_agent") + "," +
			attr("gen_ai.conversation.id", fmt.Sprintf("conv-%07d", tr)) + "," + attr("gen_ai.agent.name", "support") + `]}`
	case 1:
		return head + `"name":"chat gpt-4o","attributes":[` + attr("gen_ai.operation.name", "chat") + "," + attr("gen_ai.request.model", "gpt-4o") + "," +
			attr("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"tool_call","id":"c%d","name":"lookup_order","arguments":{"order_id":%d}}]}]`, tr, tr)) + `]}`
	case 2, 3:
		return head + `"name":"execute_tool lookup_order","attributes":[` + attr("gen_ai.operation.name", "execute_tool") + "," +
			attr("gen_ai.tool.name", "lookup_order") + "," + attr("gen_ai.tool.call.id", fmt.Sprintf("c%d", tr+pos-2)) + "," +
			attr("gen_ai.tool.call.arguments", fmt.Sprintf(`{"order_id": %d}`, tr)) + "," + attr("gen_ai.tool.call.result", `{"status":"shipped"}`) + `]}`
	case 4:
		return head + `"name":"chat gpt-4o","attributes":[` + attr("gen_ai.operation.name", "chat") + "," +
			attr("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"text","content":"Order %d has shipped and arrives on Tuesday."}]}]`, tr)) + `]}`
	}
	return head + `"name":"HTTP GET","attributes":[` + attr("http.request.method", "GET") + "," + attr("url.full", "https://api.example.com/orders") + `,{"key":"http.response.status_code","value":{"intValue":"200"}}]}`
}
