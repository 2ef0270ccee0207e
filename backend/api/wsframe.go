package api

// What RFC 6455 asks of the WebSocket and gorilla/websocket (v1.5.3) does
// not do itself, checked here: the handshake's errors in the API's JSON,
// 426 for a request that is no upgrade or of another protocol version, and
// a close frame whose payload is one byte (§5.5.1: empty, or a two-byte code
// first) answered with 1002. Gorilla reads such a frame as a close without a
// code, like an empty one, so the frame's length is watched on the bytes it
// reads (frameWatch). Text that is not UTF-8 (1007) is checked in the read
// loop, on each whole message, since gorilla hands messages over unchecked.

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// wsVersion is the only version of the protocol there is (RFC 6455 §4.1).
const wsVersion = "13"

// checkUpgrade answers a request to the WebSocket route that is no upgrade
// to version 13 with 426 in the API's JSON, and reports whether it did.
func (s *Server) checkUpgrade(w http.ResponseWriter, r *http.Request) bool {
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Version", wsVersion)
		s.fail(w, r, errorf(http.StatusUpgradeRequired, CodeUpgradeRequired,
			"this route is a WebSocket: connect with Upgrade: websocket and Sec-WebSocket-Version: 13 (RFC 6455)"))
		return true
	}
	for _, v := range r.Header.Values("Sec-WebSocket-Version") {
		for _, tok := range strings.Split(v, ",") {
			if strings.TrimSpace(tok) == wsVersion {
				return false
			}
		}
	}
	w.Header().Set("Sec-WebSocket-Version", wsVersion) // RFC 6455 §4.4: the versions this server speaks
	s.fail(w, r, errorf(http.StatusUpgradeRequired, CodeUpgradeRequired,
		"Sec-WebSocket-Version "+strings.Join(r.Header.Values("Sec-WebSocket-Version"), ", ")+" is not supported: this server speaks version 13"))
	return true
}

// handshakeError answers the upgrader's refusals in the API's JSON.
func (s *Server) handshakeError(w http.ResponseWriter, r *http.Request, status int, reason error) {
	code := CodeInvalid
	switch status {
	case http.StatusForbidden:
		code = CodeForbidden
	case http.StatusMethodNotAllowed:
		code = CodeMethodNotAllowed
	case http.StatusInternalServerError:
		code = CodeInternal
	}
	w.Header().Set("Sec-WebSocket-Version", wsVersion)
	s.fail(w, r, errorf(status, code, reason.Error()))
}

// watchFrames hands the upgrader a ResponseWriter whose hijacked connection
// is watched by fw.
type watchFrames struct {
	http.ResponseWriter
	fw *frameWatch
}

func (h watchFrames) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &watchedConn{Conn: c, fw: h.fw}, brw, nil
}

// watchedConn passes everything through and shows fw what the client sent.
type watchedConn struct {
	net.Conn
	fw *frameWatch
}

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.fw.feed(p[:n])
	return n, err
}

// frameWatch follows the frame headers of the client's byte stream to learn
// the payload length of the first close frame; only the reader goroutine
// feeds it and reads it (in the close handler, which gorilla calls from
// inside a read).
type frameWatch struct {
	hdr  []byte
	skip uint64 // payload bytes of the current frame still to pass
	// closeLen is the payload length of the first close frame, -1 until
	// one came.
	closeLen int64
}

func newFrameWatch() *frameWatch { return &frameWatch{closeLen: -1, hdr: make([]byte, 0, 14)} }

func (fw *frameWatch) feed(p []byte) {
	for len(p) > 0 {
		if fw.skip > 0 {
			k := min(uint64(len(p)), fw.skip)
			fw.skip -= k
			p = p[k:]
			continue
		}
		fw.hdr = append(fw.hdr, p[0])
		p = p[1:]
		if len(fw.hdr) < 2 {
			continue
		}
		ext := 0 // bytes of extended length: 2 after 126, 8 after 127
		switch fw.hdr[1] & 0x7f {
		case 126:
			ext = 2
		case 127:
			ext = 8
		}
		mask := 0
		if fw.hdr[1]&0x80 != 0 {
			mask = 4
		}
		if len(fw.hdr) < 2+ext+mask {
			continue
		}
		n := uint64(fw.hdr[1] & 0x7f)
		if ext > 0 {
			n = 0
			for _, b := range fw.hdr[2 : 2+ext] {
				n = n<<8 | uint64(b)
			}
		}
		if fw.hdr[0]&0x0f == websocket.CloseMessage && fw.closeLen < 0 {
			fw.closeLen = int64(min(n, 1<<62))
		}
		fw.skip, fw.hdr = n, fw.hdr[:0]
	}
}

// closeHandler answers the client's close frame: with 1002 when its payload
// is one byte, else as gorilla would, echoing its code (none for none).
func closeHandler(c *websocket.Conn, fw *frameWatch) func(code int, text string) error {
	return func(code int, text string) error {
		msg := []byte{}
		switch {
		case code == websocket.CloseNoStatusReceived && fw.closeLen == 1:
			msg = websocket.FormatCloseMessage(websocket.CloseProtocolError, "a close frame's payload is empty or begins with a 2-byte status code")
		case code != websocket.CloseNoStatusReceived:
			msg = websocket.FormatCloseMessage(code, "")
		}
		// The connection ends after this either way: a failed write has
		// nothing left to tell.
		_ = c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wsWriteWait))
		return nil
	}
}
