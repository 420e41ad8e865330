package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/rundir"
)

func FuzzReadRunCorrupt(f *testing.F) {
	dir := f.TempDir()
	in := writeGolden(f, dir, genDialogs(8, 20))
	src := filepath.Join(dir, "src")
	mustRun(f, baseOptions(in, src))
	turns := readFile(f, filepath.Join(src, rundir.TurnsFile))
	summary := readFile(f, filepath.Join(src, rundir.SummaryFile))
	dialogs := readFile(f, filepath.Join(src, rundir.DialogsFile))
	f.Add(uint32(100), byte(0xff), uint32(0))
	f.Add(uint32(len(turns)-20), byte(0x01), uint32(0))
	f.Add(uint32(4), byte(0x10), uint32(len(turns)/2))
	f.Fuzz(func(t *testing.T, at uint32, xor byte, cut uint32) {
		d := t.TempDir()
		b := append([]byte(nil), turns...)
		b[int(at)%len(b)] ^= xor
		if cut > 0 {
			b = b[:len(b)-int(cut)%len(b)]
		}
		os.WriteFile(filepath.Join(d, rundir.TurnsFile), b, 0o644)
		os.WriteFile(filepath.Join(d, rundir.DialogsFile), dialogs, 0o644)
		os.WriteFile(filepath.Join(d, rundir.SummaryFile), summary, 0o644)
		rd, err := rundir.Open(context.Background(), d, rundir.OpenOptions{})
		if err != nil {
			return
		}
		defer rd.Close()
		n := 0
		for _, err := range rd.Turns(context.Background()) {
			if err != nil {
				return
			}
			n++
		}
		if n > rd.Summary.Turns {
			t.Fatalf("read %d turns, summary says %d", n, rd.Summary.Turns)
		}
	})
}
