package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
)

// fixture is a console reading input, over a real inbox with one run.
func fixture(t *testing.T, input string) (*Console, *inbox.Inbox, *store.Store, *bytes.Buffer) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Append(context.Background(), event.New("run_1", event.RunCreated, "", event.RunCreatedData{
		Agent: event.AgentRef{Name: "a", Provider: "script"}, Workspace: t.TempDir(), Mode: "ask", MaxSteps: 5,
	})); err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	for _, tl := range fstools.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	var n atomic.Int64
	in := inbox.New(st, reg, func() string { return fmt.Sprint("ia_", n.Add(1)) })
	var out bytes.Buffer
	c := &Console{Out: &out, In: strings.NewReader(input), Inbox: in}
	c.lines = c.readLines()
	return c, in, st, &out
}

func open(t *testing.T, in *inbox.Inbox, r inbox.Request) event.ApprovalRequestedData {
	t.Helper()
	r.RunID, r.NodeID = "run_1", "n4"
	id, err := in.Open(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	d := event.ApprovalRequestedData{InteractionID: id, Tool: r.Tool, Arguments: r.Arguments, Question: r.Question}
	if r.Question != nil {
		d.Kind = event.InteractionQuestion
	}
	return d
}

func TestQuestionOnTheTerminal(t *testing.T) {
	t.Parallel()
	q := &event.Question{Text: "Which?", Options: []event.Option{{Label: "Go"}, {Label: "Rust", Description: "safe"}, {Label: "Zig"}}, Multiple: true, AllowOther: true}
	tests := []struct {
		input, decision, text string
		choices               []string
	}{
		{"1, 3\n", "answer", "", []string{"Go", "Zig"}},
		{"OCaml\n", "answer", "OCaml", nil},
		{"\n", "deny", "", nil},
		{"", "deny", "", nil}, // input closed
	}
	for _, tc := range tests {
		c, in, st, out := fixture(t, tc.input)
		d := open(t, in, inbox.Request{Tool: "ask_user", Arguments: json.RawMessage(`{}`), Question: q})
		c.question(context.Background(), d)
		it, err := st.GetInteraction(context.Background(), d.InteractionID)
		if err != nil || it.Decision != tc.decision || !strings.Contains(it.Answer, tc.text) || !strings.Contains(it.Answer, strings.Join(tc.choices, `","`)) {
			t.Errorf("input %q: interaction %+v, %v", tc.input, it, err)
		}
		if !strings.Contains(out.String(), "2. Rust") || !strings.Contains(out.String(), "numbers, comma-separated, or your own words") {
			t.Errorf("prompt:\n%s", out)
		}
	}
	// A single-choice question refuses two numbers and asks again.
	single := &event.Question{Text: "One?", Options: []event.Option{{Label: "a"}, {Label: "b"}}}
	c, in, st, out := fixture(t, "1,2\n2\n")
	d := open(t, in, inbox.Request{Tool: "ask_user", Arguments: json.RawMessage(`{}`), Question: single})
	c.question(context.Background(), d)
	if it, _ := st.GetInteraction(context.Background(), d.InteractionID); it.Answer != `{"choices":["b"]}` {
		t.Errorf("answer %s", it.Answer)
	}
	if !strings.Contains(out.String(), "takes one choice, not 2") {
		t.Errorf("no reason given:\n%s", out)
	}
}

func TestEditOnTheTerminal(t *testing.T) {
	t.Parallel()
	// Not JSON, then a schema failure, then a good edit.
	c, in, st, out := fixture(t, "e\n{path\ne\n{\"path\":\"b.txt\"}\ne\n{\"path\":\"b.txt\",\"content\":\"B\"}\n")
	d := open(t, in, inbox.Request{Tool: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"A"}`), Risk: "write"})
	c.ask(context.Background(), d)
	it, err := st.GetInteraction(context.Background(), d.InteractionID)
	if err != nil || it.Decision != "approve" || it.Answer != `{"arguments":{"path":"b.txt","content":"B"}}` {
		t.Fatalf("interaction %+v, %v\n%s", it, err, out)
	}
	for _, want := range []string{"that is not JSON", "edited arguments for write_file"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// With an editor, e opens the pretty-printed arguments in it; what the
// person saves is what is approved, a file that is not a JSON object is
// opened again, and nothing is read from the terminal while the editor
// has it.
func TestEditInTheEditor(t *testing.T) {
	t.Parallel()
	c, in, st, out := fixture(t, "e\n\n")
	var opened []string
	c.EditFile = func(_ context.Context, path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		opened = append(opened, string(b))
		next := "{not json"
		if len(opened) == 2 {
			next = "{\"path\": \"a.txt\",\n \"content\": \"edited in vi\"}\n"
		}
		return os.WriteFile(path, []byte(next), 0o600)
	}
	d := open(t, in, inbox.Request{Tool: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"A"}`), Risk: "write"})
	c.ask(context.Background(), d)
	it, err := st.GetInteraction(context.Background(), d.InteractionID)
	if err != nil || it.Decision != "approve" || it.Answer != `{"arguments":{"path":"a.txt","content":"edited in vi"}}` {
		t.Fatalf("interaction %+v, %v\n%s", it, err, out)
	}
	if len(opened) != 2 || opened[0] != "{\n  \"path\": \"a.txt\",\n  \"content\": \"A\"\n}\n" {
		t.Errorf("the editor was given %q", opened)
	}
	if !strings.Contains(out.String(), "not a JSON object; edit again?") {
		t.Errorf("output:\n%s", out)
	}
}
