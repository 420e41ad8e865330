package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds the response body read: an answer is a few hundred bytes.
const maxBody = 4 << 20

// exchange is the outcome of one HTTP request.
type exchange struct {
	status     int
	resp       chatResponse
	apiErr     apiError
	retryAfter time.Duration // -1: the response did not say
	err        error         // transport error or unreadable body
}

// outcome classifies an exchange.
type outcome int

const (
	outcomeOK       outcome = iota
	outcomeRetry            // 408, 429, 5xx, timeouts, connection errors, a 200 that is not a completion
	outcomeStepDown         // the endpoint rejected response_format
	outcomeDeclined         // this comparison cannot be judged (past the context, refused)
	outcomeFatal            // no request can succeed: key, model, URL, quota
)

// complete sends msgs and returns the answer's content. It waits for the
// rate limits, charges the budget, retries what can succeed on a retry,
// and steps the response format down when the endpoint rejects it. Its
// errors wrap ErrRefused (this comparison only), ErrBudget, ErrEndpoint or
// the context's error.
func (j *Judge) complete(ctx context.Context, msgs []message) (string, error) {
	est := estimateTokens(msgs, j.o.MaxAnswerTokens)
	for try := 0; ; {
		x, format, err := j.send(ctx, msgs, est)
		if err != nil {
			return "", err
		}
		switch kind, detail := j.classify(x, format); kind {
		case outcomeOK:
			return *x.resp.Choices[0].Message.Content, nil
		case outcomeStepDown:
			j.stepDown(format)
		case outcomeDeclined:
			return "", fmt.Errorf("%w: %s", ErrRefused, detail)
		case outcomeFatal:
			return "", fmt.Errorf("%w: %s: %s", ErrEndpoint, redactURL(j.url), detail)
		case outcomeRetry:
			if try >= j.o.MaxRetries {
				return "", fmt.Errorf("%w: %s: gave up after %d attempts; the last: %s", ErrEndpoint, redactURL(j.url), try+1, detail)
			}
			wait, err := j.backoff(try, x)
			if err != nil {
				return "", err
			}
			j.st.retries.Add(1)
			if wait > 0 {
				if err := j.lim.sleep(ctx, wait); err != nil {
					return "", err
				}
			}
			try++
		}
	}
}

// send makes one request: a concurrency slot, the budget, the rate limits,
// the HTTP exchange under Options.Timeout, usage. The response format is
// read once the request may go, so that queued requests follow a step
// down. err is the budget's or the run context's error; everything else is
// in the exchange.
func (j *Judge) send(ctx context.Context, msgs []message, est int64) (x *exchange, format string, err error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
	defer func() { <-j.sem }()
	if err := j.lim.reserve(est); err != nil {
		return nil, "", err
	}
	if err := j.lim.wait(ctx, est); err != nil {
		j.lim.unreserve(est)
		return nil, "", err
	}
	format = j.format()
	body, err := json.Marshal(chatRequest{
		Model: j.o.Model, Messages: msgs, Temperature: 0, MaxTokens: j.o.MaxAnswerTokens,
		ResponseFormat: formatFor(format),
	})
	if err != nil {
		j.lim.unreserve(est)
		return nil, "", fmt.Errorf("encoding a judge request: %w", err)
	}
	x = j.post(ctx, body)
	if x.status == http.StatusTooManyRequests && x.retryAfter >= 0 && x.retryAfter <= j.o.MaxRetryAfter {
		// Before the slot is released: no request may slip out meanwhile.
		j.lim.pauseFor(x.retryAfter)
	}
	if ctx.Err() != nil {
		j.lim.settle(est, 0)
		return nil, "", ctx.Err()
	}
	var used int64
	if x.status == http.StatusOK && x.err == nil {
		u := usageOr(x.resp.Usage, est)
		if x.resp.Usage == nil {
			j.st.usageMissing.Add(1)
		}
		used = u.PromptTokens + u.CompletionTokens
		j.st.promptTokens.Add(u.PromptTokens)
		j.st.completionTokens.Add(u.CompletionTokens)
	}
	j.lim.settle(est, used)
	return x, format, nil
}

// usageOr is u, or the estimate counted as prompt tokens when the endpoint
// did not report usage.
func usageOr(u *usage, est int64) usage {
	if u != nil {
		return *u
	}
	return usage{PromptTokens: est}
}

// post is one HTTP exchange.
func (j *Judge) post(ctx context.Context, body []byte) *exchange {
	x := &exchange{retryAfter: -1}
	rctx, cancel := context.WithTimeout(ctx, j.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		x.err = fmt.Errorf("building the request: %w", unwrapURLError(err))
		return x
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "aem-judge/"+PromptVersion)
	if j.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.o.APIKey)
	}
	j.st.calls.Add(1)
	resp, err := j.o.HTTPClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			x.err = fmt.Errorf("no answer within %v (--judge-timeout)", j.o.Timeout)
		} else {
			x.err = unwrapURLError(err)
		}
		return x
	}
	defer resp.Body.Close()
	x.status = resp.StatusCode
	x.retryAfter = retryAfter(resp.Header, j.o.Clock.Now())
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			x.err = fmt.Errorf("no complete answer within %v (--judge-timeout)", j.o.Timeout)
		} else {
			x.err = fmt.Errorf("reading the response: %w", unwrapURLError(err))
		}
		return x
	}
	if x.status != http.StatusOK {
		x.apiErr = parseAPIError(data)
		return x
	}
	if err := json.Unmarshal(data, &x.resp); err != nil {
		x.err = fmt.Errorf("HTTP 200 but the body is not a chat completion: %w", err)
	} else if len(x.resp.Choices) == 0 {
		x.err = errors.New("HTTP 200 but the completion has no choices")
	}
	return x
}

// unwrapURLError drops *url.Error's wrapper, whose message repeats the URL
// (and its query, which may hold a key).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// classify says what to do with an exchange, and why in words (with the
// API key, should the endpoint echo it, redacted).
func (j *Judge) classify(x *exchange, format string) (outcome, string) {
	if x.err != nil {
		return outcomeRetry, j.redact(x.err.Error())
	}
	msg := j.redact(x.apiErr.Message)
	st := fmt.Sprintf("HTTP %d", x.status)
	switch s := x.status; {
	case s == http.StatusOK:
		m := x.resp.Choices[0].Message
		if m.Content == nil {
			if m.Refusal != nil {
				return outcomeDeclined, "the model refused: " + clip(j.redact(*m.Refusal), 200)
			}
			return outcomeDeclined, "the answer has no content (finish_reason " + strconv.Quote(x.resp.Choices[0].FinishReason) + ")"
		}
		return outcomeOK, ""
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		// The message is left out: servers quote part of a bad key in it.
		return outcomeFatal, st + ": the endpoint refused the API key; set $" + EnvAPIKey + " (or $" + EnvOpenAIAPIKey + ") to a key it accepts"
	case s == http.StatusTooManyRequests && x.apiErr.is("insufficient_quota", "quota"):
		return outcomeFatal, st + ": the account is out of quota: " + msg
	case s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s == http.StatusConflict || s >= 500:
		return outcomeRetry, strings.TrimSuffix(st+": "+msg, ": ")
	case x.apiErr.is("response_format", "json_schema", "json_object", "structured output"):
		if j.o.ResponseFormat == FormatAuto && format != FormatNone {
			return outcomeStepDown, st + ": " + msg
		}
		return outcomeFatal, st + ": " + msg + " (--judge-response-format " + format + "; auto steps down to what the endpoint supports)"
	case x.apiErr.is("context_length", "context length", "maximum context", "too many tokens", "too long"):
		return outcomeDeclined, st + ": " + msg
	case s == http.StatusNotFound:
		return outcomeFatal, st + ": no such model or URL (--judge-model " + strconv.Quote(j.o.Model) + "): " + msg
	}
	return outcomeFatal, strings.TrimSuffix(st+": "+msg, ": ")
}

// backoff is the wait before retry try (from 0): the endpoint's
// Retry-After when it gave one (shared: every request pauses), else
// exponential with jitter.
func (j *Judge) backoff(try int, x *exchange) (time.Duration, error) {
	if x.retryAfter >= 0 {
		if x.retryAfter > j.o.MaxRetryAfter {
			return 0, fmt.Errorf("%w: %s: HTTP %d asks to wait %v (Retry-After), longer than %v: try again later (a run resumes with --resume)",
				ErrEndpoint, redactURL(j.url), x.status, x.retryAfter, j.o.MaxRetryAfter)
		}
		if x.status == http.StatusTooManyRequests {
			return 0, nil // send paused every request, this one too
		}
		return x.retryAfter, nil
	}
	d := j.o.BackoffMax
	if try < 30 {
		d = min(d, j.o.BackoffBase<<try)
	}
	return d/2 + time.Duration(j.o.Jitter()*float64(d/2)), nil
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an
// HTTP date); -1 when neither is there or readable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// redact removes every part of the API key of 8 bytes or more from text
// that came from the endpoint (redactor).
func (j *Judge) redact(s string) string { return j.secret.redact(s) }

// estimateTokens bounds a request's tokens before it is sent: its text at
// three bytes a token (English averages about four characters a token),
// a few tokens of framing per message, and the answer's max_tokens.
func estimateTokens(msgs []message, maxAnswer int) int64 {
	n := int64(3 + maxAnswer)
	for _, m := range msgs {
		n += 4 + int64(len(m.Content)+2)/3
	}
	return n
}
