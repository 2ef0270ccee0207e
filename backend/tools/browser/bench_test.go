package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// BenchmarkBrowserStart measures a run's first browser call: Chromium's
// start, the tab's set-up and about:blank (ms/start), and EndRun's close
// (ms/close).
func BenchmarkBrowserStart(b *testing.B) {
	f := newFixture(b, Options{})
	var start, stop time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		f.ok(Open, map[string]any{"url": "about:blank"})
		t1 := time.Now()
		if _, err := f.m.EndRun(context.Background(), f.env); err != nil {
			b.Fatal(err)
		}
		start, stop = start+t1.Sub(t0), stop+time.Since(t1)
		n++
	}
	b.ReportMetric(float64(start.Milliseconds())/float64(n), "ms/start")
	b.ReportMetric(float64(stop.Milliseconds())/float64(n), "ms/close")
}

// BenchmarkSnapshotLarge measures browser_snapshot of a page of 2,000
// elements, whole (max_chars at its maximum): its time per op and its size
// in characters.
func BenchmarkSnapshotLarge(b *testing.B) {
	f := newFixture(b, Options{})
	f.ok(Open, map[string]any{"url": f.srv.url("/big")})
	args, _ := json.Marshal(map[string]any{"max_chars": MaxSnapshotChars})
	chars := 0
	for b.Loop() {
		res, err := f.reg.Call(context.Background(), f.env, Snapshot, args)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
		chars = len(res.Output)
	}
	b.ReportMetric(float64(chars), "chars")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/snapshot")
}

// BenchmarkActionRoundTrip measures browser_act click on a button that
// changes the page, with the snapshot the call returns.
func BenchmarkActionRoundTrip(b *testing.B) {
	f := newFixture(b, Options{})
	snap := f.ok(Open, map[string]any{"url": f.srv.url("/counter")})
	args, _ := json.Marshal(map[string]any{"action": "click", "ref": ref(b, snap, `button "Add"`)})
	for b.Loop() {
		res, err := f.reg.Call(context.Background(), f.env, Act, args)
		if err != nil || res.IsError || !strings.Contains(res.Output, "Clicked") {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/action")
}
