package html

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
)

const runID = "run_rec1"

// The texts the browser test looks for.
const (
	firstText = "I will write hello.txt, then look at the page."
	finalText = "Done: hello.txt now greets the world."
)

// syntheticRun is a finished run as the engine records one: a model call
// asking for two tools, a file written (with both contents as blobs), an
// approval, a screenshot, and a last model answer.
func syntheticRun(t *testing.T) Data {
	t.Helper()
	before, after := []byte("hello\n"), []byte("hello, world\n")
	sumA, sumB := sum(before), sum(after)
	shot := pngImage(t)
	var evs []event.Event
	ts := int64(1_767_000_000_000)
	add := func(typ event.Type, node string, data any) {
		e := event.New(runID, typ, node, data)
		e.Seq = int64(len(evs) + 1)
		ts += 700
		e.TS = ts
		evs = append(evs, e)
	}
	args := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	writeArgs := args(map[string]string{"path": "hello.txt", "content": "hello, world\n"})
	shotArgs := args(map[string]any{})
	add(event.RunCreated, "", event.RunCreatedData{
		Agent:        event.AgentRef{ID: "ag_1", Name: "Researcher", Provider: "openai", Model: "gpt-test"},
		Instructions: "Write hello.txt that greets the world, then take a screenshot of the page.",
		Workspace:    "/home/me/project", Mode: "edits", MaxSteps: 20,
	})
	add(event.RunStatus, "", event.RunStatusData{Status: "running"})
	add(event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "Researcher"})
	add(event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions",
		Text: "Write hello.txt that greets the world, then take a screenshot of the page."})
	add(event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n2"}, Label: "model call 1", Step: 1, Model: "gpt-test"})
	add(event.LLMDelta, "n3", event.LLMDeltaData{Text: "I will write hello.txt, "})
	add(event.LLMDelta, "n3", event.LLMDeltaData{Text: "then look at the page."})
	add(event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeSucceeded, Text: firstText, DurationMS: 900,
		ToolCalls: []event.ToolCall{{ID: "c1", Name: "write_file", Arguments: writeArgs}, {ID: "c2", Name: "browser_screenshot", Arguments: shotArgs}},
		Usage:     &event.Usage{InputTokens: 1200, OutputTokens: 80}, CostUSD: 0.0042})
	add(event.NodeStarted, "n4", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", After: []string{"n3"}, Label: "write_file",
		Tool: "write_file", CallID: "c1", Arguments: writeArgs, Risk: "write"})
	add(event.PolicyDecided, "n4", event.PolicyDecidedData{Effect: "ask", Reason: "writes ask in this mode"})
	add(event.ApprovalRequested, "n4", event.ApprovalRequestedData{InteractionID: "ia_1", Tool: "write_file", Arguments: writeArgs, Risk: "write", Reason: "writes ask in this mode"})
	add(event.ApprovalDecided, "n4", event.ApprovalDecidedData{InteractionID: "ia_1", Decision: event.DecisionApprove, Source: "web"})
	add(event.ToolExecuting, "n4", event.ToolExecutingData{})
	add(event.FileChanged, "n4", event.FileChangedData{Path: "hello.txt", Before: sumA, After: sumB, Size: int64(len(after)), Source: event.FileByTool, Op: "n4"})
	add(event.NodeFinished, "n4", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "wrote hello.txt (13 bytes)", DurationMS: 12})
	add(event.NodeStarted, "n5", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", After: []string{"n3"}, Label: "browser_screenshot",
		Tool: "browser_screenshot", CallID: "c2", Arguments: shotArgs, Risk: "read"})
	add(event.PolicyDecided, "n5", event.PolicyDecidedData{Effect: "allow", Reason: "read tools run"})
	add(event.ToolExecuting, "n5", event.ToolExecutingData{})
	add(event.ArtifactCreated, "n5", event.ArtifactCreatedData{Name: "shot-1.png", Kind: "screenshot", Mime: "image/png", Size: int64(len(shot)), Description: "The example page"})
	add(event.NodeFinished, "n5", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "Page: \"Example Domain\"\nURL: https://example.com/\nscreenshot saved as shot-1.png", DurationMS: 340})
	add(event.NodeStarted, "n6", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n4", "n5"}, Label: "model call 2", Step: 2, Model: "gpt-test"})
	add(event.NodeFinished, "n6", event.NodeFinishedData{Status: event.NodeSucceeded, Text: finalText, DurationMS: 600,
		Usage: &event.Usage{InputTokens: 1500, OutputTokens: 20}, CostUSD: 0.0031})
	add(event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded, DurationMS: 4000})
	// The browser's video, made as the run ended (not a real MP4: the
	// browser test leaves it out of the page).
	video := bytes.Repeat([]byte("not really an mp4 "), 256)
	add(event.ArtifactCreated, "", event.ArtifactCreatedData{Name: "browser.mp4", Kind: "video", Mime: "video/mp4", Size: int64(len(video))})
	add(event.RunStatus, "", event.RunStatusData{Status: "completed"})

	return Data{
		Manifest: map[string]any{
			"format": "steward-recording", "version": 1, "steward": "v0.9.0-test", "created_at": ts + 60_000,
			"run": map[string]any{"id": runID, "status": "completed", "agent_name": "Researcher", "provider": "openai", "model": "gpt-test"},
		},
		Events:    evs,
		Blobs:     map[string][]byte{sumA: before, sumB: after},
		Artifacts: map[string]Artifact{"shot-1.png": {Mime: "image/png", Data: shot}, "browser.mp4": {Mime: "video/mp4", Data: video}},
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// pngImage is a small screenshot: a page with a header bar and a block.
func pngImage(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := range 200 {
		for x := range 320 {
			c := color.RGBA{250, 250, 252, 255}
			switch {
			case y < 36:
				c = color.RGBA{37, 99, 235, 255}
			case x > 40 && x < 280 && y > 70 && y < 150:
				c = color.RGBA{226, 232, 240, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A stand-in for the built player: the shape Write fills.
const fakePlayer = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>Steward recording</title>
    <script type="module">const s = "</body>";</script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`

var (
	dataRE  = regexp.MustCompile(`(?s)<script type="application/json" id="steward-recording">(.*?)</script>`)
	partsRE = regexp.MustCompile(`(?s)<script type="application/gzip" id="steward-recording-events-(\d+)">([A-Za-z0-9+/=]*)</script>`)
)

// page is what Write put in a page: the recording element and the events
// of its parts, in order.
type embeddedPage struct {
	wire
	Events []event.Event
}

// embedded reads back the JSON Write put in a page.
func embedded(t *testing.T, doc string) embeddedPage {
	t.Helper()
	m := dataRE.FindAllStringSubmatch(doc, -1)
	if len(m) != 1 {
		t.Fatalf("found %d recording elements, want 1", len(m))
	}
	var p embeddedPage
	if err := json.Unmarshal([]byte(m[0][1]), &p.wire); err != nil {
		t.Fatalf("the embedded recording does not parse: %v", err)
	}
	parts := partsRE.FindAllStringSubmatch(doc, -1)
	if len(parts) != p.EventParts {
		t.Fatalf("found %d parts of events, the recording says %d", len(parts), p.EventParts)
	}
	for i, part := range parts {
		if part[1] != strconv.Itoa(i) {
			t.Fatalf("part %d is numbered %s", i, part[1])
		}
		var evs []event.Event
		zr, err := gzip.NewReader(base64.NewDecoder(base64.StdEncoding, strings.NewReader(part[2])))
		if err != nil {
			t.Fatalf("part %d is not gzip in base64: %v", i, err)
		}
		js, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("part %d does not inflate: %v", i, err)
		}
		if !json.Valid(js) {
			t.Fatalf("part %d is not JSON: %.200s", i, js)
		}
		if err := json.Unmarshal(js, &evs); err != nil {
			t.Fatalf("part %d does not parse: %v", i, err)
		}
		if len(evs) == 0 || len(evs) > EventsPerPart {
			t.Errorf("part %d holds %d events", i, len(evs))
		}
		p.Events = append(p.Events, evs...)
	}
	if len(p.Events) != p.EventCount {
		t.Fatalf("the parts hold %d events, the recording says %d", len(p.Events), p.EventCount)
	}
	return p
}

func TestWriteEmbedsTheRecordingSafely(t *testing.T) {
	t.Parallel()
	d := syntheticRun(t)
	// Text that would end the script element, open an escaped section, or
	// break a JavaScript string, in a tool's output.
	nasty := "</script><script>alert(1)</script> <!-- <script> \u2028\u2029 & > done"
	e := event.New(runID, event.LLMDelta, "n6", event.LLMDeltaData{Text: nasty})
	e.Seq, e.TS = int64(len(d.Events)+1), d.Events[len(d.Events)-1].TS+1
	d.Events = append(d.Events, e)

	var buf bytes.Buffer
	if err := Write(&buf, []byte(fakePlayer), d, Options{}); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()

	// Each element ends only where Write ended it: before the next part or
	// </body>, and holds no raw "<", U+2028 or U+2029.
	const open = `<script type="application/`
	elements := 0
	for rest := doc; ; {
		start := strings.Index(rest, open)
		if start < 0 {
			break
		}
		elements++
		body := rest[start+strings.Index(rest[start:], ">")+1:]
		end := strings.Index(body, "</script>")
		if after := body[end:]; !strings.HasPrefix(after, "</script>\n  "+open) && !strings.HasPrefix(after, "</script>\n  </body>") {
			t.Fatalf("a recording element ends early, at %q", after[:min(len(after), 40)])
		}
		for _, bad := range []string{"<", "\u2028", "\u2029"} {
			if strings.Contains(body[:end], bad) {
				t.Errorf("an embedded JSON element holds a raw %q", bad)
			}
		}
		rest = body[end:]
	}
	if elements != 2 {
		t.Errorf("found %d recording elements, want the recording and one part", elements)
	}

	w := embedded(t, doc)
	if w.Format != Format || w.Version != Version {
		t.Errorf("format %q version %d, want %q %d", w.Format, w.Version, Format, Version)
	}
	if diff := cmp.Diff(d.Events, w.Events, cmp.Comparer(sameJSON)); diff != "" {
		t.Errorf("events changed on the way (-want +got):\n%s", diff)
	}
	var last event.LLMDeltaData
	if err := w.Events[len(w.Events)-1].Decode(&last); err != nil || last.Text != nasty {
		t.Errorf("the nasty text came back as %q (%v)", last.Text, err)
	}
	if diff := cmp.Diff(d.Blobs, w.Blobs); diff != "" {
		t.Errorf("blobs changed (-want +got):\n%s", diff)
	}
	if got := w.Artifacts["shot-1.png"]; got.Mime != "image/png" || !bytes.Equal(got.Data, d.Artifacts["shot-1.png"].Data) {
		t.Errorf("the screenshot came back as %s, %d bytes", got.Mime, len(got.Data))
	}

	// The policy comes first in <head>, right after the charset.
	csp := `<meta charset="UTF-8" />` + "\n    " + `<meta http-equiv="Content-Security-Policy" content="` + CSP + `" />`
	if !strings.Contains(doc, csp) {
		t.Errorf("the page has no CSP meta tag after its charset:\n%s", doc[:min(len(doc), 400)])
	}
}

// TestWriteSplitsALongLog writes a log of more events than a part holds:
// they come back whole and in order from parts of EventsPerPart, the last
// one shorter, and an id or type that needs escaping is escaped.
func TestWriteSplitsALongLog(t *testing.T) {
	t.Parallel()
	d := syntheticRun(t)
	last := d.Events[len(d.Events)-1]
	for len(d.Events) < 2*EventsPerPart+7 {
		e := event.New(runID, event.LLMDelta, "n\"6\u00e9", event.LLMDeltaData{Text: fmt.Sprint("delta ", len(d.Events))})
		e.Seq, e.TS = last.Seq+int64(len(d.Events)), last.TS
		d.Events = append(d.Events, e)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []byte(fakePlayer), d, Options{}); err != nil {
		t.Fatal(err)
	}
	w := embedded(t, buf.String())
	if w.EventParts != 3 || w.EventCount != len(d.Events) {
		t.Errorf("%d events in %d parts, want %d in 3", w.EventCount, w.EventParts, len(d.Events))
	}
	if diff := cmp.Diff(d.Events, w.Events, cmp.Comparer(sameJSON)); diff != "" {
		t.Errorf("events changed on the way (-want +got):\n%s", diff)
	}
}

// sameJSON compares two JSON texts by value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(x, y)
}

func TestWriteLeavesOutABigVideo(t *testing.T) {
	t.Parallel()
	video := bytes.Repeat([]byte{0x42}, 2048)
	tests := []struct {
		name    string
		max     int64
		kept    bool
		noteHas string
	}{
		{name: "default limit keeps a small video", max: 0, kept: true},
		{name: "under the limit", max: 4096, kept: true},
		{name: "over the limit", max: 1024, kept: false, noteHas: "steward export " + runID + " --format video"},
		{name: "not read: only its size", max: 1024, kept: false, noteHas: "2.0 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := syntheticRun(t)
			d.Artifacts["browser.mp4"] = Artifact{Mime: "video/mp4", Data: video}
			if strings.HasPrefix(tt.name, "not read") {
				d.Artifacts["browser.mp4"] = Artifact{Mime: "video/mp4", Size: int64(len(video))}
			}
			var buf bytes.Buffer
			if err := Write(&buf, []byte(fakePlayer), d, Options{MaxVideoBytes: tt.max}); err != nil {
				t.Fatal(err)
			}
			w := embedded(t, buf.String())
			_, kept := w.Artifacts["browser.mp4"]
			if kept != tt.kept {
				t.Fatalf("video kept = %v, want %v", kept, tt.kept)
			}
			if _, ok := w.Artifacts["shot-1.png"]; !ok {
				t.Error("the screenshot was left out with the video")
			}
			if tt.kept {
				if len(w.Omitted) != 0 {
					t.Errorf("omitted = %+v, want none", w.Omitted)
				}
				return
			}
			if len(w.Omitted) != 1 || w.Omitted[0].Name != "browser.mp4" || w.Omitted[0].Size != int64(len(video)) ||
				!strings.Contains(w.Omitted[0].Note, tt.noteHas) {
				t.Errorf("omitted = %+v, want browser.mp4 with a note naming %q", w.Omitted, tt.noteHas)
			}
		})
	}
}

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	d := syntheticRun(t)
	tests := []struct {
		name   string
		player string
		data   Data
		isErr  error
	}{
		{name: "no head", player: "<html><body></body></html>", data: d, isErr: ErrPlayer},
		{name: "no body end", player: "<html><head></head><body>", data: d, isErr: ErrPlayer},
		{name: "no events", player: fakePlayer, data: Data{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			err := Write(&buf, []byte(tt.player), tt.data, Options{})
			if err == nil {
				t.Fatal("Write succeeded")
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("err = %v, want %v", err, tt.isErr)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}
