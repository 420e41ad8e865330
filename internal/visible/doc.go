// Package visible shows the control characters of untrusted text instead
// of sending them: a dialog id, a file name or a judge's answer printed on
// a terminal must not move the cursor, retitle the window, recolour the
// screen or reorder the line (Trojan Source).
//
// [Text] escapes a string for a message (newlines and tabs kept), [Line]
// for one line (those escaped too), and [NewWriter] wraps a stream so
// that everything written through it is escaped as [Text]. The escapes
// are Go's: \x1b, \r, \u202e, and \xff for a byte that is not UTF-8. A
// backslash is left as it is: the result is for reading, not decoding.
package visible
