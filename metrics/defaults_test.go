package metrics

import (
	"slices"
	"testing"
)

// TestDefaults: where a parameter's definition gives a default, the
// default and leaving the parameter out are the same answer, both ways and
// at any depth, and the verdict says so (method "default").
func TestDefaults(t *testing.T) {
	tools := mustTools(t, `[{"name": "search", "parameters": {"type": "object", "required": ["q", "page"], "properties": {
	  "q": {"type": "string"},
	  "page": {"type": "integer", "default": 1},
	  "limit": {"type": "integer", "default": 10},
	  "sort": {"type": "string", "enum": ["relevance", "date"], "default": "relevance"},
	  "filter": {"type": "object", "properties": {
	    "lang": {"type": "string", "default": "en"},
	    "region": {"type": "string"},
	    "range": {"type": "object", "properties": {"days": {"type": "integer", "default": 7}}}}}}}}]`)
	s := func(args string) Call { return call(t, "search", args) }
	tests := []struct {
		name       string
		gold, pred Call
		defaults   []string // fields recorded "default"
		checks     []Reason
	}{
		{"gold gives the default, left out", s(`{"q": "x", "page": 1, "limit": 10}`), s(`{"q": "x", "page": 1}`), []string{"search.call.limit"}, nil},
		{"gold leaves it out, default given", s(`{"q": "x", "page": 1}`), s(`{"q": "x", "page": 1, "limit": 10, "sort": "relevance"}`),
			[]string{"search.call.limit", "search.call.sort"}, nil},
		{"an $any alternative is the default", s(`{"q": "x", "page": 1, "limit": {"$any": [10, 20]}}`), s(`{"q": "x", "page": 1}`), []string{"search.call.limit"}, nil},
		{"gold is not the default", s(`{"q": "x", "page": 1, "limit": 20}`), s(`{"q": "x", "page": 1}`), nil, []Reason{ReasonMissingParameters}},
		{"another value given", s(`{"q": "x", "page": 1}`), s(`{"q": "x", "page": 1, "limit": 20}`), nil, []Reason{ReasonExtraParameters}},
		{"a required parameter's default is no excuse", s(`{"q": "x", "page": 1}`), s(`{"q": "x"}`), nil, []Reason{ReasonMissingParameters}},
		{"the default of another type is another value", s(`{"q": "x", "page": 1}`), s(`{"q": "x", "page": 1, "limit": "10"}`), nil,
			[]Reason{ReasonExtraParameters, ReasonInvalidType}},
		{"nested: left out", s(`{"q": "x", "page": 1, "filter": {"region": "EU", "lang": "en"}}`), s(`{"q": "x", "page": 1, "filter": {"region": "EU"}}`),
			[]string{"search.call.filter.lang"}, nil},
		{"nested: given", s(`{"q": "x", "page": 1, "filter": {"region": "EU"}}`), s(`{"q": "x", "page": 1, "filter": {"region": "EU", "lang": "en"}}`),
			[]string{"search.call.filter.lang"}, nil},
		{"depth 3: given", s(`{"q": "x", "page": 1, "filter": {"range": {}}}`), s(`{"q": "x", "page": 1, "filter": {"range": {"days": 7}}}`),
			[]string{"search.call.filter.range.days"}, nil},
		{"nested: not the default", s(`{"q": "x", "page": 1, "filter": {"region": "EU", "lang": "fr"}}`), s(`{"q": "x", "page": 1, "filter": {"region": "EU"}}`),
			nil, []Reason{ReasonInconsistentValues}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decideAction(t, tools, tt.gold, &tt.pred, false)
			if err != nil {
				t.Fatal(err)
			}
			var defaults []string
			for _, fs := range v.FieldScores {
				if fs.Method == MethodDefault {
					defaults = append(defaults, fs.Field)
					if !fs.Pass || fs.Score != 1 {
						t.Errorf("default score %+v", fs)
					}
				}
			}
			if !slices.Equal(defaults, tt.defaults) || !slices.Equal(v.FailedChecks, tt.checks) {
				t.Errorf("defaults %q, checks %v; want %q, %v\n%+v", defaults, v.FailedChecks, tt.defaults, tt.checks, v.FieldScores)
			}
		})
	}
}
