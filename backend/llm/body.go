package llm

import (
	"io"
	"net/http"
)

// Body is a request body made of pieces (the cached encodings of a request's
// messages, and the JSON between them), sent as they are: joining them would
// copy the whole history on every call.
type Body struct {
	pieces [][]byte
	size   int64
}

// NewBody returns an empty Body with room for n pieces.
func NewBody(n int) *Body { return &Body{pieces: make([][]byte, 0, n)} }

// Add appends pieces to the body. They must not change until the request
// has been sent.
func (b *Body) Add(pieces ...[]byte) {
	for _, p := range pieces {
		if len(p) > 0 {
			b.pieces = append(b.pieces, p)
			b.size += int64(len(p))
		}
	}
}

// Len is the body's size in bytes.
func (b *Body) Len() int64 { return b.size }

// Bytes is the body joined, for tests and messages.
func (b *Body) Bytes() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.pieces {
		out = append(out, p...)
	}
	return out
}

// Attach makes b the body of req, replacing the one it has, with its length
// and a GetBody that sends it again. Providers call it from SDK middleware,
// which sees the request the SDK built just before it is sent.
func (b *Body) Attach(req *http.Request) {
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(&bodyReader{pieces: b.pieces}), nil }
	req.Body, _ = req.GetBody()
	req.ContentLength = b.size
}

// bodyReader reads the pieces of a Body in order, without changing them.
type bodyReader struct {
	pieces [][]byte
	off    int // in pieces[0]
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(r.pieces) > 0 {
		c := copy(p[n:], r.pieces[0][r.off:])
		n += c
		r.off += c
		if r.off == len(r.pieces[0]) {
			r.pieces, r.off = r.pieces[1:], 0
		}
	}
	if n == 0 && len(r.pieces) == 0 {
		return 0, io.EOF
	}
	return n, nil
}
