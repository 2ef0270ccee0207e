// Package html writes a run's recording as one self-contained web page: the
// recording player (the app's own reducer and views, built into
// frontend/dist-player) with the run's events, the file contents its diffs
// need and its artifacts embedded as JSON, behind a Content Security Policy
// that lets the page make no request at all. The page opens offline, from a
// file, in any browser, and replays the run event by event.
package html

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"steward/backend/event"
)

// DefaultMaxVideoBytes is the largest video embedded when Options says
// none: base64 makes it a third larger in the page, and a browser holds
// the whole page in memory.
const DefaultMaxVideoBytes = 25 << 20

// Format and Version name the JSON the player reads
// (frontend/src/player/recording.ts). Version 2 puts the events in parts
// of their own (version 1 had them all in the recording element, which the
// player still reads): a page opens a long run by parsing and folding one
// part at a time, between frames, instead of in one task of seconds.
const (
	Format  = "steward-recording-html"
	Version = 2
)

// DataElementID is the id of the <script type="application/json"> element
// that holds the recording but its events. Part i of the events, a JSON
// array compressed with gzip and written in base64, is in the <script
// type="application/gzip"> element with the id DataElementID + "-events-" + i.
// Compressed, a long run's page is a seventh of the size: the browser's
// HTML parser took 400 ms in one task to read 21 MB of JSON text, and the
// page inflates a part with DecompressionStream, off the main thread.
const DataElementID = "steward-recording"

// EventsPerPart is how many events a part holds: about 1 MB of JSON, which
// a browser parses and the reducer folds in a few milliseconds.
const EventsPerPart = 5000

// CSP is the page's Content Security Policy: its own inline script and
// styles, pictures and videos from data: and blob: URLs (the player makes
// those from the embedded artifacts), and nothing else: no fetch, no
// font, no frame, no form, no <base>.
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; media-src data: blob:; base-uri 'none'; form-action 'none'"

// Data is what the player shows: the run's events and what they reference.
type Data struct {
	Manifest  any                 // the bundle manifest (recording.Manifest), shown as facts
	Events    []event.Event       // the whole log, in seq order
	Blobs     map[string][]byte   // file contents by sha256 (for diffs)
	Artifacts map[string]Artifact // by name
}

// Artifact is a file the run produced: a screenshot, the browser's video.
type Artifact struct {
	Mime string
	Data []byte
	// Size, when Data is nil, is the size of a file the caller did not read
	// (a video too large for a page): it is left out with the note.
	Size int64
}

// Options tune Write; the zero value means the defaults.
type Options struct {
	// MaxVideoBytes is the largest video (an artifact whose MIME type is
	// video/*) put in the page; a bigger one is left out with a note saying
	// how to get it. 0 means DefaultMaxVideoBytes.
	MaxVideoBytes int64
}

// ErrPlayer is returned when the player page given to Write is not one it
// can fill (not the built player, or damaged).
var ErrPlayer = errors.New("not a recording player page")

// wire is the JSON of the recording element. EventCount and EventParts
// say what the parts hold, so that a page missing one (cut short, or
// edited) is seen to be damaged.
type wire struct {
	Format     string                  `json:"format"`
	Version    int                     `json:"version"`
	Manifest   any                     `json:"manifest"`
	EventCount int                     `json:"event_count"`
	EventParts int                     `json:"event_parts"`
	Blobs      map[string][]byte       `json:"blobs"`
	Artifacts  map[string]wireArtifact `json:"artifacts"`
	Omitted    []omitted               `json:"omitted"`
}

type wireArtifact struct {
	Mime string `json:"mime"`
	Data []byte `json:"data"`
}

// omitted is an artifact left out of the page, with what to do instead.
type omitted struct {
	Name string `json:"name"`
	Mime string `json:"mime"`
	Size int64  `json:"size"`
	Note string `json:"note"`
}

// Write writes player (frontend.Player()) with d embedded in it to w. The
// data goes in a <script type="application/json" id="steward-recording">
// before </body>, followed by the events' parts, and the CSP meta tag
// first in <head>, so it rules every element after it. Each event's Data
// must be valid JSON (recording.Read checks it): it is copied as it is.
// It fails with ErrPlayer when player has no <head> or </body> to put them
// in, and when d has no events.
func Write(w io.Writer, player []byte, d Data, o Options) error {
	if len(d.Events) == 0 {
		return errors.New("write html recording: the run has no events")
	}
	head, body, err := split(player)
	if err != nil {
		return err
	}
	limit := o.MaxVideoBytes
	if limit <= 0 {
		limit = DefaultMaxVideoBytes
	}
	doc := wire{Format: Format, Version: Version, Manifest: d.Manifest, EventCount: len(d.Events),
		EventParts: (len(d.Events) + EventsPerPart - 1) / EventsPerPart,
		Blobs:      d.Blobs, Artifacts: map[string]wireArtifact{}, Omitted: []omitted{}}
	if doc.Blobs == nil {
		doc.Blobs = map[string][]byte{}
	}
	runID := d.Events[0].RunID
	// In name order: the same run gives the same page.
	for _, name := range slices.Sorted(maps.Keys(d.Artifacts)) {
		a := d.Artifacts[name]
		n := max(a.Size, int64(len(a.Data)))
		if strings.HasPrefix(a.Mime, "video/") && (n > limit || a.Data == nil) {
			doc.Omitted = append(doc.Omitted, omitted{Name: name, Mime: a.Mime, Size: n, Note: fmt.Sprintf(
				"It is %s, more than the %s a page holds: get it with `steward export %s --format video`.",
				size(n), size(limit), runID)})
			continue
		}
		doc.Artifacts[name] = wireArtifact{Mime: a.Mime, Data: a.Data}
	}

	js, err := marshal(doc)
	if err != nil {
		return fmt.Errorf("write html recording: %w", err)
	}
	// A bufio.Writer keeps its first error, writes nothing after it and
	// returns it from Flush: the writes before are not checked one by one.
	bw := bufio.NewWriterSize(w, 1<<16)
	_, _ = bw.Write(player[:head])
	_, _ = bw.WriteString("\n    <meta http-equiv=\"Content-Security-Policy\" content=\"" + CSP + "\" />")
	_, _ = bw.Write(player[head:body])
	_, _ = bw.WriteString(`<script type="application/json" id="` + DataElementID + `">`)
	_ = writeScriptSafe(bw, js)
	_, _ = bw.WriteString("</script>\n  ")
	var part []byte
	// The fastest level: it makes the page 7 times smaller where the best
	// makes it 9, in a third of the time.
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
	for i := range doc.EventParts {
		part = appendPart(part[:0], d.Events[i*EventsPerPart:min((i+1)*EventsPerPart, len(d.Events))])
		_, _ = fmt.Fprintf(bw, `<script type="application/gzip" id="%s-events-%d">`, DataElementID, i)
		// base64 holds no "<": nothing in it can end the element.
		b64 := base64.NewEncoder(base64.StdEncoding, bw)
		zw.Reset(b64)
		_, _ = zw.Write(part)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("write html recording: %w", err)
		}
		if err := b64.Close(); err != nil {
			return fmt.Errorf("write html recording: %w", err)
		}
		_, _ = bw.WriteString("</script>\n  ")
	}
	_, _ = bw.Write(player[body:])
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write html recording: %w", err)
	}
	return nil
}

// appendPart appends events to b as a JSON array of the events' wire form
// (event.Event's JSON), written by hand: encoding/json would check and
// compact every event's data again, which is most of the time an export
// of a long run takes.
func appendPart(b []byte, events []event.Event) []byte {
	b = append(b, '[')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"run_id":`...)
		b = appendString(b, e.RunID)
		b = append(b, `,"seq":`...)
		b = strconv.AppendInt(b, e.Seq, 10)
		b = append(b, `,"ts":`...)
		b = strconv.AppendInt(b, e.TS, 10)
		b = append(b, `,"type":`...)
		b = appendString(b, string(e.Type))
		if e.NodeID != "" {
			b = append(b, `,"node_id":`...)
			b = appendString(b, e.NodeID)
		}
		b = append(b, `,"data":`...)
		if len(e.Data) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, e.Data...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendString appends s as a JSON string: as it is when it holds only
// printable ASCII with nothing to escape (ids and types do), else as
// encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// split finds where the CSP goes (after <meta charset>, which must stay in
// the first 1024 bytes, or right after <head>) and where the data goes
// (before the last </body>: the player's own code, inlined in the head,
// may spell "</body>" in a string).
func split(player []byte) (head, body int, err error) {
	lower := bytes.ToLower(player)
	h := bytes.Index(lower, []byte("<head"))
	if h < 0 {
		return 0, 0, fmt.Errorf("%w: it has no <head>", ErrPlayer)
	}
	end := bytes.IndexByte(lower[h:], '>')
	if end < 0 {
		return 0, 0, fmt.Errorf("%w: its <head> is not closed", ErrPlayer)
	}
	head = h + end + 1
	if c := bytes.Index(lower[head:], []byte("<meta charset")); c >= 0 && head+c < 1024 {
		if e := bytes.IndexByte(lower[head+c:], '>'); e >= 0 {
			head += c + e + 1
		}
	}
	body = bytes.LastIndex(lower, []byte("</body>"))
	if body < head {
		return 0, 0, fmt.Errorf("%w: it has no </body>", ErrPlayer)
	}
	return head, body, nil
}

// marshal is the JSON of doc made safe inside a <script> element: every
// "<" is written \u003c, so no "</script>" can end the element and no
// "<!--" can open the tokenizer's escaped state (in which a later
// "<script" would keep the real end tag from ending it); U+2028 and U+2029
// are escaped too (encoding/json leaves them raw in a json.RawMessage, such
// as an event's data, when HTML escaping is off). HTML escaping of > and &
// is off: inside a script element they mean nothing, and code and pages in
// tool outputs are full of them.
func marshal(doc wire) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// writeScriptSafe writes JSON text js to w made safe inside a <script>
// element: "<", U+2028 and U+2029 appear only inside JSON strings, where
// their escapes mean the same. It writes js in runs between them rather
// than make the whole text again (the log of a long run is tens of MiB).
// Bytes are scanned for '<' and for 0xE2, the first byte of U+2028 and
// U+2029 in UTF-8 (bytes.IndexAny with a non-ASCII set decodes runes, five
// times slower).
func writeScriptSafe(w io.Writer, js []byte) error {
	for len(js) > 0 {
		i := 0
		for i < len(js) && js[i] != '<' && (js[i] != 0xE2 || !lineSep(js[i:])) {
			i++
		}
		if i == len(js) {
			_, err := w.Write(js)
			return err
		}
		if _, err := w.Write(js[:i]); err != nil {
			return err
		}
		esc, n := `\u003c`, 1
		if js[i] != '<' {
			r, size := utf8.DecodeRune(js[i:])
			esc, n = fmt.Sprintf(`\u%04x`, r), size
		}
		if _, err := io.WriteString(w, esc); err != nil {
			return err
		}
		js = js[i+n:]
	}
	return nil
}

// lineSep is true when b starts with U+2028 or U+2029.
func lineSep(b []byte) bool {
	return len(b) >= 3 && b[1] == 0x80 && (b[2] == 0xA8 || b[2] == 0xA9)
}

// size is a byte count for a person: 40.2 MiB.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
