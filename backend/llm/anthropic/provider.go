// Package anthropic is the llm.Provider for the Anthropic Messages API
// (api.anthropic.com and servers that copy its wire format).
//
// Every call streams. The provider never retries: the SDK's retries are turned
// off because the engine owns the retry policy. The provider never reads
// ANTHROPIC_* variables from the environment, nor a profile from disk: all
// configuration comes from Config. Stream runs no goroutine of its own; the
// response body is closed before Stream returns.
//
// A Provider keeps the encoded messages of its last request (see
// llm.Encodings) and sends each request as a body made of those pieces, so a
// step of a run encodes only its new messages and copies none of the old
// ones: the SDK would encode the whole history on every call. What it keeps
// is about one request body, replaced by each call; config makes a Provider
// per run, so it goes with the run.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"steward/backend/llm"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the max_tokens sent when neither the Request nor the
// Config sets one: the Messages API requires the field.
const DefaultMaxTokens = 8192

// Config configures a Provider.
type Config struct {
	// APIKey is sent in the x-api-key header. Empty sends no key (a local
	// server that copies the API may need none).
	APIKey string
	// BaseURL is the API root, such as "https://api.anthropic.com" or
	// "http://localhost:4000/anthropic". A trailing slash and a trailing "/v1"
	// are removed: the provider adds "/v1/messages" itself, so both
	// "https://api.anthropic.com" and "https://api.anthropic.com/v1/" work.
	// Empty means DefaultBaseURL.
	BaseURL string
	// Model is used when a Request names no model.
	Model string
	// MaxTokens is max_tokens for a Request whose MaxTokens is 0; 0 here
	// means DefaultMaxTokens.
	MaxTokens int
	// HTTPClient is the client used for requests; nil means a client with
	// http.DefaultTransport and no overall timeout (streams can run long).
	HTTPClient *http.Client
}

// Provider streams messages from the Anthropic Messages API.
// It is safe for concurrent use.
type Provider struct {
	messages sdk.MessageService
	// baseURLForMessages is the normalised base URL without any password and
	// without a trailing slash, for error messages.
	baseURLForMessages string
	model              string
	maxTokens          int
	// configErr is a Config mistake (an unparsable base URL) reported by
	// every Stream call, since New cannot fail.
	configErr error
	// now is the clock for Retry-After dates.
	now func() time.Time
	// encodings keeps the encoded messages of the last request, which the
	// next request of the run repeats (see llm.Encodings).
	encodings llm.Encodings[head, *wireMessage]
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg. A malformed cfg.BaseURL is reported by
// Stream as an *llm.Error of kind llm.ErrInvalid.
func New(cfg Config) *Provider {
	base, err := normalizeBaseURL(cfg.BaseURL)
	if err != nil {
		return &Provider{configErr: err}
	}
	p := &Provider{
		baseURLForMessages: strings.TrimSuffix(redactURL(base), "/"),
		model:              cfg.Model,
		maxTokens:          cfg.MaxTokens,
		now:                time.Now,
	}
	if p.maxTokens <= 0 {
		p.maxTokens = DefaultMaxTokens
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(base),
		// The engine retries, and records every attempt; SDK retries would be
		// invisible to it and multiply its own.
		option.WithMaxRetries(0),
		// Spans would go to whatever tracer provider is registered globally,
		// and their settings come from ANTHROPIC_OPEN_TELEMETRY* variables.
		option.WithoutOpenTelemetry(),
		option.WithMiddleware(p.captureErrors),
	}
	if cfg.APIKey != "" {
		// The documented header for API keys. option.WithAPIKey sends the key
		// as "Authorization: Bearer", which servers that copy the API (and the
		// API's own documentation) do not expect.
		opts = append(opts, option.WithHeader("X-Api-Key", cfg.APIKey))
	}
	// sdk.NewMessageService, unlike sdk.NewClient, adds no defaults: NewClient
	// reads ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
	// ANTHROPIC_CUSTOM_HEADERS, ANTHROPIC_PROFILE, the federation variables and
	// a profile file under the config directory. Nothing outside Config
	// reaches the wire.
	p.messages = sdk.NewMessageService(opts...)
	return p
}

// normalizeBaseURL makes base an absolute http(s) URL whose path ends in "/"
// and does not end in "/v1/", since the SDK resolves "v1/messages" under it.
func normalizeBaseURL(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		// The *url.Error would repeat the URL, and with it any password.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("invalid base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("invalid base URL %q: want http:// or https:// and a host", u.Redacted())
	}
	u.RawPath = "" // re-derived from Path; a base URL has no escaped slashes
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(u.Path, "/v1")
	u.Path += "/"
	return u.String(), nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// Stream sends req as a streaming message. Text and tool-input fragments
// reach onDelta as they arrive, from the calling goroutine.
//
// When ctx ends, Stream returns an error that satisfies errors.Is(err,
// ctx.Err()). Every other failure is an *llm.Error: ErrUnavailable when the
// server cannot be reached or the connection drops (the message names the
// base URL); ErrRateLimited for 429 and a rate_limit_error event; ErrServer
// for 5xx (529 is "overloaded"), 408, any other error event inside the
// stream, or a stream that ends before a stop reason; ErrAuth for 401 and
// 403; ErrInvalid for other 4xx and for a request or Config the provider
// cannot send; ErrBadResponse for an event it cannot decode. HTTP errors
// carry the status code, the server's own message and its Retry-After.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if p.configErr != nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: p.configErr.Error(), Err: p.configErr}
	}
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	body, model, err := p.requestBody(req)
	if err != nil {
		return nil, err
	}

	// The SDK sends the body made of cached pieces in place of its own
	// encoding of the (empty) parameters: encoding the parameters would
	// encode the whole history again on every call, and the SDK's own
	// bodies are joined and copied. Its middleware sees the request last.
	stream := p.messages.NewStreaming(ctx, sdk.MessageNewParams{},
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			body.Attach(r)
			return next(r)
		}))
	defer stream.Close()

	acc := accumulator{onDelta: onDelta, model: model}
	started := false
	for stream.Next() {
		started = true
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return nil, p.classify(ctx, err, started)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("model call: %w", err)
	}
	return acc.response()
}
