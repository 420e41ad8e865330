package golden

import (
	"fmt"
	"math"
)

// MaxLatencyMS is the largest latency_ms a turn may have: 1e12 ms, about
// 31 years. A dialog's latency is the sum of its turns', so with every
// turn below it the sum stays finite however long the dialog (a sum of
// turns near the largest double was +Inf, which no JSON reader of the
// outputs accepts); a larger value is a unit mistake (nanoseconds).
const MaxLatencyMS = 1e12

// checkLatency says what is wrong with a turn's latency_ms, "" when
// nothing; both readers call it.
func checkLatency(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > MaxLatencyMS {
		return fmt.Sprintf("latency_ms is %v", f)
	}
	return ""
}

// latencyFix is the fix of a latency checkLatency refuses.
const latencyFix = "use a latency in milliseconds from 0 to 1e12 (about 31 years), or null"
