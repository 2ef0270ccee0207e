package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gorilla/websocket"

	"steward/backend/api"
	"steward/backend/event"
)

// feed is what one WebSocket client has received.
type feed struct {
	events   []event.Event
	caughtUp []int64
	acks     map[string]json.RawMessage
}

// readUntil reads messages from c into f until stop says so; errors fail
// the test.
func (f *feed) readUntil(t *testing.T, c *websocket.Conn, stop func(m wsMsg) bool) {
	t.Helper()
	if f.acks == nil {
		f.acks = map[string]json.RawMessage{}
	}
	for {
		m := recv(t, c)
		switch m.Type {
		case "event":
			f.events = append(f.events, *m.Event)
		case "caught_up":
			f.caughtUp = append(f.caughtUp, *m.Seq)
		case "ack":
			f.acks[m.ID] = m.Result
		default:
			t.Fatalf("unexpected message %+v", m)
		}
		if stop(m) {
			return
		}
	}
}

func isEvent(m wsMsg, typ event.Type) bool { return m.Type == "event" && m.Event.Type == typ }

func isStatus(m wsMsg, status string) bool {
	if !isEvent(m, event.RunStatus) {
		return false
	}
	var d event.RunStatusData
	return m.Event.Decode(&d) == nil && d.Status == status
}

func subscribe(runID string, after int64) map[string]any {
	return map[string]any{"type": "subscribe", "id": "sub", "run_id": runID, "after": after}
}

func TestWSReplayOfAFinishedRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.completedRun()
	all := e.events(r.ID)
	last := r.LastSeq

	for _, after := range []int64{0, 1, last / 2, last - 1, last} {
		t.Run("after "+itoa(after), func(t *testing.T) {
			c := e.with(t).dial(nil)
			send(t, c, subscribe(r.ID, after))
			var f feed
			var end wsMsg
			f.readUntil(t, c, func(m wsMsg) bool { end = m; return m.Type == "caught_up" })
			if diff := cmp.Diff(all[after:], f.events, cmpEvents, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("replay (-log +ws):\n%s", diff)
			}
			if end.RunID != r.ID || *end.Seq != last {
				t.Errorf("caught_up %+v, want run %s seq %d", end, r.ID, last)
			}
		})
	}
}

// cmpEvents compares events by their JSON, as a client sees them.
var cmpEvents = cmp.Transformer("json", func(ev event.Event) string {
	b, _ := json.Marshal(ev)
	return string(b)
})

func TestWSLiveRunAnsweredOverTheSocket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, _ := e.startRun("Say hello")
	c := e.dial(nil)
	send(t, c, subscribe(r.ID, 0))

	var f feed
	var interaction string
	f.readUntil(t, c, func(m wsMsg) bool {
		if isEvent(m, event.ApprovalRequested) {
			var d event.ApprovalRequestedData
			if err := m.Event.Decode(&d); err != nil {
				t.Fatal(err)
			}
			interaction = d.InteractionID
			return true
		}
		return false
	})
	send(t, c, map[string]any{"type": "answer", "id": "a1", "interaction_id": interaction, "answer": api.Answer{Decision: "approve"}})
	f.readUntil(t, c, func(m wsMsg) bool { return isStatus(m, "completed") })
	if _, ok := f.acks["a1"]; !ok {
		// The ack may come after the last event; nothing else is pending.
		f.readUntil(t, c, func(m wsMsg) bool { return m.Type == "ack" })
	}

	var it api.Interaction
	if err := json.Unmarshal(f.acks["a1"], &it); err != nil {
		t.Fatalf("ack a1: %v", err)
	}
	if it.ID != interaction || it.Status != "answered" || it.Answer == nil || !cmp.Equal(*it.Answer, api.AnswerGiven{Decision: "approve", Source: "web"}) {
		t.Errorf("ack a1 = %+v", it)
	}
	final := e.getRun(r.ID)
	if diff := cmp.Diff(upTo(final.LastSeq), seqs(f.events)); diff != "" {
		t.Errorf("seqs over the socket (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(e.events(r.ID), f.events, cmpEvents); diff != "" {
		t.Errorf("events over the socket (-log +ws):\n%s", diff)
	}
	if len(f.caughtUp) != 1 {
		t.Errorf("caught_up %d times, want once", len(f.caughtUp))
	}
}

func TestWSReconnectMissesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, _ := e.startRun("Say hello")
	it := e.pending(r.ID) // the log holds the events up to the approval

	var f feed
	c1 := e.dial(nil)
	send(t, c1, subscribe(r.ID, 0))
	f.readUntil(t, c1, func(wsMsg) bool { return len(f.events) == 3 })
	c1.Close()

	c2 := e.dial(nil)
	send(t, c2, subscribe(r.ID, f.events[len(f.events)-1].Seq))
	f.readUntil(t, c2, func(m wsMsg) bool { return m.Type == "caught_up" })
	// Now the run goes on, live.
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, nil)
	f.readUntil(t, c2, func(m wsMsg) bool { return isStatus(m, "completed") })

	final := e.getRun(r.ID)
	if diff := cmp.Diff(upTo(final.LastSeq), seqs(f.events)); diff != "" {
		t.Errorf("seqs across the reconnect (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(e.events(r.ID), f.events, cmpEvents); diff != "" {
		t.Errorf("events across the reconnect (-log +ws):\n%s", diff)
	}
}

func TestWSAllRunsFeed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.completedRun() // no replay: nothing of it may arrive

	c := e.dial(nil)
	send(t, c, map[string]any{"type": "subscribe", "id": "all"})
	if m := recv(t, c); m.Type != "caught_up" || m.Seq == nil || *m.Seq != 0 {
		t.Fatalf("first message %+v, want caught_up 0", m)
	}
	r, _ := e.startRun("Say hello")

	var f feed
	f.readUntil(t, c, func(m wsMsg) bool { return isEvent(m, event.ApprovalRequested) })
	send(t, c, map[string]any{"type": "command", "id": "k1", "run_id": r.ID, "command": api.Command{CommandID: "k1", Type: "cancel"}})
	f.readUntil(t, c, func(m wsMsg) bool { return isStatus(m, "cancelled") })
	if _, ok := f.acks["k1"]; !ok {
		f.readUntil(t, c, func(m wsMsg) bool { return m.Type == "ack" })
	}

	var types []event.Type
	for _, ev := range f.events {
		if ev.RunID != r.ID {
			t.Errorf("event of run %s (old run %s) on the feed", ev.RunID, old.ID)
		}
		if !ev.IsRunLevel() {
			t.Errorf("%s is not a run-level event", ev.Type)
		}
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	if len(types) == 0 || types[0] != event.RunCreated || !containsType(types, event.ApprovalRequested) {
		t.Errorf("event types %v, want run.created first and approval.requested", types)
	}
	var res api.CommandResult
	if err := json.Unmarshal(f.acks["k1"], &res); err != nil || res != (api.CommandResult{CommandID: "k1", Status: "accepted"}) {
		t.Errorf("ack k1 = %s (%v), want accepted", f.acks["k1"], err)
	}
}

func containsType(ts []event.Type, t event.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func TestWSMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	var inbox struct{ Interactions []api.Interaction }
	e.call("GET", "/api/v1/interactions?run_id="+done.ID, nil, http.StatusOK, &inbox)
	answered := inbox.Interactions[0].ID

	tests := []struct {
		name    string
		msg     any // a string is sent as a text frame as is
		want    wsMsg
		mention string
	}{
		{"unknown type", map[string]any{"type": "dance", "id": "m1"}, wsMsg{Type: "error", ID: "m1", Code: "invalid"}, "dance"},
		{"not JSON", "hello", wsMsg{Type: "error", Code: "invalid"}, "not JSON"},
		{"subscribe to an unknown run", map[string]any{"type": "subscribe", "id": "m2", "run_id": "run_nope"}, wsMsg{Type: "error", ID: "m2", Code: "not_found"}, "run_nope"},
		{"answer without interaction", map[string]any{"type": "answer", "id": "m3", "answer": api.Answer{Decision: "approve"}}, wsMsg{Type: "error", ID: "m3", Code: "invalid"}, "interaction_id"},
		{"answer without answer", map[string]any{"type": "answer", "id": "m4", "interaction_id": answered}, wsMsg{Type: "error", ID: "m4", Code: "invalid"}, "answer"},
		{"answer to an unknown interaction", map[string]any{"type": "answer", "id": "m5", "interaction_id": "ia_nope", "answer": api.Answer{Decision: "deny"}}, wsMsg{Type: "error", ID: "m5", Code: "not_found"}, "ia_nope"},
		{"bad decision", map[string]any{"type": "answer", "id": "m6", "interaction_id": answered, "answer": api.Answer{Decision: "maybe"}}, wsMsg{Type: "error", ID: "m6", Code: "invalid"}, "maybe"},
		{"answer already given", map[string]any{"type": "answer", "id": "m7", "interaction_id": answered, "answer": api.Answer{Decision: "deny"}}, wsMsg{Type: "error", ID: "m7", Code: "conflict"}, "already answered"},
		{"command without command", map[string]any{"type": "command", "id": "m8", "run_id": done.ID}, wsMsg{Type: "error", ID: "m8", Code: "invalid"}, "command"},
		{"command without command_id", map[string]any{"type": "command", "id": "m9", "run_id": done.ID, "command": api.Command{Type: "cancel"}}, wsMsg{Type: "error", ID: "m9", Code: "invalid"}, "command_id"},
		{"command to an unknown run", map[string]any{"type": "command", "id": "m10", "run_id": "run_nope", "command": api.Command{CommandID: "c", Type: "cancel"}}, wsMsg{Type: "error", ID: "m10", Code: "not_found"}, "run_nope"},
		{"pause of a completed run", map[string]any{"type": "command", "id": "m11", "run_id": done.ID, "command": api.Command{CommandID: "c1", Type: "pause"}},
			wsMsg{Type: "ack", ID: "m11", Result: json.RawMessage(`{"command_id":"c1","status":"rejected","code":"terminal","message":"the run is already completed"}`)}, ""},
		{"cancel of a completed run", map[string]any{"type": "command", "id": "m12", "run_id": done.ID, "command": api.Command{CommandID: "c2", Type: "cancel"}},
			wsMsg{Type: "ack", ID: "m12", Result: json.RawMessage(`{"command_id":"c2","status":"rejected","code":"terminal","message":"the run is already completed"}`)}, ""},
		{"unsubscribe", map[string]any{"type": "unsubscribe", "id": "m13", "run_id": done.ID}, wsMsg{Type: "ack", ID: "m13"}, ""},
	}
	c := e.dial(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, ok := tt.msg.(string); ok {
				if err := c.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
					t.Fatal(err)
				}
			} else {
				send(t, c, tt.msg)
			}
			got := recv(t, c)
			if !strings.Contains(got.Message, tt.mention) {
				t.Errorf("message %q does not mention %q", got.Message, tt.mention)
			}
			if tt.want.Type == "error" && got.Message == "" {
				t.Error("error without a message")
			}
			got.Message = ""
			if diff := cmp.Diff(tt.want, got, cmp.Transformer("compact", compactJSON)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	// The connection survived every bad message.
	send(t, c, subscribe(done.ID, done.LastSeq))
	if m := recv(t, c); m.Type != "caught_up" || *m.Seq != done.LastSeq {
		t.Errorf("subscribe after the bad messages: %+v", m)
	}
}

func compactJSON(m json.RawMessage) string {
	var v any
	if len(m) == 0 || json.Unmarshal(m, &v) != nil {
		return string(m)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestWSSlowConsumerIsDisconnected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.completedRun()

	slow := e.dial(nil)
	send(t, slow, subscribe(r.ID, r.LastSeq))
	if m := recv(t, slow); m.Type != "caught_up" {
		t.Fatalf("first message %+v, want caught_up", m)
	}

	// Far more than the socket buffers (a few MiB on Linux) and the client's
	// outbox (1024 messages) hold: the client reads nothing while they commit.
	const n, workers = 2500, 5
	text := strings.Repeat("slow consumer test ", 16<<10/19)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range n / workers {
				ev := event.New(r.ID, event.LLMDelta, "n3", event.LLMDeltaData{Text: text})
				if _, err := e.st.Append(context.Background(), ev); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append: %v", err)
	}
	t.Logf("appended %d events in %v", n, time.Since(start))

	// The engine never waited for the client, and the server still serves.
	if got := e.getRun(r.ID); got.LastSeq != r.LastSeq+n {
		t.Errorf("last_seq %d, want %d", got.LastSeq, r.LastSeq+n)
	}
	if res := e.do("GET", "/healthz", nil, noAuth); res.status != http.StatusOK {
		t.Errorf("healthz = %d", res.status)
	}
	other := e.dial(nil)
	send(t, other, subscribe(r.ID, r.LastSeq+n))
	if m := recv(t, other); m.Type != "caught_up" || *m.Seq != r.LastSeq+n {
		t.Errorf("another client got %+v, want caught_up %d", m, r.LastSeq+n)
	}

	// The slow client finds what had been sent, then the close.
	var got []int64
	var closeErr *websocket.CloseError
	for {
		slow.SetReadDeadline(time.Now().Add(waitTimeout))
		var m wsMsg
		err := slow.ReadJSON(&m)
		if errors.As(err, &closeErr) {
			break
		}
		if err != nil {
			t.Fatalf("slow client: read: %v, want close 4008", err)
		}
		if m.Type != "event" {
			t.Fatalf("slow client got %+v", m)
		}
		got = append(got, m.Event.Seq)
	}
	if closeErr.Code != 4008 || closeErr.Text != "slow consumer" {
		t.Errorf("close %d %q, want 4008 slow consumer", closeErr.Code, closeErr.Text)
	}
	if len(got) >= n {
		t.Fatalf("the slow client got all %d events: it was never too slow", len(got))
	}
	t.Logf("the slow client got %d of %d events before the close", len(got), n)
	for i, s := range got {
		if s != r.LastSeq+int64(i)+1 {
			t.Fatalf("slow client: event %d has seq %d, want %d", i, s, r.LastSeq+int64(i)+1)
		}
	}
}

// A history larger than the client's outbox replays whole: reading the log
// waits for the client, and only a live feed it falls behind on is cut.
func TestWSLargeHistoryReplays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.completedRun()
	const n = 3000
	evs := make([]event.Event, n)
	for i := range evs {
		// 2 KiB each: 6 MiB in all, more than the socket buffers hold.
		evs[i] = event.New(r.ID, event.LLMDelta, "n3", event.LLMDeltaData{Text: strings.Repeat("x", 2<<10)})
	}
	if _, err := e.st.SubmitAll(evs).Wait(); err != nil {
		t.Fatal(err)
	}
	c := e.dial(nil)
	send(t, c, subscribe(r.ID, 0))
	time.Sleep(300 * time.Millisecond) // the client reads nothing while the outbox fills
	got := 0
	for {
		m := recv(t, c)
		if m.Type == "caught_up" {
			break
		}
		if m.Type != "event" {
			t.Fatalf("got %+v", m)
		}
		got++
	}
	if want := int(r.LastSeq) + n; got != want {
		t.Fatalf("replayed %d events, want %d", got, want)
	}
}
