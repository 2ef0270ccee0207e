package llm

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// A Body reads as its pieces joined, however it is read, and as often as
// the request is sent.
func TestBodyReads(t *testing.T) {
	t.Parallel()
	b := NewBody(4)
	b.Add([]byte(`{"a":`), nil, []byte(strings.Repeat("1", 70000)), []byte(`}`))
	want := []byte(`{"a":` + strings.Repeat("1", 70000) + `}`)
	if !bytes.Equal(b.Bytes(), want) || b.Len() != int64(len(want)) {
		t.Fatalf("Bytes/Len = %d bytes, %d; want %d", len(b.Bytes()), b.Len(), len(want))
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader("the SDK's own"))
	if err != nil {
		t.Fatal(err)
	}
	b.Attach(req)
	if req.ContentLength != int64(len(want)) {
		t.Errorf("ContentLength = %d, want %d", req.ContentLength, len(want))
	}
	if err := iotest.TestReader(req.Body, want); err != nil {
		t.Error(err)
	}
	again, err := req.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(again); !bytes.Equal(got, want) {
		t.Errorf("GetBody read %d bytes, want the body again", len(got))
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Error("reading the body changed its pieces")
	}
}
