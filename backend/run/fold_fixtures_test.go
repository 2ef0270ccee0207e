package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/llm"
	recordingpkg "steward/backend/recording"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/workspace"
)

// The fold fixtures (testdata/fold/*.txtar) are recorded logs with what the
// Go fold makes of them: the conversation each model call was sent and the
// files view. The player of a recording folds logs in the browser too
// (frontend/src/player/nodeInput.ts and filesView.ts); its tests read the
// same files (frontend/src/player/fold.test.ts), so the two folds cannot
// drift apart. Each fixture is made by a scenario run through the real
// engine (fold_scenarios_test.go), in which what the engine sent each model
// call is checked against the fold of the log it wrote; -update writes the
// files anew.
//
// A fixture is a txtar archive (the format of golang.org/x/tools/txtar):
// its comment says what the run did, then the files
//
//	events.jsonl         the run's log, one event a line
//	inputs.json          {model node: the conversation it was sent}
//	files.json           the files view, when the run changed files
//	source.jsonl         for a replay: the log of the recorded run
//	source-inputs.json   and what its model calls were sent
//	blob/<sha256>        the contents the diffs are made of
var updateFold = flag.Bool("update", false, "rewrite testdata/fold from the scenarios")

const foldDir = "testdata/fold"

// fixture is one fold fixture.
type fixture struct {
	about        string
	events       []event.Event
	inputs       map[string][]llm.Message
	files        *workspace.FilesView
	source       []event.Event
	sourceInputs map[string][]llm.Message
	blobs        map[string][]byte
}

// TestFoldFixtures reads every fixture and checks that the fold of its log
// gives what the fixture says; for a replay, that each replayed model call
// was sent what the recorded one was, as the replay's divergence check
// compares them.
func TestFoldFixtures(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob(filepath.Join(foldDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range foldScenarios {
		want = append(want, filepath.Join(foldDir, s.name+".txtar"))
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("fixtures %v, want one per scenario: %v (go test ./backend/run -run TestFoldScenarios -update)", names, want)
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			fx := parseFixture(t, b)
			checkFixture(t, fx)
		})
	}
}

// checkFixture checks that the fold of fx's logs gives fx's conversations
// and files view.
func checkFixture(t *testing.T, fx fixture) {
	t.Helper()
	if diff := cmp.Diff(asJSON(t, fx.inputs), asJSON(t, inputsOf(t, fx.events))); diff != "" {
		t.Errorf("inputs (-fixture +fold):\n%s", diff)
	}
	if fx.files != nil {
		if diff := cmp.Diff(asJSON(t, fx.files), asJSON(t, filesOf(fx.events, fx.blobs))); diff != "" {
			t.Errorf("files view (-fixture +fold):\n%s", diff)
		}
	}
	if fx.source == nil {
		return
	}
	if diff := cmp.Diff(asJSON(t, fx.sourceInputs), asJSON(t, inputsOf(t, fx.source))); diff != "" {
		t.Errorf("source inputs (-fixture +fold):\n%s", diff)
	}
	// The replay's divergence check compares each model call's request
	// with the recorded one: fed the replay's inputs in order, it finds a
	// divergence exactly where the replay's log records one.
	rec, err := replay.Load(&recordingpkg.Bundle{Events: fx.source, Blobs: fx.blobs})
	if err != nil {
		t.Fatal(err)
	}
	p := replay.NewProvider(rec, replay.Options{})
	for _, node := range modelNodes(fx.events) {
		if _, err := p.Stream(context.Background(), llm.Request{System: rec.Agent.SystemPrompt, Messages: fx.inputs[node]}, nil); err != nil {
			t.Fatalf("replay model call %s: %v", node, err)
		}
	}
	var recorded *event.ReplayDivergedData
	for _, ev := range fx.events {
		if ev.Type == event.ReplayDiverged {
			d := decode[event.ReplayDivergedData](t, ev)
			recorded = &d
		}
	}
	d, diverged := p.Divergence()
	switch {
	case recorded == nil && diverged:
		t.Errorf("the replay's inputs diverge from the recording's (%v), and its log records no divergence", d)
	case recorded != nil && !diverged:
		t.Errorf("the replay's log records a divergence (%+v) and its inputs do not diverge", *recorded)
	case recorded != nil && (d.Step != recorded.Step || d.Field != recorded.Field):
		t.Errorf("the inputs diverge at model call %d %s; the log says %d %s", d.Step, d.Field, recorded.Step, recorded.Field)
	}
}

// modelNodes lists the model calls of a log, in order.
func modelNodes(evs []event.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == event.NodeStarted {
			var d event.NodeStartedData
			if ev.Decode(&d) == nil && d.Kind == event.KindLLM {
				out = append(out, ev.NodeID)
			}
		}
	}
	return out
}

// inputsOf is what the fold says each model call of evs was sent.
func inputsOf(t *testing.T, evs []event.Event) map[string][]llm.Message {
	t.Helper()
	out := map[string][]llm.Message{}
	for _, node := range modelNodes(evs) {
		in, ok := run.InputOf(evs, node)
		if !ok {
			t.Fatalf("no input for model call %s", node)
		}
		out[node] = in
	}
	return out
}

// filesOf is the files view of the file.changed events of evs (as the
// store's journal projects them), with diffs of blobs.
func filesOf(evs []event.Event, blobs map[string][]byte) workspace.FilesView {
	var logged []workspace.Logged
	for _, ev := range evs {
		var d event.FileChangedData
		if ev.Type != event.FileChanged || ev.Decode(&d) != nil {
			continue
		}
		logged = append(logged, workspace.Logged{Recorded: workspace.Recorded{Change: workspace.Change{Path: d.Path, Before: d.Before, After: d.After,
			BeforeUnknown: d.BeforeUnknown, Size: d.Size}, Op: d.Op, Seq: ev.Seq}, NodeID: ev.NodeID, Source: string(d.Source), Undoes: d.Undoes, CreatedAt: ev.TS})
	}
	return workspace.ViewFiles(logged, workspace.ViewOptions{Missing: "no diff: the content is not in this recording", Content: func(sum string) ([]byte, bool) {
		b, ok := blobs[sum]
		return b, ok
	}})
}

// asJSON is v as a JSON value, for comparisons that do not care how a
// value was spelled (a nil slice and an omitted field alike).
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// txtar: a comment, then files, each a line "-- name --" and its content.
var txtarMarker = regexp.MustCompile(`(?m)^-- (.+) --$`)

func parseFixture(t *testing.T, b []byte) fixture {
	t.Helper()
	idx := txtarMarker.FindAllSubmatchIndex(b, -1)
	if len(idx) == 0 {
		t.Fatal("no files in the fixture")
	}
	fx := fixture{about: string(b[:idx[0][0]]), blobs: map[string][]byte{}}
	for i, m := range idx {
		name := string(b[m[2]:m[3]])
		start, end := m[1]+1, len(b)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		data := b[min(start, end):end]
		switch {
		case name == "events.jsonl":
			fx.events = parseEvents(t, data)
		case name == "source.jsonl":
			fx.source = parseEvents(t, data)
		case name == "inputs.json":
			unmarshal(t, data, &fx.inputs)
		case name == "source-inputs.json":
			unmarshal(t, data, &fx.sourceInputs)
		case name == "files.json":
			fx.files = &workspace.FilesView{}
			unmarshal(t, data, fx.files)
		case strings.HasPrefix(name, "blob/"):
			// A content is written with a final newline of its own.
			fx.blobs[strings.TrimPrefix(name, "blob/")] = bytes.TrimSuffix(data, []byte("\n"))
		default:
			t.Fatalf("unknown file %q in the fixture", name)
		}
	}
	if fx.events == nil || fx.inputs == nil {
		t.Fatal("a fixture needs events.jsonl and inputs.json")
	}
	return fx
}

func parseEvents(t *testing.T, data []byte) []event.Event {
	t.Helper()
	var evs []event.Event
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev event.Event
		unmarshal(t, line, &ev)
		evs = append(evs, ev)
	}
	return evs
}

func unmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("fixture: %v: %.200s", err, data)
	}
}

// formatFixture writes fx as a txtar archive.
func formatFixture(t *testing.T, fx fixture) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(strings.TrimSpace(fx.about) + "\n")
	file := func(name string, data []byte) {
		fmt.Fprintf(&b, "-- %s --\n", name)
		b.Write(data)
		if len(data) == 0 || data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	events := func(evs []event.Event) []byte {
		var out bytes.Buffer
		for _, ev := range evs {
			line, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		return out.Bytes()
	}
	indent := func(v any) []byte {
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	file("events.jsonl", events(fx.events))
	file("inputs.json", indent(fx.inputs))
	if fx.files != nil {
		file("files.json", indent(fx.files))
	}
	if fx.source != nil {
		file("source.jsonl", events(fx.source))
		file("source-inputs.json", indent(fx.sourceInputs))
	}
	sums := make([]string, 0, len(fx.blobs))
	for sum := range fx.blobs {
		sums = append(sums, sum)
	}
	slices.Sort(sums)
	for _, sum := range sums {
		if bytes.Contains(fx.blobs[sum], []byte("\n-- ")) {
			t.Fatalf("blob %s would break the archive", sum)
		}
		file("blob/"+sum, append(slices.Clone(fx.blobs[sum]), '\n'))
	}
	return b.Bytes()
}
