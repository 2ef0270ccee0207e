// Package openai is the llm.Provider for servers that speak the OpenAI Chat
// Completions API: OpenAI itself and the many local and hosted servers that
// copy it (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter...).
//
// Every call streams (stream_options.include_usage is set so the last chunk
// carries token counts). The provider never retries: the SDK's retries are
// turned off because the engine owns the retry policy. The provider never
// reads OPENAI_* variables from the environment: all configuration comes from
// Config. Stream runs no goroutine of its own; the response body is closed
// before Stream returns.
//
// A Provider keeps the encoded messages of its last request (see
// llm.Encodings) and sends each request as a body made of those pieces, so a
// step of a run encodes only its new messages and copies none of the old
// ones: the SDK would encode the whole history on every call. What it keeps
// is about one request body, replaced by each call; config makes a Provider
// per run, so it goes with the run.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"steward/backend/llm"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Config configures a Provider.
type Config struct {
	// APIKey is sent as a bearer token. Local servers usually accept any value,
	// or none.
	APIKey string
	// BaseURL is the API root, such as "http://localhost:11434/v1". A missing
	// trailing slash is added. Empty means DefaultBaseURL.
	BaseURL string
	// Model is used when a Request names no model.
	Model string
	// HTTPClient is the client used for requests; nil means a client with
	// http.DefaultTransport and no overall timeout (streams can run long).
	HTTPClient *http.Client
}

// Provider streams chat completions from an OpenAI-compatible server.
// It is safe for concurrent use.
type Provider struct {
	chat oai.ChatService
	// baseURLForMessages is the normalised base URL without any password,
	// for error messages.
	baseURLForMessages string
	model              string
	// configErr is a Config mistake (an unparsable base URL) reported by
	// every Stream call, since New cannot fail.
	configErr error
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
	p := &Provider{baseURLForMessages: redactURL(base), model: cfg.Model}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
	}
	// oai.NewChatService, unlike oai.NewClient, does not read OPENAI_BASE_URL,
	// OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID or OPENAI_CUSTOM_HEADERS
	// from the environment, so nothing outside Config reaches the wire.
	p.chat = oai.NewChatService(
		option.WithHTTPClient(hc),
		option.WithBaseURL(base),
		option.WithAPIKey(cfg.APIKey),
		// The engine retries, and records every attempt; SDK retries would be
		// invisible to it and multiply its own.
		option.WithMaxRetries(0),
		option.WithMiddleware(captureErrors),
	)
	return p
}

// normalizeBaseURL makes base an absolute http(s) URL whose path ends in "/",
// which the SDK needs to resolve "chat/completions" under it.
func normalizeBaseURL(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return DefaultBaseURL, nil
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
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// Stream sends req as a streaming chat completion. Text and tool-call
// argument fragments reach onDelta as they arrive, from the calling goroutine.
//
// When ctx ends, Stream returns an error that satisfies errors.Is(err,
// ctx.Err()). Every other failure is an *llm.Error: ErrUnavailable when the
// server cannot be reached or the connection drops (the message names the
// base URL); ErrRateLimited for 429; ErrServer for 5xx, 408, an error event
// inside the stream, or a stream that ends before a finish reason; ErrAuth
// for 401 and 403; ErrInvalid for other 4xx and for a request or Config the
// provider cannot send; ErrBadResponse for a chunk it cannot decode. HTTP
// errors carry the status code and the server's own message.
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
	stream := p.chat.Completions.NewStreaming(ctx, oai.ChatCompletionNewParams{},
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
