package golden

// MaxLatencyMS is the largest latency_ms a turn may have: 1e12 ms, about
// 31 years. A dialog's latency is the sum of its turns', so with every
// turn below it the sum stays finite however long the dialog (a sum of
// turns near the largest double was +Inf, which no JSON reader of the
// outputs accepts); a larger value is a unit mistake (nanoseconds).
const MaxLatencyMS = 1e12

// latencyFix is the fix of a latency validate refuses.
const latencyFix = "use a latency in milliseconds from 0 to 1e12 (about 31 years), or null"
