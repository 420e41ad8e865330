package bfcl

import (
	"bytes"
	"strings"
	"testing"
)

// TestPerturb applies every perturbation to the fixture entries and
// compares the BFCL result lines it writes ("-" where it does not apply).
func TestPerturb(t *testing.T) {
	entries, _ := fixtures(t)
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	const (
		weather  = "live_simple_0-0-0"
		uber     = "live_multiple_1-1-0"
		parallel = "live_parallel_2-0-0"
		control  = "live_simple_3-2-0"
		simple9  = "live_simple_9-8-0"
	)
	tests := []struct {
		p    Perturbation
		id   string
		want string
	}{
		{Gold, weather, `[{"get_weather":{"location":"Boston, MA","unit":"fahrenheit"}}]`},
		{Gold, control, `[{"control":{"body":{"mode":"COOL","temp":22},"orders":[{"name":"Ann","qty":1}],"weights":[1.0,2.5]}}]`},
		{WrongType, weather, `[{"get_weather":{"location":["Boston, MA"],"unit":"fahrenheit"}}]`},
		{WrongType, uber, `[{"uber.ride":{"loc":["2020 Addison Street"],"time":10,"type":"plus"}}]`},
		{MissingRequired, weather, `[{"get_weather":{"unit":"fahrenheit"}}]`},
		{ExtraUnknown, weather, `[{"get_weather":{"aem_unknown_param":"x","location":"Boston, MA","unit":"fahrenheit"}}]`},
		{WrongEnum, weather, `[{"get_weather":{"location":"Boston, MA","unit":"celsius"}}]`},
		{WrongEnum, uber, `[{"uber.ride":{"loc":"2020 Addison Street","time":10,"type":"comfort"}}]`},
		{CaseSpacing, weather, `[{"get_weather":{"location":"BOSTON,MA","unit":"fahrenheit"}}]`},
		{IntForFloat, weather, `-`},
		{IntForFloatItems, control, `[{"control":{"body":{"mode":"COOL","temp":22},"orders":[{"name":"Ann","qty":1}],"weights":[1,2.5]}}]`},
		{ItemsAsStrings, control, `[{"control":{"body":{"mode":"COOL","temp":22},"orders":[{"name":"Ann","qty":1}],"weights":["1.0","2.5"]}}]`},
		{ItemsAsStrings, weather, `-`},
		{FloatItemsForInt, control, `-`}, // no array of integers
		{DeclaredType, "live_simple_4-3-0", `[{"Hotels_Search":{"city":"Paris","genre":"horror","smoking":"False"}}]`},
		{DeclaredType, weather, `-`},
		{OmitOptional, weather, `[{"get_weather":{"location":"Boston, MA"}}]`},
		{OmitDefault, weather, `-`}, // unit's answer lists ""
		{OmitDefault, simple9, `-`}, // port is required
		{OmitDefault, "live_simple_10-9-0", `[{"get_weather":{"location":"Rome, Italy"}}]`},
		{FloatForInt, uber, `[{"uber.ride":{"loc":"2020 Addison Street","time":10.0,"type":"plus"}}]`},
		{FloatForInt, weather, `-`},
		{OmitOptional, uber, `-`},
		{DefaultGiven, uber, `[{"uber.ride":{"loc":"2020 Addison Street","max_price":50.0,"time":10,"type":"plus"}}]`},
		{DefaultGiven, weather, `-`},
		{Reordered, parallel, `[{"get_weather":{"location":"Paris, France"}},{"get_weather":{"location":"Boston, MA"}}]`},
		{Reordered, weather, `-`},
		{Underscored, uber, `[{"uber_ride":{"loc":"2020 Addison Street","time":10,"type":"plus"}}]`},
		{Underscored, weather, `-`},
		{NotOffered, weather, `[{"aem_not_offered_tool":{"location":"Boston, MA","unit":"fahrenheit"}}]`},
		{NoCall, weather, `[]`},
		{Unparseable, weather, `[{"get_weather":"{\"location\":\"Boston, MA\",\"unit\":\"fahrenheit\""}]`},
	}
	for _, tt := range tests {
		t.Run(string(tt.p)+"/"+tt.id, func(t *testing.T) {
			pred, ok := Perturb(byID[tt.id], tt.p)
			got := "-"
			if ok {
				var b bytes.Buffer
				if err := WriteResults(&b, []string{tt.id}, map[string]Prediction{tt.id: pred}); err != nil {
					t.Fatal(err)
				}
				got = strings.TrimSuffix(strings.TrimPrefix(b.String(), `{"id":"`+tt.id+`","result":`), "}\n")
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	irr := byID["live_irrelevance_0-0-0"]
	for _, p := range Perturbations {
		pred, ok := Perturb(irr, p)
		switch p {
		case NoCall:
			if !ok || len(pred.Calls) != 0 {
				t.Errorf("irrelevance, no call: %v %+v", ok, pred)
			}
		case IrrelevantCall:
			if !ok || len(pred.Calls) != 1 || pred.Calls[0].Name != "get_weather" || pred.Calls[0].Args["location"] != "x" {
				t.Errorf("irrelevance, a call: %v %+v", ok, pred)
			}
		default:
			if ok {
				t.Errorf("%s applies to an irrelevance entry", p)
			}
		}
	}
	if _, ok := Perturb(byID[weather], IrrelevantCall); ok {
		t.Error("irrelevance_call applies to an entry with an answer")
	}
}

func TestStandardize(t *testing.T) {
	for in, want := range map[string]string{
		"April 1, 2024":  "april12024",
		"New-York/City*": "newyorkcity",
		"it's":           `it"s`,
		"a_b^c.d":        "abcd",
	} {
		if got := standardize(in); got != want {
			t.Errorf("standardize(%q) = %q, want %q", in, got, want)
		}
	}
}
