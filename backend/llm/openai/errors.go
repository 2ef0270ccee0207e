package openai

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

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"steward/backend/llm"
)

// maxErrorBody bounds how much of an error response is read: enough for any
// JSON error, not a whole HTML error page.
const maxErrorBody = 64 << 10

// statusError is an HTTP error response, caught by captureErrors before the
// SDK parses it: the SDK understands only {"error":{...}} bodies, and servers
// that copy the API also answer {"error":"text"}, {"detail":...} or plain text.
// Its Retry-After is read here, where the headers are at hand.
type statusError struct {
	status     int
	body       []byte
	retryAfter time.Duration
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// captureErrors is SDK middleware that turns a response of status 400 or more
// into a *statusError.
func captureErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody)) // a short read still has the status
	_ = res.Body.Close()
	return nil, &statusError{status: res.StatusCode, body: body, retryAfter: llm.RetryAfter(res.Header, time.Now())}
}

// classify maps an error of a model call to an *llm.Error, or to the
// context's error when ctx ended. started says whether response chunks had
// arrived, which tells a lost stream from an unreachable server.
func (p *Provider) classify(ctx context.Context, err error, started bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("model call: %w", ctxErr)
	}

	var se *statusError
	if errors.As(err, &se) {
		return &llm.Error{
			Kind:       llm.KindForStatus(se.status),
			StatusCode: se.status,
			Message:    bodyMessage(se.status, se.body),
			RetryAfter: se.retryAfter,
			Err:        err,
		}
	}
	var ae *oai.Error // not expected while captureErrors is installed
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		return &llm.Error{Kind: llm.KindForStatus(ae.StatusCode), StatusCode: ae.StatusCode, Message: msg, Err: err}
	}

	// An error event inside a 200 stream: the server failed mid-answer.
	var ee *ssestream.StreamError
	if errors.As(err, &ee) {
		return streamErrorEvent(ee)
	}

	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return &llm.Error{Kind: llm.ErrBadResponse, Message: "unreadable stream chunk: " + err.Error(), Err: err}
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

// bodyMessage finds the server's explanation in an error body. It knows the
// OpenAI shape {"error":{"message":...}} and the shapes of servers that copy
// the API: {"error":"..."}, {"message":...}, {"detail":...}; otherwise it uses
// the body's text, or the status text for an empty body.
func bodyMessage(status int, body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			return str
		case v.Message != "":
			return v.Message
		case json.Unmarshal(v.Detail, &str) == nil && str != "":
			return str
		case len(v.Detail) > 0 && string(v.Detail) != "null":
			return string(v.Detail)
		}
	}
	text := strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))
	if text == "" {
		return http.StatusText(status)
	}
	const maxText = 500 // an HTML error page says nothing useful past this
	if len(text) > maxText {
		text = strings.ToValidUTF8(text[:maxText], "") + "…"
	}
	return text
}

// streamErrorEvent classifies an error event sent inside a stream, such as
// data: {"error":{"message":"...","type":"server_error"}}.
func streamErrorEvent(ee *ssestream.StreamError) *llm.Error {
	var ev struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	msg := ee.Message
	kind := llm.ErrServer
	if json.Unmarshal(ee.Event.Data, &ev) == nil {
		if ev.Error.Message != "" {
			msg = ev.Error.Message
		}
		if strings.Contains(ev.Error.Type, "rate_limit") || strings.Contains(string(ev.Error.Code), "rate_limit") {
			kind = llm.ErrRateLimited
		}
	}
	return &llm.Error{Kind: kind, Message: msg, Err: ee}
}
