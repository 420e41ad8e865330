// Node.js peer for the embedding benchmark (scripts/bench-embed): runs the
// same model file under onnxruntime-node@1.30.0 on the same strings, with the
// same batching (sorted by token length, batches of 64, right padding with
// attention mask 0), and prints strings/s as JSON lines.
//
// Token ids come from the corpus written by the Go side
// (AEM_BENCH_CORPUS=FILE go test ./embed -run TestWriteBenchCorpus), so the
// timings cover padding, tensor creation and inference, not tokenization
// (there is no JavaScript port of the USE-lite tokenizer in the project).
//
//   node scripts/bench-embed-node.mjs CORPUS.json [reps=3] [intraOpThreads=0] [sets=short,long]
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(import.meta.url);
const ortDir = process.env.AEM_BENCH_NODE_DIR || path.join(process.cwd(), ".aem", "bench-node");
const ort = require(require.resolve("onnxruntime-node", { paths: [ortDir] }));

const [corpusPath, repsArg = "3", threadsArg = "0", setsArg = "short,long"] = process.argv.slice(2);
if (!corpusPath) {
  console.error("usage: node scripts/bench-embed-node.mjs CORPUS.json [reps] [intraOpThreads]");
  process.exit(2);
}
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const reps = Number(repsArg);
const threads = Number(threadsArg);
const opts = { graphOptimizationLevel: "all", executionProviders: ["cpu"] };
if (threads > 0) opts.intraOpNumThreads = threads;
const session = await ort.InferenceSession.create(corpus.model, opts);
const batchSize = corpus.batch_size;

async function pass(items) {
  const sorted = [...items].sort((a, b) => a.ids.length - b.ids.length);
  let out = 0;
  for (let lo = 0; lo < sorted.length; lo += batchSize) {
    const chunk = sorted.slice(lo, lo + batchSize);
    const seq = Math.max(1, ...chunk.map((x) => x.ids.length));
    const ids = new BigInt64Array(chunk.length * seq);
    const mask = new BigInt64Array(chunk.length * seq);
    chunk.forEach((x, r) => {
      x.ids.forEach((id, c) => {
        ids[r * seq + c] = BigInt(id);
        mask[r * seq + c] = 1n;
      });
    });
    const res = await session.run({
      input_ids: new ort.Tensor("int64", ids, [chunk.length, seq]),
      attention_mask: new ort.Tensor("int64", mask, [chunk.length, seq]),
    });
    out += res[session.outputNames[0]].dims[0];
  }
  return out;
}

for (const name of setsArg.split(",")) {
  const items = corpus[name];
  await pass(items.slice(0, batchSize)); // warm-up
  const rates = [];
  for (let r = 0; r < reps; r++) {
    const t0 = process.hrtime.bigint();
    const n = await pass(items);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    rates.push(n / secs);
  }
  rates.sort((a, b) => a - b);
  console.log(JSON.stringify({ peer: "onnxruntime-node@1.30.0", set: name, strings: items.length, reps,
    median_strings_per_s: +rates[Math.floor(rates.length / 2)].toFixed(1), all: rates.map((x) => +x.toFixed(1)) }));
}
