package judge

import "errors"

// Sentinel errors, returned wrapped with what was being done and the fix.
// Check them with errors.Is.
var (
	// ErrBudget: the run's budget (Options.MaxCalls or Options.MaxTokens)
	// would be exceeded by the next call. Nothing more is sent; what was
	// answered is in the cache, so a resumed run does not pay for it again.
	ErrBudget = errors.New("judge budget reached")

	// ErrEndpoint: the endpoint refused a request (a bad key, an unknown
	// model, a malformed request) or kept failing after every retry
	// (HTTP 429 or 5xx, timeouts, connection errors). The run cannot go on.
	ErrEndpoint = errors.New("judge endpoint failed")

	// ErrMalformedAnswer: the model's answer to one comparison was not the
	// JSON object asked for, twice. It is a judge error on that comparison
	// (Result.Err), not a failure of the run.
	ErrMalformedAnswer = errors.New("malformed judge answer")

	// ErrRefused: the endpoint declined one comparison (the input is past
	// the model's context, or the model refused to answer). It is a judge
	// error on that comparison (Result.Err), not a failure of the run.
	ErrRefused = errors.New("judge declined the comparison")

	// ErrInvalidOptions: Options.Validate found a bad setting.
	ErrInvalidOptions = errors.New("invalid judge options")
)
