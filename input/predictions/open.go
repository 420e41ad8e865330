package predictions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aem-dev/aem/internal/otlpjson"
)

// Options configures Open. The zero value detects the format and sorts in
// os.TempDir() with 32 MiB of memory.
type Options struct {
	// Format forces a format; FormatAuto detects it from each file's content.
	Format Format
	// TempDir is where the spill and store files go; "" means os.TempDir().
	TempDir string
	// SortMemory bounds the bytes of records sorted in memory before a run
	// is written to disk; 0 means 32 MiB.
	SortMemory int
}

// Open reads predictions from path, a file or a directory of files (read in
// name order; hidden and empty files are skipped), groups them into conversations and
// returns them in a Store. All files of a directory must be of one family:
// chat logs, or spans (OTLP JSON and Phoenix exports may be mixed, and a
// trace may span files). The caller must Close the Store.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	if opts.SortMemory <= 0 {
		opts.SortMemory = 32 << 20
	}
	files, err := listFiles(path)
	if err != nil {
		return nil, err
	}
	formats := make([]Format, len(files))
	for i, f := range files {
		if formats[i] = opts.Format; formats[i] == FormatAuto {
			if formats[i], err = Detect(f); err != nil {
				return nil, err
			}
		}
		if (formats[i] == FormatChat) != (formats[0] == FormatChat) {
			return nil, rowError(ErrFormat, f, -1, 0, "", fmt.Sprintf("%s predictions beside %s ones (%s)", formats[i], formats[0], files[0]),
				"keep chat logs and span files in separate directories", nil)
		}
	}
	var st *Store
	if formats[0] == FormatChat {
		st, err = openChat(ctx, files, opts)
	} else {
		st, err = openSpans(ctx, files, formats, opts)
	}
	if err != nil {
		return nil, err
	}
	st.stats.Files, st.stats.Format, st.files = len(files), formats[0], files
	return st, nil
}

// listFiles returns path itself, or the regular non-hidden files of the
// directory path in name order.
func listFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("predictions: %w", err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("predictions: %w", err)
	}
	var files []string
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Size() == 0 {
			continue // an exporter's freshly rotated, still empty file
		}
		files = append(files, filepath.Join(path, e.Name()))
	}
	if len(files) == 0 {
		return nil, rowError(ErrFormat, path, -1, 0, "", "the directory holds no predictions files", "point --predictions at a file or a directory of them", nil)
	}
	return files, nil
}

// Detect reads the start of a file and names its format: an object with
// resourceSpans is OTLP JSON, one with conversation_id or messages a chat
// log, one with context or span_kind a Phoenix span export.
func Detect(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("predictions: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	unknown := func(problem string, err error) (Format, error) {
		return "", rowError(ErrFormat, path, -1, 1, "", problem,
			"give chat logs (JSON Lines with conversation_id and messages), OTLP JSON traces (resourceSpans) or Phoenix span JSON Lines, or name the format with --predictions-format", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return unknown("not JSON", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return unknown("does not start with a JSON object", nil)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return unknown("not JSON", err)
		}
		switch tok {
		case "resourceSpans":
			return FormatOTLP, nil
		case "conversation_id", "messages":
			return FormatChat, nil
		case "context", "span_kind", "parent_id":
			return FormatPhoenix, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return unknown("not JSON", err)
		}
	}
	return unknown("no key says which format this is", nil)
}

// openChat reads chat logs: each line is a conversation; they are sorted
// by (id, trial) into the store.
func openChat(ctx context.Context, files []string, opts Options) (*Store, error) {
	srt := newSorter(opts.TempDir, opts.SortMemory)
	defer srt.close()
	var records int64
	for _, f := range files {
		if err := readFile(f, func(r io.Reader) error {
			return readChat(ctx, f, r, func(c Conversation) error {
				records++
				val, err := json.Marshal(c)
				if err != nil {
					return fmt.Errorf("encoding conversation %q: %w", c.ID, err)
				}
				return srt.add(convKey(c.ID, c.Trial), val)
			})
		}); err != nil {
			return nil, err
		}
	}
	sw, err := newStoreWriter(opts.TempDir)
	if err != nil {
		return nil, err
	}
	err = srt.each(func(_ string, val []byte) error {
		var c Conversation
		if err := json.Unmarshal(val, &c); err != nil {
			return fmt.Errorf("decoding a spilled conversation: %w", err)
		}
		return sw.add(c)
	})
	if err != nil {
		sw.s.Close()
		return nil, err
	}
	sw.s.stats.Records = records
	return sw.finish()
}

func readFile(path string, fn func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("predictions: %w", err)
	}
	defer f.Close()
	return fn(f)
}

// openSpans reads span files in three streaming passes, each bounded in
// memory by an external sort: spans become fragments keyed by trace; each
// trace's fragments learn the trace's conversation id (a trace without
// one is its own conversation, named by its trace id) and are re-keyed by
// conversation; each conversation's fragments are resolved into steps.
func openSpans(ctx context.Context, files []string, formats []Format, opts Options) (*Store, error) {
	byTrace := newSorter(opts.TempDir, opts.SortMemory)
	defer byTrace.close()
	var records, used int64
	add := func(s *span) error {
		records++
		frs := fragments(s)
		if len(frs) > 0 {
			used++
		}
		for _, fr := range frs {
			val, err := json.Marshal(tagged{File: s.file, Trace: s.trace, Span: s.id, F: fr})
			if err != nil {
				return err
			}
			if err := byTrace.add(s.trace, val); err != nil {
				return err
			}
		}
		return nil
	}
	for i, f := range files {
		err := readFile(f, func(r io.Reader) error {
			if formats[i] == FormatPhoenix {
				return readPhoenix(ctx, f, r, add)
			}
			return otlpjson.ReadSpans(ctx, f, r, func(sp *otlpjson.Span) error {
				s := fromOTLP(f, sp)
				return add(&s)
			})
		})
		if err != nil {
			return nil, err
		}
	}
	byConv := newSorter(opts.TempDir, opts.SortMemory)
	defer byConv.close()
	if err := eachGroup(byTrace, func(trace string, frs []tagged) error {
		conv := trace
		var trial *int64
		for _, t := range frs {
			if t.F.Conv != "" {
				conv = t.F.Conv
				break
			}
		}
		for _, t := range frs {
			if t.F.HasTrial {
				n := int64(t.F.Trial)
				trial = &n
				break
			}
		}
		for _, t := range frs { // markers too: a conversation without steps still exists
			t.ConvID, t.Trial = conv, trial
			val, err := json.Marshal(t)
			if err != nil {
				return err
			}
			if err := byConv.add(convKey(conv, trial), val); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	sw, err := newStoreWriter(opts.TempDir)
	if err != nil {
		return nil, err
	}
	if err := eachGroup(byConv, func(_ string, frs []tagged) error {
		return sw.add(resolve(frs))
	}); err != nil {
		sw.s.Close()
		return nil, err
	}
	sw.s.stats.Records, sw.s.stats.Used = records, used
	return sw.finish()
}

// tagged is a fragment with the span it came from.
type tagged struct {
	File   string   `json:"f"`
	Trace  string   `json:"tr"`
	Span   string   `json:"sp"`
	ConvID string   `json:"cv,omitempty"`
	Trial  *int64   `json:"ti,omitempty"`
	F      fragment `json:"x"`
}

// eachGroup calls fn once per key with all the records of that key.
func eachGroup(s *sorter, fn func(key string, frs []tagged) error) error {
	var (
		cur   string
		group []tagged
	)
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		err := fn(cur, group)
		group = group[:0]
		return err
	}
	err := s.each(func(key string, val []byte) error {
		if key != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = key
		}
		var t tagged
		if err := json.Unmarshal(val, &t); err != nil {
			return fmt.Errorf("decoding a spilled span: %w", err)
		}
		group = append(group, t)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// resolve puts a conversation's fragments together:
//   - a trace whose model calls (chat, LLM spans) gave outputs ignores its
//     agent-level outputs (invoke_agent, AGENT), which repeat them;
//   - a call requested by the model and also executed (same call id) is one
//     call, with the execution's span as its source and the request's
//     arguments when the execution has none; requests without an id are
//     dropped when the conversation has executions (they cannot be told
//     apart from them), and kept otherwise;
//   - steps are ordered by time (an execution's start, a model output's
//     end), then trace, span and position in the output.
func resolve(frs []tagged) Conversation {
	modelTraces := map[string]bool{}
	execIDs := map[string]int{}
	hasExec := false
	for i, t := range frs {
		if t.F.Step == nil {
			continue
		}
		switch t.F.Level {
		case levelModel:
			modelTraces[t.Trace] = true
		case levelExec:
			hasExec = true
			if id := t.F.Step.CallID; id != "" {
				if _, dup := execIDs[id]; !dup {
					execIDs[id] = i
				}
			}
		}
	}
	keep := make([]tagged, 0, len(frs))
	for _, t := range frs {
		st := t.F.Step
		if st == nil && len(t.F.Users) == 0 {
			continue
		}
		if st == nil {
			keep = append(keep, t) // the user's messages so far: see below
			continue
		}
		if t.F.Level == levelAgent && modelTraces[t.Trace] {
			continue
		}
		if t.F.Level != levelExec && st.Kind == StepCall {
			if j, ok := execIDs[st.CallID]; ok && st.CallID != "" {
				if ex := frs[j].F.Step; ex.Args == "" && ex.ArgsError == "" {
					ex.Args, ex.ArgsError = st.Args, st.ArgsError
				}
				continue
			}
			if hasExec && st.CallID == "" {
				continue
			}
		}
		keep = append(keep, t)
	}
	sort.SliceStable(keep, func(i, j int) bool {
		a, b := keep[i], keep[j]
		switch {
		case a.F.Time != b.F.Time:
			return a.F.Time < b.F.Time
		case a.Trace != b.Trace:
			return a.Trace < b.Trace
		case a.Span != b.Span:
			return a.Span < b.Span
		}
		return a.F.Seq < b.F.Seq
	})
	c := Conversation{ID: frs[0].ConvID, Trial: frs[0].Trial, Steps: make([]Step, 0, len(keep))}
	users := 0 // user messages given as steps so far
	for _, t := range keep {
		if t.F.Step != nil {
			c.Steps = append(c.Steps, *t.F.Step)
			continue
		}
		// A model call's input holds the conversation so far: the user
		// messages no earlier call had are new, said before this call.
		for _, text := range t.F.Users[min(users, len(t.F.Users)):] {
			c.Steps = append(c.Steps, Step{Kind: StepUser, Text: text, Source: Source{File: t.File, TraceID: t.Trace, SpanID: t.Span, MessageIndex: -1}})
		}
		users = max(users, len(t.F.Users))
	}
	c.Source = Source{File: frs[0].File, TraceID: frs[0].Trace, MessageIndex: -1}
	if len(c.Steps) > 0 {
		c.Source = c.Steps[0].Source
		c.Source.SpanID, c.Source.MessageIndex = "", -1
	}
	return c
}
