// Package video records a browser's screencast and turns it into a short
// video of what the agent did.
//
// A Recorder stores every frame as a JPEG file in its directory and appends
// one JSON line per frame and per action boundary to frames.jsonl, so a
// recording survives a restart (Open). A frame's file is written before its
// index line, so every indexed frame has a complete file; a crash can at
// worst leave a truncated last line, which Open drops.
//
// Encode keeps only the time around actions (Windows) and cuts the idle gaps
// between them, when the model was thinking and the page sat still.
package video

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	// Before is kept before each action, so the video shows the page the
	// action started from.
	Before = 750 * time.Millisecond
	// After is kept after each action, long enough for the page to react
	// (navigation, re-render) and for a viewer to see the result.
	After = 1500 * time.Millisecond
)

// indexName is the append-only index in a frames directory.
const indexName = "frames.jsonl"

type frame struct {
	ts   time.Time
	file string // base name in the recorder's dir
	node string
}

type action struct {
	node  string
	begin time.Time
	end   time.Time // zero while the action is open
}

// record is one line of frames.jsonl: a frame ({"ts","file","node"}), an
// action start ({"begin","node"}) or an action end ({"end","node"}). Times
// are Unix milliseconds; pointers tell "absent" from the epoch.
type record struct {
	TS    *int64 `json:"ts,omitempty"`
	File  string `json:"file,omitempty"`
	Node  string `json:"node,omitempty"`
	Begin *int64 `json:"begin,omitempty"`
	End   *int64 `json:"end,omitempty"`
}

// Recorder stores a run's screencast frames and action boundaries. It is
// safe for concurrent use.
type Recorder struct {
	dir string

	mu         sync.Mutex
	seq        int // next frame number, for file names
	frames     []frame
	actions    []action
	open       map[string]int // node -> index in actions of its open action
	latest     []byte         // the newest frame's bytes, for Latest without a disk read
	latestTS   time.Time      // the newest frame's time
	latestFile string
	err        error // a failed index write of Begin or End, reported by the next Frame
}

// NewRecorder returns a Recorder that stores frames in dir, creating it
// (folders 0700, files 0600: the frames show whatever the pages did). If
// dir already holds a recording, NewRecorder continues it as Open does, so
// nothing recorded before a restart is lost.
func NewRecorder(dir string) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create frames dir: %w", err)
	}
	_, err := os.Stat(filepath.Join(dir, indexName))
	if err == nil {
		return Open(dir)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("frames index: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, indexName), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create frames index: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create frames index: %w", err)
	}
	return &Recorder{dir: dir, open: map[string]int{}}, nil
}

// Open reopens a frames directory written by a Recorder, typically to encode
// it after a restart. Actions left open by a crash are closed at the newest
// frame, so the video does not show a stale page across the downtime; Open
// records those ends in the index, so it must not be used on a directory a
// live Recorder is still writing. The error wraps fs.ErrNotExist when dir
// holds no index.
func Open(dir string) (*Recorder, error) {
	r := &Recorder{dir: dir, open: map[string]int{}}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Recorder) load() error {
	path := filepath.Join(r.dir, indexName)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read frames index: %w", err)
	}
	cut := bytes.LastIndexByte(data, '\n') + 1
	for i, line := range bytes.Split(data[:cut], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("frames index line %d: %w", i+1, err)
		}
		if err := r.apply(rec); err != nil {
			return fmt.Errorf("frames index line %d: %w", i+1, err)
		}
	}
	if tail := data[cut:]; len(tail) > 0 {
		// A crash mid-write leaves a last line without its newline. Keep it
		// if it is whole, else drop it from the file too: the next append
		// would be glued onto it.
		var rec record
		if json.Unmarshal(tail, &rec) == nil && r.apply(rec) == nil {
			err = appendFile(path, []byte{'\n'})
		} else {
			err = os.Truncate(path, int64(cut))
		}
		if err != nil {
			return fmt.Errorf("repair frames index: %w", err)
		}
	}
	// Close what a crash left open; recording them keeps a later Open identical.
	newest := r.newest()
	var recs []record
	for _, a := range r.actions {
		if a.end.IsZero() {
			end := later(a.begin, newest)
			r.end(a.node, end)
			recs = append(recs, record{End: ptr(end.UnixMilli()), Node: a.node})
		}
	}
	if err := r.appendIndex(recs...); err != nil {
		return err
	}
	if r.latestFile != "" {
		b, err := os.ReadFile(filepath.Join(r.dir, r.latestFile))
		if err != nil {
			return fmt.Errorf("read newest frame: %w", err)
		}
		r.latest = b
	}
	return nil
}

// apply replays one index record into memory.
func (r *Recorder) apply(rec record) error {
	switch {
	case rec.File != "":
		if rec.TS == nil {
			return errors.New("frame record without ts")
		}
		if !validName(rec.File) {
			return fmt.Errorf("bad frame file name %q", rec.File)
		}
		f := frame{ts: time.UnixMilli(*rec.TS), file: rec.File, node: rec.Node}
		r.frames = append(r.frames, f)
		r.seq++
		if !f.ts.Before(r.latestTS) {
			r.latestTS, r.latestFile = f.ts, f.file // load reads the bytes once at the end
		}
	case rec.Begin != nil:
		r.begin(rec.Node, time.UnixMilli(*rec.Begin))
	case rec.End != nil:
		r.end(rec.Node, time.UnixMilli(*rec.End))
	default:
		return errors.New("unknown record")
	}
	return nil
}

// validName accepts the plain file names the Recorder writes, and refuses
// anything that could point outside dir or break the ffmpeg concat list's
// quoting.
func validName(name string) bool {
	return name == filepath.Base(name) && name != "." && name != ".." &&
		!strings.ContainsAny(name, `/\'`+"\n\r")
}

// Frame stores one screencast frame captured at ts, tied to the node whose
// action is open at ts (the latest begun, if several). It returns an error
// wrapping ErrInvalidFrame for a zero ts or bytes that are not a JPEG, and
// reports once a failed index write from an earlier Begin or End (the frame
// itself is then stored).
func (r *Recorder) Frame(ts time.Time, jpeg []byte) error {
	switch {
	case ts.IsZero():
		return fmt.Errorf("%w: zero timestamp", ErrInvalidFrame)
	case len(jpeg) == 0:
		return fmt.Errorf("%w: empty image", ErrInvalidFrame)
	case len(jpeg) < 3 || jpeg[0] != 0xFF || jpeg[1] != 0xD8 || jpeg[2] != 0xFF:
		return fmt.Errorf("%w: not a JPEG (starts with % x)", ErrInvalidFrame, jpeg[:min(len(jpeg), 4)])
	}
	ts = ms(ts)
	r.mu.Lock()
	seq := r.seq
	r.seq++
	r.mu.Unlock()

	// Write the file outside the lock so Latest (a live thumbnail) never
	// waits on the disk.
	name := fmt.Sprintf("%06d-%d.jpg", seq, ts.UnixMilli())
	img := bytes.Clone(jpeg) // the caller may reuse its buffer
	if err := os.WriteFile(filepath.Join(r.dir, name), img, 0o600); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	f := frame{ts: ts, file: name, node: r.nodeAt(ts)}
	if err := r.appendIndex(record{TS: ptr(ts.UnixMilli()), File: name, Node: f.node}); err != nil {
		return err
	}
	r.frames = append(r.frames, f)
	if r.latest == nil || !ts.Before(r.latestTS) {
		r.latest, r.latestTS, r.latestFile = img, ts, name
	}
	if err := r.err; err != nil {
		r.err = nil
		return err
	}
	return nil
}

// nodeAt is the node of the latest begun action open at ts.
func (r *Recorder) nodeAt(ts time.Time) string {
	node, start := "", time.Time{}
	for _, a := range r.actions {
		if a.begin.After(ts) || (!a.end.IsZero() && a.end.Before(ts)) {
			continue
		}
		if start.IsZero() || !a.begin.Before(start) {
			node, start = a.node, a.begin
		}
	}
	return node
}

// Begin marks the start of an action (a tool call) by node at t. Begin has
// no error to return: a zero t, or a node whose action is already open, is
// ignored (the open action already covers it); a failed index write is
// reported by the next Frame.
func (r *Recorder) Begin(node string, t time.Time) {
	if t.IsZero() {
		return
	}
	t = ms(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.begin(node, t) {
		r.keep(r.appendIndex(record{Begin: ptr(t.UnixMilli()), Node: node}))
	}
}

// End marks the end of node's open action at t. An End without a matching
// Begin, or with a zero t, is ignored: it cannot define a window. An end
// before the begin is taken as the begin. A failed index write is reported
// by the next Frame.
func (r *Recorder) End(node string, t time.Time) {
	if t.IsZero() {
		return
	}
	t = ms(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if end, ok := r.end(node, t); ok {
		r.keep(r.appendIndex(record{End: ptr(end.UnixMilli()), Node: node}))
	}
}

func (r *Recorder) begin(node string, t time.Time) bool {
	if _, ok := r.open[node]; ok {
		return false
	}
	r.open[node] = len(r.actions)
	r.actions = append(r.actions, action{node: node, begin: t})
	return true
}

func (r *Recorder) end(node string, t time.Time) (time.Time, bool) {
	i, ok := r.open[node]
	if !ok {
		return time.Time{}, false
	}
	delete(r.open, node)
	t = later(t, r.actions[i].begin)
	r.actions[i].end = t
	return t, true
}

func (r *Recorder) keep(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Latest returns a copy of the newest frame and its time, for a live
// thumbnail; ok is false before the first frame.
func (r *Recorder) Latest() (jpeg []byte, ts time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.latest == nil {
		return nil, time.Time{}, false
	}
	return bytes.Clone(r.latest), r.latestTS, true
}

// Frames returns how many frames are stored.
func (r *Recorder) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.frames)
}

// newest is the time of the newest frame, zero when there is none. Callers
// hold mu (or own r exclusively, as load does).
func (r *Recorder) newest() time.Time { return r.latestTS }

// appendIndex appends recs to frames.jsonl in one write. The file is opened
// per call because a Recorder has no Close: an idle recorder holds no file.
func (r *Recorder) appendIndex(recs ...record) error {
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("encode frames index record: %w", err)
		}
	}
	if err := appendFile(filepath.Join(r.dir, indexName), buf.Bytes()); err != nil {
		return fmt.Errorf("append frames index: %w", err)
	}
	return nil
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// ms drops what the index cannot store (sub-millisecond precision, the
// monotonic reading), so a reopened recording equals the live one.
func ms(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()) }

func ptr[T any](v T) *T { return &v }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
