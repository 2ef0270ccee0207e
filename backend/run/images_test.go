package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/tool"
)

// snapTool saves a picture of its own (distinct bytes per call) in the
// run's artifacts folder, as browser_screenshot does.
type snapTool struct{}

func (snapTool) Spec() tool.Spec {
	return tool.Spec{Name: "snap", Description: "Takes a picture.", Risk: tool.RiskRead, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (snapTool) Run(_ context.Context, env tool.Env, _ json.RawMessage) (tool.Result, error) {
	name := "shots/" + env.NodeID + ".png"
	data := picture(env.NodeID)
	if err := os.MkdirAll(filepath.Join(env.Artifacts, "shots"), 0o700); err != nil {
		return tool.Result{}, err
	}
	if err := os.WriteFile(filepath.Join(env.Artifacts, filepath.FromSlash(name)), data, 0o600); err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Output: "picture " + name, Artifacts: []tool.Artifact{
		{Name: name, Kind: tool.ArtifactScreenshot, Mime: "image/png", Size: int64(len(data))}}}, nil
}

func picture(node string) []byte { return []byte("\x89PNG\r\n\x1a\n picture of " + node) }

func fiveSnaps() string {
	turn := `{"tool_calls": [{"name": "snap", "arguments": {}}]}`
	return fmt.Sprintf(`{"turns": [%s, %s, %s, %s, %s, {"text": "done"}]}`, turn, turn, turn, turn, turn)
}

// runSnaps runs five pictures with an agent that sends images or not, and
// returns the requests the model got.
func runSnaps(t *testing.T, send bool) ([]llm.Request, *harness, string) {
	t.Helper()
	rec := &recording{next: scripted(t, fiveSnaps())}
	h := newHarness(t, fixed(rec), snapTool{})
	arts := t.TempDir()
	h.svc = h.service(t, func(c *run.Config) { c.Artifacts = arts })
	a := testAgent("snap")
	a.SendImages = send
	r := h.start(t, a, "take five pictures")
	if got := h.waitEnd(t, r.ID, 10*time.Second); got.Status != string(run.Completed) {
		t.Fatalf("run ended %s (%s)", got.Status, got.Error)
	}
	return rec.requests(), h, r.ID
}

// An agent that sends images sends the latest three pictures with their
// tool results, read from the artifacts folder; the run's log never holds
// their bytes.
func TestSendImagesAttachesTheLatestPictures(t *testing.T) {
	reqs, h, runID := runSnaps(t, true)
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	// The second call has the first picture.
	var first []llm.Message
	for _, m := range reqs[1].Messages {
		if m.Role == llm.RoleTool {
			first = append(first, m)
		}
	}
	if len(first) != 1 || len(first[0].Images) != 1 || first[0].Images[0].MediaType != "image/png" {
		t.Fatalf("second call's tool results %+v, want one with its picture", first)
	}
	// The last call has five results, the last three with their pictures.
	var withImages, without int
	for _, m := range reqs[5].Messages {
		if m.Role != llm.RoleTool {
			continue
		}
		if len(m.Images) == 0 {
			if withImages > 0 {
				t.Errorf("an older result has no picture after a newer one had: %+v", reqs[5].Messages)
			}
			without++
			continue
		}
		withImages++
		var name string
		if _, err := fmt.Sscanf(m.Text, "picture %s", &name); err != nil {
			t.Fatalf("result text %q", m.Text)
		}
		node := filepath.Base(name[:len(name)-len(".png")])
		if !bytes.Equal(m.Images[0].Data, picture(node)) {
			t.Errorf("result of %s carries %q, want its own picture", node, m.Images[0].Data)
		}
	}
	if withImages != 3 || without != 2 {
		t.Errorf("last call: %d results with a picture and %d without, want 3 and 2", withImages, without)
	}
	for _, ev := range h.events(t, runID) {
		if bytes.Contains(ev.Data, []byte("picture of")) || bytes.Contains(ev.Data, []byte("iVBORw0KGgo")) {
			t.Errorf("event %d (%s) holds picture bytes: %s", ev.Seq, ev.Type, ev.Data)
		}
	}
}

// By default the model reads only the text: a description and the name.
func TestNoImagesByDefault(t *testing.T) {
	reqs, _, _ := runSnaps(t, false)
	for i, req := range reqs {
		for _, m := range req.Messages {
			if len(m.Images) > 0 {
				t.Errorf("call %d sent a picture without send_images: %+v", i+1, m)
			}
		}
	}
}

// textOnly is a model server that refuses any request with images, as one
// that takes none answers 400.
type textOnly struct {
	next    llm.Provider
	refused atomic.Int64
}

func (m *textOnly) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	for _, msg := range req.Messages {
		if len(msg.Images) > 0 {
			m.refused.Add(1)
			return nil, &llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "this model does not support image input"}
		}
	}
	return m.next.Stream(ctx, req, onDelta)
}

// An agent that sends images to a model that takes none loses nothing:
// the call goes again without them, once, and the run sends no more.
func TestImagesRefusedByTheModel(t *testing.T) {
	m := &textOnly{next: scripted(t, fiveSnaps())}
	h := newHarness(t, fixed(m), snapTool{})
	h.svc = h.service(t, func(c *run.Config) { c.Artifacts = t.TempDir() })
	a := testAgent("snap")
	a.SendImages = true
	r := h.start(t, a, "take five pictures")
	if got := h.waitEnd(t, r.ID, 10*time.Second); got.Status != string(run.Completed) {
		t.Fatalf("run ended %s (%s)", got.Status, got.Error)
	}
	if n := m.refused.Load(); n != 1 {
		t.Errorf("the model was sent images %d times, want once", n)
	}
	var notes []string
	for _, ev := range h.events(t, r.ID) {
		if ev.Type == event.LLMAttempt {
			notes = append(notes, decode[event.LLMAttemptData](t, ev).Error)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "sending it again without them") || !strings.Contains(notes[0], "does not support image input") {
		t.Errorf("llm.attempt notes %q, want one saying the images were refused", notes)
	}
}

// notImages answers its first call, then refuses every request: its 400
// has nothing to do with images.
type notImages struct {
	next  llm.Provider
	calls atomic.Int64
}

func (m *notImages) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if m.calls.Add(1) == 1 {
		return m.next.Stream(ctx, req, onDelta)
	}
	return nil, &llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "context length exceeded"}
}

// A refusal that was not about the images (the call without them is
// refused too) fails the call as any refusal does.
func TestRefusalNotAboutImages(t *testing.T) {
	m := &notImages{next: scripted(t, fiveSnaps())}
	h := newHarness(t, fixed(m), snapTool{})
	h.svc = h.service(t, func(c *run.Config) { c.Artifacts = t.TempDir() })
	a := testAgent("snap")
	a.SendImages = true
	r := h.start(t, a, "take a picture")
	got := h.waitEnd(t, r.ID, 10*time.Second)
	if got.Status != string(run.Failed) || !strings.Contains(got.Error, "context length exceeded") {
		t.Fatalf("run ended %s (%s), want failed with the server's refusal", got.Status, got.Error)
	}
	if n := m.calls.Load(); n != 3 {
		t.Errorf("%d calls, want 3: the picture, the call with its image, the same call without", n)
	}
}
