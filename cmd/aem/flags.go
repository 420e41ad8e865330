package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// A command registers its flags on a flagSet, a topic at a time, in its
// options' addFlags:
//
//	func (o *genOptions) addFlags(fs *flagSet) {
//		fs.out(&o.out, "output golden dataset (.parquet)")
//		d := fs.own(topicDataset)
//		d.IntVar(&o.cfg.Dialogs, "dialogs", 1000, "number of dialogs")
//	}
//
// The topic places the flag in the command's help. The view says which
// environment variable the flag falls back to when it is not given:
//
//   - fs.own(topic): a flag whose meaning is the command's own (-o is a run
//     directory for run, a Parquet file for gen) reads AEM_<COMMAND>_<FLAG>:
//     aem gen's --dialogs reads AEM_GEN_DIALOGS, aem run's -o AEM_RUN_OUT.
//   - fs.shared(topic): a flag that means the same in every command that
//     has it (the scorer's, the judge's, the thresholds' flags) reads
//     AEM_<FLAG>: --threshold reads AEM_THRESHOLD in run and in sweep.
//     TestSharedFlagsMeanOneThing holds every shared flag to one help text.
//
// So a command reads the variables of its own flags only, and a variable
// set for one command never changes what another does. One-letter names
// have no variable: -o is --out's.
type flagSet struct {
	cmd   string // the command's name, for AEM_<COMMAND>_<FLAG>
	flags *flag.FlagSet
	info  map[string]flagInfo // by flag name
}

// flagInfo is what help and the environment fallback know of a flag.
type flagInfo struct {
	topic topic
	env   string // the environment variable; "" for a one-letter name
	own   bool   // env is AEM_<COMMAND>_<FLAG>
}

// topic is a group of flags in a command's help, shown in this order.
type topic int

// The topics of flags.
const (
	topicInput       topic = iota // what is read and how
	topicDataset                  // what a generated dataset holds (gen)
	topicScoring                  // the scorer, the model, the metric's rules
	topicThresholds               // similarity thresholds and tolerances
	topicJudge                    // the LLM judge
	topicCalibration              // fitting thresholds to labels (sweep)
	topicStatistics               // tests, intervals and gates
	topicOutput                   // what is written and shown
	topicScale                    // workers, sessions, caches, disk
	numTopics
)

var topicNames = [numTopics]string{"INPUT", "DATASET", "SCORING", "THRESHOLDS", "JUDGE", "CALIBRATION", "STATISTICS", "OUTPUT", "SCALE"}

func (t topic) String() string { return topicNames[t] }

func newFlagSet(cmd string) *flagSet {
	fs := flag.NewFlagSet("aem "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{cmd: cmd, flags: fs, info: map[string]flagInfo{}}
}

// own returns a view registering flags of topic t whose meaning is this
// command's own: they read AEM_<COMMAND>_<FLAG>.
func (s *flagSet) own(t topic) flagView { return flagView{set: s, topic: t, own: true} }

// shared returns a view registering flags of topic t that mean the same
// in every command that has them: they read AEM_<FLAG>.
func (s *flagSet) shared(t topic) flagView { return flagView{set: s, topic: t} }

// out registers the command's output, -o with --out as its long form
// (AEM_<COMMAND>_OUT), under OUTPUT.
func (s *flagSet) out(p *string, usage string) {
	o := s.own(topicOutput)
	o.StringVar(p, "o", "", usage)
	o.StringVar(p, "out", "", "same as -o")
}

// quiet registers -q with --quiet as its long form (AEM_QUIET), under
// OUTPUT: no progress and no status lines (what was written where);
// errors, warnings and the command's results still print.
func (s *flagSet) quiet(p *bool) {
	o := s.shared(topicOutput)
	o.BoolVar(p, "q", false, "no progress or status lines (what was written where); errors, warnings and results still print")
	o.BoolVar(p, "quiet", false, "same as -q")
}

// status is where a command's status lines (what it wrote where) go: w,
// or nowhere with -q.
func status(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return w
}

// given reports whether the flag name was set, on the command line or by
// its environment variable.
func (s *flagSet) given(name string) bool {
	found := false
	s.flags.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// envName is the environment variable of the flag name, or "" for a
// one-letter name.
func (s *flagSet) envName(name string, own bool) string {
	if len(name) == 1 {
		return ""
	}
	v := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if own {
		return "AEM_" + strings.ToUpper(s.cmd) + "_" + v
	}
	return "AEM_" + v
}

// flagView registers flags of one topic with one kind of environment
// variable; its methods are those of flag.FlagSet.
type flagView struct {
	set   *flagSet
	topic topic
	own   bool
}

func (v flagView) register(name string) {
	v.set.info[name] = flagInfo{topic: v.topic, env: v.set.envName(name, v.own), own: v.own}
}

// StringVar registers a string flag.
func (v flagView) StringVar(p *string, name, value, usage string) {
	v.set.flags.StringVar(p, name, value, usage)
	v.register(name)
}

// BoolVar registers a boolean flag.
func (v flagView) BoolVar(p *bool, name string, value bool, usage string) {
	v.set.flags.BoolVar(p, name, value, usage)
	v.register(name)
}

// IntVar registers an int flag.
func (v flagView) IntVar(p *int, name string, value int, usage string) {
	v.set.flags.IntVar(p, name, value, usage)
	v.register(name)
}

// Int64Var registers an int64 flag.
func (v flagView) Int64Var(p *int64, name string, value int64, usage string) {
	v.set.flags.Int64Var(p, name, value, usage)
	v.register(name)
}

// Uint64Var registers a uint64 flag.
func (v flagView) Uint64Var(p *uint64, name string, value uint64, usage string) {
	v.set.flags.Uint64Var(p, name, value, usage)
	v.register(name)
}

// Float64Var registers a float64 flag.
func (v flagView) Float64Var(p *float64, name string, value float64, usage string) {
	v.set.flags.Float64Var(p, name, value, usage)
	v.register(name)
}

// DurationVar registers a time.Duration flag.
func (v flagView) DurationVar(p *time.Duration, name string, value time.Duration, usage string) {
	v.set.flags.DurationVar(p, name, value, usage)
	v.register(name)
}

// Var registers a flag of any flag.Value.
func (v flagView) Var(value flag.Value, name, usage string) {
	v.set.flags.Var(value, name, usage)
	v.register(name)
}

// applyEnv sets every flag not given on the command line from its
// environment variable, when that is set. A flag given under another name
// (-o for --out: both set the same variable) counts as given. A flag of
// the command's own whose variable is unset while the shared spelling is
// set (AEM_OUT for aem gen's -o) is left alone, with a note on w: that
// variable is for other commands.
func (s *flagSet) applyEnv(getenv func(string) string, w io.Writer) error {
	given := map[flag.Value]bool{}
	s.flags.Visit(func(f *flag.Flag) { given[f.Value] = true })
	var err error
	s.flags.VisitAll(func(f *flag.Flag) {
		info := s.info[f.Name]
		if err != nil || given[f.Value] || info.env == "" {
			return
		}
		v := getenv(info.env)
		if v == "" {
			if other := s.envName(f.Name, false); info.own && getenv(other) != "" {
				fmt.Fprintf(w, "aem: note: %s is not read by aem %s; its %s reads %s\n", other, s.cmd, flagSpelling(f.Name), info.env)
			}
			return
		}
		if e := s.flags.Set(f.Name, v); e != nil {
			err = fmt.Errorf("environment variable %s=%q: %w", info.env, v, e)
		}
		given[f.Value] = true
	})
	return err
}

// printHelp writes the flags grouped by topic ("OUTPUT FLAGS"), each
// sorted by name, a flag's names on one line ("-o, --out") with its help,
// default and environment variable below.
func (s *flagSet) printHelp(w io.Writer) {
	byTopic := make([][]*flag.Flag, numTopics)
	s.flags.VisitAll(func(f *flag.Flag) {
		t := s.info[f.Name].topic
		byTopic[t] = append(byTopic[t], f)
	})
	for t, flags := range byTopic {
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s FLAGS\n", topic(t))
		for _, g := range flagGroups(flags) {
			var names []string
			usage, def, env := "", "", ""
			for _, f := range g {
				names = append(names, flagSpelling(f.Name))
				if usage == "" && !strings.HasPrefix(f.Usage, "same as ") {
					usage = f.Usage
				}
				if e := s.info[f.Name].env; env == "" && e != "" {
					env = " [" + e + "]"
				}
			}
			if d := g[0].DefValue; d != "" && d != "false" {
				def = fmt.Sprintf(" (default %s)", d)
			}
			fmt.Fprintf(w, "\t%s\n\t\t%s%s%s\n", strings.Join(names, ", "), usage, def, env)
		}
	}
}

// flagGroups gathers the names of one flag (-o and --out set the same
// variable), in the order of flags, one-letter names first in a group.
func flagGroups(flags []*flag.Flag) [][]*flag.Flag {
	var groups [][]*flag.Flag
	index := map[flag.Value]int{}
	for _, f := range flags {
		i, ok := index[f.Value]
		if !ok {
			index[f.Value] = len(groups)
			groups = append(groups, []*flag.Flag{f})
			continue
		}
		groups[i] = append(groups[i], f)
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b *flag.Flag) int {
			return min(len(a.Name), 2) - min(len(b.Name), 2)
		})
	}
	return groups
}

// flagSpelling is how help writes a flag: -o, --out.
func flagSpelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
