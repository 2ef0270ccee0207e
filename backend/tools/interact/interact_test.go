package interact

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/tool"
)

func TestParseQuestion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    string
		want    event.Question
		wantErr string
	}{
		{`{"question":" Which? "}`, event.Question{Text: "Which?"}, ""},
		{`{"question":"Which?","multiple":true,"allow_other":true}`, event.Question{Text: "Which?"}, ""},
		{`{"question":"Which?","options":[{"label":"a"},{"label":" b ","description":"B"}]}`,
			event.Question{Text: "Which?", Options: []event.Option{{Label: "a"}, {Label: "b", Description: "B"}}}, ""},
		{`{"question":"Which?","options":[{"label":"a"}],"allow_other":true}`,
			event.Question{Text: "Which?", Options: []event.Option{{Label: "a"}}, AllowOther: true}, ""},
		{`{"question":""}`, event.Question{}, "question is empty"},
		{`{"question":"Which?","options":[{"label":"a"}]}`, event.Question{}, "one option is no choice"},
		{`{"question":"Which?","options":[{"label":"a"},{"label":"a"}]}`, event.Question{}, "listed twice"},
		{`{"question":"Which?","options":[{"label":"a"},{"label":" "}]}`, event.Question{}, "option 2 has no label"},
		{`{"question":"` + strings.Repeat("x", maxTextBytes+1) + `"}`, event.Question{}, "more than"},
		{`[1]`, event.Question{}, "invalid arguments"},
	}
	for _, tc := range tests {
		got, err := ParseQuestion(json.RawMessage(tc.args))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseQuestion(%.60s) = %v, want error containing %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("ParseQuestion(%s) = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}

func TestUpdatePlan(t *testing.T) {
	t.Parallel()
	reg := tool.NewRegistry()
	for _, tl := range Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	for name, risk := range map[string]tool.Risk{AskUser: tool.RiskRead, UpdatePlan: tool.RiskRead} {
		if s, ok := reg.Lookup(name); !ok || s.Risk != risk {
			t.Errorf("%s: spec %+v, %v", name, s, ok)
		}
	}
	ok := `{"steps":[{"title":"read","status":"done"},{"title":"write","status":"in_progress"},{"title":"test","status":"pending"}]}`
	res, err := reg.Call(context.Background(), tool.Env{}, UpdatePlan, json.RawMessage(ok))
	if err != nil || res.IsError || res.Output != "Plan updated: 3 steps (1 done, 1 in progress, 1 pending)." {
		t.Fatalf("update_plan = %+v, %v", res, err)
	}
	steps, err := ParsePlan(json.RawMessage(ok))
	if err != nil || len(steps) != 3 || steps[1] != (event.PlanStep{Title: "write", Status: "in_progress"}) {
		t.Fatalf("ParsePlan = %+v, %v", steps, err)
	}
	for args, want := range map[string]string{
		`{"steps":[{"title":"x","status":"started"}]}`: `status "started" is not one of`,
		`{"steps":[{"title":" ","status":"done"}]}`:    "step 1 has no title",
		`{"steps":[{"title":"x"}]}`:                    "invalid_arguments",
	} {
		res, err := reg.Call(context.Background(), tool.Env{}, UpdatePlan, json.RawMessage(args))
		if err != nil || !res.IsError || !strings.Contains(res.Code+" "+res.Output, want) {
			t.Errorf("update_plan(%s) = %+v, %v; want an error containing %q", args, res, err, want)
		}
	}
	// ask_user through the registry is a programming error, not a result.
	if _, err := reg.Call(context.Background(), tool.Env{}, AskUser, json.RawMessage(`{"question":"q"}`)); !errors.Is(err, ErrEngineTool) {
		t.Fatalf("ask_user through the registry: %v", err)
	}
}

func TestAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		choices []string
		want    string
	}{
		{"blue", nil, "The user answered: blue"},
		{"", []string{"Go", "Zig"}, "The user chose: Go; Zig."},
		{"and OCaml", []string{"Go"}, "The user chose: Go. They added: and OCaml"},
	} {
		if got := Answer(tc.text, tc.choices); got != tc.want {
			t.Errorf("Answer(%q, %q) = %q, want %q", tc.text, tc.choices, got, tc.want)
		}
	}
}
