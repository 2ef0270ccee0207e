package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"steward/backend/event"
	"steward/backend/store"
)

// The run-list benchmark's database: 100,000 runs, made once per test
// process (about half a minute) and shared by its benchmarks; TestMain
// removes it.
//
// Each run has the events that make its list row: run.created, its status
// changes, and for one run in ten an approval (still pending for the paused
// and waiting runs, answered for the others): about 4.6 events per run, not
// the ~50 of the database. The list reads no events, only runs and
// interactions, so the events' number does not change its figures, and 5
// million of them would take make bench minutes to write.
var (
	listDB struct {
		once      sync.Once
		dir, path string
		err       error
	}
	listShares = []struct {
		status  string
		per1000 int
	}{{"completed", 848}, {"failed", 60}, {"cancelled", 40}, {"paused", 20}, {"waiting", 10}, {"running", 12}, {"queued", 10}}
)

const listRuns = 100_000

// words make the instructions; "kubernetes" is put into one run in a
// hundred, the rare word of BenchmarkRunList100k/q=word.
var words = strings.Fields(`fix the failing test in calc refactor parser add a flag to command line write docs for api
	update dependencies rename function handler check error path make build faster review pull request migrate schema
	table index query cache layer split file into packages remove dead code log more context retry request on timeout`)

func listDatabase(b *testing.B) string {
	listDB.once.Do(func() {
		listDB.dir, listDB.err = os.MkdirTemp("", "steward-runlist-bench-")
		if listDB.err != nil {
			return
		}
		listDB.path = filepath.Join(listDB.dir, "runs.db")
		listDB.err = makeListDatabase(listDB.path)
	})
	if listDB.err != nil {
		b.Fatal(listDB.err)
	}
	return listDB.path
}

func removeListDatabase() {
	if listDB.dir != "" {
		os.RemoveAll(listDB.dir)
	}
}

func makeListDatabase(path string) error {
	st, err := store.Open(path, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(18, 100_000))
	const base = int64(1_700_000_000_000)
	var group []event.Event
	var last *store.Pending
	for i := range listRuns {
		id := fmt.Sprintf("run_%06d", i)
		n := 8 + rng.IntN(18)
		var text strings.Builder
		for j := range n {
			if j > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(words[rng.IntN(len(words))])
		}
		if rng.IntN(100) == 0 {
			text.WriteString(" on kubernetes")
		}
		agent := rng.IntN(10)
		ts := base + int64(i)*300_000 + rng.Int64N(1000) // one run every 5 minutes, a year in all
		ev := func(typ event.Type, node string, data any) event.Event {
			e := event.New(id, typ, node, data)
			e.TS = ts
			return e
		}
		status := "completed"
		for k, pick := 0, rng.IntN(1000); k < len(listShares); k++ {
			if pick < listShares[k].per1000 {
				status = listShares[k].status
				break
			}
			pick -= listShares[k].per1000
		}
		group = append(group, ev(event.RunCreated, "", event.RunCreatedData{
			Agent:        event.AgentRef{ID: fmt.Sprintf("ag_%d", agent), Name: fmt.Sprintf("agent %d", agent), Provider: "script", Model: "demo"},
			Instructions: text.String(), Workspace: "/tmp/ws", Mode: "ask", MaxSteps: 50,
		}))
		if status != "queued" {
			group = append(group, ev(event.RunStatus, "", event.RunStatusData{Status: "running"}))
		}
		open := status == "paused" || status == "waiting"
		if open || rng.IntN(10) == 0 {
			group = append(group,
				ev(event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindTool, Label: "write_file", Tool: "write_file"}),
				ev(event.ApprovalRequested, "n1", event.ApprovalRequestedData{InteractionID: "ia_" + id, Tool: "write_file"}))
			if !open {
				group = append(group, ev(event.ApprovalDecided, "n1", event.ApprovalDecidedData{InteractionID: "ia_" + id, Decision: "approve", Source: "web"}))
			}
		}
		if status != "queued" && status != "running" {
			group = append(group, ev(event.RunStatus, "", event.RunStatusData{Status: status}))
		}
		if len(group) >= 1000 {
			last = st.SubmitAll(group)
			group = nil
		}
	}
	if len(group) > 0 {
		last = st.SubmitAll(group)
	}
	if last != nil {
		if _, err := last.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRunList100k times a page of 100 of the run list for each of its
// filters over 100,000 runs, and beside them the control: the bare query of
// the newest 100 ids on the same database in the same run.
func BenchmarkRunList100k(b *testing.B) {
	path := listDatabase(b)
	st, err := store.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		f    store.RunFilter
		none bool // no run matches
	}{
		{"none", store.RunFilter{}, false},
		{"status=completed", store.RunFilter{Statuses: []string{"completed"}}, false},
		{"status=paused", store.RunFilter{Statuses: []string{"paused"}}, false},
		{"status=active", store.RunFilter{Statuses: []string{"queued", "running", "pausing", "paused", "waiting"}}, false},
		{"agent=ag_3", store.RunFilter{Agent: "ag_3"}, false},
		{"agent=name", store.RunFilter{Agent: "agent 3"}, false},
		{"q=word", store.RunFilter{Text: "kubernetes"}, false}, // one run in 100
		{"q=common", store.RunFilter{Text: "schema"}, false},   // about one run in 3
		{"q=2chars", store.RunFilter{Text: "ku"}, false},       // below a trigram: instr
		{"q=absent", store.RunFilter{Text: "xylophone"}, true}, // in no run
		{"q=2chars,absent", store.RunFilter{Text: "zq"}, true}, // in no run, below a trigram: a scan of every run
		{"q=word,status=completed", store.RunFilter{Text: "kubernetes", Statuses: []string{"completed"}}, false},
		{"q=1char,absent", store.RunFilter{Text: "%"}, true}, // in no run, one character: no trigram
		{"q=2chars,completed,absent", store.RunFilter{Text: "zq", Statuses: []string{"completed"}}, true},
		{"attention", store.RunFilter{Attention: true}, false}, // waiting, or an approval pending: 3% of the runs
		{"attention,q=word", store.RunFilter{Attention: true, Text: "kubernetes"}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.f.Limit = 100
			for b.Loop() {
				runs, err := st.ListRuns(ctx, c.f)
				if err != nil {
					b.Fatal(err)
				}
				if (len(runs) == 0) != c.none {
					b.Fatalf("%d runs", len(runs))
				}
			}
		})
	}
	b.Run("control", func(b *testing.B) {
		db, err := sql.Open("sqlite3", store.WriterDSN(path))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for b.Loop() {
			rows, err := db.QueryContext(ctx, `SELECT id FROM runs ORDER BY created_at DESC LIMIT 100`)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			if n != 100 {
				b.Fatalf("%d ids", n)
			}
		}
	})
}
