package redact_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/redact"
)

// payloads returns n event payloads like a long coding run records them,
// about 1 KB each on average: model text (prose, markdown, code), tool
// calls and their output (command output, file listings, env-like
// "NAME=value" lines, URLs, JSON with escapes), file changes and policy
// decisions. One in a hundred holds a secret.
func payloads(tb testing.TB, n int) []json.RawMessage {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a test file function returns error when value is nil so we check it first " +
		"then update handler config token limit key point server request response build passes now " +
		"module package import struct field method interface context timeout retry")
	prose := func(nw int) string {
		var b strings.Builder
		for i := range nw {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n")
			}
		}
		return b.String()
	}
	hexID := func(n int) string { return fake(rng.Uint64(), n, "0123456789abcdef") }
	out := make([]json.RawMessage, n)
	for i := range out {
		var v any
		switch i % 8 {
		case 0, 1: // model text
			v = event.NodeFinishedData{Status: "succeeded", Text: "## Plan\n" + prose(150) +
				"\n```go\nif err != nil {\n\treturn fmt.Errorf(\"open %s: %w\", name, err)\n}\n```\n" + prose(20),
				Usage: &event.Usage{InputTokens: rng.Int64N(90000), OutputTokens: rng.Int64N(900)}, DurationMS: 2100, CostUSD: 0.0042}
		case 2: // a tool call
			v = event.NodeStartedData{Kind: "tool", Parent: "n_" + hexID(8), Label: "run_command", Step: i / 8,
				Tool: "run_command", CallID: "call_" + hexID(24), Risk: "exec",
				Arguments: json.RawMessage(fmt.Sprintf(`{"command":"go test -run 'TestX|TestY' ./backend/... 2>&1 | tail -n 40","cwd":"/home/dev/src/%s","timeout_s":120,"env":{"GOFLAGS":"-count=1","CGO_ENABLED":"1"},"note":%q}`,
					hexID(6), prose(60)))}
		case 3: // command output
			v = event.NodeFinishedData{Status: "succeeded", DurationMS: 4400, Output: "=== RUN   TestServer\n--- PASS: TestServer (0.01s)\n" +
				"ok  \tsteward/backend/api\t0.412s\ncommit " + hexID(40) + "\nAuthor: Dev <dev@example.com>\nDate:   Mon Jan 5 10:00:00 2026\n" +
				"GOPATH=/home/dev/go\nGOCACHE=/home/dev/.cache/go-build\nmax_tokens=4096\ntimeout: 30s\nurl: https://api.example.com/v1/items?page=2&sort=asc\n" +
				"id: " + hexID(8) + "-" + hexID(4) + "-" + hexID(4) + "-" + hexID(4) + "-" + hexID(12) + "\n" + prose(90)}
		case 4: // a file read
			v = event.NodeFinishedData{Status: "succeeded", DurationMS: 3, Output: "package api\n\nimport (\n\t\"net/http\"\n)\n\n" +
				"// Handler serves <the> API & more.\nfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n" +
				"\tkey := r.URL.Query().Get(\"key\")\n\tif key == \"\" {\n\t\thttp.Error(w, \"missing key\", 400)\n\t}\n}\n" + prose(70)}
		case 5:
			v = event.FileChangedData{Path: "backend/api/" + hexID(6) + ".go", Before: hexID(64), After: hexID(64), Size: 4096, Source: "tool", Op: "n_" + hexID(8)}
		case 6:
			v = event.PolicyDecidedData{Effect: "allow", Reason: "mode edits: write tool write_file runs inside the workspace; " + prose(100)}
		case 7:
			v = event.LLMDeltaData{Text: prose(200)}
		}
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		if i%100 == 99 { // a leaked key in one event out of a hundred
			b = append([]byte(`{"error":"GITHUB_TOKEN=`+githubPAT+`",`), b[1:]...)
		}
		out[i] = b
	}
	return out
}

// BenchmarkJSON10k redacts the data of 10,000 events, as an export does.
func BenchmarkJSON10k(b *testing.B) {
	events := payloads(b, 10000)
	total := 0
	for _, e := range events {
		total += len(e)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	where := make([]string, len(events))
	for i := range where {
		where[i] = fmt.Sprint("event ", i+1)
	}
	for b.Loop() {
		r := redact.New(serverToken, openAIKey, anthropicKey)
		for i, e := range events {
			r.JSON(where[i], e)
		}
		if len(r.Report()) == 0 {
			b.Fatal("nothing redacted")
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/10k")
	b.ReportMetric(float64(total)/float64(len(events)), "B/event")
}

// TestJSON10kBudget keeps the benchmark's promise in the ordinary test run:
// an export of 10,000 events must stay well under a second, so the
// redaction of their data gets a generous fraction of it even under -race.
func TestJSON10kBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a timing budget over 10,000 events, run in full by make test")
	}
	events := payloads(t, 10000)
	r := redact.New(serverToken, openAIKey, anthropicKey)
	start := time.Now()
	for _, e := range events {
		r.JSON("e", e)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("redacting 10,000 events took %v", d)
	}
	got := 0
	for _, f := range r.Report() {
		got += f.Count
	}
	if got != 100 {
		t.Errorf("redacted %d secrets in 10,000 events, want 100 (one in a hundred; others are false positives)", got)
	}
}

// BenchmarkLiveStep is what the engine's redaction adds to one step of a
// run (see run.BenchmarkEngineStep): the texts of a model call (a delta,
// its whole text, no error) and of a tool call (a short output), through a
// Live that asks for the keys in force at each call as main.go's does.
func BenchmarkLiveStep(b *testing.B) {
	l := redact.NewLive(func() []string { return append([]string{openAIKey, anthropicKey}, serverToken) })
	text := "Step 12: checking one more thing before I go on."
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range []string{text, "", "", text, "ok", "", ""} {
			_ = l.String(s)
		}
	}
}

// BenchmarkLiveEvents redacts the outside texts of 10,000 events like a
// long coding run's (payloads), one by one as the engine records them.
func BenchmarkLiveEvents(b *testing.B) {
	var texts []string
	for _, p := range payloads(b, 10000) {
		var d struct{ Text, Output, Error, Reason string }
		if err := json.Unmarshal(p, &d); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, d.Text, d.Output, d.Error, d.Reason)
	}
	l := redact.NewLive(func() []string { return append([]string{openAIKey, anthropicKey}, serverToken) })
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range texts {
			_ = l.String(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/10k")
}
