package recording_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/recording"
	"steward/backend/workspace"
)

// fakeSource is a run held in memory, as the store, the blobs and the
// artifacts folder would give it.
type fakeSource struct {
	run    recording.RunSummary
	events []event.Event
	blobs  map[string][]byte
	dir    string
	// blobErr, when set, is what Blob returns: the data directory failing.
	blobErr error
}

var _ recording.Source = (*fakeSource)(nil)

var errNotFound = errors.New("not found")

func (f *fakeSource) Run(_ context.Context, id string) (recording.RunSummary, error) {
	if id != f.run.ID {
		return recording.RunSummary{}, fmt.Errorf("run %s: %w", id, errNotFound)
	}
	return f.run, nil
}

func (f *fakeSource) Events(_ context.Context, runID string) ([]event.Event, error) {
	if runID != f.run.ID {
		return nil, fmt.Errorf("run %s: %w", runID, errNotFound)
	}
	return slices.Clone(f.events), nil // Export redacts the log it is given in place
}

func (f *fakeSource) Blob(sum string) ([]byte, error) {
	if f.blobErr != nil {
		return nil, f.blobErr
	}
	b, ok := f.blobs[sum]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", sum, workspace.ErrNoBlob)
	}
	return b, nil
}

func (f *fakeSource) ArtifactsDir(string) string { return f.dir }

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var words = strings.Fields(`the agent reads file handler request response error value returns
	test build config workspace run tool call model step output input change diff patch line
	function package import struct field method interface context cancel timeout retry result`)

// script builds a run of about n events in which changes files change, with
// the mix of a real run: model nodes streaming deltas, tool nodes with their
// policy decisions, and file.changed events naming blobs of a few KB.
func script(runID string, n, changes int) *fakeSource {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(count int) string {
		var b strings.Builder
		for i := range count {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	src := &fakeSource{blobs: map[string][]byte{}}
	var evs []event.Event
	ts := int64(1_760_000_000_000)
	add := func(typ event.Type, node string, data any) {
		e := event.New(runID, typ, node, data)
		e.Seq, e.TS = int64(len(evs)+1), ts
		ts += 37
		evs = append(evs, e)
	}
	spec := json.RawMessage(`{"name":"coder","provider":"openai","model":"gpt-test","tools":["read_file","write_file"]}`)
	add(event.RunCreated, "", event.RunCreatedData{
		Agent:        event.AgentRef{ID: "ag1", Name: "coder", Provider: "openai", Model: "gpt-test"},
		Instructions: "fix the handlers", Workspace: "/home/me/project", Mode: "auto", MaxSteps: 500, Spec: spec,
	})
	add(event.RunStatus, "", event.RunStatusData{Status: "running"})
	last := map[string]string{}
	// Each step is 24 or 25 events; a change lands every stride steps. The
	// last model node takes what is left, so the log has exactly n events.
	steps := max(1, (n-30)/25)
	stride := max(1, steps/max(1, changes))
	made := 0
	step := 0
	for ; len(evs)+28 < n; step++ {
		llm := fmt.Sprintf("n%d", 2*step+1)
		add(event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Label: "gpt-test", Step: step + 1, Model: "gpt-test"})
		for range 18 {
			add(event.LLMDelta, llm, event.LLMDeltaData{Text: text(6) + " "})
		}
		path := fmt.Sprintf("src/file%02d.go", step%20)
		args, _ := json.Marshal(map[string]string{"path": path})
		add(event.NodeFinished, llm, event.NodeFinishedData{
			Status: event.NodeSucceeded, Text: text(40), StopReason: "tool_use", DurationMS: 900,
			ToolCalls: []event.ToolCall{{ID: fmt.Sprintf("call_%d", step), Name: "write_file", Arguments: args}},
			Usage:     &event.Usage{InputTokens: 1200, OutputTokens: 180},
		})
		tn := fmt.Sprintf("n%d", 2*step+2)
		add(event.NodeStarted, tn, event.NodeStartedData{Kind: event.KindTool, Parent: llm, Label: "write_file", Tool: "write_file", CallID: fmt.Sprintf("call_%d", step), Arguments: args, Risk: "write"})
		add(event.PolicyDecided, tn, event.PolicyDecidedData{Effect: "allow", Reason: "rule allow write_file"})
		add(event.ToolExecuting, tn, event.ToolExecutingData{})
		if step%stride == 0 && made < changes {
			made++
			var b strings.Builder
			fmt.Fprintf(&b, "package src\n\n// Version %d of %s.\n", made, path)
			for f := range 40 {
				fmt.Fprintf(&b, "func handle%d(w http.ResponseWriter, r *http.Request) {\n\tlog.Printf(%q, r.URL.Path)\n}\n\n", f, text(5))
			}
			content := []byte(b.String())
			after := sum(content)
			src.blobs[after] = content
			add(event.FileChanged, tn, event.FileChangedData{Path: path, Before: last[path], After: after, Size: int64(len(content)), Source: event.FileByTool, Op: tn})
			last[path] = after
		}
		add(event.NodeFinished, tn, event.NodeFinishedData{Status: event.NodeSucceeded, Output: "wrote " + path, DurationMS: 3})
	}
	llm := fmt.Sprintf("n%d", 2*step+1)
	add(event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Label: "gpt-test", Step: step + 1, Model: "gpt-test"})
	for len(evs) < n-2 {
		add(event.LLMDelta, llm, event.LLMDeltaData{Text: text(6) + " "})
	}
	add(event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, Text: "done", StopReason: "end_turn", DurationMS: 400})
	add(event.RunStatus, "", event.RunStatusData{Status: "succeeded"})
	src.events = evs
	src.run = recording.RunSummary{
		ID: runID, Status: "succeeded", AgentName: "coder", Provider: "openai", Model: "gpt-test",
		Instructions: "fix the handlers", Workspace: "/home/me/project", CreatedAt: evs[0].TS, UpdatedAt: ts,
		Steps: steps, InputTokens: 1200 * int64(steps), OutputTokens: 180 * int64(steps), CostUSD: 0.42,
	}
	return src
}

// withArtifacts gives src an artifacts folder holding a screenshot (a real
// PNG), a browser video and loose frames, each announced by the log, and a
// file.changed event naming a content the journal did not keep.
func withArtifacts(t testing.TB, src *fakeSource) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 32, 16))
	for x := range 32 {
		img.Set(x, x%16, color.RGBA{R: 200, A: 255})
	}
	var shot bytes.Buffer
	if err := png.Encode(&shot, img); err != nil {
		t.Fatal(err)
	}
	video := make([]byte, 300<<10)
	rand.NewChaCha8([32]byte{3, 4}).Read(video)
	copy(video[4:], "ftypisom")
	files := map[string][]byte{"shots/n2.png": shot.Bytes(), "browser.mp4": video, "frames/000001.jpg": {0xff, 0xd8, 0xff}}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src.dir = dir
	end := src.events[len(src.events)-1]
	src.events = src.events[:len(src.events)-1]
	add := func(typ event.Type, node string, data any) {
		e := event.New(src.run.ID, typ, node, data)
		e.Seq, e.TS = int64(len(src.events)+1), end.TS
		src.events = append(src.events, e)
	}
	add(event.ArtifactCreated, "n2", event.ArtifactCreatedData{Name: "shots/n2.png", Kind: "screenshot", Mime: "image/png", Size: int64(shot.Len())})
	add(event.FileChanged, "n2", event.FileChangedData{Path: "big.bin", After: sum([]byte("not kept")), Size: 20 << 20, Source: event.FileByCommand, Op: "n2"})
	add(event.ArtifactCreated, "", event.ArtifactCreatedData{Name: "frames", Kind: "frames", Mime: "image/jpeg", Size: 3})
	add(event.ArtifactCreated, "", event.ArtifactCreatedData{Name: "browser.mp4", Kind: "video", Mime: "video/mp4", Size: int64(len(video))})
	add(end.Type, end.NodeID, json.RawMessage(end.Data))
}
