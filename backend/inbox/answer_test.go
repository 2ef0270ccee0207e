package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
)

func TestEditThenApprove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		d       Decision
		wantErr string // empty: accepted
		want    string // the arguments recorded
	}{
		{"edited", Decision{Decision: "approve", Arguments: json.RawMessage(`{ "path": "b.txt", "content": "y" }`)}, "", `{"path":"b.txt","content":"y"}`},
		{"unchanged is a plain approval", Decision{Decision: "approve", Arguments: json.RawMessage(`{"path":"a.txt", "content":"x"}`)}, "", ""},
		{"null is none", Decision{Decision: "approve", Arguments: json.RawMessage(`null`)}, "", ""},
		{"schema: missing field", Decision{Decision: "approve", Arguments: json.RawMessage(`{"path":"b.txt"}`)}, "edited arguments for write_file", ""},
		{"schema: wrong type", Decision{Decision: "approve", Arguments: json.RawMessage(`{"path":3,"content":"y"}`)}, "edited arguments for write_file", ""},
		{"not an object", Decision{Decision: "approve", Arguments: json.RawMessage(`["a"]`)}, "must be a JSON object", ""},
		{"not JSON", Decision{Decision: "approve", Arguments: json.RawMessage(`{path:`)}, "must be a JSON object", ""},
		{"with deny", Decision{Decision: "deny", Arguments: json.RawMessage(`{"path":"b.txt","content":"y"}`)}, "go with approve", ""},
		{"text on an approval", Decision{Decision: "approve", Text: "hi"}, "answer a question", ""},
		{"answer on an approval", Decision{Decision: "answer", Text: "hi"}, "decide approve or deny", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, st, _ := setup(t)
			id := open(t, in)
			it, err := in.Answer(context.Background(), id, tc.d)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Answer = %v, want ErrInvalid containing %q", err, tc.wantErr)
				}
				if got, _ := st.GetInteraction(context.Background(), id); got.Status != "pending" {
					t.Fatalf("a refused answer changed the interaction: %s", got.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(decisionOf(it).Arguments); got != tc.want {
				t.Fatalf("recorded arguments %s, want %q", got, tc.want)
			}
		})
	}
}

func openQuestion(t *testing.T, in *Inbox, q event.Question) string {
	t.Helper()
	id, err := in.Open(context.Background(), Request{RunID: "run_1", NodeID: "n4", Tool: "ask_user",
		Arguments: json.RawMessage(`{}`), Risk: "read", Reason: "the agent asks", Question: &q})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestQuestionAnswers(t *testing.T) {
	t.Parallel()
	opts := []event.Option{{Label: "Go"}, {Label: "Rust"}, {Label: "Zig"}}
	free := event.Question{Text: "Which name?"}
	single := event.Question{Text: "Which language?", Options: opts}
	multi := event.Question{Text: "Which languages?", Options: opts, Multiple: true, AllowOther: true}
	tests := []struct {
		name    string
		q       event.Question
		d       Decision
		wantErr string
	}{
		{"free text", free, Decision{Decision: "answer", Text: "  steward  "}, ""},
		{"free text empty", free, Decision{Decision: "answer", Text: "  "}, "the answer is empty"},
		{"one choice", single, Decision{Decision: "answer", Choices: []string{"Go"}}, ""},
		{"two choices on single", single, Decision{Decision: "answer", Choices: []string{"Go", "Zig"}}, "takes one choice"},
		{"unknown choice", single, Decision{Decision: "answer", Choices: []string{"C"}}, `choice "C" is not one of`},
		{"other not allowed", single, Decision{Decision: "answer", Text: "C"}, "not an answer of your own"},
		{"nothing chosen", single, Decision{Decision: "answer"}, "choose one of"},
		{"several", multi, Decision{Decision: "answer", Choices: []string{"Go", "Zig"}}, ""},
		{"twice", multi, Decision{Decision: "answer", Choices: []string{"Go", "Go"}}, "given twice"},
		{"other", multi, Decision{Decision: "answer", Text: "OCaml", Choices: []string{"Go"}}, ""},
		{"decline", single, Decision{Decision: "deny", Feedback: "not now"}, ""},
		{"decline with choices", single, Decision{Decision: "deny", Choices: []string{"Go"}}, "takes no text or choices"},
		{"approve a question", single, Decision{Decision: "approve"}, "is a question"},
		{"scope on a question", single, Decision{Decision: "answer", Choices: []string{"Go"}, Scope: "run"}, "go with approvals"},
		{"too long", free, Decision{Decision: "answer", Text: strings.Repeat("x", maxAnswerText+1)}, "more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, _, _ := setup(t)
			id := openQuestion(t, in, tc.q)
			it, err := in.Answer(context.Background(), id, tc.d)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Answer = %v, want ErrInvalid containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := decisionOf(it)
			if got.Decision != tc.d.Decision || got.Text != strings.TrimSpace(tc.d.Text) || len(got.Choices) != len(tc.d.Choices) {
				t.Fatalf("recorded %+v, want %+v", got, tc.d)
			}
			if it.Kind != event.InteractionQuestion || !strings.Contains(it.Question, tc.q.Text) {
				t.Fatalf("interaction kind %q question %q", it.Kind, it.Question)
			}
		})
	}
}

// An interaction with a timeout takes its default decision when nobody
// answers, and a person who answers first wins over the default.
func TestExpiry(t *testing.T) {
	t.Parallel()
	for _, def := range []string{"deny", "approve"} {
		t.Run("default "+def, func(t *testing.T) {
			t.Parallel()
			in, st, _ := setup(t)
			id, err := in.Open(context.Background(), Request{RunID: "run_1", NodeID: "n4", Tool: "write_file",
				Arguments: json.RawMessage(`{"path":"a.txt","content":"x"}`), Risk: "write", Timeout: 150 * time.Millisecond, DefaultDecision: def})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			d, err := in.Wait(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el < 100*time.Millisecond {
				t.Fatalf("decided after %s, before the timeout", el)
			}
			if d.Decision != def || d.Source != SourceTimeout {
				t.Fatalf("decision %+v, want %s from timeout", d, def)
			}
			if def == "deny" && !strings.Contains(d.Feedback, "nobody answered within 150ms") {
				t.Fatalf("feedback %q does not say why", d.Feedback)
			}
			it, _ := st.GetInteraction(context.Background(), id)
			if it.Status != "answered" || it.Source != SourceTimeout || it.ExpiresAt == 0 || it.DefaultDecision != def {
				t.Fatalf("interaction %+v", it)
			}
		})
	}
	t.Run("a person first", func(t *testing.T) {
		t.Parallel()
		in, _, _ := setup(t)
		id, err := in.Open(context.Background(), Request{RunID: "run_1", NodeID: "n4", Tool: "write_file",
			Arguments: json.RawMessage(`{}`), Risk: "write", Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got := wait(ctx, in, id)
		if _, err := in.Answer(ctx, id, Decision{Decision: "approve", Source: "web"}); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err != nil || r.d.Decision != "approve" || r.d.Source != "web" {
			t.Fatalf("Wait = %+v, %v", r.d, r.err)
		}
		time.Sleep(400 * time.Millisecond) // past the deadline: nothing more happens
		if _, err := in.Answer(ctx, id, Decision{Decision: "deny"}); !errors.Is(err, ErrAnswered) {
			t.Fatalf("second answer: %v", err)
		}
	})
}
