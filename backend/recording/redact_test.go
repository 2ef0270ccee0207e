package recording_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/recording"
	"steward/backend/redact"
)

// TestExportRedacts plants a configured secret and a key-shaped one in every
// place a run holds text, and checks that no byte of the recording keeps
// them, that it still reads back (a redacted blob is renamed to its new
// checksum and its events follow), and that the manifest says what was
// removed.
func TestExportRedacts(t *testing.T) {
	t.Parallel()
	const configured = "canary-configured-7f3a9c1e5b"
	const shaped = "sk-proj-CANARYaaaaBBBBccccDDDDeeee1234"
	src := script("r1", 200, 4)
	var created event.RunCreatedData
	if err := src.events[0].Decode(&created); err != nil {
		t.Fatal(err)
	}
	created.Instructions = "use the key " + configured
	created.Spec = json.RawMessage(`{"name":"coder","env":{"OPENAI_API_KEY":"` + shaped + `"}}`)
	src.events[0] = reencode(src.events[0], created)
	src.run.Instructions = created.Instructions
	src.events[4] = reencode(src.events[4], event.LLMDeltaData{Text: "the token is " + configured + " and OPENAI_API_KEY=" + shaped})

	// A file the run wrote holds the secret; so does a binary one.
	var change int
	for i, e := range src.events {
		if e.Type == event.FileChanged {
			change = i
			break
		}
	}
	var d event.FileChangedData
	if err := src.events[change].Decode(&d); err != nil {
		t.Fatal(err)
	}
	text := append(bytes.Clone(src.blobs[d.After]), "\nconst key = \""+configured+"\"\n"...)
	binary := append([]byte{0, 1, 2, 0}, configured...)
	d.After, d.Before, d.Size = sum(text), sum(binary), int64(len(text))
	src.blobs[d.After], src.blobs[d.Before] = text, binary
	src.events[change] = reencode(src.events[change], d)

	data, m := export(t, src, recording.ExportOptions{Redactor: redact.New(configured)})
	b := read(t, data)
	for name, body := range everything(t, b, data) {
		for _, secret := range []string{configured, shaped} {
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("%s holds the secret %s", name, secret)
			}
		}
	}
	var got event.FileChangedData
	if err := b.Events[change].Decode(&got); err != nil {
		t.Fatal(err)
	}
	redacted, ok := b.Blobs[got.After]
	switch {
	case got.After == d.After || got.Before == d.Before:
		t.Errorf("the change still names the contents that held the secret: %+v", got)
	case !ok || !bytes.Contains(redacted, []byte("[REDACTED:configured]")):
		t.Errorf("blob %s: %q", got.After, redacted)
	case got.Size != int64(len(redacted)):
		t.Errorf("size %d, the blob has %d bytes", got.Size, len(redacted))
	}
	if len(b.Blobs[got.Before]) != len(binary) {
		t.Errorf("the binary blob changed size: %q", b.Blobs[got.Before])
	}
	wheres := map[string]bool{}
	for _, f := range m.Redactions {
		wheres[f.Where] = true
	}
	for _, w := range []string{"event 1 run.created", "llm.delta of node n1", "manifest agent", "manifest run instructions"} {
		if !wheres[w] {
			t.Errorf("redactions %+v do not say %q", m.Redactions, w)
		}
	}
}

func reencode(e event.Event, data any) event.Event {
	e.Data, _ = json.Marshal(data)
	return e
}

// everything is every byte a reader of the recording can see: each entry
// decompressed, plus the file as it is.
func everything(t *testing.T, b *recording.Bundle, data []byte) map[string][]byte {
	out := map[string][]byte{"the file": data}
	for _, e := range unpack(t, data) {
		out[e.name] = e.body
	}
	for _, name := range b.Artifacts {
		rc, err := b.OpenArtifact(name)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out["artifact "+name] = body
	}
	return out
}

func TestArtifactsStayInside(t *testing.T) {
	t.Parallel()
	src := script("r1", 100, 2)
	withArtifacts(t, src)
	data, _ := export(t, src, recording.ExportOptions{})
	b := read(t, data)
	if _, err := b.OpenArtifact("../../etc/passwd"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open an unknown artifact: %v", err)
	}
	// A link in the target folder that leads out must not be followed.
	out, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(out, "shots")); err != nil {
		t.Skip("this file system cannot make symbolic links, so there is no link to refuse:", err)
	}
	err := b.WriteArtifacts(out)
	if err == nil {
		t.Fatal("wrote through a link that leads out of the folder")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("wrote %s outside the folder", entries[0].Name())
	}
	if !strings.Contains(err.Error(), "shots/n2.png") {
		t.Errorf("error %q does not name the artifact", err)
	}
}

// A key streamed over several llm.delta events is whole in none of them;
// joined, they must not give it back.
func TestExportRedactsStreamedKey(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-StreamedKey0123456789abcdefXYZ"
	src := script("r1", 200, 0)
	pieces := []string{"the key is " + key[:10], key[10:25], key[25:] + ", keep it"}
	n := 0
	for i, e := range src.events {
		if e.Type == event.LLMDelta && e.NodeID == "n1" && n < len(pieces) {
			src.events[i] = reencode(e, event.LLMDeltaData{Text: pieces[n]})
			n++
		}
	}
	var buf bytes.Buffer
	if _, err := recording.Export(t.Context(), src, "r1", &buf, recording.ExportOptions{Redactor: redact.New(), Steward: "test"}); err != nil {
		t.Fatal(err)
	}
	b, err := recording.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), recording.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var joined strings.Builder
	for _, e := range b.Events {
		var d event.LLMDeltaData
		if e.Type == event.LLMDelta && e.NodeID == "n1" && e.Decode(&d) == nil {
			joined.WriteString(d.Text)
		}
	}
	if got := joined.String(); strings.Contains(got, "StreamedKey") || !strings.Contains(got, "[REDACTED:api_key], keep it") {
		t.Errorf("the deltas joined read %q", got)
	}
}
