package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"steward/backend/llm"
)

// maxErrorBody bounds how much of an error response is read: enough for any
// JSON error, not a whole HTML error page.
const maxErrorBody = 64 << 10

// statusError is an HTTP error response, caught by captureErrors before the
// SDK parses it, so that its Retry-After is read in one place and so that the
// plain text or other JSON shapes of proxies in front of the API are read too.
type statusError struct {
	status     int
	body       []byte
	retryAfter time.Duration
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// captureErrors is SDK middleware that turns a response of status 400 or more
// into a *statusError.
func (p *Provider) captureErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody)) // a short read still has the status
	_ = res.Body.Close()
	return nil, &statusError{
		status:     res.StatusCode,
		body:       body,
		retryAfter: llm.RetryAfter(res.Header, p.now()),
	}
}

// classify maps an error of a model call to an *llm.Error, or to the
// context's error when ctx ended. started says whether stream events had
// arrived, which tells a lost stream from an unreachable server.
func (p *Provider) classify(ctx context.Context, err error, started bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("model call: %w", ctxErr)
	}

	var se *statusError
	if errors.As(err, &se) {
		msg, _ := bodyMessage(se.status, se.body)
		return &llm.Error{
			Kind:       llm.KindForStatus(se.status),
			StatusCode: se.status,
			Message:    msg,
			RetryAfter: se.retryAfter,
			Err:        err,
		}
	}

	var ae *sdk.Error
	if errors.As(err, &ae) {
		if ae.StatusCode < 400 {
			// An error event inside a 200 stream: the server failed mid-answer.
			return streamErrorEvent(ae.RawJSON(), err)
		}
		// Not expected while captureErrors is installed.
		msg := ae.Message
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		return &llm.Error{Kind: llm.KindForStatus(ae.StatusCode), StatusCode: ae.StatusCode, Message: msg, Err: err}
	}
	if raw, ok := strings.CutPrefix(err.Error(), "received error while streaming: "); ok {
		// The SDK's form of an error event when it has no response at hand.
		return streamErrorEvent(raw, err)
	}

	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return &llm.Error{Kind: llm.ErrBadResponse, Message: "unreadable stream event: " + err.Error(), Err: err}
	}

	if started {
		return &llm.Error{
			Kind:    llm.ErrUnavailable,
			Message: fmt.Sprintf("lost connection to model server at %s: %s", p.baseURLForMessages, llm.NetworkReason(err)),
			Err:     err,
		}
	}
	return &llm.Error{
		Kind:    llm.ErrUnavailable,
		Message: fmt.Sprintf("cannot reach model server at %s: %s", p.baseURLForMessages, llm.NetworkReason(err)),
		Err:     err,
	}
}

// bodyMessage finds the server's explanation in an error body, and the
// error's type when the body has one. It knows the API's shape
// {"type":"error","error":{"type":...,"message":...}} and the shapes of
// proxies: {"error":"..."}, {"message":...}, {"detail":...}; otherwise it uses
// the body's text, or the status text for an empty body.
func bodyMessage(status int, body []byte) (msg, errType string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
			if obj.Message == "" {
				return obj.Type, obj.Type
			}
			return obj.Message, obj.Type
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			return str, ""
		case v.Message != "":
			return v.Message, ""
		case json.Unmarshal(v.Detail, &str) == nil && str != "":
			return str, ""
		case len(v.Detail) > 0 && string(v.Detail) != "null":
			return string(v.Detail), ""
		}
	}
	text := strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))
	if text == "" {
		return http.StatusText(status), ""
	}
	const maxText = 500 // an HTML error page says nothing useful past this
	if len(text) > maxText {
		text = strings.ToValidUTF8(text[:maxText], "") + "…"
	}
	return text, ""
}

// streamErrorEvent classifies an error event sent inside a stream, such as
// data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// The answer was cut off by the server, so it is a server error, worth a
// retry, except a rate_limit_error, which is a rate limit.
func streamErrorEvent(data string, err error) *llm.Error {
	msg, errType := bodyMessage(0, []byte(data))
	if msg == "" {
		msg = "error event in the stream"
	}
	kind := llm.ErrServer
	if errType == "rate_limit_error" {
		kind = llm.ErrRateLimited
	}
	return &llm.Error{Kind: kind, Message: msg, Err: err}
}
