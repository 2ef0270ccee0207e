package inbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"steward/backend/elicit"
	"steward/backend/event"
	"steward/backend/store"
)

// Limits on what a person may send back.
const (
	maxAnswerText = 16 << 10
	maxArguments  = 256 << 10
)

// checkApproval validates an answer to an approval, normalising the edited
// arguments to compact JSON. Edited arguments go with approve only and must
// pass the tool's schema, so that what runs is what the tool accepts.
func (in *Inbox) checkApproval(it store.Interaction, d *Decision) error {
	if d.Decision == event.DecisionAnswer {
		return fmt.Errorf("%w: %s is an approval: decide approve or deny", ErrInvalid, it.ID)
	}
	if d.Text != "" || len(d.Choices) > 0 || len(d.Content) > 0 {
		return fmt.Errorf("%w: text, choices and content answer a question; %s is an approval", ErrInvalid, it.ID)
	}
	if len(d.Arguments) == 0 || bytes.Equal(bytes.TrimSpace(d.Arguments), []byte("null")) {
		d.Arguments = nil
		return nil
	}
	if d.Decision != event.DecisionApprove {
		return fmt.Errorf("%w: edited arguments go with approve, not %s", ErrInvalid, d.Decision)
	}
	if len(d.Arguments) > maxArguments {
		return fmt.Errorf("%w: edited arguments are %d bytes, more than %d", ErrInvalid, len(d.Arguments), maxArguments)
	}
	var obj map[string]any
	if err := json.Unmarshal(d.Arguments, &obj); err != nil || obj == nil {
		return fmt.Errorf("%w: edited arguments must be a JSON object", ErrInvalid)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, d.Arguments); err != nil {
		return fmt.Errorf("%w: edited arguments: %v", ErrInvalid, err)
	}
	d.Arguments = buf.Bytes()
	if bytes.Equal(d.Arguments, compact(it.Arguments)) {
		d.Arguments = nil // unchanged: a plain approval
		return nil
	}
	if tools := in.toolsOf(it.RunID); tools != nil {
		if res, ok := tools.Validate(it.Tool, d.Arguments); !ok {
			return fmt.Errorf("%w: edited arguments for %s: %s", ErrInvalid, it.Tool, res.Output)
		}
	}
	return nil
}

func compact(s string) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return []byte(s)
	}
	return buf.Bytes()
}

// checkAnswer validates an answer to a question: the choices must be labels
// of its options (one at most unless it allows several), free text only
// where the question allows an answer of one's own, and something must be
// said. A person may also decline (deny, with feedback if they like).
func checkAnswer(it store.Interaction, d *Decision) error {
	if d.Decision == event.DecisionApprove {
		return fmt.Errorf("%w: %s is a question: answer it (decision answer) or decline (deny)", ErrInvalid, it.ID)
	}
	if d.Scope != "" || len(d.Arguments) > 0 {
		return fmt.Errorf("%w: scope and arguments go with approvals; %s is a question", ErrInvalid, it.ID)
	}
	if len(d.Content) > 0 {
		return fmt.Errorf("%w: content answers an elicitation; %s is a question (text, choices)", ErrInvalid, it.ID)
	}
	if d.Decision == event.DecisionDeny {
		if d.Text != "" || len(d.Choices) > 0 {
			return fmt.Errorf("%w: a declined question takes no text or choices (say why in feedback)", ErrInvalid)
		}
		return nil
	}
	var q event.Question
	if err := json.Unmarshal([]byte(it.Question), &q); err != nil {
		return fmt.Errorf("question %s is unreadable: %w", it.ID, err)
	}
	d.Text = strings.TrimSpace(d.Text)
	if len(d.Text) > maxAnswerText {
		return fmt.Errorf("%w: the answer is %d bytes, more than %d", ErrInvalid, len(d.Text), maxAnswerText)
	}
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	seen := map[string]bool{}
	for _, c := range d.Choices {
		if !slices.Contains(labels, c) {
			return fmt.Errorf("%w: choice %q is not one of the options %q", ErrInvalid, c, labels)
		}
		if seen[c] {
			return fmt.Errorf("%w: choice %q given twice", ErrInvalid, c)
		}
		seen[c] = true
	}
	if len(d.Choices) > 1 && !q.Multiple {
		return fmt.Errorf("%w: this question takes one choice, not %d", ErrInvalid, len(d.Choices))
	}
	if d.Text != "" && len(q.Options) > 0 && !q.AllowOther {
		return fmt.Errorf("%w: this question takes one of its options, not an answer of your own", ErrInvalid)
	}
	if d.Text == "" && len(d.Choices) == 0 {
		if len(q.Options) == 0 {
			return fmt.Errorf("%w: the answer is empty", ErrInvalid)
		}
		return fmt.Errorf("%w: choose one of %q%s", ErrInvalid, labels, map[bool]string{true: " or answer in your own words"}[q.AllowOther])
	}
	return nil
}

// checkElicitation validates an answer to an MCP server's elicitation: a
// form's content must meet the schema the person was shown (and gets its
// defaults); a url elicitation is answered with nothing (the person did
// what the page asked). Declining takes no content.
func checkElicitation(it store.Interaction, d *Decision) error {
	if d.Decision == event.DecisionApprove {
		return fmt.Errorf("%w: %s is a server's request for input: answer it (decision answer, with content) or decline (deny)", ErrInvalid, it.ID)
	}
	if d.Scope != "" || len(d.Arguments) > 0 || d.Text != "" || len(d.Choices) > 0 {
		return fmt.Errorf("%w: %s is a server's request for input: it takes content, not scope, arguments, text or choices", ErrInvalid, it.ID)
	}
	if d.Decision == event.DecisionDeny {
		if len(d.Content) > 0 && !bytes.Equal(bytes.TrimSpace(d.Content), []byte("null")) {
			return fmt.Errorf("%w: a declined request takes no content", ErrInvalid)
		}
		d.Content = nil
		return nil
	}
	var q event.Question
	if err := json.Unmarshal([]byte(it.Question), &q); err != nil {
		return fmt.Errorf("request %s is unreadable: %w", it.ID, err)
	}
	if q.URL != "" {
		if len(d.Content) > 0 {
			return fmt.Errorf("%w: %s asks the person to open a page; its answer takes no content", ErrInvalid, it.ID)
		}
		return nil
	}
	content, err := elicit.Content(q.Schema, d.Content)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	d.Content = content
	return nil
}
