package exchange_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"steward/backend/exchange"
	"steward/backend/store"
	"steward/backend/workspace"
	"steward/internal/bigrun"
)

// bigEnv is an exchange over a real store holding bigrun's run of turns
// turns (10 events a turn), with a file change of about 5 KB every 100th
// turn (100 of them in a 10,000-turn run).
type bigEnv struct {
	st     *store.Store
	blobs  *workspace.Blobs
	ex     *exchange.Service
	run    string
	events int
	db     string
}

func newBigEnv(tb testing.TB, turns int) *bigEnv {
	tb.Helper()
	dir := tb.TempDir()
	db := filepath.Join(dir, "steward.db")
	st, err := store.Open(db, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	blobs, err := workspace.NewBlobs(filepath.Join(dir, "blobs"))
	if err != nil {
		tb.Fatal(err)
	}
	var n atomic.Int64
	e := &bigEnv{st: st, blobs: blobs, run: "run_big", db: db}
	e.ex = exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: filepath.Join(dir, "artifacts"), Version: "bench",
		NewID:   func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) },
		Secrets: func() []string { return []string{"sk-bench-configured-secret-value"} },
		Player:  func() ([]byte, error) { return []byte("<!doctype html><html><head></head><body></body></html>"), nil }})
	// 20 files in turn, so that a file changes again and its change
	// has a Before.
	if _, e.events, err = bigrun.Write(st, bigrun.Params{ID: e.run, Turns: turns, Files: 20, Blobs: blobs}); err != nil {
		tb.Fatal(err)
	}
	return e
}

// logBytes is the size of the run's log as stored: the sum of its events'
// data.
func (e *bigEnv) logBytes(tb testing.TB) uint64 {
	var n uint64
	after := int64(0)
	for {
		page, err := e.st.Events(context.Background(), e.run, after, 5000)
		if err != nil {
			tb.Fatal(err)
		}
		for _, ev := range page {
			n += uint64(len(ev.Data))
		}
		if len(page) < 5000 {
			return n
		}
		after = page[len(page)-1].Seq
	}
}
