package recording

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"steward/backend/event"
	"steward/backend/redact"
)

// Source is what an export reads: the lead adapts the store, the blobs and
// the artifacts folder to it.
type Source interface {
	Run(ctx context.Context, id string) (RunSummary, error)
	// Events is the run's whole log, in seq order, in a slice of the
	// caller's: Export redacts it in place rather than hold two copies.
	Events(ctx context.Context, runID string) ([]event.Event, error)
	// Blob is the content named sum. An error wrapping workspace.ErrNoBlob
	// (a content the journal did not keep) leaves it out of the recording,
	// listed in the diagnostics; any other error fails the export.
	Blob(sum string) ([]byte, error)
	// ArtifactsDir is the run's artifacts folder, "" when none are kept.
	ArtifactsDir(runID string) string
}

// ExportOptions are the choices of an export; the zero value is usable.
type ExportOptions struct {
	Steward string // version of this Steward, written in the manifest
	// Redactor removes secrets; nil means no redaction. Its Report becomes
	// the manifest's redactions, so give each export a fresh one.
	Redactor *redact.Redactor
	Now      func() time.Time // the manifest's created_at and the zip times; time.Now when nil
}

// Export writes the recording of runID to w and returns its manifest. Every
// event goes in, its data redacted; every content named by file.changed
// events, redacted (a content the redactor changed gets the name of its new
// SHA-256, and its events are rewritten to name it); every artifact
// announced by artifact.created, except the browser's loose frames.
// Pictures and videos are copied as they are, and the manifest says so.
//
// On error, what was written to w is not a recording: write to a temporary
// file and rename it when Export returns nil.
func Export(ctx context.Context, src Source, runID string, w io.Writer, o ExportOptions) (Manifest, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	fail := func(err error) (Manifest, error) { return Manifest{}, fmt.Errorf("export run %s: %w", runID, err) }
	run, err := src.Run(ctx, runID)
	if err != nil {
		return fail(err)
	}
	events, err := src.Events(ctx, runID)
	if err != nil {
		return fail(err)
	}
	if err := checkLog(runID, events); err != nil {
		return fail(err)
	}
	x := &exporter{ctx: ctx, src: src, red: scrubber{o.Redactor}, pk: newPacker()}
	m := Manifest{
		Format: Format, Version: Version, Steward: o.Steward, CreatedAt: o.Now().UnixMilli(),
		Diagnostics: Diagnostics{
			OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
			Events: len(events), FirstSeq: events[0].Seq, LastSeq: events[len(events)-1].Seq,
		},
	}
	if err := x.learn(events); err != nil {
		return fail(err)
	}
	changes := fileChanges(events) // as recorded: blobs reads the sums the run saw
	created := events[0]           // as recorded: the agent snapshot is redacted on its own
	out, err := x.redactEvents(events)
	if err != nil {
		return fail(err)
	}
	blobs, err := x.blobs(changes, out, &m.Diagnostics)
	if err != nil {
		return fail(err)
	}
	evs, err := x.eventsEntry(out)
	if err != nil {
		return fail(err)
	}
	budget, err := room(len(events), evs, blobs)
	if err != nil {
		return fail(err)
	}
	arts, closeArts, err := x.artifacts(src.ArtifactsDir(runID), out, budget, &m.Diagnostics)
	if err != nil {
		return fail(err)
	}
	defer closeArts()
	m.Diagnostics.Blobs, m.Diagnostics.Artifacts = len(blobs), len(arts)

	run.ID, run.Events = runID, len(events) // the log is the truth
	run.Instructions = x.red.str("manifest run instructions", run.Instructions)
	run.Workspace = x.red.str("manifest run workspace", run.Workspace)
	m.Run = run
	m.Agent = x.agent(created)
	entries := append(append([]*entry{evs}, blobs...), arts...)
	for _, e := range entries {
		m.Parts = append(m.Parts, e.part())
	}
	m.Redactions = x.red.report() // last: after every call to the redactor

	man, err := marshalManifest(m)
	if err != nil {
		return fail(err)
	}
	me, err := x.pk.memory(manifestName, man, true)
	if err != nil {
		return fail(err)
	}
	zw := zip.NewWriter(w)
	mod := time.UnixMilli(m.CreatedAt)
	for _, e := range append([]*entry{me}, entries...) {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if err := x.pk.write(zw, e, mod); err != nil {
			return fail(err)
		}
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	return m, nil
}

// checkLog refuses to export a log that Read would refuse.
func checkLog(runID string, events []event.Event) error {
	if len(events) == 0 {
		return fmt.Errorf("the run has no events")
	}
	if events[0].Type != event.RunCreated {
		return fmt.Errorf("the first event is %s, not %s", events[0].Type, event.RunCreated)
	}
	for i, e := range events {
		if e.Seq != int64(i+1) {
			return fmt.Errorf("event %d has seq %d: the log is not dense from 1", i+1, e.Seq)
		}
		if e.RunID != runID {
			return fmt.Errorf("event %d belongs to run %s", e.Seq, e.RunID)
		}
		if d := bytes.TrimSpace(e.Data); len(d) == 0 || d[0] != '{' {
			return fmt.Errorf("event %d %s: its data is not a JSON object", e.Seq, e.Type)
		}
	}
	return nil
}

// room checks that the log and the blobs fit in what Read accepts, and
// returns the bytes left for artifacts, which are left out when they do
// not fit: a recording that Steward itself refuses to read helps no one.
func room(events int, evs *entry, blobs []*entry) (int64, error) {
	l := DefaultLimits()
	switch {
	case events > l.MaxEvents:
		return 0, fmt.Errorf("%d events, more than the %d a recording may hold", events, l.MaxEvents)
	case evs.size > l.MaxEntryBytes:
		return 0, fmt.Errorf("%s would be %s, more than the %s a part may hold", eventsName, sizeText(evs.size), sizeText(l.MaxEntryBytes))
	case 1+len(blobs) >= l.MaxEntries:
		return 0, fmt.Errorf("%d blobs, more than a recording may hold", len(blobs))
	}
	left := l.MaxTotalBytes - evs.size
	for _, b := range blobs {
		if b.size > l.MaxEntryBytes {
			return 0, fmt.Errorf("%s is %s, more than the %s a part may hold", b.name, sizeText(b.size), sizeText(l.MaxEntryBytes))
		}
		left -= b.size
	}
	if left < 0 {
		return 0, fmt.Errorf("the log and the file contents would be more than the %s a recording may hold", sizeText(l.MaxTotalBytes))
	}
	return left, nil
}

type exporter struct {
	ctx context.Context // of the one Export call that made it
	src Source
	red scrubber
	pk  *packer
	// read holds the file contents the learning pass read, for the blobs
	// entry to take instead of reading them again.
	read map[string][]byte
}

// blob returns a file content: the one the learning pass read, or from the
// source.
func (x *exporter) blob(sum string) ([]byte, error) {
	if b, ok := x.read[sum]; ok {
		delete(x.read, sum)
		return b, nil
	}
	return x.src.Blob(sum)
}

// redactEvents redacts the data of events in place (the log is the
// export's own copy, read for it: one copy of a long log is enough) and
// returns it.
func (x *exporter) redactEvents(events []event.Event) ([]event.Event, error) {
	if x.red.r == nil {
		return events, nil
	}
	x.redactDeltas(events)
	for i := range events {
		if i%1024 == 0 {
			if err := x.ctx.Err(); err != nil {
				return nil, err
			}
		}
		e := &events[i]
		e.Data = x.red.json(fmt.Sprintf("event %d %s", e.Seq, e.Type), e.Data)
	}
	return events, nil
}

// change is a file.changed event as recorded, at index i of the log.
type change struct {
	i  int
	ev event.Event
}

// fileChanges are the file.changed events of events, copied before they
// are redacted.
func fileChanges(events []event.Event) []change {
	var out []change
	for i, e := range events {
		if e.Type == event.FileChanged {
			out = append(out, change{i, e})
		}
	}
	return out
}

// learn runs the redactor over the whole log and the file contents it
// names first, and makes the export's redactor remove what that found
// everywhere: a secret a command printed as an assignment is then also
// removed from the command line, where nothing marks it as one.
func (x *exporter) learn(events []event.Event) error {
	if x.red.r == nil {
		return nil
	}
	probe := x.red.r.Learning()
	x.read = map[string][]byte{}
	for i, e := range events {
		if i%1024 == 0 {
			if err := x.ctx.Err(); err != nil {
				return err
			}
		}
		probe.JSON("", e.Data)
		if e.Type != event.FileChanged {
			continue
		}
		var d event.FileChangedData
		if e.Decode(&d) != nil {
			continue
		}
		for _, sum := range []string{d.Before, d.After} {
			if _, seen := x.read[sum]; sum == "" || seen {
				continue
			}
			if b, err := x.src.Blob(sum); err == nil {
				x.read[sum] = b
				probe.Bytes("", b)
			}
		}
	}
	if learned := probe.Learned(); len(learned) > 0 {
		x.red.r = x.red.r.WithLearned(learned)
	}
	return nil
}

// redactDeltas redacts the streamed text of each model call as one text:
// a secret streamed over several llm.delta events is whole in none of
// them.
func (x *exporter) redactDeltas(events []event.Event) {
	byNode := map[string][]int{}
	var order []string
	for i, e := range events {
		if e.Type != event.LLMDelta {
			continue
		}
		if byNode[e.NodeID] == nil {
			order = append(order, e.NodeID)
		}
		byNode[e.NodeID] = append(byNode[e.NodeID], i)
	}
	for _, node := range order {
		idx := byNode[node]
		pieces := make([]string, len(idx))
		for j, i := range idx {
			var d event.LLMDeltaData
			_ = events[i].Decode(&d)
			pieces[j] = d.Text
		}
		red := x.red.r.Pieces("llm.delta of node "+node, pieces)
		for j, i := range idx {
			if red[j] != pieces[j] {
				b, _ := json.Marshal(event.LLMDeltaData{Text: red[j]})
				events[i].Data = b
			}
		}
	}
}

// eventsEntry is events.jsonl: one event a line, as the API sends them,
// compressed as it is encoded.
func (x *exporter) eventsEntry(events []event.Event) (*entry, error) {
	return x.pk.encoded(eventsName, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // a person reads the log: keep <, > and & as they are
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				return fmt.Errorf("event %d: %w", e.Seq, err)
			}
		}
		return nil
	})
}

// agent is the manifest's agent snapshot: run.created's spec, or its agent
// reference for a run started without one.
func (x *exporter) agent(created event.Event) json.RawMessage {
	var d event.RunCreatedData
	if err := created.Decode(&d); err != nil {
		return nil // checkLog saw a run.created; a payload it cannot read has no snapshot to give
	}
	raw := d.Spec
	if len(raw) == 0 {
		raw, _ = json.Marshal(d.Agent) // a struct of strings: cannot fail
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil
	}
	return x.red.json("manifest agent", compact.Bytes())
}

func marshalManifest(m Manifest) ([]byte, error) {
	if m.Redactions == nil {
		m.Redactions = []redact.Finding{} // [] in the file, never null
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ") // people open the manifest to see what a recording holds
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return buf.Bytes(), nil
}

// scrubber is the redactor, or nothing when the caller gave none.
type scrubber struct{ r *redact.Redactor }

func (s scrubber) json(where string, raw json.RawMessage) json.RawMessage {
	if s.r == nil {
		return raw
	}
	return s.r.JSON(where, raw)
}

func (s scrubber) str(where, v string) string {
	if s.r == nil || v == "" {
		return v
	}
	return s.r.String(where, v)
}

func (s scrubber) bytes(where string, b []byte) []byte {
	if s.r == nil {
		return b
	}
	return s.r.Bytes(where, b)
}

func (s scrubber) report() []redact.Finding {
	if s.r == nil {
		return []redact.Finding{}
	}
	return s.r.Report()
}
