package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// output is what the model reads of a tool's result: its text as it is,
// and every other kind of content described in a line of text. Images are
// kept by pics as the run's artifacts (images.go), which a model that
// takes images is sent with the result; audio is described only. The
// registry caps the whole, as for every tool.
func output(res *sdk.CallToolResult, pics *pictures) string {
	var parts []string
	for _, c := range res.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			parts = append(parts, pics.keep(img.MIMEType, img.Data))
			continue
		}
		parts = append(parts, describe(c))
	}
	// A server that returns structuredContent should also say it in its
	// content (a text block of its JSON, as the SDKs' servers do, or the
	// same values in other shapes, as the reference servers do); it is
	// added only when the content does not already say it, so the model
	// does not read it twice (a file's text, an image's base64).
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			b = []byte(fmt.Sprintf("%v", res.StructuredContent))
		}
		if !said(res.Content, b) {
			parts = append(parts, "structuredContent: "+string(b))
		}
	}
	return strings.Join(parts, "\n")
}

func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes: not played in this version of Steward]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		s := "[resource link " + c.URI
		if c.Name != "" {
			s += " name=" + c.Name
		}
		if c.MIMEType != "" {
			s += " type=" + c.MIMEType
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[embedded resource without contents]"
		}
		if r.Text != "" {
			return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
		}
		return fmt.Sprintf("[resource %s %s, %d bytes of binary content: not shown]", r.URI, r.MIMEType, len(r.Blob))
	default:
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Sprintf("[content of type %T]", c)
		}
		return string(b)
	}
}

// said reports whether content already says the structured content b:
// a text block is its JSON (whatever the order of its keys), or b is an
// object each of whose values content says: a text block is the value
// (a string) or its JSON, or the value is the content itself (a server
// that echoes its content blocks under a key).
func said(content []sdk.Content, b []byte) bool {
	texts := map[string]bool{} // the text blocks, and the canonical JSON of those that are JSON
	for _, c := range content {
		if t, isText := c.(*sdk.TextContent); isText {
			texts[t.Text] = true
			if j, ok := canonical([]byte(t.Text)); ok {
				texts[string(j)] = true
			}
		}
	}
	whole, ok := canonical(b)
	if !ok {
		return false
	}
	if texts[string(whole)] {
		return true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil || len(fields) == 0 {
		return false
	}
	var blocks []byte
	if cb, err := json.Marshal(content); err == nil {
		blocks, _ = canonical(cb)
	}
	for _, raw := range fields {
		var str string
		if json.Unmarshal(raw, &str) == nil && texts[str] {
			continue
		}
		v, ok := canonical(raw)
		if !ok || !(texts[string(v)] || blocks != nil && bytes.Equal(v, blocks)) {
			return false
		}
	}
	return true
}

// canonical is b's JSON with its objects' keys sorted (encoding/json
// marshals maps so).
func canonical(b []byte) ([]byte, bool) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}
