package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/internal/bigrun"
)

// BenchmarkRunBudget reads GET /runs/{id}/budget of bigrun's run of 10,000
// turns (100,007 events): live, the engine drives it (resumed after a
// restart and paused there); ended, the fold of its log remembered at its
// last seq. fold is the control: the engine's fold of the whole log, page
// by page, which is what every read cost before.
func BenchmarkRunBudget(b *testing.B) {
	const turns = 10000
	dir := b.TempDir()
	st, err := store.Open(filepath.Join(dir, "steward.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	var n atomic.Int64
	newID := func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, n.Add(1)) }
	tools := tool.NewRegistry()
	runs := run.New(run.Config{Store: st, Approver: inbox.New(st, tools, func() string { return newID("ia") }), Tools: tools,
		Models: config.NewModels(config.Config{Home: dir, Discover: false}), NewID: newID, Logf: b.Logf})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := runs.Shutdown(ctx); err != nil {
			b.Errorf("shut down runs: %v", err)
		}
	})

	ended, err := bigrun.Events(bigrun.Params{ID: "run_ended", Turns: turns, Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	live, err := bigrun.Events(bigrun.Params{ID: "run_live", Turns: turns, Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	// The live run: its agent's definition recorded, so that the engine can
	// resume it, and its end not yet reached.
	var created event.RunCreatedData
	if err := live[0].Decode(&created); err != nil {
		b.Fatal(err)
	}
	if created.Spec, err = json.Marshal(agent.Default()); err != nil {
		b.Fatal(err)
	}
	live[0] = event.New(live[0].RunID, event.RunCreated, "", created)
	live = live[:len(live)-2]
	for _, evs := range [][]event.Event{ended, live} {
		for start := 0; start < len(evs); start += 500 {
			if _, err := st.SubmitAll(evs[start:min(start+500, len(evs))]).Wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if got, err := runs.Recover(context.Background()); err != nil || got != 1 {
		b.Fatalf("recover: %d runs, %v; want the live one", got, err)
	}
	deadline := time.Now().Add(waitTimeout)
	for r, _ := st.GetRun(context.Background(), "run_live"); r.Status != "paused"; r, _ = st.GetRun(context.Background(), "run_live") {
		if time.Now().After(deadline) {
			b.Fatalf("the live run is %s, not paused", r.Status)
		}
		time.Sleep(time.Millisecond)
	}

	h := api.New(api.Config{Token: token, Version: "bench", Runs: runs, Store: st})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	h.SetPort(srv.Listener.Addr().(*net.TCPAddr).Port)
	client := &http.Client{Transport: &http.Transport{}, Timeout: waitTimeout}
	b.Cleanup(client.CloseIdleConnections)
	get := func(b *testing.B, id string) run.Budget {
		req, err := http.NewRequest("GET", srv.URL+"/api/v1/runs/"+id+"/budget", nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("GET budget of %s: %d %s %v", id, res.StatusCode, body, err)
		}
		var out run.Budget
		if err := json.Unmarshal(body, &out); err != nil {
			b.Fatal(err)
		}
		return out
	}
	fold := func(b *testing.B, id string) run.Budget {
		f := run.NewFold()
		for after := int64(0); ; {
			evs, err := st.Events(context.Background(), id, after, 1000)
			if err != nil {
				b.Fatal(err)
			}
			for _, ev := range evs {
				f.Apply(ev)
			}
			if len(evs) < 1000 {
				return f.Budget()
			}
			after = evs[len(evs)-1].Seq
		}
	}
	for _, id := range []string{"run_live", "run_ended"} {
		if got, want := get(b, id), fold(b, id); got != want {
			b.Fatalf("budget of %s %+v, the fold of its log %+v", id, got, want)
		}
	}

	b.Run("fold", func(b *testing.B) {
		for b.Loop() {
			fold(b, "run_live")
		}
	})
	b.Run("live", func(b *testing.B) {
		for b.Loop() {
			get(b, "run_live")
		}
	})
	b.Run("ended", func(b *testing.B) {
		for b.Loop() {
			get(b, "run_ended")
		}
	})
}
