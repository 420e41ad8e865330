package metrics

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/aem-dev/aem/metrics/values"
)

// mustJSON decodes one JSON value with numbers as json.Number.
func mustJSON(t testing.TB, s string) any {
	t.Helper()
	args, err := DecodeArgs([]byte(`{"v":` + s + `}`))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return args["v"]
}

func TestValueChain(t *testing.T) {
	sims := pairScores{
		{"New York City", "New York"}: 0.9, {"revenue", "profit"}: 0.1, {"NYC", "New York, NY"}: 0.2,
		{"New York City", "New York, NY"}: 0.6, {"ok", "fine"}: 0.95,
	}
	type score struct {
		Field, Method string
		Score         float64
		Pass          bool
	}
	tests := []struct {
		name, gold, pred string
		want             []score
	}{
		{"exact string", `"EMEA"`, `"EMEA"`, []score{{"t.a.p", "exact", 1, true}}},
		{"semantic pass", `"New York City"`, `"New York"`, []score{{"t.a.p", "semantic", 0.9, true}}},
		{"different names", `"New York City"`, `"Big Apple"`, []score{{"t.a.p", "differs", 0, false}}},
		{"equivalence", `"New York City"`, `"NYC"`, []score{{"t.a.p", "equivalence", 1, true}}},
		{"parsed date", `"2024-05-20"`, `"May 20, 2024"`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"wrong date", `"2024-05-20"`, `"2024-05-21"`, []score{{"t.a.p", "parsed_differs", 0, false}}},
		{"wrong identifier", `"ORD-10293"`, `"ORD-10239"`, []score{{"t.a.p", "differs", 0, false}}},
		{"decimal digits kept", `"1.5"`, `"15"`, []score{{"t.a.p", "parsed_differs", 0, false}}},
		{"money", `"$89.00"`, `89`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"semantic fail", `"revenue"`, `"profit"`, []score{{"t.a.p", "semantic", 0.1, false}}},
		{"exact number", `5`, `5`, []score{{"t.a.p", "exact", 1, true}}},
		{"int vs float", `2`, `2.0`, []score{{"t.a.p", "typed", 1, true}}},
		{"within tolerance", `100`, `100.0000000001`, []score{{"t.a.p", "typed", 1, true}}},
		{"outside tolerance", `100`, `100.01`, []score{{"t.a.p", "typed", 0, false}}},
		{"big numbers relative", `1e20`, `100000000000000000001`, []score{{"t.a.p", "typed", 1, true}}},
		{"numeric string vs number", `5`, `"5"`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"number vs numeric string", `"5.0"`, `5`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"word vs number", `5`, `"five"`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"wrong word vs number", `5`, `"six"`, []score{{"t.a.p", "parsed_differs", 0, false}}},
		{"text vs number", `5`, `"many"`, []score{{"t.a.p", "unparsed", 0, false}}},
		{"bool exact", `true`, `true`, []score{{"t.a.p", "exact", 1, true}}},
		{"bool mismatch", `true`, `false`, []score{{"t.a.p", "typed", 0, false}}},
		{"bool vs string", `false`, `"FALSE"`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"bool vs word", `false`, `"no"`, []score{{"t.a.p", "parsed_equal", 1, true}}},
		{"bool vs wrong word", `false`, `"yes"`, []score{{"t.a.p", "parsed_differs", 0, false}}},
		{"null exact", `null`, `null`, []score{{"t.a.p", "exact", 1, true}}},
		{"null vs zero", `null`, `0`, []score{{"t.a.p", "typed", 0, false}}},
		{"object vs string", `{"a":1}`, `"a"`, []score{{"t.a.p", "typed", 0, false}}},
		{"nested object", `{"sub":{"x":1,"y":"ok"}}`, `{"sub":{"x":1.0,"y":"fine","z":true}}`, []score{
			{"t.a.p.sub.x", "typed", 1, true}, {"t.a.p.sub.y", "semantic", 0.95, true}, {"t.a.p.sub.z", "extra", 0, false}}},
		{"nested missing", `{"a":1,"b":2}`, `{"a":1}`, []score{{"t.a.p.a", "exact", 1, true}, {"t.a.p.b", "missing", 0, false}}},
		{"nested optional", `{"a":1,"b":{"$any":[2],"$optional":true}}`, `{"a":1}`, []score{{"t.a.p.a", "exact", 1, true}}},
		{"array", `[1,"ok"]`, `[1,"fine"]`, []score{{"t.a.p[0]", "exact", 1, true}, {"t.a.p[1]", "semantic", 0.95, true}}},
		{"array shorter", `[1,2]`, `[1]`, []score{{"t.a.p[0]", "exact", 1, true}, {"t.a.p[1]", "missing", 0, false}}},
		{"array longer", `[1]`, `[1,2]`, []score{{"t.a.p[0]", "exact", 1, true}, {"t.a.p[1]", "extra", 0, false}}},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[],"b":{}}`, []score{{"t.a.p.a", "exact", 1, true}, {"t.a.p.b", "exact", 1, true}}},
		{"any exact", `{"$any":["NYC","New York City"]}`, `"NYC"`, []score{{"t.a.p", "any", 1, true}}},
		{"any by kind", `{"$any":["2024-05-20"]}`, `"May 20, 2024"`, []score{{"t.a.p", "any", 1, true}}},
		{"any typed", `{"$any":[842.6,"842.60"]}`, `"842.6"`, []score{{"t.a.p", "any", 1, true}}},
		{"any semantic best", `{"$any":["NYC","New York City"]}`, `"New York, NY"`, []score{{"t.a.p", "any", 0.6, true}}},
		{"any fail", `{"$any":["revenue"]}`, `"profit"`, []score{{"t.a.p", "any", 0.1, false}}},
		{"any object alternatives", `{"$any":[{"x":1},{"x":2}]}`, `{"x":2.0}`, []score{{"t.a.p", "any", 1, true}}},
		{"nested any", `{"city":{"$any":["NYC"]}}`, `{"city":"NYC"}`, []score{{"t.a.p.city", "any", 1, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testComparer(Thresholds{Threshold: 0.5}, sims.sim)
			if err := c.value("t.a.p", param{path: "t.a.p"}, mustJSON(t, tc.gold), mustJSON(t, tc.pred), true); err != nil {
				t.Fatal(err)
			}
			var got []score
			for _, s := range c.scores {
				got = append(got, score{s.Field, s.Method, s.Score, s.Pass})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if pass := c.allPass(); pass == (len(c.diffs) > 0) {
				t.Errorf("allPass %v but %d diffs recorded", pass, len(c.diffs))
			}
		})
	}
}

func TestNumericToleranceConfig(t *testing.T) {
	for _, tc := range []struct {
		tol  float64
		a, b float64
		want bool
	}{
		{0, 1, 1, true}, {0, 1, 1.0000001, false}, {0.01, 100, 100.9, true}, {0.01, 100, 102, false},
		{0.01, 0.001, 0.009, true}, // max(1, ...) makes small numbers absolute
	} {
		if got := numbersClose(tc.a, tc.b, tc.tol); got != tc.want {
			t.Errorf("numbersClose(%v, %v, %v) = %v, want %v", tc.a, tc.b, tc.tol, got, tc.want)
		}
	}
}

// testComparer is a comparer deciding with thresholds th and similarities sim.
func testComparer(th Thresholds, sim simFunc) *comparer {
	cfg := DefaultConfig()
	cfg.Thresholds = th
	return &comparer{j: &decider{cfg: &cfg, kinds: values.Comparer{Tolerance: cfg.NumericTolerance}, sim: sim}}
}

func TestValidateGoldArgs(t *testing.T) {
	tests := []struct {
		name, args, field string
	}{
		{"valid", `{"a":{"$any":["x"],"$optional":true},"b":[{"$any":[1,2]}],"c":{"d":{"$any":[{"e":{"$any":["f"]}}]}}}`, ""},
		{"any not array", `{"city":{"$any":"NYC"}}`, "city"},
		{"empty any", `{"city":{"$any":[]}}`, "city"},
		{"optional without any", `{"unit":{"$optional":true}}`, "unit"},
		{"optional not bool", `{"unit":{"$any":["c"],"$optional":"yes"}}`, "unit"},
		{"unknown key", `{"unit":{"$any":["c"],"default":"c"}}`, "unit"},
		{"nested spec alternative", `{"x":{"$any":[{"$any":[1]}]}}`, "x"},
		{"optional in array", `{"xs":[{"$any":[1],"$optional":true}]}`, "xs[0]"},
		{"deep", `{"f":{"g":[0,{"h":{"$any":null}}]}}`, "f.g[1].h"},
		{"inside alternative", `{"x":{"$any":[{"y":{"$any":5}}]}}`, "x.$any[0].y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, err := DecodeArgs([]byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			err = ValidateGoldArgs(args)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var se *SpecError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadSpec) || se.Field != tc.field {
				t.Fatalf("got %v, want a SpecError for field %q", err, tc.field)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]any
		err  bool
	}{
		{`{"n": 5, "s": "x", "l": [1.5]}`, map[string]any{"n": json.Number("5"), "s": "x", "l": []any{json.Number("1.5")}}, false},
		{` {} `, map[string]any{}, false},
		{``, nil, true},
		{`null`, nil, true},
		{`[1]`, nil, true},
		{`"x"`, nil, true},
		{`5`, nil, true},
		{`{"a":1} {"b":2}`, nil, true},
		{`{"a":}`, nil, true},
		{`{"a":1`, nil, true},
	}
	for _, tc := range tests {
		got, err := DecodeArgs([]byte(tc.in))
		if (err != nil) != tc.err || !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeArgs(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestParseRole(t *testing.T) {
	for in, want := range map[string]Role{"Agent": RoleAgent, "tool": RoleTool, " USER ": RoleUser} {
		if got, err := ParseRole(in); err != nil || got != want {
			t.Errorf("ParseRole(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "assistant", "Toolx"} {
		if _, err := ParseRole(in); err == nil {
			t.Errorf("ParseRole(%q): want error", in)
		}
	}
}
