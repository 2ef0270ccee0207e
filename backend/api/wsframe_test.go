package api_test

// RFC 6455 at the wire: frames built by hand and written over a bare TCP
// connection, masked as a client must (or not, where that is the point), so
// that nothing depends on a client library's own checks.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Opcodes (RFC 6455 §5.2).
const (
	opContinue = 0x0
	opText     = 0x1
	opBinary   = 0x2
	opClose    = 0x8
	opPing     = 0x9
)

// rawWS is a WebSocket connection spoken by hand.
type rawWS struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

// rawDial makes the opening handshake over TCP and checks the 101.
func (e *env) rawDial(t *testing.T) *rawWS {
	t.Helper()
	c, err := net.Dial("tcp", e.host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(waitTimeout))
	fmt.Fprintf(c, "GET /api/v1/ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n", e.host, token)
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols || res.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %d %v", res.StatusCode, res.Header)
	}
	return &rawWS{t: t, c: c, r: r}
}

// frame writes one frame: fin, opcode and payload, masked unless unmasked.
func (w *rawWS) frame(fin bool, op byte, payload []byte, unmasked bool) {
	w.t.Helper()
	b0 := op
	if fin {
		b0 |= 0x80
	}
	buf := []byte{b0}
	maskBit := byte(0x80)
	if unmasked {
		maskBit = 0
	}
	switch n := len(payload); {
	case n < 126:
		buf = append(buf, maskBit|byte(n))
	case n < 1<<16:
		buf = append(buf, maskBit|126, byte(n>>8), byte(n))
	default:
		buf = binary.BigEndian.AppendUint64(append(buf, maskBit|127), uint64(n))
	}
	body := append([]byte(nil), payload...)
	if !unmasked {
		key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
		buf = append(buf, key[:]...)
		for i := range body {
			body[i] ^= key[i%4]
		}
	}
	if _, err := w.c.Write(append(buf, body...)); err != nil {
		w.t.Fatal(err)
	}
}

// serverFrame is a frame the server sent.
type serverFrame struct {
	op      byte
	payload []byte
}

// read reads one frame of the server, which must not be masked.
func (w *rawWS) read() (serverFrame, error) {
	var h [2]byte
	if _, err := io.ReadFull(w.r, h[:]); err != nil {
		return serverFrame{}, err
	}
	if h[1]&0x80 != 0 {
		return serverFrame{}, errors.New("the server masked a frame")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(w.r, b[:]); err != nil {
			return serverFrame{}, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(w.r, b[:]); err != nil {
			return serverFrame{}, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(w.r, p); err != nil {
		return serverFrame{}, err
	}
	return serverFrame{op: h[0] & 0x0f, payload: p}, nil
}

// closing reads the server's frames to the end of the connection and
// returns its close frames' payloads and the text messages before them.
func (w *rawWS) closing() (closes [][]byte, texts []string) {
	w.t.Helper()
	for {
		f, err := w.read()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, net.ErrClosed) {
				w.t.Fatalf("read: %v", err)
			}
			return closes, texts
		}
		switch f.op {
		case opClose:
			closes = append(closes, f.payload)
		case opText:
			texts = append(texts, string(f.payload))
		}
	}
}

func closeCode(p []byte) int {
	if len(p) < 2 {
		return 0
	}
	return int(binary.BigEndian.Uint16(p))
}

func closePayload(code int, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(code)), reason...)
}

// TestWSFrames: the server answers what RFC 6455 says must fail the
// connection with the right close code, answers a client's close once, and
// takes valid text split anywhere across fragments.
func TestWSFrames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name string
		send func(w *rawWS)
		// wantClose is the code of the server's one close frame; 0 for a
		// close with no code (the answer to one without).
		wantClose int
		wantText  string // a text message the server sends before closing
	}{
		{"text that is not UTF-8", func(w *rawWS) {
			w.frame(true, opText, []byte("{\"type\": \"\xff\xfe\"}"), false)
		}, 1007, ""},
		{"text whose fragments end mid-character but is not UTF-8 whole", func(w *rawWS) {
			w.frame(false, opText, []byte("{\"type\": \"\xc3"), false)
			w.frame(true, opContinue, []byte("\x28\"}"), false) // 0xc3 0x28 is no character
		}, 1007, ""},
		{"a close frame with a 1-byte payload", func(w *rawWS) {
			w.frame(true, opClose, []byte{0x03}, false)
		}, 1002, ""},
		{"a close frame with a code is echoed once", func(w *rawWS) {
			w.frame(true, opClose, closePayload(1000, "bye"), false)
		}, 1000, ""},
		{"an empty close frame is answered by an empty one", func(w *rawWS) {
			w.frame(true, opClose, nil, false)
		}, 0, ""},
		{"a close code no endpoint may send", func(w *rawWS) {
			w.frame(true, opClose, closePayload(1005, ""), false)
		}, 1002, ""},
		{"a close reason that is not UTF-8", func(w *rawWS) {
			w.frame(true, opClose, closePayload(1000, "\xff"), false)
		}, 1002, ""},
		{"a frame the client did not mask", func(w *rawWS) {
			w.frame(true, opText, []byte(`{"type":"x"}`), true)
		}, 1002, ""},
		{"a binary message", func(w *rawWS) {
			w.frame(true, opBinary, []byte(`{"type":"subscribe"}`), false)
		}, 1003, ""},
		{"a control frame over 125 bytes", func(w *rawWS) {
			w.frame(true, opPing, make([]byte, 126), false)
		}, 1002, ""},
		{"valid text split inside a character", func(w *rawWS) {
			w.frame(false, opText, []byte("{\"type\": \"d\xc3"), false)
			w.frame(true, opContinue, []byte("\xa9j\xc3\xa0\", \"id\": \"m1\"}"), false) // "déjà"
		}, 1000, "déjà"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := e.with(t).rawDial(t)
			tt.send(w)
			var texts []string
			if tt.wantText != "" {
				// The answer, then the client closes.
				f, err := w.read()
				if err != nil || f.op != opText {
					t.Fatalf("answer: %+v %v", f, err)
				}
				texts = append(texts, string(f.payload))
				w.frame(true, opClose, closePayload(1000, ""), false)
			}
			closes, more := w.closing()
			texts = append(texts, more...)
			if len(closes) != 1 {
				t.Fatalf("the server sent %d close frames %q, want one", len(closes), closes)
			}
			if got := closeCode(closes[0]); got != tt.wantClose || (tt.wantClose == 0 && len(closes[0]) != 0) {
				t.Errorf("close %d (payload %q), want %d", got, closes[0], tt.wantClose)
			}
			if tt.wantText != "" {
				if len(texts) != 1 || !strings.Contains(texts[0], tt.wantText) {
					t.Fatalf("messages %q, want the error about %q", texts, tt.wantText)
				}
				var m struct{ Type, ID, Code, Message string }
				if err := json.Unmarshal([]byte(texts[0]), &m); err != nil || m.Type != "error" || m.ID != "m1" {
					t.Errorf("answer %q: %v", texts[0], err)
				}
			} else if len(texts) != 0 {
				t.Errorf("messages %q before the close, want none", texts)
			}
		})
	}
}

// TestWSHandshake: a request to the WebSocket route that cannot become one
// is answered in the API's JSON, 426 with what the server speaks where the
// protocol says so.
func TestWSHandshake(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	upgrade := []reqOpt{header("Upgrade", "websocket"), header("Connection", "Upgrade"), header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")}
	tests := []struct {
		name    string
		opts    []reqOpt
		status  int
		code    string
		headers map[string]string
	}{
		{"no upgrade", nil, http.StatusUpgradeRequired, "upgrade_required", map[string]string{"Upgrade": "websocket", "Sec-WebSocket-Version": "13"}},
		{"version 8", append(upgrade, header("Sec-WebSocket-Version", "8")), http.StatusUpgradeRequired, "upgrade_required", map[string]string{"Sec-WebSocket-Version": "13"}},
		{"no version", upgrade, http.StatusUpgradeRequired, "upgrade_required", map[string]string{"Sec-WebSocket-Version": "13"}},
		{"a bad key", []reqOpt{header("Upgrade", "websocket"), header("Connection", "Upgrade"), header("Sec-WebSocket-Version", "13"), header("Sec-WebSocket-Key", "short")},
			http.StatusBadRequest, "invalid", nil},
		{"no token", append(upgrade, header("Sec-WebSocket-Version", "13"), noAuth), http.StatusUnauthorized, "unauthorized", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := e.with(t).do("GET", "/api/v1/ws", nil, tt.opts...)
			msg := wantError(t, r, tt.status, tt.code)
			if msg == "" {
				t.Error("no message")
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			for k, v := range tt.headers {
				if got := r.header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
	// Version 13 among others is an upgrade.
	c, err := net.Dial("tcp", e.host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /api/v1/ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8, 13\r\nAuthorization: Bearer %s\r\n\r\n", e.host, token)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Errorf("Sec-WebSocket-Version: 8, 13 = %v %v, want 101", res, err)
	}
}
