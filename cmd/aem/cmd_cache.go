package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aem-dev/aem/diskcache"
	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/judge"
)

// cacheDir is one persistent cache: what it holds, its directory (the
// diskcache directory itself) and the bound a run keeps it under.
type cacheDir struct {
	what  string // "embedding" or "judge"
	dir   string
	bound int64
	// old is an earlier release's cache file beside dir, never read.
	old string
}

// printCacheUsage says, at the end of a run, how big each cache has grown
// and how to shrink it: a cache grows silently across runs otherwise.
func printCacheUsage(w io.Writer, caches []cacheDir) {
	for _, c := range caches {
		u, err := diskcache.DirUsage(c.dir)
		if err != nil || u.Bytes == 0 {
			continue
		}
		fmt.Fprintf(w, "aem: the %s cache holds %s in %s (kept under %s, the oldest entries dropped past it); 'aem cache prune' frees space\n",
			c.what, byteSize(u.Bytes), c.dir, byteSize(c.bound))
	}
}

type cacheOptions struct {
	cacheDir, judgeCacheDir string
	maxSize, olderThan      string
	quiet                   bool
}

func (o *cacheOptions) addFlags(fs *flagSet) {
	scale := fs.shared(topicScale)
	scale.StringVar(&o.cacheDir, "cache-dir", "", "persistent embedding cache directory (default: embed-cache/ in the install root, see INSTALL ROOT)")
	fs.shared(topicJudge).StringVar(&o.judgeCacheDir, "judge-cache-dir", "", "persistent cache of the judge's answers (default: <home>/judge-cache; --no-cache disables it)")
	own := fs.own(topicOutput)
	own.StringVar(&o.maxSize, "max-size", "", "prune: shrink each cache to at most this size (e.g. 2GB, 500MiB), the oldest entries first")
	own.StringVar(&o.olderThan, "older-than", "", "prune: delete the entries stored longer ago than this (e.g. 30d, 12h)")
	fs.quiet(&o.quiet)
}

func cmdCache() *Command {
	c := &Command{
		Name:      "cache",
		UsageLine: "cache [size]\n       aem cache prune [--max-size SIZE] [--older-than AGE] [--cache-dir DIR] [--judge-cache-dir DIR]",
		Short:     "show the persistent caches' sizes, or prune them by size or age",
		Long: `
The embedding cache keeps every vector aem embeds, and the judge cache every
answer of the LLM judge, across runs, so that a rerun embeds and asks
nothing again. Each is bounded (the embedding cache at --cache-max-mb, 8 GiB
by default; the judge's at 1 GiB) and drops its oldest entries past the
bound, but it stays as large as it has grown until then. A run says how
large at its end; 'aem cache' shows both, where they are, and how old their
entries are.

'aem cache prune' deletes entries, the oldest first, whole files at a time:
with --max-size until each cache is at most that size, with --older-than
those stored longer ago than that (an entry is dated when it was stored,
not when it was last read); with both, whatever either selects. It also
deletes an earlier release's cache file (embeddings.bbolt,
judgements.bbolt), which nothing reads any more. A cache a run is using is
locked: prune waits up to 10 seconds for it, then says so. Pruned entries
are only work to redo: a later run embeds or asks for them again.

The caches are the ones 'aem run' would use: in embed-cache/ and
judge-cache/ of the install root (see INSTALL ROOT in 'aem help'), or the
directories --cache-dir and --judge-cache-dir name.

SIZE is a number with B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB,
TiB (powers of 1024); AGE a number of days (30d) or a Go duration (12h,
90m).

EXIT STATUS
	0 success; 1 error (a cache in use past the wait, a file that cannot
	be deleted); 2 usage error.

EXAMPLES
	aem cache
	aem cache prune --max-size 2GB
	aem cache prune --older-than 30d
	aem cache prune --older-than 90d --max-size 500MiB --cache-dir /data/aem-cache
`,
	}
	c.Setup = func(fs *flagSet, env *Env) func(context.Context, []string) error {
		var o cacheOptions
		o.addFlags(fs)
		return func(ctx context.Context, args []string) error {
			sub := "size"
			if len(args) > 0 {
				sub = args[0]
			}
			if len(args) > 1 || sub != "size" && sub != "prune" {
				return usagef(c, "cache takes size (the default) or prune, got %q", strings.Join(args, " "))
			}
			caches := o.caches(env)
			if sub == "size" {
				if o.maxSize != "" || o.olderThan != "" {
					return usagef(c, "--max-size and --older-than are for 'aem cache prune'")
				}
				return printCaches(env, caches)
			}
			po, err := o.prune(env.Now())
			if err != nil {
				return usagef(c, "%w", err)
			}
			return pruneCaches(status(env.Stdout, o.quiet), caches, po)
		}
	}
	return c
}

// caches are the caches aem run would use with these flags.
func (o cacheOptions) caches(env *Env) []cacheDir {
	roots := env.homeRoots()
	cacheHome := home.Writable(roots).Dir
	if root, err := home.Find(roots, func(dir string) []string { return needs(embed.Options{}, dir) }); err == nil {
		cacheHome = cacheRoot(roots, root).Dir
	}
	embedDir, judgeDir := o.cacheDir, o.judgeCacheDir
	if embedDir == "" {
		embedDir = filepath.Join(cacheHome, "embed-cache")
	}
	if judgeDir == "" {
		judgeDir = filepath.Join(cacheHome, "judge-cache")
	}
	return []cacheDir{
		{what: "embedding", dir: filepath.Join(embedDir, embed.CacheName), bound: embed.DefaultCacheMaxBytes, old: filepath.Join(embedDir, embed.OldCacheFile)},
		{what: "judge", dir: filepath.Join(judgeDir, judge.CacheName), bound: judge.DefaultCacheMaxBytes, old: filepath.Join(judgeDir, judge.OldCacheFile)},
	}
}

// prune turns --max-size and --older-than into diskcache.PruneOptions.
func (o cacheOptions) prune(now time.Time) (diskcache.PruneOptions, error) {
	var po diskcache.PruneOptions
	if o.maxSize == "" && o.olderThan == "" {
		return po, errors.New("say what to prune: --max-size SIZE, --older-than AGE, or both")
	}
	if o.maxSize != "" {
		n, err := parseByteSize(o.maxSize)
		if err != nil {
			return po, fmt.Errorf("--max-size %q: %w", o.maxSize, err)
		}
		po.MaxBytes = max(n, 1) // 0 would mean no limit: keep nothing instead
	}
	if o.olderThan != "" {
		d, err := parseAge(o.olderThan)
		if err != nil {
			return po, fmt.Errorf("--older-than %q: %w", o.olderThan, err)
		}
		po.Before = now.Add(-d)
	}
	return po, nil
}

// printCaches shows each cache: where, how big, how old its entries are;
// a table on a terminal, tab-separated values otherwise.
func printCaches(env *Env, caches []cacheDir) error {
	rows := [][]string{{"cache", "size", "files", "oldest entry", "newest entry", "directory"}}
	var notes []string
	for _, c := range caches {
		u, err := diskcache.DirUsage(c.dir)
		if err != nil {
			return err
		}
		oldest, newest := "-", "-"
		if u.Segments > 0 {
			oldest, newest = u.Oldest.UTC().Format(time.RFC3339), u.Newest.UTC().Format(time.RFC3339)
		}
		rows = append(rows, []string{c.what, byteSize(u.Bytes), strconv.Itoa(u.Segments), oldest, newest, c.dir})
		if info, err := os.Stat(c.old); err == nil {
			notes = append(notes, fmt.Sprintf("%s (%s) is an earlier release's %s cache, no longer read: 'aem cache prune' deletes it", c.old, byteSize(info.Size()), c.what))
		}
	}
	var out io.Writer = env.Stdout
	var tw *tabwriter.Writer
	if env.StdoutTTY {
		tw = tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		out = tw
	}
	for _, r := range rows {
		fmt.Fprintln(out, strings.Join(r, "\t"))
	}
	if tw != nil {
		tw.Flush()
	}
	for _, n := range notes {
		fmt.Fprintln(env.Stderr, "aem: "+n)
	}
	return nil
}

// pruneCaches prunes each cache and deletes earlier releases' files,
// saying what it freed on w.
func pruneCaches(w io.Writer, caches []cacheDir, po diskcache.PruneOptions) error {
	var errs []error
	for _, c := range caches {
		p, err := diskcache.Prune(c.dir, po, 10*time.Second)
		if err != nil {
			errs = append(errs, fmt.Errorf("pruning the %s cache: %w", c.what, err))
			continue
		}
		fmt.Fprintf(w, "%s cache %s: deleted %d files, %s (%d entries); %s left (%d entries)\n",
			c.what, c.dir, p.Segments, byteSize(p.Bytes), p.Entries, byteSize(p.BytesLeft), p.EntriesLeft)
		if info, err := os.Stat(c.old); err == nil {
			if err := os.Remove(c.old); err != nil {
				errs = append(errs, fmt.Errorf("deleting an earlier release's %s cache: %w", c.what, err))
				continue
			}
			fmt.Fprintf(w, "%s cache: deleted %s (%s), an earlier release's file\n", c.what, c.old, byteSize(info.Size()))
		}
	}
	return errors.Join(errs...)
}

// byteSize writes n bytes in binary units: 717 MiB, 8 GiB, 512 B.
func byteSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	if u == 0 || v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// parseByteSize reads "2GB", "500 MiB", "1024": a number with a unit of
// powers of 1000 (KB, MB, GB, TB) or 1024 (KiB, MiB, GiB, TiB), bytes
// without one.
func parseByteSize(s string) (int64, error) {
	units := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	m, ok := units[strings.ToUpper(strings.TrimSpace(t[i:]))]
	if err != nil || !ok || v < 0 || math.IsInf(v*m, 0) || v*m > math.MaxInt64 {
		return 0, errors.New("give a size such as 2GB, 500MiB or 1073741824")
	}
	return int64(v * m), nil
}

// parseAge reads "30d" (days) or a Go duration ("12h", "90m"); it must be
// positive.
func parseAge(s string) (time.Duration, error) {
	bad := errors.New("give an age such as 30d, 12h or 90m")
	if days, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 || n > 1e5 {
			return 0, bad
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, bad
	}
	return d, nil
}
