package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/inbox"
)

func TestElicitationOnTheTerminal(t *testing.T) {
	t.Parallel()
	form := &event.Question{Text: "Your details", Server: "crm", Schema: json.RawMessage(`{"type": "object", "properties": {
		"name": {"type": "string", "title": "Name"}, "age": {"type": "integer", "minimum": 0},
		"ok": {"type": "boolean", "default": true}, "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}},
		"required": ["name"]}`)}
	tests := []struct{ input, decision, answer string }{
		// Age -3 is refused by name, and the form is asked again.
		{"Ann\n-3\n\n2\nAnn\n41\nn\n1\n", "answer", `{"content":{"age":41,"colour":"r","name":"Ann","ok":false}}`},
		{"Ann\n\n\n\n", "answer", `{"content":{"name":"Ann","ok":true}}`},
		{"-\n", "deny", ""},
		{"", "deny", ""}, // input closed
	}
	for _, tc := range tests {
		c, in, st, out := fixture(t, tc.input)
		d := open(t, in, inbox.Request{Tool: "mcp__crm__add", Arguments: json.RawMessage(`{}`), Question: form, Kind: event.InteractionElicitation})
		d.Kind = event.InteractionElicitation
		c.elicitation(context.Background(), d)
		it, err := st.GetInteraction(context.Background(), d.InteractionID)
		if err != nil || it.Decision != tc.decision || it.Answer != tc.answer {
			t.Errorf("input %q: interaction %+v, %v\n%s", tc.input, it, err, out)
		}
		wants := []string{"crm asks (for mcp__crm__add)", "Your details", "Name (string; required)", "a number: 1. Red, 2. Green", "default true"}
		if tc.decision == "deny" {
			wants = wants[:3] // declined at the first field
		}
		for _, want := range wants {
			if !strings.Contains(out.String(), want) {
				t.Errorf("input %q: prompt lacks %q:\n%s", tc.input, want, out)
			}
		}
		if strings.HasPrefix(tc.input, "Ann\n-3") && !strings.Contains(out.String(), "age") {
			t.Errorf("the refusal does not name the field:\n%s", out)
		}
	}
	page := &event.Question{Text: "Sign in", Server: "gh", URL: "https://github.example/login"}
	for input, want := range map[string]string{"y\n": "answer", "\n": "deny"} {
		c, in, st, out := fixture(t, input)
		d := open(t, in, inbox.Request{Tool: "mcp__gh__me", Arguments: json.RawMessage(`{}`), Question: page, Kind: event.InteractionElicitation})
		c.elicitation(context.Background(), d)
		if it, _ := st.GetInteraction(context.Background(), d.InteractionID); it.Decision != want || it.Answer != "" {
			t.Errorf("page, input %q: %+v", input, it)
		}
		if !strings.Contains(out.String(), "open this page yourself: https://github.example/login") {
			t.Errorf("prompt:\n%s", out)
		}
	}
}
