package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/api"
	"steward/backend/event"
)

// GET /runs pages: each page's next_before, sent back as before, gives the
// next page, and the pages together are the whole list, newest first.
func TestRunListPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("run_%02d", i)
		ev := event.New(id, event.RunCreated, "", event.RunCreatedData{
			Agent: event.AgentRef{ID: "ag_x", Name: "x", Provider: "script", Model: "demo"}, Instructions: "page me", Workspace: "/tmp", Mode: "ask", MaxSteps: 1,
		})
		ev.TS = 1_000 + int64(i/2) // two runs a millisecond: the id orders them
		if _, err := e.st.Append(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		want = append([]string{id}, want...)
	}
	for _, q := range []string{"limit=3", "limit=3&agent=x", "limit=2&q=page", "limit=7"} {
		var got []string
		before := ""
		for page := 0; ; page++ {
			var body struct {
				Runs       []api.Run
				NextBefore string `json:"next_before"`
				More       bool
			}
			path := "/api/v1/runs?" + q
			if before != "" {
				path += "&before=" + url.QueryEscape(before)
			}
			e.call("GET", path, nil, http.StatusOK, &body)
			for _, r := range body.Runs {
				got = append(got, r.ID)
			}
			if body.More != (body.NextBefore != "") || page > 10 {
				t.Fatalf("%s page %d: more %v next_before %q", q, page, body.More, body.NextBefore)
			}
			if !body.More {
				break
			}
			before = body.NextBefore
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pages of %s (-want +got):\n%s", q, diff)
		}
	}
}
