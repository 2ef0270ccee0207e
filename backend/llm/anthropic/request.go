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

// buildParams maps an llm.Request onto Messages API parameters. A request the
// provider cannot express is an *llm.Error of kind llm.ErrInvalid.
func (p *Provider) buildParams(req llm.Request) (sdk.MessageNewParams, error) {
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

	var b conversation
	for i, m := range req.Messages {
		if err := b.add(m); err != nil {
			return sdk.MessageNewParams{}, invalidf("message %d: %v", i, err)
		}
	}
	params.Messages = b.messages

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

// conversation builds the messages array. The Messages API has no tool role:
// a tool result is a tool_result block of a user message, and all results of
// a turn must be in the one user message that follows it, before any text.
// So consecutive messages that map to the same role are merged into one
// message, tool results first; in particular a user message right after tool
// results joins them, after the results.
//
// A tool message's images go in its tool_result, after the result text; a
// user message's images are image blocks after its text.
//
// The API rejects empty text blocks, and messages without blocks, so empty
// texts are left out and a message left with nothing is dropped.
type conversation struct {
	messages []sdk.MessageParam
}

func (c *conversation) add(m llm.Message) error {
	if err := m.ValidateImages(); err != nil {
		return err
	}
	switch m.Role {
	case llm.RoleUser:
		if m.Text != "" {
			c.appendUser(sdk.NewTextBlock(m.Text))
		}
		for _, img := range m.Images {
			c.appendUser(imageBlock(img))
		}
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return fmt.Errorf("tool message without tool_call_id")
		}
		result := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID, IsError: param.NewOpt(m.IsError)}
		if m.Text != "" {
			result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Text}}}
		}
		for _, img := range m.Images {
			result.Content = append(result.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageBlock(img).OfImage})
		}
		c.appendUser(sdk.ContentBlockParamUnion{OfToolResult: &result})
	case llm.RoleAssistant:
		var blocks []sdk.ContentBlockParamUnion
		if m.Text != "" {
			blocks = append(blocks, sdk.NewTextBlock(m.Text))
		}
		for _, tc := range m.ToolCalls {
			blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
		}
		if len(blocks) == 0 {
			return nil
		}
		if last := c.last(); last != nil && last.OfAssistant != nil {
			last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			return nil
		}
		c.messages = append(c.messages, sdk.NewAssistantMessage(blocks...))
	default:
		return fmt.Errorf("unknown role %q", m.Role)
	}
	return nil
}

// appendUser adds block to the user message at the end, or to a new one. A
// tool result goes after the results already there and before any text.
func (c *conversation) appendUser(block sdk.ContentBlockParamUnion) {
	last := c.last()
	if last == nil || last.OfUser == nil {
		c.messages = append(c.messages, sdk.NewUserMessage(block))
		return
	}
	content := last.OfUser.Content
	if block.OfToolResult == nil {
		last.OfUser.Content = append(content, block)
		return
	}
	at := 0
	for at < len(content) && content[at].OfToolResult != nil {
		at++
	}
	last.OfUser.Content = append(content[:at:at], append([]sdk.ContentBlockParamUnion{block}, content[at:]...)...)
}

func (c *conversation) last() *sdk.MessageParam {
	if len(c.messages) == 0 {
		return nil
	}
	return &c.messages[len(c.messages)-1]
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
