// Package diskcache is a persistent, size-bounded key-value cache in one
// directory, shared by the caches that must survive between runs: the
// embedding cache (package embed: sentence vectors) and the judge cache
// (package judge: an LLM judge's answers).
//
// A cache is an optimisation, so nothing in its files can crash or stop
// a run, and nothing read from them is trusted before it is verified.
// Values live in append-only segment files of checksummed records (key,
// payload, a 64-bit xxhash of both), read with ordinary reads (pread),
// never through a memory mapping: a damaged or truncated file yields
// errors and failed checks, never a fault. Each segment has an index
// file (the key prefix and offset of each record, with a checksum of its
// own), written when the segment is sealed and at Close; Open reads the
// indexes into memory (a map of key prefix to location, about 25 bytes a
// key: 38 MiB and 0.3 s of CPU for 1.6 million keys, measured) and reads
// the records an index does not cover, which after a crash are the last
// run's.
//
// What is verified and what happens when a check fails:
//   - a record: its key and payload against its checksum, and its key
//     against the one asked for, on every Get. A record that fails is a
//     miss, counted (Get's corrupt), and forgotten, so the next Put of the
//     key appends a good record that supersedes it.
//   - an index: against its checksum, its segment and the segment's size,
//     at Open. One that fails is ignored and the segment's records are
//     read instead (and the index written again); a Notice says so.
//   - a segment's header, at Open. A segment that cannot be read is moved
//     aside to <segment>.corrupt-<unix time> (deleted with
//     Options.DiscardCorrupt) with a Notice, and its entries are misses.
//   - bytes between records that are not a whole record (a write cut
//     short by a kill, damage): skipped, with a Notice; at the end of the
//     segment being appended to they are cut off.
//
// Writes append whole batches with one write and then index them, so a
// kill at any point leaves either the previous records or the new ones.
// A failed write (a full disk) is returned and leaves the cache usable.
// Without Options.Sync nothing is fsynced until a segment is sealed or
// the cache closed: a killed process loses nothing (the page cache
// keeps its writes), a power cut loses at most the latest records, which
// fail their checks and are misses. With it (the judge's cache: a paid
// answer) every Put is on disk before it returns.
//
// The size bound: segments are a sixteenth of Options.MaxBytes (4 KiB to
// 256 MiB); when a new segment would take the files past MaxBytes, the
// oldest segments are deleted whole, so eviction is by insertion order, in
// steps of about 6% of the bound, and needs no compaction: deleting a
// file is the only rewrite there is. A superseded record (rare: keys are
// content hashes) keeps its bytes until its segment goes.
//
// Keys are 32-byte hashes chosen by the caller (Key builds one); values
// are opaque bytes of at most MaxPayload. The directory is locked (flock
// on its lock file) by one Cache at a time: Open waits up to
// Options.LockTimeout for another holder, then fails with ErrLocked,
// naming the holder's pid.
//
// A Cache is safe for concurrent use.
package diskcache
