package golden

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/parquet-go/parquet-go"
)

// ExtraColumn describes one carried-through top-level column of a Parquet
// input: a column that is neither canonical nor the target of a mapping.
type ExtraColumn struct {
	Name string       // original column name
	Node parquet.Node // original node: type, logical type, optional/repeated, nested fields
	// FirstLeaf and Leaves give the column's leaf columns in the numbering
	// of Reader.ExtraSchema (and of Dialog.Extra rows).
	FirstLeaf int
	Leaves    int
}

// leafSlot says what a leaf column of the file feeds.
type leafSlot struct {
	slot  int // canonical slot, or -1
	extra int // column index in the extras numbering, or -1
}

// canonCol is a resolved canonical column.
type canonCol struct {
	present  bool
	leaf     int
	kind     parquet.Kind
	optional bool // top-level field is optional (null list vs empty list)
}

// parquetSource decodes rows of one Parquet file.
type parquetSource struct {
	path  string
	file  *parquet.File
	opts  ReadOptions
	leafs []leafSlot
	canon [numSlots]canonCol
	vals  [][]parquet.Value // per leaf, values of the current row
}

func (r *Reader) openParquet(ctx context.Context, f *os.File, opts ReadOptions) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", r.path, err)
	}
	var pf *parquet.File
	err = safely(r.path, "reading the Parquet footer", func() error {
		var err error
		pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
		return err
	})
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return err
		}
		return corrupt(r.path, 0, "reading the Parquet footer", err)
	}
	r.numRows = pf.NumRows()
	src := &parquetSource{path: r.path, file: pf, opts: opts}
	if err := src.resolve(r); err != nil {
		return err
	}
	spans, unsorted, err := src.detect(ctx)
	if err != nil {
		return err
	}
	if unsorted == nil {
		rows := src.rows(ctx)
		r.next = groupConsecutive(r.path, rows, newToolSource(opts.Tools))
		return nil
	}
	if opts.RequireSorted {
		return unsortedError(r.path, unsorted.DialogID, unsorted.FirstRow, unsorted.Row)
	}
	r.unsorted = unsorted
	opts.Hook.UnsortedFallback(*unsorted)
	sorter, err := newSpillSorter(opts.SpillDir, opts.SpillMemory, r.path)
	if err != nil {
		return err
	}
	r.closers = append(r.closers, sorter.Close)
	recs, err := src.spillAll(ctx, sorter, spans)
	if err != nil {
		return err
	}
	r.next = groupConsecutive(r.path, recs, newToolSource(opts.Tools))
	return nil
}

// resolve maps the file's columns onto the canonical slots and the extras.
func (s *parquetSource) resolve(r *Reader) error {
	schema := s.file.Schema()
	fields := schema.Fields()
	present := make([]string, len(fields))
	byName := map[string]int{}
	firstLeaf := make([]int, len(fields))
	nLeaves := make([]int, len(fields))
	leaf := 0
	for i, f := range fields {
		present[i] = f.Name()
		byName[f.Name()] = i
		firstLeaf[i] = leaf
		nLeaves[i] = CountLeaves(f)
		leaf += nLeaves[i]
	}
	s.leafs = make([]leafSlot, leaf)
	for i := range s.leafs {
		s.leafs[i] = leafSlot{slot: -1, extra: -1}
	}
	s.vals = make([][]parquet.Value, leaf)

	// Mapped column names must exist.
	var badMap []string
	for _, canon := range sortedKeys(s.opts.Mapping) {
		if _, ok := byName[s.opts.Mapping[canon]]; !ok {
			badMap = append(badMap, fmt.Sprintf("%s=%s", canon, s.opts.Mapping[canon]))
		}
	}
	if len(badMap) > 0 {
		return columnError(s.path, present, nil, fmt.Sprintf("--map names column(s) the file does not have: %s", strings.Join(badMap, ", ")),
			"map to one of the file's columns")
	}

	var missing []string
	for _, c := range columns {
		src := s.opts.Mapping.source(c.name)
		if _, ok := byName[src]; !ok && c.required {
			if src != c.name {
				missing = append(missing, fmt.Sprintf("%s (mapped to %s)", c.name, src))
			} else {
				missing = append(missing, c.name)
			}
		}
	}
	if len(missing) > 0 {
		return columnError(s.path, present, missing, "", "rename the columns, or map them with --map CANONICAL=YOUR_COLUMN,... (e.g. --map gold_args=expected_arguments)")
	}

	used := map[int]string{} // field index -> canonical name
	for slot, c := range columns {
		src := s.opts.Mapping.source(c.name)
		fi, ok := byName[src]
		if !ok {
			continue
		}
		if other, dup := used[fi]; dup {
			return columnError(s.path, present, nil, fmt.Sprintf("column %q would feed both %s and %s", src, other, c.name),
				fmt.Sprintf("map %s to a column of its own with --map %s=COLUMN", c.name, c.name))
		}
		used[fi] = c.name
		f := fields[fi]
		kind, err := checkColumnType(f, c.kind)
		if err != nil {
			return columnError(s.path, present, nil, fmt.Sprintf("column %q (for %s) %v, want %s", src, c.name, err, c.kind),
				fmt.Sprintf("cast the column to %s, or map %s to another column with --map %s=COLUMN", c.kind, c.name, c.name))
		}
		s.canon[slot] = canonCol{present: true, leaf: firstLeaf[fi], kind: kind, optional: f.Optional()}
		s.leafs[firstLeaf[fi]].slot = slot
	}

	// Everything else is carried through.
	var extraFields []parquet.Field
	next := 0
	for i, f := range fields {
		if _, ok := used[i]; ok {
			continue
		}
		r.extras = append(r.extras, ExtraColumn{Name: f.Name(), Node: f, FirstLeaf: next, Leaves: nLeaves[i]})
		for j := 0; j < nLeaves[i]; j++ {
			s.leafs[firstLeaf[i]+j].extra = next + j
		}
		next += nLeaves[i]
		extraFields = append(extraFields, f)
	}
	if len(extraFields) > 0 {
		r.extraS = parquet.NewSchema("extras", OrderedGroup(extraFields))
	}
	return nil
}

// CountLeaves is the number of leaf columns under n.
func CountLeaves(n parquet.Node) int {
	if n.Leaf() {
		return 1
	}
	c := 0
	for _, f := range n.Fields() {
		c += CountLeaves(f)
	}
	return c
}

// checkColumnType checks a top-level field against the wanted kind and
// returns the physical kind of its leaf.
func checkColumnType(f parquet.Node, want colKind) (parquet.Kind, error) {
	isList := want == kindStringList || want == kindIntList
	var leaf parquet.Node
	if isList {
		// LIST-annotated group (3-level or 2-level) or a bare repeated leaf.
		n, repeated := f, f.Repeated()
		for !n.Leaf() {
			fs := n.Fields()
			if len(fs) != 1 {
				return 0, fmt.Errorf("is a group of %d fields", len(fs))
			}
			n = fs[0]
			if n.Repeated() {
				if repeated {
					return 0, errors.New("is a nested list")
				}
				repeated = true
			}
		}
		if !repeated {
			return 0, errors.New("is not a list")
		}
		leaf = n
	} else {
		if !f.Leaf() {
			return 0, errors.New("is a group")
		}
		if f.Repeated() {
			return 0, errors.New("is repeated")
		}
		leaf = f
	}
	kind := leaf.Type().Kind()
	ok := false
	switch want {
	case kindString, kindStringList:
		ok = kind == parquet.ByteArray
	case kindID:
		ok = kind == parquet.ByteArray || kind == parquet.Int32 || kind == parquet.Int64
	case kindInt, kindIntList:
		ok = kind == parquet.Int32 || kind == parquet.Int64
	case kindBool:
		ok = kind == parquet.Boolean
	case kindFloat:
		ok = kind == parquet.Float || kind == parquet.Double || kind == parquet.Int32 || kind == parquet.Int64
	}
	if !ok {
		return 0, fmt.Errorf("has type %s", leaf.Type())
	}
	return kind, nil
}

// spanInfo is what the detection pass keeps per dialog (by hash of its id).
type spanInfo struct{ first, last int64 }

// detect reads only the dialog_id column and reports the first dialog
// whose rows are not contiguous. When the input is unsorted it returns
// every dialog's first row (by id hash) for the fallback.
func (s *parquetSource) detect(ctx context.Context) (*dialogSpans, *UnsortedInfo, error) {
	seed := maphash.MakeSeed()
	spans := map[uint64]spanInfo{}
	var (
		cur      []byte
		curHash  uint64
		have     bool
		row      int64
		unsorted *UnsortedInfo
		idBuf    []byte
	)
	leaf := s.canon[slotDialogID].leaf
	buf := make([]parquet.Value, 4096)
	for gi, rg := range s.file.RowGroups() {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		err := safely(s.path, fmt.Sprintf("reading dialog_id in row group %d", gi), func() error {
			pages := rg.ColumnChunks()[leaf].Pages()
			defer pages.Close()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				vr := p.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if v.IsNull() {
							parquet.Release(p)
							return s.invalid(row, errDialogID())
						}
						idBuf = appendID(idBuf[:0], v)
						if len(idBuf) == 0 {
							parquet.Release(p)
							return s.invalid(row, errDialogID())
						}
						if !have || string(idBuf) != string(cur) {
							if have {
								sp := spans[curHash]
								sp.last = row - 1
								spans[curHash] = sp
							}
							h := maphash.Bytes(seed, idBuf)
							if sp, seen := spans[h]; seen {
								if unsorted == nil {
									unsorted = &UnsortedInfo{File: s.path, DialogID: string(idBuf), FirstRow: sp.last, Row: row}
								}
								if s.opts.RequireSorted {
									parquet.Release(p)
									return nil
								}
							} else {
								spans[h] = spanInfo{first: row, last: row}
							}
							cur = append(cur[:0], idBuf...)
							curHash, have = h, true
						}
						row++
					}
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						parquet.Release(p)
						return err
					}
				}
				parquet.Release(p)
			}
		})
		if err != nil {
			return nil, nil, wrapRead(s.path, gi, err)
		}
		if unsorted != nil && s.opts.RequireSorted {
			break
		}
	}
	if unsorted == nil {
		return nil, nil, nil
	}
	unsorted.Dialogs = int64(len(spans))
	unsorted.Rows = row
	return &dialogSpans{seed: seed, spans: spans}, unsorted, nil
}

// dialogSpans maps a hash of each dialog_id to its first and last rows.
// Two ids with the same 64-bit hash share an entry; the spill sort breaks
// ties by the id itself, so a collision can only change dialog order,
// never split or merge dialogs.
type dialogSpans struct {
	seed  maphash.Seed
	spans map[uint64]spanInfo
}

func (d *dialogSpans) firstRow(id string) int64 {
	return d.spans[maphash.String(d.seed, id)].first
}

func wrapRead(path string, group int, err error) error {
	if errors.Is(err, badinput.ErrInvalid) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return corrupt(path, 0, fmt.Sprintf("reading row group %d", group), err)
}

// appendID appends the dialog_id text of v (a string, or an integer in decimal).
func appendID(b []byte, v parquet.Value) []byte {
	switch v.Kind() {
	case parquet.Int32:
		return strconv.AppendInt(b, int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.AppendInt(b, v.Int64(), 10)
	}
	return append(b, v.ByteArray()...)
}

// rawRows returns a function yielding the file's rows in order with their
// 0-based index. A returned row is valid until the next call.
func (s *parquetSource) rawRows(ctx context.Context) func() (parquet.Row, int64, error) {
	groups := s.file.RowGroups()
	gi := -1
	var rs parquet.Rows
	buf := make([]parquet.Row, s.opts.BatchRows)
	var pending []parquet.Row
	var row int64
	done := false
	return func() (parquet.Row, int64, error) {
		for len(pending) == 0 {
			if done {
				return nil, 0, io.EOF
			}
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if rs == nil {
				gi++
				if gi >= len(groups) {
					done = true
					return nil, 0, io.EOF
				}
				err := safely(s.path, fmt.Sprintf("opening row group %d", gi), func() error {
					rs = groups[gi].Rows()
					return nil
				})
				if err != nil {
					done = true
					return nil, 0, err
				}
			}
			var n int
			err := safely(s.path, fmt.Sprintf("reading row group %d", gi), func() error {
				var err error
				n, err = rs.ReadRows(buf)
				return err
			})
			pending = buf[:n]
			if errors.Is(err, io.EOF) {
				rs.Close()
				rs = nil
			} else if err != nil {
				rs.Close()
				rs, done = nil, true
				return nil, 0, wrapRead(s.path, gi, err)
			}
		}
		r := pending[0]
		pending = pending[1:]
		row++
		return r, row - 1, nil
	}
}

// rows returns a function yielding the file's rows in order, decoded.
func (s *parquetSource) rows(ctx context.Context) func() (turnRec, error) {
	next := s.rawRows(ctx)
	return func() (turnRec, error) {
		r, row, err := next()
		if err != nil {
			return turnRec{}, err
		}
		return s.decode(r, row)
	}
}

// decode reads one Parquet row into a record and validates it (validate).
func (s *parquetSource) decode(r parquet.Row, row int64) (turnRec, error) {
	for i := range s.vals {
		s.vals[i] = s.vals[i][:0]
	}
	var extra parquet.Row
	for _, v := range r {
		c := v.Column()
		if c < 0 || c >= len(s.leafs) {
			return turnRec{}, corrupt(s.path, 0, fmt.Sprintf("decoding row %d", row), fmt.Errorf("value for unknown column %d", c))
		}
		if s.leafs[c].slot >= 0 {
			s.vals[c] = append(s.vals[c], v)
		} else if e := s.leafs[c].extra; e >= 0 {
			extra = append(extra, v.Clone().Level(v.RepetitionLevel(), v.DefinitionLevel(), e))
		}
	}
	in := record{
		dialogID:   s.str(slotDialogID),
		turnNo:     s.int(slotTurnNo),
		role:       s.str(slotTurn),
		trial:      s.int(slotTrial),
		gold:       side{response: s.str(slotGoldResponse), toolID: s.str(slotGoldToolID), action: s.str(slotGoldAction), args: s.str(slotGoldArgs)},
		predict:    side{response: s.str(slotPredictResponse), toolID: s.str(slotPredictToolID), action: s.str(slotPredictAction), args: s.str(slotPredictArgs)},
		goldNoCall: s.bool(slotGoldNoCall),
		tags:       s.strList(slotTags),
		dependsOn:  s.intList(slotDependsOn),
		humanLabel: s.bool(slotHumanLabel),
		humanScore: s.float(slotHumanScore),
		weight:     s.float(slotWeight),
		critical:   s.bool(slotCritical),
		latencyMS:  s.float(slotLatencyMS),
		tools:      s.str(slotTools),
		userTurn:   s.int(slotUserTurn),
	}
	t, trial, tools, bad := validate(&in, fieldLimit(s.opts.MaxFieldBytes))
	if bad != nil {
		return turnRec{}, s.invalid(row, bad)
	}
	return turnRec{turn: t, row: row, extra: extra, tools: tools, trial: trial}, nil
}

// invalid locates what validate found wrong at a row, naming the column
// as the file does (--map).
func (s *parquetSource) invalid(row int64, bad *invalid) error {
	return rowError(s.path, row, 0, s.opts.Mapping.source(bad.col), bad.problem, bad.fix, bad.err)
}

func (s *parquetSource) value(slot int) (parquet.Value, bool) {
	c := &s.canon[slot]
	if !c.present {
		return parquet.Value{}, false
	}
	vs := s.vals[c.leaf]
	if len(vs) == 0 || vs[0].IsNull() {
		return parquet.Value{}, false
	}
	return vs[0], true
}

func (s *parquetSource) str(slot int) opt[string] {
	v, ok := s.value(slot)
	if !ok {
		return opt[string]{}
	}
	return some(string(appendID(nil, v)))
}

func (s *parquetSource) int(slot int) opt[int64] {
	v, ok := s.value(slot)
	if !ok {
		return opt[int64]{}
	}
	if v.Kind() == parquet.Int32 {
		return some(int64(v.Int32()))
	}
	return some(v.Int64())
}

func (s *parquetSource) bool(slot int) opt[bool] {
	v, ok := s.value(slot)
	if !ok {
		return opt[bool]{}
	}
	return some(v.Boolean())
}

func (s *parquetSource) float(slot int) opt[float64] {
	v, ok := s.value(slot)
	if !ok {
		return opt[float64]{}
	}
	switch v.Kind() {
	case parquet.Float:
		return some(float64(v.Float()))
	case parquet.Int32:
		return some(float64(v.Int32()))
	case parquet.Int64:
		return some(float64(v.Int64()))
	}
	return some(v.Double())
}

// listValues returns the non-null elements of a list slot and whether the
// list itself is null.
func (s *parquetSource) listValues(slot int) ([]parquet.Value, bool) {
	c := &s.canon[slot]
	if !c.present {
		return nil, true
	}
	vs := s.vals[c.leaf]
	if len(vs) == 0 || (len(vs) == 1 && vs[0].IsNull() && c.optional && vs[0].DefinitionLevel() == 0) {
		return nil, true
	}
	out := vs[:0:0]
	for _, v := range vs {
		if !v.IsNull() {
			out = append(out, v)
		}
	}
	return out, false
}

func (s *parquetSource) strList(slot int) []string {
	vs, null := s.listValues(slot)
	if null || len(vs) == 0 {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v.ByteArray())
	}
	return out
}

func (s *parquetSource) intList(slot int) opt[[]int64] {
	vs, null := s.listValues(slot)
	if null {
		return opt[[]int64]{}
	}
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = v.Int64()
		if v.Kind() == parquet.Int32 {
			out[i] = int64(v.Int32())
		}
	}
	return some(out)
}

// groupConsecutive turns a stream of rows into dialogs, cutting where the
// dialog_id changes. The input must have each dialog's rows contiguous
// (checked by detect, or ensured by the spill sorter).
func groupConsecutive(path string, next func() (turnRec, error), tools *toolSource) func(context.Context) ([]Dialog, error) {
	var held *turnRec
	eof := false
	return func(ctx context.Context) ([]Dialog, error) {
		if held == nil && !eof {
			rec, err := next()
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return nil, err
			} else {
				held = &rec
			}
		}
		if held == nil {
			return nil, io.EOF
		}
		id := held.turn.DialogID
		recs := []turnRec{*held}
		held = nil
		for !eof {
			rec, err := next()
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				return nil, err
			}
			if rec.turn.DialogID != id {
				held = &rec
				break
			}
			recs = append(recs, rec)
		}
		return assemble(path, id, recs, tools)
	}
}
