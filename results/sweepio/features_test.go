package sweepio

import (
	"context"
	"testing"

	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/rundir"
)

func TestSamplesCarryFeatures(t *testing.T) {
	value := actionTurn("a", 1, true, ptr(true), sem("crm.find.city", 0.62))
	value.GoldArgs, value.PredictArgs = ptr(`{"city": {"$any": ["New York City", "NYC"]}}`), ptr(`{"city": "New York"}`)
	value.FieldScores[0].Method = "any"
	reply := rundir.TurnRow{DialogID: "b", TurnNo: 2, Role: "Agent", Kind: "response", Pass: true, HumanLabel: ptr(false),
		GoldResponse: ptr("Revenue was $4.5M."), PredictResponse: ptr("Revenue was $5.2M."),
		FieldScores: []rundir.FieldScoreRow{sem("response", 0.91)}, Scorer: "embed:use-lite@sha256:ab12"}
	in, _, err := ReadRun(context.Background(), writeRun(t, []rundir.TurnRow{value, reply}), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Samples) != 2 {
		t.Fatalf("samples: %+v", in.Samples)
	}
	// The $any alternative closest in wording is compared.
	if want := features.Extract("New York City", "New York", 0.62); !in.Samples[0].HasFeatures || in.Samples[0].Features != want {
		t.Errorf("value features %v, want %v", in.Samples[0].Features, want)
	}
	if want := features.Extract("Revenue was $4.5M.", "Revenue was $5.2M.", 0.91); !in.Samples[1].HasFeatures || in.Samples[1].Features != want {
		t.Errorf("reply features %v, want %v", in.Samples[1].Features, want)
	}
	if in.EmbeddingModel != (composite.EmbeddingModel{ID: "lexical"}) {
		t.Errorf("embedding model %+v (from summary.json's scorer)", in.EmbeddingModel)
	}
	if got := EmbeddingModelOf("embed:use-lite@sha256:ab12"); got.SHA256 != "ab12" || got.ID != "embed:use-lite@sha256:ab12" {
		t.Errorf("EmbeddingModelOf = %+v", got)
	}
}
