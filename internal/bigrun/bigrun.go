// Package bigrun generates the big run that the performance tests and
// benchmarks open, export and import: a completed run of many turns, each a
// model call streaming its text and asking for one tool call, written
// through the store package as the engine would write it. One shape, so
// that a figure of the UI and one of the exchange are about the same run.
package bigrun

import (
	"encoding/json"
	"fmt"
	"strings"

	"steward/backend/event"
	"steward/backend/store"
)

// Blobs keeps file contents by their hash, as workspace.Blobs does.
type Blobs interface {
	Put(content []byte) (string, error)
}

// Params shapes a big run. Calls that add a knob add a field.
type Params struct {
	ID        string // "run_big" when empty
	Turns     int
	Workspace string // "/ws" when empty
	// Files, when above zero, is how many files the turns read in turn
	// (turn i reads src/file<i mod Files>.go); zero gives every turn a file
	// of its own.
	Files int
	// Blobs, when set, receives a file of about 5 KB every 100th turn,
	// recorded as the turn's file change (100 of them in 10,000 turns).
	Blobs Blobs
}

// EventsPerTurn is the events of a turn without a file change: the model
// call's start, three deltas and finish; the tool call's start, policy
// decision, execution and finish; a plan update. A turn adds 2 nodes.
const EventsPerTurn = 10

// ID is the run's id when Params.ID is empty.
const ID = "run_big"

// Events returns the run's events in order. An error is the blob store's.
func Events(p Params) ([]event.Event, error) {
	id := p.ID
	if id == "" {
		id = ID
	}
	ws := p.Workspace
	if ws == "" {
		ws = "/ws"
	}
	evs := []event.Event{
		event.New(id, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_big", Name: "big", Provider: "script", Model: "script"},
			Instructions: "a long run", Workspace: ws, Mode: "auto", MaxSteps: p.Turns + 1}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "running"}),
		event.New(id, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "big"}),
		event.New(id, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions", Text: "a long run"}),
		event.New(id, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded}),
	}
	after := "n2"
	prev := map[string]string{} // a file's last content, the Before of its next change
	for i := range p.Turns {
		llm, tl := fmt.Sprintf("n%d", 3+2*i), fmt.Sprintf("n%d", 4+2*i)
		file := i
		if p.Files > 0 {
			file = i % p.Files
		}
		path := fmt.Sprintf("src/file%d.go", file)
		args := json.RawMessage(fmt.Sprintf(`{"path":%q}`, path))
		text := fmt.Sprintf("Step %d: reading the next file to see how the pieces fit together.", i)
		evs = append(evs,
			event.New(id, event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{after}, Label: fmt.Sprintf("model call %d", i+1), Step: i + 1, Model: "script"}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[:20]}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[20:40]}),
			event.New(id, event.LLMDelta, llm, event.LLMDeltaData{Text: text[40:]}),
			event.New(id, event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, Text: text,
				ToolCalls: []event.ToolCall{{ID: "c" + tl, Name: "read_file", Arguments: args}}, Usage: &event.Usage{InputTokens: 900, OutputTokens: 40}}),
			event.New(id, event.NodeStarted, tl, event.NodeStartedData{Kind: event.KindTool, Parent: llm, After: []string{llm}, Label: "read_file",
				Tool: "read_file", CallID: "c" + tl, Arguments: args, Risk: "read"}),
			event.New(id, event.PolicyDecided, tl, event.PolicyDecidedData{Effect: "allow", Reason: "mode auto: read_file runs without asking"}),
			event.New(id, event.ToolExecuting, tl, event.ToolExecutingData{}),
		)
		if p.Blobs != nil && i%100 == 0 {
			content := []byte(fmt.Sprintf("package src\n// version %d\n%s", i, strings.Repeat(fmt.Sprintf("func f%d() {}\n", i), 350)))
			sum, err := p.Blobs.Put(content)
			if err != nil {
				return nil, fmt.Errorf("big run: file of turn %d: %w", i, err)
			}
			evs = append(evs, event.New(id, event.FileChanged, tl, event.FileChangedData{Path: path, Before: prev[path], After: sum,
				Size: int64(len(content)), Source: event.FileByTool, Op: tl}))
			prev[path] = sum
		}
		evs = append(evs,
			event.New(id, event.NodeFinished, tl, event.NodeFinishedData{Status: event.NodeSucceeded,
				Output: strings.Repeat(fmt.Sprintf("package src // file %d\n", i), 8), DurationMS: 2}),
			// A plan update every turn keeps the count at 10 a turn and
			// exercises another fold.
			event.New(id, event.RunPlan, tl, event.RunPlanData{Steps: []event.PlanStep{{Title: "read everything", Status: "in_progress"}}}))
		after = tl
	}
	return append(evs,
		event.New(id, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "completed"})), nil
}

// Write generates the run and commits it to st in groups of 500 events,
// returning the run's id and its number of events.
func Write(st *store.Store, p Params) (id string, events int, err error) {
	evs, err := Events(p)
	if err != nil {
		return "", 0, err
	}
	for start := 0; start < len(evs); start += 500 {
		if _, err := st.SubmitAll(evs[start:min(start+500, len(evs))]).Wait(); err != nil {
			return "", 0, fmt.Errorf("big run: write: %w", err)
		}
	}
	return evs[0].RunID, len(evs), nil
}
