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
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
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
	// extras are the keys carried through as extra columns (see
	// json_extras.go), found by a first pass over the file.
	extras *jsonExtras
	tools  *toolSource
}

func (r *Reader) openJSON(f io.ReadSeeker, format Format, tools *toolSource) error {
	extras, err := scanJSONExtras(f, format)
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
	lc := &lineCounter{r: br}
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	s := &jsonSource{path: r.path, lc: lc, dec: dec, seed: maphash.MakeSeed(), seen: map[uint64]int{}, extras: extras, tools: tools}
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
	raw, start, err := s.readValue()
	if err != nil {
		return err
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) == nil {
		if _, ok := probe["turns"]; ok {
			// An array of dialog objects.
			s.array, s.first, s.start = true, &raw, start
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
			rec, err := s.parseTurn(raw, nil, id, i, line)
			if err != nil {
				return nil, err
			}
			recs = append(recs, rec)
			if !dec.More() {
				break
			}
			if raw, start, err = s.readValue(); err != nil {
				return nil, err
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

// readValue reads the next JSON value and its start offset.
func (s *jsonSource) readValue() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, s.syntaxErr(err)
	}
	return raw, s.dec.InputOffset() - int64(len(raw)), nil
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
	switch {
	case s.first != nil:
		raw, start, s.first = *s.first, s.start, nil
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
		var err error
		if raw, start, err = s.readValue(); err != nil {
			return nil, err
		}
	default:
		if err := s.dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, s.syntaxErr(err)
		}
		start = s.dec.InputOffset() - int64(len(raw))
	}
	line := s.lc.lineAt(start)
	return s.parseDialog(raw, line)
}

func (s *jsonSource) parseDialog(raw json.RawMessage, line int) ([]Dialog, error) {
	bad := func(field, problem, fix string, err error) ([]Dialog, error) {
		return nil, rowError(s.path, badinput.NoRow, line, field, problem, fix, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return bad("", "a dialog must be a JSON object", `write {"dialog_id": "...", "turns": [...]}`, nil)
	}
	id, err := jsonString(obj["dialog_id"], true)
	if err != nil || id == "" {
		return bad("dialog_id", "dialog_id is missing, empty or not a string", "give every dialog a non-empty dialog_id", err)
	}
	trial, err := jsonTrial(obj["trial"])
	if err != nil {
		return bad("trial", err.Error(), trialFix, nil)
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
		rec, err := s.parseTurn(traw, obj, id, i, line)
		if err != nil {
			return nil, err
		}
		rec.trial = trial
		recs = append(recs, rec)
	}
	if v, ok := obj["tools"]; ok && !isNull(v) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, v); err != nil {
			return bad("tools", "tools is not valid JSON", "", err)
		}
		recs[0].tools = compact.String()
	}
	return assemble(s.path, id, recs, s.tools)
}

// jsonSide is one decoded gold_turn or predict_turn.
type jsonSide struct {
	present  bool
	response *string
	call     metrics.Call
	isCall   bool
	noCall   bool // gold_turn {"no_call": true}
}

// parseTurn decodes one turn object; dialog is its dialog object (nil for
// an array of turns), for the dialog-level extra columns.
func (s *jsonSource) parseTurn(raw json.RawMessage, dialog map[string]json.RawMessage, dialogID string, idx, line int) (turnRec, error) {
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
	t := &rec.turn
	t.DialogID = dialogID

	no, err := jsonInt(obj["turn_no"])
	if err != nil {
		return bad("turn_no", "turn_no is missing or not an integer", "give every turn an integer turn_no (1, 2, 3, ...)", err)
	}
	if no < 1 || no > math.MaxInt32 {
		return bad("turn_no", fmt.Sprintf("turn_no %d is out of range", no), "number turns from 1", nil)
	}
	t.TurnNo = int(no)
	if v, ok := obj["trial"]; ok && !isNull(v) {
		if dialog != nil {
			return bad("trial", "a turn of a dialog object has a trial", `give the trial on the dialog object: {"dialog_id": "...", "trial": 2, "turns": [...]}`, nil)
		}
		if rec.trial, err = jsonTrial(v); err != nil {
			return bad("trial", err.Error(), trialFix, nil)
		}
	}

	gold, serr := parseSide(obj["gold_turn"], true)
	if serr != nil {
		return bad("gold_turn"+serr.field, serr.problem, serr.fix, serr.err)
	}
	if gold.isCall {
		if err := metrics.ValidateGoldArgs(gold.call.Args); err != nil {
			return bad("gold_turn.args", "bad alternatives spec", `write {"$any": [v1, v2], "$optional": true}`, err)
		}
	}
	pred, serr := parseSide(obj["predict_turn"], false)
	if serr != nil {
		return bad("predict_turn"+serr.field, serr.problem, serr.fix, serr.err)
	}
	roleRaw, hasRole := obj["turn"]
	if hasRole && !isNull(roleRaw) {
		txt, err := jsonString(roleRaw, false)
		role, known := parseRole(txt)
		if err != nil || !known {
			return bad("turn", "unknown role "+string(roleRaw), "use Agent (a reply), Tool (a tool call) or User (context)", nil)
		}
		t.Role = role
	} else {
		// Inferred from the shape of the turn.
		switch {
		case gold.isCall || pred.isCall || gold.noCall:
			t.Role = metrics.RoleTool
		case gold.present || pred.present:
			t.Role = metrics.RoleAgent
		default:
			return bad("turn", "turn has no role and no gold_turn or predict_turn to infer it from", `set "turn": "Agent", "Tool" or "User"`, nil)
		}
	}
	for _, side := range []struct {
		name string
		s    jsonSide
	}{{"gold_turn", gold}, {"predict_turn", pred}} {
		if !side.s.present {
			continue
		}
		if t.Role == metrics.RoleTool && side.s.response != nil {
			return bad(side.name, "a Tool turn has a response", `give a Tool turn {"tool_id", "action", "args"}, or set "turn": "Agent"`, nil)
		}
		if t.Role != metrics.RoleTool && side.s.isCall {
			return bad(side.name, fmt.Sprintf("a %s turn has a tool call", t.Role), `set "turn": "Tool" for a tool call`, nil)
		}
	}
	t.HasGold, t.HasPredict = gold.present, pred.present
	if gold.noCall && t.Role != metrics.RoleTool {
		return bad("gold_turn.no_call", fmt.Sprintf("a %s turn has no_call", t.Role), `no_call belongs to Tool turns: set "turn": "Tool"`, nil)
	}
	t.GoldNoCall = gold.noCall
	if t.Role == metrics.RoleTool {
		t.Gold, t.Predict = gold.call, pred.call
	} else {
		if gold.response != nil {
			t.GoldResponse = *gold.response
		}
		if pred.response != nil {
			t.PredictResponse = *pred.response
		}
	}
	if !t.HasGold && !t.HasPredict {
		return bad("gold_turn", "turn has neither gold_turn nor predict_turn", "give the expected output in gold_turn and the actual one in predict_turn", nil)
	}

	if v, ok := obj["tags"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &t.Tags); err != nil {
			return bad("tags", "tags must be an array of strings", "", nil)
		}
		if len(t.Tags) == 0 {
			t.Tags = nil
		}
	}
	if v, ok := obj["depends_on"]; ok && !isNull(v) {
		var deps []json.Number
		if err := json.Unmarshal(v, &deps); err != nil {
			return bad("depends_on", "depends_on must be an array of turn numbers", "", nil)
		}
		t.DependsOn = make([]int, len(deps))
		for i, d := range deps {
			n, err := strconv.ParseInt(d.String(), 10, 64)
			if err != nil || n < 1 || n > math.MaxInt32 {
				return bad("depends_on", fmt.Sprintf("depends_on has %s, not a turn number", d), "list turn numbers (>= 1) of earlier turns", nil)
			}
			t.DependsOn[i] = int(n)
		}
	}
	if v, ok := obj["human_label"]; ok && !isNull(v) {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return bad("human_label", "human_label must be true, false or null", "", nil)
		}
		t.HumanLabel = &b
	}
	if v, ok := obj["critical"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &t.Critical); err != nil {
			return bad("critical", "critical must be true, false or null", "", nil)
		}
	}
	for _, fl := range []struct {
		name     string
		dst      **float64
		negative bool
	}{{"human_score", &t.HumanScore, true}, {"weight", &t.Weight, false}, {"latency_ms", &t.LatencyMS, false}} {
		v, ok := obj[fl.name]
		if !ok || isNull(v) {
			continue
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return bad(fl.name, fl.name+" must be a number or null", "", nil)
		}
		if !fl.negative && f < 0 {
			return bad(fl.name, fmt.Sprintf("%s is %v", fl.name, f), "use a number >= 0, or null", nil)
		}
		if fl.dst == &t.LatencyMS {
			if problem := checkLatency(f); problem != "" {
				return bad(fl.name, problem, latencyFix, nil)
			}
		}
		*fl.dst = &f
	}
	if len(s.extras.cols) > 0 {
		if rec.extra, err = s.extras.row(obj, dialog); err != nil {
			return bad("", fmt.Sprintf("extra key %v", err), "give each extra key values of one kind throughout the file", nil)
		}
	}
	return rec, nil
}

// sideError says what is wrong with a gold_turn or predict_turn.
type sideError struct {
	field, problem, fix string
	err                 error
}

// parseSide decodes a gold_turn/predict_turn value: absent or null is no
// side; {"response": ...} a reply; {"tool_id", "action", "args"} or
// {"name", "args"} a call (named by metrics.Named's rule);
// for gold, {"no_call": true} says no call should be made. Predicted args
// that are not a JSON object are the agent's mistake, kept in
// Call.UnparsedArgs; gold args must be one.
func parseSide(raw json.RawMessage, gold bool) (jsonSide, *sideError) {
	if raw == nil || isNull(raw) {
		return jsonSide{}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return jsonSide{}, &sideError{problem: "must be an object or null", fix: `write {"response": "..."} or {"tool_id": "...", "action": "...", "args": {...}}`}
	}
	side := jsonSide{present: true}
	name := "" // a plain function's name
	for k, v := range obj {
		switch k {
		case "response":
			txt, err := jsonString(v, false)
			if err != nil {
				return jsonSide{}, &sideError{field: ".response", problem: "response must be a string"}
			}
			side.response = &txt
		case "tool_id", "action", "name":
			txt, err := jsonString(v, false)
			if err != nil && !isNull(v) {
				return jsonSide{}, &sideError{field: "." + k, problem: k + " must be a string"}
			}
			switch k {
			case "tool_id":
				side.call.ToolID = txt
			case "action":
				side.call.Action = txt
			default:
				name = txt
			}
			side.isCall = true
		case "args":
			args, err := decodeArgsValue(v)
			switch {
			case err != nil && gold:
				return jsonSide{}, &sideError{field: ".args", problem: "bad args",
					fix: `give args as a JSON object, e.g. {"city": "Paris"}, or as the text of one`, err: err}
			case err != nil:
				side.call.UnparsedArgs = argsText(v)
			}
			side.call.Args = args
			side.isCall = true
		case "no_call":
			var b bool
			if err := json.Unmarshal(v, &b); err != nil || !b || !gold {
				return jsonSide{}, &sideError{field: ".no_call", problem: "no_call must be true, in a gold_turn",
					fix: `write "gold_turn": {"no_call": true} when no tool should be called; a prediction without a call is "predict_turn": null`}
			}
			side.noCall = true
		default:
			return jsonSide{}, &sideError{field: "." + k, problem: fmt.Sprintf("unknown field %q", k),
				fix: "a side has either response, or a call: name (a function) or tool_id and action, with args"}
		}
	}
	if name != "" && (side.call.ToolID != "" || side.call.Action != "") {
		return jsonSide{}, &sideError{field: ".name", problem: "has a function name beside tool_id or action",
			fix: `write {"name": "get_weather", "args": {...}} for a function, or {"tool_id": "sales_db", "action": "aggregate", "args": {...}}`}
	}
	if name != "" {
		side.call.ToolID = name
	}
	side.call.ToolID, side.call.Action = metrics.Named(side.call.ToolID, side.call.Action)
	if side.response != nil && side.isCall {
		return jsonSide{}, &sideError{problem: "has both a response and a tool call", fix: "split it into two turns"}
	}
	if side.noCall && (side.isCall || side.response != nil) {
		return jsonSide{}, &sideError{field: ".no_call", problem: "has no_call beside a call or a response", fix: `write "gold_turn": {"no_call": true} alone`}
	}
	if !side.isCall && side.response == nil && !side.noCall {
		return jsonSide{}, &sideError{problem: "is an empty object", fix: `use null for an absent turn, or give {"response": ...} or {"tool_id", "action", "args"}`}
	}
	if side.isCall && side.call.Args == nil && side.call.UnparsedArgs == "" {
		side.call.Args = map[string]any{}
	}
	return side, nil
}

// argsText is args that are not a JSON object, as the agent wrote them:
// the text of a JSON string, else the JSON itself.
func argsText(v json.RawMessage) string {
	var txt string
	if json.Unmarshal(v, &txt) == nil {
		return txt
	}
	return string(bytes.TrimSpace(v))
}

// decodeArgsValue accepts args as a JSON object, as the text of one, or null (no args).
func decodeArgsValue(v json.RawMessage) (map[string]any, error) {
	v = bytes.TrimSpace(v)
	if isNull(v) {
		return map[string]any{}, nil
	}
	if len(v) > 0 && v[0] == '"' {
		var txt string
		if err := json.Unmarshal(v, &txt); err != nil {
			return nil, err
		}
		return DecodeArgs(txt)
	}
	return metrics.DecodeArgs(v)
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

// trialFix is the fix for a bad trial.
const trialFix = "number trials with integers from 0 or 1; leave trial out for a dialog that is not a repeated trial"

// jsonTrial decodes a trial: nil when absent or null.
func jsonTrial(v json.RawMessage) (*int64, error) {
	if v == nil || isNull(v) {
		return nil, nil
	}
	n, err := jsonInt(v)
	if err != nil {
		return nil, fmt.Errorf("trial %s is not an integer", bytes.TrimSpace(v))
	}
	if n < 0 {
		return nil, fmt.Errorf("trial %d is negative", n)
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
