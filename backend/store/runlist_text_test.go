package store_test

import (
	"strings"
	"testing"

	"steward/backend/store"
)

// Text of one or two characters is found wherever it is: at the start of a
// trigram, in a text's last two characters, as the whole of a text, in any
// ASCII case, LIKE's own % _ \ as themselves; what is in no run finds none.
func TestListRunsShortText(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	queries := map[string]bool{"%": true, "_": true, `\`: true, "%%": true, "q": true, "zq": true, "ZQ": true, "#": true, "jj": true}
	for _, r := range runs {
		rs := []rune(r.instructions)
		for i := range rs {
			for n := 1; n <= 2 && i+n <= len(rs); n++ {
				q := string(rs[i : i+n])
				queries[q], queries[strings.ToUpper(q)] = true, true
			}
		}
	}
	for q := range queries {
		for _, f := range []store.RunFilter{{Text: q, Limit: 1000}, {Text: q, Statuses: []string{"completed", "waiting"}, Limit: 1000}} {
			checkList(t, st, runs, f)
		}
	}
	// The 2-char search's plan reads the trigram and tail indexes, never
	// every run.
	plan, err := st.ListRunsPlan(store.RunFilter{Text: "lc"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "runs_tail2") || strings.Contains(plan, "SCAN r ") || strings.HasSuffix(plan, "SCAN r") || strings.Contains(plan, "SCAN runs\n") {
		t.Errorf("short text's plan scans runs or reads no tail index:\n%s", plan)
	}
}
