package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tools/shell"
	"steward/backend/workspace"
)

// foldRun is what a fold scenario recorded.
type foldRun struct {
	about  string
	events []event.Event // the run's log
	source []event.Event // the recorded run, for a replay
	blobs  *workspace.Blobs
	roots  []string // temporary folders the logs name
}

// foldScenarios make the fold fixtures (see fold_fixtures_test.go).
var foldScenarios = []struct {
	name string
	run  func(t *testing.T) foldRun
}{
	{"plain", plainFoldRun},
	{"parallel-denied", parallelDeniedFoldRun},
	{"edit-approve", editApproveFoldRun},
	{"steer", steerFoldRun},
	{"fork", forkFoldRun},
	{"interrupted-retried", interruptedFoldRun},
	{"replay-diverged", replayDivergedFoldRun},
	{"replay-edited", replayEditedFoldRun},
}

// TestFoldScenarios runs each scenario through the engine, checks that every
// model call was sent what the fold of the log says it was, and that the
// fixture made of the run holds (-update writes it to testdata/fold).
func TestFoldScenarios(t *testing.T) {
	t.Parallel()
	for _, s := range foldScenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			fx := fixtureOf(t, s.run(t))
			checkFixture(t, fx)
			path := filepath.Join(foldDir, s.name+".txtar")
			if *updateFold {
				if err := os.MkdirAll(foldDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, formatFixture(t, fx), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// sentAsFolded checks that the requests rec kept are what the fold of evs
// says the run's last model calls were sent, one each.
func sentAsFolded(t *testing.T, rec *recording, evs []event.Event) {
	t.Helper()
	if n := countType(evs, event.LLMAttempt); n > 0 {
		t.Fatalf("%d retried model calls: a request each is expected", n)
	}
	nodes, reqs := modelNodes(evs), rec.requests()
	if len(reqs) > len(nodes) {
		reqs = reqs[len(reqs)-len(nodes):] // an earlier run's
	}
	nodes = nodes[len(nodes)-len(reqs):] // calls made before a crash were not sent here
	for i, node := range nodes {
		in, _ := run.InputOf(evs, node)
		if diff := cmp.Diff(asJSON(t, in), asJSON(t, reqs[i].Messages)); diff != "" {
			t.Errorf("model call %s (-fold +sent):\n%s", node, diff)
		}
	}
}

func (h *harness) completed(t *testing.T, id string) []event.Event {
	t.Helper()
	if end := h.waitEnd(t, id, 10*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run %s ended %s (%s)", id, end.Status, end.Error)
	}
	evs := h.events(t, id)
	checkLog(t, evs)
	return evs
}

func (h *harness) foldRun(about string, evs []event.Event) foldRun {
	return foldRun{about: about, events: evs, blobs: h.cfg.Blobs, roots: []string{filepath.Dir(h.ws)}}
}

func plainFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Writing a.", "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}}]},
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "a wasp\n"}}]},
		{"text": "Done: {{last_tool_output}}"}]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "b.txt", "a bee\n")
	r := h.start(t, autoAgent(), "write a.txt, then change b.txt")
	evs := h.completed(t, r.ID)
	sentAsFolded(t, rec, evs)
	return h.foldRun("A plain run: a file written, a file read and changed, a final answer.", evs)
}

func parallelDeniedFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Both at once.", "tool_calls": [
			{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}},
			{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
		{"text": "Only a, then."}]}`)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent(), "write a and b")
	var its []store.Interaction
	waitFor(t, 5*time.Second, "two approvals", func() bool {
		its, _ = h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID, Status: "pending"})
		return len(its) == 2
	})
	for _, it := range its {
		d := inbox.Decision{Decision: "approve", Source: "web"}
		if strings.Contains(it.Arguments, "b.txt") {
			d = inbox.Decision{Decision: "deny", Feedback: "not b", Source: "web"}
		}
		if _, err := h.in.Answer(context.Background(), it.ID, d); err != nil {
			t.Fatal(err)
		}
	}
	evs := h.completed(t, r.ID)
	sentAsFolded(t, rec, evs)
	return h.foldRun("Two calls of one turn asked about together: a person approves one and denies the other with feedback.", evs)
}

func editApproveFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "by the model\n"}}]},
		{"text": "Written."}]}`)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent(), "write a")
	it := h.pending(t, r.ID)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web",
		Arguments: json.RawMessage(`{"path":"edited.txt","content":"by a person\n"}`)}); err != nil {
		t.Fatal(err)
	}
	evs := h.completed(t, r.ID)
	sentAsFolded(t, rec, evs)
	return h.foldRun("Edit, then approve: the person's arguments run, and the model reads that they did.", evs)
}

func steerFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]},
		{"text": "Written, and hello."}]}`)}
	h := newHarness(t, fixed(rec))
	a := autoAgent()
	a.BreakBefore = []string{"write_file"}
	r := h.start(t, a, "write a")
	h.waitRun(t, r.ID, 0, run.Paused, "breakpoint")
	h.accept(t, r.ID, run.Command{CommandID: "s1", Type: run.CmdSteer, Text: "Also say hello."})
	h.accept(t, r.ID, run.Command{CommandID: "c1", Type: run.CmdContinue})
	evs := h.completed(t, r.ID)
	sentAsFolded(t, rec, evs)
	return h.foldRun("A steer while paused at a breakpoint: the next model call reads it after the call's result.", evs)
}

func forkFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Two things.", "tool_calls": [
			{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}},
			{"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"text": "Done: {{last_tool_output}}"}]}`)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, autoAgent(), "write and read a")
	h.completed(t, r.ID)
	res := h.accept(t, r.ID, run.Command{CommandID: "f1", Type: run.CmdFork, NodeID: "n4"})
	h.waitRun(t, res.Fork, 0, run.Paused, "forked from")
	h.accept(t, res.Fork, run.Command{CommandID: "c1", Type: run.CmdContinue})
	evs := h.completed(t, res.Fork)
	sentAsFolded(t, rec, evs)
	return h.foldRun("A fork from the first call of a turn of two: its history has the second call's result synthesized.", evs)
}

func interruptedFoldRun(t *testing.T) foldRun {
	var probes atomic.Int32
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Probing.", "tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
		{"text": "Done: {{last_tool_output}}"}]}`)}
	h := newHarness(t, fixed(rec), probeTool(&probes))
	l := crashedDuringProbe(t, h)
	h.recoverOne(t)
	h.waitRun(t, l.run, 0, run.Paused, "recovered")
	h.accept(t, l.run, run.Command{CommandID: "r1", Type: run.CmdRetry, NodeID: "n4"})
	evs := h.completed(t, l.run)
	sentAsFolded(t, rec, evs)
	return h.foldRun("A tool call interrupted by a crash, then retried by a person after the restart.", evs)
}

// replays returns the replay service over h.
func (h *harness) replays(t *testing.T) *replay.Service {
	return replay.NewService(replay.Config{Runs: h.svc, Log: h.st, Blobs: h.cfg.Blobs, Tools: h.reg, Inbox: h.in,
		Models: h.cfg.Models, Dir: t.TempDir(), Logf: t.Logf})
}

func replayDivergedFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "seen\n"}}]},
		{"text": "Done."}]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "b.txt", "a bee\n")
	src := h.start(t, autoAgent(), "read b, write a")
	source := h.completed(t, src.ID)
	sentAsFolded(t, rec, source)
	// Live tools in a new folder, where b.txt is not: the read fails, and
	// the second model call is sent another result than it was.
	dir := t.TempDir()
	started, err := h.replays(t).Replay(context.Background(), src.ID, replay.Params{Tools: replay.ToolsLive, Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	evs := h.completed(t, started.Run.ID)
	if d, ok := started.Provider.Divergence(); !ok || d.Step != 2 {
		t.Fatalf("divergence %+v (%v), want one at model call 2", d, ok)
	}
	// Recorded during the model call that diverged, so in the log before
	// the run ended (the provider once found it before the run had an id,
	// and recorded it after the run's end).
	if n := countType(evs, event.ReplayDiverged); n != 1 {
		t.Fatalf("%d replay.diverged events when the run ended, want 1", n)
	}
	r := h.foldRun("A replay with live tools that diverges: a file the recorded run read is not in the replay's folder.", evs)
	r.source, r.roots = source, append(r.roots, dir)
	return r
}

func replayEditedFoldRun(t *testing.T) foldRun {
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Listing.", "tool_calls": [{"name": "run_command", "arguments": {"command": "echo from-the-model"}}]},
		{"text": "done"}]}`)}
	h := newHarness(t, fixed(rec), shell.Tools(nil)...)
	a := testAgent(shell.RunCommand)
	a.Sandbox = "off"
	if err := h.st.UpdateAgent(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	src := h.start(t, a, "list")
	it := h.pending(t, src.ID)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web",
		Arguments: json.RawMessage(`{"command":"echo from-a-person"}`)}); err != nil {
		t.Fatal(err)
	}
	source := h.completed(t, src.ID)
	sentAsFolded(t, rec, source)
	dir := t.TempDir()
	started, err := h.replays(t).Replay(context.Background(), src.ID, replay.Params{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	evs := h.completed(t, started.Run.ID)
	if d, ok := started.Provider.Divergence(); ok {
		t.Errorf("the replay of an edited call diverged: %v", d)
	}
	r := h.foldRun("A person edited a run_command before approving it; the run replayed with the recorded results sends the model what it was sent.", evs)
	r.source, r.roots = source, append(r.roots, dir)
	return r
}

// fixtureOf makes the fixture of a scenario's run: its logs made
// independent of the machine and the moment (times, durations and
// temporary folders), and what the fold makes of them.
func fixtureOf(t *testing.T, r foldRun) fixture {
	t.Helper()
	fx := fixture{about: r.about, events: normalized(r.events, r.roots), source: normalized(r.source, r.roots), blobs: map[string][]byte{}}
	fx.inputs = inputsOf(t, fx.events)
	if fx.source != nil {
		fx.sourceInputs = inputsOf(t, fx.source)
	}
	for _, ev := range append(fx.events, fx.source...) {
		var d event.FileChangedData
		if ev.Type != event.FileChanged || ev.Decode(&d) != nil {
			continue
		}
		for _, sum := range []string{d.Before, d.After} {
			if sum == "" {
				continue
			}
			b, err := r.blobs.Get(sum)
			if err != nil {
				t.Fatalf("blob %s: %v", sum, err)
			}
			fx.blobs[sum] = b
		}
	}
	if countType(fx.events, event.FileChanged) > 0 {
		v := filesOf(fx.events, fx.blobs)
		fx.files = &v
	}
	return fx
}

var durationMS = regexp.MustCompile(`"duration_ms":\d+`)

func normalized(evs []event.Event, roots []string) []event.Event {
	if evs == nil {
		return nil
	}
	out := make([]event.Event, len(evs))
	for i, ev := range evs {
		ev.TS = 1_700_000_000_000 + ev.Seq*1000
		data := durationMS.ReplaceAll(ev.Data, []byte(`"duration_ms":1`))
		for j, root := range roots {
			data = bytes.ReplaceAll(data, []byte(root), []byte(fmt.Sprintf("/tmp/fold%d", j+1)))
		}
		ev.Data = data
		out[i] = ev
	}
	return out
}
