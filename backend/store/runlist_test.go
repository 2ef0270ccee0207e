package store_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	gocmp "github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/store"
)

// fixtureRun is one run of the list fixture: what ListRuns is asked about.
type fixtureRun struct {
	id, agentID, agentName, status, instructions string
	at                                           int64
}

// listFixture has runs of two agents (one named as the other's id, so that
// an agent filter meets the same value in both columns), every status,
// several runs created in the same millisecond (the id breaks the tie), and
// instructions in mixed case and in other scripts.
func listFixture() []fixtureRun {
	texts := []string{
		"Fix the failing TEST in ./calc", "refactor the Parser", "naïve café au lait", "Ünïcödé and Straße",
		"日本語のテキストを直す", "emoji 🚀 launch", `quote "this" please`, "x", "ab cd", "CAFÉ society",
		"Привет, мир", "fix ALL the tests", `100% done_ok \ back`, "Zq",
	}
	statuses := []string{"completed", "completed", "completed", "failed", "paused", "cancelled", "running", "waiting", "queued"}
	var out []fixtureRun
	for i := range 60 {
		agentID, agentName := "ag_1", "default"
		if i%3 == 0 {
			agentID, agentName = "ag_2", "ag_1"
		}
		out = append(out, fixtureRun{
			id: fmt.Sprintf("r%03d", (i*37)%60), agentID: agentID, agentName: agentName,
			status: statuses[i%len(statuses)], instructions: texts[i%len(texts)],
			at: 1_000 + int64(i/4), // four runs per millisecond
		})
	}
	return out
}

func openFixture(t *testing.T) (*store.Store, []fixtureRun) {
	t.Helper()
	st, _ := open(t, nil)
	runs := listFixture()
	for _, r := range runs {
		ev := event.New(r.id, event.RunCreated, "", event.RunCreatedData{
			Agent: event.AgentRef{ID: r.agentID, Name: r.agentName, Provider: "script", Model: "demo"}, Instructions: r.instructions,
			Workspace: "/tmp/ws", Mode: "ask", MaxSteps: 10,
		})
		ev.TS = r.at
		mustAppend(t, st, ev)
		if r.status != "queued" {
			mustAppend(t, st, event.New(r.id, event.RunStatus, "", event.RunStatusData{Status: r.status}))
		}
	}
	return st, runs
}

// want is the list's answer by definition: newest first, id descending
// within a millisecond, narrowed by each filter.
func want(runs []fixtureRun, f store.RunFilter) []string {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b fixtureRun) int {
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	var out []string
	for _, r := range runs {
		if len(f.Statuses) > 0 && !slices.Contains(f.Statuses, r.status) {
			continue
		}
		if f.Agent != "" && r.agentID != f.Agent && r.agentName != f.Agent {
			continue
		}
		if f.Text != "" && !containsFold(r.instructions, f.Text) {
			continue
		}
		if f.Before != (store.RunCursor{}) && (r.at > f.Before.CreatedAt || r.at == f.Before.CreatedAt && r.id >= f.Before.ID) {
			continue
		}
		out = append(out, r.id)
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out
}

// containsFold is the text filter's meaning: three characters or more go
// through the trigram index, which folds the case of every letter; shorter
// text goes through instr(lower()), which folds ASCII letters only.
func containsFold(s, sub string) bool {
	if utf8.RuneCountInString(sub) >= 3 {
		return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
	}
	return strings.Contains(asciiLower(s), asciiLower(sub))
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func ids(runs []store.Run) []string {
	out := []string{}
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}

func TestListRunsAnswersEachFilter(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	filters := map[string]store.RunFilter{
		"all":                   {},
		"completed":             {Statuses: []string{"completed"}},
		"paused":                {Statuses: []string{"paused"}},
		"several statuses":      {Statuses: []string{"running", "paused", "waiting", "paused"}},
		"agent by id":           {Agent: "ag_2"},
		"agent by id or name":   {Agent: "ag_1"}, // ag_1 is one agent's id and the other's name
		"agent by name":         {Agent: "default"},
		"agent and status":      {Agent: "ag_1", Statuses: []string{"completed", "failed"}},
		"text, other case":      {Text: "fix THE"},
		"text, diacritics":      {Text: "café"},
		"text, other case é":    {Text: "CAFÉ"},
		"text, ß":               {Text: "straße"},
		"text, cyrillic case":   {Text: "ПРИВЕТ"},
		"text, CJK":             {Text: "テキスト"},
		"text, emoji":           {Text: "🚀 la"},
		"text, quote":           {Text: `"this"`},
		"text, FTS syntax":      {Text: "fix OR parser"},
		"text, 2 chars":         {Text: "AB"},
		"text, 1 char":          {Text: "x"},
		"text, 2 chars unicode": {Text: "ïv"},
		"text and status":       {Text: "tests", Statuses: []string{"completed"}},
		"text, none":            {Text: "nowhere to be found"},
		// A page that the newest runs hold is found by instr among them.
		"text, page of common":     {Text: "FIX", Limit: 3},
		"text, page, status":       {Text: "the", Limit: 2, Statuses: []string{"completed"}},
		"text, page, before":       {Text: "the", Limit: 2, Before: store.RunCursor{CreatedAt: 1_010, ID: "r000"}},
		"text, page, unicode case": {Text: "CAFÉ", Limit: 2},
		"before":                   {Before: store.RunCursor{CreatedAt: 1_007, ID: "r020"}},
		"before, status, agent":    {Before: store.RunCursor{CreatedAt: 1_010, ID: "r000"}, Statuses: []string{"completed"}, Agent: "ag_1"},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) { checkList(t, st, runs, f) })
	}
}

// checkList holds ListRuns(f) to want's answer.
func checkList(t *testing.T, st *store.Store, runs []fixtureRun, f store.RunFilter) {
	t.Helper()
	got, err := st.ListRuns(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	w := want(runs, f)
	if w == nil {
		w = []string{}
	}
	if diff := gocmp.Diff(w, ids(got)); diff != "" {
		t.Errorf("ListRuns(%+v) (-want +got):\n%s", f, diff)
	}
}

// The trigram index answers what instr over every run answered, for text of
// three characters or more with no letter outside ASCII to fold.
func TestListRunsTextAgreesWithInstr(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	ctx := context.Background()
	for _, q := range []string{"FIX", "the failing", "./calc", "naïve", "日本語", "🚀", `"this"`, "s, м", "  ", "ab cd"} {
		got, err := st.ListRuns(ctx, store.RunFilter{Text: q, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var instr []string
		for _, id := range want(runs, store.RunFilter{}) {
			for _, r := range runs {
				if r.id == id && strings.Contains(asciiLower(r.instructions), asciiLower(q)) {
					instr = append(instr, id)
				}
			}
		}
		if instr == nil {
			instr = []string{}
		}
		if diff := gocmp.Diff(instr, ids(got)); diff != "" {
			t.Errorf("q=%q (-instr +trigram):\n%s", q, diff)
		}
	}
}

// pages is every page of ListRuns(f) in pages of limit, each after the
// last run of the one before, from f.Before.
func pages(t *testing.T, st *store.Store, f store.RunFilter, limit int) []string {
	t.Helper()
	got := []string{}
	f.Limit = limit
	for range 100 {
		page, err := st.ListRuns(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(page)...)
		if len(page) < f.Limit {
			return got
		}
		last := page[len(page)-1]
		f.Before = store.RunCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	t.Fatalf("ListRuns(%+v) pages on past 100 pages", f)
	return nil
}

// Paging through the list with each page's last run as the next cursor
// gives every run once, in order, under every filter.
func TestListRunsPages(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	for _, f := range []store.RunFilter{{}, {Statuses: []string{"completed", "paused"}}, {Agent: "ag_1"}, {Text: "fix"}} {
		got := pages(t, st, f, 7)
		if diff := gocmp.Diff(want(runs, f), got); diff != "" {
			t.Errorf("pages of %+v (-want +got):\n%s", f, diff)
		}
	}
}

// The status and agent filters walk an index in the list's order: no sort
// of the matching runs, whatever their number.
func TestListRunsPlansUseIndexes(t *testing.T) {
	t.Parallel()
	st, _ := openFixture(t)
	cursor := store.RunCursor{CreatedAt: 1_010, ID: "r000"}
	for name, f := range map[string]store.RunFilter{
		"all":              {},
		"status":           {Statuses: []string{"completed"}},
		"statuses":         {Statuses: []string{"completed", "paused", "waiting"}},
		"agent":            {Agent: "ag_1"},
		"agent and status": {Agent: "ag_1", Statuses: []string{"paused"}},
		"status, before":   {Statuses: []string{"completed"}, Before: cursor},
		"agent, before":    {Agent: "ag_1", Before: cursor},
		"before":           {Before: cursor},
	} {
		plan, err := st.ListRunsPlan(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "INDEX runs_") {
			t.Errorf("%s: plan sorts or walks no index of runs:\n%s", name, plan)
		}
		if strings.Contains(plan, "SCAN r ") || strings.HasSuffix(plan, "SCAN r") {
			if name != "all" {
				t.Errorf("%s: plan scans runs:\n%s", name, plan)
			}
		}
	}
}

// A run's pending count is its interactions that wait for an answer, in the
// list as in GetRun: counted when asked, less when answered, none once the
// run ends; an imported run has none.
func TestListRunsPendingApprovals(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, created("a"))
	mustAppend(t, st, created("b"))
	mustAppend(t, st, event.New("a", event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindTool, Label: "w", Tool: "w"}))
	ask := func(run, id string) {
		mustAppend(t, st, event.New(run, event.ApprovalRequested, "n1", event.ApprovalRequestedData{InteractionID: id, Tool: "w"}))
	}
	check := func(step string, wantA, wantB int) {
		t.Helper()
		list, err := st.ListRuns(ctx, store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, r := range list {
			got[r.ID] = r.PendingApprovals
			one, err := st.GetRun(ctx, r.ID)
			if err != nil || one.PendingApprovals != r.PendingApprovals {
				t.Errorf("%s: GetRun(%s) pending %d (%v), list says %d", step, r.ID, one.PendingApprovals, err, r.PendingApprovals)
			}
		}
		if diff := gocmp.Diff(map[string]int{"a": wantA, "b": wantB}, got); diff != "" {
			t.Errorf("%s: pending (-want +got):\n%s", step, diff)
		}
	}
	check("none asked", 0, 0)
	ask("a", "i1")
	ask("a", "i2")
	check("two asked", 2, 0)
	mustAppend(t, st, event.New("a", event.ApprovalDecided, "n1", event.ApprovalDecidedData{InteractionID: "i1", Decision: "approve", Source: "web"}))
	check("one answered", 1, 0)
	mustAppend(t, st, event.New("a", event.RunStatus, "", event.RunStatusData{Status: "cancelled"}))
	check("run ended", 0, 0)

	if _, err := st.ImportRun(ctx, recorded("imp"), "orig"); err != nil {
		t.Fatal(err)
	}
	r, err := st.GetRun(ctx, "imp")
	if err != nil || r.PendingApprovals != 0 {
		t.Errorf("imported run pending %d (%v), want 0", r.PendingApprovals, err)
	}
}

// undo16 takes a database back to before migration 0016 (and 0017).
var undo16 = []string{
	`DROP TABLE runs_text_terms`, `DROP INDEX runs_tail2`, `DROP INDEX runs_tail1`, `DROP INDEX interactions_pending`,
	`DROP TRIGGER runs_text_insert`, `DROP TABLE runs_text`,
	`DROP INDEX runs_list`, `DROP INDEX runs_status_list`, `DROP INDEX runs_agent_list`, `DROP INDEX runs_agent_name_list`,
	`CREATE INDEX runs_status ON runs(status)`, `CREATE INDEX runs_created ON runs(created_at)`,
	`DELETE FROM schema_migrations WHERE version >= 16`,
}

// Migration 0016 indexes the text of the runs that were there before it.
func TestMigrationIndexesExistingRuns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "steward.db")
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, st, created("old"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", store.WriterDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range undo16 {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mustAppend(t, st, created("new"))
	got, err := st.ListRuns(context.Background(), store.RunFilter{Text: "DO IT"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff([]string{"new", "old"}, ids(got)); diff != "" {
		t.Errorf("search after migration (-want +got):\n%s", diff)
	}
}
