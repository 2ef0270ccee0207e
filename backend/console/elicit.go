package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"steward/backend/elicit"
	"steward/backend/event"
	"steward/backend/inbox"
)

// elicitation asks an MCP server's question on the terminal: a page to
// open (y when done, anything else declines), or a form asked field by
// field (an empty line keeps the default or leaves the field out; "-" at
// any field declines the whole form).
func (c *Console) elicitation(ctx context.Context, d event.ApprovalRequestedData) {
	q := d.Question
	if q == nil {
		return
	}
	fmt.Fprintf(c.Out, "%s %s asks (for %s):\n  %s\n", c.paint("33;1", "input?"), q.Server, d.Tool, indent(q.Text))
	for {
		dec, ok := c.elicitAnswer(ctx, *q)
		if ctx.Err() != nil || !ok {
			return
		}
		_, err := c.Inbox.Answer(context.WithoutCancel(ctx), d.InteractionID, dec)
		switch {
		case err == nil:
			return
		case errors.Is(err, inbox.ErrAnswered):
			fmt.Fprintln(c.Out, "  (already answered, or no longer asked)")
			return
		case errors.Is(err, inbox.ErrInvalid):
			fmt.Fprintf(c.Out, "  %s\n", strings.TrimPrefix(err.Error(), inbox.ErrInvalid.Error()+": "))
			continue // the form again
		}
		fmt.Fprintf(c.Out, "  could not record the answer: %v\n", err)
		return
	}
}

func (c *Console) elicitAnswer(ctx context.Context, q event.Question) (inbox.Decision, bool) {
	decline := inbox.Decision{Decision: event.DecisionDeny, Source: "cli"}
	if q.URL != "" {
		fmt.Fprintf(c.Out, "  open this page yourself: %s\n  [y when done; anything else declines] ", q.URL)
		line, ok := c.line(ctx)
		if !ok && line == "" {
			fmt.Fprintln(c.Out)
		}
		if strings.EqualFold(line, "y") || strings.EqualFold(line, "yes") {
			return inbox.Decision{Decision: event.DecisionAnswer, Source: "cli"}, true
		}
		return decline, true
	}
	fields, err := elicit.Fields(q.Schema)
	if err != nil {
		fmt.Fprintf(c.Out, "  the form cannot be shown (%v): declined\n", err)
		return decline, true
	}
	content := map[string]any{}
	for _, f := range fields {
		fmt.Fprintf(c.Out, "  %s%s", f.Title, c.paint("2", hint(f)))
		line, ok := c.line(ctx)
		switch {
		case !ok && line == "":
			fmt.Fprintln(c.Out)
			return decline, true
		case line == "-":
			return decline, true
		case line == "":
			continue // the default, if any, is filled in by the inbox
		}
		content[f.Name] = value(f, line)
	}
	b, err := json.Marshal(content)
	if err != nil {
		return decline, true
	}
	return inbox.Decision{Decision: event.DecisionAnswer, Source: "cli", Content: b}, true
}

// hint says what a field takes, its default and its options.
func hint(f elicit.Field) string {
	var parts []string
	if f.Description != "" {
		parts = append(parts, f.Description)
	}
	switch {
	case len(f.Options) > 0 && f.Multiple:
		parts = append(parts, "numbers, comma-separated: "+numbered(f.Labels))
	case len(f.Options) > 0:
		parts = append(parts, "a number: "+numbered(f.Labels))
	case f.Type == "boolean":
		parts = append(parts, "y or n")
	default:
		parts = append(parts, f.Type)
	}
	if f.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", f.Default))
	} else if f.Required {
		parts = append(parts, "required")
	}
	return " (" + strings.Join(parts, "; ") + "): "
}

func numbered(labels []string) string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = strconv.Itoa(i+1) + ". " + l
	}
	return strings.Join(out, ", ")
}

// value reads a line as what the field takes; what it cannot read is sent
// as typed, for the inbox to refuse by name.
func value(f elicit.Field, line string) any {
	pick := func(s string) string {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 1 && n <= len(f.Options) {
			return f.Options[n-1]
		}
		return strings.TrimSpace(s)
	}
	switch {
	case len(f.Options) > 0 && f.Multiple:
		var out []string
		for _, s := range strings.Split(line, ",") {
			out = append(out, pick(s))
		}
		return out
	case len(f.Options) > 0:
		return pick(line)
	case f.Type == "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true
		case "n", "no", "false":
			return false
		}
	case f.Type == "number" || f.Type == "integer":
		if n, err := strconv.ParseFloat(line, 64); err == nil {
			return n
		}
	}
	return line
}
