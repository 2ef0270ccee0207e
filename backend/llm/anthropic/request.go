package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"steward/backend/llm"
)

// head is the encoding of what a request holds besides its conversation.
type head struct {
	model string
	// rest is the JSON object of the request's other fields (model,
	// max_tokens, system, tools), as the SDK encodes them.
	rest []byte
}

// wireMessage is the encoding of one llm.Message: the content blocks it adds
// to the conversation, as the SDK encodes them, and the role of the message
// they go in.
type wireMessage struct {
	end     []byte   // closes the message it goes in: endUser or endAssistant
	results [][]byte // tool_result blocks
	blocks  [][]byte // the other blocks
}

// JSON between the pieces of a body; never written.
var (
	bodyStart    = []byte(`{"stream":true,"messages":[`)
	comma        = []byte(",")
	contentStart = []byte(`{"content":[`)
	endUser      = []byte(`],"role":"user"}`)
	endAssistant = []byte(`],"role":"assistant"}`)
	messagesEnd  = []byte("]")
	objectEnd    = []byte("}")
)

// requestBody encodes req as the JSON body of a streaming message, from the
// encodings of its messages, which p.encodings keeps from one call to the
// next, so that a step encodes only its new messages. Each piece is encoded
// by the SDK from the parameters it maps the request onto (see headParams
// and encodeMessage); requestBody only puts them in order. A request the
// provider cannot express is an *llm.Error of kind llm.ErrInvalid.
//
// The Messages API has no tool role: a tool result is a tool_result block of
// a user message, and all results of a turn must be in the one user message
// that follows it, before any text. So consecutive messages that map to the
// same role are merged into one message, tool results first; in particular a
// user message right after tool results joins them, after the results.
//
// The API rejects messages without blocks, so a message that adds none is
// left out.
func (p *Provider) requestBody(req llm.Request) (*llm.Body, string, error) {
	if req.Model == "" && p.model == "" {
		// The first fault of a request to report, as it always was.
		return nil, "", invalidf("no model configured")
	}
	h, msgs, err := p.encodings.Encode(req, p.encodeHead, encodeMessage)
	if err != nil {
		return nil, "", err
	}
	body := llm.NewBody(5*len(msgs) + 8) // a step: a result and a text and tool_use, in their wrappers
	body.Add(bodyStart)
	var end []byte
	var results, blocks [][]byte
	n := 0
	flush := func() {
		if len(results)+len(blocks) == 0 {
			return
		}
		if n > 0 {
			body.Add(comma)
		}
		n++
		body.Add(contentStart)
		for i, b := range results {
			if i > 0 {
				body.Add(comma)
			}
			body.Add(b)
		}
		for i, b := range blocks {
			if i > 0 || len(results) > 0 {
				body.Add(comma)
			}
			body.Add(b)
		}
		body.Add(end)
		results, blocks = results[:0], blocks[:0]
	}
	for _, m := range msgs {
		if len(m.results)+len(m.blocks) == 0 {
			continue
		}
		if !bytes.Equal(m.end, end) {
			flush()
			end = m.end
		}
		results = append(results, m.results...)
		blocks = append(blocks, m.blocks...)
	}
	flush()
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
	return head{model: params.Model, rest: rest}, nil
}

// headParams maps the parts of an llm.Request that are not messages onto
// Messages API parameters.
func (p *Provider) headParams(req llm.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return sdk.MessageNewParams{}, invalidf("no model configured")
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	params := sdk.MessageNewParams{
		Model:     model,
		MaxTokens: int64(maxTokens),
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Schema)
		if err != nil {
			return sdk.MessageNewParams{}, invalidf("tool %s: %v", t.Name, err)
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return params, nil
}

// encodeMessage encodes message i of a request: the blocks it adds to the
// conversation. A tool message's images go in its tool_result, after the
// result text; a user message's images are image blocks after its text. The
// API rejects empty text blocks, so empty texts are left out.
func encodeMessage(i int, m llm.Message) (*wireMessage, error) {
	w, err := messageBlocks(m)
	if err != nil {
		return nil, invalidf("message %d: %v", i, err)
	}
	return w, nil
}

func messageBlocks(m llm.Message) (*wireMessage, error) {
	if err := m.ValidateImages(); err != nil {
		return nil, err
	}
	var results, others []sdk.ContentBlockParamUnion
	end := endUser
	switch m.Role {
	case llm.RoleUser:
		if m.Text != "" {
			others = append(others, sdk.NewTextBlock(m.Text))
		}
		for _, img := range m.Images {
			others = append(others, imageBlock(img))
		}
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return nil, fmt.Errorf("tool message without tool_call_id")
		}
		result := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID, IsError: param.NewOpt(m.IsError)}
		if m.Text != "" {
			result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Text}}}
		}
		for _, img := range m.Images {
			result.Content = append(result.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageBlock(img).OfImage})
		}
		results = append(results, sdk.ContentBlockParamUnion{OfToolResult: &result})
	case llm.RoleAssistant:
		end = endAssistant
		if m.Text != "" {
			others = append(others, sdk.NewTextBlock(m.Text))
		}
		for _, tc := range m.ToolCalls {
			others = append(others, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
		}
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	w := &wireMessage{end: end}
	var err error
	if w.results, err = marshalBlocks(results); err != nil {
		return nil, err
	}
	if w.blocks, err = marshalBlocks(others); err != nil {
		return nil, err
	}
	return w, nil
}

func marshalBlocks(blocks []sdk.ContentBlockParamUnion) ([][]byte, error) {
	if len(blocks) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(blocks))
	for i, b := range blocks {
		var err error
		if out[i], err = b.MarshalJSON(); err != nil {
			return nil, fmt.Errorf("encode: %w", err)
		}
	}
	return out, nil
}

// imageBlock is an image block with the image's bytes as a base64 source.
func imageBlock(img llm.Image) sdk.ContentBlockParamUnion {
	return sdk.NewImageBlockBase64(img.MediaType, base64.StdEncoding.EncodeToString(img.Data))
}

// toolInput is the input of a tool_use block, which the API requires to be a
// JSON object. Arguments that are not one (none at all, or the text of a call
// that max_tokens cut off, which the stream reports as a JSON string) are sent
// as {}: the call stays in the history, paired with its result, which tells
// the model what went wrong.
func toolInput(args json.RawMessage) any {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	return map[string]any{}
}

// inputSchema turns a tool's JSON schema into input_schema, which must be an
// object schema; an empty schema means a tool without parameters. The schema
// is sent as written (its values stay raw JSON, so a number such as a large
// maximum is not rounded), with "type": "object" added when it has no type.
func inputSchema(schema json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return sdk.ToolInputSchemaParam{Properties: map[string]any{}}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil || m == nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("schema is not a JSON object")
	}
	if t, ok := m["type"]; ok {
		var s string
		if json.Unmarshal(t, &s) != nil || s != "object" {
			return sdk.ToolInputSchemaParam{}, fmt.Errorf(`schema type is %s, want "object"`, t)
		}
	} else {
		m["type"] = json.RawMessage(`"object"`)
	}
	return param.Override[sdk.ToolInputSchemaParam](m), nil
}

func invalidf(format string, args ...any) *llm.Error {
	return &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf(format, args...)}
}
