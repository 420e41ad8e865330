// Package blobtest exposes a *blob.Bucket as a gocloud blob driver, for
// tests that register object stores of their own in a URLMux: a shared
// in-memory bucket that every URL sees, or a store that misbehaves (embed
// Driver and override the methods that should).
package blobtest
