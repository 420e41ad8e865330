package thresholds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// Decode reads a thresholds file strictly. name is used in errors (the
// path, or "" for data from elsewhere). It refuses, each with a *badinput.RowError
// naming the key and the fix: data that is not one JSON object; a
// duplicate key; a null; a key the file's version does not know (at any
// depth); a missing, non-integer or unknown version (newer than Version
// included); a value of the wrong type; a threshold that is not a number
// in [-1, 1]; a sub-metric, type or field key the metric does not know;
// an embedding_model without id or with a malformed sha256; a judge_band
// missing a bound, out of range or with low above high.
func Decode(name string, data []byte) (File, error) {
	top, err := checkJSON(name, data)
	if err != nil {
		return File{}, err
	}
	version, err := versionOf(name, data)
	if err != nil {
		return File{}, err
	}
	allowed := keysOf(version)
	for _, k := range top {
		if !slices.Contains(allowed, k) {
			return File{}, refuse(name, k, fmt.Sprintf("unknown key in a version %d file", version),
				"remove it, or use one of "+strings.Join(allowed, ", "), nil)
		}
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, refuse(name, "", "the file does not decode", exampleFix, err) // checkJSON lets nothing through that fails here
	}
	if version < 3 {
		if err := f.upgradeClauseKey(name); err != nil {
			return File{}, err
		}
	}
	if p := f.problems(); len(p) > 0 {
		return File{}, refuse(name, p[0].Key, p[0].Problem, p[0].Fix, nil)
	}
	return f, nil
}

// exampleFix shows the layout, for errors about the file as a whole.
const exampleFix = `write it as 'aem sweep' does, e.g. {"version": 3, "threshold": 0.5, "sub_metrics": {"truthfulness.values": 0.75}}`

// upgradeClauseKey reads a version 1 or 2 file's
// sub_metrics."completeness.response", the similarity a gold clause
// needed then, as "completeness.clause": since version 3 the former is
// the coverage a reply needs.
func (f *File) upgradeClauseKey(name string) error {
	v, ok := f.SubMetrics[metrics.SubCompleteResponse]
	if !ok {
		return nil
	}
	if _, both := f.SubMetrics[metrics.SubCompleteClause]; both {
		return refuse(name, "sub_metrics."+metrics.SubCompleteResponse, fmt.Sprintf("a version %d file gives both %s and %s", f.Version, metrics.SubCompleteResponse, metrics.SubCompleteClause),
			fmt.Sprintf(`before version 3, %s was the clause similarity: keep one of them, or write "version": 3 and give %s as the share of a reply's content to cover`, metrics.SubCompleteResponse, metrics.SubCompleteResponse), nil)
	}
	delete(f.SubMetrics, metrics.SubCompleteResponse)
	f.SubMetrics[metrics.SubCompleteClause] = v
	return nil
}

// versionOf reads and checks the version key.
func versionOf(name string, data []byte) (int, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return 0, refuse(name, "", "the file does not decode", exampleFix, err)
	}
	raw, ok := top["version"]
	if !ok {
		return 0, refuse(name, "version", "missing", fmt.Sprintf(`add "version": %d (or 1 for a file in the first layout)`, Version), nil)
	}
	v, err := strconv.Atoi(string(raw))
	switch {
	case err != nil:
		return 0, refuse(name, "version", fmt.Sprintf("%s is not an integer", raw), fmt.Sprintf(`write "version": %d`, Version), nil)
	case v > Version:
		return 0, refuse(name, "version", fmt.Sprintf("%d is newer than this aem reads (1 to %d)", v, Version),
			"upgrade aem, or write the file in a layout it reads", nil)
	case keysOf(v) == nil:
		return 0, refuse(name, "version", fmt.Sprintf("%d is not a version", v), fmt.Sprintf(`write "version": %d`, Version), nil)
	}
	return v, nil
}

// problems checks the values: the thresholds by metrics' rules, then the
// embedding model.
func (f *File) problems() []problem {
	var out []problem
	for _, k := range slices.Sorted(maps.Keys(f.CompositeFields)) {
		parts := strings.Split(k, ".")
		if len(parts) < 3 || slices.Contains(parts, "") {
			out = append(out, problem{"composite_fields." + k, "not a field path",
				"name a parameter as tool.action.param, or a nested value as tool.action.param.sub[0]"})
		}
		if v := f.CompositeFields[k]; !(v >= 0 && v <= 1) {
			out = append(out, problem{"composite_fields." + k, fmt.Sprintf("%v is not in [0, 1]", v), "give a probability threshold between 0 and 1"})
		}
	}
	if len(out) > 0 {
		return out
	}
	t := Lookup(f, 0, false)
	for _, p := range t.Problems() {
		out = append(out, problem{p.Key, p.Problem, p.Fix})
	}
	if b := f.JudgeBand; b != nil {
		out = append(out, bandProblems("judge_band", b.Low, b.High, -1, "a similarity")...)
		if c := b.Composite; c != nil {
			out = append(out, bandProblems("judge_band.composite", c.Low, c.High, 0, "a probability")...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.Composite)) {
		if err := f.Composite[k].Validate(); err != nil {
			out = append(out, problem{"composite." + k, err.Error(), "write the section as 'aem sweep --fit' does, or refit it"})
		}
	}
	if m := f.EmbeddingModel; m != nil {
		if m.ID == "" {
			out = append(out, problem{"embedding_model.id", "empty", `name the model, e.g. "use-lite", as the scorer ID embed:<id>@sha256:<sha256> gives it`})
		}
		if m.SHA256 != "" && !sha256Hex.MatchString(m.SHA256) {
			out = append(out, problem{"embedding_model.sha256", fmt.Sprintf("%q is not a sha256", m.SHA256), "give the 64 lower-case hex digits of the weights' sha256, or leave the key out"})
		}
	}
	return out
}

type problem struct{ Key, Problem, Fix string }

// bandProblems checks an uncertain band at key: both bounds in [min, 1],
// low not above high.
func bandProblems(key string, low, high, min float64, what string) []problem {
	var out []problem
	fix := fmt.Sprintf("give %s between %g and 1, e.g. {\"low\": 0.35, \"high\": 0.8}", what, min)
	for _, b := range []struct {
		name string
		v    float64
	}{{"low", low}, {"high", high}} {
		if b.v < min || b.v > 1 {
			out = append(out, problem{key + "." + b.name, fmt.Sprintf("%v is not in [%g, 1]", b.v, min), fix})
		}
	}
	if len(out) == 0 && low > high {
		out = append(out, problem{key, fmt.Sprintf("low %v is above high %v", low, high), "swap them: the band runs from low to high, bounds included"})
	}
	return out
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkJSON walks data's tokens against File: one JSON object and
// nothing after it, no duplicate key, no null, every value of the type its
// field holds, and no unknown key below the top level. It returns the
// top-level keys in order, for the version's own key check.
func checkJSON(name string, data []byte) ([]string, error) {
	w := walker{name: name, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil {
		return nil, refuse(name, "", "not valid JSON", exampleFix, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, refuse(name, "", "the file is not a JSON object", exampleFix, nil)
	}
	if err := w.object(reflect.TypeFor[File](), ""); err != nil {
		return nil, err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return nil, refuse(name, "", "data after the JSON object", "keep one JSON object in the file", err)
	}
	return w.top, nil
}

// walker checks a JSON document token by token against a Go type.
type walker struct {
	name string
	dec  *json.Decoder
	top  []string // the top-level keys, in order
}

// object reads an object's members after its '{', up to its '}'. t is a
// struct (keys: its json tags; at the top level any key, checked later
// by version), a map (any key) or nil (any value).
func (w *walker) object(t reflect.Type, path string) error {
	fields, names, required := jsonFields(t)
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return refuse(w.name, path, "not valid JSON", exampleFix, err)
		}
		k := tok.(string)
		key := join(path, k)
		if seen[k] {
			return refuse(w.name, key, "the key appears twice", "keep one of them", nil)
		}
		seen[k] = true
		var vt reflect.Type
		switch {
		case t == nil:
		case t.Kind() == reflect.Map:
			vt = t.Elem()
		default:
			ft, ok := fields[k]
			if !ok && path != "" {
				return refuse(w.name, key, "unknown key", "remove it, or use one of "+strings.Join(names, ", "), nil)
			}
			vt = ft
		}
		if path == "" {
			w.top = append(w.top, k)
		}
		if err := w.value(vt, key); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return refuse(w.name, path, "not valid JSON", exampleFix, err)
	}
	for _, k := range required {
		if !seen[k] {
			return refuse(w.name, join(path, k), "missing", fmt.Sprintf("give %s (the object needs %s)", k, strings.Join(required, " and ")), nil)
		}
	}
	return nil
}

// value reads one value at path and checks it against t (nil: any).
func (w *walker) value(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return refuse(w.name, path, "not valid JSON", exampleFix, err)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if tok == nil {
		return refuse(w.name, path, "null", "give a value, or leave the key out", nil)
	}
	got := jsonKind(tok)
	if t != nil && got != kindOf(t) {
		return refuse(w.name, path, fmt.Sprintf("%s where %s belongs", got, kindOf(t)), "write "+kindOf(t), nil)
	}
	switch v := tok.(type) {
	case json.Number:
		if t != nil && t.Kind() == reflect.Int {
			if _, err := strconv.Atoi(string(v)); err != nil {
				return refuse(w.name, path, fmt.Sprintf("%s is not an integer", v), "write an integer", nil)
			}
		} else if f, err := strconv.ParseFloat(string(v), 64); err != nil || !finite(f) {
			return refuse(w.name, path, fmt.Sprintf("%s is not a finite number", v), "write "+kindOf(reflect.TypeFor[float64]()), nil)
		}
	case json.Delim:
		if v == '{' {
			return w.object(t, path)
		}
		var el reflect.Type
		if t != nil {
			el = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(el, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil { // ']'
			return refuse(w.name, path, "not valid JSON", exampleFix, err)
		}
	}
	return nil
}

// jsonFields maps a struct's json tags to their field types; the names in
// field order, and those whose tag says ",required". Nil for anything but
// a struct.
func jsonFields(t reflect.Type) (fields map[string]reflect.Type, names, required []string) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, nil, nil
	}
	fields = map[string]reflect.Type{}
	for i := range t.NumField() {
		if sf := t.Field(i); sf.Anonymous && sf.Tag.Get("json") == "" && sf.Type.Kind() == reflect.Struct {
			f, n, r := jsonFields(sf.Type) // an embedded struct's fields are the object's own
			maps.Copy(fields, f)
			names, required = append(names, n...), append(required, r...)
			continue
		}
		tag, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" {
			fields[tag] = t.Field(i).Type
			names = append(names, tag)
			if slices.Contains(strings.Split(opts, ","), "required") {
				required = append(required, tag)
			}
		}
	}
	return fields, names, required
}

// jsonKind names the kind of value a token starts, in kindOf's words.
func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return "a value"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// kindOf names the JSON kind a Go type holds, as jsonKind does.
func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "a " + t.String()
}
