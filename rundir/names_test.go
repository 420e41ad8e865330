package rundir_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/rundir"
)

// oldNames is a run written before the naming rule (testdata/v2/README.md).
var oldNames = filepath.Join("testdata", "v2", "tool-calls")

// openRun opens a run for the test's duration.
func openRun(t *testing.T, loc string) *rundir.Run {
	t.Helper()
	r, err := rundir.Open(context.Background(), loc, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestReadsOldCallNames: a run that stored plain function calls as
// tool_id "" and action = the name reads under the naming rule, gold and
// predicted side and field paths alike, through TurnRow and through a
// reader's own column subset.
func TestReadsOldCallNames(t *testing.T) {
	_, turns, _, _ := readAll(t, oldNames)
	type call struct{ tool, action string }
	want := map[string]struct {
		gold, pred call
		fields     []string
	}{
		"weather-type":     {call{"get_weather", "call"}, call{"get_weather", "call"}, []string{"get_weather.call.city", "get_weather.call.days"}},
		"hotel-underscore": {call{"hotel.book", "call"}, call{"hotel_book", "call"}, []string{"hotel.book.call.hotel_id", "hotel.book.call.nights", "hotel.book.call.note"}},
		"not-offered":      {call{"get_weather", "call"}, call{"web_search", "call"}, []string{"web_search", "get_weather.call.city"}},
		"malformed-args":   {call{"get_weather", "call"}, call{"get_weather", "call"}, []string{"get_weather.call"}},
		"joke-called":      {call{"<nil>", "<nil>"}, call{"get_weather", "call"}, nil},
	}
	seen := 0
	for _, tr := range turns {
		w, ok := want[tr.DialogID]
		if !ok {
			continue
		}
		seen++
		if g := (call{deref(tr.GoldToolID), deref(tr.GoldAction)}); g != w.gold {
			t.Errorf("%s: gold call %v, want %v", tr.DialogID, g, w.gold)
		}
		if p := (call{deref(tr.PredictToolID), deref(tr.PredictAction)}); p != w.pred {
			t.Errorf("%s: predicted call %v, want %v", tr.DialogID, p, w.pred)
		}
		var fields []string
		for _, fs := range tr.FieldScores {
			fields = append(fields, fs.Field)
		}
		if strings.Join(fields, " ") != strings.Join(w.fields, " ") {
			t.Errorf("%s: fields %q, want %q", tr.DialogID, fields, w.fields)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d dialogs", seen, len(want))
	}

	// A reader's own subset of columns converts the same way.
	type view struct {
		GoldToolID  *string                `parquet:"gold_tool_id,optional"`
		GoldAction  *string                `parquet:"gold_action,optional"`
		FieldScores []rundir.FieldScoreRow `parquet:"field_scores,list"`
	}
	ctx := context.Background()
	r := openRun(t, oldNames)
	for i, v := range collect[view](t, rundir.ReadTurns[view](ctx, r)) {
		if turns[i].GoldAction != nil && deref(v.GoldAction) != "call" {
			t.Errorf("row %d: view gold_action %q, want call", i, deref(v.GoldAction))
		}
		for _, fs := range v.FieldScores {
			if strings.HasPrefix(fs.Field, ".") {
				t.Errorf("row %d: view field %q not converted", i, fs.Field)
			}
		}
	}
}

// TestReadTurnsRefusesHalfACall: a row type that reads an action without
// its tool_id (or field paths without the gold call) could not convert an
// older run, so reading is refused whatever the run's age.
func TestReadTurnsRefusesHalfACall(t *testing.T) {
	type actionOnly struct {
		GoldAction *string `parquet:"gold_action,optional"`
	}
	type fieldsOnly struct {
		FieldScores []rundir.FieldScoreRow `parquet:"field_scores,list"`
	}
	ctx := context.Background()
	r := openRun(t, oldNames)
	for _, err := range rundir.ReadTurns[actionOnly](ctx, r) {
		if err == nil || !strings.Contains(err.Error(), "tool_id and action") {
			t.Errorf("action only: err = %v", err)
		}
		break
	}
	for _, err := range rundir.ReadTurns[fieldsOnly](ctx, r) {
		if err == nil || !strings.Contains(err.Error(), "field_scores without") {
			t.Errorf("fields only: err = %v", err)
		}
		break
	}
}
