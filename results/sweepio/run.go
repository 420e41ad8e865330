package sweepio

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/results/review"
	"github.com/aem-dev/aem/rundir"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/sweep"
)

// FieldLabelsColumn is the optional golden-dataset column (carried through
// into turns.parquet) that labels individual fields of a turn: a JSON
// object from field to judgement, {"city": true, "date": false}. A key is a
// field path as in field_scores ("crm.find.city", "crm.find.filters.region")
// or the same path without the "tool.action." prefix; "response" names a
// reply. A boolean (or "pass"/"fail") is a label, a number a graded score.
const FieldLabelsColumn = "field_labels"

// RunOptions says where sweep finds labels besides the run itself.
type RunOptions struct {
	// LabelsFile, when set, is a labels file: JSON Lines, CSV, TSV or
	// Parquet with columns dialog_id, turn_no, optional field, and label
	// and/or score. A row without field labels the turn (and wins over the
	// run's human_label/human_score); a row with field labels that field.
	LabelsFile   string
	LabelsFormat Format
	// IgnoreUnmatched drops labels for turns that are not in the run
	// instead of failing (counted in RunInfo.Unmatched).
	IgnoreUnmatched bool
	// URLMux opens a run given as a blob URL; nil means rundir.Open's
	// default.
	URLMux *blob.URLMux
}

// RunInfo describes what ReadRun found.
type RunInfo struct {
	Dir    string `json:"dir"`
	Scorer string `json:"scorer"`
	Turns  int    `json:"turns"`
	// LabelledTurns have a turn-level human label or score.
	LabelledTurns int `json:"labelled_turns"`
	// FieldLabels is the number of field-level labels used.
	FieldLabels int `json:"field_labels"`
	// Excluded counts labels kept out of threshold fitting, by reason.
	Excluded map[string]int `json:"excluded,omitempty"`
	// Unmatched counts labels-file rows naming turns not in the run
	// (only with IgnoreUnmatched).
	Unmatched int `json:"unmatched,omitempty"`
	// ReviewUnlabelled counts the items of a review file left unjudged
	// (skipped).
	ReviewUnlabelled int `json:"review_unlabelled,omitempty"`
	// Overridden counts field labels of the dataset's field_labels column
	// that a labels file's label of the same field replaced.
	Overridden int `json:"overridden_field_labels,omitempty"`
	// ClauseThreshold is the similarity the run held gold clauses to
	// (completeness.clause, else its global threshold), when it scored
	// replies by coverage: the coverage threshold sweep fits holds for
	// coverage computed at it, so thresholds.json keeps it.
	ClauseThreshold *float64 `json:"clause_threshold,omitempty"`
}

// clauseThreshold is ClauseThreshold of a run's info; nil for none.
func (i *RunInfo) clauseThreshold() *float64 {
	if i == nil {
		return nil
	}
	return i.ClauseThreshold
}

// Reasons a labelled turn or field is kept out of threshold fitting (it
// still counts in verdict agreement).
const (
	ExcludedNoSemantic  = "no semantic comparison (exact or typed matches only)"
	ExcludedOtherCheck  = "failed a check the scorer does not decide (structure, keys, typed or missing values)"
	ExcludedFieldExact  = "field compared without the scorer (exact, typed or missing)"
	ExcludedContextTurn = "context turn (not scored)"
)

// turnKey identifies a turn of a run: dialog_id, trial ("" for none, else
// its decimal number) and turn_no.
type turnKey struct {
	dialog string
	trial  string
	turn   int64
}

// trialKey is turnKey.trial for a run's trial.
func trialKey(trial *int64) string {
	if trial == nil {
		return ""
	}
	return strconv.FormatInt(*trial, 10)
}

type labelEntry struct {
	field    string
	hasLabel bool
	label    bool
	hasScore bool
	score    float64
	row      int // 0-based record index in the labels file
	line     int // 1-based line in a text labels file, else 0
	used     bool
}

// ReadRun reads a run directory written by `aem run` (a local path or a
// blob URL: s3://, gs://, file://, or any scheme opts.URLMux knows) through
// rundir.Open, which refuses an incomplete or corrupt run, and builds the
// calibration input from the human labels: see the package doc for which
// score a label calibrates.
func ReadRun(ctx context.Context, dir string, opts RunOptions) (sweep.Input, *RunInfo, error) {
	rd, err := rundir.Open(ctx, dir, rundir.OpenOptions{URLMux: opts.URLMux})
	if err != nil {
		return sweep.Input{}, nil, fmt.Errorf("opening run %s: %w", dir, err)
	}
	defer rd.Close()
	path := strings.TrimSuffix(dir, "/") + "/" + rundir.TurnsFile
	if !location.IsURL(dir) {
		path = filepath.Join(dir, rundir.TurnsFile)
	}
	info := &RunInfo{Dir: dir, Scorer: rd.Summary.Scorer, Excluded: map[string]int{}}
	labels := map[turnKey][]*labelEntry{}
	if opts.LabelsFile != "" {
		if labels, err = readLabels(opts.LabelsFile, opts.LabelsFormat, info); err != nil {
			return sweep.Input{}, nil, err
		}
	}

	var in sweep.Input
	row := 0
	for t, err := range rundir.ReadTurns[turnView](ctx, rd) {
		if err != nil {
			return sweep.Input{}, nil, err
		}
		if t.ReadOnly != nil && *t.ReadOnly { // a read-only call kept as context: not a verdict
			row++
			continue
		}
		if err := addTurn(&in, info, &t, labels[turnKey{t.DialogID, trialKey(t.Trial), t.TurnNo}], path, row); err != nil {
			return sweep.Input{}, nil, err
		}
		if info.ClauseThreshold == nil && t.scoredByCoverage() {
			c := rd.Summary.Thresholds.For(metrics.ThresholdQuery{SubMetric: metrics.SubCompleteClause}).Value
			info.ClauseThreshold = &c
		}
		if info.Scorer == "" {
			info.Scorer = t.Scorer
		}
		row++
	}
	info.Turns = row
	in.EmbeddingModel = EmbeddingModelOf(info.Scorer)

	var unmatched []*labelEntry
	for _, es := range labels {
		for _, e := range es {
			if !e.used {
				unmatched = append(unmatched, e)
			}
		}
	}
	if len(unmatched) > 0 {
		if !opts.IgnoreUnmatched {
			sort.Slice(unmatched, func(i, j int) bool { return unmatched[i].row < unmatched[j].row })
			e := unmatched[0]
			return sweep.Input{}, nil, rowError(opts.LabelsFile, e.row, e.line, "dialog_id",
				fmt.Sprintf("%d label row(s) name turns that are not in the run %s (the first is on this row)", len(unmatched), dir),
				"check dialog_id and turn_no against the run (aem show "+path+"), make sure the run was made from the labelled dataset, or pass --ignore-unmatched to skip them",
				ErrUnknownTurn)
		}
		info.Unmatched = len(unmatched)
	}
	if len(info.Excluded) == 0 {
		info.Excluded = nil
	}
	in.Excluded = info.Excluded
	return in, info, nil
}

// turnView is the part of rundir.TurnRow that sweep uses, plus the
// optional field_labels column carried through from the golden dataset;
// reading only these columns skips decoding the texts.
type turnView struct {
	ReadOnly     *bool                  `parquet:"read_only,optional"`
	DialogID     string                 `parquet:"dialog_id"`
	Trial        *int64                 `parquet:"trial,optional"`
	TurnNo       int64                  `parquet:"turn_no"`
	Kind         string                 `parquet:"kind"`
	Pass         bool                   `parquet:"pass"`
	FailedChecks []string               `parquet:"failed_checks,list"`
	FieldScores  []rundir.FieldScoreRow `parquet:"field_scores,list"`
	Structure    string                 `parquet:"structure"`
	GoldToolID   *string                `parquet:"gold_tool_id,optional"`
	GoldAction   *string                `parquet:"gold_action,optional"`
	GoldArgs     *string                `parquet:"gold_args,optional"`
	PredictArgs  *string                `parquet:"predict_args,optional"`
	GoldResponse *string                `parquet:"gold_response,optional"`
	PredResponse *string                `parquet:"predict_response,optional"`
	HumanLabel   *bool                  `parquet:"human_label,optional"`
	HumanScore   *float64               `parquet:"human_score,optional"`
	Scorer       string                 `parquet:"scorer"`
	EmbedPass    *bool                  `parquet:"embed_pass,optional"`
	FieldLabels  *string                `parquet:"field_labels,optional"`
	Clauses      []rundir.ClauseRow     `parquet:"clauses,optional,list"`
}

// scores are the turn's comparisons: its field scores and compared
// clauses (rundir.ScoresOf).
func (t *turnView) scores() []rundir.FieldScoreRow { return rundir.ScoresOf(t.FieldScores, t.Clauses) }

// scoredByCoverage reports whether the turn is a reply judged by coverage
// (runs since completeness.response became a coverage share).
func (t *turnView) scoredByCoverage() bool {
	for _, fs := range t.FieldScores {
		if fs.Method == metrics.MethodCoverage {
			return true
		}
	}
	return false
}

// calibrates reports whether a turn's label calibrates the compared
// value: a similarity the scorer decided, or a reply's coverage.
func calibrates(fs rundir.FieldScoreRow) bool {
	return fs.ScorerDecided() || fs.Method == metrics.MethodCoverage
}

// fieldBase is the prefix of the field paths of the turn's gold call
// (metrics.Call.FieldBase); ok is false for a turn without one.
func (t *turnView) fieldBase() (string, bool) {
	if t.GoldToolID == nil || t.GoldAction == nil {
		return "", false
	}
	return metrics.Call{ToolID: *t.GoldToolID, Action: *t.GoldAction}.FieldBase(), true
}

func addTurn(in *sweep.Input, info *RunInfo, t *turnView, file []*labelEntry, path string, row int) error {
	hasLabel, label := t.HumanLabel != nil, t.HumanLabel != nil && *t.HumanLabel
	hasScore, score := t.HumanScore != nil, 0.0
	if hasScore {
		score = *t.HumanScore
	}
	var fieldEntries []*labelEntry
	for _, e := range file {
		e.used = true
		if e.field == "" {
			if e.hasLabel {
				hasLabel, label = true, e.label
			}
			if e.hasScore {
				hasScore, score = true, e.score
			}
		} else {
			fieldEntries = append(fieldEntries, e)
		}
	}
	if t.FieldLabels != nil && strings.TrimSpace(*t.FieldLabels) != "" {
		es, err := parseFieldLabels(*t.FieldLabels)
		if err != nil {
			return rowError(path, row, 0, FieldLabelsColumn, err.Error(),
				`write a JSON object from field to judgement, e.g. {"city": true, "date": false}`, ErrValue)
		}
		fieldEntries = append(fieldEntries, es...)
	}
	if !hasLabel && !hasScore && len(fieldEntries) == 0 {
		return nil
	}
	ref := fmt.Sprintf("dialog %s turn %d", t.DialogID, t.TurnNo)
	if t.Kind != string(metrics.KindAction) && t.Kind != string(metrics.KindResponse) {
		info.Excluded[ExcludedContextTurn]++
		return nil
	}
	if hasLabel {
		info.LabelledTurns++
		in.Verdicts = append(in.Verdicts, sweep.LabelledVerdict{Group: t.DialogID, Ref: ref, Kind: t.Kind, Auto: t.Pass, Human: label, First: t.EmbedPass})
	} else if hasScore {
		info.LabelledTurns++
	}
	if hasScore && (math.IsNaN(score) || math.IsInf(score, 0)) {
		return rowError(path, row, 0, "human_score", fmt.Sprintf("%s has human_score %v", ref, score),
			"give a finite number or leave it empty", ErrValue)
	}
	labelled := map[string]bool{} // fields labelled so far: a labels file's come first and win
	field := func(fs rundir.FieldScoreRow) string {
		if t.Kind == string(metrics.KindAction) {
			return fs.Field
		}
		return ""
	}
	for _, e := range fieldEntries {
		fs, ok := findField(t, e.field)
		if !ok {
			var have []string
			for _, f := range t.scores() {
				have = append(have, f.Field)
			}
			where := FieldLabelsColumn
			if e.row >= 0 {
				where = fmt.Sprintf("labels file row %d", e.row)
			}
			return rowError(path, row, 0, "field", fmt.Sprintf("%s: field label %q (from %s) matches none of the turn's compared fields %v", ref, e.field, where, have),
				"use a field path as listed in field_scores (aem show)", ErrUnknownField)
		}
		if labelled[fs.Field] {
			info.Overridden++
			continue
		}
		labelled[fs.Field] = true
		info.FieldLabels++
		if !fs.ScorerDecided() {
			info.Excluded[ExcludedFieldExact]++
			continue
		}
		s := sweep.Sample{Group: t.DialogID, SubMetric: rundir.SubMetricOf(t.Kind, fs.Field), Field: field(fs), Kind: kindOf(fs),
			Score: fs.FirstScore(), HasLabel: e.hasLabel, Label: e.label, HasHuman: e.hasScore, Human: e.score, Ref: ref + " field " + fs.Field}
		withFeatures(&s, t, fs)
		in.Samples = append(in.Samples, s)
	}
	if len(fieldEntries) > 0 || (!hasLabel && !hasScore) {
		return nil // field labels are more precise than the turn's: they replace it for fitting
	}
	var decided []rundir.FieldScoreRow
	other := t.Structure == string(metrics.OutcomeFail)
	for _, c := range t.FailedChecks {
		other = other || c != string(metrics.ReasonPriorActionFailed) && !metrics.Reason(c).ThresholdBound()
	}
	for _, fs := range t.FieldScores {
		if calibrates(fs) {
			decided = append(decided, fs)
		} else if !fs.Pass {
			other = true
		}
	}
	switch {
	case len(decided) == 0:
		info.Excluded[ExcludedNoSemantic]++
		return nil
	case other:
		info.Excluded[ExcludedOtherCheck]++
		return nil
	}
	for _, g := range calibrated(decided, t.Kind, hasLabel && !label) {
		s := sweep.Sample{Group: t.DialogID, SubMetric: rundir.SubMetricOf(t.Kind, g[0].Field), Field: field(g[0]), Kind: kindOf(g...),
			Score: g[0].FirstScore(), HasLabel: hasLabel, Label: label, HasHuman: hasScore, Human: score, Ref: ref}
		withFeatures(&s, t, g[0])
		for _, fs := range g[1:] {
			if !s.HasFeatures {
				break
			}
			if gt, pt, ok := comparedTexts(t, fs); ok {
				s.Others = append(s.Others, features.Extract(gt, pt, fs.FirstScore()))
			} else {
				s.HasFeatures = false // the composite needs every comparison of the turn
			}
		}
		in.Samples = append(in.Samples, s)
	}
	return nil
}

// calibrated groups a labelled turn's scorer-decided comparisons by
// sub-metric, each group's lowest score first (the comparison that decides
// it under one threshold), and returns the groups the turn's label
// calibrates. The turn passes only when every group passes, so a passing
// label calibrates them all; a failing one calibrates the groups the run
// failed, or, when it failed none, the one closest to failing (lowest
// score - threshold). An action turn has one group (truthfulness.values);
// a reply has its similarity (truthfulness.response) and its coverage
// (completeness.response).
func calibrated(decided []rundir.FieldScoreRow, kind string, failLabel bool) [][]rundir.FieldScoreRow {
	var groups [][]rundir.FieldScoreRow
	index := map[string]int{}
	for _, fs := range decided {
		sub := rundir.SubMetricOf(kind, fs.Field)
		k, ok := index[sub]
		if !ok {
			k = len(groups)
			index[sub] = k
			groups = append(groups, nil)
		}
		g := append(groups[k], fs)
		if last := len(g) - 1; g[last].FirstScore() < g[0].FirstScore() {
			g[0], g[last] = g[last], g[0]
		}
		groups[k] = g
	}
	if !failLabel || len(groups) == 1 {
		return groups
	}
	var failed [][]rundir.FieldScoreRow
	closest := 0
	for i, g := range groups {
		if !g[0].Pass {
			failed = append(failed, g)
		}
		if margin(g[0]) < margin(groups[closest][0]) {
			closest = i
		}
	}
	if len(failed) == 0 {
		failed = groups[closest : closest+1]
	}
	return failed
}

// margin is how far a comparison's first score lies above its threshold.
func margin(fs rundir.FieldScoreRow) float64 { return fs.FirstScore() - fs.Threshold }

// findField finds a turn's compared value by full path, or by the path
// without its "tool.action." prefix.
func findField(t *turnView, key string) (rundir.FieldScoreRow, bool) {
	for _, fs := range t.scores() {
		if fs.Field == key {
			return fs, true
		}
	}
	var prefix string
	if base, ok := t.fieldBase(); ok {
		prefix = base + "."
	}
	var hit []rundir.FieldScoreRow
	for _, fs := range t.FieldScores {
		if (prefix != "" && fs.Field == prefix+key) || (prefix == "" && strings.HasSuffix(fs.Field, "."+key) && strings.Count(fs.Field, ".") == 2+strings.Count(key, ".")) {
			hit = append(hit, fs)
		}
	}
	if len(hit) == 1 {
		return hit[0], true
	}
	return rundir.FieldScoreRow{}, false
}

func parseFieldLabels(s string) ([]*labelEntry, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*labelEntry
	for _, k := range keys {
		e := &labelEntry{field: k, used: true, row: int(badinput.NoRow)}
		switch v := m[k].(type) {
		case bool:
			e.hasLabel, e.label = true, v
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("field %q: score %v is not finite", k, v)
			}
			e.hasScore, e.score = true, v
		case string:
			l, err := parseLabel(v)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", k, err)
			}
			e.hasLabel, e.label = true, l
		case nil:
			continue
		default:
			return nil, fmt.Errorf("field %q: use true/false or a number, not %s", k, m[k])
		}
		out = append(out, e)
	}
	return out, nil
}

// trialSuffix names a turnKey.trial in messages.
func trialSuffix(trial string) string {
	if trial == "" {
		return ""
	}
	return " trial " + trial
}

// readLabels reads a labels file keyed by dialog_id, trial (optional),
// turn_no and field.
func readLabels(path string, format Format, info *RunInfo) (map[turnKey][]*labelEntry, error) {
	if format == FormatReview || (format == "" || format == FormatAuto || format == FormatJSONL) && review.Sniff(path) {
		return readReview(path, info)
	}
	t, _, err := readTable(path, format)
	if err != nil {
		return nil, err
	}
	cd, ct, cf, ctr := t.col("dialog_id"), t.col("turn_no"), t.col("field"), t.col("trial")
	cl, cs := t.col("label", "human_label"), t.col("score", "human_score")
	for _, c := range []struct {
		i    int
		name string
	}{{cd, "dialog_id"}, {ct, "turn_no"}} {
		if c.i < 0 {
			return nil, fileError(path, c.name, fmt.Sprintf("no %s column (columns: %v)", c.name, t.header),
				"a labels file has columns dialog_id, turn_no, optional field, and label and/or score", ErrColumn)
		}
	}
	if cl < 0 && cs < 0 {
		return nil, fileError(path, "label", "neither a label nor a score column",
			"add label (1/0, pass/fail) and/or score", ErrColumn)
	}
	out := map[turnKey][]*labelEntry{}
	type labelKey struct {
		turn  turnKey
		field string
	}
	seen := map[labelKey]int{}
	for r := range t.rows {
		d, ok := t.cell(r, cd)
		if !ok {
			return nil, t.err(r, "dialog_id", "empty dialog_id", "give every row the dialog_id of a dialog in the run", ErrValue)
		}
		tv, _ := t.cell(r, ct)
		tn, err := strconv.ParseInt(strings.TrimSpace(tv), 10, 64)
		if err != nil {
			return nil, t.err(r, "turn_no", fmt.Sprintf("turn_no %q is not a whole number", tv), "give the turn_no of a turn in the run", ErrValue)
		}
		var trial string
		if v, ok := t.cell(r, ctr); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return nil, t.err(r, "trial", fmt.Sprintf("trial %q is not a whole number", v), "give the trial of a dialog in the run, or leave it empty for a dialog without trials", ErrValue)
			}
			trial = strconv.FormatInt(n, 10)
		}
		e := &labelEntry{row: r}
		if t.text {
			e.line = t.lines[r]
		}
		e.field, _ = t.cell(r, cf)
		e.field = strings.TrimSpace(e.field)
		if v, ok := t.cell(r, cl); ok {
			if e.label, err = parseLabel(v); err != nil {
				return nil, t.err(r, t.header[cl], err.Error(), "", ErrValue)
			}
			e.hasLabel = true
		}
		if v, ok := t.cell(r, cs); ok {
			if e.score, err = parseScore(v); err != nil {
				return nil, t.err(r, t.header[cs], err.Error(), "", ErrValue)
			}
			e.hasScore = true
		}
		if !e.hasLabel && !e.hasScore {
			return nil, t.err(r, "label", "neither label nor score is set", "give one, or remove the row", ErrValue)
		}
		k := turnKey{d, trial, tn}
		if prev, dup := seen[labelKey{k, e.field}]; dup {
			return nil, t.err(r, "", fmt.Sprintf("dialog %s%s turn %d field %q is labelled again (first on row %d)", d, trialSuffix(trial), tn, e.field, prev),
				"keep one label per turn and field", ErrValue)
		}
		seen[labelKey{k, e.field}] = r
		out[k] = append(out[k], e)
	}
	return out, nil
}

// readReview reads a review file (package review, written by aem review
// and filled by annotators): each labelled item labels its field, keyed
// as the labels file's rows are; unlabelled items are skipped (counted in
// RunInfo.ReviewUnlabelled).
func readReview(path string, info *RunInfo) (map[turnKey][]*labelEntry, error) {
	items, err := review.Read(path)
	if err != nil {
		return nil, err
	}
	out := map[turnKey][]*labelEntry{}
	for i, it := range items {
		if !it.Labelled() {
			info.ReviewUnlabelled++
			continue
		}
		e := &labelEntry{field: it.Field, row: i, line: it.Line}
		if it.HumanLabel != nil {
			e.hasLabel, e.label = true, *it.HumanLabel
		}
		if it.HumanScore != nil {
			e.hasScore, e.score = true, *it.HumanScore
		}
		k := turnKey{it.DialogID, trialKey(it.Trial), it.TurnNo}
		out[k] = append(out[k], e)
	}
	return out, nil
}

// kindOf is the value kind shared by the comparisons a sample calibrates
// (a turn label covers every value of its turn); "" when they are of
// several kinds, or of none (replies, runs written before kinds).
func kindOf(fs ...rundir.FieldScoreRow) string {
	if len(fs) == 0 || fs[0].Kind == nil {
		return ""
	}
	for _, f := range fs[1:] {
		if f.Kind == nil || *f.Kind != *fs[0].Kind {
			return ""
		}
	}
	return *fs[0].Kind
}
