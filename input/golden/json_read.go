package golden

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics/trials"
)

// lineCounter passes bytes through and remembers where the newlines are,
// so that a byte offset from json.Decoder can be turned into a line number.
// Offsets must be asked for in increasing order; memory stays bounded by
// the decoder's read-ahead.
type lineCounter struct {
	r    io.Reader
	pos  int64
	nl   []int64 // offsets of newlines not yet passed
	line int     // newlines before the last asked offset
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.pos+int64(i))
		}
	}
	l.pos += int64(n)
	return n, err
}

// lineAt returns the 1-based line of byte offset off.
func (l *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(l.nl) && l.nl[i] < off {
		i++
	}
	l.line += i
	l.nl = append(l.nl[:0], l.nl[i:]...)
	return l.line + 1
}

// jsonSource reads the JSON formats.
type jsonSource struct {
	path  string
	lc    *lineCounter
	dec   *json.Decoder
	seed  maphash.Seed
	seen  map[uint64]int // hash of dialog_id -> line
	array bool           // inside a top-level array of dialog objects
	first *json.RawMessage
	start int64
	// filter leaves long strings out of the rows before the decoder reads
	// them (json_filter.go); nil when fields are not limited. rows counts
	// the row values decoded, firstSizes is what it left out of first.
	filter     *jsonFilter
	rows       int
	firstSizes map[string]int
	// extras are the keys carried through as extra columns (see
	// json_extras.go), found by a first pass over the file.
	extras *jsonExtras
	tools  *toolSource
	// maxField is the most bytes a text value may hold (0: any).
	maxField int
}

func (r *Reader) openJSON(f io.ReadSeeker, format Format, tools *toolSource) error {
	extras, err := scanJSONExtras(f, format, !r.unfiltered)
	if err != nil {
		return fmt.Errorf("reading %s: %w", r.path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading %s: %w", r.path, err)
	}
	r.extras, r.extraS = extras.columns()
	br := bufio.NewReaderSize(f, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3) // a UTF-8 byte order mark, as some editors write
	}
	var src io.Reader = br
	var filter *jsonFilter
	if r.maxField > 0 && !r.unfiltered {
		rows, depth := rowsDialogs, 0
		if format == FormatJSON {
			depth = 1
			if !extras.dialogs {
				rows = rowsTurns
			}
		}
		filter = newJSONFilter(br, rows, depth, r.maxField)
		src = filter
	}
	lc := &lineCounter{r: src}
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	s := &jsonSource{path: r.path, lc: lc, dec: dec, seed: maphash.MakeSeed(), seen: map[uint64]int{}, extras: extras, tools: tools,
		maxField: r.maxField, filter: filter}
	if format == FormatJSONL {
		r.next = s.nextLine
		return nil
	}
	if _, err := dec.Token(); err != nil { // '['
		return s.syntaxErr(err)
	}
	if !dec.More() {
		if _, err := dec.Token(); err != nil { // ']'
			return s.syntaxErr(err)
		}
		if err := s.expectEnd(); err != nil {
			return err
		}
		r.next = func(context.Context) ([]Dialog, error) { return nil, io.EOF }
		return nil
	}
	raw, start, sizes, err := s.readValue()
	if err != nil {
		return s.syntaxErr(err)
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) == nil {
		if _, ok := probe["turns"]; ok {
			// An array of dialog objects.
			s.array, s.first, s.start, s.firstSizes = true, &raw, start, sizes
			r.next = s.nextLine
			return nil
		}
	}
	// An array of turns: one dialog named after the file.
	id := strings.TrimSuffix(filepath.Base(r.path), filepath.Ext(r.path))
	done := false
	r.next = func(ctx context.Context) ([]Dialog, error) {
		if done {
			return nil, io.EOF
		}
		done = true
		var recs []turnRec
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			line := s.lc.lineAt(start)
			rec, err := s.parseTurn(raw, nil, id, i, line, sizes)
			if err != nil {
				return nil, err
			}
			recs = append(recs, rec)
			if !dec.More() {
				break
			}
			if raw, start, sizes, err = s.readValue(); err != nil {
				return nil, s.syntaxErr(err)
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, s.syntaxErr(err)
		}
		if err := s.expectEnd(); err != nil {
			return nil, err
		}
		return assemble(s.path, id, recs, s.tools)
	}
	return nil
}

// readValue reads the next row value, its start offset, and the lengths
// of the strings the filter left out of it (jsonFilter.take).
func (s *jsonSource) readValue() (json.RawMessage, int64, map[string]int, error) {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, nil, err
	}
	s.rows++
	return raw, s.dec.InputOffset() - int64(len(raw)), s.filter.take(s.rows - 1), nil
}

func (s *jsonSource) syntaxErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return corrupt(s.path, 0, "reading JSON", errors.New("unexpected end of file (truncated JSON?)"))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return corrupt(s.path, s.lc.lineAt(se.Offset), "invalid JSON", err)
	}
	return corrupt(s.path, 0, "reading JSON", err)
}

func (s *jsonSource) expectEnd() error {
	if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("unexpected data after the top-level array")
		}
		return s.syntaxErr(err)
	}
	return nil
}

// nextLine reads the next dialog object (a JSONL line, or an element of a
// top-level array of dialogs).
func (s *jsonSource) nextLine(ctx context.Context) ([]Dialog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	var start int64
	var sizes map[string]int
	var err error
	switch {
	case s.first != nil:
		raw, start, sizes, s.first, s.firstSizes = *s.first, s.start, s.firstSizes, nil, nil
	case s.array:
		if !s.dec.More() {
			if _, err := s.dec.Token(); err != nil { // ']'
				return nil, s.syntaxErr(err)
			}
			if err := s.expectEnd(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if raw, start, sizes, err = s.readValue(); err != nil {
			return nil, s.syntaxErr(err)
		}
	default:
		if raw, start, sizes, err = s.readValue(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, s.syntaxErr(err)
		}
	}
	line := s.lc.lineAt(start)
	return s.parseDialog(raw, line, sizes)
}

// parseDialog decodes a dialog object; sizes are the lengths of the
// strings the filter left out of it.
func (s *jsonSource) parseDialog(raw json.RawMessage, line int, sizes map[string]int) ([]Dialog, error) {
	bad := func(field, problem, fix string, err error) ([]Dialog, error) {
		return nil, rowError(s.path, badinput.NoRow, line, field, problem, fix, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return bad("", "a dialog must be a JSON object", `write {"dialog_id": "...", "turns": [...]}`, nil)
	}
	id, err := jsonString(obj["dialog_id"], true)
	if v := obj["dialog_id"]; err != nil && v != nil && !isNull(v) {
		return bad("dialog_id", "dialog_id is not a string", fixDialogID, err)
	}
	if id == "" {
		e := errDialogID()
		return bad("dialog_id", e.problem, e.fix, nil)
	}
	trial, err := jsonTrial(obj["trial"])
	if err != nil {
		return bad("trial", err.Error(), fixTrial, nil)
	}
	if trial != nil && *trial < 0 {
		t := trialNegative(*trial)
		return bad("trial", t.problem, t.fix, nil)
	}
	var key maphash.Hash
	key.SetSeed(s.seed)
	key.WriteString(id)
	if trial != nil {
		key.WriteByte(0)
		key.WriteString(strconv.FormatInt(*trial, 10))
	}
	h := key.Sum64()
	if prev, dup := s.seen[h]; dup {
		return bad("dialog_id", fmt.Sprintf("dialog_id %q%s already appeared on line %d", id, trials.Note(trial), prev),
			"put all turns of a dialog (of a trial) in one object (one line)", nil)
	}
	s.seen[h] = line
	turnsRaw, ok := obj["turns"]
	if !ok || isNull(turnsRaw) {
		return bad("turns", "turns is missing", `add "turns": [...]`, nil)
	}
	var turns []json.RawMessage
	if err := json.Unmarshal(turnsRaw, &turns); err != nil {
		return bad("turns", "turns must be an array of turn objects", "", nil)
	}
	if len(turns) == 0 {
		return bad("turns", "dialog has no turns", "drop the dialog or add its turns", nil)
	}
	recs := make([]turnRec, 0, len(turns))
	for i, traw := range turns {
		rec, err := s.parseTurn(traw, obj, id, i, line, sizes)
		if err != nil {
			return nil, err
		}
		rec.trial = trial
		recs = append(recs, rec)
	}
	return assemble(s.path, id, recs, s.tools)
}

// parseTurn decodes one turn object into a record and validates it
// (validate); dialog is its dialog object (nil for an array of turns), for
// the dialog-level extra columns; sizes are the lengths of the strings the
// filter left out of the row (the dialog object, or the turn of an array
// of turns).
func (s *jsonSource) parseTurn(raw json.RawMessage, dialog map[string]json.RawMessage, dialogID string, idx, line int, sizes map[string]int) (turnRec, error) {
	rec := turnRec{row: int64(idx), line: line}
	if dialog != nil {
		rec.jsonPath = fmt.Sprintf("turns[%d]", idx)
	}
	bad := func(field, problem, fix string, err error) (turnRec, error) {
		return turnRec{}, rec.err(s.path, field, problem, fix, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return bad("", "a turn must be a JSON object", `write {"turn_no": 1, "turn": "Agent", "gold_turn": {...}, "predict_turn": {...}}`, nil)
	}
	in := record{dialogID: some(dialogID)}
	if v, ok := dialog["tools"]; ok && idx == 0 && !isNull(v) {
		// The dialog's tool definitions, as their compact text, ride on
		// its first turn as on a Parquet dialog's first row.
		var compact bytes.Buffer
		if err := json.Compact(&compact, v); err != nil {
			return turnRec{}, rowError(s.path, badinput.NoRow, line, "tools", "tools is not valid JSON", "", err)
		}
		in.tools = some(compact.String())
	}
	if v, ok := obj["turn_no"]; ok && !isNull(v) {
		no, err := jsonInt(v)
		if err != nil {
			return bad("turn_no", "turn_no is not an integer", "give every turn an integer turn_no (1, 2, 3, ...)", err)
		}
		in.turnNo = some(no)
	}
	if v, ok := obj["trial"]; ok && !isNull(v) {
		if dialog != nil {
			return bad("trial", "a turn of a dialog object has a trial", `give the trial on the dialog object: {"dialog_id": "...", "trial": 2, "turns": [...]}`, nil)
		}
		n, err := jsonInt(v)
		if err != nil {
			return bad("trial", fmt.Sprintf("trial %s is not an integer", bytes.TrimSpace(v)), fixTrial, nil)
		}
		in.trial = some(n)
	}
	if v, ok := obj["user_turn"]; ok && !isNull(v) {
		n, err := jsonInt(v)
		if err != nil {
			return bad("user_turn", fmt.Sprintf("user_turn %s is not an integer", bytes.TrimSpace(v)), "give the turn_no of the User turn the turn answers, 0 for none", nil)
		}
		in.userTurn = some(n)
	}
	var noCall bool
	var serr *sideError
	if in.gold, noCall, serr = parseSide(obj["gold_turn"], true); serr != nil {
		return bad("gold_turn"+serr.field, serr.problem, serr.fix, serr.err)
	}
	if noCall {
		in.goldNoCall = some(true)
	}
	if in.predict, _, serr = parseSide(obj["predict_turn"], false); serr != nil {
		return bad("predict_turn"+serr.field, serr.problem, serr.fix, serr.err)
	}
	if v, ok := obj["turn"]; ok && !isNull(v) {
		txt, err := jsonString(v, false)
		if err != nil {
			return bad("turn", "unknown role "+string(bytes.TrimSpace(v)), fixRole, nil)
		}
		in.role = some(txt)
	}
	if v, ok := obj["tags"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &in.tags); err != nil {
			return bad("tags", "tags must be an array of strings", "", nil)
		}
	}
	if v, ok := obj["depends_on"]; ok && !isNull(v) {
		var deps []json.Number
		if err := json.Unmarshal(v, &deps); err != nil {
			return bad("depends_on", "depends_on must be an array of turn numbers", "", nil)
		}
		in.dependsOn = some(make([]int64, len(deps)))
		for i, d := range deps {
			n, err := strconv.ParseInt(d.String(), 10, 64)
			if err != nil {
				return bad("depends_on", fmt.Sprintf("depends_on has %s, not a turn number", d), "list turn numbers (>= 1) of earlier turns", nil)
			}
			in.dependsOn.v[i] = n
		}
	}
	for _, b := range []struct {
		name string
		dst  *opt[bool]
	}{{"human_label", &in.humanLabel}, {"critical", &in.critical}} {
		if v, ok := obj[b.name]; ok && !isNull(v) {
			if err := json.Unmarshal(v, &b.dst.v); err != nil {
				return bad(b.name, b.name+" must be true, false or null", "", nil)
			}
			b.dst.ok = true
		}
	}
	for _, f := range []struct {
		name string
		dst  *opt[float64]
	}{{"human_score", &in.humanScore}, {"weight", &in.weight}, {"latency_ms", &in.latencyMS}} {
		if v, ok := obj[f.name]; ok && !isNull(v) {
			if err := json.Unmarshal(v, &f.dst.v); err != nil {
				return bad(f.name, f.name+" must be a number or null", "", nil)
			}
			f.dst.ok = true
		}
	}
	var err error
	if len(s.extras.cols) > 0 {
		if rec.extra, err = s.extras.row(obj, dialog); err != nil {
			return bad("", fmt.Sprintf("extra key %v", err), "give each extra key values of one kind throughout the file", nil)
		}
	}
	in.shortened = shortenedTexts(sizes, rec.jsonPath, dialog != nil)
	t, trial, tools, invalid := validate(&in, s.maxField)
	switch {
	case invalid != nil && invalid.col == ColTools: // the dialog object's "tools" key
		return turnRec{}, rowError(s.path, badinput.NoRow, line, "tools", invalid.problem, invalid.fix, invalid.err)
	case invalid != nil:
		return bad(jsonField(invalid.col), invalid.problem, invalid.fix, invalid.err)
	}
	rec.turn, rec.trial, rec.tools = t, trial, tools
	return rec, nil
}

// turnTexts are the text values of a turn that validate limits, by the
// JSON key path holding each (a function's name is its tool_id); the
// filter leaves them out when they are too long (see jsonFilter).
var turnTexts = []struct{ col, key string }{
	{ColTurn, "turn"},
	{ColGoldResponse, "gold_turn.response"}, {ColGoldToolID, "gold_turn.tool_id"}, {ColGoldToolID, "gold_turn.name"},
	{ColGoldAction, "gold_turn.action"}, {ColGoldArgs, "gold_turn.args"},
	{ColPredictResponse, "predict_turn.response"}, {ColPredictToolID, "predict_turn.tool_id"}, {ColPredictToolID, "predict_turn.name"},
	{ColPredictAction, "predict_turn.action"}, {ColPredictArgs, "predict_turn.args"},
}

// shortenedTexts are the lengths of the turn's text values that the
// filter left out, from those of its row (sizes, by path in the row): the
// turn is at turnPath in it ("turns[2]"; "" for a turn of an array of
// turns), and a dialog object's dialog_id is every turn's (its tools the
// first turn's).
func shortenedTexts(sizes map[string]int, turnPath string, dialog bool) map[textKey]int {
	if len(sizes) == 0 {
		return nil
	}
	out := map[textKey]int{}
	if n, ok := sizes["dialog_id"]; ok && dialog {
		out[textKey{col: ColDialogID}] = n
	}
	if n, ok := sizes["tools"]; ok && dialog {
		out[textKey{col: ColTools}] = n
	}
	prefix := ""
	if turnPath != "" {
		prefix = turnPath + "."
	}
	for _, t := range turnTexts {
		if n, ok := sizes[prefix+t.key]; ok {
			out[textKey{col: t.col}] = n
		}
	}
	for p, n := range sizes {
		if idx, ok := strings.CutPrefix(p, prefix+"tags["); ok {
			if i, err := strconv.Atoi(strings.TrimSuffix(idx, "]")); err == nil {
				out[textKey{col: ColTags, i: i}] = n
			}
		}
	}
	return out
}

// jsonField is the JSON name of a canonical column: the sides' columns
// are keys of gold_turn and predict_turn (gold_args: gold_turn.args).
func jsonField(col string) string {
	switch col {
	case ColGoldResponse, ColGoldToolID, ColGoldAction, ColGoldArgs, ColGoldNoCall:
		return "gold_turn." + strings.TrimPrefix(col, "gold_")
	case ColPredictResponse, ColPredictToolID, ColPredictAction, ColPredictArgs:
		return "predict_turn." + strings.TrimPrefix(col, "predict_")
	}
	return col
}

// sideError says what is wrong with a gold_turn or predict_turn.
type sideError struct {
	field, problem, fix string
	err                 error
}

// parseSide decodes a gold_turn/predict_turn value: absent or null is no
// side; {"response": ...} a reply; {"tool_id", "action", "args"} or
// {"name", "args"} a call (named by metrics.Named's rule); for gold,
// {"no_call": true} says no call should be made (noCall). Args are kept
// as text: a JSON object's own text, the text a JSON string holds, "" for
// null (no arguments), else the JSON as written (the agent's malformed
// output on the predicted side). Whether the side fits the turn is
// validate's to say.
func parseSide(raw json.RawMessage, gold bool) (s side, noCall bool, serr *sideError) {
	if raw == nil || isNull(raw) {
		return side{}, false, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return side{}, false, &sideError{problem: "must be an object or null", fix: `write {"response": "..."} or {"tool_id": "...", "action": "...", "args": {...}}`}
	}
	var name opt[string] // a plain function's name
	// In key order: a side with two faults gets the same message every
	// time (a map's order would pick one at random).
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch k {
		case "response", "tool_id", "action", "name":
			txt, err := jsonString(v, false)
			if err != nil && !isNull(v) {
				return side{}, false, &sideError{field: "." + k, problem: k + " must be a string"}
			}
			dst := map[string]*opt[string]{"response": &s.response, "tool_id": &s.toolID, "action": &s.action, "name": &name}[k]
			*dst = some(txt)
		case "args":
			s.args = some(argsText(v))
		case "no_call":
			var b bool
			if err := json.Unmarshal(v, &b); err != nil || !b || !gold {
				return side{}, false, &sideError{field: ".no_call", problem: "no_call must be true, in a gold_turn",
					fix: `write "gold_turn": {"no_call": true} when no tool should be called; a prediction without a call is "predict_turn": null`}
			}
			noCall = true
		default:
			return side{}, false, &sideError{field: "." + k, problem: fmt.Sprintf("unknown field %q", k),
				fix: "a side has either response, or a call: name (a function) or tool_id and action, with args"}
		}
	}
	if name.v != "" && (s.toolID.v != "" || s.action.v != "") {
		return side{}, false, &sideError{field: ".name", problem: "has a function name beside tool_id or action",
			fix: `write {"name": "get_weather", "args": {...}} for a function, or {"tool_id": "sales_db", "action": "aggregate", "args": {...}}`}
	}
	if name.ok && (name.v != "" || !s.toolID.ok) {
		s.toolID = name
	}
	if !s.hasCall() && !s.response.ok && !noCall {
		return side{}, false, &sideError{problem: "is an empty object", fix: `use null for an absent turn, or give {"response": ...} or {"tool_id", "action", "args"}`}
	}
	return s, noCall, nil
}

// argsText is a call's args as text: the text a JSON string holds, ""
// for null (no arguments), else the JSON as written (an object, or what
// the agent wrote instead of one).
func argsText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if isNull(v) {
		return ""
	}
	var txt string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &txt) == nil {
		return txt
	}
	return string(v)
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// jsonString decodes a JSON string; with allowNumber, a number is taken as its text.
func jsonString(v json.RawMessage, allowNumber bool) (string, error) {
	if v == nil {
		return "", errors.New("missing")
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	if allowNumber {
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&n); err == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("%s is not a string", string(v))
}

// jsonTrial decodes a trial: nil when absent or null.
func jsonTrial(v json.RawMessage) (*int64, error) {
	if v == nil || isNull(v) {
		return nil, nil
	}
	n, err := jsonInt(v)
	if err != nil {
		return nil, fmt.Errorf("trial %s is not an integer", bytes.TrimSpace(v))
	}
	return &n, nil
}

func jsonInt(v json.RawMessage) (int64, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0, errors.New("missing")
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return 0, fmt.Errorf("%s is not a number", string(v))
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return 0, fmt.Errorf("%s is not a number", string(v))
	}
	return strconv.ParseInt(n.String(), 10, 64)
}
