package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
	"steward/backend/tools/git"
	"steward/backend/tools/interact"
	"steward/backend/tools/shell"
	"steward/backend/workspace"
)

// Every test ends its servers, runs, stores and clients, so nothing may be
// left running; goleak retries for a while, which covers the goroutines of
// connections that are still being torn down.
//
// With idleClientsEnv set, the binary is the clients' process of
// TestWSIdleSubscriberMemory instead.
func TestMain(m *testing.M) {
	if spec := os.Getenv(idleClientsEnv); spec != "" {
		os.Exit(idleClientsMain(spec))
	}
	goleak.VerifyTestMain(m)
}

const token = "test-token-0123456789abcdef"

// waitTimeout bounds every wait of these tests; the demo script with no
// chunk delay finishes in milliseconds, so only a broken server hits it.
const waitTimeout = 15 * time.Second

// env is a server composed exactly as main.go's build and startServer do,
// over a fresh database, served by httptest on loopback.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	api    *api.Server
	st     *store.Store
	bus    *event.Bus
	runs   *run.Service
	agents *agent.Service
	port   int
	base   string // http://127.0.0.1:PORT
	host   string // 127.0.0.1:PORT
	client *http.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, nil)
}

// newEnvWith is newEnv with edit applied to the server's config.
func newEnvWith(t *testing.T, edit func(*api.Config)) *env {
	t.Helper()
	var n atomic.Int64
	newID := func(prefix string) string { return fmt.Sprintf("%s_%04d", prefix, n.Add(1)) }

	bus := event.NewBus()
	st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), &store.Options{Publisher: bus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	tools := tool.NewRegistry()
	for _, tl := range slices.Concat(fstools.Tools(), shell.Tools(nil), git.Tools(git.Options{}), interact.Tools()) {
		if err := tools.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	in := inbox.New(st, tools, func() string { return newID("ia") })
	cfg := config.Config{Home: t.TempDir(), Discover: false}
	models := config.NewModels(cfg)
	models.ChunkDelay = 0
	blobs, err := workspace.NewBlobs(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	runs := run.New(run.Config{Store: st, Approver: in, Tools: tools, Models: models, NewID: newID, Logf: t.Logf, Grants: st, Blobs: blobs})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := runs.Shutdown(ctx); err != nil {
			t.Errorf("shut down runs: %v", err)
		}
	})
	agents := agent.NewService(st, func(name string) bool { _, ok := tools.Lookup(name); return ok }, newID, time.Now)
	if err := agents.EnsureDefault(context.Background()); err != nil {
		t.Fatal(err)
	}

	cfgAPI := api.Config{
		Token: token, Version: "test", DefaultWorkspace: t.TempDir(),
		Runs: runs, Inbox: in, Store: st, Agents: agents, Models: models, Tools: tools,
		Settings: config.NewSettings(cfg, func(string) string { return "" }, models, config.NewPrices(nil)),
		Bus:      bus, UI: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Steward</title>")}},
		Logf: t.Logf,
	}
	if edit != nil {
		edit(&cfgAPI)
	}
	h := api.New(cfgAPI)
	srv := httptest.NewServer(h)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	h.SetPort(port)
	client := &http.Client{
		Transport: &http.Transport{},
		// The tests look at redirects themselves.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       waitTimeout,
	}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.Close()
	})
	return &env{t: t, srv: srv, api: h, st: st, bus: bus, runs: runs, agents: agents, port: port,
		base: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		client: client}
}

// with returns a copy of e that reports to t, for subtests.
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// reqOpt changes a request before it is sent.
type reqOpt func(*http.Request)

// noAuth drops the bearer token every request carries by default.
func noAuth(r *http.Request) { r.Header.Del("Authorization") }

func header(k, v string) reqOpt { return func(r *http.Request) { r.Header.Set(k, v) } }

func withHost(h string) reqOpt { return func(r *http.Request) { r.Host = h } }

func withCookie(c *http.Cookie) reqOpt {
	return func(r *http.Request) { r.Header.Del("Authorization"); r.AddCookie(c) }
}

// resp is an answer read in full.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// do sends method path with body (nil, a string or []byte sent as is, or a
// value sent as JSON) and the bearer token, and reads the whole answer.
func (e *env) do(method, path string, body any, opts ...reqOpt) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(req)
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	r := resp{status: res.StatusCode, header: res.Header, body: b}
	checkAnswer(e.t, req, r)
	return r
}

// call sends method path with body and decodes a JSON answer of status want
// into out (when out is not nil).
func (e *env) call(method, path string, body any, want int, out any) {
	e.t.Helper()
	r := e.do(method, path, body)
	if r.status != want {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, want, r.body)
	}
	if out != nil {
		if err := json.Unmarshal(r.body, out); err != nil {
			e.t.Fatalf("%s %s: decode %s: %v", method, path, r.body, err)
		}
	}
}

// session opens the UI URL with the token, checks the redirect, and returns
// the session cookie it set.
func (e *env) session() *http.Cookie {
	e.t.Helper()
	r := e.do("GET", "/?token="+token, nil, noAuth)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
		e.t.Fatalf("GET /?token=RIGHT = %d Location %q, want 303 to /", r.status, r.header.Get("Location"))
	}
	name := "steward_session_" + strconv.Itoa(e.port)
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	e.t.Fatalf("no %s cookie in %q", name, r.header.Values("Set-Cookie"))
	return nil
}

type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// errorOf decodes an error answer; ok is false when the body is not one.
func errorOf(r resp) (code, message string, ok bool) {
	var e apiError
	if json.Unmarshal(r.body, &e) != nil || e.Error.Code == "" {
		return "", "", false
	}
	return e.Error.Code, e.Error.Message, true
}

// wantError checks that r is the error answer status/code and returns its
// message.
func wantError(t *testing.T, r resp, status int, code string) string {
	t.Helper()
	got, msg, ok := errorOf(r)
	if r.status != status || !ok || got != code {
		t.Fatalf("got status %d body %s; want %d with error code %q", r.status, r.body, status, code)
	}
	if msg == "" {
		t.Errorf("error %s has no message", code)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	return msg
}

// waitFor polls cond until it holds or waitTimeout passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// startRun starts the default (demo) agent on a new workspace.
func (e *env) startRun(instructions string) (api.Run, string) {
	e.t.Helper()
	ws := e.t.TempDir()
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: agent.DefaultName, Instructions: instructions, Workspace: ws}, http.StatusCreated, &r)
	return r, ws
}

func (e *env) getRun(id string) api.Run {
	e.t.Helper()
	var r api.Run
	e.call("GET", "/api/v1/runs/"+id, nil, http.StatusOK, &r)
	return r
}

// waitStatus waits until run id has status.
func (e *env) waitStatus(id, status string) api.Run {
	e.t.Helper()
	var r api.Run
	waitFor(e.t, "run "+id+" to be "+status, func() bool {
		r = e.getRun(id)
		return string(r.Status) == status
	})
	return r
}

// pending waits for the pending interaction of run id.
func (e *env) pending(id string) api.Interaction {
	e.t.Helper()
	var body struct{ Interactions []api.Interaction }
	waitFor(e.t, "an approval of run "+id, func() bool {
		e.call("GET", "/api/v1/interactions?status=pending&run_id="+id, nil, http.StatusOK, &body)
		return len(body.Interactions) > 0
	})
	if len(body.Interactions) != 1 {
		e.t.Fatalf("run %s has %d pending interactions, want 1", id, len(body.Interactions))
	}
	return body.Interactions[0]
}

// completedRun runs the demo to completion, approving its write.
func (e *env) completedRun() api.Run {
	e.t.Helper()
	r, _ := e.startRun("write the demo note")
	it := e.pending(r.ID)
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, nil)
	return e.waitStatus(r.ID, "completed")
}

// events reads the whole log of run id.
func (e *env) events(id string) []event.Event {
	e.t.Helper()
	var body struct {
		Events    []event.Event
		NextAfter int64 `json:"next_after"`
		More      bool
	}
	e.call("GET", "/api/v1/runs/"+id+"/events?limit=5000", nil, http.StatusOK, &body)
	if body.More {
		e.t.Fatalf("run %s has more than 5000 events", id)
	}
	return body.Events
}

// wsMsg is a server message of the WebSocket.
type wsMsg struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Event   *event.Event    `json:"event"`
	RunID   string          `json:"run_id"`
	Seq     *int64          `json:"seq"`
	Result  json.RawMessage `json:"result"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
}

func (e *env) wsURL() string { return "ws://" + e.host + "/api/v1/ws" }

// dial opens the WebSocket with h (the bearer token when nil) and closes it
// when the test ends.
func (e *env) dial(h http.Header) *websocket.Conn {
	e.t.Helper()
	if h == nil {
		h = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, res, err := websocket.DefaultDialer.Dial(e.wsURL(), h)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		e.t.Fatalf("dial: %v (status %d)", err, status)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c *websocket.Conn, m any) {
	t.Helper()
	if err := c.WriteJSON(m); err != nil {
		t.Fatalf("ws write: %v", err)
	}
}

func recv(t *testing.T, c *websocket.Conn) wsMsg {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(waitTimeout))
	var m wsMsg
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("ws read: %v", err)
	}
	checkMessage(t, b)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("ws read: %v", err)
	}
	return m
}

// seqs lists the seqs of evs.
func seqs(evs []event.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

// upTo returns 1..n.
func upTo(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i) + 1
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
