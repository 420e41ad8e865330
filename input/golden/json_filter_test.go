package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// filtered runs the filter over in (rows of kind rows at depth) with limit,
// one byte per read so that every boundary falls inside a string somewhere,
// and returns what the decoder would see and the lengths kept per row.
func filtered(t *testing.T, in string, rows rowKind, depth, limit int) (string, []map[string]int) {
	t.Helper()
	f := newJSONFilter(iotest.OneByteReader(strings.NewReader(in)), rows, depth, limit)
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []map[string]int
	for row := 0; row <= f.row; row++ {
		sizes = append(sizes, f.take(row))
	}
	return string(out), sizes
}

// TestJSONFilterLeavesOut: the filter replaces exactly the strings over the
// limit in the places validate limits, keeping their decoded length (or,
// for args written as JSON, the raw length of the args), and passes the
// rest unchanged.
func TestJSONFilterLeavesOut(t *testing.T) {
	long := strings.Repeat("x", 20)
	tests := []struct {
		name  string
		in    string
		rows  rowKind
		depth int
		// want: the decoder's view, with L standing for a stand-in.
		want  string
		sizes []map[string]int
	}{
		{name: "reply over the limit", in: `{"dialog_id":"d","turns":[{"predict_turn":{"response":"` + long + `"}}]}`,
			want:  `{"dialog_id":"d","turns":[{"predict_turn":{"response":L}}]}`,
			sizes: []map[string]int{{"turns[0].predict_turn.response": 20}}},
		{name: "at the limit", in: `{"dialog_id":"d","turns":[{"turn":"` + long[:16] + `"}]}`,
			want: `{"dialog_id":"d","turns":[{"turn":"` + long[:16] + `"}]}`, sizes: []map[string]int{nil}},
		{name: "decoded length counts", rows: rowsDialogs,
			// The first fits (\n, é and a surrogate pair decode to 1+2+4
			// bytes); the second, 54 raw bytes, decodes to 18.
			in:    `{"dialog_id":"\n` + `\u00e9\ud83d\ude00"}` + "\n" + `{"dialog_id":"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}`,
			want:  `{"dialog_id":"\n` + `\u00e9\ud83d\ude00"}` + "\n" + `{"dialog_id":L}`,
			sizes: []map[string]int{nil, {"dialog_id": 18}}},
		{name: "lone surrogates and invalid UTF-8 are U+FFFD", in: `{"dialog_id":"\ud83d\ud83d` + "\xff\xe2\x82" + `a\udc00"}`,
			want: `{"dialog_id":L}`, sizes: []map[string]int{{"dialog_id": 3 + 3 + 3 + 3 + 3 + 1 + 3}}},
		{name: "args written as JSON: the raw length", in: `{"turns":[{"gold_turn":{"args":{"q": "` + long + `", "n": [1, 2]}}}]}`,
			want:  `{"turns":[{"gold_turn":{"args":{"q": L, "n": [1, 2]}}}]}`,
			sizes: []map[string]int{{"turns[0].gold_turn.args": len(`{"q": "` + long + `", "n": [1, 2]}`)}}},
		{name: "args written as a string: the decoded length", in: `{"turns":[{"gold_turn":{"args":"{\"q\": \"` + long + `\"}"}}]}`,
			want: `{"turns":[{"gold_turn":{"args":L}}]}`, sizes: []map[string]int{{"turns[0].gold_turn.args": len(`{"q": "` + long + `"}`)}}},
		{name: "tools: the compact length", in: `{"tools": [ {"name": "f", "description": "` + long + `"} ],"turns":[]}`,
			want:  `{"tools": [ {"name": "f", "description": L} ],"turns":[]}`,
			sizes: []map[string]int{{"tools": len(`[{"name":"f","description":"` + long + `"}]`)}}},
		{name: "tools written as a string: as written", in: `{"tools":"\u0041` + long + `","turns":[]}`,
			want: `{"tools":L,"turns":[]}`, sizes: []map[string]int{{"tools": 2 + 6 + 20}}},
		{name: "tags, by index", in: `{"turns":[{"tags":["a","` + long + `"]},{"tags":["` + long + `"]}]}`,
			want:  `{"turns":[{"tags":["a",L]},{"tags":[L]}]}`,
			sizes: []map[string]int{{"turns[0].tags[1]": 20, "turns[1].tags[0]": 20}}},
		{name: "extra keys and unknown places pass", in: `{"note":"` + long + `","turns":[{"memo":{"response":"` + long + `"},"gold_turn":"` + long + `"}]}`,
			want: `{"note":"` + long + `","turns":[{"memo":{"response":"` + long + `"},"gold_turn":"` + long + `"}]}`, sizes: []map[string]int{nil}},
		{name: "a key given twice: the last value counts", in: `{"turns":[{"turn":"` + long + `","turn":"Agent","predict_turn":{"name":"` + long + `"},"predict_turn":null}]}`,
			want: `{"turns":[{"turn":L,"turn":"Agent","predict_turn":{"name":L},"predict_turn":null}]}`, sizes: []map[string]int{nil}},
		{name: "escaped keys are read", in: `{"tu\u0072ns":[{"tur\u006e":"` + long + `"}]}`,
			want: `{"tu\u0072ns":[{"tur\u006e":L}]}`, sizes: []map[string]int{{"turns[0].turn": 20}}},
		{name: "array of turns", rows: rowsTurns, depth: 1, in: `[{"turn":"Agent"},{"predict_turn":{"action":"` + long + `"}}]`,
			want: `[{"turn":"Agent"},{"predict_turn":{"action":L}}]`, sizes: []map[string]int{nil, {"predict_turn.action": 20}}},
		{name: "a turn's keys in an array of dialogs are extras", rows: rowsDialogs, depth: 1, in: `[{"turn":"` + long + `","turns":[]}]`,
			want: `[{"turn":"` + long + `","turns":[]}]`, sizes: []map[string]int{nil}},
		{name: "the extra keys' pass: any long string value", rows: rowsAny, in: `{"` + long + `":"` + long + `","a":["` + long + `"]}`,
			want: `{"` + long + `":L,"a":[L]}`, sizes: []map[string]int{nil}},
		{name: "a control character stops the filter", in: `{"dialog_id":"` + long + "\n" + `x","turns":[{"turn":"` + long + `"}]}`,
			want: `{"dialog_id":"` + "\n" + `x","turns":[{"turn":"` + long + `"}]}`, sizes: []map[string]int{nil}},
		{name: "a bad escape stops it where the decoder does", in: `{"dialog_id":"` + long + `\u12x4"}`,
			want: `{"dialog_id":"\u12x4"}`, sizes: []map[string]int{nil}},
		{name: "cut short inside a string", in: `{"dialog_id":"` + long + `\`, want: `{"dialog_id":"\`, sizes: []map[string]int{nil}},
		{name: "cut short before the limit", in: `{"dialog_id":"abc`, want: `{"dialog_id":"abc`, sizes: []map[string]int{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sizes := filtered(t, tt.in, tt.rows, tt.depth, 16)
			if view := leftOutAsL(got); view != tt.want {
				t.Errorf("decoder sees\n%s\nwant\n%s", view, tt.want)
			}
			if d := cmp.Diff(tt.sizes, sizes, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("lengths kept (-want +got):\n%s", d)
			}
			if strings.Count(got, "\n") != strings.Count(tt.in, "\n") {
				t.Errorf("lines changed: %q", got)
			}
		})
	}
}

// leftOutAsL writes each stand-in as L.
func leftOutAsL(s string) string {
	for {
		i := strings.Index(s, `"\u0000left out at byte `)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i+1:], '"')
		s = s[:i] + "L" + s[i+1+j+1:]
	}
}

// TestJSONFilterCountsAsDecoded: the decoded length the filter keeps is
// the length encoding/json decodes the string to, for strings of every
// kind of escape and encoding.
func TestJSONFilterCountsAsDecoded(t *testing.T) {
	for _, raw := range []string{`plain`, `\"\\\/\b\f\n\r\t`, `\u0000\u007f\u0080\u07ff\u0800\uffff`, `\ud800\udc00\udbff\udfff`,
		`\ud800`, `\udc00\ud800`, `\ud800\u0041`, `\ud800x`, `\ud800\n`, "é€😀", "\xff\xfe", "\xe2\x82", "\xe2\x82\\n", "\xed\xa0\x80", "\xf0\x9f\x98", "a\xc3", "\xc3\xa9\xc3"} {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		_, sizes := filtered(t, `{"dialog_id":"`+raw+`"}`, rowsDialogs, 0, 0)
		if got := sizes[0]["dialog_id"]; got != len(want) {
			t.Errorf("%q: counted %d bytes, encoding/json decodes %d", raw, got, len(want))
		}
	}
}

// FuzzJSONStringLength: for any string content the decoder accepts, the
// filter keeps the length encoding/json decodes it to.
func FuzzJSONStringLength(f *testing.F) {
	for _, s := range []string{`a\u00e9\ud83d\ude00`, `\ud83d\ud83d`, "\xff\xc3", `\"\\\/\b`, "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		if json.Unmarshal([]byte(`"`+raw+`"`), &want) != nil || want == "" {
			return
		}
		out, sizes := filtered(t, `{"dialog_id":"`+raw+`"}`, rowsDialogs, 0, 0)
		if got := sizes[0]["dialog_id"]; got != len(want) {
			t.Fatalf("%q: counted %d bytes, encoding/json decodes %d", raw, got, len(want))
		}
		var v map[string]string
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("the decoder's view %q: %v", out, err)
		}
	})
}

// choppedFile reads at most n bytes per call, so that reads end inside
// strings, escapes and characters.
type choppedFile struct {
	*bytes.Reader
	n int
}

func (c choppedFile) Read(p []byte) (int, error) { return c.Reader.Read(p[:min(len(p), c.n)]) }

// readJSONBytes reads data as the JSON reader does, field limit limit,
// through the filter or not, chop bytes per read (0: as many as asked),
// and returns everything a caller can see: the extra columns, the dialogs
// (with their extra values as text) and the first error's message.
func readJSONBytes(data []byte, limit int, unfiltered bool, chop int) string {
	format := FormatJSONL
	if t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"); len(t) > 0 && t[0] == '[' {
		format = FormatJSON
	}
	var f io.ReadSeeker = bytes.NewReader(data)
	if chop > 0 {
		f = choppedFile{bytes.NewReader(data), chop}
	}
	r := &Reader{path: "in.json", format: format, maxField: limit, unfiltered: unfiltered}
	var out strings.Builder
	if err := r.openJSON(f, format, newToolSource(nil)); err != nil {
		return "open: " + err.Error()
	}
	defer r.Close()
	for _, c := range r.Extras() {
		out.WriteString("extra " + c.Name + "\n")
	}
	for {
		d, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out.String()
		}
		if err != nil {
			return out.String() + "error: " + err.Error()
		}
		data, err := json.Marshal(struct {
			ID        string
			Turns     any
			Rows      []int64
			Trial     *int64
			Conflicts []Conflict
			Tools     bool
		}{d.ID, d.Turns, d.Rows, d.Trial, d.Conflicts, d.Tools != nil})
		if err != nil {
			return out.String() + "marshal: " + err.Error()
		}
		out.Write(data)
		for _, row := range d.Extra {
			for _, v := range row {
				out.WriteString(" " + v.String())
			}
		}
		out.WriteString("\n")
	}
}

// FuzzJSONFilter: reading through the filter changes nothing a caller
// sees (the dialogs, their extra values, the error, its line and field)
// whatever the input and the limit, however the reads fall (chop: 1 to 16
// bytes per read, 0 for whole reads).
func FuzzJSONFilter(f *testing.F) {
	for _, p := range []string{"testdata/dialogs.jsonl", "testdata/dialogs_array.json", "testdata/extras.jsonl", "testdata/extras_turns.json",
		"testdata/tools.jsonl", "testdata/malformed/bad_args.jsonl", "testdata/malformed/duplicate_dialog.jsonl", "testdata/malformed/truncated.jsonl",
		"testdata/malformed/name_beside_action.json", "testdata/malformed/unknown_side_field.json", "testdata/malformed/args_array.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(8), uint8(0))
	}
	long := strings.Repeat("long text ", 4)
	for _, s := range []string{
		`{"dialog_id":"d","turns":[{"turn_no":1,"turn":"Agent","gold_turn":{"response":"ok"},"predict_turn":{"response":"` + long + `"}}]}`,
		`{"dialog_id":"d","turns":[{"turn_no":1,"turn":"Tool","gold_turn":{"name":"f","args":{"q":"` + long + `"}},"predict_turn":{"tool_id":"","name":"` + long + `"}}]}`,
		`{"dialog_id":"` + long + `","turns":[{"turn_no":1,"turn":"Agent","gold_turn":{"response":"ok"}}]}` + "\n" + `{"dialog_id":"` + long + `","turns":[]}`,
		`{"dialog_id":"d","note":"` + long + `","turns":[{"turn_no":1,"tags":["a","` + long + `\u00e9"],"memo":"` + long + `","gold_turn":{"response":"ok"}}]}`,
		`{"dialog_id":"d","turns":[{"turn_no":1,"turn":"` + long + `","turn":"Agent","gold_turn":{"response":"ok","response":"` + long + `"}}]}`,
		`[{"turn_no":1,"turn":"Agent","gold_turn":{"response":"` + long + `\ud83d\ude00"}},{"turn_no":2,"dialog_id":"` + long + `"}]`,
		`[{"dialog_id":"d","turns":[{"turn_no":1,"gold_turn":{"response":"` + long + `"}}]}]`,
		`{"dialog_id":"d","turns":[{"turn_no":1,"gold_turn":{"response":"` + long + "\t" + `"}}]}`,
		`{"dialog_id":"d","turns":[{"turn_no":"x","gold_turn":{"response":"` + long + `"}}]}`,
		`{"dialog_id":"d","tools": [ {"name": "f", "description": "` + long + `",` + "\n\t" + ` "parameters": {"type": "object"}} ],"turns":[{"turn_no":1,"gold_turn":{"name":"f","args":{}}}]}`,
		`{"dialog_id":"d","tools":"` + long + `","turns":[{"turn_no":1,"gold_turn":{"response":"ok"}}]}`,
	} {
		f.Add([]byte(s), uint8(16), uint8(len(s)%16+1))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint8, chop uint8) {
		max := 1 + int(limit)%48
		want := readJSONBytes(data, max, true, 0)
		got := readJSONBytes(data, max, false, int(chop%17))
		if got != want {
			t.Fatalf("input %q, limit %d:\nwithout the filter:\n%s\nthrough it:\n%s", data, max, want, got)
		}
	})
}
