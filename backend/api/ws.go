package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"steward/backend/event"
	"steward/backend/queue"
)

// WebSocket close codes of our own (4000-4999 are the application's).
const (
	closeSlow = 4008 // the client did not read fast enough
	// closeSent is no code: the close frame went out already (gorilla
	// answers a close and a protocol error itself), or the connection
	// broke; nothing more is sent.
	closeSent = websocket.CloseAbnormalClosure
)

const (
	wsOutbox    = 1024             // messages queued for one client before it counts as slow
	wsReadBuf   = 1024             // client messages are small JSON; a larger one takes more reads
	wsWriteWait = 10 * time.Second // one write may take this long
	wsPing      = 30 * time.Second
	wsMaxIn     = 1 << 20
)

// wsInType is the type of a client message: subscribe{run_id?, after},
// unsubscribe{run_id}, command{run_id, command} or answer{interaction_id,
// answer}, each with the id its ack or error names.
type wsInType string

var wsInTypes = []wsInType{"subscribe", "unsubscribe", "command", "answer"}

// wsOutType is the type of a server message: event{event},
// caught_up{run_id, seq} (no run_id for the all-runs subscription),
// ack{id, result?} (a command's result, an answer's interaction) or
// error{id?, code, message}.
type wsOutType string

var wsOutTypes = []wsOutType{"event", "caught_up", "ack", "error"}

// wsIn is a client message.
type wsIn struct {
	Type          wsInType `json:"type"`
	ID            string   `json:"id,omitempty"`
	RunID         string   `json:"run_id,omitempty"`
	After         int64    `json:"after,omitempty"`
	Command       *Command `json:"command,omitempty"`
	InteractionID string   `json:"interaction_id,omitempty"`
	Answer        *Answer  `json:"answer,omitempty"`
}

// wsOut is a server message.
type wsOut struct {
	Type    wsOutType `json:"type"`
	ID      string    `json:"id,omitempty"`
	Event   *Event    `json:"event,omitempty"`
	RunID   string    `json:"run_id,omitempty"`
	Seq     *int64    `json:"seq,omitempty"`
	Result  any       `json:"result,omitempty"`
	Code    string    `json:"code,omitempty"`
	Message string    `json:"message,omitempty"`
}

// wsConn is one client. A reader goroutine handles its messages; a writer
// goroutine drains out; each subscription runs event.Follow in a goroutine
// of its own. Nothing here blocks the engine: a full outbox closes the
// connection. The outbox and the subscriptions' feeds are queues that hold
// only what is pending (an idle client holds a few KiB; issue 15), bounded
// as channels of wsOutbox would be.
type wsConn struct {
	s      *Server
	c      *websocket.Conn
	out    *queue.Queue[wsOut]
	space  chan struct{} // signalled when the writer took a message from out
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	subs   map[string]context.CancelFunc // by run id; "" is the all-runs feed
	wg     sync.WaitGroup
	closed sync.Once
	code   int
	reason string
}

func (s *Server) ws(w http.ResponseWriter, r *http.Request) {
	if s.checkUpgrade(w, r) {
		return
	}
	up := websocket.Upgrader{
		// Not 0: gorilla would then read through the hijacked buffer, past
		// the frame watch.
		ReadBufferSize: wsReadBuf, WriteBufferSize: 16384, WriteBufferPool: &s.wsWrite,
		// ServeHTTP already refused foreign origins; check again here because
		// the upgrader's default would also accept a missing Origin only.
		CheckOrigin: func(r *http.Request) bool { return s.originAllowed(r.Header.Get("Origin")) },
		Error:       s.handshakeError,
	}
	fw := newFrameWatch()
	c, err := up.Upgrade(watchFrames{ResponseWriter: w, fw: fw}, r, nil)
	if err != nil {
		return // the upgrader has answered the client
	}
	ctx, cancel := context.WithCancel(context.Background())
	wc := &wsConn{s: s, c: c, out: queue.New[wsOut](wsOutbox), space: make(chan struct{}, 1), ctx: ctx, cancel: cancel, subs: map[string]context.CancelFunc{}}
	c.SetReadLimit(wsMaxIn)
	c.SetCloseHandler(closeHandler(c, fw))
	wc.wg.Add(1)
	go func() {
		defer wc.recoverPanic("writing")
		wc.writeLoop()
	}()
	// The handler returns, and the connection's reader goes on in a
	// goroutine of its own: net/http keeps the request and its buffers
	// (about 10 KiB) for as long as a handler runs, and a hijacked
	// connection needs none of them. The reader ends when the client goes
	// or the connection breaks, as the handler did.
	go func() {
		defer func() {
			cancel()
			wc.wg.Wait()
			c.Close()
		}()
		defer wc.recoverPanic("a message")
		wc.readLoop()
	}()
}

// recoverPanic, deferred at the top of each of a connection's goroutines,
// does for them what ServeHTTP does for a request: a panic while handling
// the connection is logged and ends the connection (1011), not the
// process. The goroutines run outside any handler, so nothing else would
// recover it.
func (wc *wsConn) recoverPanic(doing string) {
	p := recover()
	if p == nil {
		return
	}
	wc.s.cfg.Logf("api: panic in a WebSocket connection, %s: %v\n%s", doing, p, debug.Stack())
	_ = wc.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInternalServerErr, "internal error; see the server log"),
		time.Now().Add(time.Second))
	wc.cancel()
	_ = wc.c.Close() // the reader, blocked on the client, ends
}

// replayWait bounds how long the replay of a run's history waits for a
// client that reads nothing at all.
const replayWait = 30 * time.Second

// sendWaiting queues m, waiting while the queue is full: for the history of
// a run, read from the log, which a large run fills many times over. A
// client that reads nothing for replayWait is dropped as slow.
func (wc *wsConn) sendWaiting(m wsOut) error {
	if wc.out.Push(m) {
		return nil
	}
	t := time.NewTimer(replayWait)
	defer t.Stop()
	for {
		select {
		case <-wc.space:
			if wc.out.Push(m) {
				return nil
			}
		case <-wc.ctx.Done():
			return wc.ctx.Err()
		case <-t.C:
			wc.shut(closeSlow, "slow consumer")
			return event.ErrSlow
		}
	}
}

// send queues m; a full queue means the client is too slow and is dropped.
func (wc *wsConn) send(m wsOut) error {
	if err := wc.ctx.Err(); err != nil {
		return err
	}
	if !wc.out.Push(m) {
		wc.shut(closeSlow, "slow consumer")
		return event.ErrSlow
	}
	return nil
}

func (wc *wsConn) shut(code int, reason string) {
	wc.closed.Do(func() {
		wc.code, wc.reason = code, reason
		wc.cancel()
	})
}

func (wc *wsConn) writeLoop() {
	defer wc.wg.Done()
	ping := time.NewTicker(wsPing)
	defer ping.Stop()
	fail := func() {
		wc.shut(closeSent, "")
		wc.c.Close() // unblocks the reader
	}
	for {
		select {
		case <-wc.out.Ready():
			// One message at a time, as from a channel: the one in hand
			// is the only one that does not count against the outbox. A
			// ping due meanwhile goes out between two messages.
			for wc.ctx.Err() == nil {
				m, ok := wc.out.Pop()
				if !ok {
					break
				}
				select {
				case wc.space <- struct{}{}:
				default:
				}
				wc.c.SetWriteDeadline(time.Now().Add(wsWriteWait))
				if err := wc.c.WriteJSON(m); err != nil {
					fail()
					return
				}
				select {
				case <-ping.C:
					if !wc.ping() {
						fail()
						return
					}
				default:
				}
			}
		case <-ping.C:
			if !wc.ping() {
				fail()
				return
			}
		case <-wc.ctx.Done():
			code := wc.code
			if code == 0 {
				code = websocket.CloseNormalClosure
			}
			if code != closeSent {
				_ = wc.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, wc.reason), time.Now().Add(time.Second))
			}
			wc.c.Close() // unblocks the reader
			return
		}
	}
}

func (wc *wsConn) ping() bool {
	return wc.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteWait)) == nil
}

func (wc *wsConn) readLoop() {
	for {
		typ, data, err := wc.c.ReadMessage()
		if err != nil {
			// A close the client sent was answered, and a protocol error
			// closed by gorilla with its code; else the connection is gone.
			wc.shut(closeSent, "")
			return
		}
		switch {
		case typ == websocket.BinaryMessage:
			wc.shut(websocket.CloseUnsupportedData, "messages are JSON text")
			return
		case !utf8.Valid(data): // RFC 6455 §8.1: text is UTF-8, or the connection fails
			wc.shut(websocket.CloseInvalidFramePayloadData, "a text message is not valid UTF-8")
			return
		}
		var m wsIn
		if err := json.Unmarshal(data, &m); err != nil {
			_ = wc.send(wsOut{Type: "error", Code: CodeInvalid, Message: "message is not JSON: " + err.Error()})
			continue
		}
		wc.handle(m)
		if wc.ctx.Err() != nil {
			return
		}
	}
}

func (wc *wsConn) handle(m wsIn) {
	fail := func(err error) {
		e := classify(err)
		if e.Status >= 500 {
			wc.s.cfg.Logf("ws: %s: %v", m.Type, err)
		}
		_ = wc.send(wsOut{Type: "error", ID: m.ID, Code: e.Code, Message: e.Message})
	}
	switch m.Type {
	case "subscribe":
		var facts runFacts
		if m.RunID != "" {
			r, err := wc.s.cfg.Store.GetRun(wc.ctx, m.RunID)
			if err != nil {
				fail(err)
				return
			}
			facts = factsOf(r)
		}
		wc.subscribe(m.RunID, m.After, facts)
	case "unsubscribe":
		wc.mu.Lock()
		if cancel, ok := wc.subs[m.RunID]; ok {
			cancel()
			delete(wc.subs, m.RunID)
		}
		wc.mu.Unlock()
		_ = wc.send(wsOut{Type: "ack", ID: m.ID})
	case "command":
		if m.Command == nil || m.RunID == "" {
			fail(errorf(http.StatusBadRequest, CodeInvalid, "command needs run_id and command"))
			return
		}
		res, err := wc.s.cfg.Runs.Command(wc.ctx, m.RunID, *m.Command)
		if err != nil {
			fail(err)
			return
		}
		_ = wc.send(wsOut{Type: "ack", ID: m.ID, Result: res})
	case "answer":
		if m.Answer == nil || m.InteractionID == "" {
			fail(errorf(http.StatusBadRequest, CodeInvalid, "answer needs interaction_id and answer"))
			return
		}
		it, err := wc.s.answerInteraction(wc.ctx, m.InteractionID, *m.Answer, "web")
		if err != nil {
			fail(err)
			return
		}
		_ = wc.send(wsOut{Type: "ack", ID: m.ID, Result: wireInteraction(it)})
	default:
		fail(errorf(http.StatusBadRequest, CodeInvalid, "unknown message type "+string(m.Type)+": want subscribe, unsubscribe, command or answer"))
	}
}

// subscribe follows run runID (of facts) from after, or with no runID the
// run-level events of every run.
func (wc *wsConn) subscribe(runID string, after int64, facts runFacts) {
	ctx, cancel := context.WithCancel(wc.ctx)
	wc.mu.Lock()
	if old, ok := wc.subs[runID]; ok {
		old() // a new subscribe replaces the old one
	}
	wc.subs[runID] = cancel
	wc.mu.Unlock()
	wc.wg.Add(1)
	go func() {
		defer wc.wg.Done()
		defer wc.recoverPanic("following " + cmp.Or(runID, "every run"))
		var err error
		if runID == "" {
			err = wc.followAll(ctx)
		} else {
			err = event.Follow(ctx, wc.s.cfg.Bus, wc.s.cfg.Store, runID, after, event.FollowOptions{
				Send: func(ev event.Event) error {
					out := facts.wire(ev)
					return wc.send(wsOut{Type: "event", Event: &out})
				},
				Replay: func(ev event.Event) error {
					out := facts.wire(ev)
					return wc.sendWaiting(wsOut{Type: "event", Event: &out})
				},
				CaughtUp: func(seq int64) error {
					return wc.send(wsOut{Type: "caught_up", RunID: runID, Seq: &seq})
				},
			})
		}
		if errors.Is(err, event.ErrSlow) {
			wc.shut(closeSlow, "slow consumer")
		} else if err != nil && ctx.Err() == nil {
			wc.s.cfg.Logf("ws: follow %s: %v", runID, err)
			wc.shut(websocket.CloseInternalServerErr, "internal error")
		}
	}()
}

// followAll forwards the run-level events of every run (no replay). The
// facts of each run whose status it forwards are read once.
func (wc *wsConn) followAll(ctx context.Context) error {
	feed := wc.s.cfg.Bus.Feed("", wsOutbox)
	defer feed.Close()
	var facts map[string]runFacts // made with the first run.status: an idle feed holds none
	zero := int64(0)
	if err := wc.send(wsOut{Type: "caught_up", Seq: &zero}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-feed.Ready():
		}
		for {
			ev, ok := feed.Next()
			if !ok {
				break
			}
			out := Event{Event: ev}
			if ev.Type == event.RunStatus {
				f, ok := facts[ev.RunID]
				if !ok {
					// A run that cannot be read now still has its status
					// told, without what it can do: the client reads it.
					if r, err := wc.s.cfg.Store.GetRun(ctx, ev.RunID); err == nil {
						f, ok = factsOf(r), true
						if facts == nil {
							facts = map[string]runFacts{}
						}
						facts[ev.RunID] = f
					} else if ctx.Err() == nil {
						wc.s.cfg.Logf("ws: run %s: %v", ev.RunID, err)
					}
				}
				if ok {
					out = f.wire(ev)
				}
			}
			if err := wc.send(wsOut{Type: "event", Event: &out}); err != nil {
				return err
			}
		}
		if feed.Done() {
			return feed.Err()
		}
	}
}
