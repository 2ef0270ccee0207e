package video

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	base := time.UnixMilli(1_700_000_000_000)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	fr := func(name string, ms int) frame { return frame{ts: at(ms), file: name} }
	w := func(start, end int) Window { return Window{Start: at(start), End: at(end)} }
	seg := func(name string, ms int) segment {
		return segment{file: name, dur: time.Duration(ms) * time.Millisecond}
	}
	tests := []struct {
		name   string
		frames []frame
		wins   []Window
		want   []segment
	}{
		{"frame before the window is shown from its start",
			[]frame{fr("a", 0)}, []Window{w(1000, 2000)}, []segment{seg("a", 1000)}},
		{"before and inside",
			[]frame{fr("a", 0), fr("b", 1500)}, []Window{w(1000, 2000)}, []segment{seg("a", 500), seg("b", 500)}},
		{"window opens before the first frame",
			[]frame{fr("a", 1500)}, []Window{w(1000, 2000)}, []segment{seg("a", 500)}},
		{"frames only after the window",
			[]frame{fr("a", 3000)}, []Window{w(1000, 2000)}, nil},
		{"frame exactly at the start",
			[]frame{fr("a", 0), fr("b", 1000)}, []Window{w(1000, 2000)}, []segment{seg("b", 1000)}},
		{"frame exactly at the end is not shown",
			[]frame{fr("a", 0), fr("b", 2000)}, []Window{w(1000, 2000)}, []segment{seg("a", 1000)}},
		{"same millisecond: the later frame wins",
			[]frame{fr("a", 1200), fr("b", 1200)}, []Window{w(1000, 2000)}, []segment{seg("b", 800)}},
		{"one frame current in two windows",
			[]frame{fr("a", 0)}, []Window{w(1000, 2000), w(5000, 6000)}, []segment{seg("a", 1000), seg("a", 1000)}},
		{"frames between windows are dropped",
			[]frame{fr("a", 0), fr("b", 3000), fr("c", 4000), fr("d", 7000)}, []Window{w(1000, 2000), w(5000, 6000)},
			[]segment{seg("a", 1000), seg("c", 1000)}},
		{"no windows", []frame{fr("a", 0)}, nil, nil},
		{"no frames", nil, []Window{w(1000, 2000)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, total := plan(tt.frames, tt.wins)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(segment{})); diff != "" {
				t.Errorf("plan() (-want +got):\n%s", diff)
			}
			var want time.Duration
			for _, s := range tt.want {
				want += s.dur
			}
			if total != want {
				t.Errorf("plan() total = %v, want %v", total, want)
			}
		})
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	var tl tail
	for i := range 2000 {
		if _, err := tl.Write([]byte("line " + string(rune('a'+i%26)) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if len(tl.buf) > stderrTail {
		t.Errorf("tail kept %d bytes, want at most %d", len(tl.buf), stderrTail)
	}
	if got, want := tl.lastLines(2), "line w | line x"; got != want {
		t.Errorf("lastLines(2) = %q, want %q", got, want)
	}
}
