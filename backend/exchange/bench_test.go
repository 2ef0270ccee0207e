package exchange_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/store"
	"steward/backend/workspace"
)

// BenchmarkExportImport10k exports a run of 10,000 events with 100 file
// changes from a real store and imports it back (checked, blobs kept, the
// log appended as one transaction): the figures issue 8 asks for, whole
// path included.
func BenchmarkExportImport10k(b *testing.B) {
	dir := b.TempDir()
	st, err := store.Open(filepath.Join(dir, "steward.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	blobs, err := workspace.NewBlobs(filepath.Join(dir, "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	ex := exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: filepath.Join(dir, "artifacts"), Version: "bench",
		NewID:   func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) },
		Secrets: func() []string { return []string{"sk-bench-configured-secret-value"} }})
	ctx := context.Background()
	const run = "run_big"
	evs := bigRun(b, run, blobs)
	for i := 0; i < len(evs); i += 500 {
		if _, err := st.SubmitAll(evs[i:min(i+500, len(evs))]).Wait(); err != nil {
			b.Fatal(err)
		}
	}
	var size int
	b.ResetTimer()
	var exportNS, importNS int64
	for b.Loop() {
		var buf bytes.Buffer
		t0 := nowNS()
		if _, err := ex.Export(ctx, run, exchange.FormatSteward, &buf); err != nil {
			b.Fatal(err)
		}
		t1 := nowNS()
		r, err := ex.Import(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			b.Fatal(err)
		}
		t2 := nowNS()
		if r.LastSeq != int64(len(evs)) {
			b.Fatalf("imported %d events of %d", r.LastSeq, len(evs))
		}
		exportNS += t1 - t0
		importNS += t2 - t1
		size = buf.Len()
	}
	b.ReportMetric(float64(exportNS)/1e6/float64(b.N), "ms/export")
	b.ReportMetric(float64(importNS)/1e6/float64(b.N), "ms/import")
	b.ReportMetric(float64(size), "bundle-bytes")
}

// bigRun is a run of 10,000 events: model calls streaming text, tool calls
// with their decisions, and 100 file changes of about 5 KB.
func bigRun(b *testing.B, run string, blobs *workspace.Blobs) []event.Event {
	var evs []event.Event
	add := func(typ event.Type, node string, data any) { evs = append(evs, event.New(run, typ, node, data)) }
	add(event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag", Name: "coder", Provider: "openai", Model: "gpt"},
		Instructions: "fix the handlers", Workspace: "/ws", Mode: "auto", MaxSteps: 1000})
	add(event.NodeStarted, "n0", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	prev := map[string]string{}
	for step := 0; len(evs) < 10_000-25; step++ {
		llm, tn := fmt.Sprintf("n%d", 2*step+1), fmt.Sprintf("n%d", 2*step+2)
		add(event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Parent: "n0", Label: "model call", Step: step + 1})
		for i := range 16 {
			add(event.LLMDelta, llm, event.LLMDeltaData{Text: fmt.Sprintf("reading the handler %d of step %d and then ", i, step)})
		}
		path := fmt.Sprintf("src/file%02d.go", step%20)
		args := []byte(`{"path":"` + path + `"}`)
		add(event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, Text: strings.Repeat("text ", 40),
			ToolCalls: []event.ToolCall{{ID: fmt.Sprintf("c%d", step), Name: "write_file", Arguments: args}}})
		add(event.NodeStarted, tn, event.NodeStartedData{Kind: event.KindTool, Parent: llm, Label: "write_file", Tool: "write_file", Arguments: args})
		add(event.PolicyDecided, tn, event.PolicyDecidedData{Effect: "allow", Reason: "mode auto"})
		add(event.ToolExecuting, tn, event.ToolExecutingData{})
		if step%4 == 0 && step/4 < 100 {
			content := []byte(fmt.Sprintf("package src\n// version %d\n%s", step, strings.Repeat(fmt.Sprintf("func f%d() {}\n", step), 350)))
			sum, err := blobs.Put(content)
			if err != nil {
				b.Fatal(err)
			}
			add(event.FileChanged, tn, event.FileChangedData{Path: path, Before: prev[path], After: sum, Size: int64(len(content)), Source: event.FileByTool, Op: tn})
			prev[path] = sum
		}
		add(event.NodeFinished, tn, event.NodeFinishedData{Status: event.NodeSucceeded, Output: "wrote " + path})
	}
	add(event.RunStatus, "", event.RunStatusData{Status: "completed"})
	return evs
}

func nowNS() int64 { return time.Now().UnixNano() }
