// Package onnxpb writes (and reads back) ONNX model protobufs without generated code.
//
// It covers the subset of onnx.proto that small, hand-built inference graphs need:
// ModelProto (IR version, opset imports, producer, metadata), GraphProto (nodes,
// initializers, inputs, outputs, value_info), NodeProto with attributes
// (float, int, string, tensor, graph, floats, ints, strings), TensorProto (float32,
// int32, int64 and bool data, typed fields or raw_data) and ValueInfoProto with
// tensor types whose dimensions are fixed sizes or symbolic names ("batch", "seq").
//
// The encoding is deterministic: the same Model value always marshals to the same
// bytes (fields are written in field-number order, repeated fields in slice order,
// and no map iteration is involved), so a converter built on it can pin the sha256
// of its output.
//
// Unmarshal decodes the same subset back (unknown fields are skipped), which is
// enough to inspect a model's inputs, outputs and opsets or to round-trip a model in
// tests. It reads raw_data as bytes; callers interpret it with Tensor.Floats or
// Tensor.Int64s.
//
// Field numbers follow https://github.com/onnx/onnx/blob/main/onnx/onnx.proto.
// The package has no state; values may be built and marshalled concurrently as long
// as one Model value is not mutated while it is being marshalled.
package onnxpb
