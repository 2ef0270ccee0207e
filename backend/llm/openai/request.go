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

// buildParams maps an llm.Request onto Chat Completions parameters. A request
// the provider cannot express is an *llm.Error of kind llm.ErrInvalid.
//
// Images are image_url parts holding data URLs. A tool message's content can
// only be text, so the images of a run of tool messages follow the run in
// one user message, each tool call's images after a text part naming it.
func (p *Provider) buildParams(req llm.Request) (oai.ChatCompletionNewParams, error) {
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

	if req.System != "" {
		params.Messages = append(params.Messages, oai.SystemMessage(req.System))
	}
	// toolImages gathers the images of a run of tool messages, which go in
	// one user message after the run: a tool message's content may only be
	// text.
	var toolImages []oai.ChatCompletionContentPartUnionParam
	for i, m := range req.Messages {
		if m.Role != llm.RoleTool && len(toolImages) > 0 {
			params.Messages = append(params.Messages, oai.UserMessage(toolImages))
			toolImages = nil
		}
		msg, err := messageParam(m)
		if err != nil {
			return oai.ChatCompletionNewParams{}, invalidf("message %d: %v", i, err)
		}
		params.Messages = append(params.Messages, msg)
		if m.Role == llm.RoleTool && len(m.Images) > 0 {
			toolImages = append(toolImages, oai.TextContentPart(fmt.Sprintf("Images from the result of tool call %s:", m.ToolCallID)))
			toolImages = append(toolImages, imageParts(m.Images)...)
		}
	}
	if len(toolImages) > 0 {
		params.Messages = append(params.Messages, oai.UserMessage(toolImages))
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
