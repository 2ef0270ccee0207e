package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"steward/backend/llm"
)

// head is the encoding of what a request holds besides its conversation.
type head struct {
	model string
	// rest is the JSON object of the request's other fields (model,
	// max_tokens, stream_options, tools), as the SDK encodes them.
	rest []byte
	// system is the system message, or nil.
	system []byte
}

// wireMessage is the encoding of one llm.Message.
type wireMessage struct {
	msg []byte
	// images are the content parts that carry a tool message's images (a
	// text part naming the call, then the images), joined by commas, or
	// nil: a tool message's content can only be text, so the images of a
	// run of tool messages follow the run in one user message.
	images []byte
}

// JSON between the pieces of a body; never written.
var (
	bodyStart   = []byte(`{"stream":true,"messages":[`)
	comma       = []byte(",")
	imagesStart = []byte(`{"content":[`)
	imagesEnd   = []byte(`],"role":"user"}`)
	messagesEnd = []byte("]")
	objectEnd   = []byte("}")
)

// requestBody encodes req as the JSON body of a streaming chat completion,
// from the encodings of its messages, which p.encodings keeps from one call
// to the next, so that a step encodes only its new messages. Each piece is
// encoded by the SDK from the parameters it maps the request onto (see
// headParams and messageParam); requestBody only puts them in order. A
// request the provider cannot express is an *llm.Error of kind
// llm.ErrInvalid.
func (p *Provider) requestBody(req llm.Request) (*llm.Body, string, error) {
	if req.Model == "" && p.model == "" {
		// The first fault of a request to report, as it always was.
		return nil, "", invalidf("no model configured")
	}
	h, msgs, err := p.encodings.Encode(req, p.encodeHead, encodeMessage)
	if err != nil {
		return nil, "", err
	}
	body := llm.NewBody(2*len(msgs) + 8) // a comma and a message each
	body.Add(bodyStart)
	n := 0
	add := func(pieces ...[]byte) {
		if n > 0 {
			body.Add(comma)
		}
		n++
		body.Add(pieces...)
	}
	if h.system != nil {
		add(h.system)
	}
	// toolImages gathers the images of a run of tool messages, which go in
	// one user message after the run.
	var toolImages [][]byte
	flushImages := func() {
		if len(toolImages) == 0 {
			return
		}
		add(imagesStart)
		for i, parts := range toolImages {
			if i > 0 {
				body.Add(comma)
			}
			body.Add(parts)
		}
		body.Add(imagesEnd)
		toolImages = nil
	}
	for i, m := range msgs {
		if req.Messages[i].Role != llm.RoleTool {
			flushImages()
		}
		add(m.msg)
		if m.images != nil {
			toolImages = append(toolImages, m.images)
		}
	}
	flushImages()
	body.Add(messagesEnd)
	// rest is an object whose fields follow the messages: at least the model.
	if rest := bytes.TrimPrefix(h.rest, []byte("{")); len(rest) > 1 {
		body.Add(comma, rest)
	} else {
		body.Add(objectEnd)
	}
	return body, h.model, nil
}

// encodeHead encodes the parts of req that are not messages.
func (p *Provider) encodeHead(req llm.Request) (head, error) {
	params, err := p.headParams(req)
	if err != nil {
		return head{}, err
	}
	rest, err := params.MarshalJSON()
	if err != nil {
		return head{}, invalidf("encode request: %v", err)
	}
	h := head{model: string(params.Model), rest: rest}
	if req.System != "" {
		sys := oai.SystemMessage(req.System)
		if h.system, err = sys.MarshalJSON(); err != nil {
			return head{}, invalidf("encode system prompt: %v", err)
		}
	}
	return h, nil
}

// headParams maps the parts of an llm.Request that are not messages onto
// Chat Completions parameters.
func (p *Provider) headParams(req llm.Request) (oai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return oai.ChatCompletionNewParams{}, invalidf("no model configured")
	}
	params := oai.ChatCompletionNewParams{
		Model: shared.ChatModel(model),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{
			IncludeUsage: param.NewOpt(true),
		},
	}
	if req.MaxTokens > 0 {
		// max_tokens rather than max_completion_tokens: every compatible server
		// knows the older name.
		params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
	}
	for _, t := range req.Tools {
		schema, err := schemaParam(t.Schema)
		if err != nil {
			return oai.ChatCompletionNewParams{}, invalidf("tool %s: %v", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

// encodeMessage encodes message i of a request.
//
// Images are image_url parts holding data URLs. A tool message's content can
// only be text, so the images of a run of tool messages follow the run in
// one user message, each tool call's images after a text part naming it.
func encodeMessage(i int, m llm.Message) (*wireMessage, error) {
	msg, err := messageParam(m)
	if err != nil {
		return nil, invalidf("message %d: %v", i, err)
	}
	w := &wireMessage{}
	if w.msg, err = msg.MarshalJSON(); err != nil {
		return nil, invalidf("message %d: %v", i, err)
	}
	if m.Role == llm.RoleTool && len(m.Images) > 0 {
		parts := append([]oai.ChatCompletionContentPartUnionParam{
			oai.TextContentPart(fmt.Sprintf("Images from the result of tool call %s:", m.ToolCallID)),
		}, imageParts(m.Images)...)
		enc := make([][]byte, len(parts))
		for j, part := range parts {
			if enc[j], err = part.MarshalJSON(); err != nil {
				return nil, invalidf("message %d: %v", i, err)
			}
		}
		w.images = bytes.Join(enc, []byte(","))
	}
	return w, nil
}

func messageParam(m llm.Message) (oai.ChatCompletionMessageParamUnion, error) {
	if err := m.ValidateImages(); err != nil {
		return oai.ChatCompletionMessageParamUnion{}, err
	}
	switch m.Role {
	case llm.RoleUser:
		if len(m.Images) == 0 {
			return oai.UserMessage(m.Text), nil
		}
		var parts []oai.ChatCompletionContentPartUnionParam
		if m.Text != "" {
			parts = append(parts, oai.TextContentPart(m.Text))
		}
		return oai.UserMessage(append(parts, imageParts(m.Images)...)), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool message without tool_call_id")
		}
		text := m.Text
		if m.IsError {
			// Chat Completions has no is_error flag: say it in the content so
			// the model does not take an error text for a result.
			text = "Error: " + text
		}
		return oai.ToolMessage(text, m.ToolCallID), nil
	case llm.RoleAssistant:
		var a oai.ChatCompletionAssistantMessageParam
		// Content may be omitted only when tool_calls is present.
		if m.Text != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Text)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      tc.Name,
						Arguments: argumentsString(tc.Arguments),
					},
				},
			})
		}
		return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// imageParts are image_url content parts holding the images as data URLs.
func imageParts(images []llm.Image) []oai.ChatCompletionContentPartUnionParam {
	parts := make([]oai.ChatCompletionContentPartUnionParam, 0, len(images))
	for _, img := range images {
		url := "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return parts
}

// argumentsString is the wire form of tool call arguments: a JSON text in a
// string, "{}" when there are none.
func argumentsString(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	return string(args)
}

// schemaParam decodes a tool's JSON schema; an empty schema means a tool
// without parameters.
func schemaParam(schema json.RawMessage) (shared.FunctionParameters, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil || m == nil {
		return nil, fmt.Errorf("schema is not a JSON object")
	}
	return shared.FunctionParameters(m), nil
}

func invalidf(format string, args ...any) *llm.Error {
	return &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf(format, args...)}
}
