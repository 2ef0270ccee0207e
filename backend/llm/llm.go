// Package llm declares the model provider interface that the engine calls,
// and the request, stream and response types shared by every provider; and
// what the providers share to send a request whose cost follows what is new
// in it: Encodings, which keeps the encoded messages of the last request,
// and Body, a request body made of those pieces.
//
// Providers stream: Stream returns deltas as they arrive and a final Response.
// Providers do not retry; the engine owns the retry policy so that every
// attempt can be recorded in the run's log.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"steward/backend/event"
)

// Provider is a model backend.
type Provider interface {
	// Stream sends req and calls onDelta for each piece of streamed output, in
	// order, from the calling goroutine. It returns the complete response, or
	// an error (see *Error for the classified kinds).
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}

// Role of a message: the log's, so that a conversation carried in an event
// (a fork's history) has the roles of the one sent to the model.
type Role = event.Role

// Roles.
const (
	RoleUser      = event.RoleUser
	RoleAssistant = event.RoleAssistant
	RoleTool      = event.RoleTool
)

// Message is one turn of the conversation. An assistant message may carry
// tool calls; a tool message carries the result of exactly one call.
type Message struct {
	Role      Role       `json:"role"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and IsError belong to tool messages.
	ToolCallID string `json:"tool_call_id,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	// Images on a tool message are images the tool returned (a browser
	// screenshot), sent to the model with its result; on a user message they
	// are sent as part of that message. An assistant message carries none:
	// providers reject a request where one does. Only set them for a model
	// that accepts images; the text should still describe what they show.
	Images []Image `json:"images,omitempty"`
}

// ValidateImages reports the first image of m that Image.Validate rejects,
// by its index, and images on an assistant message, which no provider can
// send. Providers report it as an *Error of kind ErrInvalid naming the
// message, and send nothing.
func (m Message) ValidateImages() error {
	if len(m.Images) > 0 && m.Role == RoleAssistant {
		return fmt.Errorf("an assistant message cannot carry images")
	}
	for i, img := range m.Images {
		if err := img.Validate(); err != nil {
			return fmt.Errorf("image %d: %w", i, err)
		}
	}
	return nil
}

// Image is an image sent to the model, with its bytes (not base64).
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp: the types
	// that both the OpenAI and the Anthropic APIs accept.
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// Validate reports what is wrong with img: a media type other than
// image/png, image/jpeg, image/gif or image/webp, or no data. A provider
// rejects a request that holds such an image with an *Error of kind
// ErrInvalid naming the message, and sends nothing.
func (img Image) Validate() error {
	switch img.MediaType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return fmt.Errorf("media type %q is not one of image/png, image/jpeg, image/gif, image/webp", img.MediaType)
	}
	if len(img.Data) == 0 {
		return fmt.Errorf("no image data")
	}
	return nil
}

// ToolCall is a call the model asks for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call.
//
// What stays the same from one request of a run to the next: the engine
// builds a run's conversation by appending, so Messages[i] of a later
// request of the same run is the message Messages[i] of an earlier one was
// (the same Role, Text, ToolCalls, ToolCallID and IsError, sharing their
// backing arrays), and a provider may keep the encoding of each message by
// its place in the run's conversation. Two exceptions: a tool result the
// engine synthesized for a call that had none yet ("error interrupted: no
// result was recorded for this call; its outcome is unknown") is replaced
// by the call's real result once it is recorded, and Images are attached
// to the latest tool results of each request only (a message may carry
// images in one request and none in the next). System and Tools may change
// between requests. A provider must not change the messages it is sent.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
}

// DeltaKind says what a Delta carries.
type DeltaKind int

// Delta kinds.
const (
	DeltaText DeltaKind = iota
	// DeltaToolArgs is a fragment of a tool call's arguments; ToolIndex says
	// which call of the turn it belongs to.
	DeltaToolArgs
)

// Delta is a piece of streamed output.
type Delta struct {
	Kind      DeltaKind
	Text      string
	ToolIndex int
	ToolName  string
}

// Stop reasons.
const (
	StopEnd       = "end_turn"
	StopToolCalls = "tool_calls"
	StopMaxTokens = "max_tokens"
)

// Response is a completed model call.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage
	Model      string
}

// Usage counts the tokens of one call.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	CachedTokens int64
}

// ErrorKind classifies a provider failure so the engine can decide whether a
// retry may help.
type ErrorKind string

// Error kinds.
const (
	ErrUnavailable ErrorKind = "unavailable"  // network error, connection refused
	ErrRateLimited ErrorKind = "rate_limited" // 429
	ErrServer      ErrorKind = "server_error" // 5xx, 408
	ErrAuth        ErrorKind = "auth"         // 401, 403
	ErrInvalid     ErrorKind = "invalid"      // other 4xx
	ErrBadResponse ErrorKind = "bad_response" // the server answered something we cannot read
	ErrScriptEnded ErrorKind = "script_ended" // the script provider has no more turns
)

// ErrorKinds lists the error kinds.
var ErrorKinds = []ErrorKind{ErrUnavailable, ErrRateLimited, ErrServer, ErrAuth, ErrInvalid, ErrBadResponse, ErrScriptEnded}

// Error is a classified provider failure.
type Error struct {
	Kind       ErrorKind
	StatusCode int
	Message    string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Kind, e.Message)
	if e.StatusCode != 0 {
		msg = fmt.Sprintf("%s (HTTP %d): %s", e.Kind, e.StatusCode, e.Message)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether err is worth another attempt.
func Retryable(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case ErrUnavailable, ErrRateLimited, ErrServer:
		return true
	}
	return false
}
