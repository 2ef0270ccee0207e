package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// listing is a Source whose tools are echo tools under its prefix; it
// counts its listings and fails while err is set.
type listing struct {
	prefix string
	names  []string
	calls  atomic.Int32
	err    error
}

func (l *listing) Prefix() string { return l.prefix }

func (l *listing) Tools(ctx context.Context) ([]Tool, error) {
	l.calls.Add(1)
	if l.err != nil {
		return nil, l.err
	}
	var out []Tool
	for _, n := range l.names {
		out = append(out, Must(New(l.prefix+n, "echoes", RiskExec, func(ctx context.Context, env Env, a echoArgs) (Result, error) {
			return Result{Output: n + ":" + a.Text}, nil
		})))
	}
	return out, nil
}

func TestSourceListedOnlyWhenNamed(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	src := &listing{prefix: "mcp__fx__", names: []string{"b", "a"}}
	if err := r.AddSource(src); err != nil {
		t.Fatal(err)
	}
	// What agents without the source need never lists it.
	r.Specs("echo")
	r.Specs()
	if !r.Known("mcp__fx__*") || !r.Known("mcp__fx__a") || r.Known("mcp__other__*") || !r.Known("echo") {
		t.Error("Known is wrong")
	}
	r.Lookup("echo")
	if err := r.SetTimeout("mcp__fx__b", time.Millisecond); err != nil {
		t.Errorf("a timeout for a source's tool: %v", err)
	}
	if err := r.SetTimeout("mcp__other__b", time.Second); err == nil {
		t.Error("a timeout for a tool nobody has was accepted")
	}
	if n := src.calls.Load(); n != 0 {
		t.Fatalf("listed %d times before any of its names was looked up", n)
	}
	var names []string
	for _, s := range r.Specs("echo", "mcp__fx__*", "mcp__fx__a") {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"echo", "mcp__fx__a", "mcp__fx__b"}) {
		t.Errorf("specs %v", names)
	}
	res, err := r.Call(context.Background(), Env{}, "mcp__fx__a", json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Output != "a:hi" {
		t.Errorf("call: %+v, %v", res, err)
	}
	if res, _ := r.Call(context.Background(), Env{}, "mcp__fx__a", json.RawMessage(`{"txt":"hi"}`)); res.Code != CodeInvalidArguments {
		t.Errorf("the source's schema does not hold: %+v", res)
	}
	if n := src.calls.Load(); n != 1 {
		t.Errorf("listed %d times, want once", n)
	}
	if !Uses([]string{"read_file", "mcp__fx__*"}, "mcp__fx__a") || Uses([]string{"mcp__fx__a"}, "mcp__fx__b") || Uses([]string{"mcp__fx__*"}, "mcp__fy__a") {
		t.Error("Uses is wrong")
	}
}

func TestSourceFailureIsRetriedLaterNotAtEveryLookup(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	src := &listing{prefix: "mcp__fx__", names: []string{"a"}, err: errors.New("no server")}
	if err := r.AddSource(src); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, ok := r.Lookup("mcp__fx__a"); ok {
			t.Fatal("found a tool of a source that failed")
		}
	}
	if n := src.calls.Load(); n != 1 {
		t.Errorf("listed %d times within sourceRetry, want once", n)
	}
}

func TestSourcePrefixesMayNotOverlap(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	if err := r.AddSource(&listing{prefix: "mcp__fx__"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"mcp__fx__a__", "mcp__", "ech", ""} {
		if err := r.AddSource(&listing{prefix: p}); err == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
	err := r.Register(Must(New("mcp__fx__x", "x", RiskRead, func(ctx context.Context, env Env, a echoArgs) (Result, error) { return Result{}, nil })))
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "mcp__fx__") {
		t.Errorf("a tool in a source's names: %v", err)
	}
}

func TestSourceRemovedAndAddedAgainIsListedAfresh(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	old := &listing{prefix: "mcp__fx__", names: []string{"a"}}
	if err := r.AddSource(old); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("mcp__fx__a"); !ok {
		t.Fatal("mcp__fx__a not found")
	}
	if !r.RemoveSource("mcp__fx__") || r.RemoveSource("mcp__fx__") {
		t.Fatal("RemoveSource did not say whether it removed")
	}
	if _, ok := r.Lookup("mcp__fx__a"); ok || r.Known("mcp__fx__*") {
		t.Fatal("a removed source's tool is still found")
	}
	// The same prefix again, with other tools: its listing, not the old one.
	fresh := &listing{prefix: "mcp__fx__", names: []string{"b"}}
	if err := r.AddSource(fresh); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("mcp__fx__a"); ok {
		t.Error("the old listing's tool is found")
	}
	if _, ok := r.Lookup("mcp__fx__b"); !ok || fresh.calls.Load() != 1 || old.calls.Load() != 1 {
		t.Errorf("the new source was not listed once (%d, old %d)", fresh.calls.Load(), old.calls.Load())
	}
}
