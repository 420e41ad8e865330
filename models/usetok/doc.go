// Package usetok is the tokenizer of the Universal Sentence Encoder lite model,
// ported line by line from the reference JavaScript tokenizer that ships with the
// model (@energetic-ai/embeddings 0.2.0, itself from tfjs-models'
// universal-sentence-encoder), so that aem feeds the converted ONNX model exactly
// the token ids the original TF.js model sees.
//
// The reference is a SentencePiece-style Viterbi segmentation over a 8000-piece
// vocabulary, with its own quirks, all reproduced here:
//
//   - the text is NFKC-normalised; a non-empty text gets "▁" prepended and every
//     space (U+0020 only) becomes "▁". Tabs, newlines and other whitespace are kept
//     as characters (they are not in the vocabulary, so each run becomes id 0).
//     Repeated spaces are not collapsed; leading and trailing spaces are kept.
//   - the empty string has no tokens at all.
//   - the first 6 vocabulary entries (the unknown piece "\uFFFD", "<s>", "</s>",
//     "extra_token_id_1..3") are never matched from text.
//   - at a position where no piece starts, the single character becomes the
//     unknown id 0 with score 0 (better than any real piece); consecutive unknowns
//     merge into one id 0.
//   - ties go to the later candidate, and a best score of exactly 0 counts as
//     "unset" (the reference's sentinel); a null score in vocab.json counts as 0.
//   - backtracking steps back by the UTF-16 length of the chosen piece.
//
// There is no token cap here: the model reads at most 128 tokens (the original
// drops the rest), so callers truncate to MaxTokens.
//
// The vocabulary is read from the Unigram model of a tokenizer.json written by
// package models (or given directly to New). A Tokenizer is immutable after
// construction and safe for concurrent use.
//
// tokenizer.json itself is a Hugging Face tokenizers file (Unigram model, NFKC +
// Prepend + Replace normaliser, Metaspace pre-tokenizer) for tools that need one;
// generic Unigram implementations differ from the reference on unknown
// characters, tabs and newlines and on exact-tie cases, which is why this
// package exists.
package usetok
