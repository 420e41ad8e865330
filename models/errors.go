package models

import "errors"

// Sentinel errors, wrapped with the path involved; test with errors.Is.
var (
	// ErrMissingFile: a model directory lacks a file it needs (model.onnx, tokenizer.json).
	ErrMissingFile = errors.New("model file missing")
	// ErrChecksum: a file's sha256 differs from the one recorded in aem-model.json or pinned in code.
	ErrChecksum = errors.New("sha256 mismatch")
	// ErrBadModel: a file is present but unusable (corrupt ONNX or JSON, unexpected inputs or outputs).
	ErrBadModel = errors.New("unusable model")
	// ErrBadRepo: a Hugging Face repository name that is not ORG/NAME.
	ErrBadRepo = errors.New("bad repository name")
)
