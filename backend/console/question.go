package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"steward/backend/event"
	"steward/backend/inbox"
)

// edit reads the edited arguments of an approval as one line of JSON (the
// inbox checks them against the tool's schema when they are sent), or
// keeps the model's with an empty line; ok is false when the input ended.
func (c *Console) edit(ctx context.Context, d event.ApprovalRequestedData) (json.RawMessage, bool) {
	if c.EditFile != nil {
		return c.editInEditor(ctx, d)
	}
	for {
		fmt.Fprintf(c.Out, "  new arguments as one line of JSON (empty keeps %s): ", compact(d.Arguments, 200))
		line, ok := c.line(ctx)
		if !ok || ctx.Err() != nil {
			return nil, false
		}
		if line == "" {
			return d.Arguments, true
		}
		if !json.Valid([]byte(line)) {
			fmt.Fprintln(c.Out, "  that is not JSON; try again")
			continue
		}
		return json.RawMessage(line), true
	}
}

// question asks an agent's question on the terminal: a number (or numbers,
// comma-separated, when several may be chosen) picks options; other text is
// the person's own answer where allowed; an empty line declines.
func (c *Console) question(ctx context.Context, d event.ApprovalRequestedData) {
	q := d.Question
	if q == nil {
		return
	}
	fmt.Fprintf(c.Out, "%s %s\n", c.paint("33;1", "question:"), q.Text)
	for i, o := range q.Options {
		desc := ""
		if o.Description != "" {
			desc = c.paint("2", " ("+o.Description+")")
		}
		fmt.Fprintf(c.Out, "  %d. %s%s\n", i+1, o.Label, desc)
	}
	hint := "your answer"
	switch {
	case len(q.Options) > 0 && q.Multiple:
		hint = "numbers, comma-separated"
	case len(q.Options) > 0:
		hint = "a number"
	}
	if len(q.Options) > 0 && q.AllowOther {
		hint += ", or your own words"
	}
	for {
		fmt.Fprintf(c.Out, "  [%s; empty declines] ", hint)
		line, ok := c.line(ctx)
		if ctx.Err() != nil {
			return
		}
		dec := inbox.Decision{Source: "cli"}
		switch {
		case !ok && line == "":
			fmt.Fprintln(c.Out)
			dec.Decision, dec.Feedback = event.DecisionDeny, "no answer on the terminal (input closed)"
		case line == "":
			dec.Decision = event.DecisionDeny
		default:
			dec.Decision = event.DecisionAnswer
			dec.Choices, dec.Text = choices(line, q.Options)
		}
		_, err := c.Inbox.Answer(context.WithoutCancel(ctx), d.InteractionID, dec)
		switch {
		case err == nil:
			return
		case errors.Is(err, inbox.ErrAnswered):
			fmt.Fprintln(c.Out, "  (already answered on another surface)")
			return
		case errors.Is(err, inbox.ErrInvalid) && ok:
			fmt.Fprintf(c.Out, "  %s\n", strings.TrimPrefix(err.Error(), inbox.ErrInvalid.Error()+": "))
			continue // ask again
		}
		fmt.Fprintf(c.Out, "  could not record the answer: %v\n", err)
		return
	}
}

// choices reads a line as option numbers ("2" or "1, 3") when it is only
// that, else as free text.
func choices(line string, opts []event.Option) ([]string, string) {
	if len(opts) == 0 {
		return nil, line
	}
	var out []string
	for _, f := range strings.Split(line, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(opts) {
			return nil, line
		}
		out = append(out, opts[n-1].Label)
	}
	return out, ""
}
