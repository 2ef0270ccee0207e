package e2e

// The kill-and-recover test (recover_test.go): the servers it kills, its
// HTTP client and its WebSocket session.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"steward/backend/event"
)

// krServer is one `steward serve` process.
type krServer struct {
	cmd    *exec.Cmd
	c      *krClient
	port   string
	exited chan struct{} // closed once the process is reaped
	mu     sync.Mutex
	killed bool
}

// start starts `steward serve` on the kill point's data directory, with the
// same clean environment as startServe.
func (k *krPoint) start(phase int) (*krServer, error) {
	cmd := exec.Command(k.bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = k.home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + k.home, "STEWARD_HOME=" + k.home, "STEWARD_DISCOVER=0", "STEWARD_TOKEN=" + krToken}
	// Pdeathsig: a test binary that dies (a timeout) takes its servers along.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // one pipe, one reader
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &krServer{cmd: cmd, exited: make(chan struct{})}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			k.logs.add(fmt.Sprintf("[phase %d] %s", phase, sc.Text()))
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out) // a line over 1 MiB stops the scanner, not the server
	}()
	go func() {
		<-copied // Wait closes the pipe: read it all first
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case base := <-found:
		u, err := url.Parse(base)
		if err != nil {
			s.kill()
			return nil, err
		}
		s.port = u.Port()
		s.c = &krClient{base: base, hc: &http.Client{Timeout: 10 * time.Second}}
		return s, nil
	case <-s.exited:
		return nil, errors.New("steward serve exited before printing its URL")
	case <-time.After(20 * time.Second):
		s.kill()
		return nil, errors.New("steward serve printed no URL within 20 s")
	}
}

// kill sends SIGKILL (once) and returns at once.
func (s *krServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return
	}
	s.killed = true
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// dead reports whether the server was killed or stopped (or is dying):
// from then on a failed request is expected.
func (s *krServer) dead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killed
}

// stop ends the server the way a person does (SIGTERM) and waits for it.
func (s *krServer) stop() error {
	s.mu.Lock()
	if s.killed {
		s.mu.Unlock()
		<-s.exited
		return nil
	}
	s.killed = true
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.mu.Unlock()
	select {
	case <-s.exited:
		return nil
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		return errors.New("steward serve did not stop within 10 s of SIGTERM")
	}
}

// krClient calls the REST API with the token.
type krClient struct {
	base string
	hc   *http.Client
}

type krHTTPError struct {
	status int
	body   string
}

func (e *krHTTPError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

func (c *krClient) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+krToken)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &krHTTPError{status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// events reads a run's whole log.
func (c *krClient) events(ctx context.Context, runID string) ([]event.Event, error) {
	var all []event.Event
	after := int64(0)
	for {
		var page struct {
			Events    []event.Event `json:"events"`
			NextAfter int64         `json:"next_after"`
			More      bool          `json:"more"`
		}
		if err := c.call(ctx, "GET", fmt.Sprintf("/api/v1/runs/%s/events?after=%d&limit=5000", runID, after), nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Events...)
		if !page.More {
			return all, nil
		}
		after = page.NextAfter
	}
}

type krRunInfo struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Reason       string `json:"reason"`
	Error        string `json:"error"`
	Instructions string `json:"instructions"`
}

// ---- a session: one WebSocket, its reader, the approver ----

// krSession watches one server: a WebSocket subscribed to every run records
// each event it delivers (committed, since the server publishes after
// commit), and approves every approval asked, after a short random wait.
type krSession struct {
	k    *krPoint
	srv  *krServer
	conn *websocket.Conn
	wmu  sync.Mutex // one writer at a time on conn
	wg   sync.WaitGroup
	read chan struct{} // closed when the reader ends

	mu      sync.Mutex
	asked   map[string]bool
	rng     *rand.Rand
	trigger *krTrigger
	target  int
	delay   time.Duration
	minTS   int64
}

func (k *krPoint) session(ctx context.Context, srv *krServer) (*krSession, error) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+krToken)
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.DialContext(ctx, "ws://127.0.0.1:"+srv.port+"/api/v1/ws", h)
	if err != nil {
		return nil, fmt.Errorf("websocket: %w", err)
	}
	s := &krSession{k: k, srv: srv, conn: conn, read: make(chan struct{}), asked: map[string]bool{},
		rng: rand.New(rand.NewPCG(uint64(k.plan.index), uint64(time.Now().UnixNano())))}
	go s.reader()
	k.mu.Lock()
	var subs []*krRun
	for _, v := range k.runs {
		if v.id != "" {
			subs = append(subs, v)
		}
	}
	k.mu.Unlock()
	for _, v := range subs {
		s.subscribe(v, v.lastSeen())
	}
	return s, nil
}

// arm makes the session kill the server delay after it delivers an event
// that tr matches, of run target (any run when target < 0) and written at
// minTS or later.
func (s *krSession) arm(target int, tr *krTrigger, delay time.Duration, minTS int64) {
	s.mu.Lock()
	s.trigger, s.target, s.delay, s.minTS = tr, target, delay, minTS
	s.mu.Unlock()
}

func (s *krSession) disarm() {
	s.mu.Lock()
	s.trigger = nil
	s.mu.Unlock()
}

func (s *krSession) subscribe(v *krRun, after int64) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	err := s.conn.WriteJSON(map[string]any{"type": "subscribe", "id": "sub-" + v.id, "run_id": v.id, "after": after})
	if err != nil && !s.srv.dead() {
		s.k.fail("subscribe to %s: %v", v.id, err)
	}
}

func (s *krSession) reader() {
	defer close(s.read)
	for {
		var m struct {
			Type    string       `json:"type"`
			Event   *event.Event `json:"event"`
			Code    string       `json:"code"`
			Message string       `json:"message"`
		}
		if err := s.conn.ReadJSON(&m); err != nil {
			return
		}
		switch m.Type {
		case "event":
			if m.Event != nil {
				s.record(*m.Event)
			}
		case "error":
			s.k.fail("websocket error %s: %s", m.Code, m.Message)
		}
	}
}

// record keeps a delivered event, fires the kill trigger and hands
// approvals to the approver.
func (s *krSession) record(ev event.Event) {
	k := s.k
	k.mu.Lock()
	var v *krRun
	for _, r := range k.runs {
		if r.id == ev.RunID {
			v = r
		}
	}
	if v == nil {
		k.mu.Unlock()
		k.fail("event of an unknown run %s", ev.RunID)
		return
	}
	if want := v.lastSeen() + 1; ev.Seq != want {
		k.mu.Unlock()
		k.fail("run %d: the websocket delivered seq %d after %d (%s)", v.index, ev.Seq, want-1, ev.Type)
		return
	}
	v.seen = append(v.seen, ev)
	if ev.Type == event.NodeStarted {
		var d event.NodeStartedData
		_ = ev.Decode(&d)
		v.nodes[ev.NodeID] = d
	}
	s.mu.Lock()
	fire := s.trigger != nil && (s.target < 0 || v.index == s.target) && ev.TS >= s.minTS && s.trigger.match(v, ev)
	if fire {
		s.trigger = nil
	}
	delay := s.delay
	s.mu.Unlock()
	k.mu.Unlock()
	if fire {
		if delay <= 0 {
			s.srv.kill()
		} else {
			time.AfterFunc(delay, s.srv.kill)
		}
	}
	if ev.Type == event.ApprovalRequested {
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		s.approve(d.InteractionID)
	}
}

// approve answers an interaction after a random wait of up to 30 ms, so
// that kills find approvals open as well as answered.
func (s *krSession) approve(id string) {
	s.mu.Lock()
	if s.asked[id] {
		s.mu.Unlock()
		return
	}
	s.asked[id] = true
	wait := time.Duration(s.rng.Int64N(int64(30 * time.Millisecond)))
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-time.After(wait):
		case <-s.srv.exited:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.srv.c.call(ctx, "POST", "/api/v1/interactions/"+id+"/answer", map[string]any{"decision": "approve", "source": "api"}, nil)
		var he *krHTTPError
		switch {
		case err == nil, errors.As(err, &he) && he.status == http.StatusConflict: // answered before the kill
		case s.srv.dead():
		default:
			s.k.fail("approve %s: %v", id, err)
		}
	}()
}

// approvePending approves what the inbox holds: approvals asked before a
// kill and not answered.
func (s *krSession) approvePending(ctx context.Context) {
	var body struct {
		Interactions []struct {
			ID string `json:"id"`
		} `json:"interactions"`
	}
	if err := s.srv.c.call(ctx, "GET", "/api/v1/interactions?status=pending", nil, &body); err != nil {
		if !s.srv.dead() {
			s.k.fail("list pending interactions: %v", err)
		}
		return
	}
	for _, it := range body.Interactions {
		s.approve(it.ID)
	}
}

// close ends the session. After a kill the reader first drains what the
// connection still holds: those events were committed too.
func (s *krSession) close() {
	if s.srv.dead() {
		select {
		case <-s.read:
		case <-time.After(5 * time.Second):
			s.k.fail("the websocket stayed open 5 s after the server died")
		}
	}
	_ = s.conn.Close()
	<-s.read
	s.wg.Wait()
}

// ---- recovery ----
