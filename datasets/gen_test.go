package datasets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
)

func collect(cfg GenConfig) []metrics.Dialog {
	var out []metrics.Dialog
	for d := range Generate(cfg) {
		out = append(out, d)
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Dialogs = 200
	a, b := collect(cfg), collect(cfg)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different output:\n%s", diff)
	}
	// A prefix of a bigger run equals a smaller run.
	cfg.Dialogs = 50
	if diff := cmp.Diff(a[:50], collect(cfg)); diff != "" {
		t.Errorf("prefix differs:\n%s", diff)
	}
	cfg.Seed = 2
	if cmp.Equal(a[:50], collect(cfg)) {
		t.Error("different seeds gave the same dialogs")
	}
}

func TestGenerateStopsEarly(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Dialogs = 1_000_000_000 // streaming: never materialised
	n := 0
	for range Generate(cfg) {
		n++
		if n == 10 {
			break
		}
	}
	if n != 10 {
		t.Fatalf("got %d dialogs", n)
	}
}

func TestGenerateShape(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Dialogs = 2000
	cfg.DependsOn = true
	var (
		turns, tools, agents, users      int
		missing, unexpected, paraphrased int
		wrongTopic, cascades, anySpecs   int
		blocks, labels, latencies        int
		chainLens                        = map[int]int{}
		goldStrings                      = map[string]bool{}
		goldStringCount                  int
		minTurns, maxTurns               = 100, 0
	)
	for _, d := range collect(cfg) {
		n := len(d.Turns)
		minTurns, maxTurns = min(minTurns, n), max(maxTurns, n)
		turns += n
		chain := 0
		wrongVals := map[string]bool{}
		for i, tr := range d.Turns {
			if tr.DialogID != d.ID || tr.TurnNo != i+1 {
				t.Fatalf("%s turn %d: id %q no %d", d.ID, i, tr.DialogID, tr.TurnNo)
			}
			if tr.HumanLabel != nil {
				labels++
			}
			if tr.LatencyMS != nil {
				latencies++
				if *tr.LatencyMS <= 0 {
					t.Fatalf("latency %v", *tr.LatencyMS)
				}
			}
			for _, tag := range tr.Tags {
				if strings.HasPrefix(tag, "OrderInvariant_") {
					blocks++
				}
			}
			if !tr.HasPredict && tr.Role != metrics.RoleUser {
				missing++
			}
			if !tr.HasGold {
				unexpected++
			}
			switch tr.Role {
			case metrics.RoleTool:
				tools++
				chain++
				if !tr.HasGold || !tr.HasPredict {
					continue
				}
				for k, gv := range tr.Gold.Args {
					switch v := gv.(type) {
					case string:
						goldStrings[v] = true
						goldStringCount++
						if pv, ok := tr.Predict.Args[k].(string); ok && pv != v {
							if isParaphrase(v, pv) {
								paraphrased++
							}
							if tr.DependsOn == nil && len(tr.Tags) == 0 {
								wrongTopic++
								wrongVals[pv] = true
							} else {
								for w := range wrongVals {
									if strings.Contains(pv, w) {
										cascades++
										break
									}
								}
							}
						}
					case map[string]any:
						anySpecs++
					case json.Number:
					default:
						t.Fatalf("unexpected gold value %T", gv)
					}
				}
			default:
				if chain > 0 {
					chainLens[min(chain, 5)]++
				}
				chain = 0
				if tr.Role == metrics.RoleAgent {
					agents++
				} else {
					users++
				}
			}
		}
	}
	t.Logf("turns %d [%d..%d], tools %.2f, chains %v, distinct %d/%d, missing %d unexpected %d paraphrased %d wrong %d cascades %d any %d blocks %d",
		turns, minTurns, maxTurns, float64(tools)/float64(turns), chainLens, len(goldStrings), goldStringCount,
		missing, unexpected, paraphrased, wrongTopic, cascades, anySpecs, blocks)
	if minTurns < 3 || maxTurns > 12 || minTurns > 4 || maxTurns < 11 {
		t.Errorf("turns per dialog in [%d, %d], want spanning 3..12", minTurns, maxTurns)
	}
	if mean := float64(turns) / 2000; mean < 6 || mean > 9 {
		t.Errorf("mean turns per dialog %.2f, want 6..9", mean)
	}
	toolShare := float64(tools) / float64(turns)
	if toolShare < 0.35 || toolShare > 0.7 {
		t.Errorf("tool turn share %.2f, want 0.35..0.7", toolShare)
	}
	if agents == 0 || users != 2000 {
		t.Errorf("agents %d users %d", agents, users)
	}
	for l := 1; l <= 4; l++ {
		if chainLens[l] == 0 {
			t.Errorf("no chain of length %d: %v", l, chainLens)
		}
	}
	if distinct := float64(len(goldStrings)) / float64(goldStringCount); distinct > 0.05 {
		t.Errorf("distinct gold strings %.3f of values, want repeated values (<= 0.05)", distinct)
	}
	if len(goldStrings) < 50 {
		t.Errorf("only %d distinct gold strings", len(goldStrings))
	}
	rate := func(n int) float64 { return float64(n) / float64(turns) }
	for name, r := range map[string][2]float64{
		"missing":     {rate(missing), 0.005},
		"unexpected":  {rate(unexpected), 0.002},
		"paraphrased": {rate(paraphrased), 0.02},
		"wrong":       {rate(wrongTopic), 0.02},
		"cascades":    {rate(cascades), 0.002},
		"$any":        {rate(anySpecs), 0.001},
		"blocks":      {rate(blocks), 0.02},
	} {
		if r[0] < r[1] || r[0] > 0.3 {
			t.Errorf("%s rate %.4f, want in [%v, 0.3]", name, r[0], r[1])
		}
	}
	if rate(missing) > 0.05 {
		t.Errorf("missing rate %.4f, want <= 0.05", rate(missing))
	}
	if labels == 0 || latencies != turns {
		t.Errorf("labels %d latencies %d of %d turns", labels, latencies, turns)
	}
}

func TestGenerateOptionsOff(t *testing.T) {
	cfg := GenConfig{Seed: 7, Dialogs: 100, MinTurns: 3, MaxTurns: 5}
	for _, d := range collect(cfg) {
		if len(d.Turns) < 3 || len(d.Turns) > 5 {
			t.Fatalf("%s has %d turns", d.ID, len(d.Turns))
		}
		for _, tr := range d.Turns {
			if tr.HumanLabel != nil || tr.LatencyMS != nil || tr.DependsOn != nil || len(tr.Tags) != 0 {
				t.Fatalf("optional fields set with options off: %+v", tr)
			}
			if !tr.HasGold || (tr.Role != metrics.RoleUser && !tr.HasPredict) {
				t.Fatalf("missing/unexpected turn with rates 0: %+v", tr)
			}
			if tr.Role == metrics.RoleTool && !cmp.Equal(tr.Gold, tr.Predict) {
				t.Fatalf("wrong prediction with rates 0: %+v", tr)
			}
		}
	}
}

func TestGenConfigValidate(t *testing.T) {
	bad := []func(*GenConfig){
		func(c *GenConfig) { c.Dialogs = -1 },
		func(c *GenConfig) { c.MinTurns = 1 },
		func(c *GenConfig) { c.MaxTurns = 2 },
		func(c *GenConfig) { c.WrongRate = 1.5 },
		func(c *GenConfig) { c.WrongRate, c.ParaphraseRate = 0.6, 0.6 },
	}
	for i, mut := range bad {
		c := DefaultGenConfig()
		mut(&c)
		if c.Validate() == nil {
			t.Errorf("case %d: no error", i)
		}
		if len(collect(c)) != 0 {
			t.Errorf("case %d: invalid config yielded dialogs", i)
		}
	}
	if err := DefaultGenConfig().Validate(); err != nil {
		t.Error(err)
	}
	// Zero turn bounds mean the defaults.
	for _, d := range collect(GenConfig{Seed: 3, Dialogs: 50}) {
		if len(d.Turns) < 3 || len(d.Turns) > 12 || !strings.HasPrefix(d.ID, "gen-") {
			t.Fatalf("%s has %d turns", d.ID, len(d.Turns))
		}
	}
}

// distinctShares measures, over dialogs, the share of distinct strings among
// gold and predicted replies (agent turns) and among gold and predicted
// string values of tool calls (occurrences counted per turn and field).
type distinctShares struct {
	goldReplies, predReplies, allReplies, goldValues, predValues [2]int // distinct, total
	rewordedReplies, comparedReplies                             int    // predicted != gold, both present
}

func measureDistinct(dialogs []metrics.Dialog) distinctShares {
	var s distinctShares
	sets := map[*[2]int]map[string]bool{}
	add := func(c *[2]int, v string) {
		m := sets[c]
		if m == nil {
			m = map[string]bool{}
			sets[c] = m
		}
		if !m[v] {
			m[v] = true
			c[0]++
		}
		c[1]++
	}
	for _, d := range dialogs {
		for _, tr := range d.Turns {
			switch tr.Role {
			case metrics.RoleAgent:
				if tr.HasGold {
					add(&s.goldReplies, tr.GoldResponse)
					add(&s.allReplies, tr.GoldResponse)
				}
				if tr.HasPredict {
					add(&s.predReplies, tr.PredictResponse)
					add(&s.allReplies, tr.PredictResponse)
				}
				if tr.HasGold && tr.HasPredict {
					s.comparedReplies++
					if tr.GoldResponse != tr.PredictResponse {
						s.rewordedReplies++
					}
				}
			case metrics.RoleTool:
				for _, v := range tr.Gold.Args {
					if str, ok := v.(string); ok && tr.HasGold {
						add(&s.goldValues, str)
					}
				}
				for _, v := range tr.Predict.Args {
					if str, ok := v.(string); ok && tr.HasPredict {
						add(&s.predValues, str)
					}
				}
			}
		}
	}
	return s
}

func share(c [2]int) float64 { return float64(c[0]) / float64(max(c[1], 1)) }

// Replies are free text, so nearly every one is distinct and the agent's
// reply is nearly always worded differently from gold; tool-call values are
// drawn from Zipf pools and repeat.
func TestGenerateDistinctReplies(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Dialogs = 3000
	s := measureDistinct(collect(cfg))
	t.Logf("distinct: gold replies %d/%d (%.3f), predicted replies %d/%d (%.3f), all replies %d/%d (%.3f), gold values %d/%d (%.4f), predicted values %d/%d (%.4f); reworded %d/%d",
		s.goldReplies[0], s.goldReplies[1], share(s.goldReplies), s.predReplies[0], s.predReplies[1], share(s.predReplies),
		s.allReplies[0], s.allReplies[1], share(s.allReplies), s.goldValues[0], s.goldValues[1], share(s.goldValues),
		s.predValues[0], s.predValues[1], share(s.predValues), s.rewordedReplies, s.comparedReplies)
	for name, c := range map[string][2]int{"gold replies": s.goldReplies, "predicted replies": s.predReplies, "all replies": s.allReplies} {
		if c[1] < 1000 || share(c) < 0.8 {
			t.Errorf("%s: %d distinct of %d, want > 80%% distinct", name, c[0], c[1])
		}
	}
	if r := float64(s.rewordedReplies) / float64(s.comparedReplies); r < 0.8 || r > 0.99 {
		t.Errorf("predicted reply differs from gold in %.3f of replies, want 0.8..0.99 (mostly reworded, some verbatim)", r)
	}
	for name, c := range map[string][2]int{"gold values": s.goldValues, "predicted values": s.predValues} {
		if share(c) > 0.05 {
			t.Errorf("%s: %d distinct of %d, want repeated values (<= 5%% distinct)", name, c[0], c[1])
		}
	}
}
