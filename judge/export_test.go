package judge

// Internals the external tests (package judge_test) use.

// TaskOf is a kind's definition of equivalence in the system prompt.
func TaskOf(k Kind) string { return tasks[k] }

// EstimateTokens is the token estimate of c's request.
func EstimateTokens(c Comparison, maxAnswer int) int64 {
	return estimateTokens(c.messages(), maxAnswer)
}
