package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/run"
	"steward/backend/tool"
)

// pageTool stands for a browser tool: it acts on the page its run has open,
// so its key argument (the page's domain) is its own to give, it keeps
// state per run that must be let go of when the run ends, and it produces
// artifacts.
type pageTool struct {
	mu    sync.Mutex
	envs  []tool.Env // of each call
	ended []tool.Env // of each EndRun
}

func (p *pageTool) Spec() tool.Spec {
	return tool.Spec{Name: "page_shot", Description: "Screenshots the page.", Risk: tool.RiskNetwork, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (p *pageTool) Run(_ context.Context, env tool.Env, _ json.RawMessage) (tool.Result, error) {
	p.mu.Lock()
	p.envs = append(p.envs, env)
	p.mu.Unlock()
	return tool.Result{Output: "a picture of the page", Artifacts: []tool.Artifact{
		{Name: "shots/" + env.NodeID + ".png", Kind: tool.ArtifactScreenshot, Mime: "image/png", Size: 42}}}, nil
}

func (p *pageTool) Key(env tool.Env, _ json.RawMessage) (string, bool) {
	return "shop.example.com", true
}

func (p *pageTool) EndRun(_ context.Context, env tool.Env) ([]tool.Artifact, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = append(p.ended, env)
	return []tool.Artifact{{Name: "browser.mp4", Kind: tool.ArtifactVideo, Mime: "video/mp4", Size: 1000}}, errors.New("one frame was lost")
}

const twoShots = `{"turns": [
	{"tool_calls": [{"name": "page_shot", "arguments": {}}]},
	{"tool_calls": [{"name": "page_shot", "arguments": {}}]},
	{"text": "done"}
]}`

func TestArtifactsAndRunEnd(t *testing.T) {
	p := &pageTool{}
	h := newHarness(t, fixed(scripted(t, twoShots)), p)
	h.reg.AddRunEnder(p)
	arts := t.TempDir()
	h.svc = h.service(t, func(c *run.Config) { c.Artifacts = arts })
	a := testAgent("page_shot")
	a.Domains = []string{"*.example.com"}
	// The rule holds for the domain the tool gives, not its (empty) arguments.
	a.Rules = []policy.Rule{{Effect: policy.Allow, Tool: "page_shot", Match: "*.example.com"}}
	r := h.start(t, a, "take two pictures")
	h.waitEnd(t, r.ID, 10*time.Second)
	evs := h.events(t, r.ID)
	checkLog(t, evs)

	if got := lastStatus(t, evs); got.Status != string(run.Completed) {
		t.Fatalf("status = %+v, want completed (the rule on the tool's key allows both calls)", got)
	}
	p.mu.Lock()
	envs, ended := slices.Clone(p.envs), slices.Clone(p.ended)
	p.mu.Unlock()
	if len(envs) != 2 {
		t.Fatalf("%d calls, want 2", len(envs))
	}
	for _, env := range envs {
		if env.NodeID == "" || env.Artifacts != filepath.Join(arts, r.ID) || !slices.Equal(env.Domains, a.Domains) {
			t.Errorf("call env = %+v, want its node, %s and the agent's domains", env, filepath.Join(arts, r.ID))
		}
	}
	if len(ended) != 1 || ended[0].RunID != r.ID || ended[0].Artifacts != filepath.Join(arts, r.ID) {
		t.Fatalf("EndRun calls = %+v, want one for run %s", ended, r.ID)
	}

	// Each call's screenshot is announced on its node before the node ends;
	// the recording has no node and comes before the final status.
	var shots []string
	video, final := -1, -1
	for i, ev := range evs {
		switch {
		case ev.Type == event.ArtifactCreated && ev.NodeID != "":
			d := decode[event.ArtifactCreatedData](t, ev)
			if d.Name != "shots/"+ev.NodeID+".png" || d.Kind != tool.ArtifactScreenshot || d.Size != 42 {
				t.Errorf("screenshot event = %+v", d)
			}
			if f := finished(t, evs, ev.NodeID); f.Status != event.NodeSucceeded {
				t.Errorf("node %s: %+v", ev.NodeID, f)
			}
			for _, later := range evs[:i] {
				if later.Type == event.NodeFinished && later.NodeID == ev.NodeID {
					t.Errorf("node %s finished before its artifact", ev.NodeID)
				}
			}
			shots = append(shots, ev.NodeID)
		case ev.Type == event.ArtifactCreated:
			if d := decode[event.ArtifactCreatedData](t, ev); d.Kind != tool.ArtifactVideo || d.Name != "browser.mp4" {
				t.Errorf("run artifact = %+v", d)
			}
			video = i
		case ev.Type == event.RunStatus && decode[event.RunStatusData](t, ev).Status == string(run.Completed):
			final = i
		}
	}
	if len(shots) != 2 || shots[0] == shots[1] {
		t.Errorf("screenshot nodes = %v, want one per call", shots)
	}
	if video < 0 || final < 0 || video > final {
		t.Errorf("recording event at %d, completed at %d: want the recording first", video, final)
	}
}

// A rule on another domain does not match what the tool gives: in mode ask
// the network call asks.
func TestToolKeyDecidesRules(t *testing.T) {
	p := &pageTool{}
	h := newHarness(t, fixed(scripted(t, twoShots)), p)
	a := testAgent("page_shot")
	a.Rules = []policy.Rule{{Effect: policy.Allow, Tool: "page_shot", Match: "*.other.org"}}
	r := h.start(t, a, "take a picture")
	if it := h.pending(t, r.ID); it.Tool != "page_shot" {
		t.Fatalf("pending = %+v", it)
	}
	var d event.PolicyDecidedData
	for _, ev := range h.events(t, r.ID) {
		if ev.Type == event.PolicyDecided {
			d = decode[event.PolicyDecidedData](t, ev)
		}
	}
	if d.Effect != policy.Ask {
		t.Errorf("policy = %+v, want ask", d)
	}
	if _, err := h.svc.Command(context.Background(), r.ID, cmd(run.CmdCancel)); err != nil {
		t.Fatal(err)
	}
	h.waitEnd(t, r.ID, 10*time.Second)
}
