package golden

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/trials"
	"github.com/aem-dev/aem/tooldef"
	"github.com/parquet-go/parquet-go"
)

// ReadOptions configures Open. The zero value reads canonical column names,
// falls back to an on-disk grouping for unsorted input, and spills to
// os.TempDir().
type ReadOptions struct {
	// Mapping renames canonical columns to the file's columns (Parquet only).
	Mapping Mapping
	// RequireSorted makes input whose dialogs are not contiguous an error
	// (an error wrapping ErrUnsorted) instead of triggering the on-disk fallback.
	RequireSorted bool
	// SpillDir is where the unsorted fallback writes its temporary run
	// files; "" means os.TempDir(). The files are removed by Close.
	SpillDir string
	// SpillMemory bounds the bytes of encoded rows the unsorted fallback
	// sorts in memory before writing a run to disk; 0 means 32 MiB. Peak
	// memory of the fallback is a few times this (about 140 MB at the default).
	SpillMemory int64
	// BatchRows is how many Parquet rows are decoded per read call; 0 means 1024.
	BatchRows int
	// Hook receives notices (the unsorted fallback); nil means NoopHook.
	Hook Hook
	// Tools are the tool definitions offered in every dialog that does not
	// give its own (a `tools` column or key); nil for none (--tools FILE).
	Tools *tooldef.Set
	// MaxFieldBytes is the most bytes a text value of a row may hold (a
	// reply, arguments, an id, a tag, the tool definitions' text): a
	// longer one is an ErrInvalidRow naming file, row and field. 0 means
	// DefaultMaxFieldBytes, a negative value no limit. Extra columns,
	// carried through unscored, are not limited.
	MaxFieldBytes int
}

// Hook receives notices from a Reader. Implementations must not block for long.
type Hook interface {
	// UnsortedFallback is called once, from Open, when the input's dialogs
	// are not contiguous and the reader groups them on disk instead.
	UnsortedFallback(UnsortedInfo)
}

// NoopHook ignores every notice.
type NoopHook struct{}

// UnsortedFallback does nothing.
func (NoopHook) UnsortedFallback(UnsortedInfo) {}

// UnsortedInfo describes the first place where an input was found unsorted.
type UnsortedInfo struct {
	File     string
	DialogID string
	FirstRow int64 // last row of the dialog's earlier run of rows
	Row      int64 // the row where it appears again
	Dialogs  int64 // distinct dialogs in the file
	Rows     int64 // rows in the file
}

// Format is the detected format of an input file.
type Format string

// Input formats.
const (
	FormatParquet Format = "parquet"
	FormatJSON    Format = "json"  // a JSON array (of turns, or of dialog objects)
	FormatJSONL   Format = "jsonl" // JSON Lines, one dialog object per line
)

// Dialog is one dialog read from a golden dataset: the metric's view plus
// where each turn came from and the carried-through extra columns.
// Rows, Extra and Turns are parallel (index i describes Turns[i]).
type Dialog struct {
	metrics.Dialog
	// Rows is the input position of each turn: the 0-based row index in a
	// Parquet file, or the 0-based index of the turn in its JSON array.
	Rows []int64
	// Extra holds, per turn, the values of the extra (non-canonical)
	// columns, numbered as ExtraSchema's leaf columns (see Reader.Extras).
	// Nil when the input has no extra columns.
	Extra []parquet.Row
	// Trial numbers one of repeated trials of the dialog ID (the trial
	// column): (ID, Trial) identifies the dialog. Nil when not given.
	Trial *int64
	// Conflicts lists what the dialog's gold calls break in its tool
	// definitions, in turn order (see Conflict): findings, not errors.
	Conflicts []Conflict
}

// Reader streams dialogs from a golden dataset. It is not safe for
// concurrent use; Next must be called from one goroutine.
type Reader struct {
	path   string
	format Format
	extras []ExtraColumn
	extraS *parquet.Schema

	unsorted *UnsortedInfo
	numRows  int64
	maxField int // bytes a text value may hold (fieldLimit; 0: any)
	// unfiltered reads JSON without jsonFilter, as the reader did before
	// it: the tests check the filter changes nothing but the cost.
	unfiltered bool

	// next returns the dialogs of the next dialog_id: one, or one per
	// trial.
	next    func(ctx context.Context) ([]Dialog, error)
	pending []Dialog
	read    bool // a dialog was returned
	closers []func() error
	done    bool
	err     error
}

// Open opens a golden dataset for streaming. The format is detected from
// the content (Parquet magic "PAR1", or a first non-space byte '[' or '{'
// for JSON) and, when the content is ambiguous, from the extension
// (.parquet, .json, .jsonl, .ndjson). Parquet schema problems (missing
// columns, a mapping that does not fit) are reported here; bad rows are
// reported by Next. For unsorted Parquet input Open makes a first pass over
// the dialog_id column to detect it (see ReadOptions.RequireSorted).
func Open(ctx context.Context, path string, opts ReadOptions) (*Reader, error) {
	if opts.Hook == nil {
		opts.Hook = NoopHook{}
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = 1024
	}
	if opts.SpillMemory <= 0 {
		opts.SpillMemory = 32 << 20
	}
	if err := opts.Mapping.Validate(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening golden dataset: %w", err)
	}
	format, err := detectFormat(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &Reader{path: path, format: format, numRows: -1, maxField: fieldLimit(opts.MaxFieldBytes)}
	r.closers = append(r.closers, f.Close)
	switch format {
	case FormatParquet:
		err = r.openParquet(ctx, f, opts)
	default:
		if len(opts.Mapping) > 0 {
			err = fmt.Errorf("%w: %s: --map applies to Parquet input only; JSON input uses the field names of the AEM write-up", ErrBadMapping, path)
		} else {
			err = r.openJSON(f, format, newToolSource(opts.Tools))
		}
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// detectFormat sniffs the first bytes of f, then rewinds it.
func detectFormat(f *os.File, path string) (Format, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	if n < cap(head) && len(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))) == 0 {
		if n == 0 {
			return "", empty(path, "the file is empty (0 bytes)")
		}
		return "", empty(path, "the file holds only white space")
	}
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return FormatParquet, nil
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return FormatJSON, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		return FormatJSONL, nil
	}
	switch ext {
	case ".parquet", ".pq":
		// Let the Parquet reader say what is wrong with it.
		return FormatParquet, nil
	case ".json", ".jsonl", ".ndjson":
		if len(trimmed) == 0 {
			return FormatJSONL, nil // empty: no dialogs
		}
	}
	return "", corrupt(path, 0, "detecting format",
		errors.New(`neither Parquet (magic "PAR1") nor JSON (first character '[' or '{')`))
}

// Path returns the file being read.
func (r *Reader) Path() string { return r.path }

// NumRows returns the number of input rows (turns) of a Parquet file, for
// progress and ETA; -1 for JSON input, whose size is known only at the end.
func (r *Reader) NumRows() int64 { return r.numRows }

// Format returns the detected input format.
func (r *Reader) Format() Format { return r.format }

// Unsorted reports whether the input was found unsorted (and grouped on
// disk), with where.
func (r *Reader) Unsorted() (UnsortedInfo, bool) {
	if r.unsorted == nil {
		return UnsortedInfo{}, false
	}
	return *r.unsorted, true
}

// Extras describes the extra (non-canonical) top-level columns carried
// through from a Parquet input, in file order. It is empty for JSON input.
func (r *Reader) Extras() []ExtraColumn { return r.extras }

// ExtraSchema returns a schema holding the extra columns, in file order, with
// their original names and types; Dialog.Extra rows follow its leaf column
// numbering. Nil when there are no extra columns.
func (r *Reader) ExtraSchema() *parquet.Schema { return r.extraS }

// Next returns the next dialog, or io.EOF after the last one. After an
// error other than io.EOF, Next keeps returning that error.
func (r *Reader) Next(ctx context.Context) (Dialog, error) {
	if r.err != nil {
		return Dialog{}, r.err
	}
	if err := ctx.Err(); err != nil {
		return Dialog{}, err
	}
	for len(r.pending) == 0 {
		ds, err := r.next(ctx)
		if errors.Is(err, io.EOF) && !r.read {
			err = empty(r.path, "it has no rows")
		}
		if err != nil {
			r.err = err
			return Dialog{}, err
		}
		r.pending = ds
	}
	r.read = true
	d := r.pending[0]
	r.pending[0] = Dialog{}
	r.pending = r.pending[1:]
	return d, nil
}

// All returns an iterator over the remaining dialogs; it stops after the
// first error (yielded with a zero Dialog) and does not yield io.EOF.
func (r *Reader) All(ctx context.Context) iter.Seq2[Dialog, error] {
	return func(yield func(Dialog, error) bool) {
		for {
			d, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(d, err) || err != nil {
				return
			}
		}
	}
}

// Close releases the file and removes spill files. It is safe to call twice.
func (r *Reader) Close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i](); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	r.closers = nil
	if r.err == nil {
		r.err = errors.New("golden: reader closed")
	}
	return errors.Join(errs...)
}

// turnRec is one decoded input row.
type turnRec struct {
	turn metrics.Turn
	row  int64
	line int // JSON only
	// jsonPath locates a turn of a JSON dialog object ("turns[2]"); empty
	// for Parquet rows and for elements of a JSON array of turns, which
	// row locates.
	jsonPath string
	extra    parquet.Row
	// tools is the tool definitions' JSON text the row carries; "" for none.
	tools string
	// trial is the row's trial; nil when not given.
	trial *int64
}

// assemble builds the dialogs of one dialog_id from its rows: one dialog,
// or one per trial in the order of their first row when the rows carry a
// trial (then every row must). The tool definitions are the dialog_id's,
// shared by its trials (see toolSource).
func assemble(file, id string, recs []turnRec, tools *toolSource) ([]Dialog, error) {
	text, at, err := toolText(file, id, recs)
	if err != nil {
		return nil, err
	}
	if recs[0].trial == nil {
		for i := range recs {
			if recs[i].trial != nil {
				return nil, recs[i].err(file, ColTrial, fmt.Sprintf("dialog %q has a trial here but not at %s", id, recs[0].where()),
					"give every row of a dialog a trial, or none", nil)
			}
		}
		d, err := assembleTrial(file, id, recs, tools, text, at)
		return []Dialog{d}, err
	}
	var order []int64
	byTrial := map[int64][]turnRec{}
	for _, rec := range recs {
		if rec.trial == nil {
			return nil, rec.err(file, ColTrial, fmt.Sprintf("dialog %q has no trial here but has one at %s", id, recs[0].where()),
				"give every row of a dialog a trial, or none", nil)
		}
		n := *rec.trial
		if _, ok := byTrial[n]; !ok {
			order = append(order, n)
		}
		byTrial[n] = append(byTrial[n], rec)
	}
	out := make([]Dialog, 0, len(order))
	for _, n := range order {
		d, err := assembleTrial(file, id, byTrial[n], tools, text, at)
		if err != nil {
			return nil, err
		}
		d.Trial = &n
		for i := range d.Conflicts {
			d.Conflicts[i].Trial = d.Trial
		}
		out = append(out, d)
	}
	return out, nil
}

// assembleTrial orders a dialog's turns by turn_no and checks the
// dialog-level rules: no duplicate turn_no, depends_on naming earlier turns
// of the dialog, tool definitions (text, carried by the row at) that every
// gold call fits.
func assembleTrial(file, id string, recs []turnRec, tools *toolSource, text string, at turnRec) (Dialog, error) {
	slices.SortStableFunc(recs, func(a, b turnRec) int { return a.turn.TurnNo - b.turn.TurnNo })
	d := Dialog{Dialog: metrics.Dialog{ID: id, Turns: make([]metrics.Turn, len(recs))}, Rows: make([]int64, len(recs))}
	hasExtra := false
	for i := range recs {
		if recs[i].extra != nil {
			hasExtra = true
		}
	}
	if hasExtra {
		d.Extra = make([]parquet.Row, len(recs))
	}
	for i, rec := range recs {
		if i > 0 && recs[i-1].turn.TurnNo == rec.turn.TurnNo {
			return Dialog{}, rec.err(file, ColTurnNo,
				fmt.Sprintf("duplicate turn_no %d in dialog %q%s (also at %s)", rec.turn.TurnNo, id, trials.Note(rec.trial), recs[i-1].where()),
				"give every turn of a dialog its own turn_no", nil)
		}
		d.Turns[i] = rec.turn
		d.Rows[i] = rec.row
		if hasExtra {
			d.Extra[i] = rec.extra
		}
	}
	for _, rec := range recs {
		for _, dep := range rec.turn.DependsOn {
			_, found := slices.BinarySearchFunc(d.Turns, dep, func(t metrics.Turn, n int) int { return t.TurnNo - n })
			if dep >= rec.turn.TurnNo || !found {
				return Dialog{}, rec.err(file, ColDependsOn,
					fmt.Sprintf("turn %d of dialog %q depends on turn %d, which is not an earlier turn of the dialog", rec.turn.TurnNo, id, dep),
					"list only turn_no values of earlier turns of the same dialog in depends_on", nil)
			}
		}
	}
	if err := tools.resolve(file, &d, recs, text, at); err != nil {
		return Dialog{}, err
	}
	return d, nil
}

// parseRole accepts Agent, Tool and User in any letter case.
func parseRole(s string) (metrics.Role, bool) {
	r, err := metrics.ParseRole(s)
	return r, err == nil
}
