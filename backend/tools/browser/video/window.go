package video

import (
	"slices"
	"sort"
	"time"
)

// Window is a stretch of the recording kept in the video: one action, or
// several whose padded spans overlap, from Before its start to After its
// end. Nodes are the acting nodes in order of their first action.
type Window struct {
	Start, End time.Time
	Nodes      []string
}

// Windows returns the kept stretches of the recording, in time order: one
// [Begin-Before, End+After] per action, merged when they overlap or touch.
// An action still open is taken to end at the newest frame (or its begin,
// if no frame came since), since that is as far as the page is known.
func (r *Recorder) Windows() []Window {
	r.mu.Lock()
	acts, newest := slices.Clone(r.actions), r.newest()
	r.mu.Unlock()
	return windows(acts, newest)
}

func windows(acts []action, newest time.Time) []Window {
	slices.SortStableFunc(acts, func(a, b action) int { return a.begin.Compare(b.begin) })
	var out []Window
	for _, a := range acts {
		end := a.end
		if end.IsZero() {
			end = later(a.begin, newest)
		}
		start, end := a.begin.Add(-Before), end.Add(After)
		if n := len(out); n > 0 && !start.After(out[n-1].End) {
			w := &out[n-1]
			w.End = later(w.End, end)
			if a.node != "" && !slices.Contains(w.Nodes, a.node) {
				w.Nodes = append(w.Nodes, a.node)
			}
			continue
		}
		w := Window{Start: start, End: end}
		if a.node != "" {
			w.Nodes = []string{a.node}
		}
		out = append(out, w)
	}
	return out
}

// segment is one entry of the video: a frame file shown for dur.
type segment struct {
	file string
	dur  time.Duration
}

// plan lays the frames out over the windows. Within a window each frame is
// shown from its time until the next frame's or the window's end. The frame
// current at a window's start (the newest one before it) is shown from the
// start: the screencast only sends a frame when the page repaints, so that
// frame is what was on screen. A window that begins before any frame starts
// at the first frame; one with no frame before its end contributes nothing.
// frames must be sorted by time.
func plan(frames []frame, wins []Window) (segs []segment, total time.Duration) {
	emit := func(f frame, d time.Duration) {
		if d > 0 { // frames in the same millisecond: the later one wins
			segs = append(segs, segment{file: f.file, dur: d})
			total += d
		}
	}
	for _, w := range wins {
		// i is the first frame after the window start.
		i := sort.Search(len(frames), func(i int) bool { return frames[i].ts.After(w.Start) })
		cur, from := i-1, w.Start
		if cur < 0 {
			if i == len(frames) || !frames[i].ts.Before(w.End) {
				continue
			}
			cur, from = i, frames[i].ts
			i++
		}
		for ; i < len(frames) && frames[i].ts.Before(w.End); i++ {
			emit(frames[cur], frames[i].ts.Sub(from))
			cur, from = i, frames[i].ts
		}
		emit(frames[cur], w.End.Sub(from))
	}
	return segs, total
}
