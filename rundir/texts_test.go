package rundir

import (
	"reflect"
	"testing"
)

func TestValueAt(t *testing.T) {
	args := `{"city": "Paris", "filters": {"region.code": "EU", "tags": ["a", {"k": "v"}]}, "n": 5}`
	cases := []struct {
		path string
		want any
		ok   bool
	}{
		{"city", "Paris", true},
		{"filters.region.code", "EU", true}, // a key with a dot
		{"filters.tags[0]", "a", true},
		{"filters.tags[1].k", "v", true},
		{"filters.tags[2]", nil, false},
		{"filters.tags[x]", nil, false},
		{"missing", nil, false},
		{"city.sub", nil, false},
	}
	for _, tc := range cases {
		got, ok := valueAt(args, tc.path)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("valueAt(%q) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := valueAt("not json", "city"); ok {
		t.Error("valueAt found a value in invalid JSON")
	}
}

func TestTextsCompared(t *testing.T) {
	s := func(v string) *string { return &v }
	call := Texts{Kind: "action", GoldToolID: s("crm"), GoldAction: s("find"),
		GoldArgs: s(`{"city": {"$any": ["New York", "NYC"]}, "n": 3}`), PredictArgs: s(`{"city": "NYC!", "n": 3}`)}
	reply := Texts{Kind: "response", GoldResponse: s("It is sunny."), PredictResponse: s("Sunny today.")}
	for _, tc := range []struct {
		name       string
		t          Texts
		field      string
		gold, pred string
		ok         bool
	}{
		{"$any: the closest alternative", call, "crm.find.city", "NYC", "NYC!", true},
		{"a number is no text", call, "crm.find.n", "", "", false},
		{"another call's path", call, "weather.get.city", "", "", false},
		{"reply", reply, "response", "It is sunny.", "Sunny today.", true},
		{"clause", reply, "response.clause[0]", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p, ok := tc.t.Compared(tc.field)
			if g != tc.gold || p != tc.pred || ok != tc.ok {
				t.Errorf("Compared(%q) = %q, %q, %v; want %q, %q, %v", tc.field, g, p, ok, tc.gold, tc.pred, tc.ok)
			}
		})
	}
}

func TestTextsSides(t *testing.T) {
	s := func(v string) *string { return &v }
	call := Texts{Kind: "action", GoldToolID: s("shop"), GoldAction: s("order"),
		GoldArgs: s(`{"total": 89, "city": "Boston", "items": [1, 2], "note": "a\tb"}`), PredictArgs: s(`{"total": 98.0, "city": "Austin", "extra": true}`)}
	missing := Texts{Kind: "action", GoldToolID: s("shop"), GoldAction: s("order"), GoldArgs: s(`{"total": 89}`)}
	reply := Texts{Kind: "response", GoldResponse: s("It is <sunny>."), PredictResponse: s("Sunny today.")}
	for _, tc := range []struct {
		name           string
		t              Texts
		field          string
		gold, pred     string
		goldOK, predOK bool
	}{
		{"numbers as written", call, "shop.order.total", "89", "98.0", true, true},
		{"strings in quotes", call, "shop.order.city", `"Boston"`, `"Austin"`, true, true},
		{"a control character escaped", call, "shop.order.note", `"a\tb"`, "", true, false},
		{"an array", call, "shop.order.items", "[1,2]", "", true, false},
		{"a parameter gold lacks", call, "shop.order.extra", "", "true", false, true},
		{"no predicted call", missing, "shop.order.total", "89", "", true, false},
		{"another call's path", call, "weather.get.city", "", "", false, false},
		{"reply", reply, "response", `"It is <sunny>."`, `"Sunny today."`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p, gok, pok := tc.t.Sides(tc.field)
			if g != tc.gold || p != tc.pred || gok != tc.goldOK || pok != tc.predOK {
				t.Errorf("Sides(%q) = %q, %q, %v, %v; want %q, %q, %v, %v", tc.field, g, p, gok, pok, tc.gold, tc.pred, tc.goldOK, tc.predOK)
			}
		})
	}
}
