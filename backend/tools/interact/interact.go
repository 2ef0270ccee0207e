// Package interact holds the tools through which an agent talks with the
// person rather than the workspace: ask_user opens a question in the inbox,
// update_plan keeps a visible plan on the run. Both are read-only, so every
// permission mode lets them run.
//
// ask_user needs the inbox and the run's state, so the run engine carries it
// out; its registry entry gives the model its schema and the catalog its
// risk, and calling it through the registry is an error.
package interact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"steward/backend/event"
	"steward/backend/tool"
)

// Tool names.
const (
	AskUser    = "ask_user"
	UpdatePlan = "update_plan"
)

// Plan step statuses.
const (
	StepPending    = event.PlanPending
	StepInProgress = event.PlanInProgress
	StepDone       = event.PlanDone
)

// Limits on what the model may ask or plan.
const (
	maxOptions   = 20
	maxSteps     = 50
	maxTextBytes = 4 << 10
)

// ErrEngineTool is returned by ask_user when it is called through the
// registry: the run engine must carry it out.
var ErrEngineTool = errors.New("ask_user is carried out by the run engine, not the registry")

// QuestionArgs are ask_user's arguments.
type QuestionArgs struct {
	Question   string       `json:"question" jsonschema:"the question for the user, in one or two sentences"`
	Options    []OptionArgs `json:"options,omitempty" jsonschema:"choices to offer; omit for a free-text answer"`
	Multiple   bool         `json:"multiple,omitempty" jsonschema:"true if the user may choose several options"`
	AllowOther bool         `json:"allow_other,omitempty" jsonschema:"true if the user may answer in their own words instead of (or besides) the options"`
}

// OptionArgs is one choice offered by ask_user.
type OptionArgs struct {
	Label       string `json:"label" jsonschema:"short text of the choice"`
	Description string `json:"description,omitempty" jsonschema:"what choosing it means, if the label is not enough"`
}

// PlanArgs are update_plan's arguments.
type PlanArgs struct {
	Steps []StepArgs `json:"steps" jsonschema:"the whole plan, in order; send every step each time"`
}

// StepArgs is one step of the plan.
type StepArgs struct {
	Title  string `json:"title" jsonschema:"what the step does"`
	Status string `json:"status" jsonschema:"pending, in_progress or done"`
}

const askDescription = "Ask the user a question and wait for the answer. Use it when you cannot go on without " +
	"a decision or a fact only the user has; do not use it for confirmation of tool calls (those are approved separately). " +
	"Offer options when the answer is one of a few choices."

const planDescription = "Record your plan for this task as a list of steps with their status (pending, in_progress, done). " +
	"The user sees it beside the run. Send the whole plan each time a step changes."

// Tools returns ask_user and update_plan.
func Tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.New(AskUser, askDescription, tool.RiskRead, func(context.Context, tool.Env, QuestionArgs) (tool.Result, error) {
			return tool.Result{}, ErrEngineTool
		})),
		tool.Must(tool.New(UpdatePlan, planDescription, tool.RiskRead, func(_ context.Context, _ tool.Env, a PlanArgs) (tool.Result, error) {
			steps, err := planSteps(a)
			if err != nil {
				return tool.Errorf(tool.CodeInvalidArguments, err.Error()), nil
			}
			return tool.Result{Output: summary(steps)}, nil
		})),
	}
}

// ParseQuestion reads and checks ask_user's arguments. Its error is meant
// for the model.
func ParseQuestion(raw json.RawMessage) (event.Question, error) {
	var a QuestionArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return event.Question{}, fmt.Errorf("invalid arguments: %v", err)
	}
	q := event.Question{Text: strings.TrimSpace(a.Question), Multiple: a.Multiple, AllowOther: a.AllowOther}
	switch {
	case q.Text == "":
		return event.Question{}, errors.New("question is empty")
	case len(q.Text) > maxTextBytes:
		return event.Question{}, fmt.Errorf("question is %d bytes, more than %d", len(q.Text), maxTextBytes)
	case len(a.Options) > maxOptions:
		return event.Question{}, fmt.Errorf("%d options, more than %d", len(a.Options), maxOptions)
	case len(a.Options) == 1 && !a.AllowOther:
		return event.Question{}, errors.New("one option is no choice: offer at least two, or allow_other, or none for free text")
	}
	seen := map[string]bool{}
	for i, o := range a.Options {
		label := strings.TrimSpace(o.Label)
		if label == "" {
			return event.Question{}, fmt.Errorf("option %d has no label", i+1)
		}
		if seen[label] {
			return event.Question{}, fmt.Errorf("option %q is listed twice", label)
		}
		seen[label] = true
		q.Options = append(q.Options, event.Option{Label: label, Description: strings.TrimSpace(o.Description)})
	}
	if len(q.Options) == 0 {
		q.Multiple, q.AllowOther = false, false // free text: nothing to choose
	}
	return q, nil
}

// ParsePlan reads and checks update_plan's arguments.
func ParsePlan(raw json.RawMessage) ([]event.PlanStep, error) {
	var a PlanArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	return planSteps(a)
}

func planSteps(a PlanArgs) ([]event.PlanStep, error) {
	if len(a.Steps) > maxSteps {
		return nil, fmt.Errorf("%d steps, more than %d", len(a.Steps), maxSteps)
	}
	out := make([]event.PlanStep, len(a.Steps))
	for i, s := range a.Steps {
		title := strings.TrimSpace(s.Title)
		switch {
		case title == "":
			return nil, fmt.Errorf("step %d has no title", i+1)
		case len(title) > maxTextBytes:
			return nil, fmt.Errorf("step %d's title is %d bytes, more than %d", i+1, len(title), maxTextBytes)
		}
		switch s.Status {
		case StepPending, StepInProgress, StepDone:
		default:
			return nil, fmt.Errorf("step %d: status %q is not one of pending, in_progress, done", i+1, s.Status)
		}
		out[i] = event.PlanStep{Title: title, Status: event.PlanStatus(s.Status)}
	}
	return out, nil
}

func summary(steps []event.PlanStep) string {
	n := map[event.PlanStatus]int{}
	for _, s := range steps {
		n[s.Status]++
	}
	return fmt.Sprintf("Plan updated: %d steps (%d done, %d in progress, %d pending).",
		len(steps), n[StepDone], n[StepInProgress], n[StepPending])
}

// Answer is the text the model reads for a person's answer to a question:
// their choices and their own words.
func Answer(text string, choices []string) string {
	var parts []string
	if len(choices) > 0 {
		parts = append(parts, "The user chose: "+strings.Join(choices, "; ")+".")
	}
	if text != "" {
		if len(choices) > 0 {
			parts = append(parts, "They added: "+text)
		} else {
			parts = append(parts, "The user answered: "+text)
		}
	}
	return strings.Join(parts, " ")
}
