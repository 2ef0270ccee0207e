package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/api"
)

// scriptAgent creates an agent in mode ask that plays the script src.
func (e *env) scriptAgent(name, src string) {
	e.t.Helper()
	path := filepath.Join(e.t.TempDir(), name+".json")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		e.t.Fatal(err)
	}
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: name, Provider: "script", Script: path,
		Tools: []string{"write_file", "ask_user"}, Mode: "ask"}, http.StatusCreated, nil)
}

// pendingN waits for n pending interactions of run id, newest first.
func (e *env) pendingN(id string, n int) []api.Interaction {
	e.t.Helper()
	var body struct{ Interactions []api.Interaction }
	waitFor(e.t, "pending interactions of run "+id, func() bool {
		e.call("GET", "/api/v1/interactions?status=pending&run_id="+id, nil, http.StatusOK, &body)
		return len(body.Interactions) == n
	})
	return body.Interactions
}

// Three parallel writes are decided in one batch: one edited and approved,
// one denied with feedback, one refused for bad edited arguments (and left
// pending), plus an id that does not exist; each result says what happened.
func TestAnswerBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.scriptAgent("parallel", `{"turns": [
		{"tool_calls": [
			{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}},
			{"name": "write_file", "arguments": {"path": "b.txt", "content": "B"}},
			{"name": "write_file", "arguments": {"path": "c.txt", "content": "C"}}
		]},
		{"text": "Finished."}
	]}`)
	ws := t.TempDir()
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "parallel", Instructions: "write", Workspace: ws}, http.StatusCreated, &r)
	its := e.pendingN(r.ID, 3)
	byPath := map[string]api.Interaction{}
	for _, it := range its {
		var a struct{ Path string }
		if err := json.Unmarshal(it.Arguments, &a); err != nil {
			t.Fatal(err)
		}
		byPath[a.Path] = it
		if it.Group == "" || it.Group != its[0].Group || it.GroupSize != 3 {
			t.Errorf("interaction %s: group %q size %d", it.ID, it.Group, it.GroupSize)
		}
	}
	a, b, c := byPath["a.txt"], byPath["b.txt"], byPath["c.txt"]

	// Refused as a whole: nothing is answered.
	wantError(t, e.do("POST", "/api/v1/interactions/answers", api.Answers{}), http.StatusBadRequest, "invalid")
	twice := api.Answers{Answers: []api.AnswerOf{{ID: a.ID, Answer: api.Answer{Decision: "approve"}}, {ID: a.ID, Answer: api.Answer{Decision: "deny"}}}}
	if msg := wantError(t, e.do("POST", "/api/v1/interactions/answers", twice), http.StatusBadRequest, "invalid"); !strings.Contains(msg, "answered twice") {
		t.Errorf("message %q", msg)
	}

	var out struct{ Results []api.AnswerResult }
	e.call("POST", "/api/v1/interactions/answers", api.Answers{Answers: []api.AnswerOf{
		{ID: a.ID, Answer: api.Answer{Decision: "approve", Arguments: json.RawMessage(`{"path":"a2.txt","content":"edited"}`), Source: "web"}},
		{ID: b.ID, Answer: api.Answer{Decision: "deny", Feedback: "not b", Source: "web"}},
		{ID: c.ID, Answer: api.Answer{Decision: "approve", Arguments: json.RawMessage(`{"path":"c.txt","content":7}`)}},
		{ID: "ia_nope", Answer: api.Answer{Decision: "approve"}},
	}}, http.StatusOK, &out)
	if len(out.Results) != 4 {
		t.Fatalf("results %+v", out.Results)
	}
	if res := out.Results[0]; res.ID != a.ID || res.Error != nil || res.Interaction.Answer == nil || !strings.Contains(string(res.Interaction.Answer.Arguments), "a2.txt") {
		t.Errorf("edited approval: %+v", res)
	}
	if res := out.Results[1]; res.Error != nil || res.Interaction.Answer.Decision != "deny" || res.Interaction.Answer.Feedback != "not b" {
		t.Errorf("denial: %+v", res)
	}
	if res := out.Results[2]; res.Error == nil || res.Error.Code != "invalid" || !strings.Contains(res.Error.Message, "edited arguments for write_file") {
		t.Errorf("bad edit: %+v", res)
	}
	if res := out.Results[3]; res.Error == nil || res.Error.Code != "not_found" {
		t.Errorf("unknown id: %+v", res)
	}
	// The refused one is still pending and can be answered.
	e.call("POST", "/api/v1/interactions/"+c.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, nil)
	e.waitStatus(r.ID, "completed")
	for name, want := range map[string]string{"a2.txt": "edited", "c.txt": "C"} {
		if got, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}

// A question over the API: its options are shown, a bad answer is refused
// with the reason, a good one is recorded.
func TestAnswerQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.scriptAgent("asker", `{"turns": [
		{"tool_calls": [{"name": "ask_user", "arguments": {"question": "Tabs or spaces?", "options": [{"label": "tabs"}, {"label": "spaces"}]}}]},
		{"text": "Noted."}
	]}`)
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "asker", Instructions: "ask", Workspace: t.TempDir()}, http.StatusCreated, &r)
	it := e.pending(r.ID)
	if it.Kind != "question" || it.Question == nil || it.Question.Text != "Tabs or spaces?" || len(it.Question.Options) != 2 {
		t.Fatalf("question %+v", it)
	}
	for body, want := range map[string]string{
		`{"decision":"approve"}`:                         "is a question",
		`{"decision":"answer","choices":["both"]}`:       `choice "both" is not one of`,
		`{"decision":"answer","text":"whatever I like"}`: "not an answer of your own",
	} {
		if msg := wantError(t, e.do("POST", "/api/v1/interactions/"+it.ID+"/answer", json.RawMessage(body)), http.StatusBadRequest, "invalid"); !strings.Contains(msg, want) {
			t.Errorf("%s: message %q, want %q", body, msg, want)
		}
	}
	var got api.Interaction
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "answer", Choices: []string{"tabs"}}, http.StatusOK, &got)
	if got.Answer == nil || got.Answer.Decision != "answer" || len(got.Answer.Choices) != 1 || got.Answer.Choices[0] != "tabs" {
		t.Errorf("answered %+v", got.Answer)
	}
	e.waitStatus(r.ID, "completed")
}
