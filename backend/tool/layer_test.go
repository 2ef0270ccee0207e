package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// ender counts the runs it was told ended.
type ender struct{ runs []string }

func (e *ender) EndRun(ctx context.Context, env Env) ([]Artifact, error) {
	e.runs = append(e.runs, env.RunID)
	return nil, nil
}

// TestLayerAddsSourcesForOneRunAndNeverShadowsTheParent: a layer offers its
// parent's tools and sources and its own; its sources are not the
// parent's; one that overlaps a parent's source is refused, and a source
// the parent gains later hides the layer's of the same prefix.
func TestLayerAddsSourcesForOneRunAndNeverShadowsTheParent(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t)
	person := &listing{prefix: "mcp__github__", names: []string{"issues"}}
	if err := r.AddSource(person); err != nil {
		t.Fatal(err)
	}
	parentEnds := &ender{}
	r.AddRunEnder(parentEnds)

	l := r.Layer()
	project := &listing{prefix: "mcp__linear__", names: []string{"tickets"}}
	if err := l.AddSource(project); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"mcp__github__", "mcp__github__x__", "mcp__"} {
		if err := l.AddSource(&listing{prefix: p}); !errors.Is(err, ErrDuplicate) {
			t.Errorf("a layer's source %q over the parent's: %v", p, err)
		}
	}
	var names []string
	for _, s := range l.Specs("echo", "mcp__github__*", "mcp__linear__*") {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"echo", "mcp__github__issues", "mcp__linear__tickets"}) {
		t.Errorf("layer specs %v", names)
	}
	if _, ok := r.Lookup("mcp__linear__tickets"); ok || r.Known("mcp__linear__*") {
		t.Error("the parent has the layer's source")
	}
	res, err := l.Call(context.Background(), Env{}, "mcp__linear__tickets", json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Output != "tickets:hi" {
		t.Errorf("call through the layer: %+v, %v", res, err)
	}
	if err := l.Register(Must(New("own", "x", RiskRead, func(ctx context.Context, env Env, a echoArgs) (Result, error) { return Result{}, nil }))); err == nil {
		t.Error("a layer registered a tool")
	}
	if _, ok := r.Lookup("own"); ok {
		t.Error("a layer's Register reached the parent")
	}

	// The person adds a server of the project's name: theirs is served.
	if err := r.AddSource(&listing{prefix: "mcp__linear__", names: []string{"tickets"}}); err != nil {
		t.Fatal(err)
	}
	before := project.calls.Load()
	if _, ok := l.Lookup("mcp__linear__tickets"); !ok {
		t.Fatal("no tool")
	}
	if project.calls.Load() != before || l.owner("mcp__linear__tickets").src == project {
		t.Error("the layer's source shadows the parent's")
	}

	layerEnds := &ender{}
	l.AddRunEnder(layerEnds)
	if _, err := l.EndRun(context.Background(), Env{RunID: "run_1"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(layerEnds.runs, []string{"run_1"}) || !slices.Equal(parentEnds.runs, []string{"run_1"}) {
		t.Errorf("EndRun reached layer %v, parent %v", layerEnds.runs, parentEnds.runs)
	}
}
