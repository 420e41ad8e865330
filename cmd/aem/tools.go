package main

import (
	"fmt"
	"os"

	"github.com/aem-dev/aem/tooldef"
)

// toolsFlagHelp is the help line of --tools, shared by run and import.
const toolsFlagHelp = "tool definitions offered in every dialog that gives none (JSON array or JSON Lines of OpenAI/MCP/BFCL function definitions)"

// readTools reads the --tools file; nil when path is empty.
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
