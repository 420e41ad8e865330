package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/tooldef"
)

// inputOptions are the flags that say how a golden dataset is read; run
// and import share them.
type inputOptions struct {
	mapping       string
	tools         string
	readOnlyTools string
	maxField      int
}

func (o *inputOptions) addFlags(fs *flagSet) {
	in := fs.shared(topicInput)
	in.StringVar(&o.mapping, "map", "", "column mapping for Parquet input with other column names: canonical=theirs,... e.g. gold_args=expected_arguments")
	in.StringVar(&o.tools, "tools", "", "tool definitions offered in every dialog that gives none (JSON array or JSON Lines of OpenAI/MCP/BFCL function definitions)")
	in.IntVar(&o.maxField, "max-field-bytes", golden.DefaultMaxFieldBytes, "the most bytes a text value of a row may hold (a reply, arguments, an id, a tag); a longer one is refused naming file, row and field (0: no limit)")
	in.StringVar(&o.readOnlyTools, "read-only-tools", "", "comma-separated tools whose calls change nothing, besides those whose definitions say so (annotations.readOnlyHint): their calls, gold or predicted, are context, never scored, e.g. get_user_details,search_direct_flight")
}

// readOnly lists the --read-only-tools names.
func (o inputOptions) readOnly() []string {
	var out []string
	for _, n := range strings.Split(o.readOnlyTools, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// readOptions resolves --map and reads the --tools file into the reader's
// options.
func (o inputOptions) readOptions() (golden.ReadOptions, error) {
	mapping, err := golden.ParseMapping(o.mapping)
	if err != nil {
		return golden.ReadOptions{}, err
	}
	tools, err := readTools(o.tools)
	if err != nil {
		return golden.ReadOptions{}, err
	}
	if o.maxField < 0 {
		return golden.ReadOptions{}, fmt.Errorf("%w: --max-field-bytes %d: give a number of bytes, or 0 for no limit", errFlagValue, o.maxField)
	}
	maxField := o.maxField
	if maxField == 0 {
		maxField = -1 // no limit
	}
	return golden.ReadOptions{Mapping: mapping, Tools: tools, MaxFieldBytes: maxField}, nil
}

// workDirHelp is the help line of --work-dir, shared by run and merge.
const workDirHelp = "where remote inputs are downloaded and remote outputs staged (default: the system temp dir)"

// readTools reads a tool definitions file; nil when path is empty.
func readTools(path string) (*tooldef.Set, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading tool definitions: %w", err)
	}
	return tooldef.Parse(path, data)
}
