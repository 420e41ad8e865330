package judge_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
)

// BenchmarkOverhead is the client's cost per judged comparison: prompt,
// JSON, HTTP on loopback, strict parsing, limits and the cache write, one
// request at a time against the judgetest server answering from its
// table. client-ns/op leaves out the time inside the server's handler
// (its own latency); ns/op includes it. "cached" reads every answer back
// from the cache: a rerun's cost.
func BenchmarkOverhead(b *testing.B) {
	for _, tc := range []struct {
		name  string
		cache bool
		rerun bool
	}{{"memory", false, false}, {"disk-cache", true, false}, {"cached", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := judgetest.NewServer()
			defer srv.Close()
			o := judge.Options{URL: srv.URL(), Model: "m", Concurrency: 1}
			if tc.cache {
				o.CacheDir = b.TempDir()
			}
			j, err := judge.New(o)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			cs := make([]judge.Comparison, b.N)
			for i := range cs {
				cs[i] = judge.Comparison{Kind: judge.KindValue, Field: "crm.find.city", Gold: fmt.Sprint("gold value ", i), Predicted: "agent value"}
				srv.Answer(cs[i].Gold, cs[i].Predicted, judge.Answer{Reason: "The values name the same city.", Equivalent: true, Score: 0.9})
			}
			if tc.rerun {
				if _, err := j.Compare(context.Background(), cs); err != nil {
					b.Fatal(err)
				}
			}
			served := srv.ServeTime()
			b.ResetTimer()
			start := time.Now()
			// One comparison per call: the cost of a lone request, no batching.
			for i := range cs {
				if _, err := j.Compare(context.Background(), cs[i:i+1]); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.StopTimer()
			client := elapsed - (srv.ServeTime() - served)
			b.ReportMetric(float64(client.Nanoseconds())/float64(b.N), "client-ns/op")
			if st := j.Stats(); tc.rerun && st.Calls != int64(b.N) {
				b.Fatalf("the rerun made calls: %+v", st)
			}
		})
	}
}
