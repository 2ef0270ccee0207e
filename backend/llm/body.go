package llm

import (
	"io"
	"net"
	"net/http"
	"slices"
)

// Body is a request body made of pieces (the cached encodings of a request's
// messages, and the JSON between them), sent as they are: joining them would
// copy the whole history on every call.
type Body struct {
	pieces [][]byte
	size   int64
}

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
	req.GetBody = func() (io.ReadCloser, error) {
		// net.Buffers consumes the slice it reads, not the pieces.
		r := net.Buffers(slices.Clone(b.pieces))
		return io.NopCloser(&r), nil
	}
	req.Body, _ = req.GetBody()
	req.ContentLength = b.size
}
