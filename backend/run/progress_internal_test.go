package run

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/tool"
)

// The throttle, on a fake clock: the first report is written at once; a
// burst within the interval is written once, its latest, at the
// interval's end, with the replaced ones counted; a report after a quiet
// spell is written at once; the one waiting when the call ends is written
// then, and nothing after the end.
func TestProgressNotesThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		type written struct {
			At       time.Duration
			Progress float64
			Skipped  int
		}
		var got []written
		n := &progressNotes{write: func(p tool.Progress) {
			got = append(got, written{time.Since(start), p.Progress, p.Skipped})
		}}
		report := func(p float64) { n.note(tool.Progress{Progress: p, Total: 10}) }
		report(1)                          // at once
		time.Sleep(50 * time.Millisecond)  // 50 ms
		report(2)                          // replaced by 3
		time.Sleep(50 * time.Millisecond)  // 100 ms
		report(3)                          // written at 250 ms
		time.Sleep(400 * time.Millisecond) // 500 ms: quiet since 250 ms
		report(4)                          // at once
		time.Sleep(10 * time.Millisecond)  // 510 ms
		report(5)                          // waits, replaced by 6
		report(6)                          // written at the end
		time.Sleep(40 * time.Millisecond)  // 550 ms
		n.end()
		report(7) // after the end: dropped
		time.Sleep(time.Second)
		synctest.Wait()
		want := []written{
			{0, 1, 0},
			{250 * time.Millisecond, 3, 1},
			{500 * time.Millisecond, 4, 0},
			{550 * time.Millisecond, 6, 1},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("written (-want +got):\n%s", diff)
		}
	})
}
