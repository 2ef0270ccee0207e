package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// progressLog collects what a call reports of its progress
// (tool.Env.Progress), and counts the reports made after the call returned.
type progressLog struct {
	mu       sync.Mutex
	got      []tool.Progress
	returned bool
	late     int
}

func (l *progressLog) add(p tool.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.returned {
		l.late++
	}
	l.got = append(l.got, p)
}

func (l *progressLog) callReturned() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.returned = true
}

func (l *progressLog) all() ([]tool.Progress, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]tool.Progress(nil), l.got...), l.late
}

// wantSteps are the reports of the fixture's progress tool for count.
func wantSteps(count int) []tool.Progress {
	var out []tool.Progress
	for i := 1; i <= count; i++ {
		out = append(out, tool.Progress{Progress: float64(i), Total: float64(count), Message: mcptest.ProgressMessage(i, count)})
	}
	return out
}

// A call made with tool.Env.Progress asks for progress: every report of
// the server reaches the callback, in order, with its progress, total and
// message, over every transport; reports with tokens the Manager never
// gave this call are dropped, and so is one the server sends after it
// answered. Two calls of one run at once each get their own.
func TestProgressReachesTheCallInOrder(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			counts := []int{20, 13}
			logs := make([]*progressLog, len(counts))
			var wg sync.WaitGroup
			for i, n := range counts {
				logs[i] = &progressLog{}
				wg.Go(func() {
					env := tool.Env{RunID: "run_1", Progress: logs[i].add}
					// after_ms: the late report comes on a session that
					// stays open (stdio, and http's session).
					args := fmt.Sprintf(`{"count": %d, "every_ms": 5, "stray": true, "after_ms": 30}`, n)
					res, err := reg.Call(context.Background(), env, "mcp__fx__progress", json.RawMessage(args))
					logs[i].callReturned()
					if err != nil || res.IsError || !strings.Contains(res.Output, fmt.Sprintf("sent %d progress notifications", n)) {
						t.Errorf("call %d: %+v, %v", i, res, err)
					}
				})
			}
			wg.Wait()
			time.Sleep(150 * time.Millisecond) // the late reports are sent 30 ms after the answers
			for i, n := range counts {
				got, late := logs[i].all()
				if diff := cmp.Diff(wantSteps(n), got); diff != "" {
					t.Errorf("call %d: reports (-want +got):\n%s", i, diff)
				}
				if late != 0 {
					t.Errorf("call %d: %d reports after the call returned", i, late)
				}
			}
		})
	}
}

// A server reports only on its own calls: one that sends reports with the
// token of a call of another run (another session, another process) is
// not heard by that call.
func TestProgressOfAnotherSessionIsDropped(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	mine, theirs := &progressLog{}, &progressLog{}
	done := make(chan tool.Result, 1)
	go func() {
		res, _ := reg.Call(context.Background(), tool.Env{RunID: "run_1", Progress: mine.add}, "mcp__fx__progress",
			json.RawMessage(`{"count": 3, "every_ms": 300}`))
		done <- res
	}()
	// run_1's call is under way, with the Manager's first token, once it
	// heard its first report; 300 ms pass before its second.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := mine.all(); len(got) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run_1's call reported nothing")
		}
	}
	res, err := reg.Call(context.Background(), tool.Env{RunID: "run_2", Progress: theirs.add}, "mcp__fx__progress",
		json.RawMessage(`{"count": 5, "as_token": "steward-1"}`))
	if err != nil || res.IsError {
		t.Fatalf("run_2's call: %+v, %v", res, err)
	}
	if res := <-done; !strings.Contains(res.Output, "for token steward-1") {
		t.Fatalf("run_1's call had another token: %+v", res)
	}
	if got, _ := mine.all(); !cmp.Equal(got, wantSteps(3)) {
		t.Errorf("run_1's call heard %+v, want its own 3 reports only", got)
	}
	if got, _ := theirs.all(); len(got) != 0 {
		t.Errorf("run_2's call heard %+v, reports with another token", got)
	}
}

// A call made without tool.Env.Progress (outside a run) sends no token:
// the server is not asked for progress.
func TestNoProgressTokenWithoutACallback(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__progress", json.RawMessage(`{"count": 3}`))
	if err != nil || res.IsError || res.Output != "no progress token" {
		t.Fatalf("%+v, %v", res, err)
	}
	l := &progressLog{}
	res, err = reg.Call(context.Background(), tool.Env{RunID: "run_1", Progress: l.add}, "mcp__fx__progress", json.RawMessage(`{"count": 3}`))
	if err != nil || res.IsError || !strings.Contains(res.Output, "for token steward-") {
		t.Fatalf("%+v, %v", res, err)
	}
}

// A report's message is the server's text: it is kept on one line and
// capped at 300 bytes, cut at a character's start; a report without a
// total says none.
func TestProgressMessageIsCappedToOneLine(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	msg := "copying\n\tfiles " + strings.Repeat("é", 400)
	args, err := json.Marshal(map[string]any{"count": 2, "no_total": true, "message": msg})
	if err != nil {
		t.Fatal(err)
	}
	l := &progressLog{}
	if res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1", Progress: l.add}, "mcp__fx__progress", args); err != nil || res.IsError {
		t.Fatalf("%+v, %v", res, err)
	}
	got, _ := l.all()
	if len(got) != 2 {
		t.Fatalf("reports %+v", got)
	}
	for i, p := range got {
		if p.Total != 0 || p.Progress != float64(i+1) {
			t.Errorf("report %d: %+v", i, p)
		}
		if len(p.Message) > 300 || !strings.HasPrefix(p.Message, "copying files éé") || !strings.HasSuffix(p.Message, "é…") {
			t.Errorf("report %d: message %q (%d bytes)", i, p.Message, len(p.Message))
		}
	}
}
