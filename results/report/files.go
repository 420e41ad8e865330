package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/rundir"
)

// HTMLFile is the page's name when `aem run --report` writes it into the
// run directory (a file derived from the run: rundir.ClaimDir knows it).
const HTMLFile = rundir.ReportFile

// WriteHTMLFile writes the page to path atomically (a reader never sees
// half a page).
func WriteHTMLFile(path string, rep *Report, version string) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, rep, version); err != nil {
		return err
	}
	if err := safefile.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// WritePNGs writes every chart of the report as dir/NAME.png (creating
// dir) and returns the paths written.
func WritePNGs(dir string, rep *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the chart directory: %w", err)
	}
	var paths []string
	for _, f := range Figures(rep) {
		png, err := f.Figure.PNG()
		if err != nil {
			return paths, fmt.Errorf("drawing the %s chart: %w", f.Name, err)
		}
		p := filepath.Join(dir, f.Name+".png")
		if err := safefile.WriteFile(p, png); err != nil {
			return paths, fmt.Errorf("writing the %s chart: %w", f.Name, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
